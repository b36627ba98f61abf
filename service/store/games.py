"""The game store: snapshots with a version, the open window's answers, indexes and the atomic steps on them.

Knows Redis and the shape of our keys; knows nothing of the rules (the engine JSON is an opaque string here).
It routes each game's keys to the game's shard (`at`) and the global indexes to the index Redis (``redis``); with
no shards both are the one Redis. Every script touches one server: a game's keys and its shard's due set, or only
global keys.
"""

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import redis

from service.store import keys, lua

# A refresh job's pending mark outlives any queue wait but not a lost job: after that, answers queue a new one.
REFRESH_MARK_SECONDS = 120

# (answers, expected seats, auto-play streaks, meta) of the open window; (answer times, away until, paused until);
# (auto-play streaks, away until): the marks of the seats the bot plays for their players
WindowState = tuple[dict[int, list[dict]], set[int], dict[int, int], dict]
# (when each seat first answered the open window in person, until when each away seat is away, until when the table
# is paused or None, the seats whose latest answer of the window was typed in a chat of living messages)
Absence = tuple[dict[int, float], dict[int, float], float | None, set[int]]
Marks = tuple[dict[int, int], dict[int, float]]


@dataclass(frozen=True)
class Snapshot:
    """What the store holds about a game's current state and its open window."""

    game_id: str
    version: int
    window: int | None  # None once the game is over
    status: str  # "collecting" | "resolving" | "over"
    deadline: float
    opened: float
    closed: float | None
    followed: int  # the last version whose follow-ups (jobs, deliveries) are known to be done
    json: str
    news: str = ""  # the channels' running summary of the turn (JSON, opaque here), written by the commits

    @property
    def current_window(self) -> int:
        """The window being collected or resolved; a game that is over has none (ValueError)."""
        if self.window is None:
            raise ValueError(f"game {self.game_id} v{self.version} is {self.status}: it has no open window")
        return self.window


@dataclass(frozen=True)
class Commit:
    """One compare-and-set step: the game after resolving ``window`` (or the new game when version is 0)."""

    version: int
    window: int | None
    engine_json: str
    next_window: int | None
    status: str
    deadline: float
    now: float
    expected: list[int]
    prefilled: dict[int, list[dict]]
    streaks: dict[int, int]
    messages: list[dict]
    # applied in this step, in order (appended to the action log)
    actions: list[tuple[int, dict]] = field(default_factory=list)
    config: dict | None = None  # the game's config: written as the action log's first line (version 0 only)
    extra: dict[str, str] | None = None  # more snapshot fields to set (the group status message's news)
    # the players' tally of the resolved window (`service.pipeline.records`): counts to add, answer times to append
    tally: dict[str, int] = field(default_factory=dict)
    tally_text: dict[str, str] = field(default_factory=dict)
    due: float | None = None  # when the sweeper is to look at the game next (None: as it was)
    # the resolved window's timers to drop once it is committed: the scheduled-job registry's key, and each job's id
    # and hash key (`service.pipeline.scheduling.timers`)
    timers: tuple[str, list[str], list[str]] | None = None
    # the resolved window's status refresh job, if it is still queued (its queue's key, its id, its hash key;
    # `service.pipeline.scheduling.refresh_job`): moot once the window is resolved, since the step's messages show
    # every answer; dropped with the refresh mark, so that the next window's first answer queues a refresh again
    refresh: tuple[str, str, str] | None = None

    def after(self, game_id: str, version: int, followed: int = 0) -> Snapshot:
        """The snapshot this commit leaves behind as ``version`` (saves reading it back); ``followed``: the one it
        replaced had (a commit leaves it as it was)."""
        return Snapshot(
            game_id=game_id,
            version=version,
            window=self.next_window,
            status=self.status,
            deadline=self.deadline,
            opened=self.now,
            closed=self.now if self.status == "resolving" else None,
            followed=followed,
            json=self.engine_json,
            news=(self.extra or {}).get("news", ""),
        )


class NotReplicated(redis.exceptions.ConnectionError):
    """A write the primary took but too few replicas confirmed in time: not acknowledged (a ConnectionError, so
    the web answers 5xx and the sender retries, and a job is retried; every write here is idempotent)."""


class Store:
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

    def _pipelines(self, game_id: str, transaction: bool = True) -> tuple[Any, Any]:
        """(a pipeline on the game's shard, one on the index): the same pipeline when they are one Redis, so that
        a write to both stays one step there."""
        game = self.at(game_id).pipeline(transaction=transaction)
        return game, game if self.at(game_id) is self.redis else self.redis.pipeline(transaction=transaction)

    # --- reading ---------------------------------------------------------------------------------------------

    def load(self, game_id: str) -> Snapshot | None:
        return _snapshot(game_id, self.at(game_id).hgetall(keys.snap(game_id)))

    def load_with_dedup(self, game_id: str, dedup_id: str | None) -> tuple[Snapshot | None, bool]:
        """The snapshot, and whether ``dedup_id`` was already recorded (for the open window or the one closed
        last), in one round trip. A True here is not yet an acknowledgement: see `recorded`."""
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hgetall(keys.snap(game_id))
        pipe.sismember(keys.dedup(game_id), dedup_id or "-")
        pipe.sismember(keys.dedup_previous(game_id), dedup_id or "-")
        raw, seen, seen_before = pipe.execute()
        return _snapshot(game_id, raw), bool(dedup_id) and bool(seen or seen_before)

    def recorded(self, game_id: str, dedup_id: str) -> bool:
        """Whether the answer ``dedup_id`` was recorded, for the open window or the one closed last — confirmed
        like the answer itself (with ``ack_replicas``, only once a replica has it: NotReplicated otherwise), so
        that telling a retried delivery "it counted" is as safe as the first delivery's reply would have been."""
        reply = self._acknowledged(
            self.at(game_id),
            self._recorded,
            keys=[keys.dedup(game_id), keys.dedup_previous(game_id)],
            args=[dedup_id, self.dedup_ttl],
        )
        return bool(reply)

    def load_with_meta(self, game_id: str) -> tuple[Snapshot | None, dict]:
        """The snapshot and the game's metadata (players, table), in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        read_with_meta(pipe, game_id)
        return with_meta(game_id, pipe.execute())

    def window_state(self, game_id: str) -> WindowState:
        """(answers, expected seats, auto-play streaks, meta) of the open window, in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        _read_window_state(pipe, game_id)
        return _window_state(pipe.execute())

    def absence(self, game_id: str) -> Absence:
        """`Absence`, in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        _read_absence(pipe, game_id)
        return _absence(pipe.execute())

    def resolution_inputs(self, game_id: str) -> tuple[Snapshot | None, WindowState, Absence]:
        """What a resolution reads — the snapshot, `window_state` and `absence` — in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hgetall(keys.snap(game_id))
        _read_window_state(pipe, game_id)
        _read_absence(pipe, game_id)
        replies = pipe.execute()
        return _snapshot(game_id, replies[0]), _window_state(replies[1:5]), _absence(replies[5:])

    def taken_marks(self, game_id: str) -> Marks:
        """(auto-play streaks, until when each away seat is away), in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hgetall(keys.autoplays(game_id))
        pipe.hgetall(keys.away(game_id))
        streaks, away = pipe.execute()
        return {int(s): int(n) for s, n in streaks.items()}, {int(s): float(t) for s, t in away.items()}

    def tally(self, game_id: str) -> dict[str, str]:
        raw = cast(dict[bytes, bytes], self.at(game_id).hgetall(keys.tally(game_id)))
        return {k.decode(): v.decode() for k, v in raw.items()}

    def answers(self, game_id: str) -> dict[int, list[dict]]:
        raw = self.at(game_id).hgetall(keys.answers(game_id))
        return {int(seat): json.loads(answer) for seat, answer in raw.items()}

    def cancelled_at(self, game_id: str) -> float | None:
        """When the game was cancelled (`service.pipeline.cancelling`), or None: it was not."""
        at = self.at(game_id).hget(keys.snap(game_id), "cancelled")
        return float(at) if at is not None else None

    def expected(self, game_id: str) -> set[int]:
        return {int(seat) for seat in self.at(game_id).smembers(keys.expected(game_id))}

    def streaks(self, game_id: str) -> dict[int, int]:
        return {int(seat): int(n) for seat, n in self.at(game_id).hgetall(keys.autoplays(game_id)).items()}

    def meta(self, game_id: str) -> dict:
        raw = self.at(game_id).hget(keys.meta(game_id), "json")
        return json.loads(raw) if raw else {}

    def action_log(self, game_id: str) -> tuple[dict | None, list[tuple[int, dict]]]:
        """(config, [(seat, action), ...]): every action applied to the game so far, in order."""
        raw = self.at(game_id).lrange(keys.actions(game_id), 0, -1)
        if not raw:
            return None, []
        return json.loads(raw[0]), [tuple(json.loads(line)) for line in raw[1:]]

    def resolution_log(self, game_id: str) -> list[str]:
        return [entry.decode() for entry in cast(list[bytes], self.at(game_id).lrange(keys.log(game_id), 0, -1))]

    # --- the atomic steps ------------------------------------------------------------------------------------

    def submit(
        self,
        game_id: str,
        window: int,
        seat: int,
        actions: list[dict],
        dedup_id: str | None,
        now: float,
        due: float | None = None,
        by_bot: bool = False,
        typed: bool = False,
    ) -> tuple[str, int, bool, bool]:
        """Record (or replace) a seat's answer for the open window. -> (status, seats still missing, whether the
        answer asked for a status refresh, whether the player's own answer ended their absence: they said they were
        away, and are back). The answer that completes the window also makes the game due for the
        sweeper at ``due`` (default: ``now``). One that does not (ACCEPTED) notes that the next status refresh is to
        show it; True when no refresh job was pending: the caller queues one then (or `drop_refresh`).
        ``by_bot``: the bot answers for the seat's player (their streak, absence and answer time stay as they are);
        ``typed``: the player typed it in a chat of living messages (its reply comes below the turn message)."""
        status, missing, *rest = self._acknowledged(
            self.at(game_id),
            self._submit,
            keys=[
                keys.snap(game_id),
                keys.expected(game_id),
                keys.answers(game_id),
                keys.autoplays(game_id),
                keys.dedup(game_id),
                keys.DUE,
                keys.away(game_id),
                keys.answered_at(game_id),
                keys.refresh_seats(game_id),
                keys.refresh_mark(game_id),
            ],
            args=[
                window,
                seat,
                json.dumps(actions),
                dedup_id or "",
                self.dedup_ttl,
                repr(now),
                repr(now if due is None else due),
                game_id,
                "1" if by_bot else "0",
                REFRESH_MARK_SECONDS,
                "1" if typed else "0",
            ],
        )
        asked, back = (rest + [0, 0])[:2]
        return status.decode(), int(missing), bool(asked), bool(back)

    def close_at_deadline(self, game_id: str, window: int, now: float) -> tuple[str, float | None]:
        """Flip the window to resolving if its deadline has passed. -> ("CLOSED"|"EARLY"|"NOOP", deadline)."""
        reply = self._close(client=self.at(game_id), keys=[keys.snap(game_id)], args=[window, repr(now)])
        return reply[0].decode(), (float(reply[1]) if len(reply) > 1 else None)

    def commit(self, game_id: str, c: Commit) -> int:
        """Compare-and-set the game from ``c.version`` to the next one. -> new version, or 0 if it lost."""
        return self.commit_with_marks(game_id, c)[0]

    def commit_with_marks(self, game_id: str, c: Commit) -> tuple[int, dict[int, int], dict[int, float]]:
        """`commit`, -> (new version or 0, and the auto-play streaks and the away seats as it left them, read in
        the same step: `taken_marks` without a round trip of its own)."""
        reply = self._acknowledged(
            self.at(game_id),
            self._commit,
            keys=[
                keys.snap(game_id),
                keys.expected(game_id),
                keys.answers(game_id),
                keys.autoplays(game_id),
                keys.log(game_id),
                keys.outbox(game_id, batch_for_version(c.version + 1)),
                keys.actions(game_id),
                keys.dedup(game_id),
                keys.dedup_previous(game_id),
                keys.answered_at(game_id),
                keys.tally(game_id),
                keys.DUE,
                keys.away(game_id),
                *lane_keys(game_id, c.messages),
                *([c.timers[0], *c.timers[2]] if c.timers else []),
                *(
                    [keys.refresh_mark(game_id), keys.refresh_seats(game_id), c.refresh[0], c.refresh[2]]
                    if c.refresh
                    else []
                ),
            ],
            args=[
                c.version,
                "" if c.window is None else c.window,
                c.engine_json,
                "" if c.next_window is None else c.next_window,
                c.status,
                repr(c.deadline),
                repr(c.now),
                json.dumps(c.expected),
                json.dumps({str(s): json.dumps(a) for s, a in c.prefilled.items()}),
                json.dumps({str(s): n for s, n in c.streaks.items()}),
                json.dumps([json.dumps(m) for m in c.messages]),
                self.outbox_ttl,
                json.dumps(
                    ([json.dumps(c.config, sort_keys=True)] if c.config is not None else [])
                    + [json.dumps([s, a], sort_keys=True) for s, a in c.actions]
                ),
                json.dumps(c.extra or {}),
                json.dumps(lane_entries(batch_for_version(c.version + 1), c.messages)),
                json.dumps(c.tally),
                json.dumps(c.tally_text),
                "" if c.due is None else repr(c.due),
                game_id,
                json.dumps(c.timers[1] if c.timers else []),
                c.refresh[1] if c.refresh else "",
            ],
        )
        if not isinstance(reply, list):
            return int(reply), {}, {}
        version, streaks, away = reply
        return int(version), _marks(streaks, int), _marks(away, float)

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

    def drop_refresh(self, game_id: str) -> None:
        """No refresh job after all (nothing to refresh)."""
        self.at(game_id).delete(keys.refresh_mark(game_id), keys.refresh_seats(game_id))

    def take_refresh(self, game_id: str) -> set[int]:
        """A refresh job starts: the pending mark is cleared (an answer from now on queues a new job) and the seats
        to show are taken, in one step, before the job reads the game."""
        pipe = self.at(game_id).pipeline(transaction=True)
        pipe.delete(keys.refresh_mark(game_id))
        pipe.smembers(keys.refresh_seats(game_id))
        pipe.delete(keys.refresh_seats(game_id))
        return {int(seat) for seat in pipe.execute()[1]}

    def write_reminder(self, game_id: str, window: int, batch: str, messages: list[dict], once: str = "") -> bool:
        """Write a batch while ``window`` is open; a non-empty ``once`` is written at most once per window."""
        return bool(
            self._reminder(
                client=self.at(game_id),
                keys=[keys.snap(game_id), keys.outbox(game_id, batch), *lane_keys(game_id, messages)],
                args=[
                    window,
                    self.outbox_ttl,
                    once,
                    json.dumps(lane_entries(batch, messages)),
                    *[json.dumps(m) for m in messages],
                ],
            )
        )

    def write_batch(self, game_id: str, batch: str, messages: list[dict]) -> bool:
        """Write an outbox batch whole (a process killed midway leaves none of it), whatever the game's state.
        -> False when it is stored already."""
        return bool(
            self._write_batch(
                client=self.at(game_id),
                keys=[keys.outbox(game_id, batch), *lane_keys(game_id, messages)],
                args=[self.outbox_ttl, json.dumps(lane_entries(batch, messages)), *[json.dumps(m) for m in messages]],
            )
        )

    def slot_seq(self, game_id: str, chat: str, slot: str) -> int:
        """The newest seq delivered to a living message (-1: none yet)."""
        raw = cast(bytes | None, self.at(game_id).hget(keys.slot_seqs(game_id), f"{chat}|{slot}"))
        return int(raw) if raw else -1

    def extend_deadline(self, game_id: str, window: int, seconds: float) -> float | None:
        deadline = self._extend(client=self.at(game_id), keys=[keys.snap(game_id)], args=[window, repr(seconds)])
        return float(deadline) if deadline else None

    def heartbeat(self, now: float, shard: int = 0) -> float:
        """The sweeper of ``shard`` beats; -> seconds since the previous beat (0 on the first)."""
        return float(self._heartbeat(keys=[keys.HEARTBEAT], args=[repr(now)], client=self.shards[shard]))

    def heartbeat_age(self, now: float, shard: int = 0) -> float:
        """Seconds since the last beat of ``shard``'s sweeper (infinite when there was none)."""
        last = self.shards[shard].get(keys.HEARTBEAT)
        return now - float(last) if last else math.inf

    def take_send_token(
        self, chat: str, now: float, global_rate: float, global_cap: float, chat_rate: float, chat_cap: float
    ) -> float:
        """Take a token from the global and the chat bucket. -> 0 when allowed, else seconds to wait."""
        return float(
            self._take_token(
                keys=[keys.RATE_PAUSE, keys.RATE_GLOBAL, keys.rate_chat(chat)],
                args=[repr(now), global_rate, global_cap, chat_rate, chat_cap],
            )
        )

    def throttled(self, chat: str, now: float, seconds: float, window: float, chats: int) -> bool:
        """The channel answered a send to ``chat`` "retry after ``seconds``": that chat's sends wait. -> True when
        ``chats`` different chats were answered so within ``window`` seconds: every send waits (`lua.THROTTLED`)."""
        args: list[str | float] = [repr(now), seconds, window, chats]
        return bool(self._throttled(keys=[keys.rate_chat(chat), keys.RATE_THROTTLED, keys.RATE_PAUSE], args=args))

    # --- plain writes ----------------------------------------------------------------------------------------

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
        out = []
        for game_id in ids:
            seat = next(
                (int(s) for s, p in self.meta(game_id).get("players", {}).items() if str(p.get("user")) == user), None
            )
            if seat is not None:
                out.append((game_id, seat))
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

    # --- outbox ----------------------------------------------------------------------------------------------

    def batch_size(self, game_id: str, batch: str) -> int:
        return self.at(game_id).hlen(keys.outbox(game_id, batch))

    def message(self, game_id: str, batch: str, index: int) -> dict | None:
        raw = self.at(game_id).hget(keys.outbox(game_id, batch), index)
        return json.loads(raw) if raw else None

    def replace_message(self, game_id: str, batch: str, index: int, message: dict) -> None:
        """Rewrite a message still waiting on its lane (a held message folded into it, `outbox.hold`); the caller
        holds the lane, so no deliverer is sending it."""
        self.at(game_id).hset(keys.outbox(game_id, batch), str(index), json.dumps(message))

    def lane(self, game_id: str, chat: str) -> list["LaneEntry"]:
        """The messages still to send to ``chat``, in the order they were written."""
        raw = cast(list[bytes], self.at(game_id).lrange(keys.lane(game_id, chat), 0, -1))
        return [LaneEntry.parse(entry.decode()) for entry in raw]

    def lane_lengths(self, game_id: str, chats: list[str]) -> list[int]:
        """How many messages each chat's lane holds, in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        for chat in chats:
            pipe.llen(keys.lane(game_id, chat))
        return [int(n) for n in pipe.execute()] if chats else []

    def take_lane(self, game_id: str, chat: str, token: str, lease_ms: int) -> tuple[list["LaneEntry"] | None, int]:
        """Take the lease of a chat's lane for ``token`` and read the lane, in one round trip. -> (the lane, 0),
        or (None, the milliseconds left of the lease another deliverer holds; -1 or -2: none, it has just
        ended)."""
        lease = keys.lane_lock(game_id, chat)
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.set(lease, token, nx=True, px=lease_ms)
        pipe.lrange(keys.lane(game_id, chat), 0, -1)
        pipe.pttl(lease)
        taken, raw, left = pipe.execute()
        if not taken:
            return None, int(left)
        return [LaneEntry.parse(entry.decode()) for entry in raw], 0

    def renew_lane(self, game_id: str, chat: str, token: str, lease_ms: int) -> bool:
        """Renew the lease of a lane that ``token`` holds. -> False when it no longer does."""
        return bool(
            self._renew_lease(keys=[keys.lane_lock(game_id, chat)], args=[token, lease_ms], client=self.at(game_id))
        )

    def release_lane(self, game_id: str, chat: str, token: str) -> int:
        """Give back the lease of a lane (only ``token``'s own) and count what the lane holds now, in one round
        trip: a message queued just before the release is not stranded. -> the lane's length."""

        def queue(pipe) -> None:
            queue_script(pipe, self._release_lease, [keys.lane_lock(game_id, chat)], [token])
            pipe.llen(keys.lane(game_id, chat))

        return int(pipelined(self.at(game_id), queue, self._release_lease)[-1])

    def drop_from_lane(
        self,
        game_id: str,
        chat: str,
        entry: "LaneEntry",
        state: str | None = None,
        shown: tuple[str, str, int | None] | None = None,
        seq: tuple[str, int] | None = None,
        then: "LaneEntry | None" = None,
        release: str | None = None,
        replaced: bool = False,
    ) -> tuple[list["LaneEntry"], "HeadState | None"]:
        """The head of a lane is done: marked ``state`` here ("sent", or "failed"; None: marked already, `mark_sent`),
        with what its living message shows now (``shown``: slot, digest, news lines) and the newest seq delivered
        to it (``seq``: slot, seq), and off the lane with the record of its failed tries; ``then``: the entry that
        becomes the head, whose state (`head_state`) is read after these writes; ``release``: the deliverer's
        token, to give its lease back before the lane is read (`release_lane`); ``replaced``: the head was skipped
        for a newer version, and its record stays (a hold it began bounds the newer version's, `HeadState`).
        -> (the lane left, the state of ``then`` or None). One round trip for all (run again whole on NOSCRIPT:
        every part may be)."""

        def queue(pipe) -> None:
            if shown is not None:
                self._set_shown_on(pipe, game_id, chat, *shown)
            if seq is not None:
                queue_script(
                    pipe, self._raise_seq, [keys.slot_seqs(game_id)], [f"{chat}|{seq[0]}", seq[1], self.outbox_ttl]
                )
            if state is not None:
                queue_script(pipe, self._mark_done, *self._marking(game_id, entry.batch, entry.index, state))
            pipe.lrem(keys.lane(game_id, chat), 1, entry.raw)
            if not replaced:
                pipe.hdel(keys.lane_failures(game_id), chat)
            if release is not None:
                queue_script(pipe, self._release_lease, [keys.lane_lock(game_id, chat)], [release])
            pipe.lrange(keys.lane(game_id, chat), 0, -1)
            if then is not None:
                _queue_head_state(pipe, game_id, chat, then)

        replies = pipelined(self.at(game_id), queue, self._mark_done, self._raise_seq, self._release_lease)
        if then is None:
            return [LaneEntry.parse(raw.decode()) for raw in replies[-1]], None
        left = replies[-1 - HEAD_STATE_READS]
        return [LaneEntry.parse(raw.decode()) for raw in left], _head_state(replies[-HEAD_STATE_READS:], then)

    def head_state(self, game_id: str, chat: str, head: "LaneEntry") -> "HeadState":
        """Everything a deliverer holding the lane reads of its head before sending it, in one round trip."""
        pipe = self.at(game_id).pipeline(transaction=False)
        _queue_head_state(pipe, game_id, chat, head)
        return _head_state(pipe.execute(), head)

    def set_lane_failures(self, game_id: str, chat: str, head: "LaneEntry", failures: int, not_before: float) -> None:
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hset(keys.lane_failures(game_id), chat, f"{head.raw}|{failures}|{not_before!r}")
        pipe.expire(keys.lane_failures(game_id), self.outbox_ttl)
        pipe.execute()

    def shown(self, game_id: str, chat: str, slot: str) -> str | None:
        """The digest of what a living message shows (None: not known)."""
        raw = cast(bytes | None, self.at(game_id).hget(keys.shown(game_id), f"{chat}|{slot}"))
        return raw.decode() if raw else None

    def set_shown(self, game_id: str, chat: str, slot: str, digest: str, news_lines: int | None = None) -> None:
        """What a living message shows now: its digest, and how many of its first lines are news."""
        pipe = self.at(game_id).pipeline(transaction=False)
        self._set_shown_on(pipe, game_id, chat, slot, digest, news_lines)
        pipe.execute()

    def _set_shown_on(self, pipe, game_id: str, chat: str, slot: str, digest: str, news_lines: int | None) -> None:
        pipe.hset(keys.shown(game_id), f"{chat}|{slot}", digest)
        if news_lines is not None:
            pipe.hset(keys.shown(game_id), f"{chat}|{slot}|news", news_lines)
        pipe.expire(keys.shown(game_id), self.outbox_ttl)

    def shown_news_lines(self, game_id: str, chat: str, slot: str) -> int:
        """How many news lines a living message shows (0: none, or never sent)."""
        return int(cast(bytes | None, self.at(game_id).hget(keys.shown(game_id), f"{chat}|{slot}|news")) or 0)

    def prefix(self, game_id: str, chat: str, slot: str) -> list[str]:
        """The lines folded into a living message (`service.pipeline.outbox.fold`), shown above its own."""
        raw = cast(bytes | None, self.at(game_id).hget(keys.shown(game_id), f"{chat}|{slot}|prefix"))
        return json.loads(raw)["lines"] if raw else []

    def note_unclosed(self, game_id: str, chat: str, slot: str, message: dict) -> None:
        """A closed status message folded into the next one (`service.pipeline.outbox.fold`) whose chat shows an
        older version of it, still waiting for somebody: kept, for the game's last step to send (`unclosed`)."""
        if self.shown(game_id, chat, slot) is None:
            return  # never shown: nothing on the chat waits
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hset(keys.shown(game_id), f"{chat}|{slot}|unclosed", json.dumps(message))
        pipe.expire(keys.shown(game_id), self.outbox_ttl)
        pipe.execute()

    def unclosed(self, game_id: str) -> list[dict]:
        """The closed status messages `note_unclosed` kept (sent twice, the second is "unchanged")."""
        fields = cast(dict[bytes, bytes], self.at(game_id).hgetall(keys.shown(game_id)))
        return [json.loads(value) for field, value in sorted(fields.items()) if field.endswith(b"|unclosed")]

    def add_prefix(self, game_id: str, chat: str, slot: str, source: str, lines: list[str]) -> None:
        """Fold ``lines`` (of the message ``source``) into a living message's prefix, once per source."""
        field = f"{chat}|{slot}|prefix"
        raw = cast(bytes | None, self.at(game_id).hget(keys.shown(game_id), field))
        prefix = json.loads(raw) if raw else {"from": [], "lines": []}
        if source in prefix["from"]:
            return
        prefix = {"from": prefix["from"] + [source], "lines": prefix["lines"] + lines}
        pipe = self.at(game_id).pipeline(transaction=False)
        pipe.hset(keys.shown(game_id), field, json.dumps(prefix))
        pipe.expire(keys.shown(game_id), self.outbox_ttl)
        pipe.execute()

    def batch_chats(self, game_id: str, batch: str) -> list[str]:
        """The chats a stored batch writes to, in the order of its messages."""
        raw = cast(dict[bytes, bytes], self.at(game_id).hgetall(keys.outbox(game_id, batch)))
        ordered = sorted(raw.items(), key=lambda item: int(item[0]))
        return list(dict.fromkeys(json.loads(message)["chat"] for _, message in ordered))

    def mark_sent(self, game_id: str, batch: str, index: int, state: str = "sent") -> bool:
        """Mark one message done ("sent", or "failed": given up); -> True when that completed its batch, which
        is then deleted with its markers (unless the store keeps sent batches)."""
        script_keys, args = self._marking(game_id, batch, index, state)
        return bool(self._mark_done(keys=script_keys, args=args, client=self.at(game_id)))

    def _marking(self, game_id: str, batch: str, index: int, state: str) -> tuple[list, list]:
        """The keys and arguments of the script that marks a message done (`lua.MARK_DONE`)."""
        script_keys = [keys.outbox(game_id, batch), keys.sent(game_id, batch, index)]
        return script_keys, [state, self.outbox_ttl, keys.sent(game_id, batch, ""), int(self.keep_sent)]

    def send_state(self, game_id: str, batch: str, index: int) -> str | None:
        state = cast(bytes | None, self.at(game_id).get(keys.sent(game_id, batch, index)))
        return state.decode() if state else None


@dataclass(frozen=True)
class HeadState:
    """What a deliverer reads of a lane's head before sending it (`Store.head_state`)."""

    message: dict | None
    state: str | None  # "sent" | "failed" once done
    slot_seq: int  # the newest seq delivered to its living message (-1: none, or not a living message)
    shown: str | None  # the digest of what its living message shows
    prefix: list[str]  # the lines folded into its living message
    failures: tuple[int, float]  # (failed tries, not before when) of this head
    # when the hold of an earlier version of the head's living message ends, if one was held and then replaced
    # (0.0: none): a newer version that asks nothing waits no longer than that
    slot_hold: float = 0.0


HEAD_STATE_READS = 5  # the replies `_queue_head_state` queues


def _queue_head_state(pipe: Any, game_id: str, chat: str, head: "LaneEntry") -> None:
    """Queue the reads of `Store.head_state` (``HEAD_STATE_READS`` replies, for `_head_state`)."""
    living = f"{chat}|{head.slot}"
    pipe.hget(keys.outbox(game_id, head.batch), head.index)
    pipe.get(keys.sent(game_id, head.batch, head.index))
    pipe.hget(keys.slot_seqs(game_id), living)
    pipe.hmget(keys.shown(game_id), living, f"{living}|prefix")
    pipe.hget(keys.lane_failures(game_id), chat)


def _head_state(replies: list, head: "LaneEntry") -> "HeadState":
    message, state, seq, (shown, prefix), failures = replies
    return HeadState(
        message=json.loads(message) if message else None,
        state=state.decode() if state else None,
        slot_seq=int(seq) if seq else -1,
        shown=shown.decode() if shown else None,
        prefix=json.loads(prefix)["lines"] if prefix else [],
        failures=_failures(failures, head),
        slot_hold=_slot_hold(failures, head),
    )


def _record(raw: bytes | None) -> tuple[str, int, float]:
    """(the entry, its failed tries, not before when) of a lane's failure record ("", 0, 0.0: none)."""
    if not raw:
        return "", 0, 0.0
    entry, _, rest = raw.decode().rpartition("|")
    entry, _, failures = entry.rpartition("|")
    return entry, int(failures), float(rest)


def _failures(raw: bytes | None, head: "LaneEntry") -> tuple[int, float]:
    """(failed tries, not before when) from a lane's failure record, when it is that of ``head``; else (0, 0.0)."""
    entry, failures, not_before = _record(raw)
    return (failures, not_before) if entry == head.raw else (0, 0.0)


def _slot_hold(raw: bytes | None, head: "LaneEntry") -> float:
    """When the hold recorded for another version of ``head``'s living message ends (a hold is a wait with no
    failure; a replaced version's record stays on the lane, `Store.drop_from_lane`), else 0.0."""
    entry, failures, not_before = _record(raw)
    if not entry or entry == head.raw or not head.slot or failures:
        return 0.0
    return not_before if LaneEntry.parse(entry).slot == head.slot else 0.0


@dataclass(frozen=True)
class LaneEntry:
    """One message on its chat's lane: ``"<batch>|<index>|<slot>|<seq>"`` (slot and seq empty when it has none),
    so that a deliverer sees which versions of a living message wait behind the head without reading them."""

    batch: str
    index: int
    slot: str
    seq: int | None

    @property
    def raw(self) -> str:
        return f"{self.batch}|{self.index}|{self.slot}|{'' if self.seq is None else self.seq}"

    @classmethod
    def parse(cls, raw: str) -> "LaneEntry":
        batch, index, slot, seq = raw.split("|")
        return cls(batch, int(index), slot, int(seq) if seq else None)


def read_with_meta(pipe: Any, game_id: str) -> None:
    """Queue `Store.load_with_meta`'s reads on a caller's pipeline (two replies: `with_meta` reads them)."""
    pipe.hgetall(keys.snap(game_id))
    pipe.hget(keys.meta(game_id), "json")


def with_meta(game_id: str, replies: list) -> tuple[Snapshot | None, dict]:
    raw, meta = replies
    return _snapshot(game_id, raw), json.loads(meta) if meta else {}


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


def lane_entries(batch: str, messages: list[dict]) -> list[str]:
    return [
        LaneEntry(batch, i, m.get("slot") or "", None if m.get("seq") is None else int(m["seq"])).raw
        for i, m in enumerate(messages)
    ]


def lane_keys(game_id: str, messages: list[dict]) -> list[str]:
    return [keys.lane(game_id, m["chat"]) for m in messages]


def batch_for_version(version: int) -> str:
    return f"v{version}"


def _execute(*pipelines: Any) -> list:
    """Run each distinct pipeline in order (`Store._pipelines`) -> the first one's replies."""
    replies = [pipe.execute() for pipe in dict.fromkeys(pipelines)]
    return replies[0]


def _marks(flat: list, kind: Callable) -> dict:
    """A hash read by a script (a flat list of fields and values) -> {seat: value}."""
    return {int(flat[i]): kind(flat[i + 1]) for i in range(0, len(flat), 2)}


def _read_window_state(pipe: Any, game_id: str) -> None:
    pipe.hgetall(keys.answers(game_id))
    pipe.smembers(keys.expected(game_id))
    pipe.hgetall(keys.autoplays(game_id))
    pipe.hget(keys.meta(game_id), "json")


def _window_state(replies: list) -> WindowState:
    answers, expected, streaks, meta = replies
    return (
        {int(s): json.loads(a) for s, a in answers.items()},
        {int(s) for s in expected},
        {int(s): int(n) for s, n in streaks.items()},
        json.loads(meta) if meta else {},
    )


def _read_absence(pipe: Any, game_id: str) -> None:
    pipe.hgetall(keys.answered_at(game_id))
    pipe.hgetall(keys.away(game_id))
    pipe.hget(keys.pause(game_id), "until")


TYPED = b"typed:"  # an answered-at field: the seat's latest answer of the window was typed (`lua.SUBMIT`)


def _absence(replies: list) -> Absence:
    answered, away, paused = replies
    typed = {int(s[len(TYPED) :]) for s in answered if s.startswith(TYPED)}
    return (
        {int(s): float(t) for s, t in answered.items() if not s.startswith(TYPED)},
        {int(s): float(t) for s, t in away.items()},
        float(paused) if paused else None,
        typed,
    )


def _snapshot(game_id: str, raw: dict) -> Snapshot | None:
    if not raw:
        return None
    window = raw.get(b"window", b"")
    closed = raw.get(b"closed", b"")
    return Snapshot(
        game_id=game_id,
        version=int(raw[b"version"]),
        window=int(window) if window else None,
        status=raw[b"status"].decode(),
        deadline=float(raw[b"deadline"]),
        opened=float(raw[b"opened"]),
        closed=float(closed) if closed else None,
        followed=int(raw.get(b"followed", 0)),
        json=raw[b"json"].decode(),
        news=raw.get(b"news", b"").decode(),
    )
