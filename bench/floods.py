"""Floods and bills (issue 14, point 3): what abusive inbound traffic costs — paid replies, Redis memory and keys
that never expire — through the real app (``service.web.create_app``: the SMS and Telegram webhooks, signed as
Twilio signs) on a real redis-server, with the real clock and the default settings.

    python -m bench.floods [--scale 1.0] [--json out.json]

Scenarios (counts at ``--scale 1``; every one starts from an empty database):

    one_number     1,000 texts ("?") from one number that has opened a table
    new_tables     1,000 ``NEW`` from one number
    unknown        10,000 numbers that play nothing, each texting "hello"
    lang_cs        10,000 numbers that play nothing, each texting "LANG CS"
    long_join      one ``JOIN`` with a 1,595-character code
    after_stop     a number texts STOP, then 100 more texts ("?", "NEW", "hello", ...)
    telegram_user  1,000 private messages ("hello") from one Telegram user

Per scenario: the requests, the replies that would be paid (a TwiML ``<Message>``, a Telegram ``sendMessage``), the
SMS segments of those replies, the open tables, the bytes the keys take (``MEMORY USAGE`` summed over every key),
the keys and the keys without a TTL — at the end of the scenario, and once more after ``--later`` seconds (what is
left when the short-lived keys, such as a stranger's flood bucket, have expired).
Needs a redis-server: ``ARTEMIA_TEST_REDIS_URL`` (``tools/with-redis.sh``), else ``REDIS_URL``; its database 11 is
flushed. The same script runs against older code (``cd <checkout> && python -m bench.floods``): it uses only the
app's public entry points.
"""

import argparse
import html
import itertools
import json
import time
from pathlib import Path

import redis
from starlette.testclient import TestClient

from service import wiring
from service.channels.sms import inbound as sms
from service.channels.sms.text import cost
from service.channels.telegram.inbound import Env
from service.channels.telegram.tables import Tables
from service.config import Settings
from service.web import SECRET_HEADER, create_app
from tests.fake_twilio import twilio_signature

PUBLIC = "https://game.example"
TOKEN = "flood-token"
SECRET = "flood-secret"


class Flood:
    """The app on one Redis database, and the counts of what it answered."""

    def __init__(self, connection: redis.Redis):
        self.redis = connection
        settings = Settings(
            twilio_account_sid="ACflood",
            twilio_auth_token=TOKEN,
            twilio_from="+15005550006",
            sms_public_url=PUBLIC,
            sender="recording",
        )
        ctx = wiring.build(connection, settings)
        env = Env(ctx, Tables(connection), "artemia_bot")
        self.client = TestClient(create_app(env, SECRET, sms.build(ctx, settings, env.lobby)))
        self.sids = itertools.count(1)
        self.updates = itertools.count(1)
        self.requests = self.replies = self.segments = 0
        self.longest = 0

    def text(self, number: str, body: str) -> str:
        form = {"MessageSid": f"SM{next(self.sids):032d}", "From": number, "To": "+15005550006", "Body": body}
        signed = twilio_signature(TOKEN, PUBLIC + "/sms/twilio", form)
        response = self.client.post("/sms/twilio", data=form, headers={"X-Twilio-Signature": signed})
        assert response.status_code == 200, response.text
        self.requests += 1
        if "<Message>" not in response.text:
            return ""
        said = html.unescape(response.text.split("<Message>", 1)[1].split("</Message>", 1)[0])
        self.replies += 1
        self.segments += cost(said).segments
        self.longest = max(self.longest, len(said))
        return said

    def telegram(self, user: int, text: str) -> None:
        n = next(self.updates)
        update = {
            "update_id": n,
            "message": {
                "message_id": n,
                "date": 1,
                "chat": {"id": user, "type": "private"},
                "from": {"id": user, "is_bot": False, "first_name": "F", "language_code": "en"},
                "text": text,
            },
        }
        response = self.client.post("/telegram/webhook", content=json.dumps(update), headers={SECRET_HEADER: SECRET})
        assert response.status_code == 200, response.text
        self.requests += 1
        if response.content and response.json().get("method") == "sendMessage":
            self.replies += 1


def number(n: int) -> str:
    return f"+42077{n:07d}"


def one_number(flood: Flood, scale: float) -> None:
    flood.text(number(1), "NEW")
    for _ in range(int(1000 * scale)):
        flood.text(number(1), "?")


def new_tables(flood: Flood, scale: float) -> None:
    for _ in range(int(1000 * scale)):
        flood.text(number(2), "NEW")


def unknown(flood: Flood, scale: float) -> None:
    for n in range(int(10000 * scale)):
        flood.text(number(100000 + n), "hello")


def lang_cs(flood: Flood, scale: float) -> None:
    for n in range(int(10000 * scale)):
        flood.text(number(200000 + n), "LANG CS")


def long_join(flood: Flood, scale: float) -> None:
    flood.text(number(3), "JOIN " + "Ž" * 1595)


def after_stop(flood: Flood, scale: float) -> None:
    flood.text(number(4), "NEW")
    flood.text(number(4), "STOP")
    flood.replies = flood.segments = flood.longest = 0  # count what comes after the STOP only
    for body in itertools.islice(itertools.cycle(["?", "NEW", "hello", "play 3", "LANG CS"]), int(100 * scale)):
        flood.text(number(4), body)


def telegram_user(flood: Flood, scale: float) -> None:
    for _ in range(int(1000 * scale)):
        flood.telegram(5550001, "hello")


SCENARIOS = [one_number, new_tables, unknown, lang_cs, long_join, after_stop, telegram_user]


def measure(connection: redis.Redis, scenario, scale: float) -> dict:
    connection.flushdb()
    flood = Flood(connection)
    started = time.perf_counter()
    scenario(flood, scale)
    seconds = time.perf_counter() - started
    names, used, no_ttl = stored(connection)
    tables = sum(1 for name in names if name.startswith(b"artemia:lobby:"))
    return {
        "scenario": scenario.__name__,
        "requests": flood.requests,
        "paid_replies": flood.replies,
        "segments": flood.segments,
        "longest_reply": flood.longest,
        "open_tables": tables,
        "redis_bytes": used,
        "keys": len(names),
        "keys_without_ttl": no_ttl,
        "seconds": round(seconds, 1),
    }


def stored(connection: redis.Redis) -> tuple[list[bytes], int, int]:
    """(every key, the bytes they take, how many have no TTL)."""
    names = list(connection.scan_iter(count=1000))
    pipe = connection.pipeline(transaction=False)
    for name in names:
        pipe.memory_usage(name, samples=0)
        pipe.ttl(name)
    answers = pipe.execute()
    sizes, ttls = answers[0::2], answers[1::2]
    return names, sum(size or 0 for size in sizes), sum(1 for ttl in ttls if ttl == -1)


def main(argv: list[str] | None = None) -> list[dict]:
    import os

    parser = argparse.ArgumentParser(prog="python -m bench.floods", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every count (default 1)")
    parser.add_argument("--later", type=float, default=35.0, help="seconds before the second look (default 35)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    base = os.environ.get("ARTEMIA_TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    if not base:
        raise SystemExit("no Redis: run through tools/with-redis.sh or set REDIS_URL")
    connection = redis.Redis.from_url(base.rsplit("/", 1)[0] + "/11")
    rows = []
    for scenario in SCENARIOS:
        row = measure(connection, scenario, args.scale)
        if scenario in (unknown, lang_cs):
            time.sleep(args.later)
            names, row["redis_bytes_later"], _ = stored(connection)
            row["keys_later"] = len(names)
        rows.append(row)
    connection.flushdb()
    header = ["scenario", "requests", "paid_replies", "segments", "longest_reply", "open_tables", "redis_bytes"]
    header += ["keys", "keys_without_ttl", "redis_bytes_later", "keys_later", "seconds"]
    print(" ".join(f"{h:>16}" for h in header))
    for row in rows:
        print(" ".join(f"{row.get(h, '')!s:>16}" for h in header))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return rows


if __name__ == "__main__":
    main()
