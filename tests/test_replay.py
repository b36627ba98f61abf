"""Scenario fixtures in the replay format (tests/fixtures/*.log): each is replayed through the command language
and its final public view must contain what its ``# expect {...}`` line says."""

import json
import pathlib

import pytest

from service.replay import ReplayError, replay

FIXTURES = sorted((pathlib.Path(__file__).parent / "fixtures").glob("*.log"))


def contains(actual, expected):
    """Whether ``actual`` holds ``expected``: dicts by subset, lists item by item, values by equality."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(contains(a, e) for a, e in zip(actual, expected))
        )
    return actual == expected


def expectations(text):
    return [json.loads(line.split("expect", 1)[1]) for line in text.splitlines() if line.startswith("# expect ")]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture(path):
    text = path.read_text(encoding="utf-8")
    expected = expectations(text)
    assert expected, f"{path.name} has no '# expect' line"
    view = replay(text).public_view()
    for want in expected:
        assert contains(view, want), f"{path.name}: {want} not in {view}"


def test_a_bad_line_names_itself():
    log = '{"players": 3, "seed": 0, "side": 1}\n1: play 4\n2: fly away\n'
    with pytest.raises(ReplayError, match="line 3"):
        replay(log)


def test_a_bad_config_line_says_which_key():
    with pytest.raises(ReplayError, match="the config line: unknown config key 'player'"):
        replay('{"player": 3, "seed": 0}\n1: play 4\n')


def test_contains_is_strict():
    assert contains({"a": 1, "b": [1, {"c": 2, "d": 3}]}, {"b": [1, {"c": 2}]})
    assert not contains({"a": 1}, {"a": 2})
    assert not contains({"b": [1, 2]}, {"b": [1]})
