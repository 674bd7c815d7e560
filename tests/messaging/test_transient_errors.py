"""Errors that may pass (429, 5xx, network failures) are retried with backoff;
after the last retry the message is marked failed with the last error.

Tests run Celery eagerly, so retries happen inline without their countdown."""

from __future__ import annotations

import pytest
import requests

from health.models import OutboundMessage
from health.tasks import DELIVERY_MAX_RETRIES
from tests.messaging.conftest import FROM_NUMBER, TO_NUMBER


def test_a_503_is_retried_and_the_message_is_sent_on_the_second_attempt(fake_twilio, queue_message):
    fake_twilio.answer_posts(503, 201)

    message = queue_message()

    assert message.status == OutboundMessage.Status.SENT
    assert message.attempts == 2
    assert message.provider_message_id == fake_twilio.accepted[0]["sid"]
    assert len(fake_twilio.posts) == 2
    assert fake_twilio.posts[0].data == fake_twilio.posts[1].data
    # The retry first asked Twilio whether the failed attempt got through.
    [lookup] = fake_twilio.gets
    assert lookup.params["To"] == TO_NUMBER
    assert lookup.params["From"] == FROM_NUMBER


@pytest.mark.parametrize("answer", [429, 500, 502, requests.ConnectionError(), requests.ReadTimeout()])
def test_rate_limits_server_errors_and_network_errors_are_retried(fake_twilio, queue_message, answer):
    fake_twilio.answer_posts(answer, 201)

    message = queue_message()

    assert message.status == OutboundMessage.Status.SENT
    assert message.attempts == 2
    assert len(fake_twilio.accepted) == 1


def test_a_lookup_that_fails_transiently_is_retried_before_sending(fake_twilio, queue_message):
    fake_twilio.answer_posts(503, 201)
    fake_twilio.answer_gets(503)

    message = queue_message()

    assert message.status == OutboundMessage.Status.SENT
    assert message.attempts == 3
    assert len(fake_twilio.posts) == 2
    assert len(fake_twilio.gets) == 2


def test_a_message_still_failing_after_the_last_retry_is_marked_failed_with_the_last_error(fake_twilio, queue_message):
    attempts = DELIVERY_MAX_RETRIES + 1
    fake_twilio.answer_posts(*([503] * (attempts - 1)), 502)

    message = queue_message()

    assert message.status == OutboundMessage.Status.FAILED
    assert message.status_detail == f"failed after {attempts} attempts: Twilio is unavailable (HTTP 502)"
    assert message.attempts == attempts
    assert len(fake_twilio.posts) == attempts
    assert fake_twilio.post_script == []
    assert fake_twilio.accepted == []
