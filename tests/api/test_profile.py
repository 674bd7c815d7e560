"""/api/profile/: the signed-in patient's own profile."""

from __future__ import annotations

import pytest

from health.models import PatientProfile


def test_the_profile_is_created_on_first_access(alice, alice_api):
    """GIVEN alice has no profile yet WHEN she asks for it THEN an empty one is made."""
    PatientProfile.objects.filter(user=alice).delete()

    response = alice_api.get("/api/profile/")

    assert response.status_code == 200
    assert response.json()["timezone"] == "UTC"
    assert response.json()["display_name"] == "Alice"
    assert PatientProfile.objects.filter(user=alice).count() == 1


def test_a_patch_changes_only_the_fields_it_names(alice, alice_api):
    response = alice_api.patch("/api/profile/", {"home_address": "1 Main St", "conditions": ["asthma"]}, format="json")

    assert response.status_code == 200, response.json()
    profile = PatientProfile.objects.get(user=alice)
    assert profile.home_address == "1 Main St"
    assert profile.conditions == ["asthma"]
    assert profile.timezone == "Europe/Berlin"  # untouched


def test_the_phone_is_stored_in_e164(alice, alice_api):
    response = alice_api.patch("/api/profile/", {"phone": "+44 20 7183 8750"}, format="json")

    assert response.status_code == 200
    assert response.json()["phone"] == "+442071838750"
    assert PatientProfile.objects.get(user=alice).phone == "+442071838750"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"timezone": "Mars/Olympus_Mons"}, "timezone"),
        ({"home_latitude": 91, "home_longitude": 0}, "home_latitude"),
        ({"home_latitude": 0, "home_longitude": -181}, "home_longitude"),
        ({"phone": "020 7183 8750"}, "phone"),
        ({"phone": "+1 555"}, "phone"),
        ({"sex": "robot"}, "sex"),
        ({"conditions": "asthma"}, "conditions"),
    ],
)
def test_an_invalid_field_answers_400_with_that_field_and_changes_nothing(alice, alice_api, payload, field):
    before = PatientProfile.objects.filter(user=alice).values().get()

    response = alice_api.patch("/api/profile/", payload, format="json")

    assert response.status_code == 400
    assert field in response.json()
    assert PatientProfile.objects.filter(user=alice).values().get() == before


def test_a_location_needs_both_coordinates(alice, alice_api):
    PatientProfile.objects.filter(user=alice).update(home_latitude=None, home_longitude=None)

    response = alice_api.patch("/api/profile/", {"home_latitude": 48.1}, format="json")

    assert response.status_code == 400
    assert "home_longitude" in response.json()


def test_the_profile_cannot_be_replaced_or_deleted(alice_api):
    assert alice_api.put("/api/profile/", {}, format="json").status_code == 405
    assert alice_api.delete("/api/profile/").status_code == 405


def test_medication_reminder_opt_ins_are_off_until_the_patient_turns_them_on(alice, alice_api):
    assert {k: alice_api.get("/api/profile/").json()[k] for k in ("reminder_sms", "tell_carer_of_missed_doses")} == {
        "reminder_sms": False,
        "tell_carer_of_missed_doses": False,
    }

    response = alice_api.patch(
        "/api/profile/", {"reminder_sms": True, "tell_carer_of_missed_doses": True}, format="json"
    )

    assert response.status_code == 200, response.json()
    profile = PatientProfile.objects.get(user=alice)
    assert (profile.reminder_sms, profile.tell_carer_of_missed_doses) == (True, True)
