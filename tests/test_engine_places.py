"""One scenario per place power (and the take-back alternative, and an ineffective place)."""

import pytest

from service.game import IllegalAction
from tests.engine_helpers import (
    act,
    changed,
    check_invariants,
    events_of,
    hunted,
    play_turn,
    power,
    run,
    scenario,
    takeback,
)

FAR = {"creature": 7}  # the Creature token somewhere nobody goes in these scenarios


def questions(g, seat):
    return g.legal_actions(seat)


# ---------------------------------------------------------------- the Lair
def test_lair_takes_the_whole_discard_back_but_not_itself():
    g = scenario(hunted={1: {"hand": [1, 5], "discard": [2, 3, 4]}})
    play_turn(g, {1: [1], 2: [2]}, tokens=FAR, until="reckoning")
    assert power(1, take=[2, 3, 4]) in questions(g, 1)
    run(g, {1: [power(1, take=[2, 3, 4])]})
    assert sorted(hunted(g, 1)["hand"]) == [2, 3, 4, 5] and hunted(g, 1)["discard"] == [1]


@pytest.mark.parametrize("copied,take,left", [(2, [1, 4], [3]), (6, [1, 3, 4], [])])
def test_lair_copies_jungle_or_swamp_and_this_card_is_the_lair(copied, take, left):
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4]}})
    play_turn(g, {1: [1], 2: [2]}, tokens={"creature": copied}, until="reckoning")
    option = power(1, copied, via="lair", take=take)
    assert option in questions(g, 1)
    events = run(g, {1: [option]})
    assert events_of(events, "power")[0]["use"] == copied
    assert sorted(hunted(g, 1)["hand"]) == sorted([2, 5] + take)
    assert hunted(g, 1)["discard"] == left


def test_lair_copies_the_rover():
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4]}})
    play_turn(g, {1: [1], 2: [3]}, tokens={"creature": 5}, answers={1: [power(1, 5, via="lair", reserve=8)]})
    assert 8 in hunted(g, 1)["hand"] and g.s["reserve"][8] == 1


def test_lair_cannot_copy_the_artefact():
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4]}})
    play_turn(g, {1: [1], 2: [2]}, tokens={"creature": 10}, until="reckoning")
    assert not [a for a in questions(g, 1) if a.get("via") == "lair"]
    assert power(1, take=[3, 4]) in questions(g, 1)


# ---------------------------------------------------------------- the Jungle and the Swamp
def test_jungle_returns_itself_and_one_discard():
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4]}})
    play_turn(g, {1: [2], 2: [2]}, tokens=FAR, until="reckoning")
    assert {a["take"] for a in [dict(x, take=tuple(x["take"])) for x in questions(g, 1) if x["type"] == "power"]} == {
        (2, 3),
        (2, 4),
    }
    run(g, {1: [power(2, take=[2, 4])]})
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 4, 5] and hunted(g, 1)["discard"] == [3]


def test_jungle_with_an_empty_discard_returns_itself():
    g = scenario()
    play_turn(g, {1: [2], 2: [2]}, tokens=FAR)
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 4, 5] and hunted(g, 1)["discard"] == []


def test_swamp_returns_itself_and_two_discards():
    g = scenario(hunted={1: {"hand": [1, 6], "discard": [2, 3, 4, 5]}})
    play_turn(g, {1: [6], 2: [2]}, tokens=FAR, until="reckoning")
    assert power(6, take=[3, 5, 6]) in questions(g, 1)
    run(g, {1: [power(6, take=[3, 5, 6])]})
    assert sorted(hunted(g, 1)["hand"]) == [1, 3, 5, 6] and hunted(g, 1)["discard"] == [2, 4]


# ---------------------------------------------------------------- the River
def test_river_two_cards_next_turn_keep_one_before_the_reveal():
    g = scenario(hunted={1: {"hand": [1, 2, 3, 4, 5]}})
    play_turn(g, {1: [3], 2: [2]}, tokens=FAR)  # the River's power is the only choice: no question
    assert hunted(g, 1)["pending"] == "river"
    assert g.public_view()["hunted"][0]["pending"] == "river"
    plays = [a for a in questions(g, 1) if a["type"] == "play"]
    assert plays and all(len(a["cards"]) == 2 for a in plays)
    with pytest.raises(IllegalAction):
        g.apply(1, {"type": "play", "cards": [1]})
    play_turn(g, {1: [1, 4], 2: [2]}, tokens={"creature": 1}, until="prereveal")
    # After the tokens, before the reveal: keep one in play, the other goes back to hand.
    assert sorted(questions(g, 1), key=str) == [{"type": "keep", "card": 1}, {"type": "keep", "card": 4}]
    events = run(g, {1: [{"type": "keep", "card": 4}]}, until="reckoning")
    assert events_of(events, "reveal")[0]["played"]["1"] == [4]
    assert 1 in hunted(g, 1)["hand"]


# ---------------------------------------------------------------- the Beach
def test_beach_marker_both_ways_once_per_turn_second_hunted_takes_back():
    g = scenario(
        players=4, hunted={1: {"hand": [1, 4], "discard": [2, 3, 5]}, 2: {"hand": [1, 4], "discard": [2, 3, 5]}}
    )
    rescue = g.s["rescue"]
    # Both ask for the power ahead; seat 1 resolves first, so seat 2 falls back to a take-back.
    events = play_turn(g, {1: [4], 2: [4], 3: [2]}, tokens=FAR, answers={1: [power(4)], 2: [power(4)]})
    assert g.s["marker_on_beach"] is True and g.s["rescue"] == rescue - 1  # only the end of turn moved it
    assert events_of(events, "fallback")[0]["seat"] == 2
    assert len(events_of(events, "takeback")) == 1 and events_of(events, "takeback")[0]["seat"] == 2
    assert len(hunted(g, 2)["hand"]) == 2  # took one back; the Beach went to the discard
    # Next turn the marker is on the Beach: using it removes the marker and moves the Rescue counter.
    play_turn(g, {1: [1], 2: [1], 3: [4]}, tokens={"creature": 1})  # seat 3 alone on the Beach
    assert g.s["marker_on_beach"] is False and g.s["rescue"] == rescue - 3


def test_beach_and_wreck_combine_in_one_turn():
    g = scenario(
        hunted={1: {"hand": [1, 4], "discard": [2, 3, 5]}, 2: {"hand": [1, 8], "discard": [2, 3, 4, 5]}}, marker=True
    )
    rescue = g.s["rescue"]
    play_turn(g, {1: [4], 2: [8]}, tokens=FAR, answers={1: [power(4)], 2: [power(8)]})
    assert g.s["rescue"] == rescue - 3


# ---------------------------------------------------------------- the Rover
def test_rover_takes_an_unowned_card_from_the_reserve():
    g = scenario(
        players=4,
        hunted={
            1: {"hand": [1, 2, 5, 7], "discard": [3, 4]},
            2: {"hand": [1, 2, 3, 4, 5, 9]},
            3: {"hand": [1, 2, 3, 4, 5, 9]},
        },
    )
    assert g.s["reserve"][9] == 0 and g.s["reserve"][7] == 1
    play_turn(g, {1: [5], 2: [1], 3: [1]}, tokens=FAR, until="reckoning")
    reserves = sorted(a["reserve"] for a in questions(g, 1) if a["type"] == "power")
    assert reserves == [6, 8, 10]  # 7 is owned, 9 is exhausted
    run(g, {1: [power(5, reserve=8)]})
    assert 8 in hunted(g, 1)["hand"] and g.s["reserve"][8] == 1
    assert g.public_view()["reserve"]["8"] == 1


def test_rover_with_nothing_left_offers_only_the_take_back():
    g = scenario(players=2, hunted={1: {"hand": [1, 5, 6, 7, 8, 9, 10], "discard": [2, 3, 4]}})
    play_turn(g, {1: [5]}, tokens=FAR, until="reckoning")
    assert all(a["type"] == "takeback" for a in questions(g, 1))


# ---------------------------------------------------------------- the Shelter
def test_shelter_draws_two_and_keeps_one_at_the_next_exploration():
    g = scenario(hunted={1: {"hand": [1, 7], "discard": [2, 3, 4, 5]}}, survival_deck=["dodge", "drone", "gate"])
    events = play_turn(g, {1: [7], 2: [2]}, tokens={"creature": 10}, answers={1: [power(7)]})
    drawn = events_of(events, "drawn")[0]
    assert sorted(drawn["cards"]) == ["drone", "gate"] and drawn["visible_to"] == [1]
    assert sorted(hunted(g, 1)["drawn_to_choose"]) == ["drone", "gate"] and hunted(g, 1)["survival"] == []
    assert g.view(1)["you"]["drawn_to_choose"] == ["drone", "gate"]
    assert g.view(2)["hunted"][0]["drawn_to_choose"] == 2
    assert sorted(questions(g, 1), key=str) == [
        {"type": "keep_survival", "card": "drone"},
        {"type": "keep_survival", "card": "gate"},
    ]
    act(g, 1, {"type": "keep_survival", "card": "gate"})
    assert hunted(g, 1)["survival"] == ["gate"] and hunted(g, 1)["drawn_to_choose"] == []
    assert g.s["survival_discard"][-1] == "drone"
    assert {"type": "play", "cards": [1]} in questions(g, 1)


# ---------------------------------------------------------------- the Wreck
def test_wreck_once_per_turn():
    g = scenario(hunted={1: {"hand": [1, 8], "discard": [2, 3, 4, 5]}, 2: {"hand": [1, 8], "discard": [2, 3, 4, 5]}})
    rescue = g.s["rescue"]
    play_turn(g, {1: [8], 2: [8]}, tokens=FAR, until="reckoning")
    assert power(8) in questions(g, 2)  # not known yet whether seat 1 uses it
    events = run(g, {1: [power(8)], 2: [takeback(8, 3)]})
    assert g.s["rescue"] == rescue - 2  # the Wreck once, the end of turn once
    assert len(events_of(events, "power")) == 1 and 3 in hunted(g, 2)["hand"]


# ---------------------------------------------------------------- the Source
def test_source_heals_another_hunted():
    g = scenario(
        players=4, hunted={1: {"hand": [1, 9], "discard": [2, 3, 4, 5], "will": 3}, 2: {"will": 1}, 3: {"will": 2}}
    )
    play_turn(g, {1: [9], 2: [2], 3: [2]}, tokens=FAR, until="reckoning")
    heals = sorted(a["heal"] for a in questions(g, 1) if "heal" in a)
    assert heals == [2, 3]  # a Hunted at 3 Will cannot be healed
    run(g, {1: [power(9, heal=2)]})
    assert hunted(g, 2)["will"] == 2 and hunted(g, 3)["will"] == 2


def test_source_heals_self_or_draws():
    g = scenario(hunted={1: {"hand": [1, 9], "discard": [2, 3, 4, 5], "will": 2}}, survival_deck=["dodge", "gate"])
    play_turn(g, {1: [9], 2: [2]}, tokens=FAR, answers={1: [power(9, heal=1)]})
    assert hunted(g, 1)["will"] == 3
    g = scenario(hunted={1: {"hand": [1, 9], "discard": [2, 3, 4, 5], "will": 2}}, survival_deck=["dodge", "gate"])
    play_turn(g, {1: [9], 2: [2]}, tokens=FAR, answers={1: [power(9, draw=True)]})
    assert hunted(g, 1)["will"] == 2 and hunted(g, 1)["survival"] == ["gate"]


# ---------------------------------------------------------------- the Artefact
def test_artefact_two_cards_next_turn_both_resolved_in_the_order_played():
    g = scenario(hunted={1: {"hand": [1, 2, 4, 8, 10], "discard": [3, 5]}}, marker=True)
    play_turn(g, {1: [10], 2: [2]}, tokens=FAR, answers={1: [power(10)]})
    assert hunted(g, 1)["pending"] == "artefact"
    plays = [a["cards"] for a in questions(g, 1) if a["type"] == "play"]
    assert [8, 4] in plays and [4, 8] in plays
    rescue = g.s["rescue"]
    events = play_turn(g, {1: [8, 4], 2: [2]}, tokens=FAR, answers={1: [power(8), power(4)]})
    assert [e["use"] for e in events_of(events, "power") if e["seat"] == 1] == [8, 4]
    assert g.s["rescue"] == rescue - 3 and g.s["marker_on_beach"] is False
    assert sorted(hunted(g, 1)["discard"])[-2:] == [8, 10] and 4 in hunted(g, 1)["discard"]


def test_artefact_places_both_meet_the_tokens():
    g = scenario(hunted={1: {"hand": [1, 2, 4, 8, 10], "discard": [3, 5], "pending": "artefact"}})
    assimilation = g.s["assimilation"]
    events = play_turn(g, {1: [4, 8], 2: [2]}, tokens={"creature": 8}, answers={1: [power(4)]})
    assert len(events_of(events, "caught")) == 1 and g.s["assimilation"] == assimilation - 1
    assert hunted(g, 1)["will"] == 2 and g.s["marker_on_beach"] is True


def test_river_and_artefact_choose_one_then_take_back():
    g = scenario(hunted={1: {"hand": [1, 2, 3, 10], "discard": [4, 5], "pending": "artefact"}})
    play_turn(g, {1: [3, 10], 2: [2]}, tokens=FAR, until="reckoning")
    assert power(10) in questions(g, 1) or power(3) in questions(g, 1)
    # Asking for both powers: the River resolves first, so the Artefact falls back to a take-back.
    events = run(g, {1: [power(3), power(10)]})
    assert [e["use"] for e in events_of(events, "power") if e["seat"] == 1] == [3]
    assert events_of(events, "fallback")[0]["question"] == "resolve:10"
    assert [e["seat"] for e in events_of(events, "takeback")] == [1]
    assert hunted(g, 1)["pending"] == "river"


def test_artefact_power_refused_once_the_river_is_used():
    g = scenario(hunted={1: {"hand": [1, 2, 3, 10], "discard": [4, 5], "pending": "artefact"}})
    play_turn(g, {1: [3, 10], 2: [2]}, tokens=FAR, until="reckoning")
    g.s["players"][1]["next_turn"] = "river"  # as if the River had just resolved
    changed(g)
    assert not [a for a in questions(g, 1) if a["type"] == "power" and a["use"] == 10]


# ---------------------------------------------------------------- take-back, ineffective places
def test_take_back_instead_of_the_power():
    g = scenario(hunted={1: {"hand": [1, 2, 5], "discard": [3, 4]}})
    events = play_turn(g, {1: [2], 2: [2]}, tokens=FAR, answers={1: [takeback(2, 4)]})
    assert [e["seat"] for e in events_of(events, "power")] == [2]
    assert sorted(hunted(g, 1)["hand"]) == [1, 4, 5] and hunted(g, 1)["discard"] == [3, 2]


def test_ineffective_place_gives_nothing_not_even_a_take_back():
    g = scenario(
        creature=["interference", "fierceness", "anticipation"],
        hunted={1: {"hand": [1, 8], "discard": [2, 3, 4, 5]}},
        marker=True,
    )
    rescue = g.s["rescue"]
    events = play_turn(g, {1: [8], 2: [4]}, hunt={"card": "interference"}, tokens=FAR)
    assert not events_of(events, "power") and not events_of(events, "takeback")
    assert g.s["rescue"] == rescue - 1 and g.s["marker_on_beach"] is True
    assert sorted(hunted(g, 1)["discard"]) == [2, 3, 4, 5, 8]


def test_two_shelter_powers_in_one_turn_lose_no_survival_card():
    g = scenario(
        hunted={1: {"hand": [1, 6, 7], "discard": [2, 3, 4, 5], "survival": ["gate"], "pending": "artefact"}},
        survival_deck=["dodge", "drone", "vortex", "hologram"],
    )
    play_turn(g, {1: [7, 6], 2: [2]}, tokens={"creature": 9}, answers={1: [power(7), power(6, 7, via="gate")]})
    check_invariants(g)
