// Home: the alert, appointment and notification cards are rendered by the
// server from the records; when an event says one of them changed, the page
// reads them again, so a card never says "No open alerts" beside a live alert.
import { EVENT, onEvent } from "./events.js";

const cards = document.getElementById("home-cards");
let pending = null;

async function refresh() {
  pending = null;
  try {
    const response = await fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("home-cards");
    if (fresh) cards.replaceChildren(...fresh.childNodes);
  } catch {
    // Offline for a moment: the next event or a reload brings the cards up to date.
  }
}

function soon() {
  // Several events arrive together (an alert and its notification): read once.
  if (!pending) pending = setTimeout(refresh, 300);
}

if (cards) {
  for (const name of [EVENT.ALERT, EVENT.NOTIFICATION, EVENT.OUTBOX, EVENT.DOSE, EVENT.RECONNECTED]) onEvent(name, soon);
}
