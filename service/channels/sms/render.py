"""Outbox messages for the SMS seats of a game: one standalone text per number per step, or a marker.

For a seat whose chat is ``sms:<number>`` (`SmsChannel`, the pipeline's channel for SMS): a seat that
is asked gets the question with the news (`sms_text.step_text`); a seat that is not asked gets the news only
when there is some, and that message is held (`_held`): it rides on the number's next message of the game when
it fits in that message's segments (after the question, before its own news: `service.pipeline.outbox.hold`),
and goes alone only when nothing follows it before the deadline of the window then open, or when the next
message has no room. A seat that gets nothing at a step gets a marker (`_keep`), never sent: news still held on
its lane waits one window longer for the number's next message. Everyone gets the end of the game. Each is
worded in the number's language and time zone and fitted to its ASCII setting. The game code is
``meta["code"]`` (set by `service.pipeline.lobby`), else ``game_id``.
"""

import re

from service.channels import plain
from service.channels.sms import text as sms_text
from service.channels.sms.directory import Directory, Prefs, number_of
from service.commands.writing import describe
from service.i18n import N_, translator
from service.pipeline.news import Refresh, Reminder, StepNews, Unreachable

OK = N_("OK: {actions}.")


def _sms_seats(meta: dict) -> list[tuple[int, str, str]]:
    """(seat, chat, number) of every SMS seat."""
    seats = []
    for seat, player in meta["players"].items():
        number = number_of(player.get("chat") or "")
        if number:
            seats.append((int(seat), player["chat"], number))
    return seats


def _message(chat: str, seat: int, text: str, fold_at: int) -> dict:
    """The message, and where a held message may be folded into it (`service.pipeline.outbox.fold_into`): after
    its first ``fold_at`` characters (the code and turn, and the question), within the room its segments have."""
    fits = sms_text.cost(text)
    return {
        "chat": chat,
        "text": text,
        "buttons": None,
        "seat": seat,
        "group": False,
        "fold_at": fold_at,
        "fold_room": sms_text.room(text),
        "fold_gsm": fits.encoding == "GSM-7",
    }


def _held(message: dict, news: str, until: float) -> dict:
    """A message that only tells news: held on its lane until the number's next message takes it in, or until
    ``until`` (the deadline of the window now open), then sent alone (`service.pipeline.outbox.hold`)."""
    cost = sms_text.cost(news)
    return {
        **message,
        "hold_until": until,
        "fold_text": news,
        "fold_size": cost.units,
        "fold_gsm": cost.encoding == "GSM-7",
    }


def _keep(message: dict, until: float) -> dict:
    """A marker for a number that gets nothing at this step: news held on its lane, written at the step before
    and not yet gone, is held until ``until`` (the deadline of the window now open) instead, once, so that it
    rides on the number's next question rather than going alone while the others play a window the number has
    no part in. The marker itself is never sent (`service.pipeline.outbox.hold`)."""
    return {**message, "hold_until": until, "keep": True}


def step_messages(
    meta: dict, game, events: list[dict], asked: list[int], deadline: float, directory: Directory, game_id: str = ""
) -> list[dict]:
    code = meta.get("code", game_id)
    out = []
    for seat, chat, number in _sms_seats(meta):
        prefs = directory.prefs(number)
        said = sms_text.news(events, seat, prefs.lang)
        head = sms_text.prepare(sms_text.head(code, game, prefs.lang), prefs.ascii)
        if game.is_over:
            out.append(_message(chat, seat, sms_text.compose(f"{head} {said}".strip(), [], prefs.ascii), len(head)))
        elif seat in asked:
            precise = plain.clock_of(meta)["precise"]
            asking = sms_text.question(code, game, seat, deadline, prefs.lang, prefs.tz, precise)
            text = sms_text.compose(asking, [said], prefs.ascii)
            out.append(_message(chat, seat, text, len(sms_text.prepare(asking, prefs.ascii))))
        elif said:
            text = sms_text.compose(f"{head} {said}", [], prefs.ascii)
            out.append(_held(_message(chat, seat, text, len(head)), sms_text.prepare(said, prefs.ascii), deadline))
        else:
            out.append(_keep(_message(chat, seat, head, len(head)), deadline))
    return out


def confirmation(chat: str, code: str, game, seat: int, actions: list[dict], deadline: float, prefs: Prefs) -> dict:
    """ "K7QX T3 OK: play 3." for a number that did not ask for confirmations (CONFIRM OFF, the default): held like
    news, it rides on the number's next message when that has room, and is dropped otherwise (``fold_only``): the
    game going on says the answer counted, and a refused answer is always answered at once."""
    said = ", ".join(re.sub(r" \([^)]*\)", "", describe(action, prefs.lang)) for action in actions)
    ok = sms_text.prepare(translator(prefs.lang).gettext(OK).format(actions=said), prefs.ascii)
    head = sms_text.prepare(sms_text.head(code, game, prefs.lang), prefs.ascii)
    return {**_held(_message(chat, seat, f"{head} {ok}", len(head)), ok, deadline), "fold_only": True}


def reminder_messages(
    meta: dict, game, seats: list[int], deadline: float, directory: Directory, game_id: str = ""
) -> list[dict]:
    """The question again, marked as a reminder, for the SMS seats among ``seats``."""
    code = meta.get("code", game_id)
    out = []
    for seat, chat, number in _sms_seats(meta):
        if seat in seats:
            prefs = directory.prefs(number)
            precise = plain.clock_of(meta)["precise"]
            asking = sms_text.question(code, game, seat, deadline, prefs.lang, prefs.tz, precise)
            text = sms_text.prepare("! " + asking, prefs.ascii)
            out.append(_message(chat, seat, text, len(text)))
    return out


class SmsChannel:
    """The pipeline's `Channel` for SMS numbers: the functions above; no living messages, no refresh (the
    answer's reply said it), and no unreachable notice (STOP is the player's own choice)."""

    kind = "sms"

    def __init__(self, directory: Directory):
        self.directory = directory

    def step_messages(self, news: StepNews) -> list[dict]:
        step = news.step
        # a question nothing waits for costs a text: only the Creature's phase-1 card is sent (a Hunted's question
        # ahead is answered by typing it after the place: "3 take 4")
        asked = step.asked + [seat for seat in step.optional if seat == 0]
        return step_messages(step.meta, step.game, step.events, asked, step.deadline, self.directory, step.game_id)

    def reminder_messages(self, reminder: Reminder) -> list[dict]:
        return reminder_messages(
            reminder.meta, reminder.game, reminder.seats, reminder.deadline, self.directory, reminder.game_id
        )

    def refresh_messages(self, refresh: Refresh) -> list[dict]:
        return []

    def unreachable_messages(self, notice: Unreachable) -> list[dict]:
        return []
