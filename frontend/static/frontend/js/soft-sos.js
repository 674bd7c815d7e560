// Soft SOS banners on every page: abnormal vitals the monitor flagged, with
// Acknowledge (I have seen it) and Escalate (send for help: a hard SOS).
import { api, el } from "./api.js";
import { onEvent } from "./events.js";

const container = document.getElementById("alert-banners");

function banner(alert) {
  const error = el("p", { class: "field-error", role: "alert", hidden: true });
  const act = async (path, after) => {
    try {
      await api(path, { method: "POST" });
      after();
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  };
  const acknowledged = alert.state === "acknowledged";
  return el(
    "section",
    { class: "banner", role: "region", "aria-label": "Health alert", "data-alert": alert.id },
    el("h2", {}, "Your vitals need attention"),
    el("p", {}, alert.summary || alert.condition || "An abnormal reading was detected."),
    el(
      "div",
      { class: "banner-actions" },
      acknowledged
        ? el("span", { class: "muted" }, "Seen.")
        : el("button", { type: "button", class: "secondary", onclick: () => act(`/api/alerts/${alert.id}/acknowledge/`, refresh) }, "Acknowledge"),
      el(
        "button",
        { type: "button", class: "danger", onclick: () => act(`/api/sos/${alert.id}/escalate/`, () => location.assign("/sos/")) },
        "Escalate: send for help",
      ),
    ),
    error,
  );
}

async function refresh() {
  try {
    const page = await api("/api/alerts/?kind=soft");
    container.replaceChildren(...page.results.filter((a) => a.is_active).map(banner));
  } catch {
    // Banners are a convenience; the home page lists open alerts too.
  }
}

if (container) {
  refresh();
  onEvent("alert", refresh);
  onEvent("reconnected", refresh);
}
