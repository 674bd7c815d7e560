// Medications and prescription pages. Both are rendered by the server from the records; the live
// events only say that something changed, and the page reads itself again:
// - a prescription being read reloads when its reading moves on (read, or failed with the reason);
// - the medications page refreshes today's doses, the schedule and adherence when a dose is
//   reminded or changes (the upload form, perhaps half filled, is left alone).
import { EVENT, onEvent } from "./events.js";

const prescription = document.getElementById("prescription");
const cards = document.getElementById("medication-cards");
const READING = new Set(["pending", "processing"]);

if (prescription && READING.has(prescription.dataset.status)) {
  const id = Number(prescription.dataset.id);
  onEvent(EVENT.PRESCRIPTION, (data) => {
    if (data.id === id && data.status !== prescription.dataset.status) location.reload();
  });
  // A reading that finished while the socket was away: look again.
  onEvent(EVENT.RECONNECTED, () => location.reload());
}

let pending = null;

async function refresh() {
  pending = null;
  try {
    const response = await fetch(location.pathname, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = doc.getElementById("medication-cards");
    if (fresh && !cards.contains(document.activeElement)) cards.replaceChildren(...fresh.childNodes);
    else if (fresh) pending = setTimeout(refresh, 2000); // the patient is typing in a form: later
  } catch {
    // Offline for a moment: the next event or a reload brings the page up to date.
  }
}

function soon() {
  if (!pending) pending = setTimeout(refresh, 300);
}

if (cards) {
  for (const name of [EVENT.DOSE, EVENT.PRESCRIPTION, EVENT.RECONNECTED]) onEvent(name, soon);
}
