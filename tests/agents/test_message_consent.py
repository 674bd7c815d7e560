"""Outside an SOS a text leaves the device only with the user's yes (issue 23, "Actions need consent").

In a chat, ``send_message`` first refuses what it always refused (a number that is not the user's
contact or assigned ambulance, SMS turned off), then asks the user — the run suspends as for
get_input_from_user — and queues the message only on a clear yes to that text going to those
people; any other answer queues nothing and says "not sent". One chat sends at most
``AGENT_MAX_MESSAGES_PER_CONVERSATION`` messages. What the user reads after a yes is each
message's status as the outbox records it. The SOS flows send at once, unasked and unlimited, as
before.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from agents.llm.scripted import ScriptedBackend
from agents.models import Conversation
from agents.runtime import pending_question
from agents.services import post_user_message, start_chat
from agents.sos.flows import run_hard_sos_start
from health.models import Alert, OutboundMessage
from tests.agents.helpers import call, end, observations, plan
from tests.factories import AlertFactory

DANA, ELI = "+14155550101", "+14155550102"


def chat_sending(alice, request: str, *calls: str) -> Conversation:
    """A chat whose model calls send_message (each call in turn, one per plan), then ends."""
    planner = [plan("The user asks.", "Send the message.") for _ in calls] + [end()]
    return start_chat(alice, request, backend=ScriptedBackend(planner=planner, caller=list(calls)))


def answer(conversation: Conversation, alice, text: str, planner: list[str] | None = None, caller=()) -> Conversation:
    backend = ScriptedBackend(planner=planner or [end()], caller=list(caller))
    return post_user_message(conversation.pk, alice, text, backend=backend)


@dataclass(frozen=True)
class Reply:
    said: str
    sends: bool


# The user's answer to "Shall I text Dana this message: ...?"
REPLIES = [
    Reply("yes", True),
    Reply("Yes, send it.", True),
    Reply("ok", True),
    Reply("go ahead", True),
    Reply("yes please", True),
    Reply("no", False),
    Reply("No, don't.", False),
    Reply("yes but not to Dana", False),
    Reply("maybe later", False),
    Reply("ok?", False),
    Reply("what message?", False),
    Reply("I'm not sure", False),
]


@pytest.mark.parametrize("reply", REPLIES, ids=lambda r: r.said)
def test_a_chat_asks_first_and_texts_only_on_a_clear_yes(alice, alice_contacts, reply):
    conversation = chat_sending(alice, "Tell Dana I'm home.", call("send_message", phone_no=DANA, text="I'm home"))

    assert conversation.status == Conversation.Status.WAITING_INPUT
    assert pending_question(conversation) == (
        'Shall I text Dana this message: "I\'m home"? Reply yes to send it, or no.'
    )
    assert not OutboundMessage.objects.exists()  # nothing leaves while the question waits

    conversation = answer(conversation, alice, reply.said)

    result = observations(conversation)[-1]["result"]
    assert result["user"] == reply.said
    if reply.sends:
        message = OutboundMessage.objects.get()
        assert (message.recipient, message.recipient_name, message.body) == (DANA, "Dana", "I'm home")
        assert message.idempotency_key == f"agent:{conversation.pk}:3:{DANA}"
        assert result["status"] == "queued" and result["messages"] == [{"to": "Dana", "status": "queued"}]
        assert result["message"] == "Your text message to Dana: queued, not sent yet."
    else:
        assert not OutboundMessage.objects.exists()
        assert result["status"] == "not sent"
        assert result["message"].startswith("Not sent: you did not agree to text Dana.")
    assert conversation.status == Conversation.Status.COMPLETED


def test_a_message_to_all_contacts_names_each_of_them_and_goes_to_each_on_yes(alice, alice_contacts):
    conversation = chat_sending(
        alice, "Tell my contacts I'm home.", call("send_message", to_emergency_contacts=True, text="Home")
    )

    assert pending_question(conversation) == (
        'Shall I text Dana and Eli this message: "Home"? Reply yes to send it, or no.'
    )
    answer(conversation, alice, "yes")

    assert sorted(OutboundMessage.objects.values_list("recipient", "body")) == [(DANA, "Home"), (ELI, "Home")]


def test_what_the_user_reads_is_the_outbox_record_not_the_intent(alice, alice_contacts):
    """The step's message was already attempted and recorded as not sent (no SMS provider): a yes
    finds that record, and the answer says "not sent", never "sent"."""
    conversation = chat_sending(alice, "Tell Dana I'm home.", call("send_message", phone_no=DANA, text="I'm home"))
    OutboundMessage.objects.create(
        user=alice,
        recipient=DANA,
        recipient_kind="emergency_contact",
        recipient_name="Dana",
        body="I'm home",
        idempotency_key=f"agent:{conversation.pk}:3:{DANA}",
        status=OutboundMessage.Status.NOT_SENT,
    )

    conversation = answer(conversation, alice, "yes")

    result = observations(conversation)[-1]["result"]
    assert result["status"] == "not sent"
    assert result["messages"] == [{"to": "Dana", "status": "not_sent"}]
    assert "sent yet" not in result["message"] and result["message"] == "Your text message to Dana: not sent."
    assert OutboundMessage.objects.count() == 1


# Calls a fooled model makes in a chat: refused at once, nobody is asked, nothing is queued.
REFUSED = [
    ("a made-up number", dict(phone_no="+14155550123", text="Send money"), "neither the assigned ambulance"),
    ("another user's contact", dict(phone_no="+14155550199", text="Hi"), "neither the assigned ambulance"),
    ("no recipient", dict(text="Hi"), "Give phone_no or set to_emergency_contacts"),
    ("an empty text", dict(phone_no=DANA, text="  "), "text must not be empty"),
]


@pytest.mark.parametrize("case, parameters, refusal", REFUSED, ids=[r[0] for r in REFUSED])
def test_what_was_never_allowed_is_refused_without_asking(
    alice, alice_contacts, bob_contact, case, parameters, refusal
):
    conversation = chat_sending(alice, "Send it.", call("send_message", **parameters))

    assert conversation.status == Conversation.Status.COMPLETED
    [observation] = observations(conversation)
    assert refusal in observation["error"]
    assert not OutboundMessage.objects.exists()


def test_sms_turned_off_is_refused_without_asking(alice, alice_contacts):
    alice.profile.sms_opt_in = False
    alice.profile.save()

    conversation = chat_sending(alice, "Tell Dana.", call("send_message", phone_no=DANA, text="Hi"))

    assert "turned off SMS" in observations(conversation)[0]["error"]
    assert not OutboundMessage.objects.exists()


@pytest.mark.parametrize("limit", [0, 1, 2])
def test_a_chat_sends_at_most_the_configured_number_of_messages(alice, alice_contacts, settings, limit):
    """Every message agreed to, one after another in one chat: past the limit the tool refuses at
    once (no question) and nothing more is queued. A message to all contacts counts once."""
    settings.AGENT_MAX_MESSAGES_PER_CONVERSATION = limit
    texts = ["one", "two", "three"]
    sends = [call("send_message", to_emergency_contacts=True, text=text) for text in texts]
    conversation = chat_sending(alice, "Tell my contacts three things.", sends[0])
    for following in sends[1:]:
        if conversation.status != Conversation.Status.WAITING_INPUT:
            break
        conversation = answer(conversation, alice, "yes", [plan("Next.", "Send the next one."), end()], [following])
    if conversation.status == Conversation.Status.WAITING_INPUT:
        conversation = answer(conversation, alice, "yes")

    assert sorted(set(OutboundMessage.objects.values_list("body", flat=True))) == sorted(texts[:limit])
    assert OutboundMessage.objects.count() == 2 * limit
    refusal = observations(conversation)[-1]["error"]
    assert refusal == (
        f"This conversation already sent {limit} messages, the most one conversation may send. Nothing was sent."
    )


def test_the_limit_is_per_conversation(alice, alice_contacts, settings):
    settings.AGENT_MAX_MESSAGES_PER_CONVERSATION = 1
    for text in ("first chat", "second chat"):
        conversation = chat_sending(alice, "Tell Dana.", call("send_message", phone_no=DANA, text=text))
        answer(conversation, alice, "yes")

    assert sorted(OutboundMessage.objects.values_list("body", flat=True)) == ["first chat", "second chat"]


def test_a_contact_removed_while_the_question_waits_gets_nothing_and_the_answer_says_so(alice, alice_contacts):
    conversation = chat_sending(alice, "Tell Dana I'm home.", call("send_message", phone_no=DANA, text="I'm home"))
    alice_contacts[0].delete()

    conversation = answer(conversation, alice, "yes")

    result = observations(conversation)[-1]["result"]
    assert result["status"] == "not sent" and "neither the assigned ambulance" in result["message"]
    assert not OutboundMessage.objects.exists()
    assert conversation.status == Conversation.Status.COMPLETED


def test_the_hard_sos_still_texts_at_once_unasked_and_unlimited(alice, alice_contacts, ambulances, settings):
    """The SOS path is untouched: the guard texts the ambulance and every contact without a question,
    even with a limit of 0 for chats."""
    settings.AGENT_MAX_MESSAGES_PER_CONVERSATION = 0
    alert = AlertFactory(user=alice, kind=Alert.Kind.HARD, condition="")

    run_hard_sos_start(alert.pk, backend=ScriptedBackend())

    conversation = Conversation.objects.get(kind=Conversation.Kind.HARD_SOS_START)
    assert conversation.status != Conversation.Status.WAITING_INPUT
    recipients = sorted(OutboundMessage.objects.filter(alert=alert).values_list("recipient", flat=True))
    assert recipients == sorted([ambulances["near"].phone, DANA, ELI])


def test_the_table_says_how_many_answers_and_calls_were_tried():
    print(f"\nmessage consent: {len(REPLIES)} answers, {len(REFUSED) + 1} refused calls, 3 limits")
    assert len(REPLIES) >= 10
