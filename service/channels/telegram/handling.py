"""What every handler of a Telegram update shares: the `Env` it runs in, the `Refused` answer, the Bot API reply
bodies, and the reads of a chat's table and of a user's games and seats.
"""

from service import i18n
from service.channels.telegram.tables import Tables, place_of
from service.channels.telegram.update import CallbackQuery, Message
from service.pipeline import seats
from service.pipeline.context import Context
from service.pipeline.lobby import Lobby, Player, Table, telegram_address


class Env:
    """What handling an update needs: the pipeline context, the Telegram-only state, the bot's username, the
    shared lobby (built on the context when not given) and the SMS number shown to SMS players (TWILIO_FROM when
    not given), and the WhatsApp sender whose wa.me link the lobby shows."""

    def __init__(
        self, ctx: Context, tables: Tables, bot_username: str, lobby: Lobby | None = None, sms_number: str | None = None
    ):
        self.ctx = ctx
        self.tables = tables
        self.bot_username = bot_username
        self.lobby: Lobby = lobby or Lobby(ctx)
        self.sms_number: str = ctx.settings.twilio_from if sms_number is None else sms_number

    @property
    def whatsapp(self) -> str:
        """Our WhatsApp sender, where WhatsApp is set up (else "")."""
        settings = self.ctx.settings
        return settings.whatsapp_from if settings.twilio_account_sid else ""


class Refused(Exception):
    """A request that changes nothing; the message (already translated) is the reply."""


def reply(message: Message, text: str, keyboard: list | None = None) -> dict:
    body = {"method": "sendMessage", "chat_id": message.chat.id, "text": text}
    if message.message_thread_id and message.chat.is_forum:
        body["message_thread_id"] = message.message_thread_id
    if keyboard:
        body["reply_markup"] = {"inline_keyboard": [[_button(b) for b in row] for row in keyboard]}
    return body


def _button(button: dict) -> dict:
    return {
        "text": button["text"],
        **({"url": button["url"]} if "url" in button else {"callback_data": button["data"]}),
    }


def answer_query(query: CallbackQuery, text: str | None = None) -> dict:
    body = {"method": "answerCallbackQuery", "callback_query_id": query.id}
    if text:
        body["text"] = text[:200]
    return body


# `_t` by that name: the catalogue extractor (service.i18n.compile) reads the strings of its calls
def _t(lang: str, text: str) -> str:
    return i18n.translator(lang).gettext(text)


def message_place(message: Message) -> str:
    return place_of(message.chat.id, message.topic if message.chat.is_forum else None)


def player_of(user) -> Player:
    return Player(
        telegram_address(user.id),
        user.first_name or str(user.id),
        i18n.from_telegram(user.language_code),
        chat=str(user.id),
        user=str(user.id),
    )


def table_of(message: Message, env: Env, lang: str) -> Table:
    table = env.lobby.at(message_place(message))
    if table is None:
        raise Refused(_t(lang, "There is no game here. /newgame opens one."))
    return table


def running_table_of(message: Message, env: Env, lang: str) -> Table:
    table = table_of(message, env, lang)
    if not table.game:
        raise Refused(_t(lang, "The game has not begun yet."))
    return table


def game_over(env: Env, game_id: str) -> bool:
    return seats.is_over(env.ctx, game_id)


def my_games(env: Env, user: int) -> list[str]:
    return sorted(game_id for game_id, _ in seats.games_of_user(env.ctx, str(user)))


def seat_of(meta: dict, user: int) -> int | None:
    """The seat of a Telegram user (meta's "user" is the bare id on Telegram; the address is "tg:<id>")."""
    return seats.seat_of_user(meta, str(user))


def seat_names(meta: dict) -> dict[int, str]:
    return {int(seat): player["name"] for seat, player in meta.get("players", {}).items()}
