// The SOS page: the big button, the cancellable countdown, the dispatch
// progress, each message's recorded delivery state (alert.delivery, read from
// the outbox: "sent" only once the SMS provider accepted it), the call-now
// prompt when a message did not go out, and ending the SOS with a reason.
// The server owns the timing; the page only shows countdown_ends_at.
import { api, el, formatWhen } from "./api.js";
import { EVENT, onEvent } from "./events.js";

const $ = (id) => document.getElementById(id);
const DELIVERY = {
  queued: "sending… (not confirmed yet)",
  sent: "sent (accepted by the SMS provider)",
  failed: "FAILED",
  not_sent: "NOT SENT",
};
const RECIPIENTS = { emergency_contact: "emergency contact", ambulance: "ambulance" };
const END_REASONS = { help_arrived: "help arrived", safe: "you said you are safe", false_alarm: "a false alarm" };
// A group of SMS (to the ambulance, to the contacts), in words, from its recorded state.
const GROUP_TEXT = {
  sent: (who) => [`${who}: SMS sent`, "done"],
  pending: (who) => [`${who}: sending the SMS…`, "pending"],
  not_sent: (who, g) => [`${who}: SMS NOT sent (${g.reasons.join("; ") || "no reason recorded"})`, "problem"],
  failed: (who, g) => [`${who}: SMS FAILED (${g.reasons.join("; ") || "no reason recorded"})`, "problem"],
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

// One line of progress: ✓ done, … in progress, ✗ a problem the patient must act on.
function progressItem(text, state) {
  const mark = { done: "✓ ", pending: "… ", problem: "✗ " }[state];
  const spoken = { done: " (done)", pending: " (in progress)", problem: " (problem)" }[state];
  return el("li", { class: state }, el("span", { "aria-hidden": "true" }, mark), text, el("span", { class: "visually-hidden" }, spoken));
}

function groupItem(group, who, nobody, finished) {
  if (group.state === "none") return progressItem(nobody, finished ? "problem" : "pending");
  return progressItem(...GROUP_TEXT[group.state](who, group));
}

function renderProgress() {
  const delivery = alert.delivery ?? {};
  const start = delivery.start ?? {};
  const events = alert.events ?? [];
  const finished = events.some((e) => e.kind === "start_finished");
  const located = events.some((e) => e.kind === "ambulance_assigned") || finished;
  const items = [
    progressItem(located ? "Location found" : "Finding your location…", located ? "done" : "pending"),
    delivery.ambulance_dispatched
      ? progressItem("Nearest ambulance chosen", "done")
      : progressItem(finished ? "No ambulance could be chosen" : "Finding the nearest ambulance…", finished ? "problem" : "pending"),
  ];
  if (start.ambulance && (delivery.ambulance_dispatched || start.ambulance.total)) {
    items.push(groupItem(start.ambulance, "Ambulance", "Ambulance: no SMS yet", finished));
  }
  if (start.contacts) items.push(groupItem(start.contacts, "Emergency contacts", finished ? "No emergency contacts to message" : "Emergency contacts: no SMS yet", finished));
  $("sos-progress").replaceChildren(...items);
  const call = Boolean(delivery.call_emergency_number);
  $("sos-call-now").hidden = !call;
  if (call) {
    const problems = [start.ambulance, start.contacts].filter((g) => g && ["not_sent", "failed"].includes(g.state));
    $("sos-call-why").textContent = problems.length
      ? "Your SOS text messages were not sent, so nobody has been alerted by this app."
      : [start.ambulance, start.contacts].some((g) => g?.state === "pending")
        ? "Your SOS text messages have not been confirmed after a minute: the SMS service may be down."
        : "No ambulance could be found by this app.";
  }
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
        ` (${RECIPIENTS[m.recipient_kind] ?? m.recipient_kind}, ${m.recipient}) · `,
        el("span", { class: `delivery delivery-${m.status}` }, DELIVERY[m.status] ?? m.status),
        ["failed", "not_sent"].includes(m.status) && m.status_detail ? ` (${m.status_detail.replace(/^(not sent|failed): /, "")})` : "",
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
  $("sos-call-now").hidden = true;
  $("sos-note").textContent = state === "cancelled" ? "Cancelled. Nothing was sent." : "";
  clearInterval(ticker);
  ticker = null;
  if (counting) {
    tick();
    if (new Date(alert.countdown_ends_at) > Date.now()) ticker = setInterval(tick, 250);
  }
  if (sent) {
    const ending = alert.end_reason && alert.is_active;
    $("sos-state").textContent =
      state === "resolved"
        ? `This SOS has ended${alert.end_reason ? ` (${END_REASONS[alert.end_reason]})` : ""}.`
        : ending
          ? `Ending the SOS (${END_REASONS[alert.end_reason]}): telling your ambulance and contacts…`
          : "Your SOS is active.";
    $("sos-end").hidden = !alert.is_active || Boolean(alert.end_reason);
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
// The button is served disabled: a press before this script handles it would do nothing.
$("sos-button").disabled = false;
for (const button of document.querySelectorAll("#sos-end button[data-reason]")) {
  button.addEventListener("click", () => act(`/api/sos/${alert.id}/end/`, { reason: button.dataset.reason }));
}

// Any news about this user's alerts or SOS runs: read the alert again.
const reread = () => {
  if (alert) load(alert.id);
};
onEvent(EVENT.ALERT, (data) => {
  if (data.kind === "hard" && (!alert || data.id === alert.id || !alert.is_active)) load(data.id);
});
onEvent(EVENT.AGENT_STATUS, reread);
onEvent(EVENT.NOTIFICATION, reread);
onEvent(EVENT.OUTBOX, (data) => {
  if (alert && data.alert === alert.id) load(alert.id);
});
onEvent(EVENT.RECONNECTED, reread);

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
