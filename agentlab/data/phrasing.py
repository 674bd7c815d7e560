"""Combinatorial phrasing of user messages about symptoms.

``complaint`` writes the first message of an appointment conversation from a
disease of :mod:`agentlab.data.bank`: it samples symptoms (the most characteristic
one usually among them), orders them at random, picks a template family (terse
list, chatty story, formal register, texting style, ...) and fills it with lay or
clinical wording, durations, onset and severity. ``vague_complaint`` writes the
non-committal first message of a "counter" conversation and ``follow_up_answer``
the user's reply to "can you tell me more about your symptoms?".

Diseases booked with a pediatrician are described by a parent about a child
("my 4-year-old son ..."); ``Complaint.child`` then says "son" or "daughter", and
``follow_up_answer(..., child=...)`` keeps the same voice.

Every function is deterministic given its ``random.Random``; iteration over the
``templates`` collection is sorted so set ordering never leaks in.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from agentlab.data.bank import CHILD_LAY, COUNTABLE, NOT_NOUN_PHRASE, SYMPTOMS, Disease, Symptom


@dataclass(frozen=True)
class Complaint:
    text: str
    symptoms: tuple[str, ...]
    template: str
    child: str | None = None  # "son" or "daughter" when a parent writes about a child


# --------------------------------------------------------------------------- voice


_PRONOUNS = {"son": ("he", "his", "him"), "daughter": ("she", "her", "her")}
_INFANT_DISEASES = frozenset({"Infant Colic", "Bronchiolitis"})


@dataclass(frozen=True)
class _Voice:
    """Who the symptoms belong to: the writer, or the writer's child."""

    child: str | None = None  # "son" / "daughter"
    noun: str = ""  # "son", "little girl", "baby boy"
    age: str = ""  # "4-year-old", "6-week-old"
    age_years: str = ""  # "4", "6 weeks"

    @property
    def he(self) -> str:
        return _PRONOUNS[self.child][0] if self.child else "I"

    @property
    def his(self) -> str:
        return _PRONOUNS[self.child][1] if self.child else "my"

    @property
    def him(self) -> str:
        return _PRONOUNS[self.child][2] if self.child else "me"

    def fill(self, text: str, **extra: str) -> str:
        return text.format(he=self.he, his=self.his, him=self.him, **extra)

    def lay(self, s: Symptom, rng: random.Random) -> str:
        if self.child:
            options = CHILD_LAY.get(s.key)
            if options:
                return self.fill(rng.choice(options))
            return self.fill("{he} has ") + _np(s) if s.key not in NOT_NOUN_PHRASE else rng.choice(s.lay)
        return rng.choice(s.lay)

    def have(self, s: Symptom, rng: random.Random) -> str:
        """A clause naming the clinical term ("I've been experiencing nausea"), lay if it cannot."""
        if s.key in NOT_NOUN_PHRASE:
            return self.lay(s, rng)
        if self.child:
            frame = rng.choice(("{he} has ", "{he}'s had ", "{he}'s got "))
        else:
            frame = rng.choice(
                ("I have ", "I've had ", "I've been experiencing ", "I've got ", "I'm dealing with ", "I've noticed ")
            )
        return self.fill(frame) + _np(s)

    def mention(self, s: Symptom, rng: random.Random, clinical: float = 0.3) -> str:
        if self.child:
            clinical /= 3  # parents describe rather than name
        return self.have(s, rng) if rng.random() < clinical else self.lay(s, rng)

    def had(self) -> str:
        return self.fill("{he}'s had ") if self.child else "I've had "

    def who(self) -> str:
        """ "my 4-year-old son" / "my son" """
        return f"my {self.age} {self.noun}" if self.age else f"my {self.noun}"


def _child_voice(rng: random.Random, disease: Disease) -> _Voice:
    child = rng.choice(("son", "daughter"))
    boy = child == "son"
    if disease.name in _INFANT_DISEASES:
        weeks = rng.choice((3, 5, 6, 8, 10, 12))
        months = rng.choice((2, 3, 4, 5, 7, 9))
        if disease.name == "Infant Colic" or rng.random() < 0.3:
            age, years = f"{weeks}-week-old", f"{weeks} weeks"
        else:
            age, years = f"{months}-month-old", f"{months} months"
        noun = rng.choice(("baby boy", "son", "little boy") if boy else ("baby girl", "daughter", "little girl"))
    else:
        n = rng.randint(2, 12)
        age, years = f"{n}-year-old", str(n)
        noun = rng.choice(
            ("son", "son", "boy", "little boy") if boy else ("daughter", "daughter", "girl", "little girl")
        )
    if rng.random() < 0.3:
        age = ""
    return _Voice(child=child, noun=noun, age=age, age_years=years)


def _voice_for(rng: random.Random, disease: Disease) -> _Voice:
    return _child_voice(rng, disease) if disease.specialization == "pediatrician" else _Voice()


# --------------------------------------------------------------------------- small helpers


def _np(s: Symptom) -> str:
    if s.key in COUNTABLE:
        vowel = s.clinical[0] in "aeiou" and not s.clinical.startswith("one")
        return ("an " if vowel else "a ") + s.clinical
    return s.clinical


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _join(parts: Sequence[str], rng: random.Random) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    last = ", and " if len(parts) > 2 and rng.random() < 0.3 else " and "
    return ", ".join(parts[:-1]) + last + parts[-1]


def _bare(s: Symptom) -> str:
    return s.clinical


_ACUTE_SPECIALIZATIONS = frozenset({"infectious disease specialist", "pediatrician"})
_ACUTE_DISEASES = frozenset(
    {
        "Influenza", "COVID-19", "Common Cold", "Viral Fever", "Viral Gastroenteritis", "Heat Exhaustion",
        "Pneumonia", "Bronchitis", "Sinusitis", "Tonsillitis", "Otitis Media", "Otitis Externa", "Laryngitis",
        "Appendicitis", "Kidney Stones", "Stroke", "Meningitis", "Encephalitis", "Pulmonary Embolism",
        "Deep Vein Thrombosis", "Pericarditis", "Myocarditis", "Takotsubo Cardiomyopathy", "Guillain-Barre Syndrome",
        "Bell's Palsy", "Conjunctivitis", "Stye", "Retinal Detachment", "Urinary Tract Infection", "Kidney Infection",
        "Epididymitis", "Ankle Sprain", "Knee Ligament Injury", "Gout", "Skin Abscess", "Perianal Abscess",
        "Impetigo", "Shingles", "Contact Dermatitis", "Drug Allergy", "Insect Sting Allergy", "Food Allergy",
        "Hepatitis A", "Diverticulitis", "Gallstones", "Pleurisy", "Vaginal Yeast Infection", "Bacterial Vaginosis",
        "Anal Fissure", "Chlamydia", "Gonorrhea", "Herpes", "Cluster Headache",
    }
)  # fmt: skip

_ACUTE_SINCE = (
    "since this morning", "since last night", "since yesterday", "for two days", "for 2 days", "for three days",
    "for the past few days", "for the last 48 hours", "since Monday", "since the weekend", "for about a week",
    "for 4 or 5 days", "since Friday", "for a day or two",
)  # fmt: skip
_CHRONIC_SINCE = (
    "for a couple of weeks", "for about 2 weeks", "since last week", "on and off for a month", "for over a month",
    "for several months", "for almost a year", "on and off for a few weeks", "for 6 months or so",
    "for the past year", "for ages", "for about three months", "since the summer", "since the new year",
)  # fmt: skip
_ACUTE_AGO = (
    "yesterday", "two days ago", "3 days ago", "last night", "on Monday", "over the weekend", "this morning",
    "a few days ago", "on Friday",
)  # fmt: skip
_CHRONIC_AGO = (
    "a few weeks ago", "last month", "about 3 months ago", "sometime last year", "a couple of months ago",
    "around Christmas", "in the spring", "about six weeks ago",
)  # fmt: skip

_SEVERITY = (
    "It's pretty bad.", "It's mild but it won't go away.", "It's getting worse every day.",
    "On a scale of 1 to 10 it's about a 7.", "It's not terrible, but it's worrying me.",
    "Some days are worse than others.", "It's really affecting my sleep.", "I've had to take time off work.",
    "Honestly it's a 4 out of 10, just annoying.", "It's bad enough that I can't focus on anything else.",
    "Painkillers haven't helped much.",
)  # fmt: skip
_CHILD_SEVERITY = (
    "{he}'s really not {him}self.", "It seems to be getting worse.", "{he}'s had to stay home from school.",
    "Calpol helps a bit but it comes back.", "{he} was up most of the night.", "It's not terrible but I'm worried.",
    "{he}'s usually so lively and now {he} just lies around.",
)  # fmt: skip
_ONSET_ACUTE = (
    "It came on suddenly {ago}.", "It all began {ago}, out of nowhere.", "It kicked off {ago}.",
    "The first thing I noticed was {ago}.", "It hit me {ago}.", "I was completely fine until {ago}.",
)  # fmt: skip
_ONSET_CHRONIC = (
    "It started gradually {ago}.", "It crept up on me, starting {ago}.", "The first thing I noticed was {ago}.",
    "It began slowly {ago} and hasn't let up.", "I first noticed something {ago}.",
)  # fmt: skip
_CHILD_ONSET = (
    "It came on suddenly {ago}.", "{he} started feeling poorly {ago}.", "It all began {ago}.",
    "I first noticed it {ago}.",
)  # fmt: skip
_GREETINGS = ("", "", "", "Hi. ", "Hello. ", "Hi there! ", "Hey. ", "Good morning. ", "Evening. ")
_CLOSINGS = (
    "", "What should I do?", "Can you help?", "Who should I see?", "Any advice?", "I'd like to see a doctor.",
    "Can you book me in with someone?", "Please help.", "Not sure what to do.", "Which doctor should I go to?",
)  # fmt: skip
_CHILD_CLOSINGS = (
    "", "What should I do?", "Who should we see?", "Can you help?", "I'd like {him} to see a doctor.",
    "Can you book {him} in with someone?", "Should I take {him} to a doctor?",
)  # fmt: skip

_GUESSES = {
    "Influenza": "the flu", "Common Cold": "just a cold", "Viral Fever": "some virus", "COVID-19": "covid",
    "Migraine": "a migraine", "Tension Headache": "a stress headache", "Hemorrhoids": "piles",
    "Kidney Stones": "a kidney stone", "Urinary Tract Infection": "a UTI", "Conjunctivitis": "pink eye",
    "Hay Fever": "hay fever", "Chickenpox": "chickenpox", "Ankle Sprain": "a sprain", "Gout": "gout",
    "Viral Gastroenteritis": "a stomach bug", "Childhood Gastroenteritis": "a tummy bug", "Tonsillitis": "tonsillitis",
    "Sinusitis": "a sinus infection", "Otitis Media": "an ear infection", "Childhood Ear Infection": "an ear infection",
    "Depression": "depression", "Insomnia": "insomnia", "Food Allergy": "an allergy", "Drug Allergy": "an allergy",
    "Vaginal Yeast Infection": "thrush", "Gallstones": "gallstones", "Inguinal Hernia": "a hernia",
    "Umbilical Hernia": "a hernia", "Varicose Veins": "varicose veins", "Heat Exhaustion": "too much sun",
    "Acne": "just bad skin", "Lower Back Strain": "a pulled muscle", "Asthma": "asthma", "Anemia": "low iron",
    "Croup": "croup", "Infant Colic": "colic", "Panic Disorder": "panic attacks", "Stye": "a stye",
    "Sciatica": "sciatica", "Hypertension": "my blood pressure", "Obesity": "my weight",
}  # fmt: skip
_CHILD_GUESSES = (
    "a bug from nursery",
    "something going round school",
    "a virus",
    "nothing serious",
    "just a cold",
)
_GENERIC_GUESSES = (
    "nothing serious", "just stress", "something minor", "something I picked up", "my age catching up with me",
    "a virus", "overdoing it at work", "something I ate",
)  # fmt: skip

_RELATIONS = ("partner", "mum", "friend", "sister", "brother", "flatmate", "colleague", "daughter", "son")
_SPOUSES = ("wife", "husband")
_SEX_SPECIFIC_SPECIALIZATIONS = frozenset({"gynecologist", "urologist"})
# Symptoms another person can notice, so "my wife says <clause>" reads naturally.
_OBSERVABLE = frozenset(
    {
        "snoring", "breathing_pauses", "confusion", "memory_loss", "disorientation", "personality_change",
        "slurred_speech", "facial_droop", "pale_skin", "jaundice", "staring_spells", "mood_swings", "irritability",
        "tremor", "shuffling_gait", "balance_problems", "weight_loss", "weight_gain", "bulging_eyes", "round_face",
        "involuntary_movements", "daytime_sleepiness", "sleep_attacks", "hearing_loss", "cough", "night_cough",
        "wheezing", "red_eye", "hoarseness", "bad_breath", "restlessness", "inattention", "impulsivity",
        "disorganization", "social_withdrawal", "elevated_mood", "reckless_behavior", "tearfulness", "hypervigilance",
        "stooped_posture", "height_loss", "facial_redness", "hair_loss", "bald_patches", "puffy_eyes", "puffy_face",
        "swollen_cheeks", "neck_swelling", "falls", "drooping_eyelids", "facial_weakness", "compulsions",
        "overeating", "binge_eating", "skipping_meals", "frequent_snacking", "poor_diet", "trouble_sleeping",
        "nightmares", "agitation", "hallucinations", "muscle_twitching", "abnormal_posture", "sneezing",
    }
)  # fmt: skip


@dataclass(frozen=True)
class _Ctx:
    disease: Disease
    voice: _Voice
    acute: bool

    def since(self, rng: random.Random) -> str:
        pool = _ACUTE_SINCE if self.acute else _CHRONIC_SINCE
        if rng.random() < 0.1 and not self.voice.child:
            pool = _CHRONIC_SINCE if self.acute else _ACUTE_SINCE
        return rng.choice(pool)

    def sinces(self, rng: random.Random, n: int) -> list[str]:
        pool = list(_ACUTE_SINCE if self.acute else _CHRONIC_SINCE)
        return rng.sample(pool, min(n, len(pool)))

    def ago(self, rng: random.Random) -> str:
        return rng.choice(_ACUTE_AGO if self.acute else _CHRONIC_AGO)

    def closing(self, rng: random.Random) -> str:
        if self.voice.child:
            return self.voice.fill(rng.choice(_CHILD_CLOSINGS))
        return rng.choice(_CLOSINGS)

    def severity(self, rng: random.Random) -> str:
        if self.voice.child:
            return _cap(self.voice.fill(rng.choice(_CHILD_SEVERITY)))
        return rng.choice(_SEVERITY)

    def intro(self, rng: random.Random) -> str:
        """Adult: an optional greeting. Child: the sentence that introduces the child."""
        greet = rng.choice(_GREETINGS)
        if not self.voice.child:
            return greet
        v = self.voice
        lines = (
            f"{_cap(v.who())} isn't well.",
            f"I'm writing about {v.who()}.",
            f"{_cap(v.who())} has been poorly.",
            f"It's about {v.who()}.",
            f"{_cap(v.who())} is unwell and I'm not sure what to do.",
            f"I need some advice about {v.who()}.",
        )
        return greet + rng.choice(lines) + " "


def _sentences(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


def _is_np(s: Symptom) -> bool:
    return s.key not in NOT_NOUN_PHRASE


# --------------------------------------------------------------------------- template families
# Each family takes (rng, symptoms, ctx) and returns (text, symptoms in mention order).

_Family = Callable[[random.Random, list[Symptom], _Ctx], tuple[str, list[Symptom]]]


def _clauses(rng: random.Random, syms: Sequence[Symptom], v: _Voice, clinical: float = 0.25) -> str:
    return _join([v.mention(s, rng, clinical) for s in syms], rng)


def _terse_list(rng, syms, ctx):
    v = ctx.voice
    items = ", ".join(_bare(s) for s in syms)
    tail = rng.choice(("", f" {ctx.since(rng)}", f". Started {ctx.ago(rng)}", f", {ctx.since(rng)}"))
    body = _cap(items) + tail + rng.choice((".", "", "."))
    if v.child:
        head = rng.choice(
            (
                f"{_cap(v.noun)}, {v.age_years}: ",
                f"My {v.noun} ({v.age_years}) - ",
                f"For {v.who()}: ",
                f"{_cap(v.who())}: ",
            )
        )
        body = head + items + tail + "."
    return body.strip(), list(syms)


def _chatty_story(rng, syms, ctx):
    v = ctx.voice
    first, rest = syms[0], syms[1:]
    ago = ctx.ago(rng)
    if v.child:
        openings = [
            f"So {v.who()} started feeling poorly {ago}, and at first {v.he} just seemed tired.",
            f"So it started {ago} with {v.who()}.",
            f"{_cap(v.who())} was fine until {ago}, then {v.he} went downhill.",
        ]
        if v.age_years.isdigit() and int(v.age_years) >= 5:
            openings.append(f"Long story short, {v.who()} came home from school {ago} saying {v.he} felt rubbish.")
        opening = rng.choice(openings)
    else:
        opening = rng.choice(
            (
                f"So it all started {ago}.",
                f"Long story, but it started {ago} and I brushed it off at first.",
                f"Things haven't been great. It started {ago}.",
                f"I was fine until {ago}, then things went downhill.",
            )
        )
    middle = _cap(v.mention(first, rng, 0.2)) + "."
    if rest:
        middle += (
            " "
            + rng.choice(("Now ", "Since then ", "On top of that, ", "And now ", "Then "))
            + _clauses(rng, rest, v)
            + "."
        )
    after = rng.choice(
        (
            "I thought it would pass but it hasn't.",
            "We've tried rest and plenty of fluids but it's not getting better."
            if v.child
            else "I've been resting and drinking water but it's not getting better.",
            "I didn't want to make a fuss, but here we are.",
            "",
        )
    )
    greet = rng.choice(_GREETINGS) if not v.child else rng.choice(("", "Hi. ", "Hello. "))
    return _sentences(greet + opening, middle, after, ctx.closing(rng)), list(syms)


def _formal(rng, syms, ctx):
    v = ctx.voice
    greet = rng.choice(("Good morning.", "Good afternoon.", "Dear Sir or Madam,", "Hello.", "Good day."))
    nps = [s for s in syms if _is_np(s)]
    others = [s for s in syms if not _is_np(s)]
    if v.child:
        grand = "grandson" if v.child == "son" else "granddaughter"
        age = f"{v.age_years} years" if v.age_years.isdigit() else v.age_years
        intro = f"I am writing on behalf of my {grand}, who is {age} old."
        subject = v.he + " has"
    else:
        age = rng.randint(62, 89)
        intro = rng.choice(
            (
                f"I am {age} years old and I would like some advice.",
                "I would like to ask for some advice regarding my health.",
                f"I am a retired teacher of {age} and I am rather concerned about my health.",
            )
        )
        subject = "I have"
    parts = [greet, intro]
    order: list[Symptom] = []
    if nps:
        leads = ("Recently", "Lately", "For the past few days") if ctx.acute else ("For some time now", "Recently")
        lead = rng.choice(leads if v.child else (*leads, "Lately", "Over the past weeks"))
        listed = _join([_np(s) for s in nps], rng)
        parts.append(f"{lead}, {subject} been troubled by {listed}.")
        order += nps
    connectives = rng.sample(
        ("In addition, ", "Furthermore, ", "I should also mention that ", "Also, ", "Moreover, "), 5
    )
    for i, s in enumerate(others):
        parts.append(connectives[i % len(connectives)] + v.lay(s, rng) + ".")
        order.append(s)
    parts.append(
        rng.choice(
            (
                f"I would be grateful if you could arrange for {v.him} to see the appropriate doctor.",
                f"Kindly advise which specialist {v.he} ought to consult.",
                "I should be most obliged if an appointment could be made.",
            )
        )
    )
    return _sentences(*parts), order


def _worried(rng, syms, ctx):
    v = ctx.voice
    opener = (
        rng.choice(
            (
                f"I'm really worried about {v.who()}.",
                f"I'm quite scared, {v.who()} isn't right.",
                f"Sorry if this is silly but I'm worried about {v.who()}.",
            )
        )
        if v.child
        else rng.choice(
            (
                "I'm really worried.",
                "I'm a bit scared, to be honest.",
                "Sorry if this is nothing, but I'm anxious about it.",
                "I'm starting to panic a little.",
                "This is freaking me out.",
            )
        )
    )
    body = _cap(_clauses(rng, syms, v)) + "."
    span = rng.choice(("", f"It's been like this {ctx.since(rng)}.", f"This has been going on {ctx.since(rng)}."))
    ask = rng.choice(
        (
            "Is this something serious?",
            "Should I be worried?",
            "Could this be something bad?",
            "Do I need to see someone urgently?",
            "I don't want to ignore it if it's serious.",
        )
    )
    return _sentences(opener, body, span, ask), list(syms)


def _texting(rng, syms, ctx):
    v = ctx.voice
    head = (
        rng.choice((f"hi {v.who()} is sick", f"{v.who()} not well", f"hey quick q about {v.who()}"))
        if v.child
        else rng.choice(("hey", "hi", "hiya", "ok so", "um", ""))
    )
    body = _clauses(rng, syms, v, 0.15)
    tail = rng.choice(("", ctx.since(rng), f"started {ctx.ago(rng)}"))
    ask = rng.choice(("what do i do", "who shd i see", "help", "need a doc", "pls help", "any ideas", ""))
    text = " ".join(p for p in (head, body, tail, ask) if p)
    text = text.lower()
    text = re.sub(r"[.,!?;:()]", "", text)
    if rng.random() < 0.5:
        text = text.replace("'", "")
    text = re.sub(r"\byou\b", "u", text)
    text = re.sub(r"\band\b", lambda m: "n" if rng.random() < 0.3 else "and", text)
    text = re.sub(r"\bplease\b", "pls", text)
    return re.sub(r"\s+", " ", text).strip(), list(syms)


def _symptom_duration(rng, syms, ctx):
    v = ctx.voice
    nps = [s for s in syms if _is_np(s)]
    others = [s for s in syms if not _is_np(s)]
    sinces = ctx.sinces(rng, len(nps))
    order: list[Symptom] = []
    parts: list[str] = []
    if nps:
        items = [f"{_np(s)} {d}" for s, d in zip(nps, sinces, strict=False)]
        if rng.random() < 0.5:
            lead = v.had() if not v.child else f"{_cap(v.who())} has had "
            parts.append(_cap(lead + _join(items, rng)) + ".")
        else:
            bare = [f"{_bare(s)} {d}" for s, d in zip(nps, sinces, strict=False)]
            joined = ", ".join(bare)
            parts.append(f"{_cap(v.who())}: {joined}." if v.child else _cap(joined) + ".")
        order += nps
    for s in others:
        parts.append(_cap(rng.choice(("also ", "and ", "")) + v.lay(s, rng)) + ".")
        order.append(s)
    parts.append(ctx.closing(rng))
    return _sentences(*parts), order


def _duration_first(rng, syms, ctx):
    v = ctx.voice
    nps = [s for s in syms if _is_np(s)]
    others = [s for s in syms if not _is_np(s)]
    since = ctx.since(rng)
    order: list[Symptom] = []
    parts = [ctx.intro(rng)] if v.child else []
    if nps:
        k = len(nps) if not others and len(nps) < 3 else max(1, len(nps) - rng.randint(0, 1))
        head, tail = nps[:k], nps[k:]
        subj = v.fill("{he}'s had") if v.child else rng.choice(("I've had", "I've been dealing with", "I've had"))
        sentence = f"{_cap(since)}, {subj} {_join([_np(s) for s in head], rng)}"
        order += head
        if tail:
            sentence += ", and " + _join([v.lay(s, rng) for s in tail], rng)
            order += tail
        parts.append(sentence + ".")
    for s in others:
        parts.append(_cap(rng.choice(("also, ", "", "oh and ")) + v.lay(s, rng)) + ".")
        order.append(s)
    if not nps:
        parts.append(f"It's been like this {since}.")
    return _sentences(*parts), order


def _reported(rng, syms, ctx):
    v = ctx.voice
    first, rest = syms[0], syms[1:]
    if v.child:
        who = rng.choice(("nursery", "school", "teacher", "childminder", "grandma"))
        article = "The" if who in ("nursery", "school") else v.his.capitalize()
        lead = rng.choice(
            (
                f"{article} {who} called to say {v.lay(first, rng)}.",
                f"{article} {who} noticed that {v.lay(first, rng)}.",
            )
        )
        lead = f"It's about {v.who()}. " + lead
    else:
        relations = _RELATIONS if ctx.disease.specialization in _SEX_SPECIFIC_SPECIALIZATIONS else _RELATIONS + _SPOUSES
        rel = rng.choice(relations)
        if first.key in _OBSERVABLE and rng.random() < 0.7:
            lead = rng.choice(
                (f"My {rel} says {v.lay(first, rng)}.", f"My {rel} keeps telling me {v.lay(first, rng)}.")
            )
        else:
            lead = rng.choice(
                (
                    f"My {rel} told me to get checked because {v.mention(first, rng, 0.2)}.",
                    f"My {rel} made me write this: {v.mention(first, rng, 0.2)}.",
                    f"My {rel} is nagging me to see someone since {v.mention(first, rng, 0.2)}.",
                )
            )
    parts = [lead]
    if rest:
        parts.append(_cap(rng.choice(("also ", "and ", "on top of that ", "")) + _clauses(rng, rest, v)) + ".")
    parts.append(rng.choice(("", f"It's been going on {ctx.since(rng)}.", ctx.closing(rng))))
    return _sentences(*parts), list(syms)


def _severity_onset(rng, syms, ctx):
    v = ctx.voice
    adult = _ONSET_ACUTE if ctx.acute else _ONSET_CHRONIC
    onset = v.fill(rng.choice(_CHILD_ONSET if v.child else adult), ago=ctx.ago(rng))
    parts = [ctx.intro(rng), _cap(onset), _cap(_clauses(rng, syms, v)) + ".", ctx.severity(rng)]
    if rng.random() < 0.4:
        parts.append(ctx.closing(rng))
    return _sentences(*parts), list(syms)


def _mixed_register(rng, syms, ctx):
    v = ctx.voice
    start = rng.random() < 0.5
    bits = [v.have(s, rng) if (i % 2 == 0) == start else v.lay(s, rng) for i, s in enumerate(syms)]
    parts = [ctx.intro(rng), _cap(_join(bits, rng)) + "."]
    parts.append(rng.choice(("", f"It's been going on {ctx.since(rng)}.", ctx.closing(rng))))
    return _sentences(*parts), list(syms)


def _question(rng, syms, ctx):
    v = ctx.voice
    about = _join([_np(s) if _is_np(s) else _bare(s) for s in syms], rng)
    if v.child:
        forms = (
            f"Should I take {v.him} to see someone about {about}?",
            f"Who should we see if {_clauses(rng, syms, v, 0.1)}?",
            f"Does {v.he} need a doctor for {about}?",
        )
    else:
        forms = (
            f"Should I see someone about {about}?",
            f"Who should I see if {_clauses(rng, syms, v, 0.1)}?",
            f"Do I need a doctor for {about}?",
            f"Is it normal that {_clauses(rng, syms, v, 0.1)}?",
            f"What kind of doctor deals with {about}?",
        )
    q = rng.choice(forms)
    extra = rng.choice(("", f"It's been going on {ctx.since(rng)}.", "Thanks."))
    return _sentences(ctx.intro(rng) if v.child else rng.choice(_GREETINGS), q, extra), list(syms)


def _self_guess(rng, syms, ctx):
    v = ctx.voice
    guess = _GUESSES.get(ctx.disease.name) if rng.random() < 0.6 else None
    guess = guess or rng.choice(_CHILD_GUESSES if v.child else _GENERIC_GUESSES)
    if v.child:
        lead = rng.choice(
            (
                f"I think {v.who()} might have {guess}.",
                f"My mum reckons {v.who()} has {guess}, but I'm not sure.",
            )
        )
    else:
        lead = rng.choice(
            (
                f"I think it might be {guess}.",
                f"Probably {guess}, but I'd rather check.",
                f"My friend thinks it's {guess}, I'm not so sure.",
                f"I was hoping it was {guess}, but it's not going away.",
            )
        )
    body = _cap(_clauses(rng, syms, v)) + "."
    parts = [lead, body] if v.child or rng.random() < 0.6 else [body, lead]
    parts.append(rng.choice(("", f"It's been going on {ctx.since(rng)}.")))
    return _sentences(*parts), list(syms)


def _clinical(rng, syms, ctx):
    v = ctx.voice
    listed = _join([_bare(s) for s in syms], rng)
    since = ctx.since(rng)
    if v.child:
        forms = (
            f"Patient is my {v.noun}, age {v.age_years}. Presenting with {listed}, {since}. Please advise.",
            f"I'm a nurse; my {v.noun} ({v.age_years}) has {listed} {since}.",
        )
    else:
        forms = (
            f"Presenting complaint: {listed}, {since}. Requesting a referral to the right specialist.",
            f"I'm a nurse, so briefly: {listed} {since}. Which specialty?",
            f"Symptoms are {listed}, duration {since.removeprefix('for ')}. No relevant history.",
            f"Reporting {listed}. Onset {ctx.ago(rng)}.",
        )
    return rng.choice(forms), list(syms)


def _bullets(rng, syms, ctx):
    v = ctx.voice
    mark = rng.choice(("- ", "* ", "• "))
    head = (
        rng.choice((f"{_cap(v.his)} {v.noun}'s symptoms:", f"Symptoms ({v.noun}):"))
        if v.child
        else rng.choice(("Symptoms:", "My symptoms:", "Here's what's going on:", "List of symptoms:"))
    )
    if v.child:
        head = rng.choice((f"{_cap(v.who())}'s symptoms:", f"Symptoms for {v.who()}:"))
    lines = [head] + [mark + _bare(s) for s in syms]
    lines.append(rng.choice((f"Started {ctx.ago(rng)}.", f"Going on {ctx.since(rng)}.", "")))
    return "\n".join(line for line in lines if line), list(syms)


def _help_request(rng, syms, ctx):
    v = ctx.voice
    ask = (
        rng.choice(
            (
                f"Can you find a doctor for {v.who()}?",
                f"I need an appointment for {v.who()} please.",
                f"Could you book someone to see {v.who()}?",
            )
        )
        if v.child
        else rng.choice(
            (
                "Can you book me a doctor?",
                "I need an appointment please.",
                "Could you find me someone to see?",
                "I'd like to book an appointment.",
                "Please get me in with a doctor.",
            )
        )
    )
    body = _cap(_clauses(rng, syms, v)) + "."
    span = rng.choice(("", f"It's been going on {ctx.since(rng)}.", f"It started {ctx.ago(rng)}."))
    return _sentences(ask, body, span), list(syms)


def _rambling(rng, syms, ctx):
    v = ctx.voice
    lead = (
        rng.choice((f"ok so um, {v.who()}", f"so basically {v.who()}", f"right so {v.who()}")) + " isn't well, and "
        if v.child
        else rng.choice(("ok so um, ", "so basically ", "right so, ", "well, ", "ok so like "))
    )
    bits = [v.mention(s, rng, 0.15) for s in syms]
    glue = [rng.choice((", and then ", ", and also ", ", and ", " and ", ", plus ")) for _ in bits[1:]]
    body = bits[0] + "".join(g + b for g, b in zip(glue, bits[1:], strict=True))
    end = rng.choice(
        (
            f", and it's been like this {ctx.since(rng)}, and I don't really know what to do",
            ", and yeah, I don't know",
            f", and it started {ctx.ago(rng)}, so yeah",
            ", and I'm not sure who to see",
        )
    )
    return _cap(lead + body + end) + rng.choice((".", "...", "")), list(syms)


_FAMILIES: dict[str, _Family] = {
    "terse_list": _terse_list,
    "chatty_story": _chatty_story,
    "formal": _formal,
    "worried": _worried,
    "texting": _texting,
    "symptom_duration": _symptom_duration,
    "duration_first": _duration_first,
    "reported_by_other": _reported,
    "severity_onset": _severity_onset,
    "mixed_register": _mixed_register,
    "question": _question,
    "self_guess": _self_guess,
    "clinical_register": _clinical,
    "bullet_list": _bullets,
    "help_request": _help_request,
    "rambling": _rambling,
}

TEMPLATE_IDS: tuple[str, ...] = tuple(_FAMILIES)


# --------------------------------------------------------------------------- public API


def _pick_symptoms(rng: random.Random, disease: Disease, n: int) -> list[Symptom]:
    keys = list(disease.symptoms)
    if rng.random() < 0.8:  # the most characteristic symptom is usually mentioned
        chosen = [keys[0], *rng.sample(keys[1:], n - 1)]
    else:
        chosen = rng.sample(keys, n)
    rng.shuffle(chosen)
    return [SYMPTOMS[k] for k in chosen]


def complaint(
    rng: random.Random,
    disease: Disease,
    *,
    n_symptoms: int | None = None,
    templates: Collection[str] | None = None,
    typo_rate: float = 0.0,
) -> Complaint:
    """A first message describing ``n_symptoms`` symptoms of ``disease`` (2-5 when None).

    ``n_symptoms`` above the disease's symptom count is capped at that count. ``templates``
    restricts the template families (ids of ``TEMPLATE_IDS``).
    """
    available = len(disease.symptoms)
    if n_symptoms is None:
        n = rng.randint(min(2, available), min(5, available))
    elif n_symptoms < 1:
        raise ValueError("n_symptoms must be at least 1")
    else:
        n = min(n_symptoms, available)
    if templates is None:
        families = list(TEMPLATE_IDS)
    else:
        families = sorted(set(templates))
        unknown = [t for t in families if t not in _FAMILIES]
        if unknown or not families:
            raise ValueError(f"unknown or empty template ids: {unknown}")
    family = rng.choice(families)
    voice = _voice_for(rng, disease)
    acute = disease.name in _ACUTE_DISEASES or disease.specialization in _ACUTE_SPECIALIZATIONS
    ctx = _Ctx(disease=disease, voice=voice, acute=acute)
    syms = _pick_symptoms(rng, disease, n)
    text, order = _FAMILIES[family](rng, syms, ctx)
    text = _tidy(text)
    if typo_rate > 0:
        text = add_typos(rng, text, typo_rate)
    return Complaint(text=text, symptoms=tuple(s.clinical for s in order), template=family, child=voice.child)


_VAGUE_KEYS = frozenset(
    {
        "fatigue", "malaise", "weakness", "fever", "headache", "dizziness", "nausea", "body_aches", "loss_of_appetite",
        "trouble_sleeping", "chills", "irritability", "fussiness", "lethargy", "abdominal_pain", "back_pain",
        "joint_pain", "bloating", "indigestion", "low_mood", "anxiety", "itching", "brain_fog", "weight_gain",
        "weight_loss", "cough", "pelvic_pain", "neck_pain", "unrefreshing_sleep", "poor_concentration",
    }
)  # fmt: skip
_VAGUE_STATEMENTS = (
    "I haven't felt right for a few days.", "Something's off with me and I can't put my finger on it.",
    "I just don't feel like myself lately.", "I've been feeling a bit rubbish recently.",
    "Not feeling great, not sure who to talk to.", "I think something is wrong but I don't know what.",
    "I've been under the weather for a while now.", "I'm not well and I don't know what kind of doctor I need.",
)  # fmt: skip
_VAGUE_REGIONS = {
    "gastroenterologist": "my stomach is off", "general surgeon": "my tummy feels strange",
    "hepatologist": "my stomach is off", "proctologist": "things down there aren't right",
    "cardiologist": "I don't feel right in my chest", "pulmonologist": "my chest doesn't feel right",
    "dermatologist": "my skin is acting up", "orthopedist": "my body aches in odd places",
    "ent": "my head feels stuffy", "ophthalmologist": "my eyes feel strange",
    "urologist": "something's not right with my waterworks", "gynecologist": "something feels off down there",
    "psychiatrist": "my head isn't in a good place", "dietician": "my eating has been all over the place",
}  # fmt: skip
_CHILD_VAGUE = (
    "{who} hasn't been {him}self for a couple of days.", "{who} seems off and I can't work out why.",
    "{who} is just not right today.", "{who} is under the weather and I'm not sure who to see.",
)  # fmt: skip


def vague_complaint(rng: random.Random, disease: Disease) -> Complaint:
    """A non-committal first message: one non-specific symptom of ``disease`` or none at all."""
    voice = _voice_for(rng, disease)
    candidates = [SYMPTOMS[k] for k in disease.symptoms if k in _VAGUE_KEYS]
    mentioned: tuple[str, ...] = ()
    if voice.child:
        opener = _cap(rng.choice(_CHILD_VAGUE).format(who=voice.who(), he=voice.he, his=voice.his, him=voice.him))
        if candidates and rng.random() < 0.6:
            s = rng.choice(candidates)
            text = _sentences(opener, _cap(voice.mention(s, rng, 0.3)) + ".", rng.choice(("", "Who should we see?")))
            mentioned = (s.clinical,)
        else:
            text = _sentences(opener, rng.choice(("What should I do?", "Can you help?", "")))
        return Complaint(text=_tidy(text), symptoms=mentioned, template="vague", child=voice.child)
    if candidates and rng.random() < 0.6:
        s = rng.choice(candidates)
        lead = rng.choice(
            ("I haven't been feeling great lately.", "Not feeling myself.", "Hi, I'm a bit unwell.", "", "Hello.")
        )
        clause = _cap(voice.mention(s, rng, 0.3)) + rng.choice((".", ", that's about it.", ", nothing else really."))
        ask = rng.choice(("Not sure who I should see.", "Can you help?", "What should I do?", ""))
        text = _sentences(lead, clause, ask)
        mentioned = (s.clinical,)
    else:
        statement = rng.choice(_VAGUE_STATEMENTS)
        region = _VAGUE_REGIONS.get(disease.specialization)
        if region and rng.random() < 0.4:
            statement = statement.rstrip(".") + f" and {region}."
        text = _sentences(statement, rng.choice(("", "Can you help?", "Who should I see?")))
    return Complaint(text=_tidy(text), symptoms=mentioned, template="vague")


def follow_up_answer(
    rng: random.Random,
    symptoms: Sequence[Symptom],
    *,
    typo_rate: float = 0.0,
    child: str | None = None,
) -> Complaint:
    """The user's reply to "can you tell me more?", naming every symptom of ``symptoms``.

    ``child`` ("son"/"daughter", as in ``Complaint.child``) answers as a parent about a child.
    """
    voice = _Voice(child=child, noun=child or "") if child else _Voice()
    syms = list(symptoms)
    if not syms:
        text = rng.choice(
            ("Not really, that's all.", "Nothing else that I've noticed.", "No, just what I said.", "That's it really.")
        )
        return Complaint(text=text, symptoms=(), template="follow_up", child=child)
    form = rng.randrange(8)
    if form == 0:
        lead = rng.choice(("Sure. ", "Yes, ", "OK, ", "Right. "))
        body = _clauses(rng, syms, voice)
        text = lead + (_cap(body) if lead.endswith(". ") else body) + "."
    elif form == 1:
        text = "Well, " + _clauses(rng, syms, voice) + "."
    elif form == 2:
        text = rng.choice(("Mainly ", "Mostly ", "Also ")) + _join([_bare(s) for s in syms], rng) + "."
    elif form == 3 and len(syms) > 1:
        text = (
            _cap(voice.mention(syms[0], rng))
            + ". "
            + rng.choice(("Oh, and ", "Also ", "And "))
            + _clauses(rng, syms[1:], voice)
            + "."
        )
    elif form == 4:
        text = "yes " + _clauses(rng, syms, voice, 0.1).lower()
    elif form == 5:
        text = "It's mostly that " + _clauses(rng, syms, voice) + "."
    elif form == 6:
        text = _cap(_clauses(rng, syms, voice)) + rng.choice((", if that helps.", ". That's everything.", "."))
    else:
        text = "Let me think... " + _clauses(rng, syms, voice) + "."
    text = _tidy(text)
    if typo_rate > 0:
        text = add_typos(rng, text, typo_rate)
    return Complaint(text=text, symptoms=tuple(s.clinical for s in syms), template="follow_up", child=child)


# --------------------------------------------------------------------------- typos

_NEIGHBOURS = {
    "a": "qsz", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj", "i": "uo", "j": "hk",
    "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o", "q": "w", "r": "et", "s": "ad", "t": "ry",
    "u": "yi", "v": "cb", "w": "qe", "x": "zc", "y": "tu", "z": "x",
}  # fmt: skip
_WORD = re.compile(r"\S+")


def _typo(rng: random.Random, word: str) -> str:
    letters = [i for i, c in enumerate(word) if c.isalpha()]
    for _ in range(4):
        kind = rng.randrange(5)
        if kind == 0 and len(letters) >= 3:  # swap two adjacent letters (not the first)
            i = rng.choice(letters[1:-1])
            if i + 1 < len(word) and word[i + 1].isalpha() and word[i] != word[i + 1]:
                return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        elif kind == 1 and len(letters) >= 4:  # drop a letter
            i = rng.choice(letters[1:])
            return word[:i] + word[i + 1 :]
        elif kind == 2:  # double a letter
            i = rng.choice(letters)
            return word[: i + 1] + word[i] + word[i + 1 :]
        elif kind == 3 and len(letters) >= 3:  # hit a neighbouring key
            i = rng.choice(letters[1:])
            near = _NEIGHBOURS.get(word[i].lower())
            if near:
                return word[:i] + rng.choice(near) + word[i + 1 :]
        elif kind == 4 and "'" in word:  # forget the apostrophe
            return word.replace("'", "", 1)
    return word[:-1] + word[-1] * 2 if word[-1].isalpha() else word


def add_typos(rng: random.Random, text: str, rate: float) -> str:
    """Typos (swapped, dropped, doubled or neighbouring letters) on about ``rate`` of the words.

    Words holding a digit, and words shorter than three letters, are left alone.
    """
    if rate <= 0:
        return text

    def repl(match: re.Match[str]) -> str:
        word = match.group(0)
        if any(c.isdigit() for c in word) or sum(c.isalpha() for c in word) < 3:
            return word
        if rng.random() >= rate:
            return word
        return _typo(rng, word)

    return _WORD.sub(repl, text)


def _tidy(text: str) -> str:
    text = re.sub(
        r"\b([Gg])oing on on and off", lambda m: ("C" if m.group(1) == "G" else "c") + "oming and going", text
    )
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r" ([.,?!])", r"\1", text)
    text = re.sub(r"(?<!\.)\.\.(?!\.)", ".", text)
    text = re.sub(r"\?\.", "?", text)
    return text.strip()
