# shellcheck shell=bash
# The kernel's own ECN marking as a congestion point (issue 23), sourced by run.sh: this host's
# kernel has no sch_red, Debian's in the VM has (realrxe.sh puts sch_tbf and sch_red in; fq_codel
# is built in). In the guest, `rocelab peer --client` (put in by `realrxe start --add`) runs in a
# namespace of its own (rxe holds UDP 4791 in the guest's first one), 10.77.1.2 behind a veth; the
# guest forwards to its eth0, whose egress is the bottleneck: tbf at CG_RATE, and under it red with
# ecn (tc-red(8)) or fq_codel's ce_threshold (tc-fq_codel(8)), the lines of realrxe/README.md as
# written. `rocelab peer --server` is on this side, tcpdump on the tap after the bottleneck.
# Three runs of CG_SECS s of 4 KiB WRITEs at --rate 0.03 (30 Mb/s, the guest under TCG sends ~40):
#   --cc none over red:   Not-ECT requests, which red drops where it would mark (sch_red.c: an
#                         INET_ECN_set_ce() that fails is a drop); the responder NAKs the gaps and
#                         the requester goes back N (IBA 9.7.5.1.1, 9.9.2.2);
#   --cc dcqcn over red:  ECT(0) requests that red marks CE (RFC 3168 5), the server's CNPs (IBA
#                         A17.9) back to the sender, which cuts its rate (Zhu et al., SIGCOMM 2015);
#   --cc dcqcn over fq_codel ce_threshold: CE on whatever waited longer than 2 ms.
# Oracles: tshark's ECN codepoint (ip.dsfield.ecn), CNPs (infiniband.bth.opcode == 129) and
# (QP, PSN) pairs seen twice; the qdiscs' own counters (tc -s qdisc: red's marked and dropped,
# fq_codel's ce_mark). Figures, measured under TCG on a busy 2-core host, at 8 Mb/s (5 runs of none, 4
# of the rest): none: red dropped 966..2250 (about half the requests sent), 247..429 (QP, PSN) resent,
# no CE, no CNP; dcqcn: red dropped 5..11 (the TCP exchange's Not-ECT segments: no request lost), 0
# resent, 1502..2774 CE = red's marked; fq_codel: 1828..2782 CE = its ce_mark, nothing dropped. At
# 16 Mb/s, now, above DCQCN's floor (rpg_min_rate, 10 Mb/s) so that a sender obeying its cuts could
# fit: none dropped 914 (913 of 2038 requests), 270 resent; dcqcn dropped 10, 0 lost or resent, 5466
# CE = marked, 5391 CNPs; fq_codel 5430 CE = ce_mark, 5286 CNPs. The case takes ~25-35 s.
# What this does not show: DCQCN's timers and steps are made for 40 Gb/s, so between two CNPs its
# rate climbs back to the 30 Mb/s ceiling, and the queue stays past red's min (almost every request
# is marked); the loss falls because ECT requests are marked instead of dropped, and DCQCN slows
# on the CNPs. Needs run.sh's guest, pass, fail, run_tshark, $R, $T, $NS, $G; the VM started with
# --add "$R".
CG_NS=rlcg                                      # the sender's namespace, in the guest
CG_SND=10.77.1.2                                # its address, routed through the guest's eth0
CG_RATE=16mbit                                  # tbf's rate; red's bandwidth says the same
CG_SECS=3
CG_README=$(dirname "${BASH_SOURCE[0]}")/../../realrxe/README.md

# cg_setup: the sender's namespace and its route, both ways; false with the guest's words.
cg_setup() {
	guest "I=/bin/ip; \$I netns add $CG_NS && \$I link add cgs0 type veth peer name cgr0 &&
		\$I link set cgs0 netns $CG_NS && \$I addr add 10.77.1.1/24 dev cgr0 && \$I link set cgr0 up &&
		\$I -n $CG_NS addr add $CG_SND/24 dev cgs0 && \$I -n $CG_NS link set cgs0 up &&
		\$I -n $CG_NS link set lo up && \$I -n $CG_NS route add default via 10.77.1.1 &&
		echo 1 > /proc/sys/net/ipv4/ip_forward" >"$T/cg-setup.out" 2>&1 &&
		ip -n "$NS" route add 10.77.1.0/24 via "$G" 2>>"$T/cg-setup.out"
}

cg_teardown() {
	guest "/sbin/tc qdisc del dev eth0 root; /bin/ip netns del $CG_NS; echo 0 > /proc/sys/net/ipv4/ip_forward" \
		>/dev/null 2>&1
	ip -n "$NS" route del 10.77.1.0/24 2>/dev/null
}

# cg_run NAME CC QDISC: QDISC (a line of the README) under tbf on the guest's eth0, then the run;
# $T/cg-NAME.{pcap,cli,srv,td} and its figures in $T/cg-NAME.fig, one "name value" a line.
cg_run() {
	local name=$1 cc=$2 qdisc=$3 td sp crc src f=$T/cg-$1
	guest "/sbin/tc qdisc del dev eth0 root 2>/dev/null
		/sbin/$CG_TBF && /sbin/$qdisc" >"$f.tc" 2>&1 ||
		{ fail "congestion, $name: tc: $(cat "$f.tc")"; return 1; }
	ip netns exec "$NS" timeout 90 tcpdump -i rxtap0 --immediate-mode -s 96 -B 16384 -U -n -w "$f.pcap" \
		"udp port 4791" >/dev/null 2>"$f.td" &
	td=$!
	local i=0
	until grep -q listening "$f.td" 2>/dev/null || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
	ip netns exec "$NS" timeout 90 "$R" peer --server --cc "$cc" --timeout 30 >"$f.srv" 2>&1 &
	sp=$!
	# the client does not retry a refused connection: wait until the server listens (at most 10 s)
	i=0
	until grep -q "waiting for a client" "$f.srv" 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
	# -u 16: an ACK timeout of 268 ms, past the 64 KiB window's wait in the queue at 16 Mb/s (33 ms)
	guest "timeout 60 /bin/ip netns exec $CG_NS rocelab peer --client 10.77.0.1 --op write --size 4096 \
		-D $CG_SECS --rate 0.03 -u 16 --cc $cc --timeout 30; rc=\$?; echo @@TC; /sbin/tc -s qdisc show dev eth0; exit \$rc" \
		>"$f.cli" 2>&1
	crc=$?
	wait $sp
	src=$?
	sleep 0.3
	kill -INT $td 2>/dev/null
	wait $td 2>/dev/null
	if [ $crc -ne 0 ] || [ $src -ne 0 ] || ! grep -q "data verified" "$f.srv"; then
		fail "congestion, $name: client exit $crc, server exit $src: $(tail -c 300 "$f.cli") / $(tail -c 300 "$f.srv")"
		return 1
	fi
	if ! grep -q '^0 packets dropped by kernel' "$f.td"; then
		fail "congestion, $name: tcpdump lost frames, the counts would be short: $(tail -n 2 "$f.td" | tr '\n' ' ')"
		return 1
	fi
	cg_figures "$f" >"$f.fig"
}

# cg_figures F: from tshark (the requests the sender's, the CNPs to it), the client's line and tc's.
cg_figures() {
	local tcs
	run_tshark -r - -Y "ip.src == $CG_SND && infiniband" -T fields -e ip.dsfield.ecn -e infiniband.bth.destqp \
		-e infiniband.bth.psn <"$1.pcap" >"$1.req" 2>/dev/null
	echo "seen $(wc -l <"$1.req")"
	echo "ect $(awk '$1 == 2' "$1.req" | wc -l)"
	echo "ce $(awk '$1 == 3' "$1.req" | wc -l)"
	echo "resent $(awk '{ print $2, $3 }' "$1.req" | sort | uniq -d | wc -l)"
	echo "cnps $(run_tshark -r - -Y "ip.dst == $CG_SND && infiniband.bth.opcode == 129" -T fields -e frame.number \
		<"$1.pcap" 2>/dev/null | wc -l)"
	echo "sent $(sed -n 's/^ frames sent \([0-9]*\),.*/\1/p' "$1.cli")"
	# the child qdisc's lines (handle 10:): "(dropped N," then red's "marked N" or fq_codel's "ce_mark N"
	tcs=$(sed -n '/^@@TC/,$p' "$1.cli" | sed -n '/^qdisc [a-z_]* 10:/,/^qdisc /p')
	echo "dropped $(echo "$tcs" | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1)"
	echo "marked $(echo "$tcs" | sed -n 's/.*[ ]marked \([0-9]*\) .*/\1/p' | head -n 1)"
	echo "ce_mark $(echo "$tcs" | sed -n 's/.* ce_mark \([0-9]*\).*/\1/p' | head -n 1)"
}

cg() { sed -n "s/^$2 //p" "$T/cg-$1.fig"; }

congestion_case() {
	local q red fq n
	q=$(grep '^tc qdisc add dev eth0 ' "$CG_README")
	CG_TBF=$(echo "$q" | grep ' tbf ')
	red=$(echo "$q" | grep ' red ')
	fq=$(echo "$q" | grep ' fq_codel ')
	if [ "$(echo "$q" | wc -l)" -ne 3 ] || [ -z "$CG_TBF" ] || [ -z "$red" ] || [ -z "$fq" ]; then
		fail "congestion: realrxe/README.md lacks its three 'tc qdisc add dev eth0' lines (tbf, red, fq_codel): $q"
		return
	fi
	if ! cg_setup; then
		fail "congestion: the sender's namespace in the guest: $(tail -c 400 "$T/cg-setup.out")"
		cg_teardown
		return
	fi
	cg_run none none "$red" && cg_run dcqcn dcqcn "$red" && cg_run fq dcqcn "$fq"
	cg_teardown
	for n in none dcqcn fq; do [ -s "$T/cg-$n.fig" ] || return; done
	# red marks nothing Not-ECT: it drops, and the drops are the requests tcpdump never saw
	local lost=$(($(cg none sent) - $(cg none seen)))
	if [ "$(cg none ce)" -eq 0 ] && [ "$(cg none marked)" = 0 ] && [ "$(cg none cnps)" -eq 0 ] && [ "$lost" -gt 0 ] &&
		[ "$lost" -le "$(cg none dropped)" ] && [ "$(cg none resent)" -gt 0 ]; then
		pass "congestion, --cc none over the kernel's tbf $CG_RATE + red ecn: Not-ECT, red dropped $(cg none dropped) (of them $lost of the $(cg none sent) requests sent, by tcpdump), marked 0; $(cg none resent) (QP, PSN) resent (tshark), no CE, no CNP"
	else
		fail "congestion, --cc none over red: $(tr '\n' ' ' <"$T/cg-none.fig"): wanted drops, resends, no CE"
	fi
	local lost_none=$lost
	lost=$(($(cg dcqcn sent) - $(cg dcqcn seen)))
	if [ "$(cg dcqcn ce)" -gt 0 ] && [ "$(cg dcqcn ce)" = "$(cg dcqcn marked)" ] && [ "$(cg dcqcn cnps)" -gt 0 ]; then
		pass "congestion, --cc dcqcn over red ecn: $(cg dcqcn ce) requests CE-marked (tshark; red's own count: marked $(cg dcqcn marked)), $(cg dcqcn cnps) CNPs back to the sender (tshark)"
	else
		fail "congestion, --cc dcqcn over red: $(tr '\n' ' ' <"$T/cg-dcqcn.fig"): wanted CE = red's marked, CNPs"
	fi
	# ECT requests are marked, not dropped: what red still drops is the TCP exchange's (measured: 0 requests
	# lost and 0 resent against hundreds); red without ecn lost 1169 and resent 214 here, --cc none 1799 and 401
	if [ "$(cg dcqcn dropped)" -lt "$(cg none dropped)" ] && [ "$lost" -ge 0 ] && [ "$lost" -le "$(cg dcqcn dropped)" ] &&
		[ $((lost * 20)) -le "$lost_none" ] && [ $(($(cg dcqcn resent) * 20)) -le "$(cg none resent)" ]; then
		pass "congestion, red: --cc dcqcn dropped $(cg dcqcn dropped) (--cc none $(cg none dropped)), $lost requests lost (--cc none $lost_none), resent $(cg dcqcn resent) (--cc none $(cg none resent))"
	else
		fail "congestion, red: --cc dcqcn dropped $(cg dcqcn dropped), lost $lost, resent $(cg dcqcn resent); --cc none $(cg none dropped), $lost_none, $(cg none resent): not fewer drops, nor at most 5% of the losses and resends"
	fi
	if [ "$(cg fq ce)" -gt 0 ] && [ -n "$(cg fq ce_mark)" ] && [ "$(cg fq ce_mark)" -gt 0 ] &&
		[ "$(cg fq ce_mark)" -le "$(cg fq ce)" ] && [ "$(cg fq cnps)" -gt 0 ]; then
		pass "congestion, --cc dcqcn over fq_codel ce_threshold 2ms: $(cg fq ce) requests CE-marked (tshark; fq_codel's ce_mark $(cg fq ce_mark)), $(cg fq cnps) CNPs, dropped $(cg fq dropped), resent $(cg fq resent)"
	else
		fail "congestion, --cc dcqcn over fq_codel ce_threshold: $(tr '\n' ' ' <"$T/cg-fq.fig")"
	fi
}
