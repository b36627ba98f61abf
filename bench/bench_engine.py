"""Engine benchmarks: full games per second on one core, and waits per turn (how often a turn stops for people).

Waits per turn count the windows that actually waited for somebody in each turn (the setup window is not part
of a turn), under both settings of the table's ``secrecy`` (strict: whoever might hold a card is asked; fast: only
holders). Two bot populations are measured: "eager" bots answer ahead as the chat buttons let a player do (a
Hunted's plan sent right after choosing a place; "no cards this turn" from a Creature holding none for later);
"plain" bots never answer ahead. Board Game Arena's implementation stops about 6 + (number of Hunted) times a
turn.

The speed of the compiled engine (tools/build_engine.py) is measured against its own sources, in the same run:
a copy of service/game's sources alone, run in a process of its own, alternating with the build, three times each
(``compiled_against_sources``). And against the engine of issue 20's baseline (commit ``BASELINE``, taken from
the repository's history with ``git archive``; skipped where there is no history), the same way
(``against_baseline``): the goal, 1,000 games a second where that engine played 404 on the machine of its day, is
a ratio of 1000 / 404 = 2.48 on any machine; games per CPU second alone differ by a third between machines.

Environment: BENCH_GAMES (bot games per player count for the waits, default 1000), BENCH_SECONDS (CPU seconds
per player count for the speed figure, default 2).
"""

import io
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from service.game import new_game
from service.game.bots import play_out

ROOT = Path(__file__).resolve().parent.parent
# Issue 20's baseline: "the engine plays 404 random five-player games per CPU second" at this commit; the goal is
# 1,000, i.e. this many times that engine's speed on the same machine.
BASELINE, BASELINE_RATE, GOAL_RATE = "5bd7425", 404, 1000


def random_games_per_second(players, seconds):
    """Complete games with uniformly random legal actions, per CPU second (one core)."""
    start, games = time.process_time(), 0
    while time.process_time() - start < seconds:
        game, rng = new_game({"players": players, "seed": games}), random.Random(games)
        while not game.is_over:
            seat = rng.choice(game.waiting_for())
            game.apply(seat, rng.choice(game.legal_actions(seat)))
        games += 1
    return games / (time.process_time() - start)


def copy_of_the_engine(into: Path, build: bool = False) -> Path:
    """A copy of the engine under ``into`` (a tree importable as ``service.game``): its sources, and its compiled
    build too when ``build``."""
    skip = [] if build else ["*.so", "compiled-from.txt"]
    shutil.copytree(ROOT / "service" / "game", into / "service" / "game", ignore=shutil.ignore_patterns(*skip))
    shutil.copy(ROOT / "service" / "__init__.py", into / "service" / "__init__.py")
    return into


def engine_at(commit: str, into: Path) -> Path | None:
    """The engine's sources at ``commit`` of this repository under ``into`` (importable as ``service.game``); None
    where git or the commit is not to be had (an export without history)."""
    try:
        tar = subprocess.run(
            ["git", "archive", commit, "service/game", "service/__init__.py"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return into


def _games_per_second_in(tree: Path, players: int, seconds: float) -> tuple[float, bool]:
    """``random_games_per_second`` in a fresh process whose ``service.game`` comes from ``tree``; and whether that
    engine was the compiled one (an engine older than the build has no ``buildinfo``: its sources)."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import service.game as g; "
        "from bench.bench_engine import random_games_per_second as r; "
        "print(r(int(sys.argv[2]), float(sys.argv[3])), getattr(g, 'buildinfo', None) and g.buildinfo.running())"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tree), str(players), str(seconds)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), out[1] == "compiled"


def _alternating(other: Path, players: int, seconds: float, pairs: int) -> tuple[list[float], list[float]]:
    """(this build's runs, ``other``'s runs): games per CPU second, each in a process of its own, alternating."""
    compiled, others = [], []
    for _ in range(pairs):
        rate, is_compiled = _games_per_second_in(ROOT, players, seconds)
        if not is_compiled:
            raise RuntimeError("the engine is not compiled: run `make engine` first")
        compiled.append(rate)
        rate, is_compiled = _games_per_second_in(other, players, seconds)
        assert not is_compiled
        others.append(rate)
    return compiled, others


def compiled_against_sources(players=5, seconds=5.0, pairs=3):
    """(compiled runs, source runs): games per CPU second, alternating build and sources ``pairs`` times."""
    with tempfile.TemporaryDirectory() as tmp:
        return _alternating(copy_of_the_engine(Path(tmp)), players, seconds, pairs)


def against_baseline(players=5, seconds=5.0, pairs=3):
    """(compiled runs, runs of the engine at ``BASELINE``), alternating; None without the repository's history."""
    with tempfile.TemporaryDirectory() as tmp:
        old = engine_at(BASELINE, Path(tmp))
        return None if old is None else _alternating(old, players, seconds, pairs)


def waits_per_turn(players, games, eager, secrecy):
    """Sorted list of waits in every turn of ``games`` bot games."""
    waits = []
    for seed in range(games):
        game = new_game({"players": players, "seed": seed, "secrecy": secrecy})
        windows = {game.window["id"]: (game.turn, game.window["kind"])}

        def note(g, windows=windows):
            if g.window is not None:
                windows.setdefault(g.window["id"], (g.turn, g.window["kind"]))

        play_out(game, random.Random(seed), eager=eager, on_step=note)
        per_turn = {}
        for turn, kind in windows.values():
            if kind != "setup":
                per_turn[turn] = per_turn.get(turn, 0) + 1
        waits += per_turn.values()
    return sorted(waits)


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def _print_pair(name: str, runs: tuple[list[float], list[float]], with_goal: bool = False) -> None:
    compiled, other = runs
    ratio = statistics.median(compiled) / statistics.median(other)
    print(
        f"    compiled {', '.join(f'{r:.0f}' for r in compiled)} (median {statistics.median(compiled):.0f}) against "
        f"{name} {', '.join(f'{r:.0f}' for r in other)} (median {statistics.median(other):.0f}): x{ratio:.2f}"
        + (f" (goal >= x{GOAL_RATE / BASELINE_RATE:.2f}: {GOAL_RATE:,} / {BASELINE_RATE})" if with_goal else "")
    )


def main():
    games = int(os.environ.get("BENCH_GAMES", "1000"))
    seconds = float(os.environ.get("BENCH_SECONDS", "2"))
    from service.game import buildinfo  # here: a run of an older engine (`_games_per_second_in`) has none

    compiled = buildinfo.running() == "compiled"
    engine = "compiled (mypyc)" if compiled else "from its sources"
    print(f"engine speed, {engine}: random full games per CPU second")
    for players in range(2, 8):
        print(f"  {players} players: {random_games_per_second(players, seconds):7.1f} games/s")
    if compiled:
        print("  five players, alternating, each run in a process of its own (games per CPU second):")
        _print_pair("its own sources", compiled_against_sources(seconds=max(seconds, 1.0)))
        baseline = against_baseline(seconds=max(seconds, 1.0))
        if baseline is None:
            print(f"    the engine of {BASELINE}: skipped, no git history here")
        else:
            _print_pair(f"the engine of {BASELINE} (issue 20's {BASELINE_RATE}/s)", baseline, with_goal=True)
    print(
        f"waits per turn over {games} bot games per player count (goal: eager median <= 2; "
        f"Board Game Arena ~ 6 + Hunted)"
    )
    print("  players  secrecy  bots    turns  median  mean  p90  max  BGA")
    for players in range(2, 8):
        for secrecy in ("strict", "fast"):
            for eager in (True, False):
                waits = waits_per_turn(players, games, eager, secrecy)
                print(
                    f"  {players:7d}  {secrecy:7s}  {'eager' if eager else 'plain':5s} {len(waits):7d}"
                    f"  {statistics.median(waits):6.1f}  {statistics.mean(waits):4.2f}  {percentile(waits, 0.9):3d}"
                    f"  {waits[-1]:3d}  {6 + players - 1:3d}"
                )


if __name__ == "__main__":
    main()
