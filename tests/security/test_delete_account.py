"""A patient deletes their account and everything tied to it, from the Profile page (after their
password) or the API: all of it or nothing, and never another patient's data."""

from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.test import Client

from health.models import Alert, Ambulance
from health.privacy import erase
from health.privacy.records import owned_models
from tests.security.test_export import give_a_world

PASSWORD = "correct horse battery"


def rows_of(user) -> dict[str, int]:
    return {entry.label: entry.rows(user).count() for entry in owned_models()}


@pytest.fixture
def worlds(alice, bob):
    alice_world, bob_world = give_a_world(alice), give_a_world(bob)
    # An open hard SOS holds an ambulance; the patient ended it before deleting.
    Alert.objects.filter(kind=Alert.Kind.HARD).update(state=Alert.State.RESOLVED)
    Ambulance.objects.update(available=False)
    return alice_world, bob_world


@pytest.fixture
def alice_browser(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def test_the_profile_page_leads_to_a_confirmation_that_asks_for_the_password(alice_browser, worlds):
    profile = alice_browser.get("/profile/").content.decode()
    assert 'href="/profile/delete/"' in profile and 'href="/profile/export/"' in profile

    page = alice_browser.get("/profile/delete/").content.decode()

    assert "It cannot be undone" in page
    assert 'type="password"' in page
    assert get_user_model().objects.filter(username="alice").exists()


def test_a_wrong_password_deletes_nothing(alice, alice_browser, worlds):
    before = rows_of(alice)

    response = alice_browser.post("/profile/delete/", {"password": "not it"})

    assert response.status_code == 400
    assert "That is not your password. Nothing was deleted." in response.content.decode()
    assert rows_of(alice) == before
    assert alice_browser.get("/profile/").status_code == 200


def test_the_right_password_deletes_the_account_and_everything_tied_to_it(alice, bob, alice_browser, worlds):
    alice_world, _ = worlds
    photo = alice_world["prescription"].image.name
    AccessAttempt.objects.create(username="alice", ip_address="127.0.0.1", failures_since_start=2)
    bob_before = rows_of(bob)
    assert LogEntry.objects.filter(additional_data__patient_id=alice.pk).exists()
    assert default_storage.exists(photo)

    response = alice_browser.post("/profile/delete/", {"password": PASSWORD})

    assert response.status_code == 302 and response.headers["Location"] == "/login/"
    assert "Your account and everything tied to it were deleted." in alice_browser.get("/login/").content.decode()
    assert not get_user_model().objects.filter(username="alice").exists()
    assert all(count == 0 for count in rows_of(alice).values()), rows_of(alice)
    assert rows_of(bob) == bob_before
    assert not LogEntry.objects.filter(additional_data__patient_id=alice.pk).exists()
    assert LogEntry.objects.filter(additional_data__patient_id=bob.pk).exists()
    assert not AccessAttempt.objects.filter(username="alice").exists()
    assert Ambulance.objects.filter(available=True).count() == 1  # alice's, released; bob's still held
    assert alice_browser.get("/profile/").status_code == 302


def test_the_photo_file_goes_with_the_account(alice, alice_browser, worlds, django_capture_on_commit_callbacks):
    photo = worlds[0]["prescription"].image.name

    with django_capture_on_commit_callbacks(execute=True):
        alice_browser.post("/profile/delete/", {"password": PASSWORD})

    assert not default_storage.exists(photo)
    assert default_storage.exists(worlds[1]["prescription"].image.name)


def test_a_failure_half_way_leaves_everything_as_it_was(alice, alice_browser, worlds, monkeypatch):
    before = rows_of(alice)
    audit_before = LogEntry.objects.count()

    def breaks(callback):
        raise RuntimeError("the last step failed")

    # The last step inside the transaction fails, after every row was deleted.
    monkeypatch.setattr(erase.transaction, "on_commit", breaks)

    with pytest.raises(RuntimeError):
        erase.erase_account(alice, PASSWORD)

    assert rows_of(get_user_model().objects.get(username="alice")) == before
    assert LogEntry.objects.count() == audit_before
    assert default_storage.exists(worlds[0]["prescription"].image.name)


def test_an_sos_under_way_must_be_ended_first(alice, alice_browser, worlds):
    Alert.objects.filter(user=alice, kind=Alert.Kind.HARD).update(state=Alert.State.OPEN)
    before = rows_of(alice)

    response = alice_browser.post("/profile/delete/", {"password": PASSWORD})

    assert response.status_code == 400
    assert "An SOS is under way" in response.content.decode()
    assert rows_of(alice) == before


def test_the_api_deletes_with_the_password_and_ends_the_session(alice, alice_api, worlds):
    refused = alice_api.post("/api/profile/delete/", {"password": "guess"}, format="json")
    assert refused.status_code == 400
    assert refused.json() == {"password": ["That is not your password. Nothing was deleted."]}

    response = alice_api.post("/api/profile/delete/", {"password": PASSWORD}, format="json")

    assert response.status_code == 204
    assert not get_user_model().objects.filter(username="alice").exists()
    assert alice_api.get("/api/profile/").status_code == 403


def test_an_operator_deleting_a_user_in_the_admin_erases_the_same_way(bob, carol, worlds):
    operator = Client()
    operator.force_login(carol)
    assert LogEntry.objects.filter(additional_data__patient_id=bob.pk).exists()

    response = operator.post(f"/admin/auth/user/{bob.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not get_user_model().objects.filter(username="bob").exists()
    assert all(count == 0 for count in rows_of(bob).values())
    # Neither the old entries quoting bob's records nor one per deleted row.
    assert not LogEntry.objects.filter(additional_data__patient_id=bob.pk).exists()


def test_the_admin_offers_no_deletion_while_the_users_sos_is_under_way(bob, carol, worlds):
    Alert.objects.filter(user=bob, kind=Alert.Kind.HARD).update(state=Alert.State.OPEN)
    operator = Client()
    operator.force_login(carol)

    assert operator.post(f"/admin/auth/user/{bob.pk}/delete/", {"post": "yes"}).status_code == 403
    assert "delete_selected" not in operator.get("/admin/auth/user/").content.decode()
    assert get_user_model().objects.filter(username="bob").exists()
