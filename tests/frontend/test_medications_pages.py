"""The Medications pages and the prescription review, through the pages and the API: nothing read is
scheduled until the patient confirms, the confirmed list becomes reminders, dose buttons record what
the patient did, and the list exports for a doctor."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.utils import timezone

from core.realtime import user_group
from health.models import DoseEvent, Medication, Prescription, Reminder
from health.scheduler.review import review_items

TEXT = "Tab. Metformin 500 mg 1-0-1 after food x 30 days\nTab Amlodpine 5mg OD"
READ = [
    {
        "name": "metformin",
        "strength": "500 mg",
        "dose": 1,
        "times_per_day": 2,
        "times": ["08:00", "20:00"],
        "duration_days": 30,
        "with_food": "after",
    },
    {
        "name": "amlodipine",
        "strength": "5 mg",
        "dose": None,
        "times_per_day": 1,
        "times": ["08:00"],
        "duration_days": None,
        "with_food": None,
    },
]


@pytest.fixture
def read_prescription(alice):
    return Prescription.objects.create(
        user=alice,
        parse_status=Prescription.ParseStatus.NEEDS_REVIEW,
        ocr_text=TEXT,
        extracted=review_items(TEXT, READ),
    )


def test_review_items_say_what_to_check_and_what_is_missing():
    metformin, amlodipine = review_items(TEXT, READ)
    assert metformin["uncertain"] == [] and metformin["missing"] == []
    assert metformin["default_times"] is True  # "1-0-1" names no clock times
    # "Amlodpine" was matched to amlodipine only approximately: the patient checks the name.
    assert amlodipine["uncertain"] == ["name"]
    assert amlodipine["missing"] == ["dose", "duration_days"]


def test_a_line_the_ocr_was_unsure_of_marks_its_fields():
    lines = [{"text": "Tab. Metformin 500 mg 1-0-1 after food x 30 days", "confidence": 0.2}]
    metformin, _ = review_items(TEXT, READ, lines)
    assert set(metformin["uncertain"]) == {
        "name",
        "strength",
        "dose",
        "times_per_day",
        "times",
        "duration_days",
        "with_food",
    }


def test_a_line_with_a_word_the_decoder_chose_marks_its_fields():
    # The recogniser read "Metfonnin"; the lexicon decoder read the strokes as "Metformin". The text
    # now names it exactly, so only the line's record says the name was not read letter by letter.
    line = "Tab. Metformin 500 mg 1-0-1 after food x 30 days"
    metformin, amlodipine = review_items(TEXT, READ, [{"text": line, "confidence": 0.9, "corrected": ["Metformin"]}])
    assert {"name", "strength", "dose"} <= set(metformin["uncertain"])
    assert amlodipine["uncertain"] == ["name"]  # its line is not the corrected one
    clear = [{"text": line, "confidence": 0.9, "corrected": []}]
    assert review_items(TEXT, READ, clear)[0]["uncertain"] == []


def test_a_number_read_from_a_look_alike_glyph_marks_its_line():
    text = "Tab Prednisolone 10 mg BD after meals fsr G wks"
    read = [
        {
            "name": "prednisolone",
            "strength": "10 mg",
            "dose": None,
            "times_per_day": 2,
            "times": ["08:00", "20:00"],
            "duration_days": 42,
            "with_food": "after",
        }
    ]
    [item] = review_items(text, read, [{"text": text, "confidence": 0.9, "corrected": []}])
    assert "duration_days" in item["uncertain"]
    # every number as written, a fraction sign included: nothing to check
    clear = "Tab Prednisolone 10 mg ½ tab BD after meals for 6 wks"
    [item] = review_items(clear, read, [{"text": clear, "confidence": 0.9, "corrected": []}])
    assert item["uncertain"] == []


@pytest.mark.django_db
def test_the_review_page_shows_the_read_medicines_and_highlights_what_to_check(client, alice, read_prescription):
    client.force_login(alice)
    page = client.get(f"/prescriptions/{read_prescription.pk}/").content.decode()
    assert "Confirm and schedule reminders" in page
    assert 'value="metformin"' in page and 'value="amlodipine"' in page
    assert "check this" in page  # the approximate name
    assert "not found: check the photo" in page  # amlodipine's dose
    assert not Medication.objects.exists()  # nothing scheduled by reading or showing


def confirm_post(prescription, rows: list[dict], start: dt.date | None = None) -> dict:
    data = {"form-TOTAL_FORMS": str(len(rows)), "form-INITIAL_FORMS": str(len(rows))}
    data["start_date"] = (start or timezone.now().date()).isoformat()
    for index, row in enumerate(rows):
        for key, value in row.items():
            data[f"form-{index}-{key}"] = value
    return data


ROWS = [
    {"include": "on", "name": "metformin", "strength": "500 mg", "dose": "1 tablet", "times": "08:00, 20:00",
     "with_food": "after", "duration_days": "30", "default_times": "08:00, 20:00"},
    {"include": "on", "name": "amlodipine", "strength": "5 mg", "dose": "1 tablet", "times": "09:30",
     "with_food": "any", "duration_days": "", "default_times": "08:00"},
]  # fmt: skip


@pytest.mark.django_db
def test_confirming_schedules_the_checked_medicines(client, alice, read_prescription):
    client.force_login(alice)
    response = client.post(
        f"/prescriptions/{read_prescription.pk}/", confirm_post(read_prescription, ROWS), follow=True
    )
    assert "Scheduled: metformin 500 mg, amlodipine 5 mg" in response.content.decode()
    read_prescription.refresh_from_db()
    assert read_prescription.parse_status == "confirmed" and read_prescription.confirmed_at
    metformin = Medication.objects.get(name="metformin")
    assert metformin.prescription == read_prescription
    assert metformin.clock_times == ["08:00", "20:00"] and metformin.default_times  # left as suggested
    assert metformin.food_timing == "after" and metformin.duration_days == 30
    assert metformin.end_date == metformin.start_date + dt.timedelta(days=29)
    amlodipine = Medication.objects.get(name="amlodipine")
    assert amlodipine.clock_times == ["09:30"] and not amlodipine.default_times  # the patient's own time
    assert sorted(f"{r.time_of_day:%H:%M}" for r in Reminder.objects.filter(enabled=True)) == [
        "08:00",
        "09:30",
        "20:00",
    ]


@pytest.mark.django_db
def test_a_left_out_medicine_is_not_scheduled(client, alice, read_prescription):
    client.force_login(alice)
    rows = [ROWS[0], {**ROWS[1], "include": ""}]
    client.post(f"/prescriptions/{read_prescription.pk}/", confirm_post(read_prescription, rows))
    assert list(Medication.objects.values_list("name", flat=True)) == ["metformin"]


@pytest.mark.django_db
def test_a_wrong_time_is_refused_and_nothing_is_scheduled(client, alice, read_prescription):
    client.force_login(alice)
    rows = [ROWS[0], {**ROWS[1], "times": "25:00"}]
    response = client.post(f"/prescriptions/{read_prescription.pk}/", confirm_post(read_prescription, rows))
    assert "is not a time" in response.content.decode()
    assert not Medication.objects.exists() and not Reminder.objects.exists()
    read_prescription.refresh_from_db()
    assert read_prescription.parse_status == "needs_review"


@pytest.mark.django_db
def test_the_api_confirms_all_or_nothing(alice_api, read_prescription):
    url = f"/api/prescriptions/{read_prescription.pk}/confirm/"
    bad = alice_api.post(url, {"medications": [{"name": "metformin", "times": ["8 pm"]}]}, format="json")
    assert bad.status_code == 400 and "not a time" in str(bad.json())
    assert not Medication.objects.exists()
    good = alice_api.post(
        url,
        {
            "medications": [
                {
                    "name": "metformin",
                    "strength": "500 mg",
                    "times": ["08:00", "20:00"],
                    "with_food": "after",
                    "duration_days": 5,
                }
            ]
        },
        format="json",
    )
    assert good.status_code == 200, good.content
    assert good.json()["prescription"]["parse_status"] == "confirmed"
    assert Medication.objects.get(pk=good.json()["medications"][0]).end_date is not None
    again = alice_api.post(url, {"medications": [{"name": "metformin", "times": ["08:00"]}]}, format="json")
    assert again.status_code == 409
    assert Medication.objects.count() == 1


@pytest.mark.django_db
def test_another_patient_cannot_see_or_confirm(api, bob, read_prescription, client):
    api.force_authenticate(bob)
    assert (
        api.post(f"/api/prescriptions/{read_prescription.pk}/confirm/", {"medications": []}, format="json").status_code
        == 404
    )
    client.force_login(bob)
    assert client.get(f"/prescriptions/{read_prescription.pk}/").status_code == 404


@pytest.mark.django_db
def test_a_failed_read_says_why_and_can_be_retried(client, alice):
    prescription = Prescription.objects.create(
        user=alice, parse_status=Prescription.ParseStatus.FAILED, parse_error="No text was found in the photo."
    )
    client.force_login(alice)
    page = client.get(f"/prescriptions/{prescription.pk}/").content.decode()
    assert "No text was found in the photo." in page and "Try reading it again" in page
    client.post(f"/prescriptions/{prescription.pk}/retry/")
    prescription.refresh_from_db()
    assert prescription.parse_status == "pending" and prescription.parse_error == ""
    # Retrying one that is not failed is refused, with the state in words.
    response = client.post(f"/prescriptions/{prescription.pk}/retry/", follow=True)
    assert "waiting to be read" in response.content.decode()


@pytest.fixture
def due_dose(alice):
    from health.models.appointments import patient_zone

    # The patient's own day: near midnight UTC it is already tomorrow in Berlin.
    today = timezone.now().astimezone(patient_zone(alice)).date()
    medication = Medication.objects.create(
        user=alice, name="metformin", strength="500 mg", dose="1 tablet", clock_times=["08:00"],
        times_per_day=1, start_date=today,
    )  # fmt: skip
    medication.sync_reminders()
    now = timezone.now()
    return DoseEvent.objects.create(
        user=alice, reminder=medication.reminders.get(), due_at=now, due_on=today,
        state=DoseEvent.State.SENT, sent_at=now,
    )  # fmt: skip


@pytest.mark.django_db
def test_todays_doses_have_taken_snooze_and_skip(client, alice, due_dose):
    client.force_login(alice)
    page = client.get("/medications/").content.decode()
    assert "metformin 500 mg" in page and "Reminder sent" in page
    assert ">Taken<" in page and ">Snooze<" in page and ">Skip<" in page
    response = client.post(f"/medications/doses/{due_dose.pk}/snooze/", {"minutes": "30"}, follow=True)
    assert "will remind you again at" in response.content.decode()
    due_dose.refresh_from_db()
    assert due_dose.state == "snoozed"
    assert abs((due_dose.snoozed_until - timezone.now()).total_seconds() - 1800) < 60
    response = client.post(f"/medications/doses/{due_dose.pk}/snooze/", {"minutes": "45"}, follow=True)
    assert "10, 30 or 60 minutes" in response.content.decode()
    client.post(f"/medications/doses/{due_dose.pk}/taken/")
    due_dose.refresh_from_db()
    assert due_dose.state == "taken"
    response = client.post(f"/medications/doses/{due_dose.pk}/skip/", follow=True)
    assert "Cannot skip a dose that is taken" in response.content.decode()


@pytest.mark.django_db
def test_the_times_can_be_changed_and_a_medicine_stopped(client, alice, due_dose):
    medication = due_dose.reminder.medication
    client.force_login(alice)
    client.post(f"/medications/{medication.pk}/times/", {"times": "7:30, 21:00"})
    medication.refresh_from_db()
    assert medication.clock_times == ["07:30", "21:00"] and not medication.default_times
    response = client.post(f"/medications/{medication.pk}/times/", {"times": "noon"}, follow=True)
    assert "is not a time" in response.content.decode()
    client.post(f"/medications/{medication.pk}/stop/")
    medication.refresh_from_db()
    assert not medication.active
    assert not medication.reminders.filter(enabled=True).exists() or not medication.active


@pytest.mark.django_db
def test_the_list_exports_as_csv_and_a_printable_page(client, alice, due_dose):
    Medication.objects.create(
        user=alice, name="=HYPERLINK(evil)", clock_times=[], times_per_day=1, start_date=timezone.now().date()
    )
    client.force_login(alice)
    response = client.get("/medications/export.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][:4] == ["Medicine", "Strength", "Dose", "Times"]
    names = {row[0]: row for row in rows[1:]}
    assert names["metformin"][1:4] == ["500 mg", "1 tablet", "08:00"]
    assert "'=HYPERLINK(evil)" in names  # a spreadsheet shows it as text, never runs it
    printable = client.get("/medications/print/").content.decode()
    assert "Medication list" in printable and "metformin" in printable and "It is not a prescription" in printable


@pytest.mark.django_db
def test_the_medications_page_explains_itself_when_empty(client, alice):
    client.force_login(alice)
    page = client.get("/medications/").content.decode()
    assert "No medicines scheduled" in page
    assert "Add a prescription" in page and 'type="file"' in page
    assert "No dose is due today" in page


@pytest.mark.django_db
def test_home_shows_the_dose_waiting_and_the_next_reminder(client, alice, due_dose):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "Medicines today" in page and "metformin 500 mg" in page and "Reminder sent" in page
    due_dose.take()
    page = client.get("/").content.decode()
    assert "Next reminder: metformin 500 mg at 08:00 tomorrow." in page


@pytest.mark.django_db
def test_the_patients_own_dose_action_reaches_their_other_tabs(
    alice_api, alice, due_dose, django_capture_on_commit_callbacks
):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(alice.pk), channel)
    with django_capture_on_commit_callbacks(execute=True):
        assert alice_api.post(f"/api/dose-events/{due_dose.pk}/skip/").status_code == 200
    message = async_to_sync(layer.receive)(channel)
    assert message["event"] == "dose"
    assert message["data"]["id"] == due_dose.pk and message["data"]["state"] == "skipped"


@pytest.mark.parametrize(
    ("line", "dose", "shown"),
    [
        ("Tab. Metformin 500 mg 1-0-1", 1, "1 tablet"),
        ("Tab Metformin 500 mg 2 tabs BD", 2, "2 tablets"),
        ("Metformin 500 mg 1/2 tab OD", 0.5, "½ tablet"),
        ("Cap. Metformin 500 mg OD", 1, "1 capsule"),
        ("Syp. Metformin 5 ml TDS", 5, "5 ml"),
        ("Metformin 500 mg 1 OD", 1, "1"),  # no form written: the number alone, nothing assumed
    ],
)
def test_the_review_shows_a_dose_in_the_form_the_line_names(line, dose, shown):
    from health.scheduler.forms import initial_from_item

    [item] = review_items(line, [{**READ[0], "dose": dose}])
    assert initial_from_item(item)["dose"] == shown


def test_a_name_alone_is_offered_unticked():
    from health.scheduler.forms import initial_from_item

    bare = {"name": "ibuprofen", "strength": None, "dose": None, "times_per_day": None, "times": [],
            "duration_days": None, "with_food": None}  # fmt: skip
    [item] = review_items("Avoid ibuprofen", [bare])
    assert item["name_only"] is True
    assert initial_from_item(item)["include"] is False
    [metformin, _] = review_items(TEXT, READ)
    assert initial_from_item(metformin)["include"] is True


@pytest.mark.django_db
def test_the_course_can_start_on_another_day(client, alice, read_prescription):
    client.force_login(alice)
    started = timezone.now().date() - dt.timedelta(days=3)
    client.post(f"/prescriptions/{read_prescription.pk}/", confirm_post(read_prescription, ROWS, start=started))
    metformin = Medication.objects.get(name="metformin")
    assert metformin.start_date == started and metformin.end_date == started + dt.timedelta(days=29)


@pytest.mark.django_db
def test_a_start_day_far_away_is_refused(client, alice, read_prescription):
    client.force_login(alice)
    far = timezone.now().date() - dt.timedelta(days=400)
    response = client.post(f"/prescriptions/{read_prescription.pk}/", confirm_post(read_prescription, ROWS, start=far))
    assert "within the last 90 days" in response.content.decode()
    assert not Medication.objects.exists()


@pytest.fixture
def evening_at_seven(alice, settings):
    """Alice in Berlin at 19:00 local, with metformin due at 20:00 and 23:30 (no dose row yet)."""
    from unittest import mock
    from zoneinfo import ZoneInfo

    settings.DOSE_EARLY_MINUTES = 120
    alice.profile.timezone = "Europe/Berlin"
    alice.profile.save(update_fields=["timezone"])
    now = dt.datetime(2026, 3, 10, 19, 0, tzinfo=ZoneInfo("Europe/Berlin"))
    with mock.patch("django.utils.timezone.now", return_value=now):
        medication = Medication.objects.create(
            user=alice, name="metformin", strength="500 mg", dose="1 tablet", clock_times=["20:00", "23:30"],
            times_per_day=2, start_date=now.date() - dt.timedelta(days=2),
        )  # fmt: skip
        medication.sync_reminders()
        yield medication


@pytest.mark.django_db
def test_a_dose_later_today_can_be_marked_taken_early_and_its_reminder_stays_quiet(client, alice, evening_at_seven):
    client.force_login(alice)
    page = client.get("/medications/").content.decode()
    assert "Later today" in page and "Reminder at 20:00" in page and "Reminder at 23:30" in page
    assert page.count(">Taken early<") == 1, "only the 20:00 dose is within two hours"
    soon, late = evening_at_seven.reminders.order_by("time_of_day")

    refused = client.post(f"/medications/reminders/{late.pk}/taken-early/", follow=True).content.decode()
    assert "up to 120 minutes before its time" in refused and not DoseEvent.objects.exists()

    done = client.post(f"/medications/reminders/{soon.pk}/taken-early/", follow=True).content.decode()
    assert "Recorded: metformin 500 mg taken. The 20:00 reminder will not go off." in done
    dose = DoseEvent.objects.get()
    assert (dose.state, dose.reminder, dose.due_on) == ("taken", soon, dt.date(2026, 3, 10))
    assert "Reminder at 20:00" not in done and "Reminder at 23:30" in done
    assert "Next reminder: metformin 500 mg at 23:30." in client.get("/").content.decode()


@pytest.mark.django_db
def test_the_api_marks_a_dose_taken_early_only_for_the_patients_own_reminder(alice_api, api, bob, evening_at_seven):
    soon = evening_at_seven.reminders.get(time_of_day=dt.time(20))
    api.force_authenticate(bob)
    assert api.post(f"/api/reminders/{soon.pk}/taken-early/").status_code == 404
    answer = alice_api.post(f"/api/reminders/{soon.pk}/taken-early/")
    assert answer.status_code == 200 and answer.json()["state"] == "taken"
    again = alice_api.post(f"/api/reminders/{soon.pk}/taken-early/")
    assert again.status_code == 409 and "already taken" in again.json()["detail"]
