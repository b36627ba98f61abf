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


@lru_cache(maxsize=4096)  # a window's deadline is told to every seat, and on every press's reply (~30 µs each)
def when(ts: float, lang: str, tz: str | None = None, precise: bool = False) -> str:
    """An absolute time in the reader's language and time zone: "Tue 14 Nov, 18:30 CET" ("18:30:15 CET" when
    ``precise``: a short step, where a minute matters)."""
    moment = datetime.fromtimestamp(ts, UTC).astimezone(ZoneInfo(zone(lang, tz)))
    return format_datetime(moment, "EEE d MMM, HH:mm:ss zzz" if precise else "EEE d MMM, HH:mm zzz", locale=lang)
