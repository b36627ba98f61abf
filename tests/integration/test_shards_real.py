"""Games on two game shards, each a redis-server of its own, with the global indexes on a third (the test server):
real worker processes per shard play them through the pipeline, and afterwards no key of a game is on another
server than its shard and no per-game key is on the index (issue 19, point 4)."""

import os
import subprocess
import sys
import tempfile

import pytest
import redis
from conftest import ROOT, WORKER_ENV
from pipeline_support import CONFIG, table
from real_redis import free_port, server_binary
from rq.registry import ScheduledJobRegistry, StartedJobRegistry
from shard_support import ids_on, placement

from service.game import Game
from service.pipeline import cancelling, ingest
from service.pipeline.botplay import bot_answer
from service.pipeline.resolution import start_game
from service.store import keys
from tests.real_redis import wait_for

pytestmark = pytest.mark.integration

TARGET = 4  # versions each game reaches before the audit


@pytest.fixture
def shard_urls():
    """Two redis-servers of their own, one per game shard."""
    procs, urls = [], []
    with tempfile.TemporaryDirectory(prefix="artemia-shards-") as where:
        for n in range(2):
            port = free_port()
            args = [server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", where]
            procs.append(subprocess.Popen(args + ["--logfile", f"{where}/{n}.log"]))
            urls.append(f"redis://127.0.0.1:{port}/0")
            wait_for(lambda port=port: _pings(port), 10, f"redis-server on port {port}")
        yield urls
        for proc in procs:
            proc.kill()
            proc.wait()


def _pings(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_timeout=1).ping())
    except redis.RedisError:
        return False


def settled(ctx, game_ids) -> bool:
    """No window being resolved, and on every shard no job queued, running or waiting for a retry."""
    return all(ctx.store.load(g).status != "resolving" for g in game_ids) and all(
        q.count == 0 and not q.intermediate_queue.get_job_ids() and StartedJobRegistry(queue=q).count == 0
        for shard in ctx.shard_contexts
        for q in shard.queues
    )


def windows_resolved(ctx, game_id) -> list[int]:
    return [int(entry.split(":")[1]) for entry in ctx.store.resolution_log(game_id)[1:]]


def test_games_on_two_shards_stay_on_their_shard_with_workers_per_shard(redis_url, shard_urls, ctx_for, workers):
    ctx = ctx_for(redis_url, shards=shard_urls)
    index, shards = ctx.store.redis, ctx.store.shards
    answered = ids_on(0, 2, 3, "an") + ids_on(1, 2, 3, "an")  # the players answer every window
    timed = ids_on(0, 2, 2, "dl") + ids_on(1, 2, 2, "dl")  # nobody answers: deadlines, then bots, play them out
    for i, g in enumerate(answered):
        start_game(ctx, g, {**CONFIG, "seed": i}, table(3, humans=[1, 2], group=f"grp-{g}", deadline=600))
    for i, g in enumerate(timed):
        start_game(ctx, g, {**CONFIG, "seed": 10 + i}, table(3, humans=[1, 2], group=f"grp-{g}", deadline=1))
    games = answered + timed
    env = {"REDIS_URL": redis_url, "ARTEMIA_REDIS_SHARDS": ",".join(shard_urls), "ARTEMIA_AUTOPLAY_BOT_AFTER": "1"}
    # shard 0: the Procfile's `rq worker` with ARTEMIA_SHARD; shard 1: `python -m workers --shard 1`
    workers.start(shard_urls[0], worker_class="workers.worker.OpsSimpleWorker", ARTEMIA_SHARD="0", **env)
    entry = subprocess.Popen(
        [sys.executable, "-m", "workers", "--simple", "--shard", "1"],
        env={**os.environ, **WORKER_ENV, **env, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
    )
    workers.procs.append(entry)  # stopped with the others
    try:
        for _ in range(200):
            behind = [g for g in answered if ctx.store.load(g).version < TARGET]
            if not behind:
                break
            for g in behind:
                snap = ctx.store.load(g)
                if snap.status != "collecting":
                    continue
                game = Game.from_json(snap.json)
                for seat in sorted(ctx.store.expected(g) - set(ctx.store.answers(g))):
                    ingest.submit(ctx, g, seat, bot_answer(game, seat), snap.window, f"{g}-{snap.window}-{seat}")
            wait_for(lambda behind=behind: settled(ctx, behind), 30, "the answered windows to resolve")
        wait_for(lambda: all(ctx.store.load(g).version >= TARGET for g in games), 60, "every game to move on")
        for g in (answered[0], answered[-1]):  # one game cancelled on each shard
            cancelling.cancel(ctx, g, "test")
            assert ctx.store.game_of_chat(f"grp-{g}") is None
        wait_for(lambda: all(ctx.store.load(g).status == "over" for g in timed), 60, "the bots to end those games")
        wait_for(lambda: settled(ctx, games), 60, "every shard's jobs to be done")
        wait_for(lambda: all(s.exists(keys.HEARTBEAT) for s in shards), 30, "a sweep on each shard")
    finally:
        workers.stop_all()

    for g in games:
        resolved = windows_resolved(ctx, g)
        assert resolved == sorted(set(resolved)), f"{g}: a window resolved twice or out of order: {resolved}"
    # each shard's workers ran its own games: the deadline jobs wait in the shard's own scheduled registry
    for n, shard in enumerate(ctx.shard_contexts):
        scheduled = ScheduledJobRegistry(queue=shard.queue).get_job_ids()
        games_timed = [job.split("-")[1] for job in scheduled if not job.startswith("sweep-")]
        assert games_timed and all(keys.shard_of(g, 2) == n for g in games_timed)
    sent = ctx.sender.sent()
    stored = sum(1 for s in shards for k in s.scan_iter(match="{g:*}:out:*") for f in s.hkeys(k) if f.isdigit())
    assert sent and len(sent) == stored, "every stored message sent exactly once"
    assert placement(index, shards) == []
    assert {k.decode() for k in index.keys("*") if k.startswith(b"{g:")} == set()
    for n, shard in enumerate(shards):
        on_shard = {k.decode()[3 : k.decode().index("}")] for k in shard.scan_iter(match="{g:*")}
        assert on_shard == {g for g in games if keys.shard_of(g, 2) == n}
    assert {g for g, _ in ctx.store.games_of_user("user1")} == set(games)  # the index names every game
