"""Bot seats in the pipeline (`service.pipeline.resolution.open_window`): the bots a table added answer at their
level and a vanished player's seat is played at ``vanished_bot_level``, all as the window opens (nobody waits)."""

import random

from pipeline_support import Clock, make_ctx

from service.game import new_game
from service.game.bots import choose
from service.pipeline import botplay, resolution


def fast_explore_window(players: int):
    """An exploration in which the Creature holds a phase-1 card, under fast secrecy (it is waited for)."""
    for seed in range(100):
        game = new_game({"players": players, "seed": seed, "side": 1, "secrecy": "fast"})
        if 0 in game.waiting_for():
            return game
    raise AssertionError("no seed gives the Creature a phase-1 card")


def explore_window(players: int):
    game, rng = new_game({"players": players, "seed": 3, "side": 1}), random.Random(3)
    while game.window["kind"] != "explore":
        seat = game.waiting_for()[0]
        game.apply(seat, choose(game, seat, rng)[0])
    return game


def test_bot_seats_answer_at_their_level_when_the_window_opens(monkeypatch):
    ctx = make_ctx(clock=Clock(), bot_budget_ms=5, autoplay_bot_after=2)
    asked: list[tuple[int, str]] = []
    search = botplay.botseat.answer

    def recorded(game, seat, level, **kwargs):
        asked.append((seat, level))
        return search(game, seat, level, **kwargs)

    monkeypatch.setattr(botplay.botseat, "answer", recorded)
    game = explore_window(5)
    meta = {"bots": [1, 2, 3], "bot_levels": {"1": "hard", "2": "easy"}, "deadline_seconds": 60}
    streaks = {4: 2, 0: 1}  # seat 4 vanished (two deadlines missed); the Creature missed one only
    opening = resolution.open_window(ctx, game, meta, streaks, ctx.clock())
    # under strict secrecy the exploration waits for the Hunted only (the Creature may play a phase-1 card
    # meanwhile): every seat it waits for is a bot's, so the window resolves at once
    assert set(opening.prefilled) == {1, 2, 3, 4} and opening.status == "resolving"
    fast = resolution.open_window(ctx, fast_explore_window(5), meta, streaks, ctx.clock())
    assert set(fast.prefilled) == {1, 2, 3, 4} and fast.status == "collecting", "under fast it waits for the Creature"
    assert {seat for seat, _ in asked} == {1, 2, 4}, "seat 3 filled a sized table: it auto-plays"
    assert {seat: level for seat, level in asked} == {1: "hard", 2: "easy", 4: "normal"}
    trial = game.copy()
    for seat, actions in opening.prefilled.items():
        for action in actions:
            trial.apply(seat, action)
    assert not set(trial.waiting_for()) & {1, 2, 3, 4}, "each bot's answer is its whole answer to the window"
