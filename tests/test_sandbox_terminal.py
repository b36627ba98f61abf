"""`make run` as a newcomer meets it: a whole sandbox game played through a pseudo-terminal, in each language.

The player answers every question with its first numbered choice (as a person tapping the first button would);
the test reads everything the terminal showed: each question has words besides the commands, every time is
written one way, the Czech grammar is right, the game ends, and the watch page the sandbox prints is served.
"""

import os
import pty
import re
import select
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.test_language_whole_game import english_in

ROOT = Path(__file__).resolve().parents[1]
CHOICE = re.compile(r"^\s+1\) ", re.M)
OVER = re.compile(r"The game is over\. Its watch page stays up|Hra skončila\. Její stránka pro diváky zůstane")
# "Sat 5 Dec, 21:27 CET" / "21:27 SEČ (so 5. 12.)" (steps of an hour: to the minute)
TIME = {
    "en": re.compile(r"\b[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}, \d\d:\d\d [A-Z]{3,4}\b"),
    "cs": re.compile(r"\b\d\d:\d\d [A-ZČ]{3,4} \(\w{2} \d{1,2}\. \d{1,2}\.\)"),
}


def play_in_a_terminal(args: list[str], quiet: float = 0.3, limit: float = 240) -> tuple[int, str]:
    """Run the sandbox on a pseudo-terminal; whenever its output has settled on a new screen of choices, type 1.
    -> (exit code, everything the terminal showed)."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ARTEMIA_REDIS_SENTINELS")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.sandbox", *args], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT
    )
    os.close(slave)
    out, answered, last, page = b"", 0, time.monotonic(), None
    started = time.monotonic()
    try:
        while time.monotonic() - started < limit:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the sandbox has ended: the terminal is closed
                    break
                out += chunk
                last = time.monotonic()
                continue
            if proc.poll() is not None:
                break
            text = out.decode(errors="replace")
            if page is None and (found := re.search(r"http://127\.0\.0\.1:\d+/w/\S+", text)):
                page = found.group()
                with urllib.request.urlopen(page, timeout=10) as response:  # the board, live, in a browser
                    assert response.status == 200 and b"<html" in response.read().lower()
            if time.monotonic() - last > quiet and OVER.search(text, answered):
                os.write(master, b"status\nquit\n")  # the watch page stays up until the player quits; status answers
                answered = len(text)
            elif time.monotonic() - last > quiet and CHOICE.search(text, answered):
                answered = len(text)
                os.write(master, b"1\n")
                last = time.monotonic()
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert page is not None, "no watch page address was printed"
    return proc.returncode, out.decode(errors="replace").replace("\r\n", "\n")


def questions(text: str) -> list[list[str]]:
    """Every question screen the terminal showed: its lines, from the "🎯 Turn …" heading to its last choice."""
    screens, current = [], None
    for line in text.splitlines():
        body = re.sub(r"^(\[\w+\] |  -> |\s+)", "", line)
        if body.startswith("🎯"):
            current = [body]
            screens.append(current)
        elif current is not None and line.startswith(" ") and body:
            current.append(body)
        else:
            current = None
    return screens


COMMAND_LINE = re.compile(r"^(Or type|Nebo napiš): |^\d+\) |^(Your hand|Na ruce|Your Hunt cards|Tvoje karty lovu)")


@pytest.mark.parametrize(
    "lang, args",
    [
        ("cs", ["--seat", "1", "--players", "3", "--seed", "5", "--deadline", "3600", "--tz", "Europe/Prague"]),
        ("en", ["--seat", "0", "--players", "4", "--seed", "7"]),
    ],
)
def test_a_whole_sandbox_game_in_a_terminal_reads_like_the_real_thing(lang, args):
    code, text = play_in_a_terminal([*args, "--lang", lang])
    assert code == 0, text[-3000:]
    assert ("Konec hry." if lang == "cs" else "Game over.") in text
    screens = questions(text)
    assert len(screens) >= 5
    for screen in screens:  # the question in words (Telegram's), not only the commands that answer it
        words = [line for line in screen[1:] if not COMMAND_LINE.search(line)]
        assert words and re.search(r"[^\W\d_]{4,}.*[.?:]$", words[0]), screen
        assert any(re.match(r"\d+\) ", line) for line in screen), screen
    if "--deadline" in args:  # every time in one format, in the zone asked for
        times = re.findall(r"\d\d:\d\d(?::\d\d)?", text)
        assert times and len(TIME[lang].findall(text)) == len(times), text
        assert "SEČ" in text or "SELČ" in text
    else:  # no deadline: no time to answer by, and the start says so
        assert "no time limit" in text
        assert not re.search(r"\d\d:\d\d", text) and "Answer by" not in text
    if lang == "cs":
        assert "Čekáme na: tebe" in text and "Čekáme na: Ty" not in text
        english = [line for line in text.splitlines() if "http" not in line and english_in(line)]
        assert not english, english[:10]
        assert "Díky za hru! Další hru začneš novým spuštěním sandboxu." in text
    else:
        assert "Waiting for you" in text and "Thanks for playing! Start the sandbox again for another game." in text
        assert "You play the Creature." in text and "You chose side" in text  # your own moves, worded for you
        assert not re.search(r"\bYou (uses|plays|takes|discards|places)\b", text)
    assert "/newgame" not in text  # a Telegram command means nothing here
    after = OVER.split(text)[-1]
    assert "🌍" in after and after.rstrip().endswith(("The sandbox has stopped.", "Sandbox skončil."))
