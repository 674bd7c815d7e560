"""Sessions end: SESSION_COOKIE_AGE (default 12 hours) from the environment."""

from __future__ import annotations

from django.conf import settings

from tests.security.production import manage

AGE = ("shell", "--no-imports", "-c", "from django.conf import settings; print(settings.SESSION_COOKIE_AGE)")


def test_a_session_lasts_twelve_hours_by_default(tmp_path):
    assert manage(*AGE, data_dir=tmp_path).stdout.strip() == str(12 * 3600)


def test_the_environment_sets_the_age_and_refuses_a_silly_one(tmp_path):
    assert manage(*AGE, data_dir=tmp_path, env={"SESSION_COOKIE_AGE": "1800"}).stdout.strip() == "1800"

    refused = manage(*AGE, data_dir=tmp_path, env={"SESSION_COOKIE_AGE": "10"})
    assert refused.returncode != 0
    assert "SESSION_COOKIE_AGE must be >= 300" in refused.stderr


def test_the_session_cookie_expires_with_the_age(alice, client):
    response = client.post("/login/", {"username": "alice", "password": "correct horse battery"})

    assert response.status_code == 302
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert int(cookie["max-age"]) == settings.SESSION_COOKIE_AGE
    assert cookie["httponly"]


def test_an_expired_session_is_signed_out(alice, client):
    client.post("/login/", {"username": "alice", "password": "correct horse battery"})
    session = client.session
    session.set_expiry(-1)
    session.save()

    assert client.get("/profile/").status_code == 302
