#!/usr/bin/env python3
"""gen dcqcn, incast, fairness with DCQCN and without, as tshark's InfiniBand dissector reads them.

usage: congestion.py LABEL DCQCN.tsv NONE.tsv

Each TSV: tshark -T fields -e frame.time_epoch -e frame.len -e infiniband.bth.opcode
-e infiniband.bth.destqp -e infiniband.bth.psn, of one capture made with the same options but
--cc dcqcn and --cc none. Only tshark's fields are read: nothing of rocelab's own analysis.

- Loss. The capture has every request A sent, so a request whose (destination QP, PSN) came
  before is a go-back-N resend (IBA 9.7.5.1.3): B discarded what followed a lost packet and A sent
  it all again. Without congestion control a flow keeps up to 128 PSNs of 4 KB in flight, 512 KB,
  more than the 400 KB queue: every window overflows it, and the resends grow with the run. With
  DCQCN the queue is marked from Kmin (5 KB), far below its limit, so loss is confined to each
  flow's start, before its first CNPs' cuts take hold (a flow starts at its 25 Gb/s line rate into
  a 10 Gb/s port). At the defaults a run lasts tens of ms against that start of well under one,
  so DCQCN must resend at least LOSS_RATIO times fewer frames (measured: 67 against 32,022 for
  dcqcn, 453 against 32,597 for incast, 176 against 38,106 for fairness); and none in the run's
  last half, when --cc none still is.
- The cut. Before the first CNP the queue builds, so A's requests reach B at least as fast as the
  bottleneck sends. Each CNP cuts the rate by alpha/2 with alpha starting at 1 (Zhu et al. 2015,
  section 3.1, eq. 1: R_C = R_C (1 - alpha/2)), at most one per 50 us while the queue stays above
  Kmin: from 25 Gb/s, three CNPs leave 3.1 Gb/s, under a third of the bottleneck. Once the queue has
  drained, at most 400 KB / 10 Gb/s = 320 us later, the pacer's gaps show on the wire. So in the
  CUT_WITHIN after the first CNP, some RUN requests in a row come at no more than half the slowest
  rate of any RUN in a row before it. A run, not a time window, so that one stall (a NAK's round
  trip, an ACK timeout) does not pass for a cut. Without congestion control no run slows so.
"""
import bisect
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import tally                        # noqa: E402
from tally import later as check    # noqa: E402

CNP = 0x81
RDMA_WRITES = range(6, 12)          # RC RDMA WRITE First .. Only with Immediate (IBA Table 38)
LOSS_RATIO = 10
RUN = 8
CUT_WITHIN = 2e-3


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.strip():
                t, length, op, dqp, psn = line.rstrip("\n").split("\t")
                rows.append((float(t), int(length), int(op), int(dqp, 0), int(psn)))
    return rows


def resends(rows):
    """The times of requests whose (QP, PSN) was sent before."""
    seen, again = set(), []
    for t, _, op, dqp, psn in rows:
        if op in RDMA_WRITES:
            if (dqp, psn) in seen:
                again.append(t)
            seen.add((dqp, psn))
    return again


def slowest_run(rows, lo, hi):
    """The lowest rate, in bits per second, of RUN consecutive requests in [lo, hi), and its time."""
    reqs = [(t, length) for t, length, op, _, _ in rows if op in RDMA_WRITES and lo <= t < hi]
    low = None
    for i in range(len(reqs) - RUN + 1):
        span = reqs[i + RUN - 1][0] - reqs[i][0]
        r = sum(length for _, length in reqs[i + 1:i + RUN]) * 8 / span if span > 0 else float("inf")
        low = (r, reqs[i][0]) if low is None or r < low[0] else low
    return low


def check_loss(cc, none):
    a, b = resends(cc), resends(none)
    check(b and len(a) * LOSS_RATIO <= len(b),
          "DCQCN resends at least %dx fewer requests than --cc none: %d against %d"
          % (LOSS_RATIO, len(a), len(b)))
    for what, rows, again in (("DCQCN", cc, a), ("--cc none", none, b)):
        half = (rows[0][0] + rows[-1][0]) / 2
        late = sum(t >= half for t in again)
        check(late == 0 if what == "DCQCN" else late > 0,
              "%s: %d resends in the run's last half" % (what, late))


def first_cnp(rows):
    cnps = [r[0] for r in rows if r[2] == CNP]
    return cnps[0] if cnps else None


def check_cut(what, rows, must_fall):
    cnp = first_cnp(rows)
    before = slowest_run(rows, rows[0][0], cnp) if cnp else None
    if before is None:
        check(False, "%s: %d requests before the first CNP" % (what, RUN))
        return
    before = before[0]
    low = slowest_run(rows, cnp, cnp + CUT_WITHIN)
    fell = low is not None and low[0] <= before / 2
    check(fell == must_fall,
          "%s: in the %g ms after the first CNP, A's slowest %d requests in a row came at %.2f Gb/s "
          "(at +%.0f us); before it, at %.2f Gb/s or faster"
          % (what, CUT_WITHIN * 1e3, RUN, low[0] / 1e9 if low else 0, (low[1] - cnp) * 1e6 if low else 0,
             before / 1e9))


def main(argv):
    label, cc, none = argv[1], load(argv[2]), load(argv[3])
    if not cc or not none:
        check(False, "tshark read both captures")
    else:
        check_loss(cc, none)
        check_cut("DCQCN", cc, True)
        check_cut("--cc none", none, False)
    return tally.report(label)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
