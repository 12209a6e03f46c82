/* Code with Papers: the few things htmx's attributes do not say. Every page works
   without this file (links and forms are real); with it, the search form, the URL, the
   history and the keyboard focus keep in step with what htmx swaps in. */
(function () {
  "use strict";

  const FLAG_ON = ["1", "true", "on", "yes"];

  // Empty fields are not sent: a pushed URL reads ?q=graph, not ?q=graph&task=&sort=.
  document.addEventListener("htmx:configRequest", function (event) {
    const data = event.detail.formData;
    for (const name of Array.from(new Set(data.keys()))) {
      if (data.getAll(name).every(function (value) { return value === ""; })) {
        data.delete(name);
      }
    }
  });

  // One history entry per settled query: the first request of a spell of typing in the
  // search box pushes an entry, the next ones replace it. The spell ends when anything
  // else updates the history, when the box loses focus, or on Back/Forward.
  let typing = false;
  document.addEventListener("htmx:beforeHistoryUpdate", function (event) {
    const elt = event.detail.requestConfig && event.detail.requestConfig.elt;
    const fromBox = Boolean(elt && elt.id === "q");
    if (fromBox && typing && event.detail.history.type === "push") {
      event.detail.history.type = "replace";
    }
    typing = fromBox;
  });
  document.addEventListener("focusout", function (event) {
    if (event.target.id === "q") typing = false;
  });

  // The form says what the URL says: after Back/Forward (htmx restores the results from
  // its snapshot, where inputs keep the values they were rendered with), after a facet
  // or suggestion link, and when the browser brings a page back. The field being typed
  // in is left alone.
  function syncForms(all) {
    const params = new URLSearchParams(location.search);
    document.querySelectorAll("form[data-sync-url]").forEach(function (form) {
      for (const field of form.elements) {
        if (!field.name || (field === document.activeElement && all !== true)) continue;
        if (field.type === "checkbox" || field.type === "radio") {
          // A flag (value "1") is on however the URL spells it: the server reads
          // has_code=on, =true and =yes as it reads =1 (papers.forms.Flag).
          const values = params.getAll(field.name);
          field.checked = values.includes(field.value) || (field.value === "1" &&
            values.some(function (v) { return FLAG_ON.includes(v.toLowerCase()); }));
        } else if (field.type !== "submit" && field.type !== "button") {
          field.value = params.get(field.name) || "";
        }
      }
    });
  }
  function restored() {
    typing = false;
    syncForms(true);
  }
  document.addEventListener("htmx:historyRestore", restored);
  window.addEventListener("pageshow", restored);
  document.addEventListener("htmx:pushedIntoHistory", function () { syncForms(false); });

  // The filters come open (so they show without JavaScript too); a phone folds them
  // behind their summary unless one is in use.
  function foldOnPhones() {
    if (window.matchMedia("(min-width: 700px)").matches) return;
    document.querySelectorAll("details[data-fold-on-phones]").forEach(function (details) {
      details.open = false;
    });
  }
  document.addEventListener("DOMContentLoaded", foldOnPhones);

  // After a swap the keyboard stays where it was: a new page of results scrolls to
  // their top and puts focus on what the pager names (data-focus: the results' heading);
  // a chip that filtered a sample list is focused again in the list that replaced it.
  document.addEventListener("htmx:afterSettle", function (event) {
    const elt = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (!elt || !elt.closest) return;
    const pager = elt.closest("[data-focus]");
    if (pager) {
      const focus = document.getElementById(pager.getAttribute("data-focus"));
      if (focus) {
        focus.scrollIntoView({ block: "start" });
        focus.focus({ preventScroll: true });
      }
      return;
    }
    const chip = elt.getAttribute("data-chip");
    if (chip) {
      const again = document.querySelector('[data-chip="' + CSS.escape(chip) + '"]');
      if (again) again.focus();
    }
  });
})();
