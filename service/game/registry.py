"""The card table: one entry per Hunt and Survival card, read top to bottom. Nothing registers itself elsewhere.

Each entry says what the card is (kind, phase 1-4, symbol, as in cards.json — a test checks they agree), the
parameters a player gives when playing it, in the order they are typed (the command language reads them here),
and its rules as plain functions (service/game/rules/survival.py, hunt_cards.py):

    options(g, seat)                  -> the parameter dicts it may be played with now ([] = not now)
    effect(g, seat, action, events)   what it does when played
    hooks, only where a card changes a later step of the turn:
      before_reveal(g) -> tasks       questions it asks before the reveal (Forbidden Zone, Ascendancy, Phobia)
      asks_before_reveal(g, seat)     a Survival card offered by its own question before the reveal (Vortex)
      at_target: True                 a question for every Hunted on the Target token (Scream, Toxin)
      ineffective(g, place) -> bool   the places whose power it cancels (Mirage, Toxin, Interference, Cataclysm)
      later: "..."                    other steps whose rules ask ``has(g, card)`` (named for the reader)

Adding a Survival card: its entry in cards.json (names, phase, text), its entry here, its two functions in
rules/survival.py, its names in service/cardnames.py, and a test.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from service.game.cards import BEACH, WRECK
from service.game.rules import hunt_cards as hunt
from service.game.rules import survival as surv
from service.game.rules.common import entry, player
from service.game.state import Action, Event, Params, Task
from service.game.table import Table

Options = Callable[[Table, int], list[Params]]
Effect = Callable[[Table, int, Action, list[Event]], None]


@dataclass(frozen=True)
class Card:
    id: str
    kind: str  # "hunt" | "survival"
    phase: int | None  # when it is played: 1 Exploration, 2 Hunting, 3 Reckoning, 4 end of turn
    symbol: str | None  # Hunt cards: "artemia" (the Artemia token comes into play) or "target"
    params: tuple[str, ...]  # its parameters, in typed order ("places"/"cards" are lists)
    options: Options
    effect: Effect
    target_optional: bool = False  # its place parameter is left out when the Target token is already placed
    via: bool = False  # played as the way to use a place's power (Drone, Gate)
    copies: bool = False  # plays as the last discarded Hunt card (Flashback)
    before_reveal: Callable[[Table], list[Task]] | None = None
    asks_before_reveal: Callable[[Table, int], bool] | None = None
    at_target: bool = False
    ineffective: Callable[[Table, int], bool] | None = None
    later: str = ""


# ---------------------------------------------------------------------------------------------- hooks
def _forbidden_zone_tasks(g: Table) -> list[Task]:
    return [["fz", seat] for seat in g.hunted_seats() if player(g, seat)["hand"]]


def _ascendancy_tasks(g: Table) -> list[Task]:
    return [["ascendancy", entry(g, "ascendancy")["seat"]]]


def _phobia_tasks(g: Table) -> list[Task]:
    return [["phobia", entry(g, "phobia")["seat"]]]


def _target_cancels(g: Table, place: int) -> bool:
    return place in g.s["tokens"]["target"]  # with Clone too: both Target cards apply there (the seed)


def _beach_and_wreck(g: Table, place: int) -> bool:
    return place in (BEACH, WRECK)


def _cataclysm_place(g: Table, place: int) -> bool:
    return bool(entry(g, "cataclysm")["place"] == place)


# ---------------------------------------------------------------------------------------------- the table
# One card per entry, read top to bottom: the formatter would spread each over ten lines.
# fmt: off
CARD_LIST: Final[list[Card]] = [
    # Hunt cards ----------------------------------------------------------------------------------------------
    Card("despair", "hunt", 1, "artemia", (), hunt.no_parameters, hunt.despair,
         later="no Survival card this turn, nor from the Shelter or the Source"),
    Card("force-field", "hunt", 1, "target", ("places",), hunt.target_pair, hunt.force_field, target_optional=True),
    Card("anticipation", "hunt", 2, None, ("seat",), hunt.any_hunted, hunt.no_effect,
         later="Reckoning: catching that Hunted moves the Assimilation counter once more"),
    # before the reveal, these ask their questions in this order
    Card("forbidden-zone", "hunt", 2, None, (), hunt.no_parameters, hunt.no_effect,
         before_reveal=_forbidden_zone_tasks),
    Card("ascendancy", "hunt", 2, None, ("seat",), hunt.hunted_with_three_cards, hunt.no_effect,
         before_reveal=_ascendancy_tasks),
    Card("phobia", "hunt", 2, "artemia", ("seat",), hunt.hunted_with_three_cards, hunt.no_effect,
         before_reveal=_phobia_tasks),
    Card("fierceness", "hunt", 2, None, (), hunt.no_parameters, hunt.no_effect,
         later="Reckoning: the Creature token takes 1 more Will"),
    Card("interference", "hunt", 2, None, (), hunt.no_parameters, hunt.no_effect, ineffective=_beach_and_wreck),
    Card("persecution", "hunt", 2, None, (), hunt.no_parameters, hunt.no_effect,
         later="Reckoning: the Lair, Jungle and Swamp take back one card only"),
    Card("mutation", "hunt", 2, "artemia", (), hunt.no_parameters, hunt.no_effect,
         later="Reckoning: the Artemia token also takes 1 Will"),
    Card("virus", "hunt", 2, "artemia", ("places",), hunt.adjacent_pair, hunt.place_artemia_pair),
    Card("clone", "hunt", 2, "target", ("place",), hunt.target_place, hunt.place_target, target_optional=True,
         later="Reckoning: the Target token acts as the Creature token"),
    Card("mirage", "hunt", 2, "target", ("places",), hunt.target_pair, hunt.place_target_pair,
         target_optional=True, ineffective=_target_cancels),
    # at the Target token, these ask their questions in this order
    Card("scream", "hunt", 2, "target", ("place",), hunt.target_place, hunt.place_target, target_optional=True,
         at_target=True),
    Card("toxin", "hunt", 2, "target", ("place",), hunt.target_place, hunt.place_target, target_optional=True,
         at_target=True, ineffective=_target_cancels),
    Card("cataclysm", "hunt", 3, None, ("place",), hunt.any_place, hunt.no_effect, ineffective=_cataclysm_place),
    Card("detour", "hunt", 3, None, ("seat", "from", "to"), hunt.detour_options, hunt.detour),
    Card("stasis", "hunt", 4, None, (), hunt.no_parameters, hunt.stasis),
    Card("tracking", "hunt", 4, None, (), hunt.no_parameters, hunt.tracking),
    Card("flashback", "hunt", None, None, (), hunt.no_parameters, hunt.no_effect, copies=True),
    # Survival cards ------------------------------------------------------------------------------------------
    Card("adrenaline", "survival", 1, None, (), surv.adrenaline_options, surv.adrenaline),
    Card("ingenuity", "survival", 1, None, (), surv.ingenuity_options, surv.ingenuity),
    Card("sacrifice", "survival", 1, None, ("discard",), surv.sacrifice_options, surv.sacrifice),
    Card("sixth-sense", "survival", 1, None, ("cards",), surv.sixth_sense_options, surv.sixth_sense),
    Card("smokescreen", "survival", 1, None, (), surv.smokescreen_options, surv.smokescreen),
    Card("strike-back", "survival", 1, None, (), surv.strike_back_options, surv.strike_back),
    Card("vortex", "survival", 2, None, ("give", "take"), surv.offered_elsewhere, surv.vortex,
         asks_before_reveal=surv.vortex_asks),
    Card("detector", "survival", 3, None, (), surv.detector_options, surv.detector),
    Card("dodge", "survival", 3, None, (), surv.dodge_options, surv.dodge),
    Card("drone", "survival", 3, None, (), surv.offered_elsewhere, surv.no_effect, via=True),
    Card("gate", "survival", 3, None, (), surv.offered_elsewhere, surv.no_effect, via=True),
    Card("hologram", "survival", 3, None, ("from", "to"), surv.hologram_options, surv.hologram),
    Card("wrong-track", "survival", 3, None, ("from", "to"), surv.wrong_track_options, surv.wrong_track),
    Card("amplifier", "survival", 4, None, (), surv.amplifier_options, surv.amplifier),
    Card("double-back", "survival", 4, None, ("place",), surv.double_back_options, surv.double_back),
]
# fmt: on

CARD_RULES: Final[dict[str, Card]] = {card.id: card for card in CARD_LIST}
BEFORE_REVEAL: Final = [card for card in CARD_LIST if card.before_reveal]
AT_TARGET: Final = [card.id for card in CARD_LIST if card.at_target]
INEFFECTIVE: Final = {card.id: card.ineffective for card in CARD_LIST if card.ineffective}
ASKS_BEFORE_REVEAL: Final = [card for card in CARD_LIST if card.asks_before_reveal]
