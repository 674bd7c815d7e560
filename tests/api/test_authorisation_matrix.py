"""The authorisation matrix: who may do what on every route under /api/.

Every URL pattern under /api/ is discovered from Django's resolver, with every
HTTP method its view answers, and is tried as four actors:

owner      bob, signed in, on his own object (or his own list): succeeds, and
           every write really changes bob's data.
other      alice, signed in, on bob's object: 404 on detail routes; on list
           routes she never sees bob's rows, and what she writes never touches
           bob's data (a payload naming bob's rows is refused).
anonymous  no credentials: 401 or 403, and nothing changes.
device     the token of alice's watch: 403 everywhere except device-scoped
           routes, where it may only write alice's own data.

Two kinds of routes are not per-user on purpose: the OpenAPI schema
(/api/schema/) and Swagger UI (/api/docs/) are public, because they describe
the API and hold no user data; and the specialists directory is shared by
every signed-in patient (still not by devices or anonymous visitors).

``MATRIX`` says, for each route name, how to build bob's object and the payload
of each write. A route or method that ``MATRIX`` does not describe fails
``test_every_api_route_is_in_the_matrix`` and its own cases below, so a new
endpoint cannot ship without being described here.

"Bob's data" is every row of the health and agents apps that leads to bob
through a ``user`` foreign key (directly or one hop away); a model that is
neither that nor listed in ``SHARED_MODELS`` fails the tests until classified.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import pytest
from django.apps import apps
from django.core.files.base import ContentFile
from django.db.models import Model
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from PIL import Image
from rest_framework.test import APIClient

from health.models import (
    Alert,
    AlertEvent,
    Ambulance,
    Appointment,
    Dispatch,
    Slot,
    Specialist,
    Specialization,
    WatchFeed,
)
from tests.factories import (
    AgentStepFactory,
    AlertFactory,
    AmbulanceFactory,
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
    VitalReadingFactory,
)

API_PREFIX = "api/"
# Routes that answer every actor alike: they describe the API, not a user.
PUBLIC_ROUTES = {"api-schema", "api-docs"}
# The directory and the ambulance fleet are nobody's personal data.
SHARED_MODELS = {Specialization, Specialist, Slot, Ambulance}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

# Route kinds.
PUBLIC = "public"  # the same for everyone, anonymous included
DIRECTORY = "directory"  # shared by signed-in patients
OWNED_LIST = "owned list"  # a collection (or collection action) of the user's rows
OWNED_DETAIL = "owned detail"  # one of the user's rows, or an action on it
SINGLETON = "singleton"  # the user's one row (the profile), no id in the URL


def _lists_it(body: object, obj: Model) -> bool:
    rows = body["results"] if isinstance(body, dict) and "results" in body else body
    return any(row.get("id") == obj.pk for row in rows)


def _is_it(body: object, obj: Model) -> bool:
    return isinstance(body, dict) and body.get("id") == obj.pk


@dataclass(frozen=True)
class Route:
    kind: str
    methods: frozenset[str]
    # Whether the URL names one object (``kwargs`` builds its URL arguments).
    detail: bool = False
    # Bob's object: the row a detail URL names, or a row a list must show.
    make: Callable[[Model], Model | None] = lambda bob: None
    # The body of each write, built from bob's object (so it names bob's rows).
    payloads: Mapping[str, Callable[[Model | None], object]] = field(default_factory=dict)
    # Whether a GET answer shows bob's object.
    shows: Callable[[object, Model], bool] | None = None
    # What alice gets when she sends bob's payload to a list-level write.
    other_writes: Mapping[str, int] = field(default_factory=dict)
    # Methods a device token may use, and the payload with which it writes
    # its own user's data there.
    device_scoped: frozenset[str] = frozenset()
    device_payload: Callable[[], object] | None = None
    kwargs: Callable[[Model], dict] = lambda obj: {"pk": obj.pk}


def _soon(minutes: int = 0) -> str:
    return (timezone.now().replace(microsecond=0) + dt.timedelta(minutes=minutes)).isoformat()


def _today() -> str:
    return timezone.localdate().isoformat()


def _list(make, *, post=None, other_writes: int | None = None, **extra) -> Route:
    methods = {"GET", "POST"} if post else {"GET"}
    return Route(
        kind=OWNED_LIST,
        methods=frozenset(methods),
        make=make,
        payloads={"POST": post} if post else {},
        shows=_lists_it,
        other_writes={"POST": other_writes} if post else {},
        **extra,
    )


def _detail(make, *, methods=("GET",), payloads=None, shows=_is_it) -> Route:
    return Route(
        kind=OWNED_DETAIL, methods=frozenset(methods), detail=True, make=make, payloads=payloads or {}, shows=shows
    )


def _action(make, payload=None) -> Route:
    return Route(
        kind=OWNED_DETAIL,
        methods=frozenset({"POST"}),
        detail=True,
        make=make,
        payloads={"POST": payload or (lambda o: {})},
    )


def _directory(make, *, detail: bool) -> Route:
    return Route(
        kind=DIRECTORY, methods=frozenset({"GET"}), detail=detail, make=make, shows=_is_it if detail else _lists_it
    )


def _png_upload():
    buffer = io.BytesIO()
    Image.new("RGB", (120, 80), "white").save(buffer, format="PNG")
    buffer.seek(0)
    buffer.name = "rx.png"
    return buffer


def _bob_prescription_with_photo(bob) -> Model:
    prescription = PrescriptionFactory(user=bob)
    prescription.image.save("rx.jpg", ContentFile(_png_upload().getvalue()))
    return prescription


def _bob_medication(bob) -> Model:
    return MedicationFactory(user=bob, prescription=PrescriptionFactory(user=bob))


def _bob_dose(bob) -> Model:
    return DoseEventFactory(reminder=ReminderFactory(medication=MedicationFactory(user=bob)))


def _bob_reminder_due_soon(bob) -> Model:
    """Bob's reminder at 11:00 in a zone where it is now 10:xx: its dose can be taken early."""
    offset = 10 - timezone.now().astimezone(dt.UTC).hour
    offset = offset + 24 if offset < -12 else offset - 24 if offset > 14 else offset
    bob.profile.timezone = "Etc/GMT" if offset == 0 else f"Etc/GMT{-offset:+d}"  # Etc/GMT-3 is UTC+3
    bob.profile.save(update_fields=["timezone"])
    medication = MedicationFactory(user=bob, start_date=timezone.now().date() - dt.timedelta(days=2))
    return ReminderFactory(medication=medication, time_of_day=dt.time(11))


def _bob_conversation(bob) -> Model:
    conversation = ConversationFactory(user=bob, title="Bob's headache")
    AgentStepFactory(conversation=conversation, index=0, role="system", payload="You are a health assistant.")
    AgentStepFactory(conversation=conversation, index=1, role="user", payload="I have a headache")
    return conversation


def _bob_with_no_sos_under_way(bob) -> Model:
    """An account is not deleted while its SOS is under way (health/privacy/erase.py): end bob's."""
    Alert.objects.filter(user=bob, kind=Alert.Kind.HARD).update(state=Alert.State.RESOLVED)
    return bob.profile


def _lists_states(body: object, conversation: Model) -> bool:
    return isinstance(body, list) and len(body) == conversation.steps.count() > 0


def _trajectory(conversation: Model) -> list[dict]:
    return [
        {"from": "system", "value": {"user_details": {"user_id": str(conversation.user_id)}}},
        {"from": "user", "value": "My knee hurts"},
    ]


def _shows_the_account(body, profile) -> bool:
    """The export (JSON, or the ZIP's data.json) is of ``profile``'s account, with its one profile row."""
    return body["account"]["username"] == profile.user.username and len(body["records"]["health.PatientProfile"]) == 1


MATRIX: dict[str, Route] = {
    "api-schema": Route(kind=PUBLIC, methods=frozenset({"GET"})),
    "api-docs": Route(kind=PUBLIC, methods=frozenset({"GET"})),
    "patient-profile": Route(
        kind=SINGLETON,
        methods=frozenset({"GET", "PATCH"}),
        make=lambda bob: bob.profile,
        payloads={"PATCH": lambda o: {"home_address": "1 New Street", "timezone": "Asia/Kolkata"}},
        shows=lambda body, profile: body["display_name"] == profile.display_name,
        other_writes={"PATCH": 200},
    ),
    # The patient's data as one JSON document, and the account's deletion (health/api/account.py).
    "account-export": Route(
        kind=SINGLETON, methods=frozenset({"GET"}), make=lambda bob: bob.profile, shows=_shows_the_account
    ),
    # The same as a ZIP with the report PDFs and the prescription photos (read as the archive's data.json).
    "account-archive": Route(
        kind=SINGLETON, methods=frozenset({"GET"}), make=lambda bob: bob.profile, shows=_shows_the_account
    ),
    "account-delete": Route(
        kind=SINGLETON,
        methods=frozenset({"POST"}),
        make=_bob_with_no_sos_under_way,
        # Every test user's password (tests.factories.UserFactory).
        payloads={"POST": lambda o: {"password": "correct horse battery"}},
        # Alice's own password deletes alice's own account, never bob's.
        other_writes={"POST": 204},
    ),
    "emergency-contact-list": _list(
        lambda bob: EmergencyContactFactory(user=bob),
        post=lambda o: {"name": "Dan", "relation": "brother", "phone": "+44 20 7183 8750"},
        other_writes=201,
    ),
    "emergency-contact-detail": _detail(
        lambda bob: EmergencyContactFactory(user=bob),
        methods=("GET", "PUT", "PATCH", "DELETE"),
        payloads={
            "PUT": lambda o: {"name": "Eve", "relation": "sister", "phone": "+442071838751", "priority": 2},
            "PATCH": lambda o: {"priority": 3},
        },
    ),
    "device-list": _list(
        lambda bob: DeviceFactory(user=bob), post=lambda o: {"name": "Ring", "kind": "ring"}, other_writes=201
    ),
    "device-detail": _detail(lambda bob: DeviceFactory(user=bob), methods=("GET", "DELETE")),
    "specialization-list": _directory(lambda bob: SpecializationFactory(name="cardiologist"), detail=False),
    "specialization-detail": _directory(lambda bob: SpecializationFactory(name="cardiologist"), detail=True),
    "specialist-list": _directory(lambda bob: SpecialistFactory(), detail=False),
    "specialist-detail": _directory(lambda bob: SpecialistFactory(), detail=True),
    "slot-list": _directory(lambda bob: SlotFactory(), detail=False),
    "slot-detail": _directory(lambda bob: SlotFactory(), detail=True),
    "appointment-list": _list(
        lambda bob: AppointmentFactory(user=bob),
        post=lambda o: {"slot": SlotFactory().pk, "symptoms": "chest pain"},
        # Alice books a free slot for herself: allowed, and bob's data is untouched.
        other_writes=201,
    ),
    "appointment-detail": _detail(lambda bob: AppointmentFactory(user=bob)),
    "appointment-confirm": _action(lambda bob: AppointmentFactory(user=bob)),
    "appointment-cancel": _action(lambda bob: AppointmentFactory(user=bob)),
    "appointment-complete": _action(lambda bob: AppointmentFactory(user=bob, state=Appointment.State.CONFIRMED)),
    "appointment-reschedule": _action(
        lambda bob: AppointmentFactory(user=bob), lambda o: {"slot": SlotFactory(specialist=o.specialist).pk}
    ),
    "appointment-free-slots": _detail(
        lambda bob: AppointmentFactory(user=bob), shows=lambda body, obj: isinstance(body, list)
    ),
    "appointment-history-list": _list(
        lambda bob: AppointmentHistoryFactory(user=bob, appointment=AppointmentFactory(user=bob)),
        post=lambda o: {
            "appointment": o.appointment_id,
            "specialist_name": "Dr. Who",
            "specialization": "cardiologist",
            "scheduled_for": _soon(-60),
        },
        other_writes=400,
    ),
    "appointment-history-detail": _detail(lambda bob: AppointmentHistoryFactory(user=bob)),
    "symptom-record-list": _list(
        lambda bob: SymptomRecordFactory(user=bob),
        post=lambda o: {"text": "My knee hurts", "symptoms": ["knee pain"]},
        other_writes=201,
    ),
    "symptom-record-detail": _detail(lambda bob: SymptomRecordFactory(user=bob)),
    "vital-reading-list": _list(
        lambda bob: VitalReadingFactory(device=DeviceFactory(user=bob)),
        # Fixed instants: the factories' readings are "now minus n minutes", and
        # a collision would make the write a (correctly) uncounted duplicate.
        post=lambda o: {"device": o.device_id, "measured_at": "2020-01-01T08:00:00Z", "heart_rate": 70},
        other_writes=400,
        device_scoped=frozenset({"POST"}),
        device_payload=lambda: [
            {"measured_at": "2020-01-01T09:00:00Z", "heart_rate": 70},
            {"measured_at": "2020-01-01T09:01:00Z", "spo2": 97},
        ],
    ),
    "alert-list": _list(lambda bob: AlertFactory(user=bob)),
    "alert-detail": _detail(lambda bob: AlertFactory(user=bob)),
    "alert-acknowledge": _action(lambda bob: AlertFactory(user=bob)),
    "alert-cancel": _action(lambda bob: AlertFactory(user=bob)),
    # The SOS button (health/api/sos.py): a press creates the user's own hard SOS,
    # or marks a repeat on the one under way.
    "sos-list": Route(
        kind=OWNED_LIST,
        methods=frozenset({"POST"}),
        payloads={"POST": lambda o: {}},
        other_writes={"POST": 201},
    ),
    "sos-end": _action(
        lambda bob: AlertFactory(user=bob, kind=Alert.Kind.HARD, state=Alert.State.OPEN), lambda o: {"reason": "safe"}
    ),
    "sos-escalate": _action(lambda bob: AlertFactory(user=bob, kind=Alert.Kind.SOFT)),
    "outbound-message-list": _list(lambda bob: OutboundMessageFactory(user=bob)),
    "outbound-message-detail": _detail(lambda bob: OutboundMessageFactory(user=bob)),
    "notification-list": _list(lambda bob: NotificationFactory(user=bob)),
    "notification-detail": _detail(lambda bob: NotificationFactory(user=bob)),
    "notification-mark-read": _action(lambda bob: NotificationFactory(user=bob)),
    "notification-mark-all-read": Route(
        kind=OWNED_LIST,
        methods=frozenset({"POST"}),
        make=lambda bob: NotificationFactory(user=bob),
        payloads={"POST": lambda o: {}},
        other_writes={"POST": 200},
    ),
    "notification-unread-count": Route(
        kind=OWNED_LIST,
        methods=frozenset({"GET"}),
        make=lambda bob: NotificationFactory(user=bob),
        shows=lambda body, obj: body["unread"] > 0,
    ),
    "prescription-list": _list(
        lambda bob: PrescriptionFactory(user=bob),
        post=lambda o: {"image": _png_upload()},
        # Alice uploads a prescription of her own: allowed, and bob's data is untouched.
        other_writes=201,
    ),
    "prescription-detail": _detail(lambda bob: PrescriptionFactory(user=bob), methods=("GET", "DELETE")),
    "prescription-retry": _action(lambda bob: PrescriptionFactory(user=bob, parse_status="failed")),
    "prescription-confirm": _action(
        lambda bob: PrescriptionFactory(user=bob, parse_status="needs_review"),
        lambda o: {"medications": [{"name": "ibuprofen", "strength": "400 mg", "times": ["08:00"]}]},
    ),
    "prescription-image": _detail(_bob_prescription_with_photo, shows=lambda body, obj: body is None),
    "medication-list": _list(
        _bob_medication,
        post=lambda o: {"prescription": o.prescription_id, "name": "Ibuprofen", "start_date": _today()},
        other_writes=400,
    ),
    "medication-detail": _detail(
        lambda bob: MedicationFactory(user=bob),
        methods=("GET", "PUT", "PATCH", "DELETE"),
        payloads={
            "PUT": lambda o: {
                "name": "Ibuprofen",
                "times_per_day": 2,
                "clock_times": ["08:00", "20:00"],
                "start_date": _today(),
            },
            "PATCH": lambda o: {"active": False},
        },
    ),
    "reminder-list": _list(
        lambda bob: ReminderFactory(medication=MedicationFactory(user=bob)),
        post=lambda o: {"medication": o.medication_id, "time_of_day": "21:30"},
        other_writes=400,
    ),
    "reminder-detail": _detail(
        lambda bob: ReminderFactory(medication=MedicationFactory(user=bob)),
        methods=("GET", "PUT", "PATCH", "DELETE"),
        payloads={
            "PUT": lambda o: {"medication": o.medication_id, "time_of_day": "21:15", "enabled": False},
            "PATCH": lambda o: {"enabled": False},
        },
    ),
    "reminder-taken-early": _action(_bob_reminder_due_soon),
    "dose-event-list": _list(_bob_dose),
    "dose-event-detail": _detail(_bob_dose),
    "dose-event-taken": _action(_bob_dose),
    "dose-event-snooze": _action(_bob_dose, lambda o: {"minutes": 10}),
    "dose-event-skip": _action(_bob_dose),
    "daily-report-list": _list(lambda bob: DailyReportFactory(user=bob)),
    "daily-report-detail": _detail(lambda bob: DailyReportFactory(user=bob)),
    # The browser's simulated watch (health/api/watch.py): the user's one feed.
    # Starting it pairs a simulated watch and changes the feed; alice's start
    # is her own feed.
    "watch-simulator": Route(
        kind=SINGLETON,
        methods=frozenset({"GET", "POST"}),
        make=lambda bob: WatchFeed.objects.create(user=bob, scenario="hypoxia"),
        payloads={"POST": lambda o: {"scenario": "exercise", "running": True}},
        shows=lambda body, feed: body["scenario"] == feed.scenario,
        other_writes={"POST": 200},
    ),
    # The Action Manager's routes (agents/api/): conversations with the assistant.
    "conversation-list": _list(
        _bob_conversation,
        post=lambda o: {"text": "I have a headache"},
        other_writes=201,
    ),
    "conversation-detail": _detail(_bob_conversation),
    "conversation-steps": _detail(_bob_conversation, shows=_lists_states),
    "conversation-export": _detail(_bob_conversation, shows=_lists_states),
    "conversation-messages": _action(_bob_conversation, lambda o: {"text": "It started yesterday"}),
    "conversation-import-trajectory": Route(
        kind=OWNED_LIST,
        methods=frozenset({"POST"}),
        make=_bob_conversation,
        payloads={"POST": _trajectory},
        other_writes={"POST": 201},
    ),
}


# --- Discovering the routes ----------------------------------------------------------


def _walk(patterns, prefix: str = "") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def _http_methods(callback) -> frozenset[str]:
    """The methods a view answers, HEAD and OPTIONS aside (they read nothing new)."""
    actions = getattr(callback, "actions", None)
    if actions:  # a viewset route: its method -> action map
        return frozenset(method.upper() for method in actions)
    view_class = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    assert view_class is not None, f"{callback} under /api/ is not a class-based view"
    return frozenset(
        method.upper()
        for method in view_class.http_method_names
        if method not in ("head", "options") and hasattr(view_class, method)
    )


def discover_api_routes() -> dict[str, frozenset[str]]:
    """Every URL pattern under /api/, by name, with the methods its view answers."""
    found: dict[str, frozenset[str]] = {}
    for path, pattern in _walk(get_resolver().url_patterns):
        if not path.startswith(API_PREFIX):
            continue
        name = pattern.name or path
        assert name not in found, f"two /api/ routes are named {name!r}; the matrix cannot tell them apart"
        found[name] = _http_methods(pattern.callback)
    return found


DISCOVERED = discover_api_routes()
CASES = [
    pytest.param(name, method, id=f"{method} {name}")
    for name in sorted(DISCOVERED)
    for method in sorted(DISCOVERED[name])
]


# --- Bob's data ------------------------------------------------------------------------


def _owner_lookup(model: type[Model]) -> str | None:
    names = {f.name: f for f in model._meta.get_fields() if f.concrete}
    if "user" in names:
        return "user"
    for candidate in names.values():
        if candidate.many_to_one and any(f.name == "user" for f in candidate.related_model._meta.get_fields()):
            return f"{candidate.name}__user"
    return None


def personal_data_of(user) -> dict[str, list[dict]]:
    """Every row that is ``user``'s personal data, column by column."""
    snapshot: dict[str, list[dict]] = {}
    for app_label in ("health", "agents"):
        for model in apps.get_app_config(app_label).get_models():
            if model in SHARED_MODELS:
                continue
            lookup = _owner_lookup(model)
            assert lookup, f"{model.__name__} is neither shared nor owned: classify it in this matrix"
            rows = model.objects.filter(**{lookup: user}).order_by("pk").values()
            # Authenticating with a device token stamps the device's
            # last_seen_at; that is the token working, not a write.
            snapshot[model._meta.label] = [{k: v for k, v in row.items() if k != "last_seen_at"} for row in rows]
    return snapshot


@pytest.fixture
def bob_world(bob) -> None:
    """One row of every kind of personal data for bob, so that a write that
    strays anywhere into his data shows up in ``personal_data_of(bob)``."""
    device = DeviceFactory(user=bob)
    EmergencyContactFactory(user=bob)
    VitalReadingFactory(device=device)
    AppointmentFactory(user=bob)
    AppointmentHistoryFactory(user=bob)
    SymptomRecordFactory(user=bob)
    alert = AlertFactory(user=bob)
    AlertEvent.objects.create(alert=alert, kind="created", message="Soft SOS raised.")
    Dispatch.objects.create(alert=AlertFactory(user=bob, kind=Alert.Kind.HARD), ambulance=AmbulanceFactory())
    OutboundMessageFactory(user=bob)
    NotificationFactory(user=bob)
    DoseEventFactory(reminder=ReminderFactory(medication=_bob_medication(bob)))
    DailyReportFactory(user=bob)
    AgentStepFactory(conversation=ConversationFactory(user=bob))


# --- Running one case ------------------------------------------------------------------


@dataclass
class Outcome:
    obj: Model | None
    status: int
    body: object
    changed_bob: bool


def _route(name: str) -> Route:
    route = MATRIX.get(name)
    if route is None:
        pytest.fail(f"/api/ route {name!r} is not in the authorisation matrix: describe it in MATRIX")
    return route


def _url(name: str, route: Route, obj: Model | None) -> str:
    return reverse(name, kwargs=route.kwargs(obj)) if route.detail else reverse(name)


def _send(client: APIClient, method: str, url: str, payload: object) -> tuple[int, object]:
    uploads = isinstance(payload, dict) and any(hasattr(value, "read") for value in payload.values())
    response = getattr(client, method.lower())(url, data=payload, format="multipart" if uploads else "json")
    if response.get("Content-Type", "") == "application/zip":  # the account's archive: its data.json
        with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as archive:
            return response.status_code, json.loads(archive.read("data.json"))
    is_json = response.get("Content-Type", "").startswith("application/json")
    return response.status_code, response.json() if is_json and response.content else None


def run_case(client: APIClient, name: str, method: str, bob, *, payload: object = None) -> Outcome:
    route = _route(name)
    obj = route.make(bob)
    if payload is None and method in route.payloads:
        payload = route.payloads[method](obj)
    if method in WRITE_METHODS - {"DELETE"}:
        assert payload is not None, f"MATRIX has no {method} payload for {name}"
    before = personal_data_of(bob)
    status, body = _send(client, method, _url(name, route, obj), payload)
    return Outcome(obj=obj, status=status, body=body, changed_bob=personal_data_of(bob) != before)


def _client(user=None, token: str | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_login(user)
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    return client


# --- The matrix ------------------------------------------------------------------------


def test_every_api_route_is_in_the_matrix():
    """GIVEN every URL pattern under /api/ and the methods its view answers
    THEN the matrix describes exactly those routes and exactly those methods."""
    assert set(DISCOVERED) == set(MATRIX), (
        f"routes missing from MATRIX: {sorted(set(DISCOVERED) - set(MATRIX))}; "
        f"MATRIX routes that no longer exist: {sorted(set(MATRIX) - set(DISCOVERED))}"
    )
    for name, methods in DISCOVERED.items():
        assert methods == MATRIX[name].methods, f"{name}: the view answers {sorted(methods)}"
    # Public is a deliberate, short list: a user's data never becomes public by a typo here.
    assert {name for name, route in MATRIX.items() if route.kind == PUBLIC} == PUBLIC_ROUTES


def test_the_matrix_gives_a_payload_for_every_write():
    for name, route in MATRIX.items():
        for method in route.methods & (WRITE_METHODS - {"DELETE"}):
            assert method in route.payloads, f"{name} {method} has no payload"


@pytest.mark.parametrize(("name", "method"), CASES)
def test_the_owner_can_use_every_route_on_their_own_data(name, method, bob, bob_world):
    route = _route(name)
    outcome = run_case(_client(bob), name, method, bob)

    if method == "GET":
        assert outcome.status == 200, outcome.body
        if route.shows is not None:
            assert route.shows(outcome.body, outcome.obj), f"bob does not see his own object: {outcome.body}"
    else:
        assert 200 <= outcome.status < 300, outcome.body
        assert outcome.changed_bob, f"bob's {method} on {name} answered {outcome.status} but changed nothing"


@pytest.mark.parametrize(("name", "method"), CASES)
def test_another_user_never_reads_or_writes_the_owners_data(name, method, alice, bob, bob_world):
    route = _route(name)
    outcome = run_case(_client(alice), name, method, bob)

    if route.kind in (PUBLIC, DIRECTORY):
        assert outcome.status == 200
        if route.shows is not None:
            assert route.shows(outcome.body, outcome.obj), "the shared directory looks different to alice"
    elif route.kind == OWNED_DETAIL:
        assert outcome.status == 404, f"alice's {method} on bob's {name} answered {outcome.status}"
    elif method == "GET":
        assert outcome.status == 200
        assert not route.shows(outcome.body, outcome.obj), f"alice sees bob's data on {name}: {outcome.body}"
    else:
        assert outcome.status == route.other_writes[method], outcome.body
    assert not outcome.changed_bob, f"alice's {method} on {name} changed bob's data"


@pytest.mark.parametrize(("name", "method"), CASES)
def test_anonymous_visitors_are_refused_everywhere_but_the_schema(name, method, bob, bob_world):
    route = _route(name)
    outcome = run_case(_client(), name, method, bob)

    if route.kind == PUBLIC:
        assert outcome.status == 200
    else:
        assert outcome.status in (401, 403), f"anonymous {method} on {name} answered {outcome.status}"
    assert not outcome.changed_bob


@pytest.mark.parametrize(("name", "method"), CASES)
def test_a_device_token_only_reaches_device_scoped_routes_and_only_for_its_user(
    name, method, alice, alice_device, bob, bob_world
):
    route = _route(name)
    _, token = alice_device
    outcome = run_case(_client(token=token), name, method, bob)

    if route.kind == PUBLIC:
        assert outcome.status == 200
    elif method in route.device_scoped:
        # Bob's payload names bob's rows (his device): refused.
        assert outcome.status == 400, outcome.body
        # Without naming anyone's rows, the device writes for its own user.
        alice_before = personal_data_of(alice)
        status, body = _send(_client(token=token), method, _url(name, route, outcome.obj), route.device_payload())
        assert 200 <= status < 300, body
        assert personal_data_of(alice) != alice_before, "the device's write did not reach its own user's data"
    else:
        assert outcome.status == 403, f"a device token's {method} on {name} answered {outcome.status}"
    assert not outcome.changed_bob, f"a device token's {method} on {name} changed bob's data"
