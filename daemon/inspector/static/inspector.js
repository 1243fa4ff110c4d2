// The inspector's keyboard: 1-7 open the pages, "/" goes to the search field, j/k move between
// rows, Enter opens the focused row, and on the Review page a/r/v press the focused row's
// approve, reject and validate buttons. Fields marked data-autosubmit submit their form when
// they change (the time-travel slider, the namespace list). Nothing here is needed to use the
// pages: every action is a plain link or form.
"use strict";

function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));
}

function rows() {
  return Array.from(document.querySelectorAll("[data-row]"));
}

function currentRow() {
  return rows().find((row) => row.classList.contains("current")) || null;
}

function focusRow(row) {
  for (const other of rows()) other.classList.remove("current");
  row.classList.add("current");
  if (!row.hasAttribute("tabindex")) row.setAttribute("tabindex", "-1");
  row.focus();
}

function moveRow(step) {
  const all = rows();
  if (all.length === 0) return;
  const at = all.indexOf(currentRow());
  const next = at < 0 ? (step > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, at + step));
  focusRow(all[next]);
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  const key = event.key;
  const nav = document.querySelector(`header nav a[data-key="${key}"]`);
  if (nav) { event.preventDefault(); nav.click(); return; }
  if (key === "/") {
    const search = document.querySelector("[data-search]");
    if (search) { event.preventDefault(); search.focus(); search.select(); }
    return;
  }
  if (key === "j" || key === "k") { event.preventDefault(); moveRow(key === "j" ? 1 : -1); return; }
  const row = document.activeElement instanceof HTMLElement ? document.activeElement.closest("[data-row]") : null;
  if (!row) return;
  if (key === "Enter" && document.activeElement === row) {
    const link = row.querySelector("a.row-link");
    if (link) { event.preventDefault(); link.click(); }
    return;
  }
  const button = row.querySelector(`button[data-action="${key}"]`);
  if (button) { event.preventDefault(); button.click(); }
});

document.addEventListener("focusin", (event) => {
  const row = event.target instanceof HTMLElement ? event.target.closest("[data-row]") : null;
  if (row) { for (const other of rows()) other.classList.toggle("current", other === row); }
});

for (const field of document.querySelectorAll("[data-autosubmit]")) {
  field.addEventListener("change", () => field.form && field.form.requestSubmit());
  const shows = field.getAttribute("data-shows");
  const output = shows ? document.getElementById(shows) : null;
  if (output) field.addEventListener("input", () => { output.textContent = field.value; });
}
