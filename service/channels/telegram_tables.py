"""Telegram tables in Redis: the lobby of a group (or forum topic), players' language choices, update dedup.

A table is the one game of a chat place (``"<chat id>"`` or ``"<chat id>/<topic id>"``): a lobby while people
join, then the running game's id. Changes go through `Tables.change`, an optimistic transaction (WATCH/MULTI)
so two people pressing /join at once are both kept. Keys (all under ``tg:``, global like the user indexes):

    tg:table:<place>      JSON of the table
    tg:tableid:<id>       place of the table with that id (the deep link names the id, not the chat)
    tg:lang:<user>        a user's own language choice
    tg:upd:<update id>    a webhook update already handled (dedup, a little over Telegram's 24 h retention)
    tg:blocked:<user>     the user blocked the bot
"""

import json
import secrets
from dataclasses import asdict, dataclass, field

import redis

MIN_PLAYERS, MAX_PLAYERS = 2, 7


@dataclass
class Player:
    user: int
    name: str
    lang: str


@dataclass
class Table:
    id: str
    place: str
    creator: int
    lang: str
    players: list[Player] = field(default_factory=list)
    creature: int | None = None  # the volunteer
    deadline: str = "daily"
    expert: bool = False
    game: str | None = None

    def player(self, user: int) -> Player | None:
        return next((p for p in self.players if p.user == user), None)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> "Table":
        data = json.loads(text)
        return cls(**{**data, "players": [Player(**p) for p in data["players"]]})


def place_of(chat_id: int, topic: int | None) -> str:
    return f"{chat_id}/{topic}" if topic else str(chat_id)


class Tables:
    def __init__(self, connection: redis.Redis, dedup_ttl: int = 90000):
        self.redis = connection
        self.dedup_ttl = dedup_ttl

    def get(self, place: str) -> Table | None:
        raw = self.redis.get(f"tg:table:{place}")
        return Table.from_json(raw) if raw else None

    def by_id(self, table_id: str) -> Table | None:
        place = self.redis.get(f"tg:tableid:{table_id}")
        return self.get(place.decode()) if place else None

    def open(self, place: str, creator: int, name: str, lang: str) -> Table | None:
        """A new lobby with its creator seated; None when the place already has a table."""
        table = Table(id=secrets.token_hex(4), place=place, creator=creator, lang=lang,
                      players=[Player(creator, name, lang)])
        if not self.redis.set(f"tg:table:{place}", table.to_json(), nx=True):
            return None
        self.redis.set(f"tg:tableid:{table.id}", place)
        return table

    def change(self, place: str, edit) -> Table | None:
        """Apply ``edit(table)`` atomically (it mutates the table, or raises to refuse); None when no table."""
        key = f"tg:table:{place}"

        def attempt(pipe):
            raw = pipe.get(key)
            if raw is None:
                return None
            table = Table.from_json(raw)
            edit(table)
            pipe.multi()
            pipe.set(key, table.to_json())
            return table

        return self.redis.transaction(attempt, key, value_from_callable=True)

    def close(self, table: Table) -> None:
        self.redis.delete(f"tg:table:{table.place}", f"tg:tableid:{table.id}")

    def set_lang(self, user: int, lang: str) -> None:
        self.redis.set(f"tg:lang:{user}", lang)

    def lang(self, user: int) -> str | None:
        raw = self.redis.get(f"tg:lang:{user}")
        return raw.decode() if raw else None

    def seen(self, update_id: int) -> bool:
        return bool(self.redis.exists(f"tg:upd:{update_id}"))

    def mark_seen(self, update_id: int) -> None:
        """Record an update as handled (after handling it: a failed one is handled again on Telegram's retry)."""
        self.redis.set(f"tg:upd:{update_id}", 1, ex=self.dedup_ttl)

    def set_blocked(self, user: int, blocked: bool) -> None:
        if blocked:
            self.redis.set(f"tg:blocked:{user}", 1)
        else:
            self.redis.delete(f"tg:blocked:{user}")
