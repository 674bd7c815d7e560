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

from agents.desk_reading import typos_read, without_opening
from agents.help_now import PET

PRESCRIBE, ADVICE, DIAGNOSE, OFF_TOPIC = "prescribe", "medicine_advice", "diagnose", "off_topic"
HEALTH_FACT = "health_fact"  # general medical knowledge or a diet/exercise plan, asked of no record of the patient's
ANIMAL = "animal"  # a pet's health: for a vet (help_now leaves an animal's emergency out of the SOS)
# Out of scope by the first step's classifier (agents/first_step.py), which knows that, not which kind.
NOT_MINE = "not_mine"

_MEDICINE = (
    r"(?:antibiotics?|medicines?|medications?|meds|drugs?|pills?|tablets?|painkillers?|pain killers?|steroids?|"
    r"antidepressants?|statins?|sleeping (?:pills?|tablets?)|"
    r"something (?:strong(?:er)? |else )?for (?:the |my )?\w+|"
    r"something to (?:help|make) (?:me |him |her )?\w+|amoxicillin|azithromycin|"
    r"ciprofloxacin|tramadol|codeine|oxycodone|xanax|valium|diazepam|viagra|insulin|"
    # what a pharmacy sells over the counter: a pharmacist's to recommend
    r"ibuprofen|paracetamol|acetaminophen|tylenol|advil|naproxen|calpol|nurofen|motrin|aleve|aspirin|"
    r"antihistamines?|antacids?|laxatives?|"
    r"decongestants?|cough (?:syrup|medicine)|melatonin|"
    r"inhalers?|creams?|ointments?|eye drops|ear drops|nasal sprays?)"
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
    # "could you order my repeat prescription": the practice's or the pharmacy's to issue
    r"|\b(?:order|request|sort(?:\s+out)?|arrange|renew)\s+(?:my|his|her|the|a)\s+repeat\s+"
    r"(?:prescriptions?|scripts?|meds|medications?|medicines?)\b"
    # "I need a refill of my antibiotics", "a repeat of my inhaler"
    rf"|\b(?:refill|repeat|renewal|top[- ]?up)\s+(?:of|for|on)\s+(?:my|his|her|the|our|these|this)\s+(?:\w+\s+){{0,2}}?"
    rf"(?:{_MEDICINE}|prescriptions?|scripts?|inhalers?)\b"
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
    r"|\bwhat\s+(?:medicine|medication|drug|pill|tablet|antibiotic|painkiller|pain killer|antihistamine|cream|"
    r"ointment|inhaler|antacid|laxative|supplement|vitamin)s?\s+(?:should|can|could)\s+(?:i|he|she|we)\s+(?:take|use|have)"
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
    # "what's better for a headache, ibuprofen or paracetamol"
    rf"|\b(?:what|which)(?:'s|s| is| one is)\s+(?:better|best|stronger|safer)\b[^.?!]*\b(?:{_MEDICINE})\b"
    # "please send my prescription to boots", "I need my blood pressure pills refilled"
    r"|\bsend\s+(?:my|his|her|the)\s+(?:\w+\s+)?prescriptions?\s+(?:over\s+)?to\b"
    rf"|\b(?:need|want|get|have)\s+(?:my|his|her)\s+(?:\w+\s+){{0,3}}?(?:{_MEDICINE}|prescriptions?|scripts?)\s+"
    r"(?:refilled|renewed|repeated|re-?ordered|topped up)\b"
    # "I want stronger painkillers" (not "I need new medicine reminders")
    rf"|\b(?:want|need|would like|'d like)\s+(?:some\s+|a\s+)?(?:strong(?:er)?|more|new|different|better)\s+"
    rf"(?:{_MEDICINE})\b(?!\s+(?:reminders?|schedule|list|times|plan|alarms?))"
    # "can I have some codeine", "could I get antibiotics", "I want a prescription for viagra"
    rf"|\b(?:can|could|may)\s+(?:i|we)\s+(?:please\s+)?(?:have|get)\s+(?:some\s+|a\s+|an\s+|more\s+|any\s+)?"
    rf"(?:strong(?:er)?\s+)?(?:{_MEDICINE})\b"
    r"|\b(?:want|need|would like|'d like)\s+(?:a\s+)?(?:new\s+)?prescription\s+for\b"
    # "I need antibiotics for my chest infection" (a kind of medicine only a prescriber gives; not "I need my
    # pills", which the reminders answer)
    r"|\b(?:i|we|he|she)\s+(?:really\s+|just\s+|urgently\s+)?(?:need|want)\s+(?:some\s+|more\s+|an?\s+|a course of\s+)?"
    r"(?:antibiotics?|painkillers?|pain killers?|steroids?|antidepressants?|sleeping (?:pills?|tablets?)|amoxicillin|"
    r"tramadol|codeine|oxycodone|morphine|xanax|valium|diazepam|viagra)\b(?!\s+(?:reminders?|schedule|times?|alarms?))"
    r"|\b(?:want|need|would like|'d like)\s+something\s+(?:strong(?:er)?|more effective|better)\s+for\b"
    # "can you change my medication" (not "my doctor changed my medication", nor the reminder's times)
    r"|\b(?:change|switch|adjust|alter|swap)\s+(?:my|his|her)\s+(?:\w+\s+)?(?:medications?|medicines?|meds|"
    r"prescriptions?|treatment)\b(?!\s+(?:reminders?|schedule|times?|alarms?|list))"
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
    # "what's the dose of calpol for a 4 year old"
    r"\bwhat(?:'s|s| is)\s+the\s+(?:right\s+|correct\s+|usual\s+|normal\s+)?(?:dose|dosage)\s+(?:of|for)\s+(?!my\b)"
    r"(?:\w+\s+){1,2}?for\s+(?:an?|my|his|her|our)\s+(?:\d+[- ](?:year|month)[- ]old|child|baby|kid|toddler|adult|"
    r"teenager|son|daughter)\b|"
    # "I want to come off my antidepressants", "how do I stop taking my statin"
    rf"\b(?:want|going|planning|thinking of|thinking about|how (?:do|can|should) (?:i|we))\s+(?:to\s+)?"
    rf"(?:stop|quit|come off|get off|wean (?:myself |him |her )?off)\s+(?:taking\s+)?(?:my|his|her)\s+(?:\w+\s+)?"
    rf"(?:{_MEDICINE}|{_DRUG_NAME})\b(?!\s+(?:reminders?|alarms?|notifications?))|"
    # "is 10mg of amlodipine a lot"
    r"\bis\s+\d+(?:\.\d+)?\s*(?:mg|mcg|ml|g|units?)\s+(?:of\s+)?(?:\w+\s+){0,2}?(?:a lot|too much|too high|high|safe|"
    r"normal|ok|okay|dangerous)\b|"
    rf"\bshould\s+(?:i|he|she|we)\s+(?:stop|quit|keep|carry on|come off|cut down|skip)\s+"
    rf"(?:taking\b|using\b|(?:(?:my|his|her|the|these|this)\s+)?(?:\w+\s+)?(?:{_MEDICINE}|{_DRUG_NAME})\b)"
    r"|\b(?:up|increase|raise|lower|reduce|decrease|double|halve|adjust)\s+(?:the\s+|my\s+|his\s+|her\s+)?"
    r"(?:\w+\s+)?(?:dose|dosage)\b"
    # "should I double my insulin tonight", "can I halve my bisoprolol"
    rf"|\b(?:should|can|could|do)\s+(?:i|he|she|we)\s+(?:double|halve|increase|decrease|reduce|lower|raise|up|cut)(?:\s+(?:up|down|back))?\s+"
    rf"(?:my|his|her|the|our)\s+(?:\w+\s+)?(?:{_MEDICINE}|{_DRUG_NAME})\b"
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
    r"(?:drink|take|have|mix|combine|stop|skip|miss|double|fly|travel)\b"
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
    # "can I drive after taking codeine", "what happens if I miss a dose of the pill"
    r"|\bcan\s+(?:i|he|she|we)\s+(?:drive|work|fly|exercise|breastfeed|drink|swim)\s+(?:after|while|when)\s+"
    r"(?:taking|on|having|using)\b"
    r"|\bwhat\s+(?:happens|should\s+i\s+do|do\s+i\s+do)\s+if\s+(?:i|he|she|you|we)\s+(?:miss|forget|skip|double)\s+"
    r"(?:a|an|my|the|his|her)\s+(?:\w+\s+)?(?:dose|pill|tablet|injection)s?\b"
    rf"|\bcan\s+(?:i|he|she)\s+(?:take|mix|combine|drink)\s+(?:\w+\s+){{1,3}}?with\s+(?:(?:my|his|her|the)\s+)?"
    rf"(?:\w+\s+){{0,2}}?(?:{_MEDICINE}|{_DRUG_NAME}|alcohol)\b",
    re.IGNORECASE,
)
_PRESCRIBER_SAID = re.compile(
    r"\b(?:doctor|gp|consultant|nurse|pharmacist)\s+(?:said|told|changed|increased|lowered)\b", re.I
)
_CONDITION = (
    r"(?:(?:(?:brain|skin|breast|lung|bowel|colon|prostate|throat|stomach|bone|blood|ovarian|cervical|testicular|"
    r"pancreatic|liver|kidney)\s+)?(?:cancer|tumou?r)|"
    r"melanoma|diabetes|a stroke|a heart attack|covid|hiv|aids|an? std|an? sti|dementia|"
    r"alzheimer'?s|parkinson'?s|leuk(?:a)?emia|lymphoma|appendicitis|"
    r"an? (?:(?:ear|eye|chest|skin|kidney|bladder|urine|urinary|throat|sinus|yeast|fungal|viral|bacterial)\s+)?"
    r"infection|"
    r"malignant|benign|"
    r"contagious|dying|measles|chicken ?pox|shingles|lupus|arthritis|asthma|the flu|flu|pneumonia|meningitis|sepsis|"
    r"eczema|psoriasis|ringworm|scabies|an? ulcer|a hernia|gout|an? (?:uti|urine infection))"
)
_DIAGNOSE = re.compile(
    rf"\b(?:is|could|might|can)\s+(?:this|it|that|these|my|his|her)(?:\s+[\w']+){{0,2}}?\s+(?:be\s+)?(?:an?\s+)?{_CONDITION}"
    rf"|\bdo\s+(?:i|you think i)\s+have\s+{_CONDITION}"
    rf"|\bdo\s+you\s+think\s+(?:it'?s|it is|this is|that'?s|they'?re|i'?ve got|(?:he|she)\s+has)\s+"
    rf"(?:an?\s+)?{_CONDITION}"
    rf"|\b(?:if|whether)\s+(?:i|he|she)\s+(?:have|has|'ve got|got)\s+{_CONDITION}"
    # "am I depressed", "is my child autistic": a condition said as what the person is
    r"|\b(?:am\s+i|is\s+(?:my|our)\s+(?:child|son|daughter|baby|kid|husband|wife|partner|mum|mom|dad|mother|father)|"
    r"is\s+(?:he|she))\s+(?:\w+\s+)?(?:dying|diabetic|pregnant|depressed|autistic|bipolar|adhd|dyslexic|anaemic|anemic|"
    r"infertile|asthmatic|anorexic|epileptic|schizophrenic|obese|allergic|lactose intolerant|intolerant|coeliac|"
    r"celiac)\b"
    # "is 140/90 high blood pressure": a reading judged
    r"|\bis\s+\d{2,3}\s*(?:/|over)\s*\d{2,3}\s+(?:a\s+)?(?:high|low|normal|ok|okay|good|bad|dangerous)\b"
    # "can you tell me if my x-ray is normal": a result judged is the ordering doctor's to give
    r"|\b(?:if|whether)\s+(?:my|his|her|the)\s+(?:\w+\s+)?(?:x-?rays?|scans?|mri|ct|ecg|ekg|"
    r"blood (?:tests?|work|results)|bloodwork|bloods|labs?|lab results?|test results?|results?|biopsy|smear)\s+"
    r"(?:is|are|was|were|looks?|came back)\s+"
    r"(?:normal|ok|okay|fine|good|bad|clear|abnormal|worrying)\b"
    # "is my blood test normal", "are my results ok"
    r"|\b(?:is|are|was|were)\s+(?:my|his|her|the)\s+(?:\w+\s+)?"
    r"(?:x-?rays?|scans?|mri|ecg|ekg|blood (?:tests?|work|results)|"
    r"bloodwork|bloods|test results?|results?|biopsy|smear|lab results?|labs)\s+(?:\w+\s+)?(?:normal|ok|okay|fine|good|"
    r"bad|clear|abnormal|worrying)\b"
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
    # "tell me if my daughter's rash is measles", "just tell me what's wrong with my knee"
    rf"|\b(?:if|whether)\s+(?:my|his|her|this|it|the|[a-z]+'s)(?:\s+[\w']+){{0,3}}?\s+(?:is|are|could be|might be)\s+"
    rf"(?:an?\s+)?{_CONDITION}"
    r"|\b(?:tell me|tell us|figure out|work out)\s+what(?:'s|s| is)\s+wrong\b"
    # "can you confirm I've got IBS", "I want to know if I'm diabetic"
    r"|\b(?:confirm|verify)\s+(?:if\s+|whether\s+|that\s+)?(?:i|he|she|my\s+\w+)"
    r"(?:\s+(?:have|has|got|am|is)|'ve got|'m)\b"
    r"|\b(?:if|whether)\s+(?:i'm|i am|he's|she's|he is|she is)\s+(?:\w+\s+)?(?:diabetic|pregnant|depressed|autistic|"
    r"bipolar|anaemic|anemic|infertile|asthmatic|epileptic|allergic|coeliac|celiac)\b"
    # "my blood sugar was 11 this morning, is that dangerous": a reading judged is a diagnosis
    r"|\b(?:sugar|glucose|pressure|bp|cholesterol|heart ?rate|pulse|oxygen|sats|a1c|hba1c|temperature|temp|psa|tsh)\b"
    r"[^?!]*\d[^?!]*\b(?:is|was|are)\s+(?:that|this|it|these|they)\s+(?:too\s+)?(?:dangerous|bad|normal|high|low|ok|okay|"
    r"safe|serious|worrying|fine|good)\b"
    # "give me the results of my blood test", "what my ECG shows": results are the ordering doctor's to give
    r"|\b(?:results?|findings)\s+(?:of|from)\s+(?:my|his|her|the)\s+(?:\w+\s+)?"
    r"(?:blood tests?|tests?|scans?|x-?rays?|mri|biopsy|ecg|ekg|labs?|bloods)\b"
    r"|\bwhat\s+(?:my|his|her|the)\s+(?:\w+\s+)?(?:ecg|ekg|x-?ray|scan|mri|ct|blood tests?|results?|biopsy)\s+"
    r"(?:shows?|says?|means?|found)\b"
    # "can you read my x-ray", "explain my blood test results"
    r"|\b(?:read|interpret|look at|explain|check)\s+(?:my|his|her|these|this|the)\s+(?:\w+\s+)?(?:x-?rays?|scans?|mri|"
    r"ct scan|blood (?:tests?|work|results)|bloodwork|ecg|ekg|lab (?:results?|tests?)|test results?|biopsy)\b"
    # "does this rash look like shingles to you", "do these spots sound like chickenpox"
    rf"|\b(?:does|do)\s+(?:this|it|that|these|my|his|her)(?:\s+[\w']+){{0,2}}?\s+(?:look|sound|seem)\s+like\s+"
    rf"(?:an?\s+)?{_CONDITION}"
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
    r"tax(?:es| return| form)?|"
    # an errand of messages: "text my son that I'll be late"
    r"(?:text|message|email|whatsapp|sms)\s+(?:my|the|our)\s+(?:\w+\s+)?(?:son|daughter|wife|husband|mother|mum|mom|"
    r"father|dad|sister|brother|friend|boss|partner|family|neighbou?r|kids|children)\s+(?:that|to say|saying)|"
    r"(?:benefits?|disability|pension)\s+(?:forms?|claims?|applications?)|"
    r"recommend\s+(?:me\s+)?(?:an?\s+|some\s+)?(?:good\s+)?(?:book|film|movie|show|series|podcast|game|novel)s?|"
    r"history of|hack(?:ing)?|facebook|instagram|tiktok|"
    r"find\s+(?:me\s+|us\s+)?(?:an?\s+)?(?:good\s+|cheap\s+|local\s+|reliable\s+)?(?:plumber|electrician|builder|lawyer|"
    r"solicitor|accountant|cleaner|mechanic|babysitter|nanny|hairdresser|gardener|handyman|estate agent)|"
    r"membership|subscription|(?:plan|planning|organi[sz]e)\s+(?:my\s+|a\s+|our\s+|the\s+)?(?:holiday|vacation|trip|party|wedding)|"
    r"meaning of (?:my |a |the )?dreams?|(?:interpret|analy[sz]e) my dreams?|"
    r"when\s+(?:does|do|is)\s+(?:the\s+)?(?:\w+\s+){0,3}?(?:open|close|shut)\b|"
    r"python code|horoscope|lottery numbers|traffic|flight|hotel|restaurant|pancakes?|opening hours|"
    r"what time (?:does|do|is)\s+(?:the\s+)?(?:\w+\s+){0,4}?(?:open|close|shut)|"
    r"(?:what|something)\s+(?:should|can|could|to)\s+(?:i\s+|we\s+)?(?:cook|bake|make for (?:dinner|lunch|tea))|"
    r"meal ideas|dinner ideas|wake (?:me|us) up|timer|universe|exchange rate|currency|"
    r"how (?:do|can|to|would) (?:i |you |we )?(?:make|bake|cook)\s+(?:an?\s+|some\s+|the\s+)?(?:\w+\s+)?"
    r"(?:cake|bread|pasta|pizza|curry|soup|cookies|biscuits|pie|salad|omelette|eggs|rice|pancakes)|"
    r"book(?:ing)?\s+(?:me\s+|us\s+)?(?:an?\s+|the\s+)?(?:taxi|cab|uber|table|flight|hotel|room|tickets?)|"
    # errands, said as requests: "I fell out of a taxi" or "I cut my finger cooking" are complaints
    r"(?:book|call|get|order|find)\s+(?:me\s+|us\s+)?(?:an?\s+|some\s+)?(?:taxi|cab|uber|pizza|takeaway)|"
    r"play\s+(?:me\s+|us\s+)?(?:some\s+|a\s+|the\s+)?(?:music|songs?|radio|playlist|podcast)|"
    # errands to be reminded of ("remind me to call the plumber"; "to call the doctor" is care)
    r"remind\s+me\s+to\s+(?:call|ring|phone|text|email|buy|pick up|pay|feed|walk|water|clean|wash|collect|post|send)|"
    # "what's the date today" ("what's the date of my appointment" has a care word, and stays)
    r"what(?:'s| is)\s+(?:the\s+)?(?:date|time|day)\s+(?:today|now|it is|is it)|"
    r"what(?:'s|s| is)\s+(?:today'?s\s+|the\s+)?date(?=\s*[?.!]*\s*$)|"
    r"what day is it|what time is it|what(?:'s| is) the time in\b|"
    # "set an alarm for 7am" (not "an alarm for my levothyroxine": a reminder of a dose)
    r"set\s+(?:me\s+)?(?:an?\s+)?alarm(?![^.?!]*\bfor\s+(?:my|his|her|our|the|taking)\b)|"
    r"(?:pharmacy|pharmacies|chemist|gym|shop|store|supermarket)\s+(?:near|close to)\s+"
    r"(?:me|here|us|my)|(?:nearest|closest)\s+(?:pharmacy|pharmacies|chemist|gym|shop|store|supermarket))\b",
    re.IGNORECASE,
)
# General medical knowledge and lifestyle coaching, asked of no one in particular: "how much water
# should you drink a day", "how long does a cold last", "can you catch shingles from someone", "make
# me a meal plan". A doctor's, a pharmacist's or a dietician's to answer; the assistant refers. Said
# of the patient ("how long will my cold last", "I've had a cold for 3 weeks") it is a complaint
# (the model's): _ABOUT_ME keeps it in scope.
_INTAKE = (
    r"(?:water|fluids?|liquids?|calories|kcals?|protein|carbs|carbohydrates|fat|sugar|salt|sodium|fib(?:re|er)|"
    r"caffeine|coffee|tea|alcohol|units(?: of alcohol)?|sleep|exercise|steps|vitamin\s+\w+|iron|calcium|fruit|veg\w*)"
)
_ANYONE_SUBJECT = (
    r"(?:you|one|people|a person|an? adults?|adults|we|i|he|she|kids|children|an? (?:child|kid|teenager|woman|man))"
)
_HEALTH_FACT = re.compile(
    # "what's a normal blood sugar level", "what is a healthy resting heart rate" (not "is mine normal")
    r"\bwhat(?:'s|s| is| are)\s+(?:a\s+|the\s+)?(?:normal|healthy|good|safe|ideal|average)\s+(?:\w+\s+){0,3}?"
    r"(?:levels?|range|reading|rate|count|weight|bmi|pressure|temperature)\b|"
    rf"\bhow\s+(?:much|many)\s+(?:\w+\s+){{0,2}}?{_INTAKE}\s+(?:\w+\s+){{0,2}}?(?:should|must|ought to|can)\s+"
    rf"{_ANYONE_SUBJECT}\s+(?:drink|eat|have|get|do|take|consume|walk)\b"
    rf"|\bhow\s+(?:much|many)\s+(?:\w+\s+){{0,2}}?{_INTAKE}\s+(?:do|does)\s+{_ANYONE_SUBJECT}\s+(?:need|require)\b"
    r"|\bhow\s+long\s+(?:does|do|will|can|should|would)\s+(?:a|an|the)\s+(?:\w+\s+){0,2}?(?:usually\s+|normally\s+|typically\s+)?"
    r"(?:last|take to (?:heal|go away|clear|pass|get better)|stay contagious|be contagious)\b"
    r"|\b(?:can|could)\s+(?:you|i|one|people|someone|somebody)\s+(?:catch|get)\s+(?:an?\s+)?(?:\w+\s+){1,2}?(?:from|off)\s+"
    r"(?:someone|somebody|others|other people|a person|people|kissing|sharing|touching|toilet seats?|animals?|pets?)\b"
    r"|\bis\s+(?!(?:my|his|her|this|it|that|he|she)\b)(?:an?\s+)?\w+(?:\s+\w+)?\s+contagious\b"
    r"|\bwhat(?:'s|s| is| are)\s+(?:the\s+|an?\s+)?(?:normal|healthy|good|ideal|safe)\s+"
    r"(?:range|level|levels|value|values|"
    r"reading|number)\s+(?:for|of)\b"
    r"|\bwhat\s+(?:does|do)\s+(?:an?\s+)?(?:high|low|raised|elevated|positive|negative|abnormal)\s+(?:\w+\s+){0,3}?mean\b"
    r"|\b(?:make|give|write|create|design|build|plan|put together|draw up)\s+(?:me\s+|us\s+)?(?:an?\s+)?(?:\w+\s+)?"
    r"(?:meal|diet|food|workout|exercise|training|fitness|weight[- ]loss)\s+"
    r"(?:plan|programme|program|routine|schedule)\b"
    r"|\bwhat\s+(?:exercises?|workouts?|foods?|diets?)\s+(?:is|are)\s+(?:good|best|healthy|great)\s+for\s+(?:an?\s+)?"
    r"(?:flat|losing|weight|toned?|six|getting|building|burning|bigger|stronger)\b"
    # "what foods lower cholesterol", "how can I lose weight quickly", "what vitamins should I take"
    r"|\bwhat\s+(?:foods?|drinks?|exercises?|vitamins?|supplements?)\s+(?:\w+\s+)?(?:lower|raise|reduce|boost|increase|help|"
    r"are good|is good|should)\b"
    r"|\bhow\s+(?:do|can|could|should|would)\s+(?:i|you|we|one|people)\s+(?:lose|gain|put on|shed|burn)\s+"
    r"(?:\d+\s*\w*\s+)?(?:weight|fat|pounds|lbs|kilos|kg|belly)\b"
    # treatment asked of no one in particular: "how do I get rid of a cold fast", "a home remedy for a cough"
    r"|\bhow\s+(?:do|can|could|should|would|to)\s+(?:i\s+|you\s+|we\s+|one\s+|people\s+)?"
    r"(?:get rid of|treat|cure|heal)\s+"
    r"(?:(?:an?|the)\s+|(?!it\b|this\b|that\b|them\b|these\b|my\b|his\b|her\b)\w+s\b)"
    # "does apple cider vinegar lower blood sugar" (not a question of a doctor's: "does the dermatologist treat acne")
    r"|^\W*(?:does|do|can|will)\s+(?!my\b|i\b|you\b|we\b|he\b|she\b|the\s+\w+(?:ist|ian)\b|the\s+(?:gp|doctor)\b)"
    r"(?:\w+\s+){1,3}?(?:lower|raise|reduce|boost|cure|prevent|cause|treat|help with)\s+(?!my\b|his\b|her\b)"
    r"|\bhow\s+many\s+people\s+(?:die|get|have|catch|are|suffer)\b"
    r"|\b(?:home|natural|herbal|best|good|quick)\s+(?:remed(?:y|ies)|cures?|treatments?)\s+(?:for|to)\b"
    r"|^\W*(?:what|which)\s+(?:are|is)\s+(?:the\s+)?(?:early\s+|first\s+|common\s+|main\s+|usual\s+|typical\s+)?"
    r"(?:signs?|symptoms?|causes?)\s+of\s+(?:an?\s+)?(?!my\b|his\b|her\b)"
    r"|\bwhat(?:'s| is)\s+the\s+difference\s+between\b"
    # "what causes kidney stones" (not "what causes my headaches": a complaint)
    r"|^\W*what\s+causes\s+(?!my\b|his\b|her\b|me\b|this\b|it\b|these\b)"
    # "what is hypertension", "tell me about diabetes": a condition explained
    rf"|^\W*(?:what(?:'s|s| is| are)|explain(?:\s+what)?|tell\s+me\s+(?:about|what)|define)\s+"
    rf"(?:an?\s+|the\s+)?(?:{_CONDITION}|\w+(?:itis|osis|emia|aemia|pathy|tension|oma|algia|ism))"
    r"(?:\s+(?:is|are|means?))?\W*$"
    # "what is the treatment for gout", "the best way to quit smoking"
    r"|\bwhat(?:'s|s| is| are)\s+(?:the\s+)?(?:best\s+|usual\s+|standard\s+|normal\s+)?(?:treatments?|cures?)\s+"
    r"(?:for|of)\s+(?!my\b|his\b|her\b)"
    # "what's the best diet to lose weight fast"
    r"|\b(?:best|good|healthy|quick|fast|easiest)\s+(?:diet|workout|exercise|eating plan)s?\s+(?:to|for)\s+"
    r"(?:lose|losing|"
    r"lower|lowering|build|building|gain|gaining|burn|burning|weight|diabetes|cholesterol|muscle)\b"
    r"|\b(?:best|easiest|fastest|quickest|safest)\s+way\s+to\s+(?:quit|stop|give up|lose|gain|lower|reduce|boost|"
    r"get rid of|cure|treat|prevent)\b"
    r"|\bshould\s+(?:i|we|you|people)\s+(?:get|have|take)\s+(?:the|a|an|my)\s+(?:\w+\s+)?(?:jab|vaccine|vaccination|shot|booster)\b"
    r"|\bis\s+(?:\w+\s+)?(?:coffee|tea|alcohol|sugar|salt|red meat|chocolate|vaping|smoking|caffeine|milk|fasting|"
    r"keto|dieting)\s+"
    r"(?:bad|good|healthy|unhealthy|ok|okay|safe|dangerous)\b",
    re.IGNORECASE,
)
# "how much water should I drink": "I" asked as anyone, not a complaint of the patient's.
_MODAL_I = re.compile(r"\b(?:should|must|can|could|do)\s+i\b", re.IGNORECASE)
# "is it normal to have a resting heart rate of 50" (not "is it normal to have chest pain after
# eating": a symptom named is a complaint, the model's)
_IS_IT_NORMAL = re.compile(
    r"\bis\s+it\s+(?:normal|bad|healthy|ok|okay|safe|dangerous)\s+to\s+(?:have|get|be|feel|exercise|run|eat|drink|sleep)\b",
    re.IGNORECASE,
)
_ABOUT_ME = re.compile(r"\b(?:my|mine|i'?ve|i'?m|i am|i have|i had|i got|i feel|i keep)\b", re.IGNORECASE)
# Money asked about ("does my health insurance pay for dermatologist visits", "how much does a private
# scan cost"): the assistant does not know prices or cover.
_MONEY = re.compile(
    r"\bhow\s+much\s+(?:does|do|will|would|is|are)\s+(?:\w+\s+){0,4}?(?:cost|charge)\b"
    r"|\b(?:insurance|insurer|medicare|medicaid)\b[^.?!]*\b(?:pay|pays|cover|covers|reimburse)\b"
    r"|\b(?:pay|pays|cover|covers|reimburse)\b[^.?!]*\b(?:insurance|insurer)\b"
    # the law: "can I sue my doctor for negligence", "what are my rights as a patient"
    # ("sue" only with whom: "I'm not suee who to see" reads as "sue")
    r"|\b(?:sue|suing)\s+(?:my|the|a|an|him|her|them|our)\b"
    r"|\b(?:lawsuit|legal advice|compensation claim|(?:my|patient'?s?) rights(?: as a patient)?)\b"
    # shopping: "where can I buy a blood pressure monitor", "which smartwatch is best"
    r"|\bwhere\s+(?:can|do|should|could)\s+(?:i|we)\s+(?:buy|purchase)\b"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:smartwatch|watch|monitor|tracker|fitbit|device|gadget|scales?)\s+(?:is|are)\s+"
    r"(?:the\s+)?best\b"
    # choosing an insurer: "what's the best private health insurance"
    r"|\b(?:best|cheapest|good|which)\s+(?:private\s+)?(?:health\s+|medical\s+|travel\s+|life\s+|dental\s+)?insurance\b",
    re.IGNORECASE,
)
# "My joints ache when the weather turns", "a headache after the news": a symptom keeps it in scope.
_CARE_WORDS = re.compile(
    r"\b(?:under the weather|feel|feels|feeling|felt|unwell|not well|tired|"
    r"appointment|visits?|doctor|specialist|book|booking|symptoms?|pain|ache|aches|hurts?|sore|sick|ill|fever|"
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
    "this", "give", "send", "homework", "play", "music", "drink", "lump", "water", "much", "calories",
    "insurance", "contagious", "pizza", "order", "stop", "what", "how", "can", "medicine", "medication",
    "pancakes", "side", "effects", "xanax", "diazepam", "text", "diabetic",
)  # fmt: skip


# A visit asked for beside the question: "could it be gout? I'd like to see someone" is a referral to
# make (the model's), not a diagnosis to refuse.
_WANTS_CARE = re.compile(
    r"\b(?:book|booking|appointment|appt|refer|referral|who should i see|who to see|"
    r"(?:see|visit)\s+(?:a|an|someone|somebody|the|my)\b|find me a)\b",
    re.I,
)


# Booking something that is not care: "book" alone is a care word, "book me a taxi" is not.
_BOOKS_OTHER = re.compile(
    r"\bbook(?:ing)?\s+(?:me\s+|us\s+)?(?:an?\s+|the\s+)?(?:taxi|cab|uber|table|flight|hotel|room|tickets?)\b"
    # a book to read: "recommend a good book"
    r"|\ban?\s+(?:good\s+|new\s+|nice\s+)?book\b(?!\s+(?:me|us|him|her|an?|the|for|in|with)\b)",
    re.I,
)


# Sums asked as the whole message: "what's 15 times 12" (not "2 times a day").
_SUM = re.compile(
    r"^\W*(?:what(?:'s|s| is)\s+|calculate\s+)?\d+(?:\.\d+)?\s*(?:times|plus|minus|divided by|multiplied by|[x*+/-])\s*"
    r"\d+(?:\.\d+)?\W*$",
    re.I,
)


# A pet as the one who is unwell ("my dog is limping", "the cat has been sick all night", "can you
# book the vet"). The person stays the patient when the animal did something to them ("my dog bit
# me", "allergic to the cat") or they say what they feel too ("... and now I'm sneezing").
_ANIMAL = re.compile(
    rf"\b(?:my|our|the|his|her|their)\s+(?:(?!hot\b)\w+\s+)?{PET}(?:'s|s)?\s+(?:is|has|was|keeps?|won't|can't|isn't|"
    r"hasn't|doesn't|seems|looks|ate|eaten|swallowed|threw|just|started|got|been|might|may|could|needs?|"
    r"(?:is\s+)?(?:limping|vomiting|choking|bleeding|coughing|sneezing|shaking|scratching|not))\b"
    r"|\b(?:book|call|see|find|take (?:him|her|it|them) to)\s+(?:a|the|my|our)\s+vet\b"
    r"|\bvet(?:erinary)?\s+(?:appointment|appt|clinic|surgery|visit)\b",
    re.IGNORECASE,
)
_PERSON_TOO = re.compile(
    r"\b(?:bit|bitten|scratched|attacked|knocked|jumped on|licked)\s+(?:me|my|him|her|us|them)\b|\ballerg"
    r"|\b(?:and|but|now)\s+(?:now\s+)?(?:i|i'm|i've|i am|i have|me|my)\b",
    re.IGNORECASE,
)


def out_of_scope(message: str) -> str | None:
    """The kind of request the assistant does not do (``PRESCRIBE``, ``ADVICE``, ``DIAGNOSE``, ``OFF_TOPIC``,
    ``HEALTH_FACT``, ``ANIMAL``),
    or None: everything else goes to the model."""
    # read from after a greeting or filler ("ok so what are the side effects of codeine"): the patterns
    # that ask from the start of the message would miss it
    text = without_opening(typos_read(" ".join(str(message).split()), _VOCABULARY))
    if not text:
        return None
    if _ANIMAL.search(text) and not _PERSON_TOO.search(text):
        return ANIMAL
    # (not when a visit is asked for too: "book me a GP, I want to come off my antidepressants")
    if _ADVICE.search(text) and not _PRESCRIBER_SAID.search(text) and not _WANTS_CARE.search(text):
        return ADVICE
    if _PRESCRIBE.search(text) and not _OWN_PRESCRIPTION.search(text):
        return PRESCRIBE
    if _DIAGNOSE.search(text) and not _WANTS_CARE.search(text):
        return DIAGNOSE
    if _HEALTH_FACT.search(text) and not _ABOUT_ME.search(_MODAL_I.sub(" ", text)):
        return HEALTH_FACT
    if _IS_IT_NORMAL.search(text) and not _ABOUT_ME.search(text) and not _names_a_symptom(text):
        return HEALTH_FACT
    if _MONEY.search(text) and not _WANTS_CARE.search(text):
        return OFF_TOPIC
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
