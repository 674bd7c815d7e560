"""Settings helpers refuse bad values loudly instead of guessing."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from backend import env


def test_booleans_accept_the_usual_spellings(monkeypatch):
    for raw, expected in [("1", True), ("true", True), ("Yes", True), ("0", False), ("off", False)]:
        monkeypatch.setenv("FLAG", raw)
        assert env.env_bool("FLAG") is expected


def test_a_misspelled_boolean_stops_the_process(monkeypatch):
    monkeypatch.setenv("FLAG", "flase")
    with pytest.raises(ImproperlyConfigured, match="FLAG must be a boolean"):
        env.env_bool("FLAG")


def test_an_integer_below_its_minimum_is_refused(monkeypatch):
    monkeypatch.setenv("COUNT", "-3")
    with pytest.raises(ImproperlyConfigured, match=">= 0"):
        env.env_int("COUNT", 5, minimum=0)
    monkeypatch.setenv("COUNT", "ten")
    with pytest.raises(ImproperlyConfigured, match="must be an integer"):
        env.env_int("COUNT", 5)


def test_an_unknown_choice_is_refused(monkeypatch):
    monkeypatch.setenv("AGENT_BACKEND", "magic")
    with pytest.raises(ImproperlyConfigured, match="one of"):
        env.env_choice("AGENT_BACKEND", "scripted", ("scripted", "openai"))


def test_lists_are_split_on_commas_and_trimmed(monkeypatch):
    monkeypatch.setenv("HOSTS", " a.example , b.example,,")
    assert env.env_list("HOSTS", []) == ["a.example", "b.example"]


def test_the_local_secret_key_is_generated_once_and_kept_private(tmp_path):
    path = tmp_path / "nested" / "secret_key"
    first = env.persisted_secret_key(path)
    assert len(first) >= 50
    assert env.persisted_secret_key(path) == first
    assert oct(path.stat().st_mode & 0o777) == "0o600"
