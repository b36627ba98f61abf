"""WhatsApp's contents on Twilio's Content API: the templates of deploy/whatsapp/templates.json, registered once
per account, and their SIDs, which the sender names (``ARTEMIA_WHATSAPP_CONTENTS``).

Each template has a name (``turn_en``, ``list_4``, …) and the Content API's fields (``friendly_name``,
``language``, ``variables`` with a sample of each, ``types``); one with ``approval`` is submitted to WhatsApp for
approval in that category (the turn, the reminder, the end: the messages that may go outside a player's 24-hour
window). The lists and quick replies are never submitted: they go only within the window, where no approval is
needed (a list cannot be approved at all). Registering again finds the contents by their friendly names and
creates only what is missing.
"""

import json
from pathlib import Path

import httpx

from service.config import Settings

TEMPLATES = Path(__file__).resolve().parents[3] / "deploy" / "whatsapp" / "templates.json"
FIELDS = ("friendly_name", "language", "variables", "types")


def load(path: Path = TEMPLATES) -> dict[str, dict]:
    templates: dict[str, dict] = json.loads(path.read_text(encoding="utf-8"))
    return templates


def _existing(client: httpx.Client, base: str, auth: tuple[str, str]) -> dict[str, str]:
    """friendly name -> SID of the account's contents (every page)."""
    found: dict[str, str] = {}
    url: str | None = f"{base}/v1/Content?PageSize=500"
    while url:
        response = client.get(url, auth=auth)
        response.raise_for_status()
        page = response.json()
        found.update({c["friendly_name"]: c["sid"] for c in page.get("contents", [])})
        url = (page.get("meta") or {}).get("next_page_url")
    return found


def register(settings: Settings, templates: dict[str, dict], client: httpx.Client | None = None) -> dict[str, str]:
    """Each template's SID by its name, created (and submitted for approval) where the account has none."""
    client = client or httpx.Client(timeout=30)
    base = settings.twilio_content_base_url.rstrip("/")
    auth = (settings.twilio_account_sid, settings.twilio_auth_token)
    existing = _existing(client, base, auth)
    out = {}
    for name, template in templates.items():
        sid = existing.get(template["friendly_name"])
        if sid is None:
            response = client.post(f"{base}/v1/Content", json={k: template[k] for k in FIELDS}, auth=auth)
            response.raise_for_status()
            sid = response.json()["sid"]
            if "approval" in template:
                asked = client.post(
                    f"{base}/v1/Content/{sid}/ApprovalRequests/whatsapp", json=template["approval"], auth=auth
                )
                asked.raise_for_status()
        out[name] = sid
    return out
