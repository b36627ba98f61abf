"""The ``secrecy`` setting: under strict, what the table sees never depends on hidden cards, and nobody is asked a
question whose only answer is to pass (service/game/rules/secrecy.py).

Seeded examples (the Vortex before the reveal, the end-of-turn cards, the Creature's Reckoning card, its phase-1
card during the exploration), each under fast (holders are asked, by name) and strict (only a holder that asked
to be asked with ``call``, and never by name); and property tests over random games: no pass-only question under
strict; and two games that differ only in which Hunted holds a card (and who asked to be asked, as its holder
would) show the table the same windows, the same names and the same public events.
"""

import random

import pytest

from service.game import CREATURE, IllegalAction, new_game
from tests.engine_helpers import PASS, act, play_turn, scenario

CALL = {"type": "call"}


def _to_prereveal(g, calls=()):
    for seat in calls:
        act(g, seat, CALL)
    act(g, 1, {"type": "play", "cards": [3]})
    act(g, 2, {"type": "play", "cards": [4]})
    if g.window["kind"] == "explore":
        act(g, CREATURE, PASS)
    act(g, CREATURE, {"type": "tokens", "creature": 9})


@pytest.mark.parametrize("holds", [["vortex"], ["dodge"]])
def test_fast_asks_before_the_reveal_only_the_vortex_holder_by_name(holds):
    g = scenario(hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": holds}})
    _to_prereveal(g)
    if holds == ["vortex"]:
        assert g.window["kind"] == "prereveal" and g.waiting_for() == [1]
        assert g.public_view()["window"]["waiting"] == [1]
    else:
        assert g.window["kind"] == "reckoning"  # no wait before the reveal: the others learn H1 has no Vortex


def test_strict_offers_call_only_to_a_holder_of_a_card_for_later_and_tells_nobody_else():
    g = scenario(hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": ["vortex"]}}, secrecy="strict")
    assert CALL in g.legal_actions(1) and CALL not in g.legal_actions(2)
    events = act(g, 1, CALL)
    assert events == [{"type": "call", "seat": 1, "visible_to": [1]}]
    assert CALL not in g.legal_actions(1)  # asked once a turn
    assert (
        g.public_view()
        == scenario(
            hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": ["vortex"]}}, secrecy="strict"
        ).public_view()
    )
    assert g.view(CREATURE)["you"] == {**g.view(CREATURE)["you"]}
    assert "on_call" not in str(g.view(2))


@pytest.mark.parametrize("called", [False, True])
def test_strict_asks_the_vortex_holder_before_the_reveal_only_if_it_called_and_never_by_name(called):
    g = scenario(hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": ["vortex"]}}, secrecy="strict")
    _to_prereveal(g, calls=[1] if called else [])
    if not called:
        assert g.window["kind"] == "reckoning"
        return
    assert g.window["kind"] == "prereveal" and g.waiting_for() == [1]
    window = g.public_view()["window"]
    assert window["waiting"] == [] and window["cards_pending"] is True
    assert PASS in g.legal_actions(1) and len(g.legal_actions(1)) > 1
    act(g, 1, PASS)
    assert g.window["kind"] == "reckoning"


def test_strict_never_asks_a_seat_that_called_but_holds_no_card_for_the_moment():
    g = scenario(hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": ["dodge"]}}, secrecy="strict")
    _to_prereveal(g, calls=[1])  # the Dodge is played only by a Hunted caught: nothing before the reveal
    assert g.window["kind"] == "reckoning"
    # in the Reckoning H1 is asked how to use the River (by name), not about the Dodge
    assert g.next_question(1)[0] == "resolve:3" and g.public_view()["window"]["waiting"] == [1]
    assert not any(a["type"] == "survival" for a in g.legal_actions(1))


@pytest.mark.parametrize("secrecy", ["fast", "strict"])
def test_the_end_window_waits_for_a_holder_of_an_end_card_by_name_only_under_fast(secrecy):
    g = scenario(hunted={1: {"hand": [1, 3, 5], "survival": ["double-back"]}}, secrecy=secrecy)
    play_turn(
        g, {1: [3], 2: [4]}, before={1: [CALL]} if secrecy == "strict" else None, tokens={"creature": 9}, until="end"
    )
    assert g.window["kind"] == "end" and g.waiting_for() == [1]
    window = g.public_view()["window"]
    assert (window["waiting"], window["cards_pending"]) == (([1], False) if secrecy == "fast" else ([], True))


def test_under_strict_a_holder_that_did_not_call_plays_no_card_later_and_the_turn_does_not_stop():
    g = scenario(hunted={1: {"hand": [1, 3, 5], "survival": ["double-back"]}}, secrecy="strict")
    turn = g.turn
    play_turn(g, {1: [3], 2: [4]}, tokens={"creature": 9})
    assert g.turn == turn + 1 and g.window["kind"] == "explore"


@pytest.mark.parametrize("called", [False, True])
def test_the_creature_is_asked_for_its_reckoning_card_under_strict_only_if_it_called_in_the_hunt(called):
    g = scenario(creature=["cataclysm", "fierceness", "interference"], secrecy="strict")
    act(g, 1, {"type": "play", "cards": [3]})
    act(g, 2, {"type": "play", "cards": [4]})
    assert g.window["kind"] == "hunt" and CALL in g.legal_actions(CREATURE)
    if called:
        act(g, CREATURE, CALL)
    act(g, CREATURE, {"type": "tokens", "creature": 9})
    if not called:
        assert g.window is None or g.window["kind"] != "reckoning" or CREATURE not in g.waiting_for()
        return
    assert g.window["kind"] == "reckoning" and CREATURE in g.waiting_for()
    assert CREATURE not in g.public_view()["window"]["waiting"] and g.public_view()["window"]["cards_pending"]


def test_strict_offers_the_creature_no_call_without_a_card_for_after_the_hunt():
    g = scenario(creature=["anticipation", "fierceness", "interference"], secrecy="strict")
    act(g, 1, {"type": "play", "cards": [3]})
    act(g, 2, {"type": "play", "cards": [4]})
    assert CALL not in g.legal_actions(CREATURE)


@pytest.mark.parametrize("secrecy", ["fast", "strict"])
def test_the_creature_plays_force_field_while_the_hunted_choose_and_under_strict_is_not_waited_for(secrecy):
    g = scenario(creature=["force-field", "fierceness", "interference"], secrecy=secrecy)
    assert g.window["kind"] == "explore"
    if secrecy == "fast":
        assert CREATURE in g.waiting_for() and g.public_view()["window"]["waiting"] == [1, 2]
        return
    assert g.waiting_for() == [1, 2] and g.may_answer() == [CREATURE]
    force = next(a for a in g.legal_actions(CREATURE) if a["type"] == "hunt_card")
    act(g, 1, {"type": "play", "cards": [force["places"][0]]})
    act(g, CREATURE, force)
    assert 1 in g.waiting_for(), "a Hunted whose place the Force Field took chooses again"
    assert CREATURE not in g.may_answer()


def test_under_strict_the_exploration_closes_when_the_hunted_have_chosen_whatever_the_creature_holds():
    g = scenario(creature=["force-field", "fierceness", "interference"], secrecy="strict")
    act(g, 1, {"type": "play", "cards": [3]})
    act(g, 2, {"type": "play", "cards": [4]})
    assert g.window["kind"] == "hunt"
    assert not any(a["type"] == "hunt_card" and a["card"] == "force-field" for a in g.legal_actions(CREATURE))


def test_fast_and_strict_refuse_a_card_the_seat_does_not_hold():
    g = scenario(hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": ["vortex"]}}, secrecy="strict")
    _to_prereveal(g, calls=[1])
    with pytest.raises(IllegalAction):
        g.apply(1, {"type": "survival", "card": "dodge"})
    assert g.waiting_for() == [1]


def test_a_format_2_turn_in_progress_goes_on_asking_every_holder():
    g = scenario(hunted={1: {"hand": [1, 3, 5], "discard": [2], "survival": ["vortex"]}}, secrecy="strict")
    old = g.copy()
    old.s["version"] = 2
    del old.s["this_turn"]["on_call"]
    migrated = type(g).from_json(old.to_json())
    assert migrated.s["this_turn"]["on_call"] == [0, 1, 2]
    _to_prereveal(migrated)
    assert migrated.window["kind"] == "prereveal" and migrated.waiting_for() == [1]


# ---------------------------------------------------------------------------------------------- the properties
def _is_card_question(g, seat):
    """Whether all the seat is asked now is whether to play a card (only pass and cards)."""
    legal = g.legal_actions(seat)
    return bool(legal) and all(a["type"] in ("pass", "survival", "hunt_card") for a in legal)


def _calls(g, seat, seed):
    """Whether the seat asks to be asked about its cards: decided by the cards it holds (so the holder of the
    same cards decides the same in the other world)."""
    held = g.s["players"][seat]["survival" if seat else "hand"]
    return (sum(ord(c) for c in "".join(sorted(held))) + seed) % 3 != 0


def _plain(g, seat):
    """The seat's options that spend no card."""
    return [
        a
        for a in g.legal_actions(seat)
        if a["type"] not in ("survival", "hunt_card", "call", "pass") and a.get("via") not in ("drone", "gate")
    ]


def _settle(g, seed):
    """Make every ``call`` the holders decide on, and answer every question the table is not told of: a card
    question with pass (a card played is public and names its player), a place question asked only for the Drone
    or the Gate with the way the seat would have had without it. -> the public events."""
    events = []
    progress = True
    while progress and not g.is_over:
        progress = False
        named = g.public_view()["window"]["waiting"]
        for seat in g.waiting_for() + g.may_answer():
            if CALL in g.legal_actions(seat) and _calls(g, seat, seed):
                events += g.apply(seat, CALL)
            elif _is_card_question(g, seat) or (seat in g.waiting_for() and seat not in named):
                events += g.apply(seat, (_plain(g, seat) or [PASS])[0])
            else:
                continue
            progress = True
            break
    return [e for e in events if e.get("visible_to") is None]


def _public_answer(g, rng):
    """A seat the table is told is asked (or one answering its question ahead), and a random answer naming no
    card."""
    named = g.public_view()["window"]["waiting"]
    seat = rng.choice([s for s in g.waiting_for() if s in named] + g.may_answer())
    return seat, rng.choice(_plain(g, seat))


def _table(g):
    """The window as the table sees it, but for its number and whether a card may still be played: an unnamed
    card question opens (and closes) a window of its own when some seat holds a card for the moment, which
    under strict secrecy may show that *somebody* had a card to decide on (rules/secrecy.py), never who."""
    window = g.public_view()["window"]
    return window and {k: v for k, v in window.items() if k not in ("id", "cards_pending")}


def _two_worlds(seed, players):
    """Two games that differ only in which of two Hunted holds what (H1's and H2's Survival cards swapped at the
    start of each turn), each holder deciding on ``call`` by its cards, the same public answers given in both.
    -> (steps compared, steps where the table saw something different)."""
    a_game, rng = new_game({"players": players, "seed": seed, "secrecy": "strict"}), random.Random(seed)
    compared = differing = 0
    while not a_game.is_over and a_game.turn < 12 and not differing:
        b_game = a_game.copy()
        h1, h2 = b_game.s["players"][1], b_game.s["players"][2]
        h1["survival"], h2["survival"] = h2["survival"], h1["survival"]
        b_game.memo = {}
        turn = a_game.turn
        seen_a, seen_b = [], []
        while not a_game.is_over and a_game.turn == turn and not differing:
            seen_a += _settle(a_game, seed)
            seen_b += _settle(b_game, seed)
            compared += 1
            differing += (seen_a, _table(a_game)) != (seen_b, _table(b_game))
            if a_game.is_over or a_game.turn != turn or differing:
                break
            seat, action = _public_answer(a_game, rng)
            seen_a = [e for e in a_game.apply(seat, action) if e.get("visible_to") is None]
            seen_b = [e for e in b_game.apply(seat, action) if e.get("visible_to") is None]
    return compared, differing


@pytest.mark.parametrize("players", [3, 4, 6])
def test_under_strict_which_hunted_holds_a_card_never_changes_what_the_table_sees(players):
    compared = differing = 0
    for seed in range(12):
        c, d = _two_worlds(seed, players)
        compared, differing = compared + c, differing + d
    assert compared > 300 and differing == 0


def test_under_strict_nobody_is_asked_a_question_whose_only_answer_is_to_pass():
    asked = 0
    for seed in range(30):
        g, rng = new_game({"players": 2 + seed % 6, "seed": seed, "secrecy": "strict"}), random.Random(seed)
        while not g.is_over:
            for seat in g.waiting_for() + g.may_answer():
                legal = g.legal_actions(seat)
                assert any(a["type"] != "pass" for a in legal), (seat, g.window, legal)
                asked += 1
            seat = rng.choice(g.waiting_for() + g.may_answer())
            g.apply(seat, rng.choice(g.legal_actions(seat)))
    assert asked > 5000


def test_under_fast_the_names_tell_who_holds_so_the_world_test_can_fail(monkeypatch):
    real = new_game
    monkeypatch.setitem(globals(), "new_game", lambda config: real({**config, "secrecy": "fast"}))
    differing = sum(_two_worlds(seed, 4)[1] for seed in range(12))
    assert differing > 0
