"""The run folder of every command that resumes (``war_env.support.run_folder``): the lock, the frozen settings
compared on a rerun, and the record of sessions."""

import json

import pytest

from war_env.support.run_folder import (
    RunFolderBusy,
    RunFolderConflict,
    freeze_settings,
    locked_run_folder,
    read_settings,
    record_session,
)

SETTINGS = {"seed": 3, "config": {"learning_rate": 0.001, "hidden": [64, 64]}, "env_id": None}


def test_a_new_folder_freezes_its_settings_and_a_rerun_with_the_same_ones_continues(tmp_path):
    assert freeze_settings(tmp_path, "settings.json", SETTINGS, "pick another --run-dir") == SETTINGS
    assert json.loads((tmp_path / "settings.json").read_text()) == SETTINGS
    assert freeze_settings(tmp_path, "settings.json", dict(SETTINGS), "pick another --run-dir") == SETTINGS
    assert [path.name for path in tmp_path.iterdir()] == ["settings.json"]  # no temporary file left behind


def test_a_rerun_with_other_settings_is_refused_naming_the_first_that_differs_in_one_line(tmp_path):
    freeze_settings(tmp_path, "settings.json", SETTINGS, "pick another --run-dir")
    other = {**SETTINGS, "seed": 4, "config": {**SETTINGS["config"], "learning_rate": 0.01}}
    with pytest.raises(RunFolderConflict) as refused:
        freeze_settings(tmp_path, "settings.json", other, "pick another --run-dir")
    assert str(refused.value) == (
        f"{tmp_path / 'settings.json'} was started with config.learning_rate=0.001, not 0.01: pick another --run-dir"
    )
    assert isinstance(refused.value, ValueError)  # a usage error of the command
    freeze_settings(tmp_path / "new", "s.json", {"seed": 1}, "advice")
    with pytest.raises(RunFolderConflict, match=r"was started with env_id=\(not set\), not 1: advice"):
        freeze_settings(tmp_path / "new", "s.json", {"seed": 1, "env_id": 1}, "advice")


def test_a_long_value_is_cut_so_the_refusal_stays_one_short_line(tmp_path):
    freeze_settings(tmp_path, "s.json", {"opponents": ["human"] * 1000}, "use another --out")
    with pytest.raises(RunFolderConflict) as refused:
        freeze_settings(tmp_path, "s.json", {"opponents": ["uniform"] * 1000}, "use another --out")
    message = str(refused.value)
    assert "\n" not in message and len(message) < 300 and message.endswith("...: use another --out")


def test_settings_ignored_by_the_comparison_may_change(tmp_path):
    freeze_settings(tmp_path, "s.json", {"rounds": 10, "seeds": [0, 1]}, "advice")
    kept = freeze_settings(tmp_path, "s.json", {"rounds": 10, "seeds": [5]}, "advice", ignore=("seeds",))
    assert kept == {"rounds": 10, "seeds": [0, 1]}  # the recorded ones


def test_a_resume_reads_the_frozen_settings_and_names_a_missing_or_foreign_file(tmp_path):
    (tmp_path / "settings.json").write_text(json.dumps(SETTINGS))
    assert read_settings(tmp_path, "settings.json") == SETTINGS
    with pytest.raises(FileNotFoundError, match=r"is not a war-train run folder \(no config.json\)"):
        read_settings(tmp_path, "config.json", what="war-train run")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(RunFolderConflict, match="list.json is not a run's settings: a JSON list, not an object"):
        read_settings(tmp_path, "list.json")


def test_each_session_is_appended_to_the_record_and_a_session_that_did_nothing_adds_none(tmp_path):
    record_session(tmp_path, {"rounds_played": 4}, provenance={"commit": "a"})
    record_session(tmp_path, None, provenance={"commit": "b"})
    record = record_session(tmp_path, {"rounds_played": 2}, provenance={"commit": "c"})
    assert record == {"sessions": [{"rounds_played": 4}, {"rounds_played": 2}], "provenance": {"commit": "c"}}
    assert json.loads((tmp_path / "run.json").read_text()) == record


def test_a_second_command_on_a_locked_folder_stops_at_once(tmp_path):
    with locked_run_folder(tmp_path / "run", "war-bench"):
        with pytest.raises(RunFolderBusy, match="is in use by another war-curves"):
            with locked_run_folder(tmp_path / "run", "war-curves"):
                pass
    with locked_run_folder(tmp_path / "run", "war-curves"):  # released when the first ended
        pass
