"""/board: the webhook (in process, fakeredis) never draws; the draw queue's job draws and uploads the picture to the
fake Bot API over real HTTP; the next /board of the same picture is the webhook's own sendPhoto by file_id."""

import json

import fakeredis
from pipeline_support import answer_all, run_jobs
from rq.registry import ScheduledJobRegistry
from test_telegram_webhook import GROUP, USERS, begin, chat, env, private  # noqa: F401 - fixtures

from service import board
from service.channels.telegram import boards
from service.channels.telegram import sender as tg
from service.game import Game, new_game
from service.store import keys
from tests.telegram_support import api, server  # noqa: F401 - fixtures

PNG = b"\x89PNG\r\n\x1a\n"


def test_send_photo_uploads_once_then_sends_by_file_id(api):
    uploaded = tg.send_photo(-100500, PNG + b"picture", "Turn 1", thread_id=7)
    assert uploaded.ok and uploaded.file_id in api.uploads
    assert api.uploads[uploaded.file_id] == PNG + b"picture"  # the multipart upload arrived whole
    call = api.sent("sendPhoto")[0]["params"]
    assert (call["chat_id"], call["caption"], call["message_thread_id"]) == ("-100500", "Turn 1", "7")
    again = tg.send_photo(42, uploaded.file_id, "Turn 1")
    assert again.ok and again.file_id == uploaded.file_id and len(api.uploads) == 1
    assert api.messages["42", again.message_id]["photo"] == uploaded.file_id
    assert tg.send_photo(42, "no-such-file", "x").status == "failed"


def test_a_caption_over_1024_utf16_units_is_refused_like_telegram_does(api):
    assert tg.send_photo(42, PNG, "a" * 1024).ok
    assert tg.send_photo(42, PNG, "😀" * 513).status == "failed"  # 513 characters, 1026 UTF-16 units


def test_board_in_the_group_is_drawn_by_a_worker_once_then_sent_by_file_id(chat, env, api, drawings):
    game_id, meta = begin(chat, env)
    turn = Game.from_json(env.ctx.store.load(game_id).json).public_view()["turn"]
    assert chat.say(1, "/board") is None  # nothing drawn yet: a job will draw it
    assert chat.say(1, "/board") is None  # typed twice meanwhile: still one job
    assert drawings == [] and env.ctx.draw_queue.count == 1
    run_jobs(env.ctx)
    [sent] = api.sent("sendPhoto", GROUP["id"])
    assert len(drawings) == 1 and len(api.uploads) == 1
    file_id = next(iter(api.uploads))
    assert api.uploads[file_id].startswith(PNG)
    assert sent["params"]["caption"] == f"The board of game {meta['code']}, turn {turn}"
    assert env.ctx.store.redis.hget(keys.telegram_boards(game_id), boards.picture_of(env.ctx, game_id)[0].digest)

    again = chat.say(3, "/board")  # the same state: the webhook's reply is the photo by its file_id
    assert again == {
        "method": "sendPhoto",
        "chat_id": GROUP["id"],
        "photo": file_id,
        "caption": f"The board of game {meta['code']}, turn {turn}",
    }
    mine = chat.say(0, "/board", chat=private(0))  # a private chat's /board shows the group's picture
    assert mine["photo"] == file_id and mine["chat_id"] == USERS[0]["id"]
    assert len(drawings) == 1 and env.ctx.draw_queue.count == 0

    answer_all(env.ctx, game_id)  # the public state moves on: a new picture
    assert chat.say(1, "/board") is None and env.ctx.draw_queue.count == 1
    run_jobs(env.ctx)
    assert len(drawings) == 2 and len(api.uploads) == 2 and len(api.sent("sendPhoto", GROUP["id"])) == 2
    latest = boards.picture_of(env.ctx, game_id)[0].digest
    assert env.ctx.store.redis.hkeys(keys.telegram_boards(game_id)) == [latest.encode()]  # only the latest is kept


def test_the_caption_is_in_the_table_language_and_a_topic_gets_its_photo(chat, env, api):
    assert boards.caption("K7QX", {"turn": 3}, "cs") == "Herní plán hry K7QX, kolo 3"
    game_id, meta = begin(chat, env)
    chat.say(1, "/board")
    run_jobs(env.ctx)
    topic = boards.reply(env.ctx, game_id, f"{GROUP['id']}/9")
    assert (topic["chat_id"], topic["message_thread_id"]) == (GROUP["id"], 9)


def test_board_refusals(chat, env, api):
    assert chat.say(0, "/board", chat=private(0))["text"] == "You are in no game."
    assert "There is no" in chat.say(0, "/board")["text"]  # no table in the group
    chat.say(0, "/newgame@artemia_bot")
    assert chat.say(0, "/board")["text"] == "The game has not begun yet."


def test_board_in_private_names_the_game_when_the_player_has_several(chat, env, api):
    first, _ = begin(chat, env)
    chat.say(0, "/newgame 2", chat=private(0))  # and a game against a bot, in private
    [second] = {g for g in (g for g, _ in env.ctx.store.games_of_user(str(USERS[0]["id"]))) if g != first}
    said = chat.say(0, "/board", chat=private(0))["text"]
    assert "/board <code>" in said and first in said and second in said
    assert chat.say(0, f"/board {second.lower()}", chat=private(0)) is None  # named: queued for drawing
    assert env.ctx.draw_queue.count == 1


def test_a_board_waits_for_the_group_budget_and_goes_out_later(chat, env, api):
    """The draw job spends the chat's send budget like any message: a group out of budget gets its picture from a
    job scheduled for when the budget allows, and nothing is sent now."""
    game_id, _ = begin(chat, env)
    env.ctx.settings = env.ctx.settings.model_copy(update={"rate_group_per_minute": 1, "rate_group_burst": 3})
    group = str(GROUP["id"])
    rates = boards.outbox.budget({"group": True}, env.ctx.settings)
    while not env.ctx.store.take_send_token(group, env.ctx.clock(), *rates):
        pass  # the group's burst spent
    assert boards.send(env.ctx, game_id, group) == "later"
    assert api.sent("sendPhoto") == []
    [later] = ScheduledJobRegistry(queue=env.ctx.draw_queue).get_job_ids()
    assert later.startswith(f"board-{game_id}-{group}-")


# ---------------------------------------------------------------------------------------------- the status picture
STATUS_CHAT, SLOT = "-100600", "G1:s1"


def status_picture(game) -> dict:
    return board.payload("G1", game.public_view(), {0: "Zora", 1: "Anna", 2: "Petr"}, "en")


def test_the_status_picture_is_uploaded_once_then_only_its_caption_or_picture_is_edited(api, drawings):
    """The group's status as a photo (`TelegramSender._photo`): sent with its caption; a version showing the same
    picture edits the caption only; a new picture replaces the old in place (editMessageMedia, uploaded once, then
    by file_id); the closing version (no picture) edits the caption of the photo it keeps."""
    connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    out = tg.TelegramSender(connection)
    game = new_game({"players": 3, "seed": 5, "side": 1, "expert": False})
    first = status_picture(game)
    out.send(
        STATUS_CHAT, "Turn 1: Anna ⏳", [[{"text": "👁 Watch", "url": "https://x.test/w/1"}]], slot=SLOT, picture=first
    )
    [photo] = api.sent("sendPhoto", STATUS_CHAT)
    assert photo["params"]["caption"] == "Turn 1: Anna ⏳" and photo["params"]["reply_markup"]["inline_keyboard"]
    message_id = int(connection.hget(tg.slots_key(SLOT), f"{STATUS_CHAT}|{SLOT}"))
    out.send(STATUS_CHAT, "Turn 1: Anna ✅", None, slot=SLOT, picture=status_picture(game))  # the same picture
    assert [c["params"]["caption"] for c in api.sent("editMessageCaption", STATUS_CHAT)] == ["Turn 1: Anna ✅"]
    assert len(drawings) == 1 and len(api.uploads) == 1

    while board.picture(status_picture(game)).digest == board.picture(first).digest:  # another picture
        seat = game.waiting_for()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    out.send(STATUS_CHAT, "Turn 1: revealed", None, slot=SLOT, picture=status_picture(game))
    [media] = api.sent("editMessageMedia", STATUS_CHAT)
    assert int(media["params"]["message_id"]) == message_id and len(api.uploads) == 2 and len(drawings) == 2
    assert api.messages[STATUS_CHAT, message_id]["caption"] == "Turn 1: revealed"
    out.send(STATUS_CHAT, "Turn 1: closed", None, slot=SLOT)  # the closing version keeps the picture
    assert api.messages[STATUS_CHAT, message_id]["caption"] == "Turn 1: closed"
    assert api.messages[STATUS_CHAT, message_id]["photo"] == media_file(api, media)
    out.send(
        STATUS_CHAT, "Turn 2", None, slot="G1:s2", picture=status_picture(game)
    )  # a new status, a picture Telegram has
    assert len(api.uploads) == 2 and len(drawings) == 2 and len(api.sent("sendPhoto", STATUS_CHAT)) == 2
    assert api.sent("sendMessage") == [] and api.sent("editMessageText") == []


def test_a_picture_prepared_before_its_send_token_is_drawn_there_once_and_not_when_already_shown(api, drawings):
    """`TelegramSender.prepare`, called by the outbox before a send takes its token: the picture the send will
    upload is drawn there, so the send draws nothing after its token; a picture the message shows already (a
    caption edit follows) or that Telegram has is not drawn."""
    connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    out = tg.TelegramSender(connection)
    game = new_game({"players": 3, "seed": 5, "side": 1, "expert": False})
    out.prepare(STATUS_CHAT, status_picture(game), SLOT)
    assert len(drawings) == 1 and api.sent("sendPhoto") == []
    out.send(STATUS_CHAT, "Turn 1: Anna ⏳", None, slot=SLOT, picture=status_picture(game))
    assert len(drawings) == 1 and len(api.uploads) == 1
    out.prepare(STATUS_CHAT, status_picture(game), SLOT)  # the message shows it: its caption will be edited
    out.prepare(STATUS_CHAT, status_picture(game), "G1:s2")  # a new message of a picture Telegram has
    assert len(drawings) == 1


def test_a_closed_status_its_chat_never_saw_comes_as_a_photo_and_one_it_saw_keeps_its_picture(api):
    """A closing version carries the board for the case its chat never saw the message (``if_new``: every version
    before was replaced on a busy lane): then it is a photo of its own, not a text among the photos (a flaky
    end-to-end game found it once turns stopped twice); a message the chat shows keeps its picture, caption only."""
    connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    out = tg.TelegramSender(connection)
    game = new_game({"players": 3, "seed": 5, "side": 1, "expert": False})
    closing = {**status_picture(game), "if_new": True}
    out.send(STATUS_CHAT, "Turn 1: closed", None, slot="G1:s7", picture=closing)  # never sent before
    [photo] = api.sent("sendPhoto", STATUS_CHAT)
    assert photo["params"]["caption"] == "Turn 1: closed" and api.sent("sendMessage") == []
    shown = status_picture(game)
    out.send(STATUS_CHAT, "Turn 2: Anna ⏳", None, slot=SLOT, picture=shown)
    while board.picture(status_picture(game)).digest == board.picture(shown).digest:  # the board moves on
        seat = game.waiting_for()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    out.send(STATUS_CHAT, "Turn 2: closed", None, slot=SLOT, picture={**status_picture(game), "if_new": True})
    assert [c["params"]["caption"] for c in api.sent("editMessageCaption", STATUS_CHAT)] == ["Turn 2: closed"]
    assert api.sent("editMessageMedia") == [] and len(api.sent("sendPhoto", STATUS_CHAT)) == 2


def media_file(api, call) -> str:
    return next(iter(f for f in api.uploads if api.uploads[f] == call["params"][call_part(call)].data))


def call_part(call) -> str:
    return json.loads(call["params"]["media"])["media"].removeprefix("attach://")


def test_a_text_status_becomes_a_picture_and_a_long_status_gives_way_from_its_oldest_lines(api):
    """A status message sent as text before (the setting was off) turns into the photo in place; a caption over
    Telegram's 1024 UTF-16 units loses its oldest news lines first, "…" standing for them."""
    connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    out = tg.TelegramSender(connection)
    game = new_game({"players": 3, "seed": 5, "side": 1, "expert": False})
    out.send(STATUS_CHAT, "Turn 1", None, slot=SLOT)
    [text] = api.sent("sendMessage", STATUS_CHAT)
    news = [f"Anna plays card number {n} 🃏" for n in range(60)]
    out.send(STATUS_CHAT, "\n".join([*news, "", "Turn 1: Anna ⏳"]), None, slot=SLOT, picture=status_picture(game))
    [media] = api.sent("editMessageMedia", STATUS_CHAT)
    caption = api.messages[STATUS_CHAT, text["params"] and int(media["params"]["message_id"])]["caption"]
    assert caption.startswith("…\n") and caption.endswith("Turn 1: Anna ⏳") and news[-1] in caption
    assert news[0] not in caption and len(caption.encode("utf-16-le")) // 2 <= tg.CAPTION_LIMIT
    assert tg.caption_of("x" * 2000).endswith("…") and len(tg.caption_of("x" * 2000)) == tg.CAPTION_LIMIT


def test_a_group_that_refuses_photos_gets_its_status_as_text_from_then_on(api):
    """A group whose members may send no photos refuses sendPhoto: the status goes as text at once, and the
    game's later statuses there are text (no photo tried again), edited in place."""
    connection = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    out = tg.TelegramSender(connection)
    game = new_game({"players": 3, "seed": 5, "side": 1, "expert": False})
    api.fail("no_photo_rights", times=None, method="sendPhoto")
    out.send(STATUS_CHAT, "Turn 1: Anna ⏳", None, slot=SLOT, picture=status_picture(game))
    [text] = api.sent("sendMessage", STATUS_CHAT)
    assert text["params"]["text"] == "Turn 1: Anna ⏳"
    out.send(STATUS_CHAT, "Turn 1: Anna ✅", None, slot=SLOT, picture=status_picture(game))
    out.send(STATUS_CHAT, "Turn 2", None, slot="G1:s2", picture=status_picture(game))
    assert [c["method"] for c in api.calls] == ["sendPhoto", "sendMessage", "editMessageText", "sendMessage"]
    message_id = int(connection.hget(tg.slots_key(SLOT), f"{STATUS_CHAT}|{SLOT}"))
    assert api.messages[STATUS_CHAT, message_id]["text"] == "Turn 1: Anna ✅"
