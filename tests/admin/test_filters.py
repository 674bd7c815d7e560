"""The operator's quick views: custom filters and search find the right rows."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from health.models import Alert, DoseEvent, OutboundMessage, Specialization
from tests.factories import (
    AlertFactory,
    AppointmentFactory,
    DeviceFactory,
    DoseEventFactory,
    OutboundMessageFactory,
    SlotFactory,
    VitalReadingFactory,
)


def _shown(client, url: str, params: dict[str, str]) -> set[int]:
    response = client.get(url, params)
    assert response.status_code == 200
    return {row.pk for row in response.context["cl"].result_list}


@pytest.fixture
def appointments(db, alice) -> dict[str, object]:
    now = timezone.now()
    start_of_day = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    at = {
        "past": now - dt.timedelta(days=3),
        "today": start_of_day,
        "upcoming": now + dt.timedelta(days=3),
    }
    return {key: AppointmentFactory(user=alice, slot=SlotFactory(starts_at=when)) for key, when in at.items()}


def test_the_when_filter_splits_appointments_into_today_upcoming_and_past(operator, appointments):
    url = "/admin/health/appointment/"
    pk = {key: appointment.pk for key, appointment in appointments.items()}
    assert _shown(operator, url, {"when": "today"}) == {pk["today"]}
    assert _shown(operator, url, {"when": "upcoming"}) == {pk["upcoming"]}
    assert _shown(operator, url, {"when": "past"}) == {pk["past"], pk["today"]}
    assert _shown(operator, url, {}) == set(pk.values())


def test_appointments_are_listed_soonest_first(operator, appointments):
    response = operator.get("/admin/health/appointment/")
    starts = [appointment.slot.starts_at for appointment in response.context["cl"].result_list]
    assert starts == sorted(starts)


def test_the_dose_quick_filters_find_missed_and_overdue_doses(operator, alice):
    now = timezone.now()
    missed = DoseEventFactory(due_at=now - dt.timedelta(hours=5), state=DoseEvent.State.MISSED)
    overdue = DoseEventFactory(due_at=now - dt.timedelta(hours=1), state=DoseEvent.State.SENT)
    snooze_over = DoseEventFactory(
        due_at=now - dt.timedelta(hours=1), state=DoseEvent.State.SNOOZED, snoozed_until=now - dt.timedelta(minutes=5)
    )
    DoseEventFactory(
        due_at=now - dt.timedelta(hours=1), state=DoseEvent.State.SNOOZED, snoozed_until=now + dt.timedelta(minutes=5)
    )
    DoseEventFactory(due_at=now - dt.timedelta(hours=2), state=DoseEvent.State.TAKEN)
    DoseEventFactory(due_at=now + dt.timedelta(hours=2), state=DoseEvent.State.DUE)

    url = "/admin/health/doseevent/"
    assert _shown(operator, url, {"attention": "missed"}) == {missed.pk}
    assert _shown(operator, url, {"state__exact": "missed"}) == {missed.pk}
    assert _shown(operator, url, {"attention": "overdue"}) == {overdue.pk, snooze_over.pk}


def test_alerts_filter_by_kind_state_and_activity(operator, alice):
    open_hard = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")
    open_soft = AlertFactory(user=alice)
    resolved = AlertFactory(user=alice, state=Alert.State.RESOLVED)

    url = "/admin/health/alert/"
    assert _shown(operator, url, {"kind__exact": "hard", "state__exact": "open"}) == {open_hard.pk}
    assert _shown(operator, url, {"active": "yes"}) == {open_hard.pk, open_soft.pk}
    assert _shown(operator, url, {"active": "no"}) == {resolved.pk}


def test_alerts_are_listed_newest_first(operator, alice):
    alerts = [AlertFactory(user=alice) for _ in range(3)]
    response = operator.get("/admin/health/alert/")
    assert [alert.pk for alert in response.context["cl"].result_list] == [alert.pk for alert in reversed(alerts)]


def test_outbox_failures_filter_by_status_and_recipient_kind_and_search_recipient_and_body(operator, alice):
    failed_ambulance = OutboundMessageFactory(
        user=alice,
        status=OutboundMessage.Status.FAILED,
        recipient="+14155550171",
        recipient_kind=OutboundMessage.RecipientKind.AMBULANCE,
        body="Hard SOS: patient at 742 Valencia Street",
    )
    OutboundMessageFactory(user=alice, status=OutboundMessage.Status.FAILED)
    OutboundMessageFactory(user=alice, status=OutboundMessage.Status.SENT)

    url = "/admin/health/outboundmessage/"
    assert _shown(operator, url, {"status__exact": "failed", "recipient_kind__exact": "ambulance"}) == {
        failed_ambulance.pk
    }
    assert _shown(operator, url, {"q": "+14155550171"}) == {failed_ambulance.pk}
    assert _shown(operator, url, {"q": "Valencia"}) == {failed_ambulance.pk}


def test_specializations_are_found_by_synonym(operator, seeded):
    ent = Specialization.objects.get(name="ent")
    assert _shown(operator, "/admin/health/specialization/", {"q": "otolaryngologist"}) == {ent.pk}


def test_slots_filter_by_booking(operator, appointments):
    booked = {appointment.slot_id for appointment in appointments.values()}
    free = SlotFactory()
    url = "/admin/health/slot/"
    assert _shown(operator, url, {"booked": "yes"}) == booked
    assert _shown(operator, url, {"booked": "no"}) == {free.pk}


def test_vitals_filter_by_device_and_drill_down_by_date(operator, alice):
    watch, ring = DeviceFactory(user=alice), DeviceFactory(user=alice, name="Ring")
    from_watch = VitalReadingFactory(device=watch)
    VitalReadingFactory(device=ring)
    url = "/admin/health/vitalreading/"
    assert _shown(operator, url, {"device__id__exact": str(watch.pk)}) == {from_watch.pk}
    day = from_watch.measured_at
    drilled = _shown(
        operator,
        url,
        {"measured_at__year": day.year, "measured_at__month": day.month, "measured_at__day": day.day},
    )
    assert from_watch.pk in drilled
