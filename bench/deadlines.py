"""How late a deadline closes its window, end to end: real ``python -m workers`` processes (RQ's scheduler
included) against a real Redis, games whose human seats never answer, so every window waits for its deadline.

    python -m bench.deadlines [--games 3] [--windows 8] [--deadline 10] [--workers 2] [--json out.json]

For each window it records when the next window opened (polled every 50 ms) minus the window's deadline: the
time a player waits past the deadline, resolution included. Prints p50 / p99 / max over all windows (goal: p99
within 2 s). Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``tools/with-redis.sh``), else ``REDIS_URL``;
database 12 of it is flushed. Everything is bounded by a count and a deadline.
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import redis

from service import wiring
from service.channels.recording import RecordingSender
from service.config import Settings
from service.pipeline.resolution import start_game
from service.store import keys

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.deadlines", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--windows", type=int, default=8, help="windows measured per game")
    parser.add_argument("--deadline", type=int, default=10, help="seconds per window")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    base = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not base:
        raise SystemExit("no Redis: run through tools/with-redis.sh or set REDIS_URL")
    url = base.rsplit("/", 1)[0] + "/12"
    connection = redis.Redis.from_url(url)
    connection.flushdb()
    env = {
        **os.environ,
        "REDIS_URL": url,
        "ARTEMIA_MIN_DEADLINE_SECONDS": str(args.deadline),
        "ARTEMIA_AUTOPLAY_BOT_AFTER": "1000000",  # the seats stay human: every window waits for its deadline
        "ARTEMIA_SENDER": "recording",
    }
    settings = Settings(
        redis_url=url, min_deadline_seconds=args.deadline, autoplay_bot_after=1_000_000, sender="recording"
    )
    ctx = wiring.build(connection, settings, sender=RecordingSender(connection))
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "workers", "--simple"],
            env=env,
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(args.workers)
    ]
    late: list[float] = []
    try:
        time.sleep(2)  # the workers and their scheduler start
        games = [f"dl{n}" for n in range(args.games)]
        for n, game_id in enumerate(games):
            players = {
                str(s): {"name": f"P{s}", "chat": f"console:p{n}-{s}", "user": None, "lang": "en"} for s in range(3)
            }
            meta = {"players": players, "group": None, "deadline_seconds": args.deadline, "bots": [], "lang": "en"}
            start_game(ctx, game_id, {"players": 3, "seed": n, "side": 1, "expert": False}, meta)
        seen = {g: _window(connection, g) for g in games}
        counted = dict.fromkeys(games, 0)
        stop_at = time.time() + (args.windows + 2) * (args.deadline + 35)
        while time.time() < stop_at and min(counted.values()) < args.windows:
            time.sleep(0.05)
            now = time.time()
            for game_id in games:
                window, deadline = seen[game_id]
                current = _window(connection, game_id)
                if current[0] != window and counted[game_id] < args.windows:
                    late.append(now - deadline)
                    counted[game_id] += 1
                seen[game_id] = current
    finally:
        for proc in workers:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in workers:
            proc.wait(timeout=30)
    figures = {
        "windows": len(late),
        "deadline_seconds": args.deadline,
        "late_p50": round(statistics.median(late), 2) if late else None,
        "late_p99": round(percentile(late, 0.99), 2) if late else None,
        "late_max": round(max(late), 2) if late else None,
        "within_2s": sum(1 for x in late if x <= 2.0),
    }
    print(
        f"deadlines: {figures['windows']} windows of {args.deadline} s closed after their deadline by p50 "
        f"{figures['late_p50']} s, p99 {figures['late_p99']} s, max {figures['late_max']} s; "
        f"{figures['within_2s']} within 2 s (goal: p99 <= 2 s)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures))
    return figures


def _window(connection: redis.Redis, game_id: str) -> tuple[str, float]:
    window, deadline = connection.hmget(keys.snap(game_id), "window", "deadline")
    return (window or b"").decode(), float(deadline or 0)


if __name__ == "__main__":
    main()
