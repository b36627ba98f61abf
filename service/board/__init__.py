"""The board as a picture: what the group sees of a game, drawn from its public view only.

    svg.render(view, names, lang) -> str      the SVG (a web page can use it as it is)
    raster.png(svg) -> bytes                  the PNG, drawn by resvg with the fonts shipped here (in cached layers)
    picture(payload) -> Picture               both, with the digest that names the picture

A *payload* is what an outgoing message carries to ask for a picture: ``{"game", "view", "names", "lang",
"version"}``
(``view`` is ``game.public_view()``, ``names`` the seats' display names). Nothing here reads Redis or the full
state; the caches of drawn pictures (Telegram's ``file_id`` by digest) live with the channel that sends them.
A leaf: it imports only the card names and the translations.
"""

import hashlib
from dataclasses import dataclass
from functools import cached_property

from service.board import raster, svg


def payload(game_id: str, view: dict, names: dict[int, str], lang: str, version: int | None = None) -> dict:
    """What a message carries to be shown as the board of ``view`` — the game's state at ``version``, when known
    (a sender may then skip drawing a state the game has left) — JSON-safe: seats become strings."""
    return {
        "game": game_id,
        "view": view,
        "names": {str(k): v for k, v in names.items()},
        "lang": lang,
        "version": version,
    }


@dataclass(frozen=True)
class Picture:
    svg: str

    @cached_property
    def digest(self) -> str:
        """Names the picture: equal pictures (whatever else changed in the state) share it."""
        return hashlib.sha256(self.svg.encode()).hexdigest()[:24]

    def png(self) -> bytes:
        return raster.png(self.svg)


def picture(board: dict) -> Picture:
    """The picture a message's ``board`` payload asks for."""
    names = {int(seat): name for seat, name in (board.get("names") or {}).items()}
    return Picture(svg.render(board["view"], names, board.get("lang") or "en"))
