from __future__ import annotations


def test_login_page_is_served(client, db):
    response = client.get("/login/")
    assert response.status_code == 200
    assert b"Sign in" in response.content


def test_home_redirects_anonymous_visitors_to_login(client, db):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
