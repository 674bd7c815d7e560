"""/api/emergency-contacts/: phone numbers validated and normalised to E.164."""

from __future__ import annotations

from health.models import EmergencyContact
from tests.factories import EmergencyContactFactory


def test_a_contact_is_stored_with_its_number_in_e164(alice, alice_api):
    response = alice_api.post(
        "/api/emergency-contacts/", {"name": "Dan", "relation": "son", "phone": "+44 (20) 7183-8750"}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert response.json()["phone"] == "+442071838750"
    assert EmergencyContact.objects.get(user=alice).phone == "+442071838750"


def test_an_invalid_number_answers_400_with_a_phone_error_and_stores_nothing(alice_api):
    for phone in ("12345", "0044 20 7183 8750", "+44 20", "call me"):
        response = alice_api.post("/api/emergency-contacts/", {"name": "Dan", "phone": phone}, format="json")

        assert response.status_code == 400, phone
        assert list(response.json()) == ["phone"]
    assert not EmergencyContact.objects.exists()


def test_the_same_number_twice_answers_400_not_a_server_error(alice, alice_api):
    EmergencyContactFactory(user=alice, phone="+442071838750")

    response = alice_api.post("/api/emergency-contacts/", {"name": "Dan", "phone": "+44 20 7183 8750"}, format="json")

    assert response.status_code == 400
    assert "already" in response.json()["phone"][0]


def test_a_contact_can_be_changed_and_deleted(alice, alice_api):
    contact = EmergencyContactFactory(user=alice, name="Dan")

    changed = alice_api.patch(f"/api/emergency-contacts/{contact.pk}/", {"priority": 2}, format="json")
    kept_number = alice_api.patch(f"/api/emergency-contacts/{contact.pk}/", {"phone": contact.phone}, format="json")
    deleted = alice_api.delete(f"/api/emergency-contacts/{contact.pk}/")

    assert changed.status_code == 200
    assert changed.json()["priority"] == 2
    assert kept_number.status_code == 200  # its own number is not a duplicate of itself
    assert deleted.status_code == 204
    assert not EmergencyContact.objects.filter(pk=contact.pk).exists()


def test_malformed_json_answers_400(alice_api):
    response = alice_api.generic(
        "POST", "/api/emergency-contacts/", '{"name": "Dan", "phone": ', content_type="application/json"
    )

    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]


def test_a_contact_is_a_carer_only_when_marked_so(alice, alice_api):
    response = alice_api.post("/api/emergency-contacts/", {"name": "Asha", "phone": "+919800000001"}, format="json")
    assert response.json()["is_carer"] is False

    contact_id = response.json()["id"]
    response = alice_api.patch(f"/api/emergency-contacts/{contact_id}/", {"is_carer": True}, format="json")

    assert response.status_code == 200 and EmergencyContact.objects.get(pk=contact_id).is_carer
