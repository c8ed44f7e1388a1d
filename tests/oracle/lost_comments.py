#!/usr/bin/env python3
"""`rocelab gen --pcapng`'s comments on the frames its wire lost, as stock tshark reads them.

    lost_comments.py --print-fields
    lost_comments.py [--label L] [--drop N,M,...] PCAPNG.tsv PCAP.tsv

Both .tsv are `tshark -T fields` with --print-fields' fields, one frame a line:
PCAPNG.tsv of `gen ... --pcapng`, PCAP.tsv of the same gen arguments without it.
Checks: the two hold the same frames (time, length, addresses, PSN); every
comment is "lost on the way (rocelab gen)"; with --drop, the commented frames
are exactly those numbers; every commented request (an RC request) whose PSN
no earlier uncommented frame carried (a first copy lost: the responder never got
that PSN) is sent again later, with the same PSN, to the same host; at least one
frame is commented.
"""
import sys

FIELDS = ["frame.number", "frame.time_epoch", "frame.len", "ip.src", "ip.dst", "infiniband.bth.opcode",
          "infiniband.bth.psn", "frame.comment"]
COMMENT = "lost on the way (rocelab gen)"
RC_RESPONSES = range(0x0D, 0x13)   # RC RDMA READ response First .. ATOMIC Acknowledge


def rows(path):
    with open(path) as f:
        return [(line.rstrip("\n").split("\t") + [""] * len(FIELDS))[:len(FIELDS)] for line in f]


def main(argv):
    if argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + x for x in FIELDS))
        return 0
    label, drop, args = "", None, argv[1:]
    while args and args[0].startswith("--"):
        if args[0] == "--label":
            label, args = args[1] + ": ", args[2:]
        elif args[0] == "--drop":
            drop, args = sorted(int(x) for x in args[1].split(",")), args[2:]
        else:
            print("unknown option " + args[0], file=sys.stderr)
            return 2
    ng, pc = rows(args[0]), rows(args[1])
    fails = []
    if [r[:7] for r in ng] != [r[:7] for r in pc]:
        fails.append("the pcapng's frames differ from the pcap's")
    lost = [r for r in ng if r[7]]
    if not lost:
        fails.append("no frame is commented")
    if any(r[7] != COMMENT for r in lost):
        fails.append("a comment that is not %r: %r" % (COMMENT, [r[7] for r in lost if r[7] != COMMENT][:3]))
    nums = [int(r[0]) for r in lost]
    if drop is not None and nums != drop:
        fails.append("commented frames %s, --drop asked for %s" % (nums, drop))
    unsent = []
    for r in lost:
        if not r[5] or int(r[5], 0) >= 0x20 or int(r[5], 0) in RC_RESPONSES:
            continue
        if any(int(q[0]) < int(r[0]) and not q[7] and q[3:5] == r[3:5] and q[6] == r[6] for q in ng):
            continue
        if not any(int(q[0]) > int(r[0]) and q[3:5] == r[3:5] and q[6] == r[6] for q in ng):
            unsent.append(int(r[0]))
    if unsent:
        fails.append("lost requests never sent again: frames %s" % unsent[:5])
    for f in fails:
        print("FAIL %s%s" % (label, f))
    if not fails:
        print("PASS %s%d frames commented as lost (%s), each lost request sent again, the frames as the pcap's" %
              (label, len(lost), ",".join(map(str, nums[:8])) + ("..." if len(nums) > 8 else "")))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
