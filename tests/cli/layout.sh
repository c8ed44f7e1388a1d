# Sourced by run.sh (its R, RA, T, expect, ok and bad): explain --layout, the header diagrams drawn
# from the field table, and the golden SVGs in docs/figures/ that the guides show.

LD=$(dirname "$0")
FIG="$LD/../../docs/figures"
FIG_HDRS="BTH RETH AETH DETH AtomicETH AtomicAckETH ImmDt IETH"

# The BTH as IBA 9.2 draws it: every field once, in order, at its width (layout_text.py).
"$RA" explain --layout bth >"$T/bth.txt" 2>"$T/err"
if /usr/bin/python3 "$LD/layout_text.py" "$T/bth.txt" >"$T/err" 2>&1; then
	ok "explain --layout BTH: every BTH field once, at its IBA 9.2 position and width"
else
	bad "explain --layout BTH: every BTH field once, at its IBA 9.2 position and width"
fi
if awk 'length > 80 { exit 1 }' "$T/bth.txt"; then ok "explain --layout BTH fits 80 columns"
else bad "explain --layout BTH fits 80 columns"; fi
expect "explain --layout RETH: the 64-bit VA split across two rows" 0 \
	"Virtual address \[63:32\].*Virtual address \[31:0\]" sh -c "\"$RA\" explain --layout RETH | tr '\n' ' '"
expect "explain --layout: an unknown header" 2 "no header named 'GRH'; the headers are:.*" "$RA" explain --layout GRH
expect "explain --layout list" 0 "AtomicAckETH +8 bytes" "$RA" explain --layout list
expect "explain --svg without --layout" 2 "add --layout HDR" "$RA" explain --svg
expect "explain --layout with a capture" 2 "reads no capture" "$RA" explain --layout BTH x.pcap

# --svg: well-formed XML by an independent parser, an SVG root, no scripts and no outside references.
"$RA" explain --layout AETH --svg >"$T/aeth.svg" 2>"$T/err"
if /usr/bin/python3 - "$T/aeth.svg" >"$T/err" 2>&1 <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert root.get("version") == "1.1", root.get("version")
tags = {e.tag.split("}")[1] for e in root.iter()}
assert tags <= {"svg", "title", "rect", "text"}, tags
assert not any(k.endswith("href") for e in root.iter() for k in e.attrib), "an outside reference"
texts = [e.text for e in root.iter("{http://www.w3.org/2000/svg}text")]
assert "Syndrome" in texts and "MSN" in texts, texts
PY
then ok "explain --layout AETH --svg: well-formed SVG 1.1, shapes and text only"
else bad "explain --layout AETH --svg: well-formed SVG 1.1, shapes and text only"; fi

# -o writes the file whole, as stdout would have it; a failed write leaves nothing behind.
mkdir -p "$T/lay"
expect "explain --layout RETH --svg -o FILE" 0 "^written$" \
	sh -c "\"$RA\" explain --layout RETH --svg -o \"$T/lay/reth.svg\" && echo written"
"$RA" explain --layout RETH --svg >"$T/reth-stdout.svg"
if cmp -s "$T/lay/reth.svg" "$T/reth-stdout.svg" && [ -z "$(ls -A "$T/lay" | grep '^\.')" ]; then
	ok "explain --layout -o: the file is what standard output gets, no temporary file left"
else bad "explain --layout -o: the file is what standard output gets, no temporary file left"; fi
expect "explain --layout -o into a missing directory" 2 "cannot write|No such file" \
	"$RA" explain --layout RETH --svg -o "$T/no/such/dir.svg"
expect "explain --layout -o to a full disk" 2 "writing /dev/full failed|No space left" \
	"$RA" explain --layout RETH --svg -o /dev/full

# The golden figures: each made again by the command and compared byte for byte.
: >"$T/err"
for h in $FIG_HDRS; do
	[ -f "$FIG/$h.svg" ] && ok "docs/figures/$h.svg is there" || bad "docs/figures/$h.svg is missing"
done
for f in "$FIG"/*.svg; do
	[ -e "$f" ] || continue
	h=$(basename "$f" .svg)
	if "$R" explain --layout "$h" --svg 2>"$T/err" | cmp -s - "$f"; then
		ok "docs/figures/$h.svg is what explain --layout $h --svg draws"
	else
		echo "     remake them: for h in $FIG_HDRS; do build/rocelab explain --layout \$h --svg -o docs/figures/\$h.svg; done" >>"$T/err"
		bad "docs/figures/$h.svg is what explain --layout $h --svg draws"
	fi
done
