"""The arena: bot-only games between bot levels, with win rates and 95 % intervals (one process, one core).

    python -m bench.arena --players N --creature LEVEL --hunted LEVEL --games G [--json]
                          [--budget-ms MS | --rollouts R] [--seed S]

``easy`` is today's policy (bots.choose) played on the game itself; ``normal`` and ``hard`` are the search
(search.py), given only their seat's knowledge. ``--rollouts R`` gives the search a fixed number of rollouts per
decision instead of a time budget, so that a run is reproducible and affordable; without it each decision gets
``--budget-ms`` of wall-clock time (default 200). Game i uses engine seed S + i. With ``--json`` the last line is
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
from service.game.search import LEVELS


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play(players: int, levels: dict[str, str], seed: int, budget_ms: float, rollouts: int | None, times: list[float]):
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
    parser.add_argument("--budget-ms", type=float, default=200)
    parser.add_argument("--rollouts", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    levels = {"creature": args.creature, "hunted": args.hunted}
    start, times, creature_wins = time.perf_counter(), [], 0
    for i in range(args.games):
        creature_wins += play(args.players, levels, args.seed + i, args.budget_ms, args.rollouts, times) == "creature"
    seconds = time.perf_counter() - start
    hunted_wins = args.games - creature_wins
    low, high = wilson(creature_wins, args.games)
    times.sort()
    p50 = times[len(times) // 2] * 1000 if times else 0.0
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))] * 1000 if times else 0.0
    print(f"{args.players} players, Creature {args.creature} vs Hunted {args.hunted}, {args.games} games")
    budget = f"{args.rollouts} rollouts" if args.rollouts is not None else f"{args.budget_ms:g} ms"
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
            "rollouts": args.rollouts,
            "seconds": round(seconds, 1),
            "decision_ms_p50": round(p50, 1),
            "decision_ms_p95": round(p95, 1),
        }
        print(json.dumps(result))


if __name__ == "__main__":
    main()
