"""What "acknowledged means replicated" costs (issue 19): the latency of recording an answer
(``service.pipeline.ingest.submit``) on a primary with one replica on loopback, without and with the WAIT for that
replica (``ARTEMIA_REDIS_ACK_REPLICAS=1``), measured back to back in the same run on the same servers.

Starts its own redis-server pair (AOF on, fsync always, as deploy/redis.conf); prints figures, asserts nothing.
Environment: BENCH_ANSWERS (answers per setting, default 2000).
"""

import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sentinel_cluster import Cluster  # noqa: E402

from service import wiring  # noqa: E402
from service.channels.recording import RecordingSender  # noqa: E402
from service.config import Settings  # noqa: E402
from service.game import Game  # noqa: E402
from service.pipeline import context, ingest  # noqa: E402
from service.pipeline.resolution import start_game  # noqa: E402
from service.store import connect  # noqa: E402

CONFIG = {"players": 3, "seed": 1, "side": 1, "expert": False, "secrecy": "fast"}
META = {
    "players": {str(s): {"name": f"P{s}", "chat": f"c{s}", "user": None} for s in range(3)},
    "group": None,
    "deadline_seconds": 3600,
    "lang": "en",
    "bots": [],
}


def latencies(url: str, replicas: int, answers: int, run: int) -> list[float]:
    settings = Settings(redis_url=url, sender="recording", redis_ack_replicas=replicas, redis_ack_timeout_ms=1000)
    connection = connect.connect(settings)
    ctx = wiring.build(connection, settings, sender=RecordingSender(connection))
    context.register(ctx)
    game_id = f"rep{replicas}_{run}"
    start_game(ctx, game_id, CONFIG, META)
    snap = ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    plays = [a for a in game.legal_actions(1) if a["type"] == "play"]
    out = []
    for n in range(answers):  # seat 1 changes its answer; the window stays open (seat 2 never answers)
        started = time.perf_counter()
        result = ingest.submit(ctx, game_id, 1, [plays[n % len(plays)]], snap.window, f"d{game_id}-{n}")
        out.append(time.perf_counter() - started)
        assert result.stored, result
    return out


def main() -> None:
    answers = int(os.environ.get("BENCH_ANSWERS", "2000"))
    with Cluster(replicas=1, sentinels=0) as cluster:
        url = f"redis://127.0.0.1:{cluster.primary_port}/0"
        print(f"recording an answer, primary + 1 replica on loopback, {answers} answers each, fsync always")
        figures = {}
        for run, replicas in enumerate((0, 1, 0, 1)):  # interleaved twice: the second pair is reported
            figures[replicas] = sorted(latencies(url, replicas, answers, run))
        for replicas, values in figures.items():
            label = "WAIT for 1 replica" if replicas else "primary only      "
            p50, p99 = statistics.median(values), values[int(0.99 * len(values))]
            print(f"  {label}  p50 {p50 * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms")
        added = statistics.median(figures[1]) - statistics.median(figures[0])
        ratio = statistics.median(figures[1]) / statistics.median(figures[0])
        print(f"  added by the WAIT: {added * 1000:.2f} ms per answer at the median ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
