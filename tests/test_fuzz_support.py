"""Shared pieces of the fuzz tests (``tests/test_fuzz_*.py``): the example budget, byte/JSON/text mutators and
a snapshot of a whole Redis database, so a test can say "this input changed nothing".

Budget: ``FUZZ_EXAMPLES`` (environment) is the number of inputs *per fuzz test*; the default keeps ``make test``
fast (a few thousand inputs in all). ``make soak`` sets it so that the three targets (command parser, Telegram
webhook, SMS webhook) get more than 100,000 inputs together. ``FUZZ_SEED`` fixes the mutation RNG (default 0,
so a failure repeats); hypothesis prints its own reproduction blob.

Each fuzz test reports how many inputs it ran (`record`): printed (seen with ``-s``) and appended to the file
named by ``FUZZ_REPORT`` (``make soak`` sums it).
"""

import json
import os
import random
import string
from collections import Counter

from redis_state import redis_state  # noqa: F401  (re-exported for the fuzz tests)

from service.pipeline.context import Context
from service.pipeline.resolution import resolve_window

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "800"))
FUZZ_SEED = int(os.environ.get("FUZZ_SEED", "0"))
COUNTS: Counter = Counter()

NASTY_STRINGS = [
    "",
    " ",
    "\x00",
    "\n",
    "\r\n",
    "\t",
    "🦖",
    "ř",
    "Ř",
    "\u200b",
    "\ufeff",
    "\u202e",
    "'",
    '"',
    "\\",
    "%s",
    "{}",
    "{0}",
    "<b>",
    "&amp;",
    "/",
    "//",
    "@",
    "@artemia_bot",
    "-1",
    "0",
    "1e309",
    "NaN",
    "99999999999999999999999",
    "-9223372036854775809",
    "d:",
    "d:x:1::",
    "j",
    "/start j",
    "A" * 5000,
]
WORDS = [
    "play",
    "hraj",
    "resist",
    "r",
    "vzdoruj",
    "give",
    "up",
    "keep",
    "card",
    "c",
    "hunt",
    "lov",
    "a",
    "pass",
    "nic",
    "discard",
    "d",
    "show",
    "lose",
    "will",
    "power",
    "sila",
    "take",
    "vezmi",
    "reserve",
    "heal",
    "draw",
    "copy",
    "use",
    "via",
    "back",
    "plan",
    "help",
    "?",
    "status",
    "stav",
    "p",
    "h",
    "at",
    "na",
    "river",
    "reka",
    "lair",
    "jungle",
    "beach",
    "rover",
    "swamp",
    "shelter",
    "wreck",
    "source",
    "artefact",
    "dodge",
    "uhyb",
    "sixth",
    "mirage",
    "prelud",
    "detour",
    "flashback",
    "drone",
    "gate",
    "(",
    ")",
    "p2",
    "h3",
    "a7",
    "x",
    "/newgame",
    "/join",
    "/leave",
    "/creature",
    "/settings",
    "/begin",
    "/status",
    "/cancel",
    "/help",
    "/rules",
    "/start",
    "/language",
    "NEW",
    "JOIN",
    "GO",
    "STOP",
    "START",
    "HELP",
    "ASCII",
    "LANG",
    "on",
    "off",
    "cs",
    "en",
    "deadline",
    "expert",
    "live",
    "fast",
    "daily",
]


def rng_for(name: str) -> random.Random:
    return random.Random(f"{FUZZ_SEED}:{name}")


def record(name: str, n: int) -> None:
    """Count ``n`` inputs for target ``name``; print it (seen with ``-s``) and append it to ``FUZZ_REPORT``."""
    COUNTS[name] += n
    print(f"fuzz: {name}: {n} inputs")
    if os.environ.get("FUZZ_REPORT"):
        with open(os.environ["FUZZ_REPORT"], "a") as out:
            out.write(f"{name}\t{n}\n")


# ---------------------------------------------------------------------------------------------- text


def random_text(rng: random.Random) -> str:
    """Command-like text: words of the language, numbers, junk and nasty strings, with typos."""
    parts = []
    for _ in range(rng.randint(0, 7)):
        roll = rng.random()
        if roll < 0.45:
            parts.append(rng.choice(WORDS))
        elif roll < 0.75:
            parts.append(str(rng.choice([rng.randint(0, 12), rng.randint(-5, 10 ** rng.randint(1, 25))])))
        elif roll < 0.85:
            parts.append(rng.choice(NASTY_STRINGS))
        else:
            parts.append("".join(rng.choice(string.printable + "ěščřžýáíéůúňťď🦖") for _ in range(rng.randint(1, 8))))
    text = rng.choice([" ", "  ", ",", "\n", " "]).join(parts)
    return mutate_text(rng, text) if rng.random() < 0.3 else text


def mutate_text(rng: random.Random, text: str) -> str:
    """One to three character-level edits: delete, insert, swap, duplicate, change case, strip accents."""
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        i = rng.randint(0, len(chars))
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice(string.printable + "ěřůŘ\u0301\x00🦖"))
        elif op == 2 and len(chars) > 1:
            j = rng.randrange(len(chars))
            k = rng.randrange(len(chars))
            chars[j], chars[k] = chars[k], chars[j]
        elif op == 3 and chars:
            j = min(i, len(chars) - 1)
            chars[j:j] = chars[j : j + rng.randint(1, 6)]
        elif op == 4:
            chars = list("".join(chars).upper() if rng.random() < 0.5 else "".join(chars).lower())
        elif op == 5:
            chars.insert(i, " ")
    return "".join(chars)


# ---------------------------------------------------------------------------------------------- JSON


def junk_value(rng: random.Random, depth: int = 0):
    makers = [
        lambda: None,
        lambda: True,
        lambda: rng.randint(-(2**70), 2**70),
        lambda: rng.random() * 10 ** rng.randint(0, 300),
        lambda: rng.choice(NASTY_STRINGS),
        lambda: random_text(rng),
        lambda: rng.randint(-3, 3),
        lambda: [junk_value(rng, depth + 1) for _ in range(rng.randint(0, 3))],
        lambda: {
            rng.choice(["id", "text", "data", "from", "chat", "type", "x"]): junk_value(rng, depth + 1)
            for _ in range(rng.randint(0, 3))
        },
    ]
    return makers[rng.randrange(len(makers) if depth < 3 else 7)]()


def mutate_json(rng: random.Random, value, depth: int = 0):
    """A structural mutation of a JSON value: change, delete or add a field, change a type, or recurse."""
    if isinstance(value, dict) and value:
        value = dict(value)
        key = rng.choice(list(value))
        roll = rng.random()
        if roll < 0.45 and depth < 6:
            value[key] = mutate_json(rng, value[key], depth + 1)
        elif roll < 0.6:
            del value[key]
        elif roll < 0.75:
            value[key] = junk_value(rng)
        elif roll < 0.85:
            value[rng.choice(["message", "callback_query", "my_chat_member", "from", "text", "data", key + "_"])] = (
                junk_value(rng)
            )
        else:
            value[key] = mutate_json(rng, value[key], depth + 1) if rng.random() < 0.5 else None
        return value
    if isinstance(value, list) and value:
        value = list(value)
        i = rng.randrange(len(value))
        value[i] = mutate_json(rng, value[i], depth + 1)
        return value
    if isinstance(value, bool):
        return not value if rng.random() < 0.5 else junk_value(rng)
    if isinstance(value, int):
        return rng.choice([value + 1, value - 1, -value, 0, 2**63, -(2**63) - 1, 2**64, str(value), 1.5])
    if isinstance(value, str):
        return mutate_text(rng, value) if rng.random() < 0.7 else junk_value(rng)
    return junk_value(rng)


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """Byte-level damage: flip, cut, insert, splice with itself."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(4)
        if op == 0 and buf:
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            del buf[rng.randrange(len(buf)) :][: rng.randint(1, 20)]
        elif op == 2:
            buf[rng.randint(0, len(buf)) : rng.randint(0, len(buf))] = bytes(
                rng.randrange(256) for _ in range(rng.randint(1, 8))
            )
        elif buf:
            i = rng.randrange(len(buf))
            buf[i:i] = buf[rng.randrange(len(buf)) :][: rng.randint(1, 40)]
    return bytes(buf)


def dumps(value) -> bytes:
    return json.dumps(value, ensure_ascii=rng_for("dumps").random() < 0.5).encode()


# ---------------------------------------------------------------------------------------------- the game


def settle(ctx: Context, game_id: str, rounds: int = 50) -> None:
    """Resolve in process whatever window closed (as a worker would), so the game goes on. A resolution that
    fails fails the test: the webhook accepted answers that the pipeline cannot then resolve (``FUZZ_SEED``
    repeats it)."""
    for _ in range(rounds):
        snap = ctx.store.load(game_id)
        assert snap is not None, f"game {game_id} is gone"
        if snap.status != "resolving":
            return
        try:
            resolve_window(ctx, game_id, snap.current_window)
        except Exception as exc:
            raise AssertionError(
                f"resolving window {snap.window} of game {game_id} failed (FUZZ_SEED={FUZZ_SEED}): "
                f"{type(exc).__name__}: {exc}"
            ) from exc
    raise AssertionError(f"game {game_id} is still resolving after {rounds} resolutions")


# ---------------------------------------------------------------------------------------------- redis


def diff(before: dict, after: dict) -> list[str]:
    keys = set(before) | set(after)
    return sorted(k.decode(errors="replace") for k in keys if before.get(k) != after.get(k))


def test_mutators_are_deterministic_and_total():
    a, b = rng_for("self"), rng_for("self")
    for _ in range(300):
        assert random_text(a) == random_text(b)
        value = {"update_id": 1, "message": {"text": "play 3", "chat": {"id": -5}}}
        assert mutate_json(a, value) == mutate_json(b, value)
        assert mutate_bytes(a, b"{}") == mutate_bytes(b, b"{}")
