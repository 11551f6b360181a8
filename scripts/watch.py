"""Watch one round of War-v0 in the terminal: a prompt agent (draws as soon as its turn opens)
against a bot, printed with the ansi renderer at the end of every battle."""

from __future__ import annotations

import argparse

import gymnasium as gym

import war_env  # noqa: F401  (registers War-v0)
from war_env.core.observation import INDEX


def main(opponent: str = "human", seed: int = 0, every: int = 10) -> dict:
    env = gym.make("War-v0", opponent=opponent, render_mode="ansi")
    observation, _ = env.reset(seed=seed)
    last_battle = 0
    while True:
        observation, _, terminated, truncated, info = env.step(int(observation[INDEX["can_draw"]]))
        battles = env.unwrapped.round.game.battles
        if terminated or truncated or battles >= last_battle + every:
            last_battle = battles
            print(env.render())
        if terminated or truncated:
            return info["round"]


def cli(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--opponent", default="human", help="bot spec: instant, fixed:ticks=5, human, ...")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=10, help="print the table every N battles")
    args = parser.parse_args(argv)
    return main(args.opponent, args.seed, args.every)


if __name__ == "__main__":
    cli()
