"""The Observer: what each seat may see. Builds the views from the state without changing it.

view(g, seat)            everything ``seat`` may know (None: the public view, what anyone may know)
shown_waiting(g, seats)  whom the table is told a window waits for (never a seat asked only about its cards)
private_view(g, seat)    only the seat's own secrets (hand, Survival cards / Hunt cards): cheap
visible_discards(g, seat) each Hunted's discard pile as the seat sees it (None where Smokescreen hides it)
knowledge(g, seat)       everything ``seat`` may know in the state's own shape, its secrets masked: what the bots'
                         search builds its worlds from (service/game/worlds.py)
"""

import json
from typing import Any, cast

from service.game import questions
from service.game.cards import ARTEMIA_SPACES, RESERVE_PLACES
from service.game.rules.common import CREATURE, player
from service.game.rules.secrecy import is_strict
from service.game.table import Table


def private_view(g: Table, seat: int) -> dict[str, Any]:
    """What only this seat knows (the "you" part of its view)."""
    if seat == CREATURE:
        return {
            "seat": 0,
            "role": "creature",
            "hunt_cards": sorted(player(g, CREATURE)["hand"]),
            "shown_by_phobia": g.s["this_turn"]["phobia_shown"],
        }
    h = player(g, seat)
    return {
        "seat": seat,
        "role": "hunted",
        "hand": sorted(h["hand"]),
        "survival": sorted(h["survival"]),
        "drawn_to_choose": sorted(h["drawn_to_choose"]),
        "played": list(h["played"]),
    }


def visible_discards(g: Table, seat: int | None) -> dict[int, list[int] | None]:
    """Each Hunted's place discard pile as ``seat`` sees it (None where Smokescreen hides it)."""
    hidden = g.s["this_turn"]["smokescreen"] and seat in (None, CREATURE)
    return {h: None if hidden else list(player(g, h)["discard"]) for h in g.hunted_seats()}


def shown_waiting(g: Table, seats: list[int] | None = None) -> list[int]:
    """Of ``seats`` (default: whom the open window waits for now; the pipeline passes the seats the window asked,
    with the game as it opened), those the table is told it waits for.

    Under fast secrecy all but the Creature in the exploration (that it is deciding on a phase-1 card would tell
    the Hunted it holds one). Under strict secrecy the seats with a question the table knows they have: a place
    to choose, the hunt, a question of ``secrecy.PUBLIC_QUESTIONS`` (a place question with two ways without a
    Survival card); never a seat asked only about its cards (rules/secrecy.py)."""
    w = g.s["window"]
    if w is None:
        return []
    waiting = questions.waiting(g) if seats is None else list(seats)
    if not is_strict(g):
        return [seat for seat in waiting if not (w["kind"] == "explore" and seat == CREATURE)]
    if w["kind"] in ("setup", "explore", "hunt"):
        return [seat for seat in waiting if w["live"][seat] != "may"]
    return [seat for seat in waiting if questions.has_public_question(g, seat)]


def cards_pending(g: Table, seats: list[int] | None = None) -> bool:
    """Under strict secrecy, whether the window waits for a seat the table is not told of (`shown_waiting`): "a
    card may still be played", without saying by whom. (Under fast secrecy the table is told everybody but the
    Creature deciding on a phase-1 card, and not that either.)"""
    if not is_strict(g):
        return False
    waiting = questions.waiting(g) if seats is None else list(seats)
    return len(shown_waiting(g, waiting)) < len(waiting)


def view(g: Table, seat: int | None) -> dict[str, Any]:
    s, t = g.s, g.s["this_turn"]
    shown = shown_waiting(g)
    pending = is_strict(g) and len(shown) < len(questions.waiting(g))  # `cards_pending`, without working them out again
    hidden_discards = t["smokescreen"] and seat in (None, CREATURE)
    revealed = t["revealed"]
    w = s["window"]
    creature = s["players"][CREATURE]
    result: dict[str, Any] = {
        "turn": s["turn"],
        "side": s["side"],
        "expert": s["config"]["expert"],
        "secrecy": s["config"]["secrecy"],
        "window": None if w is None else {"id": w["id"], "kind": w["kind"], "waiting": shown, "cards_pending": pending},
        "winner": s["winner"],
        "rescue": s["rescue"],
        "assimilation": s["assimilation"],
        "marker_on_beach": s["marker_on_beach"],
        "artemia_spaces": sorted(ARTEMIA_SPACES[s["side"]]) if s["side"] else [],
        "reserve": {str(p): s["reserve"][p] for p in RESERVE_PLACES},
        "tokens": {k: list(v) for k, v in cast(dict[str, list[int]], s["tokens"]).items()},
        "hunt_cards_played": [dict(e) for e in t["hunt_cards"]],
        "hunt_deck": len(s["hunt_deck"]),
        "hunt_discard": list(s["hunt_discard"]),
        "survival_deck": len(s["survival_deck"]),
        "survival_discard": list(s["survival_discard"]),
        "creature": {"hunt_cards": len(creature["hand"])},
        "hunted": [],
    }
    for other in g.hunted_seats():
        h = player(g, other)
        result["hunted"].append(
            {
                "seat": other,
                "will": h["will"],
                "hand": len(h["hand"]),
                "survival": len(h["survival"]),
                "drawn_to_choose": len(h["drawn_to_choose"]),
                "pending": h["pending"],
                "next_turn": h["next_turn"],
                "discard": None if hidden_discards else list(h["discard"]),
                "played": list(h["positions"]) if revealed else len(h["played"]),
            }
        )
    if seat is not None:
        result["you"] = private_view(g, seat)
    return result


def knowledge(g: Table, seat: int) -> dict[str, Any]:
    """What ``seat`` may know, as a copy of the state with every secret masked: a list of cards the seat may not
    see is replaced by its length (other hands, Survival cards and cards drawn to choose, the cards played face
    down before the reveal, the decks, the discard piles under Smokescreen for the Creature), the seed by None,
    and other seats' recorded answers, plans and "could play" notes are left out. ``"seat"`` says whose it is.
    Who is asked (the window, the turn's agenda) stays: under ``secrecy: "fast"`` that tells who holds a card, as
    it tells the table."""
    k: dict[str, Any] = json.loads(g.to_json())
    t = k["this_turn"]
    k["seat"] = seat
    k["config"]["seed"] = None
    k["hunt_deck"], k["survival_deck"] = len(k["hunt_deck"]), len(k["survival_deck"])
    k["orders"] = [orders if other == seat else [] for other, orders in enumerate(k["orders"])]
    t["answered"] = [key for key in t["answered"] if key.split(":")[0] == str(seat)]
    t["on_call"] = [other for other in t["on_call"] if other == seat]
    if k["window"] is not None and "passed" in k["window"]:
        k["window"]["passed"] = {s: v for s, v in k["window"]["passed"].items() if s == str(seat)}
    if seat != CREATURE:
        k["players"][CREATURE]["hand"] = len(k["players"][CREATURE]["hand"])
        shown = t["phobia_shown"]
        if shown is not None and shown["seat"] != seat:
            t["phobia_shown"] = {"seat": shown["seat"], "cards": len(shown["cards"])}
    for other in g.hunted_seats():
        h = k["players"][other]
        if other != seat:
            for key in ("hand", "survival", "drawn_to_choose"):
                h[key] = len(h[key])
            if not t["revealed"]:
                h["played"] = len(h["played"])
        if seat == CREATURE and t["smokescreen"]:
            h["discard"] = len(h["discard"])
    return k
