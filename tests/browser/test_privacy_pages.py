"""In a real browser: the pages run under the Content-Security-Policy without a single violation,
the Profile page's "Your data" downloads everything and deletes the account after the password,
and a locked-out sign-in says how long to wait and what to do in an emergency."""

from __future__ import annotations

import io
import json
import zipfile

from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from tests.browser.conftest import screenshot, sign_in
from tests.factories import EmergencyContactFactory, SymptomRecordFactory

PAGES = ["/", "/chat/", "/appointments/", "/medications/", "/reports/", "/watch/", "/sos/", "/profile/",
         "/notifications/", "/admin/", "/admin/auditlog/logentry/", "/api/docs/"]  # fmt: skip


def test_no_page_breaks_the_content_security_policy(page, carol, alice):
    symptom = SymptomRecordFactory(user=alice, text="My knee hurts")
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda error: violations.append(str(error)))
    sign_in(page, "carol")

    page.goto(f"/admin/health/symptomrecord/{symptom.pk}/change/")  # an access for the audit log
    for url in PAGES:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        if url == "/admin/auditlog/logentry/":
            expect(page.locator("td.field-patient").first).to_have_text("alice")
            screenshot(page, "admin-audit-log")

    assert violations == []
    # Swagger UI drew itself: its script came from a file the policy allows.
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Agent Lite")


def test_the_profile_page_downloads_the_data_and_deletes_the_account(page, alice):
    EmergencyContactFactory(user=alice, name="Dana", phone="+14155550101")
    sign_in(page, "alice")
    page.goto("/profile/")
    section = page.locator("section", has=page.get_by_role("heading", name="Your data"))
    section.scroll_into_view_if_needed()
    screenshot(page, "profile-your-data")

    with page.expect_download() as download:
        section.get_by_role("link", name="Download all my data").click()
    archive = zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read()))
    data = json.loads(archive.read("data.json"))
    assert [c["name"] for c in data["records"]["health.EmergencyContact"]] == ["Dana"]

    section.get_by_role("link", name="Delete my account…").click()
    page.get_by_label("Your password, to confirm").fill("not my password")
    page.get_by_role("button", name="Delete my account and all my data").click()
    expect(page.get_by_role("alert")).to_have_text("That is not your password. Nothing was deleted.")
    screenshot(page, "account-delete-wrong-password")
    assert get_user_model().objects.filter(username="alice").exists()

    page.get_by_label("Your password, to confirm").fill("correct horse battery")
    page.get_by_role("button", name="Delete my account and all my data").click()

    page.wait_for_url("**/login/")
    expect(page.get_by_text("Your account and everything tied to it were deleted.")).to_be_visible()
    screenshot(page, "account-deleted")
    assert not get_user_model().objects.filter(username="alice").exists()


def test_a_locked_out_sign_in_says_how_long_and_what_to_do(page, alice):
    page.goto("/login/")
    for _ in range(5):
        page.get_by_label("Username").fill("alice")
        page.get_by_label("Password").fill("wrong guess")
        page.get_by_role("button", name="Sign in").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Sign-in paused for 15 minutes")
    expect(page.get_by_role("link", name="911")).to_have_attribute("href", "tel:911")
    screenshot(page, "login-locked-out")
