"""The memory items: everything the assistant may use about a user, as short texts with facts.

One item per thing a clinician would look up: the profile, each known condition and allergy, each
past complaint with its outcome (the appointment it led to), each appointment and specialist, each
medication, recent soft and hard SOS alerts, a summary of recent abnormal vitals, and recent daily
reports. Read-only over ``health.models``; the formatting functions are shared with the offline
lab, which builds the same items for generated personas without a database.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from agents.memory.clinical import Link, condition_link, medicine_link

KINDS = ("profile", "condition", "allergy", "complaint", "appointment", "medication", "alert", "vitals", "report")
OUTCOMES = ("", "none", "held", "confirmed", "completed", "cancelled", "active", "stopped", "open", "resolved")
RECENT_DAYS = 365  # alerts and stopped medicines older than this are not memory any more
REPORT_DAYS = 30
VITALS_DAYS = 14


@dataclass(frozen=True)
class MemoryItem:
    key: str  # "<kind>:<id>", unique per user
    kind: str  # one of KINDS
    text: str  # what is searched and what the planner reads
    date: dt.date | None = None  # None: timeless (profile, conditions, allergies)
    specialization: str = ""  # the specialist it concerns, if any
    outcome: str = ""  # one of OUTCOMES
    systems: frozenset[str] = field(default_factory=frozenset)  # body systems known from the tables

    @property
    def content(self) -> str:
        """The text without its frame (kind, date, outcome): what the dense encoder compares."""
        body = self.text.partition(": ")[2] or self.text
        if self.kind == "complaint":
            return body.rpartition("; ")[0] or body
        if self.kind == "appointment":
            return f"{self.specialization}: {self.text.partition('), ')[2].partition(': ')[2]}".strip(": ")
        return body


def _linked(link: Link | None) -> tuple[str, frozenset[str]]:
    return (link.specialization, link.systems) if link else ("", frozenset())


def profile_item(age: int | None, sex: str, pregnant: bool = False) -> MemoryItem:
    parts = [f"{age} years old" if age is not None else "", sex if sex not in ("", "unspecified") else ""]
    if pregnant:
        parts.append("pregnant")
    return MemoryItem("profile:0", "profile", "Profile: " + (", ".join(p for p in parts if p) or "no details"))


def condition_item(index: int, name: str) -> MemoryItem:
    specialization, systems = _linked(condition_link(name))
    return MemoryItem(f"condition:{index}", "condition", f"Known condition: {name}", None, specialization, "", systems)


def allergy_item(index: int, name: str) -> MemoryItem:
    return MemoryItem(f"allergy:{index}", "allergy", f"Allergy: {name}")


def complaint_item(
    pk: int, text: str, symptoms: list[str], day: dt.date, specialization: str = "", state: str = ""
) -> MemoryItem:
    named = ", ".join(symptoms)
    body = text if not named or named.lower() in text.lower() else f"{text} ({named})"
    article = "an" if specialization[:1] in "aeiou" else "a"
    outcome = f"; led to {article} {specialization} appointment ({state})" if specialization else "; no appointment"
    return MemoryItem(
        f"complaint:{pk}",
        "complaint",
        f"Complaint {day:%Y-%m-%d}: {body}{outcome}",
        day,
        specialization,
        state if specialization else "none",
    )


def appointment_item(
    key: str, specialist: str, specialization: str, day: dt.date, state: str, about: str = ""
) -> MemoryItem:
    text = f"Appointment {day:%Y-%m-%d} with {specialist} ({specialization}), {state}"
    return MemoryItem(key, "appointment", f"{text}: {about}" if about else text, day, specialization, state)


def medication_item(pk: int, name: str, strength: str, schedule: str, start: dt.date, active: bool) -> MemoryItem:
    link = medicine_link(name)
    specialization, systems = _linked(link)
    what = " ".join(part for part in (name, strength) if part)
    text = f"Medication: {what}, {schedule}" + (f" (usually for {link.condition})" if link else "")
    if not active:
        text += ", stopped"
    return MemoryItem(
        f"medication:{pk}", "medication", text, start, specialization, "active" if active else "stopped", systems
    )


def alert_item(pk: int, kind: str, condition: str, summary: str, day: dt.date, state: str) -> MemoryItem:
    what = f"{kind} SOS" + (f" for {condition}" if condition else "")
    text = f"Alert {day:%Y-%m-%d}: {what}" + (f": {summary}" if summary else "")
    return MemoryItem(f"alert:{pk}", "alert", text, day, "", "resolved" if state == "resolved" else "open")


def vitals_item(findings: list[str], day: dt.date) -> MemoryItem:
    return MemoryItem("vitals:0", "vitals", "Recent abnormal vitals: " + "; ".join(findings), day)


def report_item(pk: int, day: dt.date, anomalies: list[str], narrative: str) -> MemoryItem:
    body = "; ".join(anomalies) or narrative[:200]
    return MemoryItem(f"report:{pk}", "report", f"Daily report {day:%Y-%m-%d}: {body}", day)


# --- from the database ----------------------------------------------------------------------------


def items_for(user, now: dt.datetime | None = None) -> list[MemoryItem]:
    """Every memory item of ``user`` at ``now`` (default: the real time), in a stable order."""
    from django.utils import timezone

    from health.models import Appointment, AppointmentHistory, Medication, PatientProfile, SymptomRecord
    from health.models.appointments import patient_zone

    now = now or timezone.now()
    zone = patient_zone(user)

    def day(moment: dt.datetime) -> dt.date:
        # The patient's own calendar day: the ranker's "now" is theirs, so every item's age is too
        # (a UTC date is a day off for late evenings east of Greenwich).
        return moment.astimezone(zone).date()

    since = now - dt.timedelta(days=RECENT_DAYS)
    items: list[MemoryItem] = []
    profile = PatientProfile.objects.filter(user=user).first()
    conditions = [str(c) for c in (profile.conditions if profile else []) if str(c).strip()]
    if profile is not None:
        age = _age(profile.date_of_birth, day(now))
        pregnant = any("pregnan" in c.lower() for c in conditions)
        if age is not None or profile.sex not in ("", PatientProfile.Sex.UNSPECIFIED) or pregnant:
            items.append(profile_item(age, profile.sex, pregnant))
        items += [condition_item(i, name) for i, name in enumerate(conditions)]
        items += [allergy_item(i, str(name)) for i, name in enumerate(profile.allergies or []) if str(name).strip()]
    booked = {
        a.conversation_id: a
        for a in Appointment.objects.filter(user=user, conversation__isnull=False)
        .select_related("specialist__specialization")
        .order_by("created_at")
    }
    # Complaints and appointments are kept however old (an explicit date range may ask for them);
    # recency is one of the ranker's signals.
    for record in SymptomRecord.objects.filter(user=user, recorded_at__lte=now).order_by("-recorded_at")[:100]:
        appointment = booked.get(record.conversation_id) if record.conversation_id else None
        items.append(
            complaint_item(
                record.pk,
                record.text,
                list(record.symptoms or []),
                day(record.recorded_at),
                appointment.specialist.specialization.name if appointment else "",
                appointment.state if appointment else "",
            )
        )
    appointments = (
        Appointment.objects.filter(user=user)
        .select_related("slot", "specialist__specialization")
        .order_by("-slot__starts_at")[:50]
    )
    for a in appointments:
        about = a.symptoms or a.reason
        items.append(
            appointment_item(
                f"appointment:{a.pk}",
                a.specialist.name,
                a.specialist.specialization.name,
                day(a.slot.starts_at),
                a.state,
                about,
            )
        )
    for h in AppointmentHistory.objects.filter(user=user, appointment__isnull=True)[:50]:
        items.append(
            appointment_item(
                f"history:{h.pk}", h.specialist_name, h.specialization, day(h.scheduled_for), "completed", h.summary
            )
        )
    for m in Medication.objects.filter(user=user).order_by("-active", "-start_date")[:30]:
        times = f"{m.times_per_day} times a day" if m.times_per_day > 1 else "once a day"
        schedule = ", ".join(part for part in (m.dose, times, m.instructions) if part)
        if m.active or m.start_date >= day(since):
            items.append(medication_item(m.pk, m.name, m.strength, schedule, m.start_date, m.active))
    items += _alerts(user, since, day)
    vitals = _abnormal_vitals(user, now, day)
    if vitals:
        items.append(vitals)
    items += _reports(user, day(now))
    return items


def _age(born: dt.date | None, today: dt.date) -> int | None:
    if born is None:
        return None
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


def _alerts(user, since: dt.datetime, day) -> list[MemoryItem]:
    from health.models import Alert

    alerts = Alert.objects.filter(user=user, created_at__gte=since).exclude(state=Alert.State.CANCELLED)
    return [
        alert_item(
            a.pk, a.get_kind_display().split()[0].lower(), a.condition, a.summary[:200], day(a.created_at), a.state
        )
        for a in alerts.order_by("-created_at")[:20]
    ]


# Thresholds of a reading worth remembering (the monitor's own rules decide alerts; these only
# summarise what a clinician would want to hear about).
_ABNORMAL = (
    ("spo2", "lt", 92, "oxygen saturation down to {:g} %"),
    ("heart_rate", "gt", 120, "heart rate up to {:g} bpm"),
    ("systolic_bp", "gt", 139, "blood pressure up to {:g} systolic"),
)


def _abnormal_vitals(user, now: dt.datetime, day) -> MemoryItem | None:
    from django.db.models import Max, Min

    from health.models import VitalReading

    recent = VitalReading.objects.filter(user=user, measured_at__gte=now - dt.timedelta(days=VITALS_DAYS))
    findings = []
    for name, side, limit, words in _ABNORMAL:
        lookup = {f"{name}__{side}": limit}
        if side == "lt":
            lookup[f"{name}__gt"] = 0  # a 0 is a lost skin contact, not a reading
        worst = recent.filter(**lookup).aggregate(value=Min(name) if side == "lt" else Max(name))["value"]
        if worst is not None:
            findings.append(words.format(worst))
    if not findings:
        return None
    latest = recent.order_by("-measured_at").values_list("measured_at", flat=True).first()
    return vitals_item(findings, day(latest))


def _reports(user, today: dt.date) -> list[MemoryItem]:
    from health.models import DailyReport

    reports = DailyReport.objects.filter(user=user, date__gte=today - dt.timedelta(days=REPORT_DAYS))
    return [
        report_item(r.pk, r.date, [_anomaly_text(a) for a in (r.anomalies or [])], r.narrative)
        for r in reports[:REPORT_DAYS]
    ]


def _anomaly_text(anomaly) -> str:
    if isinstance(anomaly, dict):
        return str(anomaly.get("text") or anomaly.get("message") or ", ".join(f"{k} {v}" for k, v in anomaly.items()))
    return str(anomaly)
