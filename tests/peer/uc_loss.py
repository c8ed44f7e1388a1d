#!/usr/bin/python3
"""What a UC receiver must have made of a capture, worked out from Wireshark's
own fields (tshark -T fields -e ip.src -e infiniband.bth.opcode -e
infiniband.bth.psn), not from rocelab's code.

The client sent ITERS messages of NPKTS packets each, PSNs counting up from
PSN0; what --tx-loss dropped before it left is missing from the capture. IBA
9.8.3 (UC): nothing is acknowledged, and a message that lost a packet is
dropped whole: a packet after the loss in the same message is discarded, the
message is not delivered. Prints

  delivered=N lost=L partial=P discarded=D from_server=S non_uc=U

N: messages whose every packet is on the wire; L = ITERS - N; P: messages of
which some but not all packets are there; D: packets that follow a missing
one of their own message (the responder must discard them); S: frames the
server sent (an ACK or NAK would be one); U: frames whose opcode is not a UC
opcode (IBA 9.2: transport 001, opcodes 0x20..0x3f).

usage: uc_loss.py CLIENT-IP PSN0 NPKTS ITERS < fields.tsv
"""
import sys


def main():
    client, psn0, npkts, iters = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3]), int(sys.argv[4])
    seen = {}
    from_server = non_uc = 0
    for line in sys.stdin:
        f = line.rstrip("\n").split("\t")
        if len(f) < 3 or not f[1]:
            continue
        src, opcode, psn = f[0], int(f[1], 0), int(f[2], 0)
        if src != client:
            from_server += 1
            continue
        if opcode >> 5 != 1:
            non_uc += 1
        k = ((psn - psn0) & 0xFFFFFF)
        seen.setdefault(k // npkts, set()).add(k % npkts)
    delivered = partial = discarded = 0
    for m in range(iters):
        got = seen.get(m, set())
        if len(got) == npkts:
            delivered += 1
            continue
        if got:
            partial += 1
        first_missing = min(set(range(npkts)) - got)
        discarded += sum(1 for j in got if j > first_missing)
    print("delivered=%d lost=%d partial=%d discarded=%d from_server=%d non_uc=%d" %
          (delivered, iters - delivered, partial, discarded, from_server, non_uc))


if __name__ == "__main__":
    main()
