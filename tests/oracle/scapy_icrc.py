#!/usr/bin/python3
"""Scapy oracle: ICRC and BTH fields of `rocelab explain --json` vs scapy.

usage: /usr/bin/python3 scapy_icrc.py [--label TEXT] [--corrupt WORKDIR] ROCELAB PCAP

Needs Debian's python3-scapy (2.5), i.e. /usr/bin/python3, which has
scapy.contrib.roce.

For every packet of PCAP:
  * scapy's dissection of the BTH (opcode, SE, M, pad, TVer, P_Key, FECN, BECN,
    DestQP, A, PSN) and of the trailing ICRC field must equal rocelab's bth.*
    and icrc.value (same byte order: the 4 wire bytes read big-endian, which is
    what scapy's FCSField("!I") shows).  For opcode 0x11 (RC Acknowledge) also
    the AETH (scapy binds AETH only to 0x11 and 0x51; for 0x51, RD Acknowledge,
    it ignores the RDETH in between, so we don't use it there).
  * For IPv4 RoCEv2 packets only: scapy's BTH.compute_icrc() (pseudo-LRH of
    8 x 0xff, IPv4 TOS/TTL/checksum, UDP checksum and BTH FECN/BECN/resv6
    masked to ones, CRC-32) must equal rocelab's icrc.expected.  We delete the
    BTH's icrc field and rebuild the frame; the rebuilt frame must match the
    original byte for byte except for the last 4 bytes.
    scapy 2.5's compute_icrc() only supports IPv4 (it warns and returns 0
    for IPv6, and RoCEv1/GRH has no UDP underlayer), so IPv6 and RoCEv1
    packets are skipped for the ICRC computation (their BTH fields are still
    compared).

With --corrupt WORKDIR, two more checks on the first IPv4 packet that has a
payload and no extended headers:
  * flip one payload bit with scapy (keeping the wire ICRC), write it, and
    check that rocelab reports icrc.ok false, icrc.value = the unchanged wire
    ICRC, and icrc.expected = the ICRC scapy computes for the corrupted packet;
  * change only fields the ICRC masks (IPv4 TOS and TTL, IP and UDP checksum,
    BTH FECN/BECN), and check that rocelab still reports icrc.ok true and
    that scapy's recomputed ICRC did not change.

Prints one line per check, starting with PASS or FAIL; exit 0 if all passed.
"""

import json
import logging
import os
import subprocess
import sys

logging.getLogger("scapy").setLevel(logging.ERROR)

from scapy.all import IP, UDP, Raw, raw, rdpcap, wrpcap  # noqa: E402
from scapy.contrib.roce import AETH, BTH  # noqa: E402

MAX_DETAIL = 40
NO_EXT_HEADER_OPCODES = (0x00, 0x01, 0x02, 0x04, 0x20, 0x21, 0x22, 0x24)


def rocelab_json(rocelab, pcap):
    p = subprocess.run([rocelab, "explain", "--json", pcap],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("%s explain --json %s: exit %d: %s"
                           % (rocelab, pcap, p.returncode,
                              p.stderr.decode(errors="replace").strip()[:300]))
    out = {}
    for line in p.stdout.decode().splitlines():
        if line.strip():
            o = json.loads(line)
            out[o["frame"]] = o
    return out


def scapy_icrc(pkt):
    """ICRC scapy computes for pkt (an Ether/.../IP/UDP/BTH packet), as the
    4 wire bytes read big-endian; also the rebuilt frame."""
    q = pkt.copy()
    del q[BTH].icrc
    b = raw(q)
    return int.from_bytes(b[-4:], "big"), b


def framing(pkt):
    if IP in pkt:
        return "IPv4"
    if UDP in pkt:
        return "IPv6"
    return "RoCEv1"


def compare_all(ours, pkts, label):
    results = []
    values = 0
    bad = []
    crc_bad = []
    n_crc = 0
    skipped = {"IPv6": 0, "RoCEv1": 0}
    seen = 0
    for fno, pkt in enumerate(pkts, 1):
        r = ours.get(fno)
        if BTH not in pkt:
            if r is not None:
                values += 1
                bad.append("frame %d: rocelab reports a RoCE packet, scapy finds no BTH" % fno)
            continue
        if r is None:
            values += 1
            bad.append("frame %d: scapy finds a BTH, rocelab reports nothing" % fno)
            continue
        seen += 1
        b = r["bth"]
        s = pkt[BTH]
        where = "frame %d (%s, %s)" % (fno, b["opcode_name"], framing(pkt))
        pairs = [
            ("bth.opcode", b["opcode"], s.opcode),
            ("bth.se", int(b["se"]), s.solicited),
            ("bth.migreq", int(b["migreq"]), s.migreq),
            ("bth.padcnt", b["padcnt"], s.padcount),
            ("bth.tver", b["tver"], s.version),
            ("bth.pkey", b["pkey"], s.pkey),
            ("bth.fecn", int(b["fecn"]), s.fecn),
            ("bth.becn", int(b["becn"]), s.becn),
            ("bth.dqpn", b["dqpn"], s.dqpn),
            ("bth.ackreq", int(b["ackreq"]), s.ackreq),
            ("bth.psn", b["psn"], s.psn),
            ("icrc.value (wire)", int(r["icrc"]["value"], 16), s.icrc),
        ]
        if b["opcode"] == 0x11 and AETH in pkt:
            pairs += [("aeth.syndrome", r["aeth"]["syndrome"], pkt[AETH].syndrome),
                      ("aeth.msn", r["aeth"]["msn"], pkt[AETH].msn)]
        for what, o, t in pairs:
            values += 1
            if o != t:
                if what.startswith("icrc"):
                    o, t = "0x%08x" % o, "0x%08x" % t
                bad.append("%s: %s: rocelab=%s, scapy=%s" % (where, what, o, t))

        if IP not in pkt:
            skipped[framing(pkt)] += 1
            continue
        crc, rebuilt = scapy_icrc(pkt)
        orig = raw(pkt)
        n_crc += 1
        if rebuilt[:-4] != orig[:-4] or len(rebuilt) != len(orig):
            crc_bad.append("%s: scapy's rebuild of the packet differs from the original "
                           "before the ICRC; cannot trust its ICRC" % where)
        elif crc != int(r["icrc"]["expected"], 16):
            crc_bad.append("%s: icrc.expected: rocelab=%s, scapy=0x%08x"
                           % (where, r["icrc"]["expected"], crc))

    def details(msgs):
        d = list(msgs[:MAX_DETAIL])
        if len(msgs) > MAX_DETAIL:
            d.append("... and %d more mismatches" % (len(msgs) - MAX_DETAIL))
        return d

    results.append((not bad and seen > 0 and seen == len(ours),
                    "%s: BTH fields + wire ICRC: %d values compared over %d packets "
                    "(rocelab reported %d), %d mismatches"
                    % (label, values, seen, len(ours), len(bad)), details(bad)))
    results.append((not crc_bad and n_crc > 0,
                    "%s: ICRC: scapy compute_icrc() vs rocelab icrc.expected: %d IPv4 packets "
                    "compared, %d mismatches (skipped, scapy 2.5 computes IPv4 only: "
                    "%d IPv6, %d RoCEv1)"
                    % (label, n_crc, len(crc_bad), skipped["IPv6"], skipped["RoCEv1"]),
                    details(crc_bad)))
    return results


def pick_packet(ours, pkts):
    for fno, pkt in enumerate(pkts, 1):
        r = ours.get(fno)
        if (r and IP in pkt and BTH in pkt and r["bth"]["opcode"] in NO_EXT_HEADER_OPCODES
                and r["payload_len"] > 0 and isinstance(pkt[BTH].payload, Raw)
                and r["icrc"]["ok"]):
            return fno, pkt
    return None, None


def corrupt_checks(rocelab, ours, pkts, workdir, label):
    results = []
    fno, pkt = pick_packet(ours, pkts)
    if pkt is None:
        return [(False, "%s: corrupt ICRC: no IPv4 packet with a payload and no "
                        "extended headers to corrupt" % label, [])]
    wire = pkt[BTH].icrc
    where = "frame %d (%s)" % (fno, ours[fno]["bth"]["opcode_name"])

    # 1. flip the lowest bit of the first payload byte; keep the wire ICRC
    q = pkt.copy()
    load = bytearray(q[BTH].payload.load)
    load[0] ^= 0x01
    q[BTH].payload.load = bytes(load)
    a, b = raw(pkt), raw(q)
    ndiff = sum(bin(x ^ y).count("1") for x, y in zip(a, b))
    path = os.path.join(workdir, "corrupt.pcap")
    wrpcap(path, [q])
    det = []
    try:
        r = rocelab_json(rocelab, path).get(1)
    except RuntimeError as e:
        r, det = None, [str(e)]
    want, _ = scapy_icrc(q)
    ok = (r is not None and ndiff == 1 and len(a) == len(b)
          and r["icrc"]["ok"] is False
          and int(r["icrc"]["value"], 16) == wire
          and int(r["icrc"]["expected"], 16) == want
          and want != wire)
    if r is not None and not ok:
        det.append("bits changed=%d; rocelab icrc=%s; wire ICRC 0x%08x; scapy ICRC of the "
                   "corrupted packet 0x%08x" % (ndiff, json.dumps(r["icrc"]), wire, want))
    results.append((ok, "%s: corrupt ICRC: one payload bit flipped in %s -> rocelab icrc.ok="
                        "%s, value=%s (wire 0x%08x), expected=%s (scapy 0x%08x)"
                    % (label, where, r and r["icrc"]["ok"], r and r["icrc"]["value"],
                       wire, r and r["icrc"]["expected"], want), det))

    # 2. change only masked fields: the ICRC must stay valid
    m = pkt.copy()
    m[IP].ttl = (m[IP].ttl + 37) & 0xFF
    m[IP].tos = m[IP].tos ^ 0xFF
    del m[IP].chksum          # recomputed by scapy; masked anyway
    m[UDP].chksum = 0x1234
    m[BTH].fecn = 1 - m[BTH].fecn
    m[BTH].becn = 1 - m[BTH].becn
    path = os.path.join(workdir, "masked.pcap")
    wrpcap(path, [m])
    det = []
    try:
        r = rocelab_json(rocelab, path).get(1)
    except RuntimeError as e:
        r, det = None, [str(e)]
    again, _ = scapy_icrc(m)
    ok = (r is not None and raw(m)[-4:] == raw(pkt)[-4:] and again == wire
          and r["icrc"]["ok"] is True
          and int(r["icrc"]["value"], 16) == wire
          and int(r["icrc"]["expected"], 16) == wire)
    if r is not None and not ok:
        det.append("rocelab icrc=%s; wire ICRC 0x%08x; scapy ICRC after the change 0x%08x"
                   % (json.dumps(r["icrc"]), wire, again))
    results.append((ok, "%s: masked fields: IPv4 TOS/TTL/checksum, UDP checksum, BTH FECN/BECN "
                        "changed in %s -> rocelab icrc.ok=%s, scapy ICRC 0x%08x (was 0x%08x)"
                    % (label, where, r and r["icrc"]["ok"], again, wire), det))
    return results


def main(argv):
    args = list(argv[1:])
    label, workdir = "scapy", None
    while args and args[0].startswith("--"):
        if args[0] == "--label" and len(args) > 1:
            label = "scapy %s" % args[1]
            args = args[2:]
        elif args[0] == "--corrupt" and len(args) > 1:
            workdir = args[1]
            args = args[2:]
        else:
            break
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rocelab, pcap = args
    try:
        ours = rocelab_json(rocelab, pcap)
    except RuntimeError as e:
        print("FAIL %s: %s" % (label, e))
        return 1
    pkts = rdpcap(pcap)
    results = compare_all(ours, pkts, label)
    if workdir is not None:
        results += corrupt_checks(rocelab, ours, pkts, workdir, label)
    for ok, line, det in results:
        print("%s %s" % ("PASS" if ok else "FAIL", line))
        for d in det:
            print("    " + d)
    return 0 if all(ok for ok, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
