"""Card and setup data, loaded from cards.json (a copy of the shared rules reference; never retyped here)."""

import json
from importlib import resources

_DATA = json.loads(resources.files(__package__).joinpath("cards.json").read_text(encoding="utf-8"))
_SETUP = _DATA["setup"]

CARDS = {card["id"]: card for card in _DATA["cards"]}
PLACE_NUMBERS = range(1, 11)
PLACE_ID = {card["number"]: card["id"] for card in _DATA["cards"] if card["kind"] == "place"}
HUNT_CARDS = [card["id"] for card in _DATA["cards"] if card["kind"] == "hunt"]
SURVIVAL_CARDS = [card["id"] for card in _DATA["cards"] if card["kind"] == "survival"]
PHASE = {cid: CARDS[cid]["phase"] for cid in HUNT_CARDS + SURVIVAL_CARDS}
SYMBOL = {cid: CARDS[cid]["symbol"] for cid in HUNT_CARDS}

LAIR, JUNGLE, RIVER, BEACH, ROVER, SWAMP, SHELTER, WRECK, SOURCE, ARTEFACT = PLACE_NUMBERS
STARTING_PLACES = list(_SETUP["hunted_start"]["place_cards"])
RESERVE_PLACES = [p for p in PLACE_NUMBERS if p not in STARTING_PLACES]
WILL_MAX = _SETUP["will_max"]
HUNT_HAND = _SETUP["creature_hand_refill"]

ADJACENT = {p: set() for p in PLACE_NUMBERS}
for _a, _b in _SETUP["adjacent_pairs"]:
    ADJACENT[_a].add(_b)
    ADJACENT[_b].add(_a)
ADJACENT_PAIRS = sorted(tuple(sorted(pair)) for pair in _SETUP["adjacent_pairs"])

ARTEMIA_SPACES = {int(side): frozenset(v["distances"])
                  for side, v in _SETUP["artemia_rescue_distances_by_board_side"].items()}
RESERVE_COPIES = {int(n): copies for n, copies in _SETUP["reserve_copies_per_place_6_to_10_by_total_players"].items()}
START_DISTANCES = {int(n): (v["rescue_distance"], v["assimilation_distance"])
                   for n, v in _SETUP["start_by_total_players"].items()}
PLAYERS_MIN, PLAYERS_MAX = _SETUP["players_total_range"]

# Hunt cards whose parameter is where the Target token (or, for Virus, the Artemia token) goes.
PAIR_TOKEN_CARDS = {"force-field": "target", "mirage": "target", "virus": "artemia"}
PLACE_TARGET_CARDS = {"clone", "scream", "toxin"}
SEAT_CARDS = {"anticipation", "ascendancy", "phobia"}
