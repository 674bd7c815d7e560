"""Static tables for ``manage.py seed_demo``: the demo patient, the specialists
directory and the ambulance fleet around the demo home in San Francisco.

Every person, hospital and phone number here is fictional. Phone numbers use
the North American 555-0100..555-0199 block, which is reserved for fiction yet
still passes ``phonenumbers`` validation (the Ofcom drama ranges do not).
"""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

TIMEZONE = "America/Los_Angeles"

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "demo-health-2024"
ADMIN_USERNAME = "admin"
ADMIN_PASSWORD = "admin-health-2024"
DEVICE_NAME = "Demo watch"
DEVICE_TOKEN_FILE = "demo_device_token"

DEMO_USER = {
    "first_name": "Maya",
    "last_name": "Rivera",
    "email": "maya.rivera@example.org",
}

DEMO_PROFILE = {
    "date_of_birth": dt.date(1961, 4, 12),
    "sex": "female",
    "timezone": TIMEZONE,
    "phone": "+14155550100",
    "home_address": "742 Valencia Street, San Francisco, CA 94110",
    "home_latitude": 37.7613,
    "home_longitude": -122.4216,
    "conditions": ["hypertension", "type 2 diabetes"],
    "allergies": ["penicillin"],
}


class Contact(NamedTuple):
    name: str
    relation: str
    phone: str
    priority: int


EMERGENCY_CONTACTS = [
    Contact("Daniel Rivera", "son", "+14155550142", 1),
    Contact("Elena Park", "neighbour", "+14155550187", 2),
]


class PastSymptom(NamedTuple):
    days_ago: int
    text: str
    symptoms: list[str]


PAST_SYMPTOMS = [
    PastSymptom(
        41,
        "I've had a pounding headache behind my eyes for three days, worse in the evening.",
        ["headache", "eye pain"],
    ),
    PastSymptom(
        12,
        "Burning feeling in my chest after meals and a sour taste in my mouth at night.",
        ["heartburn", "acid reflux"],
    ),
]


class PastAppointment(NamedTuple):
    days_ago: int
    specialist_name: str
    specialization: str
    summary: str


PAST_APPOINTMENT = PastAppointment(
    35,
    "Dr. Priya Raman",
    "neurologist",
    "Tension-type headache; advised regular meals, hydration and screen breaks. Return if it persists.",
)


class Hospital(NamedTuple):
    name: str
    address: str
    latitude: float
    longitude: float
    phone: str


# Spread around the demo home (37.7613, -122.4216) from ~1.5 km to ~5 km, so
# "nearest specialist" answers differ by specialization.
HOSPITALS = [
    Hospital(
        "Mission Community Hospital", "3555 Cesar Chavez Street, San Francisco", 37.7483, -122.4204, "+14155550160"
    ),
    Hospital("SoMa Care Clinic", "1001 Folsom Street, San Francisco", 37.7785, -122.4056, "+14155550161"),
    Hospital("Golden Gate General Hospital", "2333 Buchanan Street, San Francisco", 37.7880, -122.4330, "+14155550162"),
    Hospital("Twin Peaks Medical Group", "595 Portola Drive, San Francisco", 37.7450, -122.4530, "+14155550163"),
    Hospital("Bayview Medical Center", "1550 Evans Avenue, San Francisco", 37.7395, -122.3855, "+14155550164"),
    Hospital("Sunset Health Clinic", "1800 Irving Street, San Francisco", 37.7636, -122.4770, "+14155550165"),
    Hospital("Embarcadero Specialty Center", "1 Market Street, San Francisco", 37.7940, -122.3950, "+14155550166"),
    Hospital("Presidio Heights Hospital", "3700 California Street, San Francisco", 37.7866, -122.4550, "+14155550167"),
]


class SpecializationRow(NamedTuple):
    name: str
    description: str
    synonyms: list[str]
    # (doctor name, index into HOSPITALS); at least two, at different hospitals.
    specialists: list[tuple[str, int]]


SPECIALIZATIONS = [
    SpecializationRow(
        "general physician",
        "First point of care for common illnesses, check-ups and referrals.",
        ["general practitioner", "gp", "family doctor", "family physician", "primary care physician", "internist"],
        [("Dr. Sarah Chen", 0), ("Dr. Marcus Webb", 1), ("Dr. Aisha Okafor", 5), ("Dr. Tomás Herrera", 3)],
    ),
    SpecializationRow(
        "cardiologist",
        "Heart and blood vessel conditions: chest pain, high blood pressure, palpitations.",
        ["heart specialist", "heart doctor", "cardiology"],
        [("Dr. James Whitfield", 2), ("Dr. Leila Haddad", 6), ("Dr. Kenji Watanabe", 0)],
    ),
    SpecializationRow(
        "neurologist",
        "Brain, spine and nerve disorders: migraine, seizures, numbness, neck pain with nerve signs.",
        ["neurology", "nerve specialist", "brain specialist", "nerve doctor", "brain doctor"],
        [("Dr. Priya Raman", 2), ("Dr. Oliver Grant", 7)],
    ),
    SpecializationRow(
        "gastroenterologist",
        "Stomach, bowel and digestive problems: reflux, ulcers, abdominal pain.",
        [
            "gastroenterology",
            "gi specialist",
            "digestive specialist",
            "stomach specialist",
            "stomach doctor",
            "gut doctor",
        ],
        [("Dr. Nadia Petrova", 1), ("Dr. Samuel Osei", 4), ("Dr. Hannah Lindqvist", 6)],
    ),
    SpecializationRow(
        "pulmonologist",
        "Lung and breathing conditions: asthma, pneumonia, chronic cough, shortness of breath.",
        ["pulmonology", "lung specialist", "chest physician", "respiratory specialist", "lung doctor"],
        [("Dr. Rafael Mendes", 2), ("Dr. Grace Kim", 5)],
    ),
    SpecializationRow(
        "dermatologist",
        "Skin, hair and nail conditions: rashes, acne, psoriasis, infections.",
        ["dermatology", "skin specialist", "skin doctor"],
        [("Dr. Chloe Dubois", 1), ("Dr. Arjun Mehta", 3), ("Dr. Zara Ahmed", 7)],
    ),
    SpecializationRow(
        "endocrinologist",
        "Hormone and metabolic disorders: diabetes, thyroid disease.",
        [
            "endocrinology",
            "diabetes specialist",
            "diabetologist",
            "hormone specialist",
            "thyroid specialist",
            "diabetes doctor",
        ],
        [("Dr. Miriam Cohen", 0), ("Dr. Victor Alvarez", 6)],
    ),
    SpecializationRow(
        "orthopedist",
        "Bones, joints and muscles: injuries, back and neck pain, arthritis.",
        ["orthopaedist", "orthopedic surgeon", "orthopaedic surgeon", "orthopedics", "bone specialist", "bone doctor"],
        [("Dr. Ethan Brooks", 4), ("Dr. Sofia Rossi", 7)],
    ),
    SpecializationRow(
        "ent",
        "Ear, nose and throat conditions: sinus problems, sore throat, hearing loss.",
        ["otolaryngologist", "otorhinolaryngologist", "ear nose and throat", "ear, nose and throat specialist"],
        [("Dr. Liam O'Connor", 1), ("Dr. Mei Tanaka", 5)],
    ),
    SpecializationRow(
        "ophthalmologist",
        "Eye conditions and vision problems.",
        ["eye specialist", "eye doctor", "ophthalmology"],
        [("Dr. Isabel Moreno", 2), ("Dr. Daniel Novak", 3)],
    ),
    SpecializationRow(
        "psychiatrist",
        "Mental health: depression, anxiety, sleep and mood disorders.",
        ["psychiatry", "mental health specialist"],
        [("Dr. Ruth Adeyemi", 6), ("Dr. Paul Schneider", 0)],
    ),
    SpecializationRow(
        "nephrologist",
        "Kidney conditions: kidney function, kidney stones with medical care, fluid balance.",
        ["nephrology", "kidney specialist", "renal specialist", "kidney doctor"],
        [("Dr. Ahmed Farouk", 2), ("Dr. Julia Svensson", 4)],
    ),
    SpecializationRow(
        "urologist",
        "Urinary tract and male reproductive organs: urinary infections, stones, prostate.",
        ["urology", "urinary specialist", "bladder specialist", "bladder doctor"],
        [("Dr. Carlos Ortega", 1), ("Dr. Emily Zhang", 7)],
    ),
    SpecializationRow(
        "gynecologist",
        "Women's reproductive health: periods, pregnancy care, pelvic pain.",
        ["gynaecologist", "obstetrician", "ob-gyn", "obgyn", "women's health specialist"],
        [("Dr. Fatima Rahman", 0), ("Dr. Laura Bianchi", 5)],
    ),
    SpecializationRow(
        "rheumatologist",
        "Joint and autoimmune diseases: arthritis, lupus, chronic joint pain.",
        ["rheumatology", "arthritis specialist", "joint specialist", "joint doctor"],
        [("Dr. Noah Fischer", 3), ("Dr. Ana Lima", 6)],
    ),
    SpecializationRow(
        "dietician",
        "Nutrition advice for weight, diabetes, heart health and food intolerances.",
        ["dietitian", "nutritionist", "diet specialist"],
        [("Ms. Hope Sullivan", 1), ("Mr. Ravi Iyer", 5)],
    ),
    SpecializationRow(
        "allergist",
        "Allergies and immune reactions: hay fever, food and drug allergies, hives.",
        ["allergy specialist", "immunologist", "allergist-immunologist", "allergy doctor"],
        [("Dr. Yasmin Saleh", 2), ("Dr. Peter Lang", 4)],
    ),
    SpecializationRow(
        "infectious disease specialist",
        "Infections needing specialist care: tropical fevers, resistant or prolonged infections.",
        ["infectious diseases", "id specialist", "infectiologist", "tropical medicine specialist"],
        [("Dr. Kwame Mensah", 6), ("Dr. Irene Vasquez", 0)],
    ),
    SpecializationRow(
        "vascular surgeon",
        "Arteries and veins: varicose veins, circulation problems, aneurysms.",
        ["vascular specialist", "vein specialist", "angiologist"],
        [("Dr. Henrik Larsen", 7), ("Dr. Monica Reyes", 1)],
    ),
    SpecializationRow(
        "general surgeon",
        "Operations on the abdomen and soft tissues: hernias, appendix, gallbladder, haemorrhoids.",
        ["surgeon", "general surgery"],
        [("Dr. William Hayes", 4), ("Dr. Anjali Desai", 2)],
    ),
    SpecializationRow(
        "proctologist",
        "Rectum and anus conditions: haemorrhoids, fissures, fistulas.",
        ["colorectal surgeon", "colorectal specialist", "coloproctologist"],
        [("Dr. Stefan Kowalski", 6), ("Dr. Nora Quinn", 3)],
    ),
    SpecializationRow(
        "hepatologist",
        "Liver, gallbladder and biliary conditions: jaundice, hepatitis, fatty liver.",
        ["liver specialist", "hepatology", "liver doctor"],
        [("Dr. Omar Siddiqui", 0), ("Dr. Clara Jensen", 7)],
    ),
    SpecializationRow(
        "pediatrician",
        "Health care for babies, children and teenagers.",
        [
            "paediatrician",
            "child specialist",
            "children's doctor",
            "kids doctor",
            "kids' doctor",
            "child doctor",
            "pediatrics",
        ],
        [("Dr. Lucy Fernandes", 5), ("Dr. Benjamin Carter", 1)],
    ),
    SpecializationRow(
        "oncologist",
        "Diagnosis follow-up and treatment of cancers.",
        ["cancer specialist", "oncology", "medical oncologist", "cancer doctor"],
        [("Dr. Helena Novak", 2), ("Dr. Martin Eze", 4)],
    ),
]


class AmbulanceRow(NamedTuple):
    code: str
    operator: str
    phone: str
    latitude: float
    longitude: float


# Stationed at increasing distances from the demo home (~0.3 km to ~7 km) so
# the nearest-available choice is unambiguous and testable.
AMBULANCES = [
    AmbulanceRow("SF-AMB-01", "Bay City EMS", "+14155550170", 37.7640, -122.4200),
    AmbulanceRow("SF-AMB-02", "Bay City EMS", "+14155550171", 37.7560, -122.4290),
    AmbulanceRow("SF-AMB-03", "Bay City EMS", "+14155550172", 37.7700, -122.4110),
    AmbulanceRow("SF-AMB-04", "Golden Gate Ambulance", "+14155550173", 37.7490, -122.4360),
    AmbulanceRow("SF-AMB-05", "Golden Gate Ambulance", "+14155550174", 37.7780, -122.4400),
    AmbulanceRow("SF-AMB-06", "Golden Gate Ambulance", "+14155550175", 37.7420, -122.4010),
    AmbulanceRow("SF-AMB-07", "Mission Rescue", "+14155550176", 37.7850, -122.4080),
    AmbulanceRow("SF-AMB-08", "Mission Rescue", "+14155550177", 37.7330, -122.4450),
    AmbulanceRow("SF-AMB-09", "Mission Rescue", "+14155550178", 37.7950, -122.4370),
    AmbulanceRow("SF-AMB-10", "Presidio EMS", "+14155550179", 37.7250, -122.3920),
    AmbulanceRow("SF-AMB-11", "Presidio EMS", "+14155550180", 37.8010, -122.4580),
    AmbulanceRow("SF-AMB-12", "Presidio EMS", "+14155550181", 37.7180, -122.4780),
]

# Bookable hours each weekday, local time of TIMEZONE, as (start, end) half-open
# ranges cut into SLOT_MINUTES slots: 09:00-13:00 and 14:00-17:00.
CLINIC_HOURS = [(dt.time(9, 0), dt.time(13, 0)), (dt.time(14, 0), dt.time(17, 0))]
SLOT_MINUTES = 30
SLOT_DAYS = 30
