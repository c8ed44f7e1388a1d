#!/usr/bin/python3
"""A `rocelab report` page as a file: strict HTML, self-contained.

    static_check.py [--label L] PAGE.html

Runs with Debian's /usr/bin/python3 (python3-html5lib). Checks:
  * html5lib's strict parser (the WHATWG parsing algorithm, not ours) reads it without a
    parse error;
  * it references nothing outside itself: no src= or href= (nor srcset, xlink:href, action,
    poster, data=) to a URL with a scheme or a network path (//host), no <link>, <base>,
    <iframe>, <object>, <embed>, no @import and no url(...) in its styles but data: and
    #fragment ones, no fetch/XMLHttpRequest/import()/WebSocket/EventSource/sendBeacon in its
    script;
  * its shell is docs/report-format.md's: the rl-rows and rl-summary JSON scripts parse as
    JSON (rows an array of arrays, the summary an object), a <main id="rl-app">.
"""
import json
import re
import sys

label = ""
failed = 0


def report(ok, text):
    global failed
    failed += not ok
    print(("PASS " if ok else "FAIL ") + label + text)


EXTERNAL = re.compile(r"^\s*([a-z][a-z0-9+.-]*:|//)", re.I)
URL_ATTRS = ("src", "href", "srcset", "action", "formaction", "poster", "data", "background", "manifest")


def main(argv):
    global label
    args = argv[1:]
    if args[:1] == ["--label"]:
        label, args = args[1] + ": ", args[2:]
    import html5lib
    raw = open(args[0], "rb").read()
    try:
        doc = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(raw)
    except Exception as e:      # html5lib.html5parser.ParseError
        report(False, "html5lib strict parse: %s" % e)
        return 1
    report(True, "html5lib's strict parser reads it without an error")

    bad = []
    for el in doc.iter():
        tag = el.tag if isinstance(el.tag, str) else ""
        tag = tag.rsplit("}", 1)[-1]
        if tag in ("link", "base", "iframe", "object", "embed"):
            bad.append("<%s>" % tag)
        for k, v in el.attrib.items():
            name = k.rsplit("}", 1)[-1] if isinstance(k, str) else k[1]
            if name in URL_ATTRS or name == "xlink:href":
                for part in (v.split(",") if name == "srcset" else [v]):
                    m = EXTERNAL.match(part)
                    if m and m.group(1).lower() not in ("data:", "blob:", "about:", "javascript:"):
                        bad.append('<%s %s="%.60s">' % (tag, name, v))
            if name == "style":
                bad += css_refs(v, tag)
        if tag == "style":
            bad += css_refs(el.text or "", tag)
        if tag == "script" and el.get("src") is not None:
            bad.append("<script src=...>")
    # a script may fetch too; what it does fetch is seen in the browser (browser.py's resources)
    for el in doc.iter("script"):
        if el.get("type") in (None, "", "text/javascript", "module"):
            for m in re.finditer(r"\b(fetch\s*\(|XMLHttpRequest|import\s*\(|WebSocket|EventSource|sendBeacon)", el.text or ""):
                bad.append("the script calls %s" % m.group(1))
    report(not bad, "references nothing outside itself" + ("" if not bad else ": " + "; ".join(bad[:6])))

    def script(i):
        els = [e for e in doc.iter("script") if e.get("id") == i]
        return els[0].text if len(els) == 1 else None
    rows, summ = script("rl-rows"), script("rl-summary")
    try:
        r = json.loads(rows) if rows is not None else None
        ok = isinstance(r, list) and all(isinstance(x, list) for x in r)
    except ValueError:
        ok = False
    report(ok, "one <script id=rl-rows> holding a JSON array of rows")
    try:
        s = json.loads(summ) if summ is not None else None
        ok = isinstance(s, dict)
    except ValueError:
        ok = False
    report(ok, "one <script id=rl-summary> holding a JSON object")
    report(any(e.get("id") == "rl-app" for e in doc.iter("main")), '<main id="rl-app">')
    return 1 if failed else 0


def css_refs(css, tag):
    out = []
    for m in re.finditer(r"@import\b", css, re.I):
        out.append("@import in <%s>" % tag)
    for m in re.finditer(r"url\(\s*['\"]?([^'\")]*)", css, re.I):
        if not m.group(1).strip().lower().startswith(("data:", "#")):
            out.append("url(%.60s) in <%s>" % (m.group(1), tag))
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv))
