/* "Copy badge" on a paper page: the Markdown and HTML are plain selectable text in
   readonly fields without this file; with it, each field gets a button that copies it
   and says so (for screen readers too, through the polite status beside it). */
(function () {
  "use strict";

  function copied(button, text) {
    const status = button.closest(".badge-copy-body");
    const region = status && status.querySelector(".copy-status");
    if (region) region.textContent = text;
  }

  function reveal(root) {
    root.querySelectorAll(".copy-button[hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest(".copy-button");
    if (!button) return;
    const field = document.getElementById(button.dataset.copy);
    if (!field) return;
    field.focus();
    field.select();
    const done = function () { copied(button, "Copied to the clipboard."); };
    const fallback = function () {
      // Older browsers, or a page not served over HTTPS: the text is selected.
      try {
        if (document.execCommand("copy")) { done(); return; }
      } catch (error) { /* the selection stays for Ctrl+C */ }
      copied(button, "Selected: press Ctrl+C (⌘C) to copy.");
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, fallback);
    } else {
      fallback();
    }
  });

  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:afterSettle", function (event) { reveal(event.target); });
})();
