"""bench/pace.py prints, as its last line, the JSON summary issue 37 names; and strict secrecy's figures meet its
goals on a few games (the full measure is `make bench`)."""

import json

from bench import pace

KEYS = {"games", "waits_median", "waits_mean", "waits_p90", "pass_only_per_player_turn", "questions_per_player_turn"}


def test_the_last_line_is_the_json_summary(capsys):
    pace.main(["--players", "3", "--games", "4"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    summary = json.loads(last)
    assert set(summary) == KEYS and summary["games"] == 4


def test_under_strict_nobody_is_asked_only_to_pass_and_a_turn_stops_about_twice():
    for players in (2, 5, 7):
        summary = pace.measure(players, 20, "strict")
        assert summary["pass_only_per_player_turn"] == 0
        assert summary["waits_median"] <= 2 and summary["waits_mean"] <= 3.0, (players, summary)


def test_fast_secrecy_names_holders_and_never_asks_only_to_pass_either():
    summary = pace.measure(4, 10, "fast")
    assert summary["pass_only_per_player_turn"] == 0 and summary["questions_per_player_turn"] > 1
