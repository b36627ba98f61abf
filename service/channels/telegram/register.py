"""Register the bot with Telegram: ``python -m service.channels.telegram.register --url https://host/telegram/webhook``.

Calls ``setWebhook`` with the secret token (``ARTEMIA_WEBHOOK_SECRET``, 1-256 of ``A-Za-z0-9_-``) and only the
update kinds the bot reads, then ``setMyCommands`` for group chats and private chats in English (the default)
and Czech (also shown to Slovak users). Talks to ``TELEGRAM_API_BASE_URL`` like the sender does.
"""

import argparse
import asyncio
import re
import sys

from telegram import Bot, BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from service.channels.telegram.sender import new_bot
from service.config import get_settings
from service.i18n import translator

ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
COMMAND_LANGS = {None: "en", "cs": "cs", "sk": "cs"}  # Telegram language_code -> our language


def commands(lang: str, where: str) -> list[BotCommand]:
    """The command menu of a group chat or a private chat, in ``lang``."""
    _ = translator(lang).gettext
    group = [
        ("newgame", _("Open a new game here")),
        ("join", _("Join the game")),
        ("leave", _("Leave the game before it begins")),
        ("creature", _("Volunteer to be the Creature")),
        ("settings", _("Deadline, expert variant, secrecy, language")),
        ("begin", _("Start the game (its creator)")),
        ("status", _("Where the game stands")),
        ("board", _("The board as a picture")),
        ("cancel", _("Cancel the game (its creator)")),
        ("help", _("How to play here")),
        ("rules", _("Rules, or one card: /rules river")),
    ]
    private = [
        ("join", _("Join a game by its code: /join K7QX")),
        ("status", _("Your games and what is asked of you")),
        ("board", _("The board of your game as a picture")),
        ("help", _("How to answer")),
        ("rules", _("Rules, or one card: /rules river")),
        ("language", _("Change your language")),
    ]
    return [BotCommand(name, text) for name, text in (group if where == "group" else private)]


async def register(bot: Bot, url: str, secret: str) -> None:
    await bot.set_webhook(url, secret_token=secret, allowed_updates=ALLOWED_UPDATES, max_connections=40)
    for code, lang in COMMAND_LANGS.items():
        await bot.set_my_commands(commands(lang, "group"), scope=BotCommandScopeAllGroupChats(), language_code=code)
        await bot.set_my_commands(commands(lang, "private"), scope=BotCommandScopeAllPrivateChats(), language_code=code)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.channels.telegram.register", description=__doc__.splitlines()[0]
    )
    settings = get_settings()
    parser.add_argument(
        "--url",
        default=settings.webhook_url,
        help="the public HTTPS URL of POST /telegram/webhook (default: $ARTEMIA_WEBHOOK_URL)",
    )
    args = parser.parse_args(argv)
    secret = settings.webhook_secret
    if not args.url:
        parser.error("--url (or ARTEMIA_WEBHOOK_URL) is required")
    if not SECRET.fullmatch(secret):
        parser.error("ARTEMIA_WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ -")

    async def run() -> None:
        async with new_bot() as bot:
            await register(bot, args.url, secret)

    asyncio.run(run())
    print(f"webhook set to {args.url}; commands set for {', '.join(str(c) for c in COMMAND_LANGS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
