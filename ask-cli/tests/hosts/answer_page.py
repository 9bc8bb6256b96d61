"""Answers the questions waiting on an ask-user page in Debian's Chromium, as a person would.

Usage: answer_page.py LINK ANSWERS_JSON

LINK is the one-time link (http://127.0.0.1:PORT/#token=...), read from where the person saw
it; ANSWERS_JSON lists one answer per question in order: an option's label, or a list of
labels for a multi-select question. The script opens the link in headless Chromium (through
Playwright), picks each answer, moves on with Next, submits on the review, and waits for the
page to say the answers were sent. It prints what the page said and exits 0 only then.

With ANSWER_WHEN set to a path, it answers only once that file exists (at most 60 seconds after
the page showed the questions): the test says when, having seen what it waits for.
"""

import json
import os
import pathlib
import sys
import time

from playwright.sync_api import sync_playwright

# Chromium and its flags, as the page's own browser tests start it.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from web_browser import ARGS, CHROMIUM  # noqa: E402


def main(link, answers):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.goto(link)
        page.get_by_text("Your agent is waiting for your answers.").wait_for(timeout=20_000)
        when = os.environ.get("ANSWER_WHEN")
        if when:
            deadline = time.monotonic() + 60
            while not os.path.exists(when):
                if time.monotonic() > deadline:
                    raise SystemExit(f"{when} never appeared")
                time.sleep(0.1)
        for n, answer in enumerate(answers):
            if isinstance(answer, list):
                for label in answer:
                    page.get_by_role("checkbox", name=label, exact=True).check()
            else:
                page.get_by_role("radio", name=answer, exact=True).check()
            if n + 1 < len(answers):
                page.get_by_role("button", name="Next").first.click()
        page.get_by_role("tab", name="Submit").click()
        page.get_by_role("button", name="Submit answers").click()
        sent = page.get_by_text("Your answers were sent").first
        sent.wait_for(timeout=20_000)
        print(sent.inner_text())
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], [a["answer"] for a in json.loads(sys.argv[2])]))
