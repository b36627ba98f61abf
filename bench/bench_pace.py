"""Pace for ``make bench``: waits and questions per turn when players answer only what they are asked
(``bench/pace.py``), 2-7 players under both secrecy settings. Environment: BENCH_GAMES (games per player count,
default 1000)."""

import os

from bench import pace


def main() -> None:
    games = int(os.environ.get("BENCH_GAMES", "1000"))
    print(f"waits per turn, players answering only what they are asked ({games} bot games per player count)")
    print("  players  secrecy  median  mean  p90  questions/player-turn  pass-only/player-turn")
    for players in range(2, 8):
        for secrecy in ("strict", "fast"):
            r = pace.measure(players, games, secrecy)
            print(
                f"  {players:7d}  {secrecy:7s}  {r['waits_median']:6.1f}  {r['waits_mean']:4.2f}  {r['waits_p90']:3d}"
                f"  {r['questions_per_player_turn']:21.2f}  {r['pass_only_per_player_turn']:21.2f}"
            )


if __name__ == "__main__":
    main()
