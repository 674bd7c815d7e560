// The unread count on the header's bell: read from the API on load, and again
// whenever the event feed says something changed.
import { api } from "./api.js";
import { EVENT, onEvent } from "./events.js";

const badge = document.getElementById("bell-count");
const bell = document.getElementById("bell");

export async function refreshUnread() {
  if (!badge) return;
  try {
    const { unread } = await api("/api/notifications/unread-count/");
    badge.textContent = unread;
    badge.hidden = unread === 0;
    bell.setAttribute("aria-label", unread === 1 ? "Notifications, 1 unread" : `Notifications, ${unread} unread`);
    bell.dataset.unread = unread;
  } catch {
    // The badge is a hint; the notification page shows the truth.
  }
}

if (badge) {
  refreshUnread();
  onEvent(EVENT.NOTIFICATION, refreshUnread);
  // A failed run leaves a notification without a "notification" event.
  onEvent(EVENT.AGENT_STATUS, refreshUnread);
  onEvent(EVENT.RECONNECTED, refreshUnread);
  document.addEventListener("notifications:changed", refreshUnread);
}
