"""The console's words for the news (`service.pipeline.news`): plain lines (`service.channels.plain`), the
question with the typed commands. Chats that are neither Telegram nor SMS (the sandbox's ``console:<name>``, test
chats) are the console's."""

from service.channels import plain
from service.i18n import translator
from service.pipeline.chats import chat_kind
from service.pipeline.news import Refresh, Reminder, StepNews, Unreachable, message


class ConsoleChannel:
    kind = "console"

    def step_messages(self, news: StepNews) -> list[dict]:
        readers, out = news.readers, []
        group = readers.group()
        if group and chat_kind(group) == "console":
            out += plain.table(news, group)
        for seat in readers.seats():
            chat = readers.chat(seat)
            if readers.kind(seat) != "console" or chat is None:
                continue
            if not group:
                out += plain.table(news, chat, seat)
            out += plain.private(news, seat, chat)
        return out

    def reminder_messages(self, reminder: Reminder) -> list[dict]:
        readers, out = reminder.readers, []
        for seat in reminder.seats:
            chat = readers.chat(seat)
            if readers.kind(seat) == "console" and chat:
                lang = readers.lang(seat)
                text = (
                    translator(lang)
                    .gettext("Reminder: step {step} needs your answer by {time}; after that a move is played for you.")
                    .format(step=reminder.window, time=plain.when(reminder.deadline, lang, reminder.meta))
                )
                out.append(message(chat, text, seat, False))
        return out

    def refresh_messages(self, refresh: Refresh) -> list[dict]:
        return []  # the ingest's reply already said "locked in"

    def unreachable_messages(self, notice: Unreachable) -> list[dict]:
        readers = notice.readers
        group = readers.group()
        if group:
            return (
                [plain.unreachable(notice, group, None, readers.group_lang())] if chat_kind(group) == "console" else []
            )
        return [
            plain.unreachable(notice, chat, other, readers.lang(other))
            for other in readers.seats()
            if other != notice.seat and readers.kind(other) == "console" and (chat := readers.chat(other))
        ]
