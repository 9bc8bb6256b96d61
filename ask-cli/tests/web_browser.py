"""Drives the page of `ask-user --mode web` in Debian's Chromium with Playwright, for tests/it/web.rs.

Usage: web_browser.py SCENARIO VIEWPORT LINK [LINK2 | ACCEPT_LANGUAGE | LIST]
  SCENARIO  answer | cancel | keyboard | fields | secrets | given | inbox | saved | again | long | cap |
            layout | two | words | reopen | full |
            other-label | long-review | escape | boxes | none
  VIEWPORT  phone | desktop
  LINK      the one-time link ask-user printed
  LINK2     for `two`: the link of a second `ask-user --mode web`, answered in a second tab
  ACCEPT_LANGUAGE  for `words`: the browser's Accept-Language header, or `-` for Chromium's own
  LIST      for `full`: the inbox's list (`GET /api/asks`), which the page is told with every ask
            away and the inbox full, after being told it fell behind

Prints one JSON object with what the page showed; tests/it/web.rs checks it and ask-user's stdout.
The page holds the three example questions of tests/it/web.rs (Database, Features, Name), or for
`fields` the call of its canonical-fields test (Layout, Deploy, Config, Token), for `secrets` a
secret choice and a secret multi-select (Key, Scopes), for `given` the Claude Code call whose
answers the page shows pre-filled (Database, Features, Name), for `boxes` one option whose
preview is drawn with box-drawing characters.
`reopen` closes the tab of LINK and opens LINK again in the same browser, answers there, prints a
JSON line, then reads from stdin the link of a later `ask-user --mode web` on the same port, and
prints a second JSON line.
`saved` and `again` answer the one ask of agent alpha in `ask-user serve`; `again` prints the line
`form` once the form shows and `ended` once the ask ended, and the test acts on each, so its
JSON is the last line.
"""

import http.server
import json
import struct
import sys
import threading
import zlib

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
# The widths the layout is measured at: a phone, the narrowest tablet, a desktop.
WIDTHS = [390, 600, 1280]
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


def answer_three(page, name):
    """Answers the three example questions on `page` (Database, Features, Name) with `name`."""
    submit_three(page, name)
    page.get_by_text("Your answers were sent").first.wait_for()


def submit_three(page, name):
    """Fills in the three example questions in `page` (a page or one ask of it) with `name` and
    submits them."""
    page.get_by_role("radio", name="SQLite").check()
    page.get_by_role("button", name="Next").first.click()
    page.get_by_role("checkbox", name="REST API").check()
    page.get_by_role("button", name="Next").first.click()
    page.get_by_role("textbox", name="What should we name this service?").fill(name)
    page.get_by_role("tab", name="Submit").click()
    page.get_by_role("button", name="Submit answers").click()


def boxes(page, names):
    """The bounding boxes of the visible buttons named `names`, in that order."""
    return [page.get_by_role("button", name=name, exact=True).bounding_box() for name in names]


def words(browser, viewport, link, accept):
    """Answers the three example questions in whatever language the page speaks, choosing the
    recommended option, and gives every word the page showed on the way."""
    headers = {} if accept == "-" else {"Accept-Language": accept}
    context = browser.new_context(viewport=VIEWPORTS[viewport], extra_http_headers=headers)
    page = context.new_page()
    page.goto(link)
    page.locator(".actions").wait_for()
    seen = {
        "lang": page.evaluate("document.documentElement.lang"),
        "title": page.title(),
        "heading": page.locator("h1").inner_text(),
        "status": page.locator("#status").inner_text(),
        "tabs": page.get_by_role("tab").all_inner_texts(),
        "buttons": page.locator(".actions button:visible").all_inner_texts(),
        "noteLabel": page.locator(".note-label").first.inner_text(),
        "radios": page.locator("fieldset:visible .option .label").all_inner_texts(),
    }
    page.get_by_role("radio").first.check()
    page.locator(".actions button.primary:visible").click()
    page.get_by_role("checkbox").first.check()
    seen["hint"] = page.locator("p.hint:visible").inner_text()
    page.locator(".actions button.primary:visible").click()
    page.locator("textarea").fill("order-processor")
    page.locator(".actions button.primary:visible").click()
    seen["review"] = page.locator(".review-panel").inner_text()
    seen["reviewButtons"] = page.locator(".actions button:visible").all_inner_texts()
    page.locator(".actions button.primary:visible").click()
    page.locator(".outcome").wait_for()
    seen["outcome"] = page.locator(".outcome").inner_text()
    seen["body"] = page.inner_text("body")
    return seen


def elsewhere():
    """Another web server of this machine, on a port of its own: it records the headers of
    every request it receives. Gives its address and the list of what it heard."""
    heard = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            heard.append({k.lower(): v for k, v in self.headers.items()})
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><p>another local app</p>")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", heard


def two_pages(browser, viewport, links):
    """Two pages of two `ask-user --mode web` in two tabs of one browser: each is answered,
    then each tab visits another local web server, which must receive no credential."""
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    pages = []
    for link in links:
        page = context.new_page()
        page.goto(link)
        page.get_by_text("Your agent is waiting for your answers.").wait_for()
        pages.append(page)
    # The first page still works after the second one signed in, and the second after that.
    for index, page in enumerate(pages):
        page.bring_to_front()
        answer_three(page, f"from-tab-{index + 1}")
    address, heard = elsewhere()
    cookies = [page.evaluate("document.cookie") for page in pages]
    for page in pages:
        page.goto(address)
        page.get_by_text("another local app").wait_for()
    return {"cookies": cookies, "elsewhere": heard, "browserCookies": context.cookies()}


# The key the page keeps in localStorage for the browser that spent its link.
KEY = "localStorage.getItem('ask-user-browser-key')"
WAITING = "Your agent is waiting for your answers."
USED = "This link was already used"


def spend(context, link):
    """Opens `link` in a new tab of `context`: the tab, and the status of its spend."""
    page = context.new_page()
    with page.expect_response(lambda r: r.url.endswith("/api/session")) as spent:
        page.goto(link)
    return page, spent.value.status


def reopen(browser, viewport, link):
    """The person opens the link, closes the tab before answering, opens the same link again in
    the same browser and answers there; another browser is refused. Then a later call on the
    same port: its first spend gives the browser a key in place of the earlier one, and the
    earlier call's link is refused."""
    context = browser.new_context(viewport=VIEWPORTS[viewport])
    seen = {}
    first, seen["firstStatus"] = spend(context, link)
    first.get_by_text(WAITING).wait_for()
    seen["key"] = first.evaluate(KEY)
    first.close()
    again, seen["reopenStatus"] = spend(context, link)
    again.get_by_text(WAITING).wait_for()
    seen["url"] = again.url
    stranger = browser.new_context()
    other, seen["strangerStatus"] = spend(stranger, link)
    other.get_by_text(USED).wait_for()
    seen["strangerKey"] = other.evaluate(KEY)
    stranger.close()
    answer_three(again, "after-reopening")
    print(json.dumps(seen), flush=True)
    later = sys.stdin.readline().strip()
    seen = {}
    page, seen["laterStatus"] = spend(context, later)
    page.get_by_text(WAITING).wait_for()
    seen["laterKey"] = page.evaluate(KEY)
    page.close()
    old, seen["earlierStatus"] = spend(context, link)
    old.get_by_text(USED).wait_for()
    page, seen["laterReopenStatus"] = spend(context, later)
    answer_three(page, "the-later-call")
    print(json.dumps(seen), flush=True)


# The words of an ask whose agent stopped waiting, and of answers that reached the agent.
LOST = "Your agent stopped waiting: these questions can no longer be answered."
SENT = "Your answers were sent. You can close this page."
CANCELLED = "These questions were cancelled."


def away(page, scenario):
    """The ask of alpha, whose agent is away: for `saved`, answered while it is (the inbox keeps
    the answers for it); for `again`, shown until its agent dies, then asked again by the same
    call and answered on the form that comes back."""
    seen = {}
    alpha = page.get_by_role("region", name="Questions 1 from alpha")
    alpha.get_by_role("radio", name="SQLite").wait_for()
    if scenario == "again":
        print("form", flush=True)
        alpha.get_by_text(LOST).wait_for()
        seen["ended"] = alpha.inner_text()
        print("ended", flush=True)
        # The same call asked again: its form is back, answerable, and the ended words are gone.
        alpha.get_by_role("radio", name="SQLite").wait_for()
        seen["sections"] = page.locator("section.ask").count()
        seen["back"] = alpha.inner_text()
        seen["status"] = page.locator("#status").inner_text()
    submit_three(alpha, "from-the-page")
    alpha.locator(".outcome").wait_for()
    seen["outcome"] = alpha.locator(".outcome").inner_text()
    seen["body"] = page.inner_text("body")
    return seen


# Keeps a handle on each event stream the page opens, so that the test can break it as a
# failing network would.
BREAKABLE_STREAMS = """
window.eventStreams = [];
const realFetch = window.fetch;
window.fetch = (url, options = {}) => {
  if (String(url).endsWith("/api/events")) {
    const breaker = new AbortController();
    window.eventStreams.push(breaker);
    options = { ...options, signal: breaker.signal };
  }
  return realFetch(url, options);
};
"""


def reconnect(context, page):
    """Asks of alpha and beta: alpha's agent dies, the page loses its connection, alpha's call
    is asked again meanwhile, and the page catches up from the list it gets on reconnecting.
    Prints `ended` once alpha's ask ended and `offline` once the page is cut off, then reads a
    line from stdin once alpha's call waits again."""
    seen = {}
    alpha = page.get_by_role("region", name="from alpha")
    beta = page.get_by_role("region", name="from beta")
    beta.get_by_role("radio", name="SQLite").wait_for()
    alpha.get_by_text(LOST).wait_for()
    print("ended", flush=True)
    # The network breaks: the page's event stream ends, and every try to open it again fails.
    page.route("**/api/events", lambda route: route.abort("internetdisconnected"))
    page.evaluate("window.eventStreams.forEach((c) => c.abort())")
    page.get_by_text("reconnecting").wait_for()
    print("offline", flush=True)
    sys.stdin.readline()
    page.unroute("**/api/events")
    alpha.get_by_role("radio", name="SQLite").wait_for()
    seen["askers"] = [t.split(" · ")[0] for t in page.locator(".asker").all_inner_texts()]
    # Each ask's choice is its own: choosing in one leaves the other's as it was.
    beta.get_by_role("radio", name="SQLite").check()
    alpha.get_by_role("radio", name="PostgreSQL (Recommended)").check()
    seen["betaKept"] = beta.get_by_role("radio", name="SQLite").is_checked()
    alpha.get_by_role("radio", name="SQLite").check()
    submit_three(alpha, "from-the-page")
    alpha.locator(".outcome").wait_for()
    submit_three(beta, "from-the-page")
    beta.locator(".outcome").wait_for()
    seen["outcomes"] = page.locator(".outcome").all_inner_texts()
    return seen


def full_of_away(context, page, listed):
    """Two asks of gamma wait on the real inbox. The page's event streams are answered with what
    the inbox sends a page that fell behind while away asks filled the budget: `dropped`, then
    the list with those asks away and `full`. The page says both, and its button cancels both
    asks on the real inbox in one action; then the real stream shows them cancelled."""
    seen = {}
    listed = json.loads(listed)
    for ask in listed["asks"]:
        ask["away"] = True
    listed["full"] = True
    body = 'event: dropped\ndata: {"why":"behind"}\n\n' + "event: asks\ndata: " + json.dumps(listed) + "\n\n"
    crafted = lambda route: route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body=body)
    page.route("**/api/events", crafted)
    page.goto(sys.argv[3])
    page.locator(".behind").wait_for()
    page.locator(".agents .full").wait_for()
    seen["behind"] = page.locator(".behind").inner_text()
    seen["full"] = page.locator(".agents .full").inner_text()
    button = page.locator(".agents button")
    seen["buttons"] = button.all_inner_texts()
    button.first.click()
    page.unroute("**/api/events")
    asks = page.locator("section.ask")
    asks.get_by_text(CANCELLED).nth(1).wait_for()
    seen["cancelled"] = asks.get_by_text(CANCELLED).count()
    return seen


def png_brightness(data):
    """The rows of a PNG that Chromium wrote (8 bits per channel, RGB or RGBA, not interlaced),
    each a list of its pixels' brightness, 0 (black) to 255 (white)."""
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and color in (2, 6) and chunk[12] == 0, chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    step = 3 if color == 2 else 4
    stride = width * step
    raw = zlib.decompress(idat)
    rows, above = [], bytearray(stride)
    for y in range(height):
        at = y * (stride + 1)
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            corner = above[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + above[i]) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + above[i]) // 2) & 255
            elif kind == 4:
                guess = left + above[i] - corner
                nearest = min((abs(guess - left), 0, left), (abs(guess - above[i]), 1, above[i]),
                              (abs(guess - corner), 2, corner))[2]
                line[i] = (line[i] + nearest) & 255
        rows.append([sum(line[x * step:x * step + 3]) // 3 for x in range(width)])
        above = line
    return rows


def other_label(page):
    """The "Other" text box of a single choice and of a multi-select: its visible label, where it
    stands, and the note's label below it."""
    seen = {"labels": [], "above": [], "notes": [], "names": []}
    for qi, tab in ((0, "Database"), (1, "Features")):
        page.get_by_role("tab", name=tab).click()
        box = page.locator(f"#a0-q{qi}-other-text")
        label = page.locator(f"label[for=a0-q{qi}-other-text]")
        seen["labels"].append(label.inner_text() if label.count() == 1 and label.is_visible() else None)
        if label.count() == 1:
            # The label stands above its box, and the box above the note's label.
            [top, middle, bottom] = [e.bounding_box() for e in
                                     (label, box, page.locator(f"label[for=a0-q{qi}-note]"))]
            seen["above"].append(top["y"] + top["height"] <= middle["y"]
                                 and middle["y"] + middle["height"] <= bottom["y"])
        seen["notes"].append(page.locator(f"label[for=a0-q{qi}-note]").inner_text())
        seen["names"].append(box.get_attribute("aria-label"))
    # Clicking the label puts the caret in its box, and typing there chooses Other.
    page.locator("label[for=a0-q1-other-text]").click()
    page.keyboard.type("Audit log")
    seen["labelFocuses"] = page.evaluate("document.activeElement.id")
    seen["otherChosen"] = page.locator("#a0-q1-other").is_checked()
    page.get_by_role("button", name="Cancel").click()
    page.get_by_role("button", name="Yes").click()
    page.get_by_text("The questions were cancelled.").first.wait_for()
    return seen


def long_review(page):
    """A 2,500-character answer typed into the third question: the warning while it is typed,
    the review with the answer shortened and Submit on screen, the confirmation, and the recap."""
    seen = {}
    page.get_by_role("radio", name="SQLite").check()
    page.get_by_role("button", name="Next").first.click()
    page.get_by_role("checkbox", name="REST API").check()
    page.get_by_role("button", name="Next").first.click()
    name = page.get_by_role("textbox", name="What should we name this service?")
    # 2,000 characters, at the limit, then one more typed, then the rest.
    name.fill(("c" * 49 + "\n") * 40)
    seen["countAtLimit"] = page.locator("#a0-q2-count").inner_text()
    page.keyboard.type("c")
    seen["countPast"] = page.locator("#a0-q2-count").inner_text()
    name.fill(("c" * 49 + "\n") * 50)
    seen["count"] = page.locator("#a0-q2-count").inner_text()
    seen["countVisible"] = page.locator("#a0-q2-count").is_visible()
    page.get_by_role("button", name="Next").first.click()
    seen["review"] = page.locator(".review").inner_text()
    # The review, from its title to Submit, fits on the screen.
    title = page.locator(".review-panel h2").bounding_box()
    submit = page.get_by_role("button", name="Submit answers").bounding_box()
    seen["fits"] = page.evaluate("window.scrollY") == 0 and title["y"] >= 0 and \
        submit["y"] + submit["height"] <= page.viewport_size["height"]
    page.get_by_role("button", name="Submit answers").click()
    seen["dialog"] = page.locator("#confirm-text").inner_text()
    # As the terminal's "[Y/n]": Yes is where the keyboard is.
    seen["dialogFocus"] = page.evaluate("document.activeElement.id")
    page.keyboard.press("Enter")
    page.locator(".outcome").wait_for()
    seen["recap"] = page.locator(".recap").inner_text()
    return seen


def escape(page):
    """Esc on the review reached by Next, with a question open and with every one answered, and
    once the person clicked somewhere that is not a control."""
    seen = {}
    page.get_by_role("radio", name="SQLite").check()
    for _ in range(3):
        page.get_by_role("button", name="Next").first.click()
    seen["selectedTab"] = page.locator("[role=tab][aria-selected=true]").inner_text()
    page.keyboard.press("Escape")
    seen["openReview"] = page.locator("#confirm").evaluate("d => d.open && d.querySelector('#confirm-text').innerText")
    # Esc again answers No: the questions stay.
    page.keyboard.press("Escape")
    seen["kept"] = page.locator("#a0-q0-o1").is_checked()
    page.get_by_role("tab", name="Name").click()
    page.get_by_role("textbox", name="What should we name this service?").fill("esc-service")
    page.get_by_role("button", name="Next").first.click()
    page.keyboard.press("Escape")
    seen["answeredReview"] = page.locator("#confirm").evaluate("d => d.open && d.querySelector('#confirm-text').innerText")
    page.get_by_role("button", name="No").click()
    # A click on the review's text leaves no control focused; Esc still asks.
    page.locator(".review-panel h2").click()
    seen["focusedAfterClick"] = page.evaluate("document.activeElement.tagName")
    page.keyboard.press("Escape")
    seen["afterClick"] = page.locator("#confirm").evaluate("d => d.open && d.querySelector('#confirm-text').innerText")
    page.get_by_role("button", name="Yes").click()
    page.get_by_text("The questions were cancelled.").first.wait_for()
    return seen


def box_preview(page):
    """The box-drawing preview as drawn: for the column of its vertical lines, how many pixel rows
    between the first and the last that are inked show the background instead."""
    preview = page.locator("pre.preview")
    rows = png_brightness(preview.screenshot())
    background = max(max(row) for row in rows)
    inked = [[value < background - 60 for value in row] for row in rows]
    # The column of the left vertical line: the one with the most inked rows.
    column = max(range(len(rows[0])), key=lambda x: sum(row[x] for row in inked))
    span = [y for y, row in enumerate(inked) if row[column]]
    gaps = [y for y in range(span[0], span[-1] + 1) if rows[y][column] >= background - 4]
    seen = {"inkedRows": len(span), "gapRows": len(gaps), "text": preview.inner_text()}
    page.get_by_role("button", name="Cancel").click()
    page.get_by_text("The questions were cancelled.").first.wait_for()
    return seen


# Whether each button of the confirmation dialog looks as the page's own button of its kind:
# the same colours, border, corners and size of text.
DIALOG_LOOKS = """() => {
  const looks = (button) => {
    const style = getComputedStyle(button);
    return ["backgroundColor", "color", "borderTopColor", "borderTopLeftRadius", "fontSize", "minHeight"]
      .map((name) => style[name]).join(" ");
  };
  const page = (kind) => looks(document.querySelector(`#asks .actions button.${kind}:not([hidden])`));
  return {
    yes: looks(document.getElementById("confirm-yes")) === page("primary"),
    no: looks(document.getElementById("confirm-no")) === page("secondary"),
  };
}"""


# The scenarios of the page's finish: each takes the page once it waits and gives what it saw.
FINISH = {"other-label": other_label, "long-review": long_review, "escape": escape, "boxes": box_preview}


def main():
    scenario, viewport, link = sys.argv[1], sys.argv[2], sys.argv[3]
    seen = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        if scenario == "words":
            seen = words(browser, viewport, link, sys.argv[4])
            browser.close()
            print(json.dumps(seen))
            return
        if scenario == "two":
            seen = two_pages(browser, viewport, [link, sys.argv[4]])
            browser.close()
            print(json.dumps(seen))
            return
        if scenario == "reopen":
            reopen(browser, viewport, link)
            browser.close()
            return
        # An inbox over TLS (tests/it/tls.rs) has a certificate made for the test: the browser
        # takes it, as a person does once its fingerprint matched the one `serve` printed.
        secure = link.startswith("https://")
        context = browser.new_context(viewport=VIEWPORTS[viewport], ignore_https_errors=secure)
        page = context.new_page()
        if scenario == "full":
            seen = full_of_away(context, page, sys.argv[4])
            browser.close()
            print(json.dumps(seen))
            return
        if scenario == "reconnect":
            page.add_init_script(BREAKABLE_STREAMS)
        response = page.goto(link)
        seen["firstStatus"] = response.status
        if secure:
            seen["protocol"] = page.evaluate("location.protocol")
            seen["secure"] = page.evaluate("window.isSecureContext")
        if scenario == "inbox":
            # Three agents wait in `ask-user serve`, gamma with two asks: the page opens the
            # first three asks by itself, and lists the fourth by who asks and how many
            # questions, its questions fetched only once the person opens it.
            page.get_by_text("4 asks are waiting for your answers.").wait_for()
            page.get_by_role("region", name="Questions 3 from gamma").get_by_role("radio", name="SQLite").wait_for()
            seen["askers"] = [t.split(" · ")[0] for t in page.locator(".asker").all_inner_texts()]
            fourth = page.get_by_role("region", name="Questions 4 from gamma")
            fourth.get_by_role("button", name="Open").wait_for()
            seen["closed"] = fourth.locator(".count").inner_text()
            seen["closedRadios"] = fourth.get_by_role("radio").count()
            fourth.get_by_role("button", name="Open").click()
            fourth = page.get_by_role("region", name="Questions 4 from gamma")
            fourth.get_by_role("radio", name="SQLite").wait_for()
            # All of gamma's asks are cancelled in one action.
            page.get_by_role("button", name="Cancel all 2 from gamma", exact=False).click()
            asks = page.locator("section.ask")
            asks.get_by_text(CANCELLED).nth(1).wait_for()
            seen["cancelled"] = asks.get_by_text(CANCELLED).count()
            # Then the person answers the second agent's questions.
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
        if scenario == "reconnect":
            seen.update(reconnect(context, page))
            browser.close()
            print(json.dumps(seen))
            return
        if scenario in ("saved", "again"):
            seen.update(away(page, scenario))
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
        with other.expect_response(lambda r: r.url.endswith("/api/session")) as spent:
            other.goto(link)
        seen["spentStatus"] = spent.value.status
        other.get_by_text("This link was already used").wait_for()
        seen["spentText"] = other.inner_text("body")
        seen["strangerApi"] = other.goto(link.split("/#")[0] + "/api/asks").status
        stranger.close()
        # A second page of the same browser, opened from the first (which hands it its
        # session storage, as a duplicated tab does), watches the live state.
        with context.expect_page() as opened:
            page.evaluate("window.open('/', '_blank')")
        watcher = opened.value
        watcher.get_by_text("Your agent is waiting for your answers.").wait_for()
        # The person works in the first page: it is the one in front, as its tab would be, so
        # that focus and keys go where they would for a person.
        page.bring_to_front()
        seen["horizontalScroll"] = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        if scenario == "answer":
            page.get_by_role("radio", name="SQLite").check()
            # A note on the first answer, typed into its own labelled field.
            page.get_by_role("textbox", name="Note on this answer (optional)").first.fill("only for the tests")
            # The recommended option carries one mark: its own "(Recommended)", coloured.
            first = page.locator("#a0-q0-o0-label")
            seen["recommendedLabel"] = first.inner_text()
            seen["recommendedMarks"] = first.locator("xpath=ancestor::label").locator(".recommended, .badge").all_inner_texts()
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
            # Both pages have the final state now: the confirmation is said once.
            seen["sentSaid"] = page.inner_text("body").count("Your answers were sent")
            seen["focused"] = page.evaluate("document.activeElement.textContent")
            # What was sent stays in view, in the page's own colours rather than greyed out.
            seen["recap"] = page.locator(".recap").inner_text()
            seen["recapGrey"] = page.evaluate(
                "['.outcome', '.recap dd'].map((q) => getComputedStyle(document.querySelector(q)).color"
                " === getComputedStyle(document.getElementById('status')).color)")
        elif scenario == "cancel":
            page.get_by_role("radio", name="PostgreSQL (Recommended)").check()
            page.get_by_role("button", name="Cancel").click()
            seen["dialog"] = page.locator("#confirm-text").inner_text()
            # The dialog's buttons are the page's own: Yes as Next, No as Cancel.
            seen["dialogLooks"] = page.evaluate(DIALOG_LOOKS)
            # No is where the keyboard is; Shift+Tab reaches Yes and Tab goes back to No.
            seen["dialogKeys"] = [page.evaluate("document.activeElement.id")]
            page.keyboard.press("Shift+Tab")
            seen["dialogKeys"].append(page.evaluate("document.activeElement.id"))
            page.keyboard.press("Tab")
            seen["dialogKeys"].append(page.evaluate("document.activeElement.id"))
            # Esc answers No.
            page.keyboard.press("Escape")
            seen["escapeKeeps"] = page.locator("#confirm").evaluate("d => !d.open") and \
                page.get_by_role("radio", name="PostgreSQL (Recommended)").is_checked()
            page.get_by_role("button", name="Cancel").click()
            page.get_by_role("button", name="No").click()
            seen["stillWaiting"] = page.get_by_role("radio", name="PostgreSQL (Recommended)").is_checked()
            page.keyboard.press("Escape")
            page.get_by_role("button", name="Yes").click()
            page.get_by_text("The questions were cancelled.").first.wait_for()
            watcher.locator("#asks").get_by_text("These questions were cancelled.").wait_for()
            seen["watcher"] = watcher.locator("#asks").inner_text()
            seen["cancelledSaid"] = page.inner_text("body").lower().count("questions were cancelled")
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
        elif scenario == "layout":
            # Next and Cancel on a question, then Submit answers and Cancel on the review, at
            # each width.
            seen["question"] = {}
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 800})
                seen["question"][width] = boxes(page, ["Next", "Cancel"])
            page.get_by_role("tab", name="Submit").click()
            seen["review"] = {}
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 800})
                seen["review"][width] = boxes(page, ["Submit answers", "Cancel"])
            page.get_by_role("button", name="Cancel").click()
            page.get_by_text("The questions were cancelled.").first.wait_for()
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
        elif scenario == "cap":
            # One byte over the cap of an answer (64 KiB of UTF-8; "é" is two bytes): the field
            # keeps the first 64 KiB and says so; the note stops at the same cap.
            field = page.get_by_role("textbox", name="What should we name this service?")
            field.fill("é" * 32768 + "x")
            seen["kept"] = field.evaluate("f => new TextEncoder().encode(f.value).length")
            seen["count"] = page.locator(".count").inner_text()
            note = page.locator("#a0-q0-note")
            note.fill("n" * 65537)
            seen["noteKept"] = note.evaluate("f => f.value.length")
            seen["noteCount"] = page.locator("#a0-q0-note-count").inner_text()
            # A multi-select's typed answer leaves room for its labels: a paste into a field
            # keeps what fits in the rest, cut between characters (a 4-byte emoji is not split).
            seen["withLabels"] = page.evaluate(
                "() => { const f = document.createElement('input');"
                " f.value = 'z'.repeat(65520) + '\U0001F600'.repeat(10);"
                " const cut = keepWithinCap(f, '', 7);"
                " return [cut, new TextEncoder().encode(f.value).length]; }"
            )
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
            seen["recap"] = page.locator(".recap").inner_text()
        elif scenario in FINISH:
            seen.update(FINISH[scenario](page))
        elif scenario == "none":
            # "None of these" answers the multi-select; it and the options clear each other.
            page.get_by_role("radio", name="SQLite").check()
            page.get_by_role("button", name="Next").first.click()
            seen["hint"] = page.locator("#a0-q1-hint").inner_text()
            none = page.get_by_role("checkbox", name="None of these")
            rest = page.get_by_role("checkbox", name="REST API")
            rest.check()
            none.check()
            seen["pickAfterNone"] = rest.is_checked()
            rest.check()
            seen["noneAfterPick"] = none.is_checked()
            rest.uncheck()
            seen["tabsWithNothing"] = page.get_by_role("tab").all_inner_texts()
            none.check()
            seen["tabsWithNone"] = page.get_by_role("tab").all_inner_texts()
            page.get_by_role("button", name="Next").first.click()
            page.get_by_role("textbox", name="What should we name this service?").fill("none-svc")
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
