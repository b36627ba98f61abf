"""Phase 3, the Reckoning, in rule order: token-free places (seat order), then the Target, Artemia and Creature
tokens; then every Hunted who lost their last Will gives up (``zero``)."""

from typing import Final

from service.game.answers import decide
from service.game.cards import (
    ADJACENT,
    ARTEFACT,
    BEACH,
    JUNGLE,
    LAIR,
    PLACE_NUMBERS,
    RESERVE_PLACES,
    RIVER,
    ROVER,
    SHELTER,
    SOURCE,
    SWAMP,
    WILL_MAX,
    WRECK,
)
from service.game.registry import AT_TARGET, INEFFECTIVE
from service.game.rules.common import (
    can_survive,
    combos,
    creature_places,
    discard_audience,
    discard_from_hand,
    draw,
    entry,
    has,
    lose_will,
    move_counter,
    owned,
    player,
    spend_survival,
    survival_available,
)
from service.game.rules.secrecy import PASS, on_call
from service.game.state import Action, Event, Task
from service.game.table import Table


def reckon_tasks(g: Table) -> list[Task]:
    """The Reckoning's steps in rule order: free places, then Target, Artemia and Creature tokens.

    Under Clone the Target token also acts as a Creature token, and a second Target card (Scream, Toxin) still
    applies there: a Hunted on it suffers that card at the Target step, then is caught at the Creature step."""
    tokens = g.s["tokens"]
    t = g.s["this_turn"]
    target_cards = [c for c in AT_TARGET if has(g, c)]
    creature = creature_places(g)
    free: list[Task] = []
    target: list[Task] = []
    artemia: list[Task] = []
    caught: list[Task] = []
    for seat in g.hunted_seats():
        for p in g.s["players"][seat]["positions"]:
            on_target = p in tokens["target"]
            on_artemia = p in tokens["artemia"] and seat not in t["detected"]
            is_caught = p in creature and seat not in t["dodged"]
            if is_caught:
                caught.append(["catch", seat, p])
            if on_artemia:
                artemia.append(["artemia", seat, p])
            if on_target:
                target += [[card, seat, p] for card in target_cards]
            if not (is_caught or on_artemia):
                (target if on_target else free).append(["resolve", seat, p])
    return free + target + artemia + caught


def ineffective(g: Table, p: int) -> bool:
    """Whether a Hunt card played this turn cancels the power of place p."""
    for card in g.s["this_turn"]["hunt_effects"]:  # a plain loop: most turns have one or two, often none
        cancels = INEFFECTIVE.get(card)
        if cancels is not None and cancels(g, p):
            return True
    return False


# ---------------------------------------------------------------------------------------------- using a place
# Taking back a discarded card at a place: shared options, as the token options are (read, never changed).
_TAKEBACK: Final = {p: {d: {"type": "takeback", "place": p, "card": d} for d in PLACE_NUMBERS} for p in PLACE_NUMBERS}


def resolve_question(g: Table, seat: int, p: int) -> list[Action]:
    """How the Hunted may use the place p: its power (or another's, via the Lair, Drone or Gate), or take back
    one discarded card instead. A Survival card is never the only answer: when every way offered spends one,
    ``pass`` (use neither the place nor the card) is offered too. The Drone and the Gate are offered to a seat
    on call only (`secrecy.on_call`)."""
    if ineffective(g, p):
        return []
    h = g.s["players"][seat]
    options = power_options(g, seat, p, p, None)
    if p == LAIR:
        for q in sorted(set(creature_places(g)) - {LAIR, ARTEFACT}):
            options += power_options(g, seat, p, q, "lair")
    with_card: list[Action] = []
    if can_survive(g, seat) and on_call(g, seat):
        if "drone" in h["survival"] and p != ROVER:
            with_card += power_options(g, seat, p, ROVER, "drone")
        if "gate" in h["survival"]:
            for q in sorted(ADJACENT[p] - {ARTEFACT}):
                with_card += power_options(g, seat, p, q, "gate")
    without_card = options + [_TAKEBACK[p][d] for d in sorted(h["discard"])]
    if not without_card and with_card:
        return with_card + [PASS]
    return options + with_card + without_card[len(options) :]


def this_card(g: Table, seat: int, p: int) -> int | None:
    """The place card a Hunted played for the position p (differs from p only after a Detour)."""
    h = player(g, seat)
    card = (
        h["played"][h["positions"].index(p)] if p in h["positions"] and len(h["played"]) == len(h["positions"]) else p
    )
    return card if card in h["played"] else None


def power_options(g: Table, seat: int, p: int, use: int, via: str | None) -> list[Action]:
    s, t = g.s, g.s["this_turn"]
    h = g.s["players"][seat]
    base: Action = {"type": "power", "place": p, "use": use}
    if via:
        base["via"] = via
    if use in (LAIR, JUNGLE, SWAMP):
        discard = sorted(h["discard"])
        persecution = has(g, "persecution")
        this = [] if use == LAIR else [c for c in [this_card(g, seat, p)] if c is not None]
        if use == LAIR:
            takes = [[d] for d in discard] if persecution else ([discard] if discard else [])
        elif persecution:
            takes = [this] * bool(this) + [[d] for d in discard]
        else:
            takes = [sorted(this + c) for c in (combos(discard, 1 if use == JUNGLE else 2) or [[]])]
        return [{**base, "take": take} for take in takes if take]
    if use in (RIVER, ARTEFACT):
        other = "artefact" if use == RIVER else "river"
        return [base] if h["next_turn"] != other else []
    if use == BEACH:
        return [base] if not t["beach_used"] else []
    if use == WRECK:
        return [base] if not t["wreck_used"] else []
    if use == ROVER:
        mine = owned(h)
        return [{**base, "reserve": r} for r in RESERVE_PLACES if s["reserve"][r] and r not in mine]
    if use == SHELTER:
        return [base] if not t["despair"] and survival_available(g) else []
    if use == SOURCE:
        options = [{**base, "heal": x} for x in g.hunted_seats() if 0 < player(g, x)["will"] < WILL_MAX]
        if not t["despair"] and survival_available(g):
            options.append({**base, "draw": True})
        return options
    return []


def resolve(g: Table, events: list[Event], seat: int, p: int) -> None:
    options = resolve_question(g, seat, p)
    if not options:
        return
    action = decide(g, seat, f"resolve:{p}", options, events)
    h = player(g, seat)
    if action["type"] == "pass":  # neither the place (already used) nor a Survival card
        return
    if action["type"] == "takeback":
        h["discard"].remove(action["card"])
        h["hand"].append(action["card"])
        events.append({"type": "takeback", "seat": seat, "card": action["card"], "visible_to": discard_audience(g)})
        return
    if action.get("via") in ("drone", "gate"):
        spend_survival(g, seat, action["via"], events)
    use_power(g, seat, action, events)


def use_power(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    s, t = g.s, g.s["this_turn"]
    h = player(g, seat)
    use = action["use"]
    events.append(
        {
            "type": "power",
            "seat": seat,
            "visible_to": None,
            **{k: v for k, v in action.items() if k not in ("type", "take")},
        }
    )
    if action.get("take"):
        events.append({"type": "took_back", "seat": seat, "cards": action["take"], "visible_to": discard_audience(g)})
    for card in action.get("take", ()):
        (h["discard"] if card in h["discard"] else h["played"]).remove(card)
        h["hand"].append(card)
    if use in (RIVER, ARTEFACT):
        h["next_turn"] = "river" if use == RIVER else "artefact"
    elif use == BEACH:
        t["beach_used"] = True
        s["marker_on_beach"] = not s["marker_on_beach"]
        if not s["marker_on_beach"]:
            move_counter(g, "rescue", events)
    elif use == WRECK:
        t["wreck_used"] = True
        move_counter(g, "rescue", events)
    elif use == ROVER:
        s["reserve"][action["reserve"]] -= 1
        h["hand"].append(action["reserve"])
    elif use == SHELTER:
        drawn = [c for c in (draw(g, "survival") for _ in range(2)) if c]
        if len(drawn) == 2:
            h["drawn_to_choose"] += drawn  # a second Shelter this turn queues its own pair
        else:
            h["survival"] += drawn
        events.append({"type": "drawn", "seat": seat, "cards": drawn, "visible_to": [seat]})
    elif use == SOURCE:
        if "heal" in action:
            player(g, action["heal"])["will"] += 1
        else:
            card = draw(g, "survival")
            h["survival"].append(card)
            events.append({"type": "drawn", "seat": seat, "cards": [card], "visible_to": [seat]})
            if seat not in g.s["this_turn"]["on_call"]:  # a card drawn in the open may be played at once
                g.s["this_turn"]["on_call"].append(seat)


# ---------------------------------------------------------------------------------------------- the tokens
def scream_question(g: Table, seat: int, p: int) -> list[Action]:
    hand = player(g, seat)["hand"]
    return [{"type": "lose_will"}] + (
        [{"type": "discard", "cards": c} for c in combos(hand, 2)] if len(hand) >= 2 else []
    )


def scream(g: Table, events: list[Event], seat: int, p: int) -> None:
    action = decide(g, seat, f"scream:{p}", scream_question(g, seat, p), events)
    if action["type"] == "lose_will":
        lose_will(g, seat, 1, events)
    else:
        discard_from_hand(g, seat, action["cards"], events)


def toxin_question(g: Table, seat: int, p: int) -> list[Action]:
    return [{"type": "discard_survival", "card": c} for c in sorted(set(player(g, seat)["survival"]))]


def toxin(g: Table, events: list[Event], seat: int, p: int) -> None:
    options = toxin_question(g, seat, p)
    if options:
        card = decide(g, seat, f"toxin:{p}", options, events)["card"]
        player(g, seat)["survival"].remove(card)
        g.s["survival_discard"].append(card)
        events.append({"type": "discard_survival", "seat": seat, "card": card, "visible_to": None})


def artemia_question(g: Table, seat: int, p: int) -> list[Action]:
    return [{"type": "discard", "cards": [c]} for c in sorted(player(g, seat)["hand"])]


def artemia(g: Table, events: list[Event], seat: int, p: int) -> None:
    options = artemia_question(g, seat, p)
    if options:
        discard_from_hand(g, seat, decide(g, seat, f"artemia:{p}", options, events)["cards"], events)
    if has(g, "mutation"):
        lose_will(g, seat, 1, events)


def catch(g: Table, events: list[Event], seat: int, p: int) -> None:
    t = g.s["this_turn"]
    loss = 1 + (p == LAIR) + has(g, "fierceness")
    events.append({"type": "caught", "seat": seat, "place": p, "visible_to": None})
    lose_will(g, seat, loss, events)
    if not t["catch_counted"] and g.s["winner"] is None:
        t["catch_counted"] = True
        move_counter(g, "assimilation", events)
    if (
        has(g, "anticipation")
        and entry(g, "anticipation")["seat"] == seat
        and not t["anticipation_counted"]
        and g.s["winner"] is None
    ):
        t["anticipation_counted"] = True
        move_counter(g, "assimilation", events)


def zero(g: Table, events: list[Event]) -> None:
    """Every Hunted who lost their last Will this Reckoning gives up: all place cards back, Will restored."""
    for seat in g.hunted_seats():
        h = player(g, seat)
        if h["will"] == 0:
            h["hand"] += h["discard"] + h["played"]
            h["discard"], h["played"] = [], []
            h["will"] = 2 if g.s["config"]["expert"] else WILL_MAX
            events.append({"type": "gave_up", "seat": seat, "will": h["will"], "visible_to": None})
