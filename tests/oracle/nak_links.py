#!/usr/bin/env python3
"""PSN sequence error NAKs: the request each came on and the PSNs missing, from stock tshark's fields.

    nak_links.py [--label L] [--want-range] [--want-untriggered] EXPLAIN.jsonl TSHARK.tsv
    nak_links.py --print-fields

TSHARK.tsv is `tshark -T fields` with --print-fields' fields, one frame a line.
The responder NAKs a gap once, on the first request past the PSN it expected,
which the NAK carries (IBA 9.7.5.1.1). Seen from the wire that request opens the
latest run of requests of its flow whose PSNs lie beyond the NAK's, sent before
the NAK, after one that does not (24-bit PSN arithmetic); without that one the
capture may start inside the run, and only the NAK's own PSN is known missing.
The missing PSNs run from the NAK's up to the one before the trigger's.
`rocelab explain --json` must give the same trigger_frame, missing_first_psn and
missing_last_psn on every NAK of code 0 (AETH syndrome 0x60), and nothing on
any other frame. --want-range: at least one NAK must miss more than one PSN;
--want-untriggered: at least one NAK's trigger must be out of the capture.
"""
import json
import sys

FIELDS = ["frame.number", "ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.aeth.syndrome"]
SEQ_ERR_NAK = 0x60          # AETH syndrome: type NAK (011b), code 0, PSN sequence error
PSN_MOD = 1 << 24
RC_RESPONSES = range(0x0D, 0x13)   # RC RDMA READ response First .. ATOMIC Acknowledge


def psn_diff(a, b):
    d = (a - b) % PSN_MOD
    return d - PSN_MOD if d >= PSN_MOD // 2 else d


def read_tshark(path):
    frames = []
    with open(path) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            c += [""] * (len(FIELDS) - len(c))
            if not c[5] or not c[7]:
                continue
            op = int(c[5], 0)
            if op >= 0x20:          # RC only: UC has no NAKs, UD no sequence
                continue
            frames.append({"no": int(c[0]), "src": c[1] or c[2], "dst": c[3] or c[4], "op": op,
                           "dqp": int(c[6], 16), "psn": int(c[7]), "syn": int(c[8], 0) if c[8] else None})
    return frames


def expected(frames):
    """NAK frame -> (trigger frame or None, first missing PSN, last missing PSN)."""
    reqs = {}       # (requester ip, responder ip) -> [(frame, psn)]
    want = {}
    for f in frames:
        if f["op"] not in RC_RESPONSES:
            reqs.setdefault((f["src"], f["dst"]), []).append((f["no"], f["psn"]))
            continue
        if f["syn"] != SEQ_ERR_NAK:
            continue
        run, trigger = None, None
        for no, psn in reversed(reqs.get((f["dst"], f["src"]), [])):
            if psn_diff(psn, f["psn"]) <= 0:
                trigger = run
                break
            run = (no, psn)
        last = (trigger[1] - 1) % PSN_MOD if trigger else f["psn"]
        want[f["no"]] = (trigger[0] if trigger else None, f["psn"], last)
    return want


def main(argv):
    if argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + x for x in FIELDS))
        return 0
    label, want_range, want_untriggered = "", False, False
    args = argv[1:]
    while args and args[0].startswith("--"):
        if args[0] == "--label":
            label, args = args[1] + ": ", args[2:]
        elif args[0] == "--want-range":
            want_range, args = True, args[1:]
        elif args[0] == "--want-untriggered":
            want_untriggered, args = True, args[1:]
        else:
            print("unknown option " + args[0], file=sys.stderr)
            return 2
    got = {}
    with open(args[0]) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            j = json.loads(line)
            a = j.get("analysis", {})
            if "missing_first_psn" in a:
                got[j["frame"]] = (a.get("trigger_frame"), a["missing_first_psn"], a["missing_last_psn"])
    want = expected(read_tshark(args[1]))
    ok = True
    if not want:
        print("FAIL %sno PSN sequence error NAK in the capture (tshark)" % label)
        ok = False
    elif got == want:
        print("PASS %s%d PSN sequence error NAKs: trigger and missing PSNs as tshark's fields give them" %
              (label, len(want)))
    else:
        bad = sorted(set(got) | set(want))
        bad = [(n, got.get(n), want.get(n)) for n in bad if got.get(n) != want.get(n)][:5]
        print("FAIL %sNAK (frame, explain, tshark): %s" % (label, bad))
        ok = False
    if want_range and not any(w[2] != w[1] for w in want.values()):
        print("FAIL %sno NAK misses more than one PSN: the range is not exercised" % label)
        ok = False
    if want_untriggered and all(w[0] for w in want.values()):
        print("FAIL %severy NAK's trigger is in the capture: the case without one is not exercised" % label)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
