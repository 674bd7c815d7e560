"""The language guard (agents/language.py and the runtime): a chat message in a language the
assistant does not understand gets "I can only help in English for now" at once, without a model
call, and the chat completes; English, however misspelled, goes to the model as before."""

from __future__ import annotations

import itertools

import pytest

from agents.language import english_only_reply, understood
from agents.llm.scripted import ScriptedBackend
from agents.services import post_user_message, start_chat
from health.models import Notification
from tests.agents.helpers import call, end, plan, states

RUSSIAN = "У меня болит голова"  # noqa: RUF001  (Cyrillic letters on purpose)

ENGLISH = [
    "Hi",
    "yes",
    "No, thank you.",
    "ok",
    "Thx",
    "Hello",
    "I have a headache",
    "my tummy hurts",
    "Nausea and vomiting",
    "What's my next appointment?",
    "Can I see a doctor tomorrow at 10?",
    "Remind me to take metformin 500 mg twice a day",
    "Remind me to take Vitamin D3, 1000 IU",
    "Paracetamol",
    "Ibuprofen 400mg",
    "BP 140/90",
    "🤒",
    # names, also Spanish-looking ones
    "Priya Sharma",
    "José",
    "Jose Luis",
    "Dolores",
    "Dr. Müller",
    "Book me with Dr. de la Cruz please",
    "Dr van der Berg at 3pm",
    # typos
    "i hav a hedache and feever, my stomache hurts",
    "chest pian when i breath",
    "sore throught and runny noze",
    "plz bok apointment tmrw",
    "hedache feever stomache",
    "i feel dizy and tierd, cant sleep at nite",
    "my chilld has a feever",
    "wat time is my appt",
    # English with a word of another language in it
    "Namaste, I have a fever",
    "I have bukhar since 2 days",
    "Gracias doctor",
    "I was in Mexico last week and now I have diarrhea",
    "I'm from Berlin",
]

OTHER = [
    # Spanish
    "Tengo fiebre y dolor de cabeza",
    "Me duele el estómago desde ayer",
    "Necesito una cita con el médico",
    "Mi rodilla está hinchada",
    "Sí, por favor",
    "Hola",
    # French
    "J'ai de la fièvre et mal à la tête",
    "Je suis très fatigué",
    "Bonjour, j'ai besoin d'un rendez-vous",
    "Merci beaucoup",
    # German
    "Ich habe Kopfschmerzen und Fieber",
    "Mir ist seit gestern übel",
    "Paracetamol bitte",
    # Hindi in Latin letters
    "mujhe bukhar hai",
    "mere sir mein dard hai",
    "mujhe 3 din se khansi aur bukhar hai",
    "kya aap meri madad kar sakte hain",
    # Italian, Portuguese, Dutch, Indonesian
    "Ho la febbre e mal di testa",
    "Estou com dor de barriga",
    "Ik heb koorts en hoofdpijn",
    "Saya demam dan sakit kepala",
    # other scripts: Devanagari, Cyrillic, Chinese, Japanese, Arabic
    "मुझे बुखार है",
    RUSSIAN,
    "我头疼",
    "頭が痛いです",
    "أشعر بألم في رأسي",
]


@pytest.mark.parametrize("text", ENGLISH)
def test_english_names_medicines_and_typos_are_understood(text):
    assert understood(text)


@pytest.mark.parametrize("text", OTHER)
def test_other_languages_are_not_understood(text):
    assert not understood(text)


@pytest.mark.parametrize("text", ["mujhe bukhar hai", "Tengo fiebre y dolor de cabeza", RUSSIAN])
def test_a_message_in_another_language_is_answered_without_the_model_and_the_chat_completes(alice, text):
    # A model that would loop for ever: the guard must not call it at all.
    backend = ScriptedBackend(
        planner=itertools.repeat(plan("I do not understand.", "Ask again.")),
        caller=itertools.repeat(call("get_input_from_user", user_id=str(alice.pk), questions="Sorry?")),
    )

    conversation = start_chat(alice, text, backend=backend)

    assert conversation.status == "completed"
    assert backend.calls == []
    reply = english_only_reply()
    assert reply.startswith("Sorry, I can only help in English for now.")
    trajectory = states(conversation)
    assert [s["from"] for s in trajectory] == ["system", "user", "planner", "caller", "observation", "planner"]
    assert trajectory[3]["value"] == {"tool": "notify_user", "parameters": {"user_id": str(alice.pk), "message": reply}}
    assert trajectory[4]["value"] == {"result": True}
    assert trajectory[-1]["value"]["action"] == "<END>"
    assert Notification.objects.filter(user=alice, kind="assistant", body=reply).exists()


def test_an_answer_in_another_language_ends_the_request_with_the_same_reply(alice):
    backend = ScriptedBackend(
        planner=[plan("Need details.", "Ask since when.")],
        caller=[call("get_input_from_user", user_id=str(alice.pk), questions="Since when do you have it?")],
    )
    conversation = start_chat(alice, "I have a cough.", backend=backend)
    assert conversation.status == "waiting_input"

    conversation = post_user_message(conversation.pk, alice, "desde ayer, tengo mucha tos", backend=backend)

    assert conversation.status == "completed"
    assert len(backend.calls) == 2, "the model was not asked again"
    trajectory = states(conversation)
    assert trajectory[-3]["value"]["parameters"]["message"] == english_only_reply()
    # English again afterwards: the next request goes to the model.
    later = ScriptedBackend(planner=[end("Nothing to do.")])
    conversation = post_user_message(conversation.pk, alice, "Sorry: since yesterday, a bad cough.", backend=later)
    assert conversation.status == "completed"
    assert len(later.calls) == 1


def test_english_full_of_typos_goes_to_the_model(alice):
    backend = ScriptedBackend(planner=[end("Nothing to do.")])

    conversation = start_chat(alice, "i hav a hedache and feever, my stomache hurts", backend=backend)

    assert conversation.status == "completed"
    assert len(backend.calls) == 1
    assert not any(
        s["from"] == "planner" and s["value"]["reason"].startswith("Language guard") for s in states(conversation)
    )
