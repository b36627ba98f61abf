"""A bot in a seat: hands the search (search.py) the seat's knowledge and legal options, never the game.

    answer(game, seat, level, budget_ms=None, rollouts=ROLLOUTS, seed=None) -> the bot's next action for ``seat``

The seed defaults to one derived from the game's position (its seed, the window, the seat and how often the
game drew randomness), so a replayed game gets the same bot answers (unless ``budget_ms`` cut a search short).
"""

import random
from typing import Any

from service.game import observer
from service.game.engine import Game
from service.game.rules.secrecy import CALL
from service.game.search import ROLLOUTS, decide
from service.game.state import Action


def answer(
    game: Game,
    seat: int,
    level: str,
    budget_ms: float | None = None,
    rollouts: int | None = ROLLOUTS,
    seed: int | None = None,
) -> Action:
    options = game.legal_actions(seat)
    if not options:
        raise ValueError(f"seat {seat} has nothing to answer now")
    if CALL in options:  # strict secrecy: a bot always asks to be asked about its cards (its answers cost no wait)
        return CALL
    if seed is None:
        seed = _position_seed(game, seat)
    knowledge: dict[str, Any] = observer.knowledge(game, seat)
    return decide(knowledge, options, level, seed, budget_ms=budget_ms, rollouts=rollouts)


def _position_seed(game: Game, seat: int) -> int:
    s = game.s
    window = s["window"]
    key = f"bot:{s['config']['seed']}:{window['id'] if window else 0}:{seat}:{s['rng_draws']}"
    return random.Random(key).randrange(2**31)
