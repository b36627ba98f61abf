"""The local sandbox end to end (embedded Redis, in-process worker, real engine), and deadline presets."""

import io
import re
from pathlib import Path

import pytest

from service import sandbox
from service.config import deadline_seconds


def test_bots_only_game_plays_to_the_end_and_keeps_hands_private(capsys):
    assert sandbox.main(["--bots-only", "--seed", "3", "--players", "4", "--timeout", "120"]) == 0
    out = capsys.readouterr().out
    assert "Game over." in out
    blocks, label = {}, None  # transcript lines grouped by chat label
    for line in out.splitlines():
        if line.startswith("["):
            label, line = line[1 : line.index("]")], line[line.index("]") + 2 :]
        blocks.setdefault(label, []).append(line.strip())
    assert {"table", "seat 1", "seat 2", "seat 3"} <= set(blocks)
    # a Hunted's secret pick ("You play") reaches that Hunted only; the table learns it at the reveal
    assert any(line.startswith("You play: ") for line in blocks["seat 1"])
    assert not any(line.startswith("You play") for line in blocks["table"])
    assert any("Reveal of turn 1!" in line for line in blocks["table"])
    assert all("=" not in line for lines in blocks.values() for line in lines)  # no raw "field=value" text


def played(monkeypatch, capsys, typed: str, *args: str) -> str:
    """What the terminal showed of a sandbox game at seat 1 of 3, ``typed`` its player's lines, then stdin closed."""
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    assert sandbox.main(["--seat", "1", "--players", "3", *args]) == 0
    return capsys.readouterr().out


def test_the_human_seat_answers_through_the_command_language(monkeypatch, capsys):
    out = played(monkeypatch, capsys, "help\nplay 1\nplay 2\n", "--seed", "4", "--deadline", "30")
    # the question as Telegram asks it, in words, its buttons numbered, and its deadline worded as every channel
    # words it ("Sat 5 Dec, 17:31:06 UTC": a 30-second step shows its seconds)
    assert "[you] 🎯 Turn 1 · Exploration" in out
    assert "Choose where you explore: play a place card" in out
    assert re.search(r"Answer by \w{3} \d{1,2} \w{3}, \d\d:\d\d:\d\d UTC\.", out)
    assert "1) Play 1 Lair" in out and "📖 My cards" in out
    assert "play 1-5" in out  # the help
    assert "Here you may also type: the number of a choice" in out
    assert "-> Locked in: play 1 (Lair)" in out
    assert "[you] You play: 1 Lair." in out  # resolved by the in-process worker, delivered to you


def test_a_number_presses_that_choice_and_opens_what_it_opens(monkeypatch, capsys):
    # 7 opens "My cards", 1 goes back to the question, 3 plays the River; 12 names no choice
    out = played(monkeypatch, capsys, "7\n1\n12\n3\n", "--seed", "5")
    assert "-> 📖 Your cards:" in out and "• Wrong Track: Move the Creature token to an adjacent place." in out
    assert "1) « Back to the question" in out
    assert "-> There is no choice 12 on the last screen." in out
    assert "-> Locked in: play 3 (River)" in out
    assert "no time limit" in out and "Answer by" not in out  # no deadline unless --deadline sets one


def test_a_typed_command_goes_on_from_the_choices_made_so_far(monkeypatch, capsys):
    # 6: "Ask me about my cards later this turn" (chosen so far), then the place typed: both are the answer
    out = played(monkeypatch, capsys, "6\nplay 3\n", "--seed", "5")
    assert "Chosen so far: 🔔 Ask me about my cards later this turn" in out
    assert "-> Locked in: later, play 3 (River)" in out


def test_a_cards_text_is_one_command_away_and_the_board_a_file(monkeypatch, capsys):
    out = played(monkeypatch, capsys, "karta Falešná stopa\nkarta 3\ndeska\n", "--seed", "5", "--lang", "cs")
    assert "-> 📖 Falešná stopa: Přesuň žeton Bytosti na sousední lokaci." in out
    assert "-> 📖 3 Řeka: " in out
    path = re.search(r"-> Herní plán: (\S+\.png)", out).group(1)
    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("interrupt", [EOFError, KeyboardInterrupt])
def test_no_input_at_the_seat_question_ends_with_a_clear_word_not_a_traceback(monkeypatch, capsys, interrupt):
    def no_answer(prompt):  # stdin closed (make run without a terminal: Ctrl-D), or Ctrl-C
        raise interrupt

    monkeypatch.setattr("builtins.input", no_answer)
    assert sandbox.main(["--players", "3"]) == 2
    assert "Run it in a terminal, or with --bots-only to watch bots." in capsys.readouterr().err
    assert sandbox.main(["--players", "3", "--lang", "cs"]) == 2
    assert "Spusť ho v terminálu, nebo s --bots-only" in capsys.readouterr().err


def test_status_is_readable_text_and_your_own_moves_are_worded_for_you(monkeypatch, capsys):
    # the seat holds a Survival card but is not asked about it (it did not say "later"); the Jungle has one way
    monkeypatch.setattr("sys.stdin", io.StringIO("status\nplay 2\nplay 1\n"))
    assert sandbox.main(["--seat", "1", "--players", "3", "--seed", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    status = lines.index("  -> 🌍 Turn 1 · Exploration")  # the status in words, not JSON
    # the Hunted are named (under strict secrecy the Creature is not waited for in the exploration)
    assert lines[status + 1].strip() == "⏳ You · ✅ Bot 2" and "{" not in "".join(lines[status : status + 8])
    assert any(line.strip().startswith("Your hand: 1 Lair, 2 Jungle") for line in lines[status:])
    assert "You use the power of 2 Jungle." in [line.strip() for line in lines]  # the table read by you: not "You uses"
    bad = re.compile(r"\bYou (uses|plays|takes|discards|resists|gives|keeps|shows|has|was caught)\b")
    assert not [line for line in lines if bad.search(line)]


def test_deadline_presets_and_the_server_minimum():
    assert deadline_seconds("live", 1) == 120
    assert deadline_seconds("fast", 1) == 3600
    assert deadline_seconds("daily", 1) == 86400
    assert deadline_seconds("90", 1) == 90
    assert deadline_seconds(5, 60) == 60
    with pytest.raises(ValueError):
        deadline_seconds("weekly", 1)
