"""Small rules every phase uses: seeded randomness, counters, Will, decks, discards, windows and who sees what.

Every function takes the game first (``g``, a table.Table: the engine passes its Game) and reads or changes ``g.s``,
the plain state (see state.py).
"""

import itertools
import random
from collections.abc import Iterable
from typing import Any, Final, Literal

from service.game.cards import ADJACENT
from service.game.state import Counter, Event, Params, Player, Window
from service.game.table import Table

CREATURE: Final = 0
# The game's memo keeps per-seat values under small ints (seats are 0..6): no tuple to build, hash and compare on
# every look-up. Other values there have string keys ("waiting", "upcoming", ...).
MEMO_LIVE: Final = 0  # + seat: the seat's live options
MEMO_QUESTION: Final = 8  # + seat: its next deferred question
MEMO_CARDS: Final = 16  # + 8 * phase + seat: the cards it may play in a card window of that phase
# How much a Hunted values holding each place card (auto-play and bots use it to choose what to keep).
PLACE_VALUE: Final = {1: 5, 2: 3, 3: 4, 4: 6, 5: 5, 6: 3, 7: 6, 8: 8, 9: 7, 10: 6}


class IllegalAction(ValueError):
    """An action that is not legal now; the message says why. The state is unchanged."""


class NeedAnswer(Exception):
    """Raised by a deferred task that needs a person's answer before it can run."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def combos(items: Iterable[Any], k: int) -> list[list[Any]]:
    """Every sorted choice of k of the items (all of them when there are fewer)."""
    items = sorted(items)
    return [list(c) for c in itertools.combinations(items, min(k, len(items)))]  # drawn in order: each is sorted


# ---------------------------------------------------------------------------------------------- randomness
def rng(g: Table) -> random.Random:
    """The game's seeded randomness: a fresh generator per draw, counted in the state."""
    g.s["rng_draws"] += 1
    return random.Random(g.s["config"]["seed"] * 1_000_003 + g.s["rng_draws"])


def shuffled(g: Table, cards: Iterable[Any]) -> list[Any]:
    out = list(cards)
    rng(g).shuffle(out)
    return out


def peek_rng(g: Table, seat: int) -> random.Random:
    """Randomness for auto-play that does not advance the game's own counter."""
    w = g.s["window"]
    return random.Random(f"{g.s['config']['seed']}:{w['id'] if w else 0}:{seat}:{g.s['rng_draws']}")


# ---------------------------------------------------------------------------------------------- reading
def player(g: Table, seat: int) -> Player:
    """The seat's part of the state. The options worked out for every seat in every window (secrecy, the
    exploration's and the Reckoning's options, the Survival cards that may be played) read
    ``g.s["players"][seat]`` directly: a call costs more than the lookup, and they make most of them."""
    return g.s["players"][seat]


def has(g: Table, card: str) -> bool:
    """Whether a Hunt card with this effect (Flashback counts as its copy) was played this turn."""
    return card in g.s["this_turn"]["hunt_effects"]


def entry(g: Table, card: str) -> dict[str, Any]:
    """The Hunt card played this turn with this effect, with its parameters."""
    return next(e for e in g.s["this_turn"]["hunt_cards"] if e["as"] == card)


def owned(h: Player) -> set[int]:
    return set(h["hand"]) | set(h["discard"]) | set(h["played"])


def discard_audience(g: Table) -> list[int] | None:
    """Who may learn which cards moved in or out of discard piles: all, or only the Hunted under Smokescreen."""
    return list(g.hunted_seats()) if g.s["this_turn"]["smokescreen"] else None


def can_survive(g: Table, seat: int) -> bool:
    """Whether the Hunted may still play a Survival card this turn (one per turn, none under Despair)."""
    t = g.s["this_turn"]
    return not t["despair"] and seat not in t["survival_played"]


def creature_places(g: Table) -> list[int]:
    """Where the Creature token's effect applies: its place, and the Target's under Clone."""
    tokens = g.s["tokens"]
    return tokens["creature"] + (tokens["target"] if has(g, "clone") else [])


def token_moves(places: list[int]) -> list[Params]:
    """Moving one token from one of ``places`` to an adjacent place it is not on."""
    return [{"from": a, "to": b} for a in sorted(places) for b in sorted(ADJACENT[a]) if b not in places]


def survival_available(g: Table) -> int:
    return len(g.s["survival_deck"]) + len(g.s["survival_discard"])


# ---------------------------------------------------------------------------------------------- changing
def move_counter(g: Table, counter: Counter, events: list[Event]) -> None:
    """Move a counter one space toward its victory space; the game ends the moment one arrives."""
    s = g.s
    if s["winner"] is not None:
        return
    s[counter] -= 1
    events.append({"type": "counter", "counter": counter, "distance": s[counter], "visible_to": None})
    if s[counter] <= 0:
        # (the winner from a local: compiled, s["winner"] read back here would be the None checked above)
        winner = "hunted" if counter == "rescue" else "creature"
        s["winner"] = winner
        s["window"] = None
        s["agenda"] = []
        events.append({"type": "game_over", "winner": winner, "visible_to": None})


def lose_will(g: Table, seat: int, amount: int, events: list[Event]) -> None:
    h = player(g, seat)
    before = h["will"]
    h["will"] = max(0, before - amount)
    events.append({"type": "will", "seat": seat, "will": h["will"], "visible_to": None})
    if before > 0 and h["will"] == 0 and not g.s["this_turn"]["zero_will_counted"]:
        g.s["this_turn"]["zero_will_counted"] = True
        move_counter(g, "assimilation", events)


def draw(g: Table, kind: Literal["hunt", "survival"]) -> Any:
    """The top card of the Hunt or Survival deck (the discard pile reshuffled when empty), or None."""
    s = g.s
    deck_key: Literal["hunt_deck", "survival_deck"] = "hunt_deck" if kind == "hunt" else "survival_deck"
    discard_key: Literal["hunt_discard", "survival_discard"] = "hunt_discard" if kind == "hunt" else "survival_discard"
    if not s[deck_key]:
        s[deck_key] = shuffled(g, s[discard_key])
        s[discard_key] = []
    return s[deck_key].pop() if s[deck_key] else None


def discard_place(g: Table, seat: int, card: int) -> None:
    h = player(g, seat)
    h["hand"].remove(card)
    h["discard"].append(card)


def discard_from_hand(g: Table, seat: int, cards: list[int], events: list[Event]) -> None:
    for card in cards:
        discard_place(g, seat, card)
    events.append({"type": "discarded", "seat": seat, "count": len(cards), "visible_to": None})
    events.append({"type": "discarded_cards", "seat": seat, "cards": cards, "visible_to": discard_audience(g)})


def take_back(h: Player, cards: Iterable[int]) -> None:
    """Cards from the discard pile back to the hand."""
    for card in cards:
        h["discard"].remove(card)
        h["hand"].append(card)


def spend_survival(g: Table, seat: int, card: str, events: list[Event], params: Params | None = None) -> None:
    """A Survival card leaves the hand for the discard pile; everyone sees it, the details only who may."""
    h = player(g, seat)
    h["survival"].remove(card)
    g.s["survival_discard"].append(card)
    g.s["this_turn"]["survival_played"].append(seat)
    events.append({"type": "survival", "seat": seat, "card": card, "visible_to": None})
    if params:
        events.append(
            {"type": "survival_detail", "seat": seat, "card": card, **params, "visible_to": discard_audience(g)}
        )


def open_window(g: Table, kind: str, live_seats: Iterable[int], deferred: bool = False) -> None:
    live: list[str | None] = [None] * g.players
    for seat in live_seats:
        live[seat] = "wait"
    g.s["window"] = {"id": g.s["last_window_id"] + 1, "kind": kind, "live": live, "deferred": deferred}


def asked_here(w: Window, seat: int) -> bool:
    """Whether a deferred window puts its questions to ``seat``: to the seats it waited for when it first asked
    somebody (``asked``). A seat whose question appears only later in the window (a Detour moved it to a place
    with a choice) is asked in a follow-up window once this one closes (docs/rulings.md C), not played for in it
    as if it had been asked and missed its deadline."""
    asked = w.get("asked")
    return asked is None or seat in asked


def move_token(g: Table, token: Literal["creature", "target", "artemia"], params: Params) -> None:
    places = g.s["tokens"][token]
    places[places.index(params["from"])] = params["to"]
