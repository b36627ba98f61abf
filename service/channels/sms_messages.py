"""Outbox messages for the SMS seats of a game: one standalone text per number per step, or none.

The pipeline's `workers.messages` writes one message per chat per step, worded for chat apps (all events, the
full help text). For a seat whose chat is ``sms:<number>`` these functions write the SMS instead: a seat that
is asked gets the question with the news (`sms_text.step_text`); a seat that is not asked gets the news only
when there is some; everyone gets the end of the game. Each is worded in the number's language and time zone
and fitted to its ASCII setting. The game code is ``meta["code"]`` (set by `service.lobby`), else ``game_id``.
"""

from service.channels import sms_text
from service.channels.sms_directory import Directory, number_of


def _sms_seats(meta: dict) -> list[tuple[int, str, str]]:
    """(seat, chat, number) of every SMS seat."""
    seats = []
    for seat, player in meta["players"].items():
        number = number_of(player.get("chat") or "")
        if number:
            seats.append((int(seat), player["chat"], number))
    return seats


def _message(chat: str, seat: int, text: str) -> dict:
    return {"chat": chat, "text": text, "buttons": None, "seat": seat, "group": False}


def step_messages(meta: dict, game, events: list[dict], asked: list[int], deadline: float, directory: Directory,
                  game_id: str = "") -> list[dict]:
    code = meta.get("code", game_id)
    out = []
    for seat, chat, number in _sms_seats(meta):
        prefs = directory.prefs(number)
        said = sms_text.news(events, seat, prefs.lang)
        if seat in asked or game.is_over:
            text = sms_text.step_text(code, game, seat, events, deadline, prefs.lang, prefs.tz, prefs.ascii)
        elif said:
            text = sms_text.compose(f"{code} {said}", [], prefs.ascii)
        else:
            continue
        out.append(_message(chat, seat, text))
    return out


def reminder_messages(meta: dict, game, seats: list[int], deadline: float, directory: Directory,
                      game_id: str = "") -> list[dict]:
    """The question again, marked as a reminder, for the SMS seats among ``seats``."""
    code = meta.get("code", game_id)
    out = []
    for seat, chat, number in _sms_seats(meta):
        if seat in seats:
            prefs = directory.prefs(number)
            text = sms_text.question(code, game, seat, deadline, prefs.lang, prefs.tz)
            out.append(_message(chat, seat, sms_text.prepare("! " + text, prefs.ascii)))
    return out
