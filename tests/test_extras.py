"""A missing extra is named in one line, all of them at once, with the one pip command that installs them."""

import pytest

from war_env.support import extras
from war_env.support.extras import MissingExtra, require


@pytest.fixture
def two_absent_extras(monkeypatch):
    monkeypatch.setitem(extras.EXTRAS, "first", ("numpy", "no_such_module_a"))
    monkeypatch.setitem(extras.EXTRAS, "second", ("no_such_module_b",))
    monkeypatch.setitem(extras.EXTRAS, "present", ("numpy",))


def test_every_missing_extra_is_named_in_the_one_message(two_absent_extras):
    with pytest.raises(MissingExtra) as raised:
        require(["first", "present", "second"], "war-curves")
    message = str(raised.value)
    assert "\n" not in message
    assert message == (
        'war-curves needs the "first" and "second" extras (missing: no_such_module_a, '
        'no_such_module_b): pip install "war-env[first,second]" '
        '(or, from a clone, pip install -e ".[first,second]")'
    )
    assert raised.value.extras == ("first", "second")


def test_one_missing_extra_reads_in_the_singular(two_absent_extras):
    with pytest.raises(
        MissingExtra,
        match=r'^war-bench needs the "second" extra \(missing: no_such_module_b\): '
        r'pip install "war-env\[second\]" '
        r'\(or, from a clone, pip install -e "\.\[second\]"\)$',
    ):
        require("second", "war-bench")


def test_installed_extras_pass(two_absent_extras):
    require(["present"], "anything")
    require("present", "anything")


def test_an_unknown_extra_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown extra 'nope'"):
        require("nope", "anything")


def test_the_hint_names_both_installs_by_name_and_from_a_clone():
    # From a clone, "war-env[...]" would look the name up on the package index instead of installing the clone.
    assert extras.install_hint(["bench", "train"]) == (
        'pip install "war-env[bench,train]" (or, from a clone, pip install -e ".[bench,train]")'
    )
    assert extras.install_hint("fast") == 'pip install "war-env[fast]" (or, from a clone, pip install -e ".[fast]")'
