"""Without Twilio configured nothing leaves the device: the message stays in
the outbox, marked "not sent" with the reason."""

from __future__ import annotations

from django.test import override_settings

from health.models import OutboundMessage
from tests.messaging.conftest import ACCOUNT_SID, AUTH_TOKEN


def test_without_twilio_settings_the_message_is_kept_as_not_sent(twilio_unconfigured, http_spy, queue_message):
    message = queue_message()

    assert message.status == OutboundMessage.Status.NOT_SENT
    assert message.status_detail == "not sent: no SMS provider configured"
    assert message.provider_message_id == ""
    assert message.sent_at is None
    assert http_spy.call_count == 0


def test_a_partial_twilio_configuration_sends_nothing(twilio_unconfigured, http_spy, queue_message):
    with override_settings(TWILIO_ACCOUNT_SID=ACCOUNT_SID, TWILIO_AUTH_TOKEN=AUTH_TOKEN):
        message = queue_message()

    assert message.status == OutboundMessage.Status.NOT_SENT
    assert http_spy.call_count == 0
