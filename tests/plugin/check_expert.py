#!/usr/bin/env python3
"""The plugin's expert infos as `tshark -q -z expert` lists them, with no display
filter and no -V (so no protocol tree is built: the RDMA engineer's triage command),
counted per kind and compared with counts worked out here from the fields of
tshark's own InfiniBand dissector (run without the plugin) and from the frame
bytes (the ICRC, with zlib). Nothing comes from rocelab's decoder or analyzer.
Standard library only.

usage:
  check_expert.py fields                       the -e options for stock tshark
  check_expert.py check LABEL STOCK.tsv EXPERT.txt PCAP

Prints PASS/FAIL lines.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from tally import check        # noqa: E402
import tally                   # noqa: E402
from check import read_pcap, icrc_display, psn_add, psn_diff  # noqa: E402

FIELDS = ["frame.number", "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "ip.dsfield.ecn",
          "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome",
          "infiniband.mad.attributeid", "infiniband.mad.transactionid"]

# IBA 9.7.5.1: AETH syndrome bits 6..5 say ACK (0), RNR NAK (1) or NAK (3); a NAK's low bits its code.
SYN_RNR, SYN_NAK = 1, 3
NAK_PSN_SEQ, NAK_REM_ACCESS = 0, 2
OP_CNP = 0x81
CM_REJ = 0x0012           # IBA 16.7.2 attribute IDs: the CM's REJ
ECN_CE = 3
TIMEOUT_S = 0.001          # a resend this late with no NAK asking is one after a timeout (as check.py)

# How each kind's expert info reads in the -z expert listing (the plugin's summaries).
KINDS = [
    ("retransmission", r"^Retransmission of PSN \d+$"),
    ("duplicate", r"^Duplicate of PSN \d+"),
    ("out_of_order", r"^Out of order: PSN \d+"),
    ("gap", r"^Gap: PSN \d+ expected"),
    ("icrc_bad", r"^ICRC mismatch"),
    ("nak_psn", r"resend from PSN \d+$"),
    ("rnr_nak", r"the responder had no receive buffer"),
    ("nak_access", r"wrong R_Key, address or rights"),
    ("ecn_ce", r"^ECN Congestion Experienced"),
    ("cnp", r"^CNP: "),
    ("cm_retransmission", r"^CM \S+ retransmission"),
    ("cm_reject", r"^Connection rejected"),
]


# What `rocelab gen` injects in each scenario (its --list says so), so that the counts
# above are not vacuous: request-loss loses the second of a SEND's four packets, and
# go-back-N sends it and the two after it again.
STORIES = {
    "request-loss": {"nak_psn": 1, "retransmission": 3},
    "lost-ack": {"retransmission": 1},
    "rnr": {"rnr_nak": 1},
    "access-error": {"nak_access": 1},
    "icrc-corruption": {"icrc_bad": 1},
    "duplicate": {"duplicate": 1},
    "reorder": {"gap": 1, "out_of_order": 1},
    "cm-req-lost": {"cm_retransmission": 1},
    "cm-reject": {"cm_reject": 1},
}


def parse_expert(path):
    """kind -> count of the RoCE Lab expert infos in tshark's -z expert listing; unknown summaries."""
    counts, unknown, total = {k: 0 for k, _ in KINDS}, [], 0
    row = re.compile(r"^\s*(\d+)\s+(\S+)\s+(.*?)  (.*)$")
    with open(path) as f:
        for line in f:
            m = row.match(line.rstrip("\n"))
            if not m or m.group(3).strip() != "RoCE Lab":
                continue
            n, summary = int(m.group(1)), m.group(4)
            total += n
            for kind, rx in KINDS:
                if re.search(rx, summary):
                    counts[kind] += n
                    break
            else:
                unknown.append(summary)
    return counts, unknown, total


def load_stock(path):
    rows = []
    with open(path) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            cols += [""] * (len(FIELDS) - len(cols))
            r = dict(zip(FIELDS, cols))
            if r["infiniband.bth.opcode"]:
                rows.append(r)
    return rows


def first(v):
    return v.split(",")[0]


def num(v):
    return int(first(v), 0) if v else None


def is_response(op):
    # IBA 9.2 Table 39: within each transport's 32 opcodes, 13..18 are RDMA READ responses and ACKs.
    return op < 0x80 and 13 <= (op & 0x1F) <= 18


def oracle(rows, pcap):
    """kind -> how many expert infos the capture calls for, from stock fields and the bytes."""
    want = {k: 0 for k, _ in KINDS}
    flows = {}
    cm_seen = set()
    for r in rows:
        src = first(r["ip.src"] or r["ipv6.src"])
        dst = first(r["ip.dst"] or r["ipv6.dst"])
        op, psn, t = num(r["infiniband.bth.opcode"]), num(r["infiniband.bth.psn"]), float(r["frame.time_epoch"])
        syn = num(r["infiniband.aeth.syndrome"])
        if num(r["ip.dsfield.ecn"]) == ECN_CE:
            want["ecn_ce"] += 1
        if op == OP_CNP:
            want["cnp"] += 1
            continue
        attr = num(r["infiniband.mad.attributeid"])
        if attr is not None:
            key = (src, attr, r["infiniband.mad.transactionid"])
            if key in cm_seen:
                want["cm_retransmission"] += 1
            cm_seen.add(key)
            if attr == CM_REJ:
                want["cm_reject"] += 1
            continue
        if is_response(op):
            f = flows.setdefault((dst, src), {"expected": None, "seen": {}, "resend_next": None})
            if syn is not None and syn >> 5 == SYN_RNR:
                want["rnr_nak"] += 1
            elif syn is not None and syn >> 5 == SYN_NAK:
                kind = {NAK_PSN_SEQ: "nak_psn", NAK_REM_ACCESS: "nak_access"}.get(syn & 0x1F, "other")
                want[kind] = want.get(kind, 0) + 1
            if syn is not None and syn >> 5 in (SYN_RNR, SYN_NAK):
                f["resend_next"] = psn          # go back to this PSN (IBA 9.7.5.1, 9.9.2)
            continue
        f = flows.setdefault((src, dst), {"expected": None, "seen": {}, "resend_next": None})
        if psn in f["seen"]:
            # A NAK's go-back-N resends its PSN and each one after it, in order; a copy
            # nobody asked for is a retransmission after a timeout if late, else a duplicate.
            asked = f["resend_next"] == psn
            f["resend_next"] = psn_add(psn, 1) if asked else None
            want["retransmission" if asked or t - f["seen"][psn] >= TIMEOUT_S else "duplicate"] += 1
        elif f["expected"] is not None and psn_diff(psn, f["expected"]) > 0:
            want["gap"] += 1
        elif f["expected"] is not None and psn_diff(psn, f["expected"]) < 0:
            want["out_of_order"] += 1
        if psn not in f["seen"] and (f["expected"] is None or psn_diff(psn, f["expected"]) >= 0):
            f["expected"] = psn_add(psn, 1)
        f["seen"][psn] = t
    _, _, _, recs = read_pcap(pcap)
    for _, frame in recs:
        d = icrc_display(frame)
        if d and d[0] != d[1]:
            want["icrc_bad"] += 1
    return want


def cmd_check(label, stock, expert, pcap):
    rows = load_stock(stock)
    got, unknown, total = parse_expert(expert)
    want = oracle(rows, pcap)
    check(rows, "%s: tshark's InfiniBand dissector sees %d RoCE frames" % (label, len(rows)))
    check(not unknown, "%s: every RoCE Lab expert info in the listing is of a known kind%s"
          % (label, "; not: " + "; ".join(unknown[:3]) if unknown else ""))
    check(want.get("other", 0) == 0, "%s: no NAK of a kind this check does not count" % label)
    for kind, _ in KINDS:
        check(got[kind] == want[kind], "%s: -z expert lists %d %s, the InfiniBand fields and bytes say %d"
              % (label, got[kind], kind, want[kind]))
    check(total == sum(v for k, v in want.items() if k != "other") and total > 0,
          "%s: %d RoCE Lab expert infos in all" % (label, total))
    for kind, n in STORIES.get(label.split(" ")[0], {}).items():
        check(want[kind] >= n, "%s: the scenario's fault shows in the InfiniBand fields: %d %s (at least %d)"
              % (label, want[kind], kind, n))
    return want


def main(argv):
    if len(argv) >= 2 and argv[1] == "fields":
        print(" ".join("-e " + f for f in FIELDS))
        return 0
    if len(argv) == 6 and argv[1] == "check":
        cmd_check(*argv[2:6])
        return 0 if tally.failed == 0 else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
