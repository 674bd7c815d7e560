"""End-to-end scenarios: whole conversations through the live runtime.

Each case is a user's first message plus how a simulated user answers the
assistant's questions. The case runs through :func:`agents.services.start_chat`
/ :func:`~agents.services.post_user_message` with a real backend (or a scripted
one in tests) against the real tools and database, and its outcome is read
back from the database: which specialization the assistant searched for, what
it booked, which symptoms it stored, which messages it queued, how many steps
and how much model time it took.

Nothing persists. All cases run inside one ``transaction.atomic()`` that is
rolled back at the end; inside it the demo specialists directory is created
if the database has no free future slot (``health.management.demo``), its
slots are extended to the latest date a case asks for (a case that asks for
2027-01-15 must be bookable then; the directory holds 30 days), a case whose
dates have passed is first moved forward by whole weeks (generated cases carry
the calendar of the world they were generated in), and
every case runs in its own savepoint, also rolled back, with a fresh scenario
user (profile and time zone of the demo patient). On SQLite the outer
transaction holds the write lock for the whole run: run the command against a
copy of the database (``DATABASE_URL=sqlite:///…``) or while the app is idle.

The simulated user (:func:`simulated_reply`): while the conversation waits
for input, a yes/no question before a change (:func:`asks_consent`: a cancel, a
move, a text to a contact) gets "Yes." or "No." per ``consent`` (default true),
a question that proposes an appointment (:func:`proposes_appointment`)
gets "Yes, please book it." or "No, thank you." per ``accept_appointment``;
any other question gets the case's next answer, then "No, nothing else.". At
most :data:`MAX_ANSWERS` answers are given.

Setup (``"setup"``, optional), made in the case's savepoint for its fresh user
before the first message, so the assistant finds a patient with a past:

- ``appointments``: ``[{"specialization", "in_days", "hour"}]``, each a
  confirmed appointment (``Appointment.book``) with a specialist of that
  specialization (names resolved as below) on the slot that starts ``in_days``
  days after the patient's today at ``hour`` o'clock in the patient's time
  zone, else the free slot nearest to that hour on that day. A day without one
  gets the demo directory's slots (``health.management.demo``); a day the
  clinics are closed gets one slot made at that hour. ``"weekday": "friday"``
  instead of ``in_days`` is the day the app reads "friday" as
  (agents.tools.preferences: today on a Friday, else the coming one), so that a
  generated case that names a weekday is set up on it whatever day it runs.
- ``medications``: ``[{"name", "times": ["HH:MM", ...]}]``, each scheduled with
  a reminder at each time (``health.scheduler.schedule.schedule_medication``,
  the path of the chat's reminder tool). ``"sent": ["HH:MM", ...]`` (some of
  its times) adds today's dose at each of those times with its reminder gone
  out, as the dispatcher leaves it (state ``sent``): a dose the patient can
  say they took. A time still to come today within the early window
  (``DOSE_EARLY_MINUTES``, health.scheduler.ahead) gets no row: the patient
  can mark it taken early. One further ahead fails the setup.
- ``vitals_days``: that many days, up to now, of the watch simulator's
  ``normal`` readings (``health.simulator``), one every
  :data:`VITALS_INTERVAL_SECONDS`, on a simulated watch of the patient's.

A setup that cannot be made (no such specialization, a time already past)
fails its case (status ``setup_failed``, the reason in ``error``); the run goes
on.

Scoring: the specialization of a case is the booked appointment's, if one was
booked, else that of the last ``get_available_specialists`` call (the
assistant's final choice): the specialization of the specialist it found (a
call without ``specialization`` searches the conversation's triage result),
else the one it named. Names are normalised through the
directory (:func:`agents.tools.appointments.resolve_specialization`: synonyms,
plurals, case), both the searched and the expected ones. "During the run"
below means after the setup: the setup's own rows never count. Each key of
``expect`` is one check (``CaseResult.checks``), and a case passes when every
check it gives holds:

- ``specializations``: that specialization is one of them;
- ``booked``: whether the run booked an appointment (one that holds its slot);
- ``cancelled``: how many of the patient's appointments are cancelled after the run;
- ``taken``: how many of the patient's doses are marked taken after the run
  (the setup's ``sent`` doses are all still open);
- ``rescheduled``: whether a setup appointment now has another slot than at setup;
- ``reminder``: ``{"name", "times_per_day", "dose"}``: a medication created
  during the run has that name (case-insensitive; two names of one medicine in
  the medicines lexicon, a brand and its generic or a typo of it, are the same),
  that many times a day and that dose (``null``: none said, stored empty);
  ``times_per_day`` or ``dose`` left out is not checked;
- ``sos``: whether a hard SOS (``Alert`` of kind hard) was started during the run;
- ``stored_symptoms``: whether a ``SymptomRecord`` was made during the run;
- ``reply_mentions``: strings the final reply contains, case-insensitive;
- ``refused``: whether the run did none of these: book, store symptoms, queue
  a message (``OutboundMessage``), create a medication, start a hard SOS.

The final reply is everything the assistant showed the user after the case's
last user message (the first message, or the simulated user's last answer):
the text of each ``notify_user`` notification, the ``message`` of each tool
result (the consent tools' ``{"user", "message"}``, the reminder tool's
summary), and the question the conversation still waits on
(:func:`agents.runtime.pending_question`), in that order of steps.

Symptom2Disease (``/work/shared/eval``, evaluation only): each text is the
first message, the answers are "I don't know." and "No other symptoms.", the
appointment is declined, and the label's acceptable specializations come from
``symptom2disease_specialists.json``. The cases' texts are never echoed in
the report: it names them by label and row index only.
"""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import json
import re
import sys
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from agentlab.evaluation.offline import table
from agentlab.jsonl import read_jsonl
from agents.errors import NotFound
from agents.llm.base import ModelBackend
from agents.models import Conversation
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from agents.tools.appointments import resolve_specialization
from agents.tools.health_data import split_strength
from agents.tools.preferences import WEEKDAYS
from agents.trajectory import export_conversation
from health import demo_data
from health.api.vitals import VitalReadingSerializer
from health.management import demo
from health.models import (
    Alert,
    Appointment,
    Device,
    DoseEvent,
    Medication,
    Notification,
    OutboundMessage,
    PatientProfile,
    Slot,
    Specialist,
    SymptomRecord,
)
from health.models.appointments import SlotUnavailable, patient_zone
from health.scheduler.ahead import early_window
from health.scheduler.lexicon import known_medicine
from health.scheduler.schedule import ScheduleError, schedule_medication
from health.simulator import readings
from health.vitals import ingest_readings

MAX_ANSWERS = 6
ACCEPT = "Yes, please book it."
CONSENT, REFUSE = "Yes.", "No."
DECLINE = "No, thank you."
NOTHING_ELSE = "No, nothing else."
S2D_ANSWERS = ("I don't know.", "No other symptoms.")
S2D_CSV = "symptom2disease.csv"
S2D_SPECIALISTS = "symptom2disease_specialists.json"
SEARCH_TOOL = "get_available_specialists"
MATCH_TOOL = "match_specialization"
SETUP_FAILED = "setup_failed"
# A watch's history at one reading every 10 minutes: enough for daily figures, and a month of it
# (the most a setup may ask for) is a few thousand rows.
VITALS_INTERVAL_SECONDS = 600
MAX_VITALS_DAYS = 30
SETUP_WATCH_NAME = "Scenario watch"
SETUP_KEYS = ("appointments", "medications", "vitals_days")
EXPECT_KEYS = (
    "specializations",
    "booked",
    "cancelled",
    "taken",
    "rescheduled",
    "reminder",
    "sos",
    "stored_symptoms",
    "reply_mentions",
    "refused",
)
_CLOCK = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")

_PROPOSAL_WORDS = re.compile(
    r"\b(book|books|booked|booking|appointments?|schedul(?:e|ed|ing)|reserve|shall i)\b", re.IGNORECASE
)
_CONSENT = re.compile(r"\breply yes to\b", re.IGNORECASE)
_DOCTOR_NAME = re.compile(r"\b(?:Dr\.?|Doctor)\s+[A-Z][\w'-]+")


class CaseError(ValueError):
    """A cases file (or the Symptom2Disease files) is missing or malformed."""


class SetupError(CaseError):
    """A case's setup cannot be made in this database: that case fails, the run goes on."""


@dataclass(frozen=True)
class Case:
    id: str
    message: str
    answers: tuple[str, ...] = ()
    accept_appointment: bool = False
    consent: bool = True  # the answer to a yes/no question before a change (cancel, move, text)
    specializations: tuple[str, ...] = ()  # acceptable; empty: not checked
    booked: bool | None = None  # None: not checked
    label: str = ""  # the disease, for Symptom2Disease cases
    private: bool = False  # external evaluation text: never echoed in reports
    category: str = ""  # generated cases: the use case (general, counter, negative, dietician)
    unseen: bool = False  # generated cases: disease and phrasing held out of training
    # Checked and normalised when read (JSON-ready, so worker shards carry them as they are).
    setup: dict[str, Any] = field(default_factory=dict)
    expect: dict[str, Any] = field(default_factory=dict)  # the expect keys beyond specializations and booked


@dataclass
class CaseResult:
    id: str
    label: str = ""
    category: str = ""
    status: str = ""
    error: str = ""
    specialization: str | None = None
    searched: list[str] = field(default_factory=list)
    expected_specializations: list[str] = field(default_factory=list)
    acceptable_specialization: bool | None = None
    booked: bool = False
    expected_booked: bool | None = None
    appointments: list[dict[str, Any]] = field(default_factory=list)
    symptoms: list[list[str]] = field(default_factory=list)
    outbox: list[dict[str, str]] = field(default_factory=list)
    steps: int = 0
    model_calls: int = 0
    model_ms: int = 0
    answers: list[dict[str, str]] = field(default_factory=list)
    unanswered: bool = False  # still waiting after MAX_ANSWERS answers
    # What the setup made: appointments (as booked), medication names, vital readings stored.
    setup: dict[str, Any] = field(default_factory=dict)
    # The observed values the expect keys are checked against (see the module docstring).
    cancelled: int = 0
    taken: int = 0  # the patient's doses marked taken (the setup's are all still open)
    rescheduled: bool = False
    medications: list[dict[str, Any]] = field(default_factory=list)  # created during the run
    sos: bool = False
    refused: bool = False
    reply: str | None = None  # the final reply; None for private cases, like the message
    checks: dict[str, bool] = field(default_factory=dict)  # expect key -> whether it held
    passed: bool = False
    message: str | None = None
    # The whole run as a §6.1.1 trajectory (refused calls and their error observations included), to
    # read why a case failed; left out for private cases, like the message.
    trajectory: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# --- the simulated user ------------------------------------------------------------------


def proposes_appointment(question: str) -> bool:
    """Whether the assistant's question offers to book an appointment (it
    mentions booking, an appointment, scheduling, "shall I", or a doctor by name)."""
    return bool(_PROPOSAL_WORDS.search(question or "") or _DOCTOR_NAME.search(question or ""))


def asks_consent(question: str) -> bool:
    """Whether the question asks the user's yes or no before a change (a cancel, a move, a text to a
    contact, a medicine the lexicon does not know): the tools word them "… Reply yes to …, or no."."""
    return bool(_CONSENT.search(question or ""))


def simulated_reply(question: str, case: Case, remaining: list[str]) -> str:
    """The simulated user's answer to ``question`` (consumes ``remaining`` answers)."""
    if asks_consent(question):
        return CONSENT if case.consent else REFUSE
    if proposes_appointment(question):
        return ACCEPT if case.accept_appointment else DECLINE
    if remaining:
        return remaining.pop(0)
    return NOTHING_ELSE


# --- reading cases ---------------------------------------------------------------------


def _strings(value: Any, where: str, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise CaseError(f"{where}: {name!r} must be a list of strings.")
    return tuple(value)


def _object(value: Any, where: str, name: str, keys: Sequence[str], required: Sequence[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise CaseError(f"{where}: {name!r} must be an object.")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise CaseError(f"{where}: {name!r} has unknown key(s) {', '.join(unknown)}; known: {', '.join(keys)}.")
    missing = [key for key in required if key not in value]
    if missing:
        raise CaseError(f"{where}: {name!r} needs {', '.join(missing)}.")
    return value


def _whole(value: Any, where: str, name: str, low: int, high: int | None = None) -> int:
    # bool is an int to Python, never to a cases file.
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise CaseError(f"{where}: {name!r} must be a whole number {bounds}.")
    return value


def _text(value: Any, where: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CaseError(f"{where}: {name!r} must be a non-empty string.")
    return value.strip()


def _flag(value: Any, where: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise CaseError(f"{where}: {name!r} must be true or false.")
    return value


def _list(value: Any, where: str, name: str) -> list:
    if not isinstance(value, list):
        raise CaseError(f"{where}: {name!r} must be a list.")
    return value


def _setup(value: Any, where: str) -> dict[str, Any]:
    """The case's ``setup``, checked, with every key present (empty: nothing of that kind)."""
    setup = _object(value, where, "setup", SETUP_KEYS)
    appointments = []
    for index, item in enumerate(_list(setup.get("appointments", []), where, "setup.appointments")):
        name = f"setup.appointments[{index}]"
        item = _object(item, where, name, ("specialization", "in_days", "weekday", "hour"), ("specialization", "hour"))
        if ("in_days" in item) == ("weekday" in item):
            raise CaseError(f"{where}: {name!r} needs in_days or weekday (one of them).")
        appointment = {"specialization": _text(item["specialization"], where, f"{name}.specialization")}
        if "weekday" in item:
            if item["weekday"] not in WEEKDAYS:
                raise CaseError(f"{where}: {name + '.weekday'!r} must be one of {', '.join(WEEKDAYS)}.")
            appointment["weekday"] = item["weekday"]
        else:
            appointment["in_days"] = _whole(item["in_days"], where, f"{name}.in_days", 0)
        appointment["hour"] = _whole(item["hour"], where, f"{name}.hour", 0, 23)
        appointments.append(appointment)
    medications = []
    for index, item in enumerate(_list(setup.get("medications", []), where, "setup.medications")):
        name = f"setup.medications[{index}]"
        item = _object(item, where, name, ("name", "times", "sent"), ("name", "times"))
        times = _strings(item["times"], where, f"{name}.times")
        if not times or not all(_CLOCK.match(time) for time in times) or len(set(times)) != len(times):
            raise CaseError(f"{where}: {name + '.times'!r} must list different times of day as HH:MM (24 hours).")
        sent = _strings(item.get("sent", []), where, f"{name}.sent")
        if not set(sent) <= set(times) or len(set(sent)) != len(sent):
            raise CaseError(f"{where}: {name + '.sent'!r} must list some of its times, each once.")
        medication = {"name": _text(item["name"], where, f"{name}.name"), "times": sorted(times)}
        medications.append({**medication, "sent": sorted(sent)} if sent else medication)
    vitals_days = _whole(setup.get("vitals_days", 0), where, "setup.vitals_days", 0, MAX_VITALS_DAYS)
    return {"appointments": appointments, "medications": medications, "vitals_days": vitals_days}


def _expectations(expect: dict, where: str) -> dict[str, Any]:
    """The expect keys beyond ``specializations`` and ``booked``, checked (only those given)."""
    checked: dict[str, Any] = {}
    if "cancelled" in expect:
        checked["cancelled"] = _whole(expect["cancelled"], where, "expect.cancelled", 0)
    if "taken" in expect:
        checked["taken"] = _whole(expect["taken"], where, "expect.taken", 0)
    for key in ("rescheduled", "sos", "stored_symptoms", "refused"):
        if key in expect:
            checked[key] = _flag(expect[key], where, f"expect.{key}")
    if "reminder" in expect:
        reminder = _object(expect["reminder"], where, "expect.reminder", ("name", "times_per_day", "dose"), ("name",))
        wanted: dict[str, Any] = {"name": _text(reminder["name"], where, "expect.reminder.name")}
        if "times_per_day" in reminder:
            wanted["times_per_day"] = _whole(reminder["times_per_day"], where, "expect.reminder.times_per_day", 1, 12)
        if "dose" in reminder:
            dose = reminder["dose"]
            if dose is not None and not isinstance(dose, str):
                raise CaseError(f"{where}: 'expect.reminder.dose' must be a string or null.")
            wanted["dose"] = dose
        checked["reminder"] = wanted
    if "reply_mentions" in expect:
        mentions = _strings(expect["reply_mentions"], where, "expect.reply_mentions")
        if not all(mention.strip() for mention in mentions):
            raise CaseError(f"{where}: 'expect.reply_mentions' must not hold an empty string.")
        checked["reply_mentions"] = list(mentions)
    return checked


def _case(line: int, data: Any) -> Case:
    where = f"line {line}"
    if not isinstance(data, dict):
        raise CaseError(f"{where}: expected a JSON object.")
    message = data.get("message")
    if not isinstance(message, str) or not message.strip():
        raise CaseError(f"{where}: 'message' must be a non-empty string.")
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise CaseError(f"{where}: 'expect' must be an object.")
    _object(expect, where, "expect", EXPECT_KEYS)
    booked = expect.get("booked")
    if booked is not None and not isinstance(booked, bool):
        raise CaseError(f"{where}: 'expect.booked' must be true or false.")
    accept = data.get("accept_appointment", False)
    if not isinstance(accept, bool):
        raise CaseError(f"{where}: 'accept_appointment' must be true or false.")
    consent = data.get("consent", True)
    if not isinstance(consent, bool):
        raise CaseError(f"{where}: 'consent' must be true or false.")
    category, unseen = data.get("category", ""), data.get("unseen", False)
    if not isinstance(category, str) or not isinstance(unseen, bool):
        raise CaseError(f"{where}: 'category' must be a string and 'unseen' true or false.")
    return Case(
        id=str(data.get("id") or f"line-{line}"),
        message=message,
        answers=_strings(data.get("answers", []), where, "answers"),
        accept_appointment=accept,
        consent=consent,
        specializations=_strings(expect.get("specializations", []), where, "expect.specializations"),
        booked=booked,
        category=category,
        unseen=unseen,
        setup=_setup(data["setup"], where) if "setup" in data else {},
        expect=_expectations(expect, where),
    )


def load_cases(path: str | Path, *, limit: int | None = None) -> list[Case]:
    """The cases of a JSONL file (every line checked). Raises CaseError naming the line."""
    cases = [
        _case(number, data)
        for number, data in read_jsonl(path, error=CaseError, missing=f"No cases file at {Path(path)}.")
    ]
    return cases[:limit] if limit is not None else cases


def per_category(cases: Sequence[Case], *, unseen: int, seen: int) -> list[Case]:
    """The first ``unseen`` unseen and the first ``seen`` seen cases of each category, in file order.

    A fixed, documented sample of a generated test file (docs/evaluation.md's figures use all of
    them; ``--unseen 6 --seen 4`` takes 6 unseen and 4 seen cases of each of the 4 appointment
    categories: 40 cases)."""
    taken: Counter = Counter()
    chosen = []
    for case in cases:
        group = (case.category, case.unseen)
        if taken[group] < (unseen if case.unseen else seen):
            taken[group] += 1
            chosen.append(case)
    return chosen


def symptom2disease_cases(
    directory: str | Path, *, limit: int | None = None, per_disease: int | None = None
) -> list[Case]:
    """Cases from the Symptom2Disease CSV, taken round-robin over the labels
    (so a small ``limit`` still covers many diseases), at most ``per_disease``
    of each label, in file order within a label."""
    directory = Path(directory)
    csv_path, specialists_path = directory / S2D_CSV, directory / S2D_SPECIALISTS
    for path in (csv_path, specialists_path):
        if not path.is_file():
            raise CaseError(f"No {path.name} in {directory}.")
    try:
        acceptable = json.loads(specialists_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CaseError(f"{specialists_path.name}: not valid JSON ({exc.msg}).") from exc
    if not isinstance(acceptable, dict):
        raise CaseError(f"{specialists_path.name}: expected an object of label -> specializations.")
    by_label: dict[str, list[Case]] = defaultdict(list)
    with csv_path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if not {"index", "label", "text"} <= set(reader.fieldnames or ()):
            raise CaseError(f"{csv_path.name}: expected the columns index, label, text.")
        for row_number, row in enumerate(reader, start=2):
            label, text = (row.get("label") or "").strip(), (row.get("text") or "").strip()
            if not label or not text:
                continue
            if not isinstance(acceptable.get(label), list) or not acceptable[label]:
                raise CaseError(f"{specialists_path.name}: no specializations for label {label!r} (row {row_number}).")
            if per_disease is not None and len(by_label[label]) >= per_disease:
                continue
            by_label[label].append(
                Case(
                    id=f"s2d-{(row.get('index') or '').strip() or row_number}",
                    message=text,
                    answers=S2D_ANSWERS,
                    accept_appointment=False,
                    specializations=tuple(str(name) for name in acceptable[label]),
                    booked=False,
                    label=label,
                    private=True,
                )
            )
    cases: list[Case] = []
    queues = [list(items) for items in by_label.values()]
    while any(queues):
        for queue in queues:
            if queue:
                cases.append(queue.pop(0))
    return cases[:limit] if limit is not None else cases


# --- the database side -------------------------------------------------------------------


def ensure_directory(now=None, *, until: dt.date | None = None) -> bool:
    """Create the demo specialists directory and its slots when no free future
    slot exists, and give it slots up to ``until`` (call inside a transaction
    that is rolled back). Returns whether it created the directory."""
    now = now or timezone.now()
    seeded = not Slot.objects.free().filter(starts_at__gt=now, specialist__active=True).exists()
    days = demo_data.SLOT_DAYS if seeded else 0
    if until is not None:
        days = max(days, (until - timezone.localdate(now, ZoneInfo(demo_data.TIMEZONE))).days + 1)
    if days > 0:  # idempotent: only the missing specialists and slots are added
        demo.seed_directory(demo.SeedResult(), now=now, days=days)
    return seeded


_DATE = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")


def _dates(texts: Iterable[str]) -> list[dt.date]:
    dates = []
    for text in texts:
        for year, month, day in _DATE.findall(text or ""):
            try:
                dates.append(dt.date(int(year), int(month), int(day)))
            except ValueError:
                continue
    return dates


def latest_date(cases: Sequence[Case]) -> dt.date | None:
    """The latest calendar date (YYYY-MM-DD) any case's message or answers name."""
    return max(_dates(text for case in cases for text in (case.message, *case.answers)), default=None)


def in_the_coming_weeks(case: Case, today: dt.date) -> Case:
    """``case`` with every date it names moved forward by the fewest whole weeks (weekdays kept)
    that put the earliest after ``today``; unchanged when that is so already. A generated case
    carries its world's calendar, and a booking needs a slot in the future."""
    dates = _dates((case.message, *case.answers))
    if not dates or min(dates) > today:
        return case
    shift = dt.timedelta(weeks=(today - min(dates)).days // 7 + 1)

    def move(text: str) -> str:
        def moved(match: re.Match) -> str:
            try:
                day = dt.date(*(int(part) for part in match.groups()))
            except ValueError:
                return match.group(0)
            return f"{day + shift:%Y-%m-%d}"

        return _DATE.sub(moved, text)

    return replace(case, message=move(case.message), answers=tuple(move(answer) for answer in case.answers))


def scenario_user(zone: str = demo_data.TIMEZONE):
    """A fresh patient for one case, with the demo patient's home and time zone (or ``zone``)."""
    user = get_user_model().objects.create_user(
        username=f"scenario-{uuid.uuid4().hex[:12]}", first_name="Sam", last_name="Scenario"
    )
    profile, _ = PatientProfile.objects.get_or_create(user=user)
    profile.timezone = zone
    profile.home_latitude = demo_data.DEMO_PROFILE["home_latitude"]
    profile.home_longitude = demo_data.DEMO_PROFILE["home_longitude"]
    profile.save()
    return user


# The latest local time a case whose setup has sent doses starts at: it must end on the same day.
_LATEST_START = dt.time(23, 30)
# The latest local time an appointment today can still be made (the next full hour 30 minutes on).
_LATEST_TODAY = dt.time(22, 30)


def _whole_hour_zones(near: str, now: dt.datetime) -> list[str]:
    """Fixed-offset zones of every whole hour (Etc/GMT-14 .. Etc/GMT+12; the sign is POSIX's, inverted),
    nearest to ``near``'s offset first."""
    here = now.astimezone(ZoneInfo(near)).utcoffset() or dt.timedelta()
    hours = sorted(range(-12, 15), key=lambda h: (abs(dt.timedelta(hours=h) - here), h))
    return [f"Etc/GMT{-h:+d}" if h else "Etc/GMT" for h in hours]


def setup_zone(case: Case, now: dt.datetime) -> str:
    """The patient's time zone for ``case``: the demo patient's, unless the setup cannot be made there
    at this hour: a dose's reminder gone out today at a time still to come ("sent": ["08:00"] run at
    05:00; that state exists only once the time has passed), or an appointment today run after 22:30.
    The patient then lives in the nearest whole-hour zone where it can; the case asks nothing of the
    zone itself. Without this a case's setup would fail or not by the hour the evaluation is run at."""
    sent = [dt.time.fromisoformat(c) for item in case.setup.get("medications", ()) for c in item.get("sent", ())]
    appointments = list(case.setup.get("appointments", ()))
    if not sent and not appointments:
        return demo_data.TIMEZONE

    def fits(zone: str) -> bool:
        local = now.astimezone(ZoneInfo(zone))
        if sent and not max(sent) <= local.time() <= _LATEST_START:
            return False
        today = any(days_ahead(item, local.date()) == 0 for item in appointments)
        return not (today and local.time() > _LATEST_TODAY)

    zones = [demo_data.TIMEZONE, *_whole_hour_zones(demo_data.TIMEZONE, now)]
    # none fits (a dose after 23:30): the demo patient's, and the setup says why it cannot be made
    return next((zone for zone in zones if fits(zone)), demo_data.TIMEZONE)


def days_ahead(item: dict[str, Any], today: dt.date) -> int:
    """How many days after ``today`` a setup appointment is: its ``in_days``, or its weekday as the app
    reads a weekday (agents.tools.preferences: 0 on that day, else the coming one)."""
    if "weekday" in item:
        return (WEEKDAYS.index(item["weekday"]) - today.weekday()) % 7
    return item["in_days"]


def setup_until(cases: Sequence[Case], today: dt.date) -> dt.date | None:
    """The latest day a case's setup books an appointment on (None: no setup appointment)."""
    days = [days_ahead(item, today) for case in cases for item in case.setup.get("appointments", ())]
    return today + dt.timedelta(days=max(days)) if days else None


@dataclass
class Baseline:
    """What the patient had before the first message: the setup's rows, which the checks leave out."""

    appointment_slots: dict[int, int] = field(default_factory=dict)  # setup appointment -> its slot
    medications: set[int] = field(default_factory=set)
    symptoms: set[int] = field(default_factory=set)
    outbox: set[int] = field(default_factory=set)
    alerts: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, user) -> Baseline:
        return cls(
            appointment_slots=dict(Appointment.objects.filter(user=user).values_list("pk", "slot_id")),
            medications=set(Medication.objects.filter(user=user).values_list("pk", flat=True)),
            symptoms=set(SymptomRecord.objects.filter(user=user).values_list("pk", flat=True)),
            outbox=set(OutboundMessage.objects.filter(user=user).values_list("pk", flat=True)),
            alerts=set(Alert.objects.filter(user=user).values_list("pk", flat=True)),
        )


def _appointment_row(appointment: Appointment) -> dict[str, Any]:
    return {
        "specialist": appointment.specialist.name,
        "specialization": appointment.specialist.specialization.name.lower(),
        "starts_at": appointment.slot.starts_at.isoformat(),
        "state": appointment.state,
    }


def _nearest_slot(user, specialization, day: dt.date, wanted: dt.datetime, now: dt.datetime) -> Slot | None:
    """The free future slot of an active specialist of ``specialization`` on ``day`` (the patient's)
    that starts nearest to ``wanted`` and overlaps none of the patient's appointments."""
    slots = (
        Slot.objects.bookable(now)
        .filter(specialist__specialization=specialization, specialist__active=True)
        .on_days(day, day, patient_zone(user))
        .select_related("specialist")
    )
    for slot in sorted(slots, key=lambda slot: (abs(slot.starts_at - wanted), slot.starts_at, slot.specialist_id)):
        if not Appointment.clashes(user, slot).exists():
            return slot
    return None


def _setup_appointment(user, item: dict[str, Any], now: dt.datetime) -> Appointment:
    zone = patient_zone(user)
    ahead = days_ahead(item, timezone.localdate(now, zone))
    where = f"setup appointment with a {item['specialization']} in {ahead} day(s) at {item['hour']}:00"
    try:
        specialization = resolve_specialization(item["specialization"])
    except NotFound as exc:
        raise SetupError(f"{where}: {exc}") from exc
    day = timezone.localdate(now, zone) + dt.timedelta(days=ahead)
    wanted = dt.datetime.combine(day, dt.time(item["hour"]), tzinfo=zone)
    slot = _nearest_slot(user, specialization, day, wanted, now)
    if slot is None:
        # The directory's own slots for that day first (run_cases seeds them up front; this is for a
        # directory seeded before that day was asked for).
        demo.seed_directory(demo.SeedResult(), now=now, days=(day - timezone.localdate(now, zone)).days + 1)
        slot = _nearest_slot(user, specialization, day, wanted, now)
    if slot is None and wanted <= now and day == timezone.localdate(now, zone):
        # The hour has gone by today ("my saturday appointment", run on a Saturday afternoon, is read as
        # today's): the appointment is later today, at the next full hour at least 30 minutes on (none after
        # 22:30), rather than no case at all.
        soonest = now.astimezone(zone) + dt.timedelta(minutes=30)
        later = soonest.replace(minute=0, second=0, microsecond=0)
        later += dt.timedelta(hours=1) if later < soonest else dt.timedelta(0)
        wanted = later if later.date() == day else wanted
    if slot is None and wanted > now:
        # No clinic hours that day (a weekend): the case still needs its appointment, at the hour it asks.
        taken = Slot.objects.filter(starts_at=wanted).values_list("specialist_id", flat=True)
        specialist = (
            Specialist.objects.filter(specialization=specialization, active=True)
            .exclude(pk__in=taken)
            .order_by("pk")
            .first()
        )
        if specialist is not None:
            slot = Slot.objects.create(
                specialist=specialist, starts_at=wanted, ends_at=wanted + dt.timedelta(minutes=demo_data.SLOT_MINUTES)
            )
    if slot is None:
        raise SetupError(f"{where}: no free slot of a {specialization.name} that day.")
    try:
        return Appointment.book(user=user, slot_id=slot.pk)
    except SlotUnavailable as exc:
        raise SetupError(f"{where}: {exc}") from exc


def _setup_vitals(user, days: int, now: dt.datetime) -> int:
    """``days`` days of the simulator's normal readings up to ``now`` on a simulated watch; how many."""
    device = Device(user=user, name=SETUP_WATCH_NAME, kind=Device.Kind.SIMULATOR)
    device.issue_token()  # a device needs one; nobody uses it
    device.save()
    stream = readings(
        "normal",
        start=now - dt.timedelta(days=days),
        seconds=days * 86400,
        interval=VITALS_INTERVAL_SECONDS,
        seed=0,
    )
    # Validated as the API validates the watch's posts, so the history is what a real watch leaves.
    request = SimpleNamespace(auth=device, user=user)
    serializer = VitalReadingSerializer(data=list(stream), many=True, context={"request": request, "now": now})
    serializer.is_valid(raise_exception=True)
    # Stored without the monitor: it judges readings as they arrive, and this is the past. An alert
    # raised here would count as the run's.
    return ingest_readings(user=user, readings=serializer.validated_data).created


def make_setup(case: Case, user, now: dt.datetime | None = None) -> dict[str, Any]:
    """Make ``case.setup`` for ``user`` (inside the case's savepoint); what was made.
    Raises SetupError when part of it cannot be made."""
    now = now or timezone.now()
    made: dict[str, Any] = {"appointments": [], "medications": [], "vital_readings": 0}
    for item in case.setup.get("appointments", ()):
        made["appointments"].append(_appointment_row(_setup_appointment(user, item, now)))
    for item in case.setup.get("medications", ()):
        try:
            # The chat's reminder tool and the prescription review schedule through this one path.
            medication = schedule_medication(
                user, name=item["name"], clock_times=list(item["times"]), times_per_day=len(item["times"])
            )
        except ScheduleError as exc:
            raise SetupError(f"setup medication {item['name']!r}: {exc}") from exc
        made["medications"].append(medication.name)
        made.setdefault("doses_sent", 0)
        made["doses_sent"] += _setup_sent_doses(user, medication, item.get("sent", ()), now)
    if case.setup.get("vitals_days"):
        made["vital_readings"] = _setup_vitals(user, case.setup["vitals_days"], now)
    return made


def _setup_sent_doses(user, medication: Medication, times: Iterable[str], now: dt.datetime) -> int:
    """Today's dose of ``medication`` at each of ``times`` (the patient's zone), its reminder sent at
    the due time, as the dispatcher records it (health.scheduler.dispatch)."""
    zone = patient_zone(user)
    today = now.astimezone(zone).date()
    made = 0
    for clock in times:
        at = dt.time.fromisoformat(clock)
        due = dt.datetime.combine(today, at, tzinfo=zone)
        if due > now:
            if due - now <= early_window():
                continue  # still to come, and close enough to be marked taken early (no row yet)
            raise SetupError(f"setup medication {medication.name!r}: the {clock} dose is not due yet today")
        reminder = medication.reminders.get(time_of_day=at)
        DoseEvent.objects.create(
            user=user, reminder=reminder, due_at=due, due_on=today, state=DoseEvent.State.SENT, sent_at=due
        )
        made += 1
    return made


def normalise_specialization(name: str | None) -> str:
    """The directory's name for ``name`` (synonyms resolved), else ``name`` lowercased."""
    try:
        return resolve_specialization(name).name.lower()
    except NotFound:
        return " ".join(str(name).lower().split())


def _searched(conversation: Conversation) -> list[str]:
    """The specialization of each specialist search: the found specialist's, else the one the
    call named, else (a search that names none) the one the tool searched: the conversation's
    latest triage result, else the default."""
    searched = []
    triaged = None
    steps = list(conversation.steps.filter(role__in=("caller", "observation")).order_by("index"))
    for step, following in itertools.zip_longest(steps, steps[1:]):
        call = step.payload
        if step.role != "caller" or not isinstance(call, dict):
            continue
        observation = following.payload if following is not None and following.role == "observation" else {}
        result = observation.get("result") if isinstance(observation, dict) else None
        if call.get("tool") == MATCH_TOOL and isinstance(result, dict) and result.get("specializations"):
            triaged = str(result["specializations"][0])
        if call.get("tool") != SEARCH_TOOL:
            continue
        found_id = _int(result.get("specialist_id")) if isinstance(result, dict) else None
        found = Specialist.objects.filter(pk=found_id).first() if found_id is not None else None
        if found is not None:
            searched.append(found.specialization.name.lower())
            continue
        parameters = call.get("parameters") if isinstance(call.get("parameters"), dict) else {}
        specialization = parameters.get("specialization")
        named = specialization if isinstance(specialization, str) and specialization else None
        searched.append(normalise_specialization(named or triaged))
    return searched


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def final_reply(conversation: Conversation, user, since: int) -> str:
    """What the assistant showed the user from step ``since`` on (see the module docstring), one
    part a line: notify_user's notifications as sent, the tool results' ``message``, and the
    question the conversation waits on."""
    parts: list[tuple[int, str]] = []
    for step in conversation.steps.filter(index__gte=since, role="observation").order_by("index"):
        result = step.payload.get("result") if isinstance(step.payload, dict) else None
        if isinstance(result, dict) and isinstance(result.get("message"), str) and result["message"].strip():
            parts.append((step.index, result["message"].strip()))
    # The notification, not the call's text: notify_user may rewrite it (an appointment is described
    # from its record), and the notification is what the user read.
    for notification in Notification.objects.filter(user=user, data__conversation=conversation.pk):
        step = notification.data.get("step")
        if isinstance(step, int) and step >= since and notification.body.strip():
            parts.append((step, notification.body.strip()))
    question = pending_question(conversation)
    text = [part for _, part in sorted(parts, key=lambda part: part[0])]
    if question:
        text.append(question.strip())
    return "\n".join(text)


def _medicine_names(name: str) -> set[str]:
    """The names ``name`` goes by: itself (without a strength) and, when the medicines lexicon
    knows it, the lexicon's name and generic name."""
    bare = " ".join(split_strength(name)[0].lower().split())
    known = known_medicine(bare)
    names = {bare}
    if known is not None:
        names |= {" ".join(known.name.lower().split()), " ".join(known.generic.lower().split())}
    return names


def reminder_matches(wanted: dict[str, Any], medication: dict[str, Any]) -> bool:
    """Whether a medication (``CaseResult.medications`` row) is the ``expect.reminder`` one."""
    if not _medicine_names(wanted["name"]) & _medicine_names(medication["name"]):
        return False
    if "times_per_day" in wanted and medication["times_per_day"] != wanted["times_per_day"]:
        return False
    if "dose" in wanted:
        said = " ".join((wanted["dose"] or "").lower().split())
        return " ".join(medication["dose"].lower().split()) == said
    return True


def _checks(case: Case, result: CaseResult) -> dict[str, bool]:
    """Each expect key of ``case`` -> whether it held in ``result``."""
    checks: dict[str, bool] = {}
    if case.specializations:
        checks["specializations"] = bool(result.acceptable_specialization)
    if case.booked is not None:
        checks["booked"] = result.booked == case.booked
    expect = case.expect
    if "cancelled" in expect:
        checks["cancelled"] = result.cancelled == expect["cancelled"]
    if "rescheduled" in expect:
        checks["rescheduled"] = result.rescheduled == expect["rescheduled"]
    if "taken" in expect:
        checks["taken"] = result.taken == expect["taken"]
    if "reminder" in expect:
        checks["reminder"] = any(reminder_matches(expect["reminder"], made) for made in result.medications)
    if "sos" in expect:
        checks["sos"] = result.sos == expect["sos"]
    if "stored_symptoms" in expect:
        checks["stored_symptoms"] = bool(result.symptoms) == expect["stored_symptoms"]
    if "reply_mentions" in expect:
        reply = (result.reply or "").lower()
        checks["reply_mentions"] = all(mention.lower() in reply for mention in expect["reply_mentions"])
    if "refused" in expect:
        checks["refused"] = result.refused == expect["refused"]
    return checks


def _outcome(case: Case, user, conversation: Conversation, result: CaseResult, baseline: Baseline, since: int) -> None:
    conversation.refresh_from_db()
    result.status, result.error = conversation.status, conversation.error
    steps = list(conversation.steps.all())
    result.steps = len(steps)
    result.model_calls = sum(1 for step in steps if step.latency_ms is not None)
    result.model_ms = sum(step.latency_ms or 0 for step in steps)
    result.searched = _searched(conversation)
    appointments = (
        Appointment.objects.filter(user=user, state__in=Appointment.HOLDING_STATES)
        .exclude(pk__in=baseline.appointment_slots)
        .select_related("specialist__specialization", "slot")
        .order_by("created_at")
    )
    result.appointments = [_appointment_row(appointment) for appointment in appointments]
    result.booked = bool(result.appointments)
    if result.booked:
        result.specialization = result.appointments[-1]["specialization"]
    elif result.searched:
        result.specialization = result.searched[-1]
    symptoms = SymptomRecord.objects.filter(user=user).exclude(pk__in=baseline.symptoms).order_by("pk")
    result.symptoms = [list(record.symptoms) for record in symptoms]
    result.outbox = [
        {"recipient_kind": message.recipient_kind, "status": message.status}
        for message in OutboundMessage.objects.filter(user=user).exclude(pk__in=baseline.outbox).order_by("pk")
    ]
    result.cancelled = Appointment.objects.filter(user=user, state=Appointment.State.CANCELLED).count()
    result.taken = DoseEvent.objects.filter(user=user, state=DoseEvent.State.TAKEN).count()
    now_slots = dict(Appointment.objects.filter(pk__in=baseline.appointment_slots).values_list("pk", "slot_id"))
    result.rescheduled = any(now_slots.get(pk) != slot for pk, slot in baseline.appointment_slots.items())
    result.medications = [
        {"name": medication.name, "dose": medication.dose, "times_per_day": medication.times_per_day}
        for medication in Medication.objects.filter(user=user).exclude(pk__in=baseline.medications).order_by("pk")
    ]
    result.sos = Alert.objects.filter(user=user, kind=Alert.Kind.HARD).exclude(pk__in=baseline.alerts).exists()
    result.refused = not (result.booked or result.symptoms or result.outbox or result.medications or result.sos)
    if not case.private:
        result.reply = final_reply(conversation, user, since)
    result.expected_specializations = sorted({normalise_specialization(name) for name in case.specializations})
    if case.specializations:
        result.acceptable_specialization = result.specialization in result.expected_specializations
    result.checks = _checks(case, result)
    result.passed = all(result.checks.values())


def run_case(case: Case, backend: ModelBackend) -> CaseResult:
    """One conversation with the simulated user, in a savepoint that is rolled back."""
    result = CaseResult(
        id=case.id,
        label=case.label,
        category=case.category,
        expected_booked=case.booked,
        message=None if case.private else case.message,
    )
    try:
        with transaction.atomic():
            now = timezone.now()
            user = scenario_user(setup_zone(case, now))
            try:
                result.setup = make_setup(case, user, now)
            except SetupError as exc:
                result.status, result.error = SETUP_FAILED, str(exc)[:300]
                transaction.set_rollback(True)
                return result
            baseline = Baseline.of(user)
            since = 0  # the step the latest user message starts at (the first message: step 0)
            conversation = start_chat(user, case.message, backend=backend)
            remaining = list(case.answers)
            while conversation.status == Conversation.Status.WAITING_INPUT:
                if len(result.answers) >= MAX_ANSWERS:
                    result.unanswered = True
                    break
                question = pending_question(conversation) or ""
                reply = simulated_reply(question, case, remaining)
                result.answers.append({"question": "" if case.private else question, "answer": reply})
                since = conversation.steps.count()
                conversation = post_user_message(conversation.pk, user, reply, backend=backend)
            _outcome(case, user, conversation, result, baseline, since)
            if not case.private:
                result.trajectory = export_conversation(conversation)
            transaction.set_rollback(True)
    except Exception as exc:  # noqa: BLE001  (one broken case must not end the evaluation)
        result.status = "crashed"
        result.error = f"{type(exc).__name__}: {exc}"[:300]
        result.passed = False
    return result


def _progress(cases: Sequence[Case], enabled: bool) -> Iterable[Case]:
    if not enabled:
        return cases
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return cases
    return tqdm(cases, desc="agent_scenarios", unit="case", file=sys.stderr)


def run_cases(
    cases: Sequence[Case], backend: ModelBackend, *, progress: bool = False, on_result: Callable | None = None
) -> dict[str, Any]:
    """Run every case (nothing persists) and return the report."""
    results: list[CaseResult] = []
    today = timezone.localdate(timezone.now(), ZoneInfo(demo_data.TIMEZONE))
    cases = [in_the_coming_weeks(case, today) for case in cases]
    until = max((day for day in (latest_date(cases), setup_until(cases, today)) if day is not None), default=None)
    with transaction.atomic():
        seeded = ensure_directory(until=until)
        for case in _progress(cases, progress):
            result = run_case(case, backend)
            results.append(result)
            if on_result is not None:
                on_result(result)
        transaction.set_rollback(True)
    return report(results, seeded_directory=seeded)


# --- the report --------------------------------------------------------------------------


def _share(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def _totals(results: Sequence[CaseResult]) -> dict[str, Any]:
    checked = [r.acceptable_specialization for r in results if r.acceptable_specialization is not None]
    return {
        "cases": len(results),
        "passed": sum(r.passed for r in results),
        "pass_rate": _share([r.passed for r in results]),
        "acceptable_specialization_rate": _share([bool(v) for v in checked]),
        "booked": sum(r.booked for r in results),
        "completed": sum(r.status == Conversation.Status.COMPLETED for r in results),
        "failed": sum(r.status == Conversation.Status.FAILED for r in results),
        "crashed": sum(r.status == "crashed" for r in results),
        "setup_failed": sum(r.status == SETUP_FAILED for r in results),
        "mean_steps": sum(r.steps for r in results) / len(results) if results else None,
        "model_ms": sum(r.model_ms for r in results),
        # expect key -> how many cases gave it, and in how many it held.
        "checks": {
            key: {
                "checked": sum(key in r.checks for r in results),
                "held": sum(r.checks.get(key) is True for r in results),
            }
            for key in EXPECT_KEYS
            if any(key in r.checks for r in results)
        },
    }


UNCATEGORISED = "(none)"


def report(results: Sequence[CaseResult], *, seeded_directory: bool = False) -> dict[str, Any]:
    by_label: dict[str, list[CaseResult]] = defaultdict(list)
    by_category: dict[str, list[CaseResult]] = defaultdict(list)
    for result in results:
        if result.label:
            by_label[result.label].append(result)
    if any(result.category for result in results):
        for result in results:
            by_category[result.category or UNCATEGORISED].append(result)
    return {
        "totals": _totals(results),
        "per_disease": {label: _totals(items) for label, items in sorted(by_label.items())},
        "per_category": {category: _totals(items) for category, items in sorted(by_category.items())},
        "seeded_directory": seeded_directory,
        "cases": [result.to_dict() for result in results],
    }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _failed_checks(checks: dict[str, bool]) -> str:
    return ", ".join(key for key, held in checks.items() if not held) or "-"


def _check_counts(checks: dict[str, dict[str, int]]) -> str:
    """ "refused 2/3, sos 1/1": per expect key, the cases it held in of those that gave it."""
    return ", ".join(f"{key} {count['held']}/{count['checked']}" for key, count in checks.items()) or "-"


def render_report(data: dict[str, Any]) -> str:
    rows = [
        [
            "case",
            "expected",
            "specialization",
            "booked (expected)",
            "status",
            "steps",
            "model s",
            "failed checks",
            "pass",
        ]
    ]
    for case in data["cases"]:
        expected_booked = "-" if case["expected_booked"] is None else ("yes" if case["expected_booked"] else "no")
        rows.append(
            [
                case["id"] + (f" ({case['label']})" if case["label"] else ""),
                ", ".join(case["expected_specializations"]) or "-",
                case["specialization"] or "-",
                f"{'yes' if case['booked'] else 'no'} ({expected_booked})",
                case["status"],
                str(case["steps"]),
                f"{case['model_ms'] / 1000:.1f}",
                _failed_checks(case.get("checks") or {}),
                "PASS" if case["passed"] else "FAIL",
            ]
        )
    parts = [table(rows)]
    if data.get("per_category"):
        category_rows = [["use case", "cases", "pass", "booked", "setup failed", "checks held"]]
        for category, totals in data["per_category"].items():
            category_rows.append(
                [
                    category,
                    str(totals["cases"]),
                    f"{totals['passed']} ({_percent(totals['pass_rate'])})",
                    str(totals["booked"]),
                    str(totals["setup_failed"]),
                    _check_counts(totals["checks"]),
                ]
            )
        parts.append(table(category_rows))
    if data["per_disease"]:
        disease_rows = [["disease", "cases", "acceptable specialization", "booked", "pass"]]
        for label, totals in data["per_disease"].items():
            disease_rows.append(
                [
                    label,
                    str(totals["cases"]),
                    _percent(totals["acceptable_specialization_rate"]),
                    str(totals["booked"]),
                    _percent(totals["pass_rate"]),
                ]
            )
        parts.append(table(disease_rows))
    totals = data["totals"]
    parts.append(
        f"Cases: {totals['cases']}, passed {totals['passed']} ({_percent(totals['pass_rate'])}); "
        f"acceptable specialization {_percent(totals['acceptable_specialization_rate'])}; "
        f"booked {totals['booked']}; completed {totals['completed']}, failed {totals['failed']}, "
        f"crashed {totals['crashed']}, setup failed {totals['setup_failed']}; "
        f"model time {totals['model_ms'] / 1000:.1f} s."
    )
    if totals["checks"]:
        parts.append(f"Checks held: {_check_counts(totals['checks'])}.")
    errors = Counter(case["error"] for case in data["cases"] if case["error"])
    if errors:
        parts.append(
            "Most frequent errors:\n" + "\n".join(f"- {count} x {error}" for error, count in errors.most_common(3))
        )
    return "\n\n".join(parts)
