"""Editing the profile in a real browser: the server's phone validation shows
next to the field, and valid changes are saved."""

from __future__ import annotations

from playwright.sync_api import expect

from health.models import EmergencyContact, PatientProfile
from tests.browser.conftest import screenshot, sign_in


def test_an_invalid_contact_number_is_refused_next_to_the_field_and_a_valid_one_is_saved(page, alice):
    sign_in(page, "alice")
    page.get_by_role("link", name="Profile").click()
    form = page.locator("#contact-form")

    form.get_by_label("Name").fill("Dana")
    form.get_by_label("Relation").fill("daughter")
    form.get_by_label("Phone number").fill("4155550101")
    form.get_by_role("button", name="Add contact").click()

    error = page.locator("#c-phone-error")
    expect(error).to_have_text("Enter the number with its country code, e.g. +14155550123.")
    expect(form.get_by_label("Phone number")).to_have_attribute("aria-invalid", "true")
    expect(form.get_by_label("Phone number")).to_be_focused()
    screenshot(page, "profile-invalid-phone")
    assert not EmergencyContact.objects.filter(user=alice).exists()

    form.get_by_label("Phone number").fill("+1 415 555 0101")
    form.get_by_role("button", name="Add contact").click()

    contacts = page.locator("#contact-list")
    expect(contacts).to_contain_text("Dana (daughter)")
    expect(contacts).to_contain_text("+14155550101")
    expect(error).to_be_hidden()
    contact = EmergencyContact.objects.get(user=alice)
    assert (contact.name, contact.phone) == ("Dana", "+14155550101")

    contacts.get_by_role("button", name="Edit Dana").click()
    form.get_by_label("Name").fill("Dana Smith")
    form.get_by_label("Looks after my medicines").check()
    form.get_by_role("button", name="Save contact").click()
    expect(contacts).to_contain_text("Dana Smith (daughter)")
    expect(contacts).to_contain_text("carer")
    contact.refresh_from_db()
    assert contact.name == "Dana Smith" and contact.is_carer


def test_home_location_time_zone_and_sms_opt_in_are_saved(page, alice):
    sign_in(page, "alice")
    page.goto("/profile/")
    form = page.locator("#profile-form")
    expect(form.get_by_label("Time zone")).to_have_value("Europe/Berlin")

    form.get_by_label("Home address").fill("Unter den Linden 1, Berlin")
    form.get_by_label("Home latitude").fill("52.517")
    form.get_by_label("Home longitude").fill("")
    form.get_by_role("button", name="Save profile").click()
    expect(page.locator("#p-lon-error")).to_have_text("Give latitude and longitude together.")

    form.get_by_label("Home longitude").fill("13.389")
    form.get_by_label("Time zone").select_option("America/New_York")
    form.get_by_label("Allow SMS").check()
    form.get_by_label("Also text each reminder to my phone").check()
    form.get_by_label("When I miss a dose, text my contacts marked as carer").check()
    form.get_by_role("button", name="Save profile").click()

    expect(page.get_by_text("Your profile is saved.")).to_be_visible()
    screenshot(page, "profile-saved")
    profile = PatientProfile.objects.get(user=alice)
    assert (profile.home_address, profile.home_latitude, profile.home_longitude) == (
        "Unter den Linden 1, Berlin",
        52.517,
        13.389,
    )
    assert (profile.timezone, profile.sms_opt_in) == ("America/New_York", True)
    assert profile.reminder_sms and profile.tell_carer_of_missed_doses
