// Server-side validation errors shown next to their fields (DRF's
// {"field": ["message"]}), announced, and the first bad field focused.

export function clearErrors(form) {
  for (const node of form.querySelectorAll("[data-error-for]")) {
    node.hidden = true;
    node.textContent = "";
  }
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  const general = form.querySelector("[data-form-error]");
  if (general) general.hidden = true;
}

export function showErrors(form, error) {
  clearErrors(form);
  let first = null;
  const unplaced = [];
  for (const [name, messages] of Object.entries(error.fields ?? {})) {
    const text = [].concat(messages).join(" ");
    const slot = form.querySelector(`[data-error-for="${name}"]`);
    const input = form.elements.namedItem(name);
    if (slot && input) {
      slot.textContent = text;
      slot.hidden = false;
      input.setAttribute("aria-invalid", "true");
      first ??= input;
    } else if (name !== "detail") {
      unplaced.push(text);
    }
  }
  const general = form.querySelector("[data-form-error]");
  if (general && (!first || unplaced.length)) {
    general.textContent = unplaced.length ? unplaced.join(" ") : error.message;
    general.hidden = false;
  }
  (first ?? general)?.focus?.();
}
