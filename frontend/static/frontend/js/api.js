// fetch() wrapper for the REST API: same-origin session cookie, the CSRF token
// Django put in the page, JSON in and out, and errors as readable messages.

const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";

export class ApiError extends Error {
  constructor(status, data) {
    super(messageFrom(status, data));
    this.status = status;
    // Field errors as DRF sends them: {"phone": ["This phone number is not valid."]}.
    this.fields = data && typeof data === "object" && !Array.isArray(data) ? data : {};
  }
}

function messageFrom(status, data) {
  if (data && typeof data.detail === "string") return data.detail;
  if (data && Array.isArray(data.non_field_errors)) return data.non_field_errors.join(" ");
  if (status === 0) return "The app could not be reached. Check that it is still running.";
  if (status === 400) return "Please correct the highlighted fields.";
  if (status === 403) return "You are signed out. Please sign in again.";
  if (status >= 500) return "Something went wrong on this device's server. Please try again.";
  return `The request failed (${status}).`;
}

export async function api(path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, null);
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// Build a DOM element: el("p", {class: "x"}, "text", child). Text is never parsed
// as HTML: messages come from users and the model.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// Times are shown in the patient's profile time zone, the one the assistant
// speaks in, whatever zone this browser is set to.
function formatter(options) {
  const timeZone = document.body.dataset.timezone || undefined;
  try {
    return new Intl.DateTimeFormat(undefined, { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat(undefined, options);
  }
}

export function formatWhen(iso) {
  return iso ? formatter({ weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" }).format(new Date(iso)) : "";
}

// A calendar date as the tools write it ("2024-11-30"), spelled out.
export function formatDay(ymd) {
  const [year, month, day] = String(ymd).split("-").map(Number);
  if (!year || !month || !day) return String(ymd ?? "");
  const noonUtc = new Date(Date.UTC(year, month - 1, day, 12));
  return new Intl.DateTimeFormat(undefined, { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }).format(noonUtc);
}
