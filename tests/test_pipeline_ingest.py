"""The ingest API on fakeredis with the real engine: validation before storing, statuses, the resolve job."""

import pytest
from pipeline_support import CONFIG, Clock, make_ctx, run_jobs, table

from service.game import Game
from service.ops import metrics
from service.pipeline import ingest, upkeep
from service.pipeline.botplay import bot_answer
from service.pipeline.ingest import Reason, Status
from service.pipeline.resolution import resolve_window, start_game
from service.store import keys

G = "ing1"


@pytest.fixture
def ctx():
    ctx = make_ctx(clock=Clock())
    start_game(ctx, G, CONFIG, table(3, humans=[1, 2]))
    return ctx


def legal(ctx, seat):
    return Game.from_json(ctx.store.load(G).json).legal_actions(seat)


def play(ctx, seat):
    return [next(a for a in legal(ctx, seat) if a["type"] == "play")]


def test_first_window_asks_the_hunted(ctx):
    snap = ctx.store.load(G)
    assert (snap.version, snap.window, snap.status) == (1, 1, "collecting")
    assert ctx.store.expected(G) == {1, 2}


def test_an_illegal_answer_is_refused_and_changes_nothing(ctx):
    before = ctx.store.redis.hgetall(keys.snap(G))
    result = ingest.submit(ctx, G, 1, [{"type": "play", "cards": [99]}], 1, "d1")
    assert (result.status, result.reason) == (Status.INVALID, Reason.ILLEGAL)
    assert result.params["action"] == {"type": "play", "cards": [99]} and result.params["detail"]  # the engine's
    nonsense = ingest.submit(ctx, G, 1, [{"type": "nonsense"}], 1, "d1")
    assert nonsense.status is Status.INVALID and nonsense.reason in (Reason.ILLEGAL, Reason.MALFORMED)
    assert (ingest.submit(ctx, G, 1, [], 1, "d1").status, ingest.submit(ctx, G, 1, [], 1, "d1").reason) == (
        Status.INVALID,
        Reason.EMPTY,
    )
    assert ctx.store.answers(G) == {}
    assert ctx.store.redis.hgetall(keys.snap(G)) == before
    assert not ctx.store.redis.sismember(keys.dedup(G), "d1")  # a refused answer does not burn its dedup id


def test_wrong_seat_unknown_game_and_expired_window_get_clear_replies(ctx):
    nogame = ingest.submit(ctx, "nope", 1, play(ctx, 1), 1)
    assert (nogame.status, nogame.reason) == (Status.INVALID, Reason.NO_GAME)
    assert ingest.submit(ctx, G, 9, play(ctx, 1), 1).status is Status.INVALID
    stale = ingest.submit(ctx, G, 1, play(ctx, 1), 0)
    assert (stale.status, stale.reason, stale.params) == (Status.STALE, Reason.EXPIRED, {"window": 0, "now": 1})


def test_accept_then_duplicate_then_last_answer_enqueues_one_resolution(ctx):
    first = ingest.submit(ctx, G, 1, play(ctx, 1), 1, "upd-1")
    assert (first.status, first.waiting, first.actions, first.reason) == (Status.ACCEPTED, 1, tuple(play(ctx, 1)), None)
    dup = ingest.submit(ctx, G, 1, play(ctx, 1), 1, "upd-1")
    assert (dup.status, dup.reason) == (Status.DUP, Reason.DUP)
    last = ingest.submit(ctx, G, 2, play(ctx, 2), 1, "upd-2")
    assert last.status is Status.RESOLVE
    # the window is noted ready, and one resolving job is queued to take it
    assert ctx.store.redis.zrange(keys.READY, 0, -1) == [f"{G} 1".encode()]
    assert [ctx.queue.fetch_job(j).func_name for j in ctx.queue.job_ids] == ["workers.jobs.resolve_ready"]
    assert ingest.submit(ctx, G, 2, play(ctx, 2), 1, "upd-3").status is Status.CLOSED
    assert ctx.store.redis.zcard(keys.READY) == 1 and len(ctx.queue.job_ids) == 1
    run_jobs(ctx)
    snap = ctx.store.load(G)
    assert snap.window > 1 and snap.version >= 2
    assert ctx.store.resolution_log(G)[:2] == ["1:", "2:1"]
    assert ingest.submit(ctx, G, 1, play(ctx, 1), 1, "upd-4").status is Status.STALE


def test_a_snapshot_read_by_the_channel_is_rechecked_by_the_submit_script(ctx):
    seen = ctx.store.load(G)  # what a webhook read just before the window closed
    one, two = play(ctx, 1), play(ctx, 2)
    first = ingest.submit(ctx, G, 1, one, 1, "q1", seen)
    assert first.status is Status.ACCEPTED
    assert ctx.refresh_queue.jobs == []  # console chats: no living message shows the tick
    assert not ctx.store.redis.exists(keys.refresh_mark(G), keys.refresh_seats(G))
    assert ctx.store.redis.hget(metrics.COUNTERS_KEY, "answers|channel=any") == b"1"  # counted at once here
    assert ingest.submit(ctx, G, 1, one, 1, "q1", seen).status is Status.DUP
    assert ingest.submit(ctx, G, 2, two, 1, "q2", seen).status is Status.RESOLVE
    assert ingest.submit(ctx, G, 2, two, 1, "q3", seen).status is Status.CLOSED
    run_jobs(ctx)
    assert ingest.submit(ctx, G, 1, one, 1, "q4", seen).status is Status.STALE
    assert ctx.store.resolution_log(G)[:2] == ["1:", "2:1"]


def test_resolving_twice_changes_nothing_the_second_time(ctx):
    ingest.submit(ctx, G, 1, play(ctx, 1), 1)
    ctx.store.submit(G, 1, 2, play(ctx, 2), None, ctx.clock())  # last answer, but no job enqueued
    assert resolve_window(ctx, G, 1) == "resolved"
    after = ctx.store.redis.hgetall(keys.snap(G))
    assert resolve_window(ctx, G, 1) == "noop"
    assert ctx.store.redis.hgetall(keys.snap(G)) == after


def test_a_game_id_cannot_be_started_twice(ctx):
    from service.pipeline.resolution import GameExists

    with pytest.raises(GameExists):
        start_game(ctx, G, CONFIG, table(3, humans=[1, 2]))


def test_only_plans_may_follow_the_move_that_completes_a_window():
    from service.game import new_game
    from service.pipeline.botplay import bot_answer

    game = new_game(CONFIG)
    for seat in (1, 2):
        for action in bot_answer(game, seat):
            game.apply(seat, action)
    assert game.waiting_for() == [0]  # the hunt: the Creature alone
    window, tokens = game.window["id"], bot_answer(game, 0)
    plan = {"type": "plan", "orders": [{"type": "pass"}]}
    assert ingest.check_answer(Game.from_json(game.to_json()), 0, tokens + [plan], window) is None
    too_many = ingest.check_answer(Game.from_json(game.to_json()), 0, tokens + tokens, window)
    assert (too_many.reason, too_many.params) == (Reason.TOO_MANY, {"n": len(tokens)})
    assert ingest.check_answer(Game.from_json(game.to_json()), 0, ["junk"], window).reason in (
        Reason.ILLEGAL,
        Reason.MALFORMED,
    )


def test_the_result_is_data_and_each_language_words_it(ctx):
    """No words in the result: the channels word it (`service.channels.plain.submitted`) in the player's language."""
    from service.channels.plain import submitted

    game = Game.from_json(ctx.store.load(G).json)
    first = ingest.submit(ctx, G, 1, play(ctx, 1), 1, "w1")
    assert not any(isinstance(v, str) and " " in v for v in vars(first).values())  # nothing worded
    assert submitted(first, game, 1, "en").startswith("Locked in: play ") and "waiting for 1 more answer." in submitted(
        first, game, 1, "en"
    )
    assert submitted(first, game, 1, "cs").startswith(
        "Zaznamenáno: hraj "
    ) and "čeká se ještě na 1 odpověď." in submitted(first, game, 1, "cs")
    illegal = ingest.submit(ctx, G, 2, [{"type": "play", "cards": [10]}], 1)  # not in the hand
    cs = submitted(illegal, game, 2, "cs")
    assert cs.startswith("Tohle teď nejde") and "Teď můžeš: " in cs and "hraj" in cs, cs
    assert illegal.params["detail"] not in cs  # the engine's English words are for the logs
    stale = ingest.submit(ctx, G, 2, play(ctx, 2), 0)
    assert submitted(stale, game, 2, "cs") == "Tahle volba už neplatí: krok 0 skončil (teď je krok 1)."
    assert submitted(stale, game, 2, "en") == "That choice has expired: step 0 is over (now at step 1)."
    for reason in Reason:  # every reason has words in both languages, different in each
        params = {"window": 1, "now": 2, "n": 2, "action": play(ctx, 1)[0], "detail": "x", "game": game}
        result = ingest.SubmitResult(Status.INVALID, reason=reason, params=params)
        assert submitted(result, game, 1, "en") != submitted(result, game, 1, "cs"), reason


def test_a_flood_of_answers_queues_one_refresh_per_game_at_a_time():
    """5,000 presses of a valid answer once queued 2,698 refresh jobs: now one job waits per game, and it shows
    every answer noted before it started; an answer after it started queues the next."""
    ctx = make_ctx(clock=Clock())
    meta = table(3, humans=[1, 2], group="-100500")
    meta["players"]["1"]["chat"], meta["players"]["2"]["chat"] = "501", "502"
    start_game(ctx, G, CONFIG, meta)
    run_jobs(ctx)  # the first step's messages
    sent = len(ctx.sender.sent())
    for n in range(50):
        assert ingest.submit(ctx, G, 1, play(ctx, 1), 1, f"q{n}").status is Status.ACCEPTED
    assert [j.id for j in ctx.refresh_queue.jobs] == [f"refresh-{G}-1"]
    assert ctx.send_queue.jobs == []  # off the delivery queue
    assert ctx.store.take_refresh(G) == {1}  # what the job takes when it starts ...
    ctx.refresh_queue.empty()
    assert ingest.submit(ctx, G, 1, play(ctx, 1), 1, "q-after").status is Status.ACCEPTED
    assert [j.id for j in ctx.refresh_queue.jobs] == [f"refresh-{G}-1"]  # ... so the next answer queues again
    run_jobs(ctx)
    group = [m for m in ctx.sender.sent()[sent:] if m["chat"] == "-100500"]
    assert len(group) == 1 and "P1" in group[0]["text"]
    assert ctx.store.redis.exists(keys.refresh_mark(G)) == 0


def test_a_refresh_whose_window_closed_meanwhile_sends_nothing():
    """A refresh that runs after the last answer closed the window (the workers were busy): the step's messages
    show both answers, and the refresh has nothing left to send (no tick, no "locked in" the next question
    replaces)."""
    ctx = make_ctx(clock=Clock())
    meta = table(3, humans=[1, 2], group="-100500")
    meta["players"]["1"]["chat"], meta["players"]["2"]["chat"] = "501", "502"
    start_game(ctx, G, CONFIG, meta)
    assert ingest.submit(ctx, G, 1, play(ctx, 1), 1, "q1").status is Status.ACCEPTED
    assert ingest.submit(ctx, G, 2, play(ctx, 2), 1, "q2").status is Status.RESOLVE
    run_jobs(ctx)  # the resolution and its messages
    sent = len(ctx.sender.sent())
    assert upkeep.refresh(ctx, G, 1) is False
    run_jobs(ctx)
    assert len(ctx.sender.sent()) == sent


def test_a_refresh_still_queued_when_its_window_is_resolved_is_dropped_with_its_mark():
    """Tables answering faster than the workers keep up: each window's first answer queued a refresh, and the last
    answer closed the window before a worker got to it. The resolution's commit drops the job with the refresh
    mark (the step's messages show every answer), so no worker spends a job finding the window closed, and the
    next window's first answer queues a refresh again. A refresh a worker has already taken off the queue is
    left to run: the mark stays for it to take."""
    ctx = make_ctx(clock=Clock())
    meta = table(3, humans=[1, 2], group="-100500")
    meta["players"]["1"]["chat"], meta["players"]["2"]["chat"] = "501", "502"
    start_game(ctx, G, CONFIG, meta)
    run_jobs(ctx)
    assert ingest.submit(ctx, G, 1, play(ctx, 1), 1, "q1").status is Status.ACCEPTED
    assert [j.id for j in ctx.refresh_queue.jobs] == [f"refresh-{G}-1"]
    assert ingest.submit(ctx, G, 2, play(ctx, 2), 1, "q2").status is Status.RESOLVE
    assert resolve_window(ctx, G, 1) == "resolved"
    assert ctx.refresh_queue.jobs == [] and ctx.store.redis.llen(ctx.refresh_queue.key) == 0
    assert not ctx.store.redis.exists(f"rq:job:refresh-{G}-1", keys.refresh_mark(G), keys.refresh_seats(G))

    snap = ctx.store.load(G)
    while len(ctx.store.expected(G)) < 2:  # on to a window that waits for both Hunted
        game = Game.from_json(snap.json)
        for seat in sorted(ctx.store.expected(G)):
            ingest.submit(ctx, G, seat, bot_answer(game, seat), snap.window)
        resolve_window(ctx, G, snap.window)
        snap = ctx.store.load(G)
    first, last = sorted(ctx.store.expected(G))
    game = Game.from_json(snap.json)
    assert ingest.submit(ctx, G, first, bot_answer(game, first), snap.window).status is Status.ACCEPTED
    assert [j.id for j in ctx.refresh_queue.jobs] == [f"refresh-{G}-{snap.window}"]  # queued again
    ctx.store.redis.lpop(ctx.refresh_queue.key)  # a worker takes it, and has not started it yet
    assert ingest.submit(ctx, G, last, bot_answer(game, last), snap.window).status is Status.RESOLVE
    assert resolve_window(ctx, G, snap.window) == "resolved"
    assert ctx.store.redis.exists(keys.refresh_mark(G), f"rq:job:refresh-{G}-{snap.window}") == 2  # left to it
    assert upkeep.refresh(ctx, G, snap.window) is False  # it finds the window closed, and clears the mark
    assert not ctx.store.redis.exists(keys.refresh_mark(G))
