"""Alerts are read with their timeline; the patient can acknowledge a soft SOS
and cancel an alert that has sent nothing out, and nothing else."""

from __future__ import annotations

import pytest

from health.models import Alert, AlertEvent
from tests.factories import AlertFactory

K, S = Alert.Kind, Alert.State


def test_an_alert_is_listed_with_its_timeline(alice, alice_api):
    alert = AlertFactory(user=alice)
    AlertEvent.objects.create(alert=alert, kind="created", message="Low SpO2 for 3 minutes.")

    body = alice_api.get(f"/api/alerts/{alert.pk}/").json()

    assert [event["kind"] for event in body["events"]] == ["created"]
    assert body["is_active"] is True


def test_acknowledging_an_open_soft_sos_stamps_it_and_adds_an_event(alice, alice_api):
    alert = AlertFactory(user=alice, kind=K.SOFT, state=S.OPEN)

    response = alice_api.post(f"/api/alerts/{alert.pk}/acknowledge/")

    assert response.status_code == 200
    assert response.json()["state"] == "acknowledged"
    assert response.json()["acknowledged_at"] is not None
    assert [event["kind"] for event in response.json()["events"]] == ["acknowledged"]


@pytest.mark.parametrize(
    ("kind", "state"),
    [(K.SOFT, S.ACKNOWLEDGED), (K.SOFT, S.CANCELLED), (K.SOFT, S.RESOLVED), (K.HARD, S.OPEN), (K.HARD, S.COUNTDOWN)],
)
def test_acknowledging_anything_else_answers_409_and_changes_nothing(alice, alice_api, kind, state):
    alert = AlertFactory(user=alice, kind=kind, state=state)

    response = alice_api.post(f"/api/alerts/{alert.pk}/acknowledge/")

    assert response.status_code == 409
    alert.refresh_from_db()
    assert (alert.state, alert.acknowledged_at) == (state, None)
    assert not alert.events.exists()


@pytest.mark.parametrize(("kind", "state"), [(K.SOFT, S.OPEN), (K.SOFT, S.ACKNOWLEDGED), (K.HARD, S.COUNTDOWN)])
def test_an_alert_that_sent_nothing_out_can_be_cancelled(alice, alice_api, kind, state):
    alert = AlertFactory(user=alice, kind=kind, state=state)

    response = alice_api.post(f"/api/alerts/{alert.pk}/cancel/")

    assert response.status_code == 200
    assert response.json()["state"] == "cancelled"
    assert response.json()["is_active"] is False
    assert [event["kind"] for event in response.json()["events"]] == ["cancelled"]


def test_a_hard_sos_that_went_out_cannot_be_cancelled_here(alice, alice_api):
    """Its contacts were messaged and an ambulance may be on its way: ending it
    is the SOS flow's job, so this endpoint refuses and changes nothing."""
    alert = AlertFactory(user=alice, kind=K.HARD, state=S.OPEN)

    response = alice_api.post(f"/api/alerts/{alert.pk}/cancel/")

    assert response.status_code == 409
    assert "already gone out" in response.json()["detail"]
    alert.refresh_from_db()
    assert alert.state == S.OPEN
    assert not alert.events.exists()


def test_a_cancelled_soft_sos_lets_the_same_condition_raise_a_new_one(alice, alice_api):
    alert = AlertFactory(user=alice, kind=K.SOFT, condition="hypoxia")

    alice_api.post(f"/api/alerts/{alert.pk}/cancel/")

    AlertFactory(user=alice, kind=K.SOFT, condition="hypoxia")  # the one-active-per-condition rule allows it
    assert Alert.objects.filter(user=alice, condition="hypoxia").count() == 2


def test_alerts_filter_by_state_and_kind(alice, alice_api):
    soft = AlertFactory(user=alice, kind=K.SOFT)
    hard = AlertFactory(user=alice, kind=K.HARD, state=S.RESOLVED)

    assert [row["id"] for row in alice_api.get("/api/alerts/", {"kind": "hard"}).json()["results"]] == [hard.pk]
    assert [row["id"] for row in alice_api.get("/api/alerts/", {"state": "open"}).json()["results"]] == [soft.pk]
    assert alice_api.get("/api/alerts/", {"kind": "medium"}).status_code == 400


def test_alerts_cannot_be_raised_or_edited_through_this_api(alice, alice_api):
    """Raising an SOS is the SOS flows' job (a later issue)."""
    alert = AlertFactory(user=alice)

    assert alice_api.post("/api/alerts/", {"kind": "hard"}, format="json").status_code == 405
    assert alice_api.patch(f"/api/alerts/{alert.pk}/", {"state": "resolved"}, format="json").status_code == 405
    assert alice_api.delete(f"/api/alerts/{alert.pk}/").status_code == 405


def test_a_soft_alert_carries_what_the_patient_was_told_and_only_open_ones_are_waiting(alice, alice_api):
    """The banner's source: the alert's notice (the notification's wording, units included);
    once acknowledged the alert no longer lists as open, so its banner closes."""
    alert = AlertFactory(
        user=alice,
        kind=K.SOFT,
        state=S.OPEN,
        condition="hypertensive_crisis",
        summary="Very high blood pressure for 600 s (2 readings).",
        vitals_snapshot={"heart_rate": 88, "systolic_bp": 188, "diastolic_bp": 124},
    )

    notice = alice_api.get(f"/api/alerts/{alert.pk}/").json()["notice"]

    assert notice["title"] == "Alert: very high blood pressure"
    assert notice["vitals"] == ["Heart rate: 88 bpm", "Blood pressure: 188/124 mmHg"]
    assert notice["advice"] == "Sit quietly for five minutes and measure your blood pressure again."
    assert notice["body"].startswith("Very high blood pressure for 600 s (2 readings).\n\nYour vitals:\n")
    assert [a["id"] for a in alice_api.get("/api/alerts/?kind=soft&state=open").json()["results"]] == [alert.pk]
    alice_api.post(f"/api/alerts/{alert.pk}/acknowledge/")
    assert alice_api.get("/api/alerts/?kind=soft&state=open").json()["results"] == []


def test_an_sos_text_still_unconfirmed_after_a_minute_tells_the_patient_to_call(alice, alice_api):
    import datetime as dt

    from django.utils import timezone

    from health.models import OutboundMessage
    from tests.factories import OutboundMessageFactory

    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, state=Alert.State.OPEN, condition="")
    message = OutboundMessageFactory(
        user=alice, alert=alert, phase="start", recipient_kind="ambulance", status=OutboundMessage.Status.QUEUED
    )

    fresh = alice_api.get(f"/api/alerts/{alert.pk}/").json()["delivery"]
    OutboundMessage.objects.filter(pk=message.pk).update(created_at=timezone.now() - dt.timedelta(seconds=61))
    late = alice_api.get(f"/api/alerts/{alert.pk}/").json()["delivery"]

    assert fresh["start"]["ambulance"]["state"] == late["start"]["ambulance"]["state"] == "pending"
    assert (fresh["call_emergency_number"], late["call_emergency_number"]) == (False, True)
    assert late["emergency_number"] == "911"
