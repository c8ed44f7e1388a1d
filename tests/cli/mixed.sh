# Sourced by run.sh (its R, RA, T, expect, ok, bad and run_tshark): a pcapng whose interfaces have
# different link types, made by Wireshark's own mergecap and editcap (issue 20: it was "damaged
# after frame 0"). The frames of link types rocelab decodes are read, others skipped with a count.
if command -v mergecap >/dev/null 2>&1 && command -v editcap >/dev/null 2>&1; then
	"$R" gen demo -o "$T/mx-eth.pcap" 2>/dev/null
	python3 "$(dirname "$0")/relink.py" "$T/mx-eth.pcap" "$T/mx-sll.pcap" sll
	mergecap -F pcapng -w "$T/mx.pcapng" "$T/mx-eth.pcap" "$T/mx-sll.pcap"
	expect "mixed pcapng (Ethernet + Linux cooked): every frame decoded" 0 "^--- 32 frames: 32 RoCE, 0 other" \
		"$RA" explain "$T/mx.pcapng"
	# Frame by frame: tshark's frame numbers, times and link types (its WTAP encapsulations 1 and 25).
	run_tshark -r - -T fields -e frame.number -e frame.time_epoch -e frame.encap_type <"$T/mx.pcapng" 2>/dev/null |
		sed 's/\t1$/\tEthernet/; s/\t25$/\tLinux cooked (SLL)/' >"$T/mx.tshark"
	"$RA" explain --json "$T/mx.pcapng" 2>/dev/null |
		sed 's/^{"frame":\([0-9]*\),.*"time_epoch":\([0-9.]*\),.*"link":"\([^"]*\)".*/\1\t\2\t\3/' >"$T/mx.ours"
	[ "$(wc -l <"$T/mx.tshark")" -eq 32 ] && cmp -s "$T/mx.tshark" "$T/mx.ours" &&
		ok "mixed pcapng: frame numbers, times and link types are tshark's" ||
		{ diff "$T/mx.tshark" "$T/mx.ours" | head -5 >"$T/err"; bad "mixed pcapng: frame numbers, times and link types are tshark's"; }
	expect "mixed pcapng through a pipe" 0 "^--- 32 frames: 32 RoCE" sh -c "cat \"$T/mx.pcapng\" | \"$RA\" explain -"
	# The capture filter, compiled for each link type, picks what tshark's display filter does.
	n=$(run_tshark -r - -Y "ip.src == 192.168.100.1" <"$T/mx.pcapng" 2>/dev/null | wc -l)
	expect "mixed pcapng: a capture filter on both link types picks tshark's $n" 0 "^--- 32 frames, $n shown" \
		"$RA" explain "$T/mx.pcapng" "src host 192.168.100.1"
	expect "mixed pcapng: explain --compare" 0 "Comparing" "$RA" explain --compare "$T/mx.pcapng" "$T/mx-eth.pcap"
	# A link type rocelab does not decode (editcap -T): skipped, counted, said; the rest decoded.
	editcap -T ieee-802-11 "$T/mx-eth.pcap" "$T/mx-wifi.pcap"
	mergecap -F pcapng -w "$T/mx2.pcapng" "$T/mx-eth.pcap" "$T/mx-wifi.pcap"
	expect "mixed pcapng with 802.11: the Ethernet frames decoded, the others not RoCE" 0 \
		"^--- 32 frames: 16 RoCE, 16 other" "$RA" explain "$T/mx2.pcapng"
	grep -q "note: $T/mx2.pcapng: 16 frames of link type IEEE802_11 (105) skipped" "$T/all" &&
		ok "mixed pcapng with 802.11: the skipped frames are counted and said" ||
		bad "mixed pcapng with 802.11: the skipped frames are counted and said"
	! grep -q "damaged" "$T/all" && ok "mixed pcapng: not called damaged" || bad "mixed pcapng: not called damaged"
	# The same merged the other way round: the first interface is the one not decoded.
	mergecap -F pcapng -w "$T/mx2r.pcapng" "$T/mx-wifi.pcap" "$T/mx-eth.pcap"
	expect "mixed pcapng, 802.11 first: the Ethernet frames decoded all the same" 0 \
		"^--- 32 frames: 16 RoCE, 16 other" "$RA" explain "$T/mx2r.pcapng"
	expect "mixed pcapng: rewrite refuses a second link type, output not made" 1 "a pcap holds one link type" \
		"$RA" rewrite "$T/mx.pcapng" "$T/mx-out.pcap" --rewrite psn:+1
	[ ! -e "$T/mx-out.pcap" ] && ok "mixed pcapng: rewrite leaves no output" || bad "mixed pcapng: rewrite leaves no output"
	# Each interface's own timestamp units and offset (if_tsresol 10^-9 and 2^-20, if_tsoffset): tshark's times.
	/usr/bin/python3 "$(dirname "$0")/mkpcapng.py" "$T/mx-eth.pcap" "$T/mx-sll.pcap" "$T/mx3.pcapng"
	run_tshark -r - -T fields -e frame.number -e frame.time_epoch -e frame.encap_type <"$T/mx3.pcapng" 2>/dev/null |
		sed 's/\t1$/\tEthernet/; s/\t25$/\tLinux cooked (SLL)/' >"$T/mx3.tshark"
	"$RA" explain --json "$T/mx3.pcapng" 2>/dev/null |
		sed 's/^{"frame":\([0-9]*\),.*"time_epoch":\([0-9.]*\),.*"link":"\([^"]*\)".*/\1\t\2\t\3/' >"$T/mx3.ours"
	[ "$(wc -l <"$T/mx3.tshark")" -eq 32 ] && cmp -s "$T/mx3.tshark" "$T/mx3.ours" &&
		ok "pcapng: each interface's if_tsresol and if_tsoffset, as tshark reads them" ||
		{ diff "$T/mx3.tshark" "$T/mx3.ours" | head -5 >"$T/err"; bad "pcapng: each interface's if_tsresol and if_tsoffset, as tshark reads them"; }
	# A damaged pcapng is still called so, with exit 1.
	head -c 700 "$T/mx.pcapng" >"$T/mx-cut.pcapng"
	expect "a cut pcapng is damaged, exit 1" 1 "damaged after frame [0-9]+: a block of type 0x6 is cut short" \
		"$RA" explain "$T/mx-cut.pcapng"
fi
