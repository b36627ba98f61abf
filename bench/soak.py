"""Soak with faults (issue 7): many Telegram games played by bots through the webhook (``bench/load.py``'s
driver, the Procfile processes, the fake Bot API) against a redis-server of our own with AOF, while faults are
injected, then an audit of every game.

    python -m bench.soak --games 500 --concurrent 60 --fsync always --duration 1800 [--json out.json]

Faults (each on its own period, all bounded by ``--duration``):
* ``--kill-every``: SIGKILL a random worker process group (its forked job dies with it); a new one is started.
* ``--redis-every``: SIGKILL redis-server and start it again on the same port and AOF directory
  (``appendfsync`` from ``--fsync``: ``always`` or ``everysec``); workers that died meanwhile are replaced.
* ``--api-every``: the fake Bot API answers a burst of 429 (retry_after 1) or 5xx (``--burst`` calls).

Audit at the end (after the games finish or ``--duration`` passes and the queues drain):
* games finished; windows resolved twice (a window twice in ``{g:G}:log``); windows lost (a game not over
  whose open window is overdue by more than the grace, or a gap in the versions of its log);
* acknowledged answers lost: every answer the webhook acknowledged ("Locked in") is looked up in the game's
  action log (``{g:G}:actions``, replayed with the engine to know each action's window): an acknowledged answer
  whose actions are not what the seat played in that window, and that was still legal at the seat's turn in the
  resolution (`answer_was_possible`), was lost; one that an answer applied before it made illegal was replaced
  by a default, its seat told (rulings B, C), and is counted apart;
* messages: outbox messages never marked sent, and Bot API deliveries beyond what the outbox holds: new messages
  sent twice (a duplicate a player sees) and edits repeated with the same text (invisible), counted apart;
* secrets: every outbox message for a seat is routed to that seat's private chat and a group message to the
  game's group; replaying each game gives every private event (``visible_to`` a list), and its line as the
  players read it (``service.i18n.events.line``), when it names a player, must appear only in the private chats
  of seats that may see it; a decision keyboard only in the private chat of a player of the game it names;
  every call goes to a chat of a player or a group of ours. (Second-person lines — "You play: 3 River." — are
  the same for every seat: only the routing check covers them.)
"""

import argparse
import asyncio
import collections
import contextlib
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import tempfile
import time

import httpx
import redis
from fake_bot_api import serve  # noqa: E402  (load put tests/ on the path)

from bench import load
from bench.load import Cluster, Driver, WatchedBotAPI, decision_of, drain, percentile
from service.game import Game, IllegalAction, new_game
from service.i18n.events import line
from service.store.codec import unpack_message, unpack_state


class RedisServer:
    """A redis-server with AOF in a directory of its own, which we may crash and start again."""

    def __init__(self, fsync: str):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="artemia-soak-redis-"))
        self.port = load.free_port()
        self.fsync = fsync
        self.binary = os.environ.get("ARTEMIA_REDIS_SERVER_BIN") or shutil.which("redis-server")
        if not self.binary:
            raise SystemExit("redis-server not found (tools/with-redis.sh installs it)")
        self.proc: subprocess.Popen | None = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--appendonly",
                "yes",
                "--appendfsync",
                self.fsync,
                "--save",
                "",
                "--dir",
                str(self.dir),
                "--logfile",
                str(self.dir / "redis.log"),
            ],
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                if redis.Redis.from_url(self.url).ping():
                    return
            time.sleep(0.05)
        raise SystemExit(f"redis-server did not start: see {self.dir}/redis.log")

    def crash(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.restarts += 1
        self.start()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class SoakDriver(Driver):
    """The load driver, also keeping every acknowledged answer: (game, window, seat) -> actions."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.acked: dict[tuple[str, int, int], list[dict]] = {}
        # (callback data, seat) -> the actions it stands for: two seats pressing the same buttons of one window
        # send the same data
        self._pending: dict[tuple[str, int], list[dict]] = {}
        self.acked_at: dict[tuple[str, int, int], float] = {}  # monotonic time of each acknowledgement
        self.fault_times: list[tuple[float, str]] = []  # (monotonic time, fault) for the audit's lost answers
        self.lost: list[dict] = []  # each lost answer with what the audit knows about it
        self.unsent: list[dict] = []  # outbox messages never marked sent
        self.doubled: list[dict] = []  # texts delivered to a chat more often than the outbox holds them

    def complete_choice(self, game_id, window, seat):
        data = super().complete_choice(game_id, window, seat)
        if data:
            raw = self.redis.hget("{g:" + game_id + "}:snap", "json")
            from service.channels import ui

            self._pending[data, seat] = ui.follow(Game.from_json(unpack_state(raw)), seat, ui.decode(data)).actions
        return data

    async def answer(self, user, game_id, window):
        seat = self.user_game[user][1]
        try:
            with contextlib.suppress(redis.RedisError):
                data = self.complete_choice(game_id, window, seat)
                if data is None:
                    return
                response = await self.post(self.press(user, data))
                if response is not None and response.status_code == 200 and "Locked in" in response.text:
                    self.acked[game_id, window, seat] = self._pending.pop((data, seat), [])
                    self.acked_at[game_id, window, seat] = time.monotonic()
                    self.answer_at[game_id, window] = max(self.answer_at.get((game_id, window), 0), time.monotonic())
        except Exception as exc:  # noqa: BLE001 - counted; the deadline plays the seat
            self.errors[f"answer: {type(exc).__name__}"] += 1


def replay(connection: redis.Redis, game_id: str):
    """(events with the window they happened in, {(window, seat): [actions]}) from the game's action log."""
    raw = connection.lrange("{g:" + game_id + "}:actions", 0, -1)
    if not raw:
        return [], {}
    game = new_game(json.loads(raw[0]))
    events, applied = [], collections.defaultdict(list)
    for entry in raw[1:]:
        seat, action = json.loads(entry)
        window = game.window["id"] if game.window else None
        applied[window, seat].append(action)
        events += game.apply(seat, action)
    return events, applied


def answer_was_possible(connection: redis.Redis, game_id: str, window: int, seat: int, actions: list[dict]) -> bool:
    """Whether ``actions`` were still legal for ``seat`` at its turn in the resolution of ``window``: after the
    answers applied before it (seats not asked, then asked seats of a lower number: service.pipeline.resolution), found
    by replaying the game's action log up to the first entry of the seat itself or of a seat applied after it.
    An answer applied before it that ends the window (the seat's question went away) makes it impossible."""
    raw = connection.lrange("{g:" + game_id + "}:actions", 0, -1)
    game, asked = new_game(json.loads(raw[0])), None
    for entry in raw[1:]:
        other, action = json.loads(entry)
        if game.window is not None and game.window["id"] == window:
            asked = game.waiting_for() if asked is None else asked
            if other == seat or (other in asked and other > seat):
                break
            game.apply(other, action)
            if game.window is None or game.window["id"] != window:
                return False  # an answer applied before the seat's ended the window (a Detour moved it away)
        elif game.window is not None and game.window["id"] > window:
            break
        else:
            game.apply(other, action)
    trial = game.copy()
    try:
        for action in actions:
            trial.apply(seat, action)
    except IllegalAction:
        return False
    return True


def audit(driver: SoakDriver, connection: redis.Redis, api_calls: list[dict], grace: float) -> dict:
    out = collections.Counter()
    chats_of_game, group_of_game, names = {}, {}, {}
    for game_id, info in driver.games.items():
        chats_of_game[game_id] = {str(u): s for s, u in info["users"].items()}
        group_of_game[game_id] = str(info["group"])
        meta = json.loads(connection.hget("{g:" + game_id + "}:meta", "json") or "{}")
        names[game_id] = {int(s): p.get("name") for s, p in meta.get("players", {}).items()}
    known_private = {c for chats in chats_of_game.values() for c in chats}
    known_groups = set(group_of_game.values())
    delivered = [c for c in api_calls if c["ok"] and c["method"] in ("sendMessage", "editMessageText")]
    by_chat = collections.defaultdict(list)
    for call in delivered:
        by_chat[str(call["params"].get("chat_id"))].append(call["params"].get("text") or "")
        if str(call["params"].get("chat_id")) not in known_private | known_groups:
            out["secrets: message to a chat that is not ours"] += 1
        named = decision_of(call["params"])
        if named:
            chat = str(call["params"].get("chat_id"))
            if chat not in chats_of_game.get(named[0], {}):
                out["secrets: decision keyboard in a chat not of a player of its game"] += 1
    now = time.time()
    for game_id in driver.games:
        snap = connection.hgetall("{g:" + game_id + "}:snap")
        status = snap.get(b"status", b"").decode()
        out["games"] += 1
        out["games finished"] += status == "over"
        log = [e.decode() for e in connection.lrange("{g:" + game_id + "}:log", 0, -1)]
        versions = [int(e.split(":")[0]) for e in log]
        windows = [e.split(":")[1] for e in log[1:]]
        out["windows resolved"] += len(windows)
        out["windows resolved twice"] += len(windows) - len(set(windows))
        out["version gaps"] += sum(1 for a, b in zip(versions, versions[1:]) if b != a + 1)
        if status != "over" and snap:
            deadline = float(snap.get(b"deadline", 0))
            closed = float(snap.get(b"closed") or snap.get(b"opened") or now)
            if (status == "collecting" and now > deadline + grace) or (
                status == "resolving" and now > closed + 3 * grace
            ):
                out["windows lost (overdue)"] += 1
        events, applied = replay(connection, game_id)
        for (g, window, seat), actions in driver.acked.items():
            if g != game_id:
                continue
            out["answers acknowledged"] += 1
            played = applied.get((window, seat))
            if played is None and status != "over" and int(snap.get(b"window") or -1) == window:
                out["answers acknowledged, window still open"] += 1
            elif played is None or played[: len(actions)] != actions:
                # An answer that another seat's answer, applied before it, made illegal (a card moved a token,
                # the Beach was used: docs/rulings.md B, C) was replaced by a default, and its seat told: not a
                # loss. A lost answer is one that was still legal where the resolution would have applied it.
                if answer_was_possible(connection, game_id, window, seat, actions):
                    out["answers acknowledged and lost"] += 1
                    driver.lost.append(lost_answer(driver, game_id, window, seat, actions, applied))
                else:
                    out["answers acknowledged, made impossible by an answer applied before it"] += 1
        # the same words may be public at another moment (a discard is public but under Smokescreen): such a line
        # on a chat's history proves nothing, and is counted apart
        public = {line(e, names[game_id], "en") for e in events if e.get("visible_to") is None}
        for event in events:  # the secrets audit proper
            if event.get("visible_to") is None:
                continue
            text = line(event, names[game_id], "en")
            who = names[game_id].get(event.get("seat"))
            if not text or not who or who not in text:
                continue  # a second-person line ("You play: 3 River.") names nobody: the routing audit covers it
            allowed = {c for c, s in chats_of_game[game_id].items() if s in event["visible_to"]}
            for chat in list(chats_of_game[game_id]) + [group_of_game[game_id]]:
                if chat not in allowed and any(text in t for t in by_chat.get(chat, ())):
                    if text in public:
                        out["secrets: private line also public at another moment (not checkable by text)"] += 1
                    else:
                        out[f"secrets: '{event['type']}' line reached a chat that may not see it"] += 1
            out["secrets: private lines checked"] += 1
        outbox = collections.Counter()
        for key in connection.scan_iter(match="{g:" + game_id + "}:out:*", count=1000):
            batch, fields = key.decode().rsplit(":", 1)[1], connection.hgetall(key)
            for index, raw in fields.items():
                if not index.isdigit():
                    continue  # a message's mark ("d<index>"), read with its body
                message = unpack_message(raw)
                outbox[str(message.get("chat")), message.get("text")] += 1
                seat, chat = message.get("seat"), str(message.get("chat"))
                if message.get("group") and chat != group_of_game[game_id]:
                    out["secrets: group message routed to another chat"] += 1
                elif not message.get("group") and seat is not None and chats_of_game[game_id].get(chat) != seat:
                    out["secrets: seat's message routed to a chat not its own"] += 1
                out["secrets: outbox routes checked"] += 1
                state = fields.get(b"d" + index)
                out["outbox messages"] += 1
                if state is None:
                    out["outbox messages never sent"] += 1
                    driver.unsent.append(
                        {
                            "game": game_id,
                            "batch": batch,
                            "index": index.decode(),
                            "chat": chat,
                            "slot": message.get("slot"),
                            "text": (message.get("text") or "")[:60],
                        }
                    )
                elif state not in (b"sent",):
                    out[f"outbox messages marked {state.decode()[:20]}"] += 1
        ours = set(chats_of_game[game_id]) | {group_of_game[game_id]}
        sends, edits = collections.Counter(), collections.Counter()
        for call in delivered:
            key = (str(call["params"].get("chat_id")), call["params"].get("text"))
            if key[0] in ours:
                (sends if call["method"] == "sendMessage" else edits)[key] += 1
        # A stored message goes out once, as a new message or as an edit of its living message. A new message
        # beyond that is a duplicate the player sees; an edit beyond it (the same text again, e.g. the webhook's
        # own "locked in" edit matching a refresh) changes nothing on screen and is counted apart.
        for key, n in outbox.items():
            twice, again = max(0, sends[key] - n), max(0, sends[key] + edits[key] - n)
            out["new messages sent twice"] += twice
            out["edits repeated with the same text"] += again - twice
            if twice:
                driver.doubled.append({"game": game_id, "chat": key[0], "text": (key[1] or "")[:60], "extra": twice})
    return dict(out)


def lost_answer(driver: SoakDriver, game_id: str, window: int, seat: int, actions: list[dict], applied: dict) -> dict:
    """What the report says about one lost answer: what was acknowledged and played, and the faults near it."""
    at = driver.acked_at.get((game_id, window, seat), 0.0)
    near = [f"{kind} at {t - at:+.1f} s" for t, kind in driver.fault_times if abs(t - at) < 30]
    crashes = [t - at for t, kind in driver.fault_times if kind == "redis crash+restart" and t >= at]
    return {
        "game": game_id,
        "window": window,
        "seat": seat,
        "acknowledged": actions,
        "seconds to the next Redis crash": round(min(crashes), 3) if crashes else None,
        "played": applied.get((window, seat)),
        "window's other answers": {s: a for (w, s), a in applied.items() if w == window and s != seat},
        "faults within 30 s of the acknowledgement": near,
    }


async def settle_sends(connection: redis.Redis, limit: float) -> float:
    """Wait (at most ``limit`` s) until no send-queue job is queued, running, waiting for its retry or its time:
    a job whose worker was SIGKILLed is declared abandoned by RQ only after its timeout + 60 s, then retried."""
    started = time.monotonic()
    names = ["rq:queue:artemia-send", "rq:wip:artemia-send", "rq:scheduled:artemia-send"]
    while time.monotonic() - started < limit:
        with contextlib.suppress(redis.RedisError):
            pipe = connection.pipeline(transaction=False)
            pipe.llen(names[0])
            pipe.zcard(names[1])
            pipe.zcard(names[2])
            if not any(pipe.execute()):
                break
        await asyncio.sleep(1.0)
    return time.monotonic() - started


async def soak_async(args, driver: SoakDriver, cluster: Cluster, server: RedisServer, api) -> dict:
    driver.loop = asyncio.get_running_loop()
    rng = random.Random(args.seed)
    faults = collections.Counter()
    started = time.monotonic()
    stop_at = started + args.duration
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=args.concurrency + 8), timeout=30) as client:
        driver.client = client
        next_game, active = 0, set()
        timers = {
            "kill": started + args.kill_every,
            "redis": started + args.redis_every,
            "api": started + args.api_every,
        }
        while time.monotonic() < stop_at:
            with contextlib.suppress(redis.RedisError):
                running = {g for g in active if driver.redis.hget("{g:" + g + "}:snap", "status") != b"over"}
                active = running
                while next_game < args.games and len(active) < args.concurrent:
                    game_id = await driver.setup_game(next_game)
                    next_game += 1
                    if game_id:
                        active.add(game_id)
                    else:
                        faults["game setup failed"] += 1
                if next_game >= args.games and not active:
                    break
            now = time.monotonic()
            if args.kill_every and now >= timers["kill"]:
                timers["kill"] = now + args.kill_every
                alive = cluster.alive_workers()
                if alive:
                    cluster.kill_worker(rng.choice(alive))
                    faults["worker SIGKILL"] += 1
                    driver.fault_times.append((now, "worker SIGKILL"))
            if args.redis_every and now >= timers["redis"]:
                timers["redis"] = now + args.redis_every
                server.crash()
                faults["redis crash+restart"] += 1
                driver.fault_times.append((now, "redis crash+restart"))
            if args.api_every and now >= timers["api"]:
                timers["api"] = now + args.api_every
                kind = "Bot API 429 bursts" if rng.random() < 0.5 else "Bot API 5xx bursts"
                if kind == "Bot API 429 bursts":
                    api.fail("retry_after", 1, times=args.burst)
                else:
                    api.fail("server_error", rng.choice([500, 502, 503]), times=args.burst)
                faults[kind] += 1
                driver.fault_times.append((now, kind))
            missing = args.workers - len(cluster.alive_workers())
            if missing > 0:
                with contextlib.suppress(SystemExit, redis.RedisError):
                    cluster.start_workers(missing)
                    faults["workers (re)started"] += missing
            await asyncio.sleep(0.5)
        play_s = time.monotonic() - started
        # no more faults: let what is in flight finish (bounded)
        settle_until = time.monotonic() + args.settle
        while time.monotonic() < settle_until:
            over = driver.over()
            if over == len(driver.games):
                break
            if len(cluster.alive_workers()) < args.workers:
                with contextlib.suppress(SystemExit, redis.RedisError):
                    cluster.start_workers(args.workers - len(cluster.alive_workers()))
            await asyncio.sleep(1.0)
        await drain(driver.redis, 60)
        sends_settled_s = await settle_sends(driver.redis, args.settle_sends)
        for task in list(driver.tasks):
            task.cancel()
    return {
        "faults": dict(faults),
        "play_s": play_s,
        "games_started": len(driver.games),
        "send_jobs_settled_s": sends_settled_s,
    }


def run(args) -> dict:
    server = RedisServer(args.fsync)
    server.start()
    driver_box: dict = {}
    api = WatchedBotAPI(lambda *call: driver_box["driver"].on_call(*call))
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=load.ROOT, capture_output=True, text=True
    ).stdout.strip()
    try:
        with serve(api) as base_url:
            env = {
                "ARTEMIA_OUTBOX_KEEP_SENT": "1",  # the audit checks every stored message after the run
                "ARTEMIA_SWEEP_INTERVAL_SECONDS": "2",
                "ARTEMIA_RESOLVE_GRACE_SECONDS": "5",
                "ARTEMIA_DOWNTIME_THRESHOLD_SECONDS": "3600",
            }
            cluster = Cluster(server.url, base_url, env)
            try:
                urls = cluster.start_web(args.web)
                cluster.start_workers(args.workers)
                driver = SoakDriver(
                    urls, server.url, args.players, seed=args.seed, deadline=args.deadline, concurrency=args.concurrency
                )
                driver_box["driver"] = driver
                figures = asyncio.run(soak_async(args, driver, cluster, server, api))
                lat = driver.latencies()
                figures["latency_ms"] = {"p50": percentile(lat, 0.5), "p99": percentile(lat, 0.99), "n": len(lat)}
                figures["audit"] = audit(
                    driver, redis.Redis.from_url(server.url), list(api.calls), grace=float(args.deadline)
                )
                figures["webhook_statuses"] = dict(driver.statuses)
                figures["errors"] = dict(driver.errors)
                figures["lost answers"] = driver.lost[:50]
                figures["never sent"], figures["sent twice"] = driver.unsent[:50], driver.doubled[:50]
            finally:
                cluster.stop()
    finally:
        server.stop()
    figures.update(
        {
            "commit": commit,
            "fsync": args.fsync,
            "players": args.players,
            "workers": args.workers,
            "cores": os.cpu_count(),
            "logs": str(cluster.logs),
        }
    )
    return figures


def report(f: dict) -> None:
    a = f["audit"]
    print(
        f"soak: commit {f['commit']}, appendfsync {f['fsync']}, {f['cores']} cores, {f['workers']} workers, "
        f"{f['games_started']} games x {f['players']} players in {f['play_s']:.0f} s (logs {f['logs']})"
    )
    print(f"  faults: {f['faults']}")
    print(
        f"  games finished {a.get('games finished', 0)}/{a.get('games', 0)}; windows resolved "
        f"{a.get('windows resolved', 0)}, twice {a.get('windows resolved twice', 0)}, lost (overdue) "
        f"{a.get('windows lost (overdue)', 0)}, version gaps {a.get('version gaps', 0)}"
    )
    moot = a.get("answers acknowledged, made impossible by an answer applied before it", 0)
    print(
        f"  answers acknowledged {a.get('answers acknowledged', 0)}, lost {a.get('answers acknowledged and lost', 0)}, "
        f"made impossible by an answer applied before it {moot}"
        f" (window still open at the end: {a.get('answers acknowledged, window still open', 0)})"
    )
    before_crash = [
        x["seconds to the next Redis crash"]
        for x in f.get("lost answers", [])
        if x.get("seconds to the next Redis crash") is not None
    ]
    if before_crash:
        print(
            f"  loss window: lost answers were acknowledged {min(before_crash):.2f}-{max(before_crash):.2f} s "
            f"before a Redis crash ({len(before_crash)} of {len(f['lost answers'])} had a crash after them)"
        )
    for lost in f.get("lost answers", [])[:10]:
        print(f"    lost: {json.dumps(lost)}")
    for name in ("never sent", "sent twice"):
        for example in f.get(name, [])[:10]:
            print(f"    {name}: {json.dumps(example)}")
    print(f"  send jobs settled {f.get('send_jobs_settled_s', 0):.0f} s after the games ended")
    print(
        f"  outbox messages {a.get('outbox messages', 0)}, never sent {a.get('outbox messages never sent', 0)}, "
        f"new messages sent twice {a.get('new messages sent twice', 0)}, "
        f"edits repeated with the same text {a.get('edits repeated with the same text', 0)}"
    )
    secrets = {k: v for k, v in a.items() if k.startswith("secrets")}
    print(f"  secrets audit: {secrets}")
    other = {k: v for k, v in a.items() if k.startswith("outbox messages marked")}
    if other:
        print(f"  outbox states: {other}")
    print(
        f"  latency last answer -> next decision: p50 {f['latency_ms']['p50']:.0f} ms, "
        f"p99 {f['latency_ms']['p99']:.0f} ms; webhook {f['webhook_statuses']}; errors {f['errors']}"
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=500)
    p.add_argument("--concurrent", type=int, default=60, help="games in play at once")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--web", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--concurrency", type=int, default=32, help="webhook requests in flight")
    p.add_argument("--fsync", choices=("always", "everysec"), default="always")
    p.add_argument("--duration", type=float, default=1800, help="seconds of play with faults (upper bound)")
    p.add_argument("--settle", type=float, default=120, help="seconds, after the faults, for games to finish")
    p.add_argument(
        "--settle-sends",
        type=float,
        default=300,
        help="seconds, once the games are over, for abandoned and retried send jobs to run",
    )
    p.add_argument("--deadline", type=int, default=30, help="seconds per window (lost answers auto-play then)")
    p.add_argument("--kill-every", type=float, default=45)
    p.add_argument("--redis-every", type=float, default=120)
    p.add_argument("--api-every", type=float, default=20)
    p.add_argument("--burst", type=int, default=15, help="Bot API calls failed per burst")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json")
    return p


def main(argv: list[str] | None = None) -> dict:
    return load.cli(parser(), run, report, argv)


if __name__ == "__main__":
    main()
