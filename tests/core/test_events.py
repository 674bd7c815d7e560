"""One list of websocket events: the server pushes only its names, and every page gets them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.events import PAYLOADS, Event, names
from core.realtime import push_to_user

JS = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend" / "js"


def test_an_event_that_is_not_in_the_list_is_refused():
    with pytest.raises(ValueError):
        push_to_user(1, "alrt", {})


def test_every_event_has_a_payload_description():
    assert set(PAYLOADS) == set(Event)


def test_the_pages_subscribe_only_to_listed_events_by_name():
    scripts = {path.name: path.read_text() for path in JS.glob("*.js")}
    literal = [name for name, text in scripts.items() if re.search(r'onEvent\("', text)]
    assert literal == [], "subscribe with EVENT.NAME from events.js, not a string"
    used = {m for text in scripts.values() for m in re.findall(r"EVENT\.([A-Z_]+)", text)}
    assert used <= {*names(), "RECONNECTED", "CONNECTED"}  # the socket's own (events.js)


@pytest.mark.django_db
def test_every_page_carries_the_list_for_its_scripts(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("eve", password="x"))
    page = client.get("/").content.decode()
    rendered = re.search(r'<script id="live-events" type="application/json">(.*?)</script>', page).group(1)
    assert json.loads(rendered) == names()
