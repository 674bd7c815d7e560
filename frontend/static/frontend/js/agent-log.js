// The agent log: one collapsible entry per trajectory state (planner reason and
// action, caller tool call, observation), with latency and token counts.
import { el } from "./api.js";

const HIDDEN_KEY = "agentLog.hidden";
const ROLE_LABELS = { user: "User", planner: "Planner", caller: "Caller", observation: "Observation" };

function cost(step) {
  const parts = [];
  if (step.latency_ms !== null && step.latency_ms !== undefined) parts.push(`${step.latency_ms} ms`);
  if (step.prompt_tokens !== null && step.prompt_tokens !== undefined) {
    parts.push(`${step.prompt_tokens} prompt + ${step.completion_tokens ?? 0} completion tokens`);
  }
  return parts.join(" · ");
}

function json(value) {
  return el("pre", { class: "json" }, JSON.stringify(value, null, 2));
}

function summaryText(step) {
  const value = step.value ?? {};
  if (step.role === "user") return String(value);
  if (step.role === "planner") return value.action === "<END>" ? "Done" : value.action ?? "";
  if (step.role === "caller") return value.tool ? `${value.tool}(…)` : "unusable output";
  if (step.role === "observation") return "error" in value ? `Error: ${value.error}` : "Result";
  return "";
}

function body(step) {
  const value = step.value ?? {};
  if (step.role === "user") return [el("p", {}, String(value))];
  if (step.role === "planner") {
    return [el("p", {}, el("strong", {}, "Reason: "), value.reason || "—"), el("p", {}, el("strong", {}, "Action: "), value.action ?? "")];
  }
  if (step.role === "caller") {
    if (!value.tool) return [el("p", {}, "The caller's output could not be parsed:"), el("pre", { class: "json" }, value.raw ?? "")];
    return [el("p", {}, el("strong", {}, "Tool: "), el("code", {}, value.tool)), el("p", {}, el("strong", {}, "Arguments:")), json(value.parameters ?? {})];
  }
  return [json("error" in value ? { error: value.error } : value.result)];
}

export class AgentLog {
  constructor(list, empty) {
    this.list = list;
    this.empty = empty;
    this.seen = new Set();
  }

  reset() {
    this.list.replaceChildren();
    this.seen.clear();
    this.empty.hidden = false;
  }

  add(step) {
    if (step.role === "system" || this.seen.has(step.index)) return;
    this.seen.add(step.index);
    const meta = cost(step);
    const entry = el(
      "li",
      { class: `log-entry role-${step.role}${step.value && step.value.error !== undefined ? " is-error" : ""}`, "data-index": step.index },
      el(
        "details",
        // Reasons are what a curious patient reads first; calls and results stay folded.
        { open: step.role === "planner" },
        el("summary", {}, el("span", { class: "log-role" }, ROLE_LABELS[step.role] ?? step.role), " ", el("span", { class: "log-summary" }, summaryText(step))),
        ...body(step),
        meta ? el("p", { class: "log-meta" }, meta) : null,
      ),
    );
    // Steps can arrive out of order (live events racing a refetch): keep index order.
    const later = [...this.list.children].find((node) => Number(node.dataset.index) > step.index);
    this.list.insertBefore(entry, later ?? null);
    this.empty.hidden = true;
  }
}

// The show/hide toggle, remembered across visits: many patients never want the log.
export function setupLogToggle(button, panel, layout) {
  const apply = (hidden) => {
    panel.hidden = hidden;
    layout.classList.toggle("log-hidden", hidden);
    button.setAttribute("aria-expanded", String(!hidden));
    button.textContent = hidden ? "Show agent log" : "Hide agent log";
  };
  apply(localStorage.getItem(HIDDEN_KEY) === "true");
  button.addEventListener("click", () => {
    const hidden = !panel.hidden;
    localStorage.setItem(HIDDEN_KEY, String(hidden));
    apply(hidden);
  });
}
