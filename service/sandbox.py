"""The local sandbox: play one seat in the terminal against bots, through the real pipeline.

``python -m service.sandbox [--seat N | --side creature|hunted] [--players P] [--seed S] [--deadline SECONDS]
[--lang en|cs] [--tz ZONE] [--port PORT]``
``python -m service.sandbox --bots-only --seed S``  plays a whole game with bots and prints the transcript.

Same store, Lua scripts, RQ jobs and outbox as production, and the same questions as Telegram's
(`service.channels.console`): their choices are numbered, a number picks one, and the command language works too.
Without REDIS_URL the Redis is embedded (fakeredis with Lua, in this process) and an in-process RQ
``SimpleWorker`` (burst runs with the scheduler, pumped by the main loop) does the jobs; bots are seats the
pipeline auto-plays the moment a window opens. A step has no deadline unless ``--deadline`` sets one, so a
newcomer can read; times are shown in the machine's zone (``--tz`` another). While a person plays, the game's
watch page is served on 127.0.0.1 (``--port``; a free one by default): the board, live, in a browser.
"""

import argparse
import os
import queue
import socket
import sys
import threading
import time
import uuid
from types import SimpleNamespace
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import uvicorn
from rq import SimpleWorker
from rq.registry import ScheduledJobRegistry
from starlette.applications import Starlette

from service import i18n, wiring
from service.channels.console import typed
from service.channels.console.sender import ConsoleSender
from service.channels.web import routes as watch_pages
from service.config import get_settings
from service.pipeline import context, scheduling, watch
from service.pipeline.resolution import start_game

TABLE = "console:table"
YOU = "console:you"
UNLIMITED = 1e9  # no send budget on a terminal
QUIT = ("quit", "konec")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m service.sandbox", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3, help="seats, Creature included (2-7)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--seat", type=int, default=None, help="the seat you play (0 = the Creature)")
    parser.add_argument("--side", choices=["creature", "hunted"], default=None)
    parser.add_argument("--deadline", type=int, default=0, help="seconds you get per step (default: no deadline)")
    parser.add_argument("--bots-only", action="store_true", help="bots play every seat; print the transcript")
    parser.add_argument("--timeout", type=float, default=None, help="give up after this many seconds")
    parser.add_argument("--lang", choices=i18n.LANGS, default=i18n.DEFAULT_LANG, help="the language of the game")
    parser.add_argument("--tz", default=None, help="the time zone times are shown in (default: the machine's)")
    parser.add_argument("--port", type=int, default=0, help="the watch page's port on 127.0.0.1 (default: a free one)")
    return parser.parse_args(argv)


def choose_seat(args, ask) -> int:
    if args.seat is not None:
        return args.seat
    _ = i18n.translator(getattr(args, "lang", i18n.DEFAULT_LANG)).gettext
    side = args.side or ask(_("Play the Creature or a Hunted? [c/h] ")).strip().lower()[:1]
    return 0 if side in ("c", "b") else 1  # Creature, Bytost


def local_zone() -> str:
    """The machine's time zone (IANA name): $TZ, else /etc/timezone, else where /etc/localtime points; UTC when
    none of them names a zone this Python knows."""
    named = os.environ.get("TZ", "").lstrip(":")
    if not named and os.path.exists("/etc/timezone"):
        with open("/etc/timezone") as f:
            named = f.read().strip()
    if not named:
        target = os.path.realpath("/etc/localtime")
        named = target.split("zoneinfo/", 1)[1] if "zoneinfo/" in target else ""
    try:
        ZoneInfo(named)
    except (ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return named


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    _ = i18n.translator(args.lang).gettext
    try:
        human = None if args.bots_only else choose_seat(args, input)
    except (EOFError, KeyboardInterrupt):  # no terminal to read from (stdin closed), or Ctrl-C / Ctrl-D
        message = _("sandbox: no seat chosen, so no game. Run it in a terminal, or with --bots-only to watch bots.")
        print("\n" + message, file=sys.stderr)
        return 2
    page = _listen(args.port) if human is not None else None
    settings = get_settings().model_copy(
        update={
            "min_deadline_seconds": 1,
            "sweep_interval_seconds": 5,
            "resolve_grace_seconds": 5,
            "rate_global_per_second": UNLIMITED,
            "rate_private_per_second": UNLIMITED,
            "rate_group_per_minute": UNLIMITED,
            # a person who misses deadlines gets a move played for them each time, not their seat taken for good:
            # there is no "I'm back" button in a terminal
            "autoplay_bot_after": 10**6,
            **({"public_url": f"http://127.0.0.1:{page.getsockname()[1]}"} if page else {}),
        }
    )
    connection = wiring.connect(settings.redis_url)
    labels = {TABLE: _("table"), YOU: _("you")}
    players = {}
    for seat in range(args.players):
        chat = YOU if seat == human else None
        if args.bots_only:  # no human seat: each bot seat is shown with a label of its own
            chat = f"console:seat{seat}"
            labels[chat] = _("seat {n}").format(n=seat)
        players[str(seat)] = {
            "name": _("You") if seat == human else f"Bot {seat}",
            "chat": chat,
            "user": chat,
            "lang": args.lang,
        }
    meta = {
        "players": players,
        # with a person at the table, what the table is told goes to their chat too, in order with their own news
        # (two chats' messages are sent lane by lane: a question could come before the reveal that led to it)
        "group": TABLE if human is None else None,
        "deadline_seconds": args.deadline,
        "lang": args.lang,
        "tz": args.tz or local_zone(),
        "bots": [s for s in range(args.players) if s != human],
        "watch": watch.new_token(),
        **({"reader": human} if human is not None else {}),  # the table is read by you: "You use", not "You uses"
    }
    sender = ConsoleSender(labels=labels)
    ctx = wiring.build(connection, settings, sender=sender)
    context.register(ctx)
    if page is not None:
        _serve_watch_page(ctx, page)
        print(_("Watch the board live in your browser: {url}").format(url=watch.url(settings, meta)))
        you = _("You play the Creature.") if human == 0 else _("You play a Hunted (seat {n}).").format(n=human)
        print(
            you + " " + _("Answer with the number of a choice, or type a command; help for more, quit to stop."),
            flush=True,
        )
    game_id = f"sandbox{seed}_{uuid.uuid4().hex[:6]}"
    scheduling.sweep(ctx, ctx.clock())  # the sweeper chain (and its heartbeat)
    start_game(ctx, game_id, {"players": args.players, "seed": seed, "side": None, "expert": False}, meta)
    timeout = args.timeout if args.timeout is not None or human is not None else 300.0
    return run(ctx, sender, game_id, human, timeout, args.lang)


def _listen(port: int) -> socket.socket:
    """The watch page's socket on 127.0.0.1, listening now: its address is known before the game starts."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # a browser opening the address at once waits for the server rather than being refused
    return sock


def _serve_watch_page(ctx, sock: socket.socket) -> None:
    """The game's watch page (`service.channels.web.routes`: the same as production's), in a thread of its own
    that ends with the sandbox."""
    app = Starlette(routes=watch_pages.ROUTES)
    app.state.env = SimpleNamespace(ctx=ctx)  # the routes read the context as the web process keeps it
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="watch-page").start()


class SandboxWorker(SimpleWorker):
    """RQ's in-process worker without its signal handlers: Ctrl-C ends the sandbox at once, wherever it is (RQ's
    would turn it into a stop request, left in force after a burst, that fires at a random later point)."""

    def _install_signal_handlers(self) -> None:
        pass


def run(
    ctx, sender: ConsoleSender, game_id: str, human: int | None, timeout: float | None, lang: str = i18n.DEFAULT_LANG
) -> int:
    worker = SandboxWorker(ctx.queues, connection=ctx.store.redis, serializer=ctx.queue.serializer)
    lines = _stdin_lines() if human is not None else None
    _ = i18n.translator(lang).gettext
    started = time.monotonic()
    while timeout is None or time.monotonic() - started < timeout:
        worker.work(burst=True, with_scheduler=True, logging_level="WARNING")
        if ctx.store.load(game_id).status == "over" and not _deliveries_pending(ctx):
            if human is not None and lines is not None:  # the watch page stays until the player has seen it
                print("\n" + _("The game is over. Its watch page stays up until you type quit."), flush=True)
                while (line := lines.get()) is not None and line.strip() not in QUIT:
                    if line.strip():  # status, board, a card's text still answer
                        reply = typed.answer(ctx, game_id, human, line, lang, sender.choices.get(YOU, []))
                        sender.reply(YOU, reply.text, reply.buttons)
                print(_("The sandbox has stopped."), flush=True)
            return 0
        # one line per turn of the loop: its effects come first (there are lines only when a seat is human)
        if human is not None and lines is not None and not lines.empty():
            line = lines.get()
            if line is None or line.strip() in QUIT:
                print(_("The sandbox has stopped."), flush=True)
                return 0
            if line.strip():
                reply = typed.answer(ctx, game_id, human, line, lang, sender.choices.get(YOU, []))
                sender.reply(YOU, reply.text, reply.buttons)
            continue
        time.sleep(0.05)
    print(
        i18n.translator(lang).gettext("sandbox: the game did not end within {n} s").format(n=f"{timeout:.0f}"),
        file=sys.stderr,
    )
    return 1


def _deliveries_pending(ctx) -> bool:
    return ctx.send_queue.count > 0 or ScheduledJobRegistry(queue=ctx.send_queue).count > 0


def _stdin_lines() -> "queue.Queue[str | None]":
    lines: queue.Queue = queue.Queue()

    def read():
        for line in sys.stdin:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True, name="stdin").start()
    return lines


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while a game runs: the game is the sandbox's own, nothing to keep
        sys.exit(130)
