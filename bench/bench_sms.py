"""SMS cost benchmark: segments per player per turn when every seat plays by SMS, English and Czech, with and
without the ASCII-only setting.

Bot games (``service.game.bots``) are played window by window; after each window closes, every seat gets what
`service.channels.sms.render.step_messages` would send it (the question when asked, else the news when
there is some, else a marker that keeps held news one window longer), and "OK: …" for each answer stored before the window's last one (CONFIRM OFF, the default),
delivered as the outbox delivers them (`Lane`: news that asks nothing and "OK: …" ride on the next message when
they fit; news that does not fit goes alone, "OK: …" is dropped), and the segments of the texts sent are counted
(`sms_text.cost`). The paid reply CONFIRM ON adds for each stored answer is not counted. Reported per setting: segments
per player per turn (mean, p90, max), messages per player per turn, the share of messages within two
segments, and the longest message seen.

Refusals (issue 15, point 3): whole games where every seat is a random SMS player who answers only with what
its message offers. It reads the options out of the question's text as a person would (`offered`: the part
between the phase and "By", split at ";"; a range "1-10", "1, 2 or 4" / "1/2/4" and "2 of 1, 4, 5" are choices
it makes, a parenthesis is a comment), types one at random (`typed`), and the text goes through the router's
own reading (`routing.read_answer`: `commands.parse` after any held first part) and the engine's check
(`ingest.check_answer`). A first part the seat must complete is held and the rest asked, as the router does
(`sms_text.rest`). Any refusal (the parser's or the engine's) is counted; the bot then answers for the seat so
that the game goes on.

Environment: BENCH_SMS_GAMES (games per player count, default 40), BENCH_SMS_PLAYERS (default "3,5,7").
"""

import os
import random
import re
import statistics
from collections import defaultdict
from datetime import UTC, datetime

from service import commands
from service.channels.sms import render as sms_messages
from service.channels.sms import text as sms_text
from service.channels.sms.directory import Prefs
from service.channels.sms.routing import read_answer
from service.channels.sms.text import TARGET_SEGMENTS, cost, outgoing
from service.game import new_game
from service.game.bots import choose
from service.pipeline.ingest import Reason, check_answer
from service.pipeline.outbox import fold_into

DEADLINE = datetime(2026, 7, 14, 16, 0, tzinfo=UTC).timestamp()
# (language, how diacritics go: "auto" the default — dropped when that saves a segment —, "accents" ASCII OFF,
# "ascii" ASCII ON)
SETTINGS = [("en", "auto"), ("cs", "auto"), ("cs", "accents"), ("cs", "ascii")]


class FixedPrefs:
    """Stands in for the SMS directory: every number has the same settings."""

    def __init__(self, lang: str, mode: str):
        self.fixed = Prefs(lang=lang, ascii=mode == "ascii", accents=mode == "accents")

    def prefs(self, number: str) -> Prefs:
        return self.fixed


def play(players: int, seed: int):
    """Yield (turn, game, events, asked, accepted) after each window of a bot game; ``accepted``: the answers
    (seat, actions) stored before the one that closed the window (each would get "OK: …")."""
    game, rng = new_game({"players": players, "seed": seed}), random.Random(seed)
    while not game.is_over:
        window, turn, events, answers = game.window["id"], game.turn, [], []
        while game.window is not None and game.window["id"] == window:
            seat, before = game.waiting_for()[0], game.copy()
            actions = choose(game, seat, rng)
            for action in actions:
                events += game.apply(seat, action)
            answers.append((seat, actions, before))
        yield turn, game, events, [] if game.is_over else game.waiting_for(), answers[:-1]


class Lane:
    """One number's lane as the outbox delivers it (`outbox.hold`): a held message (news that asks nothing, or
    "OK: …" after an answer) rides on the next message written for the number when it fits (`outbox.fold_into`),
    else it goes alone ("OK: …" is dropped instead). The outbox holds it until the deadline of the window open
    when it was written; a step that writes nothing else for the number writes a ``keep`` marker, which gives held
    news one more window, once. Conservatively, every window here lasts until its deadline: news held twice and
    met by another marker goes alone then, and "OK: …" met by a marker is dropped."""

    def __init__(self):
        self.held: dict | None = None

    def push(self, message: dict) -> list[dict]:
        """What is sent when ``message`` is written."""
        sent = []
        if self.held is not None and message.get("fold_only") and not self.held.get("fold_only"):
            return sent  # news, then "OK: …": the OK is dropped (outbox.hold)
        if self.held is not None:
            merged = fold_into(self.held, message)
            if merged is None and not self.held.get("fold_only"):
                sent.append(self.held)
            message = merged or message
            self.held = None
        if message.get("keep"):
            return sent  # a marker that extended nothing is dropped
        if message.get("hold_until") is not None:
            self.held = message
        else:
            sent.append(message)
        return sent


def measure(players: int, games: int) -> dict:
    meta = {"code": "K7QX", "players": {str(s): {"chat": f"sms:+4206010000{s:02d}"} for s in range(players)}}
    per_turn = {setting: defaultdict(lambda: [0, 0]) for setting in SETTINGS}  # (game, turn, seat) -> [segs, msgs]
    lengths = {setting: [] for setting in SETTINGS}
    for seed in range(games):
        lanes = {setting: [Lane() for _ in range(players)] for setting in SETTINGS}
        for turn, game, events, asked, accepted in play(players, seed):
            for setting in SETTINGS:
                prefs = FixedPrefs(*setting)
                written = sms_messages.step_messages(meta, game, events, asked, DEADLINE, prefs)
                for seat, lane in enumerate(lanes[setting]):
                    chat = meta["players"][str(seat)]["chat"]
                    sent = []
                    for _, actions, before in [a for a in accepted if a[0] == seat]:
                        ok = sms_messages.confirmation(chat, "K7QX", before, seat, actions, DEADLINE, prefs.fixed)
                        sent += lane.push(ok)
                    for message in [m for m in written if m["seat"] == seat]:
                        sent += lane.push(message)
                    for message in sent:
                        body = outgoing(message["text"], prefs.fixed.ascii, prefs.fixed.accents)  # as the sender
                        segments = cost(body).segments
                        cell = per_turn[setting][seed, max(turn, 1), seat]
                        cell[0] += segments
                        cell[1] += 1
                        lengths[setting].append((segments, body))
    return {
        setting: (
            sorted(c[0] for c in per_turn[setting].values()),
            [c[1] for c in per_turn[setting].values()],
            lengths[setting],
        )
        for setting in SETTINGS
    }


# ---------------------------------------------------------------------------------------------- refusals
BY = {"en": "By", "cs": "Do"}  # the word before the deadline, as the player reads it
OR = {"en": "or", "cs": "nebo"}
OF = {"en": "of", "cs": "z"}


def offered(text: str, lang: str) -> list[str]:
    """The options a question offers: what stands between its head ("K7QX T3 Exploration:") and its deadline."""
    body = re.split(rf"\. {BY[lang]} ", text.partition(": ")[2])[0]
    return [option.strip() for option in body.split(";") if option.strip()]


ITEM = r"[a-z]?\d+(?:-\d+|(?:\+\d+)+)?"  # "4", "p2", "a1-10", "1+6"
PAIRS = rf"\d+\+\d+(?:\s+\d+\+\d+)*\s+(?:{OR['en']}|{OR['cs']})\s+\d+\+\d+"  # "1+2 1+6 or 2+3"
LIST = rf"{PAIRS}|{ITEM}(?:(?:\s*,\s*|\s+(?:{OR['en']}|{OR['cs']})\s+|/){ITEM})*"  # "1, 4 or 5", "1/4/5"


def _pick(items: str, n: int, rng: random.Random) -> list[str]:
    """``n`` different items of "1, 4 or 5" / "1/4/5" / "1-10" / "1+2, 1+6 or 2+3"."""
    values = []
    separator = r"\s+" if "+" in items else r",|/"  # pairs are separated by spaces, numbers by commas
    for item in re.split(rf"\s+(?:{OR['en']}|{OR['cs']})\s+|{separator}", items):
        span = re.fullmatch(r"([a-z]?)(\d+)-(\d+)", item.strip())
        values += [f"{span[1]}{v}" for v in range(int(span[2]), int(span[3]) + 1)] if span else [item.strip()]
    return rng.sample([v for v in values if v], n)


def typed(option: str, lang: str, rng: random.Random) -> str:
    """What a person types for an option: every choice in it made ("1-10", "1, 2 or 4", "2 of 1, 4, 5")."""
    option = re.sub(r"\([^)]*\)", " ", option)  # comments: "(1 Will)", "(River)"
    option = re.sub(r"<(\d+) \w+: ([^>]*)>", lambda m: " ".join(_pick(m[2].replace(" ", ","), int(m[1]), rng)), option)
    option = re.sub(
        rf"\b(\d+) (?:{OF['en']}|{OF['cs']}) ({LIST})", lambda m: " ".join(_pick(m[2], int(m[1]), rng)), option
    )
    option = re.sub(rf"\b(?:{LIST})\b", lambda m: _pick(m[0], 1, rng)[0], option)
    return " ".join(option.split())


MAX_ANSWERS = 5000  # a game takes a few hundred: more means an answer that is held for ever


def refusals(players: int, seed: int, lang: str, ascii: bool) -> tuple[int, int, list[str]]:
    """(answers, refusals, examples) of a game where every seat answers at random from what its message offers."""
    game, rng = new_game({"players": players, "seed": seed}), random.Random(seed)
    held: dict[int, list[dict]] = {}
    answers, refused, examples = 0, 0, []
    while not game.is_over:
        seat = game.waiting_for()[0]
        before = game.copy()
        for action in held.get(seat, []):
            before.apply(seat, action)
        if held.get(seat):
            asked = sms_text.rest("K7QX", before, seat, held[seat], DEADLINE, lang, "Europe/Prague")
        else:
            asked = sms_text.question("K7QX", game, seat, DEADLINE, lang, "Europe/Prague")
        asked = sms_text.prepare(asked, ascii)
        said = typed(rng.choice(offered(asked, lang)), lang, rng)
        answers += 1
        if answers > MAX_ANSWERS:
            raise RuntimeError(f"game {seed} of {players} does not end: {asked} -> {said!r}")
        try:
            first, actions, _ = read_answer(game, seat, held.get(seat, []), said, lang)
            problem = check_answer(game.copy(), seat, first + actions, game.window["id"])
        except commands.CommandError as exc:
            problem, first, actions = exc, [], []
        if problem is None:
            held.pop(seat, None)
            for action in first + actions:
                game.apply(seat, action)
        elif getattr(problem, "reason", None) is Reason.INCOMPLETE:
            held[seat] = first + actions
        else:
            refused += 1
            examples.append(f"{asked} -> {said!r}: {getattr(problem, 'reason', problem)}")
            held.pop(seat, None)
            for action in choose(game, seat, rng):
                game.apply(seat, action)
    return answers, refused, examples


def main():
    games = int(os.environ.get("BENCH_SMS_GAMES", "40"))
    counts = [int(p) for p in os.environ.get("BENCH_SMS_PLAYERS", "3,5,7").split(",")]
    print(f"SMS segments per player per turn, every seat by SMS, {games} bot games per player count")
    print("  players  lang  accents  seg/turn mean  p90  max   msgs/turn   <=2 seg   longest")
    for players in counts:
        results = measure(players, games)
        for (lang, mode), (segments, messages, lengths) in results.items():
            within = sum(1 for s, _ in lengths if s <= TARGET_SEGMENTS) / len(lengths)
            longest = max(lengths)[0]
            p90 = segments[min(len(segments) - 1, int(0.9 * len(segments)))]
            print(
                f"  {players:7d}  {lang:4s}  {mode:7s}  {statistics.mean(segments):13.2f}"
                f"  {p90:3d}  {segments[-1]:3d}   {statistics.mean(messages):9.2f}   {within:6.1%}"
                f"   {longest:3d} seg"
            )
    worst = max(measure(counts[-1], 3)[("cs", "accents")][2])
    print(f"longest Czech message with accents ({worst[0]} segments):\n  {worst[1]}")
    print(f"Refusals: every seat a random SMS player answering only with offered options, {games} games each")
    print("  players  lang  accents  answers  refused")
    examples = []
    for players in counts:
        for lang, mode in SETTINGS:
            runs = [refusals(players, seed, lang, mode == "ascii") for seed in range(games)]
            examples += [e for run in runs for e in run[2]]
            print(f"  {players:7d}  {lang:4s}  {mode:7s}  {sum(r[0] for r in runs):8d}  {sum(r[1] for r in runs):7d}")
    for example in examples[:5]:
        print("  refused:", example)


if __name__ == "__main__":
    main()
