"""OpenSpiel-style random playouts: uniformly random legal actions from the start until the game is terminal, for
many seeds and every player count, checking the invariants at every step and the returns at the end."""

import random

import pytest

from service.game import CREATURE, IllegalAction, new_game
from tests.engine_helpers import check_invariants

MAX_STEPS = 5000


@pytest.mark.parametrize("players", range(2, 8))
def test_random_playouts_end_with_consistent_returns(players):
    for seed in range(25):
        game, rng = new_game({"players": players, "seed": 1000 + seed, "side": None}), random.Random(seed)
        steps = 0
        while not game.is_terminal():
            assert game.returns() == [0.0] * players
            waiting = game.waiting_for()
            assert waiting and game.window is not None
            seat = rng.choice(waiting)
            legal = game.legal_actions(seat)
            assert legal, f"seat {seat} is waited for without a legal action"
            game.apply(seat, rng.choice(legal))
            check_invariants(game)
            steps += 1
            assert steps < MAX_STEPS, "the game does not end"
        returns = game.returns()
        creature_won = game.winner == "creature"
        assert returns[CREATURE] == (1.0 if creature_won else -1.0)
        assert all(r == -returns[CREATURE] for r in returns[1:])
        assert game.is_over and game.window is None and game.waiting_for() == []
        assert all(game.legal_actions(s) == [] for s in range(players))
        with pytest.raises(IllegalAction):
            game.apply(CREATURE, {"type": "pass"})
