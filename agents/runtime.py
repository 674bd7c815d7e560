"""The Action Manager's interleaved ReAct loop: planner -> caller -> tool -> observation.

All state lives in the database: every trajectory state is an AgentStep row
written as it happens (and pushed to the user's websocket group), and a
Runtime is rebuilt from those rows. So a run survives a process restart, and a
suspended run (a question to the user) resumes in whichever process receives
the reply.

Errors the model causes (garbage, an unknown tool, bad arguments, a refused
call) become error observations that the model sees; the caller gets a bounded
retry. Backend failures end the run gracefully. SOS conversations are guarded:
on any failure the guard completes the required sequence (agents.sos.guard).
Chats have nine guards of their own that need no model: a message that asks for
emergency help now starts the hard SOS as the SOS button does, before anything
else (agents.help_now), a message about suicide or self-harm gets the crisis answer
(agents.crisis), a message in a language
the assistant does not understand is answered at once (agents.language), so is a
new request to prescribe, to diagnose or about anything but care (agents.scope), a
question about, or a change to, an appointment the patient has is answered from the
records (agents.appointment_desk), so is a question about the patient's recorded health
(agents.health_desk), and so are today's doses, a dose taken and where to upload a prescription
photo (agents.medicine_desk), and a booking of a named kind of specialist with no complaint
(agents.booking_desk); and a
chat in which the user declined the offered appointment still stores the
complaint and the referral when the model ended, or failed, without them
(agents.decline_guard).
"""

from __future__ import annotations

import logging
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from agents import (
    appointment_desk,
    booking_desk,
    courtesy,
    crisis,
    decline_guard,
    first_step,
    health_desk,
    help_now,
    language,
    medicine_desk,
    scope,
    sos_cancel,
)
from agents.llm.base import BackendError, BackendTimeout, Generation, ModelBackend, Role
from agents.memory.context import planner_memory
from agents.models import Conversation
from agents.prompts import build_messages
from agents.sos.guard import guard_for
from agents.tools import REGISTRY, AskUser, ModelOutputError, Registry, ToolContext, ToolError
from agents.tools.transcript import QUESTION_TOOLS
from agents.trajectory import END, Step, export_conversation, is_end, parse_caller, parse_planner
from core.events import Event
from core.realtime import push_to_user
from health.models import Alert, AlertEvent, Notification

log = logging.getLogger(__name__)

# Retries of the caller after an unusable call, before the run gives up. The
# retry prompt carries the error observation, so the model can correct itself.
# The planner gets no retry: its prompt would be the same, and so, with greedy
# decoding, would its answer.
CALLER_RETRIES = 2
STOP = {"planner": ("</action>",), "caller": ()}
FAILURE_MESSAGE = "Sorry, I could not finish this request. Please try again, or rephrase it."
HELP_NOW = "Help-now guard:"  # how the help-now guard's planner steps begin
SOS_CANCEL = "SOS cancel:"  # how the steps of an SOS cancelled from the chat begin


class RunFailed(Exception):
    """Ends the loop; the message is what went wrong (never shown raw to the model)."""


class ConcurrentRun(Exception):
    """Another runner (a redelivered task) wrote this step first; it owns the run now."""


def link_alert(alert: Alert, conversation: Conversation) -> None:
    """Tie ``conversation`` to ``alert`` (the timeline event is how the runtime finds it again)."""
    AlertEvent.objects.create(
        alert=alert,
        kind="agent_conversation",
        message=f"The assistant started the {conversation.get_kind_display()} sequence.",
        data={"conversation": conversation.pk, "conversation_kind": conversation.kind},
    )
    Alert.objects.filter(pk=alert.pk).update(conversation=conversation)


def alert_for(conversation: Conversation) -> Alert | None:
    return (
        Alert.objects.filter(
            user=conversation.user, events__kind="agent_conversation", events__data__conversation=conversation.pk
        )
        .order_by("-created_at")
        .first()
    )


def system_value(user, now) -> dict[str, Any]:
    """The system state the model sees: the user's id, name and the current time."""
    return {
        "user_details": {
            "user_id": str(user.pk),
            "name": user.get_full_name() or user.get_username(),
            "timestamp": now.astimezone(_tz(user)).replace(tzinfo=None).isoformat(timespec="seconds"),
        }
    }


def pending_question(conversation: Conversation) -> str | None:
    """The question a conversation waits on (None unless it is waiting for the user)."""
    if conversation.status != Conversation.Status.WAITING_INPUT:
        return None
    runtime = Runtime(conversation, None)
    pending = runtime._pending_call()
    if pending is None:
        return None
    index, call = pending
    try:
        # Suspending tools have no side effects, so asking them again is safe.
        ask = runtime.registry.get(call["tool"])(runtime.context(index), **call["parameters"])
    except (ToolError, ModelOutputError, TypeError):
        return None
    return ask.question if isinstance(ask, AskUser) else None


def _tz(user):
    return ToolContext(user=user).tz


class Runtime:
    """Runs one conversation. Cheap to build: everything is read back from the database."""

    def __init__(
        self,
        conversation: Conversation,
        backend: ModelBackend | None,
        *,
        registry: Registry = REGISTRY,
        max_steps: int | None = None,
        call_timeout: float | None = None,
        clock=timezone.now,
    ) -> None:
        self.conversation = conversation
        self.backend = backend
        self.registry = registry
        self.max_steps = max_steps or settings.AGENT_MAX_STEPS
        self.call_timeout = call_timeout or settings.AGENT_CALL_TIMEOUT_SECONDS
        self.clock = clock
        self.states: list[dict[str, Any]] = export_conversation(conversation)
        self.alert = alert_for(conversation)
        self.guard = guard_for(conversation.kind, self.alert)
        # An SOS may not wait on the model: past this budget the guard does the remaining steps at
        # once (the model only picks each step; their words come from the records anyway).
        budget = float(getattr(settings, "AGENT_SOS_BUDGET_SECONDS", 8.0))
        self.sos_deadline = time.monotonic() + budget if self.guard is not None else None
        self._memory_for: tuple[int, str] = (-1, "")

    # --- writing states ---------------------------------------------------------

    @property
    def user_ref(self) -> str:
        system = self.states[0]["value"] if self.states else {}
        return str(system.get("user_details", {}).get("user_id", self.conversation.user_id))

    def context(self, step_index: int) -> ToolContext:
        return ToolContext(
            user=self.conversation.user,
            conversation=self.conversation,
            user_ref=self.user_ref,
            alert=self.alert,
            step_index=step_index,
            clock=self.clock,
        )

    def append(self, role: str, value: Any, generation: Generation | None = None) -> int:
        """Persist one state as the next AgentStep and push it to the user's agent log."""
        step = Step(
            index=len(self.states),
            role=role,
            value=value,
            latency_ms=generation.latency_ms if generation else None,
            prompt_tokens=generation.prompt_tokens if generation else None,
            completion_tokens=generation.completion_tokens if generation else None,
        )
        try:
            with transaction.atomic():
                step.to_row(self.conversation).save(force_insert=True)
        except IntegrityError as exc:
            # The unique (conversation, index) constraint: someone else is
            # running this conversation from the same point.
            raise ConcurrentRun(f"step {step.index} of conversation {self.conversation.pk} exists") from exc
        self.states.append(step.to_state())
        self._push(Event.AGENT_STEP, step.to_event(self.conversation.pk))
        return step.index

    def _push(self, event: Event, payload: dict[str, Any]) -> None:
        """Push to the user's tabs once what the event shows is committed: a step written inside an
        outer transaction (the answer to a question, in post_user_message) is never shown before it
        is recorded, nor shown at all if that transaction rolls back. Outside one (a run in a
        worker), the push goes at once."""
        user_id = self.conversation.user_id
        transaction.on_commit(lambda: push_to_user(user_id, event, payload))

    def set_status(self, status: str, *, error: str = "", question: str | None = None) -> None:
        self.conversation.status = status
        self.conversation.error = error[:255]
        self.conversation.save(update_fields=["status", "error", "updated_at"])
        payload: dict[str, Any] = {"conversation": self.conversation.pk, "status": status}
        if question is not None:
            payload["question"] = question
        self._push(Event.AGENT_STATUS, payload)

    # --- entry points ---------------------------------------------------------------

    def begin(self, text: str, *, system: dict[str, Any] | None = None) -> None:
        """Write the system state (once) and the user's request; the run starts with :meth:`run`."""
        if not self.states:
            self.append("system", system or system_value(self.conversation.user, self.clock()))
        self.append("user", text)
        if self._help_now_at_once():
            return
        self.set_status(Conversation.Status.RUNNING)

    def add_user_message(self, text: str) -> None:
        """The user's message: the answer to a pending question, else a new request."""
        pending = self._pending_call()
        if self.conversation.status == Conversation.Status.WAITING_INPUT and pending is not None:
            index, call = pending
            tool = self.registry.get(call["tool"])
            ask = tool(self.context(index), **call["parameters"])
            self.append("observation", {"result": ask.answer(text)})
        else:
            self.append("user", text)
        if self._help_now_at_once():
            return
        self.set_status(Conversation.Status.RUNNING)

    def run(self) -> str:
        """Run until the task ends, a question suspends it, or it fails; return the status."""
        try:
            try:
                if not (
                    self._cancel_sos()
                    or self._help_now()
                    or self._answer_crisis()
                    or self._answer_other_language()
                    or self._answer_out_of_scope()
                    or self._answer_courtesy()
                    or self._appointments_desk()
                    or self._health_desk()
                    or self._medicines_desk()
                    or self._booking_desk()
                    or self._routed_to_a_desk()
                ):
                    self._loop()
            except RunFailed as failure:
                self._end_failed(str(failure))
            except ConcurrentRun:
                raise
            except Exception as exc:  # noqa: BLE001  (the guard must run whatever went wrong)
                # A bug must not leave an SOS half done, nor a chat stuck "running".
                # Frames only: an exception's message may quote health data.
                self._log_crash("agent run", exc)
                self._end_failed("the runtime crashed" if self.guard is not None else "internal error")
        except ConcurrentRun:
            # Stop without writing: the other runner completes the run (and,
            # for an SOS, its guard), and the tool effects of this runner's
            # step were rolled back with the step.
            log.info("conversation %s is run by another worker; stopping", self.conversation.pk)
            self.conversation.refresh_from_db()
        return self.conversation.status

    def _end_failed(self, reason: str) -> None:
        if self.guard is not None:
            self.guard.complete(self, reason=reason)
        elif not self._complete_decline(f"the run failed ({reason})"):
            self._fail(reason)

    # --- the chat guards ------------------------------------------------------------

    def _new_request(self) -> str | None:
        """A new chat request no step has acted on yet (not an answer to the assistant's question), or None."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return None
        if not self.states or self.states[-1]["from"] != "user":
            return None
        return str(self.states[-1]["value"])

    def _unread_message(self) -> str | None:
        """What the user just said and no step has acted on yet: a new request, or the answer to a question."""
        if not self.states:
            return None
        last = self.states[-1]
        if last["from"] == "user":
            return str(last["value"])
        if last["from"] == "observation" and len(self.states) > 1 and self.states[-2]["from"] == "caller":
            call = self.states[-2]["value"] if isinstance(self.states[-2]["value"], dict) else {}
            result = last["value"].get("result") if isinstance(last["value"], dict) else None
            if call.get("tool") in QUESTION_TOOLS and result is not None:
                return str(result.get("user", "") if isinstance(result, dict) else result)
        return None

    def _help_now_at_once(self) -> bool:
        """The help-now guard in the request that brings the message (begin, add_user_message), not
        in the worker's run: an SOS asked for in the chat starts as soon as the button's would, not
        after a model run queued before it. A bug here leaves the message to the run, which asks again."""
        try:
            return self._cancel_sos() or self._help_now()
        except ConcurrentRun:
            raise
        except Exception as exc:  # noqa: BLE001  (the run tries again; the request must not fail)
            self._log_crash("help-now guard", exc)
            return False

    def _cancel_sos(self) -> bool:
        """A chat message that asks to stop the hard SOS (agents.sos_cancel: "cancel the SOS"; "false
        alarm" or "cancel it" right after this chat started it) cancels it with the SOS page's own
        service while its countdown runs; the user is told what the alert's record holds and the
        request ends. True when it acted, now or already."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT or not self.states:
            return False
        last = self.states[-1]
        if last["from"] == "planner" and isinstance(last["value"], dict):
            return is_end(last["value"]) and str(last["value"].get("reason", "")).startswith(SOS_CANCEL)
        message = self._new_request()
        if message is None or not sos_cancel.asks_to_cancel(message, just_started=self._sos_just_started()):
            return False
        done = sos_cancel.cancel_sos(self.conversation.user, self.conversation.pk)
        log.info("conversation %s: SOS cancel: %s", self.conversation.pk, done.summary)
        self.append(
            "planner",
            {
                "reason": f"{SOS_CANCEL} the user asks to stop the emergency SOS.",
                "action": "Cancel the SOS as its page's Cancel does, and tell the user what happened.",
            },
        )
        alert, self.alert = self.alert, done.alert
        try:
            self.execute_call({"tool": "notify_user", "parameters": {"user_id": self.user_ref, "message": done.reply}})
        finally:
            self.alert = alert
        self.append("planner", {"reason": f"{SOS_CANCEL} {done.summary}; the user was told.", "action": END})
        self.set_status(Conversation.Status.COMPLETED)
        return True

    def _sos_just_started(self) -> bool:
        """Whether this chat's request before the new message started (or found) the hard SOS."""
        earlier = self.states[:-1]
        step = earlier[-1] if earlier else None
        return bool(
            step is not None
            and step["from"] == "planner"
            and isinstance(step["value"], dict)
            and str(step["value"].get("reason", "")).startswith(HELP_NOW)
        )

    def _help_now(self) -> bool:
        """A chat message that asks for emergency help now (agents.help_now) starts the hard SOS with
        the SOS button's own service (its countdown, cancel and guard), without calling the model; the
        user is told what the alert's record says and the request ends. True when it acted, now or
        already (a run after the request that acted has nothing left to do)."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT or not self.states:
            return False
        last = self.states[-1]
        if last["from"] == "planner" and isinstance(last["value"], dict):
            if is_end(last["value"]) and str(last["value"].get("reason", "")).startswith(HELP_NOW):
                return True
        message = self._unread_message()
        found = help_now.emergency(message) if message is not None else None
        if found is None:
            return False
        # The SOS first: nothing written to the trajectory may delay it.
        started = help_now.start_sos(self.conversation.user, self.conversation.pk, crisis=found.kind == "suicide")
        # What was said stays out of the log (health data): only what was done.
        log.info("conversation %s: help-now guard: %s", self.conversation.pk, started.summary)
        self.append(
            "planner",
            {
                "reason": f"{HELP_NOW} the user asks for emergency help now ({found.kind}: '{found.said}').",
                "action": "Start the emergency SOS as the SOS button does, and tell the user what happened.",
            },
        )
        alert, self.alert = self.alert, started.alert  # the notice belongs to the SOS (a danger notification)
        try:
            self.execute_call(
                {"tool": "notify_user", "parameters": {"user_id": self.user_ref, "message": started.reply}}
            )
        finally:
            self.alert = alert
        self.append("planner", {"reason": f"{HELP_NOW} {started.summary}; the user was told.", "action": END})
        self.set_status(Conversation.Status.COMPLETED)
        return True

    def _answer_crisis(self) -> bool:
        """A chat message that speaks of suicide or self-harm (agents.crisis) gets the crisis answer at
        once, without the model: the emergency number, the SOS button, crisis lines. True when it did."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        message = self._unread_message()
        if message is None or not crisis.crisis(message):
            return False
        log.info("conversation %s: a message about suicide or self-harm got the crisis answer", self.conversation.pk)
        self._answer_at_once(
            "Crisis guard",
            "the user speaks of suicide or self-harm.",
            "Tell the user where to get help now and how to start the SOS.",
            crisis.reply(),
        )
        return True

    def _answer_other_language(self) -> bool:
        """Answer a chat message the assistant does not understand (another language) with the fixed
        English-only reply, without calling the model, and end the request. True when it did."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        message = self._unread_message()
        if message is None or language.understood(message):
            return False
        log.info("conversation %s: a message in another language got the English-only reply", self.conversation.pk)
        self._answer_at_once(
            "Language guard",
            "the message is not in English, the only language I understand.",
            "Tell the user that I can only help in English for now.",
            language.english_only_reply(),
        )
        return True

    def _answer_out_of_scope(self) -> bool:
        """Answer a new chat request to prescribe, to diagnose or about anything but the patient's care
        (agents.scope) with what the assistant can do instead, without calling the model: nothing is
        booked, stored or sent. Answers to the assistant's questions are never refused. True when it did."""
        message = self._new_request()
        kind = scope.out_of_scope(message) if message is not None else None
        if kind is None:
            return False
        log.info("conversation %s: an out-of-scope request (%s) got the scope reply", self.conversation.pk, kind)
        self._answer_at_once(
            "Scope guard",
            f"the request is one I do not do ({kind.replace('_', ' ')}): I refer, I never diagnose or prescribe.",
            "Tell the user what I can do instead.",
            scope.reply(kind),
        )
        return True

    def _answer_courtesy(self) -> bool:
        """Answer a new chat message that is only a greeting, a thanks or "what can you do?"
        (agents.courtesy) with what the assistant can do, without calling the model: nothing is
        booked, stored or sent. Answers to the assistant's questions are never taken. True when it did."""
        message = self._new_request()
        kind = courtesy.courtesy(message) if message is not None else None
        if kind is None:
            return False
        log.info("conversation %s: a courtesy (%s) got its answer", self.conversation.pk, kind)
        self._answer_at_once(
            "Courtesy",
            f"the message is a courtesy ({kind.replace('_', ' ')}), no request.",
            "Answer it and say what I can do.",
            courtesy.reply(kind),
        )
        return True

    def _appointments_desk(self) -> bool:
        """The patient's own appointments (agents.appointment_desk): list, cancel or move one from the
        records, asking before any change, without calling the model. True when the request needs
        nothing more now; False when it is not the desk's, or a further booking request is left."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        return appointment_desk.handle(self)

    def _health_desk(self) -> bool:
        """A question about the patient's recorded health (agents.health_desk: "how was my day?", "how did
        I sleep?") answered with numbers computed from the readings, without calling the model."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        return health_desk.handle(self)

    def _medicines_desk(self) -> bool:
        """Today's doses, a dose taken ("I took my metformin", marked only after a yes) or where to upload
        a prescription photo (agents.medicine_desk), from the records, without calling the model."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        return medicine_desk.handle(self)

    def _booking_desk(self) -> bool:
        """A request to book a named kind of specialist with no complaint ("book me a dermatologist on
        Friday"): searched, proposed and booked after a yes with the booking tools (agents.booking_desk)."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        return booking_desk.handle(self)

    def _routed_to_a_desk(self) -> bool:
        """A new request no desk's rules read, which the first step's classifier (agents.first_step) is
        sure belongs to a desk: that desk does it, as if its rules had read it (its changes still wait
        for the patient's yes); one it is surer still is out of scope gets the scope answer. Anything else
        goes to the model."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return False
        if not self.states or self.states[-1]["from"] != "user":
            return False
        use_case = first_step.route(str(self.states[-1]["value"]))
        if use_case is None:
            return False
        log.info("conversation %s: the first step's classifier routed it to %s", self.conversation.pk, use_case)
        if use_case == first_step.OUT_OF_SCOPE:
            self._answer_at_once(
                "Scope guard",
                "the request reads as one I do not do (the first step's classifier): I refer, I never diagnose or "
                "prescribe.",
                "Tell the user what I can do instead.",
                scope.reply(scope.NOT_MINE),
            )
            return True
        if use_case.startswith("appointments_"):
            return appointment_desk.handle(self, use_case)
        if use_case == "my_health":
            return health_desk.handle(self, use_case)
        return medicine_desk.handle(self, use_case)

    def _log_crash(self, what: str, exc: BaseException) -> None:
        """A bug's log line: its kind and frames only, as an exception's message may quote health data."""
        log.error(
            "%s crashed (conversation %s): %s\n%s",
            what,
            self.conversation.pk,
            type(exc).__name__,
            "".join(traceback.format_tb(exc.__traceback__)),
        )

    def _answer_at_once(self, guard: str, why: str, action: str, message: str) -> None:
        """A guard's whole answer: its plan, ``message`` to the user, and the end of the request."""
        self.append("planner", {"reason": f"{guard}: {why}", "action": action})
        self.execute_call({"tool": "notify_user", "parameters": {"user_id": self.user_ref, "message": message}})
        self.append("planner", {"reason": f"{guard}: the user was told.", "action": END})
        self.set_status(Conversation.Status.COMPLETED)

    def _complete_decline(self, reason: str) -> bool:
        """The decline guard (chats): True when it completed and ended the run."""
        try:
            return decline_guard.complete(self, reason=reason)
        except ConcurrentRun:
            raise
        except Exception as exc:  # noqa: BLE001  (a guard's bug must not hide how the run ended)
            self._log_crash("decline guard", exc)
            return False

    # --- the loop -------------------------------------------------------------------

    def _loop(self) -> None:
        while True:
            pending = self._pending_call()
            if pending is not None:
                # A call persisted without its observation: a suspended
                # question, or a crash between the two. Execute it (again):
                # tools are idempotent per step, so nothing happens twice.
                outcome = self._execute(*pending)
                if outcome == "suspended":
                    return
                if outcome == "error" and self.guard is not None:
                    raise RunFailed(f"{pending[1]['tool']} failed")
                continue
            if self._planner_steps() >= self.max_steps:
                raise RunFailed(f"reached the limit of {self.max_steps} steps")
            if self.guard is None and self._tool_calls() >= settings.AGENT_MAX_TOOL_CALLS_PER_CONVERSATION:
                # The step limit is per request; this one is the whole chat's, so an instruction hidden
                # in a message, a record or a photo cannot keep a model acting turn after turn. An SOS
                # (guard) is never limited: its sequence must finish.
                raise RunFailed(
                    f"this chat has reached its limit of {settings.AGENT_MAX_TOOL_CALLS_PER_CONVERSATION} "
                    "actions; please start a new chat"
                )
            planner_value, generation = self._plan()
            self.append("planner", planner_value, generation)
            if is_end(planner_value):
                if self.guard is not None and not self.guard.is_complete(self.states):
                    raise RunFailed("the model ended before the SOS sequence was complete")
                if not self._complete_decline("the model ended without storing the complaint and the referral"):
                    self.set_status(Conversation.Status.COMPLETED)
                return
            self._call()

    def _plan(self) -> tuple[dict[str, str], Generation]:
        generation = self._generate("planner")
        try:
            return parse_planner(generation.text), generation
        except ModelOutputError as exc:
            raise RunFailed(f"the planner's output was unusable: {exc}") from exc

    def _call(self) -> None:
        retries = 0 if self.guard is not None else CALLER_RETRIES
        for _attempt in range(1 + retries):
            generation = self._generate("caller")
            try:
                call = parse_caller(generation.text)
            except ModelOutputError as exc:
                self.append("caller", {"tool": "", "parameters": {}, "raw": generation.text[:2000]}, generation)
                self.append("observation", {"error": str(exc)})
                continue
            if self.guard is not None:
                call = self.guard.written(call, self)
            index = self.append("caller", call, generation)
            try:
                # Only the tools offered to the model: the desks' own tools act on what a desk chose.
                tool = self.registry.offered().get(call["tool"])
                tool.validate(call["parameters"])
            except ModelOutputError as exc:
                self.append("observation", {"error": str(exc)})
                continue
            if self.guard is not None and not self.guard.allows(call, self.states[:-1]):
                self.append("observation", {"error": self.guard.refusal(call, self.states[:-1])})
                raise RunFailed(f"the model proposed {call['tool']} out of the SOS sequence")
            if self._execute(index, call) == "error" and self.guard is not None:
                raise RunFailed(f"{call['tool']} failed")
            return
        if self.guard is not None:
            raise RunFailed("the caller's output was unusable")
        raise RunFailed(f"the caller produced no usable call in {1 + retries} attempts")

    def _execute(self, index: int, call: dict[str, Any]) -> str:
        """Run a validated call; write its observation. Returns "ok", "error" or "suspended"."""
        tool = self.registry.get(call["tool"])
        context = self.context(index)
        try:
            # Validated again: a call read back from the database may not
            # have been validated before a crash (or may come from an import).
            tool.validate(call["parameters"])
            with transaction.atomic():
                result = tool(context, **call["parameters"])
                if isinstance(result, AskUser):
                    self.set_status(Conversation.Status.WAITING_INPUT, question=result.question)
                    self._push(
                        Event.AGENT_QUESTION, {"conversation": self.conversation.pk, "question": result.question}
                    )
                    return "suspended"
                self.append("observation", {"result": result})
                return "ok"
        except (ToolError, ModelOutputError) as exc:
            log.info("tool %s refused a call (conversation %s)", tool.name, self.conversation.pk)
            self.append("observation", {"error": str(exc)})
            return "error"
        except ConcurrentRun:
            raise
        except Exception as exc:  # noqa: BLE001  (one broken tool must not stop an SOS sequence)
            # A bug in a tool: its writes were rolled back with the savepoint;
            # the model (or the guard) sees a failed step and goes on.
            self._log_crash(f"tool {tool.name}", exc)
            self.append("observation", {"error": f"{tool.name} failed unexpectedly ({type(exc).__name__})."})
            return "error"

    def execute_call(self, call: dict[str, Any], generation: Generation | None = None) -> dict[str, Any]:
        """Persist and execute a call chosen outside the model (the SOS guard); return its observation."""
        index = self.append("caller", call, generation)
        self._execute(index, call)
        return self.states[-1]["value"]

    def _generate(self, role: Role) -> Generation:
        if self.backend is None:
            raise RunFailed("no model is loaded")
        timeout = self.call_timeout
        if self.sos_deadline is not None:
            left = self.sos_deadline - time.monotonic()
            if left <= 0:
                raise RunFailed("the model used up the SOS time budget")
            timeout = min(timeout, left)
        memory = self._memory() if role == "planner" else ""
        states = appointment_desk.model_view(self.states)
        offered = self.registry.offered()  # the desks' own tools are not the model's
        messages = build_messages(role, states, offered, few_shot=self.backend.few_shot, memory=memory)
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"agent-{role}")
        future = pool.submit(self.backend.generate, role, messages, STOP[role], timeout=timeout, tools=offered)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            if timeout < self.call_timeout:
                raise RunFailed("the model used up the SOS time budget") from BackendTimeout()
            raise RunFailed(f"the {role} timed out after {timeout:g} s") from BackendTimeout()
        except BackendError as exc:
            raise RunFailed(f"the {role} backend failed: {exc}") from exc
        except Exception as exc:
            log.warning("model backend raised %s for the %s", type(exc).__name__, role)
            raise RunFailed(f"the {role} backend raised {type(exc).__name__}") from exc
        finally:
            # Do not wait for a timed-out generation; its thread ends on its own.
            pool.shutdown(wait=False)

    def _memory(self) -> str:
        """The long-term memory line for the current request (chats only; an SOS does not wait on
        retrieval). Computed once per request, so the planner's prompt prefix stays the same."""
        if self.guard is not None or self.conversation.kind != Conversation.Kind.CHAT:
            return ""
        request = max((i for i, state in enumerate(self.states) if state["from"] == "user"), default=-1)
        if request < 0:
            return ""
        if self._memory_for[0] != request:
            said = str(self.states[request]["value"])
            self._memory_for = (request, planner_memory(self.conversation.user, said))
        return self._memory_for[1]

    # --- reading the trajectory ----------------------------------------------------

    def _pending_call(self) -> tuple[int, dict[str, Any]] | None:
        """The last state if it is a valid caller state without an observation yet."""
        if not self.states or self.states[-1]["from"] != "caller":
            return None
        call = self.states[-1]["value"]
        if not isinstance(call, dict) or call.get("tool") not in self.registry:
            return None
        return len(self.states) - 1, call

    def _tool_calls(self) -> int:
        """Tool calls the model made in this conversation, every request counted (desks' too)."""
        return sum(state["from"] == "caller" for state in self.states)

    def _planner_steps(self) -> int:
        count = 0
        for state in reversed(self.states):
            if state["from"] == "user":
                break
            count += state["from"] == "planner"
        return count

    def _fail(self, reason: str) -> None:
        log.info("agent run failed (conversation %s): %s", self.conversation.pk, reason)
        self.set_status(Conversation.Status.FAILED, error=reason)
        Notification.objects.create(
            user=self.conversation.user,
            kind="assistant",
            level=Notification.Level.WARNING,
            title=FAILURE_MESSAGE,
            data={"conversation": self.conversation.pk},
        )
        self._push(Event.AGENT_MESSAGE, {"conversation": self.conversation.pk, "text": FAILURE_MESSAGE})


__all__ = ["END", "Runtime", "alert_for", "link_alert", "system_value"]
