# Sourced by run.sh (its R, RA, T, expect, ok, bad and run_tshark): what explain says of CNPs, per QP,
# against stock tshark's InfiniBand dissector (no rocelab in it): the CNPs (infiniband.bth.opcode 129)
# per destination QP and host, their times (frame.time_epoch), and the CE-marked requests
# (ip.dsfield.ecn 3) per responder QP and host.

mkdir -p "$T/cnp"
"$R" gen ecn -o "$T/cnp/ecn.pcap" >/dev/null 2>&1
"$R" gen dcqcn --count 40 -o "$T/cnp/dcqcn.pcap" >/dev/null 2>&1
"$R" gen incast --count 20 -o "$T/cnp/incast.pcap" >/dev/null 2>&1
"$R" gen dcqcn --cc none --count 40 -o "$T/cnp/none.pcap" >/dev/null 2>&1
for sc in ecn dcqcn incast none; do
	p="$T/cnp/$sc.pcap"
	run_tshark -r - -Y 'infiniband.bth.opcode == 129' -T fields -e frame.number -e infiniband.bth.destqp \
		-e frame.time_epoch -e ip.dst -e ip.src <"$p" >"$T/cnp/$sc.cnps" 2>/dev/null
	# CE-marked requests (RC opcodes below 0x0d and 0x13..0x16; 0x0d..0x12 are responses).
	run_tshark -r - -Y 'ip.dsfield.ecn == 3 && infiniband.bth.opcode < 0x81 &&
		!(infiniband.bth.opcode >= 0x0d && infiniband.bth.opcode <= 0x12)' -T fields \
		-e infiniband.bth.destqp -e ip.dst -e ip.src <"$p" >"$T/cnp/$sc.ce" 2>/dev/null
	"$RA" explain --json "$p" >"$T/cnp/$sc.jsonl" 2>"$T/cnp/$sc.summary"
	if /usr/bin/python3 - "$T/cnp/$sc" >"$T/err" 2>&1 <<'PY'
import collections, decimal, json, re, sys
base = sys.argv[1]
cnps = [l.split("\t") for l in open(base + ".cnps").read().split("\n") if l]
assert cnps, "tshark sees no CNP"
# Per (requester host, QP): a CNP goes from the responder to the requester (IBA A17.9).
want = collections.Counter((d, int(q, 16)) for _, q, _, d, _ in cnps)
# Per (requester host, responder host, responder QP).
ce = collections.Counter((s, d, int(q, 16)) for q, d, s in
                         (l.split("\t") for l in open(base + ".ce").read().split("\n") if l))
frames = {}
for line in open(base + ".jsonl"):
    o = json.loads(line)
    c = o.get("analysis", {}).get("cnp")
    if c:
        frames[o["frame"]] = c
# Every CNP tshark sees, and only those, carries the DCQCN fields, numbered 1..N per QP in order.
assert sorted(frames) == [int(f) for f, _, _, _, _ in cnps], (sorted(frames)[:5], cnps[:5])
seen = collections.Counter()
last_t, prev = {}, {}
for f, q, t, _, _ in cnps:
    c, qp, t = frames[int(f)], int(q, 16), decimal.Decimal(t)
    seen[qp] += 1
    assert c["qp"] == qp and c["count"] == seen[qp], (f, c, seen[qp])
    for k in ("cut", "alpha_ppm", "alpha_after_ppm", "rc_before_ppm", "rc_ppm", "rt_ppm", "ce_seen",
              "rate_bps", "window_ns", "prev_rate_bps"):
        assert k in c, (f, k)
    # The rate is measured since the previous CNP to the QP, when that one was (its flow known then):
    # tshark's time between them.
    if last_t.get(qp) is not None and frames[int(prev[qp])]["window_ns"]:
        assert c["window_ns"] == int((t - last_t[qp]) * 10**9), (f, c["window_ns"], t - last_t[qp])
    last_t[qp], prev[qp] = t, f
    # On a cut, Rc(1 - alpha/2) of the Rc before (millionths, so within 1 of each truncation), or
    # the floor, 10 Mb/s (dcqcn.h's min_rate) of the 40 Gb/s assumed: 250 millionths.
    if c["cut"]:
        exp = c["rc_before_ppm"] * (1 - c["alpha_ppm"] / 2e6)
        assert abs(c["rc_ppm"] - exp) <= 2 or (c["rc_ppm"] == 250 and exp < 250), (f, c, exp)
# The summary: per requester QP, the CNPs tshark counts to it, the CE marks on its requests.
rows = re.findall(r"(\S+) QP 0x([0-9a-f]{6}) -> (\S+) QP 0x([0-9a-f]{6}): (\d+) CE-marked requests, (\d+) CNPs received",
                  open(base + ".summary").read())
got = collections.Counter()
for ha, a, _, _, _, n in rows:
    got[(ha, int(a, 16))] += int(n)
for ha, a, _, n in re.findall(r"(\S+) QP 0x([0-9a-f]{6}) \(its requests to (\S+) not told apart\): (\d+) CNPs received",
                              open(base + ".summary").read()):
    got[(ha, int(a, 16))] += int(n)
assert got == want, (got, want)
got_ce = collections.Counter()
for ha, _, hb, b, n, _ in rows:
    got_ce[(ha, hb, int(b, 16))] += int(n)
assert got_ce == ce, (got_ce, ce)
print("%d CNPs to %d QPs" % (len(cnps), len(want)))
PY
	then ok "explain $sc: CNPs per QP, numbered, timed and counted as tshark's opcode 129 per destqp; CE marks as ip.dsfield.ecn ($(cat "$T/err"))"
	else bad "explain $sc: CNPs per QP, numbered, timed and counted as tshark's opcode 129 per destqp; CE marks as ip.dsfield.ecn"; fi
done
# --line-rate: the cut in Gb/s too (gen ecn's first CNP halves Rc: alpha starts at 1), and its bad values.
expect "explain --line-rate 25: the first CNP's cut in Gb/s" 0 "CNP 1 to QP 0x[0-9a-f]{6}: DCQCN cuts Rc by alpha/2 = 0.50 -> 50.0% of the line rate, 12.50 Gb/s" \
	"$RA" explain -v --line-rate 25 "$T/cnp/ecn.pcap"
expect "explain --line-rate 0: refused" 2 "--line-rate needs Gbit/s from 1 to 1000, not '0'" \
	"$RA" explain --line-rate 0 "$T/cnp/ecn.pcap"
expect "explain --line-rate fast: refused" 2 "--line-rate needs Gbit/s from 1 to 1000, not 'fast'" \
	"$RA" explain --line-rate fast "$T/cnp/ecn.pcap"
# A capture without CNPs: no congestion line in the summary.
"$R" gen demo -o "$T/cnp/demo.pcap" >/dev/null 2>&1
if "$RA" explain "$T/cnp/demo.pcap" 2>&1 | grep -q "CNPs received"; then bad "explain demo: no CNP line in the summary"
else ok "explain demo: no CNP line in the summary"; fi
# gen --cnp-interval: the notification point's min_time_between_cnps. tshark's smallest time between
# two CNPs to one QP (frame.time_relative: small enough for awk's doubles to keep the nanoseconds)
# is at least the interval set, and below it at the default (50 us), so the check
# can fail; the option is refused where no packet is ever CE-marked, and out of range.
min_gap() {
	run_tshark -r - -Y 'infiniband.bth.opcode == 129' -T fields -e infiniband.bth.destqp -e frame.time_relative \
		<"$1" 2>/dev/null | awk '{ if ($1 in t) { g = $2 - t[$1]; if (m == "" || g < m) m = g } t[$1] = $2 }
		END { printf "%.0f", m * 1000000000 }'   # ns, rounded
}
for sc in "dcqcn --count 40" "incast --count 20"; do
	# shellcheck disable=SC2086  # the scenario and its count, one word each
	"$R" gen $sc --cnp-interval 200 -o "$T/cnp/${sc%% *}-200.pcap" >/dev/null 2>&1
	sc=${sc%% *}
	set_gap=$(min_gap "$T/cnp/$sc-200.pcap")
	def_gap=$(min_gap "$T/cnp/$sc.pcap")
	if [ "${set_gap:-0}" -ge 200000 ] && [ "${def_gap:-999999}" -lt 200000 ]; then
		ok "gen $sc --cnp-interval 200: CNPs to a QP at least ${set_gap} ns apart (tshark); ${def_gap} ns at the default"
	else bad "gen $sc --cnp-interval 200: smallest CNP gap ${set_gap} ns, ${def_gap} ns at the default"; fi
done
expect "gen --cnp-interval 0: refused" 2 "--cnp-interval wants 1..1000000, not '0'" \
	"$RA" gen ecn --cnp-interval 0 -o "$T/cnp/x.pcap"
expect "gen send --cnp-interval: refused, nothing is marked" 2 "--cnp-interval means nothing to 'send': only ecn, dcqcn, incast and fairness mark packets CE" \
	"$RA" gen send --cnp-interval 100 -o "$T/cnp/x.pcap"
