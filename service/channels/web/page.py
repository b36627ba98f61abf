"""The watch page's words and markup: one step of a game's public history (`service.pipeline.watch.Frame`) as
HTML, whole or as the parts the page's script swaps in place.

    Shown(frames, step, meta, lang, ...)   what one page shows: the frames up to ``step``, the table, the language
    parts(shown) -> dict                   {"head", "board", "log"}: the status line and counters, the board (inline
                                           SVG, `service.board.svg`), the turn log (newest turn first)
    document(shown, ...) -> str            the whole page: readable as it is, without JavaScript
    data(shown, ...) -> dict               what ``…/data.json`` answers: the parts, the step, the version

Everything shown comes from the frames (public views and public events) and the players' names: nothing else of
the game reaches the page. Words come from gettext in the table's language.
"""

from dataclasses import dataclass
from html import escape

from service.board import svg
from service.cardnames import word
from service.channels import plain
from service.i18n import translator
from service.i18n.events import counters, to_the_star, winner
from service.i18n.names import cards_text, seat_name
from service.pipeline.news import names_of
from service.pipeline.watch import OVER, Frame, names_at

STYLE = """
*{box-sizing:border-box}
body{margin:0;background:#f6f3ea;color:#1b1b1b;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:1040px;margin:0 auto;padding:12px}
@media (min-width:1180px){main{max-width:1500px;display:grid;grid-template-columns:minmax(0,1000px) minmax(300px,1fr);
column-gap:20px;align-items:start}main>*{grid-column:1}main>.log{grid-column:2;grid-row:1/span 7;position:sticky;top:0;
max-height:100vh;overflow-y:auto}}
header{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 14px}
h1{font-size:1.35rem;margin:0}
h2{font-size:1.1rem;margin:18px 0 6px}
h3{font-size:1rem;margin:12px 0 4px}
.badge{font-size:.85rem;padding:2px 8px;border-radius:10px;background:#1b1b1b;color:#fff}
.badge.live{background:#009e73}
.status{margin:6px 0}
.counters{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.counter{padding:4px 10px;border-radius:8px;border:2px solid;background:#fff;font-weight:600}
.rescue{border-color:#0072b2;color:#0072b2}
.assimilation{border-color:#d55e00;color:#d55e00}
.won{font-weight:700;font-size:1.1rem}
figure{margin:8px 0;background:#fff;border-radius:10px;overflow:hidden;box-shadow:0 1px 3px #0003}
figure svg{display:block;width:100%;height:auto}
nav{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin:10px 0;padding:8px;background:#fff;
border-radius:10px;box-shadow:0 1px 3px #0003}
nav a,nav button{display:inline-block;padding:8px 14px;border-radius:8px;background:#0072b2;color:#fff;
text-decoration:none;border:0;font:inherit;cursor:pointer}
nav a[aria-disabled=true]{background:#9a958a;pointer-events:none}
nav form{display:flex;flex:1 1 200px;gap:8px;align-items:center;margin:0}
nav input[type=range]{flex:1;min-width:120px}
nav .where{flex-basis:100%;font-weight:600}
.log section{background:#fff;border-radius:10px;padding:4px 14px 8px;margin:8px 0;box-shadow:0 1px 3px #0002}
.log ol{margin:0;padding-left:1.2em}
.log li{margin:2px 0;white-space:pre-line}
.hidden{background:#fff;border:2px dashed #cc79a7;border-radius:10px;padding:2px 14px;margin:8px 0}
.hidden ul{margin:4px 0 8px;padding-left:1.2em}
footer{color:#6b6b6b;font-size:.85rem;margin:20px 0}
@media (max-width:600px){main{padding:6px}h1{font-size:1.15rem}body{font-size:15px}
nav form{order:3;flex-basis:100%}nav #w-next{margin-left:auto}}
"""


@dataclass(frozen=True)
class Shown:
    """One page: the game's frames so far, the one shown (``step``), the table, the language."""

    frames: list[Frame]
    step: int
    meta: dict
    lang: str
    over: bool  # the game is over (its frames may then hold the seats' hidden choices: `_hidden`)
    waiting: list[int] | None = None  # who the open window still waits for now (its frame has who it first asked)
    cancelled: bool = False  # the game was cancelled: its last frame is where it stood then

    @property
    def frame(self) -> Frame:
        return self.frames[self.step]

    @property
    def names(self) -> dict[int, str]:
        """Each seat's name at the step shown: whoever held it then (a stand-in's seat, before it changed hands,
        is named by its player of that time)."""
        return names_at(self.meta, self.frame.applied)

    @property
    def live(self) -> bool:
        """The game's current state, still running (the page follows it)."""
        return not self.over and self.step == len(self.frames) - 1


def label(shown: Shown) -> str:
    """Where the step is: "Turn 3 · Hunt", or the end."""
    _ = translator(shown.lang).gettext
    frame = shown.frame
    if frame.kind == OVER:
        return _("Game over.") + " " + winner(frame.view, shown.lang)
    phase = svg.PHASE_WORDS.get(frame.kind)
    turn = _("Turn {n}").format(n=frame.turn)
    return f"{turn} · {word(phase, shown.lang)}" if phase else turn


def _head(shown: Shown) -> str:
    _ = translator(shown.lang).gettext
    view, lang = shown.frame.view, shown.lang
    if view.get("winner"):
        status = f'<p class="status won">{escape(label(shown))}</p>'
    elif shown.cancelled and shown.step == len(shown.frames) - 1:
        line = label(shown) + " — " + _("The game was cancelled.")
        status = f'<p class="status">{escape(line)}</p>'
    else:
        waiting = shown.waiting if shown.live and shown.waiting is not None else None
        waiting = (view.get("window") or {}).get("waiting") or [] if waiting is None else waiting
        who = plain.waited_names(waiting, shown.names, lang, shown.meta.get("reader"))
        line = escape(label(shown)) + (" — " + escape(_("Waiting for: {who}").format(who=who)) if who else "")
        status = f'<p class="status">{line}</p>'
    rescue = _("Rescue:") + " " + to_the_star(view["rescue"], lang)
    assimilation = _("Assimilation:") + " " + to_the_star(view["assimilation"], lang)
    return (
        status
        + f'<div class="counters" title="{escape(counters(view, lang))}">'
        + f'<span class="counter rescue">{escape(rescue)}</span>'
        + f'<span class="counter assimilation">{escape(assimilation)}</span></div>'
        + _hidden(shown)
    )


def _hidden(shown: Shown) -> str:
    """Each seat's hidden cards and picks at this step: only in frames made with them (after the game, by the
    creator's choice: `service.pipeline.watch.show_hidden`)."""
    hidden, lang = shown.frame.hidden, shown.lang
    if hidden is None:
        return ""
    _ = translator(lang).gettext
    rows = []
    for seat, mine in sorted(hidden.items()):
        if mine["role"] == "creature":
            said = [_("Hunt cards in hand: {cards}").format(cards=cards_text(mine["hunt_cards"], lang) or "—")]
        else:
            said = [_("Places in hand: {cards}").format(cards=cards_text(mine["hand"], lang) or "—")]
            if mine["played"]:
                said.append(_("Chosen face down: {cards}").format(cards=cards_text(mine["played"], lang)))
            if mine["survival"]:
                said.append(_("Survival cards: {cards}").format(cards=cards_text(mine["survival"], lang)))
        rows.append(f"<li><b>{escape(seat_name(shown.names, seat, lang))}</b>: {escape(' · '.join(said))}</li>")
    title = _("Hidden choices (shown by the table's creator after the game)")
    return f'<section class="hidden">{_tag("h2", title)}<ul>{"".join(rows)}</ul></section>'


def _tag(name: str, text: str, cls: str = "") -> str:
    """An element holding ``text``, escaped."""
    attribute = f' class="{cls}"' if cls else ""
    return f"<{name}{attribute}>{escape(text)}</{name}>"


def _sections(shown: Shown) -> list[tuple[int, list[tuple[dict, int]]]]:
    """The public events of the frames up to the step, cut at the engine's ``turn`` events: (turn, [(event, the
    actions applied when it happened)])."""
    out: list[tuple[int, list[tuple[dict, int]]]] = [(shown.frames[0].turn, [])]
    for frame in shown.frames[: shown.step + 1]:
        for event in frame.events:
            if event["type"] == "turn":
                out.append((event["turn"], []))
            else:
                out[-1][1].append((event, frame.applied))
    return [(turn, events) for turn, events in out if events]


def _log(shown: Shown) -> str:
    _ = translator(shown.lang).gettext
    out = [_tag("h2", _("Turn log"))]
    for turn, events in reversed(_sections(shown)):
        lines = [
            text
            for event, applied in events
            for text in plain.news_lines([event], _table_at(shown.meta, applied), shown.lang, "")
        ]
        items = "".join(_tag("li", text) for text in lines)
        out.append("<section>" + _tag("h3", _("Turn {n}").format(n=turn)) + f"<ol>{items}</ol></section>")
    if len(out) == 1:
        out.append(_tag("p", _("Nothing has happened yet.")))
    return "".join(out)


def parts(shown: Shown) -> dict[str, str]:
    return {
        "head": _head(shown),
        "board": svg.render(shown.frame.view, shown.names, shown.lang),
        "log": _log(shown),
    }


def _table_at(meta: dict, applied: int) -> dict:
    """The table as `plain.news_lines` reads it: each seat named by its holder of that moment, and the one player
    who reads it, if it has one (the sandbox's: "You use", not "You uses")."""
    names = names_at(meta, applied)
    players = {seat: {**player, "name": names[int(seat)]} for seat, player in meta.get("players", {}).items()}
    return {"players": players, "reader": meta.get("reader")}


def _nav(shown: Shown, base: str) -> str:
    """The replay's controls: previous, a slider (a form, so it works without JavaScript), next."""
    _ = translator(shown.lang).gettext
    last = len(shown.frames) - 1

    def link(step: int, text: str, rel: str) -> str:
        off = step < 0 or step > last
        href = "" if off else f' href="{escape(base)}?step={step}&amp;lang={shown.lang}"'
        return f'<a id="w-{rel}" rel="{rel}"{href} aria-disabled="{str(off).lower()}">{escape(text)}</a>'

    where = _("Step {n} of {m}").format(n=shown.step + 1, m=last + 1)
    replay, step, show = _("Replay"), _("Step"), _("Show")
    return (
        f'<nav id="w-nav" aria-label="{escape(replay)}">'
        f'<span class="where" id="w-where">{escape(where)} · {escape(label(shown))}</span>'
        + link(shown.step - 1, "◀ " + _("Previous"), "prev")
        + f'<form method="get" action="{escape(base)}"><input type="hidden" name="lang" value="{shown.lang}">'
        f'<input id="w-slider" type="range" name="step" min="0" max="{last}" value="{shown.step}" '
        f'aria-label="{escape(step)}"><button type="submit">{escape(show)}</button></form>'
        + link(shown.step + 1, _("Next") + " ▶", "next")
        + "</nav>"
    )


def document(shown: Shown, base: str, data_url: str, script_url: str, icon_url: str, version: int) -> str:
    """The whole page. ``base``: the page's own path; ``data_url``: its JSON; ``script_url``: the script that
    follows a running game and steps through a finished one without reloading; ``icon_url``: its icon (without
    one a browser asks for ``/favicon.ico`` at every load)."""
    _ = translator(shown.lang).gettext
    p = parts(shown)
    title = _("Artemia — watch the game")
    if shown.live:
        live = _("Live")
        badge = f'<span class="badge live" id="w-live">● {escape(live)}</span>'
    else:
        badge = _tag("span", _("Replay") if shown.over else _("Earlier step"), "badge")
    now = names_of(shown.meta)  # who plays the game now
    players = ", ".join(seat_name(now, seat, shown.lang) for seat in sorted(now))
    nav = _nav(shown, base) if shown.over or not shown.live else ""
    if shown.live:
        note = _("This page follows the game by itself. Without JavaScript, reload it to see new moves.")
    elif shown.frame.hidden is None:
        note = _("Only what the whole table saw is shown here, never a player's hidden cards or picks.")
    else:
        note = _("After the game its creator chose to show each player's hidden cards and picks too.")
    return (
        f'<!doctype html><html lang="{shown.lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">'
        f'<title>{escape(title)}</title><link rel="icon" href="{escape(icon_url)}" type="image/svg+xml">'
        f"<style>{STYLE}</style>"
        f'<script src="{escape(script_url)}" defer></script></head>'
        f'<body><main id="watch" data-url="{escape(data_url)}" data-version="{version}" '
        f'data-state="{escape(state(shown, version))}" '
        f'data-step="{shown.step}" data-live="{int(shown.live)}" data-lang="{shown.lang}">'
        f"<header><h1>{escape(title)}</h1>{badge}</header>"
        + _tag("p", _("Players: {names}").format(names=players), "players")
        + f'<div id="w-head">{p["head"]}</div>{nav}'
        f'<figure id="w-board">{p["board"]}</figure>'
        f'<div class="log" id="w-log">{p["log"]}</div>'
        f"<footer>{escape(note)}</footer></main></body></html>"
    )


def state(shown: Shown, version: int) -> str:
    """What the live page shows changes with: the game's version and who its open window still waits for."""
    return f"{version}:{','.join(map(str, shown.waiting or []))}"


def data(shown: Shown, version: int) -> dict:
    """The JSON of ``…/data.json``: the parts to swap in, and where the page stands."""
    return {
        "version": version,
        "state": state(shown, version),
        "over": shown.over,
        "live": shown.live,
        "step": shown.step,
        "steps": len(shown.frames),
        "where": translator(shown.lang).gettext("Step {n} of {m}").format(n=shown.step + 1, m=len(shown.frames))
        + " · "
        + label(shown),
        "parts": parts(shown),
    }
