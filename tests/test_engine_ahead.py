"""Questions ahead (service/game/rules/ahead.py): a Hunted says how they will use their place once it is chosen,
so that the Reckoning need not stop for it; the windows never wait for those answers."""

import pytest

from service.game import CREATURE
from tests.engine_helpers import act, events_of, power, run, scenario, takeback


def ahead(place, answer=None):
    return {"type": "ahead", "place": place, **({"answer": answer} if answer is not None else {})}


def test_a_place_with_a_choice_is_asked_ahead_and_the_window_does_not_wait_for_it():
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2, 3]}, 2: {"hand": [1, 4, 5]}})
    act(g, 1, {"type": "play", "cards": [4]})
    assert g.may_answer() == [1] and 1 not in g.waiting_for()
    assert g.legal_actions(1) == [ahead(4, power(4)), ahead(4, takeback(4, 2)), ahead(4, takeback(4, 3)), ahead(4)]
    act(g, 2, {"type": "play", "cards": [5]})  # the last place chosen: the exploration closes without H1's answer
    assert g.window["kind"] == "hunt" and g.waiting_for() == [CREATURE] and 1 in g.may_answer()
    assert g.public_view()["window"]["waiting"] == [CREATURE]


def test_an_answer_ahead_is_used_in_the_reckoning_without_a_wait():
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2, 3]}, 2: {"hand": [1, 4, 5]}})
    act(g, 1, {"type": "play", "cards": [4]})
    act(g, 1, ahead(4, takeback(4, 3)))
    assert 1 not in g.may_answer()
    act(g, 2, {"type": "play", "cards": [5]})
    act(g, 2, ahead(5, power(5, reserve=6)))
    events = act(g, CREATURE, {"type": "tokens", "creature": 9})
    assert g.window["kind"] == "explore" and g.turn == 2, "the Reckoning asked nobody"
    assert {"type": "took_back", "seat": 1, "cards": [3], "visible_to": None} in events or any(
        e["type"] == "takeback" and e["seat"] == 1 for e in events
    )
    assert 6 in g.s["players"][2]["hand"]


def test_decide_after_the_reveal_keeps_the_question_for_the_reckoning():
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2, 3]}, 2: {"hand": [1, 4, 5]}})
    act(g, 1, {"type": "play", "cards": [4]})
    act(g, 1, ahead(4))
    act(g, 2, {"type": "play", "cards": [1]})
    act(g, CREATURE, {"type": "tokens", "creature": 9})
    assert g.window["kind"] == "reckoning" and g.next_question(1)[0] == "resolve:4"


def test_an_answer_ahead_an_earlier_step_made_illegal_gets_the_default_and_its_player_is_told():
    # both on the Beach, both answer ahead "use its power": only the first in seat order may
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2]}, 2: {"hand": [1, 4, 5], "discard": [3]}})
    for seat in (1, 2):
        act(g, seat, {"type": "play", "cards": [4]})
        act(g, seat, ahead(4, power(4)))
    events = act(g, CREATURE, {"type": "tokens", "creature": 9})
    assert g.turn == 2
    fallback = events_of(events, "fallback")
    assert [(e["seat"], e["visible_to"]) for e in fallback] == [(2, [2])]
    assert fallback[0]["action"] == takeback(4, 3)


def test_the_river_answered_ahead_keeps_the_card_the_creature_does_not_hunt():
    g = scenario(hunted={1: {"hand": [1, 2, 4, 5], "pending": "river"}})
    act(g, 1, {"type": "play", "cards": [2, 4]})
    options = g.legal_actions(1)
    assert options[:2] == [
        {"type": "ahead", "river": "keep", "answer": {"type": "keep", "card": 2, "safe": True}},
        {"type": "ahead", "river": "keep", "answer": {"type": "keep", "card": 4, "safe": True}},
    ]
    act(g, 1, options[0])  # keep the Jungle, unless the Creature hunts there
    while g.legal_actions(1) and g.legal_actions(1)[0]["type"] == "ahead":
        act(g, 1, g.legal_actions(1)[-1])  # the places' questions: decide after the reveal
    act(g, 2, {"type": "play", "cards": [1]})
    events = act(g, CREATURE, {"type": "tokens", "creature": 2})
    assert g.turn == 2, "the River was answered ahead: no stop before the reveal"
    assert events_of(events, "reveal")[0]["played"]["1"] == [4], "the Creature hunted at the Jungle: the Beach stays"


def test_the_lair_copies_the_creatures_place_when_answered_ahead():
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2]}, 2: {"hand": [1, 4, 5]}})
    act(g, 1, {"type": "play", "cards": [1]})
    copy = ahead(1, {"type": "power", "place": 1, "via": "lair"})
    assert copy in g.legal_actions(1)
    act(g, 1, copy)
    act(g, 2, {"type": "play", "cards": [4]})
    events = act(g, CREATURE, {"type": "tokens", "creature": 5})
    powers = [e for e in events if e["type"] == "power" and e["seat"] == 1]
    assert powers and powers[0]["use"] == 5 and powers[0]["via"] == "lair"


@pytest.mark.parametrize("secrecy", ["fast", "strict"])
def test_the_card_for_the_artemia_token_may_be_said_ahead(secrecy):
    g = scenario(rescue=6, hunted={1: {"hand": [1, 4, 5, 8]}, 2: {"hand": [1, 4, 5]}}, secrecy=secrecy)
    assert g.s["rescue"] == 6
    act(g, 1, {"type": "play", "cards": [8]})
    options = g.legal_actions(1)
    assert options[-1] == {"type": "ahead", "token": "artemia"}
    act(g, 1, {"type": "ahead", "token": "artemia", "answer": {"type": "discard", "cards": [5]}})
    act(g, 2, {"type": "play", "cards": [1]})
    while g.legal_actions(2):
        act(g, 2, g.legal_actions(2)[-1])
    events = act(g, CREATURE, {"type": "tokens", "creature": 3, "artemia": 8})
    events += run(g, strict=False)
    discarded = [e for e in events if e["type"] == "discarded_cards" and e["seat"] == 1]
    assert [e["cards"] for e in discarded] == [[5]]


def test_questions_ahead_are_private_and_end_with_the_reveal():
    g = scenario(hunted={1: {"hand": [1, 4, 5], "discard": [2, 3]}})
    act(g, 1, {"type": "play", "cards": [4]})
    before = g.public_view(), g.view(CREATURE), g.view(2)
    events = act(g, 1, ahead(4, power(4)))
    assert events == [{"type": "ahead", "place": 4, "answer": power(4), "seat": 1, "visible_to": [1]}]
    assert (g.public_view(), g.view(CREATURE), g.view(2)) == before
    act(g, 2, {"type": "play", "cards": [1]})
    act(g, CREATURE, {"type": "tokens", "creature": 9})
    assert not any(a["type"] == "ahead" for seat in (1, 2) for a in g.legal_actions(seat))
