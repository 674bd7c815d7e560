// One websocket per page to /ws/events/, shared by every module on it.
// Modules subscribe by event name; the socket reconnects with a growing delay
// and tells subscribers of "reconnected" so they can refetch what they missed.

const handlers = new Map();
let socket = null;
let delay = 1000;
let everConnected = false;

export function onEvent(name, handler) {
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
    if (everConnected) emit("reconnected", {});
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
