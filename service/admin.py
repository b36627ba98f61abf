"""Operator's command: ``python -m service.admin [--redis-url URL] COMMAND``.

    games [--json]                 every stored game: status, version, open window, deadline, players
    show GAME [--json]             one game: where it stands, who is asked / has answered (never what), auto-play
                                   streaks, the resolution log and the public view
    export GAME [-o FILE] [--snapshot FILE]
                                   the game as a replay log (``python -m service.replay FILE``): the config
                                   line, then one ``seat: {action}`` line per applied action. It holds every
                                   hidden pick: treat it as a secret (the files are written with mode 0600).
    resolve GAME [--window W]      force the open (or stuck) window to resolve now, here in this process, as if
                                   its deadline had passed: seats that have not answered are auto-played
    cancel GAME [--reason TEXT] [--quiet] [--yes]
                                   end the game now (status "over", the open window dropped, no more timers) and,
                                   unless --quiet, tell the table and the players. Asks for confirmation first
                                   (``--yes`` skips the question; without a terminal to answer, nothing is done)
    health                         /healthz as JSON; exit status 1 when unhealthy (container health checks)
    seed-sweeper                   schedule the periodic sweep now (the Procfile's worker does it at start)
    backup DIR [--keep N]          a point-in-time RDB of every Redis node (the index and each game shard) in a new
                                   DIR/artemia-<UTC time>/, with a manifest (SHA-256); keep the newest N
    restore BACKUP [--force]       copy a backup into this deployment's Redis (empty, unless --force), then credit
                                   the time lost to open deadlines and ask every seat of an open window that has
                                   no answer stored again: answers given after the backup was taken are re-asked
                                   (service/ops/backup.py; docs/operations.md, "Backups")
    whatsapp-templates [--file F]  register WhatsApp's contents (deploy/whatsapp/templates.json) with Twilio's
                                   Content API, submitting the turn, reminder and end templates for approval;
                                   prints ARTEMIA_WHATSAPP_CONTENTS (needs no Redis; run it again to add new ones)

The replay log comes from the per-game action log ``{g:<id>}:actions`` that each commit appends to (config
line, then ``[seat, action]`` lines). A game begun before that log existed has none: its moves cannot be rebuilt
from what is stored (a snapshot holds the current state, not the path to it), so the export then holds the
config and a comment saying so, and ``--snapshot`` writes the current engine state, which the engine can load
(``Game.from_json``) to continue from.
"""

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from service import wiring
from service.channels.sms import contents
from service.config import get_settings
from service.game import Game
from service.ops import backup as backups
from service.ops import health, logs
from service.ops import web as ops_web
from service.pipeline import cancelling, resolution, scheduling, upkeep
from service.replay import replay, write_log
from service.store import connect, keys


class AdminError(Exception):
    """A request that cannot be done; the message says why."""


def _iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds") if ts else None


def list_games(ctx) -> list[dict]:
    """Every game with a snapshot (SCAN over the keyspace of every shard: an operator's command, not a request
    path)."""
    out = []
    found = (key for shard in ctx.store.shards for key in shard.scan_iter(match="{g:*}:snap", count=1000))
    for key in found:
        game_id = key.decode()[3 : -len("}:snap")]
        snap = ctx.store.load(game_id)
        if snap is None:
            continue
        meta = ctx.store.meta(game_id)
        out.append(
            {
                "game": game_id,
                "status": snap.status,
                "version": snap.version,
                "window": snap.window,
                "deadline": _iso(snap.deadline) if snap.status == "collecting" else None,
                "players": len(meta.get("players", {})),
                "channel": meta.get("channel"),
                "cancelled": ctx.store.cancelled_at(game_id) is not None,
            }
        )
    return sorted(out, key=lambda g: g["game"])


def describe(ctx, game_id: str) -> dict:
    """What an operator may see of a game: everything public, and who has answered (never what)."""
    store = ctx.store
    snap = store.load(game_id)
    if snap is None:
        raise AdminError(f"no game {game_id!r}")
    game = Game.from_json(snap.json)
    meta = store.meta(game_id)
    asked = sorted(store.expected(game_id)) if snap.status != "over" else []
    answered = sorted(store.answers(game_id)) if snap.status != "over" else []
    r = store.at(game_id)
    return {
        "game": game_id,
        "status": snap.status,
        "version": snap.version,
        "window": snap.window,
        "window_kind": game.window["kind"] if game.window else None,
        "turn": game.turn,
        "opened": _iso(snap.opened),
        "closed": _iso(snap.closed),
        "deadline": _iso(snap.deadline) if snap.status == "collecting" else None,
        "followed": snap.followed,
        "winner": game.winner,
        "cancelled": _iso(store.cancelled_at(game_id) or 0) or None,
        "players": {
            seat: {"name": p.get("name"), "channel": _channel(p.get("chat"))}
            for seat, p in sorted(meta.get("players", {}).items())
        },
        "bots": meta.get("bots", []),
        "asked": asked,
        "answered": answered,
        "autoplay_streaks": store.streaks(game_id),
        "due": _iso(r.zscore(keys.DUE, game_id)),
        "resolution_log": store.resolution_log(game_id),
        "action_log_entries": len(store.action_log(game_id)[1]),
        "compacted": snap.compacted,
        "public_view": game.public_view(),
    }


def _channel(chat: str | None) -> str | None:
    if not chat:
        return None
    if chat.startswith("sms:"):
        return "sms"
    if chat.startswith("wa:"):
        return "whatsapp"
    return "telegram" if chat.lstrip("-").split("/")[0].isdigit() else "other"


def export(ctx, game_id: str) -> tuple[str, bool]:
    """-> (replay log text, complete?). Complete when the action log exists (see the module docstring)."""
    snap = ctx.store.load(game_id)
    if snap is None:
        raise AdminError(f"no game {game_id!r}")
    config, moves = ctx.store.action_log(game_id)
    header = f"# game {game_id}, version {snap.version}, status {snap.status}, exported {_iso(time.time())}\n"
    header += "# holds every hidden pick and hand: treat this file as a secret\n"
    if config is not None:
        return header + write_log(config, moves), True
    config = json.loads(snap.json)["config"]
    note = (
        "# no action log is stored for this game (it began before games kept one): its moves cannot be\n"
        "# rebuilt from the stored snapshot. Only the config follows; `export --snapshot FILE` writes the\n"
        "# current engine state (Game.from_json).\n"
    )
    return header + note + write_log(config, []), False


def check_export(ctx, game_id: str, text: str) -> bool:
    """Does the exported log replay to the stored state?"""
    return replay(text).to_json() == Game.from_json(ctx.store.load(game_id).json).to_json()


def force_resolve(ctx, game_id: str, window: int | None = None) -> str:
    """Resolve the open window now as if its deadline had passed. -> "resolved" | "noop" | "lost" | "over"."""
    store = ctx.store
    snap = store.load(game_id)
    if snap is None:
        raise AdminError(f"no game {game_id!r}")
    if snap.status == "over":
        return "over"
    if window is not None and window != snap.window:
        raise AdminError(f"window {window} is not the open one (the game is at window {snap.window})")
    if snap.status == "collecting":
        now = ctx.clock()
        store.extend_deadline(game_id, snap.window, now - snap.deadline)  # the deadline is now
        store.close_at_deadline(game_id, snap.window, now + 0.001)  # CLOSED, or a last answer just closed it
    return resolution.resolve_window(ctx, game_id, snap.window)


def cancel(ctx, game_id: str, reason: str = "", notify: bool = True) -> str:
    """-> "cancelled" | "over" (it had ended already). Raises AdminError for an unknown game."""
    try:
        return cancelling.cancel(ctx, game_id, reason, notify)
    except cancelling.NoSuchGame:
        raise AdminError(f"no game {game_id!r}") from None


# The reminder number of the question asked again after a restore (past the settings' reminder points: it schedules
# no further reminder, and is written once per window).
RESTORED_REMINDER = 100


def nodes_of(ctx) -> dict:
    """The Redis nodes of the deployment by backup name: ``index`` (REDIS_URL or the Sentinel primary) and, when the
    games are sharded, ``shard-N`` each (``index`` alone when the games live in it)."""
    store = ctx.store
    if len(store.shards) == 1 and store.shards[0] is store.redis:
        return {"index": store.redis}
    return {"index": store.redis, **{f"shard-{n}": shard for n, shard in enumerate(store.shards)}}


def take_backup(ctx, directory: str, keep: int = 0):
    return backups.backup(nodes_of(ctx), directory, keep)


def restore_backup(ctx, backup_dir: str, force: bool = False) -> dict:
    """Copy ``backup_dir`` into the deployment, credit the downtime, re-ask the open windows. -> figures."""
    copied = backups.restore(backup_dir, nodes_of(ctx), force)
    credited = []
    for each in ctx.shard_contexts or [ctx]:
        credited.append(upkeep.credit_downtime(each))
        scheduling.sweep(each, each.clock())  # windows caught resolving are resolved by the sweeper after its grace
    reasked = {}
    for game in list_games(ctx):
        if game["status"] == "collecting" and not game["cancelled"]:
            if upkeep.remind(ctx, game["game"], game["window"], RESTORED_REMINDER):
                reasked[game["game"]] = game["window"]
    return {"keys": copied, "downtime_credited_seconds": max(credited, default=0.0), "reasked": reasked}


# ------------------------------------------------------------------------------------------ command line


def write_private(path: str, text: str) -> None:
    """Write ``text`` to a file only its owner can read (0600), also when the file already existed."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


def confirmed(question: str) -> bool:
    """The operator's yes to ``question`` on the terminal; no answer (no terminal, end of input) is a no."""
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _print_table(games: list[dict]) -> None:
    print(f"{'game':<24} {'status':<11} {'ver':>4} {'window':>6}  {'deadline':<25} players channel")
    for g in games:
        status = "cancelled" if g["cancelled"] else g["status"]
        print(
            f"{g['game']:<24} {status:<11} {g['version']:>4} {str(g['window'] or '-'):>6}  "
            f"{g['deadline'] or '-':<25} {g['players']:>7} {g['channel'] or '-'}"
        )


def _print_game(d: dict) -> None:
    print(
        f"game {d['game']}: {d['status']}{' (cancelled ' + d['cancelled'] + ')' if d['cancelled'] else ''}, "
        f"version {d['version']}, turn {d['turn']}, window {d['window']} ({d['window_kind']})"
    )
    print(f"  opened {d['opened']}  deadline {d['deadline']}  closed {d['closed']}  sweeper due {d['due']}")
    for seat, p in d["players"].items():
        print(f"  seat {seat}: {p['name']} [{p['channel']}]{' (bot)' if int(seat) in d['bots'] else ''}")
    print(f"  asked {d['asked']}  answered {d['answered']}  auto-play streaks {d['autoplay_streaks']}")
    print(f"  resolution log ({len(d['resolution_log'])} commits): {' '.join(d['resolution_log'][-20:])}")
    print(f"  action log: {d['action_log_entries']} actions (export: python -m service.admin export {d['game']})")
    print("  public view: " + json.dumps(d["public_view"], ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.admin", description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default=None, help="default: $REDIS_URL")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("games").add_argument("--json", action="store_true")
    show = sub.add_parser("show")
    show.add_argument("game")
    show.add_argument("--json", action="store_true")
    exp = sub.add_parser("export")
    exp.add_argument("game")
    exp.add_argument("-o", "--output", help="file to write (default: standard output)")
    exp.add_argument("--snapshot", help="also write the current engine state (JSON) to this file")
    res = sub.add_parser("resolve")
    res.add_argument("game")
    res.add_argument("--window", type=int)
    can = sub.add_parser("cancel")
    can.add_argument("game")
    can.add_argument("--reason", default="")
    can.add_argument("--quiet", action="store_true", help="do not tell the players")
    can.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    sub.add_parser("health")
    sub.add_parser("seed-sweeper")
    sub.add_parser("compact", help="compact the finished games stored before games were compacted (a migration)")
    bak = sub.add_parser("backup")
    bak.add_argument("directory")
    bak.add_argument("--keep", type=int, default=0, help="delete all but the newest N backups (0: keep all)")
    rst = sub.add_parser("restore")
    rst.add_argument("backup", help="a directory written by backup (artemia-<time>)")
    rst.add_argument("--force", action="store_true", help="replace the keys of a Redis that is not empty")
    wat = sub.add_parser("whatsapp-templates", help="register WhatsApp's contents with Twilio; prints the setting")
    wat.add_argument("--file", default=str(contents.TEMPLATES), help="default: deploy/whatsapp/templates.json")
    args = parser.parse_args(argv)

    if args.command == "whatsapp-templates":  # Twilio's Content API only: no Redis
        sids = contents.register(get_settings(), contents.load(Path(args.file)))
        print("ARTEMIA_WHATSAPP_CONTENTS=" + json.dumps(sids, separators=(",", ":")))
        return 0

    settings = get_settings()
    if args.redis_url:
        settings = settings.model_copy(update={"redis_url": args.redis_url, "redis_sentinels": ""})
    if not connect.configured(settings):
        parser.error("REDIS_URL is not set (nor ARTEMIA_REDIS_SENTINELS; or give --redis-url)")
    logs.configure("admin")
    ctx = wiring.from_settings(settings)
    try:
        return run(ctx, args)
    except AdminError as exc:
        print(f"admin: {exc}", file=sys.stderr)
        return 2


def run(ctx, args) -> int:
    if args.command == "games":
        games = list_games(ctx)
        print(json.dumps(games, indent=1)) if args.json else _print_table(games)
    elif args.command == "show":
        described = describe(ctx, args.game)
        print(json.dumps(described, indent=1, ensure_ascii=False)) if args.json else _print_game(described)
    elif args.command == "export":
        text, complete = export(ctx, args.game)
        if args.output:
            write_private(args.output, text)
        else:
            sys.stdout.write(text)
        if args.snapshot:
            write_private(args.snapshot, ctx.store.load(args.game).json)
        print(
            ("exported the whole action log" if complete else "no action log stored: config only")
            + "; it holds hidden information",
            file=sys.stderr,
        )
    elif args.command == "resolve":
        print(force_resolve(ctx, args.game, args.window))
    elif args.command == "cancel":
        if not (args.yes or confirmed(f"Cancel game {args.game} for every player? [y/N] ")):
            print("not cancelled", file=sys.stderr)
            return 1
        print(cancel(ctx, args.game, args.reason, notify=not args.quiet))
    elif args.command == "health":
        result = health.health_of(ctx.store.redis, ctx.store.shards, ctx.settings)
        print(json.dumps(ops_web.finite(result), indent=1))
        return 0 if result["ok"] else 1
    elif args.command == "seed-sweeper":
        print("scheduled" if scheduling.sweep(ctx, ctx.clock()) else "already scheduled")
    elif args.command == "compact":
        print(json.dumps(upkeep.compact_stored(ctx)))
    elif args.command == "backup":
        written, seconds = _timed(lambda: take_backup(ctx, args.directory, args.keep))
        manifest = json.loads((written / "manifest.json").read_text())
        print(json.dumps({"backup": str(written), "seconds": seconds, **manifest}))
    elif args.command == "restore":
        figures, seconds = _timed(lambda: restore_backup(ctx, args.backup, args.force))
        print(json.dumps({"restored": args.backup, "seconds": seconds, **figures}))
    return 0


def _timed(work):
    """(what ``work`` returns, the seconds it took); a backup's error as the admin's."""
    started = time.monotonic()
    try:
        result = work()
    except backups.BackupError as exc:
        raise AdminError(str(exc)) from None
    return result, round(time.monotonic() - started, 3)


if __name__ == "__main__":
    sys.exit(main())
