"""Card and setup data, loaded from cards.json (a copy of the rules reference; never retyped here).

The rules of each Hunt and Survival card (parameters, effect, when it is played) are in registry.py.
"""

import json
from importlib import resources
from typing import Any

_DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("cards.json").read_text(encoding="utf-8"))
_SETUP: dict[str, Any] = _DATA["setup"]

CARDS: dict[str, dict[str, Any]] = {card["id"]: card for card in _DATA["cards"]}
PLACE_NUMBERS = range(1, 11)
PLACE_ID: dict[int, str] = {card["number"]: card["id"] for card in _DATA["cards"] if card["kind"] == "place"}
HUNT_CARDS: list[str] = [card["id"] for card in _DATA["cards"] if card["kind"] == "hunt"]
SURVIVAL_CARDS: list[str] = [card["id"] for card in _DATA["cards"] if card["kind"] == "survival"]

LAIR, JUNGLE, RIVER, BEACH, ROVER, SWAMP, SHELTER, WRECK, SOURCE, ARTEFACT = PLACE_NUMBERS
STARTING_PLACES: list[int] = list(_SETUP["hunted_start"]["place_cards"])
RESERVE_PLACES: list[int] = [p for p in PLACE_NUMBERS if p not in STARTING_PLACES]
WILL_MAX: int = _SETUP["will_max"]
HUNT_HAND: int = _SETUP["creature_hand_refill"]

ADJACENT: dict[int, set[int]] = {p: set() for p in PLACE_NUMBERS}
for _a, _b in _SETUP["adjacent_pairs"]:
    ADJACENT[_a].add(_b)
    ADJACENT[_b].add(_a)
ADJACENT_PAIRS: list[tuple[int, ...]] = sorted(tuple(sorted(pair)) for pair in _SETUP["adjacent_pairs"])

ARTEMIA_SPACES: dict[int, frozenset[int]] = {
    int(side): frozenset(v["distances"]) for side, v in _SETUP["artemia_rescue_distances_by_board_side"].items()
}
RESERVE_COPIES: dict[int, int] = {
    int(n): copies for n, copies in _SETUP["reserve_copies_per_place_6_to_10_by_total_players"].items()
}
START_DISTANCES: dict[int, tuple[int, int]] = {
    int(n): (v["rescue_distance"], v["assimilation_distance"]) for n, v in _SETUP["start_by_total_players"].items()
}
PLAYERS_MIN, PLAYERS_MAX = _SETUP["players_total_range"]
