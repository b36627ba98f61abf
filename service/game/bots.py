"""Bot players: a sensible, randomised policy for any seat, used by benchmarks, the sandbox and load tests.

``choose(game, seat, rng)`` returns the actions a bot sends when asked (usually one). With ``eager=True`` a
Hunted bot also answers ahead, as a player using the bot's "answer ahead" buttons would: right after choosing
its place it sends a plan (how to use that place's power, no cards unless they protect it, what to discard); an
eager Creature holding no card for after the hunt says "no cards this turn" with its tokens.
Under strict secrecy a bot asks to be asked about its cards later in the turn (``call``) as a player would when
it might play one; during the hunt a Hunted bot answers its place's question ahead (rules/ahead.py).
Bots see only what their seat may see: they read the game through ``legal_actions`` and their own hand.
"""

import random
from collections.abc import Callable
from typing import Any

from service.game.autoplay import power_score
from service.game.cards import LAIR, PLACE_NUMBERS
from service.game.engine import Game
from service.game.registry import CARD_RULES
from service.game.rules.ahead import LAIR_COPY
from service.game.rules.common import CREATURE, PLACE_VALUE
from service.game.rules.reckoning import resolve_question
from service.game.rules.secrecy import CALL

Action = dict[str, Any]


def choose(game: Game, seat: int, rng: random.Random, eager: bool = False) -> list[Action]:
    """The bot's answer for ``seat`` now, as a list of actions to apply in order."""
    options = game.legal_actions(seat)
    if not options:
        return []
    window = game.window
    assert window is not None
    kind = window["kind"]
    if CALL in options and _calls(game, seat, rng):
        return [CALL]
    if seat == CREATURE:
        action = _creature(game, options, kind, rng)
        if eager and action["type"] == "tokens" and not _later_cards(game):
            return [action, {"type": "plan", "orders": [{"type": "pass"}]}]  # no cards for the rest of the turn
        return [action]
    if options[0]["type"] == "ahead":
        return [_ahead(game, seat, options, rng)]
    if kind == "explore":
        action = _explore(game, seat, options, rng)
        if eager and action["type"] == "play":
            return [action, {"type": "plan", "orders": _plan_after_play(game, seat, action["cards"])}]
        return [action]
    return [_hunted_question(game, seat, options, rng)]


def _calls(game: Game, seat: int, rng: random.Random) -> bool:
    """Whether the bot asks to be asked about its cards later this turn (strict secrecy's ``call``): a Hunted
    holding a card that protects it always, otherwise about as often as it plays a card when asked."""
    if seat == CREATURE:
        return rng.random() < 0.5
    held = game.private_view(seat)["survival"]
    return any(c in ("dodge", "detector") for c in held) or rng.random() < 0.4


def _ahead(game: Game, seat: int, options: list[Action], rng: random.Random) -> Action:
    """A question ahead (rules/ahead.py): the better card to keep at the River (unless the Creature hunts there),
    the best way to use the place (at the Lair, copying the Creature's place when its own power takes back at most
    one card), or the least useful card for the Artemia token. It never says "decide after the reveal" (the last
    option): it answers what it is asked."""
    if options[0].get("place") == LAIR and len(game.s["players"][seat]["discard"]) <= 1:
        return options[-2]
    if "river" in options[0]:  # the River: the better card, unless the Creature hunts there
        return max(options[:-1], key=lambda o: PLACE_VALUE[o["answer"]["card"]] + rng.random())
    if "token" in options[0]:  # the card to discard to the Artemia token: the least useful one
        return min(options[:-1], key=lambda o: PLACE_VALUE[o["answer"]["cards"][0]] + rng.random())
    ways = [o for o in options[:-1] if o["answer"] != LAIR_COPY]
    return max(ways, key=lambda o: power_score(game, seat, o["answer"]) + rng.random() * 0.5)


def _later_cards(game: Game) -> bool:
    """Whether the Creature holds a Hunt card it might play after the hunt (phase 3 or 4, or a copying card)."""
    return any(CARD_RULES[c].copies or CARD_RULES[c].phase in (3, 4) for c in game.private_view(CREATURE)["hunt_cards"])


def _creature(game: Game, options: list[Action], kind: str, rng: random.Random) -> Action:
    cards = [o for o in options if o["type"] == "hunt_card"]
    if kind == "setup":
        return rng.choice(options)
    if kind == "hunt":
        if cards and rng.random() < 0.6:
            return rng.choice(cards)
        tokens = [o for o in options if o["type"] == "tokens"]
        return _tokens(game, tokens, rng)
    # after the hunt, a Creature on call under strict secrecy asked to be asked because it means to play a card
    chance = 0.9 if kind in ("reckoning", "end") and game.s["config"]["secrecy"] == "strict" else 0.5
    if cards and rng.random() < chance:
        return rng.choice(cards)
    return {"type": "pass"}


def _tokens(game: Game, tokens: list[Action], rng: random.Random) -> Action:
    weight = {p: rng.random() * 2 for p in PLACE_NUMBERS}
    for discard in game.visible_discards(CREATURE).values():
        for p in range(1, 6):
            weight[p] += 1 if discard is None or p not in discard else 0
    ranked = sorted(PLACE_NUMBERS, key=lambda p: -weight[p])
    wanted: Action = {"type": "tokens", "creature": ranked[0]}
    if "artemia" in tokens[0]:
        wanted["artemia"] = ranked[1]
    return wanted if wanted in tokens else rng.choice(tokens)


def _explore(game: Game, seat: int, options: list[Action], rng: random.Random) -> Action:
    by_type: dict[str, list[Action]] = {}
    for option in options:
        by_type.setdefault(option["type"], []).append(option)
    if "keep_survival" in by_type:
        return rng.choice(by_type["keep_survival"])
    hand = game.private_view(seat)["hand"]
    if "resist" in by_type and (len(hand) <= 2 or "play" not in by_type) and rng.random() < 0.7:
        return max(by_type["resist"], key=lambda o: len(o["cards"]) + rng.random())
    if "survival" in by_type and rng.random() < 0.3:
        return rng.choice(by_type["survival"])
    if "play" in by_type:
        plays = by_type["play"]
        return max(plays, key=lambda o: sum(PLACE_VALUE[c] for c in o["cards"]) + 6 * rng.random())
    return by_type.get("giveup", options)[0]


def _hunted_question(game: Game, seat: int, options: list[Action], rng: random.Random) -> Action:
    window = game.window
    assert window is not None
    if any(o["type"] == "pass" for o in options) and all(o["type"] in ("pass", "survival") for o in options):
        cards = [o for o in options if o["type"] == "survival"]
        protective = [o for o in cards if o["card"] in ("dodge", "detector")]
        if protective:
            return protective[0]
        # a bot on call under strict secrecy asked to be asked because it means to play a card
        chance = 0.9 if game.s["config"]["secrecy"] == "strict" else 0.4
        return rng.choice(cards) if cards and rng.random() < chance else {"type": "pass"}
    return game.autoplay(seat) if rng.random() < 0.8 else rng.choice(options)


def _plan_after_play(game: Game, seat: int, cards: list[int]) -> list[Action]:
    """What a player would answer ahead right after choosing their place(s)."""
    orders: list[Action] = []
    for place in cards:
        options = resolve_question(game, seat, place)
        if options:
            orders.append(max(options, key=lambda o: power_score(game, seat, o)))
    you = game.private_view(seat)
    if len(cards) == 2 and game.s["players"][seat]["pending"] == "river":
        orders.append({"type": "keep", "card": max(cards, key=lambda c: PLACE_VALUE[c])})
    orders += [{"type": "survival", "card": c} for c in ("dodge", "detector") if c in you["survival"]]
    orders.append({"type": "pass"})
    if game.s["players"][seat]["will"] >= 2:
        orders.append({"type": "lose_will"})
    orders += [{"type": "discard", "cards": [c]} for c in sorted(you["hand"], key=lambda c: PLACE_VALUE[c])]
    orders += [
        {"type": "takeback", "place": p, "card": d}
        for p in cards
        for d in sorted(game.s["players"][seat]["discard"], key=lambda c: -PLACE_VALUE[c])
    ]
    return orders[:20]


def play_out(
    game: Game, rng: random.Random, eager: bool = False, on_step: Callable[[Game], None] | None = None
) -> Game:
    """Play a game to its end with bots in every seat; calls ``on_step(game)`` after each applied action."""
    while not game.is_over:
        waiting = game.waiting_for() + game.may_answer()
        seat = waiting[rng.randrange(len(waiting))]
        for action in choose(game, seat, rng, eager):
            game.apply(seat, action)
            if on_step:
                on_step(game)
            if game.is_over:
                break
    return game


def whole_answer(game: Game, seat: int, rng: random.Random) -> list[Action]:
    """The bot's complete answer for ``seat`` in the open window (a Hunt card and then the tokens, say), as one
    message would carry it: what the window waits for (no question ahead); ``game`` is not changed."""
    if game.window is None:
        raise ValueError("the game is over: nothing to answer")
    trial, window, actions = game.copy(), game.window["id"], []
    while trial.window is not None and trial.window["id"] == window and seat in trial.waiting_for():
        for action in choose(trial, seat, rng):
            trial.apply(seat, action)
            actions.append(action)
    return actions
