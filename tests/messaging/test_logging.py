"""Delivery logs ids and states only: phone numbers and message bodies are
health data. Here the fake sits one layer lower (requests' Session.send), so
the Twilio client's own request logging runs too."""

from __future__ import annotations

import json
import logging
from unittest import mock

import requests

from tests.messaging.conftest import FROM_NUMBER, TO_NUMBER

BODY = "Alice's blood pressure is 190/120"


class TwilioOverRequests:
    """Answers at requests' level: the first POST with 503, the list GET with
    no messages, the next POST with 201."""

    def __init__(self) -> None:
        self.posts = 0

    def __call__(self, session: requests.Session, request: requests.PreparedRequest, **kwargs) -> requests.Response:
        if request.method == "GET":
            return self._response(200, {"messages": [], "next_page_uri": None})
        self.posts += 1
        if self.posts == 1:
            return self._response(503, {"code": 20500, "message": "Service unavailable", "status": 503})
        return self._response(201, {"sid": "SM" + "1" * 32, "to": TO_NUMBER, "from": FROM_NUMBER, "body": BODY})

    @staticmethod
    def _response(status: int, payload: dict) -> requests.Response:
        response = requests.Response()
        response.status_code = status
        response.encoding = "utf-8"
        response._content = json.dumps(payload).encode()
        return response


def test_delivery_logs_ids_and_states_but_no_numbers_or_bodies(twilio_configured, queue_message, caplog):
    caplog.set_level(logging.DEBUG)

    with mock.patch.object(requests.Session, "send", autospec=True, side_effect=TwilioOverRequests()) as send:
        message = queue_message(body=BODY)

    assert [c.args[1].method for c in send.call_args_list] == ["POST", "GET", "POST"]
    assert message.status == "sent"
    assert f"message {message.pk}: sent on attempt 2" in caplog.text
    for secret in (TO_NUMBER, FROM_NUMBER, TO_NUMBER.lstrip("+"), BODY, "190/120"):
        assert secret not in caplog.text
