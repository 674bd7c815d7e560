"""Edge values an auditor sent to the REST API answer a clear 400 naming the field,
never a 500 and never a stored row. The table tries 30 cases:

- 10 vitals readings dated outside the accepted window (year 0001, 1900, 2099, ten
  minutes ahead, and 0001 in a time zone east of UTC), each posted alone and in a batch;
- 4 free texts of 5 MB (a symptom record, an appointment summary, a chat message,
  the profile's home address);
- 3 birth dates on the profile (2999, 1899, 0001);
- 10 query strings: huge, negative and non-integer ids in ``?specialist=`` and
  ``?device=``, a NUL byte in a value, a name and the page, a negative and a fractional ``page``;
- 3 JSON documents nested 5,000 (and 40) levels deep posted to ``/api/conversations/import/``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.utils import timezone

from agents.models import Conversation
from health.models import AppointmentHistory, PatientProfile, SymptomRecord, VitalReading

FIVE_MB = "x" * (5 * 1024 * 1024)


def _nested(depth: int) -> str:
    """JSON text nesting lists ``depth`` deep (built as text: encoding it would exhaust the stack)."""
    return "[" * depth + '"deep"' + "]" * depth


def _in_minutes(minutes: int) -> str:
    return (timezone.now() + dt.timedelta(minutes=minutes)).isoformat()


def _reading(device_id: int, measured_at: str) -> dict:
    return {"device": device_id, "measured_at": measured_at, "heart_rate": 70}


BAD_MEASURED_AT: list[tuple[str, Callable[[], str]]] = [
    ("year 1", lambda: "0001-01-01T00:00:00Z"),
    ("year 1 east of UTC", lambda: "0001-01-01T00:00:00+05:00"),
    ("year 1900", lambda: "1900-01-01T00:00:00Z"),
    ("year 2099", lambda: "2099-01-01T00:00:00Z"),
    ("ten minutes ahead", lambda: _in_minutes(10)),
]


# (id, method, path, body(device_id), field named in the 400's body)
CASES: list[tuple[str, str, str, Callable[[int], object] | None, str]] = []
for name, when in BAD_MEASURED_AT:
    CASES.append(
        (f"vitals single, {name}", "post", "/api/vitals/", lambda d, when=when: _reading(d, when()), "measured_at")
    )
    CASES.append(
        (
            f"vitals batch, {name}",
            "post",
            "/api/vitals/",
            lambda d, when=when: [_reading(d, _in_minutes(-1)), _reading(d, when())],
            "measured_at",
        )
    )
CASES += [
    ("symptom text 5 MB", "post", "/api/symptom-records/", lambda d: {"text": FIVE_MB, "symptoms": []}, "text"),
    (
        "appointment summary 5 MB",
        "post",
        "/api/appointment-history/",
        lambda d: {
            "specialist_name": "Dr Who",
            "specialization": "cardiologist",
            "scheduled_for": "2026-01-01T10:00:00Z",
            "summary": FIVE_MB,
        },
        "summary",
    ),
    ("chat message 5 MB", "post", "/api/conversations/", lambda d: {"text": FIVE_MB}, "text"),
    ("home address 5 MB", "patch", "/api/profile/", lambda d: {"home_address": FIVE_MB}, "home_address"),
    ("born 2999", "patch", "/api/profile/", lambda d: {"date_of_birth": "2999-01-01"}, "date_of_birth"),
    ("born 1899", "patch", "/api/profile/", lambda d: {"date_of_birth": "1899-12-31"}, "date_of_birth"),
    ("born year 1", "patch", "/api/profile/", lambda d: {"date_of_birth": "0001-01-01"}, "date_of_birth"),
    ("huge specialist id", "get", "/api/slots/?specialist=99999999999999999999", None, "specialist"),
    ("negative specialist id", "get", "/api/slots/?specialist=-1", None, "specialist"),
    ("non-integer specialist id", "get", "/api/slots/?specialist=1.5", None, "specialist"),
    ("huge device id", "get", "/api/vitals/?device=99999999999999999999", None, "device"),
    ("non-integer device id", "get", "/api/vitals/?device=watch", None, "device"),
    ("NUL in a value", "get", "/api/specialists/?specialization=card%00iologist", None, "specialization"),
    ("NUL in a name", "get", "/api/specialists/?spec%00=1", None, "spec"),
    ("NUL in the page", "get", "/api/specialists/?page=1%00", None, "page"),
    ("negative page", "get", "/api/specialists/?page=-1", None, "page"),
    ("fractional page", "get", "/api/specialists/?page=1.5", None, "page"),
    ("trajectory 5,000 deep", "post", "/api/conversations/import/", lambda d: _nested(5000), "trajectory"),
    (
        "state value 5,000 deep",
        "post",
        "/api/conversations/import/",
        lambda d: '[{"from": "user", "value": ' + _nested(5000) + "}]",
        "trajectory",
    ),
    (
        "state value 40 deep",
        "post",
        "/api/conversations/import/",
        lambda d: '[{"from": "user", "value": ' + _nested(40) + "}]",
        "trajectory",
    ),
]


def _stored(user) -> dict[str, object]:
    profile = PatientProfile.objects.filter(user=user).values("home_address", "date_of_birth").first()
    return {
        "vitals": VitalReading.objects.filter(user=user).count(),
        "symptoms": SymptomRecord.objects.filter(user=user).count(),
        "history": AppointmentHistory.objects.filter(user=user).count(),
        "conversations": Conversation.objects.filter(user=user).count(),
        "profile": profile,
    }


def test_the_table_holds_every_case_the_docstring_counts():
    assert len(CASES) == 30


@pytest.mark.parametrize(("method", "path", "body", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_edge_value_answers_400_naming_its_field_and_stores_nothing(
    alice, alice_api, alice_device, method, path, body, field
):
    device, _ = alice_device
    alice_api.get("/api/profile/")  # the profile exists before, so "unchanged" is checkable
    before = _stored(alice)
    send = getattr(alice_api, method)
    data = None if body is None else body(device.pk)
    if data is None:
        response = send(path)
    elif isinstance(data, str):  # JSON text as sent
        response = send(path, data, content_type="application/json")
    else:
        response = send(path, data, format="json")
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    assert field in response.content.decode()
    assert _stored(alice) == before


def test_a_reading_from_just_now_or_a_little_ahead_is_still_accepted(alice_api, alice_device):
    device, _ = alice_device
    readings = [_reading(device.pk, _in_minutes(-60 * 24 * 365)), _reading(device.pk, _in_minutes(2))]
    response = alice_api.post("/api/vitals/", readings, format="json")
    assert response.status_code == 201, response.json()
    assert response.json() == {"created": 2, "duplicates": 0}


def test_a_plain_or_last_page_is_still_a_page(alice_api):
    assert alice_api.get("/api/specialists/?page=1").status_code == 200
    assert alice_api.get("/api/specialists/?page=last").status_code == 200


def test_a_real_birth_date_is_accepted(alice_api):
    response = alice_api.patch("/api/profile/", {"date_of_birth": "1950-06-30"}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["date_of_birth"] == "1950-06-30"


def test_the_api_takes_json_bodies_only_except_the_prescription_upload(alice, alice_api):
    """In a form post every value is a string, so a schema's types could not hold: the API reads
    JSON (as the app's pages send it), and only the photo upload takes multipart."""
    from health.models import EmergencyContact

    form = alice_api.post("/api/emergency-contacts/", {"name": "Sam", "phone": "+14155550123"}, format="multipart")
    as_json = alice_api.post("/api/emergency-contacts/", {"name": "Sam", "phone": "+14155550123"}, format="json")

    assert form.status_code == 415 and "detail" in form.json()
    assert as_json.status_code == 201
    assert EmergencyContact.objects.filter(user=alice).count() == 1


@pytest.mark.parametrize("path", ["/api/alerts/", "/api/appointments/"])
def test_an_empty_filter_value_is_refused_rather_than_read_as_no_filter(alice_api, path):
    answer = alice_api.get(path + "?state=")

    assert answer.status_code == 400
    assert answer.json() == {"state": ["Give a value, or leave the parameter out."]}
    assert alice_api.get(path).status_code == 200


def test_appointments_are_listed_by_state(alice, alice_api):
    from tests.factories import AppointmentFactory

    held = AppointmentFactory(user=alice)
    answer = alice_api.get("/api/appointments/?state=" + held.state)
    other = "cancelled" if held.state != "cancelled" else "held"

    assert [a["id"] for a in answer.json()["results"]] == [held.pk]
    assert alice_api.get("/api/appointments/?state=" + other).json()["results"] == []
    assert alice_api.get("/api/appointments/?state=booked").status_code == 400


def test_a_json_value_of_the_wrong_type_is_refused_not_coerced(alice, alice_api):
    """DRF alone would store the number 85 as the text "85" and read true as latitude 1.0."""
    text = alice_api.post("/api/symptom-records/", {"text": 85}, format="json")
    place = alice_api.post("/api/sos/", {"latitude": True, "longitude": True}, format="json")
    padded = alice_api.post("/api/devices/", {"name": " " + "w" * 80}, format="json")

    assert text.status_code == 400 and text.json() == {"text": ["Not a valid string."]}
    assert place.status_code == 400 and set(place.json()) == {"latitude", "longitude"}
    assert padded.status_code == 400 and "name" in padded.json()
    assert not alice.symptom_records.exists() and not alice.alerts.exists() and not alice.devices.exists()
