"""Flood control for inbound messages: a token bucket per sender in Redis (``keys.inbound_bucket``), shared by
every web process, so that one phone number or Telegram user cannot make us read, store and answer (and, for
SMS, pay for) messages without end.

A sender may send a burst, then a steady rate (the ``inbound_*`` settings per channel). The first message past
the bucket gets one "slow down" answer (`Admission.SLOW_DOWN`); after that nothing is read or answered
(`Admission.SILENT`) until a token has come back. A bucket key expires once it would be full again.

Replies to numbers that play nothing and text something we cannot use ("you are in no game", an unknown code)
share one more bucket (``keys.INBOUND_STRANGERS``, ``sms_stranger_replies_per_hour``): ten thousand strangers
cost that many replies an hour, not ten thousand.
"""

from enum import Enum

from service.pipeline.context import Context
from service.store import keys, lua

BURSTS = {"sms": "inbound_sms_burst", "telegram": "inbound_telegram_burst", "whatsapp": "inbound_whatsapp_burst"}
RATES = {
    "sms": "inbound_sms_per_minute",
    "telegram": "inbound_telegram_per_minute",
    "whatsapp": "inbound_whatsapp_per_minute",
}


class Admission(Enum):
    READ = "ok"  # within the bucket: handle it
    SLOW_DOWN = "warn"  # the first past it: answer "slow down", read nothing
    SILENT = "drop"  # past it again: neither read nor answered


def _limits(ctx: Context, channel: str) -> tuple[float, float]:
    """(burst, tokens per second) of ``channel``'s buckets."""
    return getattr(ctx.settings, BURSTS[channel]), getattr(ctx.settings, RATES[channel]) / 60


def _take(ctx: Context, key: str, burst: float, per_second: float, warn: bool) -> Admission:
    script = ctx.store.redis.register_script(lua.TAKE_INBOUND_TOKEN)
    return verdict(script(keys=[key], args=[repr(ctx.clock()), per_second, burst, "1" if warn else "0"]))


def admit(ctx: Context, channel: str, address: str) -> Admission:
    """Count one inbound message of ``address`` (``sms:+<E.164>``, ``tg:<user id>``) on ``channel``."""
    burst, per_second = _limits(ctx, channel)
    return _take(ctx, keys.inbound_bucket(address), burst, per_second, warn=True)


DROPPED_TTL = 86400  # a day: a note older than that would not help the player find the text it stands for


def dropped(ctx: Context, address: str) -> None:
    """Count a text of ``address`` dropped unread (`Admission.SILENT`), for `take_dropped` to tell."""
    pipe = ctx.store.redis.pipeline(transaction=False)
    pipe.incr(keys.inbound_dropped(address))
    pipe.expire(keys.inbound_dropped(address), DROPPED_TTL)
    pipe.execute()


def take_dropped(ctx: Context, address: str) -> int:
    """How many texts of ``address`` were dropped unread since the last one read (reset to none)."""
    raw = ctx.store.redis.getdel(keys.inbound_dropped(address))
    return int(raw) if raw else 0


def bucket(ctx: Context, channel: str, address: str) -> tuple[str, list]:
    """The key of ``address``'s bucket and the arguments of `lua.TAKE_INBOUND_TOKEN` that count one message of
    it now, for a script that takes the token with other work (`lua.TELEGRAM_ADMISSION`); `verdict` reads its
    reply."""
    burst, per_second = _limits(ctx, channel)
    return keys.inbound_bucket(address), [repr(ctx.clock()), per_second, burst, "1"]


def verdict(reply: bytes | str) -> Admission:
    return Admission(reply.decode() if isinstance(reply, bytes) else reply)


def stranger_reply_allowed(ctx: Context) -> bool:
    """Take a token from the shared bucket of replies to senders who play nothing; False: say nothing."""
    per_hour = ctx.settings.sms_stranger_replies_per_hour
    return _take(ctx, keys.INBOUND_STRANGERS, per_hour, per_hour / 3600, warn=False) is Admission.READ
