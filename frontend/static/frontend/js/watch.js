// The Watch page: live vitals from the websocket's "vitals" events, each with
// a small SVG chart, and the simulated watch (/api/watch/simulator/): Start,
// Stop and the situation buttons. The server runs the feed; the page only asks
// for changes and shows what the "watch" events say it is doing.
import { api } from "./api.js";
import { EVENT, onEvent } from "./events.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const POINTS = 90; // measurements kept per chart
const STAGES = { awake: 3, rem: 2, light: 1, deep: 0 };
const STAGE_TEXT = { awake: "Awake", rem: "REM sleep", light: "Light sleep", deep: "Deep sleep" };

// A time of day in the patient's profile time zone (as api.js's formatWhen).
function clock(iso, seconds = false) {
  const options = { hour: "2-digit", minute: "2-digit", ...(seconds ? { second: "2-digit" } : {}) };
  const timeZone = document.body.dataset.timezone || undefined;
  try {
    return new Intl.DateTimeFormat(undefined, { ...options, timeZone }).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat(undefined, options).format(new Date(iso));
  }
}

let labels = {}; // scenario name -> button label
let feed = null; // the simulated watch, as the API describes it

// --- charts -------------------------------------------------------------------

const charts = {
  heart_rate: { lines: [[]], min: 40, max: 120, name: "Heart rate", unit: "bpm" },
  spo2: { lines: [[]], min: 85, max: 100, name: "Blood oxygen", unit: "%", marks: [90] },
  blood_pressure: { lines: [[], []], min: 60, max: 160, name: "Blood pressure", unit: "mmHg" },
  steps: { lines: [[]], min: 0, max: 120, name: "Pace", unit: "steps/min" },
  sleep: { lines: [[]], min: 0, max: 3, name: "Sleep stage", unit: "", steps: true, fixed: true },
};

function push(metric, ...values) {
  const chart = charts[metric];
  values.forEach((value, index) => {
    const line = chart.lines[index];
    line.push(value);
    if (line.length > POINTS) line.shift();
  });
  draw(metric);
}

function bounds(chart) {
  if (chart.fixed) return [chart.min, chart.max];
  const all = chart.lines.flat().concat(chart.marks ?? []);
  let low = Math.min(chart.min, ...all);
  let high = Math.max(chart.max, ...all);
  const pad = (high - low) * 0.08;
  return [low - pad, high + pad];
}

function draw(metric) {
  const chart = charts[metric];
  const svg = document.querySelector(`[data-metric="${metric}"] [data-chart]`);
  const [low, high] = bounds(chart);
  // A few units of margin so the newest-reading dot is never cut off.
  const y = (value) => (75 - ((value - low) / (high - low || 1)) * 70).toFixed(1);
  const x = (index) => (4 + (index / (POINTS - 1)) * 292).toFixed(1);
  const shapes = [];
  for (const mark of chart.marks ?? []) {
    const line = document.createElementNS(SVG, "line");
    Object.entries({ x1: 0, x2: 300, y1: y(mark), y2: y(mark), class: "spark-mark" }).forEach(([k, v]) => line.setAttribute(k, v));
    shapes.push(line);
  }
  chart.lines.forEach((values, index) => {
    if (!values.length) return;
    // Drawn from the left; once full, the oldest reading scrolls off.
    const points = [];
    values.forEach((value, i) => {
      if (chart.steps && i > 0) points.push(`${x(i)},${y(values[i - 1])}`);
      points.push(`${x(i)},${y(value)}`);
    });
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", `spark-line spark-line-${index}`);
    line.setAttribute("vector-effect", "non-scaling-stroke");
    shapes.push(line);
    // The newest reading as a dot: a lone blood pressure reading shows too.
    const dot = document.createElementNS(SVG, "circle");
    const last = values.length - 1;
    Object.entries({ cx: x(last), cy: y(values[last]), r: 3, class: `spark-dot spark-dot-${index}` }).forEach(([k, v]) => dot.setAttribute(k, v));
    shapes.push(dot);
  });
  svg.replaceChildren(...shapes);
  const main = chart.lines[0];
  if (main.length && !chart.fixed) {
    const unit = chart.unit ? ` ${chart.unit}` : "";
    svg.setAttribute("aria-label", `${chart.name} chart, last ${main.length} readings: from ${Math.min(...main)} to ${Math.max(...main)}${unit}`);
  } else if (main.length) {
    svg.setAttribute("aria-label", `${chart.name} chart of the last ${main.length} readings`);
  }
}

// --- live values ------------------------------------------------------------------

function showReading(latest, measuredAt) {
  if (latest.heart_rate !== undefined) {
    $("v-heart").textContent = latest.heart_rate;
    // A 0 bpm is a loose strap, not a heart rate: shown, but kept off the chart.
    if (latest.heart_rate > 0) push("heart_rate", latest.heart_rate);
  }
  if (latest.spo2 !== undefined) {
    $("v-spo2").textContent = Number(latest.spo2).toFixed(0);
    push("spo2", Number(latest.spo2));
  }
  if (latest.systolic_bp !== undefined && latest.diastolic_bp !== undefined) {
    $("v-bp").textContent = `${latest.systolic_bp}/${latest.diastolic_bp}`;
    push("blood_pressure", latest.systolic_bp, latest.diastolic_bp);
  }
  // A reading counts the steps since the one before, about a second earlier.
  const pace = Math.round((latest.steps ?? 0) * 60);
  $("v-steps").textContent = pace;
  push("steps", pace);
  const stage = latest.sleep_stage || "awake";
  $("v-sleep").textContent = STAGE_TEXT[stage] ?? stage;
  push("sleep", STAGES[stage] ?? 3);
  if (measuredAt) $("watch-last").textContent = `Last reading measured at ${clock(measuredAt, true)}.`;
  document.body.dataset.watchReadings = String(Number(document.body.dataset.watchReadings ?? 0) + 1);
}

async function loadRecent() {
  // The last few minutes, so a reload does not start from empty charts.
  const since = new Date(Date.now() - 5 * 60 * 1000).toISOString();
  try {
    const page = await api(`/api/vitals/?since=${encodeURIComponent(since)}`);
    for (const reading of [...page.results].reverse()) {
      const latest = {};
      for (const [key, value] of Object.entries(reading)) if (value !== null && value !== "") latest[key] = value;
      showReading(latest, reading.measured_at);
    }
  } catch {
    // The live feed fills the charts anyway.
  }
}

// --- the simulated watch ------------------------------------------------------------

function showError(text) {
  $("watch-error").textContent = text;
  $("watch-error").hidden = !text;
}

function render(state) {
  // A tick's event can arrive after the answer to a later Stop: keep the newest.
  if (feed && state.version < feed.version) return;
  feed = state;
  for (const button of document.querySelectorAll("[data-scenario]")) {
    button.setAttribute("aria-pressed", String(button.dataset.scenario === state.scenario));
  }
  const start = $("watch-start");
  const stop = $("watch-stop");
  const hadFocus = document.activeElement;
  start.disabled = state.running;
  stop.disabled = !state.running;
  // A disabled button loses focus: hand it to the other one.
  if (hadFocus === start && start.disabled) stop.focus();
  if (hadFocus === stop && stop.disabled) start.focus();
  const name = labels[state.scenario] ?? state.scenario;
  let text;
  if (state.running) {
    const until = state.stops_at ? ` It stops by itself at ${clock(state.stops_at)}.` : "";
    text = `Running: ${name}. ${state.readings} readings sent.${until}`;
  } else {
    text = `Stopped. Press Start to send “${name}” readings.${state.stopped_reason && state.stopped_reason !== "Stopped." ? ` ${state.stopped_reason}` : ""}`;
  }
  $("watch-state").textContent = text;
  $("v-steps-total").textContent = `Steps since the simulated watch started: ${state.steps}`;
  document.body.dataset.watchRunning = String(state.running);
}

async function control(body) {
  showError("");
  try {
    render(await api("/api/watch/simulator/", { method: "POST", body }));
  } catch (failure) {
    showError(failure.fields?.scenario?.join(" ") || failure.message);
  }
}

async function refresh() {
  try {
    const state = await api("/api/watch/simulator/");
    labels = Object.fromEntries(state.scenarios.map((s) => [s.name, s.label]));
    render(state);
  } catch (failure) {
    showError(failure.message);
  }
}

for (const button of document.querySelectorAll("[data-scenario]")) {
  labels[button.dataset.scenario] = button.querySelector(".scenario-label").textContent.trim();
  button.addEventListener("click", () => control({ scenario: button.dataset.scenario }));
}
$("watch-start").addEventListener("click", () => control({ running: true }));
$("watch-stop").addEventListener("click", () => control({ running: false }));

onEvent(EVENT.VITALS, (data) => showReading(data.latest ?? {}, data.measured_at));
onEvent(EVENT.WATCH, render);
onEvent(EVENT.RECONNECTED, refresh);
Object.keys(charts).forEach(draw);
refresh();
loadRecent();
