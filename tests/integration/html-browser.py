#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""html-browser.py CHROMIUM PAGE.html REPORT.json CHECKS.json SHOTS-DIR

Open a `sysgate report --html` page in a real headless Chromium, driven
over the DevTools protocol (--remote-debugging-pipe: NUL-terminated JSON
messages, commands on fd 3, answers and events on fd 4; Python stdlib
only), and check what a person would see: screenshots of the first screen
(SHOTS-DIR/page.png) and of the timeline (SHOTS-DIR/timeline.png), real mouse clicks on a process
node, text typed into the search box, filters ticked.  One line per
check: "PASS name" or "FAIL name: why".  Every wait is bounded; the whole
run ends within 90 s (exit 2 on a harness problem).

CHECKS.json: {"child": PID of the process that read the secret,
"secret": a part of its path, "own": a part of a path read by the command
itself, "hostile": a file name that must show as text, "pwned": the
global that the hostile names would set if they ran}.

Or, for a trail where the kernel reused a pid (the page of a crafted
trail, no screenshots): {"mode": "reuse", "pid": the reused pid,
"first": the seqs of its first process, "second": those of the second,
"checks": [[name, CSS selector, text that element must hold], ...],
"prefix": put before the names of the checks}.  With no "checks", the
run has no finding to open.
"""
import base64
import json
import os
import select
import signal
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium):
        self.prof = tempfile.mkdtemp(prefix="sg-chromium.")
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        self.log = open(os.path.join(self.prof, "chromium.log"), "wb")
        self.pid = os.fork()
        if self.pid == 0:
            try:
                # fds 3 and 4 of the browser: out of the way first.
                a = os.dup(cmd_r) if cmd_r < 5 else cmd_r
                a = os.dup2(a, 100)
                b = os.dup2(resp_w, 101)
                os.dup2(a, 3)
                os.dup2(b, 4)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(self.log.fileno(), 1)
                os.dup2(self.log.fileno(), 2)
                os.closerange(5, 4096)
                os.execv(chromium, [
                    chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--remote-debugging-pipe", "--no-first-run",
                    "--disable-background-networking", "--disable-sync",
                    "--disable-component-update", "--disable-quic",
                    "--window-size=1280,900",
                    "--user-data-dir=" + self.prof, "about:blank"])
            finally:
                os._exit(127)
        os.close(cmd_r)
        os.close(resp_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=15):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            m = self.read(end)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def read(self, end):
        while b"\0" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            r, _, _ = select.select([self.resp_r], [], [], left)
            if r:
                chunk = os.read(self.resp_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def open(self, url):
        t = self.send("Target.createTarget", {"url": "about:blank"})
        s = self.send("Target.attachToTarget",
                      {"targetId": t["targetId"], "flatten": True})
        self.session = s["sessionId"]
        for d in ("Runtime", "Log", "Network", "Page"):
            self.send(d + ".enable")
        self.send("Page.navigate", {"url": url})
        end = time.monotonic() + 20
        while self.eval("document.body && document.body.dataset.ready "
                        "=== '1' && document.readyState === 'complete'") \
                is not True:
            if time.monotonic() > end:
                raise TimeoutError("the page never said it was drawn")
            time.sleep(0.1)

    def eval(self, expr):
        r = self.send("Runtime.evaluate",
                      {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def click(self, js_element):
        """A real mouse click in the middle of the element (of its first
        line box: a long label wraps)."""
        box = self.eval("(function(){var e=%s; if(!e) return null;"
                        "e.scrollIntoView({block:'center'});"
                        "var r=e.getClientRects()[0];"
                        "return [r.left+r.width/2, r.top+r.height/2];})()"
                        % js_element)
        if box is None:
            raise RuntimeError("nothing to click: " + js_element)
        x, y = box
        self.send("Input.dispatchMouseEvent",
                  {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left",
                       "clickCount": 1})

    def type(self, text):
        self.send("Input.insertText", {"text": text})

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)


VISIBLE_ROWS = """Array.from(document.querySelectorAll('#calls tbody tr'))
  .filter(function (r) { return r.getClientRects().length > 0; })
  .map(function (r) { return {seq: +r.dataset.seq, pid: +r.dataset.pid,
    cls: r.className, text: r.textContent,
    cells: Array.from(r.cells).map(function (c) { return c.textContent; })};
  })"""

results = []


def check(name, ok, why=""):
    results.append((name, bool(ok), why))


def shoot(b, path, selector=None):
    params = {"format": "png"}
    if selector:
        box = b.eval("(function(){var e=document.querySelector('%s');"
                     "e.scrollIntoView();var r=e.getBoundingClientRect();"
                     "return [r.left+scrollX,r.top+scrollY,r.width,r.height];"
                     "})()" % selector)
        params["clip"] = {"x": box[0], "y": box[1], "width": box[2],
                          "height": box[3], "scale": 1}
        params["captureBeyondViewport"] = True
    data = b.send("Page.captureScreenshot", params)["data"]
    with open(path, "wb") as f:
        f.write(base64.b64decode(data))


def run(b, page, report, want, shots):
    b.open("file://" + os.path.abspath(page))
    shoot(b, os.path.join(shots, "page.png"))
    shoot(b, os.path.join(shots, "timeline.png"), "#timeline")
    b.eval("scrollTo(0, 0)")
    procs = report["processes"]
    # Findings first: the section right after the heading (and the
    # warning), holding --json's findings, the very texts.
    first = b.eval("(function(){var s=document.querySelector('#app > section');"
                   "return s ? s.id : null;})()")
    check("findings-first", first == "findings", "first section: %r" % first)
    shown = b.eval("Array.from(document.querySelectorAll('#findings li'))"
                   ".map(function(l){return l.querySelector('.kind')"
                   ".textContent + l.querySelector('.ftext').textContent;})")
    texts = [a["kind"] + ":" + a["text"] for a in
             report["findings"]["anomalies"]]
    check("findings-are-the-reports", shown == texts and len(texts) >= 2,
          "page %r, --json %r" % (shown, texts))
    nodes = b.eval("document.querySelectorAll('#tree .node').length")
    check("tree-node-per-process", nodes == len(procs) and nodes >= 4,
          "%s nodes, %d processes" % (nodes, len(procs)))

    # Noise folded: libc and friends only after unfolding.
    rows = b.eval(VISIBLE_ROWS)
    noisy = [r for r in rows if ".so" in r["text"]]
    check("all-calls-listed", len(rows) >= 10 and
          any(want["own"] in r["text"] for r in rows),
          "%d rows" % len(rows))
    check("noise-folded", not noisy, "visible: %r" % noisy[:2])
    b.click("document.getElementById('unfold')")
    rows = b.eval(VISIBLE_ROWS)
    check("noise-unfolds", any(".so" in r["text"] for r in rows),
          "no loader row after unfolding")
    b.click("document.getElementById('unfold')")

    # Click the child that read the secret: its calls only, in order.
    child = want["child"]
    b.click("document.querySelector('#tree .node[data-pid=\"%d\"]')" % child)
    rows = b.eval(VISIBLE_ROWS)
    seqs = [r["seq"] for r in rows]
    info = b.eval("document.getElementById('calls-info').textContent")
    check("click-shows-only-that-process",
          rows and all(r["pid"] == child for r in rows),
          "pids %r" % sorted({r["pid"] for r in rows}))
    check("click-shows-its-calls-in-order", seqs == sorted(seqs) and
          len(seqs) >= 2, "seqs %r" % seqs)
    den = [r for r in rows if "denied" in r["cls"].split()]
    check("click-shows-the-denied-read",
          len(den) == 1 and want["secret"] in den[0]["cells"][4] and
          "EACCES" in den[0]["cells"][5],
          "rows %r" % [r["text"] for r in rows][:6])
    check("click-says-which-process", info.startswith("Process %d " % child),
          info)

    # A finding opens its process at its record.
    f = report["findings"]["anomalies"][0]
    b.click("document.querySelectorAll('#findings li')[0]")
    rows = b.eval(VISIBLE_ROWS)
    marked = [r["seq"] for r in rows if "mark" in r["cls"].split()]
    check("finding-opens-its-record", marked == [f["seq"]] and
          all(r["pid"] == f["pid"] for r in rows),
          "finding %s pid %s, marked %r, pids %r" %
          (f["seq"], f["pid"], marked, sorted({r["pid"] for r in rows})))

    # Back to every process; type a search: only matching rows remain.
    b.click("document.getElementById('all-procs')")
    b.click("document.getElementById('search')")
    b.type(want["own"])
    rows = b.eval(VISIBLE_ROWS)
    check("search-keeps-only-matches", rows and
          all(want["own"] in r["text"].lower() for r in rows),
          "rows %r" % [r["text"] for r in rows][:4])
    b.eval("(function(){var s=document.getElementById('search');"
           "s.value='';s.dispatchEvent(new Event('input'));})()")

    # Outcome filter: only "denied" ticked leaves the two denials.
    b.eval("document.querySelectorAll('input.f-outcome').forEach("
           "function(c){if(c.value!=='denied') c.click();})")
    rows = b.eval(VISIBLE_ROWS)
    check("filter-outcome-denied", len(rows) == 2 and
          all("denied" in r["cls"] and want["secret"] in r["text"]
              for r in rows), "rows %r" % [r["text"] for r in rows])
    b.eval("document.querySelectorAll('input.f-outcome').forEach("
           "function(c){if(!c.checked) c.click();})")
    # Kind filter: only "exec" leaves execs only.
    b.eval("document.querySelectorAll('input.f-kind').forEach("
           "function(c){if(c.value!=='exec') c.click();})")
    rows = b.eval(VISIBLE_ROWS)
    check("filter-kind-exec", rows and all(
        r["cells"][3] in ("execve", "execveat", "proc.exec") for r in rows),
        "calls %r" % [r["cells"][3] for r in rows][:8])
    b.eval("document.querySelectorAll('input.f-kind').forEach("
           "function(c){if(!c.checked) c.click();})")

    # The hostile names are text: nothing ran, no element was made.
    b.click("document.getElementById('search')")
    b.type("onerror")
    rows = b.eval(VISIBLE_ROWS)
    check("hostile-name-shown-as-text",
          any(want["hostile"] in r["text"] for r in rows),
          "rows %r" % [r["text"] for r in rows][:4])
    pwned = b.eval("typeof window.%s" % want["pwned"])
    title = b.eval("document.title")
    imgs = b.eval("document.getElementsByTagName('img').length")
    scripts = b.eval("document.scripts.length")
    check("hostile-name-not-run", pwned == "undefined" and
          title.startswith("sysgate report: ") and imgs == 0 and
          scripts == 2, "%s=%s title=%r img=%s scripts=%s"
          % (want["pwned"], pwned, title, imgs, scripts))

    # Nothing fetched but the file itself; no script error, no CSP report.
    urls = [e["params"]["request"]["url"] for e in b.events
            if e.get("method") == "Network.requestWillBeSent"]
    check("no-network", all(u.startswith("file://") for u in urls),
          "requests %r" % urls)
    errs = [e for e in b.events
            if e.get("method") == "Runtime.exceptionThrown" or
            (e.get("method") == "Log.entryAdded" and
             e["params"]["entry"]["level"] == "error") or
            (e.get("method") == "Runtime.consoleAPICalled" and
             e["params"]["type"] == "error")]
    check("no-script-error", not errs, json.dumps(errs)[:600])


def rows_of_node(b, i, pid):
    """Click the i-th tree node of pid; its rows' (pid, seq) and the info
    line."""
    b.click("document.querySelectorAll('#tree .node[data-pid=\"%d\"]')[%d]"
            % (pid, i))
    rows = b.eval(VISIBLE_ROWS)
    return rows, b.eval("document.getElementById('calls-info').textContent")


def run_reuse(b, page, report, want):
    b.open("file://" + os.path.abspath(page))
    pid = want["pid"]
    pre = want.get("prefix", "")
    # Every record of the process, loader reads too.
    b.click("document.getElementById('unfold')")
    nodes = b.eval("document.querySelectorAll('#tree .node[data-pid=\"%d\"]')"
                   ".length" % pid)
    check(pre + "reuse-two-tree-nodes", nodes == 2, "%s nodes of pid %d" %
          (nodes, pid))
    for i, key in enumerate(("first", "second")):
        rows, info = rows_of_node(b, i, pid)
        seqs = [r["seq"] for r in rows]
        check(pre + "reuse-click-%s-shows-its-calls-only" % key,
              seqs == want[key] and all(r["pid"] == pid for r in rows),
              "seqs %r, want %r" % (seqs, want[key]))
        check(pre + "reuse-click-%s-says-which" % key,
              info.startswith("Process %d " % pid), info)
    # A finding opens its own process instance at its record.
    if not want["checks"]:
        idx = None
    else:
        idx = b.eval("Array.from(document.querySelectorAll('#findings li'))"
                     ".findIndex(function(l){return l.textContent.indexOf("
                     "'record %d,') >= 0;})" % want["second"][-1])
    if idx is None:
        pass
    elif idx < 0:
        check(pre + "reuse-finding-opens-its-instance", False, "no finding")
    else:
        b.click("document.querySelectorAll('#findings li')[%d]" % idx)
        rows = b.eval(VISIBLE_ROWS)
        seqs = [r["seq"] for r in rows]
        marked = [r["seq"] for r in rows if "mark" in r["cls"].split()]
        check(pre + "reuse-finding-opens-its-instance", seqs == want["second"]
              and marked == [want["second"][-1]],
              "seqs %r, marked %r" % (seqs, marked))
    b.click("document.getElementById('all-procs')")
    for name, sel, text in want["checks"]:
        got = b.eval("Array.from(document.querySelectorAll(%s)).map("
                     "function(e){return e.textContent;})" % json.dumps(sel))
        check(name, any(text in g for g in got),
              "%s: %r" % (sel, got[:6]))
    imgs = b.eval("document.getElementsByTagName('img').length")
    errs = [e for e in b.events
            if e.get("method") == "Runtime.exceptionThrown" or
            (e.get("method") == "Log.entryAdded" and
             e["params"]["entry"]["level"] == "error")]
    check(pre + "reuse-no-script-error", not errs and imgs == 0,
          json.dumps(errs)[:600])


def main():
    chromium, page, report, want, shots = sys.argv[1:6]
    report = json.load(open(report))
    want = json.load(open(want))
    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(
        TimeoutError("90 s")))
    signal.alarm(90)
    b = Browser(chromium)
    try:
        if want.get("mode") == "reuse":
            run_reuse(b, page, report, want)
        else:
            run(b, page, report, want, shots)
    except Exception as e:  # a harness problem: say it, fail
        print("FAIL browser-session: %s: %s" % (type(e).__name__, e))
        for name, ok, why in results:
            print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                               "" if ok else ": " + why))
        return 2
    finally:
        b.close()
    for name, ok, why in results:
        print("%s %s%s" % ("PASS" if ok else "FAIL", name,
                           "" if ok else ": " + why))
    return 0


if __name__ == "__main__":
    sys.exit(main())
