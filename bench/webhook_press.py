"""The web process's cost of one button press, in process, on a real Redis (issue 20, point 4).

    tools/with-redis.sh .venv/bin/python -m bench.webhook_press [--presses 500] [--rounds 5] [--profile N]

A four-player Telegram table is opened and begun through `service.web.handle_update` (the webhook's handler
without HTTP), then one seat's complete answer is pressed again and again, each press a new update and a new
callback query: the press that ``bench.load`` sends (an accepted answer that replaces the seat's answer in the
open window). Per press: the body parsed (`parse_update`) and handled (`handle_update`), CPU and wall time, the
median of ``--rounds`` rounds; and the Redis round trips of one press (a pipeline counted as one). ``--profile N``: cProfile over N more presses, the top of the cumulative list.

Database 12 of ``ARTEMIA_TEST_REDIS_URL`` is flushed. No HTTP and no thread pool here: ``bench.load`` measures
those with the server's own overhead.
"""

import argparse
import collections
import cProfile
import itertools
import json
import os
import pathlib
import pstats
import statistics
import sys
import time
import types

import orjson
import redis

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from pipeline_support import RealTime, answer_all, make_ctx  # noqa: E402

from service.channels import ui  # noqa: E402
from service.channels.telegram import update as update_module  # noqa: E402
from service.channels.telegram.inbound import Env  # noqa: E402
from service.channels.telegram.tables import Tables  # noqa: E402
from service.game import Game  # noqa: E402
from service.ops import metrics  # noqa: E402
from service.web import handle_update  # noqa: E402

GROUP = {"id": -100777, "type": "supergroup", "title": "Bench"}
USERS = [{"id": 5000 + n, "is_bot": False, "first_name": f"P{n}", "language_code": "en"} for n in range(4)]


class Table:
    def __init__(self, env: Env):
        self.env = env
        self.ids = itertools.count(1)

    def post(self, update: dict) -> dict | None:
        parsed = update_module.parse_update(json.dumps(update).encode())
        return handle_update(self.env, parsed) if parsed else None

    def say(self, user: int, text: str, chat: dict | None = None) -> dict | None:
        n = next(self.ids)
        chat = chat or GROUP
        return self.post(
            {"update_id": n, "message": {"message_id": n, "date": 1, "chat": chat, "from": USERS[user], "text": text}}
        )

    def press_body(self, user: int, data: str) -> list[bytes]:
        """A press's body split where its update id goes (``str(n).encode().join(parts)``), as bench.load sends."""
        marker = 987654321987
        body = {
            "update_id": marker,
            "callback_query": {
                "id": f"q{marker}",
                "from": USERS[user],
                "chat_instance": "c",
                "data": data,
                "message": {"message_id": 55, "date": 1, "chat": {"id": USERS[user]["id"], "type": "private"}},
            },
        }
        return json.dumps(body).encode().split(str(marker).encode())


def begin(table: Table) -> tuple[str, int, str]:
    """A begun game, played on by bots to a window that asks two seats or more -> (game id, the user of the first
    seat asked, that seat's first complete choice)."""
    lobby = table.say(0, "/newgame@artemia_bench_bot")
    assert lobby is not None, "no lobby"
    payload = lobby["reply_markup"]["inline_keyboard"][0][0]["url"].split("?start=")[1]
    for user in range(4):
        table.say(user, f"/start {payload}", chat={"id": USERS[user]["id"], "type": "private"})
    table.say(0, "/begin")
    store = table.env.ctx.store
    game_id = table.env.lobby.at(str(GROUP["id"])).game
    for _ in range(40):  # a window that asks two seats or more: the press is then accepted, the window stays open
        snap, meta = store.load_with_meta(game_id)
        game = Game.from_json(snap.json)
        if snap.status == "collecting" and len(set(game.waiting_for())) >= 2:
            break
        answer_all(table.env.ctx, game_id)
    else:
        raise SystemExit("no window asked two seats")
    seat = game.waiting_for()[0]
    user = next(n for n, u in enumerate(USERS) if meta["players"][str(seat)]["user"] == str(u["id"]))
    choice = ui.Choice(game_id, snap.window, seat)
    while not ui.follow(game, seat, choice).complete:  # the first option of each screen
        choice = choice.choose(0)
    return game_id, user, choice.data()


def round_trips(press) -> int:
    """The Redis round trips of one ``press()``: what redis-py sends (a pipeline is one send)."""
    sent = 0
    original = redis.connection.AbstractConnection.send_packed_command

    def counted(self, command, check_health=True):
        nonlocal sent
        sent += 1
        return original(self, command, check_health)

    redis.connection.AbstractConnection.send_packed_command = counted  # type: ignore[method-assign]
    try:
        press()
    finally:
        redis.connection.AbstractConnection.send_packed_command = original  # type: ignore[method-assign]
    return sent


class Breakdown:
    """CPU time per part of a press, each part's own (a part called inside another is not counted twice): the
    functions named in `PARTS` wrapped for the duration (`measure`)."""

    def __init__(self):
        self.spent: collections.Counter = collections.Counter()
        self.stack: list[list[float]] = []  # [started, time of the parts called inside]

    def wrap(self, label: str, function):
        def timed(*args, **kwargs):
            self.stack.append([time.process_time(), 0.0])
            try:
                return function(*args, **kwargs)
            finally:
                started, inner = self.stack.pop()
                elapsed = time.process_time() - started
                self.spent[label] += elapsed - inner
                if self.stack:
                    self.stack[-1][1] += elapsed

        return timed

    def measure(self, press, presses: int) -> dict[str, float]:
        """µs of CPU per press by part (and "other": what no part covers)."""
        originals = []
        for label, owner, name in parts():
            function = owner.__dict__[name]
            originals.append((owner, name, function))
            if isinstance(function, classmethod):
                setattr(owner, name, classmethod(self.wrap(label, function.__func__)))
            elif isinstance(function, types.ClassMethodDescriptorType):  # a compiled class's (mypyc): bound here
                setattr(owner, name, staticmethod(self.wrap(label, getattr(owner, name))))
            else:
                setattr(owner, name, self.wrap(label, function))
        try:
            total = time.process_time()
            for _ in range(presses):
                self.wrap("other", press)()
            total = time.process_time() - total
        finally:
            for owner, name, function in originals:
                setattr(owner, name, function)
        return {label: 1e6 * spent / presses for label, spent in self.spent.most_common()} | {
            "total": 1e6 * total / presses
        }


def parts() -> list[tuple[str, object, str]]:
    """(label, module or class, attribute) of each part timed by `Breakdown`; those the code has."""
    import service.channels.telegram.inbound as inbound
    import service.pipeline.ingest as ingest
    from service.game import engine

    candidates = [
        ("parse the body (pydantic)", sys.modules["service.channels.telegram.update"], "parse_update"),
        ("Redis: redis-py, one command", redis.Redis, "execute_command"),
        ("Redis: redis-py, a pipeline", redis.client.Pipeline, "execute"),
        ("engine: Game.from_json", engine.Game, "from_json"),
        ("ui.decode", ui, "decode"),
        ("ui.follow (the press's screens)", ui, "follow"),
        ("ingest.check_answer (the engine's check)", ingest, "check_answer"),
        ("JSON: json.loads (the game, its meta)", json, "loads"),
        ("JSON: json.dumps (a game's copy, the answer)", json, "dumps"),
        ("JSON: orjson.loads", orjson, "loads"),
        ("JSON: orjson.dumps", orjson, "dumps"),
        ("inbound.seat_of", inbound, "seat_of"),
        ("i18n", inbound.i18n, "choose"),
    ]
    return [(label, owner, name) for label, owner, name in candidates if name in vars(owner)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--breakdown", type=int, default=0, help="CPU per part over this many more presses")
    parser.add_argument("--profile", type=int, default=0, help="cProfile over this many more presses")
    args = parser.parse_args(argv)
    url = os.environ.get("ARTEMIA_TEST_REDIS_URL")
    if not url:
        raise SystemExit("no Redis: run through tools/with-redis.sh")
    connection = redis.Redis.from_url(f"{url.rsplit('/', 1)[0]}/12")
    connection.flushdb()
    ctx = make_ctx(connection, clock=RealTime(), bot_username="artemia_bench_bot")
    ctx.counts = metrics.BufferedCounts()  # as in the web process (service.web.create_app; before it: unused)
    env = Env(ctx, Tables(connection, ctx.settings.dedup_ttl_seconds), "artemia_bench_bot")
    table = Table(env)
    _, user, data = begin(table)
    body = table.press_body(user, data)
    ids = itertools.count(10_000_000)

    def press() -> dict | None:
        update = update_module.parse_update(str(next(ids)).encode().join(body))
        answer = handle_update(env, update)
        assert answer is not None and answer.get("text", "").startswith("✅ Locked in: "), answer
        return answer

    for _ in range(200):  # warm up: imports, script loading, the connection pool
        press()
    trips = round_trips(press)
    cpu, wall = [], []
    for _ in range(args.rounds):
        started_cpu, started = time.process_time(), time.perf_counter()
        for _ in range(args.presses):
            press()
        cpu.append(1e6 * (time.process_time() - started_cpu) / args.presses)
        wall.append(1e6 * (time.perf_counter() - started) / args.presses)
    print(
        f"per press ({args.rounds} x {args.presses}): CPU {statistics.median(cpu):.0f} µs (rounds: "
        + ", ".join(f"{c:.0f}" for c in cpu)
        + f"), wall {statistics.median(wall):.0f} µs (rounds: "
        + ", ".join(f"{w:.0f}" for w in wall)
        + f"); Redis round trips per press: {trips}"
    )
    if args.breakdown:
        spent = Breakdown().measure(press, args.breakdown)
        print(f"CPU per press by part, µs ({args.breakdown} presses, wrapped):")
        for label, us in spent.items():
            print(f"  {us:7.1f}  {label}")
    if args.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU time: a wait on Redis costs the process nothing
        profiler.enable()
        for _ in range(args.profile):
            press()
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("cumulative").print_stats(60)
        stats.sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
