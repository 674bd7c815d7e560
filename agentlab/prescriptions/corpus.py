"""Seeded prescriptions with ground truth: what the doctor meant, then how it was written.

Each prescription is generated in two steps. First the structured choice: 1 to 5 medicines from
``DRUGS`` (generic names are keys of ``health/scheduler/lexicon.json``), each with a strength, a
dose, a frequency, a duration and a relation to food. That choice *is* the ground truth, in the
reader's schema (see ``health/scheduler/extract.py``)::

    {"name": "paracetamol", "strength": "650 mg", "dose": 1, "times_per_day": 2,
     "times": ["08:00", "20:00"], "duration_days": 5, "with_food": "after"}

Then the writing: a layout (``LAYOUTS``: Indian one-liners, US "Sig:" blocks, two-line entries,
tables, and sentences) and, for every field, one of several phrasings a doctor uses ("BD", "b.i.d.",
"twice daily", "1-0-1", "q12h"...), framed by a header (clinic, doctor, patient, date, complaints,
diagnosis, vitals, "Rx") and a footer (advice, review, signature) that name no medicine to take. The
extractor is never run here: the truth never depends on the code it checks.

Conventions of the truth follow the extractor's documented rules: the times of a frequency
(``FREQUENCIES``), a bare number after a brand is mg ("Dolo 650" -> 650 mg), a syrup's dose in ml
(1 tsp = 5 ml) and its strength as a concentration ("250 mg/5 ml", or null when not written), weeks
x 7 and months x 30 days, "empty stomach" and "a.c." are before food, "p.c." after.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

LAYOUTS = ("indian", "us", "two_line", "table", "prose")
TIMES_SIGN = "\u00d7"  # the multiplication sign, as in "x 5 days" typeset; escaped so it is not misread as x

# -- medicines ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drug:
    """``generic``: the lexicon key (the truth's name). ``strengths``: "<number> <unit>" as the truth
    writes it. ``brands``: brand name as written -> the strengths it comes in. ``spelled``: other ways
    of writing the generic name (salt forms, combinations written out). ``halves``: a scored tablet
    that may be taken as half a tablet."""

    generic: str
    form: str  # tab, cap or syrup
    strengths: tuple[str, ...]
    brands: dict[str, tuple[str, ...]] = field(default_factory=dict)
    spelled: tuple[str, ...] = ()
    halves: bool = False


def _d(generic, form, strengths, brands=None, spelled=(), halves=False) -> Drug:
    return Drug(
        generic, form, tuple(strengths), {k: tuple(v) for k, v in (brands or {}).items()}, tuple(spelled), halves
    )


DRUGS: tuple[Drug, ...] = (
    _d(
        "paracetamol",
        "tab",
        ["500 mg", "650 mg"],
        {"Dolo": ["650 mg"], "Crocin": ["500 mg", "650 mg"], "Calpol": ["500 mg"], "Tylenol": ["325 mg", "500 mg"]},
        ["Acetaminophen"],
    ),
    _d(
        "amoxicillin",
        "cap",
        ["250 mg", "500 mg"],
        {"Mox": ["250 mg", "500 mg"], "Novamox": ["500 mg"], "Amoxil": ["500 mg"]},
    ),
    _d(
        "amoxicillin-clavulanate",
        "tab",
        ["625 mg"],
        {"Augmentin": ["625 mg"], "Clavam": ["625 mg"], "Moxclav": ["625 mg"]},
        ["Co-amoxiclav", "Amoxicillin-Clavulanate"],
    ),
    _d(
        "azithromycin",
        "tab",
        ["250 mg", "500 mg"],
        {"Azithral": ["500 mg"], "Azee": ["250 mg", "500 mg"], "Zithromax": ["250 mg"]},
    ),
    _d("cefixime", "tab", ["200 mg"], {"Taxim O": ["200 mg"], "Zifi": ["200 mg"], "Mahacef": ["200 mg"]}),
    _d("ciprofloxacin", "tab", ["250 mg", "500 mg"], {"Ciplox": ["500 mg"], "Cifran": ["500 mg"], "Cipro": ["500 mg"]}),
    _d("cefuroxime", "tab", ["250 mg", "500 mg"], {"Ceftin": ["250 mg", "500 mg"], "Zocef": ["500 mg"]}),
    _d("doxycycline", "cap", ["100 mg"], {"Doxy": ["100 mg"], "Vibramycin": ["100 mg"]}),
    _d("metronidazole", "tab", ["200 mg", "400 mg"], {"Flagyl": ["200 mg", "400 mg"], "Metrogyl": ["400 mg"]}),
    _d("nitrofurantoin", "cap", ["100 mg"], {"Macrobid": ["100 mg"], "Niftran": ["100 mg"]}),
    _d("fluconazole", "tab", ["150 mg"], {"Forcan": ["150 mg"], "Diflucan": ["150 mg"]}),
    _d(
        "metformin",
        "tab",
        ["500 mg", "850 mg", "1000 mg"],
        {"Glycomet": ["500 mg", "850 mg"], "Glucophage": ["500 mg", "1000 mg"], "Obimet": ["500 mg"]},
        ["Metformin HCl"],
        halves=True,
    ),
    _d(
        "glimepiride", "tab", ["1 mg", "2 mg"], {"Amaryl": ["1 mg", "2 mg"], "Glimestar": ["1 mg", "2 mg"]}, halves=True
    ),
    _d("sitagliptin", "tab", ["50 mg", "100 mg"], {"Januvia": ["50 mg", "100 mg"], "Istavel": ["100 mg"]}),
    _d(
        "amlodipine",
        "tab",
        ["2.5 mg", "5 mg", "10 mg"],
        {"Amlong": ["5 mg"], "Stamlo": ["5 mg", "10 mg"], "Norvasc": ["5 mg", "10 mg"]},
        halves=True,
    ),
    _d(
        "telmisartan",
        "tab",
        ["20 mg", "40 mg", "80 mg"],
        {"Telma": ["40 mg", "80 mg"], "Micardis": ["40 mg"]},
        halves=True,
    ),
    _d(
        "losartan",
        "tab",
        ["25 mg", "50 mg"],
        {"Losar": ["25 mg", "50 mg"], "Cozaar": ["50 mg"], "Repace": ["50 mg"]},
        ["Losartan Potassium"],
        halves=True,
    ),
    _d("lisinopril", "tab", ["5 mg", "10 mg", "20 mg"], {"Zestril": ["10 mg", "20 mg"], "Prinivil": ["10 mg"]}),
    _d(
        "metoprolol",
        "tab",
        ["25 mg", "50 mg"],
        {"Metolar": ["25 mg", "50 mg"], "Lopressor": ["50 mg"]},
        ["Metoprolol Tartrate"],
        halves=True,
    ),
    _d(
        "atorvastatin",
        "tab",
        ["10 mg", "20 mg", "40 mg"],
        {"Atorva": ["10 mg", "20 mg"], "Lipitor": ["20 mg", "40 mg"], "Storvas": ["10 mg"]},
    ),
    _d("rosuvastatin", "tab", ["5 mg", "10 mg", "20 mg"], {"Rosuvas": ["10 mg"], "Crestor": ["10 mg", "20 mg"]}),
    _d("clopidogrel", "tab", ["75 mg"], {"Clopilet": ["75 mg"], "Plavix": ["75 mg"], "Deplatt": ["75 mg"]}),
    _d("aspirin", "tab", ["75 mg", "81 mg", "150 mg"], {"Ecosprin": ["75 mg", "150 mg"]}),
    _d("furosemide", "tab", ["20 mg", "40 mg"], {"Lasix": ["20 mg", "40 mg"]}, ["Frusemide"], halves=True),
    _d("pantoprazole", "tab", ["40 mg"], {"Pan": ["40 mg"], "Pantocid": ["40 mg"], "Protonix": ["40 mg"]}),
    _d("omeprazole", "cap", ["20 mg", "40 mg"], {"Omez": ["20 mg"], "Prilosec": ["20 mg"]}),
    _d("rabeprazole", "tab", ["20 mg"], {"Razo": ["20 mg"], "Rablet": ["20 mg"]}),
    _d("famotidine", "tab", ["20 mg", "40 mg"], {"Famocid": ["20 mg", "40 mg"], "Pepcid": ["20 mg"]}),
    _d("ondansetron", "tab", ["4 mg", "8 mg"], {"Ondem": ["4 mg"], "Zofran": ["4 mg", "8 mg"]}),
    _d("domperidone", "tab", ["10 mg"], {"Domstal": ["10 mg"], "Motilium": ["10 mg"]}),
    _d("cetirizine", "tab", ["10 mg"], {"Cetzine": ["10 mg"], "Zyrtec": ["10 mg"], "Okacet": ["10 mg"]}),
    _d("levocetirizine", "tab", ["5 mg"], {"Levocet": ["5 mg"], "Xyzal": ["5 mg"]}),
    _d("fexofenadine", "tab", ["120 mg", "180 mg"], {"Allegra": ["120 mg", "180 mg"]}),
    _d("montelukast", "tab", ["10 mg"], {"Montair": ["10 mg"], "Singulair": ["10 mg"]}),
    _d("ibuprofen", "tab", ["200 mg", "400 mg"], {"Brufen": ["400 mg"], "Advil": ["200 mg"], "Motrin": ["400 mg"]}),
    _d("diclofenac", "tab", ["50 mg"], {"Voveran": ["50 mg"], "Voltaren": ["50 mg"]}, ["Diclofenac Sodium"]),
    _d("aceclofenac", "tab", ["100 mg"], {"Zerodol": ["100 mg"], "Hifenac": ["100 mg"]}),
    _d("tramadol", "tab", ["50 mg"], {"Ultram": ["50 mg"], "Contramal": ["50 mg"]}),
    _d("pregabalin", "cap", ["75 mg", "150 mg"], {"Lyrica": ["75 mg"], "Pregalin": ["75 mg"]}),
    _d("gabapentin", "cap", ["100 mg", "300 mg"], {"Neurontin": ["300 mg"], "Gabapin": ["100 mg", "300 mg"]}),
    _d(
        "levothyroxine",
        "tab",
        ["25 mcg", "50 mcg", "100 mcg"],
        {"Thyronorm": ["25 mcg", "50 mcg"], "Eltroxin": ["50 mcg", "100 mcg"], "Synthroid": ["50 mcg"]},
    ),
    _d(
        "prednisolone",
        "tab",
        ["5 mg", "10 mg", "20 mg"],
        {"Wysolone": ["10 mg", "20 mg"], "Omnacortil": ["10 mg"]},
        halves=True,
    ),
    _d("sertraline", "tab", ["25 mg", "50 mg"], {"Zoloft": ["50 mg"], "Daxid": ["25 mg", "50 mg"]}),
    _d("escitalopram", "tab", ["5 mg", "10 mg"], {"Nexito": ["10 mg"], "Lexapro": ["10 mg"]}, halves=True),
    _d("clonazepam", "tab", ["0.25 mg", "0.5 mg"], {"Clonotril": ["0.5 mg"], "Rivotril": ["0.5 mg"]}, halves=True),
    _d(
        "alprazolam", "tab", ["0.25 mg", "0.5 mg"], {"Alprax": ["0.25 mg", "0.5 mg"], "Xanax": ["0.25 mg"]}, halves=True
    ),
    _d("zolpidem", "tab", ["5 mg", "10 mg"], {"Ambien": ["5 mg", "10 mg"]}),
    _d("tamsulosin", "cap", ["0.4 mg"], {"Urimax": ["0.4 mg"], "Flomax": ["0.4 mg"]}),
    _d("folic acid", "tab", ["5 mg"], {"Folvite": ["5 mg"]}),
    _d("methylcobalamin", "tab", ["500 mcg", "1500 mcg"], {"Methycobal": ["500 mcg"], "Nurokind": ["1500 mcg"]}),
    _d("vitamin c", "tab", ["500 mg"], {"Limcee": ["500 mg"], "Celin": ["500 mg"]}),
    _d("albendazole", "tab", ["400 mg"], {"Zentel": ["400 mg"]}),
    _d("dicyclomine", "tab", ["10 mg", "20 mg"], {"Cyclopam": ["20 mg"], "Bentyl": ["10 mg", "20 mg"]}),
    _d("acyclovir", "tab", ["400 mg", "800 mg"], {"Zovirax": ["400 mg", "800 mg"]}),
    _d("hydroxychloroquine", "tab", ["200 mg"], {"HCQS": ["200 mg"], "Plaquenil": ["200 mg"]}),
    _d("warfarin", "tab", ["1 mg", "2 mg", "5 mg"], {"Coumadin": ["5 mg"]}),
    # Liquids: the strength is a concentration; a brand written without one has none.
    _d(
        "paracetamol",
        "syrup",
        ["120 mg/5 ml", "250 mg/5 ml"],
        {"Calpol": ["120 mg/5 ml", "250 mg/5 ml"], "Crocin": ["120 mg/5 ml"]},
    ),
    _d(
        "amoxicillin",
        "syrup",
        ["125 mg/5 ml", "250 mg/5 ml"],
        {"Mox": ["125 mg/5 ml", "250 mg/5 ml"], "Novamox": ["125 mg/5 ml"]},
    ),
    _d("ambroxol", "syrup", ["15 mg/5 ml", "30 mg/5 ml"], {"Ambrodil": ["15 mg/5 ml"], "Mucolite": ["30 mg/5 ml"]}),
    _d("cetirizine", "syrup", ["5 mg/5 ml"], {"Okacet": ["5 mg/5 ml"], "Zyrtec": ["5 mg/5 ml"]}),
    _d("ibuprofen", "syrup", ["100 mg/5 ml"], {"Ibugesic": ["100 mg/5 ml"], "Brufen": ["100 mg/5 ml"]}),
    _d("lactulose", "syrup", [], {"Duphalac": [], "Looz": []}),
    _d("dextromethorphan", "syrup", ["10 mg/5 ml"], {"Delsym": []}),
)

# -- frequencies --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frequency:
    """What the doctor meant: ``times_per_day`` and ``times``, and how it may be written. ``pattern`` is
    the Indian slot pattern (morning-afternoon-night) when there is one; ``words`` are the ways of
    writing it in abbreviations or in words; ``us`` the ways a US "Sig:" line writes it."""

    code: str
    times: tuple[str, ...]
    words: tuple[str, ...]
    us: tuple[str, ...]
    pattern: str | None = None


FREQUENCIES: tuple[Frequency, ...] = (
    Frequency(
        "OD",
        ("08:00",),
        ("OD", "od", "QD", "once daily", "once a day", "daily", "every morning", "in the morning"),
        ("QD", "daily", "once daily", "once a day", "every morning"),
        "1-0-0",
    ),
    Frequency(
        "BD",
        ("08:00", "20:00"),
        ("BD", "bd", "b.d.", "BID", "b.i.d.", "twice daily", "twice a day", "q12h", "every 12 hours", "12 hourly"),
        ("BID", "b.i.d.", "twice daily", "twice a day", "q12h", "every 12 hours"),
        "1-0-1",
    ),
    Frequency(
        "TDS",
        ("08:00", "14:00", "20:00"),
        ("TDS", "tds", "t.d.s.", "TID", "t.i.d.", "thrice daily", "three times a day"),
        ("TID", "t.i.d.", "three times daily", "three times a day"),
        "1-1-1",
    ),
    Frequency(
        "QID",
        ("08:00", "12:00", "16:00", "20:00"),
        ("QID", "qid", "q.i.d.", "four times a day"),
        ("QID", "q.i.d.", "four times daily", "four times a day"),
        "1-1-1-1",
    ),
    Frequency(
        "Q6H",
        ("00:00", "06:00", "12:00", "18:00"),
        ("q6h", "Q6H", "every 6 hours", "6 hourly"),
        ("q6h", "every 6 hours", "q 6 h"),
    ),
    Frequency(
        "Q8H",
        ("06:00", "14:00", "22:00"),
        ("q8h", "Q8H", "every 8 hours", "8 hourly"),
        ("q8h", "every 8 hours", "q 8 h"),
    ),
    Frequency(
        "HS",
        ("21:00",),
        ("HS", "hs", "at bedtime", "at night", "bedtime"),
        ("qhs", "at bedtime", "nightly at bedtime", "at night"),
        "0-0-1",
    ),
    Frequency("NIGHT", ("20:00",), ("in the evening", "every evening"), ("in the evening", "every evening"), "0-0-1"),
    # Only as slot patterns: in words, "afternoon" is read as noon (12:00), not the lunch slot (14:00).
    Frequency("NOON", ("14:00",), (), (), "0-1-0"),
    Frequency("MORNING_NOON", ("08:00", "14:00"), (), (), "1-1-0"),
)
# How often each is drawn: the common ones most.
FREQUENCY_WEIGHTS = {
    "OD": 6,
    "BD": 8,
    "TDS": 5,
    "QID": 2,
    "Q6H": 1.5,
    "Q8H": 1.5,
    "HS": 3,
    "NIGHT": 1.5,
    "NOON": 1,
    "MORNING_NOON": 1,
}

FOOD_PHRASES = {
    "before": (
        "before food",
        "before meals",
        "a.c.",
        "ac",
        "empty stomach",
        "on an empty stomach",
        "1/2 hr before food",
        "before food",
    ),
    "after": ("after food", "after meals", "p.c.", "pc", "after food", "after meals", "after a meal"),
    "with": ("with food", "with meals", "with meals", "with a meal"),
}
US_FOOD_PHRASES = {
    "before": ("on an empty stomach", "before meals", "30 minutes before meals", "a.c."),
    "after": ("after meals", "after food", "p.c."),
    "with": ("with meals", "with food", "with a meal"),
}

# -- the page around the medicines: names, places and notes, all invented ---------------------------------

FIRST = (
    "Ravi",
    "Anita",
    "Suresh",
    "Priya",
    "Mohammed",
    "Lakshmi",
    "John",
    "Maria",
    "Wei",
    "Fatima",
    "Arjun",
    "Sunita",
    "David",
    "Grace",
    "Kiran",
    "Meena",
)
LAST = (
    "Kumar",
    "Sharma",
    "Iyer",
    "Nair",
    "Khan",
    "Reddy",
    "Miller",
    "Garcia",
    "Chen",
    "Das",
    "Patel",
    "Joseph",
    "Okafor",
    "Singh",
    "Rao",
    "Brown",
)
DOCTORS = (
    "A. Mehta",
    "S. Krishnan",
    "R. Banerjee",
    "P. Thomas",
    "L. Fernandes",
    "K. Gupta",
    "M. Williams",
    "J. Ortiz",
    "N. Pillai",
    "H. Ahmed",
)
CLINICS = (
    "Sunrise Family Clinic",
    "City Care Hospital",
    "Green Valley Medical Centre",
    "Lotus Health Clinic",
    "St. Mary's Polyclinic",
    "Apex Multispeciality Hospital",
    "Riverside Medical Group",
    "Lakeview Family Practice",
    "Shanti Nursing Home",
    "Harbor Primary Care",
)
STREETS = (
    "12, MG Road, Bengaluru - 560001",
    "45 Park Street, Kolkata 700016",
    "3rd Cross, Anna Nagar, Chennai",
    "221 Oak Avenue, Springfield, IL 62704",
    "88 Linking Road, Bandra West, Mumbai",
    "1450 Pine St, Suite 200, Austin, TX",
)
DEGREES = (
    "MBBS, MD (General Medicine)",
    "MBBS, DNB (Family Medicine)",
    "MD, Internal Medicine",
    "MBBS, MD (Paediatrics)",
    "MBBS, DCH",
    "MD, FACP",
)
COMPLAINTS = (
    "fever, body ache x 3 days",
    "cough and cold since 1 week",
    "burning micturition x 2 days",
    "acidity, bloating",
    "joint pain, morning stiffness",
    "headache on and off",
    "loose stools x 2 days",
    "sore throat, difficulty swallowing",
    "follow-up: sugar and BP",
    "itching, rash over arms",
)
DIAGNOSES = (
    "Acute pharyngitis",
    "Viral fever",
    "Type 2 diabetes mellitus",
    "Essential hypertension",
    "GERD",
    "Urinary tract infection",
    "Acute gastroenteritis",
    "Allergic rhinitis",
    "Osteoarthritis knee",
    "Hypothyroidism",
    "Vitamin D deficiency",
    "Iron deficiency anaemia",
    "Lower respiratory tract infection",
    "Dyslipidaemia",
    "Anxiety disorder",
)
ADVICE = (
    "Plenty of oral fluids",
    "Salt water gargles",
    "Avoid oily and spicy food",
    "Low salt diet, regular walk",
    "Steam inhalation twice a day",
    "Check sugar fasting and PP after 2 weeks",
    "Rest for 3 days",
    "Avoid cold drinks",
    "Daily walk for 30 minutes",
    "Keep the wound clean and dry",
)
REVIEW = (
    "Review after {n} days",
    "Follow up after {n} days",
    "Review SOS",
    "Revisit after {n} days with reports",
    "Come back in {n} days if no better",
    "Next visit: {n} days",
)
INVESTIGATIONS = (
    "CBC, ESR",
    "FBS, PPBS, HbA1c",
    "Lipid profile, LFT",
    "Urine routine, culture",
    "TSH, T3, T4",
    "X-ray chest PA view",
)


@dataclass
class Line:
    """One printed line. ``role``: header, rx, body or footer. ``cells``: a table row's cells (the
    line's text is then the cells joined by " | "). ``size``: title, normal or small. ``indent``: in
    tenths of the page's text width."""

    text: str
    role: str = "body"
    cells: list[str] | None = None
    size: str = "normal"
    bold: bool = False
    indent: int = 0


@dataclass
class Prescription:
    layout: str
    lines: list[Line]
    medications: list[dict[str, Any]]  # the ground truth, in the reader's schema
    mentions: list[str]  # each medicine's name as written, in the order of ``medications``

    @property
    def text(self) -> str:
        """The whole page as text, table cells joined by " | ": what a perfect reader would see."""
        return "\n".join(line.text for line in self.lines)

    @property
    def visible_text(self) -> str:
        """The characters printed on the page, in reading order (table cells joined by a space)."""
        return "\n".join(" ".join(line.cells) if line.cells else line.text for line in self.lines)


# -- one medicine ---------------------------------------------------------------------------------------


@dataclass
class Choice:
    """One medicine as the doctor meant it, and the name and strength as written."""

    drug: Drug
    written_name: str  # "Dolo", "Metformin", "Co-amoxiclav"
    written_strength: str  # "650", "500 mg", "250mg/5ml" or ""
    strength: str | None
    dose: float | int
    frequency: Frequency
    duration_days: int | None
    duration_text: str
    food: str | None

    def truth(self) -> dict[str, Any]:
        return {
            "name": self.drug.generic,
            "strength": self.strength,
            "dose": self.dose,
            "times_per_day": len(self.frequency.times),
            "times": list(self.frequency.times),
            "duration_days": self.duration_days,
            "with_food": self.food,
        }


def _fmt_strength(rng: random.Random, strength: str) -> str:
    """ "500 mg" as a doctor may write it: "500 mg" or "500mg"; concentrations "250mg/5ml" too."""
    return strength.replace(" ", "") if rng.random() < 0.35 else strength


def _duration(rng: random.Random, unicode_ok: bool) -> tuple[int | None, str]:
    if rng.random() < 0.2:
        return None, ""
    unit = rng.choices(["days", "weeks", "months"], weights=[6, 2, 1.5])[0]
    times_sign = TIMES_SIGN if unicode_ok and rng.random() < 0.3 else "x"
    if unit == "days":
        n = rng.choice([3, 5, 5, 7, 7, 10, 14, 15, 30])
        options = [f"{times_sign} {n} days", f"for {n} days", f"{n} days", f"{times_sign} {n}d", f"x{n} days"]
        if n < 7:
            options.append(f"{times_sign} {n}/7")
        return n, rng.choice(options)
    if unit == "weeks":
        n = rng.choice([1, 2, 2, 3, 4, 6])
        word, short = ("week", "wk") if n == 1 else ("weeks", "wks")
        options = [f"for {n} {word}", f"{times_sign} {n} {short}", f"{times_sign} {n} {word}", f"{times_sign} {n}/52"]
        return n * 7, rng.choice(options)
    n = rng.choice([1, 1, 2, 3, 6])
    word = "month" if n == 1 else "months"
    options = [f"{times_sign} {n} {word}", f"for {n} {word}", f"{n} {word}", f"{times_sign} {n}/12"]
    return n * 30, rng.choice(options)


def choose_medicine(rng: random.Random, exclude: set[str], unicode_ok: bool, patterns_ok: bool = True) -> Choice:
    """One medicine, what the doctor meant and the words for its name and strength. ``patterns_ok``:
    the layout writes slot patterns ("1-0-1"); without them, frequencies that have only a pattern are
    not drawn."""
    drug = rng.choice([d for d in DRUGS if d.generic not in exclude])
    use_brand = bool(drug.brands) and rng.random() < 0.55
    if use_brand:
        brand = rng.choice(sorted(drug.brands))
        strengths = drug.brands[brand]
        name = brand
    else:
        strengths = drug.strengths
        name = rng.choice((drug.generic.title(),) * 3 + drug.spelled)
    written_name = name
    if drug.form == "syrup":
        if strengths and rng.random() < 0.7:
            strength = rng.choice(strengths)
            written_strength = _fmt_strength(rng, strength)
        else:
            strength, written_strength = None, ""
        dose = rng.choice([5, 5, 10, 2.5, 7.5, 15])
    else:
        strength = rng.choice(strengths)
        if use_brand and strength.endswith(" mg") and rng.random() < 0.6:
            written_strength = strength.removesuffix(" mg")  # "Dolo 650": the number is mg
        else:
            written_strength = _fmt_strength(rng, strength)
        if drug.form == "cap":
            dose = rng.choices([1, 2], weights=[8, 1])[0]
        else:
            dose = rng.choices([1, 2, 0.5], weights=[10, 1.5, 2 if drug.halves else 0])[0]
    # a syrup's dose is in ml, which a slot pattern cannot carry
    frequencies = [f for f in FREQUENCIES if f.words or (patterns_ok and drug.form != "syrup")]
    frequency = rng.choices(frequencies, weights=[FREQUENCY_WEIGHTS[f.code] for f in frequencies])[0]
    duration_days, duration_text = _duration(rng, unicode_ok)
    food = rng.choices(["before", "after", "with", None], weights=[2, 3, 1.5, 3.5])[0]
    return Choice(drug, written_name, written_strength, strength, dose, frequency, duration_days, duration_text, food)


def _pattern(rng: random.Random, choice: Choice, unicode_ok: bool, spaced: bool) -> str:
    """The slot pattern with the dose in each taken slot: "1-0-1", "½-0-½", "2-0-2". Bedtime is
    "0-0-1" with "HS" or "at bedtime" after it (a bare "0-0-1" is the evening meal's 20:00)."""
    assert choice.frequency.pattern
    if choice.dose == 0.5:
        one = "½" if unicode_ok else "1/2"
    else:
        one = str(int(choice.dose))
    slots = [one if slot == "1" else "0" for slot in choice.frequency.pattern.split("-")]
    written = (" - " if spaced else "-").join(slots)
    if choice.frequency.code == "HS":
        written += rng.choice([" HS", " hs", " at bedtime", " at night"])
    return written


def _use_pattern(rng: random.Random, choice: Choice, share: float) -> bool:
    if not choice.frequency.words:
        return True
    return bool(choice.frequency.pattern) and choice.drug.form != "syrup" and rng.random() < share


def _dose_words(rng: random.Random, choice: Choice, unicode_ok: bool, style: str = "indian") -> str:
    """ "1 tab", "½ tab", "2 caps", "5 ml", "1 tsp"; US style: "1 tablet", "take 2 capsules"."""
    dose, form = choice.dose, choice.drug.form
    if form == "syrup":
        if dose == 5 and rng.random() < 0.3:
            return "1 tsp"
        if dose == 10 and rng.random() < 0.2:
            return "2 tsp"
        number = f"{dose:g}"
        return rng.choice([f"{number} ml", f"{number}ml", f"{number} mL"])
    if dose == 0.5:
        number = rng.choice(["½", "1/2", "half"] if unicode_ok else ["1/2", "half"])
    elif style == "us" and rng.random() < 0.3:
        number = {1: "one", 2: "two"}[int(dose)]
    else:
        number = str(int(dose))
    plural = dose > 1
    if form == "cap":
        unit = rng.choice(["caps", "capsules"] if plural else ["cap", "capsule"])
    else:
        unit = rng.choice(["tabs", "tablets"] if plural else ["tab", "tablet"])
    if number == "half":
        unit = rng.choice(["tab", "tablet"])
    return f"{number} {unit}"


def _form_prefix(rng: random.Random, form: str) -> str:
    return rng.choice(
        {
            "tab": ["Tab.", "Tab", "TAB", "Tab.", "T."],
            "cap": ["Cap.", "Cap", "CAP", "Cap."],
            "syrup": ["Syp.", "Syrup", "Syr.", "Syp"],
        }[form]
    )


def _food(rng: random.Random, food: str | None, us: bool = False) -> str:
    if food is None:
        return ""
    return rng.choice((US_FOOD_PHRASES if us else FOOD_PHRASES)[food])


def _freq_words(rng: random.Random, choice: Choice, us: bool = False) -> str:
    options = choice.frequency.us if us else choice.frequency.words
    return rng.choice(options)


def _join(*parts: str, sep: str = " ") -> str:
    return sep.join(p for p in parts if p)


def _name_strength(choice: Choice) -> str:
    return _join(choice.written_name, choice.written_strength)


def _indian(rng: random.Random, number: int, choice: Choice, unicode_ok: bool) -> list[Line]:
    """ "1. Tab. Dolo 650 1-0-1 x 5 days after food", or with words: "Tab Pan 40 - 1 tab OD before food"."""
    numbering = rng.choice([f"{number}. ", f"{number}) ", "", "- "])
    prefix = _form_prefix(rng, choice.drug.form)
    use_pattern = _use_pattern(rng, choice, 0.55)
    if use_pattern:
        dosing = _pattern(rng, choice, unicode_ok, spaced=rng.random() < 0.2)
    else:
        dosing = _join(_dose_words(rng, choice, unicode_ok), _freq_words(rng, choice))
    sep = rng.choice([" ", " ", " - ", " -- ", ", "])
    if use_pattern and choice.written_strength.replace(".", "").isdigit():
        # "Amaryl 2 - 1-0-1" would read as a four-slot pattern even to a pharmacist
        sep = ", "
    tail = [_food(rng, choice.food), choice.duration_text]
    if rng.random() < 0.5:
        tail.reverse()
    return [Line(numbering + _join(prefix, _name_strength(choice)) + sep + _join(dosing, *tail))]


def _us(rng: random.Random, number: int, choice: Choice, unicode_ok: bool) -> list[Line]:
    """ "Metformin 500 mg tablet" then "Sig: 1 tab PO BID with meals x 30 days" (and sometimes "Disp:")."""
    form_word = {
        "tab": rng.choice(["tablet", "tab", "tablets"]),
        "cap": rng.choice(["capsule", "cap"]),
        "syrup": rng.choice(["oral solution", "syrup", "suspension"]),
    }[choice.drug.form]
    strength = choice.written_strength
    if strength.replace(".", "").isdigit():  # "Dolo 650" is Indian shorthand: a US page writes the unit
        strength = choice.strength or ""
    first = _join(f"{number}." if rng.random() < 0.4 else "", choice.written_name, strength, form_word)
    freq = _freq_words(rng, choice, us=True)
    duration = choice.duration_text.replace(TIMES_SIGN, "x")
    if rng.random() < 0.5:
        sig = _join(
            "Sig:", _dose_words(rng, choice, unicode_ok, "us"), "PO", freq, _food(rng, choice.food, us=True), duration
        )
    else:
        sig = _join(
            "Sig: Take",
            _dose_words(rng, choice, unicode_ok, "us"),
            "by mouth",
            freq,
            _food(rng, choice.food, us=True),
            duration,
        )
    lines = [Line(first), Line(sig, indent=rng.choice([0, 1]))]
    if rng.random() < 0.5:
        count = rng.choice([10, 14, 20, 30, 60, 90])
        lines.append(Line(f"Disp: #{count}   Refills: {rng.choice([0, 1, 2, 3])}", indent=lines[1].indent))
    return lines


def _two_line(rng: random.Random, number: int, choice: Choice, unicode_ok: bool) -> list[Line]:
    """ "Tab. Metformin 500 mg" then, indented, "1 tab BD after meals for 1 month"."""
    numbering = rng.choice([f"{number}. ", f"{number}) ", ""])
    first = numbering + _join(_form_prefix(rng, choice.drug.form), _name_strength(choice))
    if _use_pattern(rng, choice, 0.4):
        dosing = _pattern(rng, choice, unicode_ok, spaced=False)
    else:
        dosing = _join(_dose_words(rng, choice, unicode_ok), _freq_words(rng, choice))
    second = _join(dosing, _food(rng, choice.food), choice.duration_text)
    return [Line(first), Line(second, indent=rng.choice([1, 1, 2]))]


def _prose(rng: random.Random, number: int, choice: Choice, unicode_ok: bool) -> list[Line]:
    """ "Take 1 tablet of Zoloft 50 mg every morning after food for 2 weeks." """
    freq = _freq_words(rng, choice, us=True)
    dose = _dose_words(rng, choice, unicode_ok, "us")
    duration = choice.duration_text.replace(TIMES_SIGN, "x")
    if duration.startswith("x"):
        duration = "for " + duration.lstrip("x ")
    verb = rng.choice(["Take", "Give", "Take"])
    text = (
        _join(f"{verb} {dose} of {_name_strength(choice)}", freq, _food(rng, choice.food, us=True), duration).rstrip(
            "."
        )
        + "."
    )
    return [Line(f"{number}. {text}" if rng.random() < 0.5 else text)]


TABLE_HEADERS = (
    ["Medicine", "Dose", "Frequency", "Duration", "Instructions"],
    ["Drug", "Dose", "When", "Days", "Remarks"],
    ["Medication", "Qty", "Frequency", "Duration", "Notes"],
)


def _table_row(rng: random.Random, choice: Choice, unicode_ok: bool) -> list[str]:
    medicine = _join(_form_prefix(rng, choice.drug.form) if rng.random() < 0.5 else "", _name_strength(choice))
    if _use_pattern(rng, choice, 0.4):
        # a pattern carries the dose in its slots, so the dose column may restate it or stay empty
        dose = _dose_words(rng, choice, unicode_ok) if rng.random() < 0.5 else ""
        frequency = _pattern(rng, choice, unicode_ok, spaced=False)
    else:
        dose = _dose_words(rng, choice, unicode_ok)
        frequency = _freq_words(rng, choice)
    duration = choice.duration_text.replace(TIMES_SIGN, "").replace("x ", "").replace("for ", "").strip()
    if duration.startswith("x"):
        duration = duration[1:]
    return [medicine, dose, frequency, duration or "-", _food(rng, choice.food) or "-"]


ENTRY_WRITERS = {"indian": _indian, "us": _us, "two_line": _two_line, "prose": _prose}


# -- the page ---------------------------------------------------------------------------------------------


def _header(rng: random.Random, layout: str) -> list[Line]:
    doctor = rng.choice(DOCTORS)
    patient = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    age, sex = rng.randint(18, 84), rng.choice("MF")
    day, month = rng.randint(1, 28), rng.randint(1, 12)
    lines = [Line(rng.choice(CLINICS), "header", size="title", bold=True)]
    if layout == "us":
        lines += [
            Line(rng.choice(STREETS), "header", size="small"),
            Line(
                f"Tel: ({rng.randint(200, 989)}) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}",
                "header",
                size="small",
            ),
            Line(
                f"Dr. {doctor}, {rng.choice(DEGREES[2:4] + DEGREES[5:])}   NPI {rng.randint(10**9, 10**10 - 1)}",
                "header",
            ),
            Line(f"Patient: {patient}   DOB: {rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{2026 - age}", "header"),
            Line(f"Date: {month:02d}/{day:02d}/2026", "header"),
        ]
    else:
        lines += [
            Line(f"Dr. {doctor}, {rng.choice(DEGREES)}", "header"),
            Line(
                f"Reg. No. {rng.choice(['KMC', 'MMC', 'DMC', 'TNMC'])} {rng.randint(10000, 99999)}",
                "header",
                size="small",
            ),
            Line(
                rng.choice(STREETS) + f"   Ph: {rng.randint(70000, 99999)} {rng.randint(10000, 99999)}",
                "header",
                size="small",
            ),
            Line(f"Name: {patient}   Age/Sex: {age}/{sex}   Date: {day:02d}/{month:02d}/2026", "header"),
        ]
    if rng.random() < 0.5:
        vitals = [
            f"BP: {rng.randint(100, 160)}/{rng.randint(60, 100)} mmHg",
            f"Pulse: {rng.randint(60, 110)}/min",
            f"Wt: {rng.randint(40, 95)} kg",
            f"Temp: {rng.choice(['98.6', '99.4', '100.2', '101'])} F",
        ]
        lines.append(Line("   ".join(rng.sample(vitals, rng.randint(2, 4))), "header"))
    if rng.random() < 0.6:
        lines.append(Line(f"C/O: {rng.choice(COMPLAINTS)}", "header"))
    if rng.random() < 0.8:
        lines.append(
            Line(f"{rng.choice(['Diagnosis', 'Dx', 'Diag', 'Impression'])}: {rng.choice(DIAGNOSES)}", "header")
        )
    lines.append(Line(rng.choice(["Rx", "Rx", "R/", "Rx:"]), "rx", size="title", bold=True))
    return lines


def _footer(rng: random.Random) -> list[Line]:
    lines = []
    if rng.random() < 0.7:
        lines.append(Line(f"{rng.choice(['Advice', 'Adv', 'Instructions'])}: {rng.choice(ADVICE)}", "footer"))
    if rng.random() < 0.4:
        lines.append(Line(f"Investigations: {rng.choice(INVESTIGATIONS)}", "footer"))
    if rng.random() < 0.8:
        lines.append(Line(rng.choice(REVIEW).format(n=rng.choice([3, 5, 7, 10, 14, 30])), "footer"))
    lines.append(Line(rng.choice(["Signature", "Sign:", "Doctor's signature", "(Signature)"]), "footer", size="small"))
    return lines


def make_prescription(rng: random.Random, layout: str | None = None, unicode_ok: bool = True) -> Prescription:
    """One prescription: 1 to 5 medicines in ``layout`` (chosen when None). ``unicode_ok`` False keeps
    to ASCII where a font lacks "½" or the multiplication sign."""
    layout = layout or rng.choice(LAYOUTS)
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; known: {', '.join(LAYOUTS)}")
    count = rng.choices([1, 2, 3, 4, 5], weights=[2, 3, 3, 2, 1.5])[0]
    choices: list[Choice] = []
    for _ in range(count):
        # one medicine per generic on a page: two lines naming the same drug would be ambiguous truth
        choices.append(
            choose_medicine(rng, {c.drug.generic for c in choices}, unicode_ok, layout not in ("us", "prose"))
        )
    lines = _header(rng, layout)
    if layout == "table":
        header = rng.choice(TABLE_HEADERS)
        lines.append(Line(" | ".join(header), "body", cells=list(header), bold=True))
        for choice in choices:
            cells = _table_row(rng, choice, unicode_ok)
            lines.append(Line(" | ".join(cells), "body", cells=cells))
    else:
        for number, choice in enumerate(choices, 1):
            lines += ENTRY_WRITERS[layout](rng, number, choice, unicode_ok)
    lines += _footer(rng)
    return Prescription(layout, lines, [c.truth() for c in choices], [c.written_name for c in choices])
