"""What Artemia shows in a chat, as pure data: texts and keyboards of buttons, in English or Czech. No I/O.
Telegram shows a keyboard as inline buttons; the console (the sandbox) shows it as numbered choices, and a number
typed there presses that button (`service.channels.console.typed`). So both ask the same questions in the same words.

Decision messages (private, one per asked seat and window)
    A screen is the seat's legal actions as buttons, the question, the deadline as an absolute time and the
    typed commands that do the same. A composite answer (Resist, then play) is built on the same message: each
    tap appends the index of the chosen action to the callback data, and the next screen offers what is legal
    after the actions chosen so far. When the seat has nothing left to answer in the window, the answer (the
    list of chosen actions) is complete and goes to the pipeline; the message then shows "locked in" with a
    button to change the answer while the window is open.

Callback data (at most 64 bytes): ``d:<game>:<window>:<seat>:<chosen>:<menu>``. ``seat`` is the seat whose
keyboard the button is on: a client can send any data with a press, so a button copied from another seat's
keyboard is refused rather than read as the presser's choice (`follow` raises `ForeignButton`). ``chosen`` is
the dot-separated indices of the actions chosen so far, each into ``legal_actions(seat)`` of the game as the
earlier ones left it (deterministic: a stored game does not change while its window is open); ``menu`` is the
dash-separated path of sub-menus opened on the current screen. Nothing secret is in it and nothing needs a
server-side cache. `decode` rejects garbled data; `follow` rejects forged data (an index that names no legal
action, a path through no menu, more choices than the window asks) and data from a window that is no longer open.

Keyboards group the choices: the main choice of the window (places to play, tokens, questions) is shown at once
when it fits; Resist and each Hunt or Survival card with several ways to play it open a sub-menu; a choice set
too big for one screen (the Creature token and the Artemia token: 100 pairs) is split by its first parameter
(first the Creature token's place, then the Artemia token's). At most 100 buttons, 8 to a row.

Group messages: the one living status message of a turn (who has answered — never what —, the deadline,
results, counters, Beach marker, Artemia spaces), the reveal, and the end of the game.

A keyboard is a list of rows of buttons; a button is ``{"text": ..., "data": ...}`` or ``{"text": ..., "url":
...}`` — plain JSON, so it can be stored in the outbox; `service.channels.telegram.sender` turns it into markup.
"""

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from service import cardtexts
from service.cardnames import name, word
from service.channels.plain import clock_of, situation  # noqa: F401  (re-exported: ui.clock_of)
from service.commands.words import SEAT_FIELDS
from service.commands.writing import summary
from service.game import Game, IllegalAction
from service.i18n import translator
from service.i18n.clock import when, zone  # noqa: F401  (re-exported: ui.when, ui.zone)
from service.i18n.events import track, winner
from service.i18n.names import cards_text, seat_name, tokens_text
from service.i18n.questions import question
from service.i18n.spoken import spoken

CALLBACK_LIMIT = 64
TOAST_MAX = 200  # the text of a reply to a button press (answerCallbackQuery)
MAX_BUTTONS = 100
MAX_PER_ROW = 8
PASS = {"type": "pass"}
# The button "No cards this turn" beside a question that offers pass: a plan that passes now and at every later
# card question of the turn (under strict secrecy a seat is asked even when it holds no card: one tap per turn).
NO_CARDS = 999
NO_CARDS_PLAN = {"type": "plan", "orders": [PASS]}
INLINE_MAX = 24  # a main choice with at most this many options is shown at once on the first screen
MENU_MAX = 40  # a sub-menu with more options than this is split by its next parameter
CARDS_MENU = 998  # the menu path (998,) is the "📖 My cards" page of a question (no sub-menu has that many buttons)
# Action types that are the window's main question; other types (Resist, cards) go into sub-menus.
MAIN_TYPES = {
    "side",
    "play",
    "tokens",
    "keep",
    "discard",
    "show",
    "keep_survival",
    "power",
    "takeback",
    "lose_will",
    "discard_survival",
    "pass",
    "giveup",
    "ahead",
}

_CALLBACK = re.compile(
    r"d:(?P<game>[A-Za-z0-9_]{1,40}):(?P<window>\d{1,9}):(?P<seat>\d):"
    r"(?P<chosen>(?:\d{1,3}(?:\.\d{1,3}){0,9})?):(?P<menu>(?:\d{1,3}(?:-\d{1,3}){0,5})?)"
)

Keyboard = list[list[dict]]


class BadCallback(ValueError):
    """Callback data that is garbled or names no legal choice."""


class ForeignButton(BadCallback):
    """A button from another seat's keyboard, pressed by someone else."""


class ExpiredChoice(BadCallback):
    """A button from a window that is no longer open."""


@dataclass(frozen=True)
class Choice:
    """A decision screen (or a complete answer) as named by a button."""

    game_id: str
    window: int
    seat: int
    chosen: tuple[int, ...] = ()
    menu: tuple[int, ...] = ()

    def data(self) -> str:
        chosen, menu = ".".join(map(str, self.chosen)), "-".join(map(str, self.menu))
        text = f"d:{self.game_id}:{self.window}:{self.seat}:{chosen}:{menu}"
        if len(text.encode()) > CALLBACK_LIMIT or not _CALLBACK.fullmatch(text):
            raise ValueError(f"callback data does not fit: {text!r}")
        return text

    def choose(self, index: int) -> "Choice":
        return Choice(self.game_id, self.window, self.seat, self.chosen + (index,))

    def open(self, menu: tuple[int, ...]) -> "Choice":
        return Choice(self.game_id, self.window, self.seat, self.chosen, menu)

    def restart(self) -> "Choice":
        """The first screen of the same seat and window."""
        return Choice(self.game_id, self.window, self.seat)


_BACK = re.compile(r"r:(?P<game>[A-Za-z0-9_]{1,40})")


def back_keyboard(game_id: str, lang: str) -> Keyboard:
    """The "I'm back" button of a seat a bot plays: pressed, the seat is its player's again from the next
    question on. Its data: ``r:<game>``."""
    data = f"r:{game_id}"
    if len(data.encode()) > CALLBACK_LIMIT or not _BACK.fullmatch(data):
        raise ValueError(f"callback data does not fit: {data!r}")
    return [[{"text": "🙋 " + translator(lang).gettext("I'm back"), "data": data}]]


def back_game(data: str | None) -> str | None:
    """The game of an "I'm back" button's data, or None when ``data`` is not one."""
    match = _BACK.fullmatch(data or "")
    return match["game"] if match else None


def game_named(data: str | None) -> str | None:
    """The game a button's data names (a decision or an "I'm back" button), or None when it names none."""
    match = _BACK.fullmatch(data or "") or _CALLBACK.fullmatch(data or "")
    return match["game"] if match else None


def decode(data: str | None) -> Choice:
    match = _CALLBACK.fullmatch(data or "")
    if not match:
        raise BadCallback(f"not a decision button: {data!r}")
    split = lambda text, sep: tuple(int(n) for n in text.split(sep)) if text else ()  # noqa: E731
    return Choice(
        match["game"], int(match["window"]), int(match["seat"]), split(match["chosen"], "."), split(match["menu"], "-")
    )


@dataclass
class Stage:
    """The seat's answer so far: the game as the chosen actions leave it, whether the answer is complete (the
    window no longer waits for the seat: it may be stored) and whether the seat is asked more in this window (a
    question nothing waits for: the Creature's phase-1 card, a question ahead after choosing a place)."""

    game: Game
    actions: list[dict]
    complete: bool
    more: bool = False


def asked(game: Game, seat: int, window: int) -> bool:
    """Whether the seat has something to answer in the window (waited for, or a question nothing waits for)."""
    return game.window is not None and game.window["id"] == window and game.answering(seat)


def waited(game: Game, seat: int, window: int) -> bool:
    return game.window is not None and game.window["id"] == window and seat in game.waiting_for()


def follow(game: Game, seat: int, choice: Choice) -> Stage:
    """Replay the choice's chosen actions on a copy of ``game``. Raises `ForeignButton` / `ExpiredChoice` /
    `BadCallback`."""
    if choice.seat != seat:
        raise ForeignButton(f"a button of seat {choice.seat}'s keyboard, pressed for seat {seat}")
    if game.window is None or game.window["id"] != choice.window:
        raise ExpiredChoice(f"window {choice.window} is not open")
    if not game.answering(seat):
        raise BadCallback(f"seat {seat} is not asked in window {choice.window}")
    stage = game.copy()
    actions = []
    for index in choice.chosen:
        if not asked(stage, seat, choice.window):
            raise BadCallback("more choices than the window asks")
        legal = stage.legal_actions(seat)
        if index == NO_CARDS and PASS in legal:
            action = NO_CARDS_PLAN
        elif index < len(legal):
            action = legal[index]
        else:
            raise BadCallback(f"no legal action {index}")
        try:
            stage.apply(seat, action)
        except IllegalAction as exc:  # cannot happen for a legal action; refuse rather than crash
            raise BadCallback(str(exc)) from exc
        actions.append(action)
    more = asked(stage, seat, choice.window)
    return Stage(stage, actions, bool(actions) and not waited(stage, seat, choice.window), more)


def choice_of(game: Game, seat: int, choice: Choice, actions: list[dict]) -> Choice | None:
    """The choice that names ``actions`` (an answer stored for ``seat``) from ``choice``'s first screen, or None
    when one of them is not among the legal actions of its screen."""
    stage = game.copy()
    for action in actions:
        legal = stage.legal_actions(seat)
        if action == NO_CARDS_PLAN and PASS in legal:
            index = NO_CARDS
        elif action in legal:
            index = legal.index(action)
        else:
            return None
        stage.apply(seat, action)
        choice = choice.choose(index)
    return choice


def asked_more(game: Game, seat: int, first: Choice, answer: list[dict]) -> Choice | None:
    """After ``answer`` was stored for ``seat`` (``game``: as stored, the answer not applied; ``first``: its
    window's first screen), the screen of what the seat is still asked that nothing waits for (a question ahead),
    or None: the answer is all there is."""
    choice = choice_of(game, seat, first, answer) if game.answering(seat) else None
    return choice if choice is not None and follow(game, seat, choice).more else None


# ---------------------------------------------------------------------------------------------- menus


@dataclass
class Node:
    """A button of a decision screen: a leaf chooses the legal action ``index``; other nodes open a sub-menu."""

    label: str
    index: int | None = None
    children: list["Node"] = field(default_factory=list)


def _category(action: dict) -> tuple[str, str | None]:
    return action["type"], action.get("card")


def _params(action: dict) -> list[tuple[str, object]]:
    """The action's parameters in order, lists flattened: tokens 4 a7 -> [("creature", 4), ("artemia", 7)]."""
    out = []
    for key, value in action.items():
        if key in ("type", "card"):
            continue
        out += [(key, v) for v in value] if isinstance(value, list) else [(key, value)]
    return out


def _category_label(category: tuple[str, str | None], lang: str) -> str:
    kind, card = category
    if card:
        return name(card, lang)
    _ = translator(lang).gettext
    labels = {
        "play": _("Play"),
        "tokens": word("creature_token", lang),
        "resist": word("resist", lang),
        "keep": _("Keep"),
        "discard": _("Discard"),
        "show": _("Show"),
        "power": _("Use a power"),
        "takeback": _("Take back"),
        "discard_survival": _("Discard"),
    }
    return labels.get(kind, kind)


def _value_label(key: str, value, lang: str, names: dict[int, str]) -> str:
    if key in SEAT_FIELDS:
        return seat_name(names, value, lang)
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        return cards_text([value], lang)
    return str(value)


def _split(
    indices: list[int], legal: list[dict], depth: int, limit: int, lang: str, names: dict[int, str]
) -> list[Node]:
    """Leaves for the given actions, or sub-menus by their parameter at ``depth`` when there are too many."""
    if len(indices) <= limit:
        return [Node(spoken(legal[i], lang, names), index=i) for i in indices]
    groups: dict[tuple, list[int]] = {}
    for i in indices:
        params = _params(legal[i])
        groups.setdefault(params[depth] if depth < len(params) else ("", None), []).append(i)
    if len(groups) == 1:
        return _split(indices, legal, depth + 1, limit, lang, names)
    prefix = _category_label(_category(legal[indices[0]]), lang)
    return [
        Node(
            f"{prefix} {_value_label(key, value, lang, names)} …",
            children=_split(group, legal, depth + 1, MENU_MAX, lang, names),
        )
        for (key, value), group in groups.items()
    ]


def menu(legal: list[dict], lang: str, names: dict[int, str] | None = None) -> list[Node]:
    """The first screen's buttons for these legal actions (see the module docstring for the grouping)."""
    names = names or {}
    categories: dict[tuple, list[int]] = {}
    for i, action in enumerate(legal):
        categories.setdefault(_category(action), []).append(i)
    nodes = []
    for category, indices in categories.items():
        if len(indices) == 1:
            nodes.append(Node(spoken(legal[indices[0]], lang, names), index=indices[0]))
        elif category[0] in MAIN_TYPES:
            nodes += _split(indices, legal, 0, INLINE_MAX, lang, names)
        else:
            nodes.append(
                Node(_category_label(category, lang) + " …", children=_split(indices, legal, 0, MENU_MAX, lang, names))
            )
    return nodes


def _open(nodes: list[Node], path: tuple[int, ...]) -> list[Node]:
    for step in path:
        if step >= len(nodes) or not nodes[step].children:
            raise BadCallback(f"no sub-menu {path}")
        nodes = nodes[step].children
    return nodes


def rows(buttons: list[dict]) -> Keyboard:
    """Buttons packed into rows: more to a row when their labels are short, never more than 8."""
    out: Keyboard = []
    for button in buttons:
        row = out[-1] if out else None
        longest = max([len(b["text"]) for b in row or []] + [len(button["text"])])
        fits = MAX_PER_ROW if longest <= 4 else 4 if longest <= 10 else 2 if longest <= 30 else 1
        if row is None or len(row) >= fits:
            out.append([button])
        else:
            row.append(button)
    return out


# ---------------------------------------------------------------------------------------------- texts


def _kind_title(kind: str, lang: str) -> str:
    _ = translator(lang).gettext
    return {
        "setup": _("Setup"),
        "explore": word("phase1", lang),
        "hunt": word("phase2", lang),
        "prereveal": _("Before the reveal"),
        "reckoning": word("phase3", lang),
        "end": word("phase4", lang),
    }.get(kind, kind)


@dataclass(frozen=True)
class Screen:
    text: str
    keyboard: Keyboard | None  # None: no buttons (an answer that closed its window)


def decision(
    game: Game,
    seat: int,
    choice: Choice,
    deadline: float | None,
    lang: str,
    names: dict[int, str] | None = None,
    tz: str | None = None,
    precise: bool = False,
) -> Screen:
    """The screen for ``choice`` (the first one: ``Choice(game_id, window, seat)``) while the answer is incomplete;
    ``deadline`` None: a table without deadlines. Raises `BadCallback` / `ExpiredChoice` for a choice that names
    nothing valid."""
    _ = translator(lang).gettext
    stage = follow(game, seat, choice)
    window = game.window
    if window is None:  # follow() has refused it already
        raise ExpiredChoice(f"window {choice.window} is not open")
    if not stage.more:
        raise BadCallback("the answer is complete: lock it in instead")
    if choice.menu == (CARDS_MENU,):
        return my_cards(stage.game, seat, choice, lang)
    legal = stage.game.legal_actions(seat)
    nodes = _open(menu(legal, lang, names), choice.menu)
    buttons = [
        {
            "text": node.label,
            "data": (choice.choose(node.index) if node.index is not None else choice.open(choice.menu + (i,))).data(),
        }
        for i, node in enumerate(nodes)
    ]
    keyboard = rows(buttons)
    if PASS in legal and not choice.menu:
        keyboard.append([{"text": "🚫 " + _("No cards this turn"), "data": choice.choose(NO_CARDS).data()}])
    if choice.menu:
        keyboard.append([{"text": "« " + _("Back"), "data": choice.open(choice.menu[:-1]).data()}])
    if choice.chosen:
        keyboard.append([{"text": "↺ " + _("Start over"), "data": choice.restart().data()}])
    keyboard.append([{"text": "📖 " + _("My cards"), "data": choice.open((CARDS_MENU,)).data()}])
    kind = window["kind"]
    lines = [
        f"🎯 {_('Turn {n}').format(n=game.turn)} · {_kind_title(kind, lang)}",
        *question(stage.game, seat, lang),
        situation(stage.game, seat, lang),
    ]
    if stage.actions:
        said = "; ".join(spoken(a, lang, names) for a in stage.actions)
        lines.append(
            (_("✅ Locked in: {actions}") if stage.complete else _("Chosen so far: {actions}")).format(actions=said)
        )
    if seat in stage.game.waiting_for() and deadline is not None:
        lines.append(_("Answer by {time}.").format(time=when(deadline, lang, tz, precise)))
    typed = "; ".join(summary(stage.game, seat, lang))
    if typed:
        lines.append(_("Or type: {commands}").format(commands=typed))
    return Screen("\n".join(lines), keyboard)


def my_cards(game: Game, seat: int, choice: Choice, lang: str) -> Screen:
    """The "📖 My cards" page of a question: what each of the seat's cards does (the Creature's Hunt cards; a
    Hunted's place cards in hand and Survival cards), with a button back to the question."""
    _ = translator(lang).gettext
    you = game.view(seat)["you"]
    cards = list(you["hunt_cards"]) if seat == 0 else sorted(you["hand"]) + list(you["survival"])
    lines = ["📖 " + _("Your cards:")] + [
        f"• {cards_text([card], lang)}: {cardtexts.text(card, lang)}" for card in cards
    ]
    if not cards:
        lines.append("—")
    return Screen("\n".join(lines), [[{"text": "« " + _("Back to the question"), "data": choice.open(()).data()}]])


def locked_in_lines(
    actions: list[dict],
    deadline: float,
    lang: str,
    tz: str | None = None,
    precise: bool = False,
    names: dict[int, str] | None = None,
    final: bool = False,
) -> list[str]:
    """What is locked in and, unless ``final`` (the answer closed its window), until when it may change."""
    _ = translator(lang).gettext
    said = "; ".join(spoken(a, lang, names) for a in actions)
    lines = [_("✅ Locked in: {actions}").format(actions=said)]
    if not final:
        lines.append(_("You may change it until {time}.").format(time=when(deadline, lang, tz, precise)))
    return lines


def locked_in(choice: Choice, lines: list[str], lang: str) -> Screen:
    """The decision message once the answer is stored and its window stays open (``lines``: `locked_in_lines`),
    with a button to change the answer."""
    change = translator(lang).gettext("Change my answer")
    return Screen("\n".join(lines), [[{"text": change, "data": choice.restart().data()}]])


def locked_in_toast(lines: list[str], lang: str) -> str:
    """The reply to the press that stored an answer (Telegram shows it at once, in at most 200 characters): what
    is locked in and until when it may change (``lines``: `locked_in_lines`). The message itself shows it only if
    the window stays open a while (the outbox holds that edit back, `service.pipeline.outbox`), or, for good, with
    the step that closes the window when that step has nothing else for the seat."""
    toast = ". ".join(lines)
    return toast if len(toast) <= TOAST_MAX else translator(lang).gettext("Locked in.")


def expired(lang: str) -> str:
    """The answer to a button of a closed window (also the text of its message after the window closed)."""
    return translator(lang).gettext("This choice has expired: that step is over.")


def status(
    view: dict,
    names: dict[int, str],
    asked_seats: list[int],
    answered: set[int],
    deadline: float | None,
    lang: str,
    news: Sequence[str] = (),
    tz: str | None = None,
    precise: bool = False,
    bots: Collection[int] = (),
    pictured: bool = False,
) -> str:
    """The group's living status message of the current turn, from ``game.public_view()``: who has answered
    (never what; 🤖 for a player's seat a bot plays, ``bots``), the deadline, the track (`events.track`: both
    counters, the Artemia symbols), the Beach marker, Will, tokens, and ``news``: the result lines so far.
    ``pictured``: the caption of the board's picture, which shows the track, the Marker, Will and the tokens."""
    _ = translator(lang).gettext
    window = view["window"]
    head = _("Turn {n}").format(n=view["turn"])
    if window:
        head += f" · {_kind_title(window['kind'], lang)}"
    lines = [f"🌍 {head}"]
    pending = bool(window and window.get("cards_pending"))
    if window and asked_seats:
        lines.append(
            " · ".join(
                ("🤖 " if s in bots else "✅ " if s in answered else "⏳ ") + seat_name(names, s, lang)
                for s in asked_seats
            )
        )
    if pending:  # strict secrecy: a seat asked only about its cards is never named
        lines.append("🃏 " + _("A card may still be played (nobody is named: cards are secret)."))
    if window and (asked_seats or pending) and deadline is not None:
        lines.append(_("Answer by {time}.").format(time=when(deadline, lang, tz, precise)))
    if bots:
        lines.append(
            "🤖 "
            + _("A bot plays for {names} until they answer again.").format(
                names=", ".join(seat_name(names, s, lang) for s in sorted(bots))
            )
        )
    if view["winner"]:
        lines.append(winner(view, lang))
    if pictured:
        return "\n".join(lines + list(news))
    lines.append(track(view, lang))
    lines.append(
        "📡 "
        + (
            _("The Marker counter is on the Beach: the next use of the Beach moves 🔵 forward 1.")
            if view["marker_on_beach"]
            else _("The Marker counter is not on the Beach: the next use of the Beach puts it there.")
        )
    )
    lines.append(
        _("Will: {list}").format(
            list=" · ".join(f"{seat_name(names, h['seat'], lang)} {h['will']}" for h in view["hunted"])
        )
    )
    placed = tokens_text(view["tokens"], lang)
    placed = placed[:1].upper() + placed[1:]  # "Žeton Bytosti: 3 Řeka" starts a line
    return "\n".join(lines + ([placed] if placed else []) + list(news))
