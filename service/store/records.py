"""The players' records across tables and each group's history of finished games (global keys, `keys.player_record`,
`keys.history`). A finished game is folded in once (`lua.RECORD_GAME`); what a record means is
`service.pipeline.records`'s."""

import json
from typing import cast

import redis

from service.store import keys, lua

HISTORY_KEEP = 50  # finished games kept per group or topic
RECORD_TIMES = 500  # answer times kept per player (the median is of these)


class Records:
    def __init__(self, connection: redis.Redis):
        self.redis = connection
        self._record = connection.register_script(lua.RECORD_GAME)

    def fold(self, game_id: str, place: str | None, entry: dict, players: dict[str, dict]) -> bool:
        """Add a finished game to the history of ``place`` and to each player's record ({user: {"add": {field: n},
        "times": [seconds]}}), once. -> False when it was folded before."""
        users = sorted(players)
        return bool(
            self._record(
                keys=[
                    keys.RECORDED,
                    keys.history(place or ""),
                    *[k for u in users for k in (keys.player_record(u), keys.player_times(u), keys.no_record(u))],
                ],
                args=[
                    game_id,
                    json.dumps(entry) if place else "",
                    HISTORY_KEEP,
                    RECORD_TIMES,
                    *[json.dumps(players[u]) for u in users],
                ],
            )
        )

    def record(self, user: str) -> tuple[dict[str, int], list[float]]:
        """(the counts, the answer times) of a player's record."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.player_record(user))
        pipe.lrange(keys.player_times(user), 0, -1)
        counts, times = pipe.execute()
        return {k.decode(): int(v) for k, v in counts.items()}, [float(t) for t in times]

    def opted_out(self, user: str) -> bool:
        return bool(self.redis.exists(keys.no_record(user)))

    def opt_out(self, user: str) -> None:
        """Delete the player's record and record nothing more for them (until `opt_in`)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.no_record(user), 1)
        pipe.delete(keys.player_record(user), keys.player_times(user))
        pipe.execute()

    def delete(self, user: str) -> None:
        self.redis.delete(keys.player_record(user), keys.player_times(user))

    def opt_in(self, user: str) -> None:
        self.redis.delete(keys.no_record(user))

    def history(self, place: str) -> list[dict]:
        return [json.loads(raw) for raw in cast(list[bytes], self.redis.lrange(keys.history(place), 0, -1))]

    def rewrite_history(self, place: str, edit) -> None:
        """Apply ``edit(entries) -> entries`` to a place's history atomically (WATCH: a game folded meanwhile is
        kept)."""
        key = keys.history(place)

        def attempt(pipe):
            entries = [json.loads(raw) for raw in pipe.lrange(key, 0, -1)]
            edited = edit(entries)
            pipe.multi()
            pipe.delete(key)
            if edited:
                pipe.rpush(key, *[json.dumps(e) for e in edited])

        self.redis.transaction(attempt, key)

    def forget_games(self, user: str, games: list[str]) -> None:
        """The player's index of games (`keys.player_games`) no longer names ``games``."""
        if games:
            self.redis.zrem(keys.player_games(user), *games)
