"""SMS cost benchmark: segments per player per turn when every seat plays by SMS, English and Czech, with and
without the ASCII-only setting.

Bot games (``service.game.bots``) are played window by window; after each window closes, every seat gets what
`service.channels.sms.render.step_messages` would send it (the question when asked, else the news when
there is some) and the segments of those texts are counted (`sms_text.cost`). Reported per setting: segments
per player per turn (mean, p90, max), messages per player per turn, the share of messages within two
segments, and the longest message seen.

Environment: BENCH_SMS_GAMES (games per player count, default 40), BENCH_SMS_PLAYERS (default "3,5,7").
"""

import os
import random
import statistics
from collections import defaultdict
from datetime import UTC, datetime

from service.channels.sms import render as sms_messages
from service.channels.sms.directory import Prefs
from service.channels.sms.text import TARGET_SEGMENTS, cost
from service.game import new_game
from service.game.bots import choose

DEADLINE = datetime(2026, 7, 14, 16, 0, tzinfo=UTC).timestamp()
SETTINGS = [("en", False), ("cs", False), ("cs", True)]


class FixedPrefs:
    """Stands in for the SMS directory: every number has the same settings."""

    def __init__(self, lang: str, ascii: bool):
        self.fixed = Prefs(lang=lang, ascii=ascii)

    def prefs(self, number: str) -> Prefs:
        return self.fixed


def play(players: int, seed: int):
    """Yield (turn, game, events, asked) after each window of a bot game."""
    game, rng = new_game({"players": players, "seed": seed}), random.Random(seed)
    while not game.is_over:
        window, turn, events = game.window["id"], game.turn, []
        while game.window is not None and game.window["id"] == window:
            seat = game.waiting_for()[0]
            for action in choose(game, seat, rng):
                events += game.apply(seat, action)
        yield turn, game, events, [] if game.is_over else game.waiting_for()


def measure(players: int, games: int) -> dict:
    meta = {"code": "K7QX", "players": {str(s): {"chat": f"sms:+4206010000{s:02d}"} for s in range(players)}}
    per_turn = {setting: defaultdict(lambda: [0, 0]) for setting in SETTINGS}  # (game, turn, seat) -> [segs, msgs]
    lengths = {setting: [] for setting in SETTINGS}
    for seed in range(games):
        for turn, game, events, asked in play(players, seed):
            for setting in SETTINGS:
                for message in sms_messages.step_messages(meta, game, events, asked, DEADLINE, FixedPrefs(*setting)):
                    segments = cost(message["text"]).segments
                    cell = per_turn[setting][seed, max(turn, 1), message["seat"]]
                    cell[0] += segments
                    cell[1] += 1
                    lengths[setting].append((segments, message["text"]))
    return {
        setting: (
            sorted(c[0] for c in per_turn[setting].values()),
            [c[1] for c in per_turn[setting].values()],
            lengths[setting],
        )
        for setting in SETTINGS
    }


def main():
    games = int(os.environ.get("BENCH_SMS_GAMES", "40"))
    counts = [int(p) for p in os.environ.get("BENCH_SMS_PLAYERS", "3,5,7").split(",")]
    print(f"SMS segments per player per turn, every seat by SMS, {games} bot games per player count")
    print("  players  lang  ascii   seg/turn mean  p90  max   msgs/turn   <=2 seg   longest")
    for players in counts:
        results = measure(players, games)
        for (lang, ascii), (segments, messages, lengths) in results.items():
            within = sum(1 for s, _ in lengths if s <= TARGET_SEGMENTS) / len(lengths)
            longest = max(lengths)[0]
            p90 = segments[min(len(segments) - 1, int(0.9 * len(segments)))]
            print(
                f"  {players:7d}  {lang:4s}  {'yes' if ascii else 'no':5s}  {statistics.mean(segments):13.2f}"
                f"  {p90:3d}  {segments[-1]:3d}   {statistics.mean(messages):9.2f}   {within:6.1%}"
                f"   {longest:3d} seg"
            )
    worst = max(measure(counts[-1], 3)[("cs", False)][2])
    print(f"longest Czech message without ASCII ({worst[0]} segments):\n  {worst[1]}")


if __name__ == "__main__":
    main()
