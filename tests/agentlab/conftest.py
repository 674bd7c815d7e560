"""The lab's tests run on the Action Manager's small world and models: the same fixtures as tests/agents."""

from __future__ import annotations

from tests.agents.conftest import (  # noqa: F401 (fixtures, registered by being imported here)
    alice_contacts,
    ambulances,
    default_model_dir,
    general_physician,
    gp_slot,
    tiny_model_dir,
    tomorrow_at_ten,
)
