// The SOS page: the big button, the cancellable countdown, the dispatch
// progress read from the SOS run's steps, the messages sent, and End SOS.
// The server owns the timing; the page only shows countdown_ends_at.
import { api, el, formatWhen } from "./api.js";
import { onEvent } from "./events.js";

const $ = (id) => document.getElementById(id);
const PROGRESS = [
  { label: "Location found", done: (s) => s.located },
  { label: "Ambulance assigned", done: (s) => s.ambulance },
  { label: "Ambulance messaged", done: (s) => s.ambulanceMessaged },
  { label: "Emergency contacts messaged", done: (s) => s.contactsMessaged },
];
const DELIVERY = { queued: "queued", sent: "sent", failed: "failed", not_sent: "kept in the outbox (SMS is not set up)" };
const RECIPIENTS = { emergency_contact: "emergency contact", ambulance: "ambulance" };
const STATE_TEXT = {
  open: "SOS sent. Help is being arranged.",
  acknowledged: "SOS sent. Help is being arranged.",
  resolved: "This SOS has ended.",
};

let alert = null; // the hard SOS shown, as the API returns it
let ticker = null;
let issued = 0; // requests for the alert, numbered as sent...
let applied = 0; // ...and the newest whose answer is shown: older answers are stale

function fresh(number, fetched) {
  // Ids only grow: a newer alert always wins, a reread of the previous one never;
  // for the same alert, the answer to the latest request wins.
  const newer = !alert || fetched.id > alert.id || (fetched.id === alert.id && number >= applied);
  if (newer) applied = number;
  return newer;
}

function showError(text) {
  $("sos-error").textContent = text;
  $("sos-error").hidden = !text;
}

// What the start flow has done so far, from its trajectory (agents/guard.py's order).
function progressOf(steps) {
  const seen = { located: false, ambulance: false, ambulanceMessaged: false, contactsMessaged: false };
  let call = null;
  for (const step of steps) {
    if (step.role === "caller") call = step.value;
    else if (step.role === "observation" && call && "result" in (step.value ?? {})) {
      if (call.tool === "get_location") seen.located = true;
      if (call.tool === "search_ambulance" && step.value.result) seen.ambulance = true;
      if (call.tool === "send_message") {
        if (!seen.ambulanceMessaged && seen.ambulance) seen.ambulanceMessaged = true;
        else seen.contactsMessaged = true;
      }
      call = null;
    }
  }
  return seen;
}

async function renderProgress() {
  let steps = [];
  // alert.conversation moves to the end flow once the SOS is ended; the
  // progress is the start flow's, found on the alert's timeline.
  const start = (alert.events ?? []).find((e) => e.kind === "agent_conversation" && e.data?.conversation_kind === "hard_sos_start");
  if (start) {
    try {
      steps = await api(`/api/conversations/${start.data.conversation}/steps/`);
    } catch {
      steps = [];
    }
  }
  const seen = progressOf(steps);
  $("sos-progress").replaceChildren(
    ...PROGRESS.map((item) => {
      const done = item.done(seen);
      return el("li", { class: done ? "done" : "pending" }, el("span", { "aria-hidden": "true" }, done ? "✓ " : "… "), item.label, el("span", { class: "visually-hidden" }, done ? " (done)" : " (in progress)"));
    }),
  );
}

async function renderOutbox() {
  let rows = [];
  try {
    rows = (await api("/api/outbox/")).results.filter((m) => m.alert === alert.id);
  } catch {
    return;
  }
  $("sos-messages").hidden = rows.length === 0;
  $("outbox-list").replaceChildren(
    ...rows.map((m) =>
      el(
        "li",
        { class: "outbox-row" },
        el("strong", {}, m.recipient_name || m.recipient),
        ` (${RECIPIENTS[m.recipient_kind] ?? m.recipient_kind}, ${m.recipient}) · ${DELIVERY[m.status] ?? m.status}`,
        el("p", {}, m.body),
        el("p", { class: "muted small" }, formatWhen(m.created_at)),
      ),
    ),
  );
}

function tick() {
  const left = Math.max(0, Math.ceil((new Date(alert.countdown_ends_at) - Date.now()) / 1000));
  $("sos-seconds").textContent = left;
  if (left === 0) {
    clearInterval(ticker);
    ticker = null;
    $("sos-countdown-text").textContent = "Sending for help now…";
    // The server opens the alert on its own schedule; read it back shortly.
    setTimeout(() => load(alert.id), 1500);
  }
}

function render() {
  const state = alert?.state;
  const counting = state === "countdown";
  const sent = ["open", "acknowledged", "resolved"].includes(state);
  $("sos-button").hidden = Boolean(alert?.is_active);
  $("sos-countdown").hidden = !counting;
  $("sos-active").hidden = !sent;
  $("sos-note").hidden = state !== "cancelled";
  $("sos-note").textContent = state === "cancelled" ? "Cancelled. Nothing was sent." : "";
  clearInterval(ticker);
  ticker = null;
  if (counting) {
    tick();
    if (new Date(alert.countdown_ends_at) > Date.now()) ticker = setInterval(tick, 250);
  }
  if (sent) {
    $("sos-state").textContent = STATE_TEXT[state];
    $("sos-end").hidden = !alert.is_active;
    renderProgress();
    renderOutbox();
  }
  document.body.dataset.sosState = state ?? "none";
}

async function load(id) {
  const number = ++issued;
  let fetched;
  try {
    fetched = await api(`/api/alerts/${id}/`);
  } catch (error) {
    showError(`The SOS could not be read: ${error.message}`);
    return;
  }
  if (!fresh(number, fetched)) return;
  alert = fetched;
  render();
}

async function act(path, body) {
  showError("");
  try {
    const number = ++issued;
    const updated = await api(path, { method: "POST", body });
    if (fresh(number, updated)) alert = updated;
    render();
  } catch (error) {
    showError(error.message);
  }
}

$("sos-button").addEventListener("click", async () => {
  await act("/api/sos/", {});
  $("sos-cancel").focus(); // the one thing a patient who pressed by mistake needs next
});
$("sos-cancel").addEventListener("click", () => act(`/api/alerts/${alert.id}/cancel/`));
$("sos-end").addEventListener("click", () => act(`/api/sos/${alert.id}/end/`));

// Any news about this user's alerts or SOS runs: read the alert again.
const reread = () => {
  if (alert) load(alert.id);
};
onEvent("alert", (data) => {
  if (data.kind === "hard" && (!alert || data.id === alert.id || !alert.is_active)) load(data.id);
});
onEvent("agent_status", reread);
onEvent("notification", reread);
onEvent("reconnected", reread);

// Open on the user's active hard SOS, if there is one (e.g. pressed on another tab).
(async () => {
  try {
    const page = await api("/api/alerts/?kind=hard");
    const active = page.results.find((a) => a.is_active);
    if (active) {
      alert = active;
      render();
    }
  } catch (error) {
    showError(`Your alerts could not be read: ${error.message}`);
  }
})();
