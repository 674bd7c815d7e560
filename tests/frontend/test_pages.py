"""The UI pages: each needs a signed-in user, and the navigation links only
to screens that exist."""

from __future__ import annotations

import pytest
from django.test import Client

PAGES = ["/", "/chat/", "/notifications/", "/profile/", "/sos/"]


@pytest.mark.parametrize("path", PAGES)
def test_an_anonymous_visitor_is_sent_to_sign_in(client: Client, db, path):
    response = client.get(path)

    assert response.status_code == 302
    assert response["Location"].startswith(f"/login/?next={path}")


@pytest.mark.parametrize("path", PAGES)
def test_a_signed_in_patient_gets_the_page_with_the_main_navigation(client: Client, alice, path):
    client.force_login(alice)

    response = client.get(path)

    assert response.status_code == 200
    html = response.content.decode()
    for link in ['href="/chat/"', 'href="/sos/"', 'href="/profile/"', 'href="/notifications/"']:
        assert link in html
    assert 'name="csrf-token"' in html
    assert 'data-timezone="Europe/Berlin"' in html


def test_the_operator_links_are_for_staff_only(client: Client, alice, carol):
    client.force_login(alice)
    assert 'href="/admin/"' not in client.get("/").content.decode()

    client.force_login(carol)
    assert 'href="/admin/"' in client.get("/").content.decode()


def test_the_site_has_an_icon(client: Client, alice):
    """Every page names the icon, and /favicon.ico (asked for by pages that name none) leads to it."""
    from django.contrib.staticfiles import finders

    client.force_login(alice)
    page = client.get("/").content.decode()
    assert '<link rel="icon" href="/static/frontend/favicon.svg"' in page
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"] == "/static/frontend/favicon.svg"
    assert finders.find("frontend/favicon.svg")
