"""Sending SMS through Twilio's REST API, as a pipeline ``Sender`` (``service.pipeline.outbox``) for ``sms:<number>``
chats.

``POST {TWILIO_API_BASE_URL}/2010-04-01/Accounts/{sid}/Messages.json`` with the form fields To, From (or
MessagingServiceSid) and Body, HTTP basic auth with the account SID and Auth Token. The text is prepared for
the number's setting (`sms_text.outgoing`: GSM punctuation; without diacritics under ASCII ON, or by default
when that saves a segment) at send time, so a player who changes the setting gets it from the next message.

The send budget is the outbox's: ``outbox.deliver`` takes a token from the Redis bucket of the message's chat
(one bucket per phone number) before calling `send`. Twilio's answers map onto the outbox's exceptions:

    2xx                                   sent
    429                                   RetryAfter (its Retry-After header, else DEFAULT_RETRY_AFTER)
    21610 (the number replied STOP)       the number is marked stopped; PermanentSendError (its seat goes to a bot)
    5xx, timeouts, connection errors      TransientSendError (the outbox retries with backoff)
    any other 4xx                         PermanentSendError
A number marked stopped is never sent to (PermanentSendError without a request).
"""

from typing import Unpack

import httpx

from service.channels.sms.directory import Directory, number_of
from service.channels.sms.text import outgoing
from service.config import Settings, get_settings
from service.pipeline.outbox import PermanentSendError, RetryAfter, Shown, TransientSendError

UNSUBSCRIBED = 21610
DEFAULT_RETRY_AFTER = 5.0
TIMEOUT = httpx.Timeout(10.0, connect=5.0)


class TwilioSender:
    def __init__(self, settings: Settings, directory: Directory, client: httpx.Client | None = None):
        self.settings = settings
        self.directory = directory
        self.client = client or httpx.Client(timeout=TIMEOUT)
        base = settings.twilio_api_base_url.rstrip("/")
        self.url = f"{base}/2010-04-01/Accounts/{settings.twilio_account_sid}/Messages.json"

    def send(self, chat: str, text: str, buttons: list | None = None, **extra: Unpack[Shown]) -> None:
        """``text`` by SMS (buttons, slots and pictures are Telegram's: an SMS is plain text)."""
        number = number_of(chat)
        if number is None:
            raise PermanentSendError(f"not an SMS chat: {chat}")
        prefs = self.directory.prefs(number)
        if prefs.stopped:
            raise PermanentSendError(f"{number} has opted out (STOP)")
        response = self.post(
            {"To": number, "Body": outgoing(text, prefs.ascii, prefs.accents)}, self.settings.twilio_from
        )
        self._check(number, response)

    def post(self, form: dict[str, str], sender: str) -> httpx.Response:
        """One message (``form``: To and its content) from ``sender``, or from the Messaging Service when one is
        set. A connection that fails is a `TransientSendError`."""
        if self.settings.twilio_messaging_service_sid:
            form = {**form, "MessagingServiceSid": self.settings.twilio_messaging_service_sid}
        else:
            form = {**form, "From": sender}
        try:
            return self.client.post(
                self.url, data=form, auth=(self.settings.twilio_account_sid, self.settings.twilio_auth_token)
            )
        except httpx.HTTPError as exc:
            raise TransientSendError(str(exc)) from exc

    def _check(self, number: str, response: httpx.Response) -> None:
        status = response.status_code
        if status < 300:
            return
        if status == 429:
            raise RetryAfter(_seconds(response.headers.get("retry-after")))
        if status >= 500:
            raise TransientSendError(f"Twilio {status}")
        code = error_code(response)
        if code == UNSUBSCRIBED:
            self.directory.set_prefs(number, self.settings.sms_prefs_ttl_seconds, stopped=True)
        raise PermanentSendError(f"Twilio {status} error {code}")


def _seconds(header: str | None) -> float:
    if header is None:
        return DEFAULT_RETRY_AFTER
    try:
        return max(1.0, float(header))
    except ValueError:
        return DEFAULT_RETRY_AFTER


def error_code(response: httpx.Response) -> int | None:
    try:
        return int(response.json().get("code"))
    except (ValueError, TypeError, AttributeError):
        return None


def make(connection) -> TwilioSender:
    """Sender factory (``ARTEMIA_SENDER=service.channels.sms.sender:make``) for SMS-only deployments."""
    settings = get_settings()
    return TwilioSender(settings, Directory(connection, default_tz=settings.sms_default_tz))
