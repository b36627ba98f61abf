"""RQ jobs of the Telegram channel (run by the ordinary workers; JSON arguments, safe to run twice).

``edit_message`` shows the next screen of a decision message after a button press (the webhook answered the
button itself in its HTTP reply). A message that is gone is sent anew; a flood wait is slept through
(it is one private chat's screen, seconds old); a network error fails the job so RQ's retry takes it again.
"""

import time

from service.channels import telegram_send

MAX_WAIT = 30.0


def edit_message(chat_id: int, message_id: int, text: str, keyboard: list | None) -> str:
    for _ in range(3):
        result = telegram_send.edit(chat_id, message_id, text, keyboard)
        if result.status == "edit_target_missing":
            result = telegram_send.send(chat_id, text, keyboard)
        if result.status == "retry_after" and result.retry_after <= MAX_WAIT:
            time.sleep(result.retry_after)
            continue
        if result.status == "network":
            raise ConnectionError(result.detail)
        return result.status
    return "gave_up"
