"""Builders for engine scenario tests: set a position up directly on ``g.s``, then drive the windows with actions.

    g = start(players=3, side=1)
    setup(g, creature=["mirage"], hunted={1: {"hand": [1, 8], "discard": [2, 3]}}, rescue=6)
    events = play_turn(g, plays={1: [8], 2: [4]}, hunt={"card": "mirage", "places": [5, 10]},
                       tokens={"creature": 8, "artemia": 2}, answers={1: [{"type": "pass"}]})

``setup`` keeps every deck consistent: cards it hands out are taken from wherever they were (deck, discard, another
hand), the reserve is recomputed from who owns which place 6-10, and the turn is restarted so that the windows are
computed from the new position. ``play_turn`` plays one turn and fails loudly when a seat is asked something the
test did not foresee (a ``pass`` is given automatically where one is legal).
"""

from service.game import IllegalAction, new_game
from service.game.cards import HUNT_CARDS, RESERVE_COPIES, RESERVE_PLACES, SURVIVAL_CARDS

CREATURE = 0
PASS = {"type": "pass"}

__all__ = [
    "CREATURE",
    "NEUTRAL",
    "PASS",
    "IllegalAction",
    "act",
    "changed",
    "check_invariants",
    "events_of",
    "hunted",
    "owned",
    "play_turn",
    "power",
    "restart_turn",
    "run",
    "scenario",
    "setup",
    "start",
    "takeback",
    "tokens_of",
]


def start(players=3, side=1, seed=0, expert=False, secrecy="fast"):
    """A new game with the board side fixed, open on turn 1's Exploration window. The rules' scenarios script
    every question, so they play under fast secrecy (only holders are asked) unless told."""
    return new_game({"players": players, "seed": seed, "side": side, "expert": expert, "secrecy": secrecy})


def hunted(g, seat):
    return g.s["players"][seat]


def owned(g, seat):
    h = hunted(g, seat)
    return sorted(h["hand"] + h["discard"] + h["played"])


def _pull(s, kind, card):
    """Take one card out of wherever it is (deck, discard, any hand) so that it can be placed elsewhere."""
    if kind == "hunt":
        piles = [s["hunt_deck"], s["hunt_discard"], s["players"][0]["hand"], s["players"][0]["played"]]
    else:
        piles = [s["survival_deck"], s["survival_discard"]]
        piles += [p for h in s["players"][1:] for p in (h["survival"], h["drawn_to_choose"])]
    for pile in piles:
        if card in pile:
            pile.remove(card)
            return
    raise AssertionError(f"{card} not found")


def _place(s, kind, pile, cards):
    """Make ``pile`` hold exactly ``cards`` (others go back on top of the deck), keeping the 20/15 cards."""
    deck = s["hunt_deck" if kind == "hunt" else "survival_deck"]
    old = list(pile)
    pile.clear()
    deck.extend(old)
    for card in cards:
        _pull(s, kind, card)
        pile.append(card)


def _set_deck(s, kind, cards):
    """The deck becomes exactly ``cards`` (last = top); cards it held before go under the discard pile."""
    names = ("hunt_deck", "hunt_discard") if kind == "hunt" else ("survival_deck", "survival_discard")
    deck, discard = s[names[0]], s[names[1]]
    for card in cards:
        _pull(s, kind, card)
    discard[:0] = deck
    deck[:] = list(cards)


def setup(
    g,
    *,
    creature=None,
    hunted=None,
    hunt_deck=None,
    hunt_discard=None,
    survival_deck=None,
    survival_discard=None,
    rescue=None,
    assimilation=None,
    marker=None,
    limit=None,
    restart=True,
):
    """Change the position, then (by default) restart the current turn so its windows see the change.

    hunted: {seat: {"hand": [...], "discard": [...], "will": n, "survival": [...], "pending": "river"|"artefact"}}
    creature: the Creature's Hunt cards; hunt_deck / hunt_discard / survival_* piles in order (last = top).
    limit: how many Hunt cards the Creature may play this turn (2 = after Tracking).
    """
    s = g.s
    for seat, spec in (hunted or {}).items():
        h = s["players"][seat]
        for key in ("hand", "discard", "will", "pending"):
            if key in spec:
                h[key] = list(spec[key]) if isinstance(spec[key], list) else spec[key]
        if "survival" in spec:
            _place(s, "survival", h["survival"], spec["survival"])
    if creature is not None:
        _place(s, "hunt", s["players"][0]["hand"], creature)
    if hunt_discard is not None:
        _place(s, "hunt", s["hunt_discard"], hunt_discard)
    if hunt_deck is not None:
        _set_deck(s, "hunt", hunt_deck)
    if survival_discard is not None:
        _place(s, "survival", s["survival_discard"], survival_discard)
    if survival_deck is not None:
        _set_deck(s, "survival", survival_deck)
    for key, value in (("rescue", rescue), ("assimilation", assimilation), ("marker_on_beach", marker)):
        if value is not None:
            s[key] = value
    players = g.players
    for r in RESERVE_PLACES:
        owners = sum(r in owned(g, seat) for seat in range(1, players))
        s["reserve"][r] = RESERVE_COPIES[players] - owners
        assert s["reserve"][r] >= 0, f"more Hunted own {r} than the reserve had"
    if limit is not None:
        s["hunt_card_limit_next"] = limit
    if restart:
        restart_turn(g)
    return changed(g)


NEUTRAL = ["anticipation", "fierceness", "interference"]  # phase-2 Hunt cards: no window opens unless played


def scenario(players=3, side=1, seed=0, expert=False, creature=None, hunted=None, secrecy="fast", **kw):
    """A game set up for a scenario: the Creature holds NEUTRAL cards unless told, the Hunted hold no Survival
    card unless told (so no card window opens by surprise); other keywords as for ``setup``."""
    g = start(players, side, seed, expert, secrecy)
    specs = {seat: {"survival": []} for seat in range(1, players)}
    for seat, spec in (hunted or {}).items():
        specs[seat].update(spec)
    return setup(g, creature=NEUTRAL if creature is None else creature, hunted=specs, **kw)


def changed(g):
    """Call after editing ``g.s`` by hand: drops whatever the engine cached about the old state."""
    if hasattr(g, "memo"):
        g.memo = {}
    return g


def restart_turn(g):
    """Throw the current turn away (nothing played yet) and start it again from the current position."""
    changed(g)
    s = g.s
    assert not any(s["players"][x]["played"] for x in range(g.players)), "restart only before anything is played"
    s["turn"] -= 1
    s["window"] = None
    s["agenda"] = [["start_turn"]]
    g.advance([])
    changed(g)


def act(g, seat, action, events=None):
    """Apply one action, keeping its events."""
    out = g.apply(seat, action)
    if events is not None:
        events.extend(out)
    return out


def run(g, answers=None, until=None, events=None, strict=True, turn=None):
    """Answer every open window from ``answers`` ({seat: [action, ...]}, used in order) until the turn ends.

    A seat asked something with no queued answer passes if it may; otherwise AssertionError (strict) or the
    engine's autoplay. Stops when the game is over, a new turn has begun, or a window of kind ``until`` is open.
    With ``strict``, answers left unused at the end are an error (the test foresaw a question that never came).
    """
    answers = {seat: list(queue) for seat, queue in (answers or {}).items()}
    events = [] if events is None else events
    turn = g.turn if turn is None else turn
    while not g.is_over and g.turn == turn and not (until and g.window and g.window["kind"] == until):
        waiting = g.waiting_for()
        assert waiting, f"window {g.window} waits for nobody"
        for seat in waiting:
            if answers.get(seat):
                act(g, seat, answers[seat].pop(0), events)
                break
        else:
            seat = waiting[0]
            legal = g.legal_actions(seat)
            if PASS in legal:
                act(g, seat, PASS, events)
            elif strict:
                raise AssertionError(f"seat {seat} asked in {g.window}: {legal[:12]}")
            else:
                act(g, seat, g.autoplay(seat), events)
    left = {seat: queue for seat, queue in answers.items() if queue}
    if strict and left and until is None:
        raise AssertionError(f"answers never asked for: {left}")
    return events


def play_turn(g, plays, hunt=None, tokens=None, before=None, answers=None, until=None, strict=True):
    """Play one turn from its Exploration window.

    before: {seat: [actions]} applied first in Exploration (Resist, Give Up, phase-1 cards; seat 0: Force Field...).
    plays: {seat: [place, ...]} the place card(s) each Hunted plays.
    hunt: a hunt_card action (without "type") or a list of them, played in the Hunting window.
    tokens: {"creature": p, "artemia": q}.  answers: as for ``run``.
    """
    events = []
    assert g.window["kind"] == "explore", g.window
    turn = g.turn
    for seat, actions in (before or {}).items():
        for action in actions:
            act(g, seat, action, events)
    for seat, cards in plays.items():
        act(g, seat, {"type": "play", "cards": list(cards)}, events)
    if g.window and g.window["kind"] == "explore" and CREATURE in g.waiting_for():
        act(g, CREATURE, PASS, events)
    if g.is_over or g.turn != turn:
        return events
    assert g.window["kind"] == "hunt", f"expected the Hunting window, got {g.window} waiting {g.waiting_for()}"
    hunt = [] if hunt is None else [hunt] if isinstance(hunt, dict) else hunt
    for card in hunt:
        act(g, CREATURE, {"type": "hunt_card", **card}, events)
    if tokens is not None:
        act(g, CREATURE, {"type": "tokens", **tokens}, events)
    run(g, answers, until=until, events=events, strict=strict, turn=turn)
    return events


def power(place, use=None, **params):
    return {"type": "power", "place": place, "use": place if use is None else use, **params}


def takeback(place, card):
    return {"type": "takeback", "place": place, "card": card}


def tokens_of(g):
    return {k: list(v) for k, v in g.s["tokens"].items()}


def events_of(events, kind):
    return [e for e in events if e["type"] == kind]


def check_invariants(g):
    """Card conservation, Will 0..3, the reserve and ownership; raises AssertionError with the broken rule."""
    s = g.s
    n = g.players
    creature = s["players"][0]
    hunt = s["hunt_deck"] + s["hunt_discard"] + creature["hand"] + creature["played"]
    assert sorted(hunt) == sorted(HUNT_CARDS), f"hunt cards not conserved: {sorted(hunt)}"
    survival = s["survival_deck"] + s["survival_discard"]
    for seat in range(1, n):
        h = s["players"][seat]
        survival += h["survival"] + h["drawn_to_choose"]
        cards = h["hand"] + h["discard"] + h["played"]
        assert len(cards) == len(set(cards)), f"seat {seat} owns a place twice: {sorted(cards)}"
        assert set(range(1, 6)) <= set(cards), f"seat {seat} lost a starting place: {sorted(cards)}"
        assert 0 <= h["will"] <= 3, f"seat {seat} has {h['will']} Will"
    assert sorted(survival) == sorted(SURVIVAL_CARDS), f"survival cards not conserved: {sorted(survival)}"
    for r in RESERVE_PLACES:
        owners = sum(
            r in s["players"][x]["hand"] + s["players"][x]["discard"] + s["players"][x]["played"] for x in range(1, n)
        )
        assert s["reserve"][r] >= 0, f"reserve of {r} is negative"
        assert s["reserve"][r] + owners == RESERVE_COPIES[n], f"place {r}: reserve {s['reserve'][r]} + {owners} owned"
