# Sourced by run.sh (its R, RA, T, expect, ok and bad): explain --ladder --svg, a capture's sequence
# diagram as an SVG image. Its arrows against tshark's frames: tests/oracle/ladder_tshark.py.

mkdir -p "$T/lad"
"$R" gen demo -o "$T/lad/demo.pcap" >/dev/null 2>&1

# Well-formed XML by an independent parser, an SVG root, shapes and text only, no outside references;
# an arrow (its words) per frame of the capture, 16, in one section.
"$RA" explain --ladder --svg "$T/lad/demo.pcap" >"$T/lad/demo.svg" 2>"$T/err"
if /usr/bin/python3 - "$T/lad/demo.svg" >"$T/err" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == S + "svg", root.tag
tags = {e.tag.split("}")[1] for e in root.iter()}
assert tags <= {"svg", "title", "rect", "text", "line", "path", "defs", "marker"}, tags
assert not any(k.endswith("href") for e in root.iter() for k in e.attrib), "an outside reference"
assert all(v.startswith("url(#") for e in root.iter() for k, v in e.attrib.items() if k == "marker-end")
words = [e.text for e in root.iter(S + "text") if "data-frame" in e.attrib]
assert len(words) == 16 and words[0].startswith("SEND Only PSN "), words
assert sum(1 for e in root.iter(S + "text") if (e.text or "").startswith("[")) == 1
PY
then ok "explain --ladder --svg: well-formed SVG, shapes and text only, an arrow for each of the 16 frames"
else bad "explain --ladder --svg: well-formed SVG, shapes and text only, an arrow for each of the 16 frames"; fi
expect "explain --ladder --svg: the summary on standard error, the drawing alone on standard output" 0 \
	"^--- 16 frames: 16 RoCE" sh -c "\"$RA\" explain --ladder --svg \"$T/lad/demo.pcap\" 2>&1 >/dev/null"

# -o: the file is what standard output gets, no temporary file left; refused and failed writes.
expect "explain --ladder --svg -o FILE" 0 "^written$" \
	sh -c "\"$RA\" explain --ladder --svg -o \"$T/lad/o.svg\" \"$T/lad/demo.pcap\" 2>/dev/null && echo written"
if cmp -s "$T/lad/o.svg" "$T/lad/demo.svg" && [ -z "$(ls -A "$T/lad" | grep '^\.')" ]; then
	ok "explain --ladder -o: the file is what standard output gets, no temporary file left"
else bad "explain --ladder -o: the file is what standard output gets, no temporary file left"; fi
expect "explain --ladder -o without --svg" 2 "-o writes --ladder's drawing: add --svg" \
	"$RA" explain --ladder -o "$T/lad/x.svg" "$T/lad/demo.pcap"
expect "explain --ladder --svg -o to a full disk" 2 "writing /dev/full failed|No space left" \
	"$RA" explain --ladder --svg -o /dev/full "$T/lad/demo.pcap"
expect "explain --ladder --svg -o over its own input" 2 "is the input|same file" \
	"$RA" explain --ladder --svg -o "$T/lad/demo.pcap" "$T/lad/demo.pcap"
echo "not a capture" >"$T/lad/bad.pcap"
expect "explain --ladder --svg of a file that is no capture: said, nothing written" 2 "cannot read .*bad.pcap: unknown file format" \
	"$RA" explain --ladder --svg -o "$T/lad/bad.svg" "$T/lad/bad.pcap"
[ ! -e "$T/lad/bad.svg" ] && ok "explain --ladder --svg of no capture leaves no file" ||
	bad "explain --ladder --svg of no capture leaves no file"

expect "explain --ladder --svg -x: refused, the hex would spoil the picture" 2 "draws one picture: no -x or -T" \
	"$RA" explain --ladder --svg -x "$T/lad/demo.pcap"
expect "explain --ladder --svg -V: the view given last counts, and the message says so" 2 "the view given last counts" \
	"$RA" explain --ladder --svg -V "$T/lad/demo.pcap"

# A capture's name may hold any byte: the title stays well-formed XML (a control byte or a byte that is
# not UTF-8 shown as '?'; UTF-8 kept).
bn=$(printf 'd\377x\001-\303\251.pcap')
cp "$T/lad/demo.pcap" "$T/lad/$bn"
"$RA" explain --ladder --svg -q "$T/lad/$bn" >"$T/lad/odd.svg" 2>"$T/err"
if /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot().find("{http://www.w3.org/2000/svg}title").text
assert t.startswith("d?x?-\u00e9.pcap: "), t' "$T/lad/odd.svg" 2>>"$T/err"; then
	ok "explain --ladder --svg of a capture named with a control byte and a stray 0xff: well-formed, those as '?'"
else bad "explain --ladder --svg of a capture named with a control byte and a stray 0xff: well-formed, those as '?'"; fi

# Standard input, named so in the title; a capture cut short: said, exit 1 (as explain's text), the
# drawing of what was read.
expect "explain --ladder --svg -: the title says standard input" 0 "<title>standard input: " \
	sh -c "cat \"$T/lad/demo.pcap\" | \"$RA\" explain --ladder --svg - 2>/dev/null"
head -c 700 "$T/lad/demo.pcap" >"$T/lad/cut.pcap"
expect "explain --ladder --svg of a capture cut short: said, exit 1" 1 "damaged after frame" \
	"$RA" explain --ladder --svg -o "$T/lad/cut.svg" "$T/lad/cut.pcap"
n=$(grep -c 'data-dir=' "$T/lad/cut.svg" 2>/dev/null)
[ "${n:-0}" -ge 1 ] && [ "$n" -lt 16 ] && ok "explain --ladder --svg of a capture cut short: the $n arrows read are drawn" ||
	bad "explain --ladder --svg of a capture cut short: '${n:-no file}' arrows"

# More than 2000 packets: the first 2000 drawn, the rest counted in a note that says how to choose.
"$R" gen send-bw --count 2100 --size 64 -o "$T/lad/big.pcap" >/dev/null 2>&1
"$RA" explain --ladder --svg -o "$T/lad/big.svg" "$T/lad/big.pcap" 2>"$T/err"
if [ "$(grep -c 'data-dir=' "$T/lad/big.svg")" -eq 2000 ] &&
	grep -q "\.\.\. and [0-9]* more packets: choose with -c N, --qp, --host, --op or a filter" "$T/lad/big.svg"; then
	ok "explain --ladder --svg of 2100 SENDs and their ACKs: 2000 arrows and a note"
else bad "explain --ladder --svg of 2100 SENDs and their ACKs: 2000 arrows and a note"; fi
expect "explain --ladder --svg -c 5: five arrows" 0 "^5$" \
	sh -c "\"$RA\" explain --ladder --svg -c 5 \"$T/lad/big.pcap\" 2>/dev/null | grep -c 'data-dir='"
