"""The console scripts' ``--help`` (``war_env.scripts.common.HelpFormatter``): written for users, every
option explained, a default shown once where there is one, never ``(default: None)``, and examples
kept as written."""

import importlib
import re

import pytest

COMMANDS = [
    "benchmark",
    "train",
    "curves",
    "perf",
    "selfplay",
    "tune",
]  # war-play's help is tested with the play session


def help_text(module: str, capsys) -> str:
    cli = importlib.import_module(f"war_env.scripts.{module}").cli
    with pytest.raises(SystemExit) as exit_:
        cli(["--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("module", COMMANDS)
def test_help_explains_every_option_without_empty_defaults(module, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    text = help_text(module, capsys)
    assert text.startswith("usage: war-")
    assert max(len(line) for line in text.splitlines()) <= 100  # wrapped to the terminal
    assert "(default: None)" not in flat(text) and "(default: False)" not in flat(text)
    assert not re.search(r"default: [^)]*\) \(default:", flat(text))  # a default said twice
    parser = importlib.import_module(f"war_env.scripts.{module}").build_parser()
    for action in parser._actions:
        assert action.help, (module, action.option_strings)


def test_examples_in_a_description_keep_their_lines(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    text = help_text("benchmark", capsys)
    assert "\n  war-bench --resume runs/bench/20261202-134500\n" in text
    assert "the number of CPUs" in flat(text)  # not this machine's count presented as the default


def test_a_zero_default_is_shown(capsys):
    assert "training env i is seeded S + i (default: 0)" in flat(help_text("train", capsys))
