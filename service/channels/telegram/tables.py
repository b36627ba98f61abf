"""What the Telegram side keeps in Redis besides the shared lobby (`service.pipeline.lobby`): players' own language
choices, the webhook's update dedup, and who blocked the bot. The tables themselves — the lobby of a group or
forum topic, the join code, the players — are `service.pipeline.lobby`'s, shared with the SMS channel; `place_of` names
a table's Telegram place. Keys (all under ``tg:``, global like the user indexes):

    tg:lang:<user>        a user's own language choice (forgotten `KEEP_SECONDS` after it was last set)
    tg:upd:<update id>    a webhook update already handled (dedup, a little over Telegram's 24 h retention; not
                          kept for a button press, whose handling is idempotent: `inbound.press`)
    tg:blocked:<user>     the user blocked the bot, or a seat began before they started it (forgotten after
                          `KEEP_SECONDS`: a send then finds out again)
    tg:started:<user>     the user has a private chat with the bot: it may write to them (real Telegram lets a
                          bot write first only to someone who started it; forgotten after `KEEP_SECONDS`)

Every key expires: anyone may write to the bot, and what a stranger leaves must not stay for ever.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import redis

from service.pipeline import floods
from service.store import keys, lua
from service.store.base import pipelined, queue_script

KEEP_SECONDS = 400 * 86400


def place_of(chat_id: int, topic: int | None) -> str:
    """A table's Telegram place: the group ``"<chat id>"``, or a forum topic ``"<chat id>/<topic id>"``."""
    return f"{chat_id}/{topic}" if topic else str(chat_id)


@dataclass(frozen=True)
class Admitted:
    """What `Tables.admit` found of an update."""

    seen: bool  # handled already: nothing else was done, and nothing is to be done
    lang: str | None = None  # the user's own language choice (`lang`)
    verdict: floods.Admission = floods.Admission.READ  # their inbound bucket's
    reads: tuple = ()  # the replies of the caller's reads, in their order


class Tables:
    def __init__(self, connection: redis.Redis, dedup_ttl: int = 90000):
        self.redis = connection
        self.dedup_ttl = dedup_ttl
        self._admission = connection.register_script(lua.TELEGRAM_ADMISSION)

    def admit(
        self, update_id: int, user: int, bucket: tuple[str, list], reads: Callable[[Any], None] | None = None
    ) -> Admitted:
        """An update of ``user`` in private (a text, a press of our private message's button), in one round trip:
        nothing when it was handled already (`seen`); else a chat with them exists (`set_started`), their language
        choice is read (`lang`) and one message is counted on their inbound bucket (``bucket``: `floods.bucket`).
        ``reads(pipeline)`` queues the caller's reads in the same round trip: they are read whatever the script
        finds (cheaper than a round trip of their own for the updates that are handled)."""
        bucket_key, bucket_args = bucket
        script_keys = [
            keys.telegram_update(update_id),
            keys.telegram_lang(str(user)),
            keys.telegram_started(str(user)),
            bucket_key,
        ]

        def queue(pipe: Any) -> None:
            queue_script(pipe, self._admission, script_keys, [KEEP_SECONDS, *bucket_args])
            if reads is not None:
                reads(pipe)

        found, *replies = pipelined(self.redis, queue, self._admission)
        if not found[0]:
            return Admitted(seen=True, reads=tuple(replies))
        lang = found[1].decode() if found[1] else None
        return Admitted(seen=False, lang=lang, verdict=floods.verdict(found[2]), reads=tuple(replies))

    def set_lang(self, user: int, lang: str) -> None:
        self.redis.set(keys.telegram_lang(str(user)), lang, ex=KEEP_SECONDS)

    def lang(self, user: int) -> str | None:
        raw = cast(bytes | None, self.redis.get(keys.telegram_lang(str(user))))
        return raw.decode() if raw else None

    def seen(self, update_id: int) -> bool:
        return bool(self.redis.exists(keys.telegram_update(update_id)))

    def mark_seen(self, update_id: int) -> None:
        """Record an update as handled (after handling it: a failed one is handled again on Telegram's retry)."""
        self.redis.set(keys.telegram_update(update_id), 1, ex=self.dedup_ttl)

    def set_blocked(self, user: int, blocked: bool) -> None:
        if blocked:
            self.redis.set(keys.telegram_blocked(str(user)), 1, ex=KEEP_SECONDS)
        else:
            self.redis.delete(keys.telegram_blocked(str(user)))

    def set_started(self, user: int) -> None:
        self.redis.set(keys.telegram_started(str(user)), 1, ex=KEEP_SECONDS)

    def blocked(self, user: int | str) -> bool:
        return bool(self.redis.exists(keys.telegram_blocked(str(user))))

    def reachable(self, user: int | str) -> bool:
        """The bot may write to the user in private: they started it and have not blocked it."""
        return bool(self.redis.exists(keys.telegram_started(str(user)))) and not self.blocked(user)
