"""Every screen fits a phone: nothing scrolls sideways at 360 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_in


@pytest.mark.parametrize(
    ("path", "heading"),
    [
        ("/", "Hello, Alice"),
        ("/chat/", "Chat with your assistant"),
        ("/notifications/", "Notifications"),
        ("/profile/", "Your profile"),
        ("/sos/", "Emergency SOS"),
    ],
)
def test_the_screen_fits_a_phone_width(page, alice, path, heading):
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, "alice")

    page.goto(path)

    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow == 0, f"{path} scrolls sideways by {overflow} px on a phone"
    screenshot(page, f"phone-{path.strip('/') or 'home'}")
