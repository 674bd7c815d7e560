"""Fixtures for the Action Manager: scripted model outputs and a small world
(alice with a location, contacts, a directory of specialists, ambulances)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from agents.llm import model_store, scripted
from agents.llm.scripted import ScriptedBackend
from tests.agents.helpers import BERLIN
from tests.factories import (
    AmbulanceFactory,
    EmergencyContactFactory,
    SlotFactory,
    SpecialistFactory,
    SpecializationFactory,
)


@pytest.fixture
def scripted_backend(settings):
    """Install a scripted model for code that calls get_backend() (API, tasks)."""
    settings.AGENT_BACKEND = "scripted"

    def install(planner=(), caller=()) -> ScriptedBackend:
        backend = ScriptedBackend(planner=planner, caller=caller)
        scripted.install(backend)
        return backend

    yield install
    scripted.install(None)


@pytest.fixture
def ref(alice) -> str:
    """The user id alice's conversations show the model."""
    return str(alice.pk)


@pytest.fixture
def alice_contacts(alice):
    return [
        EmergencyContactFactory(user=alice, name="Dana", phone="+14155550101", priority=1),
        EmergencyContactFactory(user=alice, name="Eli", phone="+14155550102", priority=2),
    ]


@pytest.fixture
def bob_contact(bob):
    return EmergencyContactFactory(user=bob, name="Bob's brother", phone="+14155550199")


@pytest.fixture
def general_physician(db):
    return SpecializationFactory(name="general physician", synonyms=["gp", "general practitioner"])


@pytest.fixture
def tomorrow_at_ten(alice) -> dt.datetime:
    """Tomorrow 10:00 in alice's time zone (Europe/Berlin, from the factory)."""
    local = timezone.now().astimezone(BERLIN) + dt.timedelta(days=1)
    return local.replace(hour=10, minute=0, second=0, microsecond=0)


@pytest.fixture
def gp_slot(general_physician, tomorrow_at_ten):
    specialist = SpecialistFactory(name="Dr. Diego Arroyo", specialization=general_physician)
    return SlotFactory(
        specialist=specialist, starts_at=tomorrow_at_ten, ends_at=tomorrow_at_ten + dt.timedelta(minutes=30)
    )


@pytest.fixture
def dietician_slot(tomorrow_at_ten):
    dietician = SpecializationFactory(name="dietician", synonyms=["dietitian", "nutritionist"])
    specialist = SpecialistFactory(name="Dr. Mia Chen", specialization=dietician)
    starts = tomorrow_at_ten + dt.timedelta(hours=4)
    return SlotFactory(specialist=specialist, starts_at=starts, ends_at=starts + dt.timedelta(minutes=30))


@pytest.fixture
def ambulances(db):
    """One ambulance near alice's home in Berlin, one far away in Munich, one busy nearby."""
    return {
        "near": AmbulanceFactory(code="AMB-NEAR", phone="+14155560001", latitude=52.53, longitude=13.41),
        "far": AmbulanceFactory(code="AMB-FAR", phone="+14155560002", latitude=48.14, longitude=11.58),
        "busy": AmbulanceFactory(
            code="AMB-BUSY", phone="+14155560003", latitude=52.52, longitude=13.405, available=False
        ),
    }


@pytest.fixture(scope="session")
def default_model_dir(tmp_path_factory):
    """The default model converted once per test session (every module asks for the same directory)."""
    return model_store.prepare(tmp_path_factory.getbasetemp() / "model-cache").path


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory, default_model_dir):
    """A 2-layer Llama with random weights, saved with SmolLM2's tokenizer and chat template."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(default_model_dir, local_files_only=True)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
