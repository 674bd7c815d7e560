"""What the assistant does not do: prescribe, diagnose, or talk about anything but the patient's care.

A new chat request that asks for one of these gets a short, kind answer of what the assistant can
do instead (``agents/templates/agents/scope_<kind>.txt``) and nothing is booked, stored or sent
(DESIGN.md: it refers, it never diagnoses or prescribes). The runtime asks before the model runs,
after the help-now guard, so "give me antibiotics, I can't breathe" still starts an SOS.

Hand-written patterns, not a trained classifier, on purpose: a false refusal blocks a patient from
booking, so each pattern is narrow (a request verb with a medicine word, a question whose object
is a diagnosis, a topic with no symptom in the message) and anything it does not catch goes to the
model as before. Medicine reminders, prescription photos and "my doctor prescribed" stay in scope.
"""

from __future__ import annotations

import re

from django.template.loader import render_to_string

PRESCRIBE, DIAGNOSE, OFF_TOPIC = "prescribe", "diagnose", "off_topic"

_MEDICINE = (
    r"(?:antibiotics?|medicines?|medications?|meds|drugs?|pills?|tablets?|painkillers?|pain killers?|steroids?|"
    r"antidepressants?|sleeping pills?|something (?:strong )?for (?:the |my )?\w+|amoxicillin|azithromycin|"
    r"ciprofloxacin|tramadol|codeine|oxycodone|xanax|valium|diazepam|viagra|insulin)"
)
_PRESCRIBE = re.compile(
    rf"\b(?:prescribe|prescribing)\b(?!\s+(?:photo|picture|image))"
    rf"|\b(?:give|get|send|sell|order|recommend|suggest)\s+(?:me|us|him|her)?\s*(?:some|a|an|any|the)?\s*"
    rf"(?:strong\s+|good\s+)?{_MEDICINE}"
    rf"|\bwhat\s+(?:medicine|medication|drug|pill|tablet|antibiotic)s?\s+(?:should|can|could|do)\s+(?:i|he|she|we)\s+(?:take|use|have)"
    rf"|\bwhich\s+(?:medicine|medication|drug|pill|tablet|antibiotic)s?\s+(?:should|can|could|is best)"
    rf"|\bhow\s+(?:much|many)\s+\w+\s+(?:should|can)\s+i\s+take\b"
    r"|\b(?:can|could)\s+(?:i|you)\s+(?:get|have|give)\s+(?:me\s+)?(?:a\s+)?prescription\b",
    re.IGNORECASE,
)
# What a patient says about a prescription they already have: in scope (reminders, the photo).
_OWN_PRESCRIPTION = re.compile(
    r"\b(?:remind|reminders?|photo|picture|upload|scan|prescribed me|was prescribed|doctor (?:gave|prescribed)|"
    r"dose taken|took my|refill appointment)\b",
    re.IGNORECASE,
)
_CONDITION = (
    r"(?:cancer|tumou?r|melanoma|diabetes|a stroke|a heart attack|covid|hiv|aids|an? std|an? sti|dementia|"
    r"alzheimer'?s|parkinson'?s|leuk(?:a)?emia|lymphoma|appendicitis|an? infection|malignant|benign|"
    r"contagious|dying)"
)
_DIAGNOSE = re.compile(
    rf"\b(?:is|could|might|can)\s+(?:this|it|that|these|my)(?:\s+\w+){{0,2}}?\s+(?:be\s+)?(?:an?\s+)?{_CONDITION}"
    rf"|\bdo\s+(?:i|you think i)\s+have\s+{_CONDITION}"
    rf"|\bam\s+i\s+(?:dying|diabetic|pregnant)\b"
    r"|\bwhat\s+(?:disease|illness|condition|infection|is wrong with me|do i have)\b"
    r"|\b(?:diagnose|diagnosis for)\s+(?:me|my|this|him|her)\b"
    r"|\bwhat(?:'s| is)\s+wrong with me\b",
    re.IGNORECASE,
)
_OFF_TOPIC = re.compile(
    r"\b(?:weather|forecast|temperature outside|news|headlines|football|soccer|cricket|basketball|match score|"
    r"stock(?:s| price| market)|bitcoin|crypto|recipes?|jokes?|poems?|story about|movies?|films?|songs?|lyrics|"
    r"capital of|president|prime minister|election|translate|homework|write (?:me )?(?:code|an essay|a letter)|"
    r"python code|horoscope|lottery numbers|traffic|flight|hotel|restaurant)\b",
    re.IGNORECASE,
)
# "My joints ache when the weather turns", "a headache after the news": a symptom keeps it in scope.
_CARE_WORDS = re.compile(
    r"\b(?:under the weather|feel|feels|feeling|felt|unwell|not well|tired|"
    r"appointment|doctor|specialist|book|booking|symptoms?|pain|ache|aches|hurts?|sore|sick|ill|fever|"
    r"medicine|medication|pills?|reminder|vitals?|heart|blood|sleep|report|sos|ambulance|emergency|clinic|"
    r"hospital|nurse)\b",
    re.IGNORECASE,
)


def out_of_scope(message: str) -> str | None:
    """The kind of request the assistant does not do (``PRESCRIBE``, ``DIAGNOSE``, ``OFF_TOPIC``),
    or None: everything else goes to the model."""
    text = " ".join(str(message).split())
    if not text:
        return None
    if _PRESCRIBE.search(text) and not _OWN_PRESCRIPTION.search(text):
        return PRESCRIBE
    if _DIAGNOSE.search(text):
        return DIAGNOSE
    if _OFF_TOPIC.search(text) and not _CARE_WORDS.search(text) and not _names_a_symptom(text):
        return OFF_TOPIC
    return None


def _names_a_symptom(text: str) -> bool:
    from agents.tools.said import symptoms_in  # the symptom lexicon, typos read (loads spaCy once)

    return bool(symptoms_in(text))


def reply(kind: str) -> str:
    """The answer for ``kind`` (agents/templates/agents/scope_<kind>.txt), on one line."""
    return " ".join(render_to_string(f"agents/scope_{kind}.txt").split())
