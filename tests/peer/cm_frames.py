#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CM exchange of a capture as Wireshark's own CM dissector reads it, and the data that follows.

    cm_frames.py --print-fields
    cm_frames.py CLIENT-IP < TSHARK.tsv

TSHARK.tsv: `tshark -T fields -E separator=/t -E occurrence=f` with the --print-fields fields.
Prints one line of words, for the test to match:
  seq=REQ,REP,RTU,DREQ,DREP   each message's first appearance, in order (tshark's attribute IDs)
  resent=REQ,...              messages seen more than once with the same transaction ID
  and, for what the capture holds, each `NAME=ok` or `NAME=BAD(...)`:
  rep_qpn   the client's requests go to the QP the REP named (its Local QPN)
  rep_psn   the client's first request has the REP's Starting PSN
  req_qpn   the server's packets go to the QP the REQ named
  req_psn   the server's first request has the REQ's Starting PSN
  sidr_qpn, sidr_qkey  the client's UD SENDs go to the QPN and carry the Q_Key of the SIDR_REP
The Starting PSN semantics are the kernel's (tests/fixtures/rxe/rping.pcap): the PSN a REQ or
REP carries is where its receiver's requests start.
"""
import sys

FIELDS = ["ip.src", "ipv6.src", "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
          "infiniband.mad.attributeid", "infiniband.mad.transactionid", "infiniband.cm.req.localqpn",
          "infiniband.cm.req.startpsn", "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn",
          "infiniband.mad.data", "infiniband.deth.q_key"]
# IBA 16.7.2 Table 227 (CM attribute IDs)
NAMES = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP",
         0x17: "SIDR_REQ", 0x18: "SIDR_REP", 0x19: "LAP", 0x1a: "APR"}
# IBA Table 35: responses (READ responses, Acknowledge, Atomic Acknowledge), RC 13..18
RESPONSES = set(range(13, 19))


def num(s):
    return int(s, 0) if s else None


def main():
    if sys.argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + f for f in FIELDS))
        return 0
    client = sys.argv[1]
    seq, seen, resent = [], {}, []
    req = rep = sidr = None
    first_req = {}      # side -> (destqp, psn) of its first request packet
    first_any = {}      # side -> destqp of its first packet
    ud_sends = []
    for line in sys.stdin:
        f = dict(zip(FIELDS, line.rstrip("\n").split("\t")))
        side = "client" if (f["ip.src"] or f["ipv6.src"]) == client else "server"
        qp = num(f["infiniband.bth.destqp"])
        if qp is None:
            continue
        if qp == 1:
            attr = num(f["infiniband.mad.attributeid"])
            name = NAMES.get(attr, hex(attr or 0))
            key = (name, f["infiniband.mad.transactionid"])
            if name not in seq:
                seq.append(name)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 2:
                resent.append(name)
            if name == "REQ" and req is None:
                req = (num(f["infiniband.cm.req.localqpn"]), num(f["infiniband.cm.req.startpsn"]))
            if name == "REP" and rep is None:
                rep = (num(f["infiniband.cm.rep.localqpn"]), num(f["infiniband.cm.rep.startpsn"]))
            if name == "SIDR_REP" and sidr is None:
                d = bytes.fromhex(f["infiniband.mad.data"].replace(":", ""))
                # SIDR_REP (IBA 12.11.2): QPN in bytes 8-10, Q_Key in 20-23 after the MAD header
                sidr = (int.from_bytes(d[8:11], "big"), int.from_bytes(d[20:24], "big"))
            continue
        op = num(f["infiniband.bth.opcode"])
        first_any.setdefault(side, qp)
        if op not in RESPONSES and op < 64:
            first_req.setdefault(side, (qp, num(f["infiniband.bth.psn"])))
        if op >= 96 and side == "client":
            ud_sends.append((qp, num(f["infiniband.deth.q_key"])))
    out = ["seq=" + ",".join(seq), "resent=" + ",".join(resent)]

    def check(name, got, want):
        out.append(f"{name}=ok" if got == want else f"{name}=BAD({got!r}!={want!r})")
    if rep and "client" in first_req:
        check("rep_qpn", first_req["client"][0], rep[0])
        check("rep_psn", first_req["client"][1], rep[1])
    if req and "server" in first_any:
        check("req_qpn", first_any["server"], req[0])
    if req and "server" in first_req:
        check("req_psn", first_req["server"][1], req[1])
    if sidr and ud_sends:
        check("sidr_qpn", sorted({q for q, _ in ud_sends}), [sidr[0]])
        check("sidr_qkey", sorted({k for _, k in ud_sends}), [sidr[1]])
    print(" ".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
