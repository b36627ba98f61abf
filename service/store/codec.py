"""How a game's engine JSON and the turn's news are kept in its snapshot hash: zlib-compressed (a 5-player game's
state is ~5 KB of JSON with the same keys over and over, ~1 KB compressed; the news grows to ~4.5 KB by a game's
end), and read back whichever way they were written — a snapshot written before they were compressed holds plain
JSON, which always begins with ``{``. The news travels inside a JSON argument of the commit script, so it is
base64 text (``z:`` first), where the state, an argument of its own, is the compressed bytes."""

import base64
import json
import zlib

LEVEL = 1  # the fastest level: a commit pays ~30 µs for a state, and the ratio is within 10 % of level 9's


def pack_state(text: str) -> bytes:
    return zlib.compress(text.encode(), LEVEL)


def unpack_state(raw: bytes) -> str:
    return raw.decode() if raw[:1] == b"{" else zlib.decompress(raw).decode()


def pack_text(text: str) -> str:
    return "z:" + base64.b64encode(zlib.compress(text.encode(), LEVEL)).decode() if len(text) > 200 else text


def unpack_text(raw: bytes) -> str:
    return zlib.decompress(base64.b64decode(raw[2:])).decode() if raw[:2] == b"z:" else raw.decode()


def pack_message(message: dict) -> str:
    """An outgoing message as its batch keeps it (`service.store.outbox`): its JSON, compressed when long (a
    group's status with its board's view is ~2 KB, and waits for the group's budget)."""
    return pack_text(json.dumps(message))


def unpack_message(raw: bytes) -> dict:
    return json.loads(unpack_text(raw))
