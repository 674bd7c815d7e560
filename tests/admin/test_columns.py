"""Computed changelist columns count the right rows."""

from __future__ import annotations

from tests.factories import DeviceFactory, EmergencyContactFactory


def _row(client, url: str, pk: int):
    response = client.get(url)
    assert response.status_code == 200
    return next(row for row in response.context["cl"].result_list if row.pk == pk)


def test_the_patient_list_counts_contacts_and_devices_without_multiplying_them(operator, alice):
    EmergencyContactFactory.create_batch(2, user=alice)
    DeviceFactory.create_batch(3, user=alice)

    row = _row(operator, "/admin/health/patientprofile/", alice.profile.pk)

    assert (row.contact_total, row.device_total) == (2, 3)


def test_the_specialization_list_counts_its_specialists(operator, seeded):
    response = operator.get("/admin/health/specialization/", {"q": "ent"})
    ent = next(row for row in response.context["cl"].result_list if row.name == "ent")
    assert ent.specialist_total == 2
