"""The first step alone: what the chat runtime's deterministic guards decide before the model runs.

Each generated request (agentlab.data.requests) goes through the guards in the runtime's order,
and the first that acts decides:

1. ``help_now``: agents.help_now.emergency finds an emergency (the hard SOS starts);
2. ``other_language``: agents.language.understood says it is not English (the English-only reply);
3. ``out_of_scope``: agents.scope.out_of_scope refuses it (prescribe, diagnose, off topic);
   ``courtesy``: agents.courtesy answers a greeting, a thanks or "what can you do?" said alone;
4. ``appointments_list`` / ``_cancel`` / ``_reschedule``: the appointments desk
   (agents.appointment_desk.read) answers it;
5. ``my_health``: the health desk (agents.health_desk.read: "how was my day?", "how did I sleep?")
   answers it from the readings;
6. ``medicines_today`` / ``_taken`` / ``_photo``: the medicines desk (agents.medicine_desk.read:
   today's doses, a dose just taken, where to upload a prescription photo) answers it;
7. ``model``: none did, so the language model gets it.

A desk whose module does not exist (or does not import) never answers. Scored per split as a
confusion matrix (rows: use case, columns: decision) and the share of each use case decided as it
should be (booking and setting a medicine reminder belong to the model). Misread texts are kept for
the dev split only: the test split's texts never leave this module.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from agentlab.data.requests import USE_CASES, Request
from agents import courtesy, first_step, help_now, language, scope
from health.management import demo
from health.models import Specialization

HELP_NOW = "help_now"
OTHER_LANGUAGE = "other_language"
OUT_OF_SCOPE = "out_of_scope"
COURTESY = "courtesy"
MODEL = "model"
MY_HEALTH = "my_health"
BOOKING = "booking"  # the booking desk: a named kind of specialist, no complaint
DESK_KINDS = ("list", "cancel", "reschedule")
# The medicines desk's kinds (agents.medicine_desk.read) -> the decision, named as its use case.
MEDICINE_KINDS = {
    "doses_today": "medicines_today",
    "dose_taken": "medicines_taken",
    "photo": "medicines_photo",
    "reminder": "medicines_reminder",
}
DECISIONS = (
    HELP_NOW,
    OTHER_LANGUAGE,
    OUT_OF_SCOPE,
    COURTESY,
    *(f"appointments_{kind}" for kind in DESK_KINDS),
    MY_HEALTH,
    *MEDICINE_KINDS.values(),
    BOOKING,
    MODEL,
)
EXPECTED = {
    "help_now": HELP_NOW,
    "out_of_scope": OUT_OF_SCOPE,
    "appointments_list": "appointments_list",
    "appointments_cancel": "appointments_cancel",
    "appointments_reschedule": "appointments_reschedule",
    "book_symptoms": MODEL,
    "book_constraint": BOOKING,
    "medicines_reminder": MODEL,  # or the medicines desk, for one known medicine and a schedule (ALSO_RIGHT)
    "medicines_today": "medicines_today",
    "medicines_taken": "medicines_taken",
    "medicines_photo": "medicines_photo",
    "my_health": MY_HEALTH,
}
# Use cases that a desk or the model may take equally well: the desk proposes a new reminder for one
# medicine the lexicon knows with the schedule the user said; every other reminder request is the model's.
ALSO_RIGHT = {"medicines_reminder": frozenset({"medicines_reminder"})}


def is_right(use_case: str, decision: str) -> bool:
    return decision == EXPECTED[use_case] or decision in ALSO_RIGHT.get(use_case, ())


# Decisions that take a request away from the model's care: a false one blocks a patient.
REFUSALS = frozenset({OTHER_LANGUAGE, OUT_OF_SCOPE, COURTESY})

Decider = Callable[[str], str]


def desk_reader() -> Callable[[str], object] | None:
    """agents.appointment_desk.read, or None while there is no desk (the model gets everything)."""
    try:
        from agents.appointment_desk import read
    except ImportError:
        return None
    return read


def health_reader() -> Callable[[str], object] | None:
    """agents.health_desk.read, or None while there is no health desk."""
    try:
        from agents.health_desk import read
    except ImportError:
        return None
    return read


def medicine_reader() -> Callable[[str], object] | None:
    """agents.medicine_desk.read, or None while there is no medicines desk (imported when asked: the
    first step is measured with or without it)."""
    try:
        from agents.medicine_desk import read
    except ImportError:
        return None
    return read


def readers() -> dict[str, bool]:
    """Which desks exist ({"appointments", "health", "medicines", "booking"} -> bool), for the report."""
    return {
        "appointments": desk_reader() is not None,
        "health": health_reader() is not None,
        "medicines": medicine_reader() is not None,
        "booking": True,  # agents.booking_desk, imported by decide()
    }


@contextmanager
def directory() -> Iterator[None]:
    """A transaction, rolled back at the end, in which the specializations directory exists: the
    desk reads the specializations (and their synonyms) a request names from the database. An empty
    database gets the demo directory, without slots; one that has a directory is read as it is.
    Without a desk nothing reads the database, and it is not opened."""
    if desk_reader() is None:
        yield
        return
    with transaction.atomic():
        if not Specialization.objects.exists():
            demo.seed_directory(demo.SeedResult(), now=timezone.now(), days=0)
        yield
        transaction.set_rollback(True)


def decide(message: str) -> str:
    """The deterministic layer's decision for a new chat request, in the runtime's order."""
    if help_now.emergency(message) is not None:
        return HELP_NOW
    if not language.understood(message):
        return OTHER_LANGUAGE
    if scope.out_of_scope(message) is not None:
        return OUT_OF_SCOPE
    if courtesy.courtesy(message) is not None:
        return COURTESY
    read = desk_reader()
    found = read(message) if read is not None else None
    if found is not None:
        return f"appointments_{found.kind}"
    read = health_reader()
    if read is not None and read(message) is not None:
        return MY_HEALTH
    read = medicine_reader()
    found = read(message) if read is not None else None
    if found is not None:
        return MEDICINE_KINDS.get(found.kind, f"medicines_{found.kind}")
    from agents.booking_desk import read as booking

    if booking(message) is not None:
        return BOOKING
    # The learned second opinion, asked when no rule read the request (agents/first_step.py); its use
    # case names are the decisions' names.
    return first_step.route(message) or MODEL


@dataclass(frozen=True)
class Misread:
    use_case: str
    decision: str
    family: str
    text: str


@dataclass
class SplitScore:
    split: str
    matrix: dict[str, dict[str, int]] = field(default_factory=dict)  # use case -> decision -> count
    misreads: list[Misread] = field(default_factory=list)  # dev only
    seconds: float = 0.0

    def add(self, request: Request, decision: str) -> None:
        row = self.matrix.setdefault(request.use_case, {})
        row[decision] = row.get(decision, 0) + 1
        if not is_right(request.use_case, decision) and self.split == "dev":
            self.misreads.append(Misread(request.use_case, decision, request.family, request.text))

    def cases(self, use_case: str | None = None) -> int:
        rows = [self.matrix.get(use_case, {})] if use_case else list(self.matrix.values())
        return sum(sum(row.values()) for row in rows)

    def right(self, use_case: str | None = None) -> int:
        names = [use_case] if use_case else list(self.matrix)
        return sum(
            count for name in names for decision, count in self.matrix.get(name, {}).items() if is_right(name, decision)
        )

    def accuracy(self, use_case: str | None = None) -> float:
        cases = self.cases(use_case)
        return self.right(use_case) / cases if cases else 0.0

    def decided(self, decisions: Iterable[str], *, outside: str | None = None) -> int:
        """Requests decided as one of ``decisions``, of use cases other than ``outside``."""
        wanted = set(decisions)
        return sum(
            count
            for name, row in self.matrix.items()
            if name != outside
            for decision, count in row.items()
            if decision in wanted
        )

    @property
    def false_sos(self) -> int:
        """Requests of another use case that would start the hard SOS."""
        return self.decided([HELP_NOW], outside="help_now")

    @property
    def refused_care(self) -> int:
        """Requests of the assistant's own use cases that a guard would refuse or answer without acting
        (scope, language, courtesy)."""
        return self.decided(REFUSALS, outside="out_of_scope")

    def columns(self) -> list[str]:
        """The decisions in their order, with any other a desk returned after them."""
        seen = {decision for row in self.matrix.values() for decision in row}
        return [*DECISIONS, *sorted(seen - set(DECISIONS))]

    def as_dict(self) -> dict:
        return {
            "cases": self.cases(),
            "right": self.right(),
            "accuracy": round(self.accuracy(), 4),
            "false_sos": self.false_sos,
            "refused_care": self.refused_care,
            "seconds": round(self.seconds, 1),
            "use_cases": {
                name: {
                    "expected": EXPECTED[name],
                    "cases": self.cases(name),
                    "right": self.right(name),
                    "decisions": dict(sorted(self.matrix[name].items())),
                }
                for name in USE_CASES
                if name in self.matrix
            },
        }


def evaluate(requests: Iterable[Request], decider: Decider = decide) -> dict[str, SplitScore]:
    """The decisions on ``requests``, scored per split (in the order the splits first appear)."""
    scores: dict[str, SplitScore] = {}
    for request in requests:
        score = scores.setdefault(request.split, SplitScore(request.split))
        started = time.perf_counter()
        decision = decider(request.text)
        score.seconds += time.perf_counter() - started
        score.add(request, decision)
    return scores
