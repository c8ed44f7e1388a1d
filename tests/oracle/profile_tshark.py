#!/usr/bin/env python3
"""Check `rocelab explain --compare` rows against Wireshark's own dissector.

usage: profile_tshark.py --label L FIELDS.tsv COMPARE.txt
       profile_tshark.py --label L --pair FIELDS_B.tsv FIELDS_A.tsv COMPARE.txt

FIELDS.tsv is what tshark printed for one capture with
  -Y infiniband -T fields -E separator=/t -e <FIELDS below>
and COMPARE.txt what `rocelab explain --compare X X` printed for the same
capture (the same file twice: column A and column B must both agree).
Each row is worked out here from tshark's fields alone, by the IB spec's
opcode numbers, and compared with rocelab's text. One PASS/FAIL line per
row; exit status 1 if any failed. With --pair, COMPARE.txt is `--compare A B`
of two captures, and the rows marked '*' must be those whose verdicts differ.
"""
import argparse
import sys

FIELDS = ["ip.src", "ipv6.src", "ip.id", "ip.flags.df", "ip.ttl", "udp.srcport", "udp.checksum",
          "udp.length", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.a",
          "infiniband.bth.psn", "infiniband.aeth.syndrome", "frame.number"]

# The frames each capture's rows call resends, to name them when the count differs.
RESENT_FRAMES = {}

# RC opcodes (IBA 9.2 Table 35): requests that end a message, requests that do not,
# and the extended header bytes before the payload of First/Middle packets.
RC_REQ_END = {2, 3, 4, 5, 8, 9, 10, 11, 12, 19, 20, 22, 23, 28, 29}   # 28, 29: FLUSH, ATOMIC WRITE (IBA 1.5)
RC_REQ_MORE = {0, 1, 6, 7}
FULL_PACKET_HDR = {0: 0, 1: 0, 6: 16, 7: 0, 13: 4, 14: 0}   # SEND F/M, WRITE F/M, READ resp F/M
ACKNOWLEDGE = 17


def num(v):
    return int(v, 0) if v else 0


def rows_from_tshark(lines, name=""):
    pk = []
    for line in lines:
        f = line.rstrip("\n").split("\t")
        f += [""] * (len(FIELDS) - len(f))
        pk.append(dict(zip(FIELDS, f)))
    v4 = [p for p in pk if p["ip.src"]]
    v6 = [p for p in pk if p["ipv6.src"]]
    rows = {"RoCE packets": "%d (IPv4 %d, IPv6 %d)" % (len(pk), len(v4), len(v6))}

    if not v4:
        for r in ("UDP checksum (IPv4)", "IPv4 Identification", "Don't Fragment", "TTL"):
            rows[r] = "- (no IPv4)"
        return rows_rc(pk, rows, name)
    zero = sum(1 for p in v4 if num(p["udp.checksum"]) == 0)
    rows["UDP checksum (IPv4)"] = ("0 in every packet" if zero == len(v4) else
                                   "computed in every packet" if zero == 0 else
                                   "0 in %d of %d" % (zero, len(v4)))

    last, nxt, other, idzero = {}, 0, 0, 0
    for p in v4:
        ident, src = num(p["ip.id"]), p["ip.src"]
        if ident == 0:
            idzero += 1
        elif src in last:
            if ident == (last[src] + 1) & 0xffff:
                nxt += 1
            else:
                other += 1
        last[src] = ident
    later = nxt + other
    if idzero == len(v4):
        rows["IPv4 Identification"] = "0 in every packet"
    elif later and nxt * 10 >= later * 9 and not idzero:
        rows["IPv4 Identification"] = "+1 per packet of each sender"
    elif later and nxt * 2 >= later:
        rows["IPv4 Identification"] = "counts up, with jumps"
    else:
        rows["IPv4 Identification"] = "0 in some packets, varies" if idzero else "varies"

    df = sum(1 for p in v4 if p["ip.flags.df"] in ("1", "True"))
    rows["Don't Fragment"] = ("set in every packet" if df == len(v4) else "never set" if not df else
                              "set in %d of %d" % (df, len(v4)))
    ttls = sorted(num(p["ip.ttl"]) for p in v4)
    rows["TTL"] = "%d" % ttls[0] if ttls[0] == ttls[-1] else "%d-%d" % (ttls[0], ttls[-1])
    return rows_rc(pk, rows, name)


def rows_rc(pk, rows, name):
    """Rows of the UDP port and the RC transport."""

    ports, changes = {}, 0
    for p in pk:
        key = (p["ip.src"] or p["ipv6.src"], num(p["infiniband.bth.destqp"]))
        port = num(p["udp.srcport"])
        if key in ports and ports[key] != port:
            changes += 1
        ports[key] = port
    lo = min(num(p["udp.srcport"]) for p in pk)
    hi = max(num(p["udp.srcport"]) for p in pk)
    what = ("changes within a QP" if lo != hi else "changes") if changes else "one per QP"
    rows["UDP source port"] = "%s: %d" % (what, lo) if lo == hi else "%s: %d-%d" % (what, lo, hi)

    pmtu = 0
    for p in pk:
        op = num(p["infiniband.bth.opcode"])
        if op in FULL_PACKET_HDR:
            pmtu = max(pmtu, num(p["udp.length"]) - 8 - 12 - FULL_PACKET_HDR[op] - 4)
    rows["Path MTU (payload)"] = "%d bytes" % pmtu if pmtu else "- (no multi-packet message)"

    ends = [p for p in pk if num(p["infiniband.bth.opcode"]) in RC_REQ_END]
    more = [p for p in pk if num(p["infiniband.bth.opcode"]) in RC_REQ_MORE]
    ack_ends = sum(1 for p in ends if p["infiniband.bth.a"] in ("1", "True"))
    ack_more = sum(1 for p in more if p["infiniband.bth.a"] in ("1", "True"))
    if not ends and not more:
        rows["AckReq (BTH)"] = "- (no RC request)"
    elif ack_ends == len(ends) and not ack_more:
        rows["AckReq (BTH)"] = "on each message's last packet"
    elif ack_ends == len(ends) and ack_more == len(more):
        rows["AckReq (BTH)"] = "on every request packet"
    elif not ack_ends and not ack_more:
        rows["AckReq (BTH)"] = "never"
    else:
        rows["AckReq (BTH)"] = "%d of %d ends, %d of %d others" % (ack_ends, len(ends), ack_more, len(more))

    acks = [num(p["infiniband.aeth.syndrome"]) for p in pk
            if num(p["infiniband.bth.opcode"]) == ACKNOWLEDGE and (num(p["infiniband.aeth.syndrome"]) >> 5) & 3 == 0]
    none = sum(1 for s in acks if s & 0x1f == 31)
    rows["ACK credits (AETH)"] = ("- (no ACK)" if not acks else "none advertised (31)" if none == len(acks) else
                                  "a count in every ACK" if not none else "none in %d of %d" % (none, len(acks)))

    # A PSN of one destination QP seen again in a request from the same host: a resend. The
    # sender is part of the key: two hosts' QPs often have the same number (rxe counts from 17 on
    # each), and the two directions' PSNs may meet.
    seen, resends = set(), 0
    for p in pk:
        if num(p["infiniband.bth.opcode"]) in RC_REQ_END | RC_REQ_MORE:
            key = (p["ip.src"] or p["ipv6.src"], num(p["infiniband.bth.destqp"]), num(p["infiniband.bth.psn"]))
            if key in seen:
                resends += 1
                RESENT_FRAMES.setdefault(name, []).append(p["frame.number"])
            seen.add(key)
    rows["Resent packets"] = str(resends) if resends else "none"
    return rows


def columns(line, bstart):
    """The label, column A and column B of a row of the --compare table."""
    return line[2:24].rstrip(), line[25:bstart].rstrip(), line[bstart:].rstrip()


def column_b(lines):
    """Where column B starts: at the second file's name in the header (the line above the rows)."""
    for i, line in enumerate(lines):
        if line.startswith("  RoCE packets") and i > 0:
            head = lines[i - 1].rstrip("\n")
            return len(head) - len(head.split()[-1])
    return 60


# Rows whose text is their whole verdict: --compare marks them '*' exactly when the texts differ.
CATEGORICAL = ["UDP checksum (IPv4)", "IPv4 Identification", "Don't Fragment", "TTL", "Path MTU (payload)",
               "AckReq (BTH)", "ACK credits (AETH)"]


def read_rows(path):
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    if not lines:
        print("FAIL %s: tshark found no RoCE packet in it" % path)
        sys.exit(1)
    return rows_from_tshark(lines, path)


def main():
    if sys.argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + f for f in FIELDS))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="")
    ap.add_argument("--pair", metavar="FIELDS_B.tsv",
                    help="COMPARE.txt compares two captures: FIELDS.tsv is A's, this B's")
    ap.add_argument("fields")
    ap.add_argument("compare")
    a = ap.parse_args()
    want_a = read_rows(a.fields)
    want_b = read_rows(a.pair) if a.pair else want_a
    got, marked = {}, set()
    with open(a.compare) as f:
        lines = f.readlines()
    bstart = column_b(lines)
    for line in lines:
        label, ca, cb = columns(line, bstart)
        if label in want_a:
            got[label] = (ca, cb)
            if line.startswith("*"):
                marked.add(label)
    bad = 0
    for label in want_a:
        ca, cb = got.get(label, ("(missing)", "(missing)"))
        if label == "Resent packets":
            ca, cb = ca.split(",")[0], cb.split(",")[0]
        ok = ca == want_a[label] and cb == want_b[label]
        bad += not ok
        why = ""
        if not ok and label == "Resent packets":
            why = " (tshark's resends: frames %s / %s)" % (",".join(RESENT_FRAMES.get(a.fields, [])[:20]) or "-",
                                                          ",".join(RESENT_FRAMES.get(a.pair, [])[:20]) or "-")
        print("%s %s: %s: rocelab '%s' / '%s', tshark's fields say '%s' / '%s'%s"
              % ("PASS" if ok else "FAIL", a.label, label, ca, cb, want_a[label], want_b[label], why))
    if a.pair:
        should = {r for r in CATEGORICAL if want_a[r] != want_b[r] and not want_a[r].startswith("-")
                  and not want_b[r].startswith("-")}
        shown = marked & set(CATEGORICAL)
        ok = should == shown
        bad += not ok
        print("%s %s: rows marked as differing: %s (by tshark's fields: %s)"
              % ("PASS" if ok else "FAIL", a.label, ", ".join(sorted(shown)) or "none",
                 ", ".join(sorted(should)) or "none"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
