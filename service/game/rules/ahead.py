"""Questions ahead: once a Hunted has chosen their place, and while the Creature hunts, they may already say how
they will use it if nothing stops them there, so that the Reckoning need not stop for it.

Offered as soon as the place card is chosen, in the exploration and then in the hunt, one question at a time:

* the River (two cards played): which one stays, as "this one, unless the Creature hunts there and not at the
  other" — the River is asked after the hunt, when the tokens are known, and the condition is read then;
* each place card played with a choice there (two or more ways without a Survival card): its power, with its
  details (at the Lair also "copy the power of the Creature's place"), or a card to take back instead;
* when the Artemia token comes into play this turn: the card to discard if it is placed on their place.

Each also offers "decide after the reveal", which keeps the question for its moment with all its ways (the Lair's
copies, the Drone and the Gate for a seat on call). The Hunted is ``may`` there: asked, never waited for. An
answer is kept as the seat's answer to that question (``resolve:<p>``, ``river``, ``artemia:<p>``) and used when
the rules reach it; if an earlier step made it illegal (somebody else used the Beach first), the sensible default
is played and the seat told (``fallback``), as for every answer given ahead.
"""

from typing import Final

from service.game.cards import ARTEMIA_SPACES, CARDS, LAIR
from service.game.rules.common import player
from service.game.rules.reckoning import artemia_question, resolve_question
from service.game.state import Action, Event
from service.game.table import Table

# At the Lair, the power of the place where the Creature token will be, its details chosen as auto-play would
# (answers.order_answer); where there is none to copy, the sensible default is played.
LAIR_COPY: Final[Action] = {"type": "power", "place": LAIR, "via": "lair"}


def ahead_question(g: Table, seat: int) -> list[Action]:
    """The seat's question ahead now (its options, the last one "decide after the reveal"), or none: with the
    River, which card stays in play (``safe``: this one unless a token that catches is on it and not on the other);
    then for each place card it played (the River's and the Artefact's two in turn) how it uses it; then the card
    to discard if the Artemia token is placed on its place."""
    if g.s["this_turn"]["revealed"]:
        return []
    answered = g.s["this_turn"]["answered"]
    h = player(g, seat)
    played = h["played"]
    if h["pending"] == "river" and len(played) == 2 and f"{seat}:ahead:river" not in answered:
        return [
            {"type": "ahead", "river": "keep", "answer": {"type": "keep", "card": c, "safe": True}} for c in played
        ] + [{"type": "ahead", "river": "keep"}]
    for p in played:
        if f"{seat}:ahead:{p}" in answered:
            continue
        ways = [
            o for o in resolve_question(g, seat, p) if o["type"] != "pass" and o.get("via") not in ("drone", "gate")
        ]
        if p == LAIR:  # its copies depend on the Creature token, placed later: "copy the Creature's place"
            ways.append(LAIR_COPY)
        if len(ways) >= 2:
            return [{"type": "ahead", "place": p, "answer": way} for way in ways] + [{"type": "ahead", "place": p}]
    if played and f"{seat}:ahead:artemia" not in answered and artemia_in_play(g):
        ways = artemia_question(g, seat, played[0])
        if len(ways) >= 2:
            return [{"type": "ahead", "token": "artemia", "answer": way} for way in ways] + [
                {"type": "ahead", "token": "artemia"}
            ]
    return []


def artemia_in_play(g: Table) -> bool:
    """Whether the Creature places the Artemia token this turn, as far as the table knows now: the Rescue counter is
    on an Artemia space, or a Hunt card played brings the token."""
    side = g.s["side"]
    on_space = side is not None and g.s["rescue"] in ARTEMIA_SPACES[side]
    return on_space or any(CARDS[e].get("symbol") == "artemia" for e in g.s["this_turn"]["hunt_effects"])


def answer_ahead(g: Table, seat: int, action: Action, events: list[Event]) -> None:
    # An answer is kept as the answer to its question: if an earlier step makes it illegal there (somebody used the
    # Beach first), the sensible default is played and the seat told, as for any answer given ahead (answers.decide).
    answered, orders = g.s["this_turn"]["answered"], g.s["orders"][seat]
    if "river" in action:
        answered.append(f"{seat}:ahead:river")
        keys = ["river"]
    elif "token" in action:
        answered.append(f"{seat}:ahead:artemia")
        keys = [f"artemia:{p}" for p in player(g, seat)["played"]]
    else:
        answered.append(f"{seat}:ahead:{action['place']}")
        keys = [f"resolve:{action['place']}"]
    if "answer" in action:
        for key in keys:
            orders.append({"key": key, "action": action["answer"]})
            answered.append(f"{seat}:{key}")
    events.append({**action, "seat": seat, "visible_to": [seat]})
