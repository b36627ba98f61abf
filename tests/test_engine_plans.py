"""Answering ahead: plans answer later questions of the turn without a window."""

from service.game.engine import CREATURE
from tests.engine_helpers import act, hunted, scenario


def test_a_bare_power_plan_uses_the_place_with_autoplay_details_and_opens_no_window():
    g = scenario(hunted={1: {"hand": [2, 3, 4, 5], "discard": [1, 8]}, 2: {"hand": [1, 2, 3, 4, 5]}})
    act(g, 1, {"type": "play", "cards": [2]})
    act(g, 1, {"type": "plan", "orders": [{"type": "power"}]})
    act(g, 2, {"type": "play", "cards": [5]})
    act(g, 2, {"type": "plan", "orders": [{"type": "power", "use": 5}]})
    opened = g.window["id"]
    act(g, CREATURE, {"type": "tokens", "creature": 9})
    # The Jungle returns itself and the most valuable discarded card (the Wreck); the Rover takes a reserve card.
    assert sorted(hunted(g, 1)["hand"]) == [2, 3, 4, 5, 8]
    assert len(hunted(g, 2)["hand"]) == 5 and any(c >= 6 for c in hunted(g, 2)["hand"])
    assert g.turn == 2 and g.window["kind"] == "explore" and g.window["id"] == opened + 1


def test_a_plan_that_does_not_fit_leaves_the_question_to_the_player():
    g = scenario(hunted={1: {"hand": [2, 3, 4, 5], "discard": [1, 8]}, 2: {"hand": [1, 2, 3, 4, 5]}})
    act(g, 1, {"type": "play", "cards": [2]})
    act(g, 1, {"type": "plan", "orders": [{"type": "power", "use": 6}]})  # the Swamp: not where seat 1 is
    act(g, 2, {"type": "play", "cards": [4]})
    act(g, CREATURE, {"type": "tokens", "creature": 9})
    assert g.window["kind"] == "reckoning" and g.waiting_for() == [1]
    assert {"type": "takeback", "place": 2, "card": 8} in g.legal_actions(1)
