"""Phone numbers as players, in Redis: each number's settings (stopped, ASCII-only, language, time zone) and
the ``MessageSid``s already handled. The games a number plays (and its seats) are the shared lobby's index
(`service.pipeline.lobby.Lobby.games_of`), like any other address's.

A number's address and its chat in the pipeline (``meta.players[*].user`` / ``.chat`` and the outbox) are both
``"sms:<E.164>"``. Keys are global, like the pipeline's user indexes:

    artemia:sms:num:<number>     hash  stopped, ascii, confirm, lang, tz, joined (the table it joined last), name,
                                       held (the first part of an answer, JSON: game, window, actions; `Held`);
                                       expires (a short TTL for a number that plays nothing, a long one once
                                       it joined a table; a longer TTL is never cut)
    artemia:sms:sid:<MessageSid>       an inbound message already handled (SET NX, with a TTL)

A WhatsApp number (``wa:<E.164>``) has the same settings under ``artemia:wa:num:<number>``, with ``seen``: when it
last wrote to us (its 24-hour window), and ``artemia:wa:pending:<number>``: the texts that could not be sent to it
outside that window, told when it next writes.
"""

import json
from dataclasses import dataclass, field
from typing import cast

import redis

from service.channels.sms.linking import Links
from service.store import keys, lua

CHAT_PREFIX = "sms:"
WHATSAPP_PREFIX = "wa:"


def chat_of(number: str) -> str:
    return CHAT_PREFIX + number


def number_of(chat: str) -> str | None:
    """The phone number of an SMS chat, None for a chat of another channel."""
    return chat[len(CHAT_PREFIX) :] if chat.startswith(CHAT_PREFIX) else None


def whatsapp_number_of(chat: str) -> str | None:
    """The phone number of a WhatsApp chat (``wa:<E.164>``), None for a chat of another channel."""
    return chat[len(WHATSAPP_PREFIX) :] if chat.startswith(WHATSAPP_PREFIX) else None


WINDOW_SECONDS = 24 * 3600  # WhatsApp: free-form messages within 24 hours of the player's last message
PARKED_MAX = 10

# Numbers whose people read Czech: a number that has not chosen a language (LANG) is answered in Czech.
CZECH_PREFIXES = ("+420",)


def default_lang(number: str) -> str:
    return "cs" if number.startswith(CZECH_PREFIXES) else "en"


@dataclass(frozen=True)
class Prefs:
    stopped: bool = False
    ascii: bool = False
    lang: str = "en"
    tz: str = "Europe/Prague"
    joined: str = ""  # the code of the table the number joined last (a GO from it is explained)
    name: str = ""  # the name it chose (NAME); empty: "SMS <last 4 digits>"
    held: "Held | None" = None  # the first part of an answer, kept until the rest comes
    confirm: bool = False  # CONFIRM ON: each accepted answer is confirmed by a reply of its own
    accents: bool = False  # ASCII OFF: always with diacritics (default: without them when that saves a segment)
    lang_chosen: bool = False  # the number chose its language (LANG); else ``lang`` is its prefix's (`default_lang`)


@dataclass(frozen=True)
class Held:
    """The first part of an answer to window ``window`` of game ``game``: legal so far, but the seat has more to
    answer in the same window ("resist 4" before "play 3"; a power's question after "pass"). The next text from
    the number to that window is read after these actions and sent with them."""

    game: str
    window: int
    actions: list[dict] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"game": self.game, "window": self.window, "actions": self.actions})

    @classmethod
    def from_json(cls, text: str) -> "Held | None":
        try:
            data = json.loads(text)
            return cls(str(data["game"]), int(data["window"]), list(data["actions"]))
        except (ValueError, KeyError, TypeError):
            return None


class Directory:
    """The numbers of one texting channel: SMS (``sms:<number>``) or, with ``whatsapp=True``, WhatsApp
    (``wa:<number>``, keys of their own: the same phone is two players on the two channels). A WhatsApp message
    costs the same with accents, and its answers are confirmed at once (a reply is free within the 24-hour
    window), so its numbers' defaults are accents on and CONFIRM ON."""

    def __init__(
        self,
        connection: redis.Redis,
        default_tz: str = "Europe/Prague",
        dedup_ttl: int = 172800,
        whatsapp: bool = False,
    ):
        self.redis = connection
        self.default_tz = default_tz
        self.dedup_ttl = dedup_ttl
        self.whatsapp = whatsapp
        self.prefix = WHATSAPP_PREFIX if whatsapp else CHAT_PREFIX
        self._hset_ttl = connection.register_script(lua.HSET_KEEP_LONGER_TTL)
        self.links = Links(connection)

    def address(self, number: str) -> str:
        """The address the number plays as: its own (`own_address`), or the home's it is linked to
        (`service.channels.sms.linking`)."""
        own = self.own_address(number)
        return self.links.home_of(own) or own

    def own_address(self, number: str) -> str:
        """The number's own address in the lobby and its chat in the pipeline: ``sms:<number>`` or
        ``wa:<number>``."""
        return self.prefix + number

    def label(self, number: str) -> str:
        """The name a number plays under until it chooses one: "SMS 1234", "WhatsApp 1234"."""
        return f"{'WhatsApp' if self.whatsapp else 'SMS'} {number[-4:]}"

    def key(self, number: str) -> str:
        return keys.whatsapp_number(number) if self.whatsapp else keys.sms_number(number)

    def prefs(self, number: str) -> Prefs:
        stored = cast(dict[bytes, bytes], self.redis.hgetall(self.key(number)))
        raw = {k.decode(): v.decode() for k, v in stored.items()}
        if self.whatsapp:
            raw.setdefault("ascii", "0")
            raw.setdefault("confirm", "1")
        return Prefs(
            stopped=raw.get("stopped") == "1",
            ascii=raw.get("ascii") == "1",
            lang=raw.get("lang", default_lang(number)),
            tz=raw.get("tz", self.default_tz),
            joined=raw.get("joined", ""),
            name=raw.get("name", ""),
            held=Held.from_json(raw["held"]) if raw.get("held") else None,
            confirm=raw.get("confirm") == "1",
            accents=raw.get("ascii") == "0",
            lang_chosen="lang" in raw,
        )

    def set_prefs(self, number: str, ttl: int, **fields: bool | str) -> None:
        """Change some settings: stopped / ascii / confirm (bool), lang / tz / joined / name / held (str; held ""
        drops it); they are kept at least ``ttl`` seconds."""
        values = [x for k, v in fields.items() for x in (k, ("1" if v else "0") if isinstance(v, bool) else v)]
        self._hset_ttl(keys=[self.key(number)], args=[ttl, *values])

    def keep(self, number: str, ttl: int) -> None:
        """Keep the number's settings (if it has any) at least ``ttl`` seconds: it has joined a table."""
        self._hset_ttl(keys=[self.key(number)], args=[ttl])

    # --- WhatsApp's 24-hour window and what waits for it ------------------------------------------------------

    def wrote(self, number: str, at: float, ttl: int) -> None:
        """The number wrote to us at ``at``: its 24-hour window opens (WhatsApp)."""
        self._hset_ttl(keys=[self.key(number)], args=[ttl, "seen", repr(at)])

    def window_open(self, number: str, now: float, margin: float) -> bool:
        """Whether a free-form message may go to the number at ``now``: it wrote less than 24 hours (less
        ``margin``) ago."""
        seen = cast(bytes | None, self.redis.hget(self.key(number), "seen"))
        return seen is not None and now < float(seen) + WINDOW_SECONDS - margin

    def park(self, number: str, text: str, ttl: int, picture: dict | None = None) -> None:
        """Keep ``text`` for the number's next message to us (it could not be sent outside its window); the last
        `PARKED_MAX` are kept, and the latest board ``picture``."""
        pipe = self.redis.pipeline()
        pipe.rpush(keys.whatsapp_pending(number), text)
        pipe.ltrim(keys.whatsapp_pending(number), -PARKED_MAX, -1)
        pipe.expire(keys.whatsapp_pending(number), ttl)
        if picture is not None:
            pipe.set(keys.whatsapp_board(number), json.dumps(picture), ex=ttl)
        pipe.execute()

    def take_parked(self, number: str) -> tuple[list[str], dict | None]:
        """What was parked for the number, oldest first, and the latest board picture; no longer kept."""
        pipe = self.redis.pipeline()
        pipe.lrange(keys.whatsapp_pending(number), 0, -1)
        pipe.get(keys.whatsapp_board(number))
        pipe.delete(keys.whatsapp_pending(number), keys.whatsapp_board(number))
        parked, board, _ = pipe.execute()
        return [raw.decode() for raw in parked], json.loads(board) if board else None

    def first_time(self, message_sid: str) -> bool:
        """True the first time a MessageSid is seen (Twilio retries a webhook that failed or timed out)."""
        return bool(self.redis.set(keys.sms_message(message_sid), 1, nx=True, ex=self.dedup_ttl))

    def forget(self, message_sid: str) -> None:
        """Let Twilio's retry of a message whose handling failed be handled again."""
        self.redis.delete(keys.sms_message(message_sid))
