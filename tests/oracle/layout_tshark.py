#!/usr/bin/env python3
"""`rocelab explain --layout HDR --json` against Wireshark's InfiniBand dissector.

Usage: layout_tshark.py ROCELAB FIELDS.tsv CAPTURE.pdml

FIELDS.tsv is `tshark -G fields`: per field its abbrev, type and bitmask. CAPTURE.pdml is `tshark -T
pdml` of a capture holding every header (rocelab gen all-opcodes): per field of a real packet its
byte position and size. Together they give where Wireshark reads each field, to the bit: the bytes
from the PDML, the bits within them from the bitmask (MSB first, as on the wire). For BTH, RETH, AETH,
DETH, AtomicETH and AtomicAckETH every field Wireshark has is compared with the box rocelab draws for
it (first bit, width); Wireshark's "Reserved" bytes must be covered exactly by rocelab's boxes, and
those that are fields in rocelab's table are named in a NOTE on that line; so are Wireshark's
sub-fields of a field rocelab's table has whole (the AETH syndrome's). ImmDt and IETH, which Wireshark shows as
one value named as the header, too. And for one Ethernet/IPv4 frame of each opcode tshark decodes,
`--layout OPCODE --json`'s layers (but RD's, which tshark 4.0 reads as Mellanox DCT) against where tshark finds Ethernet, IPv4, UDP, the BTH and each
extended header (position and size), and the ICRC (the last 4 bytes). One PASS or FAIL line per check.
"""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

# rocelab's header -> Wireshark's header field, and rocelab's field (its filter name) -> Wireshark's.
HEADERS = {"BTH": "infiniband.bth", "RETH": "infiniband.reth", "AETH": "infiniband.aeth",
           "DETH": "infiniband.deth", "AtomicETH": "infiniband.atomiceth",
           "AtomicAckETH": "infiniband.atomicacketh", "ImmDt": "infiniband.immdt", "IETH": "infiniband.ieth"}
NAMES = {
    ("BTH", "opcode"): "infiniband.bth.opcode", ("BTH", "se"): "infiniband.bth.se",
    ("BTH", "migreq"): "infiniband.bth.m", ("BTH", "padcnt"): "infiniband.bth.padcnt",
    ("BTH", "tver"): "infiniband.bth.tver", ("BTH", "pkey"): "infiniband.bth.p_key",
    ("BTH", "dest_qp"): "infiniband.bth.destqp", ("BTH", "ackreq"): "infiniband.bth.a",
    ("BTH", "resv7"): "infiniband.bth.reserved7", ("BTH", "psn"): "infiniband.bth.psn",
    ("RETH", "va"): "infiniband.reth.va", ("RETH", "rkey"): "infiniband.reth.r_key",
    ("RETH", "dma_len"): "infiniband.reth.dmalen",
    ("AETH", "syndrome"): "infiniband.aeth.syndrome", ("AETH", "msn"): "infiniband.aeth.msn",
    ("DETH", "qkey"): "infiniband.deth.q_key", ("DETH", "src_qp"): "infiniband.deth.srcqp",
    # Wireshark 4.0 reads an AtomicETH's address and key with the RETH's fields.
    ("AtomicETH", "va"): "infiniband.reth.va", ("AtomicETH", "rkey"): "infiniband.reth.r_key",
    ("AtomicETH", "swap_add"): "infiniband.atomiceth.swapdt", ("AtomicETH", "compare"): "infiniband.atomiceth.cmpdt",
    ("AtomicAckETH", "orig"): "infiniband.atomicacketh.origremdt",
    # ImmDt and IETH: one value, under the header's own name.
    ("ImmDt", "data"): "infiniband.immdt", ("IETH", "rkey"): "infiniband.ieth",
}
RESERVED = "infiniband.reserved"
# tshark 4.0 reads RD opcodes (transport 010) as Mellanox DCT, its "BTH" 20 bytes long (README.md).
RD = 2

failed = 0


def report(ok, text):
    global failed
    failed += not ok
    print(("PASS " if ok else "FAIL ") + text)


def bitmasks(path):
    """abbrev -> bitmask, from tshark -G fields (tshark 4.0: F, name, abbrev, type, parent, base, bitmask, blurb)."""
    masks = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) >= 7 and c[0] == "F" and c[2].startswith("infiniband.") and c[6].startswith("0x"):
                masks[c[2]] = int(c[6], 16)
    return masks


def first_header(pdml, name):
    """The first <field name=NAME> of the capture: Wireshark's header, its children in wire order."""
    for e in pdml.iter("field"):
        if e.get("name") == name:
            return e
    return None


def wireshark_bits(hdr, field, masks):
    """(first bit from the header's start, width) where Wireshark reads @field."""
    size, at = int(field.get("size")), (int(field.get("pos")) - int(hdr.get("pos"))) * 8
    mask = masks.get(field.get("name"), 0) if field.get("name") != RESERVED else 0
    if not mask:
        return at, size * 8
    high, low = mask.bit_length() - 1, (mask & -mask).bit_length() - 1
    if mask >> low != (1 << (high - low + 1)) - 1:
        raise ValueError("%s: bitmask 0x%x is not one run of bits" % (field.get("name"), mask))
    return at + size * 8 - 1 - high, high - low + 1


def layout(rocelab, name):
    out = subprocess.run([rocelab, "explain", "--layout", name, "--json"], check=True, capture_output=True, text=True)
    return [json.loads(l) for l in out.stdout.splitlines()]


def check_header(rocelab, name, pdml, masks):
    spans = layout(rocelab, name)
    hdr = first_header(pdml, HEADERS[name])
    if hdr is None:
        report(False, "%s: no packet of the capture has Wireshark's %s" % (name, HEADERS[name]))
        return
    total = sum(s["bits"] for s in spans)
    report(total == int(hdr.get("size")) * 8,
           "%s: %d bits in rocelab's layout, %s bytes in Wireshark's" % (name, total, hdr.get("size")))
    children = list(hdr.findall("field"))
    seen = {c.get("name"): wireshark_bits(hdr, c, masks) for c in children if c.get("name") != RESERVED}
    # A field Wireshark splits further (the AETH syndrome), where rocelab's table has it whole.
    split = {c.get("name"): " (NOTE: Wireshark splits it into %s)" %
             ", ".join(g.get("name").rsplit(".", 1)[1] for g in c.findall("field"))
             for c in children if c.findall("field") and c.get("name") != HEADERS[name]}
    for s in spans:
        ws = NAMES.get((name, s.get("filter")))
        if ws is None:
            continue
        got, want = (s["first_bit"], s["bits"]), seen.get(ws)
        report(got == want, "%s %s: bit %d, %d bits; Wireshark's %s: %s%s" %
               (name, s["name"], got[0], got[1], ws, "bit %d, %d bits" % want if want else "not in the packet",
                split.get(ws, "")))
    for c in children:
        if c.get("name") != RESERVED:
            continue
        first, bits = wireshark_bits(hdr, c, masks)
        inside = [s for s in spans if first <= s["first_bit"] and s["first_bit"] + s["bits"] <= first + bits]
        named = [s["name"] for s in inside if not s["reserved"]]
        report(sum(s["bits"] for s in inside) == bits,
               "%s: Wireshark's reserved bits %d-%d are rocelab's %s%s" %
               (name, first, first + bits - 1, ", ".join(s["name"] for s in inside),
                " (NOTE: Wireshark 4.0 has no field for %s)" % ", ".join(named) if named else ""))
    for s in spans:
        if not s["reserved"] and (name, s.get("filter")) not in NAMES and not any(
                c.get("name") == RESERVED for c in children):
            report(False, "%s %s: no Wireshark field to compare with" % (name, s["name"]))


def frame_layout(rocelab, opcode):
    out = subprocess.run([rocelab, "explain", "--layout", str(opcode), "--json"], capture_output=True, text=True)
    return [json.loads(l) for l in out.stdout.splitlines()] if out.returncode == 0 else None


def check_frames(rocelab, pdml):
    """explain --layout OPCODE's layers against where tshark finds them in an Ethernet/IPv4 frame of
    that opcode: Ethernet, IPv4 and UDP by their protocols' positions and sizes, the BTH and each
    extended header tshark decodes by its header field, the ICRC as the frame's last 4 bytes."""
    done = set()
    for pkt in pdml.iter("packet"):
        protos = {p.get("name"): p for p in pkt.findall("proto")}
        if "vlan" in protos or "ip" not in protos or "infiniband" not in protos:
            continue
        ib = protos["infiniband"]
        ops = [f for f in ib.iter("field") if f.get("name") == "infiniband.bth.opcode"]
        if not ops or int(ops[0].get("show")) in done:
            continue
        op = int(ops[0].get("show"))
        done.add(op)
        if op >> 5 == RD:
            continue
        layers = frame_layout(rocelab, op)
        if layers is None:
            report(False, "frame 0x%02x: explain --layout refuses an opcode tshark decodes" % op)
            continue
        where = {"Ethernet": protos["eth"], "IPv4": protos["ip"], "UDP": protos["udp"]}
        where.update({name: next((f for f in ib.iter("field") if f.get("name") == ws), None)
                      for name, ws in HEADERS.items()})
        got, want = [], []
        for l in layers:
            w = where.get(l["layer"])
            if w is None or "byte" not in l:
                continue
            got.append("%s %s@%s" % (l["layer"], l["bytes"], l["byte"]))
            want.append("%s %s@%s" % (l["layer"], w.get("size"), w.get("pos")))
        size = int(protos["frame"].get("size"))
        crc = [f for f in ib.iter("field") if f.get("name") == "infiniband.invariant.crc"]
        if layers[-1]["layer"] == "ICRC" and crc:
            got.append("ICRC 4@end-4")
            want.append("ICRC %s@end-%d" % (crc[0].get("size"), size - int(crc[0].get("pos"))))
        report(got == want and len(got) >= 4, "frame 0x%02x %s: %s; tshark: %s" %
               (op, layers[0]["opcode"], ", ".join(got), ", ".join(want)))


def main():
    rocelab, fields, pdml_path = sys.argv[1:4]
    masks = bitmasks(fields)
    pdml = ET.parse(pdml_path).getroot()
    for name in HEADERS:
        check_header(rocelab, name, pdml, masks)
    check_frames(rocelab, pdml)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
