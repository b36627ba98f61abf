"""The game store's core: snapshots with a version, the open window's answers and the atomic steps on them
(answering, closing, committing); `Store` is that core joined to its parts (`seats`, `pauses`, `schedule`, `outbox`).

Knows Redis and the shape of our keys; knows nothing of the rules (the engine JSON is an opaque string here).
It routes each game's keys to the game's shard (`at`) and the global indexes to the index Redis (``redis``); with
no shards both are the one Redis. Every script touches one server: a game's keys and its shard's due set, or only
global keys. The parts are mixins of `base.StoreBase` that `Store` inherits from, so that every caller keeps one
``ctx.store.<method>`` and each part uses the same connections and scripts without a method that passes calls on.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from service.store import finished, keys
from service.store.codec import pack_message, pack_state, pack_text, unpack_state, unpack_text
from service.store.outbox import Outbox, batch_for_version, lane_entries, lane_keys
from service.store.pauses import Pauses
from service.store.schedule import Schedule
from service.store.seats import Seats

# The action log's lines without the spaces json.dumps puts after "," and ":" (they are ~15 % of an active
# game's keys; a line is read back with json.loads either way).
COMPACT = (",", ":")
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
    compacted: bool = False  # a finished game kept in its compacted form (`service.store.finished`)
    held: float | None = None  # the open window closes then, its awaited answers all in (`Settings.may_hold_seconds`)

    @property
    def closes_at(self) -> float:
        """When the open window closes unless answered before: its deadline, or the end of its hold."""
        return self.deadline if self.held is None else min(self.deadline, self.held)

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


class Store(Seats, Pauses, Schedule, Outbox):
    """A game's snapshots, answers and steps, and what its parts add (built as `StoreBase` says)."""

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

    def action_log(self, game_id: str) -> tuple[dict | None, list[tuple[int, dict]]]:
        """(config, [(seat, action), ...]): every action applied to the game so far, in order (a compacted game's
        from its snapshot)."""
        raw = cast(list[bytes], self.at(game_id).lrange(keys.actions(game_id), 0, -1))
        if not raw:
            raw = finished.action_lines(cast(dict[bytes, bytes], self.at(game_id).hgetall(keys.snap(game_id))))
        if not raw:
            return None, []
        return json.loads(raw[0]), [tuple(json.loads(line)) for line in raw[1:]]

    def compact(self, game_id: str, now: float, retention: float) -> str:
        """Keep a finished game in its compacted form until ``retention`` seconds after it ended
        (`finished.compact`). -> "compacted" | "waiting" | "not over" | "done" | "gone"."""
        return finished.compact(self.at(game_id), self.redis, game_id, now, retention)

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
        held: float | None = None,
        ahead: bool = False,
    ) -> tuple[str, int, bool, bool]:
        """Record (or replace) a seat's answer for the open window. -> (status, seats still missing, whether the
        answer asked for a status refresh, whether the player's own answer ended their absence: they said they were
        away, and are back). The answer that completes the window also makes the game due for the
        sweeper at ``due`` (default: ``now``). One that does not (ACCEPTED) notes that the next status refresh is to
        show it; True when no refresh job was pending: the caller queues one then (or `drop_refresh`).
        ``by_bot``: the bot answers for the seat's player (their streak, absence and answer time stay as they are);
        ``typed``: the player typed it in a chat of living messages (its reply comes below the turn message);
        ``ahead``: the answer leaves the seat a question ahead open (a replaced answer's mark goes with it);
        ``held``: when the answer completes the window while a seat's question ahead is open, keep the window open
        until then (HELD, answered as ACCEPTED with no seat missing; an earlier hold of the window stands, and one
        already over closes it: RESOLVE)."""
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
                "" if held is None else repr(held),
                "1" if ahead else "0",
            ],
        )
        asked, back = (rest + [0, 0])[:2]
        return status.decode(), int(missing), bool(asked), bool(back)

    def close_at_deadline(self, game_id: str, window: int, now: float) -> tuple[str, float | None]:
        """Flip the window to resolving if its deadline (or its hold's end) has passed. -> ("CLOSED"|"EARLY"|"NOOP",
        when it closes; for "CLOSED", None at its deadline, or the end of the hold that closed it)."""
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
                pack_state(c.engine_json),
                "" if c.next_window is None else c.next_window,
                c.status,
                repr(c.deadline),
                repr(c.now),
                json.dumps(c.expected),
                json.dumps({str(s): json.dumps(a) for s, a in c.prefilled.items()}),
                json.dumps({str(s): n for s, n in c.streaks.items()}),
                json.dumps([pack_message(m) for m in c.messages]),
                self.outbox_ttl,
                json.dumps(
                    ([json.dumps(c.config, sort_keys=True, separators=COMPACT)] if c.config is not None else [])
                    + [json.dumps([s, a], sort_keys=True, separators=COMPACT) for s, a in c.actions]
                ),
                json.dumps({field: pack_text(value) for field, value in (c.extra or {}).items()}),
                json.dumps(lane_entries(batch_for_version(c.version + 1), c.messages)),
                json.dumps(c.tally),
                json.dumps(c.tally_text),
                "" if c.due is None else repr(c.due),
                game_id,
                json.dumps(c.timers[1] if c.timers else []),
                c.refresh[1] if c.refresh else "",
                int(self.keep_sent),
            ],
        )
        if not isinstance(reply, list):
            return int(reply), {}, {}
        version, streaks, away = reply
        return int(version), _marks(streaks, int), _marks(away, float)

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

    def extend_deadline(self, game_id: str, window: int, seconds: float) -> float | None:
        deadline = self._extend(client=self.at(game_id), keys=[keys.snap(game_id)], args=[window, repr(seconds)])
        return float(deadline) if deadline else None


def read_with_meta(pipe: Any, game_id: str) -> None:
    """Queue `Store.load_with_meta`'s reads on a caller's pipeline (two replies: `with_meta` reads them)."""
    pipe.hgetall(keys.snap(game_id))
    pipe.hget(keys.meta(game_id), "json")


def with_meta(game_id: str, replies: list) -> tuple[Snapshot | None, dict]:
    raw, meta = replies
    return _snapshot(game_id, raw), json.loads(meta) if meta else {}


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
        json=unpack_state(raw[b"json"]) if b"json" in raw else finished.rebuilt_json(game_id, raw),
        news=unpack_text(raw.get(b"news", b"")),
        compacted=finished.COMPACTED.encode() in raw,
        held=float(raw[b"held"]) if raw.get(b"held") else None,
    )
