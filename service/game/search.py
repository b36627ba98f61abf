"""The bots' decision: determinised Monte Carlo search from a seat's knowledge, never from the game.

    decide(knowledge, options, level, seed, budget_ms=None, rollouts=ROLLOUTS) -> one of ``options``

``knowledge`` is what the seat may know (observer.knowledge, a plain JSON dict); ``options`` are the seat's
legal actions, which it sees itself. The search samples worlds consistent with the knowledge (worlds.py),
builds its own Game in each and scores each candidate answer by playing on with today's policy (bots.py) for
every seat, up to the end of the next turn or of the game, and reading who is ahead (``_value``). It answers
with the candidate whose rollouts scored best for its side.

Levels (``LEVELS``): ``easy`` is today's policy itself, played in one sampled world; ``normal`` and ``hard``
search, ``hard`` with more candidates and the whole budget. The budget is a number of rollouts (``ROLLOUTS``
for ``hard``, a share of it for ``normal``), so the answer depends only on the knowledge, options and seed: a
replayed game gets the same answers, and the strength measured in docs/BENCHMARKS.md is the strength of the bot
that plays. ``budget_ms`` caps the wall-clock time on top (the service passes ``ARTEMIA_BOT_BUDGET_MS``) for a
machine too busy to finish the rollouts in time; with ``rollouts=None`` the time budget alone decides how many
are played (the arena's ``--rollouts 0``).

The arguments are checked to be plain JSON and copied through JSON first, so nothing the caller holds (a
game, its state) can be reached from here; the import-linter contract "The search sees a seat's knowledge,
never the game" keeps the observer and the stored games out of this module's imports.
"""

import json
import random
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from service.game.bots import choose
from service.game.engine import Game
from service.game.rules.common import CREATURE
from service.game.state import Action
from service.game.worlds import world


@dataclass(frozen=True)
class Level:
    candidates: int  # how many answers are compared (the policy's favourites first)
    share: float  # the part of the budget (time or rollouts) spent


LEVELS: Final[dict[str, Level | None]] = {"easy": None, "normal": Level(candidates=3, share=0.4), "hard": Level(6, 1.0)}
DEFAULT_LEVEL: Final = "normal"
# Rollouts of a hard decision (~15-30 ms on one core): at this figure hard beats today's policy by 16-25 points of
# win rate in every seat (docs/BENCHMARKS.md); the time a decision may take is capped apart (budget_ms).
ROLLOUTS: Final = 24
HORIZON_TURNS: Final = 1  # rollouts stop at the end of the turn after this one (or the game's end)
_PROPOSALS: Final = 12  # sampled worlds asked for the policy's favourite answers


def decide(
    knowledge: dict[str, Any],
    options: list[Action],
    level: str,
    seed: int,
    budget_ms: float | None = None,
    rollouts: int | None = ROLLOUTS,
) -> Action:
    """The answer, among ``options``, of a bot at ``level`` holding ``knowledge``."""
    if not isinstance(knowledge, dict) or not isinstance(options, list) or not options:
        raise TypeError("decide takes a seat's knowledge (a dict) and its legal options (a non-empty list)")
    knowledge, options = json.loads(json.dumps(knowledge)), json.loads(json.dumps(options))  # sever any reference
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
    if rollouts is None and budget_ms is None:
        raise ValueError("decide needs a budget: a number of rollouts, a time in ms, or both")
    rng = random.Random(seed)
    seat = knowledge["seat"]
    spec = LEVELS[level]
    if spec is None:
        return _policy_answer(knowledge, options, seat, rng) or options[0]
    if len(options) == 1:
        return options[0]
    candidates = _candidates(knowledge, options, seat, rng, spec.candidates)
    if len(candidates) == 1:
        return candidates[0]
    limit = None if rollouts is None else max(len(candidates), round(spec.share * rollouts))
    # A cap on top of a rollout count is the whole budget; a time budget alone is shared out like rollouts.
    seconds = None if budget_ms is None else (budget_ms if limit is not None else spec.share * budget_ms) / 1000
    deadline = None if seconds is None else time.perf_counter() + seconds
    totals = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    done = 0
    while (limit is None or done < limit) and (
        deadline is None or done < len(candidates) or time.perf_counter() < deadline
    ):
        i = done % len(candidates)
        value = _rollout(knowledge, seat, candidates[i], rng)
        done += 1
        if value is not None:
            totals[i] += value
            counts[i] += 1
    best = max(range(len(candidates)), key=lambda i: (totals[i] / counts[i] if counts[i] else -1.0, -i))
    return candidates[best]


def _policy_answer(knowledge: dict[str, Any], options: list[Action], seat: int, rng: random.Random) -> Action | None:
    """Today's policy's answer in a sampled world (None when that world does not offer the same options)."""
    game = Game(world(knowledge, rng))
    if game.legal_actions(seat) != options:
        return None
    answer = choose(game, seat, rng)
    return answer[0] if answer else None


def _candidates(
    knowledge: dict[str, Any], options: list[Action], seat: int, rng: random.Random, most: int
) -> list[Action]:
    """The answers worth comparing: all of them when few, else the policy's most frequent answers."""
    if len(options) <= most:
        return options
    votes: Counter[str] = Counter()
    for _ in range(_PROPOSALS):
        answer = _policy_answer(knowledge, options, seat, rng)
        if answer is not None:
            votes[json.dumps(answer, sort_keys=True)] += 1
    chosen = [json.loads(text) for text, _ in votes.most_common(most)]
    return chosen or [options[0]]


def _rollout(knowledge: dict[str, Any], seat: int, action: Action, rng: random.Random) -> float | None:
    """How well ``action`` did for the seat's side in one sampled world (0..1; None: the world did not allow it)."""
    game = Game(world(knowledge, rng))
    if action not in game.legal_actions(seat):
        return None
    game.apply(seat, action)
    last_turn = game.turn + HORIZON_TURNS
    while not game.is_over and game.turn <= last_turn:
        waiting = game.waiting_for()
        who = waiting[rng.randrange(len(waiting))]
        for step in choose(game, who, rng):
            game.apply(who, step)
            if game.is_over:
                break
    creature_value = _value(game)
    return creature_value if seat == CREATURE else 1 - creature_value


def _value(game: Game) -> float:
    """The Creature's chances as the counters stand: 1 or 0 once the game is over, else the share of the way
    the Rescue counter still has to go among both counters' remaining ways."""
    if game.is_over:
        return 1.0 if game.winner == "creature" else 0.0
    rescue, assimilation = game.s["rescue"], game.s["assimilation"]
    return rescue / (rescue + assimilation)
