"""What the table and each player are told after a step: engine events routed by visibility, the question of
the newly opened window, reminders and notices — as outbox messages, one per chat per step.

Hidden information stays hidden: an event with ``visible_to`` goes only to those seats' private chats; only
public events (``visible_to`` None) reach the group (or, in a game without a group, every player).
"""

from datetime import datetime, timezone

from service import wording

MAX_TEXT = 4000  # Telegram allows 4096 characters


def seat_name(meta: dict, seat: int) -> str:
    player = meta["players"].get(str(seat), {})
    role = "Creature" if seat == 0 else f"Hunted {seat}"
    return f"{player['name']} ({role})" if player.get("name") else role


def when(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%a %d %b %H:%M:%S UTC")


class Mail:
    """Collects lines per recipient, then turns them into at most one message per chat (split if long)."""

    def __init__(self, meta: dict):
        self.meta = meta
        self.lines: dict[str, list[str]] = {}
        self.info: dict[str, dict] = {}

    def to_seat(self, seat: int, line: str) -> None:
        chat = self.meta["players"].get(str(seat), {}).get("chat")
        if chat:  # bots have no chat
            self._add(chat, line, {"seat": seat, "group": False})

    def to_table(self, line: str) -> None:
        if self.meta.get("group"):
            self._add(self.meta["group"], line, {"seat": None, "group": True})
        else:
            for seat in self.meta["players"]:
                self.to_seat(int(seat), line)

    def _add(self, chat: str, line: str, info: dict) -> None:
        self.lines.setdefault(chat, []).append(line)
        self.info[chat] = info

    def messages(self) -> list[dict]:
        out = []
        for chat, lines in self.lines.items():
            for text in _chunks(lines):
                out.append({"chat": chat, "text": text, "buttons": None, **self.info[chat]})
        return out


def _chunks(lines: list[str]) -> list[str]:
    chunks, current = [], ""
    for line in lines:
        line = line[:MAX_TEXT]
        if current and len(current) + 1 + len(line) > MAX_TEXT:
            chunks.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    return chunks + ([current] if current else [])


def route_events(mail: Mail, events: list[dict]) -> None:
    for event in events:
        line = wording.event_text(event)
        if event.get("visible_to") is None:
            mail.to_table(line)
        else:
            for seat in event["visible_to"]:
                mail.to_seat(seat, line)


def step_messages(meta: dict, game, events: list[dict], notices: list[str], asked: list[int],
                  deadline: float) -> list[dict]:
    """Messages for one committed step: events, notices, and the question of the new window."""
    mail = Mail(meta)
    route_events(mail, events)
    for notice in notices:
        mail.to_table(notice)
    if game.is_over:
        mail.to_table(f"Game over: the {game.winner} win.")
    elif asked:
        window = game.window
        names = ", ".join(seat_name(meta, s) for s in asked)
        mail.to_table(f"Waiting for {names} (step {window['id']}, {window['kind']}) until {when(deadline)}.")
        lang = meta.get("lang", "en")
        for seat in asked:
            mail.to_seat(seat, f"Your move (step {window['id']}, {window['kind']}), answer by {when(deadline)}.\n"
                               + wording.options(game, seat, lang) + "\n(send help for more)")
    return mail.messages()


def reminder_messages(meta: dict, seats: list[int], window: int, deadline: float) -> list[dict]:
    mail = Mail(meta)
    for seat in seats:
        mail.to_seat(seat, f"Reminder: step {window} needs your answer by {when(deadline)}; "
                           "after that a move is played for you.")
    return mail.messages()


def bot_notice(meta: dict, seat: int, misses: int) -> str:
    return (f"{seat_name(meta, seat)} missed {misses} deadlines in a row: a bot plays for them "
            "until they answer again.")
