"""The Telegram adapter of the web process: one parsed update in -> stored changes + the reply.

``handle(update, env)`` returns the Bot API method to put in the webhook's HTTP reply (a dict such as
``{"method": "sendMessage", ...}`` or ``{"method": "answerCallbackQuery", ...}``), or None. It never calls
Telegram itself: a decision message that must change after a button press is edited by a queued job
(`service.channels.telegram_jobs`). Everything it stores is stored before it returns.

In a group (one table per group, or per forum topic): /newgame, /join, /leave, /creature, /settings, /begin,
/status, /cancel, /help, /rules [card]. In private: /start (the Join deep link ``j<table id>`` lands here),
/language, /status, /help, /rules, typed game commands and the decision buttons. Bad input — a stranger's
button, forged data, a command in the wrong chat, /begin by someone else — gets a short answer and changes
nothing.
"""

import secrets
from dataclasses import dataclass

from service import i18n, ingest, wording
from service.cardnames import fold, name, spellings
from service.channels import telegram_ui as ui
from service.channels.telegram_tables import MAX_PLAYERS, MIN_PLAYERS, Player, Table, Tables, place_of
from service.channels.telegram_update import CallbackQuery, Message, Update
from service.config import DEADLINE_PRESETS, deadline_seconds
from service.game import Game
from service.game.cards import CARDS
from workers.context import Context
from workers.resolution import GameExists, start_game

ANSWERED = (ingest.Status.ACCEPTED, ingest.Status.RESOLVE)


@dataclass
class Env:
    """What handling an update needs: the pipeline context, the tables and the bot's username."""

    ctx: Context
    tables: Tables
    bot_username: str


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
    return {"text": button["text"], **({"url": button["url"]} if "url" in button else
                                       {"callback_data": button["data"]})}


def answer_query(query: CallbackQuery, text: str | None = None) -> dict:
    body = {"method": "answerCallbackQuery", "callback_query_id": query.id}
    if text:
        body["text"] = text[:200]
    return body


def handle(update: Update, env: Env) -> dict | None:
    if update.callback_query:
        return on_button(update.callback_query, env)
    if update.my_chat_member and update.my_chat_member.chat.type == "private":
        env.tables.set_blocked(update.my_chat_member.sender.id, update.my_chat_member.blocked)
        return None
    message = update.message
    if message is None or message.sender is None or message.sender.is_bot:
        return None
    if message.migrate_to_chat_id:
        return None  # the sender follows the move when it next writes there (telegram_send)
    if not message.text:
        return None
    command, args = _command(message.text, env.bot_username)
    private = message.chat.type == "private"
    lang = _lang(env, message, private)
    try:
        if private:
            return on_private(message, command, args, lang, env)
        if command is None:
            return None  # table talk
        handler = GROUP_COMMANDS.get(command)
        if handler is None:
            return reply(message, _t(lang, "In the group I know: /newgame /join /leave /creature /settings /begin "
                                           "/status /cancel /help /rules. Moves are made in private chat."))
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


def _lang(env: Env, message: Message, private: bool) -> str:
    table = None if private else env.tables.get(_place(message))
    return i18n.choose(env.tables.lang(message.sender.id) if private else None, table and table.lang,
                       message.sender.language_code)


def _place(message: Message) -> str:
    return place_of(message.chat.id, message.topic if message.chat.is_forum else None)


def _table(message: Message, env: Env, lang: str) -> Table:
    table = env.tables.get(_place(message))
    if table is None:
        raise Refused(_t(lang, "There is no game here. /newgame opens one."))
    return table


def _lobby(message: Message, env: Env, lang: str) -> Table:
    table = _table(message, env, lang)
    if table.game:
        raise Refused(_t(lang, "The game has already begun."))
    return table


def _creator(table: Table, message: Message, lang: str) -> None:
    if message.sender.id != table.creator:
        raise Refused(_t(lang, "Only the player who opened this game may do that."))


def join_link(env: Env, table: Table) -> str:
    return f"https://t.me/{env.bot_username}?start=j{table.id}"


def lobby_text(table: Table, lang: str) -> str:
    _ = i18n.translator(lang).gettext
    names = ", ".join(p.name + (" 👹" if p.user == table.creature else "") for p in table.players)
    return "\n".join([
        _("A game of Not Alone is open here."),
        _("Players ({n}/{max}): {names}").format(n=len(table.players), max=MAX_PLAYERS, names=names),
        _("Deadline per step: {deadline} · Expert variant: {expert} · Language: {lang}").format(
            deadline=table.deadline, expert=_("yes") if table.expert else _("no"), lang=table.lang),
        _("Press Join (it opens a private chat with me, where your secret choices happen). "
          "The creator starts with /begin."),
    ])


def _lobby_reply(message: Message, table: Table, env: Env, lang: str, news: str = "") -> dict:
    text = (news + "\n\n" if news else "") + lobby_text(table, lang)
    return reply(message, text, [[{"text": _t(lang, "Join"), "url": join_link(env, table)}]])


# ---------------------------------------------------------------------------------------------- group


def cmd_newgame(message, args, lang, env):
    table = env.tables.open(_place(message), message.sender.id, message.sender.first_name, lang)
    if table is None:
        raise Refused(_t(lang, "There is already a game here: /status shows it; its creator may /cancel it."))
    return _lobby_reply(message, table, env, lang)


def _join(table: Table, user, lang: str) -> None:
    if table.game:
        raise Refused(_t(lang, "The game has already begun."))
    if table.player(user.id) is None:
        if len(table.players) >= MAX_PLAYERS:
            raise Refused(_t(lang, "The table is full (7 players)."))
        table.players.append(Player(user.id, user.first_name or str(user.id), i18n.from_telegram(user.language_code)))


def cmd_join(message, args, lang, env):
    _lobby(message, env, lang)
    table = env.tables.change(_place(message), lambda t: _join(t, message.sender, lang))
    news = _t(lang, "{name} joins.").format(name=message.sender.first_name)
    return _lobby_reply(message, table, env, lang, news)


def cmd_leave(message, args, lang, env):
    _lobby(message, env, lang)

    def leave(table):
        if table.player(message.sender.id) is None:
            raise Refused(_t(lang, "You are not in this game."))
        table.players = [p for p in table.players if p.user != message.sender.id]
        table.creature = None if table.creature == message.sender.id else table.creature

    table = env.tables.change(_place(message), leave)
    if not table.players:
        env.tables.close(table)
        return reply(message, _t(lang, "Everyone left: the game is closed."))
    return _lobby_reply(message, table, env, lang, _t(lang, "{name} leaves.").format(
        name=message.sender.first_name))


def cmd_creature(message, args, lang, env):
    _lobby(message, env, lang)

    def volunteer(table):
        if table.player(message.sender.id) is None:
            raise Refused(_t(lang, "Join first (/join), then volunteer."))
        table.creature = message.sender.id

    table = env.tables.change(_place(message), volunteer)
    return _lobby_reply(message, table, env, lang, _t(lang, "{name} will be the Creature.").format(
        name=message.sender.first_name))


def cmd_settings(message, args, lang, env):
    table = _lobby(message, env, lang)
    if not args:
        return reply(message, lobby_text(table, lang) + "\n" + _t(
            lang, "Change: /settings deadline live|fast|daily|<seconds> · expert on|off · lang cs|en"))
    _creator(table, message, lang)
    key, value = (args + [""])[:2]
    value = value.lower()

    def change(table):
        if key == "deadline" and (value in DEADLINE_PRESETS or value.isdigit()):
            table.deadline = value
        elif key == "expert" and value in ("on", "off"):
            table.expert = value == "on"
        elif key == "lang" and value in i18n.LANGS:
            table.lang = value
        else:
            raise Refused(_t(lang, "Usage: /settings deadline live|fast|daily|<seconds> · expert on|off · "
                                   "lang cs|en"))

    table = env.tables.change(_place(message), change)
    return _lobby_reply(message, table, env, table.lang)


def cmd_begin(message, args, lang, env):
    table = _lobby(message, env, lang)
    _creator(table, message, lang)
    if not MIN_PLAYERS <= len(table.players) <= MAX_PLAYERS:
        raise Refused(_t(lang, "A game needs 2 to 7 players."))
    players = list(table.players)
    creature = table.player(table.creature) or players[secrets.randbelow(len(players))]
    hunted = [p for p in players if p is not creature]
    seats = [creature] + hunted
    game_id = f"tg{table.id}"
    meta = {"players": {str(s): {"name": p.name, "chat": str(p.user), "user": str(p.user), "lang": p.lang}
                        for s, p in enumerate(seats)},
            "group": table.place, "channel": "telegram", "lang": table.lang, "bots": [],
            "deadline_seconds": deadline_seconds(table.deadline, env.ctx.settings.min_deadline_seconds)}
    config = {"players": len(seats), "seed": secrets.randbits(31), "side": None, "expert": table.expert}
    try:
        start_game(env.ctx, game_id, config, meta)
    except GameExists:
        pass  # a retried /begin: the game is there already
    env.tables.change(table.place, lambda t: setattr(t, "game", game_id))
    return reply(message, _t(lang, "The game begins! {creature} is the Creature. Check your private chat with "
                                   "me for your choices.").format(creature=creature.name))


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
    asked = sorted(store.expected(game_id)) if snap.status == "collecting" else []
    return ui.status(game.public_view(), names, asked, answered, snap.deadline if asked else None, lang)


def seat_names(meta: dict) -> dict[int, str]:
    return {int(seat): player["name"] for seat, player in meta.get("players", {}).items()}


def cmd_cancel(message, args, lang, env):
    table = _table(message, env, lang)
    _creator(table, message, lang)
    env.tables.close(table)
    return reply(message, _t(lang, "The game is cancelled. /newgame opens a new one."))


def cmd_help(message, args, lang, env):
    return reply(message, help_text(lang))


def help_text(lang: str) -> str:
    return _t(lang, "Not Alone by message. In the group: /newgame opens a table, players press Join, the creator "
                    "sets /settings and starts with /begin. Secret choices come to your private chat with me as "
                    "buttons; you may also type the commands shown there. The group sees one status message per "
                    "turn, the reveal and the end. /rules [card] explains the rules or a card.")


def cmd_rules(message, args, lang, env):
    if not args:
        return reply(message, _t(lang, "The Hunted win when the Rescue counter reaches its end; the Creature wins "
                                       "when the Assimilation counter does. Each turn the Hunted secretly pick "
                                       "places, the Creature places its tokens, then all is revealed. "
                                       "/rules <card> explains one card."))
    wanted = fold("".join(args))
    for card_id, card in CARDS.items():
        key = card["number"] if card["kind"] == "place" else card_id
        if wanted in spellings(key):
            title = name(key, lang) if lang == "en" else f"{name(key, lang)} ({name(key, 'en')})"
            if card.get("phase"):
                title += " · " + _t(lang, "phase {n}").format(n=card["phase"])
            return reply(message, f"{title}\n{card['effect']}")
    raise Refused(_t(lang, "I know no card of that name."))


GROUP_COMMANDS = {"newgame": cmd_newgame, "join": cmd_join, "leave": cmd_leave, "creature": cmd_creature,
                  "settings": cmd_settings, "begin": cmd_begin, "status": cmd_status, "cancel": cmd_cancel,
                  "help": cmd_help, "rules": cmd_rules, "start": cmd_help}


# ---------------------------------------------------------------------------------------------- private


def on_private(message: Message, command: str | None, args: list[str], lang: str, env: Env) -> dict:
    user = message.sender
    if command == "start":
        env.tables.set_blocked(user.id, False)
        if args and args[0].startswith("j"):
            return join_by_link(message, args[0][1:], lang, env)
        return reply(message, help_text(lang))
    if command == "language":
        if not args or args[0].lower() not in i18n.LANGS:
            raise Refused(_t(lang, "Usage: /language cs or /language en"))
        env.tables.set_lang(user.id, args[0].lower())
        return reply(message, _t(args[0].lower(), "I will write to you in English."))
    if command == "rules":
        return cmd_rules(message, args, lang, env)
    if command in ("help", "status") or command is None:
        games = asked_games(env, user.id)
        if command == "help" or (command is None and not games):
            return reply(message, help_text(lang) if command == "help" else
                         _t(lang, "You have no question to answer right now."))
        if command == "status":
            return reply(message, "\n\n".join(game_status(env, g, lang) for g in my_games(env, user.id)) or
                         _t(lang, "You are in no game."))
        if len(games) > 1:
            raise Refused(_t(lang, "You are asked in several games: please use the buttons."))
        return typed_answer(message, games[0], lang, env)
    raise Refused(_t(lang, "Unknown command. /help"))


def join_by_link(message: Message, table_id: str, lang: str, env: Env) -> dict:
    table = env.tables.by_id(table_id)
    if table is None:
        raise Refused(_t(lang, "That game is no longer open."))
    env.tables.change(table.place, lambda t: _join(t, message.sender, lang))
    return reply(message, _t(lang, "You are in! Your secret choices will come here once the game begins."))


def my_games(env: Env, user: int) -> list[str]:
    return sorted(env.ctx.store.games_of_user(str(user)))


def seat_of(meta: dict, user: int) -> int | None:
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


def typed_answer(message: Message, asked: tuple[str, int], lang: str, env: Env) -> dict:
    game_id, seat = asked
    snap = env.ctx.store.load(game_id)
    game = Game.from_json(snap.json)
    try:
        actions = wording.parse(message.text, game, seat)
    except wording.CommandError as exc:
        raise Refused(str(exc)) from exc
    if any(a["type"].startswith("_") for a in actions):
        return reply(message, wording.help_text(game, seat, lang))
    result = ingest.submit(env.ctx, game_id, seat, actions, snap.window, f"m{message.chat.id}_{message.message_id}")
    return reply(message, result.text)


# ---------------------------------------------------------------------------------------------- buttons


def on_button(query: CallbackQuery, env: Env) -> dict:
    lang = i18n.choose(env.tables.lang(query.sender.id), None, query.sender.language_code)
    try:
        choice = ui.decode(query.data)
    except ui.BadCallback:
        return answer_query(query, _t(lang, "This button is not valid."))
    store = env.ctx.store
    snap, meta = store.load(choice.game_id), store.meta(choice.game_id)
    seat = seat_of(meta, query.sender.id) if snap else None
    if seat is None:
        return answer_query(query, _t(lang, "This is not your game."))
    if snap.window != choice.window or snap.status != "collecting":
        return answer_query(query, ui.expired(lang))
    game = Game.from_json(snap.json)
    try:
        stage = ui.follow(game, seat, choice)
        if not stage.complete:
            screen = ui.decision(game, seat, choice, snap.deadline, lang, seat_names(meta))
    except ui.ExpiredChoice:
        return answer_query(query, ui.expired(lang))
    except ui.BadCallback:
        return answer_query(query, _t(lang, "This button is not valid."))
    said = None
    if stage.complete:
        result = ingest.submit(env.ctx, choice.game_id, seat, stage.actions, choice.window, f"q{query.id}")
        if result.status not in ANSWERED and result.status is not ingest.Status.DUP:
            return answer_query(query, result.text)
        screen, said = ui.locked_in(choice, stage.actions, snap.deadline, lang), _t(lang, "Locked in.")
    if query.message is not None:
        _enqueue_edit(env, query.message.chat.id, query.message.message_id, screen)
    return answer_query(query, said)


def _enqueue_edit(env: Env, chat_id: int, message_id: int, screen: ui.Screen) -> None:
    env.ctx.queue.enqueue("service.channels.telegram_jobs.edit_message",
                          args=(chat_id, message_id, screen.text, screen.keyboard),
                          failure_ttl=env.ctx.settings.job_failure_ttl_seconds, result_ttl=60)
