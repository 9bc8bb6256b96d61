"""Answers the questions waiting on an ask-user page as a person's browser would.

Usage: answer_page.py LINK ANSWERS_JSON

LINK is the one-time link (http://127.0.0.1:PORT/#token=...); ANSWERS_JSON is the body's
`answers` list. The script trades the link's token for the page's credential as the page does
(`POST /api/session`), finds the ask waiting for the user, and posts the answers with the
page's own Origin and the credential in `Authorization`.
It prints the HTTP status of the answer and exits 0 only for 200.
"""

import http.client
import json
import sys
import urllib.parse


def main(link, answers):
    url = urllib.parse.urlsplit(link)
    host = url.netloc
    connection = lambda: http.client.HTTPConnection(url.hostname, url.port, timeout=20)

    token = url.fragment.removeprefix("token=")
    origin = f"http://{host}"
    visit = connection()
    visit.request(
        "POST",
        "/api/session",
        body=json.dumps({"token": token}),
        headers={"Host": host, "Origin": origin, "Content-Type": "application/json"},
    )
    reply = visit.getresponse()
    session = reply.read()
    if reply.status != 200:
        print(f"the link answered {reply.status}", file=sys.stderr)
        return 1
    credential = "Bearer " + json.loads(session)["session"]

    asks = connection()
    asks.request("GET", "/api/asks", headers={"Host": host, "Authorization": credential})
    listed = json.loads(asks.getresponse().read())
    waiting = [ask for ask in listed["asks"] if ask["state"] == "waiting_for_user"]
    if not waiting:
        print(f"no ask waits: {listed}", file=sys.stderr)
        return 1

    post = connection()
    body = json.dumps({"answers": answers})
    post.request(
        "POST",
        f"/api/asks/{waiting[0]['requestId']}/answer",
        body=body,
        headers={
            "Host": host,
            "Authorization": credential,
            "Origin": origin,
            "Content-Type": "application/json",
        },
    )
    answered = post.getresponse()
    print(answered.status, answered.read().decode())
    return 0 if answered.status == 200 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], json.loads(sys.argv[2])))
