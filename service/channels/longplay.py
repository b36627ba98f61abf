"""Long games, as Telegram and SMS both say them: away and back, pausing a table, a player's record, a group's
history, forgetting a player (`service.pipeline.absence`, `service.pipeline.records`). Each function does the
request and returns the reply in the reader's language; a refusal is worded here and changes nothing.

Shared by the channels (which never import each other); ``word`` is how the channel spells the command in its
usage lines ("/away" on Telegram, "AWAY" by SMS).
"""

from service.channels.plain import situation
from service.game import Game
from service.i18n import translator
from service.i18n.clock import when
from service.i18n.events import counters, duration, track
from service.i18n.names import cards_text
from service.pipeline import absence, records, seats, standins, watch
from service.pipeline.absence import AbsenceError
from service.pipeline.context import Context
from service.pipeline.lobby import Lobby, user_of
from service.pipeline.standins import StandInError

HISTORY_SHOWN = 10


def refusal(error: AbsenceError, ctx: Context, lang: str, word: str, tz: str | None = None) -> str:
    _, ngettext = translator(lang).gettext, translator(lang).ngettext
    settings = ctx.settings
    return {
        "bad_time": lambda: _(
            "Say until when: {word} 3d, {word} 12h, {word} 24.12. 18:00 or {word} 2026-12-24 18:00 (the table's time "
            "zone)."
        ).format(word=word),
        "past": lambda: _("That time has passed: say a time to come."),
        "too_far": lambda: ngettext(
            "You may be away for at most {n} day: say an earlier time.",
            "You may be away for at most {n} days: say an earlier time.",
            settings.away_max_days,
        ).format(n=settings.away_max_days),
        "no_game": lambda: _("You play no running game."),
        "over": lambda: _("This game is over."),
        "not_player": lambda: _("Only the table's players may pause it."),
        "too_long": lambda: ngettext(
            "A pause lasts 1 to {n} day, e.g. {word} 2.",
            "A pause lasts 1 to {n} days, e.g. {word} 2.",
            settings.pause_max_days,
        ).format(n=settings.pause_max_days, word=word),
        "paused_already": lambda: _("The table is paused already, until {time}.").format(
            time=when(error.until or 0.0, lang, tz)
        ),
        "not_paused": lambda: _("The table is not paused."),
        "not_creator": lambda: _("Only the player who opened this game may do that."),
    }[error.reason]()


def away(ctx: Context, user: str, text: str, lang: str, word: str, tz: str) -> str:
    """``text``: until when (see `absence.parse_until`), read and shown in time zone ``tz``."""
    try:
        until = absence.parse_until(text, ctx.clock(), tz, ctx.settings.away_max_days)
        games = absence.go_away(ctx, user, until)
    except AbsenceError as error:
        return refusal(error, ctx, lang, word, tz)
    return (
        translator(lang)
        .gettext("Away until {time}: the bot plays your seat in {games} until then, or until you answer.")
        .format(time=when(until, lang, tz), games=" ".join(games))
    )


def back(ctx: Context, user: str, lang: str) -> str:
    return welcome_back(ctx, user, lang) or translator(lang).gettext("You were not away.")


def welcome_back(ctx: Context, user: str, lang: str) -> str | None:
    """The seats the bot plays for the player are theirs again (`absence.come_back`). -> the welcome, or None when
    the bot played none."""
    games = absence.come_back(ctx, user)
    if not games:
        return None
    return (
        translator(lang).gettext("Welcome back! The next question in {games} is yours.").format(games=" ".join(games))
    )


def pause(ctx: Context, game_id: str, seat: int | None, creator: bool, text: str, by: str, lang: str, word: str):
    """``text``: how long, in days ("2") or until when as `away` reads it ("2d", "24.12. 18:00")."""
    _, ngettext = translator(lang).gettext, translator(lang).ngettext
    meta = seats.meta(ctx, game_id)
    try:
        seconds = absence.pause_seconds(text, ctx.clock(), absence.table_zone(meta), ctx.settings.pause_max_days)
        asked = absence.pause(ctx, game_id, seat, creator, seconds, by)
    except AbsenceError as error:
        return refusal(error, ctx, lang, word, meta.get("tz"))
    if asked.until is None:
        return ngettext(
            "{name} votes for a pause: {votes} of the {needed} vote it needs.",
            "{name} votes for a pause: {votes} of the {needed} votes it needs.",
            asked.needed,
        ).format(name=by, votes=asked.votes, needed=asked.needed)
    return _("Paused until {time}.").format(time=when(asked.until, lang, meta.get("tz")))


def resume(ctx: Context, game_id: str, creator: bool, lang: str) -> str:
    _ = translator(lang).gettext
    if not creator:
        return refusal(AbsenceError("not_creator"), ctx, lang, "")
    if not absence.resume(ctx, game_id):
        return refusal(AbsenceError("not_paused"), ctx, lang, "")
    return _("The pause is over.")


def status_lines(ctx: Context, game_id: str, meta: dict, lang: str) -> list[str]:
    """The table's pause and its players away, for a status."""
    _ = translator(lang).gettext
    tz, now = meta.get("tz"), ctx.clock()
    out = []
    paused = seats.paused_until(ctx, game_id)
    if paused is not None and paused > now:
        out.append("⏸ " + _("Paused until {time}.").format(time=when(paused, lang, tz)))
    for seat, until in sorted(absence.away_seats(ctx, game_id).items()):
        name = meta.get("players", {}).get(str(seat), {}).get("name", "")
        out.append("💤 " + _("{name} is away until {time}.").format(name=name, time=when(until, lang, tz)))
    return out


def stats(ctx: Context, user: str, args: list[str], lang: str, word: str) -> str:
    """``args``: [] shows the record, ["off"] deletes it and records nothing more, ["on"] records again; anything
    else gets the usage."""
    _ = translator(lang).gettext
    choice = " ".join(args).lower()
    if choice not in ("", "off", "on"):
        return _(
            "Usage: {word} shows your record, {word} off deletes it and records nothing more, {word} on records again."
        ).format(word=word)
    if choice == "off":
        records.opt_out(ctx, user)
        return _("Your record is deleted and nothing more is recorded. {word} on starts a new one.").format(word=word)
    if choice == "on":
        records.opt_in(ctx, user)
        return _("Your games are recorded from now on.")
    if records.opted_out(ctx, user):
        return _("You keep no record ({word} on starts one).").format(word=word)
    return record_text(records.record(ctx, user), lang)


def record_text(record: records.Record, lang: str) -> str:
    _, ngettext = translator(lang).gettext, translator(lang).ngettext
    if not record.games:
        return _("You have no finished game on record yet.")
    lines = [
        "📊 " + ngettext("{n} finished game.", "{n} finished games.", record.games).format(n=record.games),
        ngettext(
            "As the Creature: won {wins} of {games} game.",
            "As the Creature: won {wins} of {games} games.",
            record.creature_games,
        ).format(wins=record.creature_wins, games=record.creature_games),
        ngettext(
            "As the Hunted: won {wins} of {games} game.",
            "As the Hunted: won {wins} of {games} games.",
            record.hunted_games,
        ).format(wins=record.hunted_wins, games=record.hunted_games),
    ]
    if record.missed_share is not None:
        lines.append(
            _("Deadlines missed: {missed} of {asked} ({share:.0%}).").format(
                missed=record.missed, asked=record.asked, share=record.missed_share
            )
        )
    if record.median_seconds is not None:
        lines.append(_("Median answer time: {time}.").format(time=duration(record.median_seconds, lang)))
    return "\n".join(lines)


def history(ctx: Context, place: str, lang: str, tz: str | None) -> str:
    _, ngettext = translator(lang).gettext, translator(lang).ngettext
    entries = records.history(ctx, place)[:HISTORY_SHOWN]
    if not entries:
        return _("No game has finished here yet.")
    lines = ["📜 " + _("Finished games here, newest first:")]
    for entry in entries:
        players = entry.get("players", [])
        creature = [p["name"] for p in players if p["seat"] == 0]
        hunted = [p["name"] for p in players if p["seat"] != 0]
        won = _("the Creature won") if entry["winner"] == "creature" else _("the Hunted won")
        won += f" (👹 {', '.join(creature)} · {', '.join(hunted)})"
        length = (entry.get("ended") or 0) - (entry.get("began") or entry.get("ended") or 0)
        days = int(length // 86400)
        span = ngettext("{n} day", "{n} days", days).format(n=days) if days else duration(length, lang)
        turns = ngettext("{n} turn", "{n} turns", entry["turns"]).format(n=entry["turns"])
        ended = when(entry.get("ended") or 0.0, lang, tz)
        lines.append(f"{entry['game']} · {ended} · {turns}, {span} · {won}")
    return "\n".join(lines)


def forget(lobby: Lobby, address: str, lang: str) -> str:
    """The player's name and ids out of their finished games (`records.forget`) and those games' tables."""
    games = records.forget(lobby.ctx, user_of(address))
    for game_id in games:
        lobby.forget(game_id, address, records.FORGOTTEN)
    return (
        translator(lang)
        .ngettext(
            "Done: your name and ids are gone from {n} finished game, and your record is deleted.",
            "Done: your name and ids are gone from {n} finished games, and your record is deleted.",
            len(games),
        )
        .format(n=len(games))
    )


# ---------------------------------------------------------------------------------------------- stand-ins


def standin_refusal(error: StandInError, lang: str) -> str:
    _ = translator(lang).gettext
    return {
        "unknown": _("That seat offer is unknown or already taken: ask for a new one."),
        "over": _("This game is over."),
        "seated": _("You already sit at this table: a stand-in must be someone else."),
        "not_player": _("You do not play in this game."),
        "not_creator": _("Only the player who opened this game may do that."),
        "not_vanished": _("Only a seat whose player missed at least 2 deadlines in a row may be offered."),
        "no_seat": _("There is no such seat: name it by its player's name or its number."),
    }[error.reason]


def recap(game: Game, seat: int, before: dict, game_id: str, lang: str, link: str | None, short: bool) -> str:
    """What the newcomer needs of the seat: whose it was and which role it plays, what it holds (hand, discard,
    Will, Survival cards, or the Hunt cards), the public situation (the turn and the counters) and where the game
    so far can be read (``link``: its watch page). ``short`` (a text message, paid by the segment): no pictures,
    the counters in one line."""
    _ = translator(lang).gettext
    role = _("the Creature") if seat == 0 else _("Hunted {n}").format(n=seat)
    taken = _("You now play {old}'s seat in game {code}: {role}.").format(
        old=before.get("name", ""), code=game_id, role=role
    )
    lines = [taken if short else "🔁 " + taken, situation(game, seat, lang)]
    if seat != 0:
        discard = game.visible_discards(seat).get(seat) or []
        lines.append(_("Your discard: {cards}").format(cards=cards_text(sorted(discard), lang) or "—"))
    view = game.public_view()
    lines += [_("Turn {n}").format(n=game.turn), counters(view, lang) if short else track(view, lang)]
    if link:
        lines.append(_("The game so far: {link}").format(link=link))
    return "\n".join(lines)


def take_seat(
    ctx: Context, token: str, player: dict, lang: str, short: bool = False
) -> tuple[str, standins.Taken | None]:
    """-> (the reply: the recap, or why not; what was taken). ``short``: the recap for a text message."""
    try:
        taken = standins.take(ctx, token, player)
    except StandInError as error:
        return standin_refusal(error, lang), None
    view = seats.read(ctx, taken.game_id)
    if view.snap is None:
        return standin_refusal(StandInError("over"), lang), None
    link = watch.url(ctx.settings, view.meta or {})
    return recap(view.game, taken.seat, taken.before, taken.game_id, lang, link, short), taken


def leave(ctx: Context, game_id: str, user: str, lang: str) -> str:
    try:
        standins.leave(ctx, game_id, user)
    except StandInError as error:
        return standin_refusal(error, lang)
    return translator(lang).gettext("You left game {code}: a bot plays your seat from now on.").format(code=game_id)
