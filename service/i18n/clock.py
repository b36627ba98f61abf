"""Absolute times in a reader's language and time zone: "Tue 14 Nov, 18:30 CET". Shared by the channels and the
pipeline's table notices (away until …, paused until …)."""

from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel.dates import format_datetime

DEFAULT_TZ = {"cs": "Europe/Prague", "en": "UTC"}


def zone(lang: str, tz: str | None = None) -> str:
    """The time zone times are shown in: the table's (``tz``), else its language's default."""
    return tz or DEFAULT_TZ.get(lang, "UTC")


# The day as each language writes it: Czech gives the month as a number, with dots ("út 8. 12.").
DAY_PATTERN = {"cs": "EEE d. M.", "en": "EEE d MMM"}


@lru_cache(maxsize=4096)  # a window's deadline is told to every seat, and on every press's reply (~30 µs each)
def when(ts: float, lang: str, tz: str | None = None, precise: bool = False) -> str:
    """An absolute time in the reader's language and time zone: "Tue 14 Nov, 18:30 CET", "18:30 SEČ (út 14. 11.)"
    ("18:30:15" when ``precise``: a short step, where a minute matters). Czech puts the hour first, so that "do"
    ("by") is followed by a time ("do 18:30"), never by a weekday ("do út")."""
    moment = datetime.fromtimestamp(ts, UTC).astimezone(ZoneInfo(zone(lang, tz)))
    day = format_datetime(moment, DAY_PATTERN.get(lang, DAY_PATTERN["en"]), locale=lang)
    if lang == "cs":
        return f"{clock_time(moment, precise)} {zone_name(moment, lang)} ({day})"
    return f"{day}, {clock_time(moment, precise)} {zone_name(moment, lang)}"


def clock_time(moment: datetime, precise: bool = False) -> str:
    return moment.strftime("%H:%M:%S" if precise else "%H:%M")


def zone_name(moment: datetime, lang: str) -> str:
    """The zone's short name as the language says it (SEČ in Czech, CET in English, UTC, GMT, EST), never a bare
    offset where a name exists ("+0100" is what English gets from the locale data for Central Europe)."""
    named = format_datetime(moment, "zzz", locale=lang)
    if named[:1].isalpha():
        return named
    own = moment.tzname() or ""
    return own if own[:1].isalpha() else named
