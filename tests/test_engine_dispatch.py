"""The dispatch tables (service/game/rules/dispatch.py) cover what games use, and agree with each other."""

import random

from service.game import new_game
from service.game.answers import DEFERRED_KIND
from service.game.bots import play_out
from service.game.engine import ACTION_TYPES
from service.game.rules.dispatch import ANSWERS_THAT_CLOSE, LIVE_ACTIONS, QUESTIONS, TASKS


def test_every_deferred_question_has_its_window_and_its_task():
    assert set(QUESTIONS) == set(DEFERRED_KIND) <= set(TASKS)
    assert set(DEFERRED_KIND.values()) == {"prereveal", "reckoning"}


def test_live_actions_are_actions():
    assert ANSWERS_THAT_CLOSE <= set(LIVE_ACTIONS) <= ACTION_TYPES


def test_every_task_on_an_agenda_has_a_function():
    seen = set()

    def note(g):
        seen.update(task[0] for task in g.s["agenda"])

    for seed in range(30):
        game = new_game({"players": 2 + seed % 6, "seed": seed, "side": None})
        note(game)
        play_out(game, random.Random(seed), eager=seed % 2 == 1, on_step=note)
    assert seen <= set(TASKS)
    assert {"start_turn", "hunt", "reveal", "cards", "end_cards", "end_turn"} <= seen  # "explore" runs at once
