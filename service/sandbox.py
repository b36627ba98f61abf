"""The local sandbox: play one seat in the terminal against bots, through the real pipeline.

``python -m service.sandbox [--seat N | --side creature|hunted] [--players P] [--seed S] [--deadline SECONDS]
[--lang en|cs]``
``python -m service.sandbox --bots-only --seed S``  plays a whole game with bots and prints the transcript.

Same command language, store, Lua scripts, RQ jobs, deadlines and outbox as production. Without REDIS_URL
the Redis is embedded (fakeredis with Lua, in this process) and an in-process RQ ``SimpleWorker`` (burst runs
with the scheduler, pumped by the main loop) does the jobs; bots are seats the pipeline auto-plays the moment
a window opens. What you type goes through ``service.pipeline.ingest.submit`` exactly as a Telegram message would,
and its result is worded as Telegram words it (`service.channels.plain.submitted`), in the language of the game.
"""

import argparse
import queue
import sys
import threading
import time
import uuid

from rq import SimpleWorker
from rq.registry import ScheduledJobRegistry

from service import commands, i18n, wiring
from service.channels import plain
from service.channels.console.sender import ConsoleSender
from service.channels.telegram import ui
from service.config import get_settings
from service.game import Game
from service.pipeline import context, ingest, scheduling
from service.pipeline.resolution import start_game

TABLE = "console:table"
YOU = "console:you"
UNLIMITED = 1e9  # no send budget on a terminal


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m service.sandbox", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3, help="seats, Creature included (2-7)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--seat", type=int, default=None, help="the seat you play (0 = the Creature)")
    parser.add_argument("--side", choices=["creature", "hunted"], default=None)
    parser.add_argument("--deadline", type=int, default=30, help="seconds you get per step")
    parser.add_argument("--bots-only", action="store_true", help="bots play every seat; print the transcript")
    parser.add_argument("--timeout", type=float, default=300, help="give up after this many seconds")
    parser.add_argument("--lang", choices=i18n.LANGS, default=i18n.DEFAULT_LANG, help="the language of the game")
    return parser.parse_args(argv)


def choose_seat(args, ask) -> int:
    if args.seat is not None:
        return args.seat
    _ = i18n.translator(getattr(args, "lang", i18n.DEFAULT_LANG)).gettext
    side = args.side or ask(_("Play the Creature or a Hunted? [c/h] ")).strip().lower()[:1]
    return 0 if side in ("c", "b") else 1  # Creature, Bytost


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    settings = get_settings().model_copy(
        update={
            "min_deadline_seconds": 1,
            "sweep_interval_seconds": 5,
            "resolve_grace_seconds": 5,
            "rate_global_per_second": UNLIMITED,
            "rate_private_per_second": UNLIMITED,
            "rate_group_per_minute": UNLIMITED,
        }
    )
    _ = i18n.translator(args.lang).gettext
    try:
        human = None if args.bots_only else choose_seat(args, input)
    except (EOFError, KeyboardInterrupt):  # no terminal to read from (stdin closed), or Ctrl-C / Ctrl-D
        message = _("sandbox: no seat chosen, so no game. Run it in a terminal, or with --bots-only to watch bots.")
        print("\n" + message, file=sys.stderr)
        return 2
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
        "group": TABLE,
        "deadline_seconds": args.deadline,
        "lang": args.lang,
        "bots": [s for s in range(args.players) if s != human],
        **({"reader": human} if human is not None else {}),  # the table is read by you: "You use", not "You uses"
    }
    ctx = wiring.build(connection, settings, sender=ConsoleSender(labels=labels))
    context.register(ctx)
    game_id = f"sandbox{seed}_{uuid.uuid4().hex[:6]}"
    scheduling.sweep(ctx, ctx.clock())  # the sweeper chain (and its heartbeat)
    start_game(ctx, game_id, {"players": args.players, "seed": seed, "side": None, "expert": False}, meta)
    return run(ctx, game_id, human, args.timeout, args.lang)


class SandboxWorker(SimpleWorker):
    """RQ's in-process worker without its signal handlers: Ctrl-C ends the sandbox at once, wherever it is (RQ's
    would turn it into a stop request, left in force after a burst, that fires at a random later point)."""

    def _install_signal_handlers(self) -> None:
        pass


def run(ctx, game_id: str, human: int | None, timeout: float, lang: str = i18n.DEFAULT_LANG) -> int:
    worker = SandboxWorker(ctx.queues, connection=ctx.store.redis, serializer=ctx.queue.serializer)
    lines = _stdin_lines() if human is not None else None
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        worker.work(burst=True, with_scheduler=True, logging_level="WARNING")
        if ctx.store.load(game_id).status == "over" and not _deliveries_pending(ctx):
            return 0
        # one line per turn of the loop: its effects come first (there are lines only when a seat is human)
        if human is not None and lines is not None and not lines.empty():
            line = lines.get()
            if line is None or line.strip() == "quit":
                return 0
            print(f"  -> {answer(ctx, game_id, human, line, lang)}", flush=True)
            continue
        time.sleep(0.05)
    print(
        i18n.translator(lang).gettext("sandbox: the game did not end within {n} s").format(n=f"{timeout:.0f}"),
        file=sys.stderr,
    )
    return 1


def answer(ctx, game_id: str, seat: int, text: str, lang: str = i18n.DEFAULT_LANG) -> str:
    """One line typed by the human: help, status, or an answer for the open step, answered in ``lang``."""
    snap = ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    try:
        actions = commands.parse(text, game, seat, lang=lang)
    except commands.CommandError as exc:
        return str(exc)
    if actions[0]["type"] == "_help":
        return commands.help_text(game, seat, lang)
    if actions[0]["type"] == "_status":
        return status(ctx, game_id, game, seat, lang)
    if snap.status == "over":
        return i18n.translator(lang).gettext("This game is over.")
    result = ingest.submit(ctx, game_id, seat, actions, snap.window, dedup_id=None, snap=snap)
    return plain.submitted(result, game, seat, lang)


def status(ctx, game_id: str, game: Game, seat: int, lang: str) -> str:
    """`status` in words: the table's status (as Telegram's /status shows it), then what your seat holds."""
    store = ctx.store
    snap, meta = store.load_with_meta(game_id)
    names = {int(s): p.get("name") or "" for s, p in meta["players"].items()}
    asked = plain.shown(game, sorted(store.expected(game_id))) if snap.status == "collecting" else []
    table = ui.status(
        game.public_view(),
        names,
        asked,
        set(store.answers(game_id)),
        snap.deadline if asked or plain.cards_pending(game) else None,
        lang,
        **ui.clock_of(meta),
    )
    return "\n".join([table, ui.situation(game, seat, lang)])


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
