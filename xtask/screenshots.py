"""Saves the main screens of the web page (`ask-user --mode web`) under docs/screenshots/.

Run by `cargo xtask screenshots`, which builds ask-user first. Needs Debian's chromium and
Playwright for Python (ask-cli/tests/requirements.txt), as the browser tests do.

Usage: screenshots.py ASK_USER OUTDIR
"""

import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1000, "height": 720}


def ask(binary, call):
    """Starts `ask-user --mode web CALL` and gives the process and its link."""
    process = subprocess.Popen(
        [binary, "--mode", "web", call],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    line = process.stderr.readline()
    return process, line.strip().rsplit(" ", 1)[-1]


def main():
    binary, outdir = sys.argv[1], Path(sys.argv[2])
    outdir.mkdir(parents=True, exist_ok=True)
    screens = [
        # (file, call, viewport, colour scheme, the browser's language, what to do before the shot)
        ("web-question-desktop-light.png", "examples/project-setup.json", DESKTOP, "light", "en", None),
        ("web-multi-select-phone-dark.png", "examples/features.json", PHONE, "dark", "en", "multi"),
        ("web-review-desktop-dark.png", "examples/project-setup.json", DESKTOP, "dark", "en", "review"),
        ("web-question-phone-de-light.png", "examples/project-setup.json", PHONE, "light", "de", None),
        ("web-sent-desktop-es-dark.png", "examples/features.json", DESKTOP, "dark", "es", "send"),
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for name, call, viewport, scheme, lang, action in screens:
            process, link = ask(binary, call)
            try:
                page = browser.new_context(
                    viewport=viewport, color_scheme=scheme, extra_http_headers={"Accept-Language": lang},
                ).new_page()
                page.goto(link)
                page.locator(".actions").wait_for()
                if action == "multi":
                    page.get_by_role("checkbox").first.check()
                    page.get_by_role("checkbox").nth(2).check()
                elif action == "review":
                    page.get_by_role("radio").first.check()
                    page.get_by_role("button", name="Next").first.click()
                    page.get_by_role("textbox").first.fill("order-processor")
                    page.get_by_role("tab", name="Submit").click()
                elif action == "send":
                    page.get_by_role("checkbox").first.check()
                    page.locator(".actions button.primary").click()
                    page.locator(".outcome").wait_for()
                page.screenshot(path=str(outdir / name), full_page=True)
                print(outdir / name)
            finally:
                process.kill()
                process.wait()
        browser.close()


if __name__ == "__main__":
    main()
