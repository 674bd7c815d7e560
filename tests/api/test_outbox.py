"""The outbox: the patient sees what was sent on their behalf, read-only."""

from __future__ import annotations

from tests.factories import OutboundMessageFactory


def test_messages_are_listed_without_delivery_plumbing(alice, alice_api):
    message = OutboundMessageFactory(user=alice, body="Alice needs help", idempotency_key="sos-1-contact-1")

    body = alice_api.get("/api/outbox/").json()["results"]

    assert [row["id"] for row in body] == [message.pk]
    assert body[0]["body"] == "Alice needs help"
    assert body[0]["status"] == "queued"
    assert "idempotency_key" not in body[0]
    assert "sos-1-contact-1" not in alice_api.get(f"/api/outbox/{message.pk}/").content.decode()


def test_the_outbox_is_read_only(alice, alice_api):
    message = OutboundMessageFactory(user=alice)

    assert alice_api.post("/api/outbox/", {"recipient": "+442071838750", "body": "hi"}).status_code == 405
    assert alice_api.patch(f"/api/outbox/{message.pk}/", {"status": "sent"}).status_code == 405
    assert alice_api.delete(f"/api/outbox/{message.pk}/").status_code == 405
