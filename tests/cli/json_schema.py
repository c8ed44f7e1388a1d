# SPDX-License-Identifier: MIT
"""docs/explain-json.md against the real output of rocelab explain --json.

Usage: json_schema.py ROCELAB DOC.md FIXTURE.pcap...

Makes captures of every kind with ROCELAB gen (every opcode over IPv4, IPv6,
VLAN and RoCEv1; malformed packets; every CM message; faults), relinks one as
raw IP, Linux cooked and cooked v2 (relink.py), adds the FIXTUREs (the real
kernel's captures), and runs explain --json, -T ek and -x over them all. Then:
every key path written is a row of the document's tables, with the same JSON
type; every row is written by some capture; the -T ek action lines are
tshark's; the document's example parses and uses documented keys only.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tally  # noqa: E402

SCENARIOS = ["demo", "all-opcodes", "malformed", "cm-messages", "request-loss", "rnr", "access-error",
             "ecn", "ud-sidr", "rping", "cm-connect", "cm-req-lost", "cm-mra", "cm-reject",
             "invalid-request", "lost-read-response", "duplicate"]
ROW = re.compile(r"^\| `([a-z0-9_.]+)` \| (number|string|boolean|object) \| .+ \|$")
EK_INDEX = re.compile(r'^\{"index":\{"_index":"packets-\d{4}-\d{2}-\d{2}","_type":"doc"\}\}$')


def json_type(v):
    if isinstance(v, dict):
        return "object"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    return "string"


def walk(obj, prefix, out, where):
    for k, v in obj.items():
        path = prefix + k
        out.setdefault(path, {}).setdefault(json_type(v), where)
        if isinstance(v, dict):
            walk(v, path + ".", out, where)


def explain(rocelab, args, capture):
    r = subprocess.run([rocelab, "explain"] + args + [capture], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    return r.stdout.decode().splitlines()


def main():
    rocelab, doc = sys.argv[1], sys.argv[2]
    fixtures = sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    tmp = tempfile.mkdtemp()
    caps = []
    for sc in SCENARIOS:
        for extra in ([], ["--ipv6", "--vlan", "7"]) if sc == "demo" else ([],):
            out = os.path.join(tmp, "%s%s.pcap" % (sc, "-v6" if extra else ""))
            subprocess.run([rocelab, "gen", sc, "-o", out] + extra, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            caps.append(out)
    for k in ("raw", "sll", "sll2"):
        out = os.path.join(tmp, k + ".pcap")
        subprocess.run([sys.executable, os.path.join(here, "relink.py"), caps[0], out, k], check=True)
        caps.append(out)
    caps += fixtures

    seen = {}
    objects = 0
    for cap in caps:
        name = os.path.basename(cap)
        for ln in explain(rocelab, ["--json"], cap):
            walk(json.loads(ln), "", seen, name + " --json")
            objects += 1
        ek = explain(rocelab, ["-T", "ek", "-x"], cap)
        pairs_ok = len(ek) % 2 == 0
        for i in range(0, len(ek) - 1, 2):
            pairs_ok = pairs_ok and bool(EK_INDEX.match(ek[i]))
            obj = json.loads(ek[i + 1])
            pairs_ok = pairs_ok and next(iter(obj)) == "timestamp" and list(obj)[-1] == "frame_raw"
            walk(obj, "", seen, name + " -T ek -x")
        tally.later(pairs_ok and ek, "%s: -T ek writes tshark's action line, then an object that starts with "
                    "\"timestamp\" and (with -x) ends with \"frame_raw\"" % name)

    rows = {}
    with open(doc) as f:
        text = f.read()
    for ln in text.splitlines():
        m = ROW.match(ln)
        if m:
            rows[m.group(1)] = m.group(2)
    tally.later(len(rows) > 100, "the document has its key tables (%d rows)" % len(rows))

    undocumented = sorted(k for k in seen if k not in rows)
    tally.later(not undocumented, "every key written is documented (%d keys from %d objects of %d captures)%s"
                % (len(seen), objects, len(caps), "; missing: " + ", ".join(undocumented) if undocumented else ""))
    never = sorted(k for k in rows if k not in seen)
    tally.later(not never, "every documented key is written by some capture%s"
                % ("; never written: " + ", ".join(never) if never else ""))
    wrong = sorted("%s is %s, documented %s (%s)" % (k, t, rows[k], w)
                   for k, types in seen.items() if k in rows for t, w in types.items() if t != rows[k])
    tally.later(not wrong, "every key has the documented type%s" % ("; " + "; ".join(wrong) if wrong else ""))

    m = re.search(r"```json\n(.*?)```", text, re.S)
    example = {}
    try:
        example = json.loads(m.group(1)) if m else {}
    except ValueError:
        pass
    ex_keys = {}
    walk(example, "", ex_keys, "example")
    tally.later(example and all(k in rows for k in ex_keys), "the document's example parses and uses documented keys")
    return tally.report("explain --json schema")


if __name__ == "__main__":
    sys.exit(main())
