"""When each game is looked at: the due set each shard's sweeper reads and its heartbeat, and the ready set of
windows waiting for a resolving job, with the leases of those jobs."""

import math
from typing import cast

from service.store import keys
from service.store.base import StoreBase


class Schedule(StoreBase):
    """The `Store`'s part that says which games are due and which windows wait to be resolved."""

    def mark_followed(self, game_id: str, version: int, due: float | None) -> None:
        """Record that ``version``'s follow-ups are done, and when the sweeper should look next (None: never)."""
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hset(keys.snap(game_id), "followed", version)
        if due is None:
            pipe.zrem(keys.DUE, game_id)
        else:
            pipe.zadd(keys.DUE, {game_id: due})
        pipe.execute()

    def set_due(self, game_id: str, when: float) -> None:
        self.at(game_id).zadd(keys.DUE, {game_id: when})

    def drop_due(self, game_id: str) -> None:
        self.at(game_id).zrem(keys.DUE, game_id)

    def heartbeat(self, now: float, shard: int = 0) -> float:
        """The sweeper of ``shard`` beats; -> seconds since the previous beat (0 on the first)."""
        return float(self._heartbeat(keys=[keys.HEARTBEAT], args=[repr(now)], client=self.shards[shard]))

    def heartbeat_age(self, now: float, shard: int = 0) -> float:
        """Seconds since the last beat of ``shard``'s sweeper (infinite when there was none)."""
        last = self.shards[shard].get(keys.HEARTBEAT)
        return now - float(last) if last else math.inf

    # --- windows waiting for a resolving job (service.pipeline.scheduling.resolvers) -------------------------

    def queue_ready(self, shard: int, member: str, now: float, token: str, resolvers: int, lease_ms: int) -> int:
        """Note ``member`` ("<game> <window>"; "" for none) as ready to resolve on ``shard``, and take the first free
        lease of its ``resolvers`` resolving jobs for ``token``, in one round trip. -> the lease's index, or -1 when
        every lease is held (a job holding one takes the window) or nothing waits."""
        leases = [keys.READY] + [keys.resolver(n) for n in range(resolvers)]
        args: list[str | int] = [member, repr(now), token, lease_ms]
        return int(self._queue_ready(keys=leases, args=args, client=self.shards[shard]))

    def take_ready(
        self, shard: int, lease: int, token: str, lease_ms: int, keep: bool = False
    ) -> tuple[str, int, float] | None:
        """The window that has waited longest on ``shard``, taken off the ready set (lease ``lease`` renewed for
        ``token``). -> (game, window, when it was noted), or None when none waits: the lease is then given back,
        unless ``keep`` (renewed: the caller asks again when it has done what it still has to)."""
        lease_key = keys.resolver(lease)
        args: list[str | int] = [token, lease_ms, "1" if keep else ""]
        taken = self._take_ready(keys=[keys.READY, lease_key], args=args, client=self.shards[shard])
        if not taken:
            return None
        game_id, _, window = taken[0].decode().partition(" ")
        return game_id, int(window), float(taken[1])

    def release_resolver(self, shard: int, lease: int, token: str) -> None:
        self._release_lease(keys=[keys.resolver(lease)], args=[token], client=self.shards[shard])

    def ready_count(self, shard: int = 0) -> int:
        return int(self.shards[shard].zcard(keys.READY))

    def due_games(self, now: float, limit: int = 500, shard: int = 0) -> list[str]:
        """The games of ``shard`` due by ``now``."""
        due = self.shards[shard].zrangebyscore(keys.DUE, "-inf", now, start=0, num=limit)
        return [g.decode() for g in cast(list[bytes], due)]

    def open_games(self, shard: int = 0) -> list[str]:
        """Every game of ``shard`` the sweeper looks at some time (the open ones)."""
        return [g.decode() for g in cast(list[bytes], self.shards[shard].zrange(keys.DUE, 0, -1))]
