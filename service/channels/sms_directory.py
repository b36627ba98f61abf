"""Phone numbers as players, in Redis: each number's settings (stopped, ASCII-only, language, time zone), the
games it sits in (most recent first, with its seat), and the ``MessageSid``s already handled.

A number's chat in the pipeline (``meta.players[*].chat`` and the outbox) is ``"sms:<E.164>"``. Keys are
global, like the pipeline's user indexes:

    artemia:sms:num:<number>     hash  stopped, ascii, lang, tz, lobby (the last one it opened)
    artemia:sms:games:<number>   zset  game id -> when the number joined (the most recent game wins)
    artemia:sms:seat:<number>    hash  game id -> seat
    artemia:sms:sid:<MessageSid>       an inbound message already handled (SET NX, with a TTL)
"""

from dataclasses import dataclass

import redis

CHAT_PREFIX = "sms:"


def chat_of(number: str) -> str:
    return CHAT_PREFIX + number


def number_of(chat: str) -> str | None:
    """The phone number of an SMS chat, None for a chat of another channel."""
    return chat[len(CHAT_PREFIX):] if chat.startswith(CHAT_PREFIX) else None


@dataclass(frozen=True)
class Prefs:
    stopped: bool = False
    ascii: bool = False
    lang: str = "en"
    tz: str = "Europe/Prague"
    lobby: str | None = None  # the code of the last lobby the number opened (for a bare GO)


class Directory:
    def __init__(self, connection: redis.Redis, default_tz: str = "Europe/Prague", dedup_ttl: int = 172800):
        self.redis = connection
        self.default_tz = default_tz
        self.dedup_ttl = dedup_ttl

    def prefs(self, number: str) -> Prefs:
        raw = {k.decode(): v.decode() for k, v in self.redis.hgetall(f"artemia:sms:num:{number}").items()}
        return Prefs(stopped=raw.get("stopped") == "1", ascii=raw.get("ascii") == "1",
                     lang=raw.get("lang", "en"), tz=raw.get("tz", self.default_tz), lobby=raw.get("lobby"))

    def set_prefs(self, number: str, **fields) -> None:
        """Change some settings: stopped / ascii (bool), lang / tz / lobby (str)."""
        values = {k: ("1" if v else "0") if isinstance(v, bool) else v for k, v in fields.items()}
        self.redis.hset(f"artemia:sms:num:{number}", mapping=values)

    def link(self, number: str, game_id: str, seat: int, when: float) -> None:
        pipe = self.redis.pipeline()
        pipe.zadd(f"artemia:sms:games:{number}", {game_id: when})
        pipe.hset(f"artemia:sms:seat:{number}", game_id, seat)
        pipe.execute()

    def games(self, number: str) -> list[tuple[str, int]]:
        """(game id, seat) of every game of the number, the most recently joined first."""
        ids = [g.decode() for g in self.redis.zrevrange(f"artemia:sms:games:{number}", 0, -1)]
        seats = self.redis.hmget(f"artemia:sms:seat:{number}", ids) if ids else []
        return [(g, int(s)) for g, s in zip(ids, seats) if s is not None]

    def first_time(self, message_sid: str) -> bool:
        """True the first time a MessageSid is seen (Twilio retries a webhook that failed or timed out)."""
        return bool(self.redis.set(f"artemia:sms:sid:{message_sid}", 1, nx=True, ex=self.dedup_ttl))

    def forget(self, message_sid: str) -> None:
        """Let Twilio's retry of a message whose handling failed be handled again."""
        self.redis.delete(f"artemia:sms:sid:{message_sid}")
