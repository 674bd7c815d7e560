"""The operator's overview page: what it shows, who may see it, what it costs
in queries, its charts and the deployed-model section."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from frontend.operator import overview
from health import models as m
from tests.admin.conftest import populate
from tests.factories import (
    AgentStepFactory,
    AlertFactory,
    AppointmentFactory,
    ConversationFactory,
    DoseEventFactory,
    OutboundMessageFactory,
    SlotFactory,
    UserFactory,
)

URL = reverse("admin:overview")


def today_at(hour: int) -> dt.datetime:
    return timezone.now().astimezone(dt.UTC).replace(hour=hour, minute=0, second=0, microsecond=0)


def add_rows(patient) -> dict[str, object]:
    """One of each thing the overview lists, with recognisable values."""
    slot = SlotFactory(starts_at=today_at(23), ends_at=today_at(23) + dt.timedelta(minutes=30))
    slot.specialist.name = f"Dr. Overview {patient.username}"
    slot.specialist.save()
    conversation = ConversationFactory(user=patient, title="Overview run")
    for index in range(3):
        AgentStepFactory(
            conversation=conversation, index=index, latency_ms=100 * (index + 1), prompt_tokens=10, completion_tokens=5
        )
    return {
        "alert": AlertFactory(user=patient, condition="hypoxia-overview", guard_acted=True),
        "appointment": AppointmentFactory(user=patient, slot=slot),
        "failed": OutboundMessageFactory(
            user=patient, recipient_name="Failed Recipient Name", status=m.OutboundMessage.Status.FAILED, attempts=3
        ),
        "missed": DoseEventFactory(state=m.DoseEvent.State.MISSED, due_at=timezone.now() - dt.timedelta(hours=5)),
        "conversation": conversation,
    }


@pytest.mark.django_db
def test_the_page_shows_every_kind_of_row_to_the_operator(operator: Client, alice) -> None:
    made = add_rows(alice)
    response = operator.get(URL)
    assert response.status_code == 200
    page = response.content.decode()
    assert "hypoxia-overview" in page
    assert reverse("admin:health_alert_change", args=[made["alert"].pk]) in page
    assert "Dr. Overview alice" in page
    assert "Failed Recipient Name" in page
    assert "?status__in=failed,not_sent" in page and "?attempts__gt=1" in page
    assert reverse("admin:health_doseevent_change", args=[made["missed"].pk]) in page
    assert "?state__exact=missed" in page
    assert reverse("admin:agents_conversation_change", args=[made["conversation"].pk]) in page
    assert "3 steps" in page and "600 ms" in page and "30 / 15" in page


@pytest.mark.django_db
def test_sos_texts_not_sent_for_want_of_a_provider_are_a_red_problem_not_zero_failures(
    operator: Client, alice, settings
) -> None:
    settings.TWILIO_ACCOUNT_SID = settings.TWILIO_AUTH_TOKEN = settings.TWILIO_FROM_NUMBER = ""
    alert = AlertFactory(user=alice, kind=m.Alert.Kind.HARD, condition="")
    for name in ("Dana", "Eli"):
        OutboundMessageFactory(
            user=alice,
            alert=alert,
            recipient_name=name,
            recipient_kind=m.OutboundMessage.RecipientKind.EMERGENCY_CONTACT,
            status=m.OutboundMessage.Status.NOT_SENT,
            status_detail="not sent: no SMS provider configured",
        )

    page = operator.get(URL).content.decode()

    assert "0 failed messages" not in page
    assert 'class="problem"><strong>2</strong> messages not delivered (2 emergency)' in page
    assert "SMS is not set up:" in page
    assert page.count('<tr class="problem">') == 2 and f"SOS #{alert.pk}" in page


@pytest.mark.django_db
def test_the_admin_index_links_to_the_overview(operator: Client) -> None:
    page = operator.get(reverse("admin:index")).content.decode()
    assert f'href="{URL}"' in page


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "patient"])
def test_non_staff_are_redirected_to_the_admin_login(client: Client, who: str) -> None:
    if who == "patient":
        client.force_login(UserFactory(username="patient-overview"))
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def count_queries(operator: Client, django_assert_max_num_queries, limit: int) -> None:
    with django_assert_max_num_queries(limit):
        assert operator.get(URL).status_code == 200


@pytest.mark.django_db
def test_the_number_of_queries_does_not_grow_with_rows(operator: Client, alice, django_assert_max_num_queries) -> None:
    # Measured with one row of each kind, then held to that with seven of each.
    add_rows(alice)
    with CaptureQueriesContext(connection) as few:
        operator.get(URL)
    for _ in range(6):
        add_rows(UserFactory())
        populate()
    count_queries(operator, django_assert_max_num_queries, len(few.captured_queries))


@pytest.mark.django_db
def test_the_charts_have_one_bar_per_day_with_the_right_counts(operator: Client, alice) -> None:
    three_days_ago = timezone.now() - dt.timedelta(days=3)
    for _ in range(2):
        alert = AlertFactory(user=alice)
        m.Alert.objects.filter(pk=alert.pk).update(created_at=three_days_ago)
    AlertFactory(user=alice)
    old = AlertFactory(user=alice)
    m.Alert.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=20))
    OutboundMessageFactory(user=alice, status=m.OutboundMessage.Status.SENT)
    OutboundMessageFactory(user=alice, status=m.OutboundMessage.Status.FAILED)
    OutboundMessageFactory(user=alice, status=m.OutboundMessage.Status.FAILED)

    page = operator.get(URL).content.decode()
    alert_bars = re.findall(r'<rect class="bar alerts"[^>]*><title>([\d-]+) alerts: (\d+)</title>', page)
    assert len(alert_bars) == overview.CHART_DAYS
    today = timezone.now().astimezone(dt.UTC).date()
    by_day = {day: int(n) for day, n in alert_bars}
    assert by_day[f"{today - dt.timedelta(days=3):%Y-%m-%d}"] == 2
    assert by_day[f"{today:%Y-%m-%d}"] == 1
    assert sum(by_day.values()) == 3  # the 20-day-old alert is outside the window
    for status, expected in (("sent", 1), ("failed", 2)):
        bars = re.findall(rf'<rect class="bar {status}"[^>]*><title>([\d-]+) {status}: (\d+)</title>', page)
        assert len(bars) == overview.CHART_DAYS
        assert dict(bars)[f"{today:%Y-%m-%d}"] == str(expected)
        assert sum(int(n) for _, n in bars) == expected
    assert 'role="img" aria-label="Alerts per day, last 14 days (alerts: 3)"' in page


@pytest.mark.django_db
def test_the_model_section_shows_the_committed_adapters_and_their_evaluation(operator: Client, settings) -> None:
    settings.AGENT_BASE_MODEL = ""
    settings.AGENT_PLANNER_ADAPTER = ""
    settings.AGENT_CALLER_ADAPTER = ""
    page = operator.get(URL).content.decode()
    assert "agents/adapters/planner" in page and "agents/adapters/caller" in page
    assert "Planner (seed paper Table 2" in page  # quoted from the model card
    assert "not prepared" in page


@pytest.mark.django_db
def test_the_model_section_says_there_is_no_adapter_on_another_base_model(operator: Client, settings, tmp_path) -> None:
    (tmp_path / "config.json").write_text("{}")
    settings.AGENT_BASE_MODEL = str(tmp_path)  # the committed adapters are for the default base only
    settings.AGENT_PLANNER_ADAPTER = ""
    settings.AGENT_CALLER_ADAPTER = ""
    page = operator.get(URL).content.decode()
    assert page.count("none: base model with few-shot prompt") == 2
    assert "no evaluation recorded yet" in page


def test_an_adapter_card_evaluation_section_is_quoted(tmp_path, settings) -> None:
    (tmp_path / "adapter_config.json").write_text("{}")
    (tmp_path / "README.md").write_text("# Planner adapter\n\n## Evaluation\n\nJSON validity 97%\n\n## Training\n\nx\n")
    settings.AGENT_PLANNER_ADAPTER = str(tmp_path)
    settings.AGENT_CALLER_ADAPTER = ""
    planner = next(a for a in overview.deployed_model().adapters if a.role == "planner")
    assert planner.path == str(tmp_path.resolve())
    assert planner.evaluation == "JSON validity 97%"


@pytest.mark.django_db
def test_the_model_cards_evaluation_is_rendered_as_tables_not_dumped_as_markdown(operator: Client, settings) -> None:
    settings.AGENT_BASE_MODEL = ""
    settings.AGENT_PLANNER_ADAPTER = ""
    settings.AGENT_CALLER_ADAPTER = ""
    page = operator.get(URL).content.decode()
    model = page[page.index('id="model-h"') : page.index('id="charts-h"')]
    assert "<th>BLEU</th>" in model and "<td>soft_sos</td>" in model
    assert "|---" not in model and "```" not in model and "<br>" not in model


def test_markup_in_a_model_card_is_escaped(tmp_path, settings) -> None:
    (tmp_path / "adapter_config.json").write_text("{}")
    (tmp_path / "README.md").write_text("## Evaluation\n\n<script>alert(1)</script> **97 %**\n")
    settings.AGENT_PLANNER_ADAPTER = str(tmp_path)
    settings.AGENT_CALLER_ADAPTER = ""
    planner = next(a for a in overview.deployed_model().adapters if a.role == "planner")
    assert "<script>" not in planner.evaluation_html
    assert "<strong>97 %</strong>" in planner.evaluation_html


@pytest.mark.django_db
def test_appointments_today_and_after_today_do_not_read_as_a_contradiction(operator: Client) -> None:
    page = operator.get(URL).content.decode()
    assert "No upcoming appointments." not in page
    assert "After today" in page and "No appointments after today." in page
