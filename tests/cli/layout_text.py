#!/usr/bin/python3
"""`rocelab explain --layout BTH` against the BTH as IBA 9.2 draws it.

Usage: layout_text.py LAYOUT.txt   (the text diagram)

The expected fields, widths and order are IBA Volume 1, 9.2 (Figure 38, the BTH), written here by
hand and not read from rocelab: each box of the diagram is read back by its '|' edges (two columns a
bit), a one-letter box through the legend under the diagram, and every BTH field must be there once,
in order, at its width, with 96 bits in all and every row 32 bits wide.
"""
import re
import sys

# (names the box may carry: the IBA's short name, then its long one), bits
BTH = [(("Opcode", "OpCode"), 8), (("SE", "Solicited event"), 1), (("MigReq", "M"), 1),
       (("PadCnt", "Pad count"), 2), (("TVer", "Transport header version"), 4), (("P_Key",), 16),
       (("FECN",), 1), (("BECN",), 1), (("Resv6", "Reserved (6 bits)", "reserved"), 6),
       (("DestQP", "Destination QP"), 24), (("AckReq", "A"), 1),
       (("Resv7", "Reserved (7 bits)", "reserved"), 7), (("PSN",), 24)]


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    rows = [l for l in text.splitlines() if re.match(r"^ *\d+ \|", l)]
    legend = {}
    for l in text.splitlines():
        m = re.match(r"^  (\S)  ([^,:]+)(?:, ([^,:]+))?[,:]", l)
        if m:
            legend[m.group(1)] = {n for n in m.group(2, 3) if n}
    boxes, errors = [], []
    for r in rows:
        cells = r.split("|")[1:-1]
        width = sum((len(c) + 1) // 2 for c in cells)
        if width != 32 or any(len(c) % 2 != 1 for c in cells):
            errors.append("row not 32 bits of 2 columns each: %r" % r)
        for c in cells:
            label = c.strip()
            names = legend.get(label, {label}) if len(label) == 1 else {label}
            boxes.append((names, (len(c) + 1) // 2))
    if len(rows) != 3:
        errors.append("%d rows, the BTH has 3 (12 bytes)" % len(rows))
    if len(boxes) != len(BTH):
        errors.append("%d boxes, the BTH has %d fields: %s" % (len(boxes), len(BTH), boxes))
    for (names, bits), (want, wbits) in zip(boxes, BTH):
        if not names & set(want) or bits != wbits:
            errors.append("box %s of %d bits where IBA 9.2 has %s of %d" % (sorted(names), bits, want[0], wbits))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
