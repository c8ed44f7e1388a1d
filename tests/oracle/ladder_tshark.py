#!/usr/bin/env python3
"""`rocelab explain --ladder --svg` against what stock tshark reads in the same capture.

    ladder_tshark.py --print-fields
    ladder_tshark.py [--label L] [--want lost,resent,answers,gap,bad] LADDER.svg CAPTURE.tsv

CAPTURE.tsv is `tshark -T fields -E occurrence=f` with --print-fields' fields, one frame a line.
Checks: the SVG is well-formed XML with an <svg> root; it has an arrow (a line and the words over
it, both with data-frame) for exactly the frames tshark decodes as InfiniBand (a BTH opcode), and a
section for each two hosts that exchange them; within a section the arrows are in frame order and
each points away from its frame's IP source (the section's left host is the first of the two to
send); the words name the opcode as IBA Table 38 does and the PSN tshark reads, or for a CM MAD
the message its attribute ID is (IBA Table 227); a frame whose pcapng comment is rocelab gen's
"lost on the way" is the dashed arrow; a "RETRANSMISSION of N" names an earlier frame with the
same opcode, PSN and source (a CM message: the same message from the same host), an "answers X of N" a frame N from the other host whose attribute
is X. --want names what the capture must show at least once (a dashed arrow, a RETRANSMISSION, an
"answers", a GAP, an ICRC BAD), so that a drawing that lost its marks cannot pass on a capture that
has them.
"""
import re
import sys
import xml.etree.ElementTree as ET

FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.bth.opcode",
          "infiniband.bth.psn", "infiniband.mad.attributeid", "frame.comment"]
SVG = "{http://www.w3.org/2000/svg}"
LOST = "lost on the way (rocelab gen)"

# IBA Table 38, the low five bits of the OpCode (the same for RC, UC, RD and UD where it exists).
OPS = {0: "SEND First", 1: "SEND Middle", 2: "SEND Last", 3: "SEND Last with Immediate", 4: "SEND Only",
       5: "SEND Only with Immediate", 6: "RDMA WRITE First", 7: "RDMA WRITE Middle", 8: "RDMA WRITE Last",
       9: "RDMA WRITE Last with Immediate", 10: "RDMA WRITE Only", 11: "RDMA WRITE Only with Immediate",
       12: "RDMA READ Request", 13: "RDMA READ response First", 14: "RDMA READ response Middle",
       15: "RDMA READ response Last", 16: "RDMA READ response Only", 17: "Acknowledge",
       18: "ATOMIC Acknowledge", 19: "CmpSwap", 20: "FetchAdd", 22: "SEND Last with Invalidate",
       23: "SEND Only with Invalidate"}
# IBA Table 227: the CM's attribute IDs.
CM = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU", 0x15: "DREQ", 0x16: "DREP",
      0x17: "SIDR_REQ", 0x18: "SIDR_REP", 0x19: "LAP", 0x1A: "APR"}

failed = 0
label = ""


def report(ok, text):
    global failed
    failed += not ok
    print(("PASS " if ok else "FAIL ") + label + text)


def frames(path):
    """tshark's InfiniBand frames: number -> dict."""
    out = {}
    with open(path) as f:
        for line in f:
            v = dict(zip(FIELDS, (line.rstrip("\n").split("\t") + [""] * len(FIELDS))[:len(FIELDS)]))
            if v["infiniband.bth.opcode"] == "":
                continue
            src = v["ip.src"] or v["ipv6.src"]
            dst = v["ip.dst"] or v["ipv6.dst"]
            attr = int(v["infiniband.mad.attributeid"], 16) if v["infiniband.mad.attributeid"] else None
            out[int(v["frame.number"])] = {"src": src, "dst": dst, "op": int(v["infiniband.bth.opcode"]),
                                           "psn": int(v["infiniband.bth.psn"]), "attr": attr,
                                           "lost": v["frame.comment"] == LOST}
    return out


def arrows(root):
    """frame -> (section, direction, words, dashed, mark); sections in order, each its frames."""
    out, sections, section = {}, [], None
    elems = list(root.iter())
    for i, e in enumerate(elems):
        if e.tag == SVG + "text" and re.fullmatch(r"\[\d+\]", (e.text or "")):
            section = int(e.text[1:-1])
            sections.append([])
        if e.tag != SVG + "text" or "data-frame" not in e.attrib:
            continue
        n = int(e.attrib["data-frame"])
        line = [x for x in elems if x.tag == SVG + "line" and x.attrib.get("data-frame") == str(n)]
        mark = ""
        if i + 1 < len(elems) and elems[i + 1].tag == SVG + "text" and "data-mark" in elems[i + 1].attrib:
            mark = elems[i + 1].text or ""
        out[n] = (section, e.attrib["data-dir"], e.text or "", bool(line) and "stroke-dasharray" in line[0].attrib,
                  mark, len(line))
        sections[-1].append(n)
    return out, sections


def check_words(n, f, words):
    if f["attr"] is not None and f["op"] & 0x1F in (4, 5) and f["op"] >> 5 == 3:
        want = "CM " + CM.get(f["attr"], "?")
        return words == want or words.startswith(want + " "), want
    want = "%s PSN %d" % (OPS.get(f["op"] & 0x1F, "?"), f["psn"])
    return words.startswith(want), want


def main(argv):
    global label
    if argv[1:] == ["--print-fields"]:
        print(" ".join("-e " + x for x in FIELDS))
        return 0
    args, wants = argv[1:], []
    while args[:1] in (["--label"], ["--want"]):
        if args[0] == "--label":
            label = args[1] + ": "
        else:
            wants = args[1].split(",")
        args = args[2:]
    svg_path, tsv = args
    try:
        root = ET.parse(svg_path).getroot()
    except ET.ParseError as e:
        report(False, "the SVG is not well-formed XML: %s" % e)
        return 1
    report(root.tag == SVG + "svg", "the SVG parses as XML, its root <svg> in the SVG namespace")
    ws = frames(tsv)
    drawn, sections = arrows(root)
    report(sorted(drawn) == sorted(ws), "an arrow for each of tshark's %d InfiniBand frames, and no other (%d drawn)"
           % (len(ws), len(drawn)))
    report(all(drawn[n][5] == 1 for n in drawn), "each arrow is one line with its frame's number")
    pairs = []
    for n in sorted(ws):
        key = frozenset((ws[n]["src"], ws[n]["dst"]))
        if key not in [p[0] for p in pairs]:
            pairs.append((key, ws[n]["src"]))
    report(len(sections) == len(pairs), "%d sections, one for each two hosts tshark sees talk (%d)"
           % (len(sections), len(pairs)))
    report(all(s == sorted(s) for s in sections), "within each section the arrows are in frame order")
    bad_dir, bad_words, bad_lost, bad_marks = [], [], [], []
    for n, (sec, d, words, dashed, mark, _) in sorted(drawn.items()):
        f = ws.get(n)
        if not f or not sec or sec > len(pairs):
            continue
        key, left = pairs[sec - 1]
        if frozenset((f["src"], f["dst"])) != key or (d == "right") != (f["src"] == left):
            bad_dir.append(n)
        ok, want = check_words(n, f, words)
        if not ok:
            bad_words.append("%d '%s' (tshark: %s)" % (n, words, want))
        if dashed != f["lost"]:
            bad_lost.append(n)
        m = re.match(r"RETRANSMISSION of (\d+)", mark)
        if m:
            o = ws.get(int(m.group(1)))
            # a CM message resent is a new UD SEND on QP1 (its own PSN): the same message, from the same host
            same = ("attr", "src") if f["attr"] is not None else ("op", "psn", "src")
            if not o or int(m.group(1)) >= n or any(o[k] != f[k] for k in same):
                bad_marks.append("%d: %s" % (n, mark))
        m = re.match(r"answers (\w+) of (\d+)", mark)
        if m:
            o = ws.get(int(m.group(2)))
            if not o or o["src"] != f["dst"] or CM.get(o["attr"]) != m.group(1):
                bad_marks.append("%d: %s" % (n, mark))
    report(not bad_dir, "each arrow points from its frame's IP source, the first sender on the left%s"
           % (": not so for " + str(bad_dir[:5]) if bad_dir else ""))
    report(not bad_words, "each arrow's words name tshark's opcode (IBA Table 38) and PSN, or the CM message "
           "(IBA Table 227)%s" % (": " + "; ".join(bad_words[:3]) if bad_words else ""))
    lost = sorted(n for n in ws if ws[n]["lost"])
    report(not bad_lost, "the frames commented lost on the way %s are the dashed arrows%s"
           % (lost, ": not so for " + str(bad_lost[:5]) if bad_lost else ""))
    report(not bad_marks, "each RETRANSMISSION of N names an earlier frame with that opcode, PSN and source (CM: "
           "message and source), "
           "each 'answers X of N' a CM message X from the other host%s"
           % (": " + "; ".join(bad_marks[:3]) if bad_marks else ""))
    seen = {"lost": any(a[3] for a in drawn.values()),
            "resent": any(a[4].startswith("RETRANSMISSION of ") for a in drawn.values()),
            "answers": any(a[4].startswith("answers ") for a in drawn.values()),
            "gap": any(a[4].startswith("GAP: ") for a in drawn.values()),
            "bad": any("ICRC BAD" in a[4] for a in drawn.values())}
    for w in wants:
        report(seen.get(w, False), "the drawing shows what this capture holds: %s" % w)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
