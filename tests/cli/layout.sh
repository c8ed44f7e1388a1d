# Sourced by run.sh (its R, RA, T, expect, ok and bad): explain --layout, the header diagrams drawn
# from the field table, and the golden SVGs in docs/figures/ that the guides show.

LD=$(dirname "$0")
FIG="$LD/../../docs/figures"
FIG_HDRS="BTH RETH AETH DETH AtomicETH AtomicAckETH ImmDt IETH"
FIG_FRAMES="RC_SEND_Only RC_RDMA_WRITE_First RC_RDMA_READ_Request RC_Acknowledge RC_FetchAdd"

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
expect "explain --layout: an unknown header" 2 "no header or opcode named 'GRH'.*the headers are:" "$RA" explain --layout GRH
expect "explain --layout: a reserved opcode is none" 2 "no header or opcode named '0xff'" "$RA" explain --layout 0xff

# A frame's layers, by opcode: the byte counts of Ethernet II (14), IPv4 without options (RFC 791:
# 20), UDP (RFC 768: 8), BTH (IBA 9.2: 12), RETH (9.3.3: 16), AETH (9.3.5: 4), AtomicETH (9.3.4: 28)
# and the ICRC (A17.3.3: 4), and where each starts. The boxes read with their spaces squeezed.
lay_frame() { "$RA" explain --layout "$1" | tr -s ' ' | tr '\n' ' '; }
expect "explain --layout 'RC RDMA WRITE First': the layers and their bytes" 0 \
	"\| Ethernet \| IPv4 \| UDP \| BTH \| RETH \| payload \| pad \| ICRC \| \| 14 \| 20 \| 8 \| 12 \| 16 \| PMTU \| 0-3 \| 4 \| .* 0 14 34 42 54 70 " \
	lay_frame "RC RDMA WRITE First"
expect "explain --layout 0x11 (RC Acknowledge): 62 bytes in all" 0 \
	"^RC Acknowledge .*\| BTH \| AETH \| ICRC \| \| 14 \| 20 \| 8 \| 12 \| 4 \| 4 \| .* 0 14 34 42 54 58 62 " lay_frame 0x11
expect "explain --layout rc_fetchadd: rxe's spelling, 86 bytes in all" 0 \
	"\| BTH \| AtomicETH \| ICRC \| \| 14 \| 20 \| 8 \| 12 \| 28 \| 4 \| .* 42 54 82 86 " lay_frame rc_fetchadd
expect "explain --layout 'RC RDMA READ Request': no payload" 0 \
	"\| BTH \| RETH \| ICRC \| \| 14 \| 20 \| 8 \| 12 \| 16 \| 4 \|" lay_frame "RC RDMA READ Request"
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
for h in $FIG_HDRS $FIG_FRAMES; do
	[ -f "$FIG/$h.svg" ] && ok "docs/figures/$h.svg is there" || bad "docs/figures/$h.svg is missing"
done
for f in "$FIG"/*.svg; do
	[ -e "$f" ] || continue
	h=$(basename "$f" .svg)
	if "$R" explain --layout "$h" --svg 2>"$T/err" | cmp -s - "$f"; then
		ok "docs/figures/$h.svg is what explain --layout $h --svg draws"
	else
		echo "     remake them: for h in $FIG_HDRS $FIG_FRAMES; do build/rocelab explain --layout \$h --svg -o docs/figures/\$h.svg; done" >>"$T/err"
		bad "docs/figures/$h.svg is what explain --layout $h --svg draws"
	fi
done
