"""What the Action Manager gives the daily report: the day's conversations in a line each, and the
model's summary, which the Health Manager keeps only when the facts bear it out."""

from __future__ import annotations

import datetime as dt
from unittest import mock

from agents import reports
from agents.llm.scripted import ScriptedBackend
from agents.models import AgentStep, Conversation
from agents.runtime import Runtime
from health.models import DailyReport
from health.reports import generate, hooks
from tests.agents.helpers import BERLIN, call, end, plan
from tests.factories import (
    AgentStepFactory,
    AppointmentFactory,
    ConversationFactory,
    DeviceFactory,
    OutboundMessageFactory,
    VitalReadingFactory,
)

DAY_START = dt.datetime(2026, 3, 2, tzinfo=BERLIN)
DAY_END = DAY_START + dt.timedelta(days=1)


def step(conversation, index, role, payload, at):
    created = AgentStepFactory(conversation=conversation, index=index, role=role, payload=payload)
    AgentStep.objects.filter(pk=created.pk).update(created_at=at)


def test_the_agents_app_registers_its_report_hooks():
    assert hooks._conversation_points is reports.conversation_points
    assert hooks._narrator is reports.narrate


def test_each_conversation_of_the_day_is_one_line_of_what_was_done(alice):
    chat = ConversationFactory(user=alice, title="I have chest pain since morning")
    noon = DAY_START + dt.timedelta(hours=12)
    step(chat, 0, "user", "I have chest pain since morning", noon)
    step(chat, 1, "caller", {"tool": "match_specialization", "parameters": {}}, noon)
    step(chat, 2, "observation", {"result": {"specialization": "cardiologist"}}, noon)
    step(chat, 3, "caller", {"tool": "book_appointment", "parameters": {}}, noon)
    step(chat, 4, "observation", {"result": {"booked": True}}, noon)
    step(chat, 5, "caller", {"tool": "store_symptoms", "parameters": {}}, noon)
    step(chat, 6, "observation", {"error": "not said"}, noon)  # failed: not something done
    step(chat, 7, "caller", {"tool": "get_latest_vitals", "parameters": {}}, noon)  # a lookup changes nothing
    step(chat, 8, "observation", {"result": {}}, noon)
    yesterday = ConversationFactory(user=alice, title="Old question")
    step(yesterday, 0, "user", "Old question", DAY_START - dt.timedelta(hours=1))
    AppointmentFactory(user=alice, conversation=chat, state="confirmed")
    sos = ConversationFactory(user=alice, kind=Conversation.Kind.HARD_SOS_START)
    step(sos, 0, "caller", {"tool": "send_message", "parameters": {}}, noon)
    step(sos, 1, "observation", {"result": {"status": "queued"}}, noon)
    OutboundMessageFactory(user=alice, idempotency_key=f"agent:{sos.pk}:0:+14155550100", status="sent")
    bobs = ConversationFactory(title="Bob's chat")
    step(bobs, 0, "user", "Bob's chat", noon)

    points = reports.conversation_points(alice.pk, DAY_START, DAY_END)

    assert points == [
        "\u201cI have chest pain since morning\u201d: the assistant found the kind of specialist to see, "
        "booked an appointment.",
        "Hard SOS start: the assistant sent a text message.",
    ]


def test_a_held_slot_and_an_undelivered_or_declined_text_are_reported_as_what_the_records_say(alice):
    """The report reads the appointment and the outbox, not the model's call: a held slot is not
    "booked", a queued text is not "sent", a text the patient said no to was never sent at all."""
    noon = DAY_START + dt.timedelta(hours=12)
    lines = {}
    for name, appointment, outbox, result in [
        ("held", "held", None, {"booked": True}),
        ("queued", None, "queued", {"status": "queued"}),
        ("failed", None, "not_sent", {"status": "not sent"}),
        ("declined", None, None, {"status": "not sent", "user": "no", "message": "Not sent: you did not agree."}),
    ]:
        chat = ConversationFactory(user=alice, title=name)
        tool = "book_appointment" if appointment else "send_message"
        step(chat, 0, "caller", {"tool": tool, "parameters": {}}, noon)
        step(chat, 1, "observation", {"result": result}, noon)
        if appointment:
            AppointmentFactory(user=alice, conversation=chat, state=appointment)
        if outbox:
            OutboundMessageFactory(user=alice, idempotency_key=f"agent:{chat.pk}:0:+14155550100", status=outbox)
        lines[name] = chat

    points = reports.conversation_points(alice.pk, DAY_START, DAY_END)

    assert points == [
        "\u201cheld\u201d: the assistant held an appointment slot for you to confirm (not booked yet).",
        "\u201cqueued\u201d: the assistant queued a text message (not sent yet).",
        "\u201cfailed\u201d: the assistant tried to send a text message that was not delivered.",
        "\u201cdeclined\u201d.",  # nothing done: the line names the chat only
    ]


def test_the_models_summary_is_kept_when_the_facts_bear_it_out(alice, settings):
    settings.REPORT_MODEL_NARRATIVE = True
    device = DeviceFactory(user=alice)
    VitalReadingFactory(device=device, measured_at=DAY_START + dt.timedelta(hours=9), heart_rate=64, steps=0)
    VitalReadingFactory(device=device, measured_at=DAY_START + dt.timedelta(hours=10), heart_rate=80, steps=0)
    backend = ScriptedBackend(
        planner=["Your heart rate stayed between 64 and 80 bpm.", "Your heart rate reached 140 bpm."]
    )

    with mock.patch("agents.services.load_backend", return_value=backend):
        kept = generate.build(alice, DAY_START.date(), now=DAY_END)
        refused = generate.build(alice, DAY_START.date(), now=DAY_END)

    assert (kept.narrative, kept.narrative_source) == (
        "Your heart rate stayed between 64 and 80 bpm.",
        DailyReport.NarrativeSource.MODEL,
    )
    assert refused.narrative_source == DailyReport.NarrativeSource.TEMPLATE
    assert refused.narrative.startswith("Heart rate 64\u201380 bpm")
    role, messages = backend.calls[0]
    assert role == "planner" and '"heart_rate"' in messages[1].content


def test_without_a_model_the_template_writes_the_summary(alice, settings):
    settings.REPORT_MODEL_NARRATIVE = True

    with mock.patch("agents.services.load_backend", return_value=None):
        report = generate.build(alice, DAY_START.date(), now=DAY_END)

    assert report.narrative_source == DailyReport.NarrativeSource.TEMPLATE
    assert "No vitals were recorded on this day." in report.narrative


def test_how_was_my_day_in_chat_observes_the_days_computed_facts(alice):
    evening = DAY_START + dt.timedelta(hours=18)
    alice.date_joined = DAY_START - dt.timedelta(days=30)
    alice.save()
    VitalReadingFactory(device=DeviceFactory(user=alice), measured_at=evening - dt.timedelta(hours=1), heart_rate=71)
    backend = ScriptedBackend(
        planner=[plan("The user asks about their day.", "Get today's daily report."), end()],
        caller=[call("get_daily_report", user_id=str(alice.pk))],
    )

    conversation = Conversation.objects.create(
        user=alice, title="Anything I should know about today?", status=Conversation.Status.IDLE
    )
    with mock.patch("django.utils.timezone.now", return_value=evening):
        Runtime(conversation, None, clock=lambda: evening).begin("Anything I should know about today?")
        Runtime(conversation, backend, clock=lambda: evening).run()

    observation = conversation.steps.get(role="observation").payload["result"]
    assert observation["date"] == "2026-03-02" and observation["complete"] is False
    assert observation["heart_rate"]["max"] == 71 and observation["steps"] is None
    assert observation["summary"] == DailyReport.objects.get(user=alice, date=DAY_START.date()).narrative
    assert DailyReport.objects.filter(user=alice).count() == 1
