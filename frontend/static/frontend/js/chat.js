// The chat page: conversation history, the transcript built from the agent's
// steps, the "thinking" state, inline answers to the assistant's questions,
// appointment proposals with Confirm / Decline, and the live agent log.
import { AgentLog, setupLogToggle } from "./agent-log.js";
import { api, el, formatDay, formatWhen } from "./api.js";
import { EVENT, onEvent } from "./events.js";

const ASKING_TOOLS = new Set(["get_input_from_user", "follow_up_with_user"]);
const STATUS_LABELS = {
  idle: "New",
  running: "Working…",
  waiting_input: "Waiting for your answer",
  completed: "Done",
  failed: "Could not finish",
};
const KIND_LABELS = { chat: "Chat", hard_sos_start: "SOS", hard_sos_end: "SOS ended", soft_sos: "Vitals alert" };

const $ = (id) => document.getElementById(id);
const messages = $("messages");
const composer = $("composer");
const textarea = $("message");
const sendButton = $("send");
const log = new AgentLog($("log-entries"), $("log-empty"));

// The patient's own time zone (their profile's), named beside every time the chat shows.
const TIME_ZONE = document.body.dataset.timezone || "UTC";
// A notice from the model that speaks of an appointment (then the booking card says the truth).
const ABOUT_APPOINTMENT = /\b(appointments?|book\w*|slot|dr\.?|doctor|specialist|confirmed|held|reserved|scheduled)\b/i;
let appointmentNotice = false;
// Planner steps the runtime's guards write (agents/runtime.py, agents/decline_guard.py): what they tell
// the patient is a server template ("I can't prescribe… I can find you the right specialist"), shown as is.
const GUARD_STEP = /^((Scope|Language|Decline|Help-now|Crisis) guard|(Appointments|Health|Medicines|Booking) desk):/;
// Tools whose result carries a message rendered by the server from the records (a reminder as
// stored, the patient's appointments, their readings summed up, today's doses): shown as written.
const MESSAGE_TOOLS = new Set(["set_medication_reminder", "get_upcoming_appointments", "get_health_summary", "get_todays_doses", "answer_user"]);
let current = null; // the open conversation, as the API returns it
let steps = new Map(); // index -> step of the open conversation
let sending = false;

// --- steps -> what the patient reads ------------------------------------------

function normalize(step) {
  return { ...step, role: step.role ?? step.from };
}

function questionOf(call) {
  const p = call.parameters ?? {};
  if (call.tool === "get_input_from_user") return p.questions ?? "";
  // Consent questions (agents/tools/emergency.py, health_data.py): the pending one comes from the
  // server word for word (current.question); an answered one is recalled this way.
  if (call.tool === "send_message") return `Shall I send this text message: "${p.text ?? ""}"?`;
  if (call.tool === "set_medication_reminder") return `Set a reminder for ${p.medicine_name ?? "this medicine"}?`;
  if (call.tool === "cancel_appointment") return "Cancel this appointment?";
  if (call.tool === "reschedule_appointment") return "Move this appointment?";
  // The server words follow-ups this way (agents/tools/interaction.py).
  let text = `You told me about: ${p.current_symptoms}.`;
  if (p.past_complaints?.length) text += ` Earlier you reported: ${p.past_complaints.join("; ")}.`;
  return `${text} How are you feeling now, and has anything changed?`;
}

function answerOf(result) {
  if (typeof result === "string") return result;
  if (result && typeof result.user === "string") return result.user;
  return JSON.stringify(result);
}

// The transcript as a list of bubbles, each keyed by the step it comes from.
function transcript() {
  appointmentNotice = false;
  const ordered = [...steps.values()].sort((a, b) => a.index - b.index);
  const last = ordered.at(-1);
  const items = [];
  let lastCall = null;
  let offer = null; // the specialist and slot most recently found
  let guarded = false; // the step comes from a guard of the runtime (its words are the server's, not the model's)
  for (const step of ordered) {
    const value = step.value ?? {};
    if (step.role === "planner") guarded = GUARD_STEP.test(value.reason ?? "");
    if (step.role === "user" && current?.kind && current.kind !== "chat" && !items.length) {
      // A system-run conversation (an alert) starts with the request the model reads,
      // not with anything the patient said: show what started it.
      items.push({ index: step.index, kind: "system", text: current.title || KIND_LABELS[current.kind] || "Started by the system" });
    } else if (step.role === "user") {
      items.push({ index: step.index, kind: "user", text: String(value) });
    } else if (step.role === "caller") {
      lastCall = value;
      const pending = step === last && current?.status === "waiting_input";
      // Any tool may wait for the patient: the asking tools, and consent questions (a text to a
      // contact, a medicine the lexicon does not know) whose words the server sends as current.question.
      if (pending && (ASKING_TOOLS.has(value.tool) || current.question)) {
        const text = current.question || questionOf(value);
        const consent = !ASKING_TOOLS.has(value.tool);
        items.push({ index: step.index, kind: offer && !consent ? "proposal" : "question", text, offer, consent, pending: true });
        offer = null;
      }
    } else if (step.role === "observation" && lastCall) {
      if (ASKING_TOOLS.has(lastCall.tool) && "result" in value) {
        // Asked and answered: the question, then the patient's answer.
        items.push({ index: step.index - 1, kind: offer ? "proposal" : "question", text: questionOf(lastCall), offer, pending: false });
        items.push({ index: step.index, kind: "user", text: answerOf(value.result) });
        offer = null;
      } else if (typeof value.result?.user === "string") {
        // A consent question, answered: the question, the answer, then what the record says happened
        // ("Your text message to Dana: queued, not sent yet.", "Not sent: you did not agree").
        items.push({ index: step.index - 1, kind: "question", text: value.result.question || questionOf(lastCall), pending: false });
        items.push({ index: step.index, kind: "user", text: value.result.user });
        if (value.result.message) items.push({ index: step.index, kind: "notice", text: value.result.message });
      } else if (lastCall.tool === "get_available_specialists" && value.result?.specialist_id) {
        offer = value.result;
      } else if (MESSAGE_TOOLS.has(lastCall.tool) && value.result?.message) {
        // The schedule as stored (rendered by the server from the saved rows), not the model's words.
        items.push({ index: step.index, kind: "notice", text: value.result.message });
      } else if (lastCall.tool === "notify_user" && value.result === true) {
        const p = lastCall.parameters ?? {};
        const text = p.message || p.symptoms || "";
        // The model's own words about an appointment are not shown: the booking card below says
        // what is recorded (the server words the notification from the record the same way).
        if (current?.kind === "chat" && !guarded && ABOUT_APPOINTMENT.test(text)) appointmentNotice = true;
        else items.push({ index: step.index, kind: "notice", text });
      }
      lastCall = null;
    }
  }
  return items;
}

const SPEAKERS = { user: "You", system: "Started by the system" };

// A proposal in words built from the search result, with the patient's time zone: never the model's
// free text, which once read "Your items are confirmed ... Would you like me to book this appointment?".
function proposalText(offer) {
  const slot = offer.available_slot ?? {};
  const when = `${formatDay(slot.date)}, ${slot.time ?? ""} (${TIME_ZONE})`;
  const lead = offer.fits_preference === false ? `Nothing is free ${offer.preference}. The nearest free time: ` : "";
  return `${lead}${offer.name} can see you on ${when}. Shall I book it?`;
}

// The app's own pages named in a message ("Change it here: /medications/") become links; any other
// text stays text (a message is never read as HTML).
const PAGE_PATH = /(\/(?:medications|appointments|reports|sos|profile|watch|notifications)\/)/;
function withPageLinks(text) {
  return String(text ?? "")
    .split(PAGE_PATH)
    .map((part, i) => (i % 2 === 1 ? el("a", { href: part }, part) : part));
}

function bubble(item) {
  const who = SPEAKERS[item.kind] ?? "Assistant";
  const side = item.kind === "user" ? "user" : item.kind === "system" ? "system" : "assistant";
  const node = el(
    "li",
    { class: `bubble bubble-${side} kind-${item.kind}`, "data-index": item.index },
    el("span", { class: "visually-hidden" }, `${who}: `),
    el("p", {}, item.kind === "proposal" && item.offer ? proposalText(item.offer) : withPageLinks(item.text)),
  );
  if (item.kind === "proposal" && item.offer) {
    const slot = item.offer.available_slot ?? {};
    node.append(
      el(
        "dl",
        { class: "proposal" },
        el("dt", {}, "Specialist"),
        el("dd", {}, item.offer.name),
        el("dt", {}, "When"),
        el("dd", {}, `${formatDay(slot.date)}, ${slot.time ?? ""} (${TIME_ZONE})`),
      ),
    );
    const others = (item.offer.alternatives ?? []).slice(1);
    if (others.length) {
      node.append(
        el("p", { class: "muted" }, `Other free times: ${others.map((a) => `${formatDay(a.date)}, ${a.time}`).join("; ")}. Decline and name one to choose it.`),
      );
    }
    if (item.pending) {
      node.append(
        el(
          "div",
          { class: "proposal-actions" },
          el("button", { type: "button", class: "primary", onclick: () => send("yes") }, "Confirm"),
          el("button", { type: "button", class: "secondary", onclick: () => send("no") }, "Decline"),
        ),
      );
    }
  }
  if (item.consent && item.pending) {
    // Nothing is sent or set without this answer; the buttons send exactly what typing would.
    node.append(
      el(
        "div",
        { class: "proposal-actions" },
        el("button", { type: "button", class: "primary", onclick: () => send("yes") }, "Yes"),
        el("button", { type: "button", class: "secondary", onclick: () => send("no") }, "No"),
      ),
    );
  }
  return node;
}

function renderTranscript() {
  const items = transcript();
  const keys = new Set(items.map((item) => `${item.kind}:${item.index}:${item.pending ? "p" : ""}`));
  // Drop bubbles that no longer apply (a question's buttons once it is answered).
  for (const node of [...messages.children]) {
    if (!keys.has(node.dataset.key)) node.remove();
  }
  for (const item of items) {
    const key = `${item.kind}:${item.index}:${item.pending ? "p" : ""}`;
    if (messages.querySelector(`[data-key="${CSS.escape(key)}"]`)) continue;
    const node = bubble(item);
    node.dataset.key = key;
    // Append-only in index order, so the live region announces only what is new.
    const later = [...messages.children].find((other) => Number(other.dataset.index) > item.index);
    messages.insertBefore(node, later ?? null);
  }
  $("chat-intro").hidden = items.length > 0;
}

// --- status, errors and the composer ------------------------------------------

function showError(text) {
  const box = $("chat-error");
  box.textContent = text;
  box.hidden = !text;
}

function renderStatus() {
  const status = current?.status ?? "idle";
  const systemRun = current && current.kind !== "chat";
  $("thinking").hidden = !(sending || status === "running");
  sendButton.disabled = sending || status === "running" || systemRun;
  textarea.disabled = systemRun;
  const hint = $("composer-hint");
  hint.hidden = false;
  if (systemRun) hint.textContent = "This conversation was run by the system for an alert; it takes no messages.";
  else if (status === "waiting_input") hint.textContent = "The assistant asked you a question: type your answer and press Send.";
  else if (status === "running") hint.textContent = "Please wait until the assistant has finished.";
  else hint.hidden = true;
  composer.querySelector("label").textContent = status === "waiting_input" ? "Your answer" : "Your message";
  if (status === "failed") {
    const reason = (current.error || "unknown error").replace(/[.\s]+$/, "");
    showError(`The assistant could not finish: ${reason}. You can try again below.`);
  }
  document.body.dataset.chatStatus = status;
}

async function renderBookings() {
  let box = $("bookings");
  if (!box) {
    box = el("div", { id: "bookings", class: "bookings", "aria-live": "polite" });
    messages.after(box);
  }
  if (!current) {
    box.replaceChildren();
    return;
  }
  const conversationId = current.id;
  let appointments;
  try {
    appointments = (await api("/api/appointments/")).results;
  } catch {
    return; // bookings are also on the home page; a failed refresh is not worth an error here
  }
  if (current?.id !== conversationId) return;
  const mine = appointments.filter((a) => a.conversation === conversationId && a.state !== "cancelled");
  // Words from the recorded state only: "Booked" is said of a confirmed appointment alone.
  const cards = mine.map((a) =>
    el(
      "div",
      { class: `booking card-inner booking-${a.state}`, "data-appointment": a.id },
      el("h3", {}, a.state === "confirmed" ? "Booked" : a.state_label),
      el("p", {}, el("strong", {}, a.specialist_name), ` (${a.specialization})`),
      el("p", {}, a.when, a.hospital ? ` · ${a.hospital}` : ""),
      el("p", {}, el("a", { href: `/appointments/${a.id}/` }, a.state === "held" ? "Open it to confirm or cancel" : "Open, cancel or reschedule")),
    ),
  );
  if (!cards.length && appointmentNotice && current?.status === "completed") {
    cards.push(el("div", { class: "booking card-inner booking-none" }, el("h3", {}, "No appointment has been booked for you.")));
  }
  box.replaceChildren(...cards);
}

// --- loading conversations ------------------------------------------------------

async function loadList() {
  let page;
  try {
    page = await api("/api/conversations/");
  } catch (error) {
    showError(`Your conversations could not be loaded: ${error.message}`);
    return;
  }
  const list = $("conversation-list");
  list.replaceChildren(
    ...page.results.map((c) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", class: "conversation-item", "aria-current": c.id === current?.id ? "true" : false, onclick: () => open(c.id) },
          el("span", { class: "conversation-title" }, c.title || "Untitled"),
          el("span", { class: "conversation-meta" }, `${KIND_LABELS[c.kind] ?? c.kind} · ${STATUS_LABELS[c.status] ?? c.status} · ${formatWhen(c.updated_at)}`),
        ),
      ),
    ),
  );
  $("conversation-empty").hidden = page.results.length > 0;
}

let refreshes = 0;

async function refresh() {
  if (!current) return;
  const id = current.id;
  const number = ++refreshes;
  const [conversation, rows] = await Promise.all([api(`/api/conversations/${id}/`), api(`/api/conversations/${id}/steps/`)]);
  // Only the latest read may set the status: an earlier one answering late
  // would show "thinking" again after the run has finished.
  if (current?.id !== id || number !== refreshes) return;
  current = conversation;
  $("chat-title").textContent = current.title || "Conversation";
  for (const row of rows) addStep(normalize(row));
  renderTranscript();
  renderStatus();
}

async function open(id) {
  current = { id, status: "idle", kind: "chat" };
  steps = new Map();
  messages.replaceChildren();
  log.reset();
  showError("");
  history.replaceState(null, "", `?c=${id}`);
  try {
    await refresh();
  } catch (error) {
    showError(error.status === 404 ? "This conversation does not exist." : `The conversation could not be loaded: ${error.message}`);
    current = null;
    return;
  }
  renderBookings();
  loadList();
}

function startNew() {
  current = null;
  steps = new Map();
  messages.replaceChildren();
  log.reset();
  showError("");
  history.replaceState(null, "", location.pathname);
  $("chat-title").textContent = "New conversation";
  renderBookings();
  renderStatus();
  loadList();
  textarea.focus();
}

function addStep(step) {
  if (steps.has(step.index)) return;
  steps.set(step.index, step);
  log.add(step);
}

// --- sending ----------------------------------------------------------------------

async function send(text) {
  text = text.trim();
  if (!text || sending) return;
  sending = true;
  showError("");
  renderStatus();
  try {
    if (!current) {
      const conversation = await api("/api/conversations/", { method: "POST", body: { text } });
      textarea.value = "";
      sending = false;
      await open(conversation.id);
    } else {
      const conversation = await api(`/api/conversations/${current.id}/messages/`, { method: "POST", body: { text } });
      textarea.value = "";
      sending = false;
      current = { ...current, ...conversation };
      await refresh();
      if (current.status === "completed") renderBookings();
      loadList();
    }
  } catch (error) {
    sending = false;
    if (error.status === 409) showError(`${error.message} Please wait for it to finish, then send your message again.`);
    else if (error.fields?.text) showError(`Your message was not sent: ${error.fields.text.join(" ")}`);
    else showError(`Your message was not sent: ${error.message}`);
  }
  renderStatus();
  textarea.focus();
}

composer.addEventListener("submit", (event) => {
  event.preventDefault();
  send(textarea.value);
});
textarea.addEventListener("keydown", (event) => {
  // Enter sends, Shift+Enter starts a new line, as in most chat apps.
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send(textarea.value);
  }
});
$("new-chat").addEventListener("click", startNew);

// --- live events ---------------------------------------------------------------------

onEvent(EVENT.AGENT_STEP, (data) => {
  if (current?.id !== data.conversation) return;
  addStep(normalize(data));
  renderTranscript();
});
onEvent(EVENT.AGENT_STATUS, (data) => {
  if (current?.id !== data.conversation) {
    loadList();
    return;
  }
  current = { ...current, status: data.status, question: data.question ?? null };
  renderTranscript();
  renderStatus();
  // Read the conversation back after every change of status: the error text
  // and any booking live in the database, and an earlier read may be stale.
  refresh().then(
    () => {
      if (data.status === "failed" || data.status === "completed") renderBookings();
    },
    () => {},
  );
  // The list shows every conversation's status: "Waiting for your answer" as much as "Done".
  loadList();
});
// The list and the open conversation are read again once the socket is up: a status that changed
// while the page was loading was pushed before anyone listened.
onEvent(EVENT.CONNECTED, () => {
  loadList();
  if (current) refresh().catch(() => {});
});
onEvent(EVENT.RECONNECTED, () => {
  loadList();
  if (current) refresh().catch(() => {});
});

setupLogToggle($("toggle-log"), $("agent-log"), $("chat-layout"));
const requested = Number(new URLSearchParams(location.search).get("c"));
if (requested) open(requested);
else {
  renderStatus();
  loadList();
}
