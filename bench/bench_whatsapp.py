"""WhatsApp's cost: messages per player-turn for a WhatsApp seat, templates counted apart.

Whole games of three (the WhatsApp player, a friend by SMS and a bot) through the real app in this process (the test world of
tests/sms_support.py: the pipeline on fakeredis, the webhooks called in process) and the fake Twilio on loopback,
which refuses any free-form message outside a number's 24-hour window. The player taps one of the choices of the
latest list or quick reply it got (never "My cards"); it is the Creature in half the games (it volunteers) and a
Hunted in the others (the friend volunteers; the friend answers whole answers as a bot chooses them).

Two paces:
    prompt    the player answers at once: every message goes within its window
    daily     a day and an hour passes after each of the player's answers before the game goes on (the others
              are slow): each question then goes as an approved template, and the player taps its button
              ("Show the question") to get it

Reported per pace: free-form messages per player-turn (mean over games; the goal is <= 1.5), of which board
pictures, templates per player-turn, and the sends the fake refused (0). A player-turn is one turn of the game
for the WhatsApp seat.

    python -m bench.bench_whatsapp [--games N] [--lang en|cs] [--json]
"""

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_twilio import FakeTwilio, serve  # noqa: E402
from sms_support import PUBLIC, world_of  # noqa: E402

from service.channels.sms import contents  # noqa: E402
from service.commands.writing import describe  # noqa: E402
from service.config import Settings  # noqa: E402
from service.game import Game  # noqa: E402
from service.game.bots import whole_answer  # noqa: E402

URL = PUBLIC + "/whatsapp/twilio"
FRIEND = "+447700900999"
SENDER = "whatsapp:+14155238886"
LATE = 25 * 3600


def _items(message: dict) -> list[tuple[str, str, str]]:
    """(title, id, how it is tapped) of a message's choices."""
    rendered = message.get("rendered") or {}
    return [(i["item"], i["id"], "list") for i in rendered.get("items") or []] + [
        (a["title"], a["id"], "button") for a in rendered.get("actions") or []
    ]


def play(world, number: str, creature: bool, pace: str, rng: random.Random) -> dict:
    """One whole game; what was sent to ``number`` from the start of the game on."""
    fake = world.twilio
    replies = [0]  # the answers to the player's own taps (a menu's next screen, "More", a refusal)

    def say(body: str = "", **tap) -> None:
        before = len(fake.whatsapp_sent(number))
        response = fake.whatsapp(world.client, URL, number, body, **tap)
        assert response.status_code == 200, response.text
        replies[0] += len(fake.whatsapp_sent(number)) - before
        if pace == "daily":
            world.clock.advance(LATE)
        world.pump()

    say(f"NEW 3 {'daily' if pace == 'daily' else 'fast'}")
    code = (fake.whatsapp_sent(number)[-1].get("Body") or "").split()[1]
    world.reply(FRIEND, f"JOIN {code}")  # a friend by SMS, answering as a bot would, so that either may be drawn
    if creature:
        say("CREATURE")
    else:
        world.reply(FRIEND, "CREATURE")
    start = len(fake.whatsapp_sent(number))
    replies[0] = 0
    say("GO")
    friend = dict(world.lobby.games_of(f"sms:{FRIEND}"))[code]
    for _ in range(2000):
        snap = world.ctx.store.load(code)
        if snap.status == "over":
            break
        if friend in world.ctx.store.expected(code) - set(world.ctx.store.answers(code)):
            game = Game.from_json(snap.json)
            world.reply(FRIEND, " ".join(describe(a) for a in whole_answer(game, friend, rng)))
            world.pump()
            continue
        sent = fake.whatsapp_sent(number)
        last = sent[-1] if sent else {}
        if (last.get("rendered") or {}).get("approved"):
            say(button_payload="SHOW", button_text="Show")
            continue
        question = next((m for m in reversed(sent) if _items(m)), None)
        options = [o for o in _items(question) if not o[1].endswith(":998")] if question else []
        if not options:
            world.clock.advance(60)
            world.pump()
            continue
        title, ident, how = rng.choice(options)
        say(**({"list_id": ident, "list_title": title} if how == "list" else {"button_payload": ident}))
    else:
        raise RuntimeError(f"game {code} did not end")
    game = Game.from_json(world.ctx.store.load(code).json)
    sent = fake.whatsapp_sent(number)[start:]
    templates = [m for m in sent if (m.get("rendered") or {}).get("approved")]
    free = [m for m in sent if m not in templates]
    return {
        "creature": creature,
        "turns": max(1, game.turn),
        "messages": len(free),
        "pictures": sum(1 for m in free if m.get("MediaUrl")),
        "replies": replies[0],
        "templates": len(templates),
        "refused": len(fake.refused),
    }


def run(games: int, lang: str, pace: str) -> dict:
    fake = FakeTwilio(auth_token="bench-token")
    number = "whatsapp:+420777123456" if lang == "cs" else "whatsapp:+447700900123"
    rows = []
    with serve(fake.app) as base_url:
        settings = Settings(
            twilio_account_sid=fake.account_sid, twilio_auth_token="bench-token", twilio_content_base_url=base_url
        )
        sids = contents.register(settings, contents.load())
        channel = {
            "whatsapp_from": SENDER,
            "whatsapp_contents": sids,
            "twilio_content_base_url": base_url,
            "public_url": PUBLIC,
        }
        for g in range(games):
            fake.sent.clear()
            fake.refused.clear()
            fake.last_inbound.clear()
            with world_of(fake, base_url, seed=g + 1, channel=channel) as world:
                fake.clock = world.clock
                rows.append(play(world, number, creature=g % 2 == 0, pace=pace, rng=random.Random(g)))
    per_turn = [r["messages"] / r["turns"] for r in rows]

    def mean_of(role: bool) -> float:
        return round(statistics.mean([r["messages"] / r["turns"] for r in rows if r["creature"] == role] or [0]), 2)

    return {
        "pace": pace,
        "lang": lang,
        "games": games,
        "messages_per_player_turn": round(statistics.mean(per_turn), 2),
        "messages_per_player_turn_max": round(max(per_turn), 2),
        "creature": mean_of(True),
        "hunted": mean_of(False),
        "pictures_per_player_turn": round(statistics.mean(r["pictures"] / r["turns"] for r in rows), 2),
        "replies_per_player_turn": round(statistics.mean(r["replies"] / r["turns"] for r in rows), 2),
        "templates_per_player_turn": round(statistics.mean(r["templates"] / r["turns"] for r in rows), 2),
        "refused": sum(r["refused"] for r in rows),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_whatsapp", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--lang", choices=("en", "cs"), default="en")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv if argv is not None else [])
    results = [run(args.games, args.lang, pace) for pace in ("prompt", "daily")]
    for r in results:
        print(
            f"{r['pace']:>6} ({r['lang']}, {r['games']} games): {r['messages_per_player_turn']:.2f} messages per "
            f"player-turn (max {r['messages_per_player_turn_max']:.2f}; goal <= 1.5; as the Creature "
            f"{r['creature']:.2f}, as a Hunted {r['hunted']:.2f}), of which pictures "
            f"{r['pictures_per_player_turn']:.2f} and replies to the player's taps {r['replies_per_player_turn']:.2f}; "
            f"templates {r['templates_per_player_turn']:.2f} per player-turn; "
            f"refused {r['refused']}"
        )
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1:])
