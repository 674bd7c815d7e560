// Soft SOS banners on every page: abnormal vitals the monitor flagged, with
// Acknowledge (I have seen it: the banner closes, a one-line confirmation
// stays on this page) and Escalate (send for help: a hard SOS). Only alerts
// still waiting for the patient get a banner: an acknowledged one stays listed
// on the Home page until the episode ends; a resolved or cancelled one is gone. The text is the alert's notification
// as the server worded it (the API's "notice").
import { api, el } from "./api.js";
import { EVENT, onEvent } from "./events.js";

const container = document.getElementById("alert-banners");
// After Acknowledge: one short line in place of the banner, on this page only.
const status = el("p", { class: "banner-done", role: "status" });

function banner(alert) {
  const notice = alert.notice ?? {};
  const error = el("p", { class: "field-error", role: "alert", hidden: true });
  const headingId = `alert-${alert.id}-title`;
  const act = async (path, after) => {
    try {
      await api(path, { method: "POST" });
      after();
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  };
  const acknowledge = () =>
    act(`/api/alerts/${alert.id}/acknowledge/`, () => {
      node.remove();
      status.textContent = `Acknowledged: ${(notice.title || "the alert").replace(/^Alert: /, "")}. The watch keeps checking; the alert ends when your vitals are back to normal.`;
      status.hidden = false;
      refresh();
    });
  const node = el(
    "section",
    { class: "banner", role: "region", "aria-label": "Health alert", "aria-describedby": headingId, "data-alert": alert.id },
    el("h2", { id: headingId }, notice.title || "Your vitals need attention"),
    el("p", {}, alert.summary || "An abnormal reading was detected."),
    notice.vitals?.length ? el("p", { class: "banner-vitals" }, notice.vitals.join(" · ")) : null,
    notice.advice ? el("p", {}, notice.advice) : null,
    el(
      "div",
      { class: "banner-actions" },
      el("button", { type: "button", class: "secondary", onclick: acknowledge }, "Acknowledge"),
      el(
        "button",
        { type: "button", class: "danger", onclick: () => act(`/api/sos/${alert.id}/escalate/`, () => location.assign("/sos/")) },
        "Escalate: send for help",
      ),
    ),
    error,
  );
  return node;
}

async function refresh() {
  try {
    const page = await api("/api/alerts/?kind=soft&state=open");
    if (!status.textContent) status.hidden = true;
    container.replaceChildren(...page.results.map(banner), status);
  } catch {
    // Banners are a convenience; the home page lists open alerts too.
  }
}

if (container) {
  refresh();
  onEvent(EVENT.ALERT, refresh);
  onEvent(EVENT.RECONNECTED, refresh);
}
