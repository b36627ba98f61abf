"""What kind of chat a chat id is: the one place that decides it.

``sms:<E.164>`` is an SMS number, ``wa:<E.164>`` a WhatsApp number; a numeric id (``"-100123"``, ``"-100123/7"``
for a forum topic, ``"42"`` for a private chat) is Telegram; anything else (``console:you``, test chats) is the
console's plain text. The topics of one forum share their group's send budget (`budget_chat`): Telegram limits a
group, not a topic.
"""

import re
from typing import Literal

ChatKind = Literal["telegram", "sms", "whatsapp", "console", "none"]
KINDS: tuple[ChatKind, ...] = ("telegram", "sms", "whatsapp", "console")
SMS_PREFIX = "sms:"
WHATSAPP_PREFIX = "wa:"
# Players who read no group: each of them is told the table's news and notices in their own chat.
NO_GROUP: tuple[ChatKind, ...] = ("sms", "whatsapp")
_TELEGRAM_CHAT = re.compile(r"^-?\d+(/\d+)?$")


def chat_kind(chat: str | None) -> ChatKind:
    if not chat:
        return "none"
    if chat.startswith(SMS_PREFIX):
        return "sms"
    if chat.startswith(WHATSAPP_PREFIX):
        return "whatsapp"
    return "telegram" if _TELEGRAM_CHAT.match(chat) else "console"


def is_group(chat: str) -> bool:
    """A Telegram group or forum topic (a private chat's id is positive)."""
    return chat_kind(chat) == "telegram" and chat.startswith("-")


def budget_chat(chat: str) -> str:
    """The chat whose send budget a message to ``chat`` spends: a forum topic's is its group's."""
    return chat.partition("/")[0] if chat_kind(chat) == "telegram" else chat
