"""One scenario per Survival card (all 15), and the general limits: one per turn, Despair, Sacrifice."""

import random

import pytest

from service.game import IllegalAction, new_game
from tests.engine_helpers import (
    CREATURE,
    PASS,
    act,
    hunted,
    play_turn,
    power,
    run,
    scenario,
    takeback,
    tokens_of,
)


def surv(card, **params):
    return {"type": "survival", "card": card, **params}


def survival_options(g, seat):
    return [a for a in g.legal_actions(seat) if a["type"] == "survival"]


# ---------------------------------------------------------------- phase 1
def test_adrenaline_regains_one_will_not_above_three():
    g = scenario(hunted={1: {"will": 2, "survival": ["adrenaline"]}})
    act(g, 1, surv("adrenaline"))
    assert hunted(g, 1)["will"] == 3 and "adrenaline" in g.s["survival_discard"]
    g = scenario(hunted={1: {"will": 3, "survival": ["adrenaline"]}})
    assert not survival_options(g, 1)


def test_ingenuity_puts_the_marker_on_the_beach():
    g = scenario(hunted={1: {"survival": ["ingenuity"]}})
    act(g, 1, surv("ingenuity"))
    assert g.s["marker_on_beach"] is True
    g = scenario(hunted={1: {"survival": ["ingenuity"]}}, marker=True)
    assert not survival_options(g, 1)


def test_sacrifice_discards_a_place_and_blocks_hunt_cards():
    g = scenario(creature=["force-field", "clone", "fierceness"], hunted={1: {"survival": ["sacrifice"]}})
    assert CREATURE in g.waiting_for()
    act(g, 1, surv("sacrifice", discard=5))
    assert 5 in hunted(g, 1)["discard"] and 5 not in hunted(g, 1)["hand"]
    assert CREATURE not in g.waiting_for()
    with pytest.raises(IllegalAction):
        g.apply(CREATURE, {"type": "hunt_card", "card": "force-field", "places": [1, 2]})
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    assert all(a["type"] == "tokens" for a in g.legal_actions(CREATURE))


def test_sacrifice_not_after_the_creature_played_a_hunt_card():
    g = scenario(creature=["force-field", "clone", "fierceness"], hunted={1: {"survival": ["sacrifice"]}})
    act(g, CREATURE, {"type": "hunt_card", "card": "force-field", "places": [1, 2]})
    assert not survival_options(g, 1)


def test_sixth_sense_takes_two_discards_back():
    g = scenario(hunted={1: {"hand": [1, 2], "discard": [3, 4, 5], "survival": ["sixth-sense"]}})
    assert surv("sixth-sense", cards=[3, 5]) in g.legal_actions(1)
    act(g, 1, surv("sixth-sense", cards=[3, 5]))
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 5] and hunted(g, 1)["discard"] == [4]
    assert hunted(g, 1)["will"] == 3


def test_smokescreen_hides_discards_from_the_creature_and_public_not_the_hunted():
    g = scenario(
        hunted={
            1: {"hand": [1, 2], "discard": [3, 4, 5], "survival": ["smokescreen"]},
            2: {"hand": [1, 2, 3], "discard": [4, 5]},
        }
    )
    assert g.view(CREATURE)["hunted"][0]["discard"] == [3, 4, 5]
    act(g, 1, surv("smokescreen"))
    for view in (g.public_view(), g.view(CREATURE)):
        assert all(h["discard"] is None for h in view["hunted"]), view["hunted"]
        assert "[3, 4, 5]" not in str(view)
    for seat in (1, 2):
        assert [h["discard"] for h in g.view(seat)["hunted"]] == [[3, 4, 5], [4, 5]]
    play_turn(g, {1: [1], 2: [1]}, tokens={"creature": 1})
    assert g.view(CREATURE)["hunted"][0]["discard"] is not None  # only for that turn


def test_strike_back_sends_two_random_hunt_cards_under_the_deck():
    g = scenario(creature=["clone", "fierceness", "mirage"], hunted={1: {"survival": ["strike-back"]}})
    deck_top = list(g.s["hunt_deck"])
    act(g, 1, surv("strike-back"))
    hand = g.s["players"][0]["hand"]
    assert len(hand) == 1
    gone = sorted({"clone", "fierceness", "mirage"} - set(hand))
    assert sorted(g.s["hunt_deck"][:2]) == gone and g.s["hunt_deck"][2:] == deck_top
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 9})
    assert len(g.s["players"][0]["hand"]) == 3  # refilled at the end of the turn
    g = scenario(creature=["clone"], hunted={1: {"survival": ["strike-back"]}})  # fewer than 2: take what is there
    events = act(g, 1, surv("strike-back"))
    assert g.s["players"][0]["hand"] == [] and g.s["hunt_deck"][0] == "clone"
    assert [e["count"] for e in events if e["type"] == "strike_back"] == [1]


# ---------------------------------------------------------------- phase 2
def test_vortex_swaps_the_played_card_with_a_discard():
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2, 3], "survival": ["vortex"]}})
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 4}, until="prereveal")
    assert g.waiting_for() == [1]
    assert PASS in g.legal_actions(1) and surv("vortex", give=4, take=3) in g.legal_actions(1)
    run(g, {1: [surv("vortex", give=4, take=3), power(3)]}, turn=1)
    h = hunted(g, 1)
    assert h["will"] == 3 and h["pending"] == "river"  # not caught on the Beach; the River resolved
    assert sorted(h["discard"]) == [2, 3, 4] and "vortex" in g.s["survival_discard"]


# ---------------------------------------------------------------- phase 3
def test_detector_ignores_the_artemia_token_only_on_its_place():
    g = scenario(rescue=6, hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["detector"]}})
    play_turn(g, {1: [2], 2: [3]}, tokens={"creature": 9, "artemia": 2}, until="reckoning")
    assert surv("detector") in g.legal_actions(1)
    run(g, {1: [surv("detector"), power(2, take=[2, 4])]}, turn=1)
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 4, 5]
    g = scenario(rescue=6, hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["detector"]}})
    play_turn(g, {1: [2], 2: [3]}, tokens={"creature": 9, "artemia": 3}, until="reckoning")
    assert not survival_options(g, 1)


def test_dodge_ignores_the_creature_token_only_on_its_place():
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["dodge"]}})
    assimilation = g.s["assimilation"]
    play_turn(g, {1: [5], 2: [3]}, tokens={"creature": 5}, until="reckoning")
    assert surv("dodge") in g.legal_actions(1)
    run(g, {1: [surv("dodge"), takeback(5, 3)]}, turn=1)
    assert hunted(g, 1)["will"] == 3 and g.s["assimilation"] == assimilation and 3 in hunted(g, 1)["hand"]
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["dodge"]}})
    play_turn(g, {1: [5], 2: [3]}, tokens={"creature": 4}, until="reckoning")
    assert not survival_options(g, 1)


def test_drone_uses_the_rover_in_the_place_question():
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["drone"]}})
    play_turn(g, {1: [2], 2: [3]}, tokens={"creature": 9}, until="reckoning")
    option = power(2, 5, via="drone", reserve=8)
    assert option in g.legal_actions(1)
    run(g, {1: [option]}, turn=1)
    h = hunted(g, 1)
    assert 8 in h["hand"] and 2 in h["discard"] and h["survival"] == [] and "drone" in g.s["survival_discard"]


def test_gate_uses_an_adjacent_place_but_not_the_artefact():
    g = scenario(
        hunted={
            1: {"hand": [1, 3], "discard": [2, 4, 5], "survival": ["gate"]},
            2: {"hand": [1, 9], "discard": [2, 3, 4, 5], "survival": []},
        }
    )
    rescue = g.s["rescue"]
    play_turn(g, {1: [3], 2: [9]}, tokens={"creature": 7}, until="reckoning")
    assert {a["use"] for a in g.legal_actions(1) if a.get("via") == "gate"} == {2, 4, 8}
    run(g, {1: [power(3, 8, via="gate")], 2: [takeback(9, 2)]}, turn=1)
    assert g.s["rescue"] == rescue - 2 and hunted(g, 1)["pending"] is None
    g = scenario(hunted={1: {"hand": [1, 9], "discard": [2, 3, 4, 5], "survival": ["gate"]}})
    play_turn(g, {1: [9], 2: [3]}, tokens={"creature": 7}, until="reckoning")
    assert {a["use"] for a in g.legal_actions(1) if a.get("via") == "gate"} == {4, 8}


def test_hologram_moves_the_artemia_token():
    g = scenario(
        rescue=6,
        hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["hologram"]}, 2: {"hand": [1, 2, 3, 4, 5]}},
    )
    play_turn(g, {1: [2], 2: [1]}, tokens={"creature": 9, "artemia": 2}, until="reckoning")
    assert surv("hologram", **{"from": 2, "to": 1}) in g.legal_actions(1)
    act(g, 1, surv("hologram", **{"from": 2, "to": 1}))
    assert tokens_of(g)["artemia"] == [1]
    run(g, {1: [power(2, take=[2, 3])], 2: [{"type": "discard", "cards": [5]}]}, turn=1)
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 5] and 5 in hunted(g, 2)["discard"]


def test_wrong_track_moves_the_creature_token():
    g = scenario(
        hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["wrong-track"]}, 2: {"hand": [1, 2, 3, 4, 5]}}
    )
    assimilation = g.s["assimilation"]
    play_turn(g, {1: [5], 2: [4]}, tokens={"creature": 5}, until="reckoning")
    moves = {(a["from"], a["to"]) for a in survival_options(g, 1)}
    assert moves == {(5, 4), (5, 10)}
    run(g, {1: [surv("wrong-track", **{"from": 5, "to": 4}), power(5, reserve=6)]}, turn=1)
    assert hunted(g, 1)["will"] == 3 and 6 in hunted(g, 1)["hand"]
    assert hunted(g, 2)["will"] == 2 and g.s["assimilation"] == assimilation - 1


def test_wrong_track_may_move_the_clone_token():
    g = scenario(
        creature=["clone", "fierceness", "anticipation"],
        hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["wrong-track"]}},
    )
    play_turn(g, {1: [5], 2: [2]}, hunt={"card": "clone", "place": 5}, tokens={"creature": 9}, until="reckoning")
    assert surv("wrong-track", **{"from": 5, "to": 10}) in g.legal_actions(1)
    run(g, {1: [surv("wrong-track", **{"from": 5, "to": 10}), power(5, reserve=6)]}, turn=1)
    assert hunted(g, 1)["will"] == 3 and 6 in hunted(g, 1)["hand"]


# ---------------------------------------------------------------- phase 4
def test_amplifier_removes_the_marker_for_one_rescue_step():
    g = scenario(marker=True, hunted={1: {"survival": ["amplifier"]}})
    rescue = g.s["rescue"]
    play_turn(g, {1: [3], 2: [2]}, tokens={"creature": 9}, until="end")
    assert surv("amplifier") in g.legal_actions(1)
    run(g, {1: [surv("amplifier")]}, turn=1)
    assert g.s["marker_on_beach"] is False and g.s["rescue"] == rescue - 2
    g = scenario(marker=False, hunted={1: {"survival": ["amplifier"]}})
    play_turn(g, {1: [3], 2: [2]}, tokens={"creature": 9})
    assert hunted(g, 1)["survival"] == ["amplifier"]  # never offered without the marker


def test_double_back_returns_the_played_card():
    g = scenario(hunted={1: {"hand": [1, 4], "discard": [2, 3, 5], "survival": ["double-back"]}})
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 4}, until="end")
    assert g.legal_actions(1) == [surv("double-back", place=4), PASS]
    run(g, {1: [surv("double-back", place=4)]}, turn=1)
    assert sorted(hunted(g, 1)["hand"]) == [1, 4] and 4 not in hunted(g, 1)["discard"]
    assert hunted(g, 1)["will"] == 2  # caught, and still allowed to play a Survival card


# ---------------------------------------------------------------- limits
def test_at_most_one_survival_card_per_turn():
    g = scenario(hunted={1: {"will": 2, "survival": ["adrenaline", "smokescreen", "dodge"]}})
    act(g, 1, surv("adrenaline"))
    assert not survival_options(g, 1)
    with pytest.raises(IllegalAction):
        g.apply(1, surv("smokescreen"))
    # Caught on the Rover with a Dodge in hand: not offered (no Reckoning window opens for it).
    events = play_turn(g, {1: [5], 2: [2]}, tokens={"creature": 5}, until="reckoning")
    assert g.turn == 2 and not [e for e in events if e["type"] == "survival" and e.get("card") == "dodge"]
    assert hunted(g, 1)["will"] == 2 and sorted(hunted(g, 1)["survival"]) == ["dodge", "smokescreen"]
    # next turn it is allowed again
    assert surv("smokescreen") in g.legal_actions(1)


def test_despair_blocks_phase_three_cards_too():
    g = scenario(
        creature=["despair", "fierceness", "anticipation"],
        hunted={1: {"hand": [1, 2, 5], "discard": [3, 4], "survival": ["dodge"]}},
    )
    act(g, CREATURE, {"type": "hunt_card", "card": "despair"})
    events = play_turn(g, {1: [5], 2: [2]}, tokens={"creature": 5, "artemia": 9})
    assert hunted(g, 1)["will"] == 2 and hunted(g, 1)["survival"] == ["dodge"]
    assert not [e for e in events if e["type"] == "survival"]


def test_dodge_answers_a_detour_onto_the_creature_token():
    g = scenario(
        creature=["detour", "fierceness", "anticipation"],
        hunted={1: {"hand": [1, 2, 4], "discard": [3, 5], "survival": ["dodge"]}},
    )
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 9}, until="reckoning")
    act(g, CREATURE, {"type": "hunt_card", "card": "detour", "seat": 1, "from": 4, "to": 9})
    assert g.turn == 1 and surv("dodge") in g.legal_actions(1)


# ---------------------------------------------------------------- Drone and Gate: only when the player names them
def _both_on_the_beach(card):
    """Issue 12's reproduction: 3 players, seed 4, side 1; both Hunted on the Beach, seat 2 holds ``card`` and has
    an empty discard pile, seat 1 uses the Beach first."""
    g = scenario(
        seed=4,
        hunted={
            1: {"hand": [1, 2, 4, 5], "discard": [3]},
            2: {"hand": [1, 2, 3, 4, 5], "discard": [], "survival": [card]},
        },
    )
    play_turn(g, {1: [4], 2: [4]}, tokens={"creature": 9}, until="reckoning")
    return g


@pytest.mark.parametrize("card", ["drone", "gate"])
def test_a_fallback_never_spends_a_survival_card_the_player_did_not_name(card):
    g = _both_on_the_beach(card)
    assert any(a.get("via") == card for a in g.legal_actions(2))  # offered before the Beach is taken
    reserve = list(g.s["reserve"])
    events = run(g, {1: [power(4)], 2: [power(4)]}, turn=1)
    h = hunted(g, 2)
    assert h["survival"] == [card] and card not in g.s["survival_discard"]
    assert sorted(h["hand"]) == [1, 2, 3, 5] and g.s["reserve"] == reserve  # nothing from the reserve
    assert not [e for e in events if e["type"] in ("survival", "power") and e["seat"] == 2]
    [fallback] = [e for e in events if e["type"] == "fallback"]
    assert fallback["seat"] == 2 and fallback["action"] == PASS


def test_a_fallback_may_spend_the_survival_card_the_player_named():
    g = _both_on_the_beach("drone")
    named = power(4, 5, via="drone", reserve=10)
    g.s["reserve"][10] = 0  # that reserve card is gone by the time the Drone is used
    run(g, {1: [power(4)], 2: [named]}, turn=1)
    h = hunted(g, 2)
    assert h["survival"] == [] and "drone" in g.s["survival_discard"] and 10 not in h["hand"]
    assert len(h["hand"]) == 5  # the Drone took another reserve card


def test_a_question_offering_a_survival_card_also_offers_none():
    # Two players: the only Hunted owns every reserve place, so the Rover's power has nothing to give, and the
    # discard pile is empty: the Gate to the Beach is the only use of the place, but not the only answer.
    g = scenario(players=2, hunted={1: {"hand": list(range(1, 11)), "discard": [], "survival": ["gate"]}})
    marker = g.s["marker_on_beach"]
    play_turn(g, {1: [5]}, tokens={"creature": 3}, until="reckoning")
    assert g.waiting_for() == [1]
    options = g.legal_actions(1)
    assert options == [power(5, 4, via="gate"), PASS]
    run(g, turn=1)  # passes
    assert hunted(g, 1)["survival"] == ["gate"] and g.s["marker_on_beach"] == marker


def test_auto_play_for_a_late_player_never_spends_a_drone_or_gate():
    offered = 0
    for seed in range(60):
        g, rng = new_game({"players": 2 + seed % 6, "seed": seed}), random.Random(seed)
        while not g.is_over:
            seat = rng.choice(g.waiting_for())
            legal = g.legal_actions(seat)
            offered += any(a.get("via") in ("drone", "gate") for a in legal)
            assert g.autoplay(seat).get("via") not in ("drone", "gate")
            g.apply(seat, rng.choice(legal))
    assert offered > 20  # the questions were there to answer


def test_auto_play_passes_where_every_way_spends_a_card():
    g = scenario(players=2, hunted={1: {"hand": list(range(1, 11)), "discard": [], "survival": ["gate"]}})
    play_turn(g, {1: [5]}, tokens={"creature": 3}, until="reckoning")
    assert g.legal_actions(1) == [power(5, 4, via="gate"), PASS] and g.autoplay(1) == PASS
