"""The long games' commands in Telegram, in a group or in private (`service.channels.longplay` words them): /away,
/back, /stats, /forgetme, /pause, /resume, /history, and a seat changing hands (/handover, /replace, /standin).
"""

from typing import cast

from service.channels import longplay, ui
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
    seat_of,
)
from service.channels.telegram.update import Message, SentMessage
from service.pipeline import absence, seats, standins
from service.pipeline.lobby import telegram_address


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
        game_id = cast(str, running_table_of(message, env, lang).game)
    else:
        running = [g for g in my_games(env, message.sender.id) if not game_over(env, g)]
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
    table = running_table_of(message, env, lang)
    game_id = cast(str, table.game)
    seat = standins.find_seat(seats.meta(env.ctx, game_id), " ".join(args))
    try:
        if seat is None:
            raise standins.StandInError("no_seat")
        token = standins.offer_vanished(env.ctx, game_id, seat, telegram_address(message.sender.id) == table.creator)
    except standins.StandInError as error:
        raise Refused(longplay.standin_refusal(error, lang)) from error
    return _offer_reply(message, token, lang, env)


def take_seat(message: SentMessage, token: str, lang: str, env: Env) -> dict:
    """A newcomer takes an offered seat: the recap of the seat, and its open question when it is asked now."""
    player = player_of(message.sender)
    said, taken = longplay.take_seat(env.ctx, token, player.seat_entry(), lang)
    if taken is None:
        raise Refused(said)
    asked = seats.seat_asked(env.ctx, taken.game_id, taken.seat)
    if asked is None or asked.snap is None:
        return reply(message, said)
    snap, meta, game = asked.snap, asked.meta or {}, asked.game
    choice = ui.Choice(taken.game_id, snap.current_window, taken.seat)
    screen = ui.decision(game, taken.seat, choice, snap.deadline, lang, seat_names(meta), **ui.clock_of(meta))
    return reply(message, said + "\n\n" + screen.text, screen.keyboard)


def cmd_pause(message, args, lang, env):
    table = running_table_of(message, env, lang)
    game_id = cast(str, table.game)
    seat = seat_of(seats.meta(env.ctx, game_id), message.sender.id)
    creator = telegram_address(message.sender.id) == table.creator
    by = message.sender.first_name
    return reply(message, longplay.pause(env.ctx, game_id, seat, creator, " ".join(args), by, lang, "/pause"))


def cmd_resume(message, args, lang, env):
    table = running_table_of(message, env, lang)
    creator = telegram_address(message.sender.id) == table.creator
    return reply(message, longplay.resume(env.ctx, cast(str, table.game), creator, lang))


def cmd_history(message, args, lang, env):
    table = env.lobby.at(message_place(message))
    return reply(message, longplay.history(env.ctx, message_place(message), lang, table.tz if table else None))
