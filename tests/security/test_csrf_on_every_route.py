"""CSRF: a signed-in browser session cannot be made to change anything by another site.

Every URL pattern of the project (pages, the admin, the API) is sent a POST from a signed-in
staff session without a CSRF token, and every API route a PUT, a PATCH and a DELETE. Each must
answer 403 with a CSRF failure before its view runs, so a route that is exempt from CSRF, or an API
view that forgets session CSRF, fails here.
"""

from __future__ import annotations

import pytest
from django.test import Client

from health.models import Notification
from tests.factories import NotificationFactory
from tests.security.routes import all_routes

ROUTES = all_routes()


@pytest.fixture
def staff_client(carol) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(carol)
    return client


def test_the_walk_covers_pages_admin_and_api():
    urls = [route.url for route in ROUTES]
    assert len(urls) > 250
    for expected in ("/profile/", "/login/", "/logout/", "/admin/health/vitalreading/1/change/", "/api/vitals/"):
        assert expected in urls


@pytest.mark.parametrize("route", ROUTES, ids=[f"{r.name} {r.url}" for r in ROUTES])
def test_a_post_without_a_csrf_token_is_refused(staff_client, route):
    response = staff_client.post(route.url, {"anything": "1"})

    assert response.status_code == 403, f"POST {route.url} without a CSRF token answered {response.status_code}"
    # An API view's reason is in its data even where it renders HTML (Swagger UI).
    reason = response.content.decode(errors="replace") + str(getattr(response, "data", ""))
    assert "CSRF" in reason, f"POST {route.url} was refused, but not for CSRF: {reason[:200]}"


API_WRITES = [
    (route, method) for route in ROUTES if route.url.startswith("/api/") for method in ("put", "patch", "delete")
]


@pytest.mark.parametrize("route, method", API_WRITES, ids=[f"{m.upper()} {r.name} {r.url}" for r, m in API_WRITES])
def test_a_put_patch_or_delete_without_a_csrf_token_is_refused(staff_client, route, method):
    """The API's other writing methods, each on every API route: refused for CSRF before the view
    runs (a 403 CSRF failure, never a 405 that would mean the view was reached first)."""
    response = getattr(staff_client, method)(route.url, data='{"anything": "1"}', content_type="application/json")

    assert response.status_code == 403, f"{method.upper()} {route.url} answered {response.status_code}"
    assert "CSRF" in str(getattr(response, "data", "")) + response.content.decode(errors="replace")


def test_the_same_post_with_the_token_gets_through(alice):
    """The control: the walk's 403s come from the missing token, not from posting at all."""
    NotificationFactory(user=alice, read_at=None)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    client.get("/notifications/")
    token = client.cookies["csrftoken"].value

    # As the app's pages post to the API: JSON, the token in the header.
    url, json = "/api/notifications/mark-all-read/", "application/json"
    refused = client.post(url, {}, content_type=json, HTTP_X_CSRFTOKEN="wrong" * 8)
    accepted = client.post(url, {}, content_type=json, HTTP_X_CSRFTOKEN=token)

    assert refused.status_code == 403
    assert accepted.status_code == 200
    assert not Notification.objects.filter(user=alice, read_at__isnull=True).exists()
