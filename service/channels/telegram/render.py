"""Telegram's words for the news (`service.pipeline.news`): living messages edited in place.

    * one private **turn message** per seat and turn (slot `news.turn_slot`): sent new when the turn first has
      something for the seat (its decision, with the inline keyboard), then edited in place by the turn's later
      windows, its private results (``news["private"]``), and the "locked in" screen after an answer
      (`TelegramChannel.refresh_messages`). So a player gets one new message — one notification — per turn, when
      it is time to act. The end of a turn goes on top of the next turn message instead of editing the old one
      when that one shows no buttons; and a player who answered moments before the turn ended is reading the
      chat, so their message goes on into the next turn, edited, the whole turn left on top
      (`news.carry_turn_ends`): at a table playing live, a seat's game is one message. A message never keeps
      the buttons of a closed window: the step that closes it shows a seat's answer locked in for good when it
      has nothing else for its message (`TelegramChannel._answered`), and the game's last step ends every seat's
      message with how the game ended;
    * one living **status message** in the group per reveal (slot `news.status_slot`; ``s0`` from the game's
      start to the first reveal): the **reveal** is sent as a new message (people are notified), and that message
      then lives on, edited by every later step and after every accepted answer (who has answered, never what),
      through the rest of the turn and the next turn's first windows, until the next reveal. The **end of the
      game** comes with its reveal, or as a new message. So a turn costs the group one new message, and edits.
      With ``status_picture`` (the default) the status message is the board's picture (`service.board`) with
      the status as its caption: a version whose picture is unchanged edits the caption only (the sender
      compares the pictures' digests), a new picture replaces the old in place; the closing version keeps the
      picture and updates the caption.
A private chat of a player who blocked the bot (`news.Readers.unreachable`) gets nothing until they press Start.
A game without a group tells each player what the table would be, in plain lines (`service.channels.plain`);
plain lines are also the fallback when a screen cannot be drawn.
"""

import logging
from collections.abc import Callable
from functools import partial

import redis

from service import board
from service.channels import plain, ui
from service.config import Settings
from service.i18n import translator
from service.i18n.events import counters, ended, game_over
from service.pipeline import watch
from service.pipeline.chats import chat_kind
from service.pipeline.news import (
    TURN_OVER,
    Refresh,
    Reminder,
    Step,
    StepNews,
    TurnPart,
    Unreachable,
    current_segment,
    message,
    names_of,
    not_caught_in,
    seat_turn_slot,
    status_slot,
    step_seq,
    turn_slot,
)

log = logging.getLogger(__name__)


def status_text(
    view: dict,
    names: dict[int, str],
    asked: list[int],
    answered: set[int],
    deadline: float | None,
    lang: str,
    news: list[str],
    meta: dict | None = None,
    pictured: bool = False,
) -> str:
    """The news since the last reveal (in order: what happened), then `ui.status` (where the game is now), its
    times as the table's ``meta`` shows them (`ui.clock_of`); ``pictured``: the caption of the board's picture."""
    block = ui.status(view, names, asked, answered, deadline, lang, (), **ui.clock_of(meta or {}), pictured=pictured)
    return "\n\n".join(["\n".join(news), block]) if news else block


def text_lines(lines: list[str]) -> int:
    """How many lines of text ``lines`` make (a reveal is one item of several lines)."""
    return "\n".join(lines).count("\n") + 1 if lines else 0


def results(
    items: list[dict], names: dict[int, str], lang: str, seat: int, view: dict, ended: bool, turn: int
) -> list[str]:
    """A seat's result lines of turn ``turn``, in the second person: the end of the turn before (or all of it)
    when it was carried here (`news.carry_turn_ends`), what happened to it (its own events, public ones about it
    included: `news.about`), whether it was caught once the turn is over (a Hunted), then the counters."""
    _ = translator(lang).gettext
    lines = []
    for item in items:
        if item["type"] == TURN_OVER:
            heading = _("Turn {n}:") if item.get("whole") else _("End of turn {n}:")
            lines.append(heading.format(n=item["turn"]))
            lines += plain.lines(item["items"], names, lang, seat)
            lines += [_("You were not caught this turn.")] if item["not_caught"] else []
    own = [item for item in items if item["type"] != TURN_OVER]
    mine = plain.lines(own, names, lang, seat)
    if lines and mine:  # under the turn before: a blank line, and this turn's heading
        mine = ["", _("Turn {n}:").format(n=turn), *mine]
    lines += mine
    if ended and not_caught_in(own, seat):
        lines.append(_("You were not caught this turn."))
    return lines + [counters(view, lang)] if lines else []


def above(lines: list[str], screen: str) -> str:
    """A turn message: the seat's result lines of the turn, a blank line, then the screen (either may be empty)."""
    return "\n\n".join(part for part in ("\n".join(lines), screen) if part)


def watch_button(settings: Settings, meta: dict, lang: str) -> list | None:
    """The keyboard of the group's status message: one URL button to the game's watch page (None: no page URL)."""
    link = watch.url(settings, meta)
    return [[{"text": "👁 " + translator(lang).gettext("Watch"), "url": link}]] if link else None


def status_message(
    group: str,
    text: str,
    keyboard: list | None,
    slot: str,
    seq: int,
    lines: list[str],
    picture: dict | None,
    fold: bool = False,
    settle: float = 0.0,
) -> dict:
    """A version of the group's living status message: its news ``lines`` on top of ``text``, and the board's
    ``picture`` when the status is shown as one."""
    news_lines = text_lines(lines)
    return message(
        group, text, None, True, keyboard, slot, seq, news_lines=news_lines, fold=fold, settle=settle, picture=picture
    )


def _guarded(render: Callable[[], list[dict]], fallback: Callable[[], list[dict]], what: str) -> list[dict]:
    """The living message, or plain lines when it cannot be drawn (a wording bug must not cost the news)."""
    try:
        return render()
    except Exception:
        log.exception("drawing the Telegram %s failed; sending plain text", what)
        return fallback()


class TelegramChannel:
    kind = "telegram"

    def __init__(self, connection: redis.Redis | None, settings: Settings):
        self.redis = connection
        self.settings = settings

    def step_messages(self, news: StepNews) -> list[dict]:
        readers, out = news.readers, []
        group = readers.group()
        if group and chat_kind(group) == "telegram":
            out += _guarded(lambda: self._group(news), lambda: plain.table(news, group), "status")
        for seat in readers.seats():
            chat = readers.chat(seat)
            if readers.kind(seat) != "telegram" or chat is None or readers.unreachable(seat):
                continue
            if not group:  # no table chat: the player is told what the table would be, in their own chat
                out += plain.table(news, chat, seat)
            out += _guarded(
                partial(self._private, news, seat, chat),
                partial(plain.private, news, seat, chat),
                f"turn message of seat {seat}",
            )
        return out

    def _picture(self, game_id: str, view: dict, names: dict[int, str], lang: str, version: int) -> dict | None:
        """The board payload a group status message shows as its photo, or None: a text status."""
        return board.payload(game_id, view, names, lang, version) if self.settings.status_picture else None

    def _closed_picture(self, step: Step, view: dict, names: dict[int, str], lang: str) -> dict | None:
        """A closed status's picture: used only when its chat never saw that message (`TelegramSender.send`)."""
        payload = self._picture(step.game_id, view, names, lang, step.version)
        return {**payload, "if_new": True} if payload is not None else None

    def _group(self, news: StepNews) -> list[dict]:
        """The living status message; a reveal starts a new one (see the module docstring)."""
        step, readers, segment, closed = news.step, news.readers, news.segment, news.closed
        lang, meta, game = readers.group_lang(), step.meta, step.game
        group, names = meta["group"], names_of(meta)
        seq = step_seq(step.version)
        view = game.public_view()
        out = []
        if closed is not None:  # the previous message, no longer waiting for anyone
            past = {**view, "turn": segment.start, "window": None, "winner": None}
            lines = plain.news_lines(closed.items, meta, lang, news.bot_username)
            out.append(
                message(
                    group,
                    status_text(past, names, [], set(), None, lang, lines, pictured=self.settings.status_picture),
                    None,
                    True,
                    buttons=watch_button(self.settings, meta, lang),
                    slot=status_slot(step.game_id, closed.start),
                    seq=seq,
                    news_lines=text_lines(lines),
                    fold=True,
                    picture=self._closed_picture(step, view, names, lang),
                )
            )
        asked = plain.shown(game, step.asked) if game.window and not game.is_over else []
        lines = plain.news_lines(segment.items, meta, lang, news.bot_username)
        deadline = step.deadline if asked or plain.cards_pending(game) else None
        ends_here = game.is_over and closed is not None  # the reveal's message tells the end: who won, once
        shown = {**view, "winner": None} if ends_here else view
        text = status_text(shown, names, asked, set(), deadline, lang, lines, meta, self.settings.status_picture)
        if ends_here:
            text = "\n\n".join([text, game_over(view, names, lang)])
        slot = status_slot(step.game_id, segment.start)
        ending = game.is_over and closed is None  # the status message closes, and "game over" comes as a new one
        keyboard = watch_button(self.settings, meta, lang)
        picture = self._picture(step.game_id, view, names, lang, step.version)
        out.append(status_message(group, text, keyboard, slot, seq, lines, picture, fold=ending))
        if ending:  # a slot of its own, so that the closing lines can be folded into it (`outbox.fold`)
            over = f"{step.game_id}:over"
            out.append(
                message(group, game_over(view, names, lang), None, True, keyboard, slot=over, seq=seq, news_lines=0)
            )
        return out

    def _private(self, news: StepNews, seat: int, chat: str) -> list[dict]:
        """The seat's one living message per turn (see the module docstring)."""
        step, readers = news.step, news.readers
        lang, names, game = readers.lang(seat), names_of(step.meta), step.game
        parts: list[TurnPart] = news.private[seat]
        out = []
        view = game.public_view()
        for part in parts:
            current = part is parts[-1]
            lines = results(part.items, names, lang, seat, view, part.ended, part.turn)
            screen = None
            if current and game.is_over:  # every seat's last message says how the game ended
                screen = ui.Screen(ended(view, lang), None)
            elif current and (seat in step.asked or seat in step.optional) and game.window is not None:
                screen = ui.decision(
                    game,
                    seat,
                    ui.Choice(step.game_id, game.window["id"], seat),
                    step.deadline,
                    lang,
                    names,
                    **ui.clock_of(step.meta),
                )
            elif not part.added and not part.ended:
                continue  # nothing new for this turn's message
            text = above(lines, screen.text if screen else "")
            keyboard = screen.keyboard if screen else None
            if keyboard is None and any(e["type"] in ("taken_over", "bot_played") for e in part.items):
                keyboard = ui.back_keyboard(step.game_id, lang)  # a bot plays the seat (away, or taken): the way back
            if text:
                out.append(
                    message(
                        chat,
                        text,
                        seat,
                        False,
                        buttons=keyboard,
                        slot=turn_slot(step.game_id, part.message_turn),
                        seq=step_seq(step.version),
                        settle=self._settle(step, screen is None or screen.keyboard is None),
                    )
                )
        if seat in step.answered and not any(m["slot"] == turn_slot(step.game_id, parts[0].message_turn) for m in out):
            out.insert(0, self._answered(news, seat, chat, parts[0]))
        return out

    def _answered(self, news: StepNews, seat: int, chat: str, part: TurnPart) -> dict:
        """The turn message of a seat that answered the window the step closed, when the step has nothing else
        for it: its answer locked in for good. Else the message would go on showing the question (when its "locked
        in" version was still held back), or the answer with a button to change it, on a window now closed."""
        step, lang, names = news.step, news.readers.lang(seat), names_of(news.step.meta)
        said = ui.locked_in_lines(step.answered[seat], step.deadline, lang, names=names, final=True)
        lines = results(part.items, names, lang, seat, step.game.public_view(), part.ended, part.turn)
        return message(
            chat,
            above(lines, "\n".join(said)),
            seat,
            False,
            slot=turn_slot(step.game_id, part.message_turn),
            seq=step_seq(step.version),
            settle=self._settle(step, True),
        )

    def _settle(self, step: Step, results_only: bool) -> float:
        """How long a version of a seat's turn message written by ``step`` is held for a newer one: results with
        no question under them, while the game goes on (the seat's next question may follow at once); a question,
        or the game's last results, go at once."""
        return self.settings.edit_settle_seconds if results_only and not step.game.is_over else 0.0

    def reminder_messages(self, reminder: Reminder) -> list[dict]:
        readers, out = reminder.readers, []
        for seat in reminder.seats:
            chat = readers.chat(seat)
            if readers.kind(seat) != "telegram" or chat is None or readers.unreachable(seat):
                continue
            text = "⏰ " + translator(readers.lang(seat)).gettext(
                "Reminder: please answer the question above by {time}; after that a move is played for you."
            ).format(time=ui.when(reminder.deadline, readers.lang(seat), **ui.clock_of(reminder.meta)))
            out.append(message(chat, text, seat, False))
        return out

    def refresh_messages(self, refresh: Refresh) -> list[dict]:
        """The group's status message with the new tick, and the answering seat's turn message showing its answer
        "locked in" (other channels got their reply from the ingest)."""
        readers, meta, game, seat = refresh.readers, refresh.meta, refresh.game, refresh.seat
        out = []
        group = readers.group()
        if group and chat_kind(group) == "telegram" and game.window is not None:
            lang = readers.group_lang()
            segment = current_segment(refresh.news)
            lines = plain.news_lines(segment["items"], meta, lang, refresh.bot_username)
            view = game.public_view()
            text = status_text(
                view,
                names_of(meta),
                plain.shown(game, sorted(refresh.expected)),
                refresh.answered,
                refresh.snap.deadline,
                lang,
                lines,
                meta,
                self.settings.status_picture,
            )
            slot = status_slot(refresh.game_id, segment["start"])
            keyboard = watch_button(self.settings, meta, lang)
            picture = self._picture(refresh.game_id, view, names_of(meta), lang, refresh.snap.version)
            settle = self.settings.tick_settle_seconds
            out.append(status_message(group, text, keyboard, slot, refresh.seq, lines, picture, settle=settle))
        chat = readers.chat(seat)
        answered = seat in refresh.answers
        shown = answered or game.answering(seat)
        if chat and readers.kind(seat) == "telegram" and shown and not readers.unreachable(seat):
            lang = readers.lang(seat)
            if answered:
                screen = self._answer_screen(refresh, seat, lang)
            else:  # a question not answered yet (its deadline moved: `upkeep.redraw`)
                first = ui.Choice(refresh.game_id, refresh.snap.current_window, seat)
                clock = ui.clock_of(meta)
                screen = ui.decision(game, seat, first, refresh.snap.deadline, lang, names_of(meta), **clock)
            private = (
                refresh.news.get("private", {}).get(str(seat), []) if refresh.news.get("turn") == game.turn else []
            )
            out.append(
                message(
                    chat,
                    above(
                        results(private, names_of(meta), lang, seat, game.public_view(), False, game.turn), screen.text
                    ),
                    seat,
                    False,
                    buttons=screen.keyboard,
                    slot=seat_turn_slot(refresh.game_id, refresh.news, seat),
                    seq=refresh.seq,
                    settle=self.settings.edit_settle_seconds,
                )
            )
        return out

    def _answer_screen(self, refresh: Refresh, seat: int, lang: str) -> ui.Screen:
        """The answering seat's screen after its answer was stored: the answer locked in (with a way to change it),
        or, when the seat is asked more that nothing waits for (a question ahead), that question."""
        meta, game, answer = refresh.meta, refresh.game, refresh.answers[seat]
        first = ui.Choice(refresh.game_id, refresh.snap.current_window, seat)
        choice = ui.asked_more(game, seat, first, answer)
        if choice is not None:
            return ui.decision(game, seat, choice, refresh.snap.deadline, lang, names_of(meta), **ui.clock_of(meta))
        said = ui.locked_in_lines(answer, refresh.snap.deadline, lang, names=names_of(meta), **ui.clock_of(meta))
        return ui.locked_in(first, said, lang)

    def unreachable_messages(self, notice: Unreachable) -> list[dict]:
        readers = notice.readers
        group = readers.group()
        if group:
            told = chat_kind(group) == "telegram"
            return [plain.unreachable(notice, group, None, readers.group_lang())] if told else []
        return [
            plain.unreachable(notice, chat, other, readers.lang(other))
            for other in readers.seats()
            if other != notice.seat and readers.kind(other) == "telegram" and (chat := readers.chat(other))
        ]
