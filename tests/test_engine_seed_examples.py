"""The worked examples of the Czech rulebook (the seed) and the general rules it settles."""

import pytest

from service.game import IllegalAction, new_game
from service.game.cards import SURVIVAL_CARDS
from tests.engine_helpers import (
    CREATURE,
    act,
    events_of,
    hunted,
    play_turn,
    power,
    run,
    setup,
    start,
    tokens_of,
)

ALZBETA, JIRI, BARBORA, MICHAL, JAN = 1, 2, 3, 4, 5


def hynek_game():
    """Six players: Hynek is the Creature, the five Hunted sit in the order of the seed's example."""
    g = start(6, side=1)
    setup(
        g,
        rescue=6,
        creature=["mirage", "stasis", "tracking"],
        hunted={
            ALZBETA: {"hand": [1, 2, 3, 4, 5], "discard": [], "survival": []},
            JIRI: {"hand": [2, 3, 4, 5], "discard": [1], "survival": []},
            BARBORA: {"hand": [1, 2, 3, 4], "discard": [5], "survival": []},
            MICHAL: {"hand": [1, 2, 3, 8], "discard": [4, 5], "will": 1, "survival": []},
            JAN: {"hand": [1, 2, 8], "discard": [3, 4, 5], "will": 3, "survival": []},
        },
    )
    play_turn(g, {ALZBETA: [1], JIRI: [5], BARBORA: [2], MICHAL: [8], JAN: [8]}, until="hunt")
    return g


def test_hynek_hunting_phase():
    g = hynek_game()
    assert g.window["kind"] == "hunt"
    # The Rescue counter stands on an Artemia space (side 1: distances 1..6), so the Artemia token is available
    # without any Artemia card: every token placement names it.
    tokens = [a for a in g.legal_actions(CREATURE) if a["type"] == "tokens"]
    assert tokens and all("artemia" in a for a in tokens)
    act(g, CREATURE, {"type": "hunt_card", "card": "mirage", "places": [5, 10]})
    act(g, CREATURE, {"type": "tokens", "creature": 8, "artemia": 2})
    assert g.public_view()["tokens"] == {"creature": [8], "target": [5, 10], "artemia": [2]}


def test_hynek_without_artemia_space_has_no_artemia_token():
    g = start(6, side=1)
    setup(g, rescue=7, creature=["stasis", "tracking", "detour"])
    play_turn(g, {seat: [1] for seat in range(1, 6)}, until="hunt")
    assert all("artemia" not in a for a in g.legal_actions(CREATURE))
    with pytest.raises(IllegalAction):
        g.apply(CREATURE, {"type": "tokens", "creature": 8, "artemia": 2})


def test_reckoning_of_alzbeta_jiri_barbora_michal_and_jan():
    g = hynek_game()
    rescue, assimilation = g.s["rescue"], g.s["assimilation"]
    events = []
    act(g, CREATURE, {"type": "hunt_card", "card": "mirage", "places": [5, 10]}, events)
    act(g, CREATURE, {"type": "tokens", "creature": 8, "artemia": 2}, events)
    run(g, {BARBORA: [{"type": "discard", "cards": [3]}]}, events=events)  # to the end of the turn

    # Alžběta on the Lair copies the Wreck (the Creature token's place): Rescue +1 at once.
    assert {"type": "power", "seat": ALZBETA, "place": 1, "use": 8, "via": "lair", "visible_to": None} in events
    # Jiří on the Rover under the Mirage: nothing at all, not even a take-back (his discard holds the Lair).
    assert not [e for e in events if e.get("seat") == JIRI and e["type"] in ("power", "takeback")]
    assert hunted(g, JIRI)["hand"] == [2, 3, 4] and hunted(g, JIRI)["discard"] == [1, 5]
    # Barbora on the Jungle under the Artemia token: discards 1 card, no power, no take-back.
    assert hunted(g, BARBORA)["discard"] == [5, 3, 2]
    assert sorted(hunted(g, BARBORA)["hand"]) == [1, 4]
    assert not [e for e in events if e.get("seat") == BARBORA and e["type"] in ("power", "takeback")]
    # Michal and Jan on the Wreck under the Creature token: 1 Will each, Assimilation once for the catch, once
    # more because Michal lost his last Will; Michal takes every place card back and 3 Will.
    assert hunted(g, JAN)["will"] == 2
    assert hunted(g, MICHAL)["will"] == 3
    assert sorted(hunted(g, MICHAL)["hand"]) == [1, 2, 3, 4, 5, 8]
    assert hunted(g, MICHAL)["discard"] == [] and hunted(g, MICHAL)["played"] == []
    assert g.s["assimilation"] == assimilation - 2
    assert g.s["rescue"] == rescue - 2  # the Wreck copied by the Lair, then the end of the turn
    # Rule order: the free Lair first, then the Artemia token, then the Creature token.
    order = [(e["type"], e.get("seat")) for e in events if e["type"] in ("power", "discarded", "caught")]
    assert order == [("power", ALZBETA), ("discarded", BARBORA), ("caught", MICHAL), ("caught", JAN)]


def test_barbora_resists():
    g = start(3, side=1)
    setup(g, hunted={1: {"hand": [4, 5], "discard": [1, 2, 3], "will": 3, "survival": []}})
    events = act(g, 1, {"type": "resist", "cards": [1, 3]})
    h = hunted(g, 1)
    assert h["will"] == 2 and sorted(h["hand"]) == [1, 3, 4, 5] and h["discard"] == [2]
    assert events_of(events, "resist")[0]["visible_to"] is None


def test_resist_two_will_takes_back_four():
    g = start(3, side=1)
    setup(g, hunted={1: {"hand": [5], "discard": [1, 2, 3, 4, 8], "will": 3}})
    act(g, 1, {"type": "resist", "cards": [1, 2, 3, 4]})
    assert hunted(g, 1)["will"] == 1 and sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 4, 5]


def test_resisting_down_to_zero_is_not_allowed_give_up_instead():
    g = start(3, side=1)
    setup(g, hunted={1: {"hand": [5], "discard": [1, 2, 3, 4], "will": 1}})
    legal = g.legal_actions(1)
    assert not [a for a in legal if a["type"] == "resist"]
    with pytest.raises(IllegalAction):
        g.apply(1, {"type": "resist", "cards": [1, 2]})
    setup(g, hunted={1: {"hand": [5], "discard": [1, 2, 3, 4], "will": 2}})
    assert {"type": "resist", "cards": [1, 2]} in g.legal_actions(1)
    assert not [a for a in g.legal_actions(1) if a["type"] == "resist" and len(a["cards"]) > 2]
    assert {"type": "giveup"} in g.legal_actions(1)


def test_give_up_moves_assimilation_once_per_hunted():
    g = start(4, side=1)
    setup(
        g,
        hunted={
            1: {"hand": [5], "discard": [1, 2, 3, 4], "will": 1},
            2: {"hand": [4, 5], "discard": [1, 2, 3], "will": 3},
        },
    )
    assimilation = g.s["assimilation"]
    act(g, 1, {"type": "giveup"})
    assert g.s["assimilation"] == assimilation - 1
    assert hunted(g, 1)["will"] == 3 and sorted(hunted(g, 1)["hand"]) == [1, 2, 3, 4, 5]
    assert hunted(g, 1)["discard"] == []
    act(g, 2, {"type": "giveup"})
    assert g.s["assimilation"] == assimilation - 2


def test_give_up_needs_something_to_regain():
    g = start(3, side=1)
    assert {"type": "giveup"} not in g.legal_actions(1)  # 3 Will and an empty discard pile


def test_losing_last_will_moves_assimilation_once_however_many():
    g = start(4, side=1)
    setup(
        g,
        creature=["stasis", "tracking", "detour"],
        hunted={
            1: {"hand": [1, 2, 8], "discard": [3, 4, 5], "will": 1, "survival": []},
            2: {"hand": [1, 2, 8], "discard": [3, 4, 5], "will": 1, "survival": []},
            3: {"hand": [1, 2, 3, 4, 5], "survival": []},
        },
    )
    assimilation = g.s["assimilation"]
    play_turn(g, {1: [8], 2: [8], 3: [4]}, tokens={"creature": 8}, until="end")
    # +1 for the catch, +1 once for "one or more Hunted lost their last Will"
    assert g.s["assimilation"] == assimilation - 2
    for seat in (1, 2):
        assert hunted(g, seat)["will"] == 3
        assert sorted(hunted(g, seat)["hand"]) == [1, 2, 3, 4, 5, 8]


def test_expert_variant_gives_two_will_after_losing_the_last():
    g = start(3, side=1, expert=True)
    setup(
        g,
        creature=["stasis", "tracking", "detour"],
        hunted={1: {"hand": [1, 2, 8], "discard": [3, 4, 5], "will": 1, "survival": []}},
    )
    play_turn(g, {1: [8], 2: [4]}, tokens={"creature": 8}, until="end")
    assert hunted(g, 1)["will"] == 2
    # Giving up in Exploration still restores all 3.
    run(g)
    act(g, 1, {"type": "giveup"})
    assert hunted(g, 1)["will"] == 3


@pytest.mark.parametrize("players,copies", [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 3)])
def test_reserve_by_player_count(players, copies):
    g = new_game({"players": players, "seed": 3, "side": 1})
    assert g.public_view()["reserve"] == {str(p): copies for p in range(6, 11)}
    for seat in range(1, players):
        assert sorted(hunted(g, seat)["hand"]) == [1, 2, 3, 4, 5]
        assert hunted(g, seat)["will"] == 3 and len(hunted(g, seat)["survival"]) == 1
    assert len(g.s["players"][0]["hand"]) == 3
    assert g.s["marker_on_beach"] is False


@pytest.mark.parametrize("players", range(2, 8))
def test_start_distances(players):
    g = new_game({"players": players, "seed": 0, "side": 2})
    assert (g.s["rescue"], g.s["assimilation"]) == (11 + players, 5 + players)


def test_player_count_outside_2_to_7_is_refused():
    for players in (1, 8):
        with pytest.raises(IllegalAction):
            new_game({"players": players, "seed": 0})


@pytest.mark.parametrize(
    "config,named",
    [
        ({"players": 3, "seed": 0, "secrets": "strict"}, "'secrets'"),
        ({"player": 3, "seed": 0}, "'player'"),
        ({"players": 3, "seed": 0, "player": 3}, "'player'"),
        ({"players": 3, "seed": 0, "Side": 1}, "'Side'"),
    ],
)
def test_config_refuses_unknown_keys_naming_them_and_the_allowed_ones(config, named):
    with pytest.raises(IllegalAction) as refused:
        new_game(config)
    message = str(refused.value)
    assert named in message and all(key in message for key in ("players", "seed", "side", "expert", "secrecy"))


@pytest.mark.parametrize(
    "key,value",
    [
        ("players", "3"),
        ("players", True),
        ("players", 3.0),
        ("players", None),
        ("seed", "7"),
        ("seed", 1.5),
        ("seed", None),
        ("seed", False),
        ("side", 3),
        ("side", "1"),
        ("side", True),
        ("expert", "yes"),
        ("expert", 1),
        ("expert", None),
        ("secrecy", "x"),
        ("secrecy", "Strict"),
        ("secrecy", None),
    ],
)
def test_config_refuses_bad_values_naming_the_key(key, value):
    config = {"players": 3, "seed": 0, "side": None, "expert": False} | {key: value}
    with pytest.raises(IllegalAction, match=f"'{key}'"):
        new_game(config)


def test_config_must_be_a_dict_with_players():
    for config in (None, [3], "players=3", {"seed": 1}):
        with pytest.raises(IllegalAction, match="players"):
            new_game(config)


def test_config_defaults_and_every_key():
    g = new_game({"players": 3})
    assert g.s["config"] == {"players": 3, "seed": 0, "side": None, "expert": False, "secrecy": "strict"}
    g = new_game({"players": 7, "seed": -5, "side": 2, "expert": True, "secrecy": "fast"})
    assert g.s["config"] == {"players": 7, "seed": -5, "side": 2, "expert": True, "secrecy": "fast"}


def test_creature_chooses_the_side_when_not_fixed():
    g = new_game({"players": 3, "seed": 0, "side": None})
    assert g.window["kind"] == "setup" and g.waiting_for() == [CREATURE]
    assert g.legal_actions(1) == []
    act(g, CREATURE, {"type": "side", "side": 2})
    assert g.s["side"] == 2 and g.window["kind"] == "explore"
    assert g.public_view()["artemia_spaces"] == [1, 3, 5, 7, 9, 11]


def test_end_of_turn_rescue_moves_and_cards_are_discarded_and_refilled():
    g = start(3, side=1)
    setup(g, creature=["fierceness", "stasis", "tracking"], hunt_deck=["detour", "clone"])
    rescue = g.s["rescue"]
    play_turn(g, {1: [3], 2: [4]}, hunt={"card": "fierceness"}, tokens={"creature": 9})
    assert g.turn == 2 and g.window["kind"] == "explore"
    assert g.s["rescue"] == rescue - 1
    assert hunted(g, 1)["discard"] == [3] and hunted(g, 2)["discard"] == [4]
    assert g.s["hunt_discard"][-1] == "fierceness"
    assert sorted(g.s["players"][0]["hand"]) == ["clone", "stasis", "tracking"]
    assert tokens_of(g) == {"creature": [], "target": [], "artemia": []}


def test_immediate_victory_hunted_nothing_runs_after():
    """The Wreck brings the Rescue counter home: the game ends then, the later catch never happens."""
    g = start(3, side=1)
    setup(
        g,
        rescue=1,
        creature=["stasis", "tracking", "detour"],
        hunted={
            1: {"hand": [1, 2, 8], "discard": [3, 4, 5], "survival": []},
            2: {"hand": [1, 2, 3, 4, 5], "survival": []},
        },
    )
    assimilation = g.s["assimilation"]
    events = play_turn(g, {1: [8], 2: [4]}, tokens={"creature": 4, "artemia": 7}, answers={1: [power(8)]})
    assert g.is_over and g.winner == "hunted"
    assert events[-1]["type"] == "game_over"
    assert g.s["assimilation"] == assimilation and hunted(g, 2)["will"] == 3  # the catch on the Beach never ran
    assert g.window is None and g.waiting_for() == [] and g.legal_actions(1) == []
    with pytest.raises(IllegalAction):
        g.apply(1, {"type": "play", "cards": [1]})


def test_immediate_victory_creature_on_give_up():
    g = start(3, side=1)
    setup(g, assimilation=1, hunted={1: {"hand": [5], "discard": [1, 2, 3, 4], "will": 1}})
    events = act(g, 1, {"type": "giveup"})
    assert g.winner == "creature" and events[-1]["type"] == "game_over"
    assert g.legal_actions(2) == []


def test_immediate_victory_creature_on_catch_nothing_runs_after():
    g = start(3, side=1)
    setup(
        g,
        assimilation=1,
        creature=["stasis", "tracking", "detour"],
        hunted={1: {"hand": [1, 2, 3, 4, 5], "survival": []}, 2: {"hand": [1, 2, 3, 4, 5], "survival": []}},
    )
    events = play_turn(g, {1: [1], 2: [4]}, tokens={"creature": 1})
    assert g.winner == "creature"
    assert events[-1]["type"] == "game_over"
    # The seed's order: the caught Hunted loses Will (2 on the Lair), then the counter moves and ends the game;
    # nothing after that (the Reckoning of seat 2, the end of the turn) runs.
    assert hunted(g, 1)["will"] == 1
    assert hunted(g, 2)["hand"] == [1, 2, 3, 5] and g.turn == 1


def test_immediate_victory_at_end_of_turn():
    g = start(3, side=1)
    setup(g, rescue=1, creature=["fierceness", "tracking", "detour"])
    events = play_turn(g, {1: [3], 2: [3]}, tokens={"creature": 9, "artemia": 7})
    assert g.winner == "hunted" and g.turn == 1 and events[-1]["type"] == "game_over"


def test_hunt_deck_reshuffles_its_discard():
    g = start(3, side=1)
    setup(g, creature=["fierceness", "stasis", "tracking"], hunt_deck=[])
    discard = sorted(g.s["hunt_discard"])
    assert len(discard) == 17
    play_turn(g, {1: [3], 2: [4]}, hunt={"card": "fierceness"}, tokens={"creature": 9})
    # End of turn: Fierceness goes to the discard, the empty deck is rebuilt from the whole discard pile.
    assert len(g.s["players"][0]["hand"]) == 3
    assert g.s["hunt_discard"] == [] and len(g.s["hunt_deck"]) == 17


def test_survival_deck_reshuffles_its_discard():
    g = start(3, side=1)
    setup(
        g,
        creature=["stasis", "tracking", "detour"],
        survival_deck=[],
        hunted={1: {"hand": [1, 2, 3, 4, 9], "survival": []}, 2: {"survival": ["dodge"]}},
    )
    total = len(SURVIVAL_CARDS)  # 15 in the published game; 1 held by seat 2
    assert len(g.s["survival_discard"]) == total - 1
    events = play_turn(g, {1: [9], 2: [4]}, tokens={"creature": 3})  # nobody to heal: the Source draws
    assert len(hunted(g, 1)["survival"]) == 1 and events_of(events, "drawn")[0]["visible_to"] == [1]
    assert len(g.s["survival_deck"]) == total - 2 and g.s["survival_discard"] == []
