"""The Telegram adapter of the web process: one parsed update in -> stored changes + the reply.

``handle(update, env)`` returns the Bot API method to put in the webhook's HTTP reply (a dict such as
``{"method": "sendMessage", ...}`` or ``{"method": "answerCallbackQuery", ...}``), or None. It never calls
Telegram itself: a decision message that must change after a button press gets its next screen through the outbox
(`service.pipeline.screens`). Everything it stores is stored before it returns.

The tables are the shared lobby's (`service.pipeline.lobby`): a table opened here by /newgame has a join code that SMS
players text (``JOIN <code>``), and a Telegram user joins a table opened by SMS with ``/join <code>`` in private.
A Telegram player's address is ``tg:<user id>``; their private chat is where their secret choices go.

In a group (one table per group, or per forum topic): /newgame, /join, /leave (in a begun game: a bot plays the
seat from then on), /creature, /addbot [easy|normal|hard], /settings, /begin [anyway], /status, /board, /cancel, /reveal
(after the game, its creator shows the hidden choices on the watch page), /help, /rules [card], and for long games
(`service.channels.longplay`) /pause [days|until], /resume, /history, /handover, /replace <name|seat>, /away, /back,
/stats. In private: /start (the Join deep link ``j<code>`` and a stand-in's ``s<token>`` land here), /newgame
[hunted|creature] [2-7] [easy|normal|hard] (a game against bots, begun at once), /join <code>, /standin <token>,
/language, /status, /board [code], /help, /rules, /away <until>, /back, /stats [off|on], /forgetme,
/handover [code], typed game commands (prefixed with the game's code when the player is asked in several games)
and the decision buttons. Bad input — a stranger's button, forged data, a command in the wrong chat, /begin by
someone else — gets a short answer and changes nothing. Each user has an inbound token bucket
(`service.pipeline.floods`: private messages, group commands and button presses count; table talk does not): past a
burst one "slow down" answer, then silence until it refills.
"""

from collections.abc import Callable, Sequence
from typing import cast

from service import cardtexts, commands, i18n
from service.cardnames import fold, name, spellings
from service.channels import longplay, plain, ui
from service.channels.telegram import boards
from service.channels.telegram.budget import within_budget
from service.channels.telegram.tables import Admitted, Tables, place_of
from service.channels.telegram.update import CallbackQuery, Message, SentMessage, Update
from service.config import DEADLINE_PRESETS, deadline_seconds
from service.game import Game
from service.game.cards import CARDS
from service.i18n import N_
from service.i18n.events import duration
from service.pipeline import absence, cancelling, floods, ingest, news, screens, standins, watch
from service.pipeline.botplay import vanished_answer
from service.pipeline.context import Context
from service.pipeline.lobby import (
    DEFAULT_BOT_LEVEL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Lobby,
    LobbyError,
    Player,
    Table,
    looks_like_code,
    telegram_address,
)
from service.store import Snapshot
from service.store.games import read_with_meta, with_meta

ANSWERED = (ingest.Status.ACCEPTED, ingest.Status.RESOLVE)
Loaded = tuple[Snapshot | None, dict]  # a game's snapshot and meta (`Store.load_with_meta`)


class Env:
    """What handling an update needs: the pipeline context, the Telegram-only state, the bot's username, the
    shared lobby (built on the context when not given) and the SMS number shown to SMS players (TWILIO_FROM when
    not given)."""

    def __init__(
        self, ctx: Context, tables: Tables, bot_username: str, lobby: Lobby | None = None, sms_number: str | None = None
    ):
        self.ctx = ctx
        self.tables = tables
        self.bot_username = bot_username
        self.lobby: Lobby = lobby or Lobby(ctx)
        self.sms_number: str = ctx.settings.twilio_from if sms_number is None else sms_number


class Refused(Exception):
    """A request that changes nothing; the message (already translated) is the reply."""


def reply(message: Message, text: str, keyboard: list | None = None) -> dict:
    body = {"method": "sendMessage", "chat_id": message.chat.id, "text": text}
    if message.message_thread_id and message.chat.is_forum:
        body["message_thread_id"] = message.message_thread_id
    if keyboard:
        body["reply_markup"] = {"inline_keyboard": [[_button(b) for b in row] for row in keyboard]}
    return body


def _button(button: dict) -> dict:
    return {
        "text": button["text"],
        **({"url": button["url"]} if "url" in button else {"callback_data": button["data"]}),
    }


def answer_query(query: CallbackQuery, text: str | None = None) -> dict:
    body = {"method": "answerCallbackQuery", "callback_query_id": query.id}
    if text:
        body["text"] = text[:200]
    return body


def _flooded(env: Env, user, lang: str) -> tuple[bool, str | None]:
    """(whether the user's update is over the bucket, the answer then: the "slow down" text once, else None)."""
    admission = floods.admit(env.ctx, "telegram", telegram_address(user.id))
    if admission is floods.Admission.READ:
        return False, None
    if admission is floods.Admission.SILENT:
        return True, None
    return True, _slow_down(lang)


def _slow_down(lang: str) -> str:
    return _t(lang, "Too many messages at once: wait a minute. Until then I do not read them.")


def handle(update: Update, env: Env) -> dict | None:
    """The reply to ``update``, once everything it changes is stored, within its chat's send budget
    (`budget.within_budget`). An update is handled once: one handled already (`Tables.seen`) gets None and changes
    nothing; one handled is marked so only then (an error leaves it unmarked, and Telegram's retry handles it
    again: the handlers are idempotent)."""
    if update.callback_query:
        return press(update.update_id, update.callback_query, env)
    message = _readable(update.message)
    if message is not None and message.chat.type == "private" and update.my_chat_member is None:
        return within_budget(env.ctx, private_message(update.update_id, message, env))
    if env.tables.seen(update.update_id):
        return None
    answer = within_budget(env.ctx, _handle(update, message, env))
    env.tables.mark_seen(update.update_id)
    return answer


def _admit(update_id: int, user, env: Env, reads=None) -> tuple[Admitted, str]:
    """`Tables.admit` for an update of ``user`` in private -> (what it found, the user's language)."""
    bucket = floods.bucket(env.ctx, "telegram", telegram_address(user.id))
    admitted = env.tables.admit(update_id, user.id, bucket, reads)
    return admitted, i18n.choose(admitted.lang, None, user.language_code)


def press(update_id: int, query: CallbackQuery, env: Env) -> dict | None:
    """A button press. Its first round trip (`Tables.admit`) notes that a private chat with the user exists, reads
    their language, counts it on their inbound bucket and reads the game its button names (read in vain for a
    flooded press, which then changes nothing) when that game's keys are on the same Redis as the user's (on a
    game shard of its own, `on_button` reads it: a round trip more).
    A press is not marked as handled (a round trip and a key less per press): everything it does is idempotent —
    an answer is stored once per query id (the window's dedup set), a screen written once per query id
    (`screens.show`), the rest only replies — so Telegram's redelivery of a press whose reply was lost gets that
    reply again and changes nothing."""
    named = ui.game_named(query.data)
    game_id = named if named is not None and env.ctx.store.at(named) is env.tables.redis else None  # read with it
    reads = (lambda pipe: read_with_meta(pipe, game_id)) if game_id else None
    admitted, lang = _admit(update_id, query.sender, env, reads)
    return _answer_admitted(
        update_id,
        admitted,
        env,
        read=lambda: on_button(query, lang, env, with_meta(game_id, list(admitted.reads)) if game_id else None),
        slow_down=lambda: answer_query(query, _slow_down(lang)),
        mark=False,
    )


def private_message(update_id: int, message: SentMessage, env: Env) -> dict | None:
    """A person's text in private. Its first round trip (`Tables.admit`) checks that it is new, notes that a private
    chat with them exists (they wrote to the bot: it may write to them now), reads their language and counts it on
    their inbound bucket."""
    admitted, lang = _admit(update_id, message.sender, env)

    def read() -> dict | None:
        command, args = _command(message.text or "", env.bot_username)
        try:
            return on_private(message, command, args, lang, env)
        except Refused as refusal:
            return reply(message, str(refusal))

    return _answer_admitted(update_id, admitted, env, read, slow_down=lambda: reply(message, _slow_down(lang)))


def _answer_admitted(
    update_id: int,
    admitted: Admitted,
    env: Env,
    read: Callable[[], dict | None],
    slow_down: Callable[[], dict],
    mark: bool = True,
) -> dict | None:
    """What an update gets after `_admit`: nothing when it was seen before; else its answer when it is read, a
    "slow down" when its sender floods, nothing when it is dropped — and it is marked seen (``mark``)."""
    if admitted.seen:
        return None
    if admitted.verdict is floods.Admission.READ:
        answer = read()
    elif admitted.verdict is floods.Admission.SLOW_DOWN:
        answer = slow_down()
    else:
        answer = None
    if mark:
        env.tables.mark_seen(update_id)
    return answer


def _readable(message: Message | None) -> SentMessage | None:
    """A message with text from a person, or None (none, no sender: parsed as a `Message`, a bot's, a group's move
    to a supergroup: the sender follows it when it next writes there, `telegram_send`)."""
    if not isinstance(message, SentMessage) or message.sender.is_bot or message.migrate_to_chat_id:
        return None
    return message if message.text else None


def _handle(update: Update, message: SentMessage | None, env: Env) -> dict | None:
    """A private chat's member update, or a message in a group (``message``: `_readable`'s)."""
    if update.my_chat_member and update.my_chat_member.chat.type == "private":
        env.tables.set_blocked(update.my_chat_member.sender.id, update.my_chat_member.blocked)
        if not update.my_chat_member.blocked:
            env.tables.set_started(update.my_chat_member.sender.id)
        return None
    if message is None or message.chat.type == "private":  # a private message: `private_message`
        return None
    command, args = _command(message.text or "", env.bot_username)
    if command is None:
        return None  # table talk
    lang = _lang(env, message)
    flooded, said = _flooded(env, message.sender, lang)
    if flooded:
        return reply(message, said) if said else None
    try:
        handler = GROUP_COMMANDS.get(command)
        if handler is None:
            return reply(
                message,
                _t(
                    lang,
                    "In the group I know: /newgame /join /leave /creature /addbot /settings /begin "
                    "/status /board /cancel /reveal /help /rules /pause /resume /away /back /stats /history /handover "
                    "/replace. Moves are made in private chat.",
                ),
            )
        return handler(message, args, lang, env)
    except Refused as refusal:
        return reply(message, str(refusal))


def _t(lang: str, text: str) -> str:
    return i18n.translator(lang).gettext(text)


def _command(text: str, bot_username: str) -> tuple[str | None, list[str]]:
    """("/join@artemia_bot x" -> ("join", ["x"])); None for plain text or a command to another bot."""
    words = text.split()
    if not words or not words[0].startswith("/"):
        return None, words
    command, _, addressee = words[0][1:].partition("@")
    if addressee and addressee.lower() != bot_username.lower():
        return None, []
    return command.lower(), words[1:]


def _lang(env: Env, message: SentMessage) -> str:
    """The language to answer a group message in: its table's, else the sender's Telegram language."""
    table = env.lobby.at(_place(message))
    return i18n.choose(None, table.lang if table else None, message.sender.language_code)


def _place(message: Message) -> str:
    return place_of(message.chat.id, message.topic if message.chat.is_forum else None)


def _player(user) -> Player:
    return Player(
        telegram_address(user.id),
        user.first_name or str(user.id),
        i18n.from_telegram(user.language_code),
        chat=str(user.id),
        user=str(user.id),
    )


def refusal(reason: str, lang: str) -> str:
    """A lobby refusal (`service.pipeline.lobby.LobbyError`) in words."""
    _ = i18n.translator(lang).gettext
    return {
        "unknown": _("There is no game with that code: check it."),
        "begun": _("The game has already begun."),
        "full": _("The table is full (7 players)."),
        "already": _("You are already in this game."),
        "not_in": _("You are not in this game."),
        "not_creator": _("Only the player who opened this game may do that."),
        "too_few": _("A game needs 2 to 7 players."),
        "place_taken": _("There is already a game here: /status shows it; its creator may /cancel it."),
        "too_many": _("You have too many games waiting to begin: /begin or /cancel one first."),
        "bad_level": _("Bots play at easy, normal or hard: /addbot hard, say."),
        "bad_setting": _(
            "Usage: /settings deadline live|fast|daily|<seconds> · expert on|off · secrecy strict|fast · "
            "lang cs|en · tz <Area/City>|default (e.g. tz Europe/London)"
        ),
    }[reason]


def _lobby_call(lang: str, call, *args):
    """Run a lobby change; a refusal becomes the polite reply (nothing was stored)."""
    try:
        return call(*args)
    except LobbyError as exc:
        raise Refused(refusal(exc.reason, lang)) from exc


def _table(message: Message, env: Env, lang: str) -> Table:
    table = env.lobby.at(_place(message))
    if table is None:
        raise Refused(_t(lang, "There is no game here. /newgame opens one."))
    return table


def _lobby(message: Message, env: Env, lang: str) -> Table:
    table = _table(message, env, lang)
    if table.game:
        raise Refused(_t(lang, "The game has already begun."))
    return table


def join_link(env: Env, table: Table) -> str:
    return f"https://t.me/{env.bot_username}?start=j{table.code}"


# what each deadline preset is for (its name is the /settings keyword; its length is `DEADLINE_PRESETS`)
PRESET_MEANING = {
    "live": N_("live: everyone plays now, together"),
    "fast": N_("fast: a game in an evening"),
    "daily": N_("daily: one step a day, at your own pace"),
}


def deadline_text(deadline: str, lang: str, minimum: int = 0) -> str:
    """The table's deadline with its units and what it means: "daily: one step a day… (24 h per step)"."""
    _ = i18n.translator(lang).gettext
    per_step = _("{time} per step").format(time=duration(deadline_seconds(deadline, minimum), lang))
    if deadline in DEADLINE_PRESETS:
        return f"{_(PRESET_MEANING[deadline])} ({per_step})"
    return per_step


def lobby_text(table: Table, lang: str, sms_number: str = "", waiting: Sequence[Player] = ()) -> str:
    """The table as the group sees it; ``waiting``: the players the bot cannot write to in private yet."""
    _ = i18n.translator(lang).gettext
    names = ", ".join(
        [p.name + (" 👹" if p.address == table.creature else "") for p in table.players]
        + [_("bot ({level})").format(level=_(plain.BOT_LEVEL_WORDS[level])) for level in table.bots]
    )
    join = _("Join code: {code}. In a private chat with me: /join {code}.").format(code=table.code)
    if sms_number:  # the SMS line only where SMS is configured
        join += " " + _("By SMS: text JOIN {code} to {number}.").format(code=table.code, number=sms_number)
    return "\n".join(
        [
            _("A game of Not Alone is open here."),
            _("Players ({n}/{max}): {names}").format(n=table.seated, max=table.capacity, names=names),
            _("Deadline: {deadline}").format(deadline=deadline_text(table.deadline, lang)),
            _("Expert variant: {expert} · Secrecy: {secrecy} · Language: {lang} · Time zone: {tz}").format(
                expert=_("yes") if table.expert else _("no"),
                secrecy=_(plain.SECRECY_WORDS[table.secrecy]),
                lang=table.lang,
                tz=ui.zone(table.lang, table.tz),
            ),
            _(
                "Press Join (it opens a private chat with me, where your secret choices happen). "
                "The creator starts with /begin."
            ),
            join,
        ]
        + (
            [
                _("I cannot write to {names} in private yet: press Join.").format(
                    names=", ".join(p.name for p in waiting)
                )
            ]
            if waiting
            else []
        )
    )


def unreachable_players(table: Table, env: Env) -> list[Player]:
    """The table's Telegram players the bot may not write to first: they never started it (or blocked it)."""
    return [p for p in table.players if p.channel == "tg" and not env.tables.reachable(p.user or p.address[3:])]


def _lobby_reply(message: Message, table: Table, env: Env, lang: str, news: str = "") -> dict:
    text = (news + "\n\n" if news else "") + lobby_text(table, lang, env.sms_number, unreachable_players(table, env))
    return reply(message, text, [[{"text": _t(lang, "Join"), "url": join_link(env, table)}]])


def _press_join(message: SentMessage, env: Env, lang: str) -> str:
    """The line that asks the sender to press Join, when the bot cannot write to them in private yet."""
    if env.tables.reachable(message.sender.id):
        return ""
    return _t(
        lang,
        "{name}, press Join too: it opens our private chat, where your secret choices come. Until then I "
        "cannot write to you.",
    ).format(name=message.sender.first_name)


def began_text(started, lang: str) -> str:
    if started.creature is None:
        return _t(lang, "The game begins! A bot is the Creature. Check your private chat with me for your choices.")
    return _t(
        lang, "The game begins! {creature} is the Creature. Check your private chat with me for your choices."
    ).format(creature=started.creature.name)


# ---------------------------------------------------------------------------------------------- group


def cmd_newgame(message, args, lang, env):
    table = _lobby_call(lang, env.lobby.open, _player(message.sender), lang, _place(message))
    return _lobby_reply(message, table, env, lang, _press_join(message, env, lang))


def cmd_join(message, args, lang, env):
    table = _lobby(message, env, lang)
    try:
        table, started = env.lobby.join(table.code, _player(message.sender))
    except LobbyError as exc:
        if exc.reason != "already":
            raise Refused(refusal(exc.reason, lang)) from exc
        return _lobby_reply(message, exc.table, env, lang)
    if started:
        return reply(message, began_text(started, lang))
    news = _t(lang, "{name} joins.").format(name=message.sender.first_name)
    return _lobby_reply(message, table, env, lang, " ".join(filter(None, [news, _press_join(message, env, lang)])))


def cmd_leave(message, args, lang, env):
    table = _table(message, env, lang)
    if table.game:  # a game that has begun: the bot plays the seat from now on, and the game goes on
        return reply(message, longplay.leave(env.ctx, table.game, str(message.sender.id), lang))
    table = _lobby_call(lang, env.lobby.leave, table.code, telegram_address(message.sender.id))
    if table is None:
        return reply(message, _t(lang, "Everyone left: the game is closed."))
    return _lobby_reply(message, table, env, lang, _t(lang, "{name} leaves.").format(name=message.sender.first_name))


def cmd_addbot(message, args, lang, env):
    """A player at the table adds a bot (``/addbot [easy|normal|hard]``, normal when not said)."""
    table = _lobby(message, env, lang)
    level = args[0].lower() if args else DEFAULT_BOT_LEVEL
    table, started = _lobby_call(lang, env.lobby.add_bot, table.code, telegram_address(message.sender.id), level)
    if started:  # the bot filled a table of a set size: it has begun
        return reply(message, began_text(started, lang))
    news = _t(lang, "{name} adds a bot ({level}).").format(
        name=message.sender.first_name, level=_t(lang, plain.BOT_LEVEL_WORDS[level])
    )
    return _lobby_reply(message, table, env, lang, news)


def cmd_creature(message, args, lang, env):
    table = _lobby(message, env, lang)
    try:
        table = env.lobby.volunteer(table.code, telegram_address(message.sender.id))
    except LobbyError as exc:
        if exc.reason == "not_in":
            raise Refused(_t(lang, "Join first (/join), then volunteer.")) from exc
        raise Refused(refusal(exc.reason, lang)) from exc
    return _lobby_reply(
        message, table, env, lang, _t(lang, "{name} will be the Creature.").format(name=message.sender.first_name)
    )


def cmd_settings(message, args, lang, env):
    table = _lobby(message, env, lang)
    if not args:
        return reply(
            message,
            lobby_text(table, lang, env.sms_number)
            + "\n"
            + _t(
                lang,
                "Change: /settings deadline live|fast|daily|<seconds> · expert on|off · secrecy strict|fast · "
                "lang cs|en · tz <Area/City>|default",
            ),
        )
    key, value = (args + [""])[:2]
    table = _lobby_call(lang, env.lobby.configure, table.code, telegram_address(message.sender.id), key, value)
    return _lobby_reply(message, table, env, table.lang)


def cmd_begin(message, args, lang, env):
    """Start the game, unless the bot cannot write to some players yet: it names them and waits, or with
    ``/begin anyway`` starts and gives their seats to a bot until they press the link it posts."""
    table = _lobby(message, env, lang)
    if telegram_address(message.sender.id) != table.creator:
        raise Refused(refusal("not_creator", lang))
    if not MIN_PLAYERS <= max(table.size or 0, table.seated) <= MAX_PLAYERS:
        raise Refused(refusal("too_few", lang))
    waiting = unreachable_players(table, env)
    anyway = [word.lower() for word in args[:1]] == ["anyway"]
    if waiting and not anyway:
        raise Refused(
            _t(
                lang,
                "I cannot write to {names} in private yet, so I cannot ask them their secret choices: each of "
                "them must press Join (it opens our private chat). Then /begin again — or /begin anyway starts "
                "now, and a bot plays their seats until they press Join.",
            ).format(names=", ".join(p.name for p in waiting))
        )
    users = [int(player.user or player.address[3:]) for player in waiting]
    users = [user for user in users if not env.tables.blocked(user)]  # a refusal unblocks only these again
    for user in users:  # before the start writes its first messages: nothing is sent to them (Readers.unreachable)
        env.tables.set_blocked(user, True)
    try:
        started = _lobby_call(lang, env.lobby.begin, table.code, telegram_address(message.sender.id))
    except Refused:
        for user in users:
            env.tables.set_blocked(user, False)
        raise
    if not waiting:
        return reply(message, began_text(started, lang))
    for player in waiting:  # a bot answers for them meanwhile
        _bot_takes(env, started.table.code, started.seats[player.address])
    text = "\n\n".join(
        [
            began_text(started, lang),
            _t(
                lang,
                "{names}: I cannot write to you yet, so a bot plays your seat for now. Press the button to take it "
                "back; my questions then come to our private chat.",
            ).format(names=", ".join(p.name for p in waiting)),
        ]
    )
    return reply(message, text, [[{"text": _t(lang, "Take my seat"), "url": join_link(env, started.table)}]])


def _bot_takes(env: Env, game_id: str, seat: int) -> None:
    """A bot plays ``seat`` from now on, the question already open included (the first one may be the
    Creature's: the game must not wait a whole deadline for a player who cannot be asked)."""
    store, bot_after = env.ctx.store, env.ctx.settings.autoplay_bot_after
    snap = store.load(game_id)
    if snap is not None and snap.status == "collecting" and seat in store.expected(game_id):
        answer = vanished_answer(env.ctx, Game.from_json(snap.json), seat)
        ingest.submit(env.ctx, game_id, seat, answer, snap.current_window, f"anyway{seat}", snap)
    store.set_streak(game_id, seat, bot_after)  # after the answer: an answer ends a streak


def cmd_status(message, args, lang, env):
    table = _table(message, env, lang)
    if not table.game:
        return _lobby_reply(message, table, env, lang)
    return reply(message, game_status(env, table.game, lang))


def game_status(env: Env, game_id: str, lang: str) -> str:
    store = env.ctx.store
    snap, meta = store.load(game_id), store.meta(game_id)
    if snap is None:
        return _t(lang, "There is no such game.")
    game = Game.from_json(snap.json)
    names = seat_names(meta)
    answered = set(store.answers(game_id))
    asked = plain.shown(game, sorted(store.expected(game_id))) if snap.status == "collecting" else []
    bot_after, pure_bots = env.ctx.settings.autoplay_bot_after, set(meta.get("bots", []))
    away = absence.away_seats(env.ctx, game_id)  # the bot plays their seats too, until they answer
    taken = ({s for s, n in store.streaks(game_id).items() if n >= bot_after} | set(away)) - pure_bots
    deadline = snap.deadline if asked or plain.cards_pending(game) else None
    shown = ui.status(game.public_view(), names, asked, answered, deadline, lang, bots=taken, **ui.clock_of(meta))
    return "\n".join([shown, *longplay.status_lines(env.ctx, game_id, meta, lang)])


def seat_names(meta: dict) -> dict[int, str]:
    return {int(seat): player["name"] for seat, player in meta.get("players", {}).items()}


def cmd_board(message, args, lang, env):
    """The board as a picture (`boards`): in the group its game's; in private the game named, or the player's only
    running game. The reply is the photo when Telegram has it; else a worker draws and sends it."""
    if message.chat.type != "private":
        game_id = cast(str, _running_table(message, env, lang).game)
    else:
        games = my_games(env, message.sender.id)
        if not games:
            raise Refused(_t(lang, "You are in no game."))
        running = [g for g in games if not _over(env, g)]
        named = [g for g in games if args and g == args[0].upper()]
        if len(named or running) != 1:
            raise Refused(_t(lang, "Name the game: /board <code> ({codes}).").format(codes=" ".join(running) or "-"))
        game_id = (named or running)[0]
    return boards.reply(env.ctx, game_id, _place(message))  # a forum topic's place names its topic


def cmd_cancel(message, args, lang, env):
    table = _table(message, env, lang)
    if telegram_address(message.sender.id) != table.creator:
        raise Refused(refusal("not_creator", lang))
    if table.game:  # a running game ends for everyone; SMS players are told by message, the group by this reply
        cancelling.cancel(env.ctx, table.game, by=message.sender.first_name, told_already=_place(message))
    env.lobby.close(table)
    return reply(message, _t(lang, "The game is cancelled. /newgame opens a new one."))


def cmd_reveal(message, args, lang, env):
    """After the game its creator may show each seat's hidden choices on the game's watch page: the table's game,
    or after the table was cancelled or a new one opened here, the newest finished game they opened here (``/reveal
    <code>`` names another)."""
    place, creator = _place(message), telegram_address(message.sender.id)
    table = env.lobby.at(place)
    if not args and table is not None and table.game and table.creator == creator and not _over(env, table.game):
        raise Refused(_t(lang, "Hidden choices can be shown only after the game is over."))
    game_id = env.lobby.finished_by(place, creator, args[0].upper() if args else None)
    if game_id is None:
        if table is not None and table.creator != creator:
            raise Refused(refusal("not_creator", lang))
        raise Refused(_t(lang, "You opened no finished game here whose hidden choices could be shown."))
    watch.show_hidden(env.ctx.store, game_id)
    link = watch.url(env.ctx.settings, env.ctx.store.meta(game_id))
    said = _t(lang, "The watch page now shows each player's hidden cards and picks too.")
    return reply(message, f"{said}\n{link}" if link else said)


def cmd_help(message, args, lang, env):
    return reply(message, help_text(lang))


def help_text(lang: str) -> str:
    return _help_table(lang) + "\n\n" + _help_bots(lang)


def _help_bots(lang: str) -> str:
    return _t(
        lang,
        "Too few friends? /addbot [easy|normal|hard] in the group gives a seat to a bot, and /newgame "
        "[hunted|creature] [2-7] [easy|normal|hard] here in private starts a game of you against bots at once.",
    )


def _help_table(lang: str) -> str:
    return _t(
        lang,
        "Not Alone by message. In the group: /newgame opens a table, players press Join, the creator "
        "sets /settings and starts with /begin. Secret choices come to your private chat with me as "
        "buttons; you may also type the commands shown there. The group sees one status message per "
        "turn, the reveal and the end; /board shows the board as a picture, in the group or here. "
        "/rules [card] explains the rules or a card. A game opened by "
        "SMS (or elsewhere) is joined here with /join <code>; SMS players join with JOIN <code>.",
    )


def cmd_rules(message, args, lang, env):
    if not args:
        return reply(
            message,
            _t(
                lang,
                "The Hunted win when the Rescue counter reaches its end; the Creature wins "
                "when the Assimilation counter does. Each turn the Hunted secretly pick "
                "places, the Creature places its tokens, then all is revealed. "
                "/rules <card> explains one card.",
            ),
        )
    wanted = fold("".join(args))
    for card_id, card in CARDS.items():
        key = card["number"] if card["kind"] == "place" else card_id
        if wanted in spellings(key):
            title = name(key, lang)
            if card.get("phase"):
                title += " · " + _t(lang, "phase {n}").format(n=card["phase"])
            return reply(message, f"{title}\n{cardtexts.text(key, lang)}")
    raise Refused(_t(lang, "I know no card of that name."))


# ------------------------------------------------------------------------------------ long games (both chats)


def cmd_away(message, args, lang, env):
    user = str(message.sender.id)
    tz = absence.zone_of_user(env.ctx, user, ui.zone(lang))  # the time zone of the player's table
    return reply(message, longplay.away(env.ctx, user, " ".join(args), lang, "/away", tz))


def cmd_back(message, args, lang, env):
    return reply(message, longplay.back(env.ctx, str(message.sender.id), lang))


def cmd_stats(message, args, lang, env):
    return reply(message, longplay.stats(env.ctx, str(message.sender.id), args, lang, "/stats"))


def cmd_forgetme(message, args, lang, env):
    return reply(message, longplay.forget(env.lobby, telegram_address(message.sender.id), lang))


def standin_link(env: Env, token: str) -> str:
    return f"https://t.me/{env.bot_username}?start=s{token}"


def _offer_reply(message: Message, token: str, lang: str, env: Env) -> dict:
    text = _t(
        lang,
        "Whoever takes the seat presses the button (or types /standin {token} to me in private). Until then the "
        "seat stays as it is.",
    ).format(token=token)
    return reply(message, text, [[{"text": _t(lang, "Take the seat"), "url": standin_link(env, token)}]])


def cmd_handover(message, args, lang, env):
    """A player offers their own seat: at this group's table, or (in private) in the game named or their only one."""
    user = str(message.sender.id)
    if message.chat.type != "private":
        game_id = cast(str, _running_table(message, env, lang).game)
    else:
        running = [g for g in my_games(env, message.sender.id) if not _over(env, g)]
        named = [g for g in running if args and g == args[0].upper()]
        if len(named or running) != 1:
            raise Refused(_t(lang, "Name the game: /handover <code> ({codes}).").format(codes=" ".join(running) or "-"))
        game_id = (named or running)[0]
    try:
        token, _seat = standins.offer_own(env.ctx, game_id, user)
    except standins.StandInError as error:
        raise Refused(longplay.standin_refusal(error, lang)) from error
    return _offer_reply(message, token, lang, env)


def cmd_replace(message, args, lang, env):
    """The creator offers the seat of a player who vanished: /replace <name or seat number>."""
    table = _running_table(message, env, lang)
    game_id = cast(str, table.game)
    seat = standins.find_seat(env.ctx.store.meta(game_id), " ".join(args))
    try:
        if seat is None:
            raise standins.StandInError("no_seat")
        token = standins.offer_vanished(env.ctx, game_id, seat, telegram_address(message.sender.id) == table.creator)
    except standins.StandInError as error:
        raise Refused(longplay.standin_refusal(error, lang)) from error
    return _offer_reply(message, token, lang, env)


def take_seat(message: SentMessage, token: str, lang: str, env: Env) -> dict:
    """A newcomer takes an offered seat: the recap of the seat, and its open question when it is asked now."""
    player = _player(message.sender)
    said, taken = longplay.take_seat(env.ctx, token, player.seat_entry(), lang)
    if taken is None:
        raise Refused(said)
    snap, meta = env.ctx.store.load_with_meta(taken.game_id)
    asked = (
        snap is not None
        and snap.status == "collecting"
        and taken.seat in env.ctx.store.expected(taken.game_id)
        and taken.seat not in env.ctx.store.answers(taken.game_id)
    )
    if not asked or snap is None:
        return reply(message, said)
    game = Game.from_json(snap.json)
    choice = ui.Choice(taken.game_id, snap.current_window, taken.seat)
    screen = ui.decision(game, taken.seat, choice, snap.deadline, lang, seat_names(meta), **ui.clock_of(meta))
    return reply(message, said + "\n\n" + screen.text, screen.keyboard)


def _over(env: Env, game_id: str) -> bool:
    snap = env.ctx.store.load(game_id)
    return snap is None or snap.status == "over"


def _running_table(message: Message, env: Env, lang: str) -> Table:
    table = _table(message, env, lang)
    if not table.game:
        raise Refused(_t(lang, "The game has not begun yet."))
    return table


def cmd_pause(message, args, lang, env):
    table = _running_table(message, env, lang)
    game_id = cast(str, table.game)
    seat = seat_of(env.ctx.store.meta(game_id), message.sender.id)
    creator = telegram_address(message.sender.id) == table.creator
    by = message.sender.first_name
    return reply(message, longplay.pause(env.ctx, game_id, seat, creator, " ".join(args), by, lang, "/pause"))


def cmd_resume(message, args, lang, env):
    table = _running_table(message, env, lang)
    creator = telegram_address(message.sender.id) == table.creator
    return reply(message, longplay.resume(env.ctx, cast(str, table.game), creator, lang))


def cmd_history(message, args, lang, env):
    table = env.lobby.at(_place(message))
    return reply(message, longplay.history(env.ctx, _place(message), lang, table.tz if table else None))


GROUP_COMMANDS = {
    "newgame": cmd_newgame,
    "join": cmd_join,
    "leave": cmd_leave,
    "creature": cmd_creature,
    "addbot": cmd_addbot,
    "settings": cmd_settings,
    "begin": cmd_begin,
    "status": cmd_status,
    "board": cmd_board,
    "cancel": cmd_cancel,
    "reveal": cmd_reveal,
    "help": cmd_help,
    "rules": cmd_rules,
    "start": cmd_help,
    "away": cmd_away,
    "back": cmd_back,
    "stats": cmd_stats,
    "pause": cmd_pause,
    "resume": cmd_resume,
    "history": cmd_history,
    "handover": cmd_handover,
    "replace": cmd_replace,
}
# in private: what acts on the player alone
PRIVATE_COMMANDS = {
    "away": cmd_away,
    "back": cmd_back,
    "stats": cmd_stats,
    "forgetme": cmd_forgetme,
    "handover": cmd_handover,
    "board": cmd_board,
}


# ---------------------------------------------------------------------------------------------- private


def on_private(message: SentMessage, command: str | None, args: list[str], lang: str, env: Env) -> dict:
    user = message.sender
    if command == "start":  # (again, after blocking the bot or missing deadlines: the seats are theirs again)
        env.tables.set_blocked(user.id, False)
        welcome = longplay.welcome_back(env.ctx, str(user.id), lang)
        if args and args[0].startswith("j"):
            return join_by_code(message, args[0][1:], lang, env)
        if args and args[0].startswith("s"):  # the deep link of a seat offered to a stand-in
            return take_seat(message, args[0][1:], lang, env)
        return reply(message, welcome or help_text(lang))
    if command == "standin":
        if not args:
            raise Refused(_t(lang, "Usage: /standin <code>, with the code of the seat offered to you."))
        return take_seat(message, args[0], lang, env)
    if command == "newgame":
        return solo_game(message, args, lang, env)
    if command == "join":
        if not args:
            raise Refused(_t(lang, "Usage: /join <code>, with the code of the game (its creator has it)."))
        return join_by_code(message, args[0], lang, env)
    if command == "language":
        if not args or args[0].lower() not in i18n.LANGS:
            raise Refused(_t(lang, "Usage: /language cs or /language en"))
        env.tables.set_lang(user.id, args[0].lower())
        return reply(message, _t(args[0].lower(), "I will write to you in English."))
    if command == "rules":
        return cmd_rules(message, args, lang, env)
    if command in PRIVATE_COMMANDS:
        return PRIVATE_COMMANDS[command](message, args, lang, env)
    if command in ("help", "status") or command is None:
        if command == "help":
            return reply(message, help_text(lang))
        if command == "status":
            return reply(
                message,
                "\n\n".join(game_status(env, g, lang) for g in my_games(env, user.id))
                or _t(lang, "You are in no game."),
            )
        games = asked_games(env, user.id)
        words = (message.text or "").split()
        if words and looks_like_code(words[0]):  # "K7QX play 3": the game named by its code
            games = [g for g in games if g[0] == words[0].upper()]
            if not games:
                raise Refused(_t(lang, "You have no question to answer in game {code}.").format(code=words[0].upper()))
            return typed_answer(message, games[0], lang, env, " ".join(words[1:]) or "?")
        if not games:
            return reply(message, _t(lang, "You have no question to answer right now."))
        if len(games) > 1:
            raise Refused(
                _t(
                    lang, "You are asked in several games: use the buttons, or start with the game's code ({codes})."
                ).format(codes=" ".join(g for g, _ in games))
            )
        return typed_answer(message, games[0], lang, env, message.text or "")
    raise Refused(_t(lang, "Unknown command. /help"))


SOLO_ROLES = {"creature": True, "bytost": True, "hunted": False, "lovec": False}  # /newgame's role words


def solo_game(message: SentMessage, args: list[str], lang: str, env: Env) -> dict:
    """``/newgame [hunted|creature] [2-7] [easy|normal|hard]`` in private: a game against bots, begun at once
    (by default as a Hunted, 3 players, normal bots)."""
    words = [word.lower() for word in args]
    as_creature = next((SOLO_ROLES[w] for w in words if w in SOLO_ROLES), False)
    players = next((int(w) for w in words if w.isdigit()), 3)
    level = next((w for w in words if w in plain.BOT_LEVEL_WORDS), DEFAULT_BOT_LEVEL)
    if any(w not in SOLO_ROLES and not w.isdigit() and w not in plain.BOT_LEVEL_WORDS for w in words):
        raise Refused(_t(lang, "Usage: /newgame [hunted|creature] [2-7] [easy|normal|hard], e.g. /newgame creature 4"))
    started = _lobby_call(lang, env.lobby.solo, _player(message.sender), lang, players, as_creature, level)
    role = _t(lang, "the Creature") if as_creature else _t(lang, "a Hunted")
    said = (
        i18n.translator(lang)
        .ngettext(
            "Game {code} begins: you are {role}, against {bots} bot ({level}). Your questions come here.",
            "Game {code} begins: you are {role}, against {bots} bots ({level}). Your questions come here.",
            players - 1,
        )
        .format(code=started.table.code, role=role, bots=players - 1, level=_t(lang, plain.BOT_LEVEL_WORDS[level]))
    )
    return reply(message, _with_watch_link(said, started.table.code, lang, env))


def _with_watch_link(said: str, game_id: str, lang: str, env: Env) -> str:
    """``said``, and the game's watch page where it has one: a game without a group has no status message to
    carry the page's button."""
    link = watch.url(env.ctx.settings, env.ctx.store.meta(game_id))
    return f"{said}\n" + _t(lang, "The board and the game so far: {link}").format(link=link) if link else said


def join_by_code(message: SentMessage, code: str, lang: str, env: Env) -> dict:
    """Join the table of ``code`` from a private chat (the deep link of a group's lobby, or /join <code> for a
    table opened elsewhere, by SMS say)."""
    table = env.lobby.get(code)
    if table is None:
        raise Refused(_t(lang, "That game is no longer open."))
    if table.game and telegram_address(message.sender.id) in table.seats:  # a seat that waited for its player
        return reply(
            message,
            _t(lang, "Your seat in game {code} is yours: my questions come here from the next step on.").format(
                code=table.code
            ),
        )
    try:
        table, started = env.lobby.join(table.code, _player(message.sender))
    except LobbyError as exc:
        if exc.reason != "already":
            raise Refused(refusal(exc.reason, lang)) from exc
        started = None
    if started:
        return reply(message, began_text(started, lang))
    return reply(
        message,
        _t(lang, "You are in game {code}! Your secret choices will come here once the game begins.").format(
            code=table.code
        ),
    )


def my_games(env: Env, user: int) -> list[str]:
    return sorted(game_id for game_id, _ in env.ctx.store.games_of_user(str(user)))


def seat_of(meta: dict, user: int) -> int | None:
    """The seat of a Telegram user (meta's "user" is the bare id on Telegram; the address is "tg:<id>")."""
    return next((int(s) for s, p in meta.get("players", {}).items() if p.get("user") == str(user)), None)


def asked_games(env: Env, user: int) -> list[tuple[str, int]]:
    """(game, seat) of every game where the user's seat is asked now."""
    out = []
    for game_id in my_games(env, user):
        snap = env.ctx.store.load(game_id)
        seat = seat_of(env.ctx.store.meta(game_id), user)
        if snap and snap.status == "collecting" and seat in env.ctx.store.expected(game_id):
            out.append((game_id, seat))
    return out


def typed_answer(message: Message, asked: tuple[str, int], lang: str, env: Env, text: str) -> dict:
    game_id, seat = asked
    snap = env.ctx.store.load(game_id)
    if snap is None:  # gone (cancelled, expired) since asked_games read it
        raise Refused(_t(lang, "There is no such game."))
    if snap.window is None:  # over since asked_games read it (what submit would answer)
        raise Refused(_t(lang, "This game is over."))
    game = Game.from_json(snap.json)
    try:
        actions = commands.parse(text, game, seat, lang=lang)
    except commands.CommandError as exc:
        raise Refused(str(exc)) from exc
    if any(a["type"].startswith("_") for a in actions):
        return reply(message, commands.help_text(game, seat, lang))
    dedup = f"m{message.chat.id}_{message.message_id}"
    result = ingest.submit(env.ctx, game_id, seat, actions, snap.window, dedup, snap, typed=True)
    return reply(message, plain.submitted(result, game, seat, lang))


# ---------------------------------------------------------------------------------------------- buttons


def on_back(query: CallbackQuery, game_id: str, lang: str, env: Env, loaded: Loaded) -> dict:
    """The "I'm back" button: the seat a bot plays is its player's again; the next question asks them."""
    snap, meta = loaded
    seat = seat_of(meta, query.sender.id) if snap else None
    if snap is None or seat is None:
        return answer_query(query, _t(lang, "This is not your game."))
    if snap.status == "over":
        return answer_query(query, _t(lang, "This game is over."))
    env.tables.set_blocked(query.sender.id, False)
    env.ctx.store.set_streak(game_id, seat, 0)
    env.ctx.store.end_away(game_id, seat)
    return answer_query(query, _t(lang, "Welcome back! I will ask you from the next question on."))


def on_button(query: CallbackQuery, lang: str, env: Env, loaded: Loaded | None = None) -> dict:
    """A press of ``lang``'s user, admitted; ``loaded``: the snapshot and the meta of the game its button names,
    read a moment ago (read here when None)."""
    back = ui.back_game(query.data)
    if back is not None:
        return on_back(query, back, lang, env, loaded or env.ctx.store.load_with_meta(back))
    try:
        choice = ui.decode(query.data)
    except ui.BadCallback:
        return answer_query(query, _t(lang, "This button is not valid."))
    snap, meta = loaded or env.ctx.store.load_with_meta(choice.game_id)
    seat = seat_of(meta, query.sender.id) if snap else None
    if snap is None or seat is None:
        return answer_query(query, _t(lang, "This is not your game."))
    if query.message is not None and str(query.message.chat.id) != meta["players"][str(seat)].get("chat"):
        # a forged press: the message named is in someone else's chat, and its screen would be edited there
        return answer_query(query, _t(lang, "This message is not yours: use the buttons in your private chat with me."))
    if snap.window != choice.window or snap.status != "collecting":
        if env.ctx.store.recorded(choice.game_id, f"q{query.id}"):
            # Telegram redelivering a press we stored (our reply was lost, say a 5xx in a failover): it counted,
            # though its window has closed or been resolved since
            ingest.requeue_if_resolving(env.ctx, choice.game_id, choice.window, snap)
            return answer_query(query, _t(lang, "Locked in."))
        return answer_query(query, ui.expired(lang))
    game = Game.from_json(snap.json)
    try:
        stage = ui.follow(game, seat, choice)
        if not stage.complete:
            screen = ui.decision(game, seat, choice, snap.deadline, lang, seat_names(meta), **ui.clock_of(meta))
    except ui.ForeignButton:  # a button copied from another seat's keyboard
        return answer_query(query, _t(lang, "This button is from another player's choices, not yours."))
    except ui.ExpiredChoice:
        return answer_query(query, ui.expired(lang))
    except ui.BadCallback:
        return answer_query(query, _t(lang, "This button is not valid."))
    if stage.complete:
        result = ingest.submit(
            env.ctx, choice.game_id, seat, stage.actions, choice.window, f"q{query.id}", snap, meta=meta
        )
        if result.status not in ANSWERED and result.status is not ingest.Status.DUP:
            return answer_query(query, plain.submitted(result, game, seat, lang, sep=" "))
        closed = result.status is ingest.Status.RESOLVE
        names, clock = seat_names(meta), ui.clock_of(meta)
        lines = ui.locked_in_lines(stage.actions, snap.deadline, lang, names=names, final=closed, **clock)
        # the reply is all a press writes: the message shows the answer (or the question ahead that follows it,
        # `TelegramChannel._answer_screen`) when the refresh job runs (the window stays open), or with the step
        # that closes the window (`TelegramChannel._answered`, or the next window's question)
        return answer_query(query, ui.locked_in_toast(lines, lang))
    if query.message is not None:
        # the pressed message is the seat's turn message: its next screen goes through the outbox
        screens.show(
            env.ctx,
            choice.game_id,
            query.id,
            str(query.message.chat.id),
            seat,
            news.seat_turn_slot(choice.game_id, news.load_news(snap.news), seat),
            snap.version,
            screen.text,
            screen.keyboard,
        )
    return answer_query(query)
