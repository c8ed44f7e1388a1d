"""gen fabric as tshark's InfiniBand dissector reads it, and what rocelab explain must then say.

Usage: fabric.py FIELDS.tsv QPS COUNT EXPLAIN.txt
FIELDS.tsv: tshark -T fields -e ip.src -e ip.dst -e infiniband.bth.opcode -e infiniband.bth.destqp
-e infiniband.bth.psn. Checks that every QP's WRITEs carry consecutive PSNs and each ACK names one
of its QP's WRITEs (tshark's fields only), then that explain found no gap and no resend, linked
every ACK to its request, and forgot exactly the flows a least-recently-used list of 16384 forgets
(its documented limit), modelled here from the same fields.
"""
import sys
from collections import OrderedDict

WRITE_ONLY, ACK = 10, 17
MAX_FLOWS = 16384


def main(argv):
    rows = [l.rstrip("\n").split("\t") for l in open(argv[1]) if l.strip()]
    qps, count, text = int(argv[2]), int(argv[3]), open(argv[4]).read()
    writes, acks, lru, forgotten, errors = {}, 0, OrderedDict(), 0, []
    for src, dst, op, dqp, psn in rows:
        op, dqp, psn = int(op), int(dqp, 0), int(psn)
        if op == WRITE_ONLY:
            key = (src, dst, dqp)
            writes.setdefault(key, []).append(psn)
            if key in lru:
                lru.move_to_end(key)
            else:
                if len(lru) == MAX_FLOWS:
                    lru.popitem(last=False)
                    forgotten += 1
                lru[key] = True
        elif op == ACK:
            acks += 1
            # gen fabric numbers QP q's requester 0x100 + q and its responder 0x800000 + q
            if psn not in writes.get((dst, src, dqp - 0x100 + 0x800000), ()):
                errors.append(f"ACK PSN {psn} to QP {dqp:#x} answers none of its QP's WRITEs")
    if len(writes) != qps:
        errors.append(f"{len(writes)} QPs by tshark, wanted {qps}")
    for key, ps in writes.items():
        if len(ps) != count or any((b - a) % (1 << 24) != 1 for a, b in zip(ps, ps[1:])):
            errors.append(f"QP {key}: PSNs {ps[:5]}... not {count} consecutive")
    want_acks = qps * (count // 4 + (count % 4 != 0))
    if acks != want_acks:
        errors.append(f"{acks} ACKs, wanted {want_acks}")
    for word in ("GAP", "RETRANSMISSION", "DUPLICATE", "OUT OF ORDER"):
        if word in text:
            errors.append(f"explain says {word}")
    if not forgotten and text.count("[answers ") != acks:
        errors.append(f"explain linked {text.count('[answers ')} ACKs to their requests, of {acks}")
    said = [l for l in text.splitlines() if "flow history dropped" in l]
    if forgotten and (not said or f"dropped {forgotten} times" not in said[0]):
        errors.append(f"explain should say the history was dropped {forgotten} times: {said}")
    if not forgotten and said:
        errors.append(f"explain dropped history with {len(writes)} flows: {said}")
    for e in errors[:5]:
        print(e)
    print(f"{len(writes)} QPs, {sum(map(len, writes.values()))} WRITEs, {acks} ACKs, {forgotten} flows forgotten")
    return 1 if errors else 0


sys.exit(main(sys.argv))
