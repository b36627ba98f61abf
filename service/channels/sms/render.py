"""Outbox messages for the SMS seats of a game: one standalone text per number per step, or none.

For a seat whose chat is ``sms:<number>`` (`SmsChannel`, the pipeline's channel for SMS): a seat that
is asked gets the question with the news (`sms_text.step_text`); a seat that is not asked gets the news only
when there is some; everyone gets the end of the game. Each is worded in the number's language and time zone
and fitted to its ASCII setting. The game code is ``meta["code"]`` (set by `service.pipeline.lobby`), else ``game_id``.
"""

from service.channels.sms import text as sms_text
from service.channels.sms.directory import Directory, number_of
from service.pipeline.news import Refresh, Reminder, StepNews, Unreachable


def _sms_seats(meta: dict) -> list[tuple[int, str, str]]:
    """(seat, chat, number) of every SMS seat."""
    seats = []
    for seat, player in meta["players"].items():
        number = number_of(player.get("chat") or "")
        if number:
            seats.append((int(seat), player["chat"], number))
    return seats


def _precise(meta: dict) -> bool:
    """Times to the second when the table's steps are shorter than 10 minutes."""
    return 0 < meta.get("deadline_seconds", 600) < 600


def _message(chat: str, seat: int, text: str) -> dict:
    return {"chat": chat, "text": text, "buttons": None, "seat": seat, "group": False}


def step_messages(
    meta: dict, game, events: list[dict], asked: list[int], deadline: float, directory: Directory, game_id: str = ""
) -> list[dict]:
    code = meta.get("code", game_id)
    out = []
    for seat, chat, number in _sms_seats(meta):
        prefs = directory.prefs(number)
        said = sms_text.news(events, seat, prefs.lang)
        if seat in asked or game.is_over:
            text = sms_text.step_text(
                code, game, seat, events, deadline, prefs.lang, prefs.tz, prefs.ascii, _precise(meta)
            )
        elif said:
            text = sms_text.compose(f"{code} {said}", [], prefs.ascii)
        else:
            continue
        out.append(_message(chat, seat, text))
    return out


def reminder_messages(
    meta: dict, game, seats: list[int], deadline: float, directory: Directory, game_id: str = ""
) -> list[dict]:
    """The question again, marked as a reminder, for the SMS seats among ``seats``."""
    code = meta.get("code", game_id)
    out = []
    for seat, chat, number in _sms_seats(meta):
        if seat in seats:
            prefs = directory.prefs(number)
            text = sms_text.question(code, game, seat, deadline, prefs.lang, prefs.tz, _precise(meta))
            out.append(_message(chat, seat, sms_text.prepare("! " + text, prefs.ascii)))
    return out


class SmsChannel:
    """The pipeline's `Channel` for SMS numbers: the functions above; no living messages, no refresh (the
    answer's reply said it), and no unreachable notice (STOP is the player's own choice)."""

    kind = "sms"

    def __init__(self, directory: Directory):
        self.directory = directory

    def step_messages(self, news: StepNews) -> list[dict]:
        step = news.step
        return step_messages(step.meta, step.game, step.events, step.asked, step.deadline, self.directory, step.game_id)

    def reminder_messages(self, reminder: Reminder) -> list[dict]:
        return reminder_messages(
            reminder.meta, reminder.game, reminder.seats, reminder.deadline, self.directory, reminder.game_id
        )

    def refresh_messages(self, refresh: Refresh) -> list[dict]:
        return []

    def unreachable_messages(self, notice: Unreachable) -> list[dict]:
        return []
