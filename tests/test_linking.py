"""One person's SMS and WhatsApp numbers as one player (service/channels/sms/linking.py): LINK on the home gives a
code, LINK <code> from the other number links it; the linked number answers the home's questions while the game's
messages keep going to the home; every refusal says why and changes no link; UNLINK and STOP undo it."""

import random

from test_whatsapp_game import choices, say, served, shown, tap, world  # noqa: F401 (the fixtures)

from service.channels.sms.linking import TRIES_PER_HOUR
from service.commands.writing import describe
from service.game import Game
from service.game.bots import whole_answer
from service.store import keys

JANA_WA = "whatsapp:+420777123456"
JANA_SMS = "+420777123456"
EVA_WA = "whatsapp:+447700900123"
EVA_SMS = "+447700900555"
OLI_SMS = "+447700900222"


def code_in(text: str) -> str:
    """The code of a LINK reply ("... send LINK K7Q4XZ from it ...")."""
    words = [w.strip(".,;") for w in text.split()]
    return next(w for w, before in zip(words[1:], words) if before in ("LINK", "PROPOJ") and len(w) == 6)


def link_sms_to_whatsapp(world, wa: str, sms: str) -> str:
    offer = shown(say(world, wa, "LINK")[0])
    return world.reply(sms, f"LINK {code_in(offer)}")


def answered(world, code: str, seat: int, applied_before: int) -> bool:
    """Whether ``seat`` answered since the game had ``applied_before`` actions: its answer waits in the open
    window, or was applied when the window closed."""
    applied = world.ctx.store.action_log(code)[1][applied_before:]
    return seat in world.ctx.store.answers(code) or any(s == seat for s, _ in applied)


def seat_of(world, code: str, chat: str) -> int:
    return next(int(s) for s, p in world.ctx.store.meta(code)["players"].items() if p["chat"] == chat)


def test_a_linked_sms_number_answers_the_whatsapp_seat_whose_messages_stay_on_whatsapp(world):
    code = shown(say(world, JANA_WA, "NOVA 3")[0]).split()[1]
    say(world, JANA_WA, "ZACNI")
    offer = shown(say(world, JANA_WA, "PROPOJ")[0])
    assert offer.startswith("Chceš-li hrát i ze svého druhého čísla") and "do 15 minut" in offer
    linked = world.reply(JANA_SMS, f"PROPOJ {code_in(offer)}")
    assert linked.startswith("Propojeno: toto cislo ted hraje jako WhatsApp ...3456.")  # SMS: no accents
    seat = seat_of(world, code, "wa:" + JANA_SMS)
    game = Game.from_json(world.ctx.store.load(code).json)
    assert seat in world.ctx.store.expected(code)
    answer = " ".join(describe(a) for a in whole_answer(game, seat, random.Random(1)))
    sms_before, wa_before = len(world.twilio.sent), len(world.twilio.whatsapp_sent(JANA_WA))
    applied = len(world.ctx.store.action_log(code)[1])
    world.reply(JANA_SMS, answer)  # typed by SMS, for the WhatsApp seat
    world.pump()
    assert answered(world, code, seat, applied)
    # the step's messages went to WhatsApp; not one SMS went to the linked number but the TwiML replies
    assert len(world.twilio.whatsapp_sent(JANA_WA)) > wa_before
    assert not [m for m in world.twilio.sent[sms_before:] if m.get("To") == JANA_SMS]
    unlinked = world.reply(JANA_SMS, "ODPOJ")
    assert unlinked == "Odpojeno: toto cislo zase hraje samo za sebe. Tvoje hry zustavaji u WhatsApp ...3456."
    assert world.reply(JANA_SMS, "hraj 3").startswith("Nejsi v zadne hre.")


def test_a_linked_whatsapp_number_gets_the_sms_homes_questions_to_tap(world):
    code = world.reply(OLI_SMS, "NEW 3").split()[1]
    world.reply(OLI_SMS, "GO")
    world.pump()
    offer = world.reply(OLI_SMS, "LINK")
    assert offer.startswith("To play from your other number")
    oli_wa = "whatsapp:" + OLI_SMS
    linked = say(world, oli_wa, f"LINK {code_in(offer)}")
    assert shown(linked[0]).startswith("Linked: this number now plays as SMS …0222.")
    seat = seat_of(world, code, "sms:" + OLI_SMS)
    while seat not in world.ctx.store.expected(code):  # the bots' windows first
        world.clock.advance(60)
        world.pump()
    asked = say(world, oli_wa, "?")  # the SMS seat's open question, with its choices to tap
    question = asked[-1]
    assert f"*{code}*" in shown(question) and choices(question)
    applied = len(world.ctx.store.action_log(code)[1])
    title = next(t for t, i in choices(question) if not i.endswith(":998"))
    tap(world, oli_wa, question, title)
    assert answered(world, code, seat, applied)
    assert world.twilio.refused == []


def test_refusals_say_why_and_link_nothing(world):
    code = shown(say(world, EVA_WA, "NEW 3")[0]).split()[1]
    offer = shown(say(world, EVA_WA, "LINK")[0])
    given = code_in(offer)
    assert shown(say(world, EVA_WA, f"LINK {given}")[0]) == (
        "This number gave that code: send LINK and the code from your other number."
    )
    busy = world.reply(OLI_SMS, "NEW 3")  # Oli waits at a table of his own: he cannot become Eva
    table = busy.split()[1]
    assert world.reply(OLI_SMS, f"LINK {given}").startswith(f"This number plays {table}: link it when that is over")
    assert world.reply(EVA_SMS, "LINK ZZZZZZ") == (
        "That code is wrong or has expired: send LINK from your other number for a new one."
    )
    for _ in range(TRIES_PER_HOUR - 1):
        world.reply(EVA_SMS, "LINK ZZZZZZ")
    assert world.reply(EVA_SMS, f"LINK {given}") == "Too many wrong codes: try again in an hour."
    assert world.ctx.store.redis.keys("artemia:link:*") == []
    world.clock.advance(16 * 60)
    assert code  # Eva's table is untouched by all this
    assert world.reply(OLI_SMS, "UNLINK") == (
        "This number is not linked to another. LINK gives a code to link your other number."
    )


def test_a_code_expires_is_used_once_and_a_link_is_not_chained(world, monkeypatch):
    offer = shown(say(world, EVA_WA, "LINK")[0])
    given = code_in(offer)
    assert world.reply(EVA_SMS, f"LINK {given}").startswith("Linked:")
    assert world.reply("+447700900777", f"LINK {given}").startswith("That code is wrong or has expired")
    assert world.reply(EVA_SMS, "LINK").startswith("This number already plays as WhatsApp ...0123.")
    second = world.reply(EVA_SMS, "UNLINK")
    assert second == "Unlinked: this number plays as itself again. Your games stay with WhatsApp ...0123."
    again = code_in(shown(say(world, EVA_WA, "LINK")[0]))
    assert world.reply(EVA_SMS, f"LINK {again}").startswith("Linked:")
    # the home cannot join a third number while others play as it
    third = world.reply("+447700900777", "LINK")
    assert shown(say(world, EVA_WA, f"LINK {code_in(third)}")[0]) == (
        "Other numbers play as this one, so it cannot join another: UNLINK here first."
    )
    assert shown(say(world, EVA_WA, "UNLINK")[0]) == "Unlinked: this number is no longer linked to SMS …0555."
    assert world.ctx.store.redis.get(keys.number_link("sms:" + EVA_SMS)) is None
    late = world.reply("+447700900777", "LINK")
    world.ctx.store.redis.delete(keys.link_code(code_in(late)))  # as its 15 minutes do
    assert shown(say(world, EVA_WA, f"LINK {code_in(late)}")[0]).startswith("That code is wrong or has expired")


def test_stop_on_a_linked_number_unlinks_it_and_leaves_the_homes_seat_alone(world):
    code = shown(say(world, EVA_WA, "NEW 3")[0]).split()[1]
    say(world, EVA_WA, "GO")
    assert link_sms_to_whatsapp(world, EVA_WA, EVA_SMS).startswith("Linked:")
    seat = seat_of(world, code, "wa:+447700900123")
    assert world.reply(EVA_SMS, "STOP").startswith("Artemia: no more messages.")
    assert world.ctx.store.redis.get(keys.number_link("sms:" + EVA_SMS)) is None
    assert world.ctx.store.streaks(code).get(seat, 0) == 0  # still Eva's seat, not a bot's
    assert choices(say(world, EVA_WA, "?")[-1])  # and Eva still plays it on WhatsApp
