"""A record of who played: per player across tables, and per group (or forum topic) its finished games.

While a game runs, each resolved window adds to its players' tally (`service.store.keys.tally`, written by the
commit): every seat asked in person — not a bot's seat, not one the bot plays (a streak of auto-plays, away) —
was asked once, and either missed the deadline (auto-played) or answered after so many seconds. When the game
ends (its last commit's follow-up, `fold`), the tally and the outcome go into each player's record and the
game into its group's history, once (`service.store.records`): games, games and wins as the Creature and as the
Hunted, windows asked and deadlines missed, answer times (the median is of the newest `RECORD_TIMES`).
A cancelled game has no winner and is not recorded.

A player says ``/stats off`` (`opt_out`): their record is deleted and nothing more is recorded; ``/forgetme``
(`forget`) removes their name and ids from the finished games they played (the game's players, the group's
history) and deletes their record.
"""

import statistics
from dataclasses import dataclass

from service.game import Game
from service.pipeline.context import Context
from service.store.records import Records

FORGOTTEN = "—"  # the name a forgotten player has in the finished games' records


@dataclass(frozen=True)
class Record:
    games: int = 0
    creature_games: int = 0
    creature_wins: int = 0
    hunted_games: int = 0
    hunted_wins: int = 0
    asked: int = 0
    missed: int = 0
    median_seconds: float | None = None

    @property
    def missed_share(self) -> float | None:
        return self.missed / self.asked if self.asked else None


def _records(ctx: Context) -> Records:
    return Records(ctx.store.redis)


def _side(seat: int) -> str:
    return "creature" if seat == 0 else "hunted"  # the lobby deals seat 0 to the Creature


def fold(ctx: Context, game_id: str) -> bool:
    """Record a finished game (once; the follow-up of its last commit calls it, and may run again).
    -> False when there is nothing to record or it was recorded before."""
    snap, meta = ctx.store.load_with_meta(game_id)
    if snap is None or snap.status != "over" or snap.compacted:
        return False  # (a compacted game was folded before it was compacted: its tally is gone)
    game = Game.from_json(snap.json)
    if game.winner is None:
        return False  # cancelled
    tally = ctx.store.tally(game_id)
    players: dict[str, dict] = {}
    seats = []
    for seat_key, player in sorted(meta.get("players", {}).items(), key=lambda item: int(item[0])):
        seat, user = int(seat_key), player.get("user")
        seats.append({"seat": seat, "name": player.get("name", ""), "user": user})
        if not user:
            continue  # the table's bot
        side = _side(seat)
        add = {"games": 1, f"{side}_games": 1, f"{side}_wins": int(game.winner == side)}
        add |= {"asked": int(tally.get(f"asked:{seat}", 0)), "missed": int(tally.get(f"missed:{seat}", 0))}
        times = [float(t) for t in tally.get(f"times:{seat}", "").split()]
        players[str(user)] = {"add": add, "times": times}
    entry = {
        "game": game_id,
        "winner": game.winner,
        "turns": game.turn,
        "began": meta.get("began"),
        "ended": snap.opened,
        "players": seats,
    }
    return _records(ctx).fold(game_id, meta.get("group"), entry, players)


def record(ctx: Context, user: str) -> Record:
    counts, times = _records(ctx).record(user)
    fields = {name: counts.get(name, 0) for name in Record.__dataclass_fields__ if name != "median_seconds"}
    return Record(**fields, median_seconds=statistics.median(times) if times else None)


def opted_out(ctx: Context, user: str) -> bool:
    return _records(ctx).opted_out(user)


def opt_out(ctx: Context, user: str) -> None:
    _records(ctx).opt_out(user)


def opt_in(ctx: Context, user: str) -> None:
    _records(ctx).opt_in(user)


def history(ctx: Context, place: str) -> list[dict]:
    """The finished games of a group or forum topic, newest first."""
    return _records(ctx).history(place)


def forget(ctx: Context, user: str) -> list[str]:
    """Remove the player's name and ids from every finished game they played, and delete their record; their
    running games are left alone. -> the games forgotten."""
    store, records = ctx.store, _records(ctx)
    finished = []
    for game_id, _ in store.games_of_user(user):
        snap, meta = store.load_with_meta(game_id)
        if snap is None or snap.status != "over":
            continue
        for player in meta.get("players", {}).values():
            if str(player.get("user")) == user:
                player.update(name=FORGOTTEN, user=None, chat=None, address=None)
        store.replace_meta(game_id, meta)
        if meta.get("group"):
            records.rewrite_history(meta["group"], lambda entries: [_forgotten(e, user) for e in entries])
        finished.append(game_id)
    records.forget_games(user, finished)
    records.delete(user)
    return finished


def _forgotten(entry: dict, user: str) -> dict:
    for player in entry.get("players", []):
        if str(player.get("user")) == user:
            player.update(name=FORGOTTEN, user=None)
    return entry
