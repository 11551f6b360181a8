"""Files shipped with the package, read through ``importlib.resources`` (so they work from a wheel):

* ``results.schema.json``: the JSON schema of a benchmark run's ``results.json``;
* ``configs/<algo>.json``: the shipped ``war-train`` configurations (``ppo``, ``a2c``, ``dqn``, ``maskable_ppo``);
* ``rl_zoo/ppo.yml``: hyperparameters for RL Baselines3 Zoo (``python -m rl_zoo3.train -conf ...``).
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable


def data_file(*parts: str) -> Traversable:
    """A shipped file, e.g. ``data_file("configs", "ppo.json")``; ``.read_text()`` reads it."""
    return resources.files(__name__).joinpath(*parts)


def training_config_file(algo: str) -> Traversable:
    return data_file("configs", f"{algo}.json")


def results_schema_file() -> Traversable:
    return data_file("results.schema.json")


def rl_zoo_file(algo: str = "ppo") -> Traversable:
    return data_file("rl_zoo", f"{algo}.yml")
