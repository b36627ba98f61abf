"""A window's resolution plays for a seat only when that seat was asked and did not answer.

Whole seeded games of 2-7 players under both secrecy settings, each window answered as the pipeline collects answers: every seat the
window waits for when it opens answers in full on a copy of the game as it opened (a player sees only that), then
the stored answers are applied in the resolution's order (`resolution.apply_answers`) and the rest is auto-played
(`resolution._autoplay_rest`). A seat played for there without an answer of its own is told that its time ran out
and counts towards the bot taking its seat: it must have been asked. A Detour in the Reckoning that moves a Hunted
who had no question to a place with a choice once broke this (about 1 game in 40 of 2-3 players), and so did a
Detour that gave its Hunted a Dodge to answer (1 game in 400).
"""

import random

from service.channels import ui
from service.game import Game, new_game
from service.pipeline.resolution import _autoplay_rest, apply_answers


def complete_answer(game: Game, seat: int, rnd: random.Random) -> list[dict]:
    """Random legal actions of ``seat`` on a copy of ``game`` until its window asks it nothing more."""
    window, stage, actions = game.window["id"], game.copy(), []
    while ui.asked(stage, seat, window):
        action = rnd.choice(stage.legal_actions(seat))
        stage.apply(seat, action)
        actions.append(action)
    return actions


def test_nobody_is_played_for_who_was_not_asked():
    played_for_unasked = []
    for seed in range(400):
        secrecy = "fast" if seed % 3 == 0 else "strict"
        config = {"players": 2 + seed % 6, "seed": seed, "secrecy": secrecy, "expert": seed % 5 == 0}
        game, rnd = new_game(config), random.Random(seed)
        while not game.is_over:
            window = game.window["id"]
            expected = set(game.waiting_for())
            answers = {seat: complete_answer(game, seat, rnd) for seat in sorted(expected)}
            applied: list = []
            apply_answers(game, window, answers, expected, applied)
            _, played = _autoplay_rest(game, window, expected, applied)
            played_for_unasked += [(seed, window, seat) for seat in played if seat not in answers]
    assert played_for_unasked == []
