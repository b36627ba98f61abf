"""The one lobby of every channel: a table people join before its game starts, whatever they play through.

A table has a short **join code** (four characters from an alphabet without look-alikes — no 0/O, 1/I/L —
always with a letter and a digit, so a code never reads as a command word or a place number); the code is also
the id of its game, so an SMS player may start a message with it. Players are **channel addresses**:
``tg:<user id>`` (their private chat with the bot is where their secret choices go) or ``sms:+<E.164>``; each
has a name and a language. A table also keeps its creator, the settings (deadline preset, expert variant,
language), an optional number of seats to fill (bots take the empty ones) and the Creature volunteer.
A table opened in a Telegram group (or forum topic) records that ``place``: one table per place, and the
place's public messages go to the group.

Everything a channel does to a table goes through `Lobby`: `open`, `join`, `leave`, `volunteer`, `configure`,
`begin`, `close`. Each change is one optimistic transaction (WATCH/MULTI), so two people joining at once are
both kept. A refused change raises `LobbyError` (its ``reason`` is a key the channel words in its own language)
and stores nothing.

Starting deals the seats (the volunteer, else a random player, is the Creature; the Hunted and any bots in a
random order), writes them into the table in the same transaction that marks it begun, and then calls the
pipeline's ``service.pipeline.resolution.start_game`` with the seat -> address mapping (``meta.players[seat]``: name,
chat, user, address, lang; bots have no chat). The start is idempotent: a
retried or interrupted start finds the dealt seats and only finishes what is missing. A sized table (SMS
``NEW 4``) starts by itself when a join fills it.

Its keys (`service.store.keys`: ``lobby_table``, ``lobby_place``, ``lobby_opened``, ``lobby_tables_of``) are
global, like the player index the game's start writes (``player_games``: the games an address plays,
`Lobby.games_of`). An address may have at most ``max_open_tables`` tables it opened that have not begun (a flood of
``NEW`` opens three tables, not a thousand); two opens at the same instant may pass that by one.
"""

import functools
import json
import random
import secrets
import zoneinfo
from dataclasses import asdict, dataclass, field
from typing import cast

from service.config import DEADLINE_PRESETS, deadline_seconds
from service.game import DEFAULT_SECRECY, SECRECY_SETTINGS
from service.game.search import DEFAULT_LEVEL, LEVELS
from service.pipeline.context import Context
from service.pipeline.resolution import GameExists, start_game
from service.store import keys

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 7
LOBBY_TTL = 14 * 86400
LANGS = ("en", "cs")
BOT_LEVELS = tuple(LEVELS)
DEFAULT_BOT_LEVEL = DEFAULT_LEVEL


def new_code(rng=secrets) -> str:
    while True:
        code = "".join(rng.choice(ALPHABET) for _ in range(CODE_LENGTH))
        if looks_like_code(code):
            return code


def looks_like_code(word: str) -> bool:
    """Four letters and digits with at least one of each: what a code looks like (even a mistyped one)."""
    return (
        len(word) == CODE_LENGTH
        and word.isascii()
        and word.isalnum()
        and any(c.isdigit() for c in word)
        and any(c.isalpha() for c in word)
    )


def telegram_address(user_id: int | str) -> str:
    return f"tg:{user_id}"


def sms_address(number: str) -> str:
    return f"sms:{number}"


class LobbyError(Exception):
    """A refused change; nothing was stored. ``reason``: unknown, begun, full, already, not_in, not_creator,
    too_few, place_taken, bad_setting, bad_level (of a bot), too_many (open tables)."""

    def __init__(self, reason: str, table: "Table | None" = None):
        super().__init__(reason)
        self.reason = reason
        self.table = table


@dataclass
class Player:
    address: str  # "tg:<user id>" | "sms:+<E.164>"
    name: str
    lang: str
    chat: str  # where the player's private messages go: Telegram's private chat id, or "sms:+<E.164>"
    user: str = ""  # the pipeline's user id (meta "user", the store's user -> games index): the address, except
    # on Telegram where it is the bare numeric id the Telegram side keys on (tg:lang:<id>, tg:blocked:<id>)

    @property
    def channel(self) -> str:
        return self.address.split(":", 1)[0]

    def seat_entry(self) -> dict:
        """The player as a game's meta records the player of a seat (``meta.players[seat]``)."""
        return {
            "name": self.name,
            "chat": self.chat,
            "user": self.user or self.address,
            "address": self.address,
            "lang": self.lang,
        }


def user_of(address: str) -> str:
    """The pipeline's user id of an address (meta's "user"): the bare id on Telegram, else the address."""
    return address[3:] if address.startswith("tg:") else address


@functools.cache
def _zones() -> dict[str, str]:
    return {name.lower(): name for name in zoneinfo.available_timezones()}


def time_zone(text: str) -> str | None:
    """The IANA time zone named by ``text`` in any letter case ("europe/london" -> "Europe/London"), or None."""
    return _zones().get(text.strip().lower())


@dataclass
class Table:
    code: str
    creator: str  # address
    lang: str
    players: list[Player] = field(default_factory=list)
    creature: str | None = None  # the volunteer's address
    deadline: str = "daily"  # a preset name or a number of seconds
    expert: bool = False
    secrecy: str = DEFAULT_SECRECY  # strict | fast: see service/game/rules/secrecy.py
    size: int | None = None  # seats to fill (bots in the empty ones); None: one per player
    place: str | None = None  # the Telegram group (or forum topic) the table was opened in
    game: str | None = None  # the game's id once it began (the code)
    seats: dict[str, int] = field(default_factory=dict)  # address -> seat, dealt when it began
    seed: int = 0
    tz: str | None = None  # the IANA time zone deadlines are shown in; None: the language's (cs Prague, en UTC)
    bots: list[str] = field(default_factory=list)  # the level of each bot added (/addbot), in the order added
    bot_creature: bool = False  # a bot is the Creature (a solo game as a Hunted)

    def player(self, address: str) -> Player | None:
        return next((p for p in self.players if p.address == address), None)

    @property
    def capacity(self) -> int:
        return self.size or MAX_PLAYERS

    @property
    def seated(self) -> int:
        """The seats taken: the players and the bots added."""
        return len(self.players) + len(self.bots)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> "Table":
        data = json.loads(text)
        return cls(**{**data, "players": [Player(**p) for p in data["players"]]})


@dataclass(frozen=True)
class Started:
    table: Table
    seats: dict[str, int]  # address -> seat
    creature: Player | None  # None: a bot is the Creature


class Lobby:
    def __init__(self, ctx: Context, rng: random.Random | None = None):
        self.ctx = ctx
        self.redis = ctx.store.redis
        self.rng = rng or random.SystemRandom()  # codes, seats and game seeds

    # --- reading ---------------------------------------------------------------------------------------------

    def get(self, code: str) -> Table | None:
        if not code or not code.isascii() or not code.isalnum():
            return None
        raw = self.redis.get(keys.lobby_table(code))
        return Table.from_json(raw) if raw else None

    def at(self, place: str) -> Table | None:
        """The table of a Telegram group or topic (a running or finished game's table too)."""
        code = cast(bytes | None, self.redis.get(keys.lobby_place(place)))
        return self.get(code.decode()) if code else None

    def last_opened(self, address: str) -> str | None:
        code = cast(bytes | None, self.redis.get(keys.lobby_opened(address)))
        return code.decode() if code else None

    def games_of(self, address: str) -> list[tuple[str, int]]:
        """(game, seat) of every game the address plays, the most recently begun first."""
        return self.ctx.store.games_of_user(user_of(address))

    def finished_by(self, place: str, address: str, code: str | None = None) -> str | None:
        """The newest game the address opened at ``place`` (or the one ``code`` names) that is over — finished or
        cancelled — whether or not its table is still there: what the creator's ``/reveal`` shows."""
        for game_id, _seat in self.games_of(address):
            if code is not None and game_id != code:
                continue
            snap, meta = self.ctx.store.load_with_meta(game_id)
            if snap is not None and snap.status == "over" and meta.get("group") == place:
                if meta.get("creator") == address:
                    return game_id
        return None

    def is_over(self, table: Table) -> bool:
        snap = self.ctx.store.load(table.game) if table.game else None
        return snap is not None and snap.status == "over"

    # --- changes ---------------------------------------------------------------------------------------------

    def open(
        self, creator: Player, lang: str, place: str | None = None, size: int | None = None, deadline: str = "daily"
    ) -> Table:
        """A new table with its creator seated. In a place that has a table whose game is not over: raises
        LobbyError("place_taken"); when the creator has too many tables waiting to begin: LobbyError("too_many")."""
        waiting, done = self._opened_waiting(creator.address)
        if len(waiting) >= self.ctx.settings.max_open_tables:
            raise LobbyError("too_many")
        if size is not None:
            size = min(MAX_PLAYERS, max(MIN_PLAYERS, size))
        while True:
            table = Table(
                code=new_code(self.rng),
                creator=creator.address,
                lang=lang,
                players=[creator],
                deadline=deadline,
                size=size,
                place=place,
            )
            if self.ctx.store.load(table.code) is not None:
                continue  # an old game has this id
            if place is None:
                if self.redis.set(keys.lobby_table(table.code), table.to_json(), nx=True, ex=LOBBY_TTL):
                    break
                continue
            if self._open_at(place, table):
                break
        self.redis.set(keys.lobby_opened(creator.address), table.code, ex=LOBBY_TTL)
        self._remember_opened(creator.address, table.code, done)
        return table

    def _opened_waiting(self, address: str) -> tuple[list[str], list[str]]:
        """(codes of the tables ``address`` opened that still wait to begin, codes of those that began or are gone)."""
        codes = self.redis.zrangebyscore(keys.lobby_tables_of(address), self.ctx.clock(), "+inf")
        waiting: list[str] = []
        done: list[str] = []
        for code in (c.decode() for c in cast(list[bytes], codes)):
            table = self.get(code)
            (waiting if table is not None and not table.game else done).append(code)
        return waiting, done

    def _remember_opened(self, address: str, code: str, done: list[str]) -> None:
        """Record ``code`` among the tables the address opened; forget those that began, are gone or expired."""
        key, now = keys.lobby_tables_of(address), self.ctx.clock()
        pipe = self.redis.pipeline()
        pipe.zremrangebyscore(key, "-inf", now)
        if done:
            pipe.zrem(key, *done)
        pipe.zadd(key, {code: now + LOBBY_TTL})
        pipe.expire(key, LOBBY_TTL)
        pipe.execute()

    def _open_at(self, place: str, table: Table) -> bool:
        """Claim ``place`` for ``table`` unless a live table holds it. -> False when the code was taken."""
        place_key = keys.lobby_place(place)

        def attempt(pipe):
            code = pipe.get(place_key)
            current = self.get(code.decode()) if code else None
            if current is not None and not self.is_over(current):
                raise LobbyError("place_taken", current)
            if pipe.exists(keys.lobby_table(table.code)):
                return False
            pipe.multi()
            pipe.set(keys.lobby_table(table.code), table.to_json(), ex=LOBBY_TTL)
            pipe.set(place_key, table.code)
            return True

        # value_from_callable: the reply is what ``attempt`` returned
        return cast(
            bool, self.redis.transaction(attempt, place_key, keys.lobby_table(table.code), value_from_callable=True)
        )

    def change(self, code: str, edit) -> Table:
        """Apply ``edit(table)`` atomically (it mutates the table, or raises LobbyError to refuse)."""
        key = keys.lobby_table(code)

        def attempt(pipe):
            raw = pipe.get(key)
            if raw is None:
                raise LobbyError("unknown")
            table = Table.from_json(raw)
            edit(table)
            pipe.multi()
            if table.game:
                pipe.set(key, table.to_json())  # a begun table stays (late joins, the group's /status)
            else:
                pipe.set(key, table.to_json(), keepttl=True)
            return table

        return cast(Table, self.redis.transaction(attempt, key, value_from_callable=True))  # attempt's table

    def join(self, code: str, player: Player) -> tuple[Table, Started | None]:
        """Seat the player (LobbyError: unknown, begun, already, full). A join that fills a sized table begins
        its game: -> (table, Started)."""

        def add(table):
            if table.game:
                raise LobbyError("begun", table)
            if table.player(player.address):
                raise LobbyError("already", table)
            if table.seated >= table.capacity:
                raise LobbyError("full", table)
            table.players.append(player)

        return self._begin_when_full(self.change(code, add))

    def _begin_when_full(self, table: Table) -> tuple[Table, Started | None]:
        """A sized table that a join or a bot has just filled begins its game: -> (table, Started)."""
        if table.size and table.seated >= table.size:
            try:
                return table, self.begin(table.code, None)
            except LobbyError as refusal:
                if refusal.reason != "begun":
                    raise
                return table, None  # someone else's join or GO began it
        return table, None

    def leave(self, code: str, address: str) -> Table | None:
        """Leave a table before it begins; the table closes when its last player leaves (-> None)."""

        def remove(table):
            if table.game:
                raise LobbyError("begun", table)
            if table.player(address) is None:
                raise LobbyError("not_in", table)
            table.players = [p for p in table.players if p.address != address]
            table.creature = None if table.creature == address else table.creature
            if table.creator == address and table.players:
                table.creator = table.players[0].address

        table = self.change(code, remove)
        if not table.players:
            self.close(table)
            return None
        return table

    def rename(self, code: str, address: str, name: str) -> Table | None:
        """The player's new name at a table (None: no such table, or not at it)."""

        def set_name(table):
            player = table.player(address)
            if player is None:
                raise LobbyError("not_in", table)
            player.name = name

        try:
            return self.change(code, set_name)
        except LobbyError:
            return None

    def rename_in_game(self, game_id: str, address: str, name: str) -> bool:
        """The player's new name in a game that has begun (the next status and news use it)."""
        meta = self.ctx.store.meta(game_id)
        seats = [p for p in meta.get("players", {}).values() if p.get("address") == address]
        for player in seats:
            player["name"] = name
        if seats:
            self.ctx.store.replace_meta(game_id, meta)
        return bool(seats)

    def reseat(self, code: str, address: str, newcomer: Player | None) -> None:
        """A begun table's seat changed hands (`service.pipeline.standins`): ``address`` no longer sits at it, and
        ``newcomer`` (None: the table's bot) has the seat, and the creator's part if it was theirs."""

        def move(table):
            seat = table.seats.pop(address, None)
            table.players = [p for p in table.players if p.address != address]
            if newcomer is not None and seat is not None:
                table.players.append(newcomer)
                table.seats[newcomer.address] = seat
                table.creator = newcomer.address if table.creator == address else table.creator

        try:
            self.change(code, move)
        except LobbyError:
            pass  # a game without a lobby table (the operator's, a test's)

    def forget(self, code: str, address: str, name: str) -> None:
        """A finished game's table no longer names the player (``/forgetme``): their name becomes ``name`` and
        their address, chat and ids are gone."""

        def scrub(table):
            for player in table.players:
                if player.address == address:
                    player.name, player.address, player.chat, player.user = name, "", "", ""
            table.seats.pop(address, None)
            table.creator = "" if table.creator == address else table.creator
            table.creature = None if table.creature == address else table.creature

        try:
            self.change(code, scrub)
        except LobbyError:
            pass  # the table is gone already

    def add_bot(self, code: str, by: str, level: str) -> tuple[Table, Started | None]:
        """A player at the table adds a bot of ``level`` (BOT_LEVELS) to an empty seat (LobbyError: unknown,
        begun, not_in, full, bad_level). Like a join, a bot that fills a sized table begins its game."""

        def add(table):
            if table.game:
                raise LobbyError("begun", table)
            if table.player(by) is None:
                raise LobbyError("not_in", table)
            if level not in BOT_LEVELS:
                raise LobbyError("bad_level", table)
            if table.seated >= table.capacity:
                raise LobbyError("full", table)
            table.bots.append(level)

        return self._begin_when_full(self.change(code, add))

    def volunteer(self, code: str, address: str) -> Table:
        def mark(table):
            if table.game:
                raise LobbyError("begun", table)
            if table.player(address) is None:
                raise LobbyError("not_in", table)
            table.creature = address

        return self.change(code, mark)

    def configure(self, code: str, by: str, key: str, value: str) -> Table:
        """The creator changes a setting: deadline live|fast|daily|<seconds>, expert on|off, secrecy
        strict|fast, lang cs|en, size 2-7, tz <Area/City>|default."""
        zone = time_zone(value) if key == "tz" else None
        value = value.lower()

        def set_(table):
            if table.game:
                raise LobbyError("begun", table)
            if by != table.creator:
                raise LobbyError("not_creator", table)
            if key == "deadline" and (value in DEADLINE_PRESETS or value.isdigit()):
                table.deadline = value
            elif key == "expert" and value in ("on", "off"):
                table.expert = value == "on"
            elif key == "secrecy" and value in SECRECY_SETTINGS:
                table.secrecy = value
            elif key == "lang" and value in LANGS:
                table.lang = value
            elif key == "size" and value.isdigit() and max(MIN_PLAYERS, table.seated) <= int(value) <= MAX_PLAYERS:
                table.size = int(value)
            elif key == "tz" and (zone or value == "default"):
                table.tz = zone
            else:
                raise LobbyError("bad_setting", table)

        return self.change(code, set_)

    def begin(self, code: str, by: str | None) -> Started:
        """Deal the seats and start the game through the pipeline. ``by`` must be the creator (None: the table
        filled up). LobbyError: unknown, begun, not_creator, too_few."""

        def deal(table):
            if table.game:
                if table.seats and self.ctx.store.load(table.game) is None:
                    return  # dealt, but the game was never created: finish the start below
                raise LobbyError("begun", table)
            if by is not None and by != table.creator:
                raise LobbyError("not_creator", table)
            seats = max(table.size or 0, table.seated)
            if len(table.players) < 1 or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
                raise LobbyError("too_few", table)
            creature = table.player(table.creature) if table.creature else None
            if not table.bot_creature:
                creature = creature or table.players[self.rng.randrange(len(table.players))]
            bots = seats - len(table.players) - (1 if creature is None else 0)
            others = [p.address for p in table.players if p is not creature] + [None] * bots
            self.rng.shuffle(others)
            table.seats = {a: s for s, a in enumerate(others, 1) if a is not None}
            if creature is not None:
                table.seats[creature.address] = 0
            table.seed = self.rng.randrange(2**31)
            table.game = table.code

        table = self.change(code, deal)
        self._start(table)
        creature = next((p for p in table.players if table.seats[p.address] == 0), None)
        return Started(table, dict(table.seats), creature)

    def solo(self, player: Player, lang: str, players: int, as_creature: bool, level: str) -> Started:
        """A game of one person against bots of ``level`` in every other seat, begun at once: the person is the
        Creature (``as_creature``) or a Hunted (a bot is the Creature). LobbyError: too_many, too_few, bad_level."""
        if level not in BOT_LEVELS:
            raise LobbyError("bad_level")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise LobbyError("too_few")
        table = self.open(player, lang, size=players, deadline="live")

        def seat_bots(table):
            table.bots = [level] * (players - 1)
            table.creature = player.address if as_creature else None
            table.bot_creature = not as_creature

        self.change(table.code, seat_bots)
        return self.begin(table.code, player.address)

    def _start(self, table: Table) -> None:
        game = table.game
        if game is None:
            raise ValueError(f"table {table.code} has not begun: it has no game to start")
        size = max(table.size or 0, table.seated)
        players = {str(s): {"name": f"Bot {s}", "chat": None, "user": None} for s in range(size)}
        for p in table.players:
            players[str(table.seats[p.address])] = p.seat_entry()
        bots = [s for s in range(size) if players[str(s)]["chat"] is None]
        levels = dict(zip((str(s) for s in bots), table.bots))  # the bots added; any other seat auto-plays
        meta = {
            "players": players,
            "group": table.place,
            "code": table.code,
            "creator": table.creator,  # who may /reveal the hidden choices once it is over, table or no table
            "lang": table.lang,
            "bots": bots,
            **({"bot_levels": levels} if levels else {}),
            "deadline_seconds": deadline_seconds(table.deadline, self.ctx.settings.min_deadline_seconds),
            **({"tz": table.tz} if table.tz else {}),
        }
        config = {"players": size, "seed": table.seed, "side": None, "expert": table.expert, "secrecy": table.secrecy}
        try:
            start_game(self.ctx, game, config, meta)
        except GameExists:
            pass  # a retried start: the game is there already

    def close(self, table: Table) -> None:
        """Forget a table (cancelled, or everyone left); its place is free again."""
        self.redis.delete(keys.lobby_table(table.code))
        if table.place and self.redis.get(keys.lobby_place(table.place)) == table.code.encode():
            self.redis.delete(keys.lobby_place(table.place))
