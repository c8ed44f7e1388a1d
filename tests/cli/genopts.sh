# Sourced by run.sh (its R, RA, T, expect, ok, bad and run_tshark): gen ignores no option in silence
# (--count, --size, the wire's, --mtu, --seed, --ipv6, the QPNs and PSNs, ...). Every scenario either
# refuses the option with its reason (exit 2) or writes another capture than without it; the single
# operations honour --count N with N request messages in stock tshark's InfiniBand dissector.

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
			case " $(must "$opt") " in
			*" $sc "*) bad "gen $sc $opt: refused, though gen --help and --list say it takes $opt" ;;
			*) ok "gen $sc $opt: refused, saying why" ;;
			esac
			return
		fi
		[ -n "$sum" ] || continue          # a value this scenario cannot take (a UD message past the MTU): the next
		[ "$sum" != "$def" ] && ok "gen $sc $opt $v: another capture than with no $opt" ||
			bad "gen $sc $opt $v: the same capture as with no $opt, the option ignored"
		return
	done
	bad "gen $sc $opt: every value refused ($(head -c 200 "$T/genopts/err"))"
}

# Scenarios that must take the option, as gen --help and --list describe them (written here from
# those texts, not from gen's table): a row that lost an option would refuse it "saying why".
must() {
	case $1 in
	--count) echo "send write read cmp-swap fetch-add ud-send uc-send pingpong send-bw write-bw read-bw atomic-bw" \
		"cm-connect rping dcqcn incast fairness fabric" ;;
	--size) echo "send write read ud-send uc-send pingpong send-bw write-bw read-bw request-loss rnr cm-connect" \
		"rping dcqcn incast fairness fabric" ;;
	esac
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
# gen_reads SCENARIO OPTION VALUES [BASES]: "refused" (exit 2 naming the option and the scenario, with a
# reason), "read" (another capture than without the option, for one of the VALUES (',' between them),
# alone or beside one of the BASES, option lists between '|', for an option that matters only with
# another: --seed only with --loss, a UD --mtu only with a --size that needs it), "ignored", or "never
# ran" when no combination ran. VALUES - : the option takes none.
gen_reads() {
	sc=$1 opt=$2 bases=$4 ran=
	for val in $(echo "$3" | tr ',' ' '); do
		[ "$val" = - ] && val=
		old_ifs=$IFS IFS='|'
		# shellcheck disable=SC2086  # the BASES, one a field
		set -- "" $bases
		IFS=$old_ifs
		for base in "$@"; do
			# shellcheck disable=SC2086  # option lists
			new=$(gen_sum "$sc" $base $opt $val)
			if grep -q -E -- "^rocelab gen: $opt means nothing to '$sc': .{12,}" "$T/genopts/err"; then
				echo refused
				return
			fi
			[ -n "$new" ] || continue          # a combination this scenario cannot run: the next
			ran=1
			# shellcheck disable=SC2086
			[ "$new" != "$(gen_sum "$sc" $base)" ] && { echo read; return; }
		done
	done
	[ -n "$ran" ] && echo ignored || echo "never ran"
}

# Every other option only some scenarios read (the congestion port's own aside), each with a value no
# scenario has by default, and where it matters only beside another, those others ('|' between lists).
SCS=$("$R" gen --list | awk '/^  [a-z]/ { print $1 }')
while read -r opt val bases; do
	nr=0 nd=0
	for sc in $SCS; do
		rm -f "$T/err"
		case $(gen_reads "$sc" "$opt" "$val" "$bases") in
		refused) nr=$((nr + 1)) ;;
		read) nd=$((nd + 1)) ;;
		ignored) bad "gen $sc $opt $val: the same capture as without it, alone and beside ${bases:-nothing}" ;;
		*) bad "gen $sc $opt $val: no run, alone or beside ${bases:-nothing}: $(head -c 200 "$T/genopts/err")" ;;
		esac
	done
	ok "gen $opt: refused with a reason by $nr scenarios, another capture from $nd"
done <<'EOF_OPTS'
--mtu 256,2048 --size 3000|--size 2000
--window 1
--seed 7 --loss 0.2
--loss 0.2,0.5 --seed 5|--pcapng --seed 2|--pcapng --count 20
--drop 1,2,3 --pcapng
--drop-request 1,2 --pcapng
--min-rnr-timer 3
--rnr-retry 0
--psn-a 100
--psn-b 200
--qpn-a 0x99
--qpn-b 0x98
--rate 10,100
--latency 5000 --count 5
--ipv6 -
--qps 10
--bad-write 2 --count 3
--senders 2
--cnp-interval 100,1
EOF_OPTS

# The reasons say what does take the option.
expect "gen send --window: refused, send-bw named" 2 \
	"^rocelab gen: --window means nothing to 'send': it posts its messages one after another: send-bw" \
	"$RA" gen send --window 4 -o "$T/genopts/x.pcap"
expect "gen send --min-rnr-timer: refused, rnr named" 2 \
	"^rocelab gen: --min-rnr-timer means nothing to 'send': only rnr and srq send before a receive is posted" \
	"$RA" gen send --min-rnr-timer 3 -o "$T/genopts/x.pcap"
expect "gen all-opcodes --mtu: refused, its payloads are short" 2 \
	"^rocelab gen: --mtu means nothing to 'all-opcodes': its payloads are random lengths of at most 256 bytes" \
	"$RA" gen all-opcodes --mtu 256 -o "$T/genopts/x.pcap"
expect "gen write --psn-b: refused, B sends no request" 2 \
	"^rocelab gen: --psn-b means nothing to 'write': B sends no request in it" \
	"$RA" gen write --psn-b 5 -o "$T/genopts/x.pcap"
# cm-messages writes its REQ's and REP's Starting PSN from --psn-a and --psn-b (IBA 12.6).
if command -v tshark >/dev/null; then
	"$R" gen cm-messages --psn-a 0x123456 --psn-b 0xabcdef -o "$T/genopts/cmm.pcap" 2>/dev/null
	# Each REQ's, then each REP's, the same starting PSN.
	psns=$(for f in req rep; do
		run_tshark -r - -T fields -e "infiniband.cm.$f.startpsn" <"$T/genopts/cmm.pcap" 2>/dev/null | sort -u | grep .
	done | tr '\n' ' ')
	[ "$psns" = "0x123456 0xabcdef " ] && ok "gen cm-messages --psn-a --psn-b: tshark reads them in the REQ and REP" ||
		bad "gen cm-messages --psn-a 0x123456 --psn-b 0xabcdef: tshark reads '$psns'"
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
