"""The fake Twilio's WhatsApp rules, tested on the fake itself: the Content API, approval, the 24-hour window,
the content limits and what a player sees (``rendered``)."""

import base64
import json
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from fake_twilio import FakeTwilio, twilio_signature
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

TEMPLATES = json.loads((Path(__file__).parents[1] / "deploy/whatsapp/templates.json").read_text())
OURS, ANNA, BEDA = "whatsapp:+14155238886", "whatsapp:+447700000001", "whatsapp:+447700000002"
DAY = 86_400
OUTSIDE = {
    "code": 63016,
    "message": "Failed to send freeform message because you are outside the allowed window. "
    "If you are using WhatsApp, please use a Message Template.",
    "status": 400,
}


class Clock:
    def __init__(self, now: float = 1_900_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def fake(clock):
    return FakeTwilio(auth_token="secret", clock=clock)


@pytest.fixture
def api(fake):
    return client_for(fake, fake.auth_token)


def client_for(fake: FakeTwilio, token: str) -> TestClient:
    basic = base64.b64encode(f"{fake.account_sid}:{token}".encode()).decode()
    return TestClient(fake.app, headers={"Authorization": f"Basic {basic}"})


def send(api: TestClient, fake: FakeTwilio, **form):
    return api.post(f"/2010-04-01/Accounts/{fake.account_sid}/Messages.json", data={"From": OURS, **form})


def create(api: TestClient, name: str) -> str:
    """Create the content of deploy/whatsapp/templates.json's ``name``, without asking for approval."""
    return content_sid(api, {key: value for key, value in TEMPLATES[name].items() if key != "approval"})


def approved(api: TestClient, name: str) -> str:
    sid = create(api, name)
    assert api.post(f"/v1/Content/{sid}/ApprovalRequests/whatsapp", json=TEMPLATES[name]["approval"]).status_code == 201
    return sid


def list_picker(items: list[dict], button: str = "Choose") -> dict:
    return {
        "friendly_name": "list",
        "language": "en",
        "types": {"twilio/list-picker": {"body": "Where?", "button": button, "items": items}},
    }


def quick_reply(count: int) -> dict:
    actions = [{"title": f"Choice {n}", "id": f"id{n}"} for n in range(1, count + 1)]
    return {
        "friendly_name": "quick",
        "language": "en",
        "types": {"twilio/quick-reply": {"body": "Keep it?", "actions": actions}},
    }


def places(count: int, item: str | None = None, description: str = "about") -> list[dict]:
    return [{"item": item or f"Place {n}", "id": f"id{n}", "description": description} for n in range(1, count + 1)]


def content_sid(api: TestClient, body: dict) -> str:
    response = api.post("/v1/Content", json=body)
    assert response.status_code == 201, response.text
    return response.json()["sid"]


# The Content API


def test_a_content_is_created_stored_and_listed(fake, api):
    response = api.post("/v1/Content", json={key: v for key, v in TEMPLATES["turn_en"].items() if key != "approval"})
    assert response.status_code == 201
    content = response.json()
    sid = content["sid"]
    assert re.fullmatch("HX[0-9a-f]{32}", sid)
    assert {key: content[key] for key in ("friendly_name", "language", "variables")} == {
        "friendly_name": "artemia_turn_en",
        "language": "en",
        "variables": {"1": "K7QX", "2": "20:00"},
    }
    assert content["types"] == TEMPLATES["turn_en"]["types"]
    assert fake.contents[sid]["friendly_name"] == "artemia_turn_en"
    listed = api.get("/v1/Content").json()["contents"]
    assert [c["friendly_name"] for c in listed] == ["artemia_turn_en"]
    assert api.get(f"/v1/Content/{sid}").json()["sid"] == sid


def test_creating_needs_the_credentials_a_language_and_types(fake, api):
    body = {"friendly_name": "x", "language": "en", "types": {"twilio/text": {"body": "hi"}}}
    assert client_for(fake, "wrong").post("/v1/Content", json=body).status_code == 401
    assert client_for(fake, "wrong").get("/v1/Content").status_code == 401
    for missing in ("language", "types"):
        response = api.post("/v1/Content", json={k: v for k, v in body.items() if k != missing})
        assert response.status_code == 400
        assert missing in response.json()["message"]
    assert fake.contents == {}


def test_approval_marks_a_content_approved(fake, api):
    sid = create(api, "turn_en")
    response = api.post(
        f"/v1/Content/{sid}/ApprovalRequests/whatsapp", json={"name": "artemia_turn_en", "category": "UTILITY"}
    )
    assert response.status_code == 201
    assert response.json() == {"name": "artemia_turn_en", "category": "UTILITY", "status": "approved"}
    assert fake.approved == {sid}
    assert api.get(f"/v1/Content/{sid}/ApprovalRequests").json()["whatsapp"]["status"] == "approved"


def test_without_auto_approval_the_request_is_pending(clock):
    fake = FakeTwilio(auth_token="secret", approve=False, clock=clock)
    api = client_for(fake, "secret")
    sid = create(api, "turn_en")
    response = api.post(f"/v1/Content/{sid}/ApprovalRequests/whatsapp", json=TEMPLATES["turn_en"]["approval"])
    assert response.json()["status"] == "pending"
    assert fake.approved == set()
    assert send(api, fake, To=ANNA, ContentSid=sid).json()["code"] == 63016
    fake.approve(sid)
    assert send(api, fake, To=ANNA, ContentSid=sid).status_code == 201


def test_a_list_picker_can_not_be_approved_and_an_unknown_sid_is_404(fake, api):
    sid = create(api, "list_3")
    response = api.post(
        f"/v1/Content/{sid}/ApprovalRequests/whatsapp", json={"name": "artemia_list_3", "category": "UTILITY"}
    )
    assert response.status_code == 400
    assert "twilio/list-picker" in response.json()["message"] and "approval" in response.json()["message"]
    assert fake.approved == set()
    unknown = "HX" + "f" * 32
    assert (
        api.post(
            f"/v1/Content/{unknown}/ApprovalRequests/whatsapp", json={"name": "x", "category": "UTILITY"}
        ).status_code
        == 404
    )


# The 24-hour window


def test_free_form_is_accepted_within_24_hours_of_the_last_inbound_and_refused_after(fake, api, clock):
    fake.opened(ANNA)
    clock.now += DAY
    response = send(api, fake, To=ANNA, Body="K7QX: your turn")
    assert response.status_code == 201
    clock.now += 1
    response = send(api, fake, To=ANNA, Body="K7QX: still there?")
    assert response.status_code == 400
    assert response.json() == OUTSIDE
    assert fake.to(ANNA) == ["K7QX: your turn"]
    assert fake.refused == [
        {"From": OURS, "To": ANNA, "Body": "K7QX: still there?", "code": 63016, "reason": OUTSIDE["message"]}
    ]


def test_a_number_that_never_wrote_gets_no_free_form(fake, api):
    assert send(api, fake, To=BEDA, Body="hello").json() == OUTSIDE
    assert send(api, fake, To=BEDA, MediaUrl="https://example.org/board.png").json() == OUTSIDE
    assert fake.sent == []


def test_an_approved_template_is_accepted_outside_the_window(fake, api, clock):
    sid = approved(api, "turn_en")
    fake.opened(ANNA, at=clock.now - 3 * DAY)
    response = send(api, fake, To=ANNA, ContentSid=sid, ContentVariables=json.dumps({"1": "Q2ZB", "2": "21:30"}))
    assert response.status_code == 201
    assert fake.whatsapp_sent(ANNA)[0]["rendered"] == {
        "kind": "quick-reply",
        "body": "Artemia Q2ZB: a question is waiting for you. Answer by 21:30.",
        "button": None,
        "items": [],
        "actions": [{"title": "Show the question", "id": "SHOW"}],
        "media": [],
        "template": "artemia_turn_en",
        "approved": True,
    }


def test_an_unapproved_content_is_free_form(fake, api):
    sid = create(api, "turn_en")
    assert send(api, fake, To=ANNA, ContentSid=sid).json() == OUTSIDE
    fake.opened(ANNA)
    assert send(api, fake, To=ANNA, ContentSid=sid).status_code == 201
    assert fake.whatsapp_sent(ANNA)[0]["rendered"]["approved"] is False


def test_a_list_picker_is_session_only(fake, api, clock):
    sid = create(api, "list_3")
    fake.opened(ANNA, at=clock.now - DAY - 1)
    assert send(api, fake, To=ANNA, ContentSid=sid).json() == OUTSIDE
    fake.opened(ANNA)
    assert send(api, fake, To=ANNA, ContentSid=sid).status_code == 201


# Addresses, ContentSid, ContentVariables, sizes


def test_from_must_be_whatsapp_or_a_messaging_service(fake, api):
    fake.opened(ANNA)
    response = send(api, fake, To=ANNA, From="+14155238886", Body="hi")
    assert (response.status_code, response.json()["code"]) == (400, 21910)
    response = api.post(
        f"/2010-04-01/Accounts/{fake.account_sid}/Messages.json",
        data={"To": ANNA, "MessagingServiceSid": "MG" + "0" * 32, "Body": "hi"},
    )
    assert response.status_code == 201


def test_a_content_sid_must_exist_and_stand_without_a_body(fake, api):
    fake.opened(ANNA)
    response = send(api, fake, To=ANNA, ContentSid="HX" + "0" * 32)
    assert response.json() == {"code": 21655, "message": "The ContentSid is Invalid", "status": 400}
    sid = create(api, "turn_en")
    response = send(api, fake, To=ANNA, ContentSid=sid, Body="hi")
    assert response.json()["code"] == 21619
    assert "Body must be left out" in response.json()["message"]
    assert [r["code"] for r in fake.refused] == [21655, 21619]


@pytest.mark.parametrize("variables", ["not json", "[1, 2]", '{"1": 2}', '"K7QX"'])
def test_content_variables_must_be_an_object_of_strings(fake, api, variables):
    sid = approved(api, "turn_en")
    response = send(api, fake, To=ANNA, ContentSid=sid, ContentVariables=variables)
    assert response.status_code == 400
    assert response.json()["code"] == 21656
    assert response.json()["message"].startswith("The ContentVariables Parameter is invalid")


def test_a_variable_without_a_value_or_a_default_is_refused(fake, api):
    sid = content_sid(
        api,
        {"language": "en", "types": {"twilio/text": {"body": "Artemia {{1}} at {{2}}."}}, "variables": {"1": "K7QX"}},
    )
    fake.opened(ANNA)
    response = send(api, fake, To=ANNA, ContentSid=sid)
    assert response.json()["code"] == 21656 and "{{2}}" in response.json()["message"]


def test_an_approved_template_parameter_has_no_newline(fake, api):
    sid = approved(api, "over_en")
    response = send(
        api, fake, To=ANNA, ContentSid=sid, ContentVariables=json.dumps({"2": "The Hunted won.\nWell done."})
    )
    assert response.json()["code"] == 63005 and "{{2}}" in response.json()["message"]


def test_free_form_body_and_media_limits(fake, api):
    fake.opened(ANNA)
    assert send(api, fake, To=ANNA, Body="x" * 1600).status_code == 201
    assert send(api, fake, To=ANNA, Body="x" * 1601).json()["code"] == 21617
    urls = [f"https://example.org/{n}.png" for n in range(11)]
    assert send(api, fake, To=ANNA, Body="board", MediaUrl=urls).json()["code"] == 21623
    assert send(api, fake, To=ANNA, Body="board", MediaUrl=urls[:2]).status_code == 201
    assert fake.whatsapp_sent(ANNA)[-1]["rendered"] == {
        "kind": "media",
        "body": "board",
        "button": None,
        "items": [],
        "actions": [],
        "media": urls[:2],
        "template": None,
        "approved": False,
    }
    assert send(api, fake, To=ANNA).json()["code"] == 21619


# Limits of list-pickers and quick-replies


@pytest.mark.parametrize(
    "items, limit",
    [
        (places(11), "1 to 10 items"),
        (places(1, item="x" * 25), "item must be 1 to 24 characters, is 25"),
        (places(1, description="d" * 73), "description must be 0 to 72 characters, is 73"),
        ([{"item": "A", "id": "same", "description": ""}, {"item": "B", "id": "same", "description": ""}], "unique"),
    ],
)
def test_list_picker_limits(fake, api, items, limit):
    sid = content_sid(api, list_picker(items))
    fake.opened(ANNA)
    response = send(api, fake, To=ANNA, ContentSid=sid)
    assert response.status_code == 400
    assert response.json()["code"] == 63005
    assert limit in response.json()["message"]
    assert fake.sent == [] and fake.refused[0]["code"] == 63005


def test_list_picker_at_its_limits_is_accepted(fake, api):
    items = [{"item": f"{n:02d}" + "x" * 22, "id": f"id{n}", "description": "d" * 72} for n in range(10)]
    sid = content_sid(api, list_picker(items, button="b" * 20))
    fake.opened(ANNA)
    assert send(api, fake, To=ANNA, ContentSid=sid).status_code == 201
    assert (
        send(api, fake, To=ANNA, ContentSid=content_sid(api, list_picker(items, button="b" * 21))).json()["code"]
        == 63005
    )


def test_a_quick_reply_has_3_actions_in_session_and_10_when_approved(fake, api, clock):
    fake.opened(ANNA)
    assert send(api, fake, To=ANNA, ContentSid=content_sid(api, quick_reply(3))).status_code == 201
    response = send(api, fake, To=ANNA, ContentSid=content_sid(api, quick_reply(4)))
    assert response.json()["code"] == 63005 and "1 to 3 actions, has 4" in response.json()["message"]
    sid = content_sid(api, quick_reply(4))
    api.post(f"/v1/Content/{sid}/ApprovalRequests/whatsapp", json={"name": "artemia_quick_4", "category": "UTILITY"})
    clock.now += 2 * DAY
    assert send(api, fake, To=ANNA, ContentSid=sid).status_code == 201
    assert len(fake.whatsapp_sent(ANNA)[-1]["rendered"]["actions"]) == 4


def test_the_rendered_list_3_with_variables(fake, api):
    entry = TEMPLATES["list_3"]
    picker = entry["types"]["twilio/list-picker"]
    shown = [("The Lair", "place-1", "Take back"), ("The Jungle", "place-2", "Take back 1 Place")]
    variables = {key_of(picker["body"]): "K7QX T2: where do you go?", key_of(picker["button"]): "Places"}
    for (item, id_, description), template in zip(shown, picker["items"]):
        variables |= {key_of(template["item"]): item, key_of(template["id"]): id_}
        if "description" in template:
            variables[key_of(template["description"])] = description
    last = picker["items"][2]  # given no variables: shown with the content's defaults
    defaults = tuple(
        entry["variables"][key_of(last[field])] if field in last else "" for field in ("item", "id", "description")
    )
    sid = create(api, "list_3")
    fake.opened(ANNA)
    response = send(api, fake, To=ANNA, ContentSid=sid, ContentVariables=json.dumps(variables))
    assert response.status_code == 201
    described = "description" in picker["items"][0]
    assert fake.whatsapp_sent(ANNA) == [
        {
            "From": OURS,
            "To": ANNA,
            "ContentSid": sid,
            "ContentVariables": json.dumps(variables),
            "rendered": {
                "kind": "list-picker",
                "body": "K7QX T2: where do you go?",
                "button": "Places",
                "items": [
                    {"item": "The Lair", "id": "place-1", "description": "Take back" if described else ""},
                    {"item": "The Jungle", "id": "place-2", "description": "Take back 1 Place" if described else ""},
                    dict(zip(("item", "id", "description"), defaults)),
                ],
                "actions": [],
                "media": [],
                "template": "artemia_list_3",
                "approved": False,
            },
        }
    ]
    assert defaults[:2] == ("Place 3", "id3")
    assert fake.to(ANNA) == ["K7QX T2: where do you go?"]


def key_of(placeholder: str) -> str:
    """The variable of a field that is one placeholder, as in deploy/whatsapp/templates.json: "{{7}}" -> "7"."""
    assert placeholder.startswith("{{") and placeholder.endswith("}}"), placeholder
    return placeholder[2:-2]


# Inbound messages, failures, and SMS as before


def test_an_inbound_whatsapp_message_is_signed_and_opens_the_window(fake, api, clock):
    received = []

    async def webhook(request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        received.append((form, request.headers["x-twilio-signature"]))
        return Response("<Response/>", media_type="text/xml")

    ours = TestClient(Starlette(routes=[Route("/whatsapp/twilio", webhook, methods=["POST"])]))
    url = "https://artemia.example/whatsapp/twilio"
    assert fake.whatsapp(ours, url, ANNA, "play 3").status_code == 200
    fake.whatsapp(ours, url, "+447700000001", button_payload="SHOW", button_text="Show the question")
    fake.whatsapp(ours, url, ANNA, list_id="place-2", list_title="The Jungle")
    (text, signed), (button, _), (chosen, _) = received
    assert signed == twilio_signature("secret", url, text)
    assert {k: text[k] for k in ("From", "To", "Body", "WaId", "NumMedia", "MessageType")} == {
        "From": ANNA,
        "To": OURS,
        "Body": "play 3",
        "WaId": "447700000001",
        "NumMedia": "0",
        "MessageType": "text",
    }
    assert text["ProfileName"] and "ButtonPayload" not in text and "ListId" not in text
    assert (button["From"], button["ButtonPayload"], button["ButtonText"], button["Body"]) == (
        ANNA,
        "SHOW",
        "Show the question",
        "Show the question",
    )
    assert (chosen["ListId"], chosen["ListTitle"], chosen["Body"], chosen["MessageType"]) == (
        "place-2",
        "The Jungle",
        "The Jungle",
        "interactive",
    )
    assert fake.last_inbound == {ANNA: clock.now}
    assert send(api, fake, To=ANNA, Body="K7QX T1").status_code == 201


def test_failures_on_demand_apply_to_whatsapp(fake, api):
    fake.opened(ANNA)
    fake.fail(429, code=20429, retry_after=3, to=ANNA)
    response = send(api, fake, To=ANNA, Body="hi")
    assert (response.status_code, response.headers["retry-after"]) == (429, "3")
    assert send(api, fake, To=ANNA, Body="hi").status_code == 201


def test_sms_sends_are_kept_as_before(fake, api):
    response = send(api, fake, To="+447700000001", From="+15005550006", Body="K7QX T1")
    assert response.status_code == 201
    assert fake.sent == [{"To": "+447700000001", "From": "+15005550006", "Body": "K7QX T1"}]
    assert send(api, fake, To="+447700000001", From="+15005550006").json()["code"] == 21604
    assert fake.refused == []
