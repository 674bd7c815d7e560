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


def twilio_answer(session: requests.Session, request: requests.PreparedRequest, **kwargs) -> requests.Response:
    response = requests.Response()
    response.url = request.url
    response.encoding = "utf-8"
    if request.method == "GET":
        response.status_code = 200
        response._content = json.dumps({"messages": [], "next_page_uri": None}).encode()
    elif not getattr(twilio_answer, "failed_once", False):
        twilio_answer.failed_once = True
        response.status_code = 503
        response._content = json.dumps({"code": 20500, "message": "Service unavailable", "status": 503}).encode()
    else:
        response.status_code = 201
        response._content = json.dumps({"sid": "SM" + "1" * 32, "to": TO_NUMBER, "body": BODY}).encode()
    return response


def test_delivery_logs_ids_and_states_but_no_numbers_or_bodies(twilio_configured, queue_message, caplog):
    caplog.set_level(logging.DEBUG)
    twilio_answer.failed_once = False

    with mock.patch.object(requests.Session, "send", autospec=True, side_effect=twilio_answer) as send:
        message = queue_message(body=BODY)

    assert [c.args[1].method for c in send.call_args_list] == ["POST", "GET", "POST"]
    assert message.status == "sent"
    assert f"message {message.pk}: sent" in caplog.text
    for secret in (TO_NUMBER, FROM_NUMBER, TO_NUMBER.lstrip("+"), BODY, "190/120"):
        assert secret not in caplog.text
