"""The console's words for the news (`service.pipeline.news`): the table's plain lines (`service.channels.plain`),
and each asked seat's question as Telegram asks it (`service.channels.ui.decision`: the same words, the card's
text, the typed commands), its buttons shown as numbered choices by the sender. Chats that are neither Telegram
nor SMS (the sandbox's ``console:<name>``, test chats) are the console's."""

from service.channels import plain, ui
from service.i18n import translator
from service.i18n.events import AGAIN_IN_SANDBOX
from service.pipeline.chats import chat_kind
from service.pipeline.news import Refresh, Reminder, StepNews, Unreachable, message, names_of, sees


class ConsoleChannel:
    kind = "console"

    def step_messages(self, news: StepNews) -> list[dict]:
        readers, out = news.readers, []
        group = readers.group()
        if group and chat_kind(group) == "console":
            out += plain.table(news, group, again=AGAIN_IN_SANDBOX)
        for seat in readers.seats():
            chat = readers.chat(seat)
            if readers.kind(seat) != "console" or chat is None:
                continue
            lang = readers.lang(seat)
            if group:
                own = plain.lines([e for e in news.step.events if sees(e, seat)], names_of(news.step.meta), lang, seat)
                out += [message(chat, text, seat, False) for text in plain.chunks(own)]
            else:  # the player is told what the table would be, in one story with their own news
                out += plain.chronicle(news, chat, seat, again=AGAIN_IN_SANDBOX)
            out += self._question(news, seat, chat)
        return out

    def _question(self, news: StepNews, seat: int, chat: str) -> list[dict]:
        """The seat's question when it is asked, as Telegram asks it (the buttons: numbered choices)."""
        step, game = news.step, news.step.game
        if game.window is None or (seat not in step.asked and seat not in step.optional):
            return []
        first = ui.Choice(step.game_id, game.window["id"], seat)
        deadline = plain.deadline_shown(step.meta, step.deadline)
        names, lang = names_of(step.meta), news.readers.lang(seat)
        screen = ui.decision(game, seat, first, deadline, lang, names, **ui.clock_of(step.meta))
        return [message(chat, screen.text, seat, False, buttons=screen.keyboard)]

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
        return []  # the reply to what was typed said "locked in" (`service.channels.console.typed`)

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
