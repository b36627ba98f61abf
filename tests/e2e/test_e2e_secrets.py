"""Secrets stay secret, checked on everything the bot sends in bot-played games through the whole stack: 24 games
by default (`make test`), 200 in `make soak` (``ARTEMIA_AUDIT_GAMES``).

Webhook in (the real app, in process over ASGI), real Redis, the real pipeline jobs (resolution, deliveries,
status refreshes, the decision-message edits of button presses) run in this process, and the fake Bot API out:
`telegram_send.send` / `edit` hand their calls straight to the fake's handlers (same message store, same
"not modified" / "not found" answers) instead of going through python-telegram-bot and HTTP — that leg is what
the other end-to-end tests and test_telegram_sender cover, and skipping it keeps a game near a second. Every seat is a Telegram user whose move
is the engine's auto-play, pressed as a button (its callback data, exactly as the keyboard would carry it).

After each round (every game's asked seats press, then every queued job runs) each new outgoing message — texts
and button labels, new or edited, and the webhook's own replies — is checked against the state of its game:
    * no group, Creature or other Hunted message names a Survival card a Hunted holds, or shows a Hunted's hand
      ("Your hand: …" as the bot words it; cards a player took back in public may of course be named);
    * before the reveal (hunt and pre-reveal windows) no group, Creature or other Hunted message tells a Hunted's
      face-down pick ("You play: …", "Anna → …", the reveal itself);
    * no group or Hunted message names a Hunt card the Creature holds.
The game's watch page (``/w/<token>``, its HTML and its ``data.json``) and the words of the board picture /board
would send (the texts of its SVG, built by `boards.picture_of`, the function the webhook and the draw job use) are
checked against what the group must not be told — they show public information only — every `WATCH_EVERY`
rounds, staggered over the games (each round checks a share of them), and once more at the end of each game.
"""

import collections
import html
import os
import re
import time
import xml.etree.ElementTree as ET

import pytest
import redis
from rq import Queue
from starlette.testclient import TestClient

from service import wiring
from service.cardnames import name
from service.channels import ui
from service.channels.telegram import boards
from service.channels.telegram import sender as telegram_send
from service.channels.telegram.handling import Env
from service.channels.telegram.tables import Tables
from service.config import Settings, get_settings
from service.game import Game
from service.i18n import translator
from service.i18n.events import cards_text, line
from service.pipeline import context
from service.pipeline.botplay import bot_answer
from service.web import SECRET_HEADER, create_app
from tests.fake_bot_api import FakeBotAPI

pytestmark = pytest.mark.integration

# 24 games of 2-4 players meet every kind of secret the checks look for (hands, Survival and Hunt cards held,
# face-down picks before a reveal, carried earlier turns, watch pages and board pictures) many times over; the
# soak's 200 look for the rare combination.
GAMES = int(os.environ.get("ARTEMIA_AUDIT_GAMES", "24"))
SECRET = "audit_secret"
BOT_USERNAME = "artemia_audit_bot"
UNLIMITED = 1e9
WATCH_EVERY = 5


def direct(fake: FakeBotAPI, method: str):
    """``telegram_send.send`` / ``edit`` answered by the fake Bot API's handler, recorded like an HTTP call."""
    handler = getattr(fake, "_" + method)

    def call(chat_id, *args, **kwargs):
        if method == "sendMessage":
            text, buttons = args[0], (args[1] if len(args) > 1 else kwargs.get("buttons"))
            params = {"chat_id": chat_id, "text": text}
        else:
            message_id, text = args[0], args[1]
            buttons = args[2] if len(args) > 2 else kwargs.get("buttons")
            params = {"chat_id": chat_id, "message_id": message_id, "text": text}
        markup = telegram_send.markup(buttons)
        params["reply_markup"] = markup.to_dict() if markup else None
        code, result = handler(params)
        fake._record(method, params, code, {})
        data = buttons[0][0].get("data", "") if buttons and buttons[0] else ""
        if code == 200 and data.startswith("d:"):  # a question, sent new or edited into a turn message
            _, game_id, window = data.split(":")[:3]  # index the decision messages (a scan would be O(all))
            fake.decisions[str(chat_id), game_id, int(window)] = params.get("message_id") or result["message_id"]
        if code == 200:
            return telegram_send.Result("ok", message_id=result["message_id"])
        return telegram_send.Result(
            "not_modified"
            if "not modified" in result
            else "edit_target_missing"
            if "not found" in result
            else "failed",
            detail=result,
        )

    return call


@pytest.fixture
def stack(redis_url, monkeypatch):
    fake = FakeBotAPI()
    fake.decisions = {}
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", fake.token)
    get_settings.cache_clear()
    monkeypatch.setattr(telegram_send, "send", direct(fake, "sendMessage"))
    monkeypatch.setattr(telegram_send, "edit", direct(fake, "editMessageText"))
    connection = redis.Redis.from_url(redis_url)
    settings = Settings(
        sender="auto",
        telegram_bot_token=fake.token,
        bot_username=BOT_USERNAME,
        min_deadline_seconds=1,
        rate_global_per_second=UNLIMITED,
        rate_private_per_second=UNLIMITED,
        rate_group_per_minute=UNLIMITED,
        inbound_telegram_burst=1_000_000,  # machine-speed players: the flood limit out of the way
        max_open_tables=1_000_000,
        may_hold_seconds=0,  # its players pass over a question ahead: no window waits a moment for one
        # the status as text: a picture's caption is that same text, and its drawing shows the public view only
        # (tests/test_board.py); drawing every state of 200 games would only slow the audit
        status_picture=False,
    )
    ctx = wiring.build(connection, settings)
    context.register(ctx)
    env = Env(ctx, Tables(connection), BOT_USERNAME)
    with TestClient(create_app(env, SECRET)) as client:
        yield fake, ctx, client
    get_settings.cache_clear()


def run_jobs(ctx) -> int:
    """Run every queued job in this process, in queue priority order (the work a worker would do)."""
    done = 0
    while True:
        found = Queue.dequeue_any(ctx.queues, None, connection=ctx.store.redis, serializer=ctx.queue.serializer)
        if found is None:
            return done
        job, _ = found
        job.perform()
        job.delete()
        done += 1


class Table:
    """One game: its group, its users, and who sits where once it has begun."""

    def __init__(self, n: int, players: int):
        self.group = -1_000_000_000 - n
        self.users = [
            {
                "id": 100_000 + n * 10 + k,
                "is_bot": False,
                "first_name": f"P{n}x{k}",
                "language_code": "cs" if (n + k) % 3 == 0 else "en",
            }
            for k in range(players)
        ]
        self.game_id = None
        self.seat_user: dict[int, dict] = {}
        self.done = False


class Audit:
    def __init__(self, fake, ctx, client):
        self.fake, self.ctx, self.client = fake, ctx, client
        self.update_ids = iter(range(1, 10**9))
        self.replies: list[tuple[str, dict]] = []  # (chat, reply body) of the webhook
        self.checked = collections.Counter()
        self.seen_calls = 0

    def post(self, update: dict) -> dict | None:
        response = self.client.post("/telegram/webhook", json=update, headers={SECRET_HEADER: SECRET})
        assert response.status_code == 200, response.text
        return response.json() if response.content else None

    def say(self, who: dict, chat: dict, text: str) -> dict | None:
        n = next(self.update_ids)
        body = self.post(
            {"update_id": n, "message": {"message_id": n, "date": 1, "chat": chat, "from": who, "text": text}}
        )
        if body:
            self.replies.append((str(chat["id"]), body))
        return body

    def open(self, table: Table) -> None:
        group = {"id": table.group, "type": "supergroup", "title": "audit"}
        lobby = self.say(table.users[0], group, f"/newgame@{BOT_USERNAME}")
        payload = lobby["reply_markup"]["inline_keyboard"][0][0]["url"].split("?start=")[1]
        for who in table.users:  # everyone presses Join, the creator too
            self.say(who, {"id": who["id"], "type": "private"}, f"/start {payload}")
        assert self.say(table.users[0], group, "/begin")["text"].startswith(("The game begins", "Hra začíná"))
        table.game_id = self.ctx.store.game_of_chat(str(table.group))
        meta = self.ctx.store.meta(table.game_id)
        by_id = {str(u["id"]): u for u in table.users}
        table.seat_user = {int(s): by_id[p["user"]] for s, p in meta["players"].items() if p.get("user")}

    def answer(self, table: Table) -> None:
        """Every asked seat that has not answered presses the button of its auto-play answer."""
        store = self.ctx.store
        snap = store.load(table.game_id)
        if snap.status == "over":
            table.done = True
            return
        if snap.status != "collecting":
            return
        game = Game.from_json(snap.json)
        for seat in sorted(store.expected(table.game_id) - set(store.answers(table.game_id))):
            stage, chosen = game.copy(), []
            for action in bot_answer(game, seat):
                chosen.append(stage.legal_actions(seat).index(action))
                stage.apply(seat, action)
            data = ui.Choice(table.game_id, snap.window, seat, tuple(chosen)).data()
            who = table.seat_user[seat]
            message_id = self.decision_message(who["id"], table.game_id, snap.window)
            n = next(self.update_ids)
            body = self.post(
                {
                    "update_id": n,
                    "callback_query": {
                        "id": f"q{n}",
                        "from": who,
                        "chat_instance": "a",
                        "data": data,
                        "message": {"message_id": message_id, "date": 1, "chat": {"id": who["id"], "type": "private"}},
                    },
                }
            )
            assert body and body.get("text"), body  # a complete answer: "✅ Locked in: …"
            self.replies.append((str(who["id"]), body))

    def decision_message(self, chat_id: int, game_id: str, window: int) -> int:
        found = self.fake.decisions.get((str(chat_id), game_id, window))
        assert found, f"no decision message for window {window} in chat {chat_id}"
        return found

    def new_outgoing(self) -> list[tuple[str, str]]:
        """(chat, text with button labels) of every call and reply since the last look."""
        out = []
        calls = self.fake.calls[self.seen_calls :]
        self.seen_calls += len(calls)
        for call in calls:
            params = call["params"]
            if call["method"] in ("sendMessage", "editMessageText") and call["ok"]:
                labels = [
                    b.get("text", "")
                    for row in (params.get("reply_markup") or {}).get("inline_keyboard", [])
                    for b in row
                ]
                out.append((str(params["chat_id"]), "\n".join([params.get("text", "")] + labels)))
            elif call["method"] == "answerCallbackQuery" and params.get("text"):
                out.append(("?", params["text"]))
        for chat, body in self.replies:
            labels = [
                b.get("text", "") for row in (body.get("reply_markup") or {}).get("inline_keyboard", []) for b in row
            ]
            out.append((chat, "\n".join([body.get("text", "")] + labels)))
        self.replies.clear()
        return out

    def watch_page(self, table: Table) -> str:
        """The text of the game's watch page as a reader sees it (markup entities decoded). Its JSON holds the
        same parts (checked here), so checking the page checks both."""
        token = self.ctx.store.meta(table.game_id)["watch"]
        page = self.client.get(f"/w/{token}")
        data = self.client.get(f"/w/{token}/data.json")
        assert page.status_code == data.status_code == 200
        assert all(part in page.text for part in data.json()["parts"].values())
        self.checked["watch pages"] += 1
        return html.unescape(page.text)

    def board_words(self, table: Table) -> str:
        """Every word the board picture of the game's state would show, one text element a line."""
        picture, caption = boards.picture_of(self.ctx, table.game_id)
        self.checked["board pictures"] += 1
        texts = ET.fromstring(picture.svg).iter("{http://www.w3.org/2000/svg}text")
        return "\n".join([caption, *("".join(t.itertext()) for t in texts)])


def _names(card) -> list[str]:
    return sorted({name(card, "en"), name(card, "cs")}, key=len, reverse=True)


def _mentions(text: str, words: list[str]) -> list[str]:
    """The words found in ``text`` as whole words (a list of cards only as a whole list)."""
    return [w for w in words if re.search(rf"(?<!\w)(?<!, ){re.escape(w)}(?![\w,])", text)]


# The whole of an earlier turn, carried on top of a turn message that went on into the next turn (the player was
# reading the chat): that seat's own events, already told it before. Its "You play: …" is its own earlier pick,
# which may read the same as another Hunted's face-down pick of this turn.
EARLIER_TURN = re.compile(r"\A(?:Turn \d+:|\d+\. kolo:)\n.*?(?=\n\n|\Z)", re.S)


def checked_parts(text: str, words: list[str], picks: set[str]) -> list[str]:
    """The forbidden ``words`` found in ``text``; in a carried earlier turn, the face-down ``picks`` aside."""
    carried = EARLIER_TURN.match(text)
    if carried is None:
        return _mentions(text, words)
    rest = text[carried.end() :]
    return _mentions(rest, words) + _mentions(carried.group(), [w for w in words if w not in picks])


def secrets_of(ctx, table: Table) -> dict:
    """What each chat of the game must not be told now: chat -> list of forbidden strings (the key "picks": the
    Hunted's face-down picks among them, as their own chats word them)."""
    snap = ctx.store.load(table.game_id)
    game = Game.from_json(snap.json)
    meta = ctx.store.meta(table.game_id)
    names = {int(s): p["name"] for s, p in meta["players"].items()}
    seats = list(range(len(meta["players"])))
    chat_of = {s: meta["players"][str(s)]["chat"] for s in seats}
    pre_reveal = game.window is not None and game.window["kind"] in ("hunt", "prereveal")
    forbidden = {str(table.group): [], **{chat_of[s]: [] for s in seats}, "picks": set()}
    hunt = [w for card in game.private_view(0)["hunt_cards"] for w in _names(card)]
    for chat in [str(table.group)] + [chat_of[s] for s in seats[1:]]:
        forbidden[chat] += hunt
    for h in seats[1:]:
        mine = game.private_view(h)
        words = [w for card in mine["survival"] + mine["drawn_to_choose"] for w in _names(card)]
        hand = sorted(mine["hand"])
        if hand != [1, 2, 3, 4, 5]:  # everyone starts with 1-5: that hand is no secret
            words += [
                translator(lang).gettext("Your hand: {cards}").format(cards=cards_text(hand, lang))
                for lang in ("en", "cs")
            ]
        if pre_reveal and mine["played"]:
            picks = [
                line({"type": "played", "cards": mine["played"], "visible_to": [h]}, names, lang)
                for lang in ("en", "cs")
            ]
            words += picks
            forbidden["picks"].update(picks)
            # the living status message shows earlier turns' reveals; this turn's must not appear yet
            words += [
                "🔦 " + translator(lang).gettext("Reveal of turn {n}!").format(n=game.turn) for lang in ("en", "cs")
            ]
        for chat in [str(table.group), chat_of[0]] + [chat_of[o] for o in seats[1:] if o != h]:
            forbidden[chat] += words
    for o in seats[1:]:  # a Hunted may see its own cards and pick, whoever else holds or picked the same
        own = game.private_view(o)
        allowed = {
            translator(lang).gettext("Your hand: {cards}").format(cards=cards_text(sorted(own["hand"]), lang))
            for lang in ("en", "cs")
        }
        allowed |= {w for card in own["survival"] + own["drawn_to_choose"] for w in _names(card)}
        allowed |= {
            line({"type": "played", "cards": own["played"], "visible_to": [o]}, names, lang) for lang in ("en", "cs")
        }
        forbidden[chat_of[o]] = [w for w in forbidden[chat_of[o]] if w not in allowed]
    return forbidden


@pytest.mark.slow(reason="a bot game a second through the webhook, the jobs and the checks; 200 in make soak")
def test_no_message_tells_anyone_a_secret_in_bot_games(stack):
    fake, ctx, client = stack
    audit = Audit(fake, ctx, client)
    started = time.monotonic()
    tables = [Table(n, players=2 + n % 3) for n in range(GAMES)]  # 2 to 4 players
    for table in tables:
        audit.open(table)
    run_jobs(ctx)
    chat_game = {}
    for table in tables:
        chat_game[str(table.group)] = table
        for u in table.users:
            chat_game[str(u["id"])] = table
    leaks, messages, rounds = [], 0, 0
    ended: set[Table] = set()  # games whose end has been checked on their watch page
    while not all(t.done for t in tables):
        rounds += 1
        assert rounds < 400, "the games do not end"
        for table in tables:
            if not table.done:
                audit.answer(table)
        run_jobs(ctx)
        watched = [
            t
            for n, t in enumerate(tables)
            if (t.done and t not in ended) or (not t.done and (n + rounds) % WATCH_EVERY == 0)
        ]
        ended.update(t for t in tables if t.done)
        outgoing = [(str(t.group), audit.watch_page(t)) for t in watched]
        outgoing += [(str(t.group), audit.board_words(t)) for t in watched] + audit.new_outgoing()
        forbidden = {}
        for chat, text in outgoing:
            messages += 1
            table = chat_game.get(chat)
            if table is None:
                continue  # a callback answer: checked with its webhook reply
            if table.game_id not in forbidden:
                forbidden[table.game_id] = secrets_of(ctx, table)
            told = forbidden[table.game_id]
            found = checked_parts(text, told.get(chat, []), told["picks"])
            if found:
                leaks.append((table.game_id, chat, found, text[:300]))
    elapsed = time.monotonic() - started
    over = [ctx.store.load(t.game_id).status for t in tables]
    print(
        f"\nsecrets audit: {len(tables)} games, {rounds} rounds, {messages} outgoing messages checked, "
        f"{len(fake.calls)} Bot API calls, {audit.checked['watch pages']} watch pages (HTML and JSON) and as many "
        f"board pictures' words, "
        f"{elapsed:.1f} s"
    )
    assert over.count("over") == GAMES
    assert not leaks, leaks[:5]
    assert messages > GAMES * 20
    assert ended == set(tables) and audit.checked["watch pages"] > GAMES * 2  # mid-game, and each game's end
    assert audit.checked["board pictures"] == audit.checked["watch pages"]
