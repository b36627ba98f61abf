"""What every part of the `Store` shares: its connections (the index Redis and the game shards, routed to by
`at`), the scripts registered on them, and the writes acknowledged by replicas (`NotReplicated`); also the pipelines
that run registered scripts in one round trip (`pipelined`)."""

from collections.abc import Callable
from typing import Any

import redis

from service.store import keys, lua


class NotReplicated(redis.exceptions.ConnectionError):
    """A write the primary took but too few replicas confirmed in time: not acknowledged (a ConnectionError, so
    the web answers 5xx and the sender retries, and a job is retried; every write here is idempotent)."""


class StoreBase:
    """``redis``: the index Redis (the global keys); ``shards``: the game shards (default: that one Redis)."""

    def __init__(
        self,
        connection: redis.Redis,
        outbox_ttl: int = 7 * 86400,
        dedup_ttl: int = 90000,
        keep_sent: bool = False,
        ack_replicas: int = 0,
        ack_timeout_ms: int = 1000,
        shards: list[redis.Redis] | None = None,
    ):
        self.redis = connection
        self.shards = list(shards) if shards else [connection]
        self.ack_replicas, self.ack_timeout_ms = ack_replicas, ack_timeout_ms
        self.keep_sent = keep_sent
        self.outbox_ttl = outbox_ttl
        self.dedup_ttl = dedup_ttl
        self._submit = connection.register_script(lua.SUBMIT)
        self._close = connection.register_script(lua.CLOSE_AT_DEADLINE)
        self._recorded = connection.register_script(lua.RECORDED)
        self._commit = connection.register_script(lua.COMMIT)
        self._reminder = connection.register_script(lua.WRITE_REMINDER)
        self._write_batch = connection.register_script(lua.WRITE_BATCH)
        self._extend = connection.register_script(lua.EXTEND_DEADLINE)
        self._heartbeat = connection.register_script(lua.HEARTBEAT)
        self._take_token = connection.register_script(lua.TAKE_SEND_TOKEN)
        self._throttled = connection.register_script(lua.THROTTLED)
        self._raise_seq = connection.register_script(lua.RAISE_SEQ)
        self._mark_done = connection.register_script(lua.MARK_DONE)
        self._renew_lease = connection.register_script(lua.RENEW_LEASE)
        self._release_lease = connection.register_script(lua.RELEASE_LEASE)
        self._pause = connection.register_script(lua.PAUSE)
        self._resume = connection.register_script(lua.RESUME)
        self._queue_ready = connection.register_script(lua.QUEUE_READY)
        self._take_ready = connection.register_script(lua.TAKE_READY)

    # --- routing ---------------------------------------------------------------------------------------------

    def shard_of(self, game_id: str) -> int:
        return keys.shard_of(game_id, len(self.shards))

    def at(self, game_id: str) -> redis.Redis:
        """The connection of the shard that holds ``game_id``'s keys."""
        return self.shards[self.shard_of(game_id)]

    # --- acknowledged writes ---------------------------------------------------------------------------------

    def _acknowledged(self, connection: redis.Redis, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a script on ``connection`` (a game's shard); with ``ack_replicas``, on one connection followed by a
        WAIT for that many replicas (WAIT counts the writes of its own connection), raising NotReplicated when they
        do not confirm within ``ack_timeout_ms``. Used for the writes a player or a step's messages rely on: a
        recorded answer (the scripts write even for a duplicate, so a retried delivery waits for the first one) and
        a step's commit (whose messages go out only once a failover cannot undo it)."""
        if self.ack_replicas <= 0:
            return script(keys=keys, args=args, client=connection)

        def queue(pipe: Any) -> None:
            queue_script(pipe, script, keys, args)
            pipe.wait(self.ack_replicas, self.ack_timeout_ms)

        reply, confirmed = pipelined(connection, queue, script)
        if int(confirmed) < self.ack_replicas:
            wanted, within = self.ack_replicas, self.ack_timeout_ms
            raise NotReplicated(f"{confirmed} of {wanted} replicas confirmed within {within} ms")
        return reply

    def replicated(self) -> None:
        """A barrier: every write made so far, by any connection of this process, is on ``ack_replicas`` replicas
        of each Redis (the index and the game shards), else NotReplicated. A replica applies the primary's writes
        in their order, so one that has a write made now has every write made before it; a WAIT alone counts only
        its own connection's writes. The inbound webhooks pass it before they confirm a message (a STOP, a JOIN,
        a setting): acknowledged means replicated for every change, not only for answers. No-op without the
        setting."""
        if self.ack_replicas <= 0:
            return
        for connection in {id(c): c for c in (self.redis, *self.shards)}.values():
            pipe = connection.pipeline(transaction=False)
            pipe.incr(keys.REPLICATION_MARK)
            pipe.wait(self.ack_replicas, self.ack_timeout_ms)
            confirmed = int(pipe.execute()[1])
            if confirmed < self.ack_replicas:
                wanted, within = self.ack_replicas, self.ack_timeout_ms
                raise NotReplicated(f"{confirmed} of {wanted} replicas confirmed within {within} ms")


def queue_script(pipe: Any, script: Any, keys: list, args: list) -> None:
    """Queue a registered script on a pipeline by its SHA alone, for `pipelined`. (redis-py's own way,
    ``script(client=pipe)``, makes every execute of the pipeline ask the server first whether its scripts exist:
    a round trip more each time.)"""
    pipe.evalsha(script.sha, len(keys), *keys, *args)


def pipelined(connection: redis.Redis, queue: Callable[[Any], None], *scripts: Any) -> list:
    """Run the commands ``queue(pipeline)`` queues (its scripts with `queue_script`) in one round trip. Should
    the server not know a script (restarted, failed over: NOSCRIPT), they are loaded and the commands run again:
    only for commands that may, such as reads and a script's WAIT (a script refused with NOSCRIPT ran nothing)."""
    pipe = connection.pipeline(transaction=False)
    queue(pipe)
    try:
        return pipe.execute()
    except redis.exceptions.NoScriptError:
        for script in scripts:
            script.sha = connection.script_load(script.script)
    pipe = connection.pipeline(transaction=False)
    queue(pipe)
    return pipe.execute()
