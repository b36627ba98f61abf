"""A thousand tables due at once (issue 39, point 3): N Telegram tables whose open windows all close at their
deadline in the same second (a daily deadline at 20:00 is the normal case), sent through the real outbox by the
``Procfile``'s web and worker processes to the fake Bot API (``tests/fake_bot_api.py``) enforcing Telegram's limits
(30 a second in all; about 1 a second per private chat, two within a second tolerated; 20 a minute per group)
with real 429s.

    python -m bench.due [--tables 20] [--players 4] [--workers 4] [--senders 0] [--api-latency 40] [--json out.json]

The tables are set up first, fast and off the clock: each game is started through the pipeline in this process
(``resolution.start_game``, its messages sent to the fake with no limits by this process and by workers run with
unlimited budgets), every seat stays silent. Then the fake's limits go on, the budgets' buckets are emptied, the
Procfile's processes start again with the settings' budgets, and every table's deadline is moved to the same
second (``Store.extend_deadline``, its deadline job and due time with it). What the fake sees from then on:

* ``rate``: Bot API calls (sends and edits) per second from the burst's first call to its last, and the lowest
  count in a whole second of it (goal: >= 27/s, 90 % of Telegram's 30);
* ``429s``: calls the fake answered 429 (goal: 0);
* ``order``: group calls (status edits) and private calls that ask nothing made before the last table's first
  question (a private message with decision buttons; goal: no group call);
* ``first question``: per table, from the deadline to its first question, over the time Telegram's 30 a second
  needs for it and the questions (of any table) out before it: (k + 1) / 30 s with k questions before it; p50 /
  p99 (goal: <= 1.2); and the same from the burst's first call (RQ's scheduler starts timed jobs at whole seconds,
  then moves a thousand of them: the first call comes 1-3 s after the deadline);
* ``cpu``: CPU ms per player-turn (a table's window closing, per seat) of the web processes, the workers (and
  their scheduler) and the redis-server (``INFO cpu``; the run's only client besides this process's polling),
  from the deadline until drained, and their share of the machine's cores over that time (goal: <= 50 %);
* ``drain``: from the deadline to the last call, with every table's next window open and every lane empty.

Four workers and no sender by default: a worker takes the resolutions (with their questions) before any delivery
job, so every question goes before the groups' status edits; a sender process would send those edits beside the
questions, for the same budget.

Needs a redis-server: ``--redis-url``, else ``ARTEMIA_TEST_REDIS_URL`` (``tools/with-redis.sh``), else
``REDIS_URL``; database 10 of it is flushed. Every wait is bounded (``--timeout``).
"""

import argparse
import bisect
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import redis

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_bot_api import FakeBotAPI, Limits, serve  # noqa: E402

from bench.load import TOKEN, UNLIMITED, Cluster, decision_of, percentile, redis_url_from  # noqa: E402
from service import wiring  # noqa: E402
from service.config import Settings  # noqa: E402
from service.pipeline import scheduling  # noqa: E402
from service.pipeline.resolution import start_game  # noqa: E402
from service.store import keys  # noqa: E402

DB = 10
TELEGRAM_RATE = 30.0  # Telegram's overall limit: what the first questions' budget time is measured against
GROUP_BASE = -1_000_000_000_000
USER_BASE = 5_000_000


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.due", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--players", type=int, default=4, help="seats per table, each a person's private chat")
    parser.add_argument("--workers", type=int, default=4, help="the Procfile's worker processes")
    parser.add_argument("--senders", type=int, default=0, help="the Procfile's optional sender processes")
    parser.add_argument("--web", type=int, default=1)
    parser.add_argument("--api-latency", type=float, default=40.0, help="ms the fake holds every answer back")
    parser.add_argument("--lead", type=float, default=6.0, help="seconds from the processes' start to the deadline")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds the drain may take at most")
    parser.add_argument("--settle", type=float, help="ARTEMIA_EDIT_SETTLE_SECONDS (default: the setting's)")
    parser.add_argument("--redis-url")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--calls", help="also write the Bot API calls from the deadline on to this file (JSON)")
    args = parser.parse_args(argv)
    figures, calls = run(args)
    if args.calls:
        pathlib.Path(args.calls).write_text(json.dumps(calls, default=str))
    report(figures)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=1))
    return figures


def run(args) -> tuple[dict, list[dict]]:
    url = redis_url_from(args.redis_url, DB)
    connection = redis.Redis.from_url(url)
    connection.flushdb()
    api = FakeBotAPI(TOKEN)
    api.latency = args.api_latency / 1000
    tables = [Table(n, args.players) for n in range(args.tables)]
    with serve(api) as base_url:
        set_up(connection, url, base_url, tables)
        api.limits = Limits()
        for key in connection.scan_iter(match="artemia:rl:*", count=1000):
            connection.delete(key)  # the setup's buckets (unlimited budgets) and any 429 it met
        cluster = Cluster(
            url, base_url, {} if args.settle is None else {"ARTEMIA_EDIT_SETTLE_SECONDS": str(args.settle)}
        )
        for name in UNLIMITED:
            cluster.env.pop(name)  # the settings' budgets
        try:
            cluster.start_web(args.web)
            cluster.start_workers(args.workers)
            for _ in range(args.senders):  # (counted and stopped with the workers)
                cluster.workers.append(cluster._spawn("sender", cluster.commands["sender"], cluster.env))
            due = make_due(connection, url, base_url, tables, time.time() + args.lead)
            due_mono = time.monotonic() + (due - time.time())
            time.sleep(max(0.0, due - time.time() - 0.5))
            before = cpu(cluster, connection)
            drained_at = wait_drained(connection, api, tables, due_mono, args.timeout)
            after = cpu(cluster, connection)
        finally:
            cluster.stop()
    calls = [{**c, "at": round(c["at"] - due_mono, 3)} for c in api.calls if c["at"] >= due_mono - 0.5]
    return measure(api, tables, due_mono, drained_at, before, after, args), calls


class Table:
    """A group and its players' private chats (ids of their own), and its game."""

    def __init__(self, n: int, players: int):
        self.game = f"due{n}"
        self.group = str(GROUP_BASE - n)
        self.users = [USER_BASE + n * 10 + s for s in range(players)]
        self.chats = [self.group, *(str(u) for u in self.users)]
        self.window = 0

    def meta(self) -> dict:
        players = {
            str(s): {"name": f"P{s}", "chat": str(u), "user": u, "address": f"tg:{u}", "lang": "en"}
            for s, u in enumerate(self.users)
        }
        return {"players": players, "group": self.group, "deadline_seconds": 86400, "bots": [], "lang": "en"}


def set_up(connection: redis.Redis, url: str, base_url: str, tables: list[Table]) -> None:
    """Start every table's game with its messages delivered (no limits yet): the private chats here, the groups'
    status pictures by workers with unlimited budgets, which stop once every lane is empty."""
    settings = Settings(
        redis_url=url,
        telegram_bot_token=TOKEN,
        telegram_api_base_url=base_url,
        rate_global_per_second=1e6,
        rate_private_per_second=1e6,
        rate_group_per_minute=1e8,
        autoplay_bot_after=1_000_000,
    )
    ctx = wiring.build(connection, settings)
    cluster = Cluster(url, base_url, {"ARTEMIA_AUTOPLAY_BOT_AFTER": "1000000"})
    try:
        cluster.start_workers(2)
        for n, table in enumerate(tables):
            config = {"players": len(table.users), "seed": n, "side": 1, "expert": False}
            start_game(ctx, table.game, config, table.meta())
        if not wait_lanes_empty(connection, tables, 600):
            raise SystemExit(f"the tables' first messages were not delivered; logs in {cluster.logs}")
    finally:
        cluster.stop()
    for table in tables:
        table.window = int(connection.hget(keys.snap(table.game), "window") or 0)


def make_due(connection: redis.Redis, url: str, base_url: str, tables: list[Table], at: float) -> float:
    """Move every table's open window's deadline to the whole second after ``at``, with its deadline job and due
    time (as the downtime credit moves them). -> that second."""
    due = float(int(at) + 1)
    settings = Settings(redis_url=url, telegram_bot_token=TOKEN, telegram_api_base_url=base_url)
    ctx = wiring.build(connection, settings)
    for table in tables:
        deadline = float(connection.hget(keys.snap(table.game), "deadline") or 0)
        moved = ctx.store.extend_deadline(table.game, table.window, due - deadline)
        if moved is None:
            raise SystemExit(f"{table.game}: window {table.window} is not open")
        scheduling.deadline(ctx, table.game, table.window, moved)
        ctx.store.set_due(table.game, moved)
    return due


def lanes_left(connection: redis.Redis, tables: list[Table]) -> int:
    pipe = connection.pipeline(transaction=False)
    for table in tables:
        for chat in table.chats:
            pipe.exists(keys.lane(table.game, chat))
    return sum(pipe.execute())


def wait_lanes_empty(connection: redis.Redis, tables: list[Table], limit: float) -> bool:
    stop = time.monotonic() + limit
    while time.monotonic() < stop:
        if not lanes_left(connection, tables):
            return True
        time.sleep(0.5)
    return False


def wait_drained(connection: redis.Redis, api: FakeBotAPI, tables: list[Table], due: float, limit: float) -> float:
    """Wait until every table's next window is open, every lane is empty and the fake has had no call for 2 s
    (a lane's retry): -> the monotonic time of the last call. SystemExit after ``limit`` seconds."""
    stop = due + limit
    while time.monotonic() < stop:
        time.sleep(1.0)
        last = api.calls[-1]["at"] if api.calls else 0.0
        if time.monotonic() < due + 2 or time.monotonic() - last < 2:
            continue
        pipe = connection.pipeline(transaction=False)
        for table in tables:
            pipe.hget(keys.snap(table.game), "window")
        if any(int(w or 0) <= t.window for w, t in zip(pipe.execute(), tables, strict=True)):
            continue
        if not lanes_left(connection, tables):
            return last
    raise SystemExit(f"not drained within {limit:.0f} s of the deadline")


# ------------------------------------------------------------------------------------------------- measuring


def cpu(cluster: Cluster, connection: redis.Redis) -> dict[str, float]:
    """CPU seconds so far of each kind of process: the web processes, the workers (every process of their
    sessions: the RQ scheduler too), the redis-server."""
    tick = os.sysconf("SC_CLK_TCK")
    sessions = {p.pid: "web" for p, _ in cluster.web} | {p.pid: "workers" for p in cluster.workers}
    used = {"web": 0.0, "workers": 0.0}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        kind = sessions.get(int(fields[3]))  # (the fields after the name: state, ppid, pgrp, session, ...)
        if kind:
            used[kind] += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    info = connection.info("cpu")
    used["redis"] = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return used


def measure(
    api: FakeBotAPI, tables: list[Table], due: float, drained_at: float, before: dict, after: dict, args
) -> dict:
    calls = [c for c in api.calls if c["at"] >= due - 0.5 and Limits.counts(c["method"])]
    ok = [c for c in calls if c["ok"]]
    by_chat = {chat: t for t in tables for chat in t.chats}
    first: dict[str, tuple[float, int]] = {}  # game -> (when its first question went, questions sent before it)
    asked = 0
    for c in ok:
        named = decision_of(c["params"])
        table = by_chat.get(str(c["params"].get("chat_id")))
        if named and table and named[1] > table.window:  # a question of the new window (a seat may have several)
            first.setdefault(table.game, (c["at"], asked))
            asked += 1
    order = sorted(at for at, _ in first.values())
    start = ok[0]["at"] if ok else due
    # from the deadline, and from the burst's first call (without the scheduler's whole-second start)
    ratios = [(at - due) / ((ahead + 1) / TELEGRAM_RATE) for at, ahead in first.values()]
    ratios_sent = [(at - start) / ((ahead + 1) / TELEGRAM_RATE) for at, ahead in first.values()]
    last_question = order[-1] if order else due
    early = [c for c in ok if c["at"] < last_question]
    per_second = [0] * (int(drained_at - start) + 1)
    for c in ok:
        per_second[min(len(per_second) - 1, int(c["at"] - start))] += 1
    whole = per_second[:-1] or per_second
    times = [c["at"] for c in ok]
    most = max((bisect.bisect_left(times, at + 1.0) - k for k, at in enumerate(times)), default=0)
    turns = len(tables) * args.players
    used = {k: after[k] - before[k] for k in after}
    span = max(1e-9, drained_at - due)
    return {
        "tables": len(tables),
        "players": args.players,
        "workers": args.workers,
        "senders": args.senders,
        "api_latency_ms": args.api_latency,
        "calls": len(ok),
        "rate_mean": round((len(ok) - 1) / max(1e-9, ok[-1]["at"] - start), 2) if len(ok) > 1 else 0.0,
        "rate_min_second": min(whole) if whole else 0,
        "most_in_a_second": most,
        "too_many_requests": sum(1 for c in calls if c["code"] == 429),
        "first_call_s": round(start - due, 2),
        "drain_s": round(drained_at - due, 2),
        "tables_asked": len(order),
        "last_first_question_s": round(last_question - due, 2),
        "group_calls_before_last_question": sum(1 for c in early if str(c["params"].get("chat_id")).startswith("-")),
        "private_calls_before_last_question": sum(
            1 for c in early if not str(c["params"].get("chat_id")).startswith("-")
        ),
        "first_question_ratio_p50": round(statistics.median(ratios), 2) if ratios else None,
        "first_question_ratio_p99": round(percentile(ratios, 0.99), 2) if ratios else None,
        "first_question_within_1_2": sum(1 for r in ratios if r <= 1.2),
        "first_question_ratio_from_first_call_p50": round(statistics.median(ratios_sent), 2) if ratios else None,
        "first_question_ratio_from_first_call_p99": round(percentile(ratios_sent, 0.99), 2) if ratios else None,
        "questions": asked,
        "cpu_ms_per_player_turn": {k: round(1000 * v / turns, 2) for k, v in used.items()},
        "cpu_share_of_two_cores": round(sum(used.values()) / (2 * span), 3),
        "commit": _git("rev-parse", "--short", "HEAD") + (" + uncommitted" if _git("status", "--porcelain") else ""),
    }


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def report(f: dict) -> None:
    cpu_ms = ", ".join(f"{k} {v}" for k, v in f["cpu_ms_per_player_turn"].items())
    print(
        f"due: {f['tables']} tables x {f['players']} due at once, {f['workers']} workers + {f['senders']} senders, "
        f"Bot API latency "
        f"{f['api_latency_ms']:.0f} ms ({f['commit']})\n"
        f"  rate: {f['rate_mean']} calls/s from the first call ({f['first_call_s']} s after the deadline) to the "
        f"last, lowest whole second {f['rate_min_second']} (goal >= 27), most in any second "
        f"{f['most_in_a_second']}; 429s: {f['too_many_requests']} (goal 0)\n"
        f"  drained {f['drain_s']} s after the deadline, {f['calls']} calls; {f['tables_asked']} tables asked, the "
        f"last first question at {f['last_first_question_s']} s\n"
        f"  before the last first question: {f['group_calls_before_last_question']} group calls (goal 0), "
        f"{f['private_calls_before_last_question']} private calls\n"
        f"  first question / budget time of the questions up to it: p50 {f['first_question_ratio_p50']}, p99 "
        f"{f['first_question_ratio_p99']} (goal <= 1.2); within 1.2: {f['first_question_within_1_2']}; from the "
        f"first call p50 {f['first_question_ratio_from_first_call_p50']}, p99 "
        f"{f['first_question_ratio_from_first_call_p99']}; {f['questions']} questions in all\n"
        f"  CPU ms per player-turn: {cpu_ms}; {100 * f['cpu_share_of_two_cores']:.0f} % of two cores (goal <= 50 %)"
    )
    print(json.dumps(f))


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
