"""Drives the page of `ask-user --mode web` in Debian's Chromium with Playwright, for tests/web.rs.

Usage: web_browser.py SCENARIO VIEWPORT LINK
  SCENARIO  answer | cancel | keyboard | fields | secrets | given | inbox | long
  VIEWPORT  phone | desktop
  LINK      the one-time link ask-user printed

Prints one JSON object with what the page showed; tests/web.rs checks it and ask-user's stdout.
The page holds the three example questions of tests/web.rs (Database, Features, Name), or for
`fields` the call of its canonical-fields test (Layout, Deploy, Config, Token), for `secrets` a
secret choice and a secret multi-select (Key, Scopes), for `given` the Claude Code call whose
answers the page shows pre-filled (Database, Features, Name).
"""

import json
import sys

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
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
INTERACTIVE = {"button", "tab", "radio", "checkbox", "textbox"}


def ax_controls(page):
    """Every interactive node of the accessibility tree, with its role and name."""
    cdp = page.context.new_cdp_session(page)
    tree = cdp.send("Accessibility.getFullAXTree")["nodes"]
    controls = []
    for node in tree:
        if node.get("ignored"):
            continue
        role = node.get("role", {}).get("value")
        if role in INTERACTIVE:
            controls.append({"role": role, "name": node.get("name", {}).get("value", "")})
    return controls


def tab_order(page, presses=40):
    """The ids (or text) of the elements Tab reaches, in order, starting from the top."""
    # Clicking the heading puts the start of sequential focus navigation at the top.
    page.locator("h1").click()
    seen = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        key = page.evaluate(
            "(() => { const e = document.activeElement;"
            " return e.id || e.getAttribute('role') + ':' + e.textContent.trim() || e.tagName })()"
        )
        if key in seen:
            break
        seen.append(key)
    return seen


def main():
    scenario, viewport, link = sys.argv[1], sys.argv[2], sys.argv[3]
    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport=VIEWPORTS[viewport])
        page = context.new_page()
        response = page.goto(link)
        seen["firstStatus"] = response.status
        if scenario == "inbox":
            # Two agents wait in `ask-user serve`: answer the second one's questions.
            page.get_by_text("2 asks are waiting for your answers.").wait_for()
            seen["askers"] = [t.split(" · ")[0] for t in page.locator(".asker").all_inner_texts()]
            beta = page.get_by_role("region", name="Questions 2 from beta")
            beta.get_by_role("radio", name="SQLite").check()
            beta.get_by_role("button", name="Next").first.click()
            beta.get_by_role("checkbox", name="REST API").check()
            beta.get_by_role("button", name="Next").first.click()
            beta.get_by_role("textbox", name="What should we name this service?").fill("from-the-page")
            beta.get_by_role("textbox", name="Note on this answer (optional)").fill("rename later")
            beta.get_by_role("tab", name="Submit").click()
            beta.get_by_role("button", name="Submit answers").click()
            page.get_by_text("Your answers were sent").first.wait_for()
            page.get_by_text("Your agent is waiting for your answers.").wait_for()
            browser.close()
            print(json.dumps(seen))
            return
        seen["url"] = page.url
        page.get_by_text("Your agent is waiting for your answers.").wait_for()
        seen["headers"] = {k: v for k, v in response.all_headers().items() if k == "content-security-policy"}
        seen["tabs"] = page.get_by_role("tab").all_inner_texts()
        # The link was spent by the first visit: another browser gets nothing from it.
        stranger = browser.new_context()
        other = stranger.new_page()
        spent = other.goto(link)
        seen["spentStatus"] = spent.status
        seen["spentText"] = other.inner_text("body")
        seen["strangerApi"] = other.goto(link.split("/?")[0] + "/api/asks").status
        stranger.close()
        # A second page of the same browser watches the live state.
        watcher = context.new_page()
        watcher.goto(link.split("?")[0])
        watcher.get_by_text("Your agent is waiting for your answers.").wait_for()
        # The person works in the first page: it is the one in front, as its tab would be, so
        # that focus and keys go where they would for a person.
        page.bring_to_front()
        seen["horizontalScroll"] = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        if scenario == "answer":
            page.get_by_role("radio", name="SQLite").check()
            # A note on the first answer, typed into its own labelled field.
            page.get_by_role("textbox", name="Note on this answer (optional)").first.fill("only for the tests")
            seen["recommendedBadge"] = page.locator(".badge").first.inner_text()
            page.get_by_role("button", name="Next").first.click()
            page.get_by_role("checkbox", name="Authentication").check()
            page.get_by_role("textbox", name="Your own answer to: Which features should we include?").fill("Audit log")
            page.get_by_role("button", name="Next").first.click()
            page.get_by_role("textbox", name="What should we name this service?").fill("order-processor")
            page.get_by_role("tab", name="Submit").click()
            seen["review"] = page.locator(".review").inner_text()
            seen["tabsAfter"] = page.get_by_role("tab").all_inner_texts()
            page.get_by_role("button", name="Submit answers").click()
            page.get_by_text("Your answers were sent").first.wait_for()
            watcher.locator("#asks").get_by_text("These questions were answered.").wait_for()
            seen["watcher"] = watcher.locator("#asks").inner_text()
        elif scenario == "cancel":
            page.get_by_role("radio", name="PostgreSQL (Recommended)").check()
            page.get_by_role("button", name="Cancel").click()
            seen["dialog"] = page.locator("#confirm-text").inner_text()
            page.get_by_role("button", name="No").click()
            seen["stillWaiting"] = page.get_by_role("radio", name="PostgreSQL (Recommended)").is_checked()
            page.keyboard.press("Escape")
            page.get_by_role("button", name="Yes").click()
            page.get_by_text("The questions were cancelled.").first.wait_for()
            watcher.locator("#asks").get_by_text("These questions were cancelled.").wait_for()
            seen["watcher"] = watcher.locator("#asks").inner_text()
        elif scenario == "keyboard":
            seen["controls"] = ax_controls(page)
            seen["order"] = tab_order(page)
            # Answer by keyboard alone: quick-select keys, arrows between tabs, Enter to submit.
            page.get_by_role("radio").first.focus()
            page.keyboard.press("2")
            page.keyboard.press("Enter")
            page.get_by_role("checkbox").first.focus()
            page.keyboard.press("1")
            page.keyboard.press("3")
            page.keyboard.press("Enter")
            page.keyboard.type("kb-service")
            page.keyboard.press("Enter")
            seen["focusedAfterLast"] = page.evaluate("document.activeElement.textContent")
            page.keyboard.press("Enter")
            page.get_by_text("Your answers were sent").first.wait_for()
        elif scenario == "long":
            page.get_by_role("textbox", name="What should we name this service?").fill("x" * 2001)
            seen["count"] = page.locator(".count").inner_text()
            page.get_by_role("button", name="Submit").click()
            seen["dialog"] = page.locator("#confirm-text").inner_text()
            page.get_by_role("button", name="No").click()
            seen["stillWaiting"] = page.get_by_role("button", name="Submit").is_visible()
            page.get_by_role("button", name="Submit").click()
            page.get_by_role("button", name="Yes").click()
            page.get_by_text("Your answers were sent").first.wait_for()
        elif scenario == "fields":
            seen["preview"] = page.locator("pre.preview").inner_text()
            seen["pwned"] = page.evaluate("window.pwned === 1")
            seen["boldElements"] = page.locator("b").count()
            page.get_by_role("radio", name="Sidebar").check()
            page.get_by_role("tab", name="Deploy, not answered").click()
            seen["yesNoRadios"] = [r.get_attribute("aria-labelledby") and r.evaluate("r => document.getElementById(r.getAttribute('aria-labelledby')).textContent")
                                   for r in page.get_by_role("radio").all()]
            page.get_by_role("radio", name="No").check()
            page.get_by_role("tab", name="Config, not answered").click()
            path = page.get_by_role("textbox", name="Where is the config?")
            seen["pathPlaceholder"] = path.get_attribute("placeholder")
            path.fill("./conf/app.toml")
            page.get_by_role("tab", name="Token, not answered").click()
            secret = page.get_by_label("What is the API token?")
            seen["secretType"] = secret.get_attribute("type")
            secret.fill("tok-123")
            # The secret's note is masked as its answer is.
            note = page.locator("#a0-q3-note")
            seen["secretNoteType"] = note.get_attribute("type")
            note.fill("expires friday")
            page.get_by_role("tab", name="Submit").click()
            seen["review"] = page.locator(".review").inner_text()
            page.get_by_role("button", name="Submit answers").click()
            page.get_by_text("Your answers were sent").first.wait_for()
        elif scenario == "secrets":
            # A secret option with a note, then a secret multi-select with typed Other text.
            page.get_by_role("radio", name="key-beta-9").check()
            note = page.locator("#a0-q0-note")
            seen["noteType"] = note.get_attribute("type")
            note.fill("rotated-today")
            page.get_by_role("button", name="Next").first.click()
            page.get_by_role("checkbox", name="scope-read").check()
            other = page.get_by_role("textbox", name="Your own answer to: Which scopes?")
            seen["otherType"] = other.get_attribute("type")
            other.fill("hunter2-scope")
            page.get_by_role("tab", name="Submit").click()
            seen["review"] = page.locator(".review").inner_text()
            page.get_by_role("button", name="Submit answers").click()
            page.get_by_text("Your answers were sent").first.wait_for()
        elif scenario == "given":
            # Nothing is touched: the page shows what the call carried, and Submit sends it.
            seen["selectedTab"] = page.locator("[role=tab][aria-selected=true]").inner_text()
            seen["review"] = page.locator(".review").inner_text()
            seen["checked"] = [
                page.locator(f"#{c.get_attribute('aria-labelledby') or c.get_attribute('id')}").inner_text().strip()
                if c.get_attribute("aria-labelledby")
                else page.locator(f"label[for={c.get_attribute('id')}]").inner_text().strip()
                for c in page.locator("input[type=radio]:checked, input[type=checkbox]:checked").all()
            ]
            seen["otherText"] = page.locator("#a0-q2-other-text").input_value()
            page.get_by_role("button", name="Submit answers").click()
            page.get_by_text("Your answers were sent").first.wait_for()
        browser.close()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
