"""Finished games in their compacted form: what a game keeps once it is over and its last messages are out, how
it is read back, and how long it is kept.

A finished game needs neither its live window nor its outbox's bookkeeping. `compact` keeps its snapshot hash
without the engine JSON (``json``) and the turn's news, its meta, and its action log compressed into the snapshot
hash (``actions.z``: zlib of the log's lines); every other key of the game goes. The engine JSON is rebuilt by
replaying the log (`rebuilt_json`; the engine is deterministic), and where a replay would not give back the stored
state exactly (a game stored by an older engine) the JSON itself is kept compressed (``json.z``), so compaction
never loses what a reader could see. The snapshot and meta then expire ``retention`` after the game ended, with
the game's global names (its table, its group's and its watch page's pointers to it).
"""

import json
import zlib
from collections import OrderedDict
from typing import Any, cast

import redis

from service.game.engine import Game, new_game
from service.store import keys
from service.store.codec import unpack_state

ACTIONS_Z = "actions.z"
JSON_Z = "json.z"
COMPACTED = "compacted"  # snapshot field: when the game was compacted (its presence: it is)
REBUILT_CACHED = 64  # rebuilt engine JSONs kept in this process (a finished game's page is read in bursts)

_rebuilt: OrderedDict[tuple[str, int], str] = OrderedDict()


def spent_keys(game_id: str, chats: list[str]) -> list[str]:
    """The keys of a game that a finished game no longer needs: its last window's, its outbox's records of what
    each chat shows, the channels' message ids and picture ids, and the action log (kept compressed instead)."""
    return [
        keys.expected(game_id),
        keys.answers(game_id),
        keys.autoplays(game_id),
        keys.log(game_id),
        keys.actions(game_id),
        keys.dedup(game_id),
        keys.dedup_previous(game_id),
        keys.answered_at(game_id),
        keys.tally(game_id),
        keys.away(game_id),
        keys.pause(game_id),
        keys.pause_votes(game_id),
        keys.refresh_counter(game_id),
        keys.refresh_mark(game_id),
        keys.refresh_seats(game_id),
        keys.slot_seqs(game_id),
        keys.lane_failures(game_id),
        keys.shown(game_id),
        keys.telegram_slots(game_id),
        keys.telegram_boards(game_id),
        *[keys.lane_lock(game_id, chat) for chat in chats],
    ]


def chats_of(meta: dict) -> list[str]:
    """Every chat the game wrote to, as its meta names them: its players' and its group's."""
    chats = [str(p["chat"]) for p in meta.get("players", {}).values() if p.get("chat")]
    return list(dict.fromkeys(chats + ([str(meta["group"])] if meta.get("group") else [])))


def compact(
    game: redis.Redis, index: redis.Redis, game_id: str, now: float, retention: float, keep_json: bool = False
) -> str:
    """Compact a finished game (see the module docstring), once its follow-ups are done and no message of it waits
    on a lane. -> "compacted" | "waiting" (messages still queued: try later) | "not over" | "done" (compacted
    before) | "gone". ``keep_json``: keep the engine JSON compressed even where a replay gives it back (tests)."""
    snap_key, actions_key, meta_key = keys.snap(game_id), keys.actions(game_id), keys.meta(game_id)

    def attempt(pipe: Any) -> str:
        snap = cast(dict[bytes, bytes], pipe.hgetall(snap_key))
        if not snap:
            return "gone"
        if COMPACTED.encode() in snap:
            return "done"
        if snap[b"status"] != b"over" or int(snap.get(b"followed", 0)) < int(snap[b"version"]):
            return "not over"
        raw_meta = pipe.hget(meta_key, "json")
        meta = json.loads(raw_meta) if raw_meta else {}
        chats = chats_of(meta)
        if any(pipe.llen(keys.lane(game_id, chat)) for chat in chats):
            return "waiting"
        lines = cast(list[bytes], pipe.lrange(actions_key, 0, -1))
        stored = unpack_state(snap[b"json"])
        fields: dict[str, Any] = {COMPACTED: repr(now)}
        if lines:
            fields[ACTIONS_Z] = zlib.compress(b"\n".join(lines), 9)
        if keep_json or not lines or _replayed(lines) != Game.from_json(stored).to_json():
            fields[JSON_Z] = zlib.compress(stored.encode(), 9)
        ended = float(snap.get(b"cancelled") or snap[b"opened"])
        left = max(1, int(ended + retention - now))
        pipe.multi()
        pipe.hdel(snap_key, "json", "news", "reminded")
        pipe.hset(snap_key, mapping=fields)
        pipe.delete(*spent_keys(game_id, chats))
        pipe.expire(snap_key, left)
        pipe.expire(meta_key, left)
        pipe.zrem(keys.DUE, game_id)
        return f"compacted {left}"

    done = cast(str, game.transaction(cast(Any, attempt), snap_key, actions_key, meta_key, value_from_callable=True))
    if not done.startswith("compacted"):
        return done
    _expire_names(index, game_id, cast(bytes | None, game.hget(meta_key, "json")), int(done.split()[1]))
    return "compacted"


def _expire_names(index: redis.Redis, game_id: str, raw_meta: bytes | None, left: int) -> None:
    """The game's global names expire with it: its table, and the pointers of its group and its watch page to it
    (a pointer that names a newer game is that game's). The recorded set forgets it: a compacted game is never
    folded into the records again (`service.pipeline.records.fold` reads no compacted game)."""
    meta = json.loads(raw_meta) if raw_meta else {}
    pipe = index.pipeline(transaction=False)
    pipe.expire(keys.lobby_table(meta.get("code") or game_id), left)
    pipe.srem(keys.RECORDED, game_id)
    pointers = [keys.watch(meta["watch"])] if meta.get("watch") else []
    if meta.get("group"):
        pointers += [keys.chat_game(str(meta["group"])), keys.lobby_place(str(meta["group"]))]
    for pointer in pointers:
        pipe.get(pointer)
    replies = pipe.execute()[2:]
    pipe = index.pipeline(transaction=False)
    for pointer, named in zip(pointers, replies, strict=True):
        if named is not None and named.decode().upper() == game_id.upper():
            pipe.expire(pointer, left)
    pipe.execute()


def _replayed(lines: list[bytes]) -> str:
    game = new_game(json.loads(lines[0]))
    for line in lines[1:]:
        seat, action = json.loads(line)
        game.apply(seat, action)
    return game.to_json()


def action_lines(snap: dict[bytes, bytes]) -> list[bytes]:
    """The action log's lines (the config first) kept in a compacted snapshot hash (none: not compacted)."""
    packed = snap.get(ACTIONS_Z.encode())
    return zlib.decompress(packed).split(b"\n") if packed else []


def rebuilt_json(game_id: str, snap: dict[bytes, bytes]) -> str:
    """The engine JSON of a compacted game: kept compressed, or replayed from its log (cached per version)."""
    if JSON_Z.encode() in snap:
        return zlib.decompress(snap[JSON_Z.encode()]).decode()
    key = (game_id, int(snap[b"version"]))
    if key in _rebuilt:
        _rebuilt.move_to_end(key)
        return _rebuilt[key]
    text = _replayed(action_lines(snap))
    _rebuilt[key] = text
    while len(_rebuilt) > REBUILT_CACHED:
        _rebuilt.popitem(last=False)
    return text
