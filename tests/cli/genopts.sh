# Sourced by run.sh (its R, RA, T, expect, ok, bad and run_tshark): gen ignores no --count or --size
# in silence. Every scenario either refuses the option with its reason (exit 2) or writes another
# capture than with no option; the single operations honour --count N with N request messages in
# stock tshark's InfiniBand dissector.

mkdir -p "$T/genopts"
# gen_sum SCENARIO [OPTION...]: the capture's checksum, or nothing if gen refused (its message in $T/genopts/err).
gen_sum() {
	sc=$1
	shift
	{ "$R" gen "$sc" "$@" -o - 2>"$T/genopts/err"; echo $? >"$T/genopts/rc"; } | cksum >"$T/genopts/sum"
	[ "$(cat "$T/genopts/rc")" = 0 ] && cat "$T/genopts/sum"
}

# gen_takes SCENARIO DEFAULT_SUM OPTION VALUE...: the first VALUE the scenario accepts must change its
# capture; a refusal that names the option and the scenario, with a reason, passes.
gen_takes() {
	sc=$1 def=$2 opt=$3
	shift 3
	for v in "$@"; do
		sum=$(gen_sum "$sc" "$opt" "$v")
		if grep -q -E -- "^rocelab gen: $opt means nothing to '$sc': .{12,}" "$T/genopts/err"; then
			ok "gen $sc $opt: refused, saying why"
			return
		fi
		[ -n "$sum" ] || continue          # a value this scenario cannot take (a UD message past the MTU): the next
		[ "$sum" != "$def" ] && ok "gen $sc $opt $v: another capture than with no $opt" ||
			bad "gen $sc $opt $v: the same capture as with no $opt, the option ignored"
		return
	done
	bad "gen $sc $opt: every value refused ($(head -c 200 "$T/genopts/err"))"
}

# 5 is no scenario's default count; 3000 bytes no default size, 600 one for the UD scenarios and fabric
# (one packet at MTU 1024), as 3000 is too big for them.
for sc in $("$R" gen --list | awk '/^  [a-z]/ { print $1 }'); do
	def=$(gen_sum "$sc")
	if [ -z "$def" ]; then
		bad "gen $sc with no options: $(head -c 200 "$T/genopts/err")"
		continue
	fi
	gen_takes "$sc" "$def" --count 5
	gen_takes "$sc" "$def" --size 3000 600
done

# --count N: N request messages, counted by their first (or only) packet's opcode, IBA Table 38:
# RC SEND First 0, Only 4, Only with immediate 5, Only with invalidate 23; RDMA WRITE First 6, Only 10,
# Only with immediate 11; RDMA READ Request 12; Compare&Swap 19; Fetch&Add 20; UC SEND First 32,
# Only 36; UD SEND Only 100.
FIRST=' 0 4 5 23 6 10 11 12 19 20 32 36 100 '
if command -v tshark >/dev/null; then
	for scn in send:5 send-imm:5 send-inv:5 write:5 write-imm:5 read:5 cmp-swap:5 fetch-add:5 uc-send:5 \
		ud-send:5 ecn:5 write:64 send:1 read:1; do
		sc=${scn%:*} n=${scn#*:}
		"$R" gen "$sc" --count "$n" -o "$T/genopts/n.pcap" 2>/dev/null
		got=$(run_tshark -r - -T fields -e infiniband.bth.opcode <"$T/genopts/n.pcap" 2>/dev/null |
			awk -v first="$FIRST" '$1 != "" && index(first, " " $1 " ") { n++ } END { print n + 0 }')
		[ "$got" = "$n" ] && ok "gen $sc --count $n: tshark reads $n request messages" ||
			bad "gen $sc --count $n: tshark reads $got request messages"
	done
	# ecn's marks go on with the count: more CE-marked requests (ip.dsfield.ecn 3) than one WRITE has.
	"$R" gen ecn -o "$T/genopts/e1.pcap" 2>/dev/null
	"$R" gen ecn --count 5 -o "$T/genopts/e5.pcap" 2>/dev/null
	c1=$(run_tshark -r - -Y 'ip.dsfield.ecn == 3' <"$T/genopts/e1.pcap" 2>/dev/null | grep -c .)
	c5=$(run_tshark -r - -Y 'ip.dsfield.ecn == 3' <"$T/genopts/e5.pcap" 2>/dev/null | grep -c .)
	[ "$c1" -gt 0 ] && [ "$c5" -gt "$c1" ] && ok "gen ecn --count 5: more CE marks than one WRITE gets ($c5, $c1)" ||
		bad "gen ecn --count 5: $c5 CE marks, $c1 with one WRITE"
fi
expect "gen write --count 65: refused, write-bw named" 2 \
	"^rocelab gen: --count is 1 \.\. 64 RDMA WRITEs here, not 65: write-bw sends more" \
	"$RA" gen write --count 65 -o "$T/genopts/x.pcap"
expect "gen request-loss --count: refused, one fault" 2 \
	"^rocelab gen: --count means nothing to 'request-loss': its fault strikes one message" \
	"$RA" gen request-loss --count 3 -o "$T/genopts/x.pcap"
expect "gen cmp-swap --size: refused, atomics are 8 bytes" 2 \
	"^rocelab gen: --size means nothing to 'cmp-swap': atomics work on 8 bytes" \
	"$RA" gen cmp-swap --size 64 -o "$T/genopts/x.pcap"
[ ! -e "$T/genopts/x.pcap" ] && ok "gen: a refused --count or --size writes no file" ||
	bad "gen: a refused --count or --size writes no file"
rm -rf "$T/genopts"
