"""Lobbies opened by text message: ``NEW`` opens one and gives its join code, ``JOIN <code>`` takes a seat,
and the game starts through the pipeline (``workers.resolution.start_game``) when the table is full or its
creator says ``GO`` (bots take the empty seats).

A lobby is channel-neutral: a player is ``{"name", "chat", "user", "lang"}``, so another channel may seat its
own users with `Lobbies.join` too (an SMS player's chat is ``sms:<number>``). The code becomes the game id:
four characters from an alphabet without look-alikes, always with a letter and a digit, so a code never reads
as a command word or a place number. Seats are dealt at random when the game starts, and each phone number
is linked to its game and seat in the SMS directory, whoever's JOIN filled the table.

    artemia:sms:lobby:<code>   JSON of the lobby (kept after the start, marked started, to answer late JOINs)
"""

import json
import random
import secrets
from dataclasses import dataclass

import redis

from service.channels.sms_directory import Directory, number_of
from service.config import deadline_seconds
from workers.context import Context
from workers.resolution import start_game

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
MIN_PLAYERS, MAX_PLAYERS = 2, 7
LOBBY_TTL = 14 * 86400


def new_code() -> str:
    while True:
        code = "".join(secrets.choice(ALPHABET) for _ in range(4))
        if any(c.isdigit() for c in code) and any(c.isalpha() for c in code):
            return code


def looks_like_code(word: str) -> bool:
    """Four letters and digits with at least one of each: what a code looks like (even a mistyped one)."""
    return len(word) == 4 and word.isascii() and word.isalnum() and any(c.isdigit() for c in word) \
        and any(c.isalpha() for c in word)


@dataclass(frozen=True)
class Joined:
    status: str  # "joined" | "started" | "already" | "full" | "unknown" | "over"
    lobby: dict | None = None
    seats: dict[str, int] | None = None  # chat -> seat, once started


class Lobbies:
    def __init__(self, ctx: Context, directory: Directory, rng: random.Random | None = None):
        self.ctx = ctx
        self.directory = directory
        self.rng = rng or random.SystemRandom()  # deals the seats and seeds the game
        self.redis: redis.Redis = ctx.store.redis

    def get(self, code: str) -> dict | None:
        raw = self.redis.get(f"artemia:sms:lobby:{code.upper()}")
        return json.loads(raw) if raw else None

    def open(self, creator: dict, size: int, deadline: str, lang: str) -> dict:
        """A new lobby with its creator seated (size clamped to 2..7)."""
        size = min(MAX_PLAYERS, max(MIN_PLAYERS, size))
        while True:
            lobby = {"code": new_code(), "size": size, "deadline": deadline, "lang": lang, "players": [creator],
                     "started": False}
            if self.redis.set(f"artemia:sms:lobby:{lobby['code']}", json.dumps(lobby), nx=True, ex=LOBBY_TTL):
                return lobby

    def join(self, code: str, player: dict) -> Joined:
        """Seat the player; the game starts when this fills the table."""
        status, lobby = self._change(code, lambda lobby: _add(lobby, player))
        if status != "joined" or len(lobby["players"]) < lobby["size"]:
            return Joined(status, lobby)
        return self.start(code, player["chat"])

    def start(self, code: str, by_chat: str) -> Joined:
        """Start now, bots in the empty seats (only the creator may, unless the table is full)."""
        def mark(lobby):
            if lobby["started"]:
                return "over"
            if lobby["players"][0]["chat"] != by_chat and len(lobby["players"]) < lobby["size"]:
                return "not_creator"
            lobby["started"] = True
            return "started"

        status, lobby = self._change(code, mark)
        if status != "started":
            return Joined(status, lobby)
        seats = self._start_game(lobby)
        return Joined("started", lobby, seats)

    def _start_game(self, lobby: dict) -> dict[str, int]:
        order = list(range(lobby["size"]))
        self.rng.shuffle(order)
        players = {str(seat): {"name": f"Bot {seat}", "chat": None, "user": None} for seat in range(lobby["size"])}
        seats = {}
        for player, seat in zip(lobby["players"], order):
            players[str(seat)] = player
            seats[player["chat"]] = seat
        meta = {"players": players, "group": None, "lang": lobby["lang"], "code": lobby["code"],
                "deadline_seconds": deadline_seconds(lobby["deadline"], self.ctx.settings.min_deadline_seconds),
                "bots": [s for s in range(lobby["size"]) if players[str(s)]["chat"] is None]}
        config = {"players": lobby["size"], "seed": self.rng.randrange(10**9), "side": None, "expert": False}
        start_game(self.ctx, lobby["code"], config, meta)
        now = self.ctx.clock()
        for chat, seat in seats.items():
            if number_of(chat):
                self.directory.link(number_of(chat), lobby["code"], seat, now)
        return seats

    def _change(self, code: str, edit) -> tuple[str, dict | None]:
        """Apply ``edit(lobby) -> status`` atomically (WATCH/MULTI); the lobby is saved when the status is
        "joined" or "started"."""
        key = f"artemia:sms:lobby:{code.upper()}"

        def attempt(pipe):
            raw = pipe.get(key)
            if raw is None:
                return "unknown", None
            lobby = json.loads(raw)
            status = edit(lobby)
            if status in ("joined", "started"):
                pipe.multi()
                pipe.set(key, json.dumps(lobby), keepttl=True)
            return status, lobby

        return self.redis.transaction(attempt, key, value_from_callable=True)


def _add(lobby: dict, player: dict) -> str:
    if lobby["started"]:
        return "over"
    if any(p["chat"] == player["chat"] for p in lobby["players"]):
        return "already"
    if len(lobby["players"]) >= lobby["size"]:
        return "full"
    lobby["players"].append(player)
    return "joined"
