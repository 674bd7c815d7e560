// The notification centre: alerts, bookings and messages sent on the patient's
// behalf, newest first, with mark-read and mark-all-read. New ones arrive live.
import { api, el, formatWhen } from "./api.js";
import { EVENT, onEvent } from "./events.js";

const $ = (id) => document.getElementById(id);
const list = $("notification-list");
const LEVEL_LABELS = { info: "Information", success: "Done", warning: "Warning", danger: "Urgent" };
let nextPage = null;

function showError(text) {
  $("notifications-error").textContent = text;
  $("notifications-error").hidden = !text;
}

function changed() {
  // The header's bell listens for this and reads the count again.
  document.dispatchEvent(new CustomEvent("notifications:changed"));
}

function item(n) {
  const unread = !n.read_at;
  const node = el(
    "li",
    { class: `notification level-${n.level}${unread ? " unread" : ""}`, "data-id": n.id },
    el(
      "div",
      {},
      el("h2", {}, unread ? el("span", { class: "visually-hidden" }, "Unread: ") : null, n.title),
      n.body && n.body !== n.title ? el("p", {}, n.body) : null,
      el("p", { class: "muted small" }, `${LEVEL_LABELS[n.level] ?? n.level} · ${formatWhen(n.created_at)}`),
    ),
    unread
      ? el("button", { type: "button", class: "secondary", onclick: () => markRead(n.id, node), "aria-label": `Mark “${n.title}” as read` }, "Mark as read")
      : null,
  );
  return node;
}

function summarise() {
  const unread = list.querySelectorAll(".notification.unread").length;
  $("notifications-summary").textContent = unread ? `${unread} unread on this page.` : "Everything is read.";
  $("notifications-empty").hidden = list.children.length > 0;
  $("mark-all").disabled = unread === 0;
}

async function load({ more = false } = {}) {
  try {
    const page = await api(more && nextPage ? nextPage : "/api/notifications/");
    if (!more) list.replaceChildren();
    list.append(...page.results.map(item));
    nextPage = page.next;
    $("load-more").hidden = !nextPage;
    showError("");
  } catch (error) {
    showError(`Notifications could not be loaded: ${error.message}`);
  }
  summarise();
}

async function markRead(id, node) {
  try {
    const updated = await api(`/api/notifications/${id}/mark-read/`, { method: "POST" });
    const replacement = item(updated);
    node.replaceWith(replacement);
    // Keep keyboard users where they were: the button they pressed is gone.
    replacement.setAttribute("tabindex", "-1");
    replacement.focus();
    changed();
  } catch (error) {
    showError(`Could not mark it as read: ${error.message}`);
  }
  summarise();
}

$("mark-all").addEventListener("click", async () => {
  try {
    await api("/api/notifications/mark-all-read/", { method: "POST" });
    await load();
    changed();
  } catch (error) {
    showError(`Could not mark everything as read: ${error.message}`);
  }
});
$("load-more").addEventListener("click", () => load({ more: true }));
onEvent(EVENT.NOTIFICATION, () => load());
onEvent(EVENT.RECONNECTED, () => load());
load();
