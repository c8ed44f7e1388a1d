#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CM scenarios of `rocelab gen`, read by Wireshark's own CM dissector.

    cm_tshark.py --print-fields                       the tshark -e arguments
    cm_tshark.py SCENARIO OURS.tsv [--real REAL.tsv]  the checks; PASS/FAIL lines

OURS.tsv (and REAL.tsv, a capture of the real kernel from tests/fixtures/rxe/)
is `tshark -T fields -E separator=/t -E occurrence=f` with the fields
--print-fields names, one row per frame. Every value checked here is what
tshark decoded; every expectation comes from the IBA, from librdmacm's
constants, or from the real kernel's capture, never from rocelab's output.
tshark 4.0 names MRA and SIDR_REQ/SIDR_REP without decoding them: their
fields are read from its MAD data bytes, at the offsets of IBA Volume 1
Release 1.2.1 (the same table as tests/oracle/compare_cm.py).
"""
import argparse
import ipaddress
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
from compare_cm import RAW, raw_field  # noqa: E402  the oracle's table of MRA/SIDR fields
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tally                        # noqa: E402
from tally import later as check    # noqa: E402

# IBA 16.7.2 (Table 237 in Release 1.2.1): the CM's attribute IDs.
REQ, MRA, REJ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18
NAMES = {REQ: "REQ", MRA: "MRA", REJ: "REJ", REP: "REP", RTU: "RTU", DREQ: "DREQ", DREP: "DREP",
         SIDR_REQ: "SIDR_REQ", SIDR_REP: "SIDR_REP"}
CM_CLASS = 0x07           # IBA 13.4.4: the Communication Management class
GSI_QPN = 1               # IBA 13.5.1: the GSI is QP1 ...
GSI_QKEY = 0x80010000     # ... with this Q_Key
REJ_INVALID_SERVICE_ID = 8   # IBA 12.6.7.2, Table 112
MRAED_REQ = 0             # IBA 12.6.6, Table 108: Message MRAed 0 is the REQ
SIDR_SUCCESS = 0          # IBA 12.11.2, Table 121
RDMA_UDP_QKEY = 0x01234567   # librdmacm's rdma_cma.h, the Q_Key of RDMA_PS_UDP
IPPROTO_TCP = 6           # rdma_cm's service ID carries the port space: RDMA_PS_TCP = 0x0106
RPING_PORT, UCMATOSE_PORT = 7174, 7471   # the tools' default ports

# BTH opcodes (IBA 9.2, Table 38): an RC request that carries a PSN of its sender's send queue.
RC_ACK, RC_ATOMIC_ACK, RC_READ_RESP_FIRST, RC_READ_RESP_LAST = 0x11, 0x12, 0x0d, 0x10
RC_READ_REQUEST = 0x0c
UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x64, 0x65

F = ["frame.number", "frame.time_epoch", "ip.src", "ipv6.src",
     "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
     "infiniband.deth.q_key", "infiniband.deth.srcqp", "infiniband.immdt",
     "infiniband.mad.mgmtclass", "infiniband.mad.attributeid", "infiniband.mad.transactionid",
     "infiniband.cm.req", "infiniband.cm.req.serviceid.protocol", "infiniband.cm.req.serviceid.dport",
     "infiniband.cm.req.localqpn", "infiniband.cm.req.startpsn", "infiniband.cm.req.remoteresptout",
     "infiniband.cm.req.prim_localacktout", "infiniband.cm.req.pppmtu", "infiniband.reth.dmalen",
     "infiniband.cm.req.ip_cm.ipv", "infiniband.cm.req.ip_cm.sip4",
     "infiniband.cm.req.ip_cm.dip4", "infiniband.cm.req.ip_cm.sip6", "infiniband.cm.req.ip_cm.dip6",
     "infiniband.cm.rep", "infiniband.cm.rep.remotecommid", "infiniband.cm.rep.localqpn",
     "infiniband.cm.rep.startpsn", "infiniband.cm.rep.tgtackdelay",
     "infiniband.cm.rtu.localcommid", "infiniband.cm.rtu.remotecommid",
     "infiniband.cm.rej.localcommid", "infiniband.cm.rej.remotecommid", "infiniband.cm.rej.msgrej",
     "infiniband.cm.rej.reason", "infiniband.cm.rej.rejinfolen",
     "infiniband.cm.dreq.localcommid", "infiniband.cm.dreq.remotecommid", "infiniband.cm.req.remoteqpneecn",
     "infiniband.cm.drsp.localcommid", "infiniband.cm.drsp.remotecommid",
     "infiniband.mad.data"]

def num(s):
    return int(s, 0) if s.lower().startswith("0x") else int(s)


class Frame:
    def __init__(self, row):
        self.r = row
        self.n = int(row["frame.number"])
        self.t = Decimal(row["frame.time_epoch"])   # nanoseconds survive in a Decimal
        self.src = row["ip.src"] or row["ipv6.src"]
        self.opcode = self.int("infiniband.bth.opcode")
        self.attr = self.int("infiniband.mad.attributeid") if self.is_cm() else None

    def int(self, field):
        v = self.r.get(field, "")
        return num(v) if v != "" else None

    def has(self, field):
        return self.r.get(field, "") != ""

    def is_cm(self):
        return (self.int("infiniband.bth.destqp") == GSI_QPN and self.int("infiniband.deth.q_key") == GSI_QKEY
                and self.int("infiniband.mad.mgmtclass") == CM_CLASS)

    def data(self):
        return bytes.fromhex(self.r.get("infiniband.mad.data", "").replace(":", ""))

    def raw(self, msg, key):
        """A field of an MRA, SIDR_REQ or SIDR_REP from tshark's MAD data bytes (IBA tables)."""
        for k, byte, bit, width in RAW[msg]:
            if k == key:
                return raw_field(self.data(), byte, bit, width)
        raise KeyError(key)


def load(path):
    with open(path) as f:
        rows = [dict(zip(F, l.rstrip("\n").split("\t"))) for l in f if l.strip()]
    return [Frame(r) for r in rows if r.get("infiniband.bth.opcode", "") != ""]


class Capture:
    """The RoCE frames of a capture, with A the side that sent the first CM message (REQ or SIDR_REQ)."""

    def __init__(self, frames):
        self.f = frames
        first = next((x for x in frames if x.is_cm()), None)
        self.a = first.src if first else None
        self.cm = [x for x in frames if x.is_cm()]
        self.data = [x for x in frames if not x.is_cm()]

    def from_a(self, x):
        return x.src == self.a

    def cm_seq(self, from_a):
        return [NAMES.get(x.attr, hex(x.attr)) for x in self.cm if self.from_a(x) == from_a]

    def msgs(self, attr):
        return [x for x in self.cm if x.attr == attr]

    def one(self, attr):
        m = self.msgs(attr)
        return m[0] if m else None

    def requests(self, from_a):
        """The RC requests a side sends (not ACKs, not READ responses): PSNs of its send queue."""
        return [x for x in self.data if self.from_a(x) == from_a and x.opcode < 0x20
                and x.opcode not in (RC_ACK, RC_ATOMIC_ACK) and not RC_READ_RESP_FIRST <= x.opcode <= RC_READ_RESP_LAST]

    def rc(self, from_a):
        return [x for x in self.data if self.from_a(x) == from_a and x.opcode < 0x20]


def check_gsi(c):
    check(c.cm and all(x.int("infiniband.bth.destqp") == GSI_QPN for x in c.cm),
          "every CM message is a MAD of class 7 to QP1 with the GSI's Q_Key 0x80010000 (IBA 13.5.1)")


def check_sequence(c, want_a, want_b):
    a, b = c.cm_seq(True), c.cm_seq(False)
    check(a == want_a, "CM messages from A (active): %s (tshark: %s)" % (" ".join(want_a), " ".join(a)))
    check(b == want_b, "CM messages from B (passive): %s (tshark: %s)" % (" ".join(want_b), " ".join(b)))


def check_service(c, port):
    req = c.one(REQ)
    if not req:
        return
    check(req.int("infiniband.cm.req.serviceid.protocol") == IPPROTO_TCP and
          req.int("infiniband.cm.req.serviceid.dport") == port,
          "the REQ's service ID is rdma_cm's: RDMA_PS_TCP, port %d" % port)
    b = next((x.src for x in c.f if not c.from_a(x)), None)
    v4 = req.has("infiniband.cm.req.ip_cm.sip4")
    sip = req.r["infiniband.cm.req.ip_cm.sip4" if v4 else "infiniband.cm.req.ip_cm.sip6"]
    dip = req.r["infiniband.cm.req.ip_cm.dip4" if v4 else "infiniband.cm.req.ip_cm.dip6"]
    check(req.int("infiniband.cm.req.ip_cm.ipv") in (4, 6) and b is not None and
          ipaddress.ip_address(sip) == ipaddress.ip_address(c.a) and
          ipaddress.ip_address(dip) == ipaddress.ip_address(b),
          "the REQ carries rdma_cm's CMA header: from A's address to B's (%s -> %s)" % (sip, dip))


def check_ids(c):
    """The answers pair up with what they answer: communication IDs and transaction IDs (IBA 12.6)."""
    req, rep, rtu = c.one(REQ), c.one(REP), c.one(RTU)
    if not (req and rep and rtu):
        check(False, "no REQ, REP and RTU to pair up")
        return
    a_id, b_id = req.int("infiniband.cm.req"), rep.int("infiniband.cm.rep")
    check(rep.int("infiniband.cm.rep.remotecommid") == a_id, "the REP names the REQ's communication ID")
    check(rep.int("infiniband.mad.transactionid") == req.int("infiniband.mad.transactionid"),
          "the REP carries the REQ's transaction ID")
    check(rtu.int("infiniband.cm.rtu.localcommid") == a_id and rtu.int("infiniband.cm.rtu.remotecommid") == b_id,
          "the RTU names both communication IDs")
    dreq, drep = c.one(DREQ), c.one(DREP)
    if dreq and drep:
        ids = {a_id, b_id}
        check({dreq.int("infiniband.cm.dreq.localcommid"), dreq.int("infiniband.cm.dreq.remotecommid")} == ids and
              drep.int("infiniband.cm.drsp.localcommid") == dreq.int("infiniband.cm.dreq.remotecommid") and
              drep.int("infiniband.cm.drsp.remotecommid") == dreq.int("infiniband.cm.dreq.localcommid"),
              "DREQ and DREP name the connection's two communication IDs, each from its own side")
        check(drep.int("infiniband.mad.transactionid") == dreq.int("infiniband.mad.transactionid"),
              "the DREP carries the DREQ's transaction ID")
        closer_is_a = c.from_a(dreq)
        peer_qpn = (rep.int("infiniband.cm.rep.localqpn") if closer_is_a
                    else req.int("infiniband.cm.req.localqpn"))
        check(dreq.int("infiniband.cm.req.remoteqpneecn") == peer_qpn,
              "the DREQ names the QP of the side it goes to, as the REQ/REP announced it")


def check_psns(c):
    """The kernel's semantics (cm.c, and tests/fixtures/rxe/rping.pcap): a REQ's Starting PSN is
    where the passive side's sends start, a REP's where the active side's do; each Local QPN is the
    destination QP of the other side's data."""
    req, rep = c.one(REQ), c.one(REP)
    if not (req and rep):
        return
    a_req, b_req = c.requests(True), c.requests(False)
    a_rc, b_rc = c.rc(True), c.rc(False)
    check(b_req and b_req[0].int("infiniband.bth.psn") == req.int("infiniband.cm.req.startpsn"),
          "B's first request has the PSN the REQ's Starting PSN announced")
    check(a_req and a_req[0].int("infiniband.bth.psn") == rep.int("infiniband.cm.rep.startpsn"),
          "A's first request has the PSN the REP's Starting PSN announced")
    check(b_rc and all(x.int("infiniband.bth.destqp") == req.int("infiniband.cm.req.localqpn") for x in b_rc),
          "everything B sends on RC goes to the QP the REQ's Local QPN named")
    check(a_rc and all(x.int("infiniband.bth.destqp") == rep.int("infiniband.cm.rep.localqpn") for x in a_rc),
          "everything A sends on RC goes to the QP the REP's Local QPN named")
    # IBA 9.7.1: each request packet takes the next PSN; a READ request takes one for each of its
    # response packets, DMA length / path MTU rounded up (the path MTU the REQ set, IBA 12.6.5).
    mtu = 128 << req.int("infiniband.cm.req.pppmtu")
    for side, reqs in (("A", a_req), ("B", b_req)):
        want, ok = None, bool(reqs)
        for x in reqs:
            psn = x.int("infiniband.bth.psn")
            ok = ok and (want is None or psn == want)
            n = -(-x.int("infiniband.reth.dmalen") // mtu) if x.opcode == RC_READ_REQUEST else 1
            want = (psn + max(n, 1)) & 0xffffff
        check(ok, "%s's requests take the PSNs from there one after another (a READ one per response "
              "packet of the %d-byte path MTU)" % (side, mtu))
    rtu, dreq = c.one(RTU), c.one(DREQ)
    if rtu and dreq:
        check(all(x.n > c.one(REP).n for x in a_rc) and all(x.n > rtu.n for x in b_req),
              "A sends data only after the REP, B only after the RTU")
        check(all(x.n < dreq.n for x in c.data), "no data after the DREQ")


def gap_ns(x, y):
    return int((y.t - x.t) * 1000000000)


def req_timeout_ns(req, rep):
    """IBA 12.6.5/12.7: a REQ unanswered is resent after the remote CM response timeout and a packet
    lifetime each way (the kernel's ib_send_cm_req(): timeout = 2 * packet_life_time +
    remote_cm_response_timeout), each 4.096 us * 2^value. The REQ carries no packet lifetime, but
    its Primary Local ACK Timeout is 2 * packet lifetime + the CA's ACK delay (IBA 12.7.34), which
    is packet lifetime + 1 as an exponent while the ACK delay is more than one below it (both sides
    are the same kind of CA: the REP's Target ACK Delay is that delay)."""
    ack = req.int("infiniband.cm.req.prim_localacktout")
    delay = rep.int("infiniband.cm.rep.tgtackdelay") if rep else 0
    check(delay + 1 < ack - 1, "the Local ACK Timeout (%d) is twice the packet lifetime: the ACK delay (%d) "
          "is far below it" % (ack, delay))
    plt = ack - 1
    return 4096 * (2 ** req.int("infiniband.cm.req.remoteresptout") + 2 * 2 ** plt)


def check_resent(c, n):
    """The REQ sent @n times: the same communication ID, transaction ID and bytes each time, each
    after the timeout req_timeout_ns() works out from the REQ's own fields."""
    r = c.msgs(REQ)[:n]
    if len(r) != n:
        return
    check(all(x.int("infiniband.cm.req") == r[0].int("infiniband.cm.req") and
              x.int("infiniband.mad.transactionid") == r[0].int("infiniband.mad.transactionid") for x in r),
          "the REQ is resent with the same communication ID and transaction ID")
    check(all(x.data() == r[0].data() for x in r), "each resent REQ is the same MAD, byte for byte")
    want = req_timeout_ns(r[0], c.one(REP))
    got = [gap_ns(x, y) for x, y in zip(r, r[1:])]
    check(got == [want] * (n - 1), "the REQs are 4.096 us * (2^%d + 2 * 2^%d) = %d ns apart (tshark: %s ns)" % (
        r[0].int("infiniband.cm.req.remoteresptout"), r[0].int("infiniband.cm.req.prim_localacktout") - 1, want,
        ", ".join(map(str, got))))


def story_connect(c, closer_a, resent=0):
    check_gsi(c)
    fin_a, fin_b = (["DREQ"], ["DREP"]) if closer_a else (["DREP"], ["DREQ"])
    check_sequence(c, ["REQ"] * (1 + resent) + ["RTU"] + fin_a, ["REP"] + fin_b)
    if resent:
        check_resent(c, 1 + resent)
    check_ids(c)
    check_psns(c)


def story_cm_connect(c, real, resent):
    story_connect(c, False, resent)
    check_service(c, UCMATOSE_PORT)
    sends = lambda a: [x for x in c.data if c.from_a(x) == a and x.opcode == 0x04]   # RC SEND Only
    check(len(sends(False)) == len(sends(True)) == 3, "three SENDs each way (--count 3)")
    check(sends(False) and sends(True) and sends(False)[-1].n < sends(True)[0].n,
          "B sends first, A answers once it has them all (ucmatose)")


def story_cm_req_lost(c, real, resent):
    story_connect(c, False, 1)
    r = c.msgs(REQ)
    if len(r) == 2:
        check(not [x for x in c.f if not c.from_a(x) and x.n < r[1].n], "B sent nothing before the second REQ")
        check(c.one(REP) and c.one(REP).n > r[1].n, "the REP answers the second REQ")


def story_cm_mra(c, real, resent):
    check_gsi(c)
    check_sequence(c, ["REQ", "REQ", "RTU", "DREP"], ["MRA", "REP", "DREQ"])
    r, mra, rep = c.msgs(REQ), c.one(MRA), c.one(REP)
    if len(r) != 2 or not mra or not rep:
        return
    a_id = r[0].int("infiniband.cm.req")
    check(mra.raw("MRA", "remote_comm_id") == a_id, "the MRA names the REQ's communication ID")
    check(mra.raw("MRA", "local_comm_id") == rep.int("infiniband.cm.rep"),
          "the MRA's local communication ID is the one the REP then carries")
    check(mra.raw("MRA", "message_mraed") == MRAED_REQ, "the MRA acknowledges a REQ (Message MRAed 0)")
    check(mra.int("infiniband.mad.transactionid") == r[0].int("infiniband.mad.transactionid"),
          "the MRA carries the REQ's transaction ID")
    check(r[1].n < mra.n < rep.n, "B's MRA answers the resent REQ, before its REP")
    timeout = req_timeout_ns(r[0], rep)
    st = mra.raw("MRA", "service_timeout")
    check(gap_ns(r[1], rep) > timeout,
          "the REP comes later than a REQ's timeout after the resent REQ (%d ns), yet A sends no third "
          "REQ: the MRA gave it longer" % timeout)
    check(gap_ns(mra, rep) <= 4096 * 2 ** st,
          "the REP comes within the MRA's service timeout, 4.096 us * 2^%d" % st)
    check_ids(c)
    check_psns(c)


def story_cm_reject(c, real, resent):
    check_gsi(c)
    check_sequence(c, ["REQ"], ["REJ"])
    req, rej = c.one(REQ), c.one(REJ)
    if not (req and rej):
        return
    check(rej.int("infiniband.cm.rej.reason") == REJ_INVALID_SERVICE_ID,
          "REJ reason 8: invalid service ID (IBA 12.6.7.2)")
    check(rej.int("infiniband.cm.rej.msgrej") == 0, "the REJ rejects the REQ (Message REJected 0)")
    check(rej.int("infiniband.cm.rej.remotecommid") == req.int("infiniband.cm.req") and
          rej.int("infiniband.mad.transactionid") == req.int("infiniband.mad.transactionid"),
          "the REJ names the REQ's communication ID and carries its transaction ID")
    check(not c.data, "no data: nothing was connected")
    check_service(c, RPING_PORT)
    if real:
        rr = real.one(REJ)
        keys = ["infiniband.cm.rej.reason", "infiniband.cm.rej.msgrej", "infiniband.cm.rej.rejinfolen",
                "infiniband.cm.rej.localcommid"]
        check(rr and [rej.int(k) for k in keys] == [rr.int(k) for k in keys] and
              real.cm_seq(True) == c.cm_seq(True) and real.cm_seq(False) == c.cm_seq(False),
              "the same REQ/REJ as the real kernel's (tests/fixtures/rxe/rping-rej.pcap): reason, "
              "message rejected, info length, local communication ID %s" % (rr.r["infiniband.cm.rej.localcommid"]
                                                                          if rr else "?"))


def story_ud_sidr(c, real, resent):
    check_gsi(c)
    check_sequence(c, ["SIDR_REQ"], ["SIDR_REP"])
    sreq, srep = c.one(SIDR_REQ), c.one(SIDR_REP)
    if not (sreq and srep):
        return
    check(srep.raw("SIDR_REP", "request_id") == sreq.raw("SIDR_REQ", "request_id"),
          "the SIDR_REP answers the SIDR_REQ's request ID")
    check(srep.raw("SIDR_REP", "status") == SIDR_SUCCESS, "SIDR_REP status 0: the QP is valid")
    sid = sreq.raw("SIDR_REQ", "service_id")
    check(sid >> 16 == 0x0111 and sid & 0xffff == RPING_PORT and srep.raw("SIDR_REP", "service_id") == sid,
          "the service ID is rdma_cm's RDMA_PS_UDP on port 7174, in both")
    qpn, qkey = srep.raw("SIDR_REP", "qpn"), srep.raw("SIDR_REP", "qkey")
    check(qkey == RDMA_UDP_QKEY, "the SIDR_REP announces Q_Key 0x01234567 (RDMA_UDP_QKEY)")
    a = [x for x in c.data if c.from_a(x)]
    b = [x for x in c.data if not c.from_a(x)]
    check(len(a) == 3 and all(x.opcode == UD_SEND_ONLY_IMM for x in a), "A sends three UD SENDs with immediate")
    check(a and all(x.int("infiniband.bth.destqp") == qpn and x.int("infiniband.deth.q_key") == qkey for x in a),
          "A's datagrams go to the QPN (0x%x) and Q_Key the SIDR_REP announced" % qpn)
    check(a and all(x.n > srep.n for x in a), "and only after the SIDR_REP")
    a_qp = a[0].int("infiniband.deth.srcqp") if a else None
    check(len(b) == len(a) and all(x.int("infiniband.bth.destqp") == a_qp and
                                   x.int("infiniband.deth.q_key") == RDMA_UDP_QKEY for x in b),
          "B answers each one to the source QP A's DETH named, with the same Q_Key")
    check(all(num("0x" + x.r["infiniband.immdt"].replace(":", "")) == x.int("infiniband.deth.srcqp")
              for x in a + b), "the immediate data is the sender's QPN, as udaddy sends it")
    if real:
        check(real.cm_seq(True)[:1] == c.cm_seq(True) and real.cm_seq(False)[:1] == c.cm_seq(False) and
              all(x.opcode == UD_SEND_ONLY_IMM for x in real.data),
              "the same kinds of message as the real udaddy's (tests/fixtures/rxe/udaddy.pcap)")


def kinds(c):
    """(from A, CM attribute or BTH opcode) for every RoCE frame: the message sequence."""
    return [(c.from_a(x), NAMES.get(x.attr) if x.is_cm() else "0x%02x" % x.opcode) for x in c.f]


def story_rping(c, real, resent):
    story_connect(c, True, resent)
    check_service(c, RPING_PORT)
    if real:
        ours, theirs = kinds(c), kinds(real)
        diff = next((i for i, (p, q) in enumerate(zip(ours, theirs)) if p != q), None)
        check(ours == theirs, "the same %d messages, in the same order and directions, as the real rping's "
              "(tests/fixtures/rxe/rping.pcap)%s" % (len(theirs), "" if diff is None and len(ours) == len(theirs)
                                                     else ": first difference at RoCE frame %s" % diff))
        rq, rr = real.one(REQ), c.one(REQ)
        check(rq and rr and rq.int("infiniband.cm.req.serviceid.dport") == rr.int("infiniband.cm.req.serviceid.dport"),
              "to the same port as the real rping")


STORIES = {"cm-connect": story_cm_connect, "cm-req-lost": story_cm_req_lost, "cm-mra": story_cm_mra,
           "cm-reject": story_cm_reject, "ud-sidr": story_ud_sidr, "rping": story_rping}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--print-fields", action="store_true")
    ap.add_argument("--real", help="tshark fields of the real kernel's capture to compare with")
    ap.add_argument("--label")
    ap.add_argument("--req-resent", type=int, default=0, help="the wire lost the first N REQs (--drop)")
    ap.add_argument("scenario", nargs="?")
    ap.add_argument("ours", nargs="?")
    a = ap.parse_args()
    if a.print_fields:
        print(" ".join("-e " + f for f in F))
        return 0
    label = a.label or a.scenario
    if a.scenario not in STORIES:
        print("FAIL %s: no CM story for this scenario" % label)
        return 1
    try:
        STORIES[a.scenario](Capture(load(a.ours)), Capture(load(a.real)) if a.real else None, a.req_resent)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        check(False, "the capture is not shaped as expected (%r)" % e)
    return tally.report(label)


if __name__ == "__main__":
    sys.exit(main())
