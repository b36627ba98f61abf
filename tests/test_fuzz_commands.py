"""Fuzzing the command parser ``service.commands.parse`` (issue 7): generated and mutated text against real game
states taken from bot games (every window kind, asked and not-asked seats, 2-7 players).

For every input: ``parse`` returns a list of actions or raises ``CommandError`` — nothing else; it never changes
the game it reads; a marker (``_help``/``_status``) comes alone; every action it returns (except the final
``plan``) is legal in turn on a copy of the game, as ``ingest.check_answer`` will apply it.

Inputs: hypothesis text (any unicode and command-like word lists), and mutations of real commands (what
``describe`` writes for legal actions). Budget: ``FUZZ_EXAMPLES`` per test (see ``test_fuzz_support``).
"""

import functools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz_support import FUZZ_EXAMPLES, WORDS, mutate_text, random_text, record, rng_for

from service import commands
from service.commands.words import typed
from service.commands.writing import describe
from service.game import IllegalAction, new_game
from service.game.bots import choose


@functools.lru_cache(maxsize=1)
def states() -> list[tuple[object, int]]:
    """(game, seat) pairs from bot games: at each window, the asked seats and one seat that is not asked."""
    out = []
    for players, seed in [(2, 1), (3, 2), (4, 3), (5, 4), (7, 5), (3, 6)]:
        game, rng = (
            new_game({"players": players, "seed": seed, "side": None, "expert": seed % 2 == 0}),
            random.Random(seed),
        )
        windows = 0
        while not game.is_over and windows < 60:
            asked = game.waiting_for()
            if windows % 3 == 0:
                for seat in asked + [s for s in range(players) if s not in asked][:1]:
                    out.append((game.copy(), seat))
            window = game.window["id"]
            while game.window is not None and game.window["id"] == window:
                seat = game.waiting_for()[0]
                for action in choose(game, seat, rng, eager=rng.random() < 0.3):
                    if not game.is_over:  # an eager bot's plan after the move that ended the game
                        game.apply(seat, action)
            windows += 1
        out.append((game.copy(), 1))  # a finished game too
    return out


def real_commands(game, seat) -> list[str]:
    legal = typed(game.legal_actions(seat)) if not game.is_over else []
    texts = [describe(a, lang) for a in legal[:40] for lang in ("en", "cs")]
    return texts or ["play 3", "pass", "plan pass"]


def check(text: str, game, seat: int) -> str:
    """Parse ``text`` and check the contract. -> "ok" | "refused"."""
    before = game.to_json()
    try:
        actions = commands.parse(text, game, seat)
    except commands.CommandError as exc:
        assert str(exc), "a refusal says why"
        assert game.to_json() == before
        return "refused"
    assert game.to_json() == before, f"parse changed the game for {text!r}"
    assert isinstance(actions, list) and actions, (text, actions)
    assert all(isinstance(a, dict) and isinstance(a.get("type"), str) for a in actions), (text, actions)
    if actions[0]["type"].startswith("_"):
        assert len(actions) == 1, (text, actions)
        return "ok"
    trial = game.copy()
    for n, action in enumerate(actions):
        if action["type"] == "plan":
            assert n == len(actions) - 1 and isinstance(action.get("orders"), list) and action["orders"], (
                text,
                actions,
            )
            break
        try:
            trial.apply(seat, action)
        except IllegalAction as exc:
            raise AssertionError(f"parse({text!r}) for seat {seat} gave {action}, which is illegal: {exc}") from exc
    return "ok"


def test_mutated_real_commands():
    rng, pool, outcomes = rng_for("commands-mutated"), states(), {"ok": 0, "refused": 0}
    for _ in range(FUZZ_EXAMPLES):
        game, seat = pool[rng.randrange(len(pool))]
        texts = real_commands(game, seat)
        roll = rng.random()
        if roll < 0.5:
            text = mutate_text(rng, rng.choice(texts))
        elif roll < 0.7:  # two commands on one line, one of them damaged
            text = f"{rng.choice(texts)} {mutate_text(rng, rng.choice(texts))}"
        elif roll < 0.8:
            text = rng.choice(["plan ", "card ", "", "r 1 2 "]) + rng.choice(texts)
        else:
            text = random_text(rng)
        outcomes[check(text, game, seat)] += 1
    record("parse (mutated)", FUZZ_EXAMPLES)
    assert outcomes["ok"] and outcomes["refused"], outcomes  # both paths were exercised


command_words = st.lists(st.sampled_from(WORDS) | st.integers(-3, 120).map(str) | st.text(max_size=4), max_size=8).map(
    " ".join
)
hypothesis_budget = settings(
    max_examples=max(1, FUZZ_EXAMPLES // 2),
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)


@hypothesis_budget
@given(text=st.text(max_size=60) | command_words, pick=st.integers(0, 10**6))
def test_generated_text(text, pick):
    pool = states()
    game, seat = pool[pick % len(pool)]
    check(text, game, seat)
    test_generated_text.count = getattr(test_generated_text, "count", 0) + 1


def test_generated_text_was_counted():
    count = getattr(test_generated_text, "count", 0)
    if not count:
        pytest.skip("test_generated_text did not run in this session")
    assert count >= 10, f"the parser fuzz ran only {count} generated inputs"
    record("parse (hypothesis)", count)
