"""Admin actions change real state, through the same rules as the rest of the app."""

from __future__ import annotations

from django.contrib.messages import get_messages

from health.models import Alert, AlertEvent, Ambulance, Appointment, Device, Dispatch
from tests.factories import (
    AlertFactory,
    AmbulanceFactory,
    AppointmentFactory,
    DeviceFactory,
    SlotFactory,
)


def _act(client, url: str, action: str, objects) -> list[str]:
    response = client.post(url, {"action": action, "_selected_action": [obj.pk for obj in objects]}, follow=True)
    assert response.status_code == 200
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_acknowledging_moves_open_alerts_and_writes_their_timeline(operator, alice):
    open_alert = AlertFactory(user=alice)
    counting_down = AlertFactory(user=alice, kind=Alert.Kind.HARD, state=Alert.State.COUNTDOWN)

    notes = _act(operator, "/admin/health/alert/", "acknowledge", [open_alert, counting_down])

    open_alert.refresh_from_db()
    counting_down.refresh_from_db()
    assert open_alert.state == Alert.State.ACKNOWLEDGED
    assert open_alert.acknowledged_at is not None
    event = AlertEvent.objects.get(alert=open_alert)
    assert event.kind == "acknowledged"
    assert event.data["operator"] == "carol"
    assert counting_down.state == Alert.State.COUNTDOWN
    assert not AlertEvent.objects.filter(alert=counting_down).exists()
    assert "Acknowledged 1 alert(s)." in notes


def test_resolving_an_alert_releases_its_ambulance(operator, alice):
    alert = AlertFactory(user=alice, state=Alert.State.ACKNOWLEDGED)
    dispatch = Dispatch.objects.create(alert=alert, ambulance=AmbulanceFactory())

    _act(operator, "/admin/health/alert/", "resolve", [alert])

    alert.refresh_from_db()
    dispatch.refresh_from_db()
    assert alert.state == Alert.State.RESOLVED
    assert alert.resolved_at is not None
    assert dispatch.released_at is not None
    assert AlertEvent.objects.filter(alert=alert, kind="resolved").exists()
    # The ambulance can now be dispatched again (one active dispatch per ambulance).
    Dispatch.objects.create(alert=AlertFactory(user=alice), ambulance=dispatch.ambulance)


def test_revoking_a_device_stops_its_token(operator, alice_device):
    device, token = alice_device

    _act(operator, "/admin/health/device/", "revoke_devices", [device])

    device.refresh_from_db()
    assert device.revoked_at is not None
    assert Device.for_token(token) is None


def test_revoking_counts_only_the_devices_still_active_and_keeps_earlier_revocations(operator, alice_device):
    device, _ = alice_device
    old = DeviceFactory(user=device.user, name="Old ring")
    old.revoke()
    first = Device.objects.get(pk=old.pk).revoked_at

    notes = _act(operator, "/admin/health/device/", "revoke_devices", [device, old])

    assert "Revoked 1 device(s)." in notes
    assert Device.objects.get(pk=old.pk).revoked_at == first
    assert Device.objects.get(pk=device.pk).revoked_at is not None


def test_resolving_says_how_many_alerts_were_left_unchanged(operator, alice):
    open_alert = AlertFactory(user=alice)
    counting_down = AlertFactory(user=alice, kind=Alert.Kind.HARD, state=Alert.State.COUNTDOWN)

    notes = _act(operator, "/admin/health/alert/", "resolve", [open_alert, counting_down])

    assert "Resolved 1 alert(s)." in notes
    assert "1 alert(s) were counting down or already closed; left unchanged." in notes
    counting_down.refresh_from_db()
    assert counting_down.state == Alert.State.COUNTDOWN
    assert AlertEvent.objects.get(alert=open_alert, kind="resolved").message == "Resolved by operator carol."


def test_pairing_a_device_shows_its_token_once_and_stores_only_the_hash(operator, alice):
    response = operator.post(
        "/admin/health/device/add/", {"user": alice.pk, "name": "Clinic watch", "kind": "watch"}, follow=True
    )

    assert response.status_code == 200
    device = Device.objects.get(name="Clinic watch")
    shown = [str(message) for message in get_messages(response.wsgi_request)]
    token = next(text.rsplit(" ", 1)[-1] for text in shown if "shown only this once" in text)
    assert Device.for_token(token) == device
    assert device.token_hash not in response.content.decode()
    assert token not in operator.get(f"/admin/health/device/{device.pk}/change/").content.decode()


def test_appointment_actions_follow_the_state_machine(operator, alice):
    proposed = AppointmentFactory(user=alice)
    cancelled = AppointmentFactory(user=alice, state=Appointment.State.CANCELLED)

    notes = _act(operator, "/admin/health/appointment/", "confirm_appointments", [proposed, cancelled])

    proposed.refresh_from_db()
    cancelled.refresh_from_db()
    assert proposed.state == Appointment.State.CONFIRMED
    assert proposed.confirmed_at is not None
    assert cancelled.state == Appointment.State.CANCELLED
    assert any("1 appointment(s) could not" in note for note in notes)


def test_an_operator_cannot_book_a_slot_that_is_already_held(operator, alice, bob):
    held = AppointmentFactory(user=alice)

    response = operator.post("/admin/health/appointment/add/", {"user": bob.pk, "slot": held.slot_id})

    assert response.status_code == 200
    assert "This slot is already booked." in response.content.decode()
    assert Appointment.objects.count() == 1


def test_an_operator_books_a_free_slot_for_its_specialist(operator, bob):
    slot = SlotFactory()

    response = operator.post("/admin/health/appointment/add/", {"user": bob.pk, "slot": slot.pk, "symptoms": "rash"})

    assert response.status_code == 302
    appointment = Appointment.objects.get(user=bob)
    assert appointment.specialist == slot.specialist
    assert appointment.state == Appointment.State.HELD


def test_ambulances_can_be_taken_out_of_service_and_back(operator):
    ambulance = AmbulanceFactory()

    _act(operator, "/admin/health/ambulance/", "mark_unavailable", [ambulance])
    assert not Ambulance.objects.get(pk=ambulance.pk).available

    _act(operator, "/admin/health/ambulance/", "mark_available", [ambulance])
    assert Ambulance.objects.get(pk=ambulance.pk).available
