"""Patient requests per use case, for measuring the first step (decide before acting).

Each use case has template families written the way a patient or a family member types: lower
case, no punctuation, British and US spellings, polite padding, and typos on a third of them
(``phrasing.add_typos``). A family is a handful of templates with slots (a specialist, a day, a
medicine, a relative); symptom complaints come from the phrasing engine's own template families
(``phrasing.complaint``). :meth:`Family.draw` also says which template and slot values made a
request, and which disease a complaint was made from (agentlab.data.use_case_scenarios sets up the
patient's records to match).

The families of a use case are split in two: ``dev`` (the guards' authors may read its misreads)
and ``test`` (held out: its texts are never printed). The two splits share no template, so a rule
fitted to the dev phrasings is measured on phrasings it was not written from. A few mixed requests
("cancel tuesday and book me a skin doctor instead") are labelled by their first action.

Deterministic: the requests of a use case and split depend only on the seed and ``per_case``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from agentlab.data import phrasing
from agentlab.data.bank import DISEASES, SYMPTOMS

SEED = 20261125
SPLITS = ("dev", "test")
USE_CASES = (
    "help_now",
    "out_of_scope",
    "appointments_list",
    "appointments_cancel",
    "appointments_reschedule",
    "book_symptoms",
    "book_constraint",
    "medicines_reminder",
    "medicines_today",
    "medicines_taken",
    "medicines_photo",
    "my_health",
)
TYPO_SHARE = 1 / 3
TYPO_RATE = 0.08
_REDRAWS = 8


@dataclass(frozen=True)
class Request:
    text: str
    use_case: str
    split: str
    family: str
    template: str = ""
    slots: tuple[tuple[str, str], ...] = ()  # (slot, value) in the order filled; ("disease", name) for a complaint


@dataclass(frozen=True)
class Drawn:
    """One written request: as typed, as filled before the typing (no typos, no padding), the
    template and the slot values that made it."""

    text: str
    filled: str
    template: str
    slots: tuple[tuple[str, str], ...] = ()

    def slot(self, name: str) -> str | None:
        """The value of slot ``name`` (its first, when the template names it twice)."""
        return next((value for slot, value in self.slots if slot == name), None)


# --------------------------------------------------------------------------- slots

_SHE = ("my mum", "my mom", "my wife", "my daughter", "my grandmother", "my nan", "my sister", "my mother")
_HE = ("my dad", "my husband", "my son", "my grandad", "my grandpa", "my brother", "my father")
_SPECIALISTS = (
    "dermatologist",
    "skin doctor",
    "urologist",
    "cardiologist",
    "heart doctor",
    "GP",
    "doctor",
    "eye doctor",
    "ophthalmologist",
    "ENT",
    "ear nose and throat doctor",
    "gynaecologist",
    "gynecologist",
    "neurologist",
    "physio",
    "dietitian",
    "dietician",
    "orthopaedic doctor",
    "orthopedist",
    "psychiatrist",
    "paediatrician",
    "pediatrician",
    "endocrinologist",
    "rheumatologist",
    "gastroenterologist",
    "general physician",
)
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_PARTS = ("morning", "afternoon", "evening")
_WHEN = (
    "tomorrow",
    "today",
    "on friday",
    "next tuesday",
    "this week",
    "next week",
    "on monday morning",
    "on the 14th",
    "thursday afternoon",
    "this afternoon",
)
_TIMES = ("9", "9am", "9:30", "10 o'clock", "half past two", "2pm", "3:15", "4 pm", "8.30", "11am")
_PERIODS = ("this week", "today", "last night", "yesterday", "this month", "over the last few days", "since monday")
_MEDS = (
    "metformin",
    "lisinopril",
    "atorvastatin",
    "amlodipine",
    "levothyroxine",
    "omeprazole",
    "paracetamol",
    "acetaminophen",
    "ibuprofen",
    "my inhaler",
    "vitamin d",
    "warfarin",
    "aspirin",
    "sertraline",
    "ramipril",
    "my blood pressure tablets",
)
_FREQS = (
    "twice a day",
    "once a day",
    "every morning",
    "every 8 hours",
    "three times a day",
    "at night",
    "before bed",
    "with breakfast",
    "morning and evening",
    "every other day",
)
_DOSES = ("500mg", "10 mg", "one tablet", "two puffs", "20mg", "5mg", "1000 mg")
_NAMES = ("Patel", "Smith", "Okafor", "Nguyen", "Garcia", "Khan", "Murphy", "Rossi", "Kowalski", "Silva")
_PLACES = ("the town centre", "downtown", "my house", "the station", "Leeds", "Brooklyn", "work")
_DRUGS = ("amoxicillin", "antibiotics", "tramadol", "codeine", "diazepam", "viagra", "sleeping pills", "xanax")
_MINOR = ("a cold", "my sore throat", "a headache", "my back", "hay fever", "a UTI", "my cough", "period pain")
_VITALS = ("heart rate", "blood pressure", "oxygen", "oxygen saturation", "temperature", "pulse", "resting heart rate")

_SLOTS: dict[str, Callable[[random.Random], str]] = {
    "she": lambda rng: rng.choice(_SHE),
    "he": lambda rng: rng.choice(_HE),
    "rel": lambda rng: rng.choice(_SHE + _HE),
    "poss": lambda rng: rng.choice(_SHE + _HE) + "'s",
    "spec": lambda rng: rng.choice(_SPECIALISTS),
    "spec2": lambda rng: rng.choice(_SPECIALISTS),
    "day": lambda rng: rng.choice(_DAYS),
    "day2": lambda rng: rng.choice(_DAYS),
    "part": lambda rng: rng.choice(_PARTS),
    "when": lambda rng: rng.choice(_WHEN),
    "time": lambda rng: rng.choice(_TIMES),
    "period": lambda rng: rng.choice(_PERIODS),
    "med": lambda rng: rng.choice(_MEDS),
    "freq": lambda rng: rng.choice(_FREQS),
    "dose": lambda rng: rng.choice(_DOSES),
    "name": lambda rng: rng.choice(_NAMES),
    "place": lambda rng: rng.choice(_PLACES),
    "drug": lambda rng: rng.choice(_DRUGS),
    "minor": lambda rng: rng.choice(_MINOR),
    "vital": lambda rng: rng.choice(_VITALS),
}
_SLOT = re.compile(r"\{(\w+)\}")


def fill(template: str, rng: random.Random) -> str:
    """``template`` with each ``{slot}`` drawn from its list (a slot named twice is drawn twice)."""
    return fill_slots(template, rng)[0]


def fill_slots(template: str, rng: random.Random) -> tuple[str, tuple[tuple[str, str], ...]]:
    """:func:`fill`, with the (slot, value) pairs drawn, in order (the same draws as ``fill``)."""
    drawn: list[tuple[str, str]] = []

    def one(match: re.Match) -> str:
        value = _SLOTS[match.group(1)](rng)
        drawn.append((match.group(1), value))
        return value

    # "my {med}" with "my inhaler" drawn: one "my".
    return re.sub(r"\b(my|the) \1\b", r"\1", _SLOT.sub(one, template)), tuple(drawn)


# --------------------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    """Templates written one way ("a relative's appointment", "the formal register")."""

    name: str
    templates: tuple[str, ...]

    def write(self, rng: random.Random) -> str:
        return self.draw(rng).text

    def draw(self, rng: random.Random) -> Drawn:
        template = rng.choice(self.templates)
        filled, slots = fill_slots(template, rng)
        return Drawn(_surface(rng, filled), filled, template, slots)


# Complaints whose symptoms may be an emergency now are help-now requests, not bookings: the
# book_symptoms use case keeps to complaints without these (the label must not depend on the guard).
_RED_FLAGS = frozenset(
    {
        "chest_pain",
        "chest_pressure",
        "chest_tightness",
        "radiating_arm_pain",
        "shortness_of_breath",
        "rapid_breathing",
        "stridor",
        "throat_swelling",
        "seizures",
        "slurred_speech",
        "facial_droop",
        "one_sided_weakness",
        "confusion",
        "fainting",
        "vomiting_blood",
        "unusual_bleeding",
    }
)


@cache
def _red_flag_terms() -> frozenset[str]:
    return frozenset(SYMPTOMS[key].clinical for key in _RED_FLAGS if key in SYMPTOMS)


@dataclass(frozen=True)
class ComplaintFamily:
    """A template family of the phrasing engine: a first message about symptoms, for a booking."""

    name: str
    templates: tuple[str, ...]  # the phrasing engine's family id, alone

    def write(self, rng: random.Random) -> str:
        return self.draw(rng).text

    def draw(self, rng: random.Random) -> Drawn:
        red_flags = _red_flag_terms()
        for _ in range(50):
            disease = rng.choice(DISEASES)
            found = phrasing.complaint(rng, disease, templates=self.templates)
            if not red_flags & set(found.symptoms):
                break
        text = found.text if rng.random() >= TYPO_SHARE else phrasing.add_typos(rng, found.text, TYPO_RATE)
        return Drawn(text, found.text, found.template, (("disease", disease.name),))


def _complaints(ids: Iterable[str]) -> tuple[ComplaintFamily, ...]:
    return tuple(ComplaintFamily(f"complaint:{tid}", (tid,)) for tid in ids)


# The phrasing engine's families, alternately dev and test (the same split every time).
_COMPLAINT_DEV = _complaints(phrasing.TEMPLATE_IDS[0::2])
_COMPLAINT_TEST = _complaints(phrasing.TEMPLATE_IDS[1::2])

_F = Family
FAMILIES: dict[str, dict[str, tuple[Family | ComplaintFamily, ...]]] = {
    "help_now": {
        "dev": (
            _F(
                "ask_for_an_ambulance",
                (
                    "Call an ambulance",
                    "Please call an ambulance now",
                    "I need an ambulance",
                    "Get an ambulance to my house please",
                    "call 911",
                    "Ring 999 please, quickly",
                    "Send help now, this is an emergency",
                    "SOS",
                    "Help me please, I'm dying",
                    "we need an ambulance at home right now",
                ),
            ),
            _F(
                "chest_and_breath",
                (
                    "I have chest pain and I can't breathe",
                    "My chest hurts and I can't catch my breath",
                    "crushing pain in my chest",
                    "I think I'm having a heart attack",
                    "Chest pain going down my left arm and I'm sweating",
                    "my chest is really tight and I can't breathe properly",
                    "bad chest pain and I feel like I'm going to pass out",
                ),
            ),
            _F(
                "someone_collapsed",
                (
                    "{rel} collapsed and isn't breathing",
                    "{rel} just collapsed on the floor",
                    "{rel} is unconscious",
                    "{rel} has passed out and I can't wake them",
                    "{rel} is not responding, what do I do",
                    "{rel} fainted and isn't waking up",
                ),
            ),
            _F(
                "breathing_now",
                (
                    "I can't breathe",
                    "{rel} can't breathe",
                    "{rel} is choking",
                    "my throat is closing up",
                    "{rel} is struggling to breathe and going blue",
                    "I'm having an asthma attack and my inhaler isn't working",
                ),
            ),
            _F(
                "someone_else_now",
                (
                    "{rel} is having a stroke",
                    "{rel}'s face has dropped on one side and the words are coming out wrong",
                    "{rel} is having a seizure and won't stop shaking",
                    "{rel} took a whole bottle of pills",
                    "{rel} fell down the stairs and isn't moving",
                    "{rel} has stopped breathing, please send someone",
                    "{rel} is turning blue",
                    "someone call for help, {rel} won't wake up",
                    "{rel} has been stabbed",
                    "{rel} had a fit and is still shaking",
                ),
            ),
            _F(
                "me_right_now",
                (
                    "I think I'm having a stroke",
                    "I'm bleeding a lot and it won't stop",
                    "my lips and tongue are swelling up and I can't breathe",
                    "I need help now, my chest is killing me and I can't breathe",
                    "I'm having a heart attack, call someone",
                    "emergency please help",
                    "get me an ambulance",
                    "i cant breath properly and my chest is so tight",
                    "please dial 999 for me",
                    "I've taken an overdose",
                ),
            ),
            _F(
                "someone_is_in_danger",
                (
                    "I think {rel} is having a heart attack",
                    "{rel} can't speak and one arm has gone weak",
                    "{rel} is bleeding heavily and it won't stop",
                    "{rel} isn't breathing properly and won't respond",
                    "quick call an ambulance",
                    "help {rel} has collapsed",
                    "{rel} swallowed bleach",
                    "I'm choking",
                    "please help I can't breathe",
                ),
            ),
        ),
        "test": (
            _F(
                "stroke_signs",
                (
                    "I think {she} is having a stroke",
                    "{she}'s face is drooping and her speech is slurred",
                    "{he} can't lift his right arm and he's slurring his words",
                    "{he} suddenly can't speak properly and one side of his face has dropped",
                    "stroke symptoms right now, {rel}",
                ),
            ),
            _F(
                "bleeding_and_injury",
                (
                    "I cut my hand badly and the bleeding won't stop",
                    "{he} fell off a ladder and can't get up",
                    "{she} fell down the stairs and is not moving",
                    "{rel} has been hit by a car",
                    "{he} has been stabbed",
                    "there's blood everywhere and it won't stop bleeding",
                ),
            ),
            _F(
                "poison_allergy_seizure",
                (
                    "{rel} swallowed a whole bottle of pills",
                    "{he} took an overdose",
                    "my son drank bleach",
                    "my lips and tongue are swelling up after eating peanuts",
                    "{she} is having a seizure right now",
                    "{rel} is fitting and it won't stop",
                    "anaphylaxis, need help now",
                ),
            ),
            _F(
                "plain_cry",
                (
                    "emergency!! please help",
                    "help me now!",
                    "Please send an ambulance to my address, {rel} is very ill",
                    "I need emergency help",
                    "it's an emergency, call 112",
                    "call the paramedics",
                ),
            ),
        ),
    },
    "out_of_scope": {
        "dev": (
            _F(
                "prescribe",
                (
                    "prescribe me antibiotics",
                    "Can you prescribe me something for {minor}",
                    "can you give me some antibiotics for my throat",
                    "Can I get a prescription for {drug}",
                    "What medicine should I take for {minor}?",
                    "send me some strong painkillers",
                ),
            ),
            _F(
                "off_topic",
                (
                    "What's the weather tomorrow?",
                    "tell me a joke",
                    "who won the football last night",
                    "What is the capital of France",
                    "write me a poem about cats",
                    "what's the weather going to be like {when}",
                    "any good films on tonight",
                ),
            ),
            _F(
                "diagnose",
                (
                    "Is this mole cancer?",
                    "do I have diabetes",
                    "what's wrong with me",
                    "Could this lump be a tumour?",
                    "is it cancer",
                    "Am I dying?",
                    "can you diagnose me",
                    "is my cough covid",
                    "do you think I have cancer",
                ),
            ),
            _F(
                "advice_on_medicines",
                (
                    "should I stop taking my {med}",
                    "how many ibuprofen can I take at once",
                    "can you up the dose of my {med}",
                    "is it ok to drink alcohol with {drug}",
                    "give me a sick note for work",
                    "can you give me something to help me sleep",
                    "what's a good dose of ibuprofen for me",
                    "what's the football score",
                    "do I have an infection",
                ),
            ),
            _F(
                "not_health",
                (
                    "play some music",
                    "how do I make pancakes",
                    "order me a pizza",
                    "what's the news today",
                    "can you help me with my homework",
                    "book me a taxi to {place}",
                    # lifestyle coaching, money and errands
                    "make me a meal plan to lose weight",
                    "how many calories should I eat a day",
                    "what exercises are good for a flat stomach",
                    "how much does a private scan cost",
                    "does my health insurance pay for {spec} visits",
                    "text my {rel} that I'll be late",
                    "translate my discharge letter into french",
                ),
            ),
            # General medical knowledge, asked of no record of the patient's: a doctor's or a
            # pharmacist's to answer, not a referral assistant's.
            _F(
                "health_facts",
                (
                    "what are the side effects of {drug}",
                    "how long does a cold last usually",
                    "is {drug} safe in pregnancy",
                    "what's the normal range for cholesterol",
                    "how much water should you drink a day",
                    "can you catch shingles from someone",
                    "does {drug} interact with {med}",
                    "what does a high white cell count mean",
                ),
            ),
        ),
        "test": (
            _F(
                "diagnose_asked_otherwise",
                (
                    "do you think I have covid",
                    "could my rash be an infection",
                    "what disease do I have",
                    "am I diabetic",
                    "can you diagnose my rash",
                    "Is this lump a tumor?",
                    "do you think {rel} has dementia",
                ),
            ),
            _F(
                "which_medicine",
                (
                    "which antibiotic should I take for a UTI",
                    "how many paracetamol can I take",
                    "recommend a good sleeping pill",
                    "can you order me some {drug}",
                    "what pills can I take for {minor}",
                    "Could you get me a prescription for {drug}?",
                ),
            ),
            _F(
                "anything_else",
                (
                    "what's the latest news",
                    "give me a recipe for lasagne",
                    "help me with my maths homework",
                    "Translate this into Spanish for me",
                    "what's the bitcoin price today",
                    "who is the prime minister",
                    "Can you check the traffic on my way to work?",
                ),
            ),
        ),
    },
    "appointments_list": {
        "dev": (
            _F(
                "next_appointment",
                (
                    "What's my next appointment?",
                    "When is my next appointment",
                    "do I have any appointments coming up",
                    "When am I next seeing the doctor?",
                    "whens my next appt",
                ),
            ),
            _F(
                "with_a_specialist",
                (
                    "When is my appointment with the {spec}?",
                    "where is my {spec} appointment",
                    "What time am I seeing the {spec}",
                    "which clinic is my {spec} appointment at",
                    "When do I see the {spec} again?",
                ),
            ),
            _F(
                "in_a_period",
                (
                    "Do I have anything booked {period}?",
                    "have I got any appointments this week",
                    "what appointments do I have next week",
                    "am I booked in with anyone {when}",
                ),
            ),
            _F(
                "mixed_list_first",
                (
                    "what's my next appointment and can you remind me to take my {med}",
                    "When is my {spec} appointment? Also I need to book a GP",
                ),
            ),
            _F(
                "forgot_when",
                (
                    "remind me when my appointment is",
                    "what day is my {spec} appointment again",
                    "I forgot when my appointment is",
                    "have I got a doctor's appointment {when}",
                    "can you check if I have an appointment {when}",
                    "what time was my appointment {when} again",
                    "when do I need to go to the {spec}",
                    "where do I have to go for my appointment",
                ),
            ),
            _F(
                "show_them",
                (
                    "show me my bookings",
                    "is my {spec} appointment still on",
                    "how many appointments do I have this month",
                    "did you book me in with the {spec}?",
                    "can I see all my upcoming appointments",
                ),
            ),
            _F(
                "in_the_diary",
                (
                    "any appointments tomorrow?",
                    "am I seeing anyone {when}",
                    "what's coming up for me",
                    "my appointments",
                    "tell me about my {spec} appointment",
                    "when's the {spec}",
                    "is {poss} appointment {when}",
                    "what time do I have to be at the clinic {when}",
                    "when am I booked in",
                ),
            ),
            # a third round, written on 2026-11-27 as a check of the rules (18 of 22 were read)
            _F(
                "who_and_what_is_booked",
                (
                    "which doctor am I seeing on {day}",
                    "what's in my calendar",
                    "is anything booked for me on {day}",
                    "is my {spec} appointment still on",
                    "what day is my {spec} appointment",
                    "did my booking go through",
                ),
            ),
        ),
        "test": (
            _F(
                "a_relatives",
                (
                    "When is {poss} appointment?",
                    "what time is {poss} appointment with the {spec}",
                    "can you tell me where {poss} next appointment is",
                    "does {rel} have any appointments {when}",
                ),
            ),
            _F(
                "all_of_them",
                (
                    "list my appointments",
                    "Show me all my upcoming appointments",
                    "what have I got coming up",
                    "my appointments?",
                    "can you remind me when my appointments are",
                ),
            ),
            _F(
                "a_detail",
                (
                    "What's the address for my appointment on {day}?",
                    "is my appointment on {day} at {time}?",
                    "did I book the {spec} for {day}",
                    "who am I seeing on {day}",
                    "How do I get to my appointment tomorrow?",
                    "which doctor is my appointment with",
                ),
            ),
            _F(
                "mixed_check_first",
                (
                    "Check when my {spec} appointment is and book {rel} in too",
                    "do I have an appointment {when}? if not book me a {spec}",
                ),
            ),
        ),
    },
    "appointments_cancel": {
        "dev": (
            _F(
                "cancel_plainly",
                (
                    "Please cancel my appointment with the {spec}",
                    "cancel my {spec} appointment",
                    "I need to cancel my appointment on {day}",
                    "Can you cancel the appointment I have {when}?",
                    "cancel my appointment",
                ),
            ),
            _F(
                "cannot_make_it",
                (
                    "I can't make it {when}, please cancel",
                    "I won't be able to come to my appointment {when}",
                    "Something came up and I can't make my {spec} appointment",
                    "i cant go to my appointment {when} so please cancel it",
                    "I can't make it tomorrow",
                ),
            ),
            _F(
                "terse",
                (
                    "cancel {day}'s",
                    "cancel tuesday's",
                    "Cancel it",
                    "cancel the {time} one",
                    "cancel {day} please",
                ),
            ),
            _F(
                "mixed_cancel_first",
                (
                    "cancel {day} and book me a skin doctor instead",
                    "Cancel my {spec} appointment and find me a {spec2} instead",
                ),
            ),
            _F(
                "not_needed_any_more",
                (
                    "I don't need my {spec} appointment anymore",
                    "please call off my appointment {when}",
                    "remove my appointment with the {spec}",
                    "I'm feeling better so cancel my appointment",
                    "get rid of my {day} booking",
                    "delete the appointment {when}",
                    "I'd like to cancel the {spec}",
                    "we won't be going to the appointment {when}, please cancel it",
                ),
            ),
        ),
        "test": (
            _F(
                "a_relatives",
                (
                    "cancel {poss} appointment {when}",
                    "{rel} is unwell and can't make the appointment {when}, can you cancel it",
                    "I need to cancel {poss} {spec} appointment",
                ),
            ),
            _F(
                "formal",
                (
                    "I would like to cancel my appointment with Dr {name} on {day}.",
                    "Could you please cancel my booking for {day} at {time}?",
                    "Kindly cancel my appointment scheduled for {day}.",
                    "I am writing to cancel my appointment with the {spec}.",
                ),
            ),
            _F(
                "no_longer_needed",
                (
                    "I don't need the {spec} appointment any more",
                    "I'm feeling better so I don't need my appointment {when}",
                    "call off my appointment on {day}",
                    "scrap the {spec} appointment",
                    "please drop my {day} appointment, it'll have to be cancelled",
                    "my appointment {when} can be canceled",
                ),
            ),
            _F(
                "mixed_cancel_then_book",
                (
                    "cancel my appointment {when} and book me a {spec} for next week instead",
                    "Cancel the {spec} and get me a {spec2} please",
                ),
            ),
        ),
    },
    "appointments_reschedule": {
        "dev": (
            _F(
                "move_to",
                (
                    "Move my {spec} appointment to {day} {part}",
                    "can I move my appointment to {day} {part}",
                    "Please reschedule my appointment to {when}",
                    "move my appointment with the {spec} to next week",
                ),
            ),
            _F(
                "another_time_same_day",
                (
                    "{time} is too early, can I come later the same day?",
                    "can I come in a bit later on {day}",
                    "is there anything earlier than {time} on {day} instead of my slot",
                    "can I come at {time} instead",
                ),
            ),
            _F(
                "push_or_bring_forward",
                (
                    "push my appointment back a week",
                    "Can we push my {day} appointment back an hour?",
                    "Bring my appointment forward to {day}",
                    "can you push back my {spec} appointment",
                ),
            ),
            _F(
                "mixed_move_first",
                ("move my {spec} appointment to {day} and remind me the day before",),
            ),
            _F(
                "rearrange",
                (
                    "can I change my appointment to {day}",
                    "I need to rearrange my {spec} appointment",
                    "could we make my appointment a bit later",
                    "is it possible to switch my appointment to the {part}",
                    "can I see the {spec} on {day} instead",
                    "please put my appointment back to next week",
                    "could you rebook my {spec} for {day}",
                    "change the time of my {spec} appointment",
                ),
            ),
            _F(
                "find_another_time",
                (
                    "I can't do {day}, can we move it to {day2}",
                    "is there a later slot for my appointment",
                    "could you find me a different time for my {spec} appointment",
                    "I'd like to reschedule my appointment",
                    "push it to the {part}",
                    "bring my {spec} appointment forward",
                    "can my appointment be moved to {when}",
                    "I need a later time for my appointment",
                    "swap my appointment to {day}",
                ),
            ),
            # a third round, written on 2026-11-27 as a check of the rules (14 of 24 were read)
            _F(
                "clash_or_postpone",
                (
                    "I can't make my appointment on {day}, can we do {day2} instead?",
                    "something came up on {day}, can I come another day?",
                    "is there any chance of a later appointment with the {spec}",
                    "I have to work on {day}, could I get my appointment changed",
                    "my {spec} appointment clashes with work, what other times are there",
                    "I'll be away on {day}, please move my appointment",
                    "can you postpone my appointment",
                    "delay my appointment by a day",
                    "I'd rather come in the {part}, can you change it",
                    "could I have a different day for my {spec} visit",
                    "make my {spec} appointment {day} {part} instead",
                    "I need to reschedule, the {time} slot doesn't work for me",
                ),
            ),
            _F(
                "needs_moving",
                (
                    "any other times for my {spec} appointment?",
                    "postpone the {spec} until next week",
                    "{poss} appointment with the {spec} needs to move to {day}",
                    "can we do my check up a day later",
                    "i want to change the date of my appointment",
                    "reschedule pls",
                    "can my appointment tomorrow be later in the day",
                    "I won't be able to come at {time}, is 2pm free instead",
                    "could you shift my appointment to the following week",
                    "the time for my {spec} doesn't suit me, can I get another one",
                    "need to move {day}'s appointment",
                ),
            ),
        ),
        "test": (
            _F(
                "change_it",
                (
                    "I need to change my appointment time",
                    "Can I change my {spec} appointment to {day} {part}?",
                    "change the time of my appointment on {day} to {time}",
                    "I'd like to change the date of my appointment",
                ),
            ),
            _F(
                "another_day",
                (
                    "can I do {day} instead of {day2}",
                    "I'd rather come on {day} {part} if possible, not my current slot",
                    "Could I swap my appointment to a different day?",
                    "is there a slot on {day} instead of my current one",
                ),
            ),
            _F(
                "a_relatives",
                (
                    "can you move {poss} appointment to {when}",
                    "{rel} can't do the morning, can we make the appointment in the afternoon",
                    "reschedule {poss} {spec} appointment please",
                ),
            ),
            _F(
                "postpone",
                (
                    "can you rebook my appointment for next week",
                    "postpone my {spec} appointment",
                    "delay my appointment by two days",
                    "Please postpone my appointment {when} to a later date",
                ),
            ),
        ),
    },
    "book_symptoms": {
        "dev": (
            *_COMPLAINT_DEV,
            _F(
                "short_ask",
                (
                    "I've had a sore throat for a week, can I see a doctor?",
                    "my knee has been swollen for days, I need to see someone",
                    "got a rash on my arm that won't go away, can you book me in",
                    "I keep getting headaches, who should I see?",
                ),
            ),
        ),
        "test": (
            *_COMPLAINT_TEST,
            _F(
                "a_relative_unwell",
                (
                    "{he} has had a bad cough for two weeks, can he see a doctor",
                    "{she} has a painful swollen ankle, can we get an appointment",
                    "my daughter has an earache and a temperature, who can see her?",
                    "{rel} keeps getting dizzy when standing up, please find a doctor",
                ),
            ),
        ),
    },
    "book_constraint": {
        "dev": (
            _F(
                "see_a_specialist",
                (
                    "I want to see a {spec} on {day} {part}",
                    "I'd like to see a {spec}",
                    "I need to see a {spec} {when}",
                    "can I see a {spec} please",
                ),
            ),
            _F(
                "earliest",
                (
                    "earliest {spec}",
                    "When is the earliest {spec} available?",
                    "first available {spec} please",
                    "soonest appointment with a {spec}",
                ),
            ),
            _F(
                "book_me",
                (
                    "Book me a {spec} for {day} {part}",
                    "book an appointment with a {spec}",
                    "Can you book me in with the {spec} {when}?",
                    "book me a GP for {day} morning",
                ),
            ),
            _F(
                "get_me_in",
                (
                    "I'd like an appointment with a {spec} {when}",
                    "get me in with a {spec} as soon as possible",
                    "any {spec} free on {day} {part}?",
                    "have you got a {spec} available {when}",
                    "I want to book a {spec} in the {part}",
                    "find me a {spec} appointment {when}",
                    "put me down for the {spec} {when}",
                    "book me the earliest {spec} you have",
                    "is there a {spec} who can see me {when}",
                    "I'd like to make an appointment with a {spec}",
                    "need a {spec} appt asap",
                ),
            ),
            _F(
                "short_and_direct",
                (
                    "{spec} on {day} please",
                    "I'd like to book in with a {spec}",
                    "can you get me a {spec} appointment for {day}",
                    "need to see a {spec}, {day} {part} if possible",
                    "is there any {spec} free {when}",
                    "could you arrange a {spec} for {rel}",
                    "appointment with a {spec} please",
                    "I'm after a {spec} appointment",
                    "could I book the {spec} for {day}",
                ),
            ),
        ),
        "test": (
            _F(
                "for_a_relative",
                (
                    "can you book {rel} in with a {spec}",
                    "I need an appointment for {rel} with a {spec} {when}",
                    "{rel} needs to see a {spec}, anything {when}?",
                ),
            ),
            _F(
                "with_a_condition",
                (
                    "I need a {spec} near {place}",
                    "a female {spec} please, afternoons only",
                    "any {spec} after {time} on {day}?",
                    "I can only do mornings, find me a {spec}",
                    "I'd prefer Dr {name} if she's free {when}",
                ),
            ),
            _F(
                "is_anyone_free",
                (
                    "are there any {spec}s free {when}",
                    "Is there a {spec} available on {day}?",
                    "do you have a {spec} with availability {when}",
                    "can I get an appointment with a {spec} before {day}",
                ),
            ),
        ),
    },
    # Setting, changing or stopping a reminder, and a missed dose: the model's (set_medication_reminder).
    "medicines_reminder": {
        "dev": (
            _F(
                "remind_me",
                (
                    "Remind me to take {med} {freq}",
                    "set a reminder for my {med} {freq}",
                    "Can you remind me to take my {med} at {time}?",
                    "remind me about my {med} {freq} please",
                ),
            ),
            _F(
                "started_on",
                (
                    "I've just started {med}, {dose} {freq}, can you set that up",
                    "please add {med} {freq} to my reminders",
                    "new prescription: {med} {freq}",
                    "can you set an alarm for my {med} {freq}",
                    "I need to take {med} {freq}, remind me",
                ),
            ),
            _F(
                "change_reminder",
                (
                    "change my {med} reminder to {time}",
                    "can you move my {med} reminder to the evening",
                    "turn off the reminders for my {med}",
                    "snooze my {med} reminder",
                    "I don't need the {med} reminder any more",
                ),
            ),
        ),
        "test": (
            _F(
                "doctor_started_me",
                (
                    "My doctor prescribed {med} {dose} {freq}, can you add it?",
                    "I've been put on {med} {freq}, please add a reminder",
                    "the hospital started me on {med} {dose}",
                    "new medication: {med} {dose} {freq}",
                ),
            ),
            _F(
                "missed_or_stopped",
                (
                    "I forgot my {med} this morning",
                    "stop the reminders for {med}",
                    "I missed my dose last night",
                    "I've stopped taking {med}, please remove it",
                ),
            ),
            _F(
                "a_relatives",
                (
                    "remind {rel} to take {med} {freq}",
                    "set up {poss} medication reminders",
                    "please set a reminder for {rel} to take {med} {freq}",
                ),
            ),
        ),
    },
    # Today's doses, from the records: the medicines desk's (get_todays_doses).
    "medicines_today": {
        "dev": (
            _F(
                "today",
                (
                    "What doses do I have today?",
                    "what medicines do I need to take today",
                    "Which pills have I got left to take today",
                    "what's my medication schedule",
                ),
            ),
            _F(
                "whats_due",
                (
                    "anything due now?",
                    "when is my next dose",
                    "what time do I take my {med}",
                    "show me my medicines for today",
                    "which tablets are left for tonight",
                ),
            ),
            _F(
                "what_now",
                (
                    "have I got any pills to take now",
                    "what do I take this evening",
                    "which medicines are due tonight",
                    "what's left to take today",
                    "did I miss any doses today",
                    "list my meds for today",
                    "what tablets should I be taking this morning",
                    "when's my {med} due",
                    "what am I supposed to take before bed",
                    "do I still need to take anything today",
                    "what time is my next tablet",
                ),
            ),
            _F(
                "my_list",
                (
                    "which pills do I take in the {part}",
                    "remind me what I take in the {part}",
                    "how many tablets do I have today",
                    "have I taken everything today",
                    "what's my next medicine",
                    "what's on my medication list",
                ),
            ),
        ),
        "test": (
            _F(
                "did_i_take",
                (
                    "did I take my evening tablets?",
                    "has {rel} taken the morning tablets today",
                    "have I taken my {med} today?",
                    "can't remember if I took my {med} this morning",
                ),
            ),
            _F(
                "schedule_asked_otherwise",
                (
                    "list today's doses",
                    "what meds am I on",
                    "what's left for me to take today",
                    "my pill times please",
                    "Can you check which medicines I still need today?",
                ),
            ),
        ),
    },
    # A dose just taken: the medicines desk's (mark_dose_taken, after a yes).
    "medicines_taken": {
        "dev": (
            _F(
                "taken",
                (
                    "I took my morning pill",
                    "I've taken my {med}",
                    "just took my {med}",
                    "mark my {med} as taken",
                ),
            ),
            _F(
                "done_short",
                (
                    "{med} done",
                    "morning meds done",
                    "had my evening tablets",
                    "took them just now",
                    "done my {part} tablets",
                ),
            ),
            _F(
                "had_it",
                (
                    "I've just had my {med}",
                    "taken my tablets",
                    "I took the {part} dose",
                    "I've had my pills for this {part}",
                    "tick off my {med}",
                    "swallowed my {med} a minute ago",
                ),
            ),
        ),
        "test": (
            _F(
                "taken_formal",
                (
                    "I have taken my {med} dose",
                    "Please record that I took my {part} tablets",
                    "log my {med} as taken",
                    "I would like to mark my {med} as taken.",
                ),
            ),
            _F(
                "taken_with_time",
                (
                    "took my {med} at {time}",
                    "I had my {part} {med} just now",
                    "swallowed my tablets with breakfast",
                    "yes I've had my {med} today",
                ),
            ),
        ),
    },
    # Where to upload a prescription photo: the medicines desk's (a template; nothing is stored).
    "medicines_photo": {
        "dev": (
            _F(
                "photo_upload",
                (
                    "can I send you a photo of my prescription",
                    "how do I upload my prescription",
                    "I want to add a new prescription",
                    "where do I put a picture of my prescription",
                ),
            ),
            _F(
                "photo_have",
                (
                    "I've got my prescription here, shall I take a picture of it",
                    "I have a scan of my script",
                    "my doctor gave me a new prescription, can I photograph it",
                    "I took a photo of the prescription {rel} got",
                ),
            ),
            _F(
                "read_it_for_me",
                (
                    "can you read my prescription from a picture",
                    "I'll take a pic of the prescription, where do I send it",
                    "can I scan my prescription",
                    "here's a photo of my prescription",
                    "can you set up my reminders from my prescription",
                    "I have a photo of my prescription, can you set up reminders?",
                ),
            ),
            _F(
                "new_script",
                (
                    "I've got a new prescription from the doctor, how do I add it",
                    "how do I put my prescription in the app",
                    "I'd like to upload my script",
                    "where do I add my prescription",
                    # a third round, written on 2026-11-27 as a check of the rules (15 of 18 were read)
                    "I took a photo of the doctor's note with my meds on it",
                    "there's a prescription slip here, can you add the medicines from it",
                    "the chemist gave me a printed list of my tablets, can I upload that",
                    "can you read my prescription if I take a picture",
                    "is it possible to upload a picture of the pharmacy label",
                    "I want to add my meds from a prescription photo",
                ),
            ),
        ),
        "test": (
            _F(
                "prescription_photo",
                (
                    "I have a photo of my prescription",
                    "can I upload a picture of my prescription",
                    "Here's a scan of my prescription from Dr {name}",
                    "I'll send a pic of my meds list",
                ),
            ),
            _F(
                "photo_other",
                (
                    "snap of my rx attached",
                    "Could I attach an image of the prescription?",
                    "is there a way to scan my prescription into the app",
                    "Can you read my prescription if I take a photo?",
                ),
            ),
        ),
    },
    "my_health": {
        "dev": (
            _F(
                "my_day",
                (
                    "How was my day?",
                    "how was my day yesterday",
                    "Give me a summary of my day",
                    "how am I doing today",
                ),
            ),
            _F(
                "sleep",
                (
                    "How did I sleep?",
                    "how did i sleep last night",
                    "how much sleep did I get this week",
                    "was my sleep any better {period}",
                ),
            ),
            _F(
                "vitals",
                (
                    "What was my heart rate {period}?",
                    "How were my vitals today",
                    "what's my blood pressure been like {period}",
                    "show me my {vital} {period}",
                ),
            ),
            _F(
                "readings",
                (
                    "what was my average heart rate {period}",
                    "how was my oxygen {period}",
                    "did my watch pick up anything unusual today",
                    "was my blood pressure ok {period}",
                    "give me my health report",
                    "how has my heart been {period}",
                    "can I see today's report",
                    "were my readings normal {period}",
                    "how well did I sleep {period}",
                ),
            ),
            _F(
                "how_am_i",
                (
                    "what was my pulse like {period}",
                    "how's my blood pressure looking",
                    "did I sleep well",
                    "how many hours did I sleep {period}",
                    "anything I should know about my vitals today",
                    "summary of my week please",
                    "what did my watch record {period}",
                ),
            ),
        ),
        "test": (
            _F(
                "reports",
                (
                    "show me my health report",
                    "Send me my weekly report",
                    "what does my daily report say",
                    "any alerts about my health {period}?",
                ),
            ),
            _F(
                "trends",
                (
                    "is my heart rate higher than usual",
                    "has my blood pressure gone up {period}",
                    "How many steps did I do {period}?",
                    "compare my sleep this week to last week",
                    "is my {vital} normal",
                ),
            ),
            _F(
                "a_relatives",
                (
                    "how did {rel} sleep last night",
                    "How are {poss} vitals today?",
                    "how was {poss} day",
                    "what was {poss} {vital} {period}",
                ),
            ),
        ),
    },
}


# --------------------------------------------------------------------------- surface

_OPENERS = ("hi ", "hello, ", "Hi there. ", "hey ", "Good morning, ", "sorry to bother you but ", "um ", "ok so ")
_CLOSERS = (" please", " thanks", ", thank you", " thank you x", " cheers", " pls", " asap", " thx")
# Marks dropped when typing fast; a full stop inside a time ("8.30") and an apostrophe are handled apart.
_PUNCTUATION = re.compile(r"[!?,;\"()]|\.(?!\d)")
_STARTS_WITH_I = re.compile(r"I\b")


def _surface(rng: random.Random, text: str) -> str:
    """How it gets typed: padding, lower case, no punctuation, typos (each on some requests)."""
    if rng.random() < 0.3:
        keep = _STARTS_WITH_I.match(text) or not text[1:2].islower()  # "I'd like", "SOS", "GP"
        text = rng.choice(_OPENERS) + (text if keep else text[0].lower() + text[1:])
    if rng.random() < 0.25:
        text = text.rstrip(".?!") + rng.choice(_CLOSERS)
    if rng.random() < 0.4:
        text = text.lower()
    if rng.random() < 0.25:
        text = _PUNCTUATION.sub("", text)
        if rng.random() < 0.5:
            text = text.replace("'", "")
    if rng.random() < TYPO_SHARE:
        text = phrasing.add_typos(rng, text, TYPO_RATE)
    return " ".join(text.split())


# --------------------------------------------------------------------------- public API


def families(use_case: str, split: str) -> tuple[Family | ComplaintFamily, ...]:
    """The template families of ``use_case`` in ``split``."""
    if use_case not in FAMILIES:
        raise ValueError(f"unknown use case {use_case!r}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    return FAMILIES[use_case][split]


def generate(per_case: int, seed: int = SEED, splits: Iterable[str] = SPLITS) -> list[Request]:
    """``per_case`` requests of every use case in each of ``splits``, families taken in turn."""
    if per_case < 1:
        raise ValueError("per_case must be at least 1")
    out: list[Request] = []
    for split in splits:
        for use_case in USE_CASES:
            # Its own generator: a use case's requests do not change when another's templates do.
            rng = random.Random(f"{seed}/{use_case}/{split}")
            chosen = families(use_case, split)
            offset = rng.randrange(len(chosen))
            seen: set[str] = set()
            for i in range(per_case):
                family = chosen[(offset + i) % len(chosen)]
                # A few more draws for a text not written yet: a small family runs out of new ones.
                for _ in range(_REDRAWS):
                    drawn = family.draw(rng)
                    if drawn.text.lower() not in seen:
                        break
                seen.add(drawn.text.lower())
                out.append(Request(drawn.text, use_case, split, family.name, drawn.template, drawn.slots))
    return out
