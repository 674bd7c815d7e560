"""The request that leaves the device: exactly one POST to Twilio's Messages
endpoint of the configured account, with To, From and Body."""

from __future__ import annotations

from health.models import OutboundMessage
from tests.messaging.conftest import ACCOUNT_SID, AUTH_TOKEN, FROM_NUMBER, MESSAGES_URL, TO_NUMBER


def test_it_posts_to_from_and_body_to_the_accounts_messages_endpoint(fake_twilio, queue_message):
    body = "Alice pressed SOS. Location: https://maps.example/?q=52.52,13.40"

    queue_message(body=body)

    [call] = fake_twilio.calls
    assert call.method == "POST"
    assert call.url == MESSAGES_URL
    assert ACCOUNT_SID in call.url
    assert call.data == {"To": TO_NUMBER, "From": FROM_NUMBER, "Body": body}
    assert call.auth == (ACCOUNT_SID, AUTH_TOKEN)


def test_it_records_twilios_sid_and_marks_the_message_sent(fake_twilio, queue_message):
    message = queue_message()

    assert message.status == OutboundMessage.Status.SENT
    assert message.provider_message_id == fake_twilio.accepted[0]["sid"]
    assert message.provider_message_id.startswith("SM")
    assert message.sent_at is not None
    assert message.last_attempt_at is not None
    assert message.attempts == 1
    assert message.status_detail == ""
