"""What every browser test shares: the system Chromium, and the checks a page must pass
in it (axe's accessibility rules, no sideways scroll on a phone)."""

from __future__ import annotations

import os
import shutil

import pytest
from axe_playwright_python.sync_playwright import Axe

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# The viewports a page is walked at: a laptop and a phone.
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# axe's impact levels that fail a page.
BLOCKING = ("critical", "serious")


def require_chromium() -> None:
    """Skip the calling module without Debian's Chromium; in CI its absence is a failure."""
    if os.path.exists(CHROMIUM):
        return
    if os.environ.get("CI") == "true":
        raise RuntimeError("Chromium is missing in CI: .ci/run installs Debian's chromium")
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)


# Chromium as the machine's probe starts it: no background connections (the network is
# closed, and they would be refused many at a time), no sandbox (tests run as root).
LAUNCH_ARGS = {
    "executable_path": CHROMIUM,
    "args": [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ],
}

_AXE = Axe()


def axe_violations(page, impacts=BLOCKING) -> list[str]:
    """axe-core's violations of the given impacts on the page as it is now, one line each:
    rule id, impact, how many nodes and the first node's selector."""
    results = _AXE.run(page).response
    return [
        f"{v['id']} ({v['impact']}, {len(v['nodes'])} nodes, e.g. {v['nodes'][0]['target']})"
        for v in results["violations"]
        if v["impact"] in impacts
    ]


def sideways_overflow(page) -> int:
    """How many CSS pixels the page is wider than its viewport (0: no sideways scroll)."""
    return page.evaluate(
        "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - document.documentElement.clientWidth"
    )


def page_faults(browser, site: str, urls, viewport: dict) -> tuple[dict[str, list[str]], list]:
    """Each page's axe violations (and, at phone width, its sideways scroll), by URL, and
    the console errors that name the Content Security Policy, over one browser context."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    faults = {}
    for url in urls:
        page.goto(f"{site}{url}")
        found = axe_violations(page)
        if viewport is PHONE and (overflow := sideways_overflow(page)):
            found.append(f"scrolls sideways by {overflow}px")
        if found:
            faults[url] = found
    context.close()
    return faults, [e for e in errors if "Content Security Policy" in e]
