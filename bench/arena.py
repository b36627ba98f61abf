"""The arena: bot-only games between bot levels, with win rates and 95 % intervals (one process, one core).

    python -m bench.arena --players N --creature LEVEL --hunted LEVEL --games G [--json]
                          [--rollouts R] [--budget-ms MS] [--seed S]

``easy`` is today's policy (bots.choose) played on the game itself; ``normal`` and ``hard`` are the search
(search.py), given only their seat's knowledge, with the rollouts they play in service (``--rollouts``, default
search.ROLLOUTS), so a run is reproducible and measures the bot that plays. ``--budget-ms MS`` adds the service's
wall-clock cap (then a busy machine may cut searches short); ``--rollouts 0 --budget-ms MS`` lets the time alone
decide how many rollouts are played. Game i uses engine seed S + i. With ``--json`` the last line is
one object: {"games", "creature_wins", "hunted_wins", "creature_rate", "creature_ci95", "players", "creature",
"hunted", "budget_ms", "rollouts", "seconds", "decision_ms_p50", "decision_ms_p95"}.
"""

import argparse
import json
import math
import random
import time

from service.game import new_game
from service.game.bots import choose
from service.game.botseat import answer
from service.game.engine import Game
from service.game.rules.common import CREATURE
from service.game.search import LEVELS, ROLLOUTS


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(
    players: int, levels: dict[str, str], seed: int, budget_ms: float | None, rollouts: int | None, times: list[float]
):
    """One bot-only game; the winner. ``times`` gets the seconds each searching decision took."""
    game: Game = new_game({"players": players, "seed": seed})
    rng = random.Random(seed)
    while not game.is_over:
        waiting = game.waiting_for()
        seat = waiting[rng.randrange(len(waiting))]
        level = levels["creature" if seat == CREATURE else "hunted"]
        if level == "easy":
            for action in choose(game, seat, rng):
                game.apply(seat, action)
                if game.is_over:
                    break
            continue
        start = time.perf_counter()
        action = answer(game, seat, level, budget_ms=budget_ms, rollouts=rollouts, seed=rng.randrange(2**31))
        times.append(time.perf_counter() - start)
        game.apply(seat, action)
    return game.winner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--creature", choices=list(LEVELS), required=True)
    parser.add_argument("--hunted", choices=list(LEVELS), required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--budget-ms", type=float, default=None)
    parser.add_argument("--rollouts", type=int, default=ROLLOUTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rollouts = args.rollouts or None
    if rollouts is None and args.budget_ms is None:
        parser.error("--rollouts 0 needs --budget-ms: the search needs a budget")
    levels = {"creature": args.creature, "hunted": args.hunted}
    start, times, creature_wins = time.perf_counter(), [], 0
    for i in range(args.games):
        creature_wins += play(args.players, levels, args.seed + i, args.budget_ms, rollouts, times) == "creature"
    seconds = time.perf_counter() - start
    hunted_wins = args.games - creature_wins
    low, high = wilson(creature_wins, args.games)
    times.sort()
    p50 = times[len(times) // 2] * 1000 if times else 0.0
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))] * 1000 if times else 0.0
    print(f"{args.players} players, Creature {args.creature} vs Hunted {args.hunted}, {args.games} games")
    budget = " and ".join(
        ([f"{rollouts} rollouts"] if rollouts else []) + ([f"{args.budget_ms:g} ms"] if args.budget_ms else [])
    )
    print(f"  search budget per decision: {budget}; decision time p50 {p50:.0f} ms, p95 {p95:.0f} ms")
    print(f"  Creature wins {creature_wins / args.games:.1%} (95 % CI {low:.1%} - {high:.1%})")
    print(f"  Hunted wins   {hunted_wins / args.games:.1%} (95 % CI {1 - high:.1%} - {1 - low:.1%})")
    print(f"  {seconds:.0f} s")
    if args.json:
        result = {
            "games": args.games,
            "creature_wins": creature_wins,
            "hunted_wins": hunted_wins,
            "creature_rate": round(creature_wins / args.games, 4),
            "creature_ci95": [round(low, 4), round(high, 4)],
            "players": args.players,
            "creature": args.creature,
            "hunted": args.hunted,
            "budget_ms": args.budget_ms,
            "rollouts": rollouts,
            "seconds": round(seconds, 1),
            "decision_ms_p50": round(p50, 1),
            "decision_ms_p95": round(p95, 1),
        }
        print(json.dumps(result))


if __name__ == "__main__":
    main()
