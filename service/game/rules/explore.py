"""Phase 1, Exploration: each Hunted may Resist, Give Up or play a phase-1 Survival card, then plays a place card
face down; a Hunted who drew two Survival cards at the Shelter first keeps one of each pair."""

import itertools
from typing import Final

from service.game.cards import PLACE_NUMBERS, WILL_MAX
from service.game.rules.common import combos, discard_audience, move_counter, player, take_back
from service.game.rules.play_cards import survival_options
from service.game.state import Action, Event
from service.game.table import Table

# Playing one place card: the same few options every turn, shared (as the token options are): options are read,
# never changed (the state and the events get copies of the cards played).
_PLAY_ONE: Final = {c: {"type": "play", "cards": [c]} for c in PLACE_NUMBERS}


def explore_options(g: Table, seat: int) -> list[Action]:
    h = g.s["players"][seat]
    if h["drawn_to_choose"]:  # pairs drawn at the Shelter, chosen one pair at a time
        return [{"type": "keep_survival", "card": c} for c in h["drawn_to_choose"][:2]]
    options: list[Action] = []
    discard = h["discard"]
    if discard and h["will"] >= 2:
        options += [{"type": "resist", "cards": c} for c in combos(discard, 2)]
        if h["will"] == 3 and len(discard) > 2:
            options += [{"type": "resist", "cards": c} for c in combos(discard, 4)]
    if h["will"] < WILL_MAX or discard:
        options.append({"type": "giveup"})
    options += survival_options(g, seat, 1)
    forbidden = g.s["this_turn"]["force_field"]
    playable = sorted(h["hand"])
    if forbidden:
        playable = [c for c in playable if c not in forbidden]
    if h["pending"] == "artefact":
        options += [{"type": "play", "cards": [a, b]} for a in playable for b in playable if a != b]
    elif h["pending"] == "river":
        options += [{"type": "play", "cards": [a, b]} for a, b in itertools.combinations(playable, 2)]
    else:
        options += [_PLAY_ONE[c] for c in playable]
    return options


def play(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    h = player(g, seat)
    h["played"] = list(action["cards"])
    h["hand"] = [c for c in h["hand"] if c not in action["cards"]]
    events.append({"type": "played", "seat": seat, "cards": list(action["cards"]), "visible_to": [seat]})
    events.append({"type": "locked_in", "seat": seat, "visible_to": None})


def keep_survival(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    h = player(g, seat)
    pair, h["drawn_to_choose"] = h["drawn_to_choose"][:2], h["drawn_to_choose"][2:]
    h["survival"].append(action["card"])
    g.s["survival_discard"] += [c for c in pair if c != action["card"]]
    events.append({"type": "kept_survival", "seat": seat, "visible_to": None})


def resist(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    h = player(g, seat)
    h["will"] -= 1 if len(action["cards"]) <= 2 else 2
    take_back(h, action["cards"])
    events.append({"type": "resist", "seat": seat, "will": h["will"], "visible_to": None})
    events.append({"type": "took_back", "seat": seat, "cards": action["cards"], "visible_to": discard_audience(g)})


def giveup(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    h = player(g, seat)
    h["will"] = WILL_MAX
    h["hand"] += h["discard"]
    h["discard"] = []
    events.append({"type": "giveup", "seat": seat, "visible_to": None})
    move_counter(g, "assimilation", events)
