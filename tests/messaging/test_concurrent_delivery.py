"""Two workers handed the same message at once (a redelivered task beside the
original, the sweep beside a slow broker) send it once: the first attempt's
lease turns the second away while the first is talking to Twilio."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from health.models import OutboundMessage
from health.tasks import deliver_message
from tests.factories import OutboundMessageFactory
from tests.messaging.conftest import TO_NUMBER

WAIT_SECONDS = 10


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_message_send_it_once(fake_twilio, alice):
    message = OutboundMessageFactory(user=alice, recipient=TO_NUMBER)
    first_is_sending = threading.Event()
    second_is_done = threading.Event()

    def hold_the_first_post() -> None:
        if not first_is_sending.is_set():
            first_is_sending.set()
            assert second_is_done.wait(WAIT_SECONDS), "the second worker never finished"

    fake_twilio.on_post = hold_the_first_post
    outcomes: dict[str, str] = {}

    # ``.result``, not ``.get()``: Celery refuses get() while another thread
    # is inside a task, and eager results are already complete.
    def first_worker() -> None:
        try:
            outcomes["first"] = deliver_message.delay(message.pk).result
        finally:
            connection.close()

    worker = threading.Thread(target=first_worker)
    worker.start()
    try:
        assert first_is_sending.wait(WAIT_SECONDS), "the first worker never reached Twilio"
        outcomes["second"] = deliver_message.delay(message.pk).result
    finally:
        second_is_done.set()
        worker.join(WAIT_SECONDS)

    assert outcomes == {"first": "sent", "second": "busy"}
    assert len(fake_twilio.posts) == 1
    message.refresh_from_db()
    assert message.status == OutboundMessage.Status.SENT
    assert message.attempts == 1
