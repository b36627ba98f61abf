"""A table's pauses and its players' absences: the pause and the votes for one, the seats whose players are away,
and the seats' auto-play streaks."""

from typing import cast

from service.store import keys
from service.store.base import StoreBase


class Pauses(StoreBase):
    """The `Store`'s part that pauses a table and marks its seats away."""

    def set_away(self, game_id: str, seat: int, until: float) -> None:
        self.at(game_id).hset(keys.away(game_id), seat, repr(until))

    def end_away(self, game_id: str, seat: int) -> float | None:
        """-> until when the seat was to be away (None: it was not)."""
        pipe = self.at(game_id).pipeline(transaction=True)
        pipe.hget(keys.away(game_id), seat)
        pipe.hdel(keys.away(game_id), seat)
        until, _ = pipe.execute()
        return float(until) if until else None

    def pause(self, game_id: str, now: float, until: float) -> tuple[str, float | None]:
        """Pause the table until ``until`` (`lua.PAUSE`). -> ("PAUSED", the open window's new deadline or None) |
        ("ALREADY", until when it is paused) | ("NOGAME" | "OVER", None)."""
        reply = self._pause(
            client=self.at(game_id),
            keys=[keys.snap(game_id), keys.pause(game_id), keys.pause_votes(game_id)],
            args=[repr(now), repr(until)],
        )
        return reply[0].decode(), (float(reply[1]) if len(reply) > 1 and reply[1] else None)

    def resume(self, game_id: str, now: float, until: float | None = None) -> tuple[str, float | None, float]:
        """End the pause (only the one until ``until``, when given). -> ("RESUMED", the open window's new deadline
        or None, until when the pause was to last) | ("NOTPAUSED", None, 0.0)."""
        reply = self._resume(
            client=self.at(game_id),
            keys=[keys.snap(game_id), keys.pause(game_id)],
            args=[repr(now), "" if until is None else repr(until)],
        )
        if reply[0] != b"RESUMED":
            return reply[0].decode(), None, 0.0
        return "RESUMED", float(reply[1]) if reply[1] else None, float(reply[2])

    def paused_until(self, game_id: str) -> float | None:
        raw = cast(bytes | None, self.at(game_id).hget(keys.pause(game_id), "until"))
        return float(raw) if raw else None

    def vote_pause(self, game_id: str, seat: int, seconds: int, ttl: int) -> dict[int, int]:
        """Record a player's vote for a pause of ``seconds`` (a vote again replaces it). -> every vote so far."""
        pipe = self.at(game_id).pipeline(transaction=True)
        pipe.hset(keys.pause_votes(game_id), seat, seconds)
        pipe.expire(keys.pause_votes(game_id), ttl)
        pipe.hgetall(keys.pause_votes(game_id))
        return {int(s): int(d) for s, d in pipe.execute()[2].items()}

    def set_streak(self, game_id: str, seat: int, n: int) -> None:
        self.at(game_id).hset(keys.autoplays(game_id), seat, n)
