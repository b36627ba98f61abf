"""Card and setup data, loaded from cards.json (a copy of the rules reference; never retyped here).

The rules of each Hunt and Survival card (parameters, effect, when it is played) are in registry.py.
"""

import json
from importlib import resources
from typing import Any, Final

_DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("cards.json").read_text(encoding="utf-8"))
_SETUP: dict[str, Any] = _DATA["setup"]

CARDS: Final[dict[str, dict[str, Any]]] = {card["id"]: card for card in _DATA["cards"]}
PLACE_NUMBERS: Final = range(1, 11)
PLACE_ID: Final[dict[int, str]] = {card["number"]: card["id"] for card in _DATA["cards"] if card["kind"] == "place"}
HUNT_CARDS: Final[list[str]] = [card["id"] for card in _DATA["cards"] if card["kind"] == "hunt"]
SURVIVAL_CARDS: Final[list[str]] = [card["id"] for card in _DATA["cards"] if card["kind"] == "survival"]

# The places by number (as the rules reference numbers them; Final: compiled, each is a constant)
LAIR: Final = 1
JUNGLE: Final = 2
RIVER: Final = 3
BEACH: Final = 4
ROVER: Final = 5
SWAMP: Final = 6
SHELTER: Final = 7
WRECK: Final = 8
SOURCE: Final = 9
ARTEFACT: Final = 10
STARTING_PLACES: Final[list[int]] = list(_SETUP["hunted_start"]["place_cards"])
RESERVE_PLACES: Final[list[int]] = [p for p in PLACE_NUMBERS if p not in STARTING_PLACES]
WILL_MAX: Final[int] = _SETUP["will_max"]
HUNT_HAND: Final[int] = _SETUP["creature_hand_refill"]

ADJACENT: Final[dict[int, set[int]]] = {p: set() for p in PLACE_NUMBERS}
for _a, _b in _SETUP["adjacent_pairs"]:
    ADJACENT[_a].add(_b)
    ADJACENT[_b].add(_a)
ADJACENT_PAIRS: Final[list[tuple[int, ...]]] = sorted(tuple(sorted(pair)) for pair in _SETUP["adjacent_pairs"])

ARTEMIA_SPACES: Final[dict[int, frozenset[int]]] = {
    int(side): frozenset(v["distances"]) for side, v in _SETUP["artemia_rescue_distances_by_board_side"].items()
}
RESERVE_COPIES: Final[dict[int, int]] = {
    int(n): copies for n, copies in _SETUP["reserve_copies_per_place_6_to_10_by_total_players"].items()
}
START_DISTANCES: Final[dict[int, tuple[int, int]]] = {
    int(n): (v["rescue_distance"], v["assimilation_distance"]) for n, v in _SETUP["start_by_total_players"].items()
}
PLAYERS_MIN: Final[int] = _SETUP["players_total_range"][0]
PLAYERS_MAX: Final[int] = _SETUP["players_total_range"][1]
