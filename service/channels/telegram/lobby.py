"""The table commands in Telegram, its face of the shared lobby (`service.pipeline.lobby`): opening, joining, filling,
configuring and beginning a game, in a group or in private, and a table's /status, /board, /cancel and /reveal.
"""

from collections.abc import Sequence
from typing import cast

from service import i18n
from service.channels import longplay, plain, ui
from service.channels.telegram import boards
from service.channels.telegram.handling import (
    Env,
    Refused,
    _t,
    game_over,
    message_place,
    my_games,
    player_of,
    reply,
    running_table_of,
    seat_names,
    table_of,
)
from service.channels.telegram.update import Message, SentMessage
from service.config import DEADLINE_PRESETS, deadline_seconds
from service.i18n import N_
from service.i18n.events import duration
from service.pipeline import absence, cancelling, seats, watch
from service.pipeline.lobby import (
    DEFAULT_BOT_LEVEL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    LobbyError,
    Player,
    Table,
    telegram_address,
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


def _lobby(message: Message, env: Env, lang: str) -> Table:
    table = table_of(message, env, lang)
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


def lobby_text(
    table: Table, lang: str, sms_number: str = "", waiting: Sequence[Player] = (), whatsapp: str = ""
) -> str:
    """The table as the group sees it; ``waiting``: the players the bot cannot write to in private yet;
    ``sms_number`` and ``whatsapp``: our SMS number and WhatsApp sender, where those channels are set up."""
    _ = i18n.translator(lang).gettext
    names = ", ".join(
        [p.name + (" 👹" if p.address == table.creature else "") for p in table.players]
        + [_("bot ({level})").format(level=_(plain.BOT_LEVEL_WORDS[level])) for level in table.bots]
    )
    join = _("Join code: {code}. In a private chat with me: /join {code}.").format(code=table.code)
    if sms_number:  # the SMS line only where SMS is configured
        join += " " + _("By SMS: text JOIN {code} to {number}.").format(code=table.code, number=sms_number)
    if whatsapp:
        join += " " + _("On WhatsApp: {link}").format(link=plain.whatsapp_link(whatsapp, table.code))
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
    text = (news + "\n\n" if news else "") + lobby_text(
        table, lang, env.sms_number, unreachable_players(table, env), env.whatsapp
    )
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
    table = _lobby_call(lang, env.lobby.open, player_of(message.sender), lang, message_place(message))
    return _lobby_reply(message, table, env, lang, _press_join(message, env, lang))


def cmd_join(message, args, lang, env):
    table = _lobby(message, env, lang)
    try:
        table, started = env.lobby.join(table.code, player_of(message.sender))
    except LobbyError as exc:
        if exc.reason != "already":
            raise Refused(refusal(exc.reason, lang)) from exc
        return _lobby_reply(message, exc.table, env, lang)
    if started:
        return reply(message, began_text(started, lang))
    news = _t(lang, "{name} joins.").format(name=message.sender.first_name)
    return _lobby_reply(message, table, env, lang, " ".join(filter(None, [news, _press_join(message, env, lang)])))


def cmd_leave(message, args, lang, env):
    table = table_of(message, env, lang)
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
            lobby_text(table, lang, env.sms_number, whatsapp=env.whatsapp)
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
    seats.bot_takes(env.ctx, game_id, seat, f"anyway{seat}")


def cmd_status(message, args, lang, env):
    table = table_of(message, env, lang)
    if not table.game:
        return _lobby_reply(message, table, env, lang)
    return reply(message, game_status(env, table.game, lang))


def game_status(env: Env, game_id: str, lang: str) -> str:
    state = seats.state(env.ctx, game_id)
    if state is None:
        return _t(lang, "There is no such game.")
    snap, meta, game = state.view.snap, state.view.meta or {}, state.view.game
    assert snap is not None
    names = seat_names(meta)
    asked = plain.shown(game, sorted(state.expected)) if snap.status == "collecting" else []
    bot_after, pure_bots = env.ctx.settings.autoplay_bot_after, set(meta.get("bots", []))
    away = absence.away_seats(env.ctx, game_id)  # the bot plays their seats too, until they answer
    taken = ({s for s, n in state.streaks.items() if n >= bot_after} | set(away)) - pure_bots
    deadline = snap.deadline if asked or plain.cards_pending(game) else None
    shown = ui.status(game.public_view(), names, asked, state.answered, deadline, lang, bots=taken, **ui.clock_of(meta))
    return "\n".join([shown, *longplay.status_lines(env.ctx, game_id, meta, lang)])


def cmd_board(message, args, lang, env):
    """The board as a picture (`boards`): in the group its game's; in private the game named, or the player's only
    running game. The reply is the photo when Telegram has it; else a worker draws and sends it."""
    if message.chat.type != "private":
        game_id = cast(str, running_table_of(message, env, lang).game)
    else:
        games = my_games(env, message.sender.id)
        if not games:
            raise Refused(_t(lang, "You are in no game."))
        running = [g for g in games if not game_over(env, g)]
        named = [g for g in games if args and g == args[0].upper()]
        if len(named or running) != 1:
            raise Refused(_t(lang, "Name the game: /board <code> ({codes}).").format(codes=" ".join(running) or "-"))
        game_id = (named or running)[0]
    return boards.reply(env.ctx, game_id, message_place(message))  # a forum topic's place names its topic


def cmd_cancel(message, args, lang, env):
    table = table_of(message, env, lang)
    if telegram_address(message.sender.id) != table.creator:
        raise Refused(refusal("not_creator", lang))
    if table.game:  # a running game ends for everyone; SMS players are told by message, the group by this reply
        cancelling.cancel(env.ctx, table.game, by=message.sender.first_name, told_already=message_place(message))
    env.lobby.close(table)
    return reply(message, _t(lang, "The game is cancelled. /newgame opens a new one."))


def cmd_reveal(message, args, lang, env):
    """After the game its creator may show each seat's hidden choices on the game's watch page: the table's game,
    or after the table was cancelled or a new one opened here, the newest finished game they opened here (``/reveal
    <code>`` names another)."""
    place, creator = message_place(message), telegram_address(message.sender.id)
    table = env.lobby.at(place)
    if not args and table is not None and table.game and table.creator == creator and not game_over(env, table.game):
        raise Refused(_t(lang, "Hidden choices can be shown only after the game is over."))
    game_id = env.lobby.finished_by(place, creator, args[0].upper() if args else None)
    if game_id is None:
        if table is not None and table.creator != creator:
            raise Refused(refusal("not_creator", lang))
        raise Refused(_t(lang, "You opened no finished game here whose hidden choices could be shown."))
    watch.show_hidden(env.ctx.store, game_id)
    link = watch.url(env.ctx.settings, seats.meta(env.ctx, game_id))
    said = _t(lang, "The watch page now shows each player's hidden cards and picks too.")
    return reply(message, f"{said}\n{link}" if link else said)


# ---------------------------------------------------------------------------------------------- private


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
    started = _lobby_call(lang, env.lobby.solo, player_of(message.sender), lang, players, as_creature, level)
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
    link = watch.url(env.ctx.settings, seats.meta(env.ctx, game_id))
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
        table, started = env.lobby.join(table.code, player_of(message.sender))
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
