"""``simulate_watch`` streams to a running server over HTTP with the device
token, and a batch whose answer was lost is sent again without duplicates."""

from __future__ import annotations

from unittest import mock

import pytest
import requests
from django.core.management import CommandError, call_command

from health.models import Alert, Device, VitalReading


@pytest.fixture
def token_file(alice_device, tmp_path):
    path = tmp_path / "watch.token"
    path.write_text(alice_device[1] + "\n")
    return path


def simulate(live_server, token_file, *extra: str) -> None:
    call_command(
        "simulate_watch",
        "--user=alice",
        f"--base-url={live_server.url}",
        f"--token-file={token_file}",
        "--no-wait",
        *extra,
    )


def test_a_hypoxia_scenario_streamed_over_http_raises_a_hypoxia_alert(transactional_db, alice, token_file, live_server):
    simulate(live_server, token_file, "--scenario=hypoxia", "--duration=240", "--batch-seconds=30")

    assert VitalReading.objects.filter(user=alice).count() == 240
    assert list(Alert.objects.filter(user=alice).values_list("condition", flat=True)) == ["hypoxia"]


def test_a_batch_whose_answer_was_lost_is_resent_and_stored_once(transactional_db, alice, token_file, live_server):
    real_post = requests.Session.post
    calls: list[int] = []

    def lose_first_answer(session, url, **kwargs):
        response = real_post(session, url, **kwargs)
        calls.append(response.status_code)
        if len(calls) == 1:
            raise requests.ConnectionError("connection reset after the server answered")
        return response

    with mock.patch.object(requests.Session, "post", autospec=True, side_effect=lose_first_answer):
        simulate(live_server, token_file, "--scenario=normal", "--duration=20", "--batch-seconds=10")

    assert calls == [201, 200, 201]  # the resent batch was all duplicates
    assert VitalReading.objects.filter(user=alice).count() == 20


def test_without_a_token_file_a_simulated_watch_is_paired(transactional_db, alice, live_server, settings, tmp_path):
    settings.DATA_DIR = tmp_path

    call_command(
        "simulate_watch", "--user=alice", f"--base-url={live_server.url}", "--no-wait", "--duration=5", "--rate=1/s"
    )

    device = Device.objects.get(user=alice, kind="simulator")
    assert device.readings.count() == 5
    assert Device.for_token((tmp_path / "simulator-alice.token").read_text().strip()) == device


def test_an_unreachable_server_ends_with_a_clear_error(db, token_file):
    with pytest.raises(CommandError, match="giving up after 2 attempts"):
        call_command(
            "simulate_watch",
            "--user=alice",
            "--base-url=http://127.0.0.1:9",
            f"--token-file={token_file}",
            "--no-wait",
            "--duration=2",
            "--max-retries=1",
        )
