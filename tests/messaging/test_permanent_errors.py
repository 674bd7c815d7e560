"""Errors that cannot pass (a bad number, a rejected request: 4xx other than
429) mark the message failed at once with a reason a person can read."""

from __future__ import annotations

import json

import pytest
from twilio.http.response import Response

from health.models import OutboundMessage
from tests.messaging.conftest import TO_NUMBER


def test_an_invalid_number_fails_at_once_with_a_readable_reason(fake_twilio, queue_message):
    fake_twilio.answer_posts((400, 21211))

    message = queue_message()

    assert message.status == OutboundMessage.Status.FAILED
    assert message.status_detail == (
        "failed: the recipient's number is not a valid phone number (Twilio error 21211, HTTP 400)"
    )
    assert message.attempts == 1
    assert message.provider_message_id == ""
    assert len(fake_twilio.calls) == 1


@pytest.mark.parametrize("code", [21214, 21217, 21608, 21610, 21612, 21614])
def test_unreachable_unverified_and_unsubscribed_numbers_fail_without_retry(fake_twilio, queue_message, code):
    fake_twilio.answer_posts((400, code))

    message = queue_message()

    assert message.status == OutboundMessage.Status.FAILED
    assert f"(Twilio error {code}, HTTP 400)" in message.status_detail
    assert "Twilio rejected the message" not in message.status_detail
    assert len(fake_twilio.calls) == 1


@pytest.mark.parametrize(
    ("status", "code", "reason"),
    [
        (401, 20003, "Twilio rejected the account credentials"),
        (403, 20008, "Twilio rejected the message"),
        (400, None, "Twilio rejected the message"),
    ],
)
def test_other_client_errors_fail_without_retry(fake_twilio, queue_message, status, code, reason):
    fake_twilio.answer_posts((status, code))

    message = queue_message()

    assert message.status == OutboundMessage.Status.FAILED
    assert message.status_detail.startswith(f"failed: {reason} (")
    assert f"HTTP {status})" in message.status_detail
    assert len(fake_twilio.calls) == 1


def test_the_reason_shown_does_not_repeat_twilios_text_with_the_number(fake_twilio, queue_message):
    fake_twilio.answer_posts((400, 21211))

    message = queue_message()

    assert TO_NUMBER not in message.status_detail


def test_errors_in_twilios_newer_problem_format_are_understood_too(fake_twilio, queue_message):
    problem = {
        "type": "https://www.twilio.com/docs/errors/21211",
        "title": "Invalid 'To' Phone Number",
        "status": 400,
        "code": 21211,
        "detail": f"The 'To' number {TO_NUMBER} is not a valid phone number.",
    }
    fake_twilio.answer_posts(Response(400, json.dumps(problem)))

    message = queue_message()

    assert message.status == OutboundMessage.Status.FAILED
    assert "not a valid phone number (Twilio error 21211, HTTP 400)" in message.status_detail
    assert len(fake_twilio.calls) == 1
