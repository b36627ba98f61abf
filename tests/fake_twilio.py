"""A fake of Twilio's Messages REST API for tests: records what is sent and fails on demand.

fake = FakeTwilio(account_sid="AC…", auth_token="…")
with serve(fake.app) as base_url:      # uvicorn on 127.0.0.1, a free port, in a thread
    ...                                 # point TWILIO_API_BASE_URL at base_url
fake.sent                               # [{"To", "From", "Body", ...}, ...] in order
fake.fail(429, retry_after=3)           # the next send gets this answer (once by default)
fake.fail(400, code=21610, to="+420…")  # only sends to that number fail
fake.text(client, url, "+420…", "play 3")  # an inbound SMS posted to our webhook, signed as Twilio signs
"""

import base64
import hashlib
import hmac
import itertools
import threading
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

try:
    import serving
except ModuleNotFoundError:  # imported as tests.<module>, with only the repository root on the path
    from tests import serving


@dataclass
class Failure:
    status: int
    code: int | None
    retry_after: float | None
    to: str | None
    times: int


class FakeTwilio:
    def __init__(self, account_sid: str = "AC" + "0" * 32, auth_token: str = "token"):
        self.account_sid, self.auth_token = account_sid, auth_token
        self.sent: list[dict] = []
        self.failures: list[Failure] = []
        self.requests = 0
        self._sids = itertools.count(1)
        self._lock = threading.Lock()
        self.app = Starlette(
            routes=[Route("/2010-04-01/Accounts/{sid}/Messages.json", self._messages, methods=["POST"])]
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
        signed = twilio_signature(token or self.auth_token, url, form)
        return client.post(urlsplit(url).path, data=form, headers={"X-Twilio-Signature": signed})

    def to(self, number: str) -> list[str]:
        """The bodies sent to a number, in order."""
        return [m["Body"] for m in self.sent if m["To"] == number]

    def _authorised(self, request: Request, sid: str) -> bool:
        expected = base64.b64encode(f"{self.account_sid}:{self.auth_token}".encode()).decode()
        return sid == self.account_sid and request.headers.get("authorization") == f"Basic {expected}"

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
            return JSONResponse({"code": 20003, "message": "Authenticate", "status": 401}, status_code=401)
        form = dict(await _form(request))
        failure = self._take_failure(form.get("To"))
        if failure:
            headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after is not None else {}
            return JSONResponse(
                {"code": failure.code, "message": "failure on demand", "status": failure.status},
                status_code=failure.status,
                headers=headers,
            )
        if not form.get("To") or not (form.get("From") or form.get("MessagingServiceSid")) or "Body" not in form:
            return JSONResponse({"code": 21604, "message": "missing field", "status": 400}, status_code=400)
        with self._lock:
            self.sent.append(form)
            sid = f"SM{len(self.sent):032d}"
        return JSONResponse(
            {"sid": sid, "status": "queued", **{k.lower(): v for k, v in form.items()}}, status_code=201
        )


async def _form(request: Request) -> list[tuple[str, str]]:
    return parse_qsl((await request.body()).decode(), keep_blank_values=True)


def twilio_signature(token: str, url: str, form: dict[str, str]) -> str:
    """Twilio's documented algorithm, written out here independently of the code under test."""
    data = url + "".join(name + form[name] for name in sorted(form))
    return base64.b64encode(hmac.new(token.encode(), data.encode(), hashlib.sha1).digest()).decode()


serve = serving.serve  # run the fake's ``app`` on loopback; yields its base URL
