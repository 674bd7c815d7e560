"""Sign-in throttling (django-axes): LOGIN_FAILURE_LIMIT (5) wrong passwords for one username from
one address lock that pair out for LOGIN_LOCKOUT_MINUTES (15), even with the right password."""

from __future__ import annotations

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client

PASSWORD = "correct horse battery"  # tests.factories.UserFactory


def _sign_in(client: Client, username: str, password: str, *, url: str = "/login/"):
    return client.post(url, {"username": username, "password": password})


def _fail(client: Client, username: str = "alice", times: int | None = None) -> None:
    for attempt in range(1, (settings.AXES_FAILURE_LIMIT if times is None else times) + 1):
        response = _sign_in(client, username, "wrong password")
        # The login form again with its error, and the lockout page from the failure that locks.
        assert response.status_code == (429 if attempt == settings.AXES_FAILURE_LIMIT else 200)


def test_the_limit_and_cool_off_are_five_failures_and_fifteen_minutes_by_default():
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME == dt.timedelta(minutes=15)


def test_four_failures_still_let_the_right_password_in(alice, client):
    _fail(client, times=settings.AXES_FAILURE_LIMIT - 1)

    response = _sign_in(client, "alice", PASSWORD)

    assert response.status_code == 302
    assert client.get("/profile/").status_code == 200


def test_five_failures_lock_the_account_out_with_a_clear_page(alice, client):
    _fail(client)

    response = _sign_in(client, "alice", PASSWORD)

    assert response.status_code == 429
    page = response.content.decode()
    assert "Sign-in paused for 15 minutes" in page
    assert "wrong 5 times in a row" in page
    assert 'href="tel:911"' in page
    assert client.get("/profile/").status_code == 302, "a locked-out sign-in must not create a session"


def test_the_admin_login_is_locked_out_too(carol, client):
    _fail(client, "carol")

    response = _sign_in(client, "carol", PASSWORD, url="/admin/login/")

    assert response.status_code == 429
    assert client.get("/admin/").status_code == 302


def test_the_lockout_ends_after_the_cool_off(alice, client):
    _fail(client)
    assert _sign_in(client, "alice", PASSWORD).status_code == 429

    AccessAttempt.objects.update(attempt_time=dt.datetime.now(dt.UTC) - settings.AXES_COOLOFF_TIME)

    assert _sign_in(client, "alice", PASSWORD).status_code == 302


def test_a_stranger_elsewhere_cannot_lock_the_patient_out_at_home(alice):
    stranger = Client(REMOTE_ADDR="203.0.113.7")
    _fail(stranger)
    assert _sign_in(stranger, "alice", PASSWORD).status_code == 429

    at_home = Client(REMOTE_ADDR="127.0.0.1")
    assert _sign_in(at_home, "alice", PASSWORD).status_code == 302


def test_a_successful_sign_in_resets_the_count(alice, client):
    _fail(client, times=settings.AXES_FAILURE_LIMIT - 1)
    assert _sign_in(client, "alice", PASSWORD).status_code == 302
    client.post("/logout/")

    _fail(client, times=settings.AXES_FAILURE_LIMIT - 1)

    assert _sign_in(client, "alice", PASSWORD).status_code == 302


@pytest.mark.parametrize("url", ["/api/profile/", "/api/vitals/", "/api/conversations/"])
def test_the_api_takes_no_password_at_all(alice, url):
    """The API has no password login to throttle: HTTP Basic credentials are not a way in."""
    client = Client(HTTP_AUTHORIZATION="Basic YWxpY2U6Y29ycmVjdCBob3JzZSBiYXR0ZXJ5")  # alice:correct horse battery

    assert client.get(url).status_code in (401, 403)
