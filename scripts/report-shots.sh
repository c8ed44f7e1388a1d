#!/bin/sh
# Screenshots of `rocelab report` pages for the documentation (figures, not test goldens):
#   docs/report-request-loss.png         README's: rocelab gen request-loss --pcapng, the NAK selected
#   docs/figures/report/NN-name.png      labs 01, 05, 09, 10: the page of the lab's --gen capture,
#                                        cropped to what the guide points at
# Each page is drawn by headless Chromium at a fixed window size and cropped by fixed boxes with
# python3's PIL (python3-pil); after changing cli/report/ or a lab's gen line, run it and look at
# each PNG: the boxes may need moving. Works as root and as a user.
# Needs: chromium, python3-pil.  Not part of `make test`.
# Usage, from the top of the repository: sh scripts/report-shots.sh [ROCELAB]   (default build/rocelab)
set -eu
R=${1:-build/rocelab}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/home" "$tmp/g" docs/figures/report

# shot PAGE FRAGMENT WIDTH HEIGHT: the page as Chromium draws it, in $tmp/full.png. A window taller
# than the page, so that selecting #frame-N does not scroll it.
shot() {
	rm -f "$tmp/full.png"
	HOME=$tmp/home timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/profile" --virtual-time-budget=3000 --window-size="$3,$4" \
		--screenshot="$tmp/full.png" "file://$1$2" >"$tmp/chromium.log" 2>&1 || true
	[ -s "$tmp/full.png" ] || { echo "report-shots: chromium drew nothing for $1: $(tail -c 300 "$tmp/chromium.log")" >&2; exit 1; }
}
# crop OUT LEFT TOP RIGHT BOTTOM [LEFT TOP RIGHT BOTTOM ...]: the boxes of $tmp/full.png, stacked
# one under the other, as a 256-colour PNG
crop() {
	/usr/bin/python3 - "$tmp/full.png" "$@" <<'EOF'
import sys
from PIL import Image
full, out, nums = sys.argv[1], sys.argv[2], [int(v) for v in sys.argv[3:]]
im = Image.open(full).convert('RGB')
boxes = [tuple(nums[i:i + 4]) for i in range(0, len(nums), 4)]
w = max(b[2] - b[0] for b in boxes)
h = sum(b[3] - b[1] for b in boxes)
page = Image.new('RGB', (w, h), 'white')
y = 0
for b in boxes:
    page.paste(im.crop(b), (0, y))
    y += b[3] - b[1]
page.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
EOF
	echo "$1 ($(wc -c <"$1") bytes)"
}

# The README's: the lost frame dashed (pcapng: its comment says the wire lost it), the NAK selected.
"$R" gen request-loss --pcapng -o "$tmp/request-loss.pcapng" >/dev/null
"$R" report "$tmp/request-loss.pcapng" -o "$tmp/request-loss.html" >/dev/null
shot "$tmp/request-loss.html" "#frame-5" 1400 2600
crop docs/report-request-loss.png 0 540 1400 1900

# The labs' pages: each lab run with --gen in a temporary folder (it writes labs/out/NN-name.html).
lab() {
	b=$(cd labs && ls -d "$1"-*/ | tr -d /)
	(cd "$tmp/g" && ROCELAB_LABS="$top/labs" "$R" lab run "$1" --gen >/dev/null)
	echo "$tmp/g/labs/out/$b.html"
}
# 01: the ladder and the panel of the first SEND
p=$(lab 01)
shot "$p" "#frame-1" 1400 2600
crop docs/figures/report/01-first-capture.png 0 620 1400 1210
# 05: one Acknowledge among many SENDs in the ladder; the PSN-time graph's ACK line in steps
p=$(lab 05)
shot "$p" "" 1400 4000
crop docs/figures/report/05-acks-msn-credits.png 0 2335 1015 2765 0 3495 920 3800
# 09: the ladder, and go-back-N in the PSN-time graph
p=$(lab 09)
shot "$p" "" 1400 2600
crop docs/figures/report/09-loss-go-back-n.png 0 722 1015 1228 0 1325 920 1612
# 10: the RNR waits as breaks in the ladder and in the PSN-time graph
p=$(lab 10)
shot "$p" "" 1400 2600
crop docs/figures/report/10-rnr.png 0 722 1015 1110 0 1212 920 1494
