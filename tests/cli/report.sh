# Sourced by run.sh (its R, RA, T, expect, ok and bad): rocelab report, a capture as one HTML page.
# The page in a real browser, against tshark: tests/report.

mkdir -p "$T/rep"
"$R" gen request-loss -o "$T/rep/loss.pcap" >/dev/null 2>&1

# The default name is the capture's, beside it; the rows are JSON an independent parser reads, one per
# frame, and each row's detail is explain --json's object for that frame (two printers, one decoder).
expect "report FILE: the page beside the capture, named after it" 0 "^wrote .*/rep/loss.html: 9 frames, 9 drawn" \
	"$RA" report "$T/rep/loss.pcap"
"$RA" explain --json "$T/rep/loss.pcap" >"$T/rep/loss.json" 2>/dev/null
if /usr/bin/python3 - "$T/rep/loss.html" "$T/rep/loss.json" >"$T/err" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert page.count("</script") == 3, "a script element ended early"
rows = json.loads(re.search(r'<script type="application/json" id="rl-rows">(.*?)</script>', page, re.S).group(1))
summ = json.loads(re.search(r'<script type="application/json" id="rl-summary">(.*?)</script>', page, re.S).group(1))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert [r[0] for r in rows] == [l["frame"] for l in lines], "a row per RoCE frame, in order"
assert all(r[14] == l for r, l in zip(rows, lines)), "a row's detail is not explain --json's object"
nak = [r for r in rows if r[4] == 3]
assert len(nak) == 1 and nak[0][9] & 512, "one NAK, a PSN sequence error"
assert sum(1 for r in rows if r[9] & 8) == 3, "three retransmissions"
assert summ["frames"] == 9 and summ["rows"] == 9 and summ["pairs"] == [["192.168.100.1", "192.168.100.2"]]
assert [f[0] for f in summ["findings"]] == [5, 6, 7, 8], summ["findings"]
PY
then ok "report: the rows and summary parse, a row per frame with explain --json's fields, the NAK and the resends flagged"
else bad "report: the rows and summary parse, a row per frame with explain --json's fields, the NAK and the resends flagged"; fi

# Text from the capture cannot add markup or end a script element: a file named like tags.
cp "$T/rep/loss.pcap" "$T/rep/<b>&x<!--<script>.pcap"
expect "report: a capture named like markup" 0 "^wrote" "$RA" report -o "$T/rep/tag.html" "$T/rep/<b>&x<!--<script>.pcap"
if [ "$(grep -c '<script' "$T/rep/tag.html")" -eq 3 ] && ! grep -q -e '<b>' -e '<!--' "$T/rep/tag.html"; then
	ok "report: a capture's name is escaped in the title and the JSON"
else bad "report: a capture's name is escaped in the title and the JSON"; fi

# Options, outputs and bad input.
expect "report --help" 0 "usage: rocelab report" "$RA" report --help
expect "report without a capture" 2 "which capture file" "$RA" report
expect "report with an unknown option" 2 "unknown option|unrecognized|invalid option" "$RA" report --frobnicate "$T/rep/loss.pcap"
"$RA" report -q -o "$T/rep/q.html" "$T/rep/loss.pcap" >"$T/rep/q.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$T/rep/q.out" ] && [ -s "$T/rep/q.html" ]; then ok "report -q prints nothing"
else bad "report -q prints nothing (exit $rc, $(head -c 200 "$T/rep/q.out"))"; fi
expect "report -c 4: the first four frames" 0 ": 4 frames, 4 drawn" "$RA" report -c 4 -o "$T/rep/c4.html" "$T/rep/loss.pcap"
expect "report with a filter: the NAK's direction only" 0 ": 9 frames, 2 drawn" \
	"$RA" report -o "$T/rep/f.html" "$T/rep/loss.pcap" src host 192.168.100.2
expect "report -o over its own input" 2 "is the input|same file" "$RA" report -o "$T/rep/loss.pcap" "$T/rep/loss.pcap"
expect "report -o to a full disk" 2 "writing /dev/full failed|No space left" "$RA" report -o /dev/full "$T/rep/loss.pcap"
expect "report of standard input without -o" 2 "needs -o FILE" sh -c "\"$RA\" report - <\"$T/rep/loss.pcap\""
expect "report of standard input with -o" 0 ": 9 frames, 9 drawn" sh -c "\"$RA\" report -o \"$T/rep/in.html\" - <\"$T/rep/loss.pcap\""
printf 'not a capture\n' >"$T/rep/junk.pcap"
expect "report of a file that is no capture: no page" 2 "junk.pcap" "$RA" report "$T/rep/junk.pcap"
[ ! -e "$T/rep/junk.html" ] && ok "report of no capture leaves no page" || bad "report of no capture leaves no page"
head -c 3000 "$T/rep/loss.pcap" >"$T/rep/cut.pcap"
expect "report of a capture cut short: exit 1, the page of what was read" 1 "cut short|truncated|damaged" \
	"$RA" report "$T/rep/cut.pcap"
if /usr/bin/python3 -c "
import json, re, sys
p = open(sys.argv[1]).read()
json.loads(re.search(r'id=\"rl-rows\">(.*?)</script>', p, re.S).group(1))
json.loads(re.search(r'id=\"rl-summary\">(.*?)</script>', p, re.S).group(1))" "$T/rep/cut.html" 2>"$T/err"
then ok "report of a capture cut short: a whole page"
else bad "report of a capture cut short: a whole page"; fi
[ -z "$(ls -A "$T/rep" | grep '^\.')" ] && ok "report: no temporary file left" || bad "report: no temporary file left"

# Past 5000 frames only the findings keep their fields: the page stays a few hundred bytes a frame.
"$R" gen send-bw --count 3000 --size 256 -o "$T/rep/big.pcap" >/dev/null 2>&1
expect "report of over 5000 frames" 0 ": [0-9]{4} frames, [0-9]{4} drawn" "$RA" report -o "$T/rep/big.html" "$T/rep/big.pcap"
if /usr/bin/python3 - "$T/rep/big.html" >"$T/err" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
rows = json.loads(re.search(r'id="rl-rows">(.*?)</script>', page, re.S).group(1))
summ = json.loads(re.search(r'id="rl-summary">(.*?)</script>', page, re.S).group(1))
assert len(rows) > 5000, len(rows)
kept = sum(1 for r in rows if r[14] != 0)
assert kept == summ["rows_detail"] == 5000, (kept, summ["rows_detail"])
assert all(r[14] != 0 for r in rows[:5000]) and all(r[14] == 0 for r in rows[5000:])
PY
then ok "report: the first 5000 frames carry their fields, the rest do not"
else bad "report: the first 5000 frames carry their fields, the rest do not"; fi

# explain --compare A B -o PAGE: the table as before, and the two captures' rows side by side in one page.
"$R" gen rnr -o "$T/rep/rnr.pcap" >/dev/null 2>&1
expect "explain --compare A B -o PAGE" 0 "wrote .*cmp.html: the two captures side by side" \
	"$RA" explain --compare "$T/rep/loss.pcap" "$T/rep/rnr.pcap" -o "$T/rep/cmp.html"
"$RA" explain --json "$T/rep/rnr.pcap" >"$T/rep/rnr.json" 2>/dev/null
if /usr/bin/python3 - "$T/rep/cmp.html" "$T/rep/loss.json" "$T/rep/rnr.json" >"$T/err" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
assert '<main id="rl-app" class="rl-compare">' in page
for suffix, js in (("", sys.argv[2]), ("-b", sys.argv[3])):
    rows = json.loads(re.search(r'id="rl-rows%s">(.*?)</script>' % suffix, page, re.S).group(1))
    summ = json.loads(re.search(r'id="rl-summary%s">(.*?)</script>' % suffix, page, re.S).group(1))
    lines = [json.loads(l) for l in open(js)]
    assert [r[14] for r in rows] == lines, suffix
    assert summ["rows"] == len(lines), suffix
PY
then ok "explain --compare -o: each capture's rows in its own column, explain --json's objects"
else bad "explain --compare -o: each capture's rows in its own column, explain --json's objects"; fi
expect "explain --compare -o over its second input" 2 "is the input" \
	"$RA" explain --compare "$T/rep/loss.pcap" "$T/rep/rnr.pcap" -o "$T/rep/rnr.pcap"
expect "explain --compare -o with a missing capture: no page" 2 "cannot read" \
	"$RA" explain --compare "$T/rep/loss.pcap" "$T/rep/none.pcap" -o "$T/rep/none.html"
[ ! -e "$T/rep/none.html" ] && ok "explain --compare -o with a missing capture leaves no page" ||
	bad "explain --compare -o with a missing capture leaves no page"

# A QP set up through the CM names the REQ or REP that announced it (its QPN is the flow's dest QP).
"$R" gen cm-connect -o "$T/rep/cm.pcap" >/dev/null 2>&1
"$RA" report -q "$T/rep/cm.pcap" >/dev/null 2>&1
"$RA" explain --json "$T/rep/cm.pcap" >"$T/rep/cm.json" 2>/dev/null
if /usr/bin/python3 - "$T/rep/cm.html" "$T/rep/cm.json" >"$T/err" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
summ = json.loads(re.search(r'id="rl-summary">(.*?)</script>', page, re.S).group(1))
frames = {o["frame"]: o for o in map(json.loads, open(sys.argv[2]))}
assert len(summ["qps"]) == 2, summ["qps"]
for q in summ["qps"]:
    cm = frames[q["cm"]]["cm"]
    assert cm["msg"] == q["cm_msg"] and cm["msg"] in ("REQ", "REP"), (q, cm["msg"])
    assert cm[cm["msg"].lower()]["local_qpn"] == q["qp"], (q, cm)
PY
then ok "report: each QP of a CM connection names the REQ or REP that announced it"
else bad "report: each QP of a CM connection names the REQ or REP that announced it"; fi

# -o -: the page alone on standard output (what it says goes to standard error); --compare keeps
# standard output for its table.
"$RA" report -o - "$T/rep/loss.pcap" >"$T/rep/stdout.html" 2>"$T/rep/stdout.err"
if [ "$(tail -n 1 "$T/rep/stdout.html")" = "</html>" ] && grep -q "^wrote -: 9 frames" "$T/rep/stdout.err"; then
	ok "report -o -: the page alone on standard output"
else bad "report -o -: the page alone on standard output"; fi
expect "explain --compare -o -: refused" 2 "-o names a file for the page" \
	"$RA" explain --compare "$T/rep/loss.pcap" "$T/rep/rnr.pcap" -o -

# Ctrl-C on a capture still coming in: the page of what was read, saying so, and exit 1.
mkfifo "$T/rep/fifo"
(cat "$T/rep/loss.pcap"; exec sleep 20) >"$T/rep/fifo" &
feeder=$!
"$RA" report -o "$T/rep/int.html" - <"$T/rep/fifo" >"$T/rep/int.out" 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
kill "$feeder" 2>/dev/null
wait "$feeder" 2>/dev/null
if [ "$rc" -eq 1 ] && grep -q "interrupted: .*int.html holds the 9 frames read before" "$T/rep/int.out" &&
   /usr/bin/python3 -c "
import json, re, sys
p = open(sys.argv[1], encoding='utf-8').read()
s = json.loads(re.search(r'id=\"rl-summary\">(.*?)</script>', p, re.S).group(1))
assert s['interrupted'] is True and s['rows'] == 9, s" "$T/rep/int.html" 2>"$T/err"; then
	ok "report interrupted by Ctrl-C: exit 1, the page of the 9 frames read, saying it was interrupted"
else
	echo "exit $rc: $(head -c 300 "$T/rep/int.out")" >>"$T/err"
	bad "report interrupted by Ctrl-C: exit 1, the page of the 9 frames read, saying it was interrupted"
fi
