"""A stand-in for a seat, and leaving a game that has begun: a game of days must outlive a player who cannot go on.

* A player hands their seat on (`offer_own`); the table's creator may offer the seat of a player who vanished
  (`offer_vanished`: at least `VANISHED_AFTER` auto-plays in a row, or a seat the bot plays for good). An offer
  is a one-use token (the channel's deep link or code), kept `OFFER_SECONDS`; the seat stays its player's until
  it is taken.
* The newcomer takes it (`take`): refused when they already sit at the table. The seat changes hands in one
  transaction (`Store.swap_seat`: the game's players, both players' game indexes, the seat's streak and absence,
  the token), so an offer pressed twice seats one person once. The next question asks the newcomer; the old
  player and the table are told; the channel shows the newcomer a recap of the seat (`service.channels.longplay`).
* Leaving (`leave`) gives the seat to the table's bot for good (its open question answered at once); the game
  goes on, and the creator may offer the seat to someone later.

A refusal raises `StandInError` (its ``reason`` a key the channel words) and changes nothing.
"""

import secrets
from dataclasses import dataclass

from service.i18n import N_, translator
from service.pipeline import notices, scheduling, seats
from service.pipeline.context import Context
from service.pipeline.lobby import ALPHABET, Lobby, Player

OFFER_SECONDS = 2 * 86400
VANISHED_AFTER = 2
TOKEN_LENGTH = 6  # longer than a join code: never read as one


class StandInError(Exception):
    """``reason``: unknown (no such offer, or taken), over, seated, not_player, not_creator, not_vanished,
    no_seat."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Taken:
    game_id: str
    seat: int
    before: dict  # the seat's player before (name, chat, user, ...)


def _running_meta(ctx: Context, game_id: str) -> dict:
    snap, meta = ctx.store.load_with_meta(game_id)
    if snap is None or snap.status == "over":
        raise StandInError("over")
    return meta


def seat_of_user(meta: dict, user: str) -> int | None:
    return next((int(s) for s, p in meta.get("players", {}).items() if str(p.get("user")) == user), None)


def _offer(ctx: Context, game_id: str, seat: int, meta: dict) -> str:
    owner = meta["players"][str(seat)].get("user") or ""
    while True:
        token = "".join(secrets.choice(ALPHABET) for _ in range(TOKEN_LENGTH))
        if ctx.store.offer_seat(token, game_id, seat, owner, OFFER_SECONDS):
            return token


def offer_own(ctx: Context, game_id: str, user: str) -> tuple[str, int]:
    """A player offers their own seat. -> (token, seat)."""
    meta = _running_meta(ctx, game_id)
    seat = seat_of_user(meta, user)
    if seat is None:
        raise StandInError("not_player")
    return _offer(ctx, game_id, seat, meta), seat


def offer_vanished(ctx: Context, game_id: str, seat: int, creator: bool) -> str:
    """The creator offers the seat of a player who vanished (or one the bot plays for good). -> the token."""
    meta = _running_meta(ctx, game_id)
    if not creator:
        raise StandInError("not_creator")
    if str(seat) not in meta.get("players", {}):
        raise StandInError("no_seat")
    streak = ctx.store.streaks(game_id).get(seat, 0)
    if streak < VANISHED_AFTER and seat not in meta.get("bots", []):
        raise StandInError("not_vanished")
    return _offer(ctx, game_id, seat, meta)


def find_seat(meta: dict, words: str) -> int | None:
    """The seat a creator names: its number, or its player's name (any letter case)."""
    words = words.strip()
    if words.isdigit():
        return int(words) if words in meta.get("players", {}) else None
    return next(
        (int(s) for s, p in meta.get("players", {}).items() if words and p.get("name", "").lower() == words.lower()),
        None,
    )


def take(ctx: Context, token: str, player: dict) -> Taken:
    """The newcomer ``player`` (`Player.seat_entry`: name, chat, user, address, lang) takes the offered seat; the
    lobby's table follows (`Lobby.reseat`)."""
    offer = ctx.store.seat_offer(token.upper())
    if offer is None:
        raise StandInError("unknown")
    game_id, seat = offer
    _running_meta(ctx, game_id)
    status, before = ctx.store.swap_seat(game_id, seat, player, ctx.clock(), token.upper())
    if status != "OK":
        raise StandInError({"GONE": "unknown", "SEATED": "seated"}[status])
    newcomer = Player(player["address"], player["name"], player["lang"], player["chat"], player["user"])
    Lobby(ctx).reseat(game_id, before.get("address") or "", newcomer)
    old, new = before.get("name", ""), player.get("name", "")
    meta = ctx.store.meta(game_id)
    words = notices.words(TAKES, old=old, new=new)
    notices.tell_table(ctx, game_id, f"standin{seat}{token.upper()}", meta, words, "🔁", by=player.get("chat"))
    if before.get("chat"):  # the old player, privately (no seat: a message that fails must not touch the seat)
        text = translator(before.get("lang") or meta.get("lang") or "en").gettext(HANDED).format(code=game_id, new=new)
        text = notices.marked("🔁", text, before["chat"])
        message = {"chat": before["chat"], "text": text, "buttons": None, "seat": None, "group": False}
        ctx.store.write_batch(game_id, f"handed{seat}{token.upper()}", [message])
        scheduling.deliveries(ctx, game_id, f"handed{seat}{token.upper()}")
    return Taken(game_id, seat, before)


def leave(ctx: Context, game_id: str, user: str) -> int:
    """The player leaves a game that has begun: the table's bot plays their seat from now on. -> the seat."""
    meta = _running_meta(ctx, game_id)
    seat = seat_of_user(meta, user)
    if seat is None:
        raise StandInError("not_player")
    status, before = ctx.store.swap_seat(game_id, seat, None, ctx.clock())
    if status != "OK":
        raise StandInError("not_player")
    Lobby(ctx).reseat(game_id, before.get("address") or "", None)
    seats.answer_now(ctx, game_id, seat)
    name = before.get("name", "")
    batch = f"left{seat}t{scheduling.ms(ctx.clock())}"
    notices.tell_table(ctx, game_id, batch, meta, notices.words(LEFT, old=name), "🚪", by=before.get("chat"))
    return seat


TAKES = N_("{new} takes {old}'s seat.")
HANDED = N_("Your seat in {code} is now {new}'s. Thank you for playing!")
LEFT = N_("{old} left the game: a bot plays their seat from now on. The table's creator may offer it to someone else.")
