"""Away and back, and pausing a table: what lets a game of days survive real life.

**Away.** A player says until when they are away (`parse_until`: "3d", "12h", "2026-12-24 18:00", "24.12. 18:00",
"18:00", in the table's time zone; not in the past, at most ``away_max_days`` ahead). In every game they play
that is still running, the bot plays their seat until then (`botplay.taken_seats`: the question open now is
answered at once, later ones when they open) or until they answer (the submit script ends it), and the table is
told "away until …". `come_back` ends it at once, and ends the bot's play of a seat whose player missed deadlines
too.

**Pause.** The table's creator, or a majority of its players (each a vote, kept a day; the shortest pause asked
wins), pauses the table for 1 to ``pause_max_days`` days (`pause_seconds`: a number of days, or until when as
away reads it): the open window's deadline moves by the pause (the pause script, atomic), a window opened during
it gets its whole time after it, reminders wait, and the table is told at the pause and at its end. The pause
ends by itself (a job at its end) or earlier by the creator's resume; either gives the open window back what is
left of the pause. A pause asked twice is one pause.

A refusal raises `AbsenceError` (its ``reason`` a key the channel words) and changes nothing.
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from service.i18n import N_, translator
from service.i18n.clock import when, zone
from service.pipeline import notices, scheduling, seats
from service.pipeline.context import Context

DAY = 86400
VOTE_SECONDS = DAY  # a vote for a pause counts this long

_RELATIVE = re.compile(r"^(?:(\d{1,4})d)?(?:(\d{1,5})h)?$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_DOTTED_DATE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.?(\d{4})?$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")


class AbsenceError(Exception):
    """A refused request; nothing changed. ``reason``: bad_time, past, too_far, no_game, over, not_player,
    too_long, paused_already (``until``: till when), not_paused, not_creator."""

    def __init__(self, reason: str, until: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.until = until


def parse_until(text: str, now: float, tz: str, max_days: int) -> float:
    """The moment ``text`` names: "3d", "12h", "1d12h" (from now), "YYYY-MM-DD [HH:MM]", "D.M.[YYYY] [HH:MM]",
    "HH:MM" (today), in time zone ``tz``; a date alone is its midnight. Raises AbsenceError: bad_time, past,
    too_far (more than ``max_days`` ahead)."""
    words = text.lower().split()
    if not words:
        raise AbsenceError("bad_time")
    relative = _RELATIVE.match(words[0]) if len(words) == 1 else None
    if relative and any(relative.groups()):
        until = now + int(relative[1] or 0) * DAY + int(relative[2] or 0) * 3600
    else:
        until = _absolute(words, now, ZoneInfo(tz))
    if until <= now:
        raise AbsenceError("past")
    if until - now > max_days * DAY:
        raise AbsenceError("too_far")
    return until


def _absolute(words: list[str], now: float, tz: ZoneInfo) -> float:
    today = datetime.fromtimestamp(now, tz)
    date, clock = (words + [""])[:2] if len(words) <= 2 else ("", "")
    if _TIME.match(date) and not clock:
        date, clock = "", date
    try:
        if iso := _ISO_DATE.match(date):
            day = datetime(int(iso[1]), int(iso[2]), int(iso[3]), tzinfo=tz)
        elif dotted := _DOTTED_DATE.match(date):
            day = datetime(int(dotted[3] or today.year), int(dotted[2]), int(dotted[1]), tzinfo=tz)
        elif not date and clock:
            day = today.replace(hour=0, minute=0, second=0, microsecond=0)
        else:
            raise AbsenceError("bad_time")
        if clock:
            hours_minutes = _TIME.match(clock)
            if not hours_minutes:
                raise AbsenceError("bad_time")
            day += timedelta(hours=int(hours_minutes[1]), minutes=int(hours_minutes[2]))
            if int(hours_minutes[1]) > 23 or int(hours_minutes[2]) > 59:
                raise AbsenceError("bad_time")
    except ValueError as exc:  # 31.2., month 13
        raise AbsenceError("bad_time") from exc
    return day.timestamp()


def pause_seconds(text: str, now: float, tz: str, max_days: int) -> float:
    """How long a pause asked as ``text`` lasts: a number of days ("2"; nothing: 1), or until the moment
    `parse_until` reads ("2d", "36h", "24.12. 18:00"). Raises AbsenceError: past; too_long (unreadable, or more
    than ``max_days`` ahead: the refusal says how to ask)."""
    words = text.split()
    if not words:
        return DAY
    if len(words) == 1 and words[0].isdigit():
        return int(words[0]) * DAY
    try:
        return parse_until(text, now, tz, max_days) - now
    except AbsenceError as error:
        if error.reason == "past":
            raise
        raise AbsenceError("too_long") from error


def table_zone(meta: dict) -> str:
    return zone(meta.get("lang") or "en", meta.get("tz"))


def _running(ctx: Context, user: str) -> list[tuple[str, int, dict]]:
    """(game, seat, meta) of the games the player plays that are still running."""
    out = []
    for game_id, seat in ctx.store.games_of_user(user):
        snap, meta = ctx.store.load_with_meta(game_id)
        if snap is not None and snap.status != "over":
            out.append((game_id, seat, meta))
    return out


def zone_of_user(ctx: Context, user: str, fallback: str) -> str:
    """The time zone a player's times are read in: that of their most recent running table, else ``fallback``."""
    running = _running(ctx, user)
    return table_zone(running[0][2]) if running else fallback


def go_away(ctx: Context, user: str, until: float) -> list[str]:
    """The bot plays the player's seats until ``until`` in every running game; each table is told.
    -> the games (AbsenceError no_game when there is none)."""
    running = _running(ctx, user)
    if not running:
        raise AbsenceError("no_game")
    for game_id, seat, meta in running:
        # away first: a window opened from now on is answered by the bot (one a resolution opens meanwhile, by
        # its follow-up: `resolution.answer_taken`), then the question open now
        ctx.store.set_away(game_id, seat, until)
        seats.answer_now(ctx, game_id, seat)
        player = meta["players"][str(seat)]
        away = N_("{name} is away until {time}: the bot plays their seat until then, or until they answer.")
        words = notices.words(away, until, meta.get("tz"), name=player.get("name", ""))
        batch = f"away{seat}t{scheduling.ms(until)}"
        notices.tell_table(ctx, game_id, batch, meta, words, "💤", by=player.get("chat"))
    return [game_id for game_id, _, _ in running]


def come_back(ctx: Context, user: str) -> list[str]:
    """The seats the bot plays for the player are theirs again in every game, whether they said they were away
    or the bot took over after missed deadlines (or a blocked chat): the next question asks them. -> the games
    where the bot played for them."""
    back = []
    for game_id, seat, meta in _running(ctx, user):
        taken_over = ctx.store.streaks(game_id).get(seat, 0) >= ctx.settings.autoplay_bot_after
        if taken_over:
            ctx.store.set_streak(game_id, seat, 0)
        until = ctx.store.end_away(game_id, seat)
        if until is not None and until > ctx.clock():
            back.append(game_id)
            _tell_back(ctx, game_id, seat, meta, f"back{seat}t{scheduling.ms(until)}")
        elif taken_over:
            back.append(game_id)
    return back


def answered_while_away(ctx: Context, game_id: str, seat: int) -> list[str]:
    """The seat's player answered while away (their answer ended the absence in this game: the submit script):
    the table is told they are back, and their absence ends in their other games too (`come_back`, each table
    told). -> the games they came back to."""
    meta = ctx.store.meta(game_id)
    player = meta.get("players", {}).get(str(seat), {})
    _tell_back(ctx, game_id, seat, meta, f"back{seat}a{scheduling.ms(ctx.clock())}")
    return [game_id] + (come_back(ctx, str(player["user"])) if player.get("user") else [])


def _tell_back(ctx: Context, game_id: str, seat: int, meta: dict, batch: str) -> None:
    """The table hears that the seat's player is back (the player, whose news it is, is not sent it)."""
    player = meta.get("players", {}).get(str(seat), {})
    words = notices.words(N_("{name} is back."), name=player.get("name", ""))
    notices.tell_table(ctx, game_id, batch, meta, words, "👋", by=player.get("chat"))


def away_seats(ctx: Context, game_id: str) -> dict[int, float]:
    """Seat -> until when, of the seats whose players are away now."""
    now = ctx.clock()
    return {seat: until for seat, until in ctx.store.absence(game_id)[1].items() if until > now}


@dataclass(frozen=True)
class PauseAsked:
    """What a request for a pause did: ``until`` the table is paused, or (until None) the votes so far and how
    many are needed."""

    until: float | None
    votes: int = 0
    needed: int = 0


def pause(ctx: Context, game_id: str, seat: int | None, creator: bool, seconds: float, by: str) -> PauseAsked:
    """A pause of ``seconds`` (1 to ``pause_max_days`` days) asked by ``seat`` (None: not a player) — the
    creator's pauses at once, a player's is a vote. AbsenceError: not_player, too_long, paused_already, no_game,
    over."""
    store, now = ctx.store, ctx.clock()
    snap, meta = store.load_with_meta(game_id)
    if snap is None:
        raise AbsenceError("no_game")
    if snap.status == "over":
        raise AbsenceError("over")
    if seat is None and not creator:
        raise AbsenceError("not_player")
    if not DAY <= seconds <= ctx.settings.pause_max_days * DAY:
        raise AbsenceError("too_long")
    paused = store.paused_until(game_id)
    if paused is not None and paused > now:
        raise AbsenceError("paused_already", paused)
    if not creator and seat is not None:
        players = [int(s) for s, p in meta.get("players", {}).items() if p.get("user")]
        votes = store.vote_pause(game_id, seat, round(seconds), VOTE_SECONDS)
        needed = len(players) // 2 + 1
        if len(votes) < needed:
            return PauseAsked(None, len(votes), needed)
        seconds = min(votes.values())
    until = now + seconds
    status, deadline = store.pause(game_id, now, until)
    if status == "ALREADY":
        raise AbsenceError("paused_already", deadline)
    if status != "PAUSED":
        raise AbsenceError("over" if status == "OVER" else "no_game")
    _moved(ctx, game_id, deadline)
    scheduling.schedule(
        ctx.at(game_id).queue,
        ctx,
        until,
        "workers.jobs.end_pause",
        (game_id, until),
        f"pause-{game_id}-{scheduling.ms(until)}",
    )
    text = N_(
        "The table is paused until {time} ({name}). Every deadline moves by the pause; answers are still welcome."
    )
    words = notices.words(text, until, meta.get("tz"), name=by)
    notices.tell_table(ctx, game_id, f"pause{scheduling.ms(until)}", meta, words, "⏸")
    return PauseAsked(until)


def resume(ctx: Context, game_id: str, until: float | None = None) -> bool:
    """End the pause (``until``: only the pause that was to end then, as its scheduled end does); the open window
    gets back what is left of it and the table is told. -> False when it was not paused."""
    status, deadline, was_until = ctx.store.resume(game_id, ctx.clock(), until)
    if status != "RESUMED":
        return False
    _moved(ctx, game_id, deadline)
    meta = ctx.store.meta(game_id)

    def words(lang: str) -> str:
        _ = translator(lang).gettext
        said = _("The pause is over: the game goes on.")
        if deadline is not None:
            said += " " + _("Answer by {time}.").format(time=when(deadline, lang, meta.get("tz")))
        return said

    notices.tell_table(ctx, game_id, f"resume{scheduling.ms(was_until)}", meta, words, "▶️")
    return True


def _moved(ctx: Context, game_id: str, deadline: float | None) -> None:
    """The open window's deadline moved: its job at the new time (the old one finds nothing to do), and the
    living messages that show it are drawn again (`upkeep.redraw`)."""
    if deadline is None:
        return
    snap = ctx.store.load(game_id)
    if snap is not None and snap.status == "collecting":
        scheduling.deadline(ctx, game_id, snap.current_window, deadline)
        ctx.store.set_due(game_id, deadline)
        scheduling.redraw(ctx, game_id, snap.current_window, deadline)
