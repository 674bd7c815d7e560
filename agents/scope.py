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

from agents.desk_reading import typos_read

PRESCRIBE, ADVICE, DIAGNOSE, OFF_TOPIC = "prescribe", "medicine_advice", "diagnose", "off_topic"
# Out of scope by the first step's classifier (agents/first_step.py), which knows that, not which kind.
NOT_MINE = "not_mine"

_MEDICINE = (
    r"(?:antibiotics?|medicines?|medications?|meds|drugs?|pills?|tablets?|painkillers?|pain killers?|steroids?|"
    r"antidepressants?|statins?|sleeping (?:pills?|tablets?)|"
    r"something (?:strong(?:er)? |else )?for (?:the |my )?\w+|"
    r"something to (?:help|make) (?:me |him |her )?\w+|amoxicillin|azithromycin|"
    r"ciprofloxacin|tramadol|codeine|oxycodone|xanax|valium|diazepam|viagra|insulin)"
)
# A time of the day after "what medicine should I take": the patient's own schedule (the medicines desk).
_WHEN_IN_THE_DAY = (
    r"now|today|tonight|this (?:morning|afternoon|evening)|at \d|at (?:night|lunch|bedtime)|in the (?:morning|evening)|"
    r"before bed|with (?:breakfast|lunch|dinner|food)|next"
)
_PRESCRIBE = re.compile(
    rf"\b(?:prescribe|prescribing)\b(?!\s+(?:photo|picture|image))"
    rf"|\b(?:give|get|send|sell|order|recommend|suggest)\s+(?:me|us|him|her)?\s*(?:some|a|an|any|the|more)?\s*"
    rf"(?:strong\s+|good\s+|new\s+)?(?:{_MEDICINE}|inhalers?|refills?)"
    # "can you refill my prescription", "renew my sertraline": a prescriber's or a pharmacy's act
    r"|\b(?:refill|renew|re-?order)\s+(?:my|his|her|the|our)\s+(?:\w+\s+){0,2}?(?:prescriptions?|scripts?|meds|medications?|"
    r"medicines?|pills|tablets|inhalers?)\b"
    # "get me some sleeping tablets", "give me blood pressure pills"
    rf"|\b(?:give|get|send|sell|order)\s+(?:me|us|him|her)\s+(?:some|a|an|any|more)\s+"
    rf"(?:(?!my\b|his\b|her\b|your\b|the\b)\w+\s+){{1,2}}?(?:{_MEDICINE}|inhalers?)\b"
    # "I need some antibiotics sent to my pharmacy"
    rf"|\b{_MEDICINE}\s+(?:\w+\s+){{0,2}}?(?:sent|delivered|posted)\s+(?:over\s+)?to\s+(?:my|the|a)\s+(?:\w+\s+)?"
    r"(?:pharmacy|chemist|pharmacist|house|home|address)\b"
    # "what should I take for a hangover" (not "what should I take tonight": the patient's own schedule)
    r"|\bwhat\s+(?:should|can|could|do)\s+(?:i|he|she|we)\s+(?:take|use|have|give\s+(?:him|her|them))\s+for\b"
    # "which antidepressant is the best one", "what statin would be right for me"
    rf"|\b(?:which|what)\s+(?:\w+\s+)?{_MEDICINE}\s+(?:is|are|would be|will be)\s+(?:the\s+)?"
    r"(?:best|right|strongest|safest|better|good)\b"
    # "can you switch me to a different blood pressure medicine"
    rf"|\b(?:switch|change|move|put)\s+(?:me|him|her|us)\s+(?:on)?to\s+(?:an?\s+|another\s+|a\s+different\s+|some\s+)?"
    rf"(?:other\s+|new\s+|different\s+)?(?:\w+\s+){{0,2}}?{_MEDICINE}\b"
    # "do I need antibiotics for this": whether to take a medicine is the prescriber's to decide
    rf"|\b(?:do|does|would|will|should)\s+(?:i|he|she|we|they|my\s+\w+)\s+need\s+(?:an?\s+|some\s+|any\s+)?"
    rf"(?:antibiotics?|steroids?|painkillers?|pain killers?|antidepressants?|insulin|a prescription)\b"
    rf"|\bwhat\s+(?:medicine|medication|drug|pill|tablet|antibiotic)s?\s+(?:should|can|could)\s+(?:i|he|she|we)\s+(?:take|use|have)"
    rf"(?!\s+(?:{_WHEN_IN_THE_DAY}))"
    # "what medicines do I take for a cold" asks for advice; "what medicines do I take in the morning"
    # asks for the patient's own schedule (the medicines desk)
    rf"|\bwhat\s+(?:medicine|medication|drug|pill|tablet|antibiotic)s?\s+do\s+(?:i|he|she|we)\s+(?:take|use|have)\s+"
    r"(?:\w+\s+){0,2}?for\b"
    rf"|\b(?:which|what)\s+(?:medicine|medication|drug|pill|tablet|antibiotic)s?\s+(?:is best|is good|works best)"
    # "what's the best antibiotic for a chest infection"
    r"|\b(?:what|which)(?:'s|s| is| are)\s+(?:the\s+)?(?:best|right|strongest|good|recommended)\s+"
    r"(?:medicine|medication|drug|pill|tablet|antibiotic|painkiller|cream|treatment)s?\s+for\b"
    rf"|\bwhich\s+(?:medicine|medication|drug|pill|tablet|antibiotic)s?\s+(?:should|can|could)\b"
    rf"(?![^.?!]*\b(?:{_WHEN_IN_THE_DAY})\b)"
    rf"|\bhow\s+(?:much|many)\s+\w+\s+(?:should|can|could)\s+(?:i|he|she|we|they|(?:a|my|our)\s+(?:child|baby|kid|"
    r"toddler|son|daughter|\d+\s+year\s+old))\s+(?:take|have|be given)\b"
    r"|\b(?:can|could)\s+(?:i|you)\s+(?:get|have|give)\s+(?:me\s+)?(?:a\s+)?prescription\b"
    # a sick note is a doctor's to write, after seeing the patient
    r"|\b(?:give|write|send|get|sign)\s+(?:me\s+|him\s+|her\s+)?(?:a\s+)?(?:sick|fit|doctor'?s)\s+note\b"
    r"|\bmedical certificate\b",
    re.IGNORECASE,
)
# What a patient says about a prescription they already have: in scope (reminders, the photo).
_OWN_PRESCRIPTION = re.compile(
    r"\b(?:remind|reminders?|photo|picture|upload|scan|prescribed me|was prescribed|doctor (?:gave|prescribed)|"
    r"dose taken|took my|refill appointment|"
    # "book me a GP appointment to renew my prescription": a visit asked for is care
    r"book|appointment|appt|(?:see|visit)\s+(?:a|the|my)\s+(?:doctor|gp))\b",
    re.IGNORECASE,
)
# Advice on a medicine the patient takes: stopping, changing the dose, mixing it with alcohol or
# another medicine. Only the prescriber or a pharmacist may answer it, and stopping a prescribed
# medicine on a chatbot's word can harm. "My doctor changed the dose" is news for the reminders.
# A medicine named by the endings of common generic names ("metformin", "ramipril", "atorvastatin").
_DRUG_NAME = r"\w+(?:formin|pril|statin|olol|sartan|cillin|mycin|prazole|azepam|xetine|dipine|thyroxine|ine|ol|in)"
_ADVICE = re.compile(
    rf"\bshould\s+(?:i|he|she|we)\s+(?:stop|quit|keep|carry on|come off|cut down|skip)\s+"
    rf"(?:taking\b|using\b|(?:(?:my|his|her|the|these|this)\s+)?(?:\w+\s+)?(?:{_MEDICINE}|{_DRUG_NAME})\b)"
    r"|\b(?:up|increase|raise|lower|reduce|decrease|double|halve|adjust)\s+(?:the\s+|my\s+|his\s+|her\s+)?"
    r"(?:\w+\s+)?(?:dose|dosage)\b"
    # "what are the side effects of metformin": a pharmacist's answer (a complaint of one is the model's)
    r"|^\W*(?:what|which)\s+(?:are|is)\s+(?:the\s+)?(?:common\s+|main\s+|usual\s+)?side[- ]effects?\s+(?:of|from|for)\b"
    r"|\b(?:good|right|safe|correct|best|max|maximum|normal)\s+(?:dose|dosage|amount)\s+of\b"
    # "what dose of ibuprofen should I take", "what dosage can my son have"
    r"|\b(?:what|which|how big a|how high a)\s+(?:dose|dosage|strength|amount)\s+of\s+(?:\w+\s+){1,2}?"
    r"(?:should|can|could|must|do|does)\s+(?:i|he|she|we|they|my\s+\w+)\s+(?:take|have|give|use)\b"
    r"|\b(?:what|which|how big a|how high a|how much)\s+(?:dose|dosage|strength|amount)\s+(?:of\s+(?:\w+\s+){1,2}?)?"
    r"(?:i|he|she|we|they)\s+(?:should|can|could|must)\s+(?:take|have|give|use)\b"
    r"|\b(?:what|which|how big a|how high a)\s+(?:dose|dosage|amount)\s+(?:should|can|could|must)\s+"
    rf"(?:i|he|she|we|they|my\s+\w+)\s+(?:take|give|use)\b(?!\s+(?:{_WHEN_IN_THE_DAY}))"
    # "how many mg of ibuprofen can I take" ("how many paracetamol should I take" asks for a prescription)
    r"|\bhow\s+(?:much|many)\s+(?:(?:mg|ml|milligrams|millilitres|milliliters)\s+)?of\s+(?:\w+\s+){1,2}?"
    r"(?:should|can|could)\s+(?:i|he|she|we|they)\s+(?:safely\s+)?(?:take|have|give)\b"
    r"|\b(?:is it|is that|would it be|it is)\s+(?:ok|okay|safe|alright|fine|bad|dangerous)\s+to\s+"
    r"(?:drink|take|have|mix|combine|stop|skip|miss|double)\b"
    # "should I take my statin at night or in the morning": the timing is the prescriber's advice
    rf"|\bshould\s+(?:i|he|she|we)\s+take\s+(?:my|his|her|the)\s+(?:\w+\s+){{0,2}}?(?:{_MEDICINE}|{_DRUG_NAME})\b"
    r"[^.?!]*\bor\b"
    # "can I drink wine on antibiotics", "can I have a beer while taking metformin"
    rf"|\bcan\s+(?:i|he|she|we)\s+(?:drink|have|eat|take)\s+(?:\w+\s+){{0,3}}?(?:on|while\s+(?:on|taking))\s+"
    rf"(?:(?:my|his|her|the|these|this)\s+)?(?:\w+\s+)?(?:{_MEDICINE}|{_DRUG_NAME})\b"
    # "what's the maximum paracetamol per day", "is 40mg of simvastatin too much", "will ibuprofen interact"
    rf"|\b(?:max|maximum|highest|safe|safest)\s+(?:daily\s+)?(?:dose\s+of\s+|amount\s+of\s+)?(?:{_MEDICINE}|{_DRUG_NAME})\b"
    r"|\b\d+(?:\.\d+)?\s*(?:mg|mcg|ml|g|units?)\b[^.?!]*\btoo\s+(?:much|high|strong|many)\b"
    r"|\binteract(?:s|ion|ions)?\s+with\b|\b(?:drug|medicine|medication)\s+interactions?\b"
    rf"|\bcan\s+(?:i|he|she)\s+(?:take|mix|combine|drink)\s+(?:\w+\s+){{1,3}}?with\s+(?:(?:my|his|her|the)\s+)?"
    rf"(?:\w+\s+){{0,2}}?(?:{_MEDICINE}|{_DRUG_NAME}|alcohol)\b",
    re.IGNORECASE,
)
_PRESCRIBER_SAID = re.compile(
    r"\b(?:doctor|gp|consultant|nurse|pharmacist)\s+(?:said|told|changed|increased|lowered)\b", re.I
)
_CONDITION = (
    r"(?:cancer|tumou?r|melanoma|diabetes|a stroke|a heart attack|covid|hiv|aids|an? std|an? sti|dementia|"
    r"alzheimer'?s|parkinson'?s|leuk(?:a)?emia|lymphoma|appendicitis|an? infection|malignant|benign|"
    r"contagious|dying|measles|chicken ?pox|shingles|lupus|arthritis|asthma|the flu|flu|pneumonia|meningitis|sepsis|"
    r"eczema|psoriasis|ringworm|scabies|an? ulcer|a hernia|gout|an? (?:uti|urine infection))"
)
_DIAGNOSE = re.compile(
    rf"\b(?:is|could|might|can)\s+(?:this|it|that|these|my|his|her)(?:\s+[\w']+){{0,2}}?\s+(?:be\s+)?(?:an?\s+)?{_CONDITION}"
    rf"|\bdo\s+(?:i|you think i)\s+have\s+{_CONDITION}"
    rf"|\bdo\s+you\s+think\s+(?:it'?s|it is|this is|that'?s|they'?re|i'?ve got|(?:he|she)\s+has)\s+"
    rf"(?:an?\s+)?{_CONDITION}"
    rf"|\b(?:if|whether)\s+(?:i|he|she)\s+(?:have|has|'ve got|got)\s+{_CONDITION}"
    rf"|\bam\s+i\s+(?:dying|diabetic|pregnant)\b"
    # "what do I have?" after the symptoms (not "what do I have booked", "what do I have to take tonight")
    r"|\bwhat\s+(?:disease|illness|condition|infection|is wrong with me)\b"
    r"|\bwhat\s+do\s+i\s+have\b(?=\s*(?:[?.!]|$|exactly\b|,\s*(?:doctor|doc)\b))"
    r"|\b(?:diagnose|diagnosis for)\s+(?:me|my|this|him|her)\b"
    r"|\b(?:give|get)\s+(?:me\s+|him\s+|her\s+)?(?:a\s+)?diagnosis\b"
    # "what does my blood test result mean": results are read with the doctor who ordered them
    # ("what does my blood test result of 5.6 hba1c mean", "what does an a1c of 6.1 mean")
    r"|\bwhat\s+(?:does|do)\s+(?:my|the|these|this|his|her|an?)\s+(?:[\w.%/]+\s+){0,2}?"
    r"(?:blood test|blood work|bloodwork|test|lab|labs|scan|x-?ray|mri|ct|biopsy|ecg|ekg|smear|urine test|"
    r"hba1c|a1c|cholesterol|psa|tsh)s?(?:\s+results?)?\s+(?:[\w.%/]+\s+){0,3}?mean\b"
    # "I think I have lupus, can you confirm": a diagnosis is asked for, whatever the condition
    r"|\b(?:i|he|she)\s+(?:think|thinks|reckon|reckons|suspect|suspects)\s+(?:i|he|she)\s+(?:have|has|'ve got|got)\b"
    r"[^.?!]*?\b(?:(?:can|could|would)\s+you\s+(?:confirm|check)(?:\s+(?:it|that|this|if|whether\s+i'?m\s+right))?"
    r"\s*(?:please\s*)?(?:[?.!]|$)|(?:can|could)\s+you\s+tell\s+(?:me\s+)?(?:if|whether)\s+(?:i'?m|i am|that'?s|it'?s|"
    r"it is|that is)\s+(?:right|it|true)\b|am i right|is that right)"
    r"|\bwhat(?:'s|s| is)\s+wrong with me\b"
    # "can you tell me if this mole looks cancerous"
    r"|\b(?:if|whether|think|does|do|is|are)\s+(?:this|it|that|these|my|his|her)(?:\s+\w+)?\s+"
    r"(?:looks?|seems?|is|are|could be|might be|look|seem)?\s*(?:cancerous|malignant|benign)\b",
    re.IGNORECASE,
)
_OFF_TOPIC = re.compile(
    r"\b(?:weather|forecast|temperature outside|news|headlines|football|soccer|cricket|basketball|match score|"
    r"stock(?:s| price| market)|bitcoin|crypto|recipes?|jokes?|poems?|story about|movies?|films?|songs?|lyrics|"
    r"capital of|president|prime minister|election|translate|homework|"
    r"write (?:me )?(?:some )?(?:code|an essay|a letter|an? e-?mail|a cover letter|a speech|a text)|"
    r"invest(?:ing|ments?)?\s+(?:my|in|some)|savings account|wi-?fi|router|printer|laptop|"
    r"python code|horoscope|lottery numbers|traffic|flight|hotel|restaurant|pancakes?|opening hours|"
    r"what time (?:does|do|is)\s+(?:the\s+)?(?:\w+\s+){0,4}?(?:open|close|shut)|"
    r"(?:what|something)\s+(?:should|can|could|to)\s+(?:i\s+|we\s+)?(?:cook|bake|make for (?:dinner|lunch|tea))|"
    r"meal ideas|dinner ideas|wake (?:me|us) up|timer|universe|exchange rate|currency|"
    r"how (?:do|can|to|would) (?:i |you |we )?(?:make|bake|cook)\s+(?:an?\s+|some\s+|the\s+)?(?:\w+\s+)?"
    r"(?:cake|bread|pasta|pizza|curry|soup|cookies|biscuits|pie|salad|omelette|eggs|rice|pancakes)|"
    r"book(?:ing)?\s+(?:me\s+|us\s+)?(?:an?\s+|the\s+)?(?:taxi|cab|uber|table|flight|hotel|room|tickets?)|"
    # errands, said as requests: "I fell out of a taxi" or "I cut my finger cooking" are complaints
    r"(?:book|call|get|order|find)\s+(?:me\s+|us\s+)?(?:an?\s+|some\s+)?(?:taxi|cab|uber|pizza|takeaway)|"
    r"play\s+(?:me\s+|us\s+)?(?:some\s+|a\s+|the\s+)?(?:music|songs?|radio|playlist|podcast))\b",
    re.IGNORECASE,
)
# "My joints ache when the weather turns", "a headache after the news": a symptom keeps it in scope.
_CARE_WORDS = re.compile(
    r"\b(?:under the weather|feel|feels|feeling|felt|unwell|not well|tired|"
    r"appointment|doctor|specialist|book|booking|symptoms?|pain|ache|aches|hurts?|sore|sick|ill|fever|"
    r"medicine|medication|meds|pills?|tablets?|doses?|insulin|inhalers?|reminder|vitals?|heart|blood|sleep|report|sos|ambulance|emergency|clinic|"
    r"hospital|nurse|\w+ologist|surgeon|surgery|gp|follow[- ]?up|check[- ]?up|health|medical)\b",
    re.IGNORECASE,
)


# The words the patterns are made of that patients misspell ("presxribe", "covdi"): a typo of one
# is read as it (agents.desk_reading).
_VOCABULARY = (
    "prescribe", "prescription", "antibiotics", "painkillers", "diagnose", "diagnosis", "cancer", "tumour",
    "tumor", "covid", "diabetes", "disease", "wrong", "weather", "forecast", "dosage", "alcohol", "taking",
    "football", "joke", "jokes", "some", "something", "ibuprofen", "paracetamol", "should", "have", "could",
    "this", "give", "send", "homework", "play", "music", "drink", "lump",
)  # fmt: skip


# A visit asked for beside the question: "could it be gout? I'd like to see someone" is a referral to
# make (the model's), not a diagnosis to refuse.
_WANTS_CARE = re.compile(
    r"\b(?:book|booking|appointment|appt|refer|referral|who should i see|(?:see|visit)\s+(?:a|an|someone|somebody|"
    r"the|my)\b|find me a)\b",
    re.I,
)


# Booking something that is not care: "book" alone is a care word, "book me a taxi" is not.
_BOOKS_OTHER = re.compile(
    r"\bbook(?:ing)?\s+(?:me\s+|us\s+)?(?:an?\s+|the\s+)?(?:taxi|cab|uber|table|flight|hotel|room|tickets?)\b", re.I
)


# Sums asked as the whole message: "what's 15 times 12" (not "2 times a day").
_SUM = re.compile(
    r"^\W*(?:what(?:'s|s| is)\s+|calculate\s+)?\d+(?:\.\d+)?\s*(?:times|plus|minus|divided by|multiplied by|[x*+/-])\s*"
    r"\d+(?:\.\d+)?\W*$",
    re.I,
)


def out_of_scope(message: str) -> str | None:
    """The kind of request the assistant does not do (``PRESCRIBE``, ``ADVICE``, ``DIAGNOSE``, ``OFF_TOPIC``),
    or None: everything else goes to the model."""
    text = typos_read(" ".join(str(message).split()), _VOCABULARY)
    if not text:
        return None
    if _ADVICE.search(text) and not _PRESCRIBER_SAID.search(text):
        return ADVICE
    if _PRESCRIBE.search(text) and not _OWN_PRESCRIPTION.search(text):
        return PRESCRIBE
    if _DIAGNOSE.search(text) and not _WANTS_CARE.search(text):
        return DIAGNOSE
    if _OFF_TOPIC.search(text) and not _CARE_WORDS.search(_BOOKS_OTHER.sub(" ", text)) and not _names_a_symptom(text):
        return OFF_TOPIC
    if _SUM.search(text):
        return OFF_TOPIC
    return None


def _names_a_symptom(text: str) -> bool:
    # the symptom lexicon, typos read (loads spaCy once), and the words of a complaint it has no
    # symptom for, as typed: "my knee swelled up after football" is a complaint about a knee (a
    # typo read into a complaint word would keep "what's the football svore" in scope)
    from agents.tools.said import complaint_words, symptoms_in

    return bool(symptoms_in(text)) or complaint_words(text)


def reply(kind: str) -> str:
    """The answer for ``kind`` (agents/templates/agents/scope_<kind>.txt), on one line."""
    return " ".join(render_to_string(f"agents/scope_{kind}.txt").split())
