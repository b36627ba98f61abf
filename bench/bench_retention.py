"""What Redis holds for finished games (issue 39, point 4): a finished game before and after compaction
(`service.store.finished`), and ``used_memory`` with 100,000 compacted finished games stored.

Plays ``--games`` 5-player games (four people, one bot, in a group) to their end through the pipeline in this
process, with the recording sender, then compacts them as the sweeper would and measures ``MEMORY USAGE`` of their
keys. The 100,000 are copies of those games' compacted keys (``DUMP``/``RESTORE`` under new ids), each with the
global names a finished game keeps for its retention: its watch page's and its group's pointers, and its four
players' entries in their game indexes (40,000 players, ten games each). The lobby's table of a game (kept as long)
and the players' records and group histories (per player and group, not per game) are not in the figure.

Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``make bench`` starts a private one) or ``REDIS_URL``; uses
database 13 of it and flushes it. Prints figures; asserts nothing.

    python -m bench.bench_retention [--games 20] [--stored 100000]
"""

import argparse
import os
import secrets
import statistics
import sys
import time

from rq import SimpleWorker

from bench.bench_pipeline import answer, fresh, table_chats
from bench.load import key_kind
from service.pipeline import ingest
from service.pipeline.resolution import start_game
from service.store import finished, keys

DB = 13
PLAYERS = 5


def meta(table: int) -> dict:
    """A lobby table's meta, as the lobby writes it: seat 0 the bot, four people with ids, chats and names."""
    chats = table_chats(table, PLAYERS)
    players = {"0": {"name": "Bot 0", "chat": None, "user": None}}
    for seat in range(1, PLAYERS):
        user = str(10_000_000 + table * 10 + seat)
        players[str(seat)] = {"name": f"Player {seat}", "chat": chats[seat], "user": user, "address": f"tg:{user}"}
    return {
        "players": players,
        "group": chats[-1],
        "code": f"R{table}",
        "creator": players["1"]["address"],
        "lang": "en",
        "bots": [0],
        "deadline_seconds": 86400,
    }


def run_jobs(ctx) -> None:
    SimpleWorker(ctx.queues, connection=ctx.queue.connection, serializer=ctx.queue.serializer).work(
        burst=True, logging_level="WARNING"
    )


def play(ctx, game_id: str, table: int) -> None:
    start_game(ctx, game_id, {"players": PLAYERS, "seed": table, "side": None, "expert": False}, meta(table))
    run_jobs(ctx)
    for _ in range(400):
        snap = ctx.store.load(game_id)
        if snap.status == "over":
            return
        for seat in sorted(ctx.store.expected(game_id) - set(ctx.store.answers(game_id))):
            ingest.submit(ctx, game_id, seat, answer(ctx, game_id, seat), snap.window)
        run_jobs(ctx)
    raise RuntimeError(f"{game_id} did not end")


def game_bytes(connection, game_id: str) -> tuple[int, dict[str, int]]:
    total, kinds = 0, {}
    for key in connection.scan_iter(match="{g:" + game_id + "}*", count=1000):
        size = connection.memory_usage(key, samples=0) or 0
        total += size
        kinds[key_kind(key)] = kinds.get(key_kind(key), 0) + size
    return total, kinds


def store_copies(connection, dumps: list[tuple[bytes, bytes]], stored: int) -> None:
    """``stored`` finished games: copies of compacted games (``dumps``: DUMPs of their snapshot and meta) with their
    global names."""
    ttl = 365 * 86400 * 1000
    pipe = connection.pipeline(transaction=False)
    for i in range(stored):
        game_id = f"C{i}"
        snap, meta_ = dumps[i % len(dumps)]
        pipe.restore(keys.snap(game_id), ttl, snap)
        pipe.restore(keys.meta(game_id), ttl, meta_)
        pipe.set(keys.watch(secrets.token_urlsafe(16)), game_id, ex=ttl // 1000)
        pipe.set(keys.chat_game(f"-100{i}"), game_id, ex=ttl // 1000)
        for seat in range(1, PLAYERS):
            pipe.zadd(keys.player_games(str(20_000_000 + (i * 4 + seat) % 40_000)), {game_id: time.time()})
        if i % 1000 == 999:
            pipe.execute()
    pipe.execute()


def run(url: str, games: int, stored: int) -> None:
    ctx = fresh(url)
    connection = ctx.store.redis
    ids = [f"R{n}" for n in range(games)]
    started = time.perf_counter()
    for n, game_id in enumerate(ids):
        play(ctx, game_id, n)
    played = time.perf_counter() - started
    before = [game_bytes(connection, g) for g in ids]
    compact_at = max(ctx.store.load(g).opened for g in ids) + ctx.settings.finished_compact_after_seconds
    retention = ctx.settings.finished_retention_days * 86400
    started = time.perf_counter()
    outcomes = [ctx.store.compact(g, compact_at, retention) for g in ids]
    compacting = (time.perf_counter() - started) / games
    after = [game_bytes(connection, g) for g in ids]
    started = time.perf_counter()
    for g in ids:
        finished._rebuilt.clear()
        ctx.store.load(g)
    rebuild = (time.perf_counter() - started) / games
    turns = statistics.mean(ctx.store.load(g).version for g in ids)

    def kinds(measured: list[tuple[int, dict[str, int]]]) -> str:
        names = sorted({k for _, each in measured for k in each}, key=lambda k: -sum(m[1].get(k, 0) for m in measured))
        return ", ".join(f"{k} {statistics.mean(m[1].get(k, 0) for m in measured) / 1024:.2f}" for k in names[:6])

    print(f"{games} finished {PLAYERS}-player games played in {played:.1f} s, {turns:.0f} commits each on average")
    print(
        f"  finished, before compaction: {statistics.mean(b for b, _ in before) / 1024:.1f} KB game keys "
        f"(max {max(b for b, _ in before) / 1024:.1f}): {kinds(before)}"
    )
    print(
        f"  compacted ({outcomes.count('compacted')} of {games}): {statistics.mean(b for b, _ in after) / 1024:.2f} KB "
        f"game keys (max {max(b for b, _ in after) / 1024:.2f}; goal <= 3 KB): {kinds(after)}"
    )
    print(
        f"  compaction {compacting * 1000:.1f} ms per game; a read of a compacted game (replay) {rebuild * 1000:.1f} ms"
    )
    dumps = [(connection.dump(keys.snap(g)), connection.dump(keys.meta(g))) for g in ids]
    connection.flushdb()
    base = connection.info("memory")["used_memory"]
    started = time.perf_counter()
    store_copies(connection, dumps, stored)
    grown = connection.info("memory")["used_memory"] - base
    print(
        f"  {stored:,} compacted finished games stored (with their pointers and index entries): used_memory grew "
        f"{grown / 2**20:.1f} MB = {grown / stored:.0f} B per game ({time.perf_counter() - started:.1f} s to write)"
    )
    connection.flushdb()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_retention")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--stored", type=int, default=100_000)
    args = parser.parse_args(argv or [])
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        print("bench_retention: skipped, no ARTEMIA_TEST_REDIS_URL or REDIS_URL (run it with make bench)")
        return
    run(f"{url.rsplit('/', 1)[0]}/{DB}", args.games, args.stored)


if __name__ == "__main__":
    main(sys.argv[1:])
