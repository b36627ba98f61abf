"""Pipeline benchmarks (issue 3), each against a baseline measured in the same run on the same Redis:

1. submits/s through ``service.pipeline.ingest.submit`` vs a plain Redis SET loop;
2. window resolutions/s of one worker vs RQ's own no-op job rate, same worker class (SimpleWorker, in-process),
   with the step's private messages sent by the resolving job (the default) and without;
3. latency from the last answer of a window to its first outgoing message (and to the commit that writes it), with
   200 concurrent games and two real ``rq worker`` processes of the Procfile's worker class: all 200 at once, then a
   steady 40 answers/s; with where the jobs' time went, by stage (the workers' ``job_stage_seconds`` histogram).
   Each game has Telegram-shaped chats of its own (two seats' private chats and a group), so that its messages
   take the paths they take in production: the seats' by the resolving job, the group's status by a delivery job;
4. the Redis round trips of one step, in process: its resolution and the delivery of its messages.

Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``make bench`` starts a private one) or ``REDIS_URL``; uses
database 14 of it and flushes it. Prints figures; asserts nothing.
"""

import collections
import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time

import redis
import redis.client
from rq import SimpleWorker, Worker
from rq.serializers import JSONSerializer

from bench.load import cpu_seconds as process_cpu
from service import wiring
from service.channels.recording import SENT_KEY, RecordingSender
from service.config import Settings
from service.game import Game
from service.ops.metrics import HISTOGRAMS, STAGES
from service.pipeline import context, delivery, ingest, scheduling
from service.pipeline.botplay import bot_answer
from service.pipeline.resolution import resolve_window, start_game
from service.store import batch_for_version
from service.store.keys import metrics_histogram
from workers import jobs  # noqa: F401  (loaded before the clock starts, as workers.rqconfig loads it in a worker)

ROOT = pathlib.Path(__file__).resolve().parents[1]
DB = 14
CONFIG = {"players": 3, "seed": 1, "side": 1, "expert": False}
UNLIMITED = {"rate_global_per_second": 1e6, "rate_private_per_second": 1e6, "rate_group_per_minute": 1e8}


def noop() -> None:
    """The baseline job."""


NOOP = "bench.bench_pipeline.noop"  # by name: run as ``python -m bench.bench_pipeline``, this module is __main__


def meta(players: int, table: int | None = None) -> dict:
    """Every Hunted is a person; the Creature is a bot. ``table``: the game gets Telegram-shaped chats of its own
    (`table_chats`), so that each message is told to its game and the group is a group, as in production (its
    status goes by a delivery job, the seats' questions by the resolving job)."""
    chats = table_chats(table, players) if table is not None else [f"c{s}" for s in range(players)] + ["grp"]
    return {
        "players": {str(s): {"name": f"P{s}", "chat": chats[s] if s else None, "user": None} for s in range(players)},
        "group": chats[-1],
        "deadline_seconds": 3600,
        "lang": "en",
        "bots": [0],
    }


def table_chats(table: int, players: int) -> list[str]:
    """The chats of table number ``table``: a private chat id per seat, then its group's (negative) id."""
    return [f"{table + 1}{seat:02d}" for seat in range(players)] + [f"-100{table}"]


def fresh(url: str, **settings) -> context.Context:
    connection = redis.Redis.from_url(url)
    connection.flushdb()
    ctx = wiring.build(
        connection, Settings(sender="recording", **UNLIMITED, **settings), sender=RecordingSender(connection)
    )
    context.register(ctx)
    return ctx


def answer(ctx, game_id: str, seat: int) -> list[dict]:
    """The bot's answer, with the question ahead it leaves open answered too, as a player answers the screen shown
    right after a place (`bench.load`'s players do the same): otherwise the window's last answer would wait out the
    moment a window holds for it (`Settings.may_hold_seconds`), which is not the pipeline's latency."""
    game = Game.from_json(ctx.store.load(game_id).json)
    actions = bot_answer(game, seat)
    for action in actions:
        game.apply(seat, action)
    while ingest.leaves_question_ahead(game, seat) and len(actions) < 8:
        actions.append(game.legal_actions(seat)[0])
        game.apply(seat, actions[-1])
    return actions


def bench_submits(url: str, seconds: float = 2.0) -> None:
    ctx = fresh(url)
    games = [f"s{i}" for i in range(50)]
    answers = {}
    for i, g in enumerate(games):
        start_game(ctx, g, {**CONFIG, "players": 5, "seed": i}, meta(5))
        answers[g] = {seat: answer(ctx, g, seat) for seat in (1, 2, 3)}  # never seat 4: windows stay open
    n, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        for g in games:
            for seat in (1, 2, 3):
                ingest.submit(ctx, g, seat, answers[g][seat], ctx.store.load(g).window)
                n += 1
    ingest_rate = n / (time.perf_counter() - started)
    r, payload = ctx.store.redis, b'[{"type":"play","cards":[3]}]'
    started = time.perf_counter()
    for i in range(n):
        r.set(f"bench:set:{i % 1000}", payload)
    set_rate = n / (time.perf_counter() - started)
    print(
        f"submits through ingest: {ingest_rate:8.0f}/s   plain SET loop: {set_rate:8.0f}/s   "
        f"ratio {ingest_rate / set_rate:.2f}"
    )


class TimedWorker(SimpleWorker):
    """RQ's SimpleWorker timing each job from the end of the one before it (its dequeue, RQ's bookkeeping and the
    job itself), summed per job function. Not timed: ``work()``'s start-up (the first job's interval) and its
    teardown, which waits up to a second for its pub/sub thread to stop — enough to swing a rate of 200 jobs
    fourfold."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seconds: collections.Counter = collections.Counter()
        self.jobs: collections.Counter = collections.Counter()
        self._last_end: float | None = None

    def execute_job(self, job, queue):
        super().execute_job(job, queue)
        now = time.perf_counter()
        if self._last_end is not None:
            self.seconds[job.func_name] += now - self._last_end
            self.jobs[job.func_name] += 1
        self._last_end = now


def resolution_round(ctx, ids: list[str]) -> tuple[float, float, int, int]:
    """A no-op job, then the closing of a fresh game's first window (`scheduling.resolve`: noted ready, and a
    resolving job queued while one of the shard's leases is free), and so on for each of ``ids``, on one queue and
    one worker. -> (no-op jobs/s, windows resolved/s of the resolving jobs' time, windows resolved: chained bot
    windows included, resolving jobs run)."""
    for i, g in enumerate(ids):
        start_game(ctx, g, {**CONFIG, "seed": i}, meta(3))
        for seat in (1, 2):
            ctx.store.submit(g, 1, seat, answer(ctx, g, seat), None, time.time())
    for g in ids:
        ctx.queue.enqueue(NOOP)
        scheduling.resolve(ctx, g, 1)
    worker = TimedWorker([ctx.queue], connection=ctx.store.redis, serializer=JSONSerializer)
    worker.work(burst=True, logging_level="WARNING")
    windows = sum(len(ctx.store.resolution_log(g)) - 1 for g in ids)
    resolve_name = "workers.jobs.resolve_ready"
    noop_rate = worker.jobs[NOOP] / worker.seconds[NOOP]
    # the first job, untimed, is a no-op
    return noop_rate, windows / worker.seconds[resolve_name], windows, worker.jobs[resolve_name]


def bench_resolutions(url: str, games: int = 200, rounds: int = 3) -> None:
    """``rounds`` rounds of ``games`` no-op jobs and ``games`` windows to resolve (`resolution_round`); the
    medians, and each round's ratio. Twice: as configured (the resolving job sends its step's private messages,
    `delivery.deliver_now`), then with that off (``deliver_inline_seconds=0``: a delivery job sends them), so that
    the cost of the resolution itself stays visible."""
    for label, settings in (("sends included", {}), ("sends left to a delivery job", {"deliver_inline_seconds": 0})):
        ctx = fresh(url, **settings)
        rounds_done = [resolution_round(ctx, [f"r{r}x{i}" for i in range(games)]) for r in range(rounds)]
        noops, rates, windows, resolving = (list(column) for column in zip(*rounds_done, strict=True))
        ratios = [rate / noop for noop, rate, _, _ in rounds_done]
        print(
            f"resolutions per SimpleWorker ({label}): {statistics.median(rates):6.0f}/s ({windows[0]} windows a "
            f"round, by {resolving[0]} resolving jobs)   RQ no-op jobs: {statistics.median(noops):6.0f}/s   ratio "
            f"{statistics.median(ratios):.2f} (goal "
            f">= 0.7; the median of {rounds} rounds on one worker: "
            f"{', '.join(f'{x:.2f}' for x in ratios)})"
        )


def start_workers(url: str, n: int) -> list[subprocess.Popen]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ARTEMIA_SENDER": "recording",
        **{f"ARTEMIA_{k.upper()}": str(v) for k, v in UNLIMITED.items()},
    }
    cmd = [
        sys.executable,
        "-m",
        "rq.cli",
        "worker",
        "-c",
        "workers.rqconfig",
        "-S",
        "json",
        "--with-scheduler",
        "-w",
        "workers.worker.OpsSimpleWorker",
        "--logging_level",
        "WARNING",
        "-u",
        url,
        "artemia",
        "artemia-refresh",
        "artemia-send",
        "artemia-draw",
    ]
    procs = [subprocess.Popen(cmd, env=env, cwd=ROOT, start_new_session=True) for _ in range(n)]
    connection = redis.Redis.from_url(url)
    while len(Worker.all(connection=connection)) < n:
        time.sleep(0.05)
    return procs


def latencies(ctx, games: list[str], gap: float) -> tuple[list[float], list[float]]:
    """Send the last answer of each game's first window, ``gap`` seconds apart. -> ms from each to the commit,
    and to the first message of the step sent (each game's chats are its own, `table_chats`)."""
    game_of = {chat: g for i, g in enumerate(games) for chat in table_chats(i, 3)}
    for g in games:
        ingest.submit(ctx, g, 1, answer(ctx, g, 1), 1)
    last = {g: answer(ctx, g, 2) for g in games}
    sent_at: dict[str, float] = {}
    recorder = RecordingSender(ctx.store.redis)
    before = ctx.store.redis.llen(SENT_KEY)

    def send(part):
        for g in part:
            sent_at[g] = time.time()
            ingest.submit(ctx, g, 2, last[g], 1)
            if gap:
                time.sleep(gap)

    threads = [threading.Thread(target=send, args=(games[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first: dict[str, float] = {}
    read = before
    while len(first) < len(games):
        fresh_sends = recorder.sent(since=read)  # only what came since: the list grows by thousands of messages,
        read += len(fresh_sends)  # and reading it whole at each look took CPU from the workers being measured
        for message in fresh_sends:
            g = game_of.get(message["chat"], "")
            if g in sent_at and message["at"] > sent_at[g]:
                first[g] = min(first.get(g, message["at"]), message["at"])
        time.sleep(0.05)
    # the resolution records its commit time as the new window's opening time
    commits = sorted((ctx.store.load(g).opened - sent_at[g]) * 1000 for g in games)
    return commits, sorted((first[g] - sent_at[g]) * 1000 for g in games)


def idle(ctx, limit: float = 60.0) -> None:
    """Wait until the workers have run every queued job (the first windows' deliveries), so that a measured burst
    does not queue behind them."""
    until = time.time() + limit
    while time.time() < until:
        busy = sum(q.count + q.started_job_registry.count for q in ctx.queues)
        if not busy:
            return
        time.sleep(0.05)


def cpu_seconds(connection, workers: list[subprocess.Popen]) -> tuple[float, float, float]:
    """CPU seconds used so far by the worker processes (RQ's SimpleWorker forks no child), by the redis-server (its
    own INFO), and by this process."""
    info = connection.info("cpu")
    redis_cpu = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return process_cpu([proc.pid for proc in workers]), redis_cpu, time.process_time()


def stage_report(connection, windows: int = 0) -> list[str]:
    """Where the jobs' time went (the workers' ``job_stage_seconds``): per job, the mean ms of each stage, and the
    bucket under which 99 % of them fall; for the resolving jobs, which resolve many windows each, also the ms of
    each stage per window (``windows``: those resolved)."""
    name = "job_stage_seconds"
    series: dict[tuple[str, str], dict[str, float]] = {}
    for raw, value in connection.hgetall(metrics_histogram(name)).items():
        kind, _, labelled = raw.decode().partition("|")
        labels = dict(pair.split("=", 1) for pair in labelled.split(","))
        series.setdefault((labels["job"], labels["stage"]), {})[kind] = float(value)
    buckets = HISTOGRAMS[name][2]
    lines = []
    for job in sorted({job for job, _ in series}):
        parts = []
        for stage in STAGES:
            data = series.get((job, stage))
            if not data:
                continue
            n, cumulative = data["count"], 0.0
            p99 = next(
                (b for i, b in enumerate(buckets) if (cumulative := cumulative + data.get(f"b{i}", 0)) >= 0.99 * n),
                None,
            )
            p99_text = f"<= {p99 * 1000:g}" if p99 is not None else f"> {buckets[-1] * 1000:g}"
            parts.append(f"{stage} {data['sum'] / n * 1000:.2f} (p99 {p99_text})")
        lines.append(
            f"  {job:8} x{int(series[job, 'rq']['count']) if (job, 'rq') in series else 0:<4} " + ", ".join(parts)
        )
        if job == "resolve_ready" and windows:
            per_window = [
                f"{stage} {series[job, stage]['sum'] / windows * 1000:.2f}"
                for stage in STAGES
                if stage != "wait" and (job, stage) in series
            ]
            lines.append(f"    per window resolved ({windows}): " + ", ".join(per_window))
    return lines


def bench_latency(url: str, games: int = 200) -> None:
    ctx = fresh(url)
    procs = start_workers(url, 2)
    try:
        for label, gap in (("all at once", 0.0), ("steady 40/s", 0.1)):
            ids = [f"l{label[0]}{i}" for i in range(games)]
            for i, g in enumerate(ids):
                start_game(ctx, g, {**CONFIG, "seed": i}, meta(3, table=i))
            idle(ctx)  # the first windows' deliveries
            ctx.store.redis.delete(metrics_histogram("job_stage_seconds"))
            logged = sum(len(ctx.store.resolution_log(g)) for g in ids)
            cpu_before = cpu_seconds(ctx.store.redis, procs)
            commits, sends = latencies(ctx, ids, gap)
            idle(ctx)
            cpu = [
                after - before for after, before in zip(cpu_seconds(ctx.store.redis, procs), cpu_before, strict=True)
            ]
            windows = sum(len(ctx.store.resolution_log(g)) for g in ids) - logged
            print(
                f"last answer -> first outgoing message, {games} games {label:12}: p50 {statistics.median(sends):6.1f} "
                f"ms   p99 {percentile(sends, 0.99):6.1f} ms (goal p99 <= 250 ms); to the commit: p50 "
                f"{statistics.median(commits):6.1f} ms   p99 {percentile(commits, 0.99):6.1f} ms"
            )
            print(
                f"  CPU ms per game, from the first answer sent to the last job done: workers {cpu[0] / games * 1000:.1f}"
                f", redis-server {cpu[1] / games * 1000:.1f}, this process (the answers, the watching) "
                f"{cpu[2] / games * 1000:.1f} (all jobs, the groups' deliveries and the refreshes included: "
                f"{sum(cpu[:2]) / (os.cpu_count() or 1) * 1000:.0f} ms of this machine's {os.cpu_count()} cores)"
            )
            print("  where the jobs' time went, mean ms per job by stage:")
            print("\n".join(stage_report(ctx.store.redis, windows)))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()


def step_round_trips(url: str, games: int = 100) -> float:
    """Redis round trips of one step in process: the resolution of each game's first window and the delivery of
    every message it wrote (what the resolving job sent itself, then the delivery job's part), counted as
    commands and pipeline executions. -> the mean per game (printed)."""
    ctx = fresh(url)
    ids = [f"rt{i}" for i in range(games)]
    for i, g in enumerate(ids):
        start_game(ctx, g, {**CONFIG, "seed": i}, meta(3, table=i))
        delivery.deliver_batch(ctx, g, "v1")
    time.sleep(2.5)  # every chat's budget full again, and no hold pending
    for g in ids:
        for seat in (1, 2):
            ctx.store.submit(g, 1, seat, answer(ctx, g, seat), None, time.time())
    trips = [0]
    command, execute = redis.Redis.execute_command, redis.client.Pipeline.execute

    def counted(method):
        def call(self, *args, **kwargs):
            trips[0] += 1
            return method(self, *args, **kwargs)

        return call

    redis.Redis.execute_command, redis.client.Pipeline.execute = counted(command), counted(execute)
    try:
        for g in ids:
            before = ctx.store.load(g).version
            resolve_window(ctx, g, 1)
            after = ctx.store.load(g).version
            delivery.deliver_batch(ctx, g, *(batch_for_version(v) for v in range(before + 1, after + 1)))
    finally:
        redis.Redis.execute_command, redis.client.Pipeline.execute = command, execute
    print(f"Redis round trips of a step (its resolution and the delivery of its messages): {trips[0] / games:.1f}")
    return trips[0] / games


def percentile(ms: list[float], q: float) -> float:
    return ms[min(len(ms) - 1, int(len(ms) * q))]


def main() -> None:
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        print("bench_pipeline: skipped, no ARTEMIA_TEST_REDIS_URL or REDIS_URL (run it with make bench)")
        return
    url = f"{url.rsplit('/', 1)[0]}/{DB}"
    bench_submits(url)
    bench_resolutions(url)
    bench_latency(url)
    step_round_trips(url)


if __name__ == "__main__":
    main()
