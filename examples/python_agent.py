#!/usr/bin/env python3
"""A war-env agent in plain Python (no war_env import): press once as each turn opens.

Play it:  war-bench --agents "exec:python examples/python_agent.py" --opponents human --rounds 20
``--sleep S`` makes it sleep S seconds before each answer (a slow agent of known latency, docs/realtime.md).
The protocol (JSON lines on stdin/stdout) is in docs/realtime.md; log to stderr, never to stdout.
"""

import json
import sys
import time


def main() -> None:
    can_draw = None  # the index of the "can_draw" field, from the hello
    pressed = False  # whether this turn's press was sent
    sleep = float(sys.argv[sys.argv.index("--sleep") + 1]) if "--sleep" in sys.argv else 0.0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            can_draw = message["observation"]["fields"].index("can_draw")
            reply({"type": "hello", "name": "python press-once"})
        elif kind == "reset":
            pressed = False
        elif kind == "observation":
            open_turn = message["observation"][can_draw] > 0.5
            press = open_turn and not pressed
            pressed = open_turn and (pressed or press)  # a closed turn re-arms the press
            if sleep:
                time.sleep(sleep)
            reply({"action": int(press)})
        elif kind == "close":
            return


def reply(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
