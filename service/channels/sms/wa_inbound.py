"""WhatsApp's web face: Twilio's inbound webhook ``POST /whatsapp/twilio`` and what we answer.

Signed and deduplicated as an SMS is (`inbound.signed_fields`, the ``MessageSid``). A message from
``whatsapp:+<E.164>`` opens the number's 24-hour window (`Directory.wrote`) and is read as:

    a tap on a list item or a quick reply     ``ListId`` / ``ButtonPayload``: a decision button's data
                                              (`ui.Choice`): the next screen, or the answer it completes, stored
                                              (`screens.press`); "More" (``p<offset>|…``): the screen's next items;
                                              ``SHOW`` (an approved template's button): the open questions
    "?" or nothing                            the open questions again
    anything else                             as an SMS is read (`routing.Router`: STOP/START/HELP, the lobby's
                                              keywords, settings, typed answers)

What was parked while the window was closed (news, a question's text) comes first, and the questions still open
follow it. The answers go as REST messages (a list to tap cannot be TwiML), after the change is replicated; the
webhook itself answers an empty ``<Response/>``. A tap from a closed window, another seat's or a forged one is
refused with a line that says so and changes nothing.
"""

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service.channels import screens, ui
from service.channels.sms import replies, whatsapp
from service.channels.sms.directory import Directory
from service.channels.sms.inbound import E164, signed_fields, twiml
from service.channels.sms.routing import Router
from service.channels.sms.wa_sender import WhatsAppSender
from service.config import Settings
from service.game import Game
from service.i18n import translator
from service.pipeline import floods, seats
from service.pipeline.context import Context
from service.pipeline.lobby import Lobby
from service.pipeline.outbox import PermanentSendError, RetryAfter, TransientSendError
from service.pipeline.seats import PipelineGames

log = logging.getLogger(__name__)

SHOW = "SHOW"  # the approved templates' button
ASK_AGAIN = {"", "?"}


@dataclass(frozen=True)
class Said:
    """One answer: a text, and the choices to tap under it."""

    text: str
    items: list[dict] | None = None
    picture: dict | None = None  # a board payload, shown as media above the text

    @classmethod
    def of(cls, reply: screens.Reply, lang: str, offset: int = 0) -> "Said":
        """A screen's reply, its keyboard as the items to tap from the ``offset``-th."""
        if not reply.buttons or reply.screen is None:
            return cls(reply.text)
        return cls(reply.text, whatsapp.taps(reply.buttons, reply.screen, lang, offset))


@dataclass
class WhatsAppEndpoint:
    """What the webhook needs, built once per app (``app.state.whatsapp``)."""

    ctx: Context
    settings: Settings
    directory: Directory
    router: Router
    sender: WhatsAppSender
    clock: Callable[[], float] = time.time
    replicated: Callable[[], None] = lambda: None  # `Store.replicated`: the barrier before a message is answered

    def handle(self, number: str, text: str, tap: str, message_id: str) -> list[Said]:
        """The answers to one message, in order."""
        self.directory.wrote(number, self.clock(), self.settings.sms_prefs_ttl_seconds)
        prefs = self.directory.prefs(number)
        if prefs.stopped:  # opted out: only its keywords are read (START, HELP), and only they are answered
            said = self.router.handle(number, text, message_id) if text else None
            return [Said(said)] if said else []
        parked, board = self.directory.take_parked(number)
        lang = prefs.lang
        out = [Said("\n\n".join(parked), picture=board)] if parked else []
        asked_again = False
        if tap.startswith(("d:", whatsapp.MORE)):
            # a tap counts against the number's flood bucket as a text does (`Router` counts the texts)
            admission = floods.admit(self.ctx, "whatsapp", self.directory.address(number))
            if admission is floods.Admission.SLOW_DOWN:
                return [Said(replies.reply("slow_down_wa", lang))]
            if admission is floods.Admission.SILENT:
                return []
            tapped = self._tap(number, tap, lang)
            out += [tapped] if tapped else []
        elif tap == SHOW or (not tap and text.strip() in ASK_AGAIN):
            asked_again = True
        else:
            said = self.router.handle(number, text or tap, message_id)
            out += [Said(said)] if said else []
        if asked_again or parked:
            questions = self._questions(number, lang)
            out += questions or ([] if parked or not asked_again else [Said(self._nothing(lang))])
        return out

    def _nothing(self, lang: str) -> str:
        return translator(lang).gettext("Nothing is asked of you now: you will get a message when it is your turn.")

    def _seat(self, number: str, game_id: str) -> int | None:
        return dict(self.router.lobby.games_of(self.directory.address(number))).get(game_id)

    def _tap(self, number: str, tap: str, lang: str) -> "Said | None":
        invalid = Said(translator(lang).gettext("This button is not valid."))
        more = whatsapp.more_of(tap)
        data = more[1] if more else tap
        try:
            choice = ui.decode(data)
        except ui.BadCallback:
            return invalid
        seat = self._seat(number, choice.game_id)
        if seat is None or seat != choice.seat:  # not the number's game, or another seat's button
            return invalid
        view = seats.read(self.ctx, choice.game_id)
        if view.snap is None:
            return invalid
        game = Game.from_json(view.snap.json)
        if more is None:
            pressed = screens.press(self.ctx, view.snap, view.meta or {}, game, seat, data, lang)
            # the last answer of its window: what it was is in the step's news, which comes at once
            return None if pressed.closed else Said.of(pressed, lang)
        if seats.press_closed(self.ctx, view, choice.window, None) is not None:
            return Said(ui.expired(lang))
        try:
            shown = screens.screen(view.snap, view.meta or {}, game, seat, choice, lang)
        except ui.BadCallback:
            return invalid
        return Said.of(shown, lang, more[0])

    def _questions(self, number: str, lang: str) -> list["Said"]:
        """The open questions of the number's games that it has not answered, each with its choices to tap: those
        its window waits for, and those it may answer now (a question ahead)."""
        out = []
        for game_id, seat in self.router.lobby.games_of(self.directory.address(number)):
            view = seats.read(self.ctx, game_id)
            snap = view.snap
            if snap is None or snap.status != "collecting":
                continue
            game = Game.from_json(snap.json)
            state = seats.state(self.ctx, game_id, view, streaks=False)
            if not ui.asked(game, seat, snap.current_window) or (state is not None and seat in state.answered):
                continue
            first = ui.Choice(game_id, snap.current_window, seat)
            shown = screens.screen(snap, view.meta or {}, game, seat, first, lang)
            text = f"{whatsapp.head((view.meta or {}).get('code', game_id))}{whatsapp.SEP}{shown.text}"
            out.append(Said(text, whatsapp.taps(shown.buttons, first, lang)))
        return out

    def send(self, number: str, answers: list["Said"]) -> None:
        """The answers, as messages within the window the message just opened (a failure is logged: the player
        can ask again with "?")."""
        for said in answers:
            try:
                self.sender.free(number, said.text[: whatsapp.MAX_TEXT], said.items, said.picture)
            except (PermanentSendError, TransientSendError, RetryAfter) as exc:
                log.warning("whatsapp reply to %s not sent: %s", number[-4:], exc)
                return


def build(ctx: Context, settings: Settings | None = None, lobby: Lobby | None = None) -> WhatsAppEndpoint:
    """The endpoint on the pipeline ``ctx``; ``lobby`` is the shared one (the Telegram side's, in the app)."""
    settings = settings or ctx.settings
    directory = Directory(ctx.store.redis, default_tz=settings.sms_default_tz, whatsapp=True)
    router = Router(directory, PipelineGames(ctx), lobby or Lobby(ctx))
    sender = WhatsAppSender(settings, ctx.store.redis, clock=ctx.clock)
    return WhatsAppEndpoint(ctx, settings, directory, router, sender, ctx.clock, ctx.store.replicated)


def number_of(address: str) -> str | None:
    """``+420…`` of ``whatsapp:+420…``; None for anything else."""
    number = re.sub(r"[\s().-]", "", address.removeprefix("whatsapp:"))
    return number if address.startswith("whatsapp:") and E164.match(number) else None


async def whatsapp_webhook(request: Request) -> Response:
    wa: WhatsAppEndpoint = request.app.state.whatsapp
    fields = await signed_fields(request, wa.settings)
    if isinstance(fields, Response):
        return fields

    def field(name: str) -> str:
        return (fields.get(name) or [""])[0]

    number, sid = number_of(field("From")), field("MessageSid")
    if number is None or not sid or not wa.directory.first_time(sid):
        return twiml(None)
    tap = field("ButtonPayload") or field("ListId")
    try:
        answers = await run_in_threadpool(wa.handle, number, field("Body").strip(), tap.strip(), sid)
        await run_in_threadpool(wa.replicated)  # not answered before a replica has what it changed
    except Exception:
        wa.directory.forget(sid)
        raise
    await run_in_threadpool(wa.send, number, answers)
    return twiml(None)


ROUTES = [Route("/whatsapp/twilio", whatsapp_webhook, methods=["POST"])]
