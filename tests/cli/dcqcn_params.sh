# Sourced by run.sh (its R, RA, T, expect, ok, bad and run_tshark): --dcqcn NAME=VALUE sets DCQCN's
# reaction point by mlx5's roce_rp names, on gen's congestion scenarios and on peer with --cc dcqcn.
# What it does is read off the capture by stock tshark: the requests' rate is each frame's length
# (frame.len: Ethernet header to ICRC, what the pacer counts) over the time to the next request
# (frame.time_epoch), and the CNPs are opcode 129. The expected rates are the values set, in Mb/s.

mkdir -p "$T/dp"
# dp_rates PCAP: "CNPS MEDIAN_GBPS" of A's requests (192.168.100.1, RC opcodes below 0x0d) after the
# first CNP (all of them when there is none), by tshark's fields.
dp_rates() {
	run_tshark -r - -T fields -e frame.time_epoch -e frame.len -e ip.src -e infiniband.bth.opcode <"$1" \
		>"$1.tsv" 2>/dev/null
	/usr/bin/python3 - "$1.tsv" <<'PY'
import decimal, statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
req = [(decimal.Decimal(t), int(n)) for t, n, src, op in rows if src == "192.168.100.1" and op and int(op) < 0x0d]
cnp = [decimal.Decimal(t) for t, _, _, op in rows if op == "129"]
after = [r for r in req if r[0] > cnp[0]] if cnp else req
gbps = [after[i][1] * 8 / float((after[i + 1][0] - after[i][0]) * 10**9) for i in range(len(after) - 1)]
print(len(cnp), round(statistics.median(gbps), 4) if gbps else 0)
PY
}
# dp_near GOT WANT: within 2% (the pacer rounds each gap up to a nanosecond; 33 us at 1 Gb/s).
dp_near() {
	/usr/bin/python3 -c "import sys; sys.exit(0 if abs($1 - $2) <= 0.02 * $2 else 1)"
}

if command -v tshark >/dev/null; then
	# One CNP only (--cnp-interval 1 s) and no timer increase within the capture (T 131 ms, past its
	# 21 ms; B, 10 MB, past its 2.6 MB): the first CNP's rate holds. rate_to_set_on_first_cnp=1000 sets
	# it to 1 Gb/s; without it the CNP halves the 25 Gb/s line rate (alpha 1), above the 10 Gb/s port.
	"$R" gen dcqcn --count 40 --cnp-interval 1000000 --dcqcn rpg_time_reset=131071 -o "$T/dp/half.pcap" 2>/dev/null
	"$R" gen dcqcn --count 40 --cnp-interval 1000000 --dcqcn rpg_time_reset=131071 \
		--dcqcn rate_to_set_on_first_cnp=1000 -o "$T/dp/first.pcap" 2>/dev/null
	dp_rates "$T/dp/first.pcap" >"$T/dp/rates"; read -r n g <"$T/dp/rates"
	if [ "${n:-0}" = 1 ] && dp_near "$g" 1.0; then
		ok "gen dcqcn --dcqcn rate_to_set_on_first_cnp=1000: after the one CNP, tshark's request gaps give $g Gb/s"
	else
		bad "gen dcqcn --dcqcn rate_to_set_on_first_cnp=1000: ${n:-no} CNPs, requests at ${g:-?} Gb/s, not 1"
	fi
	dp_rates "$T/dp/half.pcap" >"$T/dp/rates"; read -r n g <"$T/dp/rates"
	if [ "${n:-0}" = 1 ] && ! dp_near "$g" 1.0 && dp_near "$g" 10.0; then
		ok "gen dcqcn without rate_to_set_on_first_cnp: the CNP halves 25 Gb/s, the port's 10 Gb/s shows ($g)"
	else
		bad "gen dcqcn without rate_to_set_on_first_cnp: ${n:-no} CNPs, requests at ${g:-?} Gb/s, not the port's 10"
	fi
	# rpg_max_rate=5000, below the 10 Gb/s port: a cap from the first frame (docs/transport.md), so the
	# queue never reaches --kmin, nothing is marked and no CNP comes; without it, CNPs.
	"$R" gen dcqcn --count 40 --dcqcn rpg_max_rate=5000 -o "$T/dp/max.pcap" 2>/dev/null
	"$R" gen dcqcn --count 40 -o "$T/dp/def.pcap" 2>/dev/null
	dp_rates "$T/dp/max.pcap" >"$T/dp/rates"; read -r n g <"$T/dp/rates"
	if [ "${n:-x}" = 0 ] && dp_near "$g" 5.0; then
		ok "gen dcqcn --dcqcn rpg_max_rate=5000: requests at $g Gb/s by tshark, no CNP"
	else
		bad "gen dcqcn --dcqcn rpg_max_rate=5000: ${n:-?} CNPs, requests at ${g:-?} Gb/s, not 5 and none"
	fi
	dp_rates "$T/dp/def.pcap" >"$T/dp/rates"; read -r n g <"$T/dp/rates"
	[ "${n:-0}" -gt 0 ] && ! dp_near "$g" 5.0 && ok "gen dcqcn without rpg_max_rate: $n CNPs, requests at $g Gb/s" ||
		bad "gen dcqcn without rpg_max_rate: ${n:-no} CNPs, requests at ${g:-?} Gb/s"
fi
# Two --dcqcn, or one with a list, are the same settings: the same bytes.
"$R" gen dcqcn --count 40 --dcqcn rpg_time_reset=300,dce_tcp_g=960 -o "$T/dp/list.pcap" 2>/dev/null
"$R" gen dcqcn --count 40 --dcqcn rpg_time_reset=300 --dcqcn dce_tcp_g=960 -o "$T/dp/two.pcap" 2>/dev/null
"$R" gen dcqcn --count 40 -o "$T/dp/none.pcap" 2>/dev/null
cmp -s "$T/dp/list.pcap" "$T/dp/two.pcap" && ! cmp -s "$T/dp/list.pcap" "$T/dp/none.pcap" &&
	ok "gen --dcqcn A,B is --dcqcn A --dcqcn B, and not the defaults" ||
	bad "gen --dcqcn A,B is --dcqcn A --dcqcn B, and not the defaults"
expect "gen --dcqcn list: the table" 0 "rpg_time_reset +T +us +1\.\.131071 +55 +300" "$RA" gen --dcqcn list
expect "peer --dcqcn help: the same table" 0 "dce_tcp_g +g .* 1020 +1019" "$RA" peer --dcqcn help
expect "gen --help names --dcqcn" 0 "--dcqcn NAME=VALUE" "$R" gen --help
expect "peer --help names --dcqcn" 0 "--dcqcn NAME=VALUE" "$R" peer --help
expect "gen incast and fairness take --dcqcn" 0 "wrote" sh -c "\"$RA\" gen incast --count 4 --dcqcn rpg_ai_rate=5 -o \"$T/dp/i.pcap\" &&
	\"$RA\" gen fairness --count 4 --dcqcn clamp_tgt_rate=0 -o \"$T/dp/f.pcap\""
# Refusals: exit 2, the reason, no capture.
expect "gen send --dcqcn: refused" 2 "--dcqcn means nothing to 'send': only dcqcn, incast and fairness" \
	"$RA" gen send --dcqcn rpg_time_reset=300 -o "$T/dp/no.pcap"
expect "gen --dcqcn an unknown name" 2 "--dcqcn: no DCQCN reaction-point parameter 'rpg_frob'" \
	"$RA" gen dcqcn --dcqcn rpg_frob=1 -o "$T/dp/no.pcap"
expect "gen --dcqcn a NIC name not modelled" 2 "rpg_gd: not modelled" \
	"$RA" gen dcqcn --dcqcn rpg_gd=11 -o "$T/dp/no.pcap"
expect "gen --dcqcn the NP's name" 2 "min_time_between_cnps: the notification point's.*--cnp-interval USEC sets it" \
	"$RA" gen dcqcn --dcqcn min_time_between_cnps=4 -o "$T/dp/no.pcap"
expect "gen --dcqcn out of range" 2 "rpg_threshold \(F\) wants 1\.\.31 events, not 0" \
	"$RA" gen dcqcn --dcqcn rpg_threshold=0 -o "$T/dp/no.pcap"
expect "gen --dcqcn a bad value" 2 "rpg_time_reset wants a whole number, not '300us'" \
	"$RA" gen dcqcn --dcqcn rpg_time_reset=300us -o "$T/dp/no.pcap"
expect "gen --dcqcn not NAME=VALUE" 2 "--dcqcn needs NAME=VALUE\[,NAME=VALUE...\]" \
	"$RA" gen dcqcn --dcqcn rpg_time_reset=300, -o "$T/dp/no.pcap"
expect "gen --dcqcn a floor above the link" 2 "rpg_min_rate 30000 Mb/s is above the ceiling, 25000 Mb/s" \
	"$RA" gen dcqcn --dcqcn rpg_min_rate=30000 -o "$T/dp/no.pcap"
expect "gen --dcqcn with --cc none" 2 "--dcqcn tunes DCQCN's reaction point, which --cc none leaves out" \
	"$RA" gen dcqcn --cc none --dcqcn rpg_time_reset=300 -o "$T/dp/no.pcap"
[ ! -e "$T/dp/no.pcap" ] && ok "gen --dcqcn refused: no capture" || bad "gen --dcqcn refused: no capture"
# peer: with --cc dcqcn only; parsed before any network (127.0.0.1 port 1: nobody listens).
expect "peer --dcqcn without --cc dcqcn" 2 "--dcqcn tunes DCQCN's reaction point: give --cc dcqcn with it" \
	"$RA" peer --dcqcn rpg_time_reset=300 -p 1 127.0.0.1
expect "peer --cc dcqcn --dcqcn" 2 "nobody listens at 127.0.0.1 port 1" \
	"$RA" peer --cc dcqcn --dcqcn rpg_time_reset=300,dce_tcp_g=960 -p 1 127.0.0.1
expect "peer --dcqcn an unknown name" 2 "no DCQCN reaction-point parameter 'rpg_frob'" \
	"$RA" peer --cc dcqcn --dcqcn rpg_frob=1 -p 1 127.0.0.1
expect "peer --dcqcn a bad value" 2 "dce_tcp_g \(g\) wants 0\.\.1023 1024ths kept, not 1024" \
	"$RA" peer --cc dcqcn --dcqcn dce_tcp_g=1024 -p 1 127.0.0.1
expect "peer --rate under --dcqcn's floor" 2 "--rate below 0\.1 Gb/s is under DCQCN's floor \(rpg_min_rate, 100 Mb/s\)" \
	"$RA" peer --cc dcqcn --dcqcn rpg_min_rate=100 --rate 0.05 -p 1 127.0.0.1
expect "peer --dcqcn a first-CNP rate above rpg_max_rate" 2 "rate_to_set_on_first_cnp 200 Mb/s is above the ceiling, 100 Mb/s" \
	"$RA" peer --cc dcqcn --dcqcn rpg_max_rate=100,rate_to_set_on_first_cnp=200 -p 1 127.0.0.1
