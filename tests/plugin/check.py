#!/usr/bin/env python3
"""Helpers for tests/plugin/run.sh: what the RoCE Lab plugin should say, worked out
from the decoded packets (`rocelab explain --json`: BTH, AETH, RETH, IP and ICRC
fields only, never its "analysis" part) and from the frame bytes, and compared
with what tshark printed with the plugin loaded. Standard library only.

usage:
  check.py fields                         the -e options run.sh passes to tshark
  check.py filters SCENARIO               lines NAME<TAB>DISPLAY-FILTER to run with -Y
  check.py scenario SC PCAP JSONL ONEPASS.tsv TWOPASS.tsv FILTERDIR
  check.py port69 IN.pcap OUT.pcap        RoCE frames from host A get UDP source port 69, ICRC fixed
  check.py port69-check JSONL FIELDS.tsv ORIG.tsv
  check.py relink IN.pcap OUT.pcap raw|ipv4|sll|sll2   the same frames in another framing
  check.py same LABEL FIELDS.tsv ORIG.tsv             the analysis as over Ethernet
  check.py header-fields                  the -e options for the transport headers' fields
  check.py headers PCAP JSONL HEADERS.tsv every header field the plugin shows = the frame's bits

Prints PASS/FAIL lines.
"""
import json
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tally                # noqa: E402
from tally import check     # noqa: E402

# Fields read back from tshark -T fields, in this order.
FIELDS = [
    "frame.number", "frame.protocols", "rocelab.packet", "rocelab.summary", "rocelab.explanation",
    "rocelab.icrc", "rocelab.icrc.expected", "rocelab.icrc.status",
    "rocelab.bth.fecn", "rocelab.bth.becn",
    "rocelab.analysis.retransmission", "rocelab.analysis.duplicate", "rocelab.analysis.out_of_order",
    "rocelab.analysis.gap", "rocelab.analysis.missing", "rocelab.analysis.expected_psn",
    "rocelab.analysis.original_frame",
    "rocelab.response_to", "rocelab.response_in", "rocelab.time",
    "rocelab.request_frame", "rocelab.response_frame", "rocelab.response_time",
    "rocelab.ack.first_psn", "rocelab.ack.last_psn", "rocelab.ack.first_frame",
    "rocelab.msg.number", "rocelab.msg.bytes", "rocelab.msg.total",
    "rocelab.nak", "rocelab.nak.meaning", "rocelab.nak.resend_psn", "rocelab.nak.wr_fails", "rocelab.rnr.wait_us",
    "rocelab.nak.trigger_frame", "rocelab.nak.missing_first", "rocelab.nak.missing_last",
    "rocelab.ecn.ce", "rocelab.cnp",
    "rocelab.expert.retransmission", "rocelab.expert.duplicate", "rocelab.expert.out_of_order",
    "rocelab.expert.gap", "rocelab.expert.icrc_bad", "rocelab.expert.nak_psn_sequence",
    "rocelab.expert.nak_access_error", "rocelab.expert.nak", "rocelab.expert.rnr_nak",
    "rocelab.expert.ecn_ce", "rocelab.expert.cnp", "_ws.col.Info",
]

# A resend this long after the previous copy, with no NAK asking for it, is a
# retransmission after a timeout (IB's ACK timeout is 4.096 us * 2^n, in practice
# milliseconds); a copy sooner than that, with no NAK, is a duplicate.
TIMEOUT_S = 0.001

# Which earlier frame rocelab.analysis.original_frame names for a repeated PSN:
# analyze.h says "where this PSN was seen first" ("first"); "previous" would be
# the copy just before (a chain through every resend).
ORIGINAL = "previous"

# ---- input ------------------------------------------------------------------

def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def load_tsv(path):
    """frame number -> {field: value} ('' when absent)."""
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            cols = line.split("\t")
            cols += [""] * (len(FIELDS) - len(cols))
            row = dict(zip(FIELDS, cols))
            rows[int(row["frame.number"])] = row
    return rows


def load_frames(path):
    try:
        with open(path) as f:
            return sorted(int(x) for x in f.read().split())
    except OSError:
        return None


def num(v):
    """An integer field as tshark prints it, or None if absent."""
    if v == "":
        return None
    v = v.split(",")[0]
    return int(v, 0)


def flag(v):
    """A boolean/none field: present and true."""
    return v not in ("", "0", "False", "FALSE", "false")


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    linktype = struct.unpack(end + "I", data[20:24])[0]
    recs, off = [], 24
    while off + 16 <= len(data):
        ts, tsf, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        recs.append([(ts, tsf, orig), bytearray(data[off + 16:off + 16 + incl])])
        off += 16 + incl
    return data[:24], end, linktype, recs


def write_pcap(path, hdr, end, recs):
    with open(path, "wb") as f:
        f.write(hdr)
        for (ts, tsf, orig), frame in recs:
            f.write(struct.pack(end + "IIII", ts, tsf, len(frame), orig))
            f.write(bytes(frame))


# ---- the ICRC, from the bytes (IBA A17.3.3), independently of rocelab's code ----

def l3_offset(frame):
    """Offset of the IP header in an Ethernet frame (one optional 802.1Q tag), or None."""
    off, et = 14, struct.unpack(">H", frame[12:14])[0]
    if et == 0x8100:
        off, et = 18, struct.unpack(">H", frame[16:18])[0]
    return off if et in (0x0800, 0x86DD) else None


def icrc_display(frame):
    """(ICRC in the packet, ICRC of its bytes), both as Wireshark shows them (bytes read big-endian)."""
    l3 = l3_offset(frame)
    if l3 is None:
        return None
    if frame[l3] >> 4 == 4:
        ihl = (frame[l3] & 15) * 4
        total = struct.unpack(">H", frame[l3 + 2:l3 + 4])[0]
        pkt = bytearray(frame[l3:l3 + total])
        pkt[1] = 0xFF                     # TOS
        pkt[8] = 0xFF                     # TTL
        pkt[10:12] = b"\xff\xff"          # header checksum
        udp = ihl
    else:
        plen = struct.unpack(">H", frame[l3 + 4:l3 + 6])[0]
        pkt = bytearray(frame[l3:l3 + 40 + plen])
        pkt[0:4] = bytes([pkt[0] | 0x0F, 0xFF, 0xFF, 0xFF])  # traffic class, flow label
        pkt[7] = 0xFF                     # hop limit
        udp = 40
    pkt[udp + 6:udp + 8] = b"\xff\xff"    # UDP checksum
    pkt[udp + 8 + 4] = 0xFF               # BTH byte 4: FECN, BECN, reserved
    crc = zlib.crc32(b"\xff" * 8 + bytes(pkt[:-4])) & 0xFFFFFFFF
    wire = struct.unpack(">I", bytes(pkt[-4:]))[0]
    return wire, struct.unpack(">I", struct.pack("<I", crc))[0]


def set_icrc(frame):
    l3 = l3_offset(frame)
    total = struct.unpack(">H", frame[l3 + 2:l3 + 4])[0]
    _, want = icrc_display(frame)
    frame[l3 + total - 4:l3 + total] = struct.pack(">I", want)


# ---- the story, worked out from the decoded packets ----------------------------

def name(p):
    return p["bth"]["opcode_name"]


def is_cnp(p):
    return p["bth"]["opcode"] == 0x81


def is_response(p):
    return "Acknowledge" in name(p) or "response" in name(p)


def is_read_req(p):
    return name(p).endswith("RDMA READ Request")


def ipsrc(p):
    return p.get("ip", p.get("ipv6", p.get("grh", {}))).get("src")


def ipdst(p):
    return p.get("ip", p.get("ipv6", p.get("grh", {}))).get("dst")


def psn_add(a, n):
    return (a + n) & 0xFFFFFF


def psn_diff(a, b):
    d = (a - b) & 0xFFFFFF
    return d - 0x1000000 if d >= 0x800000 else d


class Oracle:
    """Per frame: what the analysis should find, from the wire facts and the scenario's rules."""

    def __init__(self, pkts):
        self.pkts = pkts
        self.by_frame = {p["frame"]: p for p in pkts}
        mids = [p["payload_len"] for p in pkts if name(p).endswith(("First", "Middle"))]
        self.pmtu = max(mids) if mids else 1024
        self.verdict = {}        # frame -> retransmission|duplicate|out_of_order|gap|in_order|first
        self.missing = {}        # gap frame -> PSNs skipped
        self.expected = {}       # frame -> expected PSN (in order and gap only)
        self.original = {}       # repeat frame -> frame where its PSN was seen first
        self.request = {}        # response frame -> request frame
        self.acks = {}           # response frame -> (first psn, last psn, first frame)
        self.nak_missing = {}    # PSN sequence error NAK frame -> (trigger frame or None, first, last PSN missing)
        self.msg = {}            # first-time SEND/WRITE frame -> (number, bytes so far, total or None)
        self.run()

    def span(self, p):
        if is_read_req(p):
            n = (p["reth"]["dma_len"] + self.pmtu - 1) // self.pmtu
            return max(1, n)
        return 1

    def run(self):
        flows = {}
        for p in self.pkts:
            if is_cnp(p) or p["bth"]["transport"] not in ("RC", "UC"):
                continue
            resp = is_response(p)
            key = (ipdst(p), ipsrc(p)) if resp else (ipsrc(p), ipdst(p))
            f = flows.setdefault(key, {"expected": None, "copies": {}, "first": {}, "licensed": set(),
                                       "reqs": [], "acked_next": None, "msgs": 0, "msg_bytes": 0})
            if resp:
                self.response(f, p)
            else:
                self.request_pkt(f, p)

    def request_pkt(self, f, p):
        fr, psn, n = p["frame"], p["bth"]["psn"], self.span(p)
        psns = [psn_add(psn, i) for i in range(n)]
        f["reqs"].append((fr, psns, p))
        if f["acked_next"] is None:
            f["acked_next"] = psn
        if psn in f["copies"]:
            prev_fr, prev_t = f["copies"][psn][-1]
            if psn in f["licensed"]:
                v = "retransmission"                 # a NAK asked for it
                f["licensed"].difference_update(psns)
            elif is_read_req(p) and psn not in [q[1][0] for q in f["reqs"][:-1] if is_read_req(q[2])]:
                v = "retransmission"                 # a READ asked again for the part still missing
            elif p["time"] - prev_t >= TIMEOUT_S:
                v = "retransmission"                 # after a timeout
            else:
                v = "duplicate"                      # no reason to resend: the network copied it
            self.original[fr] = f["first"][psn] if ORIGINAL == "first" else prev_fr
        else:
            if f["expected"] is None:
                v = "first"
            else:
                d = psn_diff(psn, f["expected"])
                v = "in_order" if d == 0 else "gap" if d > 0 else "out_of_order"
                if d >= 0:
                    self.expected[fr] = f["expected"]
                if d > 0:
                    self.missing[fr] = d
            if f["expected"] is None or psn_diff(psn, f["expected"]) >= 0:
                f["expected"] = psn_add(psn, n)
            nm = name(p)
            if "SEND" in nm or "WRITE" in nm:
                if nm.endswith(("First", "Only")) or "Only" in nm:
                    f["msgs"] += 1
                    f["msg_bytes"] = 0
                f["msg_bytes"] += p["payload_len"]
                last = nm.endswith("Last") or "Only" in nm or "Last with" in nm
                self.msg[fr] = (f["msgs"], f["msg_bytes"], f["msg_bytes"] if last else None)
        for q in psns:
            f["copies"].setdefault(q, []).append((fr, p["time"]))
            f["first"].setdefault(q, fr)
        self.verdict[fr] = v

    def latest_request(self, f, psn, read_only=False):
        for fr, psns, q in reversed(f["reqs"]):
            if psn in psns and (not read_only or is_read_req(q)):
                return fr
        return None

    def seq_err_trigger(self, f, psn):
        """The request a PSN sequence error NAK for @psn came on: the first of the latest run of requests past
        @psn, which must begin after one that is not past it (else the capture may start inside the run)."""
        run = None
        for fr, psns, q in reversed(f["reqs"]):
            if psn_diff(psns[0], psn) <= 0:
                return run
            run = (fr, psns[0])
        return None

    def response(self, f, p):
        fr, psn, nm = p["frame"], p["bth"]["psn"], name(p)
        rq = self.latest_request(f, psn, read_only="READ response" in nm)
        aeth = p.get("aeth")
        if aeth and aeth["type"] == "NAK" and aeth.get("nak_code") == 0:
            trig = self.seq_err_trigger(f, psn)
            rq = trig[0] if trig else None
            self.nak_missing[fr] = (rq, psn, psn_add(trig[1], -1) if trig else psn)
        if rq:
            self.request[fr] = rq
        if not aeth or nm.endswith("READ response First") or f["acked_next"] is None:
            return
        last = psn if aeth["type"] == "ACK" else psn_add(psn, -1)
        if aeth["type"] in ("NAK", "RNR NAK") and f["expected"] is not None:
            # resend from psn: every PSN from there up to the last one sent
            q = psn
            while psn_diff(q, f["expected"]) < 0:
                f["licensed"].add(q)
                q = psn_add(q, 1)
        if psn_diff(last, f["acked_next"]) >= 0:
            self.acks[fr] = (f["acked_next"], last, self.latest_request(f, f["acked_next"]))
            f["acked_next"] = psn_add(last, 1)

    def frames(self, verdict):
        return sorted(fr for fr, v in self.verdict.items() if v == verdict)


def aeth_kind(p):
    a = p.get("aeth")
    if not a or a["type"] == "ACK":
        return None
    if a["type"] == "RNR NAK":
        return "rnr"
    return {0: "psn", 2: "access"}.get(a.get("nak_code"), "other")


def ce(p):
    if "ip" in p:
        return p["ip"]["ecn"] == 3
    return False


# ---- checks ----------------------------------------------------------------------

def story_checks(sc, o, pkts):
    """The scenario's known story, to make sure the expectations above are not empty."""
    a = ipsrc(pkts[0])
    from_a = [p for p in pkts if ipsrc(p) == a]
    naks = [p for p in pkts if aeth_kind(p)]
    rt = o.frames("retransmission")
    if sc == "request-loss":
        nak = naks[0]["frame"]
        want = [p["frame"] for p in from_a if p["frame"] > nak]
        check(rt == want and want, "%s: the story: the frames resent after the NAK are retransmissions %s" % (sc, want))
    elif sc == "lost-ack":
        check(rt == [from_a[1]["frame"]], "%s: the story: the WRITE sent again is a retransmission" % sc)
    elif sc == "lost-read-response":
        reads = [p["frame"] for p in pkts if is_read_req(p)]
        check(rt == reads[1:] and len(reads) == 2, "%s: the story: the second READ is a retransmission" % sc)
    elif sc == "rnr":
        check(rt == [p["frame"] for p in from_a[1:]] and rt, "%s: the story: every SEND after an RNR NAK is a retransmission" % sc)
    elif sc == "access-error":
        check([aeth_kind(p) for p in naks] == ["access"], "%s: the story: one NAK, remote access error" % sc)
    elif sc == "icrc-corruption":
        check(len([p for p in pkts if not p["icrc"]["ok"]]) == 1, "%s: the story: one corrupted frame" % sc)
    elif sc == "duplicate":
        check(o.frames("duplicate") == [from_a[1]["frame"]] and not rt, "%s: the story: one duplicate, no retransmission" % sc)
    elif sc == "reorder":
        check(len(o.frames("gap")) == 1 and len(o.frames("out_of_order")) == 1,
              "%s: the story: one gap and one out-of-order packet" % sc)
    elif sc == "ecn":
        check([p for p in pkts if ce(p)] and [p for p in pkts if is_cnp(p)], "%s: the story: CE marks and a CNP" % sc)


def compare(sc, mode, o, pkts, frames, rows, twopass):
    label = "%s (%s)" % (sc, mode)
    roce = [p["frame"] for p in pkts]
    check(sorted(fr for fr, r in rows.items() if r["rocelab.packet"]) == roce,
          "%s: a RoCE Lab tree on every RoCE frame and no other" % label)
    check(all(rows.get(fr, {}).get("rocelab.summary") for fr in roce), "%s: every RoCE frame has a summary" % label)
    check(all(rows[fr]["rocelab.summary"] in rows[fr]["_ws.col.Info"] for fr in roce if fr in rows),
          "%s: the summary is in the Info column" % label)

    def fset(field, pred=flag):
        return sorted(fr for fr, r in rows.items() if pred(r[field]))

    def eq(got, want, what):
        check(got == want, "%s: %s: got %s, want %s" % (label, what, got, want))

    # ICRC, against a CRC of the bytes computed here
    bad = [fr for fr, (w, c) in frames.items() if w != c]
    eq(fset("rocelab.icrc.status", lambda v: v == "0"), bad, "frames with rocelab.icrc.status bad")
    eq(fset("rocelab.icrc.status", lambda v: v == "1"), sorted(set(roce) - set(bad)), "frames with a good ICRC")
    eq(fset("rocelab.expert.icrc_bad"), bad, "ICRC expert infos")
    wrong = [fr for fr, (w, c) in frames.items()
             if num(rows[fr]["rocelab.icrc.expected"]) != c or num(rows[fr]["rocelab.icrc"]) != w]
    eq(wrong, [], "frames whose rocelab.icrc / rocelab.icrc.expected differ from the CRC of their bytes")

    # BTH congestion bits and ECN
    eq(fset("rocelab.bth.fecn"), [p["frame"] for p in pkts if p["bth"]["fecn"]], "rocelab.bth.fecn")
    eq(fset("rocelab.bth.becn"), [p["frame"] for p in pkts if p["bth"]["becn"]], "rocelab.bth.becn")
    eq(fset("rocelab.ecn.ce"), [p["frame"] for p in pkts if ce(p)], "rocelab.ecn.ce (IP ECN = 11)")
    eq(fset("rocelab.expert.ecn_ce"), [p["frame"] for p in pkts if ce(p)], "ECN expert infos")
    eq(fset("rocelab.cnp"), [p["frame"] for p in pkts if is_cnp(p)], "rocelab.cnp (opcode 0x81)")
    eq(fset("rocelab.expert.cnp"), [p["frame"] for p in pkts if is_cnp(p)], "CNP expert infos")

    # PSN analysis
    for v, field, ex in (("retransmission", "rocelab.analysis.retransmission", "rocelab.expert.retransmission"),
                         ("duplicate", "rocelab.analysis.duplicate", "rocelab.expert.duplicate"),
                         ("out_of_order", "rocelab.analysis.out_of_order", "rocelab.expert.out_of_order"),
                         ("gap", "rocelab.analysis.gap", "rocelab.expert.gap")):
        eq(fset(field), o.frames(v), field)
        eq(fset(ex), o.frames(v), ex)
    tags = {"[Retransmission]": "retransmission", "[Duplicate]": "duplicate", "[Out of order]": "out_of_order",
            "[Gap: ": "gap"}
    for tag, v in tags.items():
        eq(fset("_ws.col.Info", lambda info, t=tag: t in info), o.frames(v), "%s in the Info column" % tag)
    eq(fset("_ws.col.Info", lambda info: "[ICRC bad]" in info), bad, "[ICRC bad] in the Info column")
    eq({fr: num(rows[fr]["rocelab.analysis.missing"]) for fr in o.missing}, o.missing, "rocelab.analysis.missing")
    eq({fr: num(rows[fr]["rocelab.analysis.expected_psn"]) for fr in o.expected}, o.expected,
       "rocelab.analysis.expected_psn on in-order and gap frames")
    eq({fr: num(r["rocelab.analysis.original_frame"]) for fr, r in rows.items()
        if r["rocelab.analysis.original_frame"]}, o.original,
       "rocelab.analysis.original_frame: the %s frame with that PSN" % ORIGINAL)

    # request -> response links
    eq({fr: num(r["rocelab.response_to"]) for fr, r in rows.items() if r["rocelab.response_to"]}, o.request,
       "rocelab.response_to: the latest request with the response's PSN")
    rt_bad = []
    for fr, rq in o.request.items():
        want = o.by_frame[fr]["time"] - o.by_frame[rq]["time"]
        got = rows[fr]["rocelab.time"]
        if not got or abs(float(got) - want) > 2e-9:
            rt_bad.append(fr)
    eq(rt_bad, [], "frames whose rocelab.time is not their request's time to them")
    if twopass:
        answered = {}
        for fr in sorted(o.request):
            answered.setdefault(o.request[fr], fr)
        eq({fr: num(r["rocelab.response_in"]) for fr, r in rows.items() if r["rocelab.response_in"]},
           answered, "rocelab.response_in: the first response naming the request")
    # The links' first names (the lab guides use rocelab.request_frame) still carry the same values.
    for old, new in (("rocelab.request_frame", "rocelab.response_to"), ("rocelab.response_frame", "rocelab.response_in"),
                     ("rocelab.response_time", "rocelab.time")):
        eq(sorted(fr for fr, r in rows.items() if r[old] != r[new]), [],
           "frames where the old name %s differs from %s (%d frames carry it)"
           % (old, new, len([r for r in rows.values() if r[new]])))

    # ACKs
    got = {fr: (num(r["rocelab.ack.first_psn"]), num(r["rocelab.ack.last_psn"]), num(r["rocelab.ack.first_frame"]))
           for fr, r in rows.items() if r["rocelab.ack.last_psn"]}
    eq(got, o.acks, "rocelab.ack.first_psn/last_psn/first_frame: what each ACK newly acknowledges")

    # NAKs
    kinds = {p["frame"]: aeth_kind(p) for p in pkts if aeth_kind(p)}
    eq(fset("rocelab.nak"), sorted(kinds), "rocelab.nak on every NAK and RNR NAK")
    eq(fset("rocelab.nak.meaning", bool), sorted(kinds), "rocelab.nak.meaning on every NAK")
    want = {p["frame"]: p["bth"]["psn"] for p in pkts if aeth_kind(p) in ("psn", "rnr")}
    eq({fr: num(r["rocelab.nak.resend_psn"]) for fr, r in rows.items() if r["rocelab.nak.resend_psn"]}, want,
       "rocelab.nak.resend_psn = the PSN the NAK carries")
    eq({fr: (num(r["rocelab.nak.trigger_frame"]) or None, num(r["rocelab.nak.missing_first"]),
             num(r["rocelab.nak.missing_last"]) if r["rocelab.nak.missing_last"] else num(r["rocelab.nak.missing_first"]))
        for fr, r in rows.items() if r["rocelab.nak.missing_first"]}, o.nak_missing,
       "rocelab.nak.trigger_frame/missing_first/missing_last: the first request past the NAK's PSN, the PSNs before it")
    want = {p["frame"]: p["aeth"]["rnr_delay_us"] for p in pkts if aeth_kind(p) == "rnr"}
    eq({fr: num(r["rocelab.rnr.wait_us"]) for fr, r in rows.items() if r["rocelab.rnr.wait_us"]}, want,
       "rocelab.rnr.wait_us = the RNR timer's delay")
    for kind, ex in (("psn", "rocelab.expert.nak_psn_sequence"), ("access", "rocelab.expert.nak_access_error"),
                     ("other", "rocelab.expert.nak"), ("rnr", "rocelab.expert.rnr_nak")):
        eq(fset(ex), sorted(fr for fr, k in kinds.items() if k == kind), ex)
    eq(fset("rocelab.nak.wr_fails"), sorted(fr for fr, k in kinds.items() if k in ("access", "other")),
       "rocelab.nak.wr_fails on the NAKs that end the work request")

    # messages (first transmissions of SEND and WRITE packets)
    got = {fr: (num(rows[fr]["rocelab.msg.number"]), num(rows[fr]["rocelab.msg.bytes"]),
                num(rows[fr]["rocelab.msg.total"]) if m[2] is not None else None)
           for fr, m in o.msg.items()}
    eq(got, o.msg, "rocelab.msg.number/bytes/total")


def cmd_scenario(sc, pcap, jsonl, one, two, fdir):
    pkts = load_jsonl(jsonl)
    _, _, _, recs = read_pcap(pcap)
    frames = {}
    for i, (_, fr) in enumerate(recs, 1):
        d = icrc_display(fr)
        if d:
            frames[i] = d
    o = Oracle(pkts)
    story_checks(sc, o, pkts)
    compare(sc, "one pass", o, pkts, frames, load_tsv(one), False)
    compare(sc, "two passes", o, pkts, frames, load_tsv(two), True)
    for nm, flt, want in filters(sc, o, pkts, frames):
        for mode in ("1", "2"):
            got = load_frames("%s/%s.%s" % (fdir, nm, mode))
            check(got == want, "%s (%s): -Y '%s' gives frames %s, want %s" %
                  (sc, "one pass" if mode == "1" else "two passes", flt, got, want))
    return tally.failed == 0


def filters(sc, o=None, pkts=(), frames=None):
    """(name, display filter, frames it must return) for a scenario."""
    out = [("retransmission", "rocelab.analysis.retransmission", o and o.frames("retransmission"))]
    if sc == "icrc-corruption":
        out.append(("icrc_bad", 'rocelab.icrc.status == "bad"',
                    frames and sorted(fr for fr, (w, c) in frames.items() if w != c)))
    if sc == "duplicate":
        out.append(("duplicate", "rocelab.analysis.duplicate", o and o.frames("duplicate")))
    if sc == "reorder":
        out.append(("ooo_gap", "rocelab.analysis.out_of_order || rocelab.analysis.gap",
                    o and sorted(o.frames("out_of_order") + o.frames("gap"))))
    if sc == "access-error":
        out.append(("access", "rocelab.expert.nak_access_error",
                    [p["frame"] for p in pkts if aeth_kind(p) == "access"]))
    if sc == "rnr":
        out.append(("rnr", "rocelab.rnr.wait_us >= 640", [p["frame"] for p in pkts if aeth_kind(p) == "rnr"]))
    if sc == "ecn":
        out.append(("ce", "rocelab.ecn.ce", [p["frame"] for p in pkts if ce(p)]))
        out.append(("cnp", "rocelab.cnp && rocelab.bth.becn == 1", [p["frame"] for p in pkts if is_cnp(p)]))
    if sc == "lost-read-response":
        out.append(("read_again", "rocelab.analysis.retransmission && rocelab.bth.opcode == 0x0c",
                    o and [fr for fr in o.frames("retransmission") if is_read_req(o.by_frame[fr])]))
    return out


def cmd_port69(src, dst):
    hdr, end, linktype, recs = read_pcap(src)
    first_src = None
    changed = 0
    for _, fr in recs:
        l3 = l3_offset(fr)
        if l3 is None or fr[l3] >> 4 != 4:
            continue
        ip_src = bytes(fr[l3 + 12:l3 + 16])
        first_src = first_src or ip_src
        if ip_src != first_src:
            continue
        udp = l3 + (fr[l3] & 15) * 4
        fr[udp:udp + 2] = struct.pack(">H", 69)
        set_icrc(fr)
        changed += 1
    write_pcap(dst, hdr, end, recs)
    print("port69: %d frames now from UDP port 69" % changed)


def cmd_port69_check(jsonl, fields, orig):
    pkts = load_jsonl(jsonl)
    rows, before = load_tsv(fields), load_tsv(orig)
    a = ipsrc(pkts[0])
    moved = [p["frame"] for p in pkts if ipsrc(p) == a]
    check(all(p["udp"]["sport"] == 69 for p in pkts if p["frame"] in moved) and moved,
          "port 69: requests now come from UDP source port 69 (%s)" % moved)
    check(all(p["icrc"]["ok"] for p in pkts), "port 69: rocelab explain agrees the recomputed ICRCs are good")
    check(all("tftp" in rows[fr]["frame.protocols"].split(":") and
              "infiniband" not in rows[fr]["frame.protocols"].split(":") for fr in moved),
          "port 69: tshark hands those frames to TFTP, not to its InfiniBand dissector")
    check(all(rows[fr]["rocelab.packet"] and rows[fr]["rocelab.icrc.status"] == "1" for fr in rows),
          "port 69: the RoCE Lab tree is still on every frame, ICRC good")
    same_analysis(rows, before, "port 69", "as from the usual source port")


# What must not change when only the framing or the source port does.
SAME = ["rocelab.packet", "rocelab.icrc.status", "rocelab.analysis.retransmission", "rocelab.analysis.gap",
        "rocelab.response_to", "rocelab.time", "rocelab.ack.first_psn", "rocelab.ack.last_psn",
        "rocelab.nak.resend_psn", "rocelab.msg.bytes"]


def same_analysis(rows, before, label, how):
    for f in SAME:
        got = {fr: rows[fr][f] for fr in sorted(rows) if rows[fr][f]}
        want = {fr: before[fr][f] for fr in sorted(before) if before[fr][f]}
        check(got == want and (want or f != "rocelab.packet"), "%s: %s %s (%d frames)" % (label, f, how, len(want)))


def relink(frame, kind):
    """An Ethernet frame as raw IP, IPv4, Linux cooked v1 or v2 (what tcpdump -i any writes)."""
    etype, body = bytes(frame[12:14]), bytes(frame[14:])
    if etype == b"\x81\x00":
        etype, body = bytes(frame[16:18]), bytes(frame[18:])
    if kind in ("raw", "ipv4"):
        return body
    if kind == "sll":    # packet type, ARPHRD_ETHER, address length, address (8), protocol
        return struct.pack(">HHH", 4, 1, 6) + bytes(frame[6:12]) + b"\0\0" + etype + body
    # sll2: protocol, reserved, interface index, ARPHRD_ETHER, packet type, address length, address (8)
    return etype + b"\0\0" + struct.pack(">IHBB", 2, 1, 4, 6) + bytes(frame[6:12]) + b"\0\0" + body


LINKTYPES = {"raw": 101, "sll": 113, "ipv4": 228, "sll2": 276}


def cmd_relink(src, dst, kind):
    hdr, end, linktype, recs = read_pcap(src)
    assert linktype == 1, "relink: expected an Ethernet capture"
    hdr = hdr[:20] + struct.pack(end + "I", LINKTYPES[kind])
    out = []
    for (ts, tsf, orig), fr in recs:
        new = relink(fr, kind)
        out.append([(ts, tsf, orig - (len(fr) - len(new))), bytearray(new)])
    write_pcap(dst, hdr, end, out)


def cmd_same(label, fields, orig):
    same_analysis(load_tsv(fields), load_tsv(orig), label, "as over Ethernet")


# ---- the transport headers' fields, against the bytes (IBA 9.2, 9.3, A14, 1.5) ----

# header -> (length, [(field, byte offset, bytes, shift, bits)]), typed from the spec's layouts.
SPEC = {
    "bth": (12, [("opcode", 0, 1, 0, 8), ("se", 1, 1, 7, 1), ("migreq", 1, 1, 6, 1), ("padcnt", 1, 1, 4, 2),
                 ("tver", 1, 1, 0, 4), ("pkey", 2, 2, 0, 16), ("fecn", 4, 1, 7, 1), ("becn", 4, 1, 6, 1),
                 ("dest_qp", 5, 3, 0, 24), ("ackreq", 8, 1, 7, 1), ("psn", 9, 3, 0, 24)]),
    "rdeth": (4, [("ee_context", 1, 3, 0, 24)]),
    "deth": (8, [("qkey", 0, 4, 0, 32), ("src_qp", 5, 3, 0, 24)]),
    "xrceth": (4, [("srq", 1, 3, 0, 24)]),
    "feth": (4, [("sel", 3, 1, 4, 2), ("plt", 3, 1, 0, 4)]),
    "reth": (16, [("va", 0, 8, 0, 64), ("rkey", 8, 4, 0, 32), ("dma_len", 12, 4, 0, 32)]),
    "atomiceth": (28, [("va", 0, 8, 0, 64), ("rkey", 8, 4, 0, 32), ("swap_add", 12, 8, 0, 64),
                       ("compare", 20, 8, 0, 64)]),
    "aeth": (4, [("syndrome", 0, 1, 0, 8), ("msn", 1, 3, 0, 24)]),
    "atomicacketh": (8, [("orig", 0, 8, 0, 64)]),
    "immdt": (4, [("data", 0, 4, 0, 32)]),
    "ieth": (4, [("rkey", 0, 4, 0, 32)]),
}
# The order in which extended headers follow the BTH (IBA 9.2 Figure 98; XRCETH A14; FETH 1.5).
EXT_ORDER = ["rdeth", "deth", "xrceth", "feth", "reth", "atomiceth", "aeth", "atomicacketh", "immdt", "ieth"]
HFIELDS = ["rocelab.%s.%s" % (h, f[0]) for h in ["bth"] + EXT_ORDER for f in SPEC[h][1]]


def bth_offset(frame):
    """Offset of the BTH in an Ethernet frame: after IPv4/IPv6 and UDP, or after a RoCEv1 GRH."""
    off, et = 14, struct.unpack(">H", frame[12:14])[0]
    if et == 0x8100:
        off, et = 18, struct.unpack(">H", frame[16:18])[0]
    if et == 0x0800:
        return off + (frame[off] & 0x0F) * 4 + 8
    if et == 0x86DD:
        return off + 40 + 8
    return off + 40 if et == 0x8915 else None


def bits(frame, off, nbytes, shift, width):
    return (int.from_bytes(frame[off:off + nbytes], "big") >> shift) & ((1 << width) - 1)


# The headers after the BTH of the IBA 1.5 / rxe opcodes, typed from the spec rather than taken from
# rocelab's own explain --json: FLUSH carries FETH and RETH, ATOMIC WRITE a RETH (and 8 bytes of payload).
IBA15_HEADERS = {0x1C: ["feth", "reth"], 0x1D: ["reth"]}


def cmd_headers(pcap, jsonl, tsv):
    _, _, _, recs = read_pcap(pcap)
    pkts = [p for p in load_jsonl(jsonl) if "bth" in p]
    rows = {}
    with open(tsv) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            cols += [""] * (len(HFIELDS) + 1 - len(cols))
            rows[int(cols[0])] = dict(zip(HFIELDS, cols[1:]))
    wrong, absent, compared, by_hdr, own = [], [], 0, {}, []
    for p in pkts:
        fno = p["frame"]
        op = p["bth"]["opcode"]
        frame = recs[fno - 1][1]
        off = bth_offset(frame)
        present = ["bth"] + [h for h in EXT_ORDER if h in p]
        if op in IBA15_HEADERS:
            if present[1:] != IBA15_HEADERS[op]:
                own.append("frame %d (%s): explain --json shows %s" % (fno, p["bth"]["opcode_name"], present[1:]))
            present = ["bth"] + IBA15_HEADERS[op]
        hoff = {}
        for h in present:
            hoff[h] = off
            off += SPEC[h][0]
        for fld in HFIELDS:
            h, name = fld.split(".")[1:]
            got = rows.get(fno, {}).get(fld, "")
            if h not in hoff:
                if got != "":
                    absent.append("frame %d (%s): %s=%s, but it has no %s" % (fno, p["bth"]["opcode_name"], fld, got, h))
                continue
            o, n, sh, w = [x for x in SPEC[h][1] if x[0] == name][0][1:]
            want = bits(frame, hoff[h] + o, n, sh, w)
            if got in ("True", "False"):
                got = "1" if got == "True" else "0"
            compared += 1
            if got == "" or int(got, 0) != want:
                wrong.append("frame %d (%s): %s: plugin %r, bytes %d" % (fno, p["bth"]["opcode_name"], fld, got, want))
            else:
                by_hdr[(op, h)] = by_hdr.get((op, h), 0) + 1
    per_hdr = {}
    for (_, h), n in by_hdr.items():
        per_hdr[h] = per_hdr.get(h, 0) + n
    check(not wrong, "headers: %d field values the plugin shows equal the frame's bits (%s)%s"
          % (compared, ", ".join("%s %d" % kv for kv in sorted(per_hdr.items())), "; " + "; ".join(wrong[:3]) if wrong else ""))
    check(not absent, "headers: no field of a header the packet does not carry%s"
          % ("; " + "; ".join(absent[:3]) if absent else ""))
    check(not own, "headers: rocelab explain --json gives FLUSH and ATOMIC WRITE the IBA 1.5 headers%s"
          % ("; " + "; ".join(own[:3]) if own else ""))
    for op, hdrs in sorted(IBA15_HEADERS.items()):
        n = sum(1 for p in pkts if p["bth"]["opcode"] == op)
        shown = ["%s %d" % (h, by_hdr.get((op, h), 0)) for h in hdrs]
        check(n > 0 and all(by_hdr.get((op, h), 0) > 0 for h in hdrs),
              "headers: opcode 0x%02x is in the capture (%d packets) and the plugin shows its %s (field values: %s)"
              % (op, n, " and ".join(hdrs), ", ".join(shown)))


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "fields":
        print(" ".join("-e " + f for f in FIELDS))
        return 0
    if cmd == "filters":
        for nm, flt, _ in filters(argv[2], None, (), None):
            print("%s\t%s" % (nm, flt))
        return 0
    if cmd == "scenario":
        return 0 if cmd_scenario(*argv[2:8]) else 1
    if cmd == "port69":
        cmd_port69(argv[2], argv[3])
        return 0
    if cmd == "relink":
        cmd_relink(argv[2], argv[3], argv[4])
        return 0
    if cmd == "same":
        cmd_same(argv[2], argv[3], argv[4])
        return 0 if tally.failed == 0 else 1
    if cmd == "header-fields":
        print(" ".join("-e " + f for f in HFIELDS))
        return 0
    if cmd == "headers":
        cmd_headers(*argv[2:5])
        return 0 if tally.failed == 0 else 1
    if cmd == "port69-check":
        cmd_port69_check(*argv[2:5])
        return 0 if tally.failed == 0 else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
