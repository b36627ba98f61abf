"""A decision screen after a button press goes through the outbox, like every message and edit.

The pressed message is the seat's turn message (a living message, slot `news.turn_slot`). Its next screen is a
one-message outbox batch for that slot, marked ``until`` the next step's seq (`news.step_seq` of the version after
the one the press saw): the outbox shows it in its turn on the chat's lane, within the chat's send budget, and
skips it once a later step's question is on that message or waits behind it — a late screen never hides a
question. It does not raise the slot's seq, so the steps' own messages keep their order.
"""

import re

from service.pipeline import scheduling
from service.pipeline.context import Context
from service.pipeline.news import message, step_seq


def show(
    ctx: Context,
    game_id: str,
    press: str,
    chat: str,
    seat: int,
    slot: str,
    version: int,
    text: str,
    buttons: list | None,
) -> bool:
    """Queue the screen ``text``/``buttons`` for the turn message ``slot`` in ``chat``, as seen at ``version``;
    ``press`` names the button press (a repeated press of the same id is written once). -> False when it was."""
    batch = "k" + re.sub(r"[^A-Za-z0-9]", "", press)[:40]
    screen = message(chat, text, seat, False, buttons=buttons, slot=slot)
    screen["until"] = step_seq(version + 1)
    written = ctx.store.write_batch(game_id, batch, [screen])
    scheduling.deliveries(ctx, game_id, batch)  # also when an earlier run wrote it and died before queueing it
    return written
