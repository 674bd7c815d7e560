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
for input, a question that proposes an appointment (:func:`proposes_appointment`)
gets "Yes, please book it." or "No, thank you." per ``accept_appointment``;
any other question gets the case's next answer, then "No, nothing else.". At
most :data:`MAX_ANSWERS` answers are given.

Scoring: the specialization of a case is the booked appointment's, if one was
booked, else that of the last ``get_available_specialists`` call (the
assistant's final choice): the specialization of the specialist it found (a
call without ``specialization`` searches the conversation's triage result),
else the one it named. Names are normalised through the
directory (:func:`agents.tools.appointments.resolve_specialization`: synonyms,
plurals, case), both the searched and the expected ones. A case passes when
that specialization is one of ``expect.specializations`` (when given) and
whether something was booked equals ``expect.booked`` (when given).

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
from agents.trajectory import export_conversation
from health import demo_data
from health.management import demo
from health.models import Appointment, OutboundMessage, PatientProfile, Slot, Specialist, SymptomRecord

MAX_ANSWERS = 6
ACCEPT = "Yes, please book it."
DECLINE = "No, thank you."
NOTHING_ELSE = "No, nothing else."
S2D_ANSWERS = ("I don't know.", "No other symptoms.")
S2D_CSV = "symptom2disease.csv"
S2D_SPECIALISTS = "symptom2disease_specialists.json"
SEARCH_TOOL = "get_available_specialists"
MATCH_TOOL = "match_specialization"

_PROPOSAL_WORDS = re.compile(
    r"\b(book|books|booked|booking|appointments?|schedul(?:e|ed|ing)|reserve|shall i)\b", re.IGNORECASE
)
_DOCTOR_NAME = re.compile(r"\b(?:Dr\.?|Doctor)\s+[A-Z][\w'-]+")


class CaseError(ValueError):
    """A cases file (or the Symptom2Disease files) is missing or malformed."""


@dataclass(frozen=True)
class Case:
    id: str
    message: str
    answers: tuple[str, ...] = ()
    accept_appointment: bool = False
    specializations: tuple[str, ...] = ()  # acceptable; empty: not checked
    booked: bool | None = None  # None: not checked
    label: str = ""  # the disease, for Symptom2Disease cases
    private: bool = False  # external evaluation text: never echoed in reports
    category: str = ""  # generated cases: the use case (general, counter, negative, dietician)
    unseen: bool = False  # generated cases: disease and phrasing held out of training


@dataclass
class CaseResult:
    id: str
    label: str = ""
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


def simulated_reply(question: str, case: Case, remaining: list[str]) -> str:
    """The simulated user's answer to ``question`` (consumes ``remaining`` answers)."""
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
    booked = expect.get("booked")
    if booked is not None and not isinstance(booked, bool):
        raise CaseError(f"{where}: 'expect.booked' must be true or false.")
    accept = data.get("accept_appointment", False)
    if not isinstance(accept, bool):
        raise CaseError(f"{where}: 'accept_appointment' must be true or false.")
    category, unseen = data.get("category", ""), data.get("unseen", False)
    if not isinstance(category, str) or not isinstance(unseen, bool):
        raise CaseError(f"{where}: 'category' must be a string and 'unseen' true or false.")
    return Case(
        id=str(data.get("id") or f"line-{line}"),
        message=message,
        answers=_strings(data.get("answers", []), where, "answers"),
        accept_appointment=accept,
        specializations=_strings(expect.get("specializations", []), where, "expect.specializations"),
        booked=booked,
        category=category,
        unseen=unseen,
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


def scenario_user():
    """A fresh patient for one case, with the demo patient's time zone and home."""
    user = get_user_model().objects.create_user(
        username=f"scenario-{uuid.uuid4().hex[:12]}", first_name="Sam", last_name="Scenario"
    )
    profile, _ = PatientProfile.objects.get_or_create(user=user)
    profile.timezone = demo_data.TIMEZONE
    profile.home_latitude = demo_data.DEMO_PROFILE["home_latitude"]
    profile.home_longitude = demo_data.DEMO_PROFILE["home_longitude"]
    profile.save()
    return user


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


def _outcome(case: Case, user, conversation: Conversation, result: CaseResult) -> None:
    conversation.refresh_from_db()
    result.status, result.error = conversation.status, conversation.error
    steps = list(conversation.steps.all())
    result.steps = len(steps)
    result.model_calls = sum(1 for step in steps if step.latency_ms is not None)
    result.model_ms = sum(step.latency_ms or 0 for step in steps)
    result.searched = _searched(conversation)
    appointments = (
        Appointment.objects.filter(user=user, state__in=Appointment.HOLDING_STATES)
        .select_related("specialist__specialization", "slot")
        .order_by("created_at")
    )
    result.appointments = [
        {
            "specialist": appointment.specialist.name,
            "specialization": appointment.specialist.specialization.name.lower(),
            "starts_at": appointment.slot.starts_at.isoformat(),
            "state": appointment.state,
        }
        for appointment in appointments
    ]
    result.booked = bool(result.appointments)
    if result.booked:
        result.specialization = result.appointments[-1]["specialization"]
    elif result.searched:
        result.specialization = result.searched[-1]
    result.symptoms = [list(record.symptoms) for record in SymptomRecord.objects.filter(user=user).order_by("pk")]
    result.outbox = [
        {"recipient_kind": message.recipient_kind, "status": message.status}
        for message in OutboundMessage.objects.filter(user=user).order_by("pk")
    ]
    result.expected_specializations = sorted({normalise_specialization(name) for name in case.specializations})
    if case.specializations:
        result.acceptable_specialization = result.specialization in result.expected_specializations
    result.passed = result.acceptable_specialization is not False and (
        case.booked is None or result.booked == case.booked
    )


def run_case(case: Case, backend: ModelBackend) -> CaseResult:
    """One conversation with the simulated user, in a savepoint that is rolled back."""
    result = CaseResult(
        id=case.id, label=case.label, expected_booked=case.booked, message=None if case.private else case.message
    )
    try:
        with transaction.atomic():
            user = scenario_user()
            conversation = start_chat(user, case.message, backend=backend)
            remaining = list(case.answers)
            while conversation.status == Conversation.Status.WAITING_INPUT:
                if len(result.answers) >= MAX_ANSWERS:
                    result.unanswered = True
                    break
                question = pending_question(conversation) or ""
                reply = simulated_reply(question, case, remaining)
                result.answers.append({"question": "" if case.private else question, "answer": reply})
                conversation = post_user_message(conversation.pk, user, reply, backend=backend)
            _outcome(case, user, conversation, result)
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
    with transaction.atomic():
        seeded = ensure_directory(until=latest_date(cases))
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
        "mean_steps": sum(r.steps for r in results) / len(results) if results else None,
        "model_ms": sum(r.model_ms for r in results),
    }


def report(results: Sequence[CaseResult], *, seeded_directory: bool = False) -> dict[str, Any]:
    by_label: dict[str, list[CaseResult]] = defaultdict(list)
    for result in results:
        if result.label:
            by_label[result.label].append(result)
    return {
        "totals": _totals(results),
        "per_disease": {label: _totals(items) for label, items in sorted(by_label.items())},
        "seeded_directory": seeded_directory,
        "cases": [result.to_dict() for result in results],
    }


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def render_report(data: dict[str, Any]) -> str:
    rows = [["case", "expected", "specialization", "booked (expected)", "status", "steps", "model s", "pass"]]
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
                "PASS" if case["passed"] else "FAIL",
            ]
        )
    parts = [table(rows)]
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
        f"crashed {totals['crashed']}; model time {totals['model_ms'] / 1000:.1f} s."
    )
    errors = Counter(case["error"] for case in data["cases"] if case["error"])
    if errors:
        parts.append(
            "Most frequent errors:\n" + "\n".join(f"- {count} x {error}" for error, count in errors.most_common(3))
        )
    return "\n\n".join(parts)
