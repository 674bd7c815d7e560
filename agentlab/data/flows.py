"""The use cases of the seed paper's Table 1 as interactive policies.

A flow is a Python generator: it yields one :class:`Move` (the planner's
reason and action, and the caller's tool call) at a time and receives the
observation the real tool produced for it, so every later reason and argument
is written from what the tools actually returned (§6.1, "faithful"). Questions
to the user come with the simulated user's answer.

Categories: general, counter, negative, dietician (appointments), soft_sos,
hard_sos_start, hard_sos_end (the SOS guard's fixed sequences) and reminder
(medication reminders from prescription text).
"""

from __future__ import annotations

import random
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentlab.data import phrasing
from agentlab.data.bank import SYMPTOMS, Disease
from agents.tools import REGISTRY
from agents.trajectory import END

APPOINTMENT_CATEGORIES = ("general", "counter", "negative", "dietician")
SOS_CATEGORIES = ("soft_sos", "hard_sos_start", "hard_sos_end")
CATEGORIES = (*APPOINTMENT_CATEGORIES, *SOS_CATEGORIES, "reminder")


class Drop(Exception):
    """The flow cannot go on faithfully (no free slot, say): the conversation is dropped and counted."""


@dataclass
class Move:
    reason: str
    action: str
    call: dict[str, Any] | None  # None with the <END> action
    answer: str | None = None  # what the simulated user replies, for a question


@dataclass
class FlowContext:
    rng: random.Random
    user_ref: str
    timestamp: str  # the system state's timestamp: what store_symptoms records
    disease: Disease | None = None
    complaint: phrasing.Complaint | None = None
    extra: dict[str, Any] = field(default_factory=dict)


Flow = Generator[Move, Any, None]


# The first wording of each step is the usual one; the others keep the planner
# from depending on one phrasing (§6.2) without making every step a coin toss.
USUAL = 0.8


def variant(rng: random.Random, count: int) -> int:
    """Which wording: the first with probability USUAL, else one of the others."""
    if count == 1 or rng.random() < USUAL:
        return 0
    return rng.randrange(1, count)


def pick(rng: random.Random, options: Sequence[str], **values: Any) -> str:
    return options[variant(rng, len(options))].format(**values)


def paired(rng: random.Random, first: Sequence[str], second: Sequence[str], **values: Any) -> tuple[str, str]:
    """One wording from each list, at the same position: the planner's action says which
    message the caller writes (it cannot guess an independent coin toss)."""
    index = variant(rng, len(first))
    return first[index].format(**values), second[index].format(**values)


def result_of(observation: Any) -> Any:
    if not isinstance(observation, dict) or "result" not in observation:
        raise Drop(f"a tool failed: {observation!r}"[:200])
    return observation["result"]


def call(tool: str, **parameters: Any) -> dict[str, Any]:
    """A tool call with its parameters in schema order (the order constrained decoding feeds them)."""
    return {"tool": tool, "parameters": REGISTRY.get(tool).ordered(parameters)}


YES = (
    "Yes, please.",
    "Yes please book it",
    "Sure, go ahead.",
    "ok book it",
    "That works for me, yes.",
    "Yes, that time is fine.",
    "yes",
    "Please do.",
    "Perfect, book it please.",
    "Yes. Thank you!",
)
# A clear yes to a consent question ("Set a reminder for …? Reply yes to set it, or no."): each one
# agents.tools.interaction.clear_yes reads as yes, so the tool acts (tests/agentlab/test_data_pipeline.py).
CONSENT_YES = ("Yes.", "yes", "Yes, set it.", "ok", "Yes please", "Sure.", "Yes, go ahead")
NO = (
    "No, not at this time.",
    "No thanks, I'll wait a bit.",
    "not now",
    "I'd rather not book yet.",
    "No, I can't make that.",
    "No thank you.",
    "Let me think about it first, so no for now.",
    "nah, maybe later",
)


# --- the appointment flows ---------------------------------------------------------------


def _specialist_search(ctx: FlowContext, symptoms: str) -> Flow:
    """Past complaints, the matching specialization, then the specialist search; returns the search result."""
    rng = ctx.rng
    past = result_of(
        (
            yield Move(
                pick(
                    rng,
                    (
                        "New symptoms: check the history first.",
                        "Past complaints may help choose the specialist.",
                    ),
                ),
                pick(
                    rng,
                    (
                        "Retrieve past complaints about {s}.",
                        "Check past complaints about {s} with retrieve_past_complaints.",
                    ),
                    s=symptoms,
                ),
                call("retrieve_past_complaints", user_id=ctx.user_ref, symptoms=symptoms),
            )
        )
    )
    if past:
        first = past[0]
        reason = pick(
            rng,
            (
                "Past complaint on {d}: {p}.",
                "The user had {p} on {d}.",
            ),
            p=first["symptoms"],
            d=first["date"],
        )
    else:
        reason = pick(
            rng,
            (
                "No similar past complaints.",
                "Nothing similar in the history.",
            ),
        )
    matched = result_of(
        (
            yield Move(
                reason,
                pick(
                    rng,
                    (
                        "Match {s} to a specialization.",
                        "Find the specialization for {s} with match_specialization.",
                    ),
                    s=symptoms,
                ),
                call("match_specialization", symptoms=symptoms),
            )
        )
    )
    # Faithful to the observation: the planner books what the tool ranked first.
    specialization = matched["specializations"][0]
    reason = pick(
        rng,
        (
            "Best match: {spec}.",
            "The symptoms best match a {spec}.",
        ),
        spec=specialization,
    )
    schedule = ctx.extra.get("schedule")
    parameters: dict[str, Any] = {"symptoms": symptoms, "specialization": specialization}
    if schedule:
        parameters["user_schedule"] = schedule
        action = pick(
            rng,
            (
                "Find an available {spec} on {d} between {t}.",
                "Search for a {spec} free on {d} between {t}.",
            ),
            spec=specialization,
            d=schedule["date"],
            t=schedule["time_range"],
        )
    else:
        action = pick(
            rng,
            (
                "Find an available {spec}.",
                "Search for a {spec} with a free slot.",
            ),
            spec=specialization,
        )
    found = yield Move(reason, action, call("get_available_specialists", **parameters))
    if "error" in found:
        raise Drop("no free slot")
    return found["result"]


def _propose(ctx: FlowContext, found: dict[str, Any], accept: bool) -> Flow:
    rng = ctx.rng
    name, slot = found["name"], found["available_slot"]
    start = slot["time"].split("-")[0]
    action, question = paired(
        rng,
        ("Ask the user to confirm {n} on {d} at {t}.", "Suggest {n} on {d} at {t} to the user."),
        (
            "{n} has an opening on {d} at {s}. Would you like me to book this appointment?",
            "I found {n} on {d} at {s}. Shall I book it for you?",
        ),
        n=name,
        d=slot["date"],
        t=slot["time"],
        s=start,
    )
    answer = yield Move(
        pick(
            rng,
            ("{n} is free on {d} at {t}.", "{n} has a free slot on {d} at {t}."),
            n=name,
            d=slot["date"],
            t=slot["time"],
        ),
        action,
        call("get_input_from_user", user_id=ctx.user_ref, questions=question),
        answer=rng.choice(YES if accept else NO),
    )
    return result_of(answer)


def _book(ctx: FlowContext, found: dict[str, Any], symptoms: str) -> Flow:
    rng = ctx.rng
    name, slot = found["name"], found["available_slot"]
    when = f"{slot['time']}, {slot['date']}"
    ids = {"user_id": ctx.user_ref, "specialist_id": found["specialist_id"], "appointment_time_date": when}
    result_of(
        (
            yield Move(
                pick(rng, ("The user agreed.", "The user has confirmed the appointment.")),
                pick(
                    rng,
                    ("Confirm the appointment with {n} on {d} at {t}.", "Book {n} on {d} at {t}."),
                    n=name,
                    d=slot["date"],
                    t=slot["time"],
                ),
                call("confirm_appointment", **ids),
            )
        )
    )
    result_of(
        (
            yield Move(
                pick(rng, ("Appointment confirmed.", "The slot is booked.")),
                pick(rng, ("Save the appointment history.", "Save the appointment to the history.")),
                call("save_appointment_history", **{**ids, "symptoms": symptoms}),
            )
        )
    )
    result_of(
        (
            yield Move(
                pick(rng, ("History saved.", "Appointment saved.")),
                pick(rng, ("Store the symptoms.", "Store the symptoms for future reference.")),
                call("store_symptoms", user_id=ctx.user_ref, symptoms=symptoms, timestamp=ctx.timestamp),
            )
        )
    )
    start = slot["time"].split("-")[0]
    action, message = paired(
        rng,
        ("Notify the user of the booking.", "Tell the user about the appointment."),
        ("Your appointment with {n} on {d} at {t} is confirmed.", "Booked: {n}, {d} at {t}."),
        n=name,
        d=slot["date"],
        t=start,
    )
    result_of(
        (
            yield Move(
                pick(rng, ("Symptoms stored.", "Everything is saved.")),
                action,
                call("notify_user", user_id=ctx.user_ref, message=message),
            )
        )
    )
    yield Move(
        pick(rng, ("Booked and notified.", "The task is complete.")),
        END,
        None,
    )


def _decline(ctx: FlowContext, symptoms: str) -> Flow:
    rng = ctx.rng
    result_of(
        (
            yield Move(
                pick(rng, ("The user declined.", "The user does not want to book now.")),
                pick(rng, ("Store the symptoms without booking.", "Store the symptoms only.")),
                call("store_symptoms", user_id=ctx.user_ref, symptoms=symptoms, timestamp=ctx.timestamp),
            )
        )
    )
    action, message = paired(
        rng,
        ("Tell the user the symptoms are saved.", "Notify the user that nothing was booked."),
        (
            "Your symptoms have been recorded for future reference. Ask me any time to book.",
            "I saved your symptoms. You can book an appointment whenever you are ready.",
        ),
    )
    result_of(
        (
            yield Move(
                "Symptoms stored successfully.",
                action,
                call("notify_user", user_id=ctx.user_ref, message=message),
            )
        )
    )
    yield Move(pick(rng, ("Symptoms saved and user notified.", "The task is complete.")), END, None)


def appointment(ctx: FlowContext, *, accept: bool) -> Flow:
    """General, negative and dietician: the complaint names enough symptoms to choose."""
    symptoms = ", ".join(ctx.complaint.symptoms)
    found = yield from _specialist_search(ctx, symptoms)
    answer = yield from _propose(ctx, found, accept)
    del answer
    if accept:
        yield from _book(ctx, found, symptoms)
    else:
        yield from _decline(ctx, symptoms)


FOLLOW_UP_ACTIONS = (
    "Ask the user about more symptoms.",
    "Ask the user to describe the symptoms in more detail.",
    "Ask the user what other symptoms they have.",
)
FOLLOW_UP_QUESTIONS = (
    "Could you tell me more about your symptoms? What else have you noticed, and since when?",
    "Can you describe your symptoms in more detail? Anything else bothering you?",
    "What other symptoms do you have, if any?",
)
# A vague complaint is asked about until it names this many symptoms (at most two questions).
ENOUGH_SYMPTOMS = 3
SECOND_ACTIONS = ("Ask the user about any other symptoms, such as pain or fever.", "Ask once more for other symptoms.")
SECOND_QUESTIONS = (
    "Anything else, for example pain, fever or changes in sleep or appetite?",
    "Is there anything else you have noticed?",
)


def counter(ctx: FlowContext, *, accept: bool) -> Flow:
    """A vague first message: the planner asks until the specialist is clear (D.3)."""
    rng = ctx.rng
    disease = ctx.disease
    known = list(ctx.complaint.symptoms)
    remaining = [SYMPTOMS[key] for key in disease.symptoms if SYMPTOMS[key].clinical not in known]
    first_batch, second_batch = remaining[:2] or remaining, remaining[2:3]
    vague = ", ".join(known) if known else "feeling unwell"
    reply = phrasing.follow_up_answer(
        rng, first_batch, typo_rate=ctx.extra.get("typo_rate", 0.0), child=ctx.complaint.child
    )
    action, question = paired(rng, FOLLOW_UP_ACTIONS, FOLLOW_UP_QUESTIONS)
    answer = yield Move(
        pick(
            rng,
            (
                "Too vague to choose a specialist: {v}.",
                "Only {v} so far; I need more details.",
            ),
            v=vague,
        ),
        action,
        call("get_input_from_user", user_id=ctx.user_ref, questions=question),
        answer=reply.text,
    )
    result_of(answer)
    known += [s for s in reply.symptoms if s not in known]
    # Asked again exactly when the conversation shows too little (a rule the planner can read off
    # the symptoms it lists), not on a coin toss no model could follow; a user with nothing more to
    # add says so.
    if len(known) < ENOUGH_SYMPTOMS:
        reply = phrasing.follow_up_answer(
            rng, second_batch, typo_rate=ctx.extra.get("typo_rate", 0.0), child=ctx.complaint.child
        )
        action, question = paired(rng, SECOND_ACTIONS, SECOND_QUESTIONS)
        answer = yield Move(
            pick(
                rng,
                ("Now {s}. One more question.", "The user adds {s}; ask once more."),
                s=", ".join(known),
            ),
            action,
            call("get_input_from_user", user_id=ctx.user_ref, questions=question),
            answer=reply.text,
        )
        result_of(answer)
        known += [s for s in reply.symptoms if s not in known]
    symptoms = ", ".join(known)
    found = yield from _specialist_search(ctx, symptoms)
    yield from _propose(ctx, found, accept)
    if accept:
        yield from _book(ctx, found, symptoms)
    else:
        yield from _decline(ctx, symptoms)


# --- SOS: the guard's fixed sequences ------------------------------------------------------

SOS_REASONS = {
    "soft_sos": ("Abnormal vitals were detected.", "The watch reported abnormal vitals."),
    "hard_sos_start": ("User has triggered a hard SOS.", "A hard SOS was triggered."),
    "hard_sos_end": ("User has ended the SOS.", "The SOS has been ended."),
}
DONE_REASONS = {
    "notify_user": ("The user has been notified.", "User informed."),
    "get_location": ("Location retrieved.", "I have the user's coordinates."),
    "search_ambulance": ("Nearest ambulance identified.", "An ambulance was found."),
    "get_assigned_ambulance": ("Assigned ambulance retrieved.", "I have the ambulance details."),
    "send_message": ("Message sent.", "The message was queued."),
}


def sos(ctx: FlowContext, *, sequence, runtime_ref) -> Flow:
    """Each required step in order, with the guard's own parameters (D.4 to D.6)."""
    rng = ctx.rng
    category = ctx.extra["category"]
    reason = rng.choice(SOS_REASONS[category])
    for step in sequence:
        parameters = step.parameters(runtime_ref())
        if parameters is None:
            raise Drop(f"{step.tool}: prerequisite missing")
        observation = yield Move(reason, step.action, call(step.tool, **parameters))
        result_of(observation)
        reason = rng.choice(DONE_REASONS.get(step.tool, ("Done.",)))
    yield Move(rng.choice(("The SOS process is completed successfully.", "All required steps are done.")), END, None)


# --- medication reminders from prescription text ---------------------------------------------

DRUGS = (
    ("Amoxicillin", ("250 mg", "500 mg")),
    ("Metformin", ("500 mg", "850 mg")),
    ("Lisinopril", ("10 mg", "20 mg")),
    ("Atorvastatin", ("20 mg", "40 mg")),
    ("Omeprazole", ("20 mg", "40 mg")),
    ("Levothyroxine", ("50 mcg", "100 mcg")),
    ("Amlodipine", ("5 mg", "10 mg")),
    ("Ibuprofen", ("200 mg", "400 mg")),
    ("Paracetamol", ("500 mg", "650 mg")),
    ("Cetirizine", ("10 mg",)),
    ("Azithromycin", ("250 mg", "500 mg")),
    ("Sertraline", ("50 mg", "100 mg")),
    ("Losartan", ("50 mg",)),
    ("Pantoprazole", ("40 mg",)),
    ("Vitamin D3", ("1000 IU",)),
    ("Prednisolone", ("5 mg", "10 mg")),
)
FREQUENCIES = (
    ("once a day", ["08:00"]),
    ("every morning", ["08:00"]),
    ("at bedtime", ["21:00"]),
    ("twice a day", ["08:00", "20:00"]),
    ("three times a day", ["08:00", "14:00", "20:00"]),
    ("four times a day", ["08:00", "12:00", "16:00", "20:00"]),
)
FOOD = (("after meals", "after"), ("before food", "before"), ("with food", "with"), ("", None))
REMINDER_OPENINGS = (
    "Please set reminders for my new prescription: {items}.",
    "The doctor prescribed {items}. Can you remind me?",
    "Set up medication reminders: {items}",
    "my prescription says {items}, please add reminders",
)


def prescription(rng: random.Random) -> tuple[str, list[dict[str, Any]]]:
    """A prescription request and, per medicine, the set_medication_reminder parameters it implies."""
    items, calls = [], []
    for name, strengths in rng.sample(DRUGS, rng.choice((1, 1, 2))):
        strength = rng.choice(strengths)
        phrase, times = rng.choice(FREQUENCIES)
        food_text, food = rng.choice(FOOD)
        days = rng.choice((5, 7, 10, 14, 30, None))
        dose = rng.choice(("1 tablet", "1 capsule", "2 tablets"))
        text = f"{name} {strength}, {dose} {phrase}"
        if food_text:
            text += f" {food_text}"
        if days:
            text += f" for {days} days"
        items.append(text)
        parameters: dict[str, Any] = {"medicine_name": f"{name} {strength}", "times": times, "dose": dose}
        if days:
            parameters["duration_days"] = days
        if food:
            parameters["food_timing"] = food
        calls.append(parameters)
    return pick(rng, REMINDER_OPENINGS, items="; ".join(items)), calls


def reminder(ctx: FlowContext) -> Flow:
    rng = ctx.rng
    calls = ctx.extra["reminders"]
    reason = pick(
        rng, ("The user wants reminders for {n} medicine(s).", "A prescription with {n} item(s)."), n=len(calls)
    )
    names = []
    for parameters in calls:
        names.append(parameters["medicine_name"])
        observation = yield Move(
            reason,
            pick(
                rng,
                ("Set a reminder for {m} at {t}.", "Add {m} with reminders at {t}."),
                m=parameters["medicine_name"],
                t=", ".join(parameters["times"]),
            ),
            call("set_medication_reminder", user_id=ctx.user_ref, **parameters),
            answer=rng.choice(CONSENT_YES),  # the tool proposes the reminder; the user confirms it
        )
        result_of(observation)
        reason = f"Reminder set for {parameters['medicine_name']}."
    result_of(
        (
            yield Move(
                "All reminders are set.",
                "Inform the user about the reminders.",
                call("notify_user", user_id=ctx.user_ref, message=f"Reminders are set for {', '.join(names)}."),
            )
        )
    )
    yield Move("The reminders are set and the user informed.", END, None)
