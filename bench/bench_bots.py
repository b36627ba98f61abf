"""Workers with searching bots at the table (issue 16), against the same tables without them, in one run.

Three-player tables whose two Hunted are people; the Creature is played by auto-play (the baseline: "without
bots", the deadline fallback every table already has) or by a searching bot at ``normal`` / ``hard``
(service/game/search.py: ``search.ROLLOUTS`` rollouts a hard decision, capped at ``bot_budget_ms``). The people answer each table's
first exploration; an in-process SimpleWorker resolves it and every window after it that only the bot is asked
(the hunt, its card windows), until the people are asked again. Printed per kind of table:

    resolutions/s         windows resolved per second by one worker draining all the tables at once (the bot's
                          thinking included: its answers are prepared as each window opens)
    answer -> question    from the people's last answer to the commit that asks them their next question, one
                          table at a time (p50, p95)

Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``make bench`` starts a private one) or ``REDIS_URL``; uses
database 13 of it and flushes it. Environment: BENCH_BOT_GAMES (tables per kind, default 30). Asserts nothing.
"""

import os
import statistics
import time

from rq import SimpleWorker
from rq.serializers import JSONSerializer

from bench.bench_pipeline import fresh
from bench.bench_pipeline import meta as table_of
from service.game import Game
from service.game.search import ROLLOUTS
from service.pipeline import context, ingest
from service.pipeline.botplay import bot_answer
from service.pipeline.resolution import start_game

DB = 13
KINDS = {"without bots (auto-play)": None, "bot Creature, normal": "normal", "bot Creature, hard": "hard"}


def meta(level: str | None) -> dict:
    """bench_pipeline's table of three (people as the Hunted, a bot Creature), the bot at ``level``."""
    return {**table_of(3), **({"bot_levels": {"0": level}} if level else {})}


def first_answers(ctx: context.Context, game_id: str) -> list[tuple[int, list[dict], int]]:
    snap = ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    return [(seat, bot_answer(game, seat), snap.current_window) for seat in (1, 2)]


def measure(ctx: context.Context, level: str | None, games: int) -> tuple[float, list[float]]:
    """-> (resolutions per second of one worker draining every table's first exploration, ms from the last
    answer to the next question of each table resolved alone)."""
    worker = SimpleWorker([ctx.queue], connection=ctx.store.redis, serializer=JSONSerializer)
    config = {"players": 3, "side": 1, "expert": False}
    ids = [f"r{level}{i}" for i in range(games)]
    for i, game_id in enumerate(ids):
        start_game(ctx, game_id, {**config, "seed": i}, meta(level))
        for seat, answer, window in first_answers(ctx, game_id):
            ingest.submit(ctx, game_id, seat, answer, window)
    started = time.perf_counter()
    worker.work(burst=True, logging_level="WARNING")
    rate = sum(len(ctx.store.resolution_log(g)) - 1 for g in ids) / (time.perf_counter() - started)
    waits = []
    for i in range(games):
        game_id = f"l{level}{i}"
        start_game(ctx, game_id, {**config, "seed": i}, meta(level))
        for seat, answer, window in first_answers(ctx, game_id):
            sent = time.time()
            ingest.submit(ctx, game_id, seat, answer, window)
        worker.work(burst=True, logging_level="WARNING")
        waits.append((ctx.store.load(game_id).opened - sent) * 1000)
    return rate, sorted(waits)


def main() -> None:
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        print("bench_bots: skipped, no ARTEMIA_TEST_REDIS_URL or REDIS_URL (run it with make bench)")
        return
    ctx = fresh(f"{url.rsplit('/', 1)[0]}/{DB}")
    games = int(os.environ.get("BENCH_BOT_GAMES", "30"))
    baseline = None
    for label, level in KINDS.items():
        rate, waits = measure(ctx, level, games)
        baseline = baseline or rate
        p95 = waits[min(len(waits) - 1, int(len(waits) * 0.95))]
        print(
            f"{label:26} resolutions/s {rate:7.1f} (x{rate / baseline:.2f})   answer -> question "
            f"p50 {statistics.median(waits):6.0f} ms  p95 {p95:6.0f} ms   ({games} tables, {ROLLOUTS} rollouts a "
            f"hard decision, capped at {ctx.settings.bot_budget_ms} ms)"
        )


if __name__ == "__main__":
    main()
