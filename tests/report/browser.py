#!/usr/bin/python3
"""A `rocelab report` page in headless Chromium, against what stock tshark reads in its capture.

    browser.py [options] PAGE.html TSHARK.tsv EXPLAIN.jsonl
    browser.py --print-fields

TSHARK.tsv is `tshark -T fields -E separator=/t -E occurrence=f` with --print-fields'
fields, every frame a line. EXPLAIN.jsonl is `rocelab explain --json` of the same capture.
Runs with Debian's /usr/bin/python3 (python3-selenium, python3-pil) and chromedriver.

The page's contract (docs/report-format.md, and what this suite agreed with the page):
  * each frame an arrow <g class="rl-arrow rl-KIND" data-frame="N">, KIND one of req,
    resp, ack, nak, cnp, cm, plus rl-lost, rl-bad, rl-trouble;
  * #frame-N in the address, or a click on an arrow, selects frame N: the details panel
    #rl-detail gets data-frame="N" and shows the frame's fields, and holds the frame's
    `explain --json` object as JSON text in <pre id="rl-detail-json">;
  * when drawn, the script sets document.documentElement.dataset.rlReady = "1".

Checks (a PASS or FAIL line each):
  0. it fetches nothing (the Resource Timing entries of the loaded page);
  a. no console message of level WARNING or SEVERE, no uncaught exception or rejection;
  b. the .rl-arrow elements are exactly tshark's InfiniBand frames (one each);
  c. each arrow's KIND is what IBA says tshark's frame is (a CM MAD: cm; CNP opcode 0x81:
     cnp; Acknowledge with an AETH NAK or RNR NAK syndrome: nak, else ack; READ responses
     and ATOMIC Acknowledge: resp; the rest: req); a request sent again (the same source,
     destination QP, opcode and PSN as an earlier frame) is rl-trouble; a frame with rocelab
     gen's "lost on the way" pcapng comment (tshark's frame.comment) is rl-lost;
  d. a real click on some arrows shows them in #rl-detail: the opcode, PSN and destination QP
     tshark reads are on the panel and in its JSON, and the JSON is explain --json's object;
  e. #frame-N in the address selects frame N on load;
  f. (--golden DIR) a screenshot against DIR/NAME.png; --update-golden writes it instead.
--big: only load PAGE#frame-N (--frame N), wait for the ready marker (--hang seconds) and
check that arrow N is drawn and selected; prints the load time (not an assertion).
--rates RATES.tsv: the Congestion section, against tshark's RATE_FIELDS of the capture
(docs/report-format.md has the hooks):
  g. one .rl-rate line per data flow (tshark: distinct destination QPs of requests);
  h. each line's mean over the bins in the last third of the capture is tshark's bytes
     (data.len of that QP's requests, frames without gen's lost comment) over the same
     time within 5%;
  i. (--fair) over the last third of the time both flows send (tshark: the later flow's first
     request to the earlier one's last), the two lines' means are within 10% of each other;
  j. .rl-depth's data-max is the deepest "bottleneck queue N B" comment tshark reads;
  k. (--golden) a screenshot of the rates graph against DIR/NAME-rates.png.
"""
import json
import os
import re
import signal
import sys
import time

FIELDS = ["frame.number", "ip.src", "ipv6.src", "infiniband.bth.opcode", "infiniband.bth.psn",
          "infiniband.bth.destqp", "infiniband.aeth.syndrome", "infiniband.mad.mgmtclass", "frame.comment"]
LOST = "lost on the way (rocelab gen)"
CM_CLASS = 0x07                     # IBA 16.7: the Communication Management class
CNP = 0x81                          # RoCEv2 Annex A17.9.3: the CNP opcode
RESPONSES = {13, 14, 15, 16, 18}    # IBA Table 38: READ response First..Only, ATOMIC Acknowledge
ACKNOWLEDGE = 17
# IBA Table 38, the low five bits of the opcode
OPS = {0: "SEND First", 1: "SEND Middle", 2: "SEND Last", 3: "SEND Last with Immediate", 4: "SEND Only",
       5: "SEND Only with Immediate", 6: "RDMA WRITE First", 7: "RDMA WRITE Middle", 8: "RDMA WRITE Last",
       9: "RDMA WRITE Last with Immediate", 10: "RDMA WRITE Only", 11: "RDMA WRITE Only with Immediate",
       12: "RDMA READ Request", 13: "RDMA READ response First", 14: "RDMA READ response Middle",
       15: "RDMA READ response Last", 16: "RDMA READ response Only", 17: "Acknowledge",
       18: "ATOMIC Acknowledge", 19: "CmpSwap", 20: "FetchAdd", 22: "SEND Last with Invalidate",
       23: "SEND Only with Invalidate"}
WINDOW = (1280, 1600)
RATE_FIELDS = ["frame.number", "frame.time_relative", "infiniband.bth.opcode", "infiniband.bth.destqp",
               "infiniband.mad.mgmtclass", "data.len", "frame.comment"]
DEPTH_COMMENT = re.compile(r"^bottleneck queue (\d+) B$")   # pcapgen/gen.h's form, as documented

failed = 0
label = ""


def report(ok, text):
    global failed
    failed += not ok
    print(("PASS " if ok else "FAIL ") + label + text, flush=True)


def read_tshark(path):
    """tshark's InfiniBand frames (those with a BTH opcode), in order: list of dicts."""
    out = []
    with open(path) as f:
        for line in f:
            v = dict(zip(FIELDS, (line.rstrip("\n").split("\t") + [""] * len(FIELDS))[:len(FIELDS)]))
            if v["infiniband.bth.opcode"] == "":
                continue
            syn = v["infiniband.aeth.syndrome"]
            mc = v["infiniband.mad.mgmtclass"]
            out.append({"no": int(v["frame.number"]), "src": v["ip.src"] or v["ipv6.src"],
                        "op": int(v["infiniband.bth.opcode"], 0), "psn": int(v["infiniband.bth.psn"], 0),
                        "dqp": int(v["infiniband.bth.destqp"], 16),
                        "syn": int(syn, 0) if syn else None, "mgmt": int(mc, 0) if mc else None,
                        "lost": LOST in v["frame.comment"]})
    return out


def want_kind(f):
    """The arrow class IBA gives the frame tshark read."""
    if f["mgmt"] == CM_CLASS and f["dqp"] == 1:
        return "cm"
    if f["op"] == CNP:
        return "cnp"
    if f["op"] & 0x1F == ACKNOWLEDGE and f["op"] < 0x20:
        # AETH syndrome bits 7..5: 000 ACK, 001 RNR NAK, 011 NAK (IBA Table 43)
        return "nak" if f["syn"] is not None and f["syn"] >> 5 in (1, 3) else "ack"
    if f["op"] < 0x40 and f["op"] & 0x1F in RESPONSES:
        return "resp"
    return "req"


def resent(frames):
    """Frames that carry a request an earlier frame carried: same source, dest QP, opcode, PSN."""
    seen, out = set(), set()
    for f in frames:
        if want_kind(f) != "req" or f["mgmt"] is not None:
            continue
        k = (f["src"], f["dqp"], f["op"], f["psn"])
        if k in seen:
            out.add(f["no"])
        seen.add(k)
    return out


def read_explain(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                j = json.loads(line)
                out[j["frame"]] = j
    return out


class Browser:
    """One headless Chromium in its own session, so that every process of it can be ended."""

    def __init__(self, tmp):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.tmp = tmp
        self.panel_seen = True      # False once the details panel failed to come
        opts = webdriver.ChromeOptions()
        opts.binary_location = os.environ.get("REPORT_CHROMIUM", "/usr/bin/chromium")
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=%d,%d" % WINDOW, "--force-device-scale-factor=1", "--hide-scrollbars",
                  "--font-render-hinting=none", "--disable-extensions", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-breakpad", "--disable-crash-reporter",
                  "--user-data-dir=" + os.path.join(tmp, "profile")):
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        svc = Service(os.environ.get("REPORT_CHROMEDRIVER", "/usr/bin/chromedriver"),
                      log_path=os.path.join(tmp, "chromedriver.log"))
        self.d = webdriver.Chrome(service=svc, options=opts)
        self.d.set_page_load_timeout(600)
        self.d.set_script_timeout(600)
        # Before any of the page's script: keep what it throws and rejects
        self.d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__rlErrors = [];
            window.addEventListener('error', function (e) { window.__rlErrors.push('error: ' + e.message); });
            window.addEventListener('unhandledrejection', function (e) {
                window.__rlErrors.push('unhandled rejection: ' + String(e.reason)); });"""})

    def close(self):
        try:
            self.d.quit()
        except Exception:
            pass

    def load(self, url, hang):
        """Load url and wait (at most hang seconds, a guard, not a check) for the ready marker."""
        from selenium.webdriver.support.ui import WebDriverWait
        self.d.get("about:blank")
        self.d.get(url)
        try:
            WebDriverWait(self.d, hang, poll_frequency=0.05).until(
                lambda d: d.execute_script("return document.documentElement.dataset.rlReady") == "1")
            return True
        except Exception:
            return False

    def problems(self):
        """Console messages of level WARNING or SEVERE, and uncaught errors, since the last call."""
        out = ["console %s: %s" % (e.get("level"), e.get("message")) for e in self.d.get_log("browser")
               if e.get("level") in ("WARNING", "SEVERE")]
        try:
            out += self.d.execute_script("return window.__rlErrors || []")
        except Exception as e:
            out.append("cannot read the page's errors: %s" % e)
        return out

    def detail(self, n, hang, need_json=True):
        """Wait until #rl-detail says frame n; (its text, the JSON in #rl-detail-json) or None."""
        from selenium.webdriver.support.ui import WebDriverWait
        js = """var p = document.getElementById('rl-detail'), j = document.getElementById('rl-detail-json');
                if (!p || p.getAttribute('data-frame') !== arguments[0]) return null;
                if (!j || !p.contains(j)) return arguments[1] ? null : [p.innerText, ''];
                return [p.innerText, j.textContent];"""
        try:
            return WebDriverWait(self.d, hang, poll_frequency=0.05).until(
                lambda d: d.execute_script(js, str(n), need_json))
        except Exception:
            return None

    def click_arrow(self, n):
        """A real mouse click on arrow n, at a point where the arrow (not what covers it) is hit."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.by import By
        el = self.d.find_element(By.CSS_SELECTOR, '.rl-arrow[data-frame="%d"]' % n)
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", el)
        pt = self.d.execute_script("""
            var g = arguments[0], r = g.getBoundingClientRect(), kids = [g].concat(Array.from(g.querySelectorAll('*')));
            for (var k = 0; k < kids.length; k++) {
                var b = kids[k].getBoundingClientRect();
                for (var fy = 0.5; fy <= 1; fy += 0.25) for (var fx = 0.5; fx > 0; fx -= 0.125) {
                    var xs = [b.left + b.width * fx, b.left + b.width * (1 - fx)], y = b.top + b.height * fy;
                    for (var i = 0; i < 2; i++) {
                        var h = document.elementFromPoint(xs[i], y);
                        if (h && g.contains(h)) return [xs[i] - (r.left + r.width / 2), y - (r.top + r.height / 2)];
                    }
                }
            }
            return null;""", el)
        if pt is None:
            return False
        ActionChains(self.d).move_to_element_with_offset(el, int(pt[0]), int(pt[1])).click().perform()
        return True


def shown(text, f):
    """Does the panel's text show tshark's opcode, PSN and destination QP (in some usual spelling)?"""
    import re
    words = set(re.findall(r"[0-9A-Za-z]+", text.lower()))
    op, psn, q = f["op"], f["psn"], f["dqp"]
    opn = OPS.get(op & 0x1F, "") if op < 0xC0 else ""
    ok_op = (str(op) in words or "0x%02x" % op in words or "0x%x" % op in words or
             (op == CNP and "cnp" in words) or (opn and opn.lower() in " ".join(text.lower().split())))
    ok_psn = str(psn) in words or "0x%06x" % psn in words
    ok_qp = str(q) in words or "0x%06x" % q in words or "0x%x" % q in words
    return ok_op, ok_psn, ok_qp


def check_frame(b, n, f, explain, how, need_json=True):
    # a hang guard: the panel follows the ready marker or a click at once, or not at all; once it
    # has not come on a page, the next frames get a short guard (a page without it fails fast)
    got = b.detail(n, (10 if b.panel_seen else 2) if need_json else 60, need_json)
    b.panel_seen = got is not None
    if got is None:
        report(False, "%s frame %d: #rl-detail with data-frame=%d%s never appeared" %
               (how, n, n, " holding #rl-detail-json" if need_json else ""))
        return
    text, raw = got
    if not need_json:
        # past summary.detail_limit rows the page has no detail object: the row's fields only
        ok_op, ok_psn, ok_qp = shown(text, f)
        report(ok_op and ok_psn and ok_qp, "%s frame %d: the panel shows tshark's opcode %d, PSN %d, destination QP 0x%06x"
               % (how, n, f["op"], f["psn"], f["dqp"]))
        return
    try:
        j = json.loads(raw)
    except ValueError as e:
        report(False, "%s frame %d: #rl-detail-json is not JSON (%s): %.120s" % (how, n, e, raw))
        return
    ok_op, ok_psn, ok_qp = shown(text, f)
    report(ok_op and ok_psn and ok_qp,
           "%s frame %d: the panel shows tshark's opcode %d%s, PSN %d%s, destination QP 0x%06x%s" %
           (how, n, f["op"], "" if ok_op else " (NOT)", f["psn"], "" if ok_psn else " (NOT)", f["dqp"],
            "" if ok_qp else " (NOT)"))
    bth = j.get("bth", {}) if isinstance(j, dict) else {}
    report((bth.get("opcode"), bth.get("psn"), bth.get("dqpn")) == (f["op"], f["psn"], f["dqp"]),
           "%s frame %d: the panel's JSON has tshark's opcode, PSN and destination QP (%s, %s, %s)" %
           (how, n, bth.get("opcode"), bth.get("psn"), bth.get("dqpn")))
    # The panel's JSON against `explain --json`: two printers of one decoder, a consistency
    # check (the decoder itself is checked against tshark above and in tests/oracle).
    report(j == explain.get(n), "%s frame %d: the panel's JSON is explain --json's object for the frame" % (how, n))


def pick(frames, trouble):
    """The frames to click: the first, the last, one in the middle, the NAKs and resent ones (at most 8)."""
    nos = [f["no"] for f in frames]
    want = [nos[0], nos[len(nos) // 2], nos[-1]]
    want += [f["no"] for f in frames if want_kind(f) in ("nak", "cnp", "cm", "resp")][:3]
    want += sorted(trouble)[:2]
    out = []
    for n in want:
        if n not in out:
            out.append(n)
    return out[:8]


def screenshot(b, path, golden, update, name, element=None):
    from PIL import Image, ImageChops
    if element is None:
        b.d.save_screenshot(path)
    else:
        element.screenshot(path)
    g = os.path.join(golden, name + ".png")
    if update:
        os.makedirs(golden, exist_ok=True)
        Image.open(path).convert("RGB").save(g, optimize=True)
        print("wrote " + g)
        return
    if not os.path.exists(g):
        report(False, "screenshot: no golden %s (run tests/report/run.sh --update-golden ROCELAB)" % g)
        return
    a, e = Image.open(path).convert("RGB"), Image.open(g).convert("RGB")
    if a.size != e.size:
        report(False, "screenshot: %dx%d, the golden is %dx%d" % (a.size + e.size))
        return
    # a pixel differs when one of its channels is more than THRESH off; at most TOL of them may
    thresh, tol = int(os.environ.get("REPORT_PIXEL_THRESH", "48")), float(os.environ.get("REPORT_PIXEL_TOL", "0.02"))
    diff = ImageChops.difference(a, e).convert("L").point(lambda v: 255 if v > thresh else 0)
    share = sum(1 for v in diff.getdata() if v) / (a.size[0] * a.size[1])
    if share > tol:
        a.save(path[:-4] + ".actual.png")
    report(share <= tol, "screenshot: %.2f%% of its pixels differ from %s (at most %.0f%%)" %
           (100 * share, os.path.basename(g), 100 * tol))


def run_small(b, page, frames, explain, opts):
    from selenium.webdriver.common.by import By
    url = "file://" + os.path.abspath(page)
    ready = b.load(url, 60)
    report(ready, "loads: the ready marker (documentElement.dataset.rlReady == '1') appears")
    if not ready:
        for p in b.problems():
            print("     | " + p)
        return
    res = b.d.execute_script("return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
    report(not res, "it fetches nothing once loaded%s" % ("" if not res else ": " + ", ".join(res[:5])))
    # b. one arrow per InfiniBand frame of tshark's
    arrows = b.d.execute_script("""return Array.from(document.querySelectorAll('.rl-arrow'))
        .map(function (g) { return [g.getAttribute('data-frame'), g.getAttribute('class') || '']; });""")
    got = [int(a[0]) if (a[0] or "").isdigit() else -1 for a in arrows]
    want = [f["no"] for f in frames]
    report(len(got) == len(want), "%d .rl-arrow elements, tshark reads %d InfiniBand frames" % (len(got), len(want)))
    report(sorted(got) == want, "the arrows' data-frame numbers are tshark's InfiniBand frames%s" %
           ("" if sorted(got) == want else ": extra %s, missing %s" %
            (sorted(set(got) - set(want))[:10], sorted(set(want) - set(got))[:10])))
    # c. each arrow's kind and marks, from IBA and tshark's fields
    cls = {int(a[0]): set(a[1].split()) for a in arrows if (a[0] or "").isdigit()}
    kinds = {"rl-req", "rl-resp", "rl-ack", "rl-nak", "rl-cnp", "rl-cm"}
    trouble = resent(frames)
    wrong, seen = [], {}
    for f in frames:
        c = cls.get(f["no"], set())
        k = want_kind(f)
        seen[k] = seen.get(k, 0) + 1
        if c & kinds != {"rl-" + k}:
            wrong.append("%d: %s, not rl-%s" % (f["no"], " ".join(sorted(c & kinds)) or "no kind", k))
    report(not wrong, "each arrow's kind is IBA's for tshark's frame (%s)%s" %
           (", ".join("%s %d" % kv for kv in sorted(seen.items())), "" if not wrong else ": " + "; ".join(wrong[:6])))
    for k in opts["want"]:
        if k in ("req", "resp", "ack", "nak", "cnp", "cm"):
            report(seen.get(k, 0) > 0, "the capture has at least one %s frame (tshark)" % k)
    naks = [f["no"] for f in frames if want_kind(f) == "nak"]
    if "nak" in opts["want"]:
        report(bool(naks) and all("rl-nak" in cls.get(n, ()) for n in naks),
               "the NAK frames tshark finds (AETH syndrome 001/011) %s are rl-nak" % naks)
    if "resent" in opts["want"]:
        report(bool(trouble) and all("rl-trouble" in cls.get(n, ()) for n in trouble),
               "the requests sent again (same source, QP, opcode and PSN as before) %s are rl-trouble" % sorted(trouble))
    lost = [f["no"] for f in frames if f["lost"]]
    if "lost" in opts["want"] or lost:
        report(bool(lost) and all("rl-lost" in cls.get(n, ()) for n in lost),
               "the frames with gen's 'lost on the way' comment %s are rl-lost" % lost)
    fx = {f["no"]: f for f in frames}
    # d. clicks (none when no arrow is drawn: that is one failure, above, not one per click)
    for n in (pick(frames, trouble) if got else []):
        try:
            ok = b.click_arrow(n)
        except Exception as e:
            ok = False
            print("     | %s" % str(e).splitlines()[0])
        if not ok:
            report(False, "click frame %d: no point of the arrow can be clicked" % n)
            continue
        check_frame(b, n, fx[n], explain, "click")
        h = b.d.execute_script("return location.hash")
        report(h == "#frame-%d" % n, "click frame %d: the address becomes #frame-%d (%s)" % (n, n, h))
    p = b.problems()
    report(not p, "no console warning or error, no uncaught exception while loading and clicking" +
           ("" if not p else ": " + " | ".join(x[:200] for x in p[:5])))
    # e. #frame-N on load
    sel = opts["select"] if opts["select"] in fx else want[len(want) // 2]
    for n in sorted({sel, want[-1]}):
        b.d.get("about:blank")
        if not b.load(url + "#frame-%d" % n, 60):
            report(False, "#frame-%d: the ready marker never appeared" % n)
            continue
        check_frame(b, n, fx[n], explain, "#frame-%d:" % n)
        vis = b.d.execute_script("""var g = document.querySelector('.rl-arrow[data-frame="' + arguments[0] + '"]');
            if (!g) return false; var r = g.getBoundingClientRect();
            return r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;""", str(n))
        report(bool(vis), "#frame-%d: its arrow is in view" % n)
    # f. screenshot of the page as #frame-SEL opens it
    if opts["golden"]:
        b.d.get("about:blank")
        b.load(url + "#frame-%d" % sel, 60)
        b.d.execute_script("document.activeElement && document.activeElement.blur()")
        time.sleep(0.3)     # let a scroll or transition settle before the picture (not a check)
        screenshot(b, os.path.join(opts["tmp"], opts["name"] + ".png"), opts["golden"], opts["update"], opts["name"])
    p = b.problems()
    report(not p, "no console warning or error, no uncaught exception on the #frame-N loads" +
           ("" if not p else ": " + " | ".join(x[:200] for x in p[:5])))


def run_compare(b, page, frames, explain, opts):
    """explain --compare A B -o PAGE: two captures side by side, each drawn as one is (B's ids with b-)."""
    url = "file://" + os.path.abspath(page)
    ready = b.load(url, 60)
    report(ready, "loads: the ready marker appears")
    if not ready:
        return
    caps = b.d.execute_script("""return Array.from(document.querySelectorAll('.rl-cap')).map(function (c) {
        return Array.from(c.querySelectorAll('.rl-arrow')).map(function (g) { return +g.getAttribute('data-frame'); });
    });""")
    report(len(caps) == 2, "two captures drawn side by side (%d)" % len(caps))
    if len(caps) != 2:
        return
    for i, (got, fr) in enumerate(zip(caps, (frames, opts["frames_b"]))):
        want = [f["no"] for f in fr]
        report(sorted(got) == want, "capture %s: an arrow for each of tshark's %d InfiniBand frames (%d drawn)" %
               ("AB"[i], len(want), len(got)))
    # a real click on an arrow of B: B's panel shows B's frame, as explain --json prints it
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    fb = opts["frames_b"][len(opts["frames_b"]) // 2]
    el = b.d.find_elements(By.CSS_SELECTOR, '.rl-cap')[1].find_element(
        By.CSS_SELECTOR, '.rl-arrow[data-frame="%d"]' % fb["no"])
    b.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    ActionChains(b.d).move_to_element(el).click().perform()
    from selenium.webdriver.support.ui import WebDriverWait
    js = """var p = document.getElementById('b-rl-detail'), j = document.getElementById('b-rl-detail-json');
            return p && j && p.getAttribute('data-frame') === arguments[0] ? [p.innerText, j.textContent] : null;"""
    try:
        got = WebDriverWait(b.d, 10, poll_frequency=0.05).until(lambda d: d.execute_script(js, str(fb["no"])))
    except Exception:
        got = None
    report(got is not None and json.loads(got[1]) == opts["explain_b"].get(fb["no"]),
           "a click on capture B's frame %d: B's panel holds explain --json's object of B's frame" % fb["no"])
    report(got is not None and all(shown(got[0], fb)),
           "... and shows tshark's opcode %d, PSN %d, destination QP 0x%06x" % (fb["op"], fb["psn"], fb["dqp"]))
    probs = b.problems()
    report(not probs, "no console warning or error%s" % ("" if not probs else ": " + "; ".join(probs[:3])))


def run_big(b, page, frames, explain, opts):
    n = opts["frame"]
    fx = {f["no"]: f for f in frames}
    url = "file://" + os.path.abspath(page) + "#frame-%d" % n
    t0 = time.monotonic()
    ready = b.load(url, opts["hang"])
    t = time.monotonic() - t0
    # the time is printed, not checked: only the hang guard bounds it
    report(ready, "the ready marker appears within the %d s hang guard (after %.1f s; the page: %d bytes)" %
           (opts["hang"], t, os.path.getsize(page)))
    if not ready:
        return
    got = b.d.execute_script("""var g = document.querySelector('.rl-arrow[data-frame="' + arguments[0] + '"]');
        if (!g) return null; var r = g.getBoundingClientRect();
        return [g.getAttribute('class'), r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth];""", str(n))
    n_arrows = b.d.execute_script("return document.querySelectorAll('.rl-arrow').length")
    report(got is not None and got[1], "#frame-%d, deep in the capture: its arrow is drawn and in view (%d arrows in the document)"
           % (n, n_arrows))
    if n in fx:
        if got:
            k = "rl-" + want_kind(fx[n])
            report(k in got[0].split(), "#frame-%d: its arrow is %s as tshark's frame says (%s)" % (n, k, got[0]))
        check_frame(b, n, fx[n], explain, "#frame-%d:" % n, need_json=False)
    p = b.problems()
    report(not p, "no console warning or error, no uncaught exception" +
           ("" if not p else ": " + " | ".join(x[:200] for x in p[:5])))


def read_rates(path):
    """tshark's RATE_FIELDS lines: (ns since the first frame, kind, destination QP, data bytes, lost, depth)."""
    from decimal import Decimal
    out = []
    with open(path) as f:
        for line in f:
            v = dict(zip(RATE_FIELDS, (line.rstrip("\n").split("\t") + [""] * len(RATE_FIELDS))[:len(RATE_FIELDS)]))
            if v["infiniband.bth.opcode"] == "":
                continue
            mc = v["infiniband.mad.mgmtclass"]
            fr = {"op": int(v["infiniband.bth.opcode"], 0), "syn": None, "mgmt": int(mc, 0) if mc else None,
                  "dqp": int(v["infiniband.bth.destqp"], 16)}
            m = DEPTH_COMMENT.match(v["frame.comment"])
            out.append({"t": int(Decimal(v["frame.time_relative"]) * 1000000000), "kind": want_kind(fr),
                        "dqp": fr["dqp"], "mgmt": fr["mgmt"], "bytes": int(v["data.len"] or 0), "lost": LOST in v["frame.comment"],
                        "depth": int(m.group(1)) if m else None})
    return out


def page_means(lines, t0, bin_ns, lo, hi):
    """Each line's Gbit/s over its bins lying within [lo, hi], and the span [a, b] those bins cover."""
    nb = len(lines[0]["bytes"]) if lines else 0
    qs = [q for q in range(nb) if t0 + q * bin_ns >= lo and t0 + (q + 1) * bin_ns <= hi + 1]
    if not qs:
        return None, None, None
    a, b = t0 + qs[0] * bin_ns, t0 + (qs[-1] + 1) * bin_ns
    return {l["qp"]: sum(l["bytes"][q] for q in qs) * 8 / (b - a) for l in lines}, a, b


def tshark_mean(rates, qp, a, b, last):
    """Gbit/s of qp's request bytes tshark reads in [a, b) (b included for the page's last bin)."""
    n = sum(r["bytes"] for r in rates if r["kind"] == "req" and r["dqp"] == qp and not r["lost"] and
            a <= r["t"] and (r["t"] < b or (last and r["t"] <= b)))
    return n * 8 / (b - a)


def run_rates(b, page, frames, explain, opts):
    from selenium.webdriver.common.by import By
    rates = read_rates(opts["rates"])
    url = "file://" + os.path.abspath(page)
    ready = b.load(url, 60)
    report(ready, "loads: the ready marker appears")
    if not ready:
        return
    got = b.d.execute_script("""var s = document.querySelector('svg.rl-rates');
        if (!s) return null;
        return [+s.getAttribute('data-t0'), +s.getAttribute('data-bin-ns'),
                Array.from(s.querySelectorAll('.rl-rate')).map(function (p) {
                    return {qp: +p.getAttribute('data-qp'), bytes: p.getAttribute('data-bytes').split(' ').map(Number)}; })];""")
    report(got is not None, "the page has a rates graph (svg.rl-rates)")
    if got is None:
        return
    t0, bin_ns, lines = got
    # g. one line per data flow
    flows = sorted({r["dqp"] for r in rates if r["kind"] == "req" and r["mgmt"] is None and r["bytes"] > 0})
    report(sorted(l["qp"] for l in lines) == flows, "one .rl-rate line per data flow tshark finds: QPs %s (lines: %s)" %
           (flows, sorted(l["qp"] for l in lines)))
    # h. the last third, against tshark's bytes over the same bins
    end = rates[-1]["t"]
    means, a, bb = page_means(lines, t0, bin_ns, end * 2 / 3, end)
    if means is None:
        report(False, "no bin of the rates graph lies in the last third of the capture")
        return
    for qp in flows:
        want = tshark_mean(rates, qp, a, bb, bb >= end)
        have = means.get(qp, 0)
        report(want > 0 and abs(have - want) <= 0.05 * want,
               "QP %d over the last third (%.3f..%.3f ms): the page's mean %.3f Gbit/s, tshark's bytes %.3f Gbit/s (5%%)" %
               (qp, a / 1e6, bb / 1e6, have, want))
    # i. fairness while both send
    if opts["fair"]:
        first, last = {}, {}
        for r in rates:
            if r["kind"] == "req" and r["dqp"] in flows:
                first.setdefault(r["dqp"], r["t"])
                last[r["dqp"]] = r["t"]
        lo, hi = max(first.values()), min(last.values())
        m, a, bb = page_means(lines, t0, bin_ns, lo + (hi - lo) * 2 / 3, hi)
        v = sorted(m.values()) if m else []
        report(len(v) == 2 and v[0] > 0 and v[1] - v[0] <= 0.10 * v[1],
               "while both flows send, over the last third (%s): the page's means %s Gbit/s are within 10%% of each other" %
               ("%.3f..%.3f ms" % (a / 1e6, bb / 1e6) if m else "no bin", ", ".join("%.3f" % x for x in v)))
    # j. the queue's depth
    depths = [r["depth"] for r in rates if r["depth"] is not None]
    dmax = b.d.execute_script("var s = document.querySelector('svg.rl-depth'); return s ? s.getAttribute('data-max') : null;")
    report(bool(depths) and dmax is not None and int(dmax) == max(depths),
           "the depth graph's max %s is the deepest of tshark's %d 'bottleneck queue N B' comments (%s)" %
           (dmax, len(depths), max(depths) if depths else "none"))
    # k. the rates graph's picture
    if opts["golden"]:
        el = b.d.find_element(By.CSS_SELECTOR, "svg.rl-rates")
        b.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
        time.sleep(0.3)     # let the scroll settle (not a check)
        screenshot(b, os.path.join(opts["tmp"], opts["name"] + "-rates.png"), opts["golden"], opts["update"],
                   opts["name"] + "-rates", el)
    p = b.problems()
    report(not p, "no console warning or error" + ("" if not p else ": " + " | ".join(x[:200] for x in p[:5])))


def main(argv):
    global label
    if argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + x for x in FIELDS))
        return 0
    if argv[1:] == ["--print-rate-fields"]:
        print(" ".join("-e " + x for x in RATE_FIELDS))
        return 0
    opts = {"want": [], "golden": "", "update": False, "select": 0, "big": False, "frame": 0, "hang": 300,
            "rates": "", "fair": False,
            "name": "page", "tmp": os.environ.get("TMPDIR", "/tmp")}
    args = argv[1:]
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--label":
            label = args.pop(0) + ": "
        elif a == "--name":
            opts["name"] = args.pop(0)
        elif a == "--want":
            opts["want"] = [x for x in args.pop(0).split(",") if x]
        elif a == "--golden":
            opts["golden"] = args.pop(0)
        elif a == "--update-golden":
            opts["update"] = True
        elif a == "--select":
            opts["select"] = int(args.pop(0))
        elif a == "--big":
            opts["big"] = True
        elif a == "--frame":
            opts["frame"] = int(args.pop(0))
        elif a == "--hang":
            opts["hang"] = int(args.pop(0))
        elif a == "--tmp":
            opts["tmp"] = args.pop(0)
        elif a == "--rates":
            opts["rates"] = args.pop(0)
        elif a == "--fair":
            opts["fair"] = True
        elif a == "--compare":
            opts["compare"] = (args.pop(0), args.pop(0))
        else:
            print("browser.py: unknown option " + a, file=sys.stderr)
            return 2
    page, tsv, jsonl = args
    # Our own session: every process Chromium starts stays in it, and is ended with it (by the
    # session's id, here and in run.sh's trap), whatever happens.
    own = True
    try:
        os.setsid()
    except OSError:
        own = False     # a group leader already (started by hand?): end nothing but the driver's own
    if own:
        with open(os.path.join(opts["tmp"], "sessions"), "a") as s:
            s.write("%d\n" % os.getsid(0))
    frames = read_tshark(tsv)
    explain = read_explain(jsonl)
    if "compare" in opts:
        opts["frames_b"] = read_tshark(opts["compare"][0])
        opts["explain_b"] = read_explain(opts["compare"][1])
    if not frames:
        report(False, "tshark reads no InfiniBand frame in the capture")
        return 1
    b = None
    try:
        b = Browser(opts["tmp"])
        run = (run_compare if "compare" in opts else run_big if opts["big"] else
               run_rates if opts["rates"] else run_small)
        run(b, page, frames, explain, opts)
    except Exception as e:
        report(False, "the browser failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    finally:
        if b:
            b.close()
        if own:
            end_session()
    return 1 if failed else 0


def end_session():
    """End what is left of our session's processes (Chromium's helpers), not ourselves."""
    me, sid = os.getpid(), os.getsid(0)
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != me:
            try:
                if os.getsid(int(p)) == sid:
                    os.kill(int(p), signal.SIGKILL)
            except OSError:
                pass


if __name__ == "__main__":
    sys.exit(main(sys.argv))
