"""The outbox's storage: the batches of messages the steps write, each chat's lane of messages still to send and
its lease, what a deliverer reads of a lane's head (`HeadState`), what living messages show, and the send rate
buckets."""

import json
from dataclasses import dataclass
from typing import Any, cast

from service.store import keys
from service.store.base import StoreBase, pipelined, queue_script
from service.store.codec import pack_message, unpack_message

# A seat's message refused a global token holds back the groups' sends until it tries again and this much more (its
# wake-up); windows resolved at their deadline hold them back at least this long (`questions_coming`).
QUESTIONS_FLAG_SECONDS = 0.03
SLOW_START = 0.9  # the global rate's share in a burst's first second (`lua.TAKE_SEND_TOKEN`)
SLOTS_KEPT = 2  # a chat's living messages of one kind whose records are kept: the current one and the one before


class Outbox(StoreBase):
    """The `Store`'s part that writes, drains and marks the outbox."""

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
                    int(self.keep_sent),
                    *[pack_message(m) for m in messages],
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
                args=[
                    self.outbox_ttl,
                    json.dumps(lane_entries(batch, messages)),
                    int(self.keep_sent),
                    *[pack_message(m) for m in messages],
                ],
            )
        )

    def slot_seq(self, game_id: str, chat: str, slot: str) -> int:
        """The newest seq delivered to a living message (-1: none yet)."""
        raw = cast(bytes | None, self.at(game_id).hget(keys.slot_seqs(game_id), f"{chat}|{slot}"))
        return int(raw) if raw else -1

    def take_send_token(
        self,
        chat: str,
        now: float,
        global_rate: float,
        global_cap: float,
        chat_rate: float,
        chat_cap: float,
        first: bool = False,
    ) -> float:
        """Take a token from the global and the chat bucket. -> 0 when allowed, else seconds to wait. While a send
        that goes ``first`` (a seat's message: its questions) waits for the global bucket, the others wait
        (`lua.TAKE_SEND_TOKEN`)."""
        return float(
            self._take_token(
                keys=[keys.RATE_PAUSE, keys.RATE_GLOBAL, keys.rate_chat(chat), keys.RATE_QUESTIONS],
                args=[
                    repr(now),
                    global_rate,
                    global_cap,
                    chat_rate,
                    chat_cap,
                    int(first),
                    QUESTIONS_FLAG_SECONDS,
                    SLOW_START,
                ],
            )
        )

    def questions_coming(self, now: float, seconds: float = 0.0) -> None:
        """Hold back the sends that do not go first (the groups') for ``seconds`` (at least the flag's own time):
        windows are being resolved at their deadline, and their questions come first (`lua.TAKE_SEND_TOKEN`)."""
        until = now + max(seconds, QUESTIONS_FLAG_SECONDS)
        current = cast(bytes | None, self.redis.get(keys.RATE_QUESTIONS))
        if current is None or float(current) < until:
            self.redis.set(keys.RATE_QUESTIONS, repr(until), ex=60)

    def throttled(self, chat: str, now: float, seconds: float, window: float, chats: int) -> bool:
        """The channel answered a send to ``chat`` "retry after ``seconds``": that chat's sends wait. -> True when
        ``chats`` different chats were answered so within ``window`` seconds: every send waits (`lua.THROTTLED`)."""
        args: list[str | float] = [repr(now), seconds, window, chats]
        return bool(self._throttled(keys=[keys.rate_chat(chat), keys.RATE_THROTTLED, keys.RATE_PAUSE], args=args))

    # --- outbox ----------------------------------------------------------------------------------------------

    def batch_size(self, game_id: str, batch: str) -> int:
        """How many messages a batch still stored was written with (0: none, or all of them delivered)."""
        fields = cast(list[bytes], self.at(game_id).hkeys(keys.outbox(game_id, batch)))
        return len({field.lstrip(b"d") for field in fields})

    def message(self, game_id: str, batch: str, index: int) -> dict | None:
        raw = cast(bytes | None, self.at(game_id).hget(keys.outbox(game_id, batch), index))
        return unpack_message(raw) if raw else None

    def replace_message(self, game_id: str, batch: str, index: int, message: dict) -> None:
        """Rewrite a message still waiting on its lane (a held message folded into it, `outbox.hold`); the caller
        holds the lane, so no deliverer is sending it."""
        self.at(game_id).hset(keys.outbox(game_id, batch), str(index), pack_message(message))

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
                    pipe,
                    self._raise_seq,
                    [keys.slot_seqs(game_id), keys.shown(game_id), keys.telegram_slots(game_id)],
                    # the audit mode keeps every record, as it keeps every batch
                    [f"{chat}|{seq[0]}", seq[1], self.outbox_ttl, 0 if self.keep_sent else SLOTS_KEPT],
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
        ordered = sorted(((int(i), m) for i, m in raw.items() if i.isdigit()), key=lambda item: item[0])
        return list(dict.fromkeys(unpack_message(message)["chat"] for _, message in ordered))

    def mark_sent(self, game_id: str, batch: str, index: int, state: str = "sent") -> bool:
        """Mark one message done ("sent", or "failed": given up); -> True when that completed its batch, which
        is then deleted (unless the store keeps sent batches)."""
        script_keys, args = self._marking(game_id, batch, index, state)
        return bool(self._mark_done(keys=script_keys, args=args, client=self.at(game_id)))

    def _marking(self, game_id: str, batch: str, index: int, state: str) -> tuple[list, list]:
        """The keys and arguments of the script that marks a message done (`lua.MARK_DONE`)."""
        return [keys.outbox(game_id, batch)], [index, state, int(self.keep_sent)]

    def send_state(self, game_id: str, batch: str, index: int) -> str | None:
        state = cast(bytes | None, self.at(game_id).hget(keys.outbox(game_id, batch), f"d{index}"))
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
    pipe.hget(keys.outbox(game_id, head.batch), f"d{head.index}")
    pipe.hget(keys.slot_seqs(game_id), living)
    pipe.hmget(keys.shown(game_id), living, f"{living}|prefix")
    pipe.hget(keys.lane_failures(game_id), chat)


def _head_state(replies: list, head: "LaneEntry") -> "HeadState":
    message, state, seq, (shown, prefix), failures = replies
    return HeadState(
        message=unpack_message(message) if message else None,
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


def lane_entries(batch: str, messages: list[dict]) -> list[str]:
    return [
        LaneEntry(batch, i, m.get("slot") or "", None if m.get("seq") is None else int(m["seq"])).raw
        for i, m in enumerate(messages)
    ]


def lane_keys(game_id: str, messages: list[dict]) -> list[str]:
    return [keys.lane(game_id, m["chat"]) for m in messages]


def batch_for_version(version: int) -> str:
    return f"v{version}"
