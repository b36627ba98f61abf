"""A window whose last awaited answer comes while a Hunted's question ahead is open waits a moment for it
(`Settings.may_hold_seconds`): answered, it closes at once; unanswered, it closes when the moment is over, and the
question is asked in the next window as before. The deadline people were shown does not move."""

import pytest
from pipeline_support import Clock, answer_all, make_ctx, run_jobs, table

from service.game import Game
from service.pipeline import ingest, upkeep
from service.pipeline.ingest import Status
from service.pipeline.resolution import start_game
from service.store import keys

G = "hold1"
HUNTED = (1, 2, 3)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def ctx(clock):
    ctx = make_ctx(clock=clock, may_hold_seconds=3.0)
    start_game(ctx, G, {"players": 4, "seed": 3, "side": 1, "expert": False}, table(4, humans=[0, 1, 2, 3]))
    for _ in range(12):  # on to an exploration where each Hunted's first place leaves a question ahead
        game = Game.from_json(ctx.store.load(G).json)
        if game.window["kind"] == "explore" and all(asks_ahead(game, seat) for seat in HUNTED):
            upkeep.sweep(ctx)  # the sweeper's heartbeat: a deadline job fires only beside a live sweeper
            return ctx
        snap = ctx.store.load(G)
        for seat in sorted(ctx.store.expected(G)):  # each seat its first place, or the Creature its first tokens
            options = game.legal_actions(seat)
            ingest.submit(
                ctx, G, seat, [next((a for a in options if a["type"] in ("play", "tokens")), options[0])], snap.window
            )
        run_jobs(ctx)
    raise AssertionError("no exploration asks every Hunted a question ahead")


def asks_ahead(game, seat):
    trial = game.copy()
    trial.apply(seat, next(a for a in trial.legal_actions(seat) if a["type"] == "play"))
    return seat in trial.may_answer()


def place_and_question(ctx, seat):
    """The seat's first place card, and the first answer to the question ahead that it leaves open."""
    game = Game.from_json(ctx.store.load(G).json)
    place = next(a for a in game.legal_actions(seat) if a["type"] == "play")
    game.apply(seat, place)
    ahead = game.legal_actions(seat)
    assert seat in game.may_answer() and ahead[0]["type"] == "ahead"
    return place, ahead[0]


def test_the_last_place_with_its_question_ahead_open_waits_a_moment_and_its_answer_closes_it(ctx, clock):
    snap = ctx.store.load(G)
    window, deadline = snap.window, snap.deadline
    for seat in (1, 2):
        place, ahead = place_and_question(ctx, seat)
        assert ingest.submit(ctx, G, seat, [place, ahead], window).status is Status.ACCEPTED
    place, ahead = place_and_question(ctx, 3)
    last = ingest.submit(ctx, G, 3, [place], window)
    assert (last.status, last.waiting) == (Status.ACCEPTED, 0)  # all in, one question ahead open: held
    held = ctx.store.load(G)
    assert (held.status, held.held, held.deadline) == ("collecting", clock.now + 3.0, deadline)
    assert ingest.submit(ctx, G, 3, [place, ahead], window).status is Status.RESOLVE  # answered: closes at once
    answer_all(ctx, G)  # (runs the resolution)
    after = ctx.store.load(G)
    assert after.window != window and after.held is None
    assert Game.from_json(after.json).may_answer() == []  # nobody is asked it again


def test_a_question_ahead_left_open_is_asked_in_the_next_window_once_the_moment_is_over(ctx, clock):
    window = ctx.store.load(G).window
    for seat in HUNTED:
        place, _ = place_and_question(ctx, seat)
        ingest.submit(ctx, G, seat, [place], window)
    assert ctx.store.load(G).status == "collecting"
    clock.advance(2.9)
    assert upkeep.check_game(ctx, G) == "waiting"  # the sweeper knows the moment, not only the deadline
    clock.advance(0.1)
    assert upkeep.check_game(ctx, G) == "resolved"
    assert ctx.store.redis.get(keys.RATE_QUESTIONS) is None  # one table's moment is no deadline burst
    game = Game.from_json(ctx.store.load(G).json)
    assert game.window["kind"] == "hunt" and sorted(game.may_answer()) == list(HUNTED)
    assert ctx.store.streaks(G) == {}  # nobody was played for


def test_a_window_with_no_question_ahead_open_closes_with_its_last_answer(ctx):
    window = ctx.store.load(G).window
    results = []
    for seat in HUNTED:
        place, ahead = place_and_question(ctx, seat)
        results.append(ingest.submit(ctx, G, seat, [place, ahead], window).status)
    assert results == [Status.ACCEPTED, Status.ACCEPTED, Status.RESOLVE]
