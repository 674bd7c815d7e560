"""A patient downloads everything tied to their account: the Profile page's ZIP (data.json, the
daily report PDFs, the prescription photos) and the API's JSON; nobody else's rows, no secrets."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone

from health.models import Alert, AlertEvent, Dispatch, WatchFeed
from health.privacy.records import owned_models
from health.reports.generate import build
from tests.factories import (
    AgentStepFactory,
    AlertFactory,
    AmbulanceFactory,
    AppointmentFactory,
    AppointmentHistoryFactory,
    ConversationFactory,
    DailyReportFactory,
    DeviceFactory,
    DoseEventFactory,
    EmergencyContactFactory,
    MedicationFactory,
    NotificationFactory,
    OutboundMessageFactory,
    PrescriptionFactory,
    ReminderFactory,
    SymptomRecordFactory,
    VitalReadingFactory,
)

JPEG = b"\xff\xd8\xff\xe0 not really a photo \xff\xd9"


def give_a_world(user) -> dict:
    """One row of every kind of personal data for ``user``; returns a few to look for."""
    device = DeviceFactory(user=user)
    EmergencyContactFactory(user=user, name=f"{user.username}'s sister")
    VitalReadingFactory(device=device, heart_rate=77)
    AppointmentFactory(user=user)
    AppointmentHistoryFactory(user=user)
    symptom = SymptomRecordFactory(user=user, text=f"{user.username} has a sore knee")
    alert = AlertFactory(user=user)
    AlertEvent.objects.create(alert=alert, kind="created", message="Soft SOS raised.")
    Dispatch.objects.create(alert=AlertFactory(user=user, kind=Alert.Kind.HARD), ambulance=AmbulanceFactory())
    OutboundMessageFactory(user=user)
    NotificationFactory(user=user)
    prescription = PrescriptionFactory(user=user)
    prescription.image.save("rx.jpg", ContentFile(JPEG))
    DoseEventFactory(reminder=ReminderFactory(medication=MedicationFactory(user=user, prescription=prescription)))
    report = build(user, timezone.localdate() - dt.timedelta(days=1))
    AgentStepFactory(conversation=ConversationFactory(user=user), index=0, role="user", payload="my knee hurts")
    WatchFeed.objects.create(user=user, device=device)
    return {"symptom": symptom, "prescription": prescription, "report": report, "device": device}


@pytest.fixture
def alice_world(alice):
    return give_a_world(alice)


@pytest.fixture
def bob_world(bob):
    return give_a_world(bob)


def _archive(client) -> zipfile.ZipFile:
    response = client.get("/profile/export/")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith('attachment; filename="agent-lite-alice-')
    assert response.headers["Cache-Control"] == "no-store"
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_the_download_holds_every_kind_of_record_reports_and_photos(alice, alice_world, bob_world, client):
    client.force_login(alice)

    archive = _archive(client)

    data = json.loads(archive.read("data.json"))
    assert data["format"] == "agent-lite-export"
    assert data["account"]["username"] == "alice"
    labels = {entry.label for entry in owned_models()}
    assert set(data["records"]) == labels
    for label in labels:
        assert data["records"][label], f"{label} is missing from the export"
    texts = [row["text"] for row in data["records"]["health.SymptomRecord"]]
    assert texts == ["alice has a sore knee"]
    report = f"reports/{alice_world['report'].date.isoformat()}.pdf"
    assert archive.read(report).startswith(b"%PDF")
    assert archive.read(f"prescriptions/{alice_world['prescription'].pk}.jpg") == JPEG


def test_nothing_of_another_patient_and_no_secret_is_in_it(alice, alice_world, bob_world, client):
    client.force_login(alice)

    archive = _archive(client)

    text = archive.read("data.json").decode()
    assert "bob" not in text
    assert "token_hash" not in text and bob_world["device"].token_hash not in text
    assert alice_world["device"].token_hash not in text
    assert "password" not in text
    assert f"prescriptions/{bob_world['prescription'].pk}.jpg" not in archive.namelist()
    assert len([name for name in archive.namelist() if name.startswith("prescriptions/")]) == 1


def test_the_api_gives_the_same_records_as_json(alice, alice_world, bob_world, alice_api):
    response = alice_api.get("/api/profile/export/")

    assert response.status_code == 200
    data = response.json()
    assert data["account"]["username"] == "alice"
    assert [row["heart_rate"] for row in data["records"]["health.VitalReading"]] == [77]
    assert [row["payload"] for row in data["records"]["agents.AgentStep"]] == ["my knee hurts"]


@pytest.mark.parametrize("accept", ["application/zip", "*/*"])
def test_the_api_gives_the_same_archive_with_the_report_pdfs(alice, alice_world, bob_world, alice_api, accept):
    response = alice_api.get("/api/profile/export.zip", HTTP_ACCEPT=accept)

    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith('attachment; filename="agent-lite-alice-')
    assert response.headers["Cache-Control"] == "no-store"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert json.loads(archive.read("data.json"))["account"]["username"] == "alice"
    assert archive.read(f"reports/{alice_world['report'].date.isoformat()}.pdf").startswith(b"%PDF")
    assert archive.read(f"prescriptions/{alice_world['prescription'].pk}.jpg") == JPEG
    assert f"prescriptions/{bob_world['prescription'].pk}.jpg" not in archive.namelist()


def test_signed_out_there_is_nothing_to_download(db, client, api):
    assert client.get("/profile/export/").status_code == 302
    assert api.get("/api/profile/export/").status_code == 403
    refused = api.get("/api/profile/export.zip", HTTP_ACCEPT="application/zip")
    assert refused.status_code == 403 and refused["Content-Type"] == "application/json"
    assert "detail" in refused.json()


def test_a_report_that_cannot_be_laid_out_costs_nothing_else(alice, alice_world, client):
    broken = DailyReportFactory(user=alice, date=alice_world["report"].date - dt.timedelta(days=3), metrics={})
    client.force_login(alice)

    archive = _archive(client)

    assert archive.read(f"reports/{broken.date.isoformat()}.txt").startswith(b"This report could not be made")
    assert archive.read(f"reports/{alice_world['report'].date.isoformat()}.pdf").startswith(b"%PDF")
    assert json.loads(archive.read("data.json"))["account"]["username"] == "alice"
