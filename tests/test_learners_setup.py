"""The fast learners of the learners' table (``war_env.experiments.learners.LEARNERS``): what each one's runs are
trained with, the settings that make it what it is, which ``--fast-set`` cannot change."""

from __future__ import annotations

import json

import pytest

from war_env.experiments.learners import LEARNER_SETTING_KEYS, LEARNERS, learner_settings
from war_env.training.fast_ppo import FastPPOConfig


def test_a_long_frame_stack_learner_sees_far_enough_for_the_memory_probes_counting():
    """The memory optimum presses 9 and 17 ticks into the opponent's turn: 24 frames see the turn change 23 back."""
    settings = learner_settings(LEARNERS["fast_stack24"], 8 * 1024)
    config = FastPPOConfig.with_overrides(settings)
    assert config.frame_stack == 24 > 17 and config.lstm_hidden_size == 0
    assert learner_settings(LEARNERS["fast_stack4"], 8 * 1024)["frame_stack"] == 4  # the short one stays beside it


def test_every_fast_learners_own_settings_are_valid_and_kept_from_fast_set():
    for name, learner in LEARNERS.items():
        if learner.fast:
            settings = learner_settings(learner, 1 << 20)
            FastPPOConfig.with_overrides(settings)  # a bad setting is refused here, naming it
            assert set(settings) <= LEARNER_SETTING_KEYS, name


def test_the_long_stack_and_the_lstm_see_their_own_previous_action_and_fast_set_cannot_take_it_away():
    for name in ("fast_stack24", "fast_lstm"):
        assert learner_settings(LEARNERS[name], 1 << 20)["previous_action"] is True, name
    assert "previous_action" not in learner_settings(LEARNERS["fast_stack4"], 1 << 20)
    assert "previous_action" in LEARNER_SETTING_KEYS


def test_every_fast_learner_is_set_up_as_practitioners_set_ppo_up():
    """Advantage normalisation for all; the learning rate and entropy bonus the sweep chose, per learner."""
    chosen = {
        "fast_mlp": (1e-3, 0.01),
        "fast_stack4": (1e-3, 0.01),
        "fast_stack24": (3e-4, 0.0),
        "fast_lstm": (1e-3, 0.01),
    }
    for name, (learning_rate, ent_coef) in chosen.items():
        config = FastPPOConfig.with_overrides(learner_settings(LEARNERS[name], 1 << 20))
        assert config.normalize_advantage, name
        assert (config.learning_rate, config.ent_coef) == (learning_rate, ent_coef), name
    stack4 = FastPPOConfig.with_overrides(learner_settings(LEARNERS["fast_stack4"], 1 << 20))
    assert stack4.one_hot_cards and stack4.normalize_observation
    assert FastPPOConfig.with_overrides(learner_settings(LEARNERS["fast_lstm"], 1 << 20)).lstm_forget_bias == 1.0


def test_fast_set_refuses_a_learners_own_setting(tmp_path):
    from war_env.experiments.learners import check_fast_settings

    with pytest.raises(ValueError, match=r"--fast-set cannot change \['previous_action'\]"):
        check_fast_settings(tmp_path, ["previous_action=false"])
    with pytest.raises(ValueError, match=r"--fast-set cannot change \['learning_rate'\]"):
        check_fast_settings(tmp_path / "mlp", ["learning_rate=0.00025"], learners=["fast_mlp"])


def test_fast_set_may_give_another_learner_a_setting_that_is_one_learners_own(tmp_path):
    from war_env.experiments.learners import check_fast_settings

    assert check_fast_settings(tmp_path / "mlp", ["previous_action=true"], learners=["fast_mlp"]) == {
        "previous_action": True
    }
    with pytest.raises(ValueError, match=r"--fast-set cannot change \['previous_action'\]"):
        check_fast_settings(tmp_path / "both", ["previous_action=true"], learners=["fast_mlp", "fast_stack24"])


def test_a_run_is_held_to_its_tables_settings_but_not_to_its_learners_own(tmp_path):
    from war_env.experiments.learners import _check_runs_trained_with
    from war_env.support.run_folder import RunFolderConflict

    def trained(name, **settings):
        folder = tmp_path / "runs" / "memory" / name
        folder.mkdir(parents=True)
        config = FastPPOConfig.with_overrides(settings).as_json()
        (folder / "config.json").write_text(json.dumps({"config": config}))

    trained("fast_stack24-s0", previous_action=True)  # its own setting: not the table's to compare
    _check_runs_trained_with(tmp_path, {}, FastPPOConfig())
    trained("fast_mlp-s0", previous_action=True)  # the table's setting for the MLP: compared
    _check_runs_trained_with(
        tmp_path, {"previous_action": True}, FastPPOConfig.with_overrides({"previous_action": True})
    )
    with pytest.raises(RunFolderConflict, match="fast_mlp-s0 was trained with"):
        _check_runs_trained_with(tmp_path, {}, FastPPOConfig())
