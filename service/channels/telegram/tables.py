"""What the Telegram side keeps in Redis besides the shared lobby (`service.pipeline.lobby`): players' own language
choices, the webhook's update dedup, and who blocked the bot. The tables themselves — the lobby of a group or
forum topic, the join code, the players — are `service.pipeline.lobby`'s, shared with the SMS channel; `place_of` names
a table's Telegram place. Keys (all under ``tg:``, global like the user indexes):

    tg:lang:<user>        a user's own language choice (forgotten `KEEP_SECONDS` after it was last set)
    tg:upd:<update id>    a webhook update already handled (dedup, a little over Telegram's 24 h retention)
    tg:blocked:<user>     the user blocked the bot, or a seat began before they started it (forgotten after
                          `KEEP_SECONDS`: a send then finds out again)
    tg:started:<user>     the user has a private chat with the bot: it may write to them (real Telegram lets a
                          bot write first only to someone who started it; forgotten after `KEEP_SECONDS`)

Every key expires: anyone may write to the bot, and what a stranger leaves must not stay for ever.
"""

from typing import cast

import redis

from service.store import keys

KEEP_SECONDS = 400 * 86400


def place_of(chat_id: int, topic: int | None) -> str:
    """A table's Telegram place: the group ``"<chat id>"``, or a forum topic ``"<chat id>/<topic id>"``."""
    return f"{chat_id}/{topic}" if topic else str(chat_id)


class Tables:
    def __init__(self, connection: redis.Redis, dedup_ttl: int = 90000):
        self.redis = connection
        self.dedup_ttl = dedup_ttl

    def set_lang(self, user: int, lang: str) -> None:
        self.redis.set(keys.telegram_lang(str(user)), lang, ex=KEEP_SECONDS)

    def lang(self, user: int) -> str | None:
        raw = cast(bytes | None, self.redis.get(keys.telegram_lang(str(user))))
        return raw.decode() if raw else None

    def pressed(self, user: int) -> str | None:
        """A user pressed a button of our private message, so a chat with them exists (`set_started`). -> their own
        language choice (`lang`). One round trip for both."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(keys.telegram_lang(str(user)))
        pipe.set(keys.telegram_started(str(user)), 1, ex=KEEP_SECONDS)
        raw = cast(bytes | None, pipe.execute()[0])
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
