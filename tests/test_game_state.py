"""The state's description (service/game/state.py): the TypedDicts name exactly the keys a game holds, and the
migration from format 0 renames every old key."""

import json
import random
from pathlib import Path

import pytest

from service.game import Game, new_game
from service.game.bots import play_out
from service.game.state import FORMAT_VERSION, RENAMES, Player, State, ThisTurn, Window, migrate


def _keys(typed):
    return typed.__required_keys__ | typed.__optional_keys__


@pytest.mark.parametrize("seed", range(6))
def test_typed_dicts_describe_every_key_of_a_game(seed):
    seen = {"state": set(), "turn": set(), "hunted": set(), "creature": set(), "window": set()}

    def note(g):
        s = g.s
        seen["state"] |= set(s)
        seen["turn"] |= set(s["this_turn"])
        seen["creature"] |= set(s["players"][0])
        for h in s["players"][1:]:
            seen["hunted"] |= set(h)
        if s["window"]:
            seen["window"] |= set(s["window"])

    game = new_game({"players": 2 + seed, "seed": seed, "side": None})
    note(game)
    play_out(game, random.Random(seed), eager=seed % 2 == 0, on_step=note)
    assert seen["state"] == _keys(State)
    assert seen["turn"] == _keys(ThisTurn)
    assert seen["hunted"] == _keys(Player) and seen["creature"] == Player.__required_keys__
    assert seen["window"] <= _keys(Window)


def test_format_0_keys_are_all_renamed():
    snapshots = json.loads((Path(__file__).parent / "data" / "engine_snapshots_v0.json").read_text())["snapshots"]
    old = json.loads(next(s for s in snapshots if s["name"] == "reckoning_answered")["state"])
    assert "version" not in old
    new = migrate(json.loads(json.dumps(old)))
    assert new["version"] == FORMAT_VERSION
    assert not set(RENAMES["state"]) & set(new)
    assert not set(RENAMES["this_turn"]) & set(new["this_turn"])
    for h in new["players"][1:]:
        assert not set(RENAMES["hunted"]) & set(h)
    assert Game(new).to_json() == Game.from_json(json.dumps(old)).to_json()


def test_a_current_state_is_left_as_it_is_and_a_newer_one_refused():
    game = new_game({"players": 4, "seed": 1})
    assert Game.from_json(game.to_json()).to_json() == game.to_json()
    newer = json.loads(game.to_json())
    newer["version"] = FORMAT_VERSION + 1
    with pytest.raises(ValueError, match="newer"):
        Game.from_json(json.dumps(newer))
