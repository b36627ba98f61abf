"""The arena (bench/arena.py): its JSON line and its intervals."""

import json
import subprocess
import sys

import pytest

from bench.arena import wilson


@pytest.mark.integration
def test_the_json_line_counts_every_game_and_the_interval_holds_the_rate():
    run = subprocess.run(
        [sys.executable, "-m", "bench.arena", "--players", "3", "--creature", "normal", "--hunted", "easy"]
        + ["--games", "3", "--rollouts", "4", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["games"] == 3 and result["creature_wins"] + result["hunted_wins"] == 3
    low, high = result["creature_ci95"]
    assert low <= result["creature_rate"] <= high
    assert result["decision_ms_p95"] >= result["decision_ms_p50"] > 0, "the normal Creature searched"


@pytest.mark.integration
def test_a_time_only_search_needs_a_time():
    run = subprocess.run(
        [sys.executable, "-m", "bench.arena", "--players", "3", "--creature", "hard", "--hunted", "easy"]
        + ["--games", "1", "--rollouts", "0"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "--rollouts 0 needs --budget-ms" in run.stderr


def test_wilson_intervals():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(50, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60  # the textbook 95 % interval of 50 / 100
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.27 < high < 0.29
