"""The @tool decorator builds OpenAI-format JSON Schemas from type hints and the
docstring's Args: section; the registry holds the seed paper's tools by name."""

from __future__ import annotations

from typing import TypedDict

import pytest

from agents.tools import REGISTRY, InvalidArguments, Registry, UnknownTool, tool


class Point(TypedDict):
    x: float
    y: float


def test_a_tool_schema_comes_from_type_hints_and_the_docstring():
    registry = Registry()

    @tool(registry=registry)
    def measure(ctx, name: str, where: Point, times: list[int], loud: bool = False, note: str | None = None) -> dict:
        """Measures something somewhere.

        More words that are not the description.

        Args:
            name: What to measure.
            where: Where to measure it,
                as a point.
            times: How often.
            loud: Whether to shout.
            note: Anything else.
        """
        return {}

    assert measure.openai_schema() == {
        "type": "function",
        "function": {
            "name": "measure",
            "description": "Measures something somewhere.",
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "What to measure."},
                    "where": {
                        "type": "object",
                        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                        "required": ["x", "y"],
                        "additionalProperties": False,
                        "description": "Where to measure it, as a point.",
                    },
                    "times": {"type": "array", "items": {"type": "integer"}, "description": "How often."},
                    "loud": {"type": "boolean", "description": "Whether to shout."},
                    "note": {"type": "string", "description": "Anything else."},
                },
                "required": ["name", "where", "times"],
                "additionalProperties": False,
            },
        },
    }
    assert registry.names() == ["measure"]


def test_an_undocumented_argument_is_a_definition_error():
    with pytest.raises(TypeError, match="'size' is not described"):

        @tool(registry=Registry())
        def shrink(ctx, size: int) -> bool:
            """Shrinks.

            Args:
                other: Not size.
            """
            return True


def test_validation_reports_every_problem_at_once():
    with pytest.raises(InvalidArguments) as error:
        REGISTRY.get("store_symptoms").validate({"user_id": 7, "symptoms": "x"})

    assert str(error.value) == (
        "Invalid parameters for store_symptoms: 'timestamp' is a required property; user_id: 7 is not of type 'string'."
    )


def test_an_unknown_tool_names_the_available_ones():
    with pytest.raises(
        UnknownTool, match="Available tools: answer_user, book_appointment, cancel_appointment, confirm_appointment"
    ):
        REGISTRY.get("teleport")


PAPER_TOOLS = {
    # Appendix E / D: name -> (parameters, required)
    "get_location": (set(), set()),
    "search_ambulance": ({"location"}, {"location"}),
    "send_message": ({"phone_no", "text", "to_emergency_contacts"}, {"text"}),
    "get_available_specialists": ({"symptoms", "specialization", "user_schedule"}, {"symptoms"}),
    "confirm_appointment": (
        {"user_id", "specialist_id", "appointment_time_date"},
        {"user_id", "specialist_id", "appointment_time_date"},
    ),
    "book_appointment": (
        {"user_id", "specialist_id", "appointment_time_date"},
        {"user_id", "specialist_id", "appointment_time_date"},
    ),
    "save_appointment_history": (
        {"user_id", "symptoms", "specialist_id", "appointment_time_date"},
        {"user_id", "symptoms", "specialist_id", "appointment_time_date"},
    ),
    "get_appointment_history": ({"user_id"}, {"user_id"}),
    "retrieve_past_complaints": ({"user_id", "symptoms", "date_range"}, {"user_id", "symptoms"}),
    "follow_up_with_user": (
        {"user_id", "past_complaints", "current_symptoms", "preferred_contact_method"},
        {"user_id", "current_symptoms"},
    ),
    "notify_user": ({"user_id", "message", "symptoms"}, {"user_id"}),
    "get_input_from_user": ({"user_id", "questions"}, {"user_id", "questions"}),
    "store_symptoms": ({"user_id", "symptoms", "timestamp"}, {"user_id", "symptoms", "timestamp"}),
    "get_assigned_ambulance": ({"user_id"}, {"user_id"}),
}


@pytest.mark.parametrize("name", sorted(PAPER_TOOLS))
def test_every_paper_tool_is_registered_with_the_papers_parameters(name):
    parameters = REGISTRY.get(name).parameters

    assert (set(parameters["properties"]), set(parameters["required"])) == PAPER_TOOLS[name]


def test_the_other_use_cases_have_their_tools():
    assert {"set_medication_reminder", "get_latest_vitals", "get_daily_report"} <= set(REGISTRY.names())
    assert {t.name for t in REGISTRY if t.suspends} == {"get_input_from_user", "follow_up_with_user"}


def test_the_desks_tools_are_not_offered_to_the_model():
    """The adapters were trained on prompts that list the model's tools only; the runtime's desks call
    their own tools (agents/*_desk.py), which the model's prompts and the constrained caller never see."""
    offered = {t.name for t in REGISTRY.offered()}
    desks_only = {"answer_user", "get_upcoming_appointments", "cancel_appointment", "reschedule_appointment",
                  "get_health_summary", "get_todays_doses", "mark_dose_taken"}  # fmt: skip
    assert desks_only <= set(REGISTRY.names()) and not desks_only & offered
    assert {"get_available_specialists", "book_appointment", "notify_user", "send_message"} <= offered
