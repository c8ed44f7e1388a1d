#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rocelab explain's CM links against Wireshark's own CM dissector.

    cm_links.py LABEL EXPLAIN.jsonl EXPLAIN.txt TSHARK.tsv CAPTURE [--resend] [--data]

EXPLAIN.jsonl and EXPLAIN.txt are `rocelab explain --json` and `rocelab
explain` of CAPTURE; TSHARK.tsv is stock tshark's fields, the list
`../plugin/check_cm.py stock-fields` prints. The expectations -- which CM message each one answers and when,
which is a resend of which, and which data packet is the first to a QP whose
starting PSN a REQ or REP announced -- come from the oracle in
tests/plugin/check_cm.py, the one the plugin's tests use: it reads tshark's
infiniband.mad.* / infiniband.cm.* / infiniband.bth.* fields (and the MAD
bytes where tshark 4.0 only names the message), never rocelab's output.
--resend and --data ask for at least one resend and one first-PSN note.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "plugin"), os.path.join(HERE, "..", "lib")]
import check      # noqa: E402
import check_cm   # noqa: E402
import tally      # noqa: E402
from tally import check as ok   # noqa: E402

def abbr(attr):
    return check_cm.ABBR[attr].upper()


def main(argv):
    if len(argv) < 6:
        print(__doc__)
        return 2
    label, jsonl, txt, tsv, pcap = argv[1:6]
    rows = check_cm.load(tsv)
    frames = check.read_pcap(pcap)[3]
    msgs, want = check_cm.oracle(rows, frames)
    by_frame = {m.frame: m for m in msgs}
    times = {int(r["frame.number"]): float(r["frame.time_epoch"]) for r in rows}
    dqpn = {int(r["frame.number"]): check_cm.n(r["infiniband.bth.destqp"]) for r in rows}
    with open(jsonl) as f:
        ours = {j["frame"]: j for j in (json.loads(line) for line in f if line.strip())}
    with open(txt) as f:
        lines = {int(line.split(" ", 1)[0]): line.rstrip("\n") for line in f if line[:1].isdigit()}
    ok(len(msgs) > 0, "%s: tshark's CM dissector sees %d CM messages" % (label, len(msgs)))
    resends = psns = links = 0
    for fr, w in sorted(want.items()):
        if fr not in ours:
            continue
        cm = ours[fr].get("analysis", {}).get("cm", {})
        line = lines.get(fr, "")
        if fr in by_frame:
            ok(cm.get("msg") == abbr(by_frame[fr].attr), "%s: frame %d is a CM %s" % (label, fr, abbr(by_frame[fr].attr)))
        a = w["answers"]
        if a or cm.get("answers_frame"):
            links += 1
            ans = abbr(by_frame[a].attr) if a else None
            dt = round((times[fr] - times[a]) * 1e9) if a else None
            ok(cm.get("answers_frame") == a and cm.get("answers_msg") == ans and
               abs(cm.get("answer_time_ns", -10**9) - (dt or 0)) <= 1000,
               "%s: frame %d answers the %s of frame %s, %s ns later (explain says %s of %s, %s ns)" %
               (label, fr, ans, a, dt, cm.get("answers_msg"), cm.get("answers_frame"), cm.get("answer_time_ns")))
            ok(a and ("[answers %s of frame %d after " % (ans, a)) in line,
               "%s: frame %d's line shows the link to frame %s" % (label, fr, a))
        o = w["original"]
        if o or cm.get("original_frame"):
            resends += 1
            ok(cm.get("original_frame") == o and o and ("[RETRANSMISSION of frame %d]" % o) in line,
               "%s: frame %d is a resend of frame %s, in JSON and on its line" % (label, fr, o))
        p = w["psn"]
        if p or cm.get("psn_frame"):
            psns += 1
            got = (cm.get("psn_frame"), cm.get("announced_psn"), cm.get("psn_mismatch"))
            ok(p and got == p and cm.get("psn_msg") == abbr(by_frame[p[0]].attr),
               "%s: frame %d's first PSN: the oracle says %s, explain %s" % (label, fr, p, got))
            if p:
                note = ("[PSN MISMATCH: the %s of frame %d set QP 0x%x's first PSN to %d]" if p[2] else
                        "[QP 0x%x's first PSN %d was set in the %s of frame %d]")
                args = (abbr(by_frame[p[0]].attr), p[0], dqpn[fr], p[1]) if p[2] else \
                    (dqpn[fr], p[1], abbr(by_frame[p[0]].attr), p[0])
                ok((note % args) in line, "%s: frame %d's line has the note %s" % (label, fr, note % args))
    ok(links > 0, "%s: %d CM links checked" % (label, links))
    if "--resend" in argv[6:]:
        ok(resends > 0, "%s: %d resends checked" % (label, resends))
    if "--data" in argv[6:]:
        ok(psns > 0, "%s: %d first-PSN notes checked" % (label, psns))
    print("%s: %d passed, %d failed" % (label, tally.passed, tally.failed))
    return 0 if tally.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
