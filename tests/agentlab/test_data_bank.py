"""The disease/symptom bank and the complaint phrasing engine (agentlab.data.bank, agentlab.data.phrasing)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from agentlab.data import phrasing
from agentlab.data.bank import CHILD_LAY, DISEASES, SPECIALIZATIONS, SYMPTOMS, Disease, diseases_for
from health.demo_data import SPECIALIZATIONS as DEMO_SPECIALIZATIONS

# Appendix C of the Agent-Lite paper, in its order.
APPENDIX_C = (
    "Influenza", "Diabetes Mellitus", "Hypertension", "Asthma", "Coronary Artery Disease", "Stroke", "HIV/AIDS",
    "Tuberculosis", "Hepatitis B", "Hepatitis C", "Dengue Fever", "Malaria", "Chickenpox", "Measles", "Mumps",
    "Rubella", "Zika Virus", "Ebola", "COVID-19", "Cancer", "Alzheimer's Disease", "Parkinson's Disease", "Arthritis",
    "Lupus", "Multiple Sclerosis", "Crohn's Disease", "Ulcerative Colitis", "Gastroesophageal Reflux Disease (GERD)",
    "Celiac Disease", "Anemia", "Bronchitis", "Pneumonia", "Sinusitis", "Chlamydia", "Gonorrhea", "Syphilis",
    "Herpes", "Human Papillomavirus (HPV)", "Tetanus", "Rabies", "Polio", "Yellow Fever", "Smallpox",
    "Typhoid Fever", "Leprosy", "Plague", "Hemophilia", "Sickle Cell Disease", "Thalassemia", "Hemochromatosis",
    "Meningitis", "Encephalitis", "Glaucoma", "Cataracts", "Macular Degeneration", "Otitis Media", "Tonsillitis",
    "Appendicitis", "Hemorrhoids", "Diverticulitis", "Irritable Bowel Syndrome (IBS)", "Kidney Stones",
    "Chronic Kidney Disease", "Renal Failure", "Osteoporosis", "Osteopenia", "Rheumatoid Arthritis", "Gout",
    "Psoriasis", "Eczema", "Vitiligo", "Alopecia", "Hypothyroidism", "Hyperthyroidism", "Cushing's Syndrome",
    "Addison's Disease", "Prostate Cancer", "Breast Cancer", "Lung Cancer", "Colorectal Cancer", "Pancreatic Cancer",
    "Liver Cancer", "Skin Cancer", "Melanoma", "Leukemia", "Lymphoma", "Myeloma", "Basal Cell Carcinoma",
    "Squamous Cell Carcinoma", "Esophageal Cancer", "Gastric Cancer", "Ovarian Cancer", "Cervical Cancer",
    "Endometrial Cancer", "Bladder Cancer", "Kidney Cancer", "Testicular Cancer", "Thyroid Cancer", "Mesothelioma",
    "Brain Tumors", "Spinal Cord Tumors", "Heart Failure", "Atrial Fibrillation", "Cardiomyopathy", "Angina",
    "Atherosclerosis", "Pericarditis", "Myocarditis", "Endocarditis", "Congenital Heart Disease",
    "Valvular Heart Disease", "Peripheral Artery Disease", "Deep Vein Thrombosis", "Pulmonary Embolism",
    "Varicose Veins", "Hypertensive Heart Disease", "Coronary Microvascular Disease", "Dyslipidemia",
    "Familial Hypercholesterolemia", "Hypertrophic Cardiomyopathy", "Dilated Cardiomyopathy",
    "Restrictive Cardiomyopathy", "Takotsubo Cardiomyopathy", "Sleep Apnea", "Insomnia", "Narcolepsy",
    "Restless Leg Syndrome", "Epilepsy", "Migraine", "Cluster Headache", "Tension Headache", "Trigeminal Neuralgia",
    "Multiple System Atrophy", "Amyotrophic Lateral Sclerosis (ALS)", "Huntington's Disease", "Dystonia",
    "Myasthenia Gravis", "Guillain-Barre Syndrome", "Spinal Muscular Atrophy", "Muscular Dystrophy", "Fibromyalgia",
    "Chronic Fatigue Syndrome", "Complex Regional Pain Syndrome", "Temporomandibular Joint Disorders",
    "Sjogren's Syndrome", "Raynaud's Disease", "Scleroderma", "Mixed Connective Tissue Disease", "Behcet's Disease",
    "Wegener's Granulomatosis", "Giant Cell Arteritis", "Polyarteritis Nodosa", "Sarcoidosis",
)  # fmt: skip

BY_NAME = {d.name: d for d in DISEASES}


def disease(name: str) -> Disease:
    return BY_NAME[name]


def clinical_terms(d: Disease) -> set[str]:
    return {SYMPTOMS[k].clinical for k in d.symptoms}


# --------------------------------------------------------------------------- bank


def test_appendix_c_list_is_complete():
    assert len(APPENDIX_C) == len(set(APPENDIX_C)) == 153
    for name in APPENDIX_C:
        assert name in BY_NAME, name
        assert BY_NAME[name].source == "appendix_c"
    assert sum(d.source == "appendix_c" for d in DISEASES) == 153
    assert {d.source for d in DISEASES} == {"appendix_c", "extra"}
    assert len(BY_NAME) == len(DISEASES) >= 220


def test_specializations_are_the_demo_directory_names():
    assert SPECIALIZATIONS == tuple(row.name for row in DEMO_SPECIALIZATIONS)
    assert len(SPECIALIZATIONS) == 24


def test_every_specialization_has_at_least_five_diseases():
    counts = Counter(d.specialization for d in DISEASES)
    assert set(counts) == set(SPECIALIZATIONS)
    for name in SPECIALIZATIONS:
        assert counts[name] >= 5, name
        assert diseases_for(name) == [d for d in DISEASES if d.specialization == name]
    assert diseases_for("astrologer") == []


@pytest.mark.parametrize(
    ("name", "specialization"),
    [
        ("Cataracts", "ophthalmologist"),
        ("Kidney Stones", "urologist"),
        ("Chronic Kidney Disease", "nephrologist"),
        ("Hepatitis B", "hepatologist"),
        ("Hemorrhoids", "proctologist"),
        ("Otitis Media", "ent"),
        ("Lung Cancer", "oncologist"),
        ("Melanoma", "oncologist"),
        ("Influenza", "general physician"),
        ("Appendicitis", "general surgeon"),
        ("Varicose Veins", "vascular surgeon"),
        ("Measles", "pediatrician"),
        ("Depression", "psychiatrist"),
        ("Hay Fever", "allergist"),
        ("Obesity", "dietician"),
        ("Endometriosis", "gynecologist"),
        ("Urinary Tract Infection", "urologist"),
    ],
)
def test_curated_specializations(name, specialization):
    assert disease(name).specialization == specialization


def test_every_cancer_goes_to_the_oncologist():
    for d in DISEASES:
        if "Cancer" in d.name or "Carcinoma" in d.name or d.name in ("Leukemia", "Lymphoma", "Myeloma"):
            assert d.specialization == "oncologist", d.name


def test_diseases_reference_known_symptoms():
    for d in DISEASES:
        assert 4 <= len(d.symptoms) <= 8, d.name
        assert len(set(d.symptoms)) == len(d.symptoms), d.name
        for key in d.symptoms:
            assert key in SYMPTOMS, (d.name, key)


def test_symptom_lexicon_is_well_formed():
    assert len(SYMPTOMS) >= 300
    clinical = Counter(s.clinical for s in SYMPTOMS.values())
    assert [term for term, n in clinical.items() if n > 1] == []
    for key, s in SYMPTOMS.items():
        assert s.key == key
        assert s.clinical and s.clinical == s.clinical.strip()
        assert 2 <= len(s.lay) <= 5, key
        for lay in s.lay:
            assert lay == lay.strip() and not lay.endswith((".", ",", "!", "?")), (key, lay)
            assert "{" not in lay, (key, lay)


def test_children_symptoms_have_a_parent_phrasing():
    for d in diseases_for("pediatrician"):
        for key in d.symptoms:
            assert key in CHILD_LAY, (d.name, key)
    for key, options in CHILD_LAY.items():
        assert key in SYMPTOMS
        assert len(options) >= 2
        for text in options:
            text.format(he="she", his="her", him="her")  # only these placeholders


# --------------------------------------------------------------------------- complaint()


def test_template_families():
    assert len(phrasing.TEMPLATE_IDS) >= 12
    assert len(set(phrasing.TEMPLATE_IDS)) == len(phrasing.TEMPLATE_IDS)


def test_complaint_is_deterministic_per_seed():
    for d in (disease("Influenza"), disease("Croup"), disease("Lipoma")):
        for seed in range(20):
            a = phrasing.complaint(random.Random(seed), d, typo_rate=0.05)
            b = phrasing.complaint(random.Random(seed), d, typo_rate=0.05)
            assert a == b
    texts = {phrasing.complaint(random.Random(seed), disease("Influenza")).text for seed in range(20)}
    assert len(texts) > 15


@pytest.mark.parametrize("template", phrasing.TEMPLATE_IDS)
def test_complaint_mentions_the_requested_number_of_symptoms(template):
    rng = random.Random(template)
    for d in DISEASES:
        for n in range(1, len(d.symptoms) + 1):
            c = phrasing.complaint(rng, d, n_symptoms=n, templates=[template])
            assert c.template == template
            assert len(c.symptoms) == n, (d.name, template, c)
            assert len(set(c.symptoms)) == n
            assert set(c.symptoms) <= clinical_terms(d)
            assert c.text and c.text == c.text.strip()
            assert "{" not in c.text and "}" not in c.text, c.text
            assert "  " not in c.text and " ," not in c.text and " ." not in c.text, c.text
            assert (c.child is not None) == (d.specialization == "pediatrician")


def test_complaint_defaults_and_template_choice():
    rng = random.Random(7)
    d = disease("Migraine")
    seen = set()
    for _ in range(400):
        c = phrasing.complaint(rng, d, templates={"texting", "formal"})
        assert c.template in {"texting", "formal"}
        assert 2 <= len(c.symptoms) <= 5
        seen.add(c.template)
    assert seen == {"texting", "formal"}
    assert phrasing.complaint(rng, d, n_symptoms=50).symptoms.__len__() == len(d.symptoms)
    with pytest.raises(ValueError):
        phrasing.complaint(rng, d, templates=["no_such_template"])
    with pytest.raises(ValueError):
        phrasing.complaint(rng, d, n_symptoms=0)


def test_clinical_terms_appear_in_list_templates():
    rng = random.Random(3)
    for d in DISEASES:
        for template in ("terse_list", "bullet_list", "clinical_register"):
            c = phrasing.complaint(rng, d, templates=[template])
            for term in c.symptoms:
                assert term in c.text.lower(), (template, term, c.text)


def test_many_distinct_texts_per_disease():
    rng = random.Random(0)
    d = disease("Influenza")
    texts = {phrasing.complaint(rng, d).text for _ in range(2000)}
    assert len(texts) >= 1000


def test_children_are_described_by_a_parent():
    rng = random.Random(11)
    for d in diseases_for("pediatrician"):
        for _ in range(30):
            c = phrasing.complaint(rng, d)
            assert c.child in ("son", "daughter")
            low = c.text.lower()
            assert re.search(r"\b(son|daughter|boy|girl|baby|grandson|granddaughter|he|she|his|her)\b", low), c.text


def test_disease_name_only_in_guessing_templates():
    rng = random.Random(5)
    for d in DISEASES:
        if d.name.lower() in clinical_terms(d):
            continue  # e.g. "Spider Veins" is also the symptom's own name
        for template in phrasing.TEMPLATE_IDS:
            if template == "self_guess":
                continue
            c = phrasing.complaint(rng, d, templates=[template])
            assert d.name.lower() not in c.text.lower(), (d.name, c.text)


# --------------------------------------------------------------------------- typos


def test_typos_change_words_but_never_numbers():
    text = (
        "I have had a temperature over 39 degrees for 3 days and my blood pressure was 150/95 this morning, "
        "so I am worried about everything happening around 2am every night since the 14th"
    )
    rng = random.Random(1)
    changed = phrasing.add_typos(rng, text, 0.5)
    assert changed != text
    assert re.findall(r"\d+", changed) == re.findall(r"\d+", text)
    assert [w for w in changed.split() if any(c.isdigit() for c in w)] == [
        w for w in text.split() if any(c.isdigit() for c in w)
    ]
    assert phrasing.add_typos(random.Random(1), text, 0.0) == text
    assert phrasing.add_typos(random.Random(9), text, 0.5) == phrasing.add_typos(random.Random(9), text, 0.5)


def test_complaint_typos_keep_numbers_and_symptoms():
    d = disease("Malaria")
    for seed in range(50):
        clean = phrasing.complaint(random.Random(seed), d)
        noisy = phrasing.complaint(random.Random(seed), d, typo_rate=0.3)
        assert noisy.symptoms == clean.symptoms
        assert re.findall(r"\d+", noisy.text) == re.findall(r"\d+", clean.text)
    noisy_texts = [phrasing.complaint(random.Random(s), d, typo_rate=0.3).text for s in range(20)]
    clean_texts = [phrasing.complaint(random.Random(s), d).text for s in range(20)]
    assert sum(a != b for a, b in zip(noisy_texts, clean_texts, strict=True)) >= 15


# --------------------------------------------------------------------------- vague and follow-up


def test_vague_complaint_mentions_at_most_one_symptom():
    rng = random.Random(2)
    with_symptom = 0
    for d in DISEASES:
        for _ in range(5):
            c = phrasing.vague_complaint(rng, d)
            assert len(c.symptoms) <= 1
            assert set(c.symptoms) <= clinical_terms(d)
            assert c.text and "{" not in c.text
            assert d.name.lower() not in c.text.lower()
            with_symptom += len(c.symptoms)
    assert with_symptom > 0
    a = phrasing.vague_complaint(random.Random(4), disease("Gout"))
    assert a == phrasing.vague_complaint(random.Random(4), disease("Gout"))


def test_follow_up_answer_names_every_symptom():
    rng = random.Random(8)
    keys = sorted(SYMPTOMS)
    for _ in range(300):
        chosen = [SYMPTOMS[k] for k in rng.sample(keys, rng.randint(1, 3))]
        c = phrasing.follow_up_answer(rng, chosen)
        assert c.symptoms == tuple(s.clinical for s in chosen)
        assert c.template == "follow_up"
        assert c.text and "{" not in c.text
    assert phrasing.follow_up_answer(rng, []).symptoms == ()
    a = phrasing.follow_up_answer(random.Random(1), [SYMPTOMS["fever"], SYMPTOMS["cough"]], typo_rate=0.1)
    assert a == phrasing.follow_up_answer(random.Random(1), [SYMPTOMS["fever"], SYMPTOMS["cough"]], typo_rate=0.1)


def test_follow_up_answer_for_a_child_keeps_the_parent_voice():
    rng = random.Random(6)
    croup = [SYMPTOMS[k] for k in disease("Croup").symptoms]
    for _ in range(50):
        c = phrasing.follow_up_answer(rng, croup[:2], child="daughter")
        assert c.child == "daughter"
        assert not re.search(r"\b(I|my)\b", c.text.split(",")[0]) or "her" in c.text or "she" in c.text


def test_ages_of_babies_read_naturally():
    rng = random.Random(12)
    colic = disease("Infant Colic")
    for template in phrasing.TEMPLATE_IDS:
        for _ in range(20):
            text = phrasing.complaint(rng, colic, templates=[template]).text
            assert "weeks years" not in text and "months years" not in text, text
            assert "year" not in text, text  # a baby's colic never lasts "for almost a year"


def test_no_complaint_the_generator_writes_is_refused_as_out_of_scope():
    """The scope guard must never turn away a patient describing symptoms: every template family,
    vague openers and typos included, on 3 complaints a disease."""
    import random

    from agentlab.data import phrasing
    from agentlab.data.bank import DISEASES
    from agents.scope import out_of_scope

    rng = random.Random(5)
    refused = []
    for disease in DISEASES:
        texts = [phrasing.complaint(rng, disease, typo_rate=0.05).text for _ in range(3)]
        texts.append(phrasing.vague_complaint(rng, disease).text)
        refused += [(text, kind) for text in texts if (kind := out_of_scope(text))]
    assert not refused, refused[:10]
