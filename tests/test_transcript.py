"""The rendered transcript of one turn (`python -m service.transcript`, `docs/transcript.md`): the group and one
player's private chat, each language on its own and only in its own language."""

from pathlib import Path

from service import transcript
from tests.test_language_whole_game import czech_in, english_in

DOC = Path(__file__).resolve().parents[1] / "docs" / "transcript.md"


def test_one_turn_of_the_group_and_a_private_chat_in_each_language_and_only_in_it(tmp_path):
    text = transcript.transcript(turn=2, seed=11, pictures_in=tmp_path / "transcript")
    english, czech = text.split("## One turn in English")[1].split("## Jedno kolo česky")
    for part, reveal, question, cards in (
        (english, "🔦 Reveal of turn 2!", "> 🎯 Turn 2 · ", "`[📖 My cards]`"),
        (czech, "🔦 Odhalení – 2. kolo!", "> 🎯 Kolo 2 · ", "`[📖 Moje karty]`"),
    ):
        group, private = part.split("\n### ")[1:3]
        assert reveal in group and "🌍" in group and "🎯" not in group  # no secret in the group
        assert "> ![" in group and "![" not in private  # the group's status is the board's picture
        assert question in private and cards in private and "✅" in private
    assert not [line for line in english.splitlines() if czech_in(line)]
    assert not [line for line in czech.splitlines() if english_in(line)]
    drawn = sorted(p.name for p in (tmp_path / "transcript").iterdir())
    assert "en-1.png" in drawn and "cs-1.png" in drawn and "(transcript/en-1.png)" in english
    assert all((tmp_path / "transcript" / name).read_bytes().startswith(b"\x89PNG") for name in drawn)
    assert DOC.read_text(encoding="utf-8").startswith(text.split("\n## ")[0])  # the committed one, same header


def test_at_a_table_playing_live_a_players_turn_message_goes_on_into_the_next_turn():
    text = transcript.transcript(turn=2, seed=11, live=True)
    english = text.split("## One turn in English")[1].split("## Jedno kolo česky")[0]
    private = english.split("\n### ")[2]
    # no new message in the player's chat: the turn message is edited into turn 3, turn 2 carried on top of it
    assert "**new message**" not in private and "**edited**" in private
    assert "> Turn 1:\n" in private and "> Turn 2:\n> You play" in private
    assert private.index("> Turn 2:\n") < private.index("> 🎯 Turn 3 · Exploration")
    assert "**new message**" in transcript.transcript(turn=2, seed=11).split("\n### ")[2]  # answers minutes apart
    live_doc = DOC.with_name("transcript-live.md").read_text(encoding="utf-8")
    assert live_doc.startswith(text.split("\n## ")[0])  # the committed one, same header
