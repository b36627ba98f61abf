"""One scenario per Hunt card (all 20), the token entitlement by symbol, and the board sides' Artemia spaces."""

import json

import pytest

from service.game import IllegalAction
from tests.engine_helpers import (
    CREATURE,
    PASS,
    act,
    events_of,
    hunted,
    play_turn,
    power,
    run,
    scenario,
    takeback,
    tokens_of,
)

FILLER = ["anticipation", "fierceness", "interference"]


def hunt(card, **params):
    return {"type": "hunt_card", "card": card, **params}


def creature_with(*cards):
    return list(cards) + [c for c in FILLER if c not in cards][: 3 - len(cards)]


def hunt_options(g, card):
    return [a for a in g.legal_actions(CREATURE) if a.get("card") == card]


# ---------------------------------------------------------------- phase 1
def test_despair_blocks_survival_cards_and_draws_and_gives_the_artemia_token():
    g = scenario(
        creature=creature_with("despair"),
        hunted={
            1: {"hand": [1, 9], "discard": [2, 3, 4, 5], "will": 2, "survival": ["adrenaline"]},
            2: {"hand": [1, 7], "discard": [2, 3, 4, 5]},
        },
    )
    assert g.waiting_for() == [CREATURE, 1, 2]
    assert {"type": "survival", "card": "adrenaline"} in g.legal_actions(1)
    act(g, CREATURE, hunt("despair"))
    assert not [a for a in g.legal_actions(1) if a["type"] == "survival"]
    with pytest.raises(IllegalAction):
        g.apply(1, {"type": "survival", "card": "adrenaline"})
    play_turn(g, {1: [9], 2: [7]}, until="hunt")
    assert all("artemia" in a for a in g.legal_actions(CREATURE) if a["type"] == "tokens")
    act(g, CREATURE, {"type": "tokens", "creature": 10, "artemia": 10})
    # Source: only the heal is left (no draw); Shelter: no draw, only a take-back.
    assert not [a for a in g.legal_actions(1) if a.get("draw")]
    assert power(9, heal=1) in g.legal_actions(1)
    assert all(a["type"] == "takeback" for a in g.legal_actions(2))
    run(g, {1: [power(9, heal=1)], 2: [takeback(7, 3)]})
    assert (
        hunted(g, 1)["will"] == 3
        and hunted(g, 1)["survival"] == ["adrenaline"]
        and hunted(g, 2)["drawn_to_choose"] == []
    )


def test_force_field_forbids_two_adjacent_places():
    g = scenario(creature=creature_with("force-field"))
    assert {"places": [1, 6]} in [{"places": a["places"]} for a in hunt_options(g, "force-field")]
    act(g, CREATURE, hunt("force-field", places=[1, 2]))
    assert tokens_of(g)["target"] == [1, 2]
    assert {"type": "play", "cards": [1]} not in g.legal_actions(1)
    with pytest.raises(IllegalAction):
        g.apply(1, {"type": "play", "cards": [2]})
    act(g, 1, {"type": "play", "cards": [3]})


def test_force_field_after_a_hunted_chose_lets_them_choose_again():
    g = scenario(creature=creature_with("force-field"))
    act(g, 1, {"type": "play", "cards": [1]})
    act(g, 2, {"type": "play", "cards": [4]})
    assert g.waiting_for() == [CREATURE]
    events = act(g, CREATURE, hunt("force-field", places=[1, 2]))
    assert [e["seat"] for e in events_of(events, "choose_again")] == [1]
    assert g.waiting_for() == [1] and sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 4, 5]
    assert hunted(g, 1)["played"] == [] and hunted(g, 2)["played"] == [4]
    act(g, 1, {"type": "play", "cards": [5]})
    assert g.window["kind"] == "hunt"


# ---------------------------------------------------------------- phase 2
def test_anticipation_extra_assimilation_when_the_named_hunted_is_caught():
    g = scenario(creature=creature_with("anticipation"))
    assimilation = g.s["assimilation"]
    play_turn(g, {1: [4], 2: [2]}, hunt={"card": "anticipation", "seat": 1}, tokens={"creature": 4})
    assert g.s["assimilation"] == assimilation - 2
    g = scenario(creature=creature_with("anticipation"))
    play_turn(g, {1: [4], 2: [2]}, hunt={"card": "anticipation", "seat": 2}, tokens={"creature": 4})
    assert g.s["assimilation"] == assimilation - 1


def test_ascendancy_discards_all_but_two():
    g = scenario(creature=creature_with("ascendancy"), hunted={2: {"hand": [1, 2], "discard": [3, 4, 5]}})
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    assert [a["seat"] for a in hunt_options(g, "ascendancy")] == [1]  # seat 2 holds fewer than 3 cards
    events = []
    act(g, CREATURE, hunt("ascendancy", seat=1), events)
    act(g, CREATURE, {"type": "tokens", "creature": 9}, events)
    assert g.window["kind"] == "prereveal" and g.waiting_for() == [1]
    assert {"type": "discard", "cards": [1, 2]} in g.legal_actions(1)  # keeps 3 and 5
    run(
        g,
        {1: [{"type": "discard", "cards": [2, 5]}, takeback(4, 2)], 2: [power(2, take=[2, 3])]},
        events=events,
        turn=1,
    )
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 3] and sorted(hunted(g, 1)["discard"]) == [4, 5]


def test_fierceness_one_more_will_lost_three_on_the_lair():
    g = scenario(players=4, creature=creature_with("fierceness", "clone"))
    play_turn(g, {1: [4], 2: [3], 3: [3]}, hunt={"card": "fierceness"}, tokens={"creature": 4})
    assert hunted(g, 1)["will"] == 1 and hunted(g, 2)["will"] == 3
    g = scenario(creature=creature_with("fierceness"))
    play_turn(g, {1: [1], 2: [2]}, hunt={"card": "fierceness"}, tokens={"creature": 1})
    assert hunted(g, 1)["will"] == 3  # lost all 3: gave up at the end of the Reckoning
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 4, 5]


def test_forbidden_zone_every_hunted_discards_one_secretly():
    g = scenario(
        players=4, creature=creature_with("forbidden-zone"), hunted={3: {"hand": [1, 2], "discard": [3, 4, 5]}}
    )
    play_turn(g, {1: [4], 2: [3], 3: [2]}, hunt={"card": "forbidden-zone"}, tokens={"creature": 9}, until="prereveal")
    assert sorted(g.waiting_for()) == [1, 2]  # seat 3 has one card: nothing to choose
    # The choices are secret until all are in: seat 1's answer shows in nobody else's view.
    act(g, 1, {"type": "discard", "cards": [5]})
    assert 5 not in hunted(g, 1)["discard"]
    run(g, {2: [{"type": "discard", "cards": [1]}]}, turn=1, until="reckoning")
    assert hunted(g, 3)["hand"] == [] and hunted(g, 3)["discard"][-1] == 1
    assert hunted(g, 1)["discard"][-1] == 5 and hunted(g, 2)["discard"][-1] == 1


def test_interference_beach_and_wreck_have_no_effect():
    g = scenario(
        creature=creature_with("interference"),
        marker=True,
        hunted={1: {"hand": [1, 4], "discard": [2, 3, 5]}, 2: {"hand": [1, 8], "discard": [2, 3, 4, 5]}},
    )
    rescue = g.s["rescue"]
    events = play_turn(g, {1: [4], 2: [8]}, hunt={"card": "interference"}, tokens={"creature": 9})
    assert g.s["rescue"] == rescue - 1 and g.s["marker_on_beach"] is True
    assert not events_of(events, "power") and not events_of(events, "takeback")


@pytest.mark.parametrize(
    "place,hand,takes",
    [
        (1, [1, 5], [[2], [3], [4]]),  # the Lair: one card, not the whole discard pile
        (2, [1, 2, 5], [[2], [3], [4]]),  # the Jungle: the Jungle or one discard
        (6, [1, 5, 6], [[6], [2], [3], [4]]),  # the Swamp: the Swamp or one discard
    ],
)
def test_persecution_take_at_most_one(place, hand, takes):
    discard = [c for c in (2, 3, 4) if c not in hand]
    g = scenario(creature=creature_with("persecution"), hunted={1: {"hand": hand, "discard": discard or [3, 4]}})
    play_turn(g, {1: [place], 2: [3]}, hunt={"card": "persecution"}, tokens={"creature": 9}, until="reckoning")
    got = [a["take"] for a in g.legal_actions(1) if a["type"] == "power" and a["use"] == place]
    assert sorted(got) == sorted(t for t in takes if t[0] in discard + [place])
    run(g, {1: [power(place, take=got[0])]}, turn=1)
    assert len(hunted(g, 1)["hand"]) == len(hand)  # played one, took one back


def test_persecution_lair_copying_the_jungle_takes_one():
    g = scenario(creature=creature_with("persecution"), hunted={1: {"hand": [1, 5], "discard": [3, 4]}})
    play_turn(g, {1: [1], 2: [2]}, hunt={"card": "persecution"}, tokens={"creature": 2}, until="reckoning")
    copies = [a["take"] for a in g.legal_actions(1) if a.get("via") == "lair"]
    assert sorted(copies) == [[1], [3], [4]]


def test_mutation_artemia_token_also_costs_one_will():
    g = scenario(creature=creature_with("mutation"), hunted={1: {"hand": [1, 2, 5], "discard": [3, 4]}})
    play_turn(
        g,
        {1: [2], 2: [3]},
        hunt={"card": "mutation"},
        tokens={"creature": 9, "artemia": 2},
        answers={1: [{"type": "discard", "cards": [5]}]},
    )
    assert hunted(g, 1)["will"] == 2 and 5 in hunted(g, 1)["discard"] and hunted(g, 2)["will"] == 3


def test_phobia_shows_cards_only_to_the_creature():
    g = scenario(creature=creature_with("phobia"), hunted={2: {"survival": ["hologram"]}})  # opens the Reckoning window
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    events = []
    act(g, CREATURE, hunt("phobia", seat=1), events)
    act(g, CREATURE, {"type": "tokens", "creature": 9, "artemia": 9}, events)
    assert g.waiting_for() == [1]
    assert {"type": "show", "cards": [1, 2]} in g.legal_actions(1)  # all but 2 of [1, 2, 3, 5]
    run(g, {1: [{"type": "show", "cards": [3, 5]}]}, events=events, turn=1, until="reckoning")
    assert g.view(CREATURE)["you"]["shown_by_phobia"] == {"seat": 1, "cards": [3, 5]}
    assert events_of(events, "shown")[0]["visible_to"] == [CREATURE, 1]
    for view in (g.public_view(), g.view(2)):
        assert "shown_by_phobia" not in json.dumps(view)
    assert sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 5]  # shown, not discarded


def test_virus_artemia_token_on_two_adjacent_places():
    g = scenario(players=4, creature=creature_with("virus"), hunted={s: {"hand": [1, 2, 3, 4, 5]} for s in (1, 2, 3)})
    play_turn(g, {1: [3], 2: [4], 3: [2]}, hunt={"card": "virus", "places": [3, 4]}, until="hunt")
    assert tokens_of(g)["artemia"] == [3, 4]
    assert all("artemia" not in a for a in g.legal_actions(CREATURE) if a["type"] == "tokens")
    events = []
    act(g, CREATURE, {"type": "tokens", "creature": 9}, events)
    run(g, {1: [{"type": "discard", "cards": [1]}], 2: [{"type": "discard", "cards": [1]}]}, events=events, turn=1)
    assert {e["seat"] for e in events_of(events, "discarded")} == {1, 2}
    assert [e["seat"] for e in events_of(events, "power")] == [3]


def test_clone_target_token_catches_and_assimilation_moves_once():
    g = scenario(players=4, creature=creature_with("clone"))
    assimilation = g.s["assimilation"]
    events = play_turn(g, {1: [4], 2: [1], 3: [3]}, hunt={"card": "clone", "place": 1}, tokens={"creature": 4})
    assert tokens_of(g) == {"creature": [], "target": [], "artemia": []}  # end of turn: tokens are back
    assert {e["seat"] for e in events_of(events, "caught")} == {1, 2}
    assert hunted(g, 1)["will"] == 2 and hunted(g, 2)["will"] == 1  # the Lair costs one more
    assert g.s["assimilation"] == assimilation - 1


def test_clone_lets_the_lair_copy_the_target_place():
    g = scenario(creature=creature_with("clone"), hunted={1: {"hand": [1, 5], "discard": [2, 3, 4]}})
    play_turn(g, {1: [1], 2: [2]}, hunt={"card": "clone", "place": 8}, tokens={"creature": 9}, until="reckoning")
    assert power(1, 8, via="lair") in g.legal_actions(1)


# Clone with a second Target card (after Tracking): the seed, "oba efekty se uplatní na stejné označené lokaci".
CLONE_ORDERS = [
    [{"card": "scream", "place": 3}, {"card": "clone"}],
    [{"card": "clone", "place": 3}, {"card": "scream"}],
]


@pytest.mark.parametrize("cards", CLONE_ORDERS, ids=["scream-then-clone", "clone-then-scream"])
def test_clone_and_scream_both_apply_on_the_target(cards):
    g = scenario(
        creature=["scream", "clone", "fierceness"], limit=2, hunted={1: {"hand": [1, 2, 3, 4, 5], "discard": []}}
    )
    assimilation = g.s["assimilation"]
    play_turn(g, {1: [3], 2: [2]}, hunt=cards, tokens={"creature": 9}, until="reckoning")
    assert {"type": "lose_will"} in g.legal_actions(1)
    events = run(g, {1: [{"type": "lose_will"}]}, turn=1)
    assert [e["seat"] for e in events_of(events, "caught")] == [1]
    assert hunted(g, 1)["will"] == 1  # 1 for the Scream, 1 for the Clone's catch
    assert g.s["assimilation"] == assimilation - 1
    assert not [e for e in events_of(events, "power") + events_of(events, "takeback") if e["seat"] == 1]


def test_clone_and_toxin_both_apply_on_the_target():
    g = scenario(
        creature=["toxin", "clone", "fierceness"],
        limit=2,
        hunted={1: {"hand": [1, 2, 3, 4, 5], "discard": [], "survival": ["drone"]}},
    )
    events = play_turn(
        g, {1: [3], 2: [2]}, hunt=[{"card": "toxin", "place": 3}, {"card": "clone"}], tokens={"creature": 9}
    )
    assert [e["seat"] for e in events_of(events, "caught")] == [1] and hunted(g, 1)["will"] == 2
    assert hunted(g, 1)["survival"] == [] and "drone" in g.s["survival_discard"]


def test_clone_and_mirage_a_dodging_hunted_still_finds_the_place_ineffective():
    g = scenario(
        creature=["mirage", "clone", "fierceness"],
        limit=2,
        hunted={1: {"hand": [1, 2, 3, 4, 5], "discard": [], "survival": ["dodge"]}},
    )
    rescue = g.s["rescue"]
    play_turn(
        g,
        {1: [4], 2: [2]},
        hunt=[{"card": "mirage", "places": [3, 4]}, {"card": "clone"}],
        tokens={"creature": 9},
        until="reckoning",
    )
    assert {"type": "survival", "card": "dodge"} in g.legal_actions(1)
    events = run(g, {1: [{"type": "survival", "card": "dodge"}]}, turn=1)
    assert not events_of(events, "caught") and hunted(g, 1)["will"] == 3
    assert g.s["marker_on_beach"] is False and g.s["rescue"] == rescue - 1  # the Beach did nothing (Mirage)


def test_mirage_two_adjacent_places_are_ineffective():
    g = scenario(
        creature=creature_with("mirage"),
        hunted={1: {"hand": [1, 5], "discard": [2, 3, 4]}, 2: {"hand": [1, 10], "discard": [2, 3, 4, 5]}},
    )
    events = play_turn(g, {1: [5], 2: [10]}, hunt={"card": "mirage", "places": [5, 10]}, tokens={"creature": 9})
    assert not events_of(events, "power") and not events_of(events, "takeback")
    assert hunted(g, 2)["pending"] is None


def test_mirage_needs_adjacent_places():
    g = scenario(creature=creature_with("mirage"))
    play_turn(g, {1: [5], 2: [2]}, until="hunt")
    pairs = {tuple(a["places"]) for a in hunt_options(g, "mirage")}
    assert len(pairs) == 13 and (5, 10) in pairs and (5, 6) not in pairs
    with pytest.raises(IllegalAction):
        g.apply(CREATURE, hunt("mirage", places=[1, 3]))


def test_scream_discard_two_or_lose_will_then_the_power():
    g = scenario(
        players=4,
        creature=creature_with("scream"),
        hunted={
            1: {"hand": [1, 2, 4, 5], "discard": [3]},
            2: {"hand": [1, 2, 4, 5], "discard": [3]},
            3: {"hand": [4, 1], "discard": [2, 3, 5]},
        },
    )
    play_turn(
        g, {1: [4], 2: [4], 3: [4]}, hunt={"card": "scream", "place": 4}, tokens={"creature": 9}, until="reckoning"
    )
    assert {"type": "lose_will"} in g.legal_actions(1) and {"type": "discard", "cards": [1, 2]} in g.legal_actions(1)
    events = run(
        g,
        {
            1: [{"type": "lose_will"}, power(4)],
            2: [{"type": "discard", "cards": [1, 5]}, takeback(4, 3)],
            3: [takeback(4, 5)],
        },
        turn=1,
    )
    assert hunted(g, 1)["will"] == 2 and sorted(hunted(g, 1)["hand"]) == [1, 2, 5]
    assert hunted(g, 2)["will"] == 3 and sorted(hunted(g, 2)["hand"]) == [2, 3]
    # Seat 3 held a single card: only the Will loss was possible, without a question.
    assert hunted(g, 3)["will"] == 2 and sorted(hunted(g, 3)["hand"]) == [1, 5]
    assert g.s["marker_on_beach"] is True and [e["seat"] for e in events_of(events, "power")] == [1]


def test_toxin_discards_a_survival_card_and_the_place_is_ineffective():
    g = scenario(
        creature=creature_with("toxin"),
        hunted={1: {"hand": [1, 8], "discard": [2, 3, 4, 5], "survival": ["gate", "drone"]}},
    )
    rescue = g.s["rescue"]
    events = play_turn(
        g,
        {1: [8], 2: [2]},
        hunt={"card": "toxin", "place": 8},
        tokens={"creature": 9},
        answers={1: [{"type": "discard_survival", "card": "drone"}]},
    )
    assert hunted(g, 1)["survival"] == ["gate"] and "drone" in g.s["survival_discard"]
    assert not [e for e in events_of(events, "power") + events_of(events, "takeback") if e["seat"] == 1]
    assert g.s["rescue"] == rescue - 1


# ---------------------------------------------------------------- phase 3
def test_cataclysm_makes_one_place_ineffective():
    g = scenario(creature=creature_with("cataclysm"), hunted={1: {"hand": [1, 8], "discard": [2, 3, 4, 5]}})
    rescue = g.s["rescue"]
    play_turn(g, {1: [8], 2: [2]}, tokens={"creature": 9}, until="reckoning")
    assert len(hunt_options(g, "cataclysm")) == 10
    events = act(g, 1, power(8))  # answered before the Cataclysm: it still gives nothing
    act(g, CREATURE, hunt("cataclysm", place=8), events)
    run(g, events=events, turn=1)
    assert g.s["rescue"] == rescue - 1
    assert not [e for e in events_of(events, "power") + events_of(events, "takeback") if e["seat"] == 1]


def test_detour_moves_a_hunted_onto_the_creature_token():
    g = scenario(creature=creature_with("detour"))
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 9}, until="reckoning")
    assert hunt("detour", seat=1, **{"from": 4, "to": 9}) in g.legal_actions(CREATURE)
    events = run(g, {CREATURE: [hunt("detour", seat=1, **{"from": 4, "to": 9})]}, turn=1)
    assert [e["seat"] for e in events_of(events, "caught")] == [1]
    assert hunted(g, 1)["will"] == 2 and 4 in hunted(g, 1)["discard"]


def test_detour_to_an_unowned_place_resolves_its_power():
    g = scenario(creature=creature_with("detour"), hunted={1: {"hand": [1, 3], "discard": [2, 4, 5]}})
    rescue = g.s["rescue"]
    play_turn(g, {1: [3], 2: [4]}, tokens={"creature": 1}, until="reckoning")
    act(g, CREATURE, hunt("detour", seat=1, **{"from": 3, "to": 8}))
    assert power(8) in g.legal_actions(1)  # the question that could not be foreseen
    run(g, {1: [power(8)]}, turn=1)
    assert g.s["rescue"] == rescue - 2 and 3 in hunted(g, 1)["discard"]


def test_a_hunted_the_detour_gives_a_question_is_asked_in_a_follow_up_window():
    """Ruling C: nobody could foresee the question (the Creature's token on its place left it none), so the
    Reckoning window goes on waiting only for the seats it asked; once they are done, a window of its own asks the
    moved Hunted. (Asked in the same window, a player who never saw the question was played for as if they had
    missed their deadline.)"""
    g = scenario(
        creature=creature_with("detour"),
        hunted={1: {"hand": [10, 1, 2, 3], "discard": [6, 7]}, 2: {"hand": [2, 3, 4, 5], "discard": [6, 7]}},
    )
    play_turn(g, {1: [10], 2: [2]}, tokens={"creature": 10}, until="reckoning")
    reckoning = g.window["id"]
    assert g.waiting_for() == [CREATURE, 2]
    act(g, CREATURE, hunt("detour", seat=1, **{"from": 10, "to": 5}))
    assert g.window["id"] == reckoning and g.waiting_for() == [2] and g.legal_actions(1) == []
    with pytest.raises(IllegalAction):
        g.apply(1, power(5) | {"reserve": 8})
    act(g, 2, takeback(2, 6))
    assert g.window["id"] == reckoning + 1 and g.waiting_for() == [1]
    assert power(5) | {"reserve": 8} in g.legal_actions(1)


# ---------------------------------------------------------------- phase 4
def test_stasis_stops_the_end_of_turn_rescue_move():
    g = scenario(creature=creature_with("stasis"))
    rescue = g.s["rescue"]
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 9}, answers={CREATURE: [hunt("stasis")]})
    assert g.turn == 2 and g.s["rescue"] == rescue
    play_turn(g, {1: [1], 2: [1]}, tokens={"creature": 1})
    assert g.s["rescue"] == rescue - 1


def test_tracking_two_hunt_cards_next_turn():
    g = scenario(creature=creature_with("tracking"), hunt_deck=["virus", "toxin", "mirage", "clone"])
    play_turn(g, {1: [4], 2: [2]}, tokens={"creature": 9}, answers={CREATURE: [hunt("tracking")]})
    assert sorted(g.s["players"][0]["hand"]) == ["anticipation", "clone", "fierceness"]
    events = play_turn(
        g, {1: [1], 2: [1]}, hunt=[{"card": "anticipation", "seat": 1}, {"card": "fierceness"}], tokens={"creature": 1}
    )
    assert len(events_of(events, "hunt_card")) == 2 and hunted(g, 1)["will"] == 3  # 3 lost, gave up
    # the turn after, the limit is 1 again
    play_turn(g, {1: [2], 2: [2]}, until="hunt")
    act(g, CREATURE, hunt("clone", place=2))
    assert not [a for a in g.legal_actions(CREATURE) if a["type"] == "hunt_card"]


# ---------------------------------------------------------------- Flashback
def test_flashback_copies_the_top_of_the_hunt_discard():
    g = scenario(creature=creature_with("flashback"), hunt_discard=["clone", "fierceness"])
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    assert hunt_options(g, "flashback") == [hunt("flashback", copy="fierceness")]
    events = []
    act(g, CREATURE, hunt("flashback", copy="fierceness"), events)
    act(g, CREATURE, {"type": "tokens", "creature": 4}, events)
    run(g, events=events, turn=1)
    assert hunted(g, 1)["will"] == 1
    assert g.s["hunt_discard"][-1] == "flashback"


def test_flashback_takes_the_phase_and_symbol_of_the_copied_card():
    g = scenario(creature=creature_with("flashback"), hunt_discard=["mirage"])
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    assert hunt("flashback", copy="mirage", places=[4, 5]) in g.legal_actions(CREATURE)
    g = scenario(creature=creature_with("flashback"), hunt_discard=["despair"])
    assert hunt("flashback", copy="despair") in g.legal_actions(CREATURE)  # phase 1: in Exploration
    act(g, CREATURE, hunt("flashback", copy="despair"))
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    assert all("artemia" in a for a in g.legal_actions(CREATURE) if a["type"] == "tokens")


def test_flashback_not_playable_with_an_empty_discard():
    g = scenario(creature=creature_with("flashback"), hunt_discard=[])
    assert g.s["hunt_discard"] == []
    for kind in ("explore", "hunt"):
        if kind == "hunt":
            play_turn(g, {1: [4], 2: [2]}, until="hunt")
        assert not hunt_options(g, "flashback")
    with pytest.raises(IllegalAction):
        g.apply(CREATURE, hunt("flashback", copy="fierceness"))


# ---------------------------------------------------------------- tokens and symbols
@pytest.mark.parametrize(
    "card,params,artemia",
    [
        ("fierceness", {}, False),
        ("mutation", {}, True),
        ("phobia", {"seat": 1}, True),
        ("clone", {"place": 4}, False),
        ("scream", {"place": 4}, False),
    ],
)
def test_token_entitlement_follows_the_symbol(card, params, artemia):
    g = scenario(creature=creature_with(card))
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    before = [a for a in g.legal_actions(CREATURE) if a["type"] == "tokens"]
    assert all("artemia" not in a for a in before)
    act(g, CREATURE, hunt(card, **params))
    tokens = [a for a in g.legal_actions(CREATURE) if a["type"] == "tokens"]
    assert all(("artemia" in a) == artemia for a in tokens)
    assert tokens_of(g)["target"] == ([4] if "place" in params else [])


@pytest.mark.parametrize("side,spaces", [(1, {1, 2, 3, 4, 5, 6}), (2, {1, 3, 5, 7, 9, 11})])
def test_board_side_artemia_spaces(side, spaces):
    for rescue in range(1, 19):
        g = scenario(players=7, side=side, rescue=rescue)
        play_turn(g, {seat: [3] for seat in range(1, 7)}, until="hunt")
        tokens = [a for a in g.legal_actions(CREATURE) if a["type"] == "tokens"]
        assert all(("artemia" in a) == (rescue in spaces) for a in tokens), rescue
        assert sorted(g.public_view()["artemia_spaces"]) == sorted(spaces)


def test_tokens_must_be_placed_and_only_on_places():
    g = scenario()
    play_turn(g, {1: [4], 2: [2]}, until="hunt")
    for bad in (
        {"type": "tokens"},
        {"type": "tokens", "creature": 0},
        {"type": "tokens", "creature": 11},
        {"type": "tokens", "creature": 3, "artemia": 4},
        PASS,
    ):
        with pytest.raises(IllegalAction):
            g.apply(CREATURE, bad)
