"""WhatsApp content for the fake Twilio (tests/fake_twilio.py): checking, rendering and limits, as pure functions.

The limits are Twilio's documented ones per content type (the Content API pages "twilio/list-picker",
"twilio/quick-reply", "twilio/text", "twilio/media") and the Messages API's (1,600 characters, 10 media).
A broken rule raises ``Refusal``; the fake answers it as HTTP 400 with Twilio's JSON error body.
"""

import json
import re

WINDOW = 86_400  # seconds: WhatsApp's customer service window after the user's last message
WHATSAPP_TYPES = ("twilio/list-picker", "twilio/quick-reply", "twilio/media", "twilio/text")
CATEGORIES = ("UTILITY", "MARKETING", "AUTHENTICATION")
PLACEHOLDER = re.compile(r"\{\{([^{}\s]+)\}\}")
TEMPLATE_NAME = re.compile(r"[a-z0-9_]{1,512}")

MISSING_FIELD = 21604
BODY_TOO_LONG = 21617
NO_BODY = 21619
TOO_MANY_MEDIA = 21623
BAD_CONTENT_SID = 21655
BAD_VARIABLES = 21656
BAD_PAIR = 21910
CHANNEL_REFUSED = 63005
OUTSIDE_WINDOW = 63016
INVALID_PARAMETER = 20422
NOT_FOUND = 20404

OUTSIDE_WINDOW_MESSAGE = (
    "Failed to send freeform message because you are outside the allowed window. "
    "If you are using WhatsApp, please use a Message Template."
)


class Refusal(Exception):
    def __init__(self, code: int, message: str, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status

    def body(self) -> dict:
        return {"code": self.code, "message": self.message, "status": self.status}


def whatsapp_address(number: str) -> str:
    return number if number.startswith("whatsapp:") else f"whatsapp:{number}"


def content_error(data) -> str | None:
    """Why a ``POST /v1/Content`` body is refused, or None."""
    if not isinstance(data, dict):
        return "the body must be a JSON object"
    if not isinstance(data.get("language"), str) or not data["language"]:
        return "language is required"
    if not isinstance(data.get("types"), dict) or not data["types"]:
        return "types is required: an object of content types"
    if not _strings(data.get("variables", {})):
        return "variables must be an object of strings"
    return None


def approval_error(content: dict, data) -> str | None:
    """Why a WhatsApp approval request is refused, or None."""
    if "twilio/list-picker" in content["types"]:
        return "a twilio/list-picker content can not be submitted for WhatsApp approval: list pickers are session-only"
    if not isinstance(data, dict) or not TEMPLATE_NAME.fullmatch(str(data.get("name", ""))):
        return "name is required: lowercase letters, digits and underscores"
    if data.get("category") not in CATEGORIES:
        return f"category must be one of {', '.join(CATEGORIES)}"
    return None


def parse_variables(raw: str | None) -> dict[str, str]:
    """``ContentVariables``: a JSON object of strings, or absent."""
    if raw is None:
        return {}
    try:
        variables = json.loads(raw)
    except ValueError:
        variables = None
    if not _strings(variables):
        raise Refusal(BAD_VARIABLES, "The ContentVariables Parameter is invalid: a JSON object of strings is expected")
    return variables


def free_form(body: str | None, media: list[str]) -> dict:
    """The view of a plain WhatsApp message: ``Body`` and/or ``MediaUrl``."""
    if not body and not media:
        raise Refusal(NO_BODY, "A text message body or media urls must be specified")
    if body and len(body) > 1600:
        raise Refusal(BODY_TOO_LONG, f"The concatenated message body exceeds the 1600 character limit ({len(body)})")
    if len(media) > 10:
        raise Refusal(TOO_MANY_MEDIA, f"Number of media files exceeds allowed limit: {len(media)} MediaUrl, at most 10")
    return _view("media" if media else "text", body or "", media=media)


def render(content: dict, variables: dict[str, str], approved: bool) -> dict:
    """The view of a content with its variables, after the limits of its WhatsApp type are checked."""
    kind = _whatsapp_type(content)
    values = {**content.get("variables", {}), **variables}
    source = content["types"][kind]
    if approved:
        _check_parameters(source, values)
    shown = _substitute(source, values)
    view = _view(
        kind.removeprefix("twilio/"),
        shown.get("body", ""),
        button=shown.get("button"),
        items=[
            {"item": i.get("item", ""), "id": i.get("id", ""), "description": i.get("description", "")}
            for i in shown.get("items", [])
        ],
        actions=[{"title": a.get("title", ""), "id": a.get("id", "")} for a in shown.get("actions", [])],
        media=list(shown.get("media", [])),
        template=content.get("friendly_name"),
        approved=approved,
    )
    CHECKS[view["kind"]](view)
    return view


def _view(kind, body, *, button=None, items=(), actions=(), media=(), template=None, approved=False) -> dict:
    return {
        "kind": kind,
        "body": body,
        "button": button,
        "items": list(items),
        "actions": list(actions),
        "media": list(media),
        "template": template,
        "approved": approved,
    }


def _strings(value) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _whatsapp_type(content: dict) -> str:
    for kind in WHATSAPP_TYPES:
        if kind in content["types"]:
            return kind
    raise Refusal(CHANNEL_REFUSED, f"the fake renders only {', '.join(WHATSAPP_TYPES)} on WhatsApp")


def _substitute(value, variables: dict[str, str]):
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda match: _lookup(match.group(1), variables), value)
    if isinstance(value, list):
        return [_substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, variables) for k, v in value.items()}
    return value


def _lookup(key: str, variables: dict[str, str]) -> str:
    if key not in variables:
        raise Refusal(BAD_VARIABLES, f"The ContentVariables Parameter is invalid: no value for {{{{{key}}}}}")
    return variables[key]


def _check_parameters(source, values: dict[str, str]) -> None:
    # Meta refuses a template parameter that is empty, has a newline or tab, or more than 4 spaces in a row.
    for key in sorted(set(PLACEHOLDER.findall(json.dumps(source, ensure_ascii=False)))):
        value = values.get(key, "")
        if not value.strip() or "\n" in value or "\t" in value or "     " in value:
            raise Refusal(
                CHANNEL_REFUSED,
                f"template parameter {{{{{key}}}}} is empty or has a newline, a tab or more than 4 spaces: {value!r}",
            )


def _within(kind: str, name: str, text: str | None, low: int, high: int) -> None:
    size = len(text or "")
    if not low <= size <= high:
        raise Refusal(CHANNEL_REFUSED, f"{kind} {name} must be {low} to {high} characters, is {size}: {text!r}")


def _count(kind: str, name: str, count: int, low: int, high: int) -> None:
    if not low <= count <= high:
        raise Refusal(CHANNEL_REFUSED, f"{kind} must have {low} to {high} {name}, has {count}")


def _check_list_picker(view: dict) -> None:
    kind = "twilio/list-picker"
    _count(kind, "items", len(view["items"]), 1, 10)
    _within(kind, "body", view["body"], 1, 1024)
    _within(kind, "button", view["button"], 1, 20)
    for item in view["items"]:
        _within(kind, "item", item["item"], 1, 24)
        _within(kind, "id", item["id"], 1, 200)
        _within(kind, "description", item["description"], 0, 72)
    ids = [item["id"] for item in view["items"]]
    if len(set(ids)) != len(ids):
        raise Refusal(CHANNEL_REFUSED, f"{kind} item ids must be unique: {ids}")


def _check_quick_reply(view: dict) -> None:
    kind = "twilio/quick-reply"
    _within(kind, "body", view["body"], 1, 1024)
    # In a session WhatsApp shows at most 3 buttons; an approved template may have 10.
    _count(kind, "actions", len(view["actions"]), 1, 10 if view["approved"] else 3)
    for action in view["actions"]:
        _within(kind, "title", action["title"], 1, 20)
        _within(kind, "id", action["id"], 0, 200)


def _check_media(view: dict) -> None:
    _within("twilio/media", "body", view["body"], 0, 1600)
    _count("twilio/media", "media", len(view["media"]), 1, 10)


def _check_text(view: dict) -> None:
    _within("twilio/text", "body", view["body"], 1, 1600)


CHECKS = {
    "list-picker": _check_list_picker,
    "quick-reply": _check_quick_reply,
    "media": _check_media,
    "text": _check_text,
}
