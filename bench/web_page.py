"""From `ask-user --mode web` start to the questions rendered in an already-running browser page.

Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) is started once and keeps
one page open. Each run then starts `ask-user --mode web CALL` (three questions: single choice,
multi-select, free text), reads the one-time link from its stderr, sends the waiting page to it
and stops the clock when the first question's text is in the page (the time a mutation observer
in the page notes, on the same wall clock): the link spent for a session
cookie, the redirect followed, the page, its script and style loaded, and the asks fetched and
drawn. Prints two Markdown table rows: the median start-to-link time (the process alone) and the
median start-to-rendered time.

Usage: target/ci-venv/bin/python bench/web_page.py [--bin PATH] [--runs N]
Needs Playwright for Python from ask-cli/tests/requirements.txt:
  python3 -m venv target/ci-venv && target/ci-venv/bin/pip install -r ask-cli/tests/requirements.txt
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
# The flags that keep Chromium quiet on a machine with no outside network.
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CALL = {"questions": [
    {"question": "Which database should we use?", "header": "Database", "options": [
        {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
        {"label": "SQLite", "description": "Lightweight, file-based"}]},
    {"question": "Which features should we include?", "header": "Features", "multiSelect": True, "options": [
        {"label": "Authentication", "description": "Users and sessions"},
        {"label": "REST API", "description": "HTTP endpoints"},
        {"label": "Admin panel", "description": "A page for operators"}]},
    {"question": "What should we name this service?", "header": "Name"},
]}
PREFIX = "answer the questions in a browser (the link works in one browser): "
# Runs in every document the page loads: notes the wall-clock time at which the first question's
# text is first in the document, from a mutation observer (no polling interval in the figure).
WATCH = """
(() => {
  const text = "Which database should we use?";
  const seen = () => document.body && document.body.innerText.includes(text);
  const note = () => { if (!window.__shownAt && seen()) window.__shownAt = Date.now(); };
  new MutationObserver(note).observe(document, {childList: true, subtree: true, characterData: true});
})();
"""


def figures(binary, runs):
    """Median milliseconds from start to the printed link, and from start to the rendered page."""
    to_link, to_page = [], []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        call = os.path.join(folder, "call.json")
        with open(call, "w") as file:
            json.dump(CALL, file)
        # Session logs and runtime files of the runs stay in the temporary folder.
        env = dict(os.environ, HOME=folder, XDG_STATE_HOME=folder, XDG_RUNTIME_DIR=folder,
                   XDG_DATA_HOME=folder, XDG_CONFIG_HOME=folder)
        for var in ("ASK_USER_PENDING_FILE", "ASK_USER_SUBAGENT", "ASK_USER_SESSION", "ASK_USER_HOST"):
            env.pop(var, None)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.add_init_script(WATCH)
        page.goto("about:blank")
        # One uncounted run first: the binary in the page cache, the browser's caches warm.
        for run in range(runs + 1):
            start = time.time()
            child = subprocess.Popen([binary, "--mode", "web", call], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                line = child.stderr.readline()
                linked = time.time()
                if PREFIX not in line:
                    raise RuntimeError(f"ask-user printed no link: {line!r}")
                link = line.split(PREFIX, 1)[1].strip()
                page.goto(link, wait_until="commit")
                rendered = page.wait_for_function("window.__shownAt").json_value() / 1000
            finally:
                child.kill()
                child.wait()
                child.stderr.close()
            if run:
                to_link.append((linked - start) * 1000)
                to_page.append((rendered - start) * 1000)
            page.goto("about:blank")
        browser.close()
    return statistics.median(to_link), statistics.median(to_page)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/dist/ask-user")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    link, page = figures(args.bin, args.runs)
    print(f"| ask-user --mode web: start to the link on stderr | {link:.2f} ms |  |  | — |  |")
    print(f"| ask-user --mode web: start to the questions rendered in a running headless Chromium page"
          f" | {page:.2f} ms |  |  | — |  |")


if __name__ == "__main__":
    main()
