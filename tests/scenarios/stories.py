#!/usr/bin/env python3
"""Assert the story each `rocelab gen` scenario tells, from `rocelab explain --json`.

usage: stories.py SCENARIO FILE.jsonl

Each check reads the decoded packets (one JSON object per line) and asserts
what a learner should see on the wire. Prints PASS/FAIL lines; exit 1 on any
failure. Standard library only.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tally                        # noqa: E402
from tally import later as check    # noqa: E402


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def name(p):
    return p["bth"]["opcode_name"]


def from_a(p):
    return p.get("ip", p.get("grh", {})).get("src", "").endswith((".1", "::1"))


def naks(pkts, code=None, kind="NAK"):
    return [p for p in pkts if "aeth" in p and p["aeth"]["type"] == kind
            and (code is None or p["aeth"].get("nak_code") == code)]


def psns(pkts, pred):
    return [p["bth"]["psn"] for p in pkts if pred(p)]


def all_icrc_ok(pkts):
    return all(p["icrc"]["ok"] for p in pkts)


def story_send(pkts):
    check([name(p) for p in pkts] == ["RC SEND Only", "RC Acknowledge", "RC SEND First", "RC SEND Middle",
                                      "RC SEND Last", "RC Acknowledge"], "SEND Only, ACK, First/Middle/Last, one ACK")
    check(pkts[4]["bth"]["ackreq"] and not pkts[2]["bth"]["ackreq"], "AckReq only on the last packet")
    check(pkts[5]["bth"]["psn"] == pkts[4]["bth"]["psn"], "the ACK names the last PSN")
    check(pkts[5]["aeth"]["msn"] == 2, "MSN counts two messages")


def story_request_loss(pkts):
    n = naks(pkts, code=0)
    check(len(n) == 1, "exactly one PSN sequence error NAK")
    if not n:
        return
    first = [p for p in pkts if from_a(p)]
    lost = first[1]["bth"]["psn"]
    check(n[0]["bth"]["psn"] == lost, "the NAK carries the PSN of the lost packet")
    after = [p["bth"]["psn"] for p in pkts[pkts.index(n[0]) + 1:] if from_a(p)]
    check(after and after[0] == lost and after == list(range(lost, lost + len(after))),
          "go-back-N: resent from the NAK's PSN, in order")
    check(name(pkts[-1]) == "RC Acknowledge" and pkts[-1]["aeth"]["type"] == "ACK", "ends with an ACK")


def story_lost_ack(pkts):
    writes = [p for p in pkts if name(p) == "RC RDMA WRITE Only"]
    check(len(writes) == 2 and writes[0]["bth"]["psn"] == writes[1]["bth"]["psn"], "the same WRITE PSN twice")
    if len(writes) == 2:
        gap = writes[1]["time"] - writes[0]["time"]
        check(0.067 <= gap <= 0.068, "resent after the ACK timeout, 4.096 us x 2^14 = 67.1 ms (%.4f s)" % gap)
    check(len([p for p in pkts if name(p) == "RC Acknowledge"]) == 2, "the duplicate is ACKed again")


def story_lost_read_response(pkts):
    reqs = [p for p in pkts if name(p) == "RC RDMA READ Request"]
    check(len(reqs) == 2, "the READ is asked again")
    if len(reqs) == 2:
        a, b = reqs
        check(b["bth"]["psn"] == a["bth"]["psn"] + 1, "from the PSN of the lost response")
        check(b["reth"]["va"] == a["reth"]["va"] + 1024 and b["reth"]["dma_len"] == a["reth"]["dma_len"] - 1024,
              "for the missing bytes only")


def story_rnr(pkts):
    r = naks(pkts, kind="RNR NAK")
    check(len(r) >= 2, "RNR NAKs while no receive is posted")
    check(all(p["aeth"]["rnr_timer"] == 12 for p in r), "RNR timer 12 (0.64 ms), the responder's min_rnr_timer")
    sends = [p for p in pkts if name(p) == "RC SEND Only"]
    gaps = [b["time"] - a["time"] for a, b in zip(sends, sends[1:])]
    check(all(g >= 0.00064 for g in gaps), "the requester waits the RNR time before each retry")
    check(pkts[-1]["aeth"]["type"] == "ACK", "finally ACKed")


def story_srq(pkts):
    sends = [p for p in pkts if name(p) == "RC SEND Only"]
    acks = [p for p in pkts if not from_a(p)]
    first = sends[:3]
    check(len({p["bth"]["dqpn"] for p in first}) == 3, "A's three SENDs go to three QPs of B")
    r = naks(pkts, kind="RNR NAK")
    check(len(r) >= 1 and len({p["bth"]["dqpn"] for p in r}) == 1, "RNR NAKs, all on one QP: the SRQ ran dry")
    ok = [p for p in acks if p["aeth"]["type"] == "ACK"]
    check(len(ok) == 3 and len({p["bth"]["dqpn"] for p in ok}) == 3, "each of the three QPs gets its ACK once")
    check(all(p["aeth"]["credit_code"] == 31 for p in ok), "the ACKs of QPs on an SRQ advertise no credits (31)")
    if r and ok:
        nak_psn = r[0]["bth"]["psn"]
        resent = [p for p in sends[3:] if p["bth"]["psn"] == nak_psn]
        check(len(resent) == len(r), "one resend of the refused SEND per RNR NAK")
        check(ok[-1]["bth"]["psn"] == nak_psn and ok[-1]["time"] >= 0.001,
              "the refused SEND is ACKed last, once B refilled the SRQ 1 ms after the limit event")


def story_nak(code, what):
    def story(pkts):
        n = naks(pkts)
        check(len(n) == 1 and n[0]["aeth"]["nak_code"] == code, "one NAK: " + what)
        if n:
            req = [p for p in pkts if from_a(p)][0]
            check(n[0]["bth"]["psn"] == req["bth"]["psn"], "the NAK names the offending request's PSN")
    return story


def story_icrc(pkts):
    bad = [p for p in pkts if not p["icrc"]["ok"]]
    check(len(bad) == 1, "one packet with a bad ICRC")
    n = naks(pkts, code=0)
    check(bad and n and n[0]["bth"]["psn"] == bad[0]["bth"]["psn"], "dropped, so the next one triggers a NAK for it")
    check(bad and len([p for p in pkts if p["bth"]["psn"] == bad[0]["bth"]["psn"] and from_a(p)]) == 2,
          "the damaged packet is sent again")


def story_duplicate(pkts):
    a = psns(pkts, from_a)
    check(len(a) == 2 and a[0] == a[1], "the request appears twice")
    check(len([p for p in pkts if name(p) == "RC Acknowledge"]) == 2, "and is ACKed twice, executed once")


def story_reorder(pkts):
    check(len(naks(pkts, code=0)) == 1, "the overtaking packet triggers one PSN sequence NAK")
    check(pkts[-1]["aeth"]["type"] == "ACK", "the message still completes")


def story_psn_wrap(pkts):
    a = psns(pkts, from_a)
    check(0xffffff in a and 0 in a and a.index(0) == a.index(0xffffff) + 1, "PSN 16777215 is followed by 0")


def story_ecn(pkts):
    marked = [p for p in pkts if from_a(p) and p["ip"]["ecn"] == 3]
    cnps = [p for p in pkts if p["bth"]["opcode"] == 0x81]
    check(marked, "some requests arrive marked Congestion Experienced")
    check(cnps and all(p["bth"]["becn"] and not from_a(p) for p in cnps), "B answers with CNPs (BECN set)")
    check(all_icrc_ok(pkts), "ECN marks do not break the ICRC (it masks the TOS byte)")


def story_congestion(flows, stagger=0.0):
    """dcqcn, incast, fairness: a marked bottleneck between A and B, DCQCN on A's QPs."""
    def story(pkts):
        reqs = [p for p in pkts if from_a(p) and p["bth"]["opcode"] != 0x81]
        cnps = [p for p in pkts if p["bth"]["opcode"] == 0x81]
        qps = sorted(set(p["bth"]["dqpn"] for p in reqs))
        check([p for p in reqs if p["ip"]["ecn"] == 3], "the bottleneck marks some requests Congestion Experienced")
        check(cnps and all(p["bth"]["becn"] and not from_a(p) for p in cnps), "B answers with CNPs (BECN set)")
        check(len(qps) == flows, "%d flow(s) of WRITEs, each to its own QP of B" % flows)
        check(all_icrc_ok(pkts), "marking CE leaves every ICRC good")
        check(pkts[-1].get("aeth", {}).get("type") == "ACK", "the last WRITE is acknowledged")
        if stagger:
            first = [min(p["time"] for p in reqs if p["bth"]["dqpn"] == q) for q in qps]
            check(max(first) - min(first) >= stagger, "the second flow starts %g ms later" % (stagger * 1000))
    return story


def story_read(pkts):
    check([name(p) for p in pkts] == ["RC RDMA READ Request", "RC RDMA READ response First",
                                      "RC RDMA READ response Middle", "RC RDMA READ response Middle",
                                      "RC RDMA READ response Last"], "one request, four response packets")
    base = pkts[0]["bth"]["psn"]
    check([p["bth"]["psn"] for p in pkts[1:]] == [base, base + 1, base + 2, base + 3],
          "response PSNs count from the request's")


def story_atomic(opname):
    def story(pkts):
        check([name(p) for p in pkts] == [opname, "RC ATOMIC Acknowledge"], opname + " then its ATOMIC Acknowledge")
        check("atomicacketh" in pkts[-1], "the acknowledge carries the original value")
    return story


def story_ud(pkts):
    check(len(pkts) == 1 and name(pkts[0]) == "UD SEND Only", "one UD SEND, no ACK")
    check(pkts and pkts[0]["deth"]["qkey"] == 0x11111111, "the DETH carries the Q_Key")


def story_uc(pkts):
    check(not [p for p in pkts if "aeth" in p], "UC: nothing is acknowledged")
    check([name(p) for p in pkts] == ["UC SEND First", "UC SEND Middle", "UC SEND Last"], "First, Middle, Last")


def count_messages(pkts, opname_prefix):
    return len([p for p in pkts if name(p).startswith(opname_prefix) and
                (name(p).endswith("Only") or name(p).endswith("Last") or name(p).endswith("Request")
                 or name(p).endswith("FetchAdd"))])


def story_bw(prefix, n):
    def story(pkts):
        check(count_messages(pkts, prefix) == n, "%d messages of %s" % (n, prefix))
        check(all_icrc_ok(pkts), "all ICRCs good")
    return story


def story_pingpong(pkts):
    a = [p for p in pkts if from_a(p) and name(p).startswith("RC SEND") and name(p).endswith(("Only", "Last"))]
    b = [p for p in pkts if not from_a(p) and name(p).startswith("RC SEND") and name(p).endswith(("Only", "Last"))]
    check(len(a) == 3 and len(b) == 3, "three SENDs each way (--count 3)")


def cm_msgs(pkts):
    return [p["cm"]["msg"] for p in pkts if "cm" in p]


def story_rping(pkts):
    seq = [name(p) for p in pkts if "Acknowledge" not in name(p) and "response" not in name(p) and "cm" not in p]
    one = ["RC SEND Only", "RC RDMA READ Request", "RC SEND Only", "RC SEND Only", "RC RDMA WRITE Only", "RC SEND Only"]
    check(seq == one * 2, "advertise, READ, go-ahead, advertise sink, WRITE, go-ahead; twice")
    check(cm_msgs(pkts) == ["REQ", "REP", "RTU", "DREQ", "DREP"], "connected by REQ/REP/RTU, ended by DREQ/DREP")
    check(pkts and "cm" in pkts[0] and "cm" in pkts[-1] and pkts[0]["cm"]["rdma_cm"]["port"] == 7174,
          "the CM first (to rping's port 7174) and last, the data between")


# The CM scenarios: the messages explain names, in order; tests/scenarios/cm_tshark.py checks their
# fields with Wireshark's CM dissector.
def story_cm(want, what, data=None):
    def story(pkts):
        check(cm_msgs(pkts) == want, what + ": " + " ".join(want))
        check(all(p["cm"]["status"] == "ok" and p["bth"]["dqpn"] == 1 for p in pkts if "cm" in p),
              "each CM MAD decodes, each to QP1")
        if data:
            names = [name(p) for p in pkts if "cm" not in p]
            check(names == data, "then " + ", ".join(sorted(set(data))))
    return story


CM_SENDS = ["RC SEND Only"] * 3 + ["RC Acknowledge"] * 3


def story_demo(pkts):
    names = [name(p) for p in pkts]
    for want in ["RC SEND Only", "RC SEND First", "RC RDMA WRITE First", "RC RDMA READ Request", "RC FetchAdd",
                 "RC ATOMIC Acknowledge", "RC SEND Only with Immediate"]:
        check(want in names, "the demo shows " + want)
    check(all_icrc_ok(pkts), "all ICRCs good")


def story_send_imm(pkts):
    check([name(p) for p in pkts] == ["RC SEND Only with Immediate", "RC Acknowledge"], "SEND Only with Immediate, ACK")
    check("immdt" in pkts[0], "the ImmDt header follows the BTH")


def story_send_inv(pkts):
    check([name(p) for p in pkts] == ["RC SEND Only with Invalidate", "RC Acknowledge"], "SEND Only with Invalidate, ACK")
    check(pkts[0]["ieth"]["rkey"] != 0, "the IETH names the R_Key to invalidate")


def story_write(imm):
    def story(pkts):
        last = "RC RDMA WRITE Last with Immediate" if imm else "RC RDMA WRITE Last"
        check([name(p) for p in pkts] == ["RC RDMA WRITE First", "RC RDMA WRITE Middle", last, "RC Acknowledge"],
              "First (with the RETH), Middle, " + last + ", ACK")
        check("reth" in pkts[0] and "reth" not in pkts[1], "the RETH is on the first packet only")
        check(pkts[0]["reth"]["dma_len"] == 2500, "its DMA length is the whole message")
        check(("immdt" in pkts[2]) == imm, "immediate data on the last packet" if imm else "no immediate data")
    return story


STORIES = {
    "send-imm": story_send_imm, "send-inv": story_send_inv, "write": story_write(False), "write-imm": story_write(True),
    "send": story_send, "request-loss": story_request_loss, "lost-ack": story_lost_ack,
    "lost-read-response": story_lost_read_response, "rnr": story_rnr, "srq": story_srq,
    "access-error": story_nak(2, "remote access error"), "range-error": story_nak(2, "remote access error"),
    "invalid-request": story_nak(1, "invalid request"), "icrc-corruption": story_icrc,
    "duplicate": story_duplicate, "reorder": story_reorder, "psn-wrap": story_psn_wrap, "ecn": story_ecn,
    "read": story_read, "cmp-swap": story_atomic("RC CmpSwap"), "fetch-add": story_atomic("RC FetchAdd"),
    "ud-send": story_ud, "uc-send": story_uc, "send-bw": story_bw("RC SEND", 5),
    "write-bw": story_bw("RC RDMA WRITE", 5), "read-bw": story_bw("RC RDMA READ Request", 5),
    "atomic-bw": story_bw("RC FetchAdd", 5), "pingpong": story_pingpong, "rping": story_rping,
    "demo": story_demo, "dcqcn": story_congestion(1), "incast": story_congestion(3),
    "fairness": story_congestion(2, 0.004),
    "cm-connect": story_cm(["REQ", "REP", "RTU", "DREQ", "DREP"], "connect, data, disconnect", CM_SENDS * 2),
    "cm-req-lost": story_cm(["REQ", "REQ", "REP", "RTU", "DREQ", "DREP"], "the REQ twice, then connected",
                            CM_SENDS * 2),
    "cm-mra": story_cm(["REQ", "REQ", "MRA", "REP", "RTU", "DREQ", "DREP"], "the REQ twice, an MRA, then connected",
                       CM_SENDS * 2),
    "cm-reject": story_cm(["REQ", "REJ"], "refused", []),
    "ud-sidr": story_cm(["SIDR_REQ", "SIDR_REP"], "the QP resolved",
                        ["UD SEND Only with Immediate"] * 6),
}


# ---- the analyzer's annotations (rocelab explain --json "analysis"), checked against
# ---- what the decoded packets themselves say

def an(p):
    return p.get("analysis", {})


def verdict_frames(pkts, verdict):
    return [p["frame"] for p in pkts if an(p).get("verdict") == verdict]


def seq_err_trigger(earlier, psn):
    """A PSN sequence error NAK's request (IBA 9.7.5.1.1: the responder NAKs on the first request past the
    PSN it expected, the NAK's): the first of the latest run of requests past @psn, after one that is not."""
    run = None
    for q in reversed(earlier):
        d = (q["bth"]["psn"] - psn) & 0xFFFFFF
        if d == 0 or d >= 0x800000:
            return run
        run = q
    return None


def peer_qps(pkts):
    """Each requester QP (a response's destination) and the responder QP its requests go to, from
    the packets alone: the QP that got requests with the PSNs the ACKs to it name. The BTH carries
    only the destination QP; with several flows, a response's request is one of its own flow's."""
    reqs, votes = {}, {}
    for q in pkts:
        if an(q).get("role") == "request":
            reqs.setdefault((from_a(q), q["bth"]["psn"]), set()).add(q["bth"]["dqpn"])
    for p in pkts:
        if "aeth" in p and p["aeth"]["type"] == "ACK":
            v = votes.setdefault((from_a(p), p["bth"]["dqpn"]), {})
            for qp in reqs.get((not from_a(p), p["bth"]["psn"]), ()):
                v[qp] = v.get(qp, 0) + 1
    return {k: max(v, key=v.get) for k, v in votes.items() if v}


def check_links(scenario, pkts):
    # Every response that names its request: the request is earlier, from the other side, to the
    # response's flow, and carries the PSN (its latest transmission before the response); a PSN
    # sequence error NAK's is the first request past the NAK's PSN.
    peer = peer_qps(pkts) if len(set(p["bth"]["dqpn"] for p in pkts)) > 2 else {}
    for p in pkts:
        rf = an(p).get("request_frame")
        aeth = p.get("aeth", {})
        qp = peer.get((from_a(p), p["bth"]["dqpn"]))
        if aeth.get("type") == "NAK" and aeth.get("nak_code") == 0:
            earlier = [q for q in pkts if q["frame"] < p["frame"] and from_a(q) != from_a(p)
                       and an(q).get("role") == "request" and qp in (None, q["bth"]["dqpn"])]
            trig = seq_err_trigger(earlier, p["bth"]["psn"])
            if (trig["frame"] if trig else None) != (rf or None):
                check(False, "NAK frame %d links to request frame %s, the packets say %s" %
                      (p["frame"], rf, trig["frame"] if trig else "none"))
                return
            continue
        if not rf:
            continue
        earlier = [q for q in pkts if q["frame"] < p["frame"] and from_a(q) != from_a(p)
                   and an(q).get("role") == "request" and qp in (None, q["bth"]["dqpn"])]
        same = [q for q in earlier if q["bth"]["psn"] == p["bth"]["psn"]
                or ("reth" in q and q["bth"]["opcode_name"].endswith("READ Request")
                    and q["bth"]["psn"] <= p["bth"]["psn"] < q["bth"]["psn"] + 64)]
        if not same or same[-1]["frame"] != rf:
            check(False, "frame %d links to request frame %d, the packets say %s" %
                  (p["frame"], rf, same[-1]["frame"] if same else "none"))
            return
    check(True, "every response links to the latest request with its PSN")


def check_resent_after(pkts, trigger_pred, what):
    trig = [p["frame"] for p in pkts if trigger_pred(p)]
    if not trig:
        check(False, "no trigger found for " + what)
        return
    want = [p["frame"] for p in pkts if from_a(p) and p["frame"] > trig[0]
            and an(p).get("verdict") != "out of order"]
    check(verdict_frames(pkts, "retransmission") == want,
          "exactly the frames A sends after the %s are retransmissions (%s)" % (what, want))


ANALYSIS = {
    "request-loss": lambda p: check_resent_after(p, lambda x: "aeth" in x and x["aeth"]["type"] == "NAK", "NAK"),
    "icrc-corruption": lambda p: check_resent_after(p, lambda x: "aeth" in x and x["aeth"]["type"] == "NAK", "NAK"),
    "reorder": lambda p: (check(len(verdict_frames(p, "out of order")) == 1, "one packet out of order"),
                          check(len(verdict_frames(p, "gap")) == 1, "one gap seen before it"),
                          check_resent_after(p, lambda x: "aeth" in x and x["aeth"]["type"] == "NAK", "NAK")),
    "lost-ack": lambda p: check(verdict_frames(p, "retransmission") == [3], "the resend after the timeout is a retransmission"),
    "duplicate": lambda p: (check(verdict_frames(p, "duplicate") == [2], "the copy is a duplicate"),
                            check(not verdict_frames(p, "retransmission"), "and nothing is a retransmission")),
    "rnr": lambda p: (check(verdict_frames(p, "retransmission") ==
                            [x["frame"] for x in p if from_a(x)][1:], "every SEND after the first is a retransmission"),
                      check(all(an(x).get("rnr_wait_us") == 640 for x in naks(p, kind="RNR NAK")),
                            "the RNR NAK's wait is 0.64 ms")),
    "lost-read-response": lambda p: check(verdict_frames(p, "retransmission") ==
                                          [x["frame"] for x in p if x["bth"]["opcode_name"] == "RC RDMA READ Request"][1:],
                                          "the second READ request is a retransmission"),
    "access-error": lambda p: check(all(an(x).get("wr_fails") for x in naks(p)), "the NAK says the work request fails"),
    "send": lambda p: check(all(an(x).get("verdict") in ("first", "in order") for x in p if from_a(x)),
                            "every request in order"),
}


def check_analysis(scenario, pkts):
    check_links(scenario, pkts)
    for p in naks(pkts, code=0) + naks(pkts, kind="RNR NAK"):
        check(an(p).get("resend_from_psn") == p["bth"]["psn"], "the NAK's explanation names PSN %d" % p["bth"]["psn"])
    if scenario in ANALYSIS:
        ANALYSIS[scenario](pkts)


def main(argv):
    scenario, path = argv[1], argv[2]
    pkts = load(path)
    if scenario not in STORIES:
        print("FAIL %s: no story written for this scenario" % scenario)
        return 1
    try:
        STORIES[scenario](pkts)
        check_analysis(scenario, pkts)
    except (KeyError, IndexError) as e:
        check(False, "the packets are not shaped as expected (%r)" % e)
    return tally.report(scenario)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
