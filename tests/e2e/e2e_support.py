"""The end-to-end stack for the Telegram tests, and the scripted users who play through it.

`Stack` runs what production runs, each in a process of its own on 127.0.0.1: the web app under uvicorn
(``--factory service.web:create_app``) and ``python -m workers`` processes, against the test redis-server, with
``TELEGRAM_API_BASE_URL`` pointing at the fake Bot API (`tests.fake_bot_api`, served in this process). `Users`
are the people: they post updates to the webhook (commands, the Join deep link, button presses) and read only
what the fake Bot API recorded that the bot sent them (texts and inline keyboards, as edited).
"""

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.real_redis import wait_for  # noqa: F401  (the e2e tests import it from here)
from tests.serving import free_port

ROOT = Path(__file__).resolve().parents[2]
SECRET = "e2e_hook_secret"
BOT_USERNAME = "artemia_test_bot"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

# Workers and web: quick timers, no send budget (the budget has unit tests), the fake Bot API.
BASE_ENV = {
    "ARTEMIA_MIN_DEADLINE_SECONDS": "1",
    "ARTEMIA_SWEEP_INTERVAL_SECONDS": "1",
    "ARTEMIA_RESOLVE_GRACE_SECONDS": "3",
    "ARTEMIA_RATE_GLOBAL_PER_SECOND": "100000",
    "ARTEMIA_RATE_PRIVATE_PER_SECOND": "100000",
    "ARTEMIA_RATE_GROUP_PER_MINUTE": "1000000",
    # machine-speed players: the inbound flood limits out of the way (tests/test_floods.py tests them)
    "ARTEMIA_INBOUND_TELEGRAM_BURST": "1000000",
    "ARTEMIA_INBOUND_SMS_BURST": "1000000",
    "ARTEMIA_MAX_OPEN_TABLES": "1000000",
    # these players answer what a window waits for and pass over a question ahead: no window waits a moment for
    # one (tests/test_pipeline_hold.py tests the moment; bench/load.py measures it through these processes)
    "ARTEMIA_MAY_HOLD_SECONDS": "0",
    "ARTEMIA_WEBHOOK_SECRET": SECRET,
    "ARTEMIA_BOT_USERNAME": BOT_USERNAME,
    "ARTEMIA_SENDER": "auto",
    "PTB_TIMEDELTA": "1",
}


class Stack:
    """The web process and the worker processes, each in a session of its own (stopped with its group)."""

    def __init__(self, redis_url: str, api, api_base_url: str, **env):
        self.env = {
            **os.environ,
            **BASE_ENV,
            "REDIS_URL": redis_url,
            "TELEGRAM_BOT_TOKEN": api.token,
            "TELEGRAM_API_BASE_URL": api_base_url,
            "PYTHONPATH": str(ROOT),
            **env,
        }
        self.env.pop("ARTEMIA_SENDER", None) if env.get("ARTEMIA_SENDER") == "" else None
        self.procs: list[subprocess.Popen] = []
        self.port = free_port()
        self.webhook = f"http://127.0.0.1:{self.port}/telegram/webhook"

    def _spawn(self, args: list[str]) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, *args],
            env=self.env,
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=None,
        )
        self.procs.append(proc)
        return proc

    def start(self, workers: int = 2, simple: bool = True) -> "Stack":
        self._spawn(
            [
                "-m",
                "uvicorn",
                "--factory",
                "service.web:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                "--no-access-log",
            ]
        )
        for _ in range(workers):  # SimpleWorker: jobs run in the worker process, one Bot API client per worker
            self._spawn(["-m", "workers"] + (["--simple"] if simple else []))

        def web_up():
            try:  # a wrong secret is refused: the app is up (healthz may say "no workers yet")
                return httpx.post(self.webhook, content=b"{}", timeout=1).status_code == 403
            except httpx.HTTPError:
                return False

        wait_for(web_up, 30, "the web app to answer")
        import redis
        from rq import Worker

        connection = redis.Redis.from_url(self.env["REDIS_URL"])
        wait_for(lambda: len(Worker.all(connection=connection)) >= workers, 30, "the workers to register")
        return self

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def user(n: int, name: str, lang: str = "en") -> dict:
    return {"id": 7000 + n, "is_bot": False, "first_name": name, "language_code": lang}


class Users:
    """Telegram as the players see it: updates to the webhook, and what the bot sent, read from the fake API."""

    def __init__(self, webhook: str, api, group_id: int = -100555):
        self.webhook = webhook
        self.api = api
        self.group = {"id": group_id, "type": "supergroup", "title": "E2E table"}
        self.ids = itertools.count(1)
        self.http = httpx.Client(timeout=30)
        self.replies: list[dict] = []  # the webhook's answers (method calls in the HTTP reply body)

    def post(self, update: dict) -> dict | None:
        response = self.http.post(
            self.webhook,
            content=json.dumps(update),
            headers={SECRET_HEADER: SECRET, "Content-Type": "application/json"},
        )
        assert response.status_code == 200, response.text
        body = response.json() if response.content else None
        if body:
            self.replies.append(body)
        return body

    def say(self, who: dict, text: str, private: bool = False) -> dict | None:
        n = next(self.ids)
        chat = {"id": who["id"], "type": "private"} if private else self.group
        return self.post(
            {
                "update_id": n,
                "message": {"message_id": n, "date": int(time.time()), "chat": chat, "from": who, "text": text},
            }
        )

    def press(self, who: dict, message_id: int, data: str) -> dict:
        n = next(self.ids)
        return (
            self.post(
                {
                    "update_id": n,
                    "callback_query": {
                        "id": f"q{n}",
                        "from": who,
                        "chat_instance": "e2e",
                        "data": data,
                        "message": {
                            "message_id": message_id,
                            "date": int(time.time()),
                            "chat": {"id": who["id"], "type": "private"},
                        },
                    },
                }
            )
            or {}
        )

    def open_table(
        self, creator: dict, others: list[dict], creature: dict | None = None, settings: list[str] = ()
    ) -> None:
        """/newgame, everyone joins through the Join button's deep link, settings, /creature, /begin."""
        lobby = self.say(creator, f"/newgame@{BOT_USERNAME}")
        link = lobby["reply_markup"]["inline_keyboard"][0][0]["url"]
        payload = link.split("?start=")[1]
        for who in [creator, *others]:  # everyone presses Join, the creator too
            self.say(who, f"/start {payload}", private=True)
        for setting in settings:
            self.say(creator, f"/settings {setting}")
        if creature:
            self.say(creature, "/creature")
        began = self.say(creator, "/begin")
        assert began and "begins" in began["text"], began

    # --- what the bot sent ----------------------------------------------------------------------------------

    def messages(self, chat_id: int) -> dict[int, dict]:
        """message id -> {"text", "reply_markup"} (a photo: {"photo", "caption", "reply_markup"}) of every message
        the bot has in this chat (edits applied)."""
        with self.api._lock:
            return {mid: dict(m) for (chat, mid), m in self.api.messages.items() if chat == str(chat_id)}

    def sends(self, chat_id: int | str) -> list[str]:
        """The text of every new message sent to the chat, in order: a message's text or a photo's caption."""
        calls = sorted(self.api.sent("sendMessage", chat_id) + self.api.sent("sendPhoto", chat_id), key=at)
        return [c["params"].get("text") or c["params"].get("caption") or "" for c in calls]

    def group_sends(self) -> list[str]:
        return self.sends(self.group["id"])

    def group_edits(self) -> list[str]:
        """The text of every edit of the group's messages, in order: the status's text, or its picture's caption."""
        methods = ("editMessageText", "editMessageCaption", "editMessageMedia")
        calls = sorted((c for m in methods for c in self.api.sent(m, self.group["id"])), key=at)
        return [c["params"].get("text") or c["params"].get("caption") or caption_of_media(c) for c in calls]

    def open_decision(self, who: dict, done: set) -> tuple[int, int, list[dict]] | None:
        """(message id, window, buttons) of the newest decision (a turn message asking a question) not yet
        answered, or None."""
        best = None
        for mid, message in self.messages(who["id"]).items():
            buttons = [
                b
                for row in (message.get("reply_markup") or {}).get("inline_keyboard", [])
                for b in row
                if b.get("callback_data", "").startswith("d:")
            ]
            locked = any(text.startswith("✅") for text in (message.get("text") or "").split("\n"))
            if not buttons or locked:
                continue
            window = int(buttons[0]["callback_data"].split(":")[2])
            if (who["id"], window) in done:
                continue
            if best is None or window > best[1]:
                best = (mid, window, buttons)
        return best


def at(call: dict) -> float:
    return call["at"]


def caption_of_media(call: dict) -> str:
    media = call["params"].get("media")
    return (json.loads(media) if isinstance(media, str) else media or {}).get("caption") or ""


def shown_text(message: dict) -> str:
    """What a message shows as text: its text, or its photo's caption."""
    return message.get("text") or message.get("caption") or ""


def choose(rng: random.Random, buttons: list[dict]) -> dict:
    """A button a person might press: any choice or sub-menu, never Back / Start over / My cards (a page to
    read, which `tests/test_telegram_legible.py` presses)."""
    options = [b for b in buttons if not b["text"].startswith(("«", "↺", "📖"))]
    return rng.choice(options or buttons)


def play_by_buttons(users: Users, players: list[dict], over, rng: random.Random, timeout: float) -> dict:
    """Every player presses the buttons of the decision messages they were sent until ``over()``.
    -> counts of what happened ("presses", "locked", "expired", "stuck")."""
    done: set = set()
    waiting: dict[int, tuple] = {}  # user -> (message id, keyboard) pressed, until the message is edited
    counts = {"presses": 0, "locked": 0, "expired": 0, "invalid": 0, "stuck": 0}
    started = time.monotonic()
    while not over():
        assert time.monotonic() - started < timeout, f"the game did not end within {timeout}s: {counts}"
        moved = False
        for who in players:
            found = users.open_decision(who, done)
            if found is None:
                continue
            mid, window, buttons = found
            shown = (mid, json.dumps(buttons))
            if who["id"] in waiting and waiting[who["id"]][0] == shown:
                if time.monotonic() - waiting[who["id"]][1] < 8:
                    continue  # the next screen is on its way (an edit by a worker)
                counts["stuck"] += 1
            button = choose(rng, buttons)
            answer = users.press(who, mid, button["callback_data"])
            counts["presses"] += 1
            moved = True
            said = answer.get("text")
            if said:  # a complete answer ("✅ Locked in: …"), or the window is over
                done.add((who["id"], window))
                key = (
                    "expired"
                    if "expired" in said or "neplatí" in said
                    else "invalid"
                    if "not valid" in said
                    else "locked"
                )
                counts[key] += 1
                waiting.pop(who["id"], None)
            else:
                waiting[who["id"]] = (shown, time.monotonic())
        if not moved:
            time.sleep(0.03)
    return counts
