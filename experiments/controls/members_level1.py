"""Where the inference controls lose, per member of the pool: every agent of each suite FOLDER, its regret to the
oracle of the REFERENCE suite (the inference probe's, on the same deals) in the rounds the pool plays as its fast
bot and as its slow one (``Pool.member_of`` of each deal's round key, as the env draws it), with its idle ticks and
false starts per round.

    python experiments/controls/members_level1.py REFERENCE FOLDER...
"""

import sys
from pathlib import Path

import numpy as np

from war_env.core.best_response import draw_deal
from war_env.core.bots import make_bot
from war_env.core.probes import PROBES
from war_env.league.rounds_file import ROUNDS_FILE, load_rounds
from war_env.league.run import read_league

sys.path.insert(0, str(Path(__file__).parent))
from level1_variants import register  # noqa: E402  (the rows beside this script)


def columns_of(folder: Path) -> dict:
    league = read_league(folder)
    (opponent,) = league.opponents
    pairings = load_rounds(folder / ROUNDS_FILE, league).pairings
    return {agent: pairings[(agent, opponent)] for agent in league.agents}


def seat_column(values) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return values[:, 0] if values.ndim == 2 else values


def main(reference: Path, folders: list[Path]) -> None:
    register()
    oracle = np.asarray(columns_of(reference)["oracle"].returns, dtype=float)
    pool = make_bot(PROBES["inference"].opponent)
    fast = np.array([pool.member_of(draw_deal(np.random.default_rng(seed))[2], 1) == 0 for seed in range(oracle.size)])
    print(
        f"{oracle.size} rounds (seeds 0-{oracle.size - 1}): "
        f"the fast bot in {fast.sum()}, the slow one in {(~fast).sum()}"
    )
    print("| suite | agent | regret, fast bot | regret, slow bot | idle ticks fast / slow | false starts fast / slow |")
    print("|---|---|---|---|---|---|")
    for folder in folders:
        for agent, played in columns_of(folder).items():
            regret = oracle - np.asarray(played.returns, dtype=float)
            idle, false = seat_column(played.idle_ticks), seat_column(played.false_starts)
            print(
                f"| {folder.parent.parent.parent.name} | {agent.rsplit('/', 3)[-2] if '/' in agent else agent} | "
                f"{regret[fast].mean():.3f} | {regret[~fast].mean():.3f} | {idle[fast].mean():.1f} / "
                f"{idle[~fast].mean():.1f} | {false[fast].mean():.1f} / {false[~fast].mean():.1f} |"
            )


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit("usage: members_level1.py REFERENCE FOLDER...")
    main(Path(sys.argv[1]), [Path(arg) for arg in sys.argv[2:]])
