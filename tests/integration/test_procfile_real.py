"""The Procfile's processes for real: ``honcho start web`` and ``honcho start worker`` against the test
redis-server, Telegram played over HTTP (the webhook in, the fake Bot API out), the web killed outright and the
worker restarted mid-game, and the game finished with every acknowledged answer applied.

Players behave like Telegram clients: a player waits for the decision message (with its buttons) that the
worker delivered to the fake Bot API, then presses a button whose data names a complete answer (chosen at
random among the legal ones). A request that gets no 2xx (the web is down) is retried with the same update id,
as Telegram does. Deadlines are a day long, so every window must close by its answers: a lost answer would
stall the game.
"""

import collections
import itertools
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import time

import httpx
import pytest
import redis

from service import admin, wiring
from service.channels import ui
from service.config import Settings
from service.game import Game
from service.game.engine import new_game
from service.store import batch_for_version
from tests.fake_bot_api import FakeBotAPI, free_port, serve
from tests.real_redis import wait_for

pytestmark = pytest.mark.integration

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
SECRET = "procfile_secret"
GROUP = {"id": -100555, "type": "supergroup", "title": "Procfile"}
USERS = {
    n: {"id": 5000 + n, "is_bot": False, "first_name": name, "language_code": "en"}
    for n, name in enumerate(["Ada", "Bob", "Cyd"])
}


class Proc:
    """One ``honcho start <type>`` (each process type on its own, so each can be restarted alone)."""

    def __init__(self, kind: str, env: dict, port: int, log: pathlib.Path, count: int = 1):
        self.kind, self.env, self.port, self.log, self.count = kind, env, port, log, count
        self.popen: subprocess.Popen | None = None

    def start(self) -> "Proc":
        empty_env_file = tempfile.NamedTemporaryFile("w", suffix=".env", delete=False)
        empty_env_file.close()
        out = self.log.open("a")
        self.popen = subprocess.Popen(
            [
                str(BIN / "honcho"),
                "-e",
                empty_env_file.name,
                "-d",
                str(ROOT),
                "-f",
                str(ROOT / "Procfile"),
                "start",
                "--no-colour",
                "-p",
                str(self.port),
                "-c",
                f"{self.kind}={self.count}",
                self.kind,
            ],
            cwd=ROOT,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        return self

    def descendants(self) -> list[int]:
        """Every process under honcho (honcho runs each command in a session of its own, through a shell)."""
        parents = {}
        for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
            try:
                parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
        found, frontier = [], [self.popen.pid]
        while frontier:
            children = [pid for pid, parent in parents.items() if parent in frontier]
            found += children
            frontier = children
        return found

    def kill(self) -> None:
        """SIGKILL every process of the type (a crash); honcho notices and exits."""
        for pid in reversed(self.descendants()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM to honcho, which passes it on (uvicorn: graceful; rq: warm shutdown)."""
        if self.popen and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()


class Telegram:
    """The Bot API's side of the webhook: posts updates, retries until a 2xx like Telegram does."""

    def __init__(self, url: str):
        self.url = url
        self.ids = itertools.count(1)
        self.retries = 0

    def post(self, update: dict) -> httpx.Response:
        deadline = time.monotonic() + 30
        while True:
            try:
                response = httpx.post(
                    self.url,
                    content=json.dumps(update),
                    timeout=10,
                    headers={"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"},
                )
                if response.status_code < 500:
                    return response
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"the webhook did not take update {update['update_id']}")
            self.retries += 1
            time.sleep(0.2)

    def say(self, user: int, text: str, chat: dict = GROUP) -> dict | None:
        n = next(self.ids)
        response = self.post(
            {
                "update_id": n,
                "message": {"message_id": n, "date": int(time.time()), "chat": chat, "from": USERS[user], "text": text},
            }
        )
        assert response.status_code == 200, response.text
        return response.json() if response.content else None

    def press(self, user: int, data: str, message_id: int) -> dict | None:
        n = next(self.ids)
        response = self.post(
            {
                "update_id": n,
                "callback_query": {
                    "id": f"cq{n}",
                    "from": USERS[user],
                    "chat_instance": "ci",
                    "data": data,
                    "message": {
                        "message_id": message_id,
                        "date": int(time.time()),
                        "chat": {"id": USERS[user]["id"], "type": "private"},
                    },
                },
            }
        )
        assert response.status_code == 200, response.text
        return response.json() if response.content else None


def lost_answers(ctx, game_id: str, acknowledged: dict[tuple[int, int], list[dict]]) -> list[tuple]:
    """The acknowledged actions (``{(window, seat): actions}``) that the game's action log did not apply in their
    own window: the log replayed from its config tells the window each action was applied in. A Hunted's answer
    recorded in the same window as a Creature's card (Cataclysm, Detour) may become moot when the card is applied
    first (docs/rulings.md B, C): only then may it be absent."""
    config, applied = ctx.store.action_log(game_id)
    assert config is not None and applied, f"no action log was kept for {game_id}"
    game, applied_in = new_game(config), collections.defaultdict(list)
    for seat, action in applied:
        applied_in[game.window["id"], seat].append(json.dumps(action, sort_keys=True))
        game.apply(seat, action)
    return [
        (window, seat, action)
        for (window, seat), actions in acknowledged.items()
        for action in actions
        if json.dumps(action, sort_keys=True) not in applied_in[window, seat]
        and not (seat != 0 and any(a["type"] == "hunt_card" for a in acknowledged.get((window, 0), [])))
    ]


def decision_message(api: FakeBotAPI, user_id: int, game_id: str, window: int) -> int | None:
    """The id of the message in the user's chat whose buttons answer ``window``, once it was delivered."""
    prefix = f"d:{game_id}:{window}:"
    with api._lock:
        items = list(api.messages.items())
    for (chat, message_id), message in reversed(items):
        rows = (message.get("reply_markup") or {}).get("inline_keyboard", [])
        if chat == str(user_id) and any(str(b.get("callback_data", "")).startswith(prefix) for r in rows for b in r):
            return message_id
    return None


def random_answer(game: Game, seat: int, rnd: random.Random) -> tuple[tuple[int, ...], list[dict]]:
    """A complete answer chosen at random, as the indices the buttons encode."""
    window = game.window["id"]
    for _ in range(20):
        stage, chosen, actions = game.copy(), [], []
        while ui.asked(stage, seat, window) and len(chosen) < 10:
            legal = stage.legal_actions(seat)
            index = rnd.randrange(len(legal))
            stage.apply(seat, legal[index])
            chosen.append(index)
            actions.append(legal[index])
        if not ui.asked(stage, seat, window):
            return tuple(chosen), actions
    raise AssertionError(f"no complete answer found for seat {seat} in window {window}")


def process_env(api: FakeBotAPI, bot_base_url: str, redis: dict[str, str]) -> dict[str, str]:
    """The environment of the Procfile's processes: ``redis`` (how they reach Redis), the fake Bot API, a quick
    sweeper, and no send budget or inbound flood limits (machine-speed players; tests/test_floods.py tests them)."""
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "ARTEMIA_REDIS_URL")}
    return env | {
        "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "TELEGRAM_BOT_TOKEN": api.token,
        "TELEGRAM_API_BASE_URL": bot_base_url,
        "ARTEMIA_WEBHOOK_SECRET": SECRET,
        "ARTEMIA_BOT_USERNAME": "artemia_test_bot",
        "ARTEMIA_SENDER": "service.channels.telegram.sender:make",
        "ARTEMIA_SWEEP_INTERVAL_SECONDS": "2",
        "ARTEMIA_RESOLVE_GRACE_SECONDS": "5",
        "ARTEMIA_RATE_GLOBAL_PER_SECOND": "100000",
        "ARTEMIA_INBOUND_TELEGRAM_BURST": "1000000",
        "ARTEMIA_INBOUND_SMS_BURST": "1000000",
        "ARTEMIA_MAX_OPEN_TABLES": "1000000",
        "ARTEMIA_RATE_PRIVATE_PER_SECOND": "100000",
        "ARTEMIA_RATE_GROUP_PER_MINUTE": "1000000",
        # its players answer what a window waits for and pass over a question ahead: no window waits for one
        # (tests/test_pipeline_hold.py tests the moment; bench/load.py measures it through these processes)
        "ARTEMIA_MAY_HOLD_SECONDS": "0",
        **redis,
    }


def test_procfile_processes_play_a_game_through_restarts(redis_url, tmp_path):
    connection = redis.Redis.from_url(redis_url)
    api = FakeBotAPI()
    with serve(api) as bot_base_url:
        env = process_env(api, bot_base_url, {"REDIS_URL": redis_url, "ARTEMIA_LOG_LEVEL": "INFO"})
        port = free_port()
        # a log file per honcho: honcho's own output is block-buffered, so two of them appending to one file
        # can cut each other's lines in half
        web = Proc("web", env, port, tmp_path / "web.log").start()
        worker = Proc("worker", env, port + 100, tmp_path / "worker.log", count=2).start()
        sender = Proc("sender", env, port + 200, tmp_path / "sender.log").start()

        def logs() -> str:
            return "".join(p.log.read_text() for p in (web, worker, sender) if p.log.exists())

        base = f"http://127.0.0.1:{port}"
        try:
            play(connection, api, base, web, worker)
        except BaseException:
            print("\n".join(l for l in logs().splitlines() if "sweep-" not in l)[-8000:])
            raise
        finally:
            web.stop()
            worker.stop()
            sender.stop()
    text = logs()
    assert api.token not in text and SECRET not in text
    roles = {json.loads(line.split(" | ", 1)[1]).get("role") for line in text.splitlines() if " | {" in line}
    assert {"web", "worker"} <= roles, "both process types log JSON lines"


def healthy(base: str) -> bool:
    try:
        return httpx.get(base + "/healthz", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def begin_two_player_game(tg: Telegram) -> None:
    """Ada opens a table in the group, Bob joins, both press Join (the bot may then write to them), Ada begins."""
    tg.say(0, "/newgame")
    tg.say(1, "/join")
    for user in (0, 1):
        tg.say(user, "/start", chat={"id": USERS[user]["id"], "type": "private"})
    assert "The game begins" in tg.say(0, "/begin")["text"]


def play(connection, api, base, web, worker):
    started = time.monotonic()
    wait_for(lambda: healthy(base), 30, "/healthz to say 200 (web up, worker beating, scheduler, sweeper)")
    tg = Telegram(base + "/telegram/webhook")

    begin_two_player_game(tg)
    ctx = wiring.build(connection, Settings())
    [listed] = admin.list_games(ctx)
    game_id = listed["game"]
    meta = ctx.store.meta(game_id)
    user_of = {int(seat): int(p["user"]) - 5000 for seat, p in meta["players"].items()}

    rnd = random.Random(6)
    acknowledged: dict[tuple[int, int], list[dict]] = {}
    windows_done, restarted = 0, set()
    while True:
        snap = ctx.store.load(game_id)
        if snap.status == "over":
            break
        if snap.status != "collecting":  # resolving: the next window opens when a worker is done
            wait_for(lambda: ctx.store.load(game_id).status != "resolving", 30, "the resolution to finish")
            continue
        if windows_done >= 4 and "web" not in restarted:  # the web crashes; Telegram retries meanwhile
            restarted.add("web")
            web.kill()
            web.start()
        if windows_done >= 8 and "worker" not in restarted:  # a deploy restarts the worker
            restarted.add("worker")
            worker.stop()
            worker.start()
        game = Game.from_json(snap.json)
        for seat in sorted(ctx.store.expected(game_id) - set(ctx.store.answers(game_id))):
            user = user_of[seat]
            message_id = wait_for(
                lambda: decision_message(api, USERS[user]["id"], game_id, snap.window),
                30,
                f"the decision message of seat {seat} for window {snap.window}",
            )
            chosen, actions = random_answer(game, seat, rnd)
            reply = tg.press(user, ui.Choice(game_id, snap.window, seat, chosen).data(), message_id)
            said = reply.get("text", "") if reply else None  # None: a retried, handled update
            assert said is None or said.startswith(("✅ Locked in: ", "Locked in.")), reply
            acknowledged[snap.window, seat] = actions
        windows_done += 1
        wait_for(lambda: ctx.store.load(game_id).window != snap.window, 30, f"window {snap.window} to resolve")
        assert time.monotonic() - started < 80, f"too slow: {windows_done} windows"

    assert restarted == {"web", "worker"}, f"the game ended after {windows_done} windows, before the restarts"
    # Every acknowledged answer was applied as given: the action log holds it for that window.
    resolved = [int(entry.split(":")[1]) for entry in ctx.store.resolution_log(game_id)[1:]]
    assert len(resolved) == len(set(resolved)), "a window was resolved twice"
    assert {window for window, _ in acknowledged} <= set(resolved)
    assert ctx.store.streaks(game_id) == {}, "no seat was ever auto-played"
    assert lost_answers(ctx, game_id, acknowledged) == []
    # The last step's messages (the end of the game) were all delivered, by the restarted worker.
    final = ctx.store.load(game_id)
    batch = batch_for_version(final.version)
    wait_for(lambda: ctx.store.batch_size(game_id, batch) == 0, 20, "the last messages delivered (batch dropped)")
    assert healthy(base)
    print(
        f"procfile game: {windows_done} windows, {len(acknowledged)} answers, {tg.retries} retried posts, "
        f"{time.monotonic() - started:.1f} s"
    )
