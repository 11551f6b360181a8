"""The messages between the page and the server, as plain data (no web framework here).

The page sends one kind of message, a button press::

    {"type": "command", "command": "turn" | "autoplay" | "new_round"}

The server sends JSON objects with a ``type``:

* ``hello`` once, first: the rules of the table (``turn_seconds``, ``target_points``, ...), the
  opponent spec and the message limits, so that the rules guide on the page shows this table's numbers;
* ``state`` whenever the table changes and after every command: ``scene`` (``war_env.views.scene.Scene`` as
  JSON: what a person at the table can see, never a card still hidden), ``controls`` (the three
  buttons: command, label, key hint, enabled), ``waiting`` (the round waits for its first press) and
  ``notice`` (a line for the person, e.g. "False start! ...", or ``null``);
* ``error``: ``message`` says what was wrong with the last message (or why the server closes).
"""

from __future__ import annotations

import dataclasses
import json

from war_env.play.session import BUTTON_COMMANDS, PlaySession

MAX_MESSAGE_BYTES = 256
"""The longest message the page ever needs is about 40 bytes; anything longer is refused unread."""


class ProtocolError(ValueError):
    """A message from the page that the server does not understand; the text says why."""


def parse_command(text: str | None, max_bytes: int = MAX_MESSAGE_BYTES) -> str:
    """The command of a message from the page, or ``ProtocolError`` naming what is wrong with it."""
    if text is None:
        raise ProtocolError("messages must be text (JSON), not binary")
    if len(text.encode("utf-8", errors="replace")) > max_bytes:
        raise ProtocolError(f"message too long: at most {max_bytes} bytes")
    try:
        message = json.loads(text)
    except ValueError:
        raise ProtocolError("message is not valid JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError('a message must be a JSON object like {"type": "command", "command": "turn"}')
    if message.get("type") != "command":
        raise ProtocolError(f"unknown message type {message.get('type')!r}; known: 'command'")
    command = message.get("command")
    if command not in BUTTON_COMMANDS:
        raise ProtocolError(f"unknown command {command!r}; known: {', '.join(BUTTON_COMMANDS)}")
    extra = set(message) - {"type", "command"}
    if extra:
        raise ProtocolError(f"unknown field(s) {', '.join(sorted(map(str, extra)))} in a command")
    return command


def state_message(session: PlaySession) -> dict:
    """What the page draws: the scene, the buttons, whether the round waits, the notice."""
    controls = [
        {"command": command, **dataclasses.asdict(control)}
        for command, control in zip(BUTTON_COMMANDS, session.controls())
    ]
    return {
        "type": "state",
        "scene": dataclasses.asdict(session.scene()),
        "controls": controls,
        "waiting": session.waiting,
        "notice": session.notice(),
    }


def hello_message(session: PlaySession, opponent: str, limits: dict) -> dict:
    config = session.env.config
    rules = {
        name: getattr(config, name)
        for name in ("turn_seconds", "tick_seconds", "target_points", "max_battles", "war_face_down", "pickup")
    }
    return {"type": "hello", "rules": rules, "opponent": opponent, "limits": limits}


def error_message(text: str) -> dict:
    return {"type": "error", "message": text}
