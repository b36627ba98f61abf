"""A rendered transcript of one turn as Telegram players see it — the group and one Hunted's private chat — in
English and Czech: ``python -m service.transcript [--turn N] [--seed S] [-o docs/transcript.md]``. With
``--table``: a table of four, in English, the group and every seat's private chat (`docs/transcript-table.md`).

A bots-only game through the real pipeline (embedded Redis, an in-process worker, the real Telegram
channel's words), every outgoing Telegram message recorded in order: a new message or an edit of a living one
(its slot), with its buttons, and the group's status picture (drawn into ``transcript/`` beside the output, each
picture once). Nothing is sent anywhere. `docs/transcript.md` is its output.
"""

import argparse
import random
import sys
from pathlib import Path

from rq import SimpleWorker

from service import board, i18n, wiring
from service.channels.recording import RecordingSender
from service.config import get_settings
from service.game import Game
from service.game.bots import choose, whole_answer
from service.pipeline import context, ingest, resolution
from service.pipeline.resolution import start_game

GAME = "K7QX"
GROUP = "-1001234"
NAMES = {"en": ["Zora", "Anna", "Petr", "Eva"], "cs": ["Zora", "Anna", "Petr", "Eva"]}
READER = 1  # whose private chat is shown: the first Hunted
ALT = {"en": "The board", "cs": "Herní plán"}  # a status picture's text in the Markdown
TITLES = {
    "en": ("One turn in English", "The group", "Anna's private chat with the bot", "new message", "edited"),
    "cs": ("Jedno kolo česky", "Skupina", "Annin soukromý chat s botem", "nová zpráva", "upraveno"),
}


def record(lang: str, turn: int, seed: int, live: bool = False, players: int = 3) -> tuple[list[dict], int]:
    """(every Telegram send up to the end of turn ``turn``, in order; the index of the first one of that turn).
    ``live``: the table plays live, each player still reading the chat when the turn ends. Every seat answers what
    it is asked as a bot would, one seat after another: what the window waits for, and a question nothing waits
    for (a place's question ahead) too."""
    connection = wiring.connect(None)  # embedded: nothing is sent anywhere
    # Every version of a living message is shown: no edit waits to be replaced (the settings' *_settle_seconds 0),
    # which the in-process worker's burst runs could not wait for anyway. Unless ``live``, people answer minutes
    # apart, and nobody is still reading the chat when a turn ends (a new message every turn).
    settings = get_settings().model_copy(
        update={
            "rate_global_per_second": 1e9,
            "rate_private_per_second": 1e9,
            "rate_group_per_minute": 1e9,
            "edit_settle_seconds": 0,
            "tick_settle_seconds": 0,
            # (nor does a window wait a moment for a question nothing waits for: the next answer comes later)
            **({} if live else {"turn_message_goes_on_seconds": 0, "may_hold_seconds": 0}),
        }
    )
    recorder = RecordingSender(connection)
    ctx = wiring.build(connection, settings, sender=recorder)
    context.register(ctx)
    seats = {
        str(seat): {"name": name, "chat": str(100 + seat), "user": str(100 + seat), "lang": lang}
        for seat, name in enumerate(NAMES[lang][:players])
    }
    meta = {"players": seats, "group": GROUP, "code": GAME, "deadline_seconds": 86400, "lang": lang, "bots": []}
    start_game(ctx, GAME, {"players": players, "seed": seed, "side": None, "expert": False}, meta)
    worker = SimpleWorker(ctx.queues, connection=connection, serializer=ctx.queue.serializer)
    rng, start, before, n = random.Random(seed), None, 0, 0
    while True:
        worker.work(burst=True, logging_level="WARNING")
        snap = ctx.store.load(GAME)
        if snap is None:
            raise RuntimeError("the transcript's game is gone")
        game = Game.from_json(snap.json)
        if start is None and game.turn == turn:
            start = before  # from the step that began the turn (its questions)
        if game.turn > turn or game.is_over:
            break
        before = len(recorder.sent())
        answers, expected = ctx.store.answers(GAME), ctx.store.expected(GAME)
        asked = sorted(expected - set(answers))
        optional = [s for s in getattr(game, "may_answer", list)() if s not in answers]
        for seat in sorted(optional) + asked:  # those nothing waits for first: a window closes with the last asked
            n += 1
            actions = whole_answer(game, seat, rng) if seat in asked else _optional_answer(game, seat, rng)
            if actions:
                ingest.submit(ctx, GAME, seat, actions, snap.current_window, f"t{n}", snap)
                worker.work(burst=True, logging_level="WARNING")  # the status ticks that seat off
        if not asked and not optional and snap.held is not None:  # held for a question ahead: each answers it
            after = _answered(game.copy(), snap.current_window, answers, expected)
            more = {seat: _optional_answer(after, seat, rng) for seat in after.may_answer() if seat in answers}
            if not any(more.values()):
                raise RuntimeError(f"window {snap.current_window} is held for a question nobody is asked")
            for seat, actions in more.items():
                n += 1
                ingest.submit(ctx, GAME, seat, answers[seat] + actions, snap.current_window, f"t{n}", snap)
                worker.work(burst=True, logging_level="WARNING")
    return recorder.sent(), start or 0


def _answered(game: Game, window: int, answers: dict[int, list[dict]], expected: set[int]) -> Game:
    """``game`` (changed) with the window's stored ``answers`` applied as the resolution applies them."""
    _, plans = resolution.apply_answers(game, window, answers, expected, [])
    resolution.apply_plans(game, plans, [])
    return game


def _optional_answer(game: Game, seat: int, rng: random.Random) -> list[dict]:
    """A bot's answers to the questions the window puts to ``seat`` without waiting for it."""
    trial, actions = game.copy(), list[dict]()
    while trial.window is not None and seat in trial.may_answer() and len(actions) < 8:
        for action in choose(trial, seat, rng):
            trial.apply(seat, action)
            actions.append(action)
    return actions


def chat_lines(
    sends: list[dict], start: int, chat: str, new: str, edited: str, pictures: "Pictures | None" = None
) -> list[str]:
    """The chat's messages from ``start`` on as quoted blocks: each new message and each edit of a living one
    (a slot sent to before), with its buttons; a photo message with its picture (``pictures``) above its caption."""
    out, seen = [], {sent.get("slot") for sent in sends[:start] if sent["chat"] == chat}
    for sent in sends[start:]:
        if sent["chat"] != chat:
            continue
        slot = sent.get("slot")
        label = edited if slot and slot in seen else new
        seen.add(slot)
        out += [f"**{label}**", ""]
        if sent.get("picture") and pictures is not None:
            out += [f"> ![{pictures.alt}]({pictures.link(sent['picture'])})", ">"]
        out += ["> " + line if line else ">" for line in sent["text"].splitlines()]
        for row in sent.get("buttons") or []:
            out.append("> " + " ".join(f"`[{button['text']}]`" for button in row))
        out.append("")
    return out


class Pictures:
    """The status pictures of a transcript, each drawn once into ``folder`` (named by language and order) and
    linked as ``<link_base>/<file>``."""

    def __init__(self, folder: Path, link_base: str, lang: str, alt: str):
        self.folder, self.link_base, self.lang, self.alt = folder, link_base, lang, alt
        self.names: dict[str, str] = {}

    def link(self, payload: dict) -> str:
        picture = board.picture(payload)
        if picture.digest not in self.names:
            name = f"{self.lang}-{len(self.names) + 1}.png"
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / name).write_bytes(picture.png())
            self.names[picture.digest] = name
        return f"{self.link_base}/{self.names[picture.digest]}"


def table_transcript(turn: int, seed: int) -> str:
    """One turn of a table of four in English: the group (the status pictures' captions, not the pictures) and
    every seat's private chat, each in order."""
    sends, start = record("en", turn, seed, players=4)
    out = [
        "# What one turn looks like at a table of four, for everyone",
        "",
        f"Generated by `python -m service.transcript --table --turn {turn} --seed {seed} -o docs/transcript-table.md`:"
        " a game of four played by bots through the real pipeline under strict secrecy (the default), every "
        f"message the bot sends during turn {turn} (and the step that ends it), chat by chat. An edit replaces the "
        "message above it; buttons are shown as `[…]`. The Creature is Zora; Anna, Petr and Eva are the Hunted. "
        "Each seat answers what it is asked, as soon as it is asked, as a bot would; a question nothing waits for "
        "(a place's question ahead) is answered too. `docs/transcript-table-before.md` is the same turn as the "
        "engine and channels of commit `f760f4b` played it (before issue 37).",
        "",
        "## The group",
        "",
    ] + chat_lines(sends, start, GROUP, "new message", "edited")
    for seat, name in enumerate(NAMES["en"]):
        role = "the Creature" if seat == 0 else "a Hunted"
        out += [f"## {name}'s private chat ({role})", ""]
        out += chat_lines(sends, start, str(100 + seat), "new message", "edited")
    return "\n".join(out).rstrip() + "\n"


def transcript(turn: int, seed: int, pictures_in: Path | None = None, live: bool = False) -> str:
    """The transcript's Markdown; the status pictures are drawn into ``pictures_in`` (None: not shown); ``live``:
    see `record`."""
    command = f"python -m service.transcript --turn {turn} --seed {seed}" + (" --live" if live else "")
    out = [
        "# What playing looks like: one turn on Telegram" + (", at a table playing live" if live else ""),
        "",
        f"Generated by `{command} -o docs/{'transcript-live' if live else 'transcript'}.md`: a game of "
        "three played by bots through the real pipeline, every message the bot sends during turn "
        f"{turn} (and the step that ends it), in order. An edit replaces the message above it with the same "
        "content kind (the group's living status message — the board's picture with the status as its caption — "
        "or a player's turn message); buttons are shown as `[…]`. The Creature is Zora; Anna and Petr are the "
        "Hunted.",
        "",
    ]
    if live:
        out[-1:] = [
            "",
            "Here everyone answers moments apart, as at a table playing live: when a turn ends, each player is "
            "still reading the chat, so their turn message goes on into the next turn, edited, with the whole "
            "turn it leaves on top (`docs/transcript.md` shows a table whose players answer minutes apart: a new "
            "message, which notifies, every turn).",
            "",
        ]
    for lang in i18n.LANGS:
        title, group, private, new, edited = TITLES[lang]
        sends, start = record(lang, turn, seed, live)
        pictures = Pictures(pictures_in, pictures_in.name, lang, ALT[lang]) if pictures_in else None
        out += [f"## {title}", "", f"### {group}", ""] + chat_lines(sends, start, GROUP, new, edited, pictures)
        out += [f"### {private}", ""] + chat_lines(sends, start, str(100 + READER), new, edited)
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.transcript", description=__doc__.splitlines()[0])
    parser.add_argument("--turn", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--live", action="store_true", help="everyone answers moments apart (see record)")
    parser.add_argument("--table", action="store_true", help="a table of four in English, every seat's chat")
    parser.add_argument("-o", "--out", type=Path, default=None, help="write here (default: print)")
    args = parser.parse_args(argv)
    pictures = args.out.parent / "transcript" if args.out else None
    if args.table:
        text = table_transcript(args.turn, args.seed)
    else:
        text = transcript(args.turn, args.seed, pictures, args.live)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
