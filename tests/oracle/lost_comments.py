#!/usr/bin/env python3
"""`rocelab gen --pcapng`'s comments on the frames its wire lost, as stock tshark reads them.

    lost_comments.py --print-fields
    lost_comments.py [--label L] [--drop N,M,...] PCAPNG.tsv PCAP.tsv

Both .tsv are `tshark -T fields` with --print-fields' fields, one frame a line:
PCAPNG.tsv of `gen ... --pcapng`, PCAP.tsv of the same gen arguments without it.
Checks: the two hold the same frames (time, length, addresses, PSN); every
comment is "lost on the way (rocelab gen)" or, on a frame that passed the
congestion scenarios' switch queue, "bottleneck queue N B", N at most the
queue's bytes given with --queue KB (1 KB = 1024 B, as gen's --queue); with --drop, the commented frames
are exactly those numbers; every commented request (an RC request) whose PSN
no earlier uncommented frame carried (a first copy lost: the responder never got
that PSN) is sent again later, with the same PSN, to the same host; at least one
frame is commented.
"""
import re
import sys

FIELDS = ["frame.number", "frame.time_epoch", "frame.len", "ip.src", "ip.dst", "infiniband.bth.opcode",
          "infiniband.bth.psn", "frame.comment"]
COMMENT = "lost on the way (rocelab gen)"
DEPTH = re.compile(r"bottleneck queue (\d+) B")
RC_RESPONSES = range(0x0D, 0x13)   # RC RDMA READ response First .. ATOMIC Acknowledge


def rows(path):
    with open(path) as f:
        return [(line.rstrip("\n").split("\t") + [""] * len(FIELDS))[:len(FIELDS)] for line in f]


def main(argv):
    if argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + x for x in FIELDS))
        return 0
    label, drop, queue, args = "", None, None, argv[1:]
    while args and args[0].startswith("--"):
        if args[0] == "--label":
            label, args = args[1] + ": ", args[2:]
        elif args[0] == "--queue":
            queue, args = int(args[1]) * 1024, args[2:]
        elif args[0] == "--drop":
            drop, args = sorted(int(x) for x in args[1].split(",")), args[2:]
        else:
            print("unknown option " + args[0], file=sys.stderr)
            return 2
    ng, pc = rows(args[0]), rows(args[1])
    fails = []
    if [r[:7] for r in ng] != [r[:7] for r in pc]:
        fails.append("the pcapng's frames differ from the pcap's")
    lost = [r for r in ng if r[7] == COMMENT]
    if not lost:
        fails.append("no frame is commented as lost")
    depths = [DEPTH.fullmatch(r[7]) for r in ng if r[7] and r[7] != COMMENT]
    if queue is None and depths:
        fails.append("%d queue depth comments where no queue was given (--queue KB)" % len(depths))
    elif not all(depths):
        fails.append("a comment that is neither %r nor a queue depth: %r" %
                     (COMMENT, [r[7] for r in ng if r[7] and r[7] != COMMENT and not DEPTH.fullmatch(r[7])][:3]))
    elif queue is not None and (not depths or max(int(m.group(1)) for m in depths) > queue):
        fails.append("no depth comment, or a depth above the queue's %d B: %s" %
                     (queue, max((int(m.group(1)) for m in depths), default=None)))
    nums = [int(r[0]) for r in lost]
    if drop is not None and nums != drop:
        fails.append("commented frames %s, --drop asked for %s" % (nums, drop))
    unsent = []
    for r in lost:
        if not r[5] or int(r[5], 0) >= 0x20 or int(r[5], 0) in RC_RESPONSES:
            continue
        if any(int(q[0]) < int(r[0]) and q[7] != COMMENT and q[3:5] == r[3:5] and q[6] == r[6] for q in ng):
            continue
        if not any(int(q[0]) > int(r[0]) and q[3:5] == r[3:5] and q[6] == r[6] for q in ng):
            unsent.append(int(r[0]))
    if unsent:
        fails.append("lost requests never sent again: frames %s" % unsent[:5])
    for f in fails:
        print("FAIL %s%s" % (label, f))
    if not fails:
        print("PASS %s%d frames commented as lost (%s), each lost request sent again, the frames as the pcap's%s" %
              (label, len(lost), ",".join(map(str, nums[:8])) + ("..." if len(nums) > 8 else ""),
               "; %d queue depths up to %d B of %d" % (len(depths), max(int(m.group(1)) for m in depths), queue)
               if depths else ""))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
