"""The game state: one plain JSON-able dict, described here by TypedDicts, and the migration of old snapshots.

The state is stored (in Redis, as JSON) between messages and copied often, so it stays plain dicts and lists of
ints and strings: no objects, no tuples, no int keys. ``Game.s`` is a :class:`State`.

Format versions (``"version"``; a state without one is format 0):

    0  terse keys ("t", "surv", "limbo", "ff"...), before issue 11
    1  readable keys (``RENAMES`` maps each old key to its new name)
    2  the table setting ``secrecy`` in the config (format 1 games play as ``fast``)
    3  ``this_turn["on_call"]``: who asked to be asked about cards later in the turn (a format-2 turn: everybody)

``migrate`` brings any older snapshot to the current format; ``Game.from_json`` applies it.
"""

from typing import Any, Literal, NotRequired, TypedDict

FORMAT_VERSION = 3

# Plain JSON shapes passed around by the rules: actions, events and an action's parameters (all dicts of JSON).
Action = dict[str, Any]
Event = dict[str, Any]
Params = dict[str, Any]
Task = list[Any]  # an agenda entry: [task name, *arguments], e.g. ["resolve", 2, 7]

Counter = Literal["rescue", "assimilation"]
TokenName = Literal["creature", "target", "artemia"]


class Config(TypedDict):
    players: int
    seed: int
    side: int | None
    expert: bool
    secrecy: Literal["strict", "fast"]  # see rules/secrecy.py


class Player(TypedDict):
    """A seat. The Creature (seat 0) has only ``hand`` (its Hunt cards) and ``played``; the Hunted have all."""

    hand: list[Any]  # Hunt card ids (the Creature) or place numbers (a Hunted)
    played: list[Any]  # cards played this turn
    discard: NotRequired[list[int]]  # the Hunted's place discard pile
    positions: NotRequired[list[int]]  # where the Hunted is once the cards are revealed (a Detour may move it)
    will: NotRequired[int]
    survival: NotRequired[list[str]]  # Survival cards in hand
    drawn_to_choose: NotRequired[list[str]]  # Survival cards drawn at the Shelter, kept one of each pair
    pending: NotRequired[str | None]  # "river" | "artefact": the effect of last turn's River or Artefact
    next_turn: NotRequired[str | None]  # "river" | "artefact": used this turn, pending next turn


class Tokens(TypedDict):
    creature: list[int]
    target: list[int]
    artemia: list[int]


class ThisTurn(TypedDict):
    """What happened this turn; reset when a turn starts."""

    hunt_cards: list[dict[str, Any]]  # the hunt_card actions played, without "type", with "as" (the effect played:
    #                                   Flashback's copy); views and events show these entries as they are
    hunt_effects: list[str]  # the effects of those cards (Flashback counts as its copy)
    hunt_card_limit: int  # how many Hunt cards the Creature may play this turn (2 after Tracking)
    survival_played: list[int]  # seats that played a Survival card this turn (one each)
    answered: list[str]  # "seat:question" of the deferred questions answered this turn
    despair: bool
    sacrifice: bool
    smokescreen: bool
    force_field: list[int]  # the places the Force Field forbids
    dodged: list[int]  # seats that played Dodge
    detected: list[int]  # seats that played Detector
    beach_used: bool
    wreck_used: bool
    catch_counted: bool  # the Assimilation step for catching somebody was taken
    zero_will_counted: bool  # the Assimilation step for somebody losing their last Will was taken
    anticipation_counted: bool
    stasis: bool
    revealed: bool
    phobia_shown: dict[str, Any] | None  # {"seat": h, "cards": [...]}: what Phobia showed the Creature
    artemia_space: bool  # the Rescue counter is on an Artemia space: the Artemia token is placed
    on_call: list[int]  # the seats asked about their cards later this turn (rules/secrecy.py)


class Window(TypedDict):
    id: int
    kind: str  # setup | explore | hunt | prereveal | reckoning | end
    # per seat: "wait" (asked now), "may" (asked, not waited for: see rules/secrecy.py and the hunt's questions
    # ahead), "done" (answered) or None (not asked)
    live: list[str | None]
    deferred: bool  # collects answers to deferred questions (agenda tasks)
    passed: NotRequired[dict[str, list[str]]]  # card windows: the cards each seat could play when it passed
    asked: NotRequired[list[int]]  # the seats it waited for when it first asked somebody (`rules.common.asked_here`)


class Order(TypedDict):
    key: str | None  # the question it answers; None: a plan, answers the first question it fits
    action: Action


class State(TypedDict):
    version: int
    config: Config
    rng_draws: int  # how many times the seeded randomness was drawn
    side: int | None
    turn: int
    last_window_id: int  # the id of the last window that waited for somebody
    window: Window | None
    winner: str | None
    rescue: int
    assimilation: int
    marker_on_beach: bool
    reserve: list[int]  # copies left in the reserve by place number (index 0 unused)
    hunt_deck: list[str]
    hunt_discard: list[str]
    survival_deck: list[str]
    survival_discard: list[str]
    players: list[Player]
    tokens: Tokens
    this_turn: ThisTurn
    hunt_card_limit_next: int
    orders: list[list[Order]]  # per seat: recorded answers and plans
    agenda: list[Task]  # the tasks left in this turn, first = next


def new_this_turn(limit: int) -> ThisTurn:
    return {
        "hunt_cards": [],
        "hunt_effects": [],
        "hunt_card_limit": limit,
        "survival_played": [],
        "answered": [],
        "despair": False,
        "sacrifice": False,
        "smokescreen": False,
        "force_field": [],
        "dodged": [],
        "detected": [],
        "beach_used": False,
        "wreck_used": False,
        "catch_counted": False,
        "zero_will_counted": False,
        "anticipation_counted": False,
        "stasis": False,
        "revealed": False,
        "phobia_shown": None,
        "artemia_space": False,
        "on_call": [],
    }


# ---------------------------------------------------------------------------------------------- migration
# Format 0 -> 1: old key -> new key, per part of the state.
RENAMES: dict[str, dict[str, str]] = {
    "state": {
        "rng": "rng_draws",
        "wid": "last_window_id",
        "marker": "marker_on_beach",
        "t": "this_turn",
        "limit_next": "hunt_card_limit_next",
    },
    "hunted": {"surv": "survival", "limbo": "drawn_to_choose", "pos": "positions", "next": "next_turn"},
    "this_turn": {
        "cards": "hunt_cards",
        "effects": "hunt_effects",
        "limit": "hunt_card_limit",
        "surv": "survival_played",
        "smoke": "smokescreen",
        "ff": "force_field",
        "dodge": "dodged",
        "detector": "detected",
        "beach": "beach_used",
        "wreck": "wreck_used",
        "caught": "catch_counted",
        "zero": "zero_will_counted",
        "anticipated": "anticipation_counted",
        "phobia": "phobia_shown",
        "artemia_board": "artemia_space",
    },
}


def _renamed(part: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in part.items()}


def migrate(raw: dict[str, Any]) -> State:
    """A snapshot of any format as a current-format state (the same dict when it is current)."""
    version = raw.get("version", 0)
    if version > FORMAT_VERSION:
        raise ValueError(f"game state format {version} is newer than this engine's ({FORMAT_VERSION})")
    if version == 0:
        raw = _renamed(raw, RENAMES["state"])
        raw["version"] = 1
        raw["players"] = [raw["players"][0]] + [_renamed(h, RENAMES["hunted"]) for h in raw["players"][1:]]
        # before the first turn (the setup window) format 0 kept an empty "t"
        raw["this_turn"] = _renamed(raw["this_turn"], RENAMES["this_turn"]) if raw["this_turn"] else new_this_turn(1)
    if version <= 1:
        raw["version"] = 2
        raw["config"]["secrecy"] = "fast"  # format 1 had no secrecy setting: windows waited only for holders
    if version <= 2:
        raw["version"] = 3
        # Format 2 asked every seat that might hold a card: the turn under way goes on asking every holder.
        raw["this_turn"]["on_call"] = list(range(len(raw["players"])))
    state: State = raw  # type: ignore[assignment]  # checked by shape above: JSON from a stored game
    return state
