"""The scope guard (agents/scope.py and the runtime): a new request to prescribe, to diagnose, or
about anything but the patient's care gets a short, kind answer of what the assistant can do, at
once and without a model call; nothing is booked, stored or sent. Everything else goes to the model."""

from __future__ import annotations

import itertools

import pytest

from agents import scope
from agents.llm.scripted import ScriptedBackend
from agents.services import post_user_message, start_chat
from health.models import Appointment, Medication, Notification, OutboundMessage, SymptomRecord
from tests.agents.helpers import call, end, plan, states

OUT_OF_SCOPE = [
    ("prescribe me antibiotics", scope.PRESCRIBE),
    ("Can you prescribe something for my cough?", scope.PRESCRIBE),
    ("give me some painkillers please", scope.PRESCRIBE),
    ("what medicine should I take for a headache", scope.PRESCRIBE),
    ("what medicines do I take for a cold", scope.PRESCRIBE),
    ("which antibiotic is best for a sore throat", scope.PRESCRIBE),
    ("can I get a prescription for xanax", scope.PRESCRIBE),
    ("recommend a good sleeping pill", scope.PRESCRIBE),
    ("how many paracetamol should i take", scope.PRESCRIBE),
    ("I need you to prescribe amoxicillin for my son", scope.PRESCRIBE),
    ("is this mole cancer?", scope.DIAGNOSE),
    ("could this lump be a tumour", scope.DIAGNOSE),
    ("recommend some films", scope.OFF_TOPIC),
    ("Could it be a heart attack?", scope.DIAGNOSE),
    ("do I have diabetes", scope.DIAGNOSE),
    ("what disease do I have", scope.DIAGNOSE),
    ("what's wrong with me", scope.DIAGNOSE),
    ("diagnose me please", scope.DIAGNOSE),
    ("is my rash contagious", scope.DIAGNOSE),
    ("do you think I have covid", scope.DIAGNOSE),
    ("what's the weather today", scope.OFF_TOPIC),
    ("tell me a joke", scope.OFF_TOPIC),
    ("who won the football match", scope.OFF_TOPIC),
    ("what's the capital of France", scope.OFF_TOPIC),
    ("write me code in python", scope.OFF_TOPIC),
    ("what is the bitcoin price", scope.OFF_TOPIC),
    ("give me a recipe for pasta", scope.OFF_TOPIC),
    ("translate hello into spanish", scope.OFF_TOPIC),
    ("should I stop taking my ramipril", scope.ADVICE),
    ("can you lower the dose of my sertraline", scope.ADVICE),
    ("is it safe to drink alcohol with my antibiotics", scope.ADVICE),
    ("can I take ibuprofen with my blood pressure tablets", scope.ADVICE),
    ("what's the maximum dose of paracetamol", scope.ADVICE),
    ("can you give me something to help me sleep", scope.PRESCRIBE),
    ("write me a sick note for work", scope.PRESCRIBE),
    ("presribe me antibiotcs", scope.PRESCRIBE),
    ("whats wrong with me", scope.DIAGNOSE),
    ("call me a taxi to the station", scope.OFF_TOPIC),
    ("play some music", scope.OFF_TOPIC),
    ("can you increase my insulin dose", scope.ADVICE),
    ("what are the side effects of metformin", scope.ADVICE),
    ("can you tell me if i have covid", scope.DIAGNOSE),
    ("what antibiotic is best for a uti", scope.PRESCRIBE),
    # an eighth and a ninth round (first read 8 of 10 and 5 of 10)
    ("what dose of ibuprofen should I take", scope.ADVICE),
    ("how many mg of ibuprofen can I take", scope.ADVICE),
    ("what should i cook for dinner", scope.OFF_TOPIC),
    ("can you tell me if this mole looks cancerous", scope.DIAGNOSE),
    ("write an email to my boss", scope.OFF_TOPIC),
    ("what's 15 times 12", scope.OFF_TOPIC),
    ("how do I fix my wifi", scope.OFF_TOPIC),
    ("what's the best way to invest my savings", scope.OFF_TOPIC),
    ("I have a rash and a fever, what do I have?", scope.DIAGNOSE),
    # an eleventh round (first read 7 of 15)
    ("can you tell me what dose of ibuprofen I should give my 4 year old", scope.ADVICE),
    ("what time does the pharmacy on main street close", scope.OFF_TOPIC),
    ("can you order me more inhalers from the chemist", scope.PRESCRIBE),
    ("I think I have lupus, can you confirm", scope.DIAGNOSE),
    ("give me something stronger for the pain", scope.PRESCRIBE),
    ("can you refill my prescription for sertraline", scope.PRESCRIBE),
    ("do I need antibiotics for a sore throat", scope.PRESCRIBE),
    # a twelfth round (first read 6 of 10)
    ("what's the best antibiotic for a chest infection", scope.PRESCRIBE),
    ("how much paracetamol can a child have", scope.PRESCRIBE),
    ("do you think it's cancer", scope.DIAGNOSE),
    ("can you set an alarm to wake me up for work", scope.OFF_TOPIC),
    # a fourteenth round, out of scope only (first read 15 of 34)
    ("I need some antibiotics sent to my pharmacy", scope.PRESCRIBE),
    ("what should I take for a hangover", scope.PRESCRIBE),
    ("is 40mg of simvastatin too much", scope.ADVICE),
    ("what does my blood test result mean, my ALT is 60", scope.DIAGNOSE),
    # a result read out with its number (one of 39 requests of every kind written later; 37 read first time)
    ("what does my blood test result of 5.6 hba1c mean", scope.DIAGNOSE),
    ("what does an a1c of 6.1 mean", scope.DIAGNOSE),
    ("is my child's rash measles", scope.DIAGNOSE),
    ("book me a table for two at 8", scope.OFF_TOPIC),
    ("how do I make a cake", scope.OFF_TOPIC),
    ("set a timer for 10 minutes for my pasta", scope.OFF_TOPIC),
    ("how old is the universe", scope.OFF_TOPIC),
    ("what's the exchange rate for euros", scope.OFF_TOPIC),
    ("get me some sleeping tablets", scope.PRESCRIBE),
    ("which antidepressant is the best one", scope.PRESCRIBE),
    ("can you switch me to a different blood pressure medicine", scope.PRESCRIBE),
    ("should I take my statin at night or in the morning", scope.ADVICE),
    ("can I drink wine on antibiotics", scope.ADVICE),
    ("what's the maximum paracetamol per day", scope.ADVICE),
    ("will ibuprofen interact with my warfarin", scope.ADVICE),
    ("give me a diagnosis please", scope.DIAGNOSE),
    ("does this rash look like shingles to you", scope.DIAGNOSE),
    ("should i double my insulin tonight", scope.ADVICE),
    ("can I double up my bisoprolol today", scope.ADVICE),
    ("I need a refill of my antibiotics", scope.PRESCRIBE),
    # general medical knowledge and coaching, asked of no one in particular
    ("how much water should you drink a day", scope.HEALTH_FACT),
    ("how many calories should i eat a day", scope.HEALTH_FACT),
    ("how many hours of sleep does an adult need", scope.HEALTH_FACT),
    ("how long does a cold last usually", scope.HEALTH_FACT),
    ("can you catch shingles from someone", scope.HEALTH_FACT),
    ("is chickenpox contagious", scope.HEALTH_FACT),
    ("what's the normal range for cholesterol", scope.HEALTH_FACT),
    ("what does a high white cell count mean", scope.HEALTH_FACT),
    ("make me a meal plan to lose weight", scope.HEALTH_FACT),
    ("what exercises are good for a flat stomach", scope.HEALTH_FACT),
    ("what foods lower cholesterol", scope.HEALTH_FACT),
    ("how can I lose weight quickly", scope.HEALTH_FACT),
    ("how do I get rid of a cold fast", scope.HEALTH_FACT),
    ("what's a good home remedy for a cough", scope.HEALTH_FACT),
    ("what are the early signs of diabetes", scope.HEALTH_FACT),
    ("what's the difference between a cold and the flu", scope.HEALTH_FACT),
    ("is it normal to have a resting heart rate of 50", scope.HEALTH_FACT),
    ("my blood sugar was 11 this morning, is that dangerous", scope.DIAGNOSE),
    ("can you read my x-ray", scope.DIAGNOSE),
    ("does my health insurance pay for dermatologist visits", scope.OFF_TOPIC),
    ("how much does a private scan cost", scope.OFF_TOPIC),
    ("set an alarm for 7am", scope.OFF_TOPIC),
    ("can you recommend a good pharmacy near me", scope.OFF_TOPIC),
    ("what is hypertension", scope.HEALTH_FACT),
    ("tell me about diabetes", scope.HEALTH_FACT),
    ("what is the treatment for gout", scope.HEALTH_FACT),
    ("what's the best way to quit smoking", scope.HEALTH_FACT),
    ("remind me to call the plumber tomorrow", scope.OFF_TOPIC),
    ("what's the date today", scope.OFF_TOPIC),
    ("whats the date", scope.OFF_TOPIC),
    ("could you order my repeat prescription", scope.PRESCRIBE),
    ("give me the results of my blood test", scope.DIAGNOSE),
    ("can you tell me what my ECG shows", scope.DIAGNOSE),
    ("can i drive after taking codeine", scope.ADVICE),
    ("what happens if I miss a dose of the pill", scope.ADVICE),
    ("can I have some codeine", scope.PRESCRIBE),
    ("I want a prescription for viagra", scope.PRESCRIBE),
    ("recommend a good antihistamine", scope.PRESCRIBE),
    ("get me some ibuprofen", scope.PRESCRIBE),
    ("can you tell me if my x-ray is normal", scope.DIAGNOSE),
    ("am I depressed", scope.DIAGNOSE),
    ("is my child autistic", scope.DIAGNOSE),
    ("I want stronger painkillers", scope.PRESCRIBE),
    ("what's a normal blood sugar level", scope.HEALTH_FACT),
    ("what's the time in tokyo", scope.OFF_TOPIC),
    # a pet's health is for a vet
    ("my dog is choking on a bone", scope.ANIMAL),
    ("the cat is not breathing", scope.ANIMAL),
    ("my cat has been sick all night", scope.ANIMAL),
    ("our puppy swallowed a sock", scope.ANIMAL),
    ("can you book the vet for tomorrow", scope.ANIMAL),
    ("my rabbit keeps sneezing, what should I do", scope.ANIMAL),
    ("I need antibiotics for my chest infection, can you sort that", scope.PRESCRIBE),
    ("I want something stronger for my back pain", scope.PRESCRIBE),
    ("can you change my medication", scope.PRESCRIBE),
    ("what painkiller should I take for a toothache", scope.PRESCRIBE),
    ("could my headaches be a brain tumour", scope.DIAGNOSE),
    ("is my blood test normal, my ALT is 60", scope.DIAGNOSE),
    ("can you help me with my tax return", scope.OFF_TOPIC),
    ("fill in my disability benefits form", scope.OFF_TOPIC),
    ("what's the best private health insurance", scope.OFF_TOPIC),
    ("give me the phone number of the nearest pharmacy", scope.OFF_TOPIC),
    ("what's the best diet to lose weight fast", scope.HEALTH_FACT),
    ("hi should i stip taking my metformin", scope.ADVICE),
    ("ok so what are the side effects of sleeping pills", scope.ADVICE),
    ("hey what mediine should i take for my cough", scope.PRESCRIBE),
    ("hoq mcuh water should you drink a day", scope.HEALTH_FACT),
    ("um text my mother that I'll be late", scope.OFF_TOPIC),
    ("ok so csn I get a prescription for xnax", scope.PRESCRIBE),
    ("recommend me a cream for eczema", scope.PRESCRIBE),
    ("which inhaler is better, blue or brown", scope.PRESCRIBE),
    ("I want to come off my antidepressants, how do I do it", scope.ADVICE),
    ("is 10mg of amlodipine a lot", scope.ADVICE),
    ("is it an ear infection", scope.DIAGNOSE),
    ("is my son allergic to milk", scope.DIAGNOSE),
    ("is 140/90 high blood pressure", scope.DIAGNOSE),
    ("what causes kidney stones", scope.HEALTH_FACT),
    ("is intermittent fasting healthy", scope.HEALTH_FACT),
    ("how many steps a day should I walk", scope.HEALTH_FACT),
    ("recommend a good book", scope.OFF_TOPIC),
    ("when does Tesco close", scope.OFF_TOPIC),
    (
        "Hi, sorry to bother you, but could you possibly prescribe my mum some stronger sleeping tablets?",
        scope.PRESCRIBE,
    ),
    ("Good evening. I was wondering whether you could tell me if my daughter's rash is measles", scope.DIAGNOSE),
    ("whats the dose of calpol for a 4 year old", scope.ADVICE),
    ("does apple cider vinegar lower blood sugar", scope.HEALTH_FACT),
    ("what's better for a headache, ibuprofen or paracetamol", scope.PRESCRIBE),
    ("just tell me what's wrong with my knee", scope.DIAGNOSE),
    ("can you confirm I've got IBS", scope.DIAGNOSE),
    ("honestly just want to know if I'm diabetic from my symptoms", scope.DIAGNOSE),
    ("please send my prescription to boots", scope.PRESCRIBE),
    ("I need my blood pressure pills refilled", scope.PRESCRIBE),
    ("could you find me a good plumber", scope.OFF_TOPIC),
    ("I want to cancel my gym membership", scope.OFF_TOPIC),
    ("help me plan my holiday to Spain", scope.OFF_TOPIC),
    ("what's the meaning of my dream last night", scope.OFF_TOPIC),
    ("how many people die of cancer each year", scope.HEALTH_FACT),
    ("can I sue my doctor for negligence", scope.OFF_TOPIC),
    ("I want to sue the hospital", scope.OFF_TOPIC),
    ("where can I buy a blood pressure monitor", scope.OFF_TOPIC),
    ("which smartwatch is best for tracking sleep", scope.OFF_TOPIC),
    ("how do I get rid of warts", scope.HEALTH_FACT),
]

IN_SCOPE = [
    "what's the date of my next gynaecology visit",
    "what is the time of my dermatology appointment",
    "remind me to call the doctor tomorrow",
    "what's the best way to lower my blood pressure, I'd like to see someone",
    # the same questions said of the patient: complaints, reminders or the records
    "how long will my cold last",
    "I've had a cold for 3 weeks, how long does a cold last",
    "how much water should I drink with my metformin",
    "how much sleep did I get last night",
    "how many steps did i do today",
    "is it normal to have chest pain after eating",
    "can you set an alarm for my levothyroxine twice a day",
    "book me a dermatologist, does my insurance cover it",
    "does this rash look like something a dermatologist should see",
    "I need a refill appointment with my GP",
    "should I take my insulin tonight at 9",
    "what medicines do I take in the morning",  # the patient's own schedule
    "my blood test results came back high, book me a doctor",
    "what does my heart rate this week look like",  # the watch's readings: the health desk
    "I have a fever and a cough, book me a doctor",
    "remind me to take metformin twice a day",
    "I have a photo of my prescription, can you set up reminders?",
    "my doctor prescribed antibiotics and now I have a rash",
    "I was prescribed amoxicillin, remind me 3 times a day",
    "I want to see a dermatologist about a mole",
    "my headache gets worse when the weather changes",
    "my joints ache in cold weather",
    "I feel dizzy after watching the news",
    "what's my next appointment?",
    "how was my day?",
    "how were my vitals today?",
    "cancel my appointment with the urologist",
    "9 is too early, do you have something in the afternoon?",
    "I took my pills this morning",
    "book me the earliest cardiologist",
    "I have a lump in my breast",
    "I keep getting headaches and my vision is blurry",
    "My son has a fever and a rash",
    "I need a refill appointment for my prescription",
    "I'm worried, my chest hurts when I climb stairs",
    "my stomach hurts after I eat spicy food",
    "I've been feeling very low and can't sleep",
    "can you book me a skin doctor for tomorrow",
    "I have itchy eyes every spring",
    "I cut my finger while cooking",
    "I fell getting out of a taxi and my knee hurts",
    "should I stop running while my knee hurts",
    "my doctor increased the dose of metformin, remind me twice a day",
    "book me a taxi to the hospital",
    "i think i'm getting side effects from metformin, i feel sick all the time",
    "my doctor increased my insulin dose, please update my reminder",
    "what medicines should I take tonight",  # the patient's own schedule
    "which tablets should I take now",
    "what pills should i take this morning",
    "my laptop screen gives me headaches every day",
    "the skin doctor said the mole looks benign, can I see a dermatologist again next week",
    "what dose do I have next",
    "how many tablets do I take today",
    "I need the results of my investigation, my stomach hurts",
    "my savings paid for my knee surgery, I need a follow up with the orthopedist",
    "I take my tablets 2 times a day and still have a cough",
    "what do I have booked after christmas",
    "what do i have to swallow tonight",
    # a complaint beside an off-topic word, and the eleventh round's near misses
    "my knee has been swollen since I twisted it playing football",
    "sprained my ankle at football, it's really swollen",
    "book me a GP appointment to renew my prescription",
    "remind me to renew my prescription on friday",
    "remind me to order more inhalers next week",
    "I think I have a chest infection, can you tell me who I should see",
    "do I need to see a doctor about my cough",
    "what time does my appointment start tomorrow",
    "set an alarm for my insulin at 7am",
    "can you wake me up for my 7am tablets",
    "do you think it's worth seeing a doctor about my cough",
    # near misses of the fourteenth round
    "my knee is swollen, could it be gout? I'd like to see someone",  # a visit asked for: the model refers
    "I think I have the flu, I have a fever and aches, can I see a doctor",
    "I have eczema and want to see a dermatologist",
    "remind me to take my statin at night",
    "set a reminder for my antibiotics every 8 hours",
    "what should I take tonight",
    "I was given antibiotics and now I have a rash",
    "my blood test showed high cholesterol, who should I see",
    "when is my blood test appointment",
    "book me a GP to talk about switching my blood pressure medicine",
    "I'm worried, my throat is sore and my tonsils are huge. Is this something serious?",
    "how was my heart rate during the night",
    "can I get a reminder for my ibuprofen",
    "I need a prescription for my blood pressure, book a GP",
    "my doctor prescribed melatonin, set a reminder for 10pm",
    "I need new medicine reminders",
    "what's a normal heart rate for me given my watch readings",
    "am I booked for friday",
    # the person stays the patient: the animal did something to them, or they say what they feel
    "my dog bit me and it's bleeding",
    "I'm allergic to my cat, my eyes are streaming",
    "my dog is limping and now I have a rash on my arm from the fleas",
    "my hot dog is cold and I feel sick",
    "I have a dog and my knee hurts when I walk him",
    "text my daughter that I'm in hospital with chest pain",
    "I want to stop my medication reminders",
    "how do I stop my reminders for metformin",
    "I've been using a cream for my eczema but it's not working, book a dermatologist",
    "my inhaler isn't helping my asthma as much, I'd like to see a lung doctor",
    "is my appointment at 10 or 11",
    "is it a good idea to see a cardiologist about palpitations",
    "what causes my heart to race at night",
    "my son is allergic to peanuts and I'd like to book an allergist",
    "I read a good book about diabetes, I want to see an endocrinologist",
    "when does my cardiology appointment start",
    "can you book me in with the gp, I want to come off my antidepressants safely",
    "I want to stop taking my statin because of muscle pain, can I see my doctor",
    "is my blood pressure ok today",
    "is 140/90 on my watch this morning normal for me",
    "can you confirm my appointment is on friday",
    "confirm I have a cardiologist booking",
    "I need my prescription refilled, can you book my GP",
    "does the cardiologist do home visits",
    "how do I get rid of my cough, it's been a month, who should I see",
    "what's better, a morning or afternoon appointment",
    "I want to plan my week around my appointments",
    "my gym membership made my knee hurt, I think I need an orthopedist",
    "is it ok to eat before my blood test tomorrow at the clinic",
    "I'm diabetic and my feet are numb, book a specialist",
    "the dose of my metformin reminder is wrong, change it to 1000mg",
    "what's the dose of metformin I take in the evening",
    "So basically I struggle to climb stairs and I'm limping, and I'm not suee who to see.",
    "I need antibiotics, can you book me a GP",
    "I need my antibiotics reminder at 8 and 8",
    "I need painkiller reminders three times a day",
    "my doctor changed my medication, I take metformin at 9 now",
    "change my medication reminder to 9pm",
    "I have a headache and I'm worried it could be a brain tumour, who should I see",
    "my results came back and I'd like to see a specialist about them",
    "I had blood tests last week, can I book a follow-up to go over the results",
    "I want something for my anxiety, can I book a psychiatrist",
    "I need to see someone about switching my blood pressure tablets",
    "I've got a tax on my nerves, ha, I'm so stressed I can't sleep",
    "my insurance covers the dermatologist, book me one please",
    "I'm taking ibuprofen for my knee pain, which specialist should I see",
]


@pytest.mark.parametrize(("text", "kind"), OUT_OF_SCOPE)
def test_requests_the_assistant_does_not_do_are_recognised(text, kind):
    assert scope.out_of_scope(text) == kind


@pytest.mark.parametrize("text", IN_SCOPE)
def test_care_requests_go_to_the_model(text):
    assert scope.out_of_scope(text) is None


@pytest.mark.parametrize("kind", [scope.PRESCRIBE, scope.ADVICE, scope.DIAGNOSE, scope.OFF_TOPIC, scope.HEALTH_FACT])
def test_each_answer_says_what_the_assistant_can_do(kind):
    answer = scope.reply(kind)
    assert "{" not in answer and "\n" not in answer
    assert "specialist" in answer or "booking" in answer


def test_a_pet_gets_the_vet_and_the_sos_for_a_person():
    answer = scope.reply(scope.ANIMAL)
    assert "{" not in answer and "\n" not in answer
    assert "vet" in answer and "SOS" in answer


@pytest.mark.parametrize(
    ("text", "kind"), [("prescribe me antibiotics", "prescribe"), ("is this mole cancer?", "diagnose"),
                       ("what's the weather today", "off_topic")]
)  # fmt: skip
def test_an_out_of_scope_request_is_answered_without_the_model_and_nothing_happens(alice, text, kind):
    # A model that would do harm if asked: the guard must not call it at all.
    backend = ScriptedBackend(
        planner=itertools.repeat(plan("The user wants it.", "Do it.")),
        caller=itertools.repeat(call("store_symptoms", user_id=str(alice.pk), symptoms="cough")),
    )

    conversation = start_chat(alice, text, backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    trajectory = states(conversation)
    assert [s["from"] for s in trajectory] == ["system", "user", "planner", "caller", "observation", "planner"]
    answer = scope.reply(kind)
    assert trajectory[3]["value"] == {
        "tool": "notify_user",
        "parameters": {"user_id": str(alice.pk), "message": answer},
    }
    assert trajectory[-1]["value"]["action"] == "<END>"
    assert Notification.objects.filter(user=alice, kind="assistant", body=answer).exists()
    assert not Appointment.objects.filter(user=alice).exists()
    assert not SymptomRecord.objects.filter(user=alice, conversation=conversation).exists()
    assert not Medication.objects.filter(user=alice).exists()
    assert not OutboundMessage.objects.exists()


def test_a_care_request_goes_to_the_model(alice):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    conversation = start_chat(alice, "my doctor prescribed antibiotics and now I have a rash", backend=backend)

    assert conversation.status == "completed"
    assert len(backend.calls) == 1


def test_an_answer_to_a_question_is_never_refused(alice):
    """Only new requests are checked: "is it cancer?" as the answer to "anything else?" goes on."""
    backend = ScriptedBackend(
        planner=[plan("Need details.", "Ask since when."), end("Done.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Anything else?")],
    )
    conversation = start_chat(alice, "I have a mole that changed shape.", backend=backend)
    assert conversation.status == "waiting_input"

    conversation = post_user_message(conversation.pk, alice, "could it be cancer?", backend=backend)

    assert conversation.status == "completed"
    assert len(backend.calls) == 3, "the model read the answer"
