// The profile page: home location, time zone, SMS opt-ins and the emergency
// contacts, saved through the API; the server's validation is the authority.
import { api, el } from "./api.js";
import { clearErrors, showErrors } from "./forms.js";

const $ = (id) => document.getElementById(id);
const profileForm = $("profile-form");
const contactForm = $("contact-form");
let editing = null; // the contact being edited, or null when adding

// --- profile ------------------------------------------------------------------

function fillTimezones(selected) {
  const select = $("p-timezone");
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  if (selected && !zones.includes(selected)) zones.unshift(selected);
  select.replaceChildren(...zones.map((zone) => el("option", { value: zone, selected: zone === selected }, zone)));
}

async function loadProfile() {
  try {
    const profile = await api("/api/profile/");
    profileForm.elements.phone.value = profile.phone ?? "";
    profileForm.elements.home_address.value = profile.home_address ?? "";
    profileForm.elements.home_latitude.value = profile.home_latitude ?? "";
    profileForm.elements.home_longitude.value = profile.home_longitude ?? "";
    profileForm.elements.sms_opt_in.checked = Boolean(profile.sms_opt_in);
    profileForm.elements.reminder_sms.checked = Boolean(profile.reminder_sms);
    profileForm.elements.tell_carer_of_missed_doses.checked = Boolean(profile.tell_carer_of_missed_doses);
    profileForm.elements.report_time.value = (profile.report_time ?? "").slice(0, 5); // "20:00:00" -> "20:00"
    fillTimezones(profile.timezone);
  } catch (error) {
    showErrors(profileForm, error);
  }
}

const numberOrNull = (text) => (text.trim() === "" ? null : Number(text));

profileForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const f = profileForm.elements;
  $("profile-saved").hidden = true;
  clearErrors(profileForm);
  try {
    await api("/api/profile/", {
      method: "PATCH",
      body: {
        phone: f.phone.value.trim(),
        home_address: f.home_address.value.trim(),
        home_latitude: numberOrNull(f.home_latitude.value),
        home_longitude: numberOrNull(f.home_longitude.value),
        timezone: f.timezone.value,
        sms_opt_in: f.sms_opt_in.checked,
        reminder_sms: f.reminder_sms.checked,
        tell_carer_of_missed_doses: f.tell_carer_of_missed_doses.checked,
        ...(f.report_time.value ? { report_time: f.report_time.value } : {}),
      },
    });
    $("profile-saved").hidden = false;
    await loadProfile(); // show the number as the server stored it (E.164)
  } catch (error) {
    showErrors(profileForm, error);
  }
});

$("use-location").addEventListener("click", () => {
  if (!navigator.geolocation) return;
  navigator.geolocation.getCurrentPosition((position) => {
    profileForm.elements.home_latitude.value = position.coords.latitude.toFixed(5);
    profileForm.elements.home_longitude.value = position.coords.longitude.toFixed(5);
  });
});

// --- emergency contacts ------------------------------------------------------

function contactItem(contact) {
  return el(
    "li",
    { class: "contact", "data-id": contact.id },
    el("strong", {}, contact.name),
    contact.relation ? ` (${contact.relation})` : "",
    el("br"),
    el("span", {}, contact.phone),
    el("span", { class: "muted" }, ` · priority ${contact.priority}`),
    contact.is_carer ? el("span", { class: "muted" }, " · carer") : "",
    el(
      "div",
      { class: "contact-actions" },
      el("button", { type: "button", class: "secondary", onclick: () => startEditing(contact), "aria-label": `Edit ${contact.name}` }, "Edit"),
      el("button", { type: "button", class: "danger", onclick: () => remove(contact), "aria-label": `Delete ${contact.name}` }, "Delete"),
    ),
  );
}

async function loadContacts() {
  try {
    const page = await api("/api/emergency-contacts/");
    $("contact-list").replaceChildren(...page.results.map(contactItem));
    $("contacts-empty").hidden = page.results.length > 0;
    $("contacts-error").hidden = true;
  } catch (error) {
    $("contacts-error").textContent = `Your contacts could not be loaded: ${error.message}`;
    $("contacts-error").hidden = false;
  }
}

function startEditing(contact) {
  editing = contact;
  const f = contactForm.elements;
  f.name.value = contact.name;
  f.relation.value = contact.relation ?? "";
  f.phone.value = contact.phone;
  f.priority.value = contact.priority;
  f.is_carer.checked = Boolean(contact.is_carer);
  clearErrors(contactForm);
  $("contact-form-h").textContent = `Edit ${contact.name}`;
  $("contact-submit").textContent = "Save contact";
  $("contact-cancel").hidden = false;
  f.name.focus();
}

function stopEditing() {
  editing = null;
  contactForm.reset();
  clearErrors(contactForm);
  $("contact-form-h").textContent = "Add a contact";
  $("contact-submit").textContent = "Add contact";
  $("contact-cancel").hidden = true;
}

async function remove(contact) {
  if (!window.confirm(`Delete ${contact.name} from your emergency contacts?`)) return;
  try {
    await api(`/api/emergency-contacts/${contact.id}/`, { method: "DELETE" });
    if (editing?.id === contact.id) stopEditing();
    await loadContacts();
  } catch (error) {
    $("contacts-error").textContent = `Could not delete ${contact.name}: ${error.message}`;
    $("contacts-error").hidden = false;
  }
}

contactForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const f = contactForm.elements;
  const body = {
    name: f.name.value.trim(),
    relation: f.relation.value.trim(),
    phone: f.phone.value.trim(),
    priority: f.priority.value === "" ? 1 : Number(f.priority.value),
    is_carer: f.is_carer.checked,
  };
  try {
    if (editing) await api(`/api/emergency-contacts/${editing.id}/`, { method: "PUT", body });
    else await api("/api/emergency-contacts/", { method: "POST", body });
    stopEditing();
    await loadContacts();
  } catch (error) {
    showErrors(contactForm, error);
  }
});
$("contact-cancel").addEventListener("click", stopEditing);

loadProfile();
loadContacts();
