#!/usr/bin/env python3
"""CM checks for tests/plugin/run.sh: what the RoCE Lab plugin should say about
CM MADs (IBA 12) and the data after them, worked out from Wireshark's own CM
dissector (infiniband.mad.*, infiniband.cm.*, infiniband.bth.*) and, for the
messages tshark 4.0 only names (MRA, DREP, LAP, APR, SIDR), from the MAD bytes
at the offsets of IBA 12.6, typed here. Never from rocelab's output. Standard
library only.

usage:
  check_cm.py fields                      the -e options run.sh passes to tshark
  check_cm.py stock-fields                those of stock tshark's alone (a prefix of fields)
  check_cm.py mutate IN.pcap OUT.pcap     the first REQ sent twice (10 ms apart) and
                                          the REP's Starting PSN moved by 5 (ICRC fixed)
  check_cm.py filters TSV PCAP            lines NAME<TAB>FILTER<TAB>FRAMES (comma list) to run with -Y
  check_cm.py check LABEL TSV PCAP FILTERS FILTERDIR [--resend] [--data]
                                          the plugin's links, resends, first-PSN notes and
                                          expert infos against the oracle; each filter
                                          selected exactly its frames (TSV: from tshark -2,
                                          for the links back to later frames); --resend and
                                          --data ask for at least one resend, one first PSN

Prints PASS/FAIL lines.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import check  # noqa: E402  (read_pcap, write_pcap, set_icrc, l3_offset, num, flag)
import tally                      # noqa: E402
from tally import check as ok     # noqa: E402

REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP, LAP, APR = range(0x10, 0x1b)
ABBR = {REQ: "req", MRA: "mra", REJ: "rej", REP: "rep", RTU: "rtu", DREQ: "dreq", DREP: "drep",
        SIDR_REQ: "sidr_req", SIDR_REP: "sidr_rep", LAP: "lap", APR: "apr"}
MAD_HDR = 24
# RC responses (IBA 9.2, Table 38): RDMA READ response First..Only, Acknowledge, ATOMIC Acknowledge.
RC_RESPONSES = set(range(0x0d, 0x13))

STOCK = [
    "frame.number", "frame.time_epoch", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
    "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
    "infiniband.mad.attributeid", "infiniband.mad.transactionid",
    "infiniband.cm.req", "infiniband.cm.req.localqpn", "infiniband.cm.req.startpsn",
    "infiniband.cm.rep", "infiniband.cm.rep.remotecommid", "infiniband.cm.rep.localqpn",
    "infiniband.cm.rep.startpsn",
    "infiniband.cm.rtu.localcommid", "infiniband.cm.rtu.remotecommid",
    "infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid", "infiniband.cm.rej.msgrej",
    "infiniband.cm.rej.reason",
    "infiniband.cm.dreq.localcommid", "infiniband.cm.dreq.remotecommid",
]
OURS = [
    "rocelab.cm.answers_frame", "rocelab.cm.answered_in", "rocelab.cm.original_frame",
    "rocelab.cm.resent_in", "rocelab.cm.retransmission", "rocelab.cm.psn_frame",
    "rocelab.cm.announced_psn", "rocelab.cm.psn_mismatch", "rocelab.cm.state",
    "rocelab.expert.cm_retransmission", "rocelab.expert.cm_psn_mismatch", "rocelab.expert.cm_reject",
    "_ws.col.Info",
]
FIELDS = STOCK + OURS

def load(tsv):
    rows = []
    with open(tsv) as f:
        for line in f:
            vals = line.rstrip("\n").split("\t")
            vals += [""] * (len(FIELDS) - len(vals))
            rows.append(dict(zip(FIELDS, vals)))
    return rows


def n(v):
    """A number as tshark prints it (decimal or 0x..), None when absent."""
    return check.num(v)


# ---- the MAD of a frame, at the offsets of IBA 12.6 -----------------------------

def mad_of(frame):
    """The 256-byte MAD of a UD SEND Only to QP1 in an Ethernet frame, or None."""
    l3 = check.l3_offset(frame)
    if l3 is None:
        return None
    udp = l3 + ((frame[l3] & 15) * 4 if frame[l3] >> 4 == 4 else 40)
    bth = udp + 8
    if len(frame) < bth + 12 + 8 + 256 or frame[bth] != 0x64:
        return None
    return bytes(frame[bth + 20:bth + 20 + 256])


def u32(b, off):
    return struct.unpack(">I", b[off:off + 4])[0]


# ---- the oracle ---------------------------------------------------------------------

class Msg:
    pass


def messages(rows, frames):
    """Every CM message: its frame, time, addresses, attribute, TID and communication IDs."""
    out = []
    for r in rows:
        attr = n(r["infiniband.mad.attributeid"])
        if attr not in ABBR:
            continue
        m = Msg()
        m.frame = int(r["frame.number"])
        m.t = float(r["frame.time_epoch"])
        m.src = r["ip.src"] or r["ipv6.src"]
        m.dst = r["ip.dst"] or r["ipv6.dst"]
        m.attr, m.tid = attr, n(r["infiniband.mad.transactionid"])
        m.ref = None
        mad = mad_of(frames[m.frame - 1][1])
        # tshark's own fields where it decodes the message; the bytes (IBA 12.6) where it only names it
        if attr == REQ:
            m.local, m.remote = n(r["infiniband.cm.req"]), 0
            m.qpn, m.psn = n(r["infiniband.cm.req.localqpn"]), n(r["infiniband.cm.req.startpsn"])
        elif attr == REP:
            m.local, m.remote = n(r["infiniband.cm.rep"]), n(r["infiniband.cm.rep.remotecommid"])
            m.qpn, m.psn = n(r["infiniband.cm.rep.localqpn"]), n(r["infiniband.cm.rep.startpsn"])
        elif attr == RTU:
            m.local, m.remote = n(r["infiniband.cm.rtu.localcommid"]), n(r["infiniband.cm.rtu.remotecommid"])
        elif attr == REJ:
            m.local, m.remote = n(r["infiniband.cm.rej.localcommid"]), n(r["infiniband.cm.rej.remotecommid"])
            m.ref = n(r["infiniband.cm.rej.msgrej"])
        elif attr == DREQ:
            m.local, m.remote = n(r["infiniband.cm.dreq.localcommid"]), n(r["infiniband.cm.dreq.remotecommid"])
        elif attr in (SIDR_REQ, SIDR_REP):
            m.local, m.remote = u32(mad, MAD_HDR), 0          # the request ID (Tables 119, 120)
        else:                                                  # MRA, DREP, LAP, APR: Local, Remote Comm ID
            m.local, m.remote = u32(mad, MAD_HDR), u32(mad, MAD_HDR + 4)
            if attr == MRA:
                m.ref = mad[MAD_HDR + 8] >> 6                  # Message MRAed, bits 7..6 (Table 107)
        out.append(m)
    return out


def same_conv(a, b):
    """b (a later message) belongs to a's connection: IDs cross over with the direction (IBA 12.6.3)."""
    if a.src == b.src and a.dst == b.dst:
        return a.local == b.local and (a.attr == REQ or b.attr == REQ or a.remote == b.remote)
    if a.src == b.dst and a.dst == b.src:
        return b.remote == a.local and (a.attr == REQ or not b.local or a.remote == 0 or b.local == a.remote)
    return False


def answered(m):
    ref = {0: REQ, 1: REP, 2: LAP}
    if m.attr in (MRA, REJ):
        return ref.get(m.ref)
    return {REP: REQ, RTU: REP, DREP: DREQ, APR: LAP, SIDR_REP: SIDR_REQ}.get(m.attr)


def oracle(rows, frames):
    """frame -> expectations: answers, original (a resend's previous copy), psn (frame, announced, mismatch)."""
    msgs = messages(rows, frames)
    want = {int(r["frame.number"]): {"answers": None, "original": None, "psn": None} for r in rows}
    resent = set()
    for i, m in enumerate(msgs):
        earlier = msgs[:i]
        for e in reversed(earlier):
            if (e.attr, e.src, e.dst, e.tid, e.local, e.remote) == (m.attr, m.src, m.dst, m.tid, m.local, m.remote):
                want[m.frame]["original"] = e.frame
                resent.add(m.frame)
                break
        a = answered(m)
        if a:
            sidr = m.attr == SIDR_REP
            for e in reversed(earlier):
                if e.attr == a and e.src == m.dst and e.dst == m.src and (
                        e.local == m.local if sidr else same_conv(e, m)):
                    want[m.frame]["answers"] = e.frame
                    break
    # The Starting PSN of a REQ (REP) is the first PSN its receiver sends to the sender's QP.
    for m in msgs:
        if m.attr not in (REQ, REP) or m.frame in resent:
            continue
        for r in rows:
            f = int(r["frame.number"])
            op = n(r["infiniband.bth.opcode"])
            if f <= m.frame or op is None or op >= 0x20 or op in RC_RESPONSES:
                continue
            if (r["ip.src"] or r["ipv6.src"]) == m.dst and (r["ip.dst"] or r["ipv6.dst"]) == m.src and \
                    n(r["infiniband.bth.destqp"]) == m.qpn:
                psn = n(r["infiniband.bth.psn"])
                want[f]["psn"] = (m.frame, m.psn, psn != m.psn)
                break
    return msgs, want


# ---- commands -------------------------------------------------------------------------

def cmd_mutate(src, dst):
    hdr, end, _, recs = check.read_pcap(src)
    out, done_req, done_rep = [], False, False
    for i, (h, frame) in enumerate(recs):
        mad = mad_of(frame)
        attr = struct.unpack(">H", mad[16:18])[0] if mad and mad[1] == 0x07 else None
        if attr == REP and not done_rep:
            frame = bytearray(frame)
            l3 = check.l3_offset(frame)
            total = struct.unpack(">H", frame[l3 + 2:l3 + 4])[0]
            off = l3 + total - 4 - 256 + MAD_HDR + 20          # REP Starting PSN (Table 110), before the ICRC
            psn = (int.from_bytes(frame[off:off + 3], "big") + 5) & 0xFFFFFF
            frame[off:off + 3] = psn.to_bytes(3, "big")
            check.set_icrc(frame)
            done_rep = True
        out.append([h, frame])
        if attr == REQ and not done_req:
            ts, tsf, orig = h
            nxt = recs[i + 1][0] if i + 1 < len(recs) else (ts + 1, 0, 0)
            t0, t1 = ts * 1000000 + tsf, nxt[0] * 1000000 + nxt[1]
            t = min(t0 + 10000, (t0 + t1) // 2)                # 10 ms later, before the next frame
            out.append([(t // 1000000, t % 1000000, orig), bytearray(frame)])
            done_req = True
    check.write_pcap(dst, hdr, end, out)
    return done_req and done_rep


def filters(rows, frames):
    """Display filters on rocelab.cm.* and the frames tshark's own fields say they select."""
    msgs = messages(rows, frames)
    out = []
    for attr, ab in sorted(ABBR.items()):
        sel = [m.frame for m in msgs if m.attr == attr]
        if sel:
            key = "request_id" if attr in (SIDR_REQ, SIDR_REP) else "local_comm_id"
            out.append(("has-" + ab, "rocelab.cm.%s.%s" % (ab, key), sel))
    for m in msgs:
        if m.attr == REQ:
            out.append(("req-qpn-%d" % m.frame, "rocelab.cm.req.local_qpn == 0x%x" % m.qpn,
                        [x.frame for x in msgs if x.attr == REQ and x.qpn == m.qpn]))
            out.append(("req-comm-%d" % m.frame, "rocelab.cm.req.local_comm_id == 0x%x" % m.local,
                        [x.frame for x in msgs if x.attr == REQ and x.local == m.local]))
        if m.attr == REP:
            out.append(("rep-psn-%d" % m.frame, "rocelab.cm.rep.starting_psn == %d" % m.psn,
                        [x.frame for x in msgs if x.attr == REP and x.psn == m.psn]))
            out.append(("rep-remote-%d" % m.frame, "rocelab.cm.rep.remote_comm_id == 0x%x" % m.remote,
                        [x.frame for x in msgs if x.attr == REP and x.remote == m.remote]))
        if m.attr == REJ:
            reason = n([r for r in rows if int(r["frame.number"]) == m.frame][0]["infiniband.cm.rej.reason"])
            out.append(("rej-reason-%d" % m.frame, "rocelab.cm.rej.reason == %d" % reason,
                        [int(r["frame.number"]) for r in rows if n(r["infiniband.cm.rej.reason"]) == reason]))
    tids = sorted({m.tid for m in msgs})
    for t in tids[:3]:
        out.append(("tid-%x" % t, "rocelab.cm.mad.tid == 0x%x" % t, [m.frame for m in msgs if m.tid == t]))
    return out


def cmd_check(label, tsv, pcap, fltfile, fdir):
    rows = load(tsv)
    frames = check.read_pcap(pcap)[3]
    msgs, want = oracle(rows, frames)
    ok(len(msgs) > 0, "%s: tshark's CM dissector sees %d CM messages" % (label, len(msgs)))
    answered_in, resent_in = {}, {}
    for f, w in sorted(want.items()):
        if w["answers"]:
            answered_in.setdefault(w["answers"], f)
        if w["original"]:
            resent_in.setdefault(w["original"], f)
    links = resends = psns = 0
    for r in rows:
        f = int(r["frame.number"])
        w = want[f]
        got_ans = n(r["rocelab.cm.answers_frame"])
        got_orig = n(r["rocelab.cm.original_frame"])
        if w["answers"] or got_ans:
            ok(got_ans == w["answers"], "%s: frame %d answers %s (plugin says %s)" % (label, f, w["answers"], got_ans))
        if answered_in.get(f) or r["rocelab.cm.answered_in"]:
            ok(n(r["rocelab.cm.answered_in"]) == answered_in.get(f),
               "%s: frame %d answered in %s" % (label, f, answered_in.get(f)))
        if w["original"] or got_orig:
            ok(got_orig == w["original"] and check.flag(r["rocelab.expert.cm_retransmission"]),
               "%s: frame %d resends frame %s, with an expert info" % (label, f, w["original"]))
            resends += 1
        elif check.flag(r["rocelab.expert.cm_retransmission"]):
            ok(False, "%s: frame %d: a CM retransmission expert info on a first copy" % (label, f))
        if f in resent_in or r["rocelab.cm.resent_in"]:
            ok(n(r["rocelab.cm.resent_in"]) == resent_in.get(f), "%s: frame %d sent again in %s" %
               (label, f, resent_in.get(f)))
        links += bool(w["answers"])
        p = w["psn"]
        got = (n(r["rocelab.cm.psn_frame"]), n(r["rocelab.cm.announced_psn"]),
               check.flag(r["rocelab.expert.cm_psn_mismatch"]))
        if p or got[0]:
            ok(got == p, "%s: frame %d's first PSN: the oracle says %s, the plugin %s" % (label, f, p, got))
            psns += 1
    ok(links > 0, "%s: %d CM links checked" % (label, links))
    with open(fltfile) as fl:
        for line in fl:
            name, flt, frames_want = line.rstrip("\n").split("\t")
            path = os.path.join(fdir, name)
            got = []
            if os.path.exists(path):
                with open(path) as g:
                    got = [int(x) for x in g.read().split()]
            want_frames = [int(x) for x in frames_want.split(",") if x]
            ok(got == want_frames, "%s: -Y '%s' selects frames %s (got %s)" % (label, flt, want_frames, got))
    return resends, psns


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd in ("fields", "stock-fields"):
        print(" ".join("-e " + f for f in (FIELDS if cmd == "fields" else STOCK)))
        return 0
    if cmd == "mutate":
        return 0 if cmd_mutate(argv[2], argv[3]) else 1
    if cmd == "filters":
        rows = load(argv[2])
        frames = check.read_pcap(argv[3])[3]
        for name, flt, sel in filters(rows, frames):
            print("%s\t%s\t%s" % (name, flt, ",".join(str(x) for x in sel)))
        return 0
    if cmd == "check":
        resends, psns = cmd_check(*argv[2:7])
        if "--resend" in argv[7:]:
            ok(resends > 0, "%s: %d resent CM messages checked" % (argv[2], resends))
        if "--data" in argv[7:]:
            ok(psns > 0, "%s: %d first-PSN notes checked" % (argv[2], psns))
        print("%s: %d passed, %d failed" % (argv[2], tally.passed, tally.failed))
        return 0 if tally.failed == 0 else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
