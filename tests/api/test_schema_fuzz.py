"""schemathesis over the whole OpenAPI schema (/api/schema/), in-process, as a signed-in patient.

Every operation of the schema gets a bounded number of generated requests (``SCHEMA_FUZZ_EXAMPLES``
per mode, 5 by default; derandomised, so CI sees the same requests each run; set the variable higher
locally to search wider):

- positive (schema-valid) requests, with the ``{id}`` of one of alice's own objects so detail and
  action routes answer with real rows instead of 404s;
- negative (schema-violating) requests, with generated ids too.

They go through Django's WSGI handler with the real middleware (session, CSRF with a real token,
CSP, axes), each request in a savepoint rolled back after it, so every request sees the same world.
The ASGI entry point runs the same Django handler; WSGI keeps the request on the test's thread and
database transaction. A second test chains requests by the links schemathesis infers from the schema
(``SCHEMA_FUZZ_SCENARIOS`` scenarios), and also fails when a deleted resource still answers.

Hard checks (the test fails): no 5xx; every status code is one the schema lists for the operation
(core/api_schema.py adds the 400 and 404 DRF answers on its own); a documented status's body conforms
to its response schema; the content type is the documented one; every 4xx carries a JSON body; no
schema-violating request is accepted; and a schema-valid request is refused only for a rule no JSON
schema can state (``UNSTATABLE``: a row that must exist, the right password, a file's content...),
each of its error messages naming one. Everything a schema can state (formats, bounds, list sizes,
pages from 1) the schema states, so a client can tell a valid request from the schema alone.
"""

from __future__ import annotations

import itertools
import os
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from django.middleware.csrf import _get_new_csrf_string
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from agents.llm import scripted
from health.models import Alert
from tests.agents.helpers import end
from tests.factories import (
    AgentStepFactory,
    AlertFactory,
    AppointmentFactory,
    AppointmentHistoryFactory,
    ConversationFactory,
    DailyReportFactory,
    DeviceFactory,
    DoseEventFactory,
    EmergencyContactFactory,
    MedicationFactory,
    NotificationFactory,
    OutboundMessageFactory,
    PrescriptionFactory,
    ReminderFactory,
    SlotFactory,
    SpecialistFactory,
    SpecializationFactory,
    SymptomRecordFactory,
)
from tests.summary import summarise

EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_EXAMPLES", "5"))


def error_has_json_body(ctx, response, case) -> bool | None:
    """A 4xx answer says what was wrong in JSON (DRF's error body), never an HTML page."""
    if 400 <= response.status_code < 500:
        content_type = response.headers.get("content-type", [""])[0]
        assert content_type.startswith("application/json"), (
            f"{response.status_code} answered with {content_type or 'no content type'}, not a JSON body"
        )
        response.json()
    return True


HARD_CHECKS = [
    not_a_server_error,
    response_schema_conformance,
    content_type_conformance,
    error_has_json_body,
    status_code_conformance,
]
SOFT_CHECKS = [positive_data_acceptance, negative_data_rejection]

# Why a schema-valid request may still be refused: rules a JSON schema (OpenAPI 3.0) cannot state,
# by a words its error message uses. Each 400 body's every message must name one of them.
UNSTATABLE = {
    "object does not exist": "a foreign key names an existing row of the user's",
    "That is not your password": "deleting the account takes the user's password",
    "with its country code": "a phone number that exists (phonenumbers' metadata), not only digits",
    "Must not be before": "a date window: readings from 2010, a birth date from 1900, date_to after date_from",
    "Must not be in the future": "a reading measured by now (plus the device clock's skew)",
    "Unknown time zone": "a name from the time zone database",
    "we can read": "a file's content: an image or a one-page PDF",
    "PDF is damaged": "a file's content",
    "No file was submitted": "a file, not an empty part",
    "Give both latitude and longitude": "two fields together (OpenAPI 3.0 has no dependentRequired)",
    "Say why the SOS is ending": "the reason is required once the SOS has gone out, not in its countdown",
    "Choose at least one medicine": "at least one item with include true",
    "Send a scenario, running": "at least one of two fields",
    "trajectory": "an imported conversation follows the paper's trajectory format",
    "state ": "an imported conversation follows the paper's trajectory format",
    "Null characters are not allowed": "text without NUL (PostgreSQL cannot store one)",
    "one per daily dose": "as many clock times as doses a day",
    "Choose a day within": "a schedule's first day within the last 90 days or the next year",
    "Give latitude and longitude together": "two fields together",
    "Each time may appear once": "times unique once written the same way (8:00 and 08:00)",
    "damaged or incomplete": "a file's content",
    "Must be after since": "two parameters in order",
    "may not be blank": "text that is not only spaces (text is trimmed)",
}


def messages(data) -> list[str]:
    """Every error message of a DRF error body (nested objects and lists of them)."""
    if isinstance(data, dict):
        return [text for value in data.values() for text in messages(value)]
    if isinstance(data, list):
        return [text for value in data for text in messages(value)]
    return [str(data)]


def unstatable(response) -> bool:
    """Whether a refusal of a schema-valid request names only rules no schema can state."""
    if response.status_code != 400:
        return False
    found = messages(response.json())
    return bool(found) and all(any(words in text for words in UNSTATABLE) for text in found)


@pytest.fixture
def wsgi_app():
    """Django's WSGI handler, with connections kept open across requests as Django's test client
    keeps them: the handler would otherwise close the test's connection, and its transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield WSGIHandler()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def signed_in(alice, client, wsgi_app):
    """The schema, served by the WSGI app, and alice's session cookie and CSRF token for requests."""
    client.force_login(alice)
    csrf = _get_new_csrf_string()
    cookies = {"sessionid": client.cookies["sessionid"].value, "csrftoken": csrf}
    return schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app), cookies, {"X-CSRFToken": csrf}


@pytest.fixture
def endless_model(settings):
    """A chat that reaches the model ends at once (a turn may run inline under eager Celery)."""
    settings.AGENT_BACKEND = "scripted"
    scripted.install(scripted.ScriptedBackend(planner=itertools.repeat(end()), caller=itertools.repeat("{}")))
    yield
    scripted.install(None)


def alice_world(alice) -> dict[str, int]:
    """One of alice's objects behind each ``/api/<resource>/{id}/`` route: resource -> id."""
    device = DeviceFactory(user=alice)
    specialization = SpecializationFactory(name="cardiologist")
    specialist = SpecialistFactory(specialization=specialization)
    conversation = ConversationFactory(user=alice)
    AgentStepFactory(conversation=conversation, index=0, role="user", payload="my knee hurts")
    medication = MedicationFactory(user=alice, prescription=PrescriptionFactory(user=alice))
    reminder = ReminderFactory(medication=medication)
    return {
        "alerts": AlertFactory(user=alice).pk,
        "sos": AlertFactory(user=alice, kind=Alert.Kind.HARD).pk,
        "appointment-history": AppointmentHistoryFactory(user=alice).pk,
        "appointments": AppointmentFactory(user=alice, slot=SlotFactory(specialist=specialist)).pk,
        "conversations": conversation.pk,
        "daily-reports": DailyReportFactory(user=alice).pk,
        "devices": device.pk,
        "dose-events": DoseEventFactory(reminder=reminder).pk,
        "emergency-contacts": EmergencyContactFactory(user=alice).pk,
        "medications": medication.pk,
        "notifications": NotificationFactory(user=alice).pk,
        "outbox": OutboundMessageFactory(user=alice).pk,
        "prescriptions": medication.prescription.pk,
        "reminders": reminder.pk,
        "slots": SlotFactory(specialist=specialist).pk,
        "specialists": specialist.pk,
        "specializations": specialization.pk,
        "symptom-records": SymptomRecordFactory(user=alice).pk,
    }


@dataclass
class Tally:
    sent: Counter[str] = field(default_factory=Counter)
    soft: Counter[str] = field(default_factory=Counter)
    failures: dict[tuple[str, str], str] = field(default_factory=dict)


def judge(case, response, hard_checks, headers: dict, tally: Tally, where: str) -> None:
    """Count the request; record each hard check's failure (first example of each kind per operation)
    and count the soft checks' findings."""
    tally.sent[case.operation.label] += 1
    for checks, hard in ((hard_checks, True), (SOFT_CHECKS, False)):
        try:
            case.validate_response(response, checks=checks, headers=headers)
        except (AssertionError, BaseExceptionGroup) as exc:
            for failure in exc.exceptions if isinstance(exc, BaseExceptionGroup) else [exc]:
                kind = type(failure).__name__
                if not hard:
                    tally.soft[kind] += 1
                    if kind == "RejectedPositiveData" and unstatable(response):
                        continue
                key = (f"{case.operation.label} ({where})", kind)
                body = response.content.decode(errors="replace")[:300]
                tally.failures.setdefault(key, f"{failure}\n{case.as_curl_command()}\n-> {body}")


def fuzz(operation, mode: GenerationMode, fixed: dict | None, cookies: dict, headers: dict, tally: Tally) -> None:
    """Send ``EXAMPLES`` generated requests to ``operation``; each in a savepoint rolled back after it."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],  # no shrinking: every failure is reported, unshrunk
    )
    @given(case=operation.as_strategy(generation_mode=mode, path_parameters=fixed))
    def send(case) -> None:
        with transaction.atomic():
            response = case.call(cookies=cookies, headers=headers)
            judge(case, response, HARD_CHECKS, headers, tally, mode.value)
            transaction.set_rollback(True)

    send()


def test_every_operation_survives_generated_requests(alice, signed_in, endless_model):
    """GIVEN alice signed in with one object of every kind
    WHEN schemathesis sends generated valid and invalid requests to every operation of the schema
    THEN none answers 5xx, every documented answer matches its schema, and every 4xx is JSON."""
    world = alice_world(alice)
    schema, cookies, headers = signed_in

    tally = Tally()
    started = time.monotonic()
    for result in schema.get_all_operations():
        operation = result.ok()
        resource = operation.path.split("/")[2]
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fixed = {"id": world[resource]} if "{id}" in operation.path and mode is GenerationMode.POSITIVE else None
            try:
                fuzz(operation, mode, fixed, cookies, headers, tally)
            except Unsatisfiable:
                pass  # nothing to negate: an operation with no parameters and no body

    elapsed = time.monotonic() - started
    summarise(
        f"schemathesis: {sum(tally.sent.values())} requests to {len(tally.sent)} operations in {elapsed:.0f} s; "
        f"hard failures {len(tally.failures)}; soft findings {dict(tally.soft)}"
    )
    assert len(tally.sent) >= 80, f"only {len(tally.sent)} operations were exercised"
    assert not tally.failures, "\n\n".join(f"{where}: {kind}\n{text}" for (where, kind), text in tally.failures.items())


# What a watch's token may do: post readings (and read the watch simulator's feed settings).
DEVICE_OPERATIONS = {"POST /api/vitals/"}


def _send_with_token(operation, fixed, headers: dict, tally: Tally, let_in: set[str]) -> None:
    @settings(
        max_examples=2,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE, path_parameters=fixed))
    def send(case) -> None:
        with transaction.atomic():
            response = case.call(headers=headers)
            judge(case, response, HARD_CHECKS, headers, tally, "device token")
            if response.status_code not in (401, 403):
                let_in.add(operation.label)
            transaction.set_rollback(True)

    send()


def test_a_device_token_reaches_only_the_readings_whatever_it_sends(alice, alice_device, wsgi_app, endless_model):
    """GIVEN a watch's token (no session)
    WHEN schemathesis sends generated valid requests to every operation with it
    THEN every operation but posting readings refuses it (401 or 403, JSON), none answers 5xx, and
    every answer is one the schema documents."""
    world = alice_world(alice)
    _device, token = alice_device
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app)
    headers = {"Authorization": f"Device {token}"}
    tally = Tally()
    let_in: set[str] = set()

    for result in schema.get_all_operations():
        operation = result.ok()
        resource = operation.path.split("/")[2]
        fixed = {"id": world[resource]} if "{id}" in operation.path else None
        try:
            _send_with_token(operation, fixed, headers, tally, let_in)
        except Unsatisfiable:
            pass

    summarise(
        f"schemathesis (device token): {sum(tally.sent.values())} requests to {len(tally.sent)} operations; "
        f"let in: {sorted(let_in)}; hard failures {len(tally.failures)}"
    )
    assert let_in <= DEVICE_OPERATIONS, sorted(let_in)
    assert len(tally.sent) >= 80
    assert not tally.failures, "\n\n".join(f"{where}: {kind}\n{text}" for (where, kind), text in tally.failures.items())


def test_an_unmatched_api_url_answers_json_and_a_page_stays_a_page(alice_api, client):
    """An id that is not an integer matches no route: the API says so in JSON (the fuzzer's 404s were
    Django's HTML page); a browser URL that matches nothing still gets the usual page."""
    api = alice_api.get("/api/alerts/not-a-number/")
    page = client.get("/no-such-page/")

    assert api.status_code == 404 and api.json() == {"detail": "Not found."}
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


STATEFUL_SCENARIOS = int(os.environ.get("SCHEMA_FUZZ_SCENARIOS", "30"))
STATEFUL_STEPS = 6


def test_chained_requests_keep_the_schemas_promises(alice, signed_in, endless_model):
    """GIVEN alice signed in
    WHEN schemathesis chains requests by the links it infers from the schema (what one operation
    creates, the next reads, changes or deletes)
    THEN no answer is 5xx or off-schema, and a deleted resource is gone (use_after_free,
    ensure_resource_availability)."""
    from schemathesis.specs.openapi.checks import ensure_resource_availability, use_after_free

    alice_world(alice)
    schema, cookies, headers = signed_in
    tally = Tally()

    class Chained(schema.as_state_machine()):
        # Each scenario in a savepoint rolled back after it: every scenario starts from the same
        # world, so Hypothesis can replay one (a scenario's draws depend on the answers it got).
        def setup(self):
            self.savepoint = transaction.atomic()
            self.savepoint.__enter__()

        def teardown(self):
            transaction.set_rollback(True)
            self.savepoint.__exit__(None, None, None)

        def get_call_kwargs(self, case):
            return {"cookies": cookies, "headers": headers}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            judge(
                case, response, [*HARD_CHECKS, use_after_free, ensure_resource_availability], headers, tally, "chained"
            )

    transitions = schema.statistic.transitions.total
    started = time.monotonic()
    Chained.run(
        settings=settings(
            max_examples=STATEFUL_SCENARIOS,
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
    )
    summarise(
        f"schemathesis (stateful): {transitions} inferred links; {sum(tally.sent.values())} requests in "
        f"{STATEFUL_SCENARIOS} scenarios to {len(tally.sent)} operations in {time.monotonic() - started:.0f} s; "
        f"hard failures {len(tally.failures)}; soft findings {dict(tally.soft)}; "
        f"deletes {sum(n for label, n in tally.sent.items() if label.startswith('DELETE'))}"
    )
    assert transitions >= 20, f"only {transitions} links were inferred"
    assert not tally.failures, "\n\n".join(f"{where}: {kind}\n{text}" for (where, kind), text in tally.failures.items())
