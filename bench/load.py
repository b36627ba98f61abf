"""Load generator (issue 7): N concurrent Telegram games played by bot players through the real webhook over
HTTP, against the ``Procfile`` processes (web and worker command lines taken from the Procfile, host forced to
127.0.0.1) and a real Redis, with a fake Bot API (``tests/fake_bot_api.py``) recording every call.

    python -m bench.load --games 100 --players 4 --web 1 --workers 2 [--redis-url URL] [--json out.json]
    python -m bench.load ... --shards 2   # the games on two redis-servers of their own, the workers dealt round them

Needs a redis-server: ``--redis-url``, else ``ARTEMIA_TEST_REDIS_URL`` (``tools/with-redis.sh``), else
``REDIS_URL``; database 13 of it is flushed. Everything listens on 127.0.0.1 only; every loop is bounded by a
count and a deadline (``--timeout``).

How a game is played: a group per game; its creator sends /newgame, the others open the Join deep link in
private (/start <payload>), the creator sends /begin. From then on the bots read what the workers send to the
fake Bot API: a private message whose keyboard names ``d:<game>:<window>:…`` asks that player; the bot picks its
move with ``service.game.bots`` on its own seat (the snapshot read from Redis, as the web process reads it) and
presses the one button of the complete answer (a callback query posted to the webhook). Deadlines are long
(``--deadline``), so every window is closed by people, none by the clock.

Figures (printed, and written as JSON with ``--json``):

* ``webhook``: updates/s of one web process answering real game answers (button presses that replace a seat's
  answer in an open window: the full path — secret, parse, dedup, snapshot, ui.follow, ingest's engine check,
  the submit script, the status refresh job) against the same server answering a no-op request (``GET`` of an
  unrouted path, or with ``--noop-body`` a POST of a press's body to it: uvicorn, Starlette and the middleware, no
  handler), same client and concurrency, in one-second slices that alternate (the machine is shared: both kinds
  see its load), with the workers paused (SIGSTOP) during both so that the web process has the same machine. The
  client sends prebuilt bodies, so that it pays about as much per answer as per no-op (with ``--noop-body``: the
  same request, bar its path). Per web process: the figure is divided by ``--web`` when several serve behind the
  client's round robin. With it, the CPU time per request of the web processes and of the client, per kind.
* ``resolutions``: windows resolved per second per worker while the games were played (audit log entries
  ``{g:G}:log`` over the play time / workers) — a figure of this load, not a saturation rate. And per shard
  (``--shards N``: N redis-servers started here hold the games, the index stays on ``--redis-url``): each shard's
  games' windows over the play time.
* ``latency``: the last answer of a window (the webhook's 200) -> the first message of the next window at the
  fake Bot API (its decision message), p50 / p99 / max.
* ``memory``: ``MEMORY USAGE`` summed over each game's keys (``{g:<id>}*``) while the games are running and once
  they are over, and the Telegram/lobby keys per game; plus ``used_memory`` growth per game.
* ``messages``: Bot API calls per player per turn (new messages — ``sendMessage``, and ``sendPhoto`` for the
  group's status picture — alone and with the edits, captions and pictures included), group and private.
* ``order`` (``--order``; with ``--real-rates`` the Bot API's own limits apply, and ``--faults S`` makes the fake
  answer a burst of three 429s or three 5xx every S seconds): per chat, calls that showed an older version than
  one the chat already saw (the outbox is kept, ``ARTEMIA_OUTBOX_KEEP_SENT=1``, to tell each call's version:
  a living message's ``seq``, else its step's), and per game the lag of the group's last message after the game's
  last answer (its last private step).
* ``stale_buttons``: private messages of finished games that still show a decision button (a question, or "Change
  my answer") as the fake Bot API holds them at the end; each one is a dead button. Complete only with ``--order``,
  which waits for the outbox's held versions.

One module of over 600 lines on purpose: a benchmark is read and run as one script (its processes, its bots,
its measures and its report side by side); splitting it would scatter one measurement over several files.
"""

import argparse
import asyncio
import collections
import contextlib
import json
import os
import pathlib
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import httpx
import redis

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_bot_api import FakeBotAPI, serve  # noqa: E402
from real_redis import server_binary  # noqa: E402
from serving import free_port  # noqa: E402

from service.channels import ui  # noqa: E402
from service.game import Game  # noqa: E402
from service.game.bots import choose  # noqa: E402
from service.store.codec import unpack_message, unpack_state  # noqa: E402
from service.store.keys import shard_of  # noqa: E402

DB = 13
SECRET = "load-secret"
BOT_USERNAME = "artemia_load_bot"
TOKEN = "123:LOAD"
UNLIMITED = {
    "ARTEMIA_RATE_GLOBAL_PER_SECOND": "1000000",
    "ARTEMIA_RATE_PRIVATE_PER_SECOND": "1000000",
    "ARTEMIA_RATE_GROUP_PER_MINUTE": "100000000",
}
# The bots press at machine speed, also with --real-rates: the inbound flood limits out of their way
# (bench.floods measures them).
UNFLOODED = {"ARTEMIA_INBOUND_TELEGRAM_BURST": "1000000", "ARTEMIA_MAX_OPEN_TABLES": "1000000"}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def redis_url_from(given: str | None, db: int = DB) -> str:
    url = given or os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        raise SystemExit("no Redis: pass --redis-url or run through tools/with-redis.sh (make bench)")
    return f"{url.rsplit('/', 1)[0]}/{db}"


# ---------------------------------------------------------------------------------------------- processes


def procfile() -> dict[str, str]:
    """Process type -> command line, from the Procfile."""
    out = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#") and ":" in line:
            name, _, command = line.partition(":")
            out[name.strip()] = command.strip()
    return out


class Cluster:
    """The Procfile's web and worker processes on 127.0.0.1, each in a session of its own (so one can be
    SIGKILLed with its forked work horses), logs in a temporary directory."""

    def __init__(
        self, redis_url: str, bot_base_url: str, extra_env: dict | None = None, shard_urls: list[str] | None = None
    ):
        self.redis_url = redis_url
        self.shard_urls = shard_urls or []
        self.logs = pathlib.Path(tempfile.mkdtemp(prefix="artemia-load-"))
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "REDIS_URL": redis_url,
            "ARTEMIA_WEBHOOK_SECRET": SECRET,
            "ARTEMIA_BOT_USERNAME": BOT_USERNAME,
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_API_BASE_URL": bot_base_url,
            "ARTEMIA_MIN_DEADLINE_SECONDS": "1",
            "PATH": f"{pathlib.Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
            **UNLIMITED,
            **UNFLOODED,
            **(extra_env or {}),
            **({"ARTEMIA_REDIS_SHARDS": ",".join(self.shard_urls)} if self.shard_urls else {}),
        }
        self.env.pop("ARTEMIA_SENDER", None)
        self.commands = procfile()
        self.web: list[tuple[subprocess.Popen, int]] = []
        self.workers: list[subprocess.Popen] = []
        self._n = 0

    def _spawn(self, kind: str, command: str, env: dict) -> subprocess.Popen:
        self._n += 1
        log = open(self.logs / f"{kind}-{self._n}.log", "wb")
        return subprocess.Popen(
            ["bash", "-c", "exec " + command],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_web(self, n: int = 1) -> list[str]:
        command = self.commands["web"].replace("--host 0.0.0.0", "--host 127.0.0.1")
        if "--host 127.0.0.1" not in command:
            raise SystemExit(f"Procfile web line does not bind a host I can force to loopback: {command}")
        urls = []
        for _ in range(n):
            port = free_port()
            proc = self._spawn("web", command, {**self.env, "PORT": str(port)})
            self.web.append((proc, port))
            urls.append(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        for url in urls:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(url + "/load-noop", timeout=1).status_code == 404:
                        break
                if time.monotonic() > deadline:
                    raise SystemExit(f"web did not start; log in {self.logs}")
                time.sleep(0.1)
        return urls

    def start_workers(self, n: int) -> None:
        """``n`` Procfile workers; with shards, dealt round the shards (``ARTEMIA_SHARD``)."""
        shards = max(1, len(self.shard_urls))
        for i in range(n):
            self.workers.append(
                self._spawn("worker", self.commands["worker"], {**self.env, "ARTEMIA_SHARD": str(i % shards)})
            )
        connections = [redis.Redis.from_url(url) for url in self.shard_urls or [self.redis_url]]
        deadline = time.monotonic() + 30
        while sum(len(c.smembers("rq:workers")) for c in connections) < len(self.alive_workers()):
            if time.monotonic() > deadline:
                raise SystemExit(f"workers did not register; logs in {self.logs}")
            time.sleep(0.1)

    def pause_workers(self, paused: bool) -> None:
        """SIGSTOP / SIGCONT every worker's process group."""
        for proc in self.alive_workers():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGSTOP if paused else signal.SIGCONT)

    def alive_workers(self) -> list[subprocess.Popen]:
        return [p for p in self.workers if p.poll() is None]

    def kill_worker(self, proc: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        procs = [p for p, _ in self.web] + self.workers
        for proc in procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@contextlib.contextmanager
def shard_servers(n: int):
    """``n`` redis-servers of their own on 127.0.0.1, one per game shard (no persistence) -> their URLs."""
    where = pathlib.Path(tempfile.mkdtemp(prefix="artemia-shards-"))
    procs, urls = [], []
    try:
        for i in range(n):
            port = free_port()
            args = [server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(where)]
            procs.append(subprocess.Popen([*args, "--logfile", str(where / f"{i}.log")]))
            urls.append(f"redis://127.0.0.1:{port}/0")
        for url in urls:
            deadline = time.monotonic() + 10
            while not _pings(url):
                if time.monotonic() > deadline:
                    raise SystemExit(f"redis-server {url} did not start; log in {where}")
                time.sleep(0.05)
        yield urls
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _pings(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1).ping())
    except redis.RedisError:
        return False


# ---------------------------------------------------------------------------------------------- the Bot API


class WatchedBotAPI(FakeBotAPI):
    """The fake Bot API, also telling ``on_call(method, params, code, at, message_id)`` about every call (from its
    thread)."""

    def __init__(self, on_call):
        super().__init__(TOKEN)
        self.on_call = on_call

    def _record(self, method, params, code, body):
        response = super()._record(method, params, code, body)
        result = body.get("result") if isinstance(body.get("result"), dict) else {}
        message_id = params.get("message_id") or result.get("message_id")
        self.on_call(method, params, code, time.monotonic(), int(message_id) if message_id else None)
        return response


DECISION = re.compile(r"^d:([A-Za-z0-9_]+):(\d+):")
SENDS = ("sendMessage", "sendPhoto")  # new messages: a text, or the group's status picture
EDITS = ("editMessageText", "editMessageReplyMarkup", "editMessageCaption", "editMessageMedia")


def decision_of(params: dict) -> tuple[str, int] | None:
    """(game, window) named by the buttons of a message, if it is a decision message."""
    markup = params.get("reply_markup") or {}
    if isinstance(markup, str):
        markup = json.loads(markup)
    for row in markup.get("inline_keyboard", []):
        for button in row:
            match = DECISION.match(button.get("callback_data") or "")
            if match:
                return match[1], int(match[2])
    return None


def edit_kind(named: tuple[str, int] | None, text: str) -> str:
    """What a private edit shows (English tables): a question, the answer locked in, an expired choice, else
    results only (a turn message edited with what happened, with no question under it)."""
    if "Locked in:" in text:
        return "locked in"
    if named:
        return "question"
    return "expired" if "has expired" in text else "results only"


# ---------------------------------------------------------------------------------------------- the players


class Driver:
    """Telegram as the bot players see it: posts updates to the web processes, reacts to the Bot API calls."""

    def __init__(
        self,
        urls: list[str],
        redis_url: str,
        players: int,
        seed: int = 1,
        deadline: int = 3600,
        concurrency: int = 64,
        side: int = 1,
        eager: bool = False,
        shard_urls: list[str] | None = None,
        think: float = 0.0,
    ):
        self.urls = urls
        self.think = think  # seconds a bot thinks before it presses (0.5-1.5 times this), for a slower table
        self.side = side  # the Creature's choice of board side (see --side)
        self.eager = eager  # pass with "No cards this turn" (a plan for the rest of the turn) where it is offered
        self.manual: set[str] = set()  # games the bots leave alone (the webhook rate measurement's)
        self.redis = redis.Redis.from_url(redis_url)  # the index (and, unsharded, the games too)
        self.shards = [redis.Redis.from_url(url) for url in shard_urls or []] or [self.redis]
        self.players = players
        self.rng = random.Random(seed)
        self.deadline = deadline
        self.ids = iter(range(10**6, 10**9))
        self.loop: asyncio.AbstractEventLoop | None = None
        self.client: httpx.AsyncClient | None = None
        self.limit = asyncio.Semaphore(concurrency)
        self.games: dict[str, dict] = {}  # game -> {"group", "users": {seat: user}}
        self.user_game: dict[int, tuple[str, int]] = {}
        self.answered: set[tuple[str, int, int]] = set()
        self.answer_at: dict[tuple[str, int], float] = {}  # (game, window) -> last answer's 200
        self.first_decision: dict[tuple[str, int], float] = {}  # (game, window) -> first decision message
        self.calls: list[tuple[str, str, int, float]] = []  # (method, chat, code, at)
        self.shown: list[tuple[str, float, str]] = []  # (chat, at, text) of every successful send or edit
        self.private_sends: collections.Counter = collections.Counter()  # first line of each private send
        self.private_edits: collections.Counter = collections.Counter()  # what each private edit shows
        self.question_message: dict[int, int] = {}  # user -> id of the newest message asking them something
        self.early_questions = collections.defaultdict(list)  # user -> [(game, window)] asked before setup knew them
        self.questions = 0  # decision messages a bot was asked (once per seat and window)
        self.pass_only = 0  # ... whose only answer was to pass
        self.statuses = collections.Counter()
        self.errors = collections.Counter()
        self.tasks: set[asyncio.Task] = set()
        self.api: FakeBotAPI | None = None  # its messages as they stand: what each chat shows now
        self._rr = 0

    def at(self, game_id: str) -> redis.Redis:
        """The Redis of ``game_id``'s shard (`service.store.keys.shard_of`)."""
        return self.shards[shard_of(game_id, len(self.shards))]

    def servers(self) -> list[redis.Redis]:
        """Every Redis of the run, each once: the index and the game shards."""
        return [self.redis] + [s for s in self.shards if s is not self.redis]

    # --- HTTP ---------------------------------------------------------------------------------------------------

    def url(self) -> str:
        self._rr += 1
        return self.urls[self._rr % len(self.urls)]

    async def post(self, update: dict) -> httpx.Response | None:
        async with self.limit:
            for attempt in range(5):  # Telegram retries a non-2xx answer; so do we (bounded)
                try:
                    response = await self.client.post(
                        self.url() + "/telegram/webhook",
                        json=update,
                        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                    )
                except httpx.HTTPError as exc:
                    self.errors[type(exc).__name__] += 1
                    await asyncio.sleep(0.2 * (attempt + 1))
                    continue
                self.statuses[response.status_code] += 1
                if response.status_code < 500:
                    return response
                await asyncio.sleep(0.2 * (attempt + 1))
        return None

    def message(self, user: int, chat: dict, text: str) -> dict:
        n = next(self.ids)
        return {
            "update_id": n,
            "message": {
                "message_id": n,
                "date": int(time.time()),
                "chat": chat,
                "text": text,
                "from": {"id": user, "is_bot": False, "first_name": f"P{user}", "language_code": "en"},
            },
        }

    def press(self, user: int, data: str) -> dict:
        """A button press on the user's newest question message (as Telegram sends it: with that message)."""
        n = next(self.ids)
        return {
            "update_id": n,
            "callback_query": {
                "id": f"q{n}",
                "chat_instance": "load",
                "data": data,
                "from": {"id": user, "is_bot": False, "first_name": f"P{user}", "language_code": "en"},
                "message": {
                    "message_id": self.question_message.get(user, 1),
                    "date": int(time.time()),
                    "chat": {"id": user, "type": "private"},
                },
            },
        }

    # --- setting games up -------------------------------------------------------------------------------------

    async def setup_game(self, index: int, manual: bool = False) -> str | None:
        group = {"id": -1_000_000_000 - index, "type": "supergroup", "title": f"Load {index}"}
        users = [100_000 + index * 10 + k for k in range(self.players)]
        lobby = await self.post(self.message(users[0], group, "/newgame"))
        if lobby is None or not lobby.content:
            return None
        link = lobby.json()["reply_markup"]["inline_keyboard"][0][0]["url"]
        payload = link.split("?start=", 1)[1]
        # everyone presses Join, the creator too: /begin waits until the bot may write to each player
        for user in users:
            await self.post(self.message(user, {"id": user, "type": "private"}, f"/start {payload}"))
        await self.post(self.message(users[0], group, f"/settings deadline {self.deadline}"))
        began = await self.post(self.message(users[0], group, "/begin"))
        if began is None:
            return None
        game_id = self.redis.get(f"artemia:chat:{group['id']}")
        if game_id is None:
            return None
        game_id = game_id.decode()
        meta = json.loads(self.at(game_id).hget("{g:" + game_id + "}:meta", "json"))
        seats = {}
        for seat, player in meta["players"].items():
            user = int(re.search(r"(\d+)$", str(player.get("user") or player.get("chat"))).group(1))
            seats[int(seat)] = user
            self.user_game[user] = (game_id, int(seat))
        self.games[game_id] = {"group": group["id"], "users": seats}
        if manual:
            self.manual.add(game_id)
        for user in seats.values():
            for question in self.early_questions.pop(user, []):
                self.ask(*question, user)
        return game_id

    async def open_wide_window(self, game_id: str, tries: int = 40) -> bool:
        """Answer a manual game's windows until one asks two seats or more (bounded)."""
        for _ in range(tries):
            raw = self.at(game_id).hgetall("{g:" + game_id + "}:snap")
            if raw.get(b"status") == b"collecting":
                game, window = Game.from_json(unpack_state(raw[b"json"])), int(raw[b"window"])
                missing = sorted(set(game.waiting_for()))
                if len(missing) >= 2:
                    return True
                for seat in missing:
                    data = self.complete_choice(game_id, window, seat)
                    if data:
                        await self.post(self.press(self.games[game_id]["users"][seat], data))
            await asyncio.sleep(0.25)
        return False

    # --- playing ------------------------------------------------------------------------------------------------

    def on_call(self, method: str, params: dict, code: int, at: float, message_id: int | None = None) -> None:
        """From the fake Bot API's thread: hand the call to the event loop."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._on_call, method, params, code, at, message_id)

    def _on_call(self, method: str, params: dict, code: int, at: float, message_id: int | None = None) -> None:
        chat = str(params.get("chat_id"))
        self.calls.append((method, chat, code, at))
        if code != 200 or method not in SENDS + EDITS:
            return
        self.shown.append((chat, at, params.get("text") or params.get("caption") or media_caption(params)))
        named = decision_of(params)
        if method in SENDS and not chat.startswith("-"):
            self.private_sends["question" if named else (params.get("text") or "").split("\n")[0][:48]] += 1
        elif not chat.startswith("-"):
            self.private_edits[edit_kind(named, params.get("text") or "")] += 1
        if named is None:
            return
        game_id, window = named
        self.first_decision.setdefault((game_id, window), at)
        user = int(chat) if chat.lstrip("-").isdigit() else None
        if user is not None and message_id:
            self.question_message[user] = message_id
        if user is not None and user not in self.user_game:
            # the first question can arrive before /begin's reply has let setup_game learn the seats
            self.early_questions[user].append((game_id, window))
            return
        self.ask(game_id, window, user)

    def ask(self, game_id: str, window: int, user: int | None) -> None:
        """The bot of ``user`` answers window ``window`` of ``game_id`` (once per window)."""
        if user not in self.user_game or game_id in self.manual:
            return
        key = (game_id, window, user)
        if key in self.answered:
            return
        self.answered.add(key)
        task = self.loop.create_task(self.answer(user, game_id, window))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def complete_choice(self, game_id: str, window: int, seat: int) -> str | None:
        """The button that completes what the window waits for of the seat (None: nothing)."""
        presses = self.presses(game_id, window, seat, count=False)
        return presses[0] if presses else None

    def presses(self, game_id: str, window: int, seat: int, count: bool = True) -> list[str]:
        """The buttons the seat's bot presses in the window, in order: the one that completes what the window waits
        for, then one per question nothing waits for that follows on the same message (a question ahead), as a
        player answers each screen he is shown. Counts a question whose only answer is to pass."""
        raw = self.at(game_id).hgetall("{g:" + game_id + "}:snap")
        if not raw or raw.get(b"status") != b"collecting" or int(raw.get(b"window") or -1) != window:
            return []
        game = Game.from_json(unpack_state(raw[b"json"]))
        if not game.answering(seat):
            return []
        if count:
            self.questions += 1
            self.pass_only += all(a["type"] == "pass" for a in game.legal_actions(seat))
        choice, out = ui.Choice(game_id, window, seat), []
        for _ in range(16):
            stage = ui.follow(game, seat, choice)
            if stage.complete and (not out or len(choice.chosen) > len(ui.decode(out[-1]).chosen)):
                out.append(choice.data())
            if not stage.more:
                return out
            legal = stage.game.legal_actions(seat)
            wanted = choose(stage.game, seat, self.rng)
            if stage.game.window["kind"] == "setup" and {"type": "side", "side": self.side} in legal:
                wanted = [{"type": "side", "side": self.side}]
            if self.eager and wanted and wanted[0] == ui.PASS and not choice.chosen:
                choice = choice.choose(ui.NO_CARDS)  # the question's own button: no card for the rest of the turn
                continue
            pick = legal.index(wanted[0]) if wanted and wanted[0] in legal else 0
            choice = choice.choose(pick)
        return out

    async def answer(self, user: int, game_id: str, window: int) -> None:
        seat = self.user_game[user][1]
        if self.think:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
        try:
            presses = self.presses(game_id, window, seat)
        except Exception as exc:  # noqa: BLE001 - counted and reported; the deadline covers the seat
            self.errors[f"choice: {type(exc).__name__}"] += 1
            return
        for data in presses:
            response = await self.post(self.press(user, data))
            if response is not None and response.status_code == 200 and "Locked in" in response.text:  # not refused
                self.answer_at[game_id, window] = max(self.answer_at.get((game_id, window), 0), time.monotonic())

    def over(self) -> int:
        return sum(1 for game_id in self.games if self.status(game_id) == b"over")

    def status(self, game_id: str) -> bytes | None:
        return self.at(game_id).hget("{g:" + game_id + "}:snap", "status")

    # --- figures --------------------------------------------------------------------------------------------

    def latencies(self) -> list[float]:
        """ms from the last answer of a window to the first decision message of the game's next window."""
        return [ms for _, ms in self.timed_latencies()]

    def timed_latencies(self) -> list[tuple[float, float]]:
        """(when the window's last answer came, `latencies`' ms) of every window."""
        return [
            (answered, (next_at - answered) * 1000) for answered, next_at in self.answered_next() if next_at >= answered
        ]

    def overtaken(self) -> int:
        """Windows left out of `latencies`: the next window's first decision message came before the client had
        the 200 of the last answer (the resolution was quicker than the webhook's reply)."""
        return sum(1 for answered, next_at in self.answered_next() if next_at < answered)

    def answered_next(self) -> list[tuple[float, float]]:
        """(when the window's last answer came, when the game's next window's first decision message came) of every
        window answered by a press."""
        by_game = collections.defaultdict(list)
        for (game_id, window), at in self.first_decision.items():
            by_game[game_id].append((window, at))
        out = []
        for game_id, seen in by_game.items():
            seen.sort()
            for (window, _), (_, next_at) in zip(seen, seen[1:]):
                answered = self.answer_at.get((game_id, window))
                if answered is not None:
                    out.append((answered, next_at))
        return out


# ---------------------------------------------------------------------------------------------- measuring


def index_bytes(connection: redis.Redis) -> int:
    """The Telegram/lobby/index keys (not a game's own, not the per-update dedup keys), in bytes."""
    total = 0
    for pattern in (
        "tg:*",
        "artemia:lobby:*",
        "artemia:place:*",
        "artemia:games:*",
        "artemia:chat:*",
        "artemia:opened:*",
    ):
        for key in connection.scan_iter(match=pattern, count=1000):
            if not key.startswith(b"tg:upd:"):
                total += connection.memory_usage(key, samples=0) or 0
    return total


def memory(driver: "Driver", games: list[str], measured: int, index_before: int) -> dict:
    """Bytes per game of ``games``: its own keys ({g:<id>}*, on its shard); and the Telegram/lobby/index keys added
    since ``index_before`` per measured game (every measured game's players stay indexed while it runs and after)."""
    connection, own, kinds = driver.redis, [], collections.Counter()
    for game_id in games:
        total, on = 0, driver.at(game_id)
        for key in on.scan_iter(match="{g:" + game_id + "}*", count=1000):
            size = on.memory_usage(key, samples=0) or 0
            total += size
            kinds[key_kind(key)] += size
        own.append(total)
    other = index_bytes(connection) - index_before
    # The webhook's dedup keys are per update (kept 25 h), not per game: reported apart, per key.
    updates = [connection.memory_usage(k, samples=0) or 0 for k in connection.scan_iter(match="tg:upd:*", count=1000)]
    return {
        "game_keys_mean": statistics.mean(own) if own else 0,
        "game_keys_max": max(own, default=0),
        "index_keys_per_game": other / max(1, measured),
        "update_dedup_keys": len(updates),
        "bytes_per_update_dedup_key": statistics.mean(updates) if updates else 0,
        "game_keys_by_kind": {kind: size / max(1, len(games)) for kind, size in kinds.most_common()},
    }


def key_kind(key: bytes) -> str:
    """A game key's kind: its name after the game's tag, without the batch, chat or index it names
    (``{g:G}:out:17`` -> ``out``, ``{g:G}:tg:slots`` -> ``tg:slots``)."""
    name = key.decode().split("}:", 1)[1]
    return name if name.startswith("tg:") else name.split(":", 1)[0]


async def rate(client: httpx.AsyncClient, make_request, seconds: float, concurrency: int) -> float:
    """Requests/s over ``seconds`` with ``concurrency`` requests in flight."""
    done, stop = 0, time.perf_counter() + seconds
    started = time.perf_counter()

    async def one_lane():
        nonlocal done
        while time.perf_counter() < stop:
            response = await make_request()
            if response.status_code >= 500:
                raise RuntimeError(f"{response.status_code} during the rate measurement")
            done += 1

    await asyncio.gather(*(one_lane() for _ in range(concurrency)))
    return done / (time.perf_counter() - started)


def press_template(driver: Driver, user: int, data: str) -> list[bytes]:
    """A press's JSON body split where its update id goes (``str(n).encode().join(parts)`` is a new press): the
    client then pays as little per answer as per no-op request, so that the ratio is the server's."""
    marker = 987654321987
    body = driver.press(user, data)
    body["update_id"], body["callback_query"]["id"] = marker, f"q{marker}"
    return json.dumps(body).encode().split(str(marker).encode())


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds these processes have used so far (Linux's /proc; 0 where it cannot be read)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (the 14th and 15th fields)
    return total / os.sysconf("SC_CLK_TCK")


async def measure_webhook(
    driver: Driver, games: list[str], seconds: float, concurrency: int, web_pids: list[int], noop_body: bool = False
) -> dict:
    """Real answers (replacing a seat's answer in an open window) vs a no-op request, in one-second slices that
    alternate (``seconds`` twice over of each), so that both see the same machine: it is shared. Also the CPU time
    per request of the web processes and of this client, per kind: where the time goes. ``noop_body``: the no-op
    request is a POST of the same press bodies and headers to the unrouted path (this client's httpx then pays
    about as much per no-op as per answer; a GET costs it ~15-25 % less), not a GET."""
    presses = []  # the body template of a press for all but one missing seat of each game
    for game_id in games:
        raw = driver.at(game_id).hgetall("{g:" + game_id + "}:snap")
        if raw.get(b"status") != b"collecting":
            continue
        game = Game.from_json(unpack_state(raw[b"json"]))
        window = int(raw[b"window"])
        asked = game.waiting_for()
        for seat in asked[:-1]:
            data = driver.complete_choice(game_id, window, seat)
            if data:
                presses.append(press_template(driver, driver.games[game_id]["users"][seat], data))
    if not presses:
        return {}
    client, noop, real = driver.client, [], []
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}

    async def noop_request():
        if noop_body:
            body = str(next(driver.ids)).encode().join(presses[driver.rng.randrange(len(presses))])
            return await client.post(driver.url() + "/load-noop", content=body, headers=headers)
        return await client.get(driver.url() + "/load-noop")

    async def answer_request():
        body = str(next(driver.ids)).encode().join(presses[driver.rng.randrange(len(presses))])
        response = await client.post(driver.url() + "/telegram/webhook", content=body, headers=headers)
        if response.status_code != 200 or b"Locked in" not in response.content:
            driver.errors[f"webhook answer {response.status_code}: {response.content[:80]!r}"] += 1
        return response

    slices = max(1, round(2 * seconds))
    cpu = {kind: {"web": 0.0, "client": 0.0, "requests": 0} for kind in ("noop", "answers")}

    async def timed(kind: str, make_request, rates: list[float]) -> None:
        web_before, client_before, started = cpu_seconds(web_pids), time.process_time(), time.perf_counter()
        rates.append(await rate(client, make_request, 2 * seconds / slices, concurrency))
        cpu[kind]["requests"] += int(rates[-1] * (time.perf_counter() - started))
        cpu[kind]["web"] += cpu_seconds(web_pids) - web_before
        cpu[kind]["client"] += time.process_time() - client_before

    for _ in range(slices):
        await timed("noop", noop_request, noop)
        await timed("answers", answer_request, real)
    web = len(driver.urls)
    return {
        "answers_per_s": statistics.mean(real) / web,
        "noop_per_s": statistics.mean(noop) / web,
        "ratio": statistics.mean(real) / statistics.mean(noop),
        "concurrency": concurrency,
        "seconds": seconds,
        "presses": len(presses),
        "answers": cpu["answers"]["requests"],
        "runs": {"noop": noop, "answers": real},
        "cpu_ms_per_request": {
            kind: {side: 1000 * c[side] / max(1, c["requests"]) for side in ("web", "client")}
            for kind, c in cpu.items()
        },
    }


async def flood(driver: Driver, args) -> dict:
    """One player of a game of its own presses the same valid answer ``args.flood`` times in ``args.flood_seconds``
    (an open window that waits for another seat, so every press is accepted), from a client of its own, while the
    other games are played; meanwhile /healthz and the queues are sampled every 0.5 s. The other games' latency
    while the flood lasts is compared with theirs outside it, in the same run."""
    game_id = await driver.setup_game(20_000, manual=True)
    if not game_id or not await driver.open_wide_window(game_id):
        return {"error": "no game with a window open for two seats"}
    raw = driver.at(game_id).hgetall("{g:" + game_id + "}:snap")
    seat = Game.from_json(unpack_state(raw[b"json"])).waiting_for()[0]
    data = driver.complete_choice(game_id, int(raw[b"window"]), seat)
    user, presses, health, queued = driver.games[game_id]["users"][seat], args.flood, collections.Counter(), []
    statuses: collections.Counter = collections.Counter()
    await asyncio.sleep(3.0)  # the games under way first
    refresh_jobs_before = refresh_jobs(driver.redis)
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=24), timeout=30) as client:
        started = time.monotonic()
        stop = started + args.flood_seconds

        async def lane(first: int) -> None:
            for i in range(first, presses, 16):
                delay = started + args.flood_seconds * i / presses - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                try:
                    response = await client.post(
                        driver.url() + "/telegram/webhook",
                        json=driver.press(user, data),
                        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                    )
                    statuses[response.status_code] += 1
                except httpx.HTTPError as exc:
                    statuses[type(exc).__name__] += 1

        async def sample() -> None:
            while time.monotonic() < stop + 5:
                with contextlib.suppress(httpx.HTTPError):
                    health[(await client.get(driver.url() + "/healthz")).status_code] += 1
                queued.append(queue_lengths(driver.shards, ("artemia-send", "artemia-refresh")))
                await asyncio.sleep(0.5)

        await asyncio.gather(sample(), *(lane(k) for k in range(16)))
        ended = time.monotonic()
    timed = driver.timed_latencies()
    during = [ms for at, ms in timed if started <= at <= ended]
    outside = [ms for at, ms in timed if not started <= at <= ended]
    return {
        "presses": presses,
        "seconds": ended - started,
        "statuses": dict(statuses),
        "healthz": dict(health),
        "queued_max": max(queued, default=0),
        "refresh_jobs": refresh_jobs(driver.redis) - refresh_jobs_before,
        "others_latency_ms": {
            "during_p50": percentile(during, 0.5),
            "during_p99": percentile(during, 0.99),
            "during_n": len(during),
            "outside_p50": percentile(outside, 0.5),
            "outside_p99": percentile(outside, 0.99),
            "outside_n": len(outside),
        },
    }


def refresh_jobs(connection: redis.Redis) -> int:
    """Refresh jobs run so far (the workers' job counter, `service.ops.metrics`)."""
    return sum(int(v) for k, v in connection.hgetall("artemia:metrics:c").items() if k.startswith(b"jobs|job=refresh"))


def queue_lengths(shards: list[redis.Redis], names: tuple[str, ...]) -> int:
    """Jobs waiting in the queues ``names`` of every shard."""
    return sum(shard.llen(f"rq:queue:{q}") for shard in shards for q in names)


async def drain(shards: list[redis.Redis], limit: float) -> float:
    """Wait (at most ``limit`` s) until the workers have run every queued job (the rate measurement's edits)."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        if queue_lengths(shards, ("artemia", "artemia-send", "artemia-refresh")) == 0:
            break
        await asyncio.sleep(0.25)
    await asyncio.sleep(1.0)
    return time.monotonic() - started


def media_caption(params: dict) -> str:
    """The caption of an ``editMessageMedia`` call (inside its JSON ``media``)."""
    media = params.get("media")
    return (json.loads(media) if isinstance(media, str) else media or {}).get("caption") or ""


def message_figures(driver: Driver, turns: int) -> dict:
    players = len(driver.games) * driver.players
    ok = [c for c in driver.calls if c[2] == 200]
    sends = [c for c in ok if c[0] in SENDS]
    edits = [c for c in ok if c[0] in EDITS]
    group = {str(g["group"]) for g in driver.games.values()}
    player_turns = max(1, turns * driver.players)
    return {
        "player_turns": player_turns,
        "players": players,
        "sends_per_player_turn": len(sends) / player_turns,
        "questions_per_player_turn": driver.questions / player_turns,
        "pass_only_per_player_turn": driver.pass_only / player_turns,
        "calls_per_player_turn": (len(sends) + len(edits)) / player_turns,
        "group_sends_per_turn": sum(1 for c in sends if c[1] in group) / max(1, turns),
        "private_sends_per_player_turn": sum(1 for c in sends if c[1] not in group) / player_turns,
        "edits_per_player_turn": len(edits) / player_turns,
        "group_edits_per_turn": sum(1 for c in edits if c[1] in group) / max(1, turns),
        "private_edits_per_player_turn": sum(1 for c in edits if c[1] not in group) / player_turns,
        "private_sends_by_kind": dict(driver.private_sends.most_common(8)),
        "private_edits_by_kind": dict(driver.private_edits.most_common(8)),
        "by_method": dict(collections.Counter(c[0] for c in driver.calls)),
    }


def stale_buttons(driver: Driver, games: list[str]) -> dict:
    """Private messages of finished games that still show a decision button (a question, or "Change my answer"):
    every window of such a game is closed, so a press there only gets "this choice has expired". Counted on the
    messages as the fake Bot API holds them now, by what the text shows."""
    over = {g for g in games if (driver.status(g) or b"") == b"over"}
    stale: collections.Counter = collections.Counter()
    if driver.api is None:
        return {}
    for (chat, _), shown in list(driver.api.messages.items()):
        named = decision_of({"reply_markup": shown.get("reply_markup")})
        if chat.startswith("-") or named is None or named[0] not in over:
            continue
        stale[edit_kind(named, shown.get("text") or "")] += 1
    return {"games_over": len(over), "messages": sum(stale.values()), "by_kind": dict(stale)}


def produced(connection: redis.Redis, game_id: str) -> dict[tuple[str, str], list[int]]:
    """(chat, text) -> the versions (order keys) of the outbox messages with that text: a living message's
    ``seq``, a screen's step (its ``until`` is the next step's seq), else its step's (``v<N>`` and ``u<seat>v<N>``
    batches: after the step's living messages). Texts repeat (a "locked in" with the same deadline in several
    steps): a call counts as in order if any of its versions fits. Needs the outbox kept
    (``ARTEMIA_OUTBOX_KEEP_SENT=1``)."""
    out: dict[tuple[str, str], list[int]] = collections.defaultdict(list)
    prefix = "{g:" + game_id + "}:out:"
    for key in connection.scan_iter(match=prefix + "*", count=1000):
        batch = key.decode()[len(prefix) :]
        step = re.search(r"v(\d+)$", batch)
        for index, raw in connection.hgetall(key).items():
            if not index.isdigit():
                continue  # a delivered message's mark ("d<index>")
            m = unpack_message(raw)
            if m.get("seq") is not None:
                out[m["chat"], m["text"]].append(int(m["seq"]))
            elif m.get("until") is not None:  # a screen after a press, drawn at the step before ``until``
                out[m["chat"], m["text"]].append(int(m["until"]) - 100)
            elif step:
                out[m["chat"], m["text"]].append(int(step[1]) * 100 + 99)
    return out


def order_figures(driver: Driver, games: list[str]) -> dict:
    """Per chat, the calls that showed an older version than one the chat had already shown; per game, the lag of
    the group's last message after the game's last answer."""
    violations, checked, lags, examples, folded = 0, 0, [], [], 0
    for game_id in games:
        versions = produced(driver.at(game_id), game_id)
        folded += sum(
            len(json.loads(raw)["from"])
            for field, raw in driver.at(game_id).hgetall("{g:" + game_id + "}:shown").items()
            if field.endswith(b"|prefix")
        )
        group = str(driver.games[game_id]["group"])
        chats = {group} | {str(u) for u in driver.games[game_id]["users"].values()}
        shown_max: dict[str, int] = {}
        for chat, _at, text in sorted((c for c in driver.shown if c[0] in chats), key=lambda c: c[1]):
            candidates = sorted(versions.get((chat, text), []))
            if not candidates:
                continue  # not a message of this game's outbox (the lobby's), or a screen
            checked += 1
            seen = shown_max.get(chat, -1)
            fitting = [v for v in candidates if v >= seen]
            if fitting:
                shown_max[chat] = fitting[0]
            else:
                violations += 1
                if len(examples) < 5:
                    examples.append(f"{chat}: version {candidates[-1]} after {seen}: {text[:60]!r}")
        last_answer = max((at for (g, _), at in driver.answer_at.items() if g == game_id), default=None)
        last_group = max((at for chat, at, _ in driver.shown if chat == group), default=None)
        if last_answer is not None and last_group is not None:
            lags.append(last_group - last_answer)
    return {
        "calls_checked": checked,
        "order_violations": violations,
        "examples": examples,
        "folded": folded,
        "group_lag_s": {
            "n": len(lags),
            "p50": percentile(lags, 0.5),
            "max": max(lags, default=float("nan")),
        },
    }


def game_turns(driver: "Driver", games: list[str]) -> int:
    total = 0
    for game_id in games:
        raw = driver.at(game_id).hget("{g:" + game_id + "}:snap", "json")
        if raw:
            total += Game.from_json(unpack_state(raw)).turn
    return total


def resolutions(driver: "Driver", games: list[str]) -> int:
    return sum(max(0, driver.at(g).llen("{g:" + g + "}:log") - 1) for g in games)


def per_shard(driver: "Driver", games: list[str], play_s: float) -> list[dict]:
    """Windows resolved on each shard (its games' audit logs) and per second of play: each shard's throughput."""
    out = []
    for n in range(len(driver.shards)):
        mine = [g for g in games if shard_of(g, len(driver.shards)) == n]
        resolved = resolutions(driver, mine)
        out.append({"shard": n, "games": len(mine), "windows": resolved, "per_s": resolved / play_s})
    return out


def used_memory(driver: "Driver") -> int:
    return sum(server.info("memory")["used_memory"] for server in driver.servers())


# ---------------------------------------------------------------------------------------------- the run


async def run_async(args, driver: Driver, cluster: Cluster) -> dict:
    driver.loop = asyncio.get_running_loop()
    figures: dict = {}
    # idle connections are dropped before uvicorn's 5 s keep-alive ends: one reused as the server closed it was a
    # ReadError (retried, and counted among the run's errors)
    limits = httpx.Limits(max_connections=args.concurrency + 8, keepalive_expiry=2.0)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        driver.client = client
        # 1. the webhook's rate on a few games set aside for it (their windows stay open)
        if args.rate_seconds > 0:
            spare = [
                g
                for g in await asyncio.gather(
                    *(driver.setup_game(10_000 + i, manual=True) for i in range(args.rate_games))
                )
                if g
            ]
            await asyncio.gather(*(driver.open_wide_window(g) for g in spare))
            # the workers are paused meanwhile, so that both runs give the web process the same machine (on 2
            # cores the workers running the answers' refresh jobs would otherwise take CPU from one run only)
            cluster.pause_workers(True)
            try:
                web_pids = [proc.pid for proc, _ in cluster.web]
                figures["webhook"] = await measure_webhook(
                    driver, spare, args.rate_seconds, args.concurrency, web_pids, args.noop_body
                )
            finally:
                cluster.pause_workers(False)
            for game_id in spare:
                driver.games.pop(game_id, None)
            for g in spare:
                on = driver.at(g)
                on.delete(*[k for k in on.scan_iter(match="{g:" + g + "}*")] or ["-"])
                on.zrem("artemia:due", g)
            figures["webhook"]["drain_s"] = await drain(driver.shards, 180)
        driver.answered.clear()
        driver.answer_at.clear()
        driver.first_decision.clear()
        driver.calls.clear()
        driver.private_sends.clear()
        driver.private_edits.clear()
        # 2. the games, played to the end
        started = time.monotonic()
        before = used_memory(driver)
        index_before = index_bytes(driver.redis)  # the webhook measurement's games left theirs
        games = [g for g in await asyncio.gather(*(driver.setup_game(i) for i in range(args.games))) if g]
        setup_s = time.monotonic() - started
        flooding = asyncio.create_task(flood(driver, args)) if args.flood else None
        play_started, refreshes_before = time.monotonic(), refresh_jobs(driver.redis)
        deadline = play_started + args.timeout
        samples, next_sample = [], play_started + args.memory_every
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            over = driver.over()
            if over == len(games):
                break
            if time.monotonic() >= next_sample:  # memory of the games still running, now and then
                next_sample = time.monotonic() + args.memory_every
                running = [g for g in games if driver.status(g) != b"over"]
                sample = memory(driver, running, len(games), index_before)
                sample["used_memory_per_game"] = (used_memory(driver) - before) / len(games)
                samples.append(sample)
        active_memory = {"samples": len(samples)}
        if samples:
            numbers = [k for k in samples[0] if k != "game_keys_by_kind"]
            active_memory.update({k: statistics.mean(s[k] for s in samples) for k in numbers})
            active_memory["game_keys_by_kind"] = samples[len(samples) // 2]["game_keys_by_kind"]
            active_memory["game_keys_max"] = max(s["game_keys_max"] for s in samples)
        play_s = time.monotonic() - play_started
        if flooding is not None:
            figures["flood"] = await flooding
        await asyncio.sleep(1.0)  # the last deliveries
        refreshes = refresh_jobs(driver.redis) - refreshes_before
        if args.order:  # ... all of them: until the Bot API has heard nothing for longer than the outbox holds a
            # version back (`edit_settle_seconds`: 15 s), at most 600 s
            quiet_until = time.monotonic() + 600
            while (
                time.monotonic() < quiet_until and time.monotonic() - max((c[3] for c in driver.calls), default=0) < 20
            ):
                await asyncio.sleep(0.5)
        for task in list(driver.tasks):
            task.cancel()
        over = driver.over()
        turns = game_turns(driver, games)
        resolved = resolutions(driver, games)
        latencies = driver.latencies()
        figures.update(
            {
                "games": len(games),
                "games_over": over,
                "setup_s": setup_s,
                "play_s": play_s,
                "turns": turns,
                "resolutions": {
                    "windows": resolved,
                    "per_s": resolved / play_s,
                    "per_s_per_worker": resolved / play_s / max(1, args.workers),
                    "refresh_jobs": refreshes,
                    "shards": per_shard(driver, games, play_s),
                },
                "updates_per_s_during_play": sum(driver.statuses.values()) / max(0.001, setup_s + play_s),
                "latency_ms": {
                    "n": len(latencies),
                    "p50": percentile(latencies, 0.5),
                    "p99": percentile(latencies, 0.99),
                    "max": max(latencies, default=float("nan")),
                    "overtaken": driver.overtaken(),
                },
                "memory_active": active_memory or {},
                "memory_finished": memory(driver, games, len(games), index_before),
                "messages": message_figures(driver, turns),
                "stale_buttons": stale_buttons(driver, games),
                **({"order": order_figures(driver, games)} if args.order else {}),
                "statuses": dict(driver.statuses),
                "errors": dict(driver.errors),
            }
        )
    return figures


@contextlib.contextmanager
def faults(api: FakeBotAPI, every: float):
    """Every ``every`` seconds (0: never) the fake Bot API answers the next three calls with 429 (retry after 1 s)
    or, the other time, with 502."""
    stop = threading.Event()

    def inject():
        n = 0
        while not stop.wait(every):
            n += 1
            api.fail(*(("retry_after", 1) if n % 2 else ("server_error", 502)), times=3)

    thread = threading.Thread(target=inject, daemon=True)
    if every > 0:
        thread.start()
    try:
        yield
    finally:
        stop.set()


def run(args) -> dict:
    url = redis_url_from(args.redis_url)
    connection = redis.Redis.from_url(url)
    connection.flushdb()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = bool(
        subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    )
    if args.shards and args.workers < args.shards:
        raise SystemExit(f"--workers {args.workers} < --shards {args.shards}: every shard needs a worker")
    driver_box: dict = {}
    api = WatchedBotAPI(lambda *call: driver_box["driver"].on_call(*call))
    api.latency = args.api_latency / 1000
    with serve(api) as base_url, faults(api, args.faults), shard_servers(args.shards) as shards:
        cluster = Cluster(url, base_url, {"ARTEMIA_OUTBOX_KEEP_SENT": "1"} if args.order else {}, shards)
        for name in UNLIMITED if args.real_rates else ():
            cluster.env.pop(name)  # the settings' defaults: Telegram's limits
        try:
            urls = cluster.start_web(args.web)
            cluster.start_workers(args.workers)
            driver = Driver(
                urls,
                url,
                args.players,
                seed=args.seed,
                deadline=args.deadline,
                concurrency=args.concurrency,
                side=args.side,
                eager=args.eager,
                shard_urls=shards,
                think=args.think,
            )
            driver_box["driver"] = driver
            driver.api = api
            figures = asyncio.run(run_async(args, driver, cluster))
        finally:
            cluster.stop()
    figures.update(
        {
            "commit": commit + ("+dirty" if dirty else ""),
            "players": args.players,
            "api_latency_ms": args.api_latency,
            "eager": args.eager,
            "web": args.web,
            "workers": args.workers,
            "shards": args.shards,
            "cores": os.cpu_count(),
            "logs": str(cluster.logs),
        }
    )
    return figures


def report(f: dict) -> None:
    print(
        f"load: commit {f['commit']}, {f['cores']} cores, {f['web']} web, {f['workers']} workers, "
        f"{f['games']} games x {f['players']} players, Bot API latency {f.get('api_latency_ms', 0):g} ms "
        f"(logs {f['logs']})"
    )
    w = f.get("webhook") or {}
    if w:
        print(
            f"  webhook per web process: {w['answers_per_s']:7.0f} answers/s vs no-op {w['noop_per_s']:7.0f}/s"
            f"  ratio {w['ratio']:.2f} (goal >= 0.9; concurrency {w['concurrency']}; workers paused; they then took "
            f"{w.get('drain_s', 0):.0f} s to run the jobs its {w['answers']} answers queued)"
        )
        cpu = w["cpu_ms_per_request"]
        print(
            f"    CPU ms per request: web {cpu['answers']['web']:.2f} per answer vs {cpu['noop']['web']:.2f} per no-op; "
            f"this client {cpu['answers']['client']:.2f} vs {cpu['noop']['client']:.2f}; slices of "
            f"{2 * w['seconds'] / len(w['runs']['noop']):.1f} s, answers/no-op each: "
            + ", ".join(f"{a / n:.2f}" for a, n in zip(w["runs"]["answers"], w["runs"]["noop"], strict=True))
        )
    print(
        f"  games over {f['games_over']}/{f['games']} in {f['play_s']:.1f} s (setup {f['setup_s']:.1f} s), "
        f"{f['turns']} turns; updates/s during play {f['updates_per_s_during_play']:.0f}"
    )
    r = f["resolutions"]
    print(
        f"  window resolutions: {r['windows']} = {r['per_s']:.1f}/s = {r['per_s_per_worker']:.1f}/s per worker; status "
        f"refresh jobs run while playing: {r['refresh_jobs']} ({r['refresh_jobs'] / max(1, r['windows']):.2f} a window)"
    )
    if f["shards"]:
        print(
            "  per shard: "
            + "; ".join(
                f"shard {s['shard']}: {s['windows']} windows of {s['games']} games = {s['per_s']:.1f}/s"
                for s in r["shards"]
            )
        )
    lat = f["latency_ms"]
    print(
        f"  last answer -> first message of the next window: p50 {lat['p50']:.0f} ms, p99 {lat['p99']:.0f} ms, "
        f"max {lat['max']:.0f} ms (n={lat['n']}; left out: {lat.get('overtaken', 0)} whose next question came before "
        "the last answer's 200)"
    )
    ma, mf = f["memory_active"], f["memory_finished"]
    if ma.get("samples"):
        print(
            f"  memory per active game ({ma['samples']} samples): {ma['game_keys_mean'] / 1024:.1f} KB game keys (max "
            f"{ma['game_keys_max'] / 1024:.1f}) + {ma['index_keys_per_game'] / 1024:.1f} KB index keys; "
            f"used_memory growth {ma['used_memory_per_game'] / 1024:.1f} KB/game (goal <= 16 KB)"
        )
    for label, measured in (("active", ma), ("finished", mf)):
        if measured.get("game_keys_by_kind"):
            kinds = ", ".join(f"{k} {v / 1024:.1f}" for k, v in list(measured["game_keys_by_kind"].items())[:8])
            print(f"    {label}, KB per game by key: {kinds}")
    print(
        f"  memory per finished game: {mf['game_keys_mean'] / 1024:.1f} KB game keys (max "
        f"{mf['game_keys_max'] / 1024:.1f}) + {mf['index_keys_per_game'] / 1024:.1f} KB index keys; "
        f"besides, {mf['update_dedup_keys']} update dedup keys of {mf['bytes_per_update_dedup_key']:.0f} B"
    )
    m = f["messages"]
    print(
        f"  messages per player per turn: {m['sends_per_player_turn']:.2f} sendMessage "
        f"({m['private_sends_per_player_turn']:.2f} private + group {m['group_sends_per_turn']:.2f} per turn), "
        f"{m['calls_per_player_turn']:.2f} with edits (goal <= 2.2; edits: {m['private_edits_per_player_turn']:.2f} "
        f"private per player-turn + group {m['group_edits_per_turn']:.2f} per turn); calls {m['by_method']}"
    )
    print(
        f"  questions per player per turn: {m['questions_per_player_turn']:.2f}, of which only pass: "
        f"{m['pass_only_per_player_turn']:.2f} (goal <= 0.1)"
    )
    print(f"  private sends by kind (a question, else the first line): {m['private_sends_by_kind']}")
    if f.get("stale_buttons"):
        st = f["stale_buttons"]
        print(
            f"  buttons left after the game: {st['messages']} private messages of {st['games_over']} finished games "
            f"still show a decision button {st['by_kind']} (goal 0; all delivered only with --order)"
        )
    print(f"  private edits by kind: {m['private_edits_by_kind']}")
    fl = f.get("flood")
    if fl and "error" not in fl:
        lat = fl["others_latency_ms"]
        print(
            f"  flood: {fl['presses']} presses of one valid answer in {fl['seconds']:.1f} s {fl['statuses']}: "
            f"{fl['refresh_jobs']} refresh jobs run, at most {fl['queued_max']} jobs queued (send + refresh); "
            f"/healthz {fl['healthz']}; the other games' next question p50 {lat['during_p50']:.0f} ms "
            f"(p99 {lat['during_p99']:.0f}, n={lat['during_n']}) during the flood vs {lat['outside_p50']:.0f} ms "
            f"(p99 {lat['outside_p99']:.0f}, n={lat['outside_n']}) outside it"
        )
    elif fl:
        print(f"  flood: {fl['error']}")
    o = f.get("order")
    if o:
        lag = o["group_lag_s"]
        print(
            f"  order: {o['order_violations']} calls older than what their chat already showed (of "
            f"{o['calls_checked']}); the group's last message after the game's last answer: p50 {lag['p50']:.1f} s, "
            f"max {lag['max']:.1f} s (n={lag['n']}; goal <= 5 s); {o['folded']} closed status messages folded into "
            f"the next one; {o['examples']}"
        )
    if f["errors"]:
        print(f"  errors: {f['errors']}")
    print(f"  webhook statuses: {f['statuses']}")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--web", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument(
        "--rate-seconds",
        type=float,
        default=5.0,
        help="of each request kind in the webhook rate (in alternating slices)",
    )
    p.add_argument("--rate-games", type=int, default=20)
    p.add_argument("--deadline", type=int, default=3600, help="seconds per window")
    p.add_argument("--timeout", type=float, default=600, help="give up playing after this many seconds")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--think", type=float, default=0.0, help="seconds each bot waits before it presses (0.5-1.5 times this)"
    )
    p.add_argument("--memory-every", type=float, default=10.0, help="seconds between memory samples")
    p.add_argument(
        "--side",
        type=int,
        default=1,
        choices=(1, 2),
        help="board side the Creature bots choose (side 2 hits a status-rendering bug at c47d0b0)",
    )
    p.add_argument(
        "--eager",
        action="store_true",
        help="players pass a card question with its 'No cards this turn' button (the default: pass this once)",
    )
    p.add_argument("--order", action="store_true", help="measure per chat order and the group's lag (keeps the outbox)")
    p.add_argument(
        "--real-rates", action="store_true", help="the Bot API's limits (30/s, 1/s per chat, 20/min a group)"
    )
    p.add_argument("--faults", type=float, default=0.0, help="a burst of 429s or 5xx every this many seconds")
    p.add_argument(
        "--api-latency", type=float, default=0.0, help="ms the fake Bot API holds every answer (Telegram's round trip)"
    )
    p.add_argument("--flood", type=int, default=0, help="presses of one valid answer by one player during play")
    p.add_argument("--flood-seconds", type=float, default=15.0, help="... in this many seconds")
    p.add_argument(
        "--noop-body",
        action="store_true",
        help="webhook figure: the no-op request POSTs a press's body (the client's cost per request as an answer's)",
    )
    p.add_argument("--redis-url")
    p.add_argument(
        "--shards",
        type=int,
        default=0,
        help="spread the games over this many redis-servers of the bench's own (ARTEMIA_REDIS_SHARDS; the index "
        "stays on --redis-url); --workers are dealt round them; each shard's windows resolved/s are reported",
    )
    p.add_argument("--json", help="also write the figures here")
    return p


def cli(arguments: argparse.ArgumentParser, run_with, report_figures, argv: list[str] | None) -> dict:
    """Parse, run, print the figures, and also write them as JSON when ``--json`` names a file."""
    args = arguments.parse_args(argv)
    figures = run_with(args)
    report_figures(figures)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(figures, indent=1, default=str))
    return figures


def main(argv: list[str] | None = None) -> dict:
    # `timeout` (or a CI runner) stops us with SIGTERM: exit through the `finally` blocks, so the web and worker
    # processes are stopped too (left alive, they took jobs from the next run's Redis on the same port)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    return cli(parser(), run, report, argv)


if __name__ == "__main__":
    main()
