"""A fake of Twilio for tests: the Messages REST API (SMS and WhatsApp) and the Content API, on one base URL.

fake = FakeTwilio(account_sid="AC…", auth_token="…")
with serve(fake.app) as base_url:      # uvicorn on 127.0.0.1, a free port, in a thread
    ...                                 # point TWILIO_API_BASE_URL (and the Content API's base) at base_url
fake.sent                               # [{"To", "From", "Body", ...}, ...] in order; WhatsApp ones add "rendered"
fake.fail(429, retry_after=3)           # the next send gets this answer (once by default)
fake.fail(400, code=21610, to="+420…")  # only sends to that number fail (to="whatsapp:+420…" for WhatsApp)
fake.text(client, url, "+420…", "play 3")  # an inbound SMS posted to our webhook, signed as Twilio signs
fake.whatsapp(client, url, "whatsapp:+420…", "play 3")  # the same for WhatsApp; opens the number's 24 h window

What the fake enforces on a send whose ``To`` is ``whatsapp:+…`` (tests/fake_twilio_content.py has the limits):
- ``From`` is ``whatsapp:`` too, or a ``MessagingServiceSid`` is given (21910);
- a free-form message (``Body``/``MediaUrl``, or a content not approved for WhatsApp, such as every list-picker)
  only within 24 h of the number's last inbound message by ``fake.clock`` (63016);
- a ``ContentSid`` that exists (21655), without ``Body`` or ``MediaUrl`` (21619), ``ContentVariables`` a JSON
  object of strings that, with the content's default variables, fills every ``{{key}}`` (21656);
- the documented limits of the rendered list-picker, quick-reply, media or text content, and the template
  parameter rules of Meta for approved contents (63005); 1,600 characters of ``Body`` (21617), 10 ``MediaUrl`` (21623).
Every refusal is a 400 with Twilio's JSON error body, and is kept in ``fake.refused``.

Where it differs from real Twilio: Twilio accepts a free-form message outside the window and reports 63016 later,
in a status callback; the fake refuses it at once, so that the test sending it sees it. Twilio also checks a content
against its type's limits when it is created; the fake checks only the rendered content, at send time. Approval
is immediate (``approve=True``) or never (``approve=False``; then ``fake.approve(sid)``), not a review by Meta.
The Content API (content.twilio.com in reality) is served by the same app as the Messages API. Media are not fetched.
"""

import base64
import hashlib
import hmac
import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

try:
    import fake_twilio_content as content_rules
    import serving
except ModuleNotFoundError:  # imported as tests.<module>, with only the repository root on the path
    from tests import fake_twilio_content as content_rules
    from tests import serving

Refusal = content_rules.Refusal
WINDOW = content_rules.WINDOW
whatsapp_address = content_rules.whatsapp_address


@dataclass
class Failure:
    status: int
    code: int | None
    retry_after: float | None
    to: str | None
    times: int


class FakeTwilio:
    def __init__(
        self,
        account_sid: str = "AC" + "0" * 32,
        auth_token: str = "token",
        *,
        approve: bool = True,
        clock: Callable[[], float] = time.time,
    ):
        self.account_sid, self.auth_token = account_sid, auth_token
        self.auto_approve, self.clock = approve, clock
        self.sent: list[dict] = []
        self.refused: list[dict] = []
        self.failures: list[Failure] = []
        self.requests = 0
        self.contents: dict[str, dict] = {}
        self.approvals: dict[str, dict] = {}
        self.approved: set[str] = set()
        self.last_inbound: dict[str, float] = {}
        self._sids = itertools.count(1)
        self._content_sids = itertools.count(1)
        self._lock = threading.Lock()
        self.app = Starlette(
            routes=[
                Route("/2010-04-01/Accounts/{sid}/Messages.json", self._messages, methods=["POST"]),
                Route("/v1/Content", self._list_contents, methods=["GET"]),
                Route("/v1/Content", self._create_content, methods=["POST"]),
                Route("/v1/Content/{sid}", self._content, methods=["GET", "DELETE"]),
                Route("/v1/Content/{sid}/ApprovalRequests", self._approval, methods=["GET"]),
                Route("/v1/Content/{sid}/ApprovalRequests/whatsapp", self._request_approval, methods=["POST"]),
            ]
        )

    def fail(
        self,
        status: int,
        code: int | None = None,
        retry_after: float | None = None,
        to: str | None = None,
        times: int = 1,
    ) -> None:
        with self._lock:
            self.failures.append(Failure(status, code, retry_after, to, times))

    def text(
        self,
        client,
        url: str,
        sender: str,
        body: str,
        sid: str | None = None,
        token: str | None = None,
        to: str = "+15005550006",
    ):
        """Post an inbound SMS as Twilio does: signed for the public ``url``, sent to its path on ``client``."""
        sid = sid or f"SM{next(self._sids):032d}"
        form = {
            "MessageSid": sid,
            "SmsSid": sid,
            "AccountSid": self.account_sid,
            "From": sender,
            "To": to,
            "Body": body,
            "NumMedia": "0",
            "FromCountry": "CZ",
        }
        return self._post(client, url, form, token)

    def whatsapp(
        self,
        client,
        url: str,
        sender: str,
        body: str = "",
        *,
        button_payload: str | None = None,
        button_text: str | None = None,
        list_id: str | None = None,
        list_title: str | None = None,
        sid: str | None = None,
        token: str | None = None,
        to: str = "whatsapp:+14155238886",
        profile_name: str = "Player",
    ):
        """Post an inbound WhatsApp message as Twilio does, and open the sender's 24-hour window.

        A quick-reply tap carries ``ButtonPayload``/``ButtonText``, a list choice ``ListId``/``ListTitle``;
        ``Body`` is then the button's or item's title unless ``body`` is given, as WhatsApp shows it.
        """
        sender = whatsapp_address(sender)
        sid = sid or f"SM{next(self._sids):032d}"
        chosen = {
            "ButtonPayload": button_payload,
            "ButtonText": button_text,
            "ListId": list_id,
            "ListTitle": list_title,
        }
        kind = "interactive" if list_id or list_title else "button" if button_payload or button_text else "text"
        form = {
            "MessageSid": sid,
            "SmsMessageSid": sid,
            "SmsSid": sid,
            "AccountSid": self.account_sid,
            "From": sender,
            "To": whatsapp_address(to),
            "Body": body or button_text or list_title or "",
            "ProfileName": profile_name,
            "WaId": "".join(c for c in sender if c.isdigit()),
            "NumMedia": "0",
            "NumSegments": "1",
            "MessageType": kind,
            "SmsStatus": "received",
            "ApiVersion": "2010-04-01",
            **{name: value for name, value in chosen.items() if value is not None},
        }
        # Opened before posting: our webhook may answer through the REST API while handling the post.
        self.opened(sender)
        return self._post(client, url, form, token)

    def opened(self, number_address: str, at: float | None = None) -> None:
        """Record an inbound message from a WhatsApp number at ``at`` (default: now by ``fake.clock``)."""
        with self._lock:
            self.last_inbound[whatsapp_address(number_address)] = self.clock() if at is None else at

    def window_open(self, number_address: str) -> bool:
        last = self.last_inbound.get(whatsapp_address(number_address))
        return last is not None and self.clock() - last <= WINDOW

    def approve(self, sid: str) -> None:
        """Approve a content now, as Meta would after a pending review."""
        with self._lock:
            self.approved.add(sid)
            if sid in self.approvals:
                self.approvals[sid]["status"] = "approved"

    def to(self, number: str) -> list[str]:
        """The bodies sent to a number, in order (for WhatsApp, the rendered body)."""
        return [m["rendered"]["body"] if "rendered" in m else m["Body"] for m in self.sent if m["To"] == number]

    def whatsapp_sent(self, number_address: str) -> list[dict]:
        """The accepted sends to a WhatsApp address, in order."""
        address = whatsapp_address(number_address)
        return [m for m in self.sent if m["To"] == address]

    def _post(self, client, url: str, form: dict[str, str], token: str | None):
        signed = twilio_signature(token or self.auth_token, url, form)
        return client.post(urlsplit(url).path, data=form, headers={"X-Twilio-Signature": signed})

    def _basic_auth(self, request: Request) -> bool:
        expected = base64.b64encode(f"{self.account_sid}:{self.auth_token}".encode()).decode()
        return request.headers.get("authorization") == f"Basic {expected}"

    def _authorised(self, request: Request, sid: str) -> bool:
        return sid == self.account_sid and self._basic_auth(request)

    def _take_failure(self, to: str) -> Failure | None:
        with self._lock:
            for failure in self.failures:
                if failure.to in (None, to):
                    failure.times -= 1
                    if failure.times <= 0:
                        self.failures.remove(failure)
                    return failure
        return None

    async def _messages(self, request: Request) -> JSONResponse:
        self.requests += 1
        if not self._authorised(request, request.path_params["sid"]):
            return _unauthorised()
        pairs = await _form(request)
        form = dict(pairs)
        failure = self._take_failure(form.get("To"))
        if failure:
            headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after is not None else {}
            return JSONResponse(
                {"code": failure.code, "message": "failure on demand", "status": failure.status},
                status_code=failure.status,
                headers=headers,
            )
        if form.get("To", "").startswith("whatsapp:"):
            return self._send_whatsapp(form, [value for name, value in pairs if name == "MediaUrl"])
        if not form.get("To") or not (form.get("From") or form.get("MessagingServiceSid")) or "Body" not in form:
            return _error(400, content_rules.MISSING_FIELD, "missing field")
        return self._accept(form)

    def _send_whatsapp(self, form: dict[str, str], media: list[str]) -> JSONResponse:
        try:
            rendered = self._render(form, media)
        except Refusal as refusal:
            with self._lock:
                self.refused.append({**form, "code": refusal.code, "reason": refusal.message})
            return JSONResponse(refusal.body(), status_code=refusal.status)
        return self._accept({**form, "rendered": rendered})

    def _render(self, form: dict[str, str], media: list[str]) -> dict:
        if not (form.get("From") or form.get("MessagingServiceSid")):
            raise Refusal(content_rules.MISSING_FIELD, "A 'From' or 'MessagingServiceSid' parameter is required")
        if not form.get("MessagingServiceSid") and not form["From"].startswith("whatsapp:"):
            raise Refusal(content_rules.BAD_PAIR, "Invalid From and To pair. From and To should be of the same channel")
        if "ContentSid" not in form:
            view = content_rules.free_form(form.get("Body"), media)
        else:
            view = self._render_content(form, media)
        if not view["approved"] and not self.window_open(form["To"]):
            raise Refusal(content_rules.OUTSIDE_WINDOW, content_rules.OUTSIDE_WINDOW_MESSAGE)
        return view

    def _render_content(self, form: dict[str, str], media: list[str]) -> dict:
        if "Body" in form or media:
            raise Refusal(content_rules.NO_BODY, "Body must be left out when a ContentSid is given, and MediaUrl too")
        content = self.contents.get(form["ContentSid"])
        if content is None:
            raise Refusal(content_rules.BAD_CONTENT_SID, "The ContentSid is Invalid")
        variables = content_rules.parse_variables(form.get("ContentVariables"))
        return content_rules.render(content, variables, content["sid"] in self.approved)

    def _accept(self, record: dict) -> JSONResponse:
        with self._lock:
            self.sent.append(record)
            sid = f"SM{len(self.sent):032d}"
        fields = {k.lower(): v for k, v in record.items() if k != "rendered"}
        return JSONResponse({"sid": sid, "status": "queued", **fields}, status_code=201)

    async def _create_content(self, request: Request) -> JSONResponse:
        if not self._basic_auth(request):
            return _unauthorised()
        data = await _json(request)
        error = content_rules.content_error(data)
        if error:
            return _error(400, content_rules.INVALID_PARAMETER, error)
        with self._lock:
            sid = f"HX{next(self._content_sids):032x}"
            content = {
                "sid": sid,
                "account_sid": self.account_sid,
                "friendly_name": data.get("friendly_name"),
                "language": data["language"],
                "variables": data.get("variables", {}),
                "types": data["types"],
            }
            self.contents[sid] = content
        return JSONResponse(content, status_code=201)

    async def _list_contents(self, request: Request) -> JSONResponse:
        if not self._basic_auth(request):
            return _unauthorised()
        contents = list(self.contents.values())
        meta = {"page": 0, "page_size": len(contents), "next_page_url": None, "previous_page_url": None}
        return JSONResponse({"contents": contents, "meta": {**meta, "key": "contents"}})

    async def _content(self, request: Request) -> Response:
        if not self._basic_auth(request):
            return _unauthorised()
        sid = request.path_params["sid"]
        if sid not in self.contents:
            return _not_found(sid)
        if request.method == "GET":
            return JSONResponse(self.contents[sid])
        with self._lock:
            del self.contents[sid]
            self.approvals.pop(sid, None)
            self.approved.discard(sid)
        return Response(status_code=204)

    async def _approval(self, request: Request) -> JSONResponse:
        if not self._basic_auth(request):
            return _unauthorised()
        sid = request.path_params["sid"]
        if sid not in self.contents:
            return _not_found(sid)
        whatsapp = self.approvals.get(sid, {"name": "", "category": "", "status": "unsubmitted"})
        return JSONResponse({"sid": sid, "account_sid": self.account_sid, "whatsapp": whatsapp})

    async def _request_approval(self, request: Request) -> JSONResponse:
        if not self._basic_auth(request):
            return _unauthorised()
        sid = request.path_params["sid"]
        content = self.contents.get(sid)
        if content is None:
            return _not_found(sid)
        data = await _json(request)
        error = content_rules.approval_error(content, data)
        if error:
            return _error(400, content_rules.INVALID_PARAMETER, error)
        approval = {"name": data["name"], "category": data["category"], "status": "pending"}
        with self._lock:
            self.approvals[sid] = approval
        if self.auto_approve:
            self.approve(sid)
        return JSONResponse(approval, status_code=201)


async def _form(request: Request) -> list[tuple[str, str]]:
    return parse_qsl((await request.body()).decode(), keep_blank_values=True)


async def _json(request: Request):
    try:
        return await request.json()
    except ValueError:
        return None


def _error(status: int, code: int, message: str) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, "status": status}, status_code=status)


def _unauthorised() -> JSONResponse:
    return _error(401, 20003, "Authenticate")


def _not_found(sid: str) -> JSONResponse:
    return _error(404, content_rules.NOT_FOUND, f"The requested resource /Content/{sid} was not found")


def twilio_signature(token: str, url: str, form: dict[str, str]) -> str:
    """Twilio's documented algorithm, written out here independently of the code under test."""
    data = url + "".join(name + form[name] for name in sorted(form))
    return base64.b64encode(hmac.new(token.encode(), data.encode(), hashlib.sha1).digest()).decode()


serve = serving.serve  # run the fake's ``app`` on loopback; yields its base URL
