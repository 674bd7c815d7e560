"""Synthetic trajectories through the real runtime (seed paper §6.1-6.3).

Each conversation runs in the live :class:`~agents.runtime.Runtime` with a
*policy* in place of the model: a flow (agentlab.data.flows) that answers every
planner and caller turn from the observations the real tools returned, in a
generated environment (agentlab.data.environment). So tools, schema validation,
suspension for questions and the SOS guard are exactly those of production.

Verification (§6.3): the exported trajectory is then replayed through
:func:`agentlab.replay.replay` on the same environment; a trajectory that
does not reproduce its observations is dropped and counted. Everything runs
inside transactions that are rolled back: nothing is left in the database.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from agentlab.data import environment as env
from agentlab.data import flows, phrasing
from agentlab.data.bank import DISEASES, SPECIALIZATIONS, Disease
from agentlab.replay import replay
from agents import medicine_desk
from agents.llm.base import Generation, ModelBackend
from agents.models import Conversation
from agents.runtime import Runtime, link_alert, system_value
from agents.sos.flows import SOS_REQUESTS
from agents.sos.guard import SEQUENCES
from agents.tools import REGISTRY
from agents.trajectory import export_conversation, render_caller, render_planner, title_from
from core import realtime

KINDS = {
    "soft_sos": Conversation.Kind.SOFT_SOS,
    "hard_sos_start": Conversation.Kind.HARD_SOS_START,
    "hard_sos_end": Conversation.Kind.HARD_SOS_END,
}
# The training mixture (Table 1 "Combined"): appointment cases first.
TRAIN_WEIGHTS = {
    "general": 0.30,
    "counter": 0.15,
    "negative": 0.12,
    "dietician": 0.10,
    "soft_sos": 0.07,
    "hard_sos_start": 0.08,
    "hard_sos_end": 0.08,
    "reminder": 0.10,
}


class PolicyBackend(ModelBackend):
    """A flow in the model's place: planner text from the flow's next move, caller text from its call."""

    name = "policy"

    def __init__(self, flow: flows.Flow) -> None:
        self.flow = flow
        self.runtime: Runtime | None = None
        self.move: flows.Move | None = None
        self.started = False
        self.answers: list[str] = []
        self.dropped: str = ""

    def generate(self, role, messages, stop=(), *, timeout=None, tools=None) -> Generation:
        if role == "planner":
            try:
                if not self.started:
                    self.started = True
                    self.move = next(self.flow)
                else:
                    last = self.runtime.states[-1]
                    self.move = self.flow.send(last["value"] if last["from"] == "observation" else None)
            except flows.Drop as exc:
                self.dropped = str(exc) or "dropped"
                raise
            except StopIteration:
                self.dropped = "the flow ended without <END>"
                raise flows.Drop(self.dropped) from None
            if self.move.answer is not None:
                self.answers.append(self.move.answer)
            text = render_planner({"reason": self.move.reason, "action": self.move.action})
        else:
            text = render_caller(self.move.call, REGISTRY)
        return Generation(text=text, prompt_tokens=0, completion_tokens=0, latency_ms=0)


class PolicyRuntime(Runtime):
    """The runtime with the policy called in this thread (it reads the generation's open transaction)."""

    def _generate(self, role):
        return self.backend.generate(role, [])


@dataclass
class Spec:
    """What one conversation is about: its category, disease, complaint and split."""

    category: str
    split: str  # "train" or "test"
    unseen: bool = False
    disease: Disease | None = None
    seed: int = 0


@dataclass
class Sample:
    conversation: str
    category: str
    split: str
    unseen: bool
    trajectory: list[dict[str, Any]]
    disease: str = ""
    template: str = ""


@dataclass
class Report:
    generated: Counter = field(default_factory=Counter)
    dropped: Counter = field(default_factory=Counter)
    reasons: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        return {
            "generated": dict(self.generated),
            "dropped": dict(self.dropped),
            "drop_reasons": dict(self.reasons.most_common(20)),
            "kept": sum(self.generated.values()),
            "dropped_total": sum(self.dropped.values()),
        }


@dataclass(frozen=True)
class Holdout:
    """Diseases and phrasing templates only the unseen test conversations use."""

    diseases: frozenset[str]
    templates: frozenset[str]

    @classmethod
    def choose(cls, seed: int, share: float = 0.15) -> Holdout:
        rng = random.Random(f"holdout-{seed}")
        held: set[str] = set()
        for specialization in SPECIALIZATIONS:
            names = sorted(d.name for d in DISEASES if d.specialization == specialization)
            # Every specialization keeps at least two training diseases.
            count = min(max(1, round(len(names) * share)), max(0, len(names) - 2))
            held.update(rng.sample(names, count))
        templates = sorted(phrasing.TEMPLATE_IDS)
        held_templates = frozenset(rng.sample(templates, max(1, len(templates) // 6)))
        return cls(frozenset(held), held_templates)

    def train_templates(self) -> list[str]:
        return [t for t in phrasing.TEMPLATE_IDS if t not in self.templates]


def _diseases(holdout: Holdout, *, unseen: bool, dietician: bool) -> list[Disease]:
    return [
        d for d in DISEASES if (d.name in holdout.diseases) == unseen and (d.specialization == "dietician") == dietician
    ]


def parse_mix(text: str) -> dict[str, float]:
    """The training mixture: TRAIN_WEIGHTS with ``"counter=0.3,reminder=0.05"``'s overrides."""
    mix = dict(TRAIN_WEIGHTS)
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or name.strip() not in TRAIN_WEIGHTS:
            raise ValueError(f"{item!r} is not CATEGORY=WEIGHT with a category of {', '.join(TRAIN_WEIGHTS)}.")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not 0 <= weight < float("inf"):
            raise ValueError(f"{item!r}: the weight must be a number >= 0.")
        mix[name.strip()] = weight
    if not sum(mix.values()):
        raise ValueError("the mixture gives every category weight 0.")
    return mix


def plan_specs(
    seed: int,
    *,
    train: int,
    test_per_category: int,
    unseen_share: float = 0.5,
    holdout: Holdout,
    mix: dict[str, float] | None = None,
) -> Iterator[Spec]:
    """Deterministic list of conversations to generate: train by ``mix`` (relative weights, default
    TRAIN_WEIGHTS), test per category."""
    rng = random.Random(f"plan-{seed}")
    mix = mix or TRAIN_WEIGHTS
    categories = list(TRAIN_WEIGHTS)
    weights = [mix[c] for c in categories]
    for _ in range(train):
        category = rng.choices(categories, weights)[0]
        yield Spec(category, "train", False, _pick_disease(rng, category, holdout, False), seed=rng.getrandbits(32))
    for category in flows.CATEGORIES:
        for index in range(test_per_category):
            unseen = category in flows.APPOINTMENT_CATEGORIES and index < round(test_per_category * unseen_share)
            yield Spec(
                category, "test", unseen, _pick_disease(rng, category, holdout, unseen), seed=rng.getrandbits(32)
            )


def _pick_disease(rng: random.Random, category: str, holdout: Holdout, unseen: bool) -> Disease | None:
    if category not in flows.APPOINTMENT_CATEGORIES:
        return None
    pool = _diseases(holdout, unseen=unseen, dietician=category == "dietician")
    if category != "dietician":
        # Balance specializations: pick one, then a disease of it.
        specialization = rng.choice(sorted({d.specialization for d in pool}))
        pool = [d for d in pool if d.specialization == specialization]
    return rng.choice(pool)


# --- one conversation ------------------------------------------------------------------------


def _schedule(rng: random.Random, patient: env.Patient) -> tuple[dict[str, str], str]:
    day = patient.now.astimezone(patient.tz).date() + dt.timedelta(days=rng.randrange(2, 12))
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    start, stop = rng.choice((("09:00", "17:00"), ("08:00", "18:00"), ("10:00", "16:00")))
    text = rng.choice(
        (
            " I can only make it on {d} between {a} and {b}.",
            " I'm free on {d}, {a}-{b}.",
            " Could it be on {d} sometime between {a} and {b}?",
        )
    ).format(d=f"{day:%Y-%m-%d}", a=start, b=stop)
    return {"date": f"{day:%Y-%m-%d}", "time_range": f"{start}-{stop}"}, text


def _request(spec: Spec, rng: random.Random, patient: env.Patient, context: flows.FlowContext, holdout: Holdout):
    """The user's first message and the flow for ``spec``."""
    category = spec.category
    typo_rate = rng.choice((0.0, 0.0, 0.0, 0.03, 0.08))
    context.extra["typo_rate"] = typo_rate
    templates = sorted(holdout.templates) if spec.unseen else holdout.train_templates()
    if category in flows.APPOINTMENT_CATEGORIES:
        disease = spec.disease
        context.disease = disease
        if category == "counter":
            complaint = phrasing.vague_complaint(rng, disease)
            flow = flows.counter(context, accept=rng.random() < 0.7)
        else:
            complaint = phrasing.complaint(rng, disease, templates=templates, typo_rate=typo_rate)
            flow = flows.appointment(context, accept=category != "negative")
        context.complaint = complaint
        text = complaint.text
        if category in ("general", "dietician") and rng.random() < 0.15:
            schedule, suffix = _schedule(rng, patient)
            context.extra["schedule"] = schedule
            text += suffix
        past = []
        for _ in range(rng.choice((0, 0, 1, 1, 2))):
            other = rng.choice(DISEASES) if rng.random() < 0.5 else disease
            old = phrasing.complaint(rng, other, n_symptoms=2, templates=templates)
            past.append((", ".join(old.symptoms), list(old.symptoms)))
        env.add_past_complaints(rng, patient, past)
        return text, flow, complaint.template, None
    if category == "reminder":
        text, calls = flows.prescription(rng)
        for _ in range(8):
            # A request the medicines desk takes (one known medicine with its schedule) never reaches
            # the model: the model's data is the rest (several medicines, the way a prescription reads).
            if medicine_desk.read(text) is None:
                break
            text, calls = flows.prescription(rng)
        context.extra["reminders"] = calls
        return text, flows.reminder(context), "", None
    # SOS: the guard's own sequence, started the way the Health Manager starts it.
    if category == "soft_sos":
        alert = env.soft_alert(rng, patient)
    elif category == "hard_sos_start":
        alert = env.hard_alert(patient)
    else:
        alert = env.dispatched_alert(rng, patient)
    kind = KINDS[category]
    context.extra["category"] = category
    text = SOS_REQUESTS[kind][1](alert)
    holder: dict[str, Runtime] = {}
    flow = flows.sos(context, sequence=SEQUENCES[kind], runtime_ref=lambda: holder["runtime"])
    context.extra["runtime_holder"] = holder
    return text, flow, "", alert


def _drive(patient, kind, alert, text, flow, holder) -> tuple[list[dict[str, Any]], str]:
    """Run the policy through the runtime; return (trajectory, drop reason or "")."""
    conversation = Conversation.objects.create(user=patient.user, kind=kind, title=title_from(text))
    if alert is not None:
        link_alert(alert, conversation)
    backend = PolicyBackend(flow)
    clock = lambda: patient.now  # noqa: E731

    def runtime() -> PolicyRuntime:
        current = PolicyRuntime(conversation, backend, clock=clock)
        backend.runtime = current
        if holder is not None:
            holder["runtime"] = current
        return current

    current = runtime()
    current.begin(text)
    current.run()
    for _ in range(8):
        conversation.refresh_from_db()
        if conversation.status != Conversation.Status.WAITING_INPUT or not backend.answers:
            break
        current = runtime()
        current.add_user_message(backend.answers.pop(0))
        current.run()
    conversation.refresh_from_db()
    if backend.dropped:
        return [], backend.dropped
    if conversation.status != Conversation.Status.COMPLETED:
        return [], f"ended {conversation.status}: {conversation.error}"[:120]
    if alert is not None and alert.__class__.objects.filter(pk=alert.pk, guard_acted=True).exists():
        return [], "the SOS guard acted"
    return export_conversation(conversation), ""


def generate_one(spec: Spec, directory: env.Directory, holdout: Holdout) -> tuple[Sample | None, str]:
    """One conversation: build its patient, run the flow, replay it; everything rolled back."""
    with realtime.muted():  # no browser shows a generated conversation: push no agent-log events
        return _generate_one(spec, directory, holdout)


def _generate_one(spec: Spec, directory: env.Directory, holdout: Holdout) -> tuple[Sample | None, str]:
    rng = random.Random(spec.seed)
    # A conversation draws its own ids (not the directory's): a shard gives the same rows as one process.
    with transaction.atomic():
        patient = env.make_patient(rng, env.Ids(random.Random(f"ids-{spec.seed}")), directory)
        details = system_value(patient.user, patient.now)["user_details"]
        context = flows.FlowContext(rng=rng, user_ref=details["user_id"], timestamp=details["timestamp"])
        text, flow, template, alert = _request(spec, rng, patient, context, holdout)
        kind = KINDS.get(spec.category, Conversation.Kind.CHAT)
        holder = context.extra.get("runtime_holder")
        savepoint = transaction.savepoint()
        trajectory, problem = _drive(patient, kind, alert, text, flow, holder)
        transaction.savepoint_rollback(savepoint)
        if not problem:
            # §6.3: the recording must reproduce on the same world, through the real registry.
            report = replay(trajectory, patient.user, kind=kind, alert=alert, clock=lambda: patient.now)
            if not report.ok:
                problem = "replay: " + (report.problems[0] if report.problems else "observations differ")
        transaction.set_rollback(True)
    if problem:
        return None, problem
    return (
        Sample(
            conversation=f"c{spec.seed:010d}",
            category=spec.category,
            split=spec.split,
            unseen=spec.unseen,
            trajectory=trajectory,
            disease=spec.disease.name if spec.disease else "",
            template=template,
        ),
        "",
    )


# The generated world's calendar: a window starting on a day of these years, chosen by the seed
# (the tools run on the world's clock, so the data never depends on when it was generated).
CALENDAR_START = dt.datetime(2025, 1, 6, tzinfo=dt.UTC)
CALENDAR_DAYS = 3 * 365


def world_start(seed: int) -> dt.datetime:
    """When the generated world's directory opens: the same for the same seed, on any day."""
    rng = random.Random(f"calendar-{seed}")
    return CALENDAR_START + dt.timedelta(days=rng.randrange(CALENDAR_DAYS), hours=rng.randrange(24))


def generate(
    specs: Sequence[Spec] | Iterator[Spec],
    *,
    seed: int,
    holdout: Holdout,
    report: Report,
    on_progress: Callable[[int], None] = lambda n: None,
    directory_days: int = 75,
) -> Iterator[Sample]:
    """Generate every spec in one rolled-back transaction; yield the verified samples as they come."""
    rng = random.Random(f"directory-{seed}")
    ids = env.Ids(rng)
    start = world_start(seed)
    with transaction.atomic():
        directory = env.build_directory(rng, ids, start=start, days=directory_days)
        for spec in specs:
            sample, problem = generate_one(spec, directory, holdout)
            if sample is None:
                report.dropped[spec.category] += 1
                report.reasons[problem[:120]] += 1
            else:
                report.generated[f"{spec.split}/{spec.category}"] += 1
                yield sample
            on_progress(1)
        transaction.set_rollback(True)
