"""Only staff reach the dashboard, and no page ever shows a device's token hash."""

from __future__ import annotations

import pytest
from django.test import Client

from health.models import Device, EmergencyContact
from tests.admin.conftest import domain_models


@pytest.mark.parametrize("path", ["/admin/", "/admin/health/alert/", "/admin/health/patientprofile/"])
def test_a_patient_without_staff_rights_is_sent_to_the_admin_login(alice, path):
    client = Client()
    client.force_login(alice)
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_an_anonymous_visitor_is_sent_to_the_admin_login(db, client):
    response = client.get("/admin/health/device/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_no_admin_page_shows_a_device_token_hash(operator, rows, alice):
    device = rows[Device]
    pages = [
        "/admin/health/device/",
        f"/admin/health/device/{device.pk}/change/",
        f"/admin/health/device/{device.pk}/history/",
        f"/admin/health/device/?q={device.token_prefix}",
        f"/admin/health/patientprofile/{alice.profile.pk}/change/",
        f"/admin/auth/user/{alice.pk}/change/",
        "/admin/health/vitalreading/",
    ]
    pages += [f"/admin/{m._meta.app_label}/{m._meta.model_name}/" for m in domain_models()]
    for page in pages:
        response = operator.get(page)
        assert response.status_code == 200, page
        assert device.token_hash not in response.content.decode(), page


def test_the_patient_page_shows_the_account_contacts_and_devices(operator, rows, alice):
    contact = rows[EmergencyContact]
    device = rows[Device]

    html = operator.get(f"/admin/health/patientprofile/{alice.profile.pk}/change/").content.decode()

    assert "alice" in html
    assert contact.name in html and contact.phone in html
    assert device.name in html and device.token_prefix in html


def test_the_user_page_carries_the_patients_contacts_and_devices(operator, rows, alice):
    contact = rows[EmergencyContact]
    device = rows[Device]

    html = operator.get(f"/admin/auth/user/{alice.pk}/change/").content.decode()

    assert contact.phone in html
    assert device.token_prefix in html
    assert "Patient profile" in html
