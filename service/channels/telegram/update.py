"""A lean model of the few Telegram ``Update`` fields Artemia uses, parsed straight from the webhook body.

Not python-telegram-bot's ``Update.de_json``: that costs ~0.4 ms per update against ~10 µs here
(docs/platform-notes.md §2). Unknown fields are ignored. ``parse_update`` returns None for update kinds we have no
use for (edited messages, channel posts, polls...) and raises `MalformedUpdate` for a body that is not a Telegram
update.
"""

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class MalformedUpdate(ValueError):
    """The body is not JSON or not shaped like a Telegram update."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)


class User(_Model):
    id: int
    is_bot: bool = False
    first_name: str = ""
    username: str | None = None
    language_code: str | None = None


class Chat(_Model):
    id: int
    type: str  # "private" | "group" | "supergroup" | "channel"
    title: str | None = None
    is_forum: bool = False


class Message(_Model):
    message_id: int
    chat: Chat
    message_thread_id: int | None = None
    is_topic_message: bool = False
    sender: User | None = Field(None, alias="from")
    text: str | None = None
    migrate_to_chat_id: int | None = None

    @property
    def topic(self) -> int | None:
        """The forum topic the message belongs to (None outside forum topics)."""
        return self.message_thread_id if self.is_topic_message else None


class SentMessage(Message):
    """A `Message` with its sender ("from" is optional in the Bot API): what the handlers of `inbound` act on.
    `Update.message` is parsed as one whenever the sender is there."""

    sender: User = Field(alias="from")


class CallbackQuery(_Model):
    id: str
    sender: User = Field(alias="from")
    data: str | None = None
    message: Message | None = None  # an "inaccessible message" still carries chat and message_id


class ChatMember(_Model):
    status: str  # "member" | "kicked" | "left" | "administrator" | ...
    user: User


class ChatMemberUpdated(_Model):
    chat: Chat
    sender: User = Field(alias="from")
    new_chat_member: ChatMember

    @property
    def blocked(self) -> bool:
        """In a private chat: the user blocked the bot (True) or unblocked / started it (False)."""
        return self.new_chat_member.status in ("kicked", "left")


class Update(_Model):
    update_id: int
    message: SentMessage | Message | None = Field(None, union_mode="left_to_right")  # SentMessage when it can be
    callback_query: CallbackQuery | None = None
    my_chat_member: ChatMemberUpdated | None = None


def parse_update(body: bytes | str) -> Update | None:
    """The update in ``body``, or None when it is of a kind we ignore. Raises `MalformedUpdate`."""
    try:
        update = Update.model_validate_json(body)
    except ValidationError as exc:
        raise MalformedUpdate(str(exc.errors(include_url=False, include_input=False)[:3])) from exc
    if update.message is None and update.callback_query is None and update.my_chat_member is None:
        return None
    return update
