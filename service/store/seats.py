"""Who plays where: a game's players and bots (its meta), the indexes that name its games by player, group chat
and watch page, and the seats offered to stand-ins and handed over."""

import json
from typing import Any, cast

from service.store import keys
from service.store.base import StoreBase


class Seats(StoreBase):
    """The `Store`'s part that writes and reads who plays where."""

    def _pipelines(self, game_id: str, transaction: bool = True) -> tuple[Any, Any]:
        """(a pipeline on the game's shard, one on the index): the same pipeline when they are one Redis, so that
        a write to both stays one step there."""
        game = self.at(game_id).pipeline(transaction=transaction)
        return game, game if self.at(game_id) is self.redis else self.redis.pipeline(transaction=transaction)

    def meta(self, game_id: str) -> dict:
        raw = self.at(game_id).hget(keys.meta(game_id), "json")
        return json.loads(raw) if raw else {}

    def put_meta(self, game_id: str, meta: dict, now: float) -> None:
        """Record who plays where; also indexes player -> games (`keys.player_games`), chat -> game and the watch
        page's token -> game (sharded: the game first, then the index that names it)."""
        pipe, index = self._pipelines(game_id)
        pipe.hset(keys.meta(game_id), "json", json.dumps(meta))
        for player in meta["players"].values():
            if player.get("user"):
                index.zadd(keys.player_games(str(player["user"])), {game_id: now})
        if meta.get("group"):
            index.set(keys.chat_game(meta["group"]), game_id)
        if meta.get("watch"):
            index.set(keys.watch(meta["watch"]), game_id)
        _execute(pipe, index)

    def replace_meta(self, game_id: str, meta: dict) -> None:
        """Change who plays where in words (a player's new name) without touching the indexes."""
        self.at(game_id).hset(keys.meta(game_id), "json", json.dumps(meta))

    def offer_seat(self, token: str, game_id: str, seat: int, owner: str, ttl: int) -> bool:
        """Offer a seat, held by ``owner`` (its player's user, "" for the table's bot), to a stand-in under ``token``
        (-> False when the token is taken). The offer dies when the seat changes hands another way."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hsetnx(keys.standin(token), "game", game_id)
        pipe.hset(keys.standin(token), mapping={"seat": seat, "owner": owner})
        pipe.expire(keys.standin(token), ttl)
        return bool(pipe.execute()[0])

    def seat_offer(self, token: str) -> tuple[str, int] | None:
        raw = cast(dict[bytes, bytes], self.redis.hgetall(keys.standin(token)))
        return (raw[b"game"].decode(), int(raw[b"seat"])) if b"game" in raw and b"seat" in raw else None

    def swap_seat(
        self, game_id: str, seat: int, player: dict | None, now: float, token: str | None = None
    ) -> tuple[str, dict]:
        """Give ``seat`` to ``player`` (None: to the table's bot), in one transaction: the game's players and bots,
        the player -> games index of both, the seat's streak and absence, and the offer ``token`` (taken once).
        -> ("OK", the seat's player before) | ("GONE", {}) when the offer was taken or withdrawn meanwhile |
        ("SEATED", {}) when ``player`` already sits at the table. An offer made for the seat's player before it changed
        hands is gone.

        Sharded, the index's writes (the offer, the player -> games index) follow the game's transaction: two takers
        of one seat are still one (the seat's owner changed under the second, so its offer is gone), but a taker
        racing the offer's withdrawal may win it."""
        meta_key = keys.meta(game_id)
        shared = self.at(game_id) is self.redis
        watched = [meta_key, keys.actions(game_id)] + ([keys.standin(token)] if token and shared else [])
        then: list[Any] = []  # the index's writes, when they are not in the game's transaction

        def attempt(pipe):
            then.clear()
            offer = self.redis.hgetall(keys.standin(token)) if token else {}
            raw = pipe.hget(meta_key, "json")
            meta = json.loads(raw) if raw else {}
            players = meta.get("players", {})
            before = players.get(str(seat), {})
            offered = {
                b"game": game_id.encode(),
                b"seat": str(seat).encode(),
                b"owner": (before.get("user") or "").encode(),
            }
            if token and offer != offered:
                return "GONE", {}  # taken, withdrawn, or the seat is someone else's since the offer
            user = (player or {}).get("user")
            if user and any(str(p.get("user")) == str(user) for p in players.values()):
                return "SEATED", {}
            bots = set(meta.get("bots", []))
            # who held the seat until now, for a replay of the moves made so far (`watch.names_at`): the number
            # of actions applied when it changed hands (the log's first entry is the config)
            applied = max(0, cast(int, pipe.llen(keys.actions(game_id))) - 1)
            holders = meta.setdefault("holders", [])
            holders.append({"seat": seat, "name": before.get("name", ""), "until": applied})
            if player is None:
                players[str(seat)] = {"name": before.get("name", ""), "chat": None, "user": None}
                bots.add(seat)
            else:
                players[str(seat)] = player
                bots.discard(seat)
            meta["bots"] = sorted(bots)
            pipe.multi()
            pipe.hset(meta_key, "json", json.dumps(meta))
            pipe.hdel(keys.autoplays(game_id), seat)
            pipe.hdel(keys.away(game_id), seat)
            index = pipe if shared else self.redis.pipeline(transaction=True)
            if token:
                index.delete(keys.standin(token))
            if before.get("user"):
                index.zrem(keys.player_games(str(before["user"])), game_id)
            if user:
                index.zadd(keys.player_games(str(user)), {game_id: now})
            then.extend([] if shared else [index])
            return "OK", before

        done = self.at(game_id).transaction(attempt, *watched, value_from_callable=True)
        for index in then:
            index.execute()
        return cast(tuple[str, dict], done)

    def games_of_user(self, user: str) -> list[tuple[str, int]]:
        """(game, seat) of every game the player ``user`` (meta's "user") plays, the most recently begun first."""
        self._fold_old_indexes(user)
        ids = [g.decode() for g in cast(list[bytes], self.redis.zrevrange(keys.player_games(user), 0, -1))]
        out, gone = [], []
        for game_id in ids:
            meta = self.meta(game_id)
            if not meta:
                gone.append(game_id)  # kept no longer (`finished`): the index forgets it
                continue
            seat = next((int(s) for s, p in meta.get("players", {}).items() if str(p.get("user")) == user), None)
            if seat is not None:
                out.append((game_id, seat))
        if gone:
            self.redis.zrem(keys.player_games(user), *gone)
        return out

    def _fold_old_indexes(self, user: str) -> None:
        """Games indexed the old way (`keys.old_player_indexes`) join the player's one index, and the old keys go."""
        old = keys.old_player_indexes(user)
        if not self.redis.exists(*(key for _, key in old)):
            return
        games: dict[str, float] = {}
        for kind, key in old:
            if kind == "set":
                games.update({g.decode(): 0.0 for g in cast(set[bytes], self.redis.smembers(key))})
            elif kind == "zset":
                pairs = cast(list[tuple[bytes, float]], self.redis.zrange(key, 0, -1, withscores=True))
                games.update({g.decode(): score for g, score in pairs})
        pipe = self.redis.pipeline()
        if games:
            pipe.zadd(keys.player_games(user), games, gt=True)
        pipe.delete(*(key for _, key in old))
        pipe.execute()

    def game_of_watch(self, token: str) -> str | None:
        """The game whose watch page has this token (None: no such page)."""
        game_id = cast(bytes | None, self.redis.get(keys.watch(token)))
        return game_id.decode() if game_id else None

    def game_of_chat(self, chat: str) -> str | None:
        game_id = cast(bytes | None, self.redis.get(keys.chat_game(chat)))
        return game_id.decode() if game_id else None


def _execute(*pipelines: Any) -> list:
    """Run each distinct pipeline in order (`Store._pipelines`) -> the first one's replies."""
    replies = [pipe.execute() for pipe in dict.fromkeys(pipelines)]
    return replies[0]
