#!/usr/bin/python3
"""The summary's per-QP counts against tshark: qp_counts.py PAGE.html TSHARK.tsv

TSV columns (tshark -T fields): frame.number ip.src ip.dst infiniband.bth.opcode
infiniband.bth.psn infiniband.bth.destqp infiniband.aeth.syndrome.
A request flow is (source, destination, destination QP). A NAK (AETH syndrome
001 RNR, 011 NAK: IBA Table 43) answers the request of the same PSN sent the
other way last before it; its flow is that request's. Requests, NAKs and RNR
NAKs per flow must be the page's."""
import collections
import json
import re
import sys

ACK, RC_MAX = 0x11, 0x1F   # RC Acknowledge; RC opcodes are 0x00..0x1f (IBA Table 38)
RESP = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}   # READ responses, Acknowledge, ATOMIC Acknowledge


def main(page, tsv):
    text = open(page, encoding="utf-8").read()
    summ = json.loads(re.search(r'id="rl-summary">(.*?)</script>', text, re.S).group(1))
    want = collections.defaultdict(lambda: [0, 0, 0])   # (src, dst, qp): requests, naks, rnr
    last = {}   # (src, dst, psn): the flow of the last request of that PSN
    for line in open(tsv):
        no, src, dst, op, psn, dqp, syn = (line.rstrip("\n").split("\t") + [""] * 7)[:7]
        if not op:
            continue
        op, psn, dqp = int(op, 0), int(psn, 0), int(dqp, 16)
        if op > RC_MAX:
            continue
        if op not in RESP:
            flow = (src, dst, dqp)
            want[flow][0] += 1
            last[(src, dst, psn)] = flow
        elif syn and int(syn, 0) >> 5 in (1, 3):
            flow = last.get((dst, src, psn))
            if flow:
                want[flow][1] += 1
                want[flow][2] += int(syn, 0) >> 5 == 1
    got = {(q["src"], q["dst"], q["qp"]): [q["requests"], q["naks"], q["rnr"]] for q in summ["qps"]}
    if got != dict(want):
        print("the page's (requests, NAKs, RNR NAKs) per flow: %s\ntshark's: %s" % (got, dict(want)))
        return 1
    print("per flow (requests, NAKs, RNR NAKs) as tshark counts them: %s" % sorted(got.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
