"""Sending WhatsApp messages through Twilio's Messages API, as a pipeline ``Sender`` for ``wa:<number>`` chats.

WhatsApp lets a business write freely only within 24 hours of the player's last message to it; after that, only a
template Meta approved. So each send first asks the number's window (`Directory.window_open`, less
``ARTEMIA_WHATSAPP_WINDOW_MARGIN_SECONDS``):

    window open     the message as it is: its board picture (``MediaUrl``, `service.channels.sms.media`), its text,
                    its choices as a list to tap (the ``list_<n>`` content, up to 10 items) or as up to three
                    quick replies (``quick_<n>``); a question longer than a list's text goes first as a text
    window closed   its text is parked for the number's next message (`Directory.park`), and the approved template
                    the message names (``turn``, ``reminder``, ``over``, in the player's language) is sent in its
                    stead; a message with no template (news) is parked only. The template's button ("Show the
                    question") or any message back opens the window, and the questions follow
                    (`service.channels.sms.wa_inbound`)

Contents are sent by their SIDs (``ARTEMIA_WHATSAPP_CONTENTS``, by the names of deploy/whatsapp/templates.json),
with ``ContentVariables``. Twilio's answers map onto the outbox's exceptions as for SMS (`sender`); error 63016
(outside the window, when Twilio's clock and ours disagree) closes the number's window and sends the message again
as above. A number that texted STOP is never sent to.
"""

import json
import time
from collections.abc import Callable
from typing import Unpack

import httpx
import redis

from service.channels.sms import media
from service.channels.sms.directory import Directory, whatsapp_number_of
from service.channels.sms.sender import TIMEOUT, TwilioSender, error_code
from service.channels.sms.whatsapp import MAX_BODY, MAX_ITEMS, MAX_TEXT, parked
from service.config import Settings
from service.i18n import translator
from service.pipeline.outbox import PermanentSendError, Shown

OUTSIDE_WINDOW = 63016
QUICK_MAX = 3  # quick replies in a session message
QUICK_TITLE = 20


class OutsideWindow(Exception):
    """Twilio refused a free-form message: the number's window is closed."""


class WhatsAppSender(TwilioSender):
    def __init__(
        self,
        settings: Settings,
        connection: redis.Redis,
        client: httpx.Client | None = None,
        clock: Callable[[], float] = time.time,
    ):
        directory = Directory(connection, default_tz=settings.sms_default_tz, whatsapp=True)
        super().__init__(settings, directory, client or httpx.Client(timeout=TIMEOUT))
        self.redis = connection
        self.clock = clock

    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None:
        picture, template = extra.get("picture"), extra.get("template")
        number = whatsapp_number_of(chat)
        if number is None:
            raise PermanentSendError(f"not a WhatsApp chat: {chat}")
        if self.directory.prefs(number).stopped:
            raise PermanentSendError(f"{number} has opted out (STOP)")
        shown = picture if picture is not None and picture.get("reveal") else None  # a board after a reveal
        if self.directory.window_open(number, self.clock(), self.settings.whatsapp_window_margin_seconds):
            try:
                self.free(number, text, buttons, shown)
                return
            except OutsideWindow:
                self.directory.wrote(number, 0.0, self.settings.sms_prefs_ttl_seconds)
        news = parked(text, template)
        if news or shown is not None:
            self.directory.park(number, news, self.settings.sms_prefs_ttl_seconds, shown)
        if template is not None and template.get("name"):
            name = f"{template['name']}_{template.get('lang') or 'en'}"
            variables = {str(i + 1): str(value) for i, value in enumerate(template.get("vars", []))}
            fields = {"ContentSid": self._content(name), "ContentVariables": json.dumps(variables)}
            self._post(number, fields, free=False)

    def free(self, number: str, text: str, buttons: list | None, picture: dict | None) -> None:
        """A message within the number's window: its picture, its text and its choices to tap."""
        lang = self.directory.prefs(number).lang
        items = [b for b in buttons or [] if b.get("data")][:MAX_ITEMS]
        if picture is not None and self.settings.public_url:
            url = media.publish(self.redis, picture, self.settings.whatsapp_media_ttl_seconds, self.settings.public_url)
            alone = bool(text) and not items and len(text) <= MAX_BODY  # news alone: the picture's caption
            caption = text if alone else f"*{picture.get('game', '')}* · " + translator(lang).gettext("The board")
            self._post(number, {"Body": caption, "MediaUrl": url})
            if alone or not (text or items):
                return
        if not items:
            self._post(number, {"Body": text[:MAX_TEXT]})
            return
        body = text
        if len(text) > MAX_BODY:  # the question in full as a text, then the list under a short line
            self._post(number, {"Body": text[:MAX_TEXT]})
            body = translator(lang).gettext("Your answer:")
        self._choices(number, body, items, lang)

    def _choices(self, number: str, body: str, items: list[dict], lang: str) -> None:
        if len(items) <= QUICK_MAX and all(len(b["text"]) <= QUICK_TITLE for b in items):
            variables = {"1": body}
            for k, b in enumerate(items, 1):
                variables.update({str(2 * k): b["text"], str(2 * k + 1): b["data"]})
            name = f"quick_{len(items)}"
        else:
            variables = {"1": body, "2": translator(lang).gettext("Choose")}
            for k, b in enumerate(items, 1):
                variables.update({str(2 * k + 1): b["text"], str(2 * k + 2): b["data"]})
            name = f"list_{len(items)}"
        self._post(number, {"ContentSid": self._content(name), "ContentVariables": json.dumps(variables)})

    def _content(self, name: str) -> str:
        sid = self.settings.whatsapp_contents.get(name)
        if not sid:
            raise PermanentSendError(
                f"no content {name!r} in ARTEMIA_WHATSAPP_CONTENTS: run python -m service.admin whatsapp-templates"
            )
        return sid

    def _post(self, number: str, fields: dict[str, str], free: bool = True) -> None:
        """One message; ``free``: a free-form one (anything but an approved template), refused outside the
        window."""
        response = self.post({"To": f"whatsapp:{number}", **fields}, self.settings.whatsapp_from)
        if free and response.status_code == 400 and error_code(response) == OUTSIDE_WINDOW:
            raise OutsideWindow(number)
        self._check(number, response)
