"""The SOS button through the API: a countdown that can be cancelled, then
exactly one message to the nearest ambulance and one to every contact; the end
tells them it is over and releases the ambulance. The clock is moved by the
tests; the beat sweep and the countdown task are called as beat would."""

from __future__ import annotations

import pytest

from health.models import Alert, AlertEvent, Ambulance, Dispatch, Notification, OutboundMessage
from health.tasks import hard_sos_countdown_elapsed, sweep_sos_countdowns
from tests.factories import AlertFactory, EmergencyContactFactory

COUNTDOWN = 10


@pytest.fixture(autouse=True)
def ten_second_countdown(settings):
    settings.SOS_COUNTDOWN_SECONDS = COUNTDOWN


def outbox(alert: Alert) -> list[tuple[str, str]]:
    return sorted((m.recipient_kind, m.recipient) for m in OutboundMessage.objects.filter(alert=alert))


def press(client, clock, at: float = 0) -> tuple[int, dict]:
    with clock(at):
        response = client.post("/api/sos/", {}, format="json")
    return response.status_code, response.json()


def sweep(clock, at: float) -> int:
    with clock(at):
        return sweep_sos_countdowns.delay().get()


def started(client, clock) -> Alert:
    status, body = press(client, clock)
    assert status == 201
    sweep(clock, COUNTDOWN + 1)
    return Alert.objects.get(pk=body["id"])


def end(client, alert: Alert, clock, at: float, django_capture_on_commit_callbacks, reason: str = "safe"):
    with clock(at), django_capture_on_commit_callbacks(execute=True):
        return client.post(f"/api/sos/{alert.pk}/end/", {"reason": reason})


START_ROWS = [
    ("ambulance", "+14155560001"),
    ("emergency_contact", "+14155550101"),
    ("emergency_contact", "+14155550102"),
]


def test_pressing_sos_starts_a_countdown_and_sends_nothing_yet(alice, alice_api, alice_contacts, ambulances, clock):
    status, body = press(alice_api, clock)

    assert status == 201
    assert body["kind"] == "hard" and body["state"] == "countdown"
    alert = Alert.objects.get(pk=body["id"])
    assert (alert.countdown_ends_at - alert.created_at).total_seconds() == pytest.approx(COUNTDOWN)
    assert [e["kind"] for e in body["events"]] == ["pressed", "countdown_started"]
    assert OutboundMessage.objects.count() == 0


def test_the_countdown_task_run_before_the_countdown_ends_sends_nothing(alice, alice_api, alice_contacts, clock):
    _, body = press(alice_api, clock)

    with clock(COUNTDOWN - 1):
        hard_sos_countdown_elapsed.delay(body["id"])

    assert Alert.objects.get(pk=body["id"]).state == "countdown"
    assert OutboundMessage.objects.count() == 0


def test_after_the_countdown_the_nearest_ambulance_and_every_contact_get_exactly_one_message(
    alice, alice_api, alice_contacts, ambulances, clock
):
    EmergencyContactFactory(name="Someone else's", phone="+14155550199")  # another user's contact
    _, body = press(alice_api, clock)

    assert sweep(clock, COUNTDOWN - 1) == 0
    assert sweep(clock, COUNTDOWN + 1) == 1

    alert = Alert.objects.get(pk=body["id"])
    assert alert.state == "open"
    assert outbox(alert) == START_ROWS
    to_ambulance = OutboundMessage.objects.get(alert=alert, recipient_kind="ambulance")
    assert "52.52" in to_ambulance.body and "13.405" in to_ambulance.body and "Alice" in to_ambulance.body
    assert Dispatch.objects.get(alert=alert, released_at__isnull=True).ambulance.code == "AMB-NEAR"
    assert Ambulance.objects.get(code="AMB-NEAR").available is False


def test_repeated_presses_and_sweeps_send_nothing_twice(alice, alice_api, alice_contacts, ambulances, clock):
    alert = started(alice_api, clock)

    status, body = press(alice_api, clock, at=COUNTDOWN + 2)
    sweep(clock, COUNTDOWN + 40)
    with clock(COUNTDOWN + 41):
        hard_sos_countdown_elapsed.delay(alert.pk)

    assert status == 200 and body["id"] == alert.pk
    assert Alert.objects.filter(user=alice, kind="hard").count() == 1
    assert outbox(alert) == START_ROWS
    assert Dispatch.objects.filter(alert=alert).count() == 1
    assert AlertEvent.objects.filter(alert=alert, kind="repeat_press").count() == 1


def test_cancelling_during_the_countdown_sends_nothing_even_after_it_ends(
    alice, alice_api, alice_contacts, ambulances, clock
):
    _, body = press(alice_api, clock)
    with clock(COUNTDOWN - 2):
        response = alice_api.post(f"/api/alerts/{body['id']}/cancel/")

    sweep(clock, COUNTDOWN + 1)
    with clock(COUNTDOWN + 2):
        hard_sos_countdown_elapsed.delay(body["id"])

    assert response.status_code == 200
    assert Alert.objects.get(pk=body["id"]).state == "cancelled"
    assert OutboundMessage.objects.count() == 0
    assert not Dispatch.objects.exists()


def test_ending_during_the_countdown_cancels_and_sends_nothing(alice, alice_api, alice_contacts, ambulances, clock):
    _, body = press(alice_api, clock)

    with clock(3):
        response = alice_api.post(f"/api/sos/{body['id']}/end/")
    sweep(clock, COUNTDOWN + 1)

    assert response.json()["state"] == "cancelled"
    assert OutboundMessage.objects.count() == 0


def test_a_zero_countdown_sends_at_once(
    alice, alice_api, alice_contacts, ambulances, settings, django_capture_on_commit_callbacks
):
    settings.SOS_COUNTDOWN_SECONDS = 0

    with django_capture_on_commit_callbacks(execute=True):
        response = alice_api.post("/api/sos/", {}, format="json")

    alert = Alert.objects.get(pk=response.json()["id"])
    assert alert.state == "open"
    assert outbox(alert) == START_ROWS


def test_an_end_whose_task_was_lost_is_run_by_the_sweep_once(
    alice, alice_api, alice_contacts, ambulances, clock, django_capture_on_commit_callbacks
):
    from health.sos import stalled_run_after

    alert = started(alice_api, clock)
    # The end is recorded, but its task never reaches a worker (Redis restarted empty).
    with clock(600), django_capture_on_commit_callbacks(execute=False) as lost:
        assert alice_api.post(f"/api/sos/{alert.pk}/end/", {"reason": "safe"}).status_code == 200
    assert lost
    quiet = stalled_run_after().total_seconds()
    sweep(clock, 600 + quiet - 5)  # a live end task may still be on its way: left alone
    alert.refresh_from_db()
    assert alert.state == "open" and not OutboundMessage.objects.filter(alert=alert, body__contains="safe now")

    sweep(clock, 600 + quiet + 5)
    sweep(clock, 600 + quiet + 10)  # resolved: nothing more to do

    alert.refresh_from_db()
    assert alert.state == "resolved"
    end_rows = OutboundMessage.objects.filter(alert=alert, body__contains="safe now")
    assert sorted((m.recipient_kind, m.recipient) for m in end_rows) == START_ROWS
    assert Dispatch.objects.get(alert=alert).released_at is not None


def test_ending_tells_the_ambulance_and_contacts_then_releases_the_ambulance(
    alice, alice_api, alice_contacts, ambulances, clock, django_capture_on_commit_callbacks
):
    alert = started(alice_api, clock)

    response = end(alice_api, alert, clock, 600, django_capture_on_commit_callbacks)

    assert response.status_code == 200
    alert.refresh_from_db()
    assert alert.state == "resolved" and alert.resolved_at is not None
    end_rows = OutboundMessage.objects.filter(alert=alert, body__contains="safe now")
    assert sorted((m.recipient_kind, m.recipient) for m in end_rows) == START_ROWS
    assert outbox(alert) == sorted(START_ROWS * 2)
    assert not OutboundMessage.objects.filter(body__icontains="false alarm").exists()
    dispatch = Dispatch.objects.get(alert=alert)
    assert dispatch.released_at is not None
    assert Ambulance.objects.get(code="AMB-NEAR").available is True
    timeline = list(alert.events.exclude(kind="guard_acted").values_list("kind", flat=True))
    assert timeline == [
        "pressed",
        "countdown_started",
        "opened",
        "agent_conversation",
        "ambulance_assigned",
        "start_finished",
        "end_requested",
        "agent_conversation",
        "ambulance_released",
        "resolved",
    ]


def test_ending_twice_sends_the_end_messages_once(
    alice, alice_api, alice_contacts, ambulances, clock, django_capture_on_commit_callbacks
):
    alert = started(alice_api, clock)

    end(alice_api, alert, clock, 600, django_capture_on_commit_callbacks)
    second = end(alice_api, alert, clock, 601, django_capture_on_commit_callbacks)

    assert second.status_code == 200 and second.json()["state"] == "resolved"
    assert outbox(alert) == sorted(START_ROWS * 2)


def end_rows(alert: Alert) -> list[OutboundMessage]:
    """The outbox rows queued after the start flow's three."""
    return list(OutboundMessage.objects.filter(alert=alert).order_by("pk"))[len(START_ROWS) :]


@pytest.mark.parametrize(
    ("reason", "words"),
    [("false_alarm", "false alarm"), ("help_arrived", "help has arrived"), ("safe", "safe now")],
)
def test_ending_sends_one_end_message_per_recipient_saying_the_patients_reason(
    alice, alice_api, alice_contacts, ambulances, clock, django_capture_on_commit_callbacks, reason, words
):
    alert = started(alice_api, clock)

    response = end(alice_api, alert, clock, COUNTDOWN + 30, django_capture_on_commit_callbacks, reason=reason)

    assert response.json()["end_reason"] == reason
    rows = end_rows(alert)
    # Exactly one end message per recipient, and it says what the patient said.
    assert sorted((m.recipient_kind, m.recipient) for m in rows) == START_ROWS
    assert all(words in m.body.lower() for m in rows), [m.body for m in rows]
    assert outbox(alert) == sorted(START_ROWS * 2)
    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert Ambulance.objects.get(code="AMB-NEAR").available is True
    assert alert.events.filter(kind="false_alarm").count() == (reason == "false_alarm")
    last_notice = Notification.objects.filter(user=alice).order_by("-id").first()
    assert last_notice.title.startswith("The SOS has ended (")


@pytest.mark.parametrize("reason", [None, "", "bored"])
def test_ending_an_sos_that_went_out_without_a_reason_is_refused_and_changes_nothing(
    alice, alice_api, alice_contacts, ambulances, clock, django_capture_on_commit_callbacks, reason
):
    alert = started(alice_api, clock)
    before = outbox(alert)

    with clock(COUNTDOWN + 30), django_capture_on_commit_callbacks(execute=True):
        response = alice_api.post(f"/api/sos/{alert.pk}/end/", {} if reason is None else {"reason": reason})

    assert response.status_code == 400
    assert "reason" in response.json()
    alert.refresh_from_db()
    assert alert.is_active and alert.end_reason == ""
    assert outbox(alert) == before
    assert not alert.events.filter(kind="end_requested").exists()


def test_ending_before_the_start_flow_ran_runs_it_first_so_no_ambulance_stays_dispatched(
    alice, alice_api, alice_contacts, ambulances, clock, django_capture_on_commit_callbacks
):
    _, body = press(alice_api, clock)
    alert = Alert.objects.get(pk=body["id"])
    # The countdown ended and the alert opened, but its start task has not run yet.
    Alert.objects.filter(pk=alert.pk).update(state=Alert.State.OPEN)

    end(alice_api, alert, clock, COUNTDOWN + 5, django_capture_on_commit_callbacks)

    alert.refresh_from_db()
    assert alert.state == "resolved"
    assert not Dispatch.objects.filter(released_at__isnull=True).exists()
    assert Ambulance.objects.get(code="AMB-NEAR").available is True
    kinds = list(alert.events.filter(kind="agent_conversation").values_list("data__conversation_kind", flat=True))
    assert kinds == ["hard_sos_start", "hard_sos_end"]


def test_only_a_few_hard_sos_go_out_per_hour(alice, alice_api, alice_contacts, ambulances, clock, settings):
    settings.SOS_MAX_PER_HOUR = 2
    for _ in range(2):
        AlertFactory(user=alice, kind=Alert.Kind.HARD, state=Alert.State.RESOLVED)
    AlertFactory(user=alice, kind=Alert.Kind.HARD, state=Alert.State.CANCELLED)  # sent nothing: not counted

    status, body = press(alice_api, clock)

    assert status == 429
    assert "emergency number" in body["detail"]
    assert Alert.objects.filter(user=alice, kind="hard").count() == 3


def test_escalating_a_soft_sos_starts_a_hard_sos_countdown_and_resolves_the_soft_one(
    alice, alice_api, alice_contacts, ambulances, clock
):
    soft = AlertFactory(user=alice, kind=Alert.Kind.SOFT, condition="hypoxia", vitals_snapshot={"spo2": 86})

    with clock(0):
        response = alice_api.post(f"/api/sos/{soft.pk}/escalate/")
    again = alice_api.post(f"/api/sos/{soft.pk}/escalate/")
    sweep(clock, COUNTDOWN + 1)

    assert response.status_code == 201
    assert again.status_code == 200 and again.json()["id"] == response.json()["id"]
    hard = Alert.objects.get(pk=response.json()["id"])
    assert hard.kind == "hard" and hard.escalated_from == soft and hard.state == "open"
    soft.refresh_from_db()
    assert soft.state == "resolved"
    assert outbox(hard) == START_ROWS


def test_a_hard_sos_cannot_be_escalated_and_a_soft_one_cannot_be_ended(alice, alice_api):
    hard = AlertFactory(user=alice, kind=Alert.Kind.HARD, state=Alert.State.OPEN)
    soft = AlertFactory(user=alice, kind=Alert.Kind.SOFT)

    assert alice_api.post(f"/api/sos/{hard.pk}/escalate/").status_code == 409
    assert alice_api.post(f"/api/sos/{soft.pk}/end/").status_code == 409
    assert not AlertEvent.objects.exists()


class WorkerDied(BaseException):
    """The worker running the start flow was killed (not an Exception: nothing in the code catches it)."""


def test_a_start_flow_whose_worker_died_half_way_is_resumed_by_the_sweep(
    alice, alice_api, alice_contacts, ambulances, clock, settings
):
    from agents.llm import scripted
    from agents.llm.scripted import ScriptedBackend
    from health.sos import stalled_run_after
    from tests.agents.helpers import call, plan

    ref = str(alice.pk)
    settings.AGENT_BACKEND = "scripted"
    scripted.install(
        ScriptedBackend(
            planner=[
                plan("a", "notify"),
                plan("b", "locate"),
                plan("c", "search"),
                plan("d", "ambulance"),
                WorkerDied(),
            ],
            caller=[
                call("notify_user", user_id=ref, message="Hard SOS triggered."),
                call("get_location"),
                call("search_ambulance", location={"latitude": 52.52, "longitude": 13.405}),
                call("send_message", phone_no="+14155560001", text="Ambulance needed."),
            ],
        )
    )
    try:
        _, body = press(alice_api, clock)
        with pytest.raises(WorkerDied):
            sweep(clock, COUNTDOWN + 1)
    finally:
        scripted.install(None)
    alert = Alert.objects.get(pk=body["id"])
    # Died after messaging the ambulance, before the contacts.
    assert outbox(alert) == START_ROWS[:1]
    settings.AGENT_BACKEND = "openai"  # no model now: the guard finishes the run

    quiet = stalled_run_after().total_seconds()
    sweep(clock, COUNTDOWN + quiet - 5)  # a live run may still be thinking: not resumed yet
    assert outbox(alert) == START_ROWS[:1]
    sweep(clock, COUNTDOWN + quiet + 5)

    assert outbox(alert) == START_ROWS
    assert alert.events.filter(kind="start_finished").exists()
