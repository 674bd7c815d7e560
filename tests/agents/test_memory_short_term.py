"""Short-term memory: the conversation's working state, and what the planner's prompt carries."""

from __future__ import annotations

from agents.llm.scripted import ScriptedBackend
from agents.memory import short_term
from agents.prompts import MAX_CHAT_STATES, build_chat, summarised
from agents.services import start_chat
from tests.agents.helpers import end, plan
from tests.agents.memory_personas import conditions

OFFER = {
    "specialist_id": "7",
    "name": "Dr. Lena Vogt (cardiologist)",
    "available_slot": {"date": "2026-11-26", "time": "10:00-10:30"},
    "alternatives": [{"specialist_id": "9", "name": "Dr. Paul Roth (cardiologist)", "date": "2026-11-27",
                      "time": "14:00-14:30"}],
}  # fmt: skip


def booking_request(said: str = "I get chest pain when I climb stairs, can you book someone?") -> list[dict]:
    return [
        {"from": "user", "value": said},
        {"from": "planner", "value": {"reason": "Chest pain.", "action": "Match a specialization."}},
        {"from": "caller", "value": {"tool": "match_specialization", "parameters": {"symptoms": "chest pain"}}},
        {"from": "observation", "value": {"result": {"specializations": ["cardiologist", "pulmonologist"]}}},
        {"from": "planner", "value": {"reason": "Cardiologist.", "action": "Find one."}},
        {"from": "caller", "value": {"tool": "get_available_specialists",
                                     "parameters": {"symptoms": "chest pain", "specialization": "cardiologist"}}},
        {"from": "observation", "value": {"result": OFFER}},
        {"from": "planner", "value": {"reason": "Offer it.", "action": "Ask the user."}},
        {"from": "caller", "value": {"tool": "get_input_from_user",
                                     "parameters": {"user_id": "1", "questions": "Which time suits you?"}}},
        {"from": "observation", "value": {"result": "the first one"}},
        {"from": "planner", "value": {"reason": "First one.", "action": "Book it."}},
        {"from": "caller", "value": {"tool": "book_appointment", "parameters": {
            "user_id": "1", "specialist_id": "7", "appointment_time_date": "2026-11-26T10:00:00"}}},
        {"from": "observation", "value": {"result": True}},
        {"from": "planner", "value": {"reason": "Booked.", "action": "<END>"}},
    ]  # fmt: skip


SYSTEM = {"from": "system", "value": {"user_details": {"user_id": "1", "name": "Alice", "timestamp": ""}}}


def test_the_working_state_holds_the_complaint_answers_offers_and_booking():
    (request,) = short_term.requests([SYSTEM, *booking_request()])

    assert request.symptoms == ["chest pain"]
    assert request.answers == [("Which time suits you?", "the first one")]
    assert request.specializations == ["cardiologist", "pulmonologist"]
    assert [o["name"] for o in request.offered] == ["Dr. Lena Vogt (cardiologist)", "Dr. Paul Roth (cardiologist)"]
    assert request.booked == {
        "specialist_id": "7",
        "when": "2026-11-26T10:00:00",
        "name": "Dr. Lena Vogt (cardiologist)",
    }
    assert request.done


def test_the_summary_numbers_the_offers_and_names_what_was_booked():
    (request,) = short_term.requests([SYSTEM, *booking_request()])

    line = short_term.summary(request)

    assert "[1] Dr. Lena Vogt (cardiologist) 2026-11-26 10:00-10:30" in line
    assert "[2] Dr. Paul Roth (cardiologist) 2026-11-27" in line
    assert "; booked Dr. Lena Vogt (cardiologist) at 2026-11-26T10:00:00;" in line


def test_a_short_chat_is_shown_whole():
    states = [SYSTEM, *booking_request(), {"from": "user", "value": "actually make it Thursday"}]

    assert summarised(states) == (states, "")


def test_a_long_chat_summarises_its_earlier_requests_and_keeps_the_current_one():
    earlier = [*booking_request("my chest hurts when I walk"), *booking_request(), *booking_request()]
    states = [SYSTEM, *earlier, {"from": "user", "value": "actually make it Thursday"}]
    assert len(states) > MAX_CHAT_STATES

    messages = build_chat("planner", states, tool_names=["book_appointment"])

    system = messages[0].content
    assert 'Earlier in this chat: (1) said "my chest hurts when I walk"' in system
    assert "booked Dr. Lena Vogt (cardiologist) at 2026-11-26T10:00:00" in system
    assert messages[-1].content.endswith("user: actually make it Thursday")
    shown = "\n".join(m.content for m in messages[1:])
    assert "my chest hurts when I walk" not in shown  # summarised, not repeated


def test_the_planner_reads_the_users_memory_and_the_caller_does_not(alice):
    conditions(alice, "asthma", allergies=("penicillin",))
    backend = ScriptedBackend(planner=[end()])

    start_chat(alice, "my chest feels tight and I keep wheezing", backend=backend)

    (role, messages), *_ = backend.calls
    assert role == "planner"
    memory = next(line for line in messages[0].content.splitlines() if line.startswith("Memory: "))
    assert "Known condition: asthma" in memory and "Allergy: penicillin" in memory


def test_a_chat_without_history_gets_no_memory_line(bob):
    backend = ScriptedBackend(planner=[plan("Hi.", "<END>")])

    start_chat(bob, "hello there, I have a question", backend=backend)

    assert "Memory:" not in backend.calls[0][1][0].content


def test_the_few_shot_prompt_also_summarises_earlier_requests_instead_of_dropping_them():
    from agents.prompts import build_messages
    from agents.tools import REGISTRY

    states = [SYSTEM, *booking_request("my chest hurts when I walk"), {"from": "user", "value": "make it Thursday"}]

    messages = build_messages("planner", states, REGISTRY, few_shot=True)

    assert 'Earlier in this chat: (1) said "my chest hurts when I walk"; booked Dr. Lena Vogt' in messages[0].content
    assert messages[-1].content == "user: make it Thursday\nplanner:"


def test_the_memory_line_has_who_the_patient_is_then_only_the_related_records(alice):
    import datetime as dt

    from agents.memory.context import long_term
    from tests.agents.memory_personas import complaint

    alice.profile.date_of_birth = dt.date(1980, 1, 1)
    alice.profile.sex = "female"
    alice.profile.save()
    conditions(alice, "asthma", allergies=("penicillin",))
    complaint(alice, "wheezing and a tight chest at night", 15, "pulmonologist")
    complaint(alice, "itchy red rash on both arms", 40, "dermatologist")

    line = long_term(alice, "I keep wheezing again")

    assert line.startswith("Profile: ")
    assert "years old, female; Known condition: asthma; Allergy: penicillin; " in line
    assert "wheezing and a tight chest at night" in line
    assert "rash" not in line
