// One websocket per page to /ws/events/, shared by every module on it.
// Modules subscribe by event name; the socket reconnects with a growing delay
// and tells subscribers of "reconnected" so they can refetch what they missed.

// The event names come from the server's one list (core/events.py, rendered by base.html);
// "reconnected" is this module's own, told to subscribers after the socket comes back; "connected",
// told once when it first opens: what changed between the page's own reads and that moment was
// pushed to no one (a run that finished then still shows "Working…" until something reads again).
export const EVENT = Object.freeze({
  ...JSON.parse(document.getElementById("live-events")?.textContent ?? "{}"),
  RECONNECTED: "reconnected",
  CONNECTED: "connected",
});
const KNOWN = new Set(Object.values(EVENT));

const handlers = new Map();
let socket = null;
let delay = 1000;
let everConnected = false;

export function onEvent(name, handler) {
  if (!KNOWN.has(name)) throw new Error(`no such live event: ${name}`);
  if (!handlers.has(name)) handlers.set(name, new Set());
  handlers.get(name).add(handler);
  connect();
}

function emit(name, data) {
  for (const handler of handlers.get(name) ?? []) {
    try {
      handler(data);
    } catch (error) {
      console.error(`handler of ${name} failed`, error);
    }
  }
}

function setStatus(live) {
  const status = document.getElementById("live-status");
  if (status) status.hidden = live;
}

function connect() {
  if (socket) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws/events/`);
  socket.addEventListener("open", () => {
    delay = 1000;
    setStatus(true);
    emit(everConnected ? EVENT.RECONNECTED : EVENT.CONNECTED, {});
    everConnected = true;
  });
  socket.addEventListener("message", (message) => {
    let parsed;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      return;
    }
    document.body.dataset.liveEvents = "on"; // lets tests wait for the feed
    emit(parsed.event, parsed.data);
  });
  socket.addEventListener("close", (event) => {
    socket = null;
    if (event.code === 4401) return; // signed out: reconnecting cannot help
    setStatus(false);
    setTimeout(connect, delay);
    delay = Math.min(delay * 2, 30000);
  });
}
