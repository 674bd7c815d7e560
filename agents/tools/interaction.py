"""Tools that talk to the user: ask a question (suspending the run) or notify."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.errors import InvalidArguments, ToolError
from agents.models import Conversation
from agents.tools.appointments import appointment_notice, slot_question
from agents.tools.context import ToolContext
from agents.tools.registry import tool
from agents.tools.transcript import answered_questions, calls_in_request, request_parts
from core.events import Event
from core.realtime import push_to_user
from health.models import Alert, Notification
from health.sos.soft import soft_sos_notice


def _as_is(reply: str) -> Any:
    return reply


@dataclass(frozen=True)
class AskUser:
    """What a suspending tool returns: the question to show, and how the user's
    reply becomes the observation's result.

    Suspending tools must be free of side effects: the runtime calls them again
    on resume (possibly in another process) to rebuild this object.
    """

    question: str
    answer: Callable[[str], Any] = field(default=_as_is)


# A clear yes to a consent question (a text to a contact, a medicine the lexicon does not know):
# the whole answer is one of these, give or take punctuation and "please"/"thanks". "Yes but not
# to Eli", "ok?", "sure, later" and anything else are not a yes: nothing is done.
_CLEAR_YES = re.compile(
    r"(please\s+)?(yes|yeah|yep|yup|y|sure|ok|okay|confirm|confirmed|go ahead|do it|send it|set it|"
    r"yes,?\s+(please|send it|set it|go ahead|do it))(\s+please)?(,?\s+thanks?(\s+you)?)?",
    re.IGNORECASE,
)


def resuming(ctx: ToolContext) -> bool:
    """True when the runtime calls a suspending tool again to read the user's answer to its question
    (or the pending question): what changed meanwhile must turn the answer into "not done"."""
    return getattr(ctx.conversation, "status", None) == Conversation.Status.WAITING_INPUT


def clear_yes(reply: str) -> bool:
    """True only when ``reply`` is an unambiguous yes (the chat's Confirm button sends "yes")."""
    text = " ".join(re.sub(r"[.!,]+(\s|$)", r" ", str(reply)).split())
    return bool(_CLEAR_YES.fullmatch(text))


@tool(suspends=True)
def get_input_from_user(ctx: ToolContext, user_id: str, questions: str) -> AskUser:
    """Asks the user a question and waits for the answer.

    Args:
        user_id: Unique identifier for the user.
        questions: Question to ask the user.
    """
    ctx.check_user(user_id)
    asked = _symptom_answers(ctx.conversation) if _SYMPTOM_QUESTION.search(questions) else []
    # Measured on the 160 test conversations' failures: an error stops the loop; handing the model
    # the patient's last answer again ("No, nothing else.") without asking kept it asking.
    if len(asked) >= FOLLOW_UPS or (asked and _NOTHING_MORE.match(asked[-1])):
        raise ToolError(
            "The user has told you all they have to say about their symptoms. Do not ask about symptoms "
            "again: go on with the symptoms you have (match them to a specialization)."
        )
    return AskUser(question=slot_question(ctx.conversation, questions))


# A question about more symptoms, and an answer that adds none. The seed paper's counter flow asks at
# most two follow-up questions; the small model sometimes asks "Anything else?" until the step limit
# after the patient said there is nothing else.
_SYMPTOM_QUESTION = re.compile(
    r"\b(?:symptoms?|anything else|what else|else (?:have|did) you|noticed|since when|how long)\b", re.I
)
_NOTHING_MORE = re.compile(r"^\W*(?:no(?:pe)?|nothing|none|not really|that'?s (?:it|all))\b", re.I)
FOLLOW_UPS = 2


def _symptom_answers(conversation) -> list[str]:
    """The user's answers to the questions about symptoms asked in this request."""
    return [answer for said, answer in answered_questions(conversation) if _SYMPTOM_QUESTION.search(said)]


@tool(suspends=True)
def follow_up_with_user(
    ctx: ToolContext,
    user_id: str,
    current_symptoms: str,
    past_complaints: list[str] | None = None,
    preferred_contact_method: str | None = None,
) -> AskUser:
    """Follows up with the user about their current symptoms (and past complaints) and waits for the answer.

    Args:
        user_id: Unique identifier for the user.
        current_symptoms: Current symptoms reported by the user.
        past_complaints: List of past complaints to reference during the follow-up.
        preferred_contact_method: User's preferred method for follow-up (only 'chat' is available).
    """
    ctx.check_user(user_id)
    question = f"You told me about: {current_symptoms}."
    if past_complaints:
        question += f" Earlier you reported: {'; '.join(past_complaints)}."
    question += " How are you feeling now, and has anything changed?"
    # Follow-ups happen in the in-app chat: that is the only channel that
    # keeps the conversation on this device.
    return AskUser(question=question, answer=lambda reply: {"method": "chat", "user": reply})


# The calls of a complaint that was stored and not yet referred: anything else (a reminder, the
# vitals, an appointment looked up) is another request, whose reply is the model's own.
_COMPLAINT_ONLY = frozenset(
    {"store_symptoms", "retrieve_past_complaints", "get_input_from_user", "follow_up_with_user", "notify_user"}
)
# "Just note it, I don't need an appointment": the user asked for no referral.
_NO_REFERRAL = re.compile(
    r"\b(?:don't|do not|no need|not|never|without)\b[^.?!]{0,25}\b(?:appointments?|book\w*|doctors?|specialists?|"
    r"see (?:anyone|someone|a doctor))\b|\bjust (?:note|record|log|store|keep|save|write)\b",
    re.IGNORECASE,
)
UNREFERRED = (
    "No specialist has been looked for, and the user declined nothing: match the stored symptoms to a "
    "specialization and search for an available specialist before telling the user anything."
)


def _unreferred(ctx: ToolContext) -> bool:
    """Whether this chat request stored the user's complaint and would end on a notification with
    no specialist looked for, though the user declined nothing. A small planner read the follow-up
    guard's "no more questions" as the user's "no" ("The user declined." -> store only -> "Your
    symptoms have been recorded"): two of the 160 test conversations ended so, unreferred. Said
    once a request: a model that notifies again is let through, so this never loops."""
    conversation = ctx.conversation
    if conversation is None or ctx.alert is not None or conversation.kind != Conversation.Kind.CHAT:
        return False
    calls = calls_in_request(conversation)
    tools = {tool for tool, _ in calls}
    stored = any(tool == "store_symptoms" and "result" in observation for tool, observation in calls)
    if not stored or not tools <= _COMPLAINT_ONLY:
        return False
    if any(tool == "notify_user" and observation.get("error") == UNREFERRED for tool, observation in calls):
        return False
    return not _NO_REFERRAL.search("\n".join(request_parts(conversation)))


@tool
def notify_user(ctx: ToolContext, user_id: str, message: str | None = None, symptoms: str | None = None) -> bool:
    """Sends a notification to the user.

    Args:
        user_id: Unique identifier for the user.
        message: The notification message to send.
        symptoms: The notification text; the seed paper's SOS trajectories send it under this name.
    """
    ctx.check_user(user_id)
    text = (message or symptoms or "").strip()
    if not text:
        raise InvalidArguments("notify_user needs the text to send in 'message'.")
    if _unreferred(ctx):
        raise ToolError(UNREFERRED)
    text = appointment_notice(ctx, text)  # an appointment is described from its recorded state
    conversation_id = getattr(ctx.conversation, "pk", None)
    if (
        conversation_id is not None
        and Notification.objects.filter(
            user=ctx.user, data__conversation=conversation_id, data__step=ctx.step_index
        ).exists()
    ):
        return True  # a replayed step: the user was already notified
    alert = ctx.alert
    level = Notification.Level.INFO
    if alert is not None:
        level = Notification.Level.DANGER if alert.kind == "hard" else Notification.Level.WARNING
    title = text.splitlines()[0][:160]
    if alert is not None and alert.kind == Alert.Kind.SOFT:
        # One notification per soft SOS, in one wording: the alert's vitals report as
        # recorded (names and units included), never the model's own rendering of it.
        notice = soft_sos_notice(alert)
        if text.split() != notice.body.split():
            raise InvalidArguments("For a soft SOS, notify_user must send the alert's vitals report unchanged.")
        if Notification.objects.filter(user=ctx.user, kind="alert", data__alert=alert.pk).exists():
            return True  # the vitals monitor already notified the user with this text
        title = notice.title
    notification = Notification.objects.create(
        user=ctx.user,
        kind="alert" if alert is not None else "assistant",
        level=level,
        title=title,
        body=text,
        data={
            "conversation": conversation_id,
            "step": ctx.step_index,
            "alert": getattr(alert, "pk", None),
        },
    )
    push_to_user(
        ctx.user.pk,
        Event.NOTIFICATION,
        {"id": notification.pk, "kind": notification.kind, "level": level, "title": title, "body": text},
    )
    return True


@tool(offered=False)
def answer_user(ctx: ToolContext, user_id: str, message: str) -> dict:
    """Shows the user the answer of one of the runtime's desks, rendered from the records.

    Args:
        user_id: Unique identifier for the user.
        message: The answer, as a desk rendered it from the records.
    """
    # Not notify_user: its check of a model's words about appointments (appointment_notice) would
    # replace a desk's list of the patient's appointments with "nothing was booked in this chat".
    # Only the desks call this (it is not offered to the model), with text rendered from the records.
    ctx.check_user(user_id)
    text = " ".join(str(message).split())
    if not text:
        raise InvalidArguments("answer_user needs the text in 'message'.")
    return {"message": text}
