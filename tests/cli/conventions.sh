# Sourced by run.sh (its R, RA, T, expect, ok and bad): one exit-status scheme for every command
# (cli/cli.h): 2 a usage error, 1 the input had problems; numbers in decimal or 0x hex only.
# Each kind of usage error, for each command and each tool's own flags under peer --compat.

"$R" gen demo -o "$T/cv.pcap" 2>/dev/null
# usage NAME PATTERN ARGS...: exit 2, the message, within 20 s (a parser that let it through may start work).
usage() {
	name=$1 pat=$2
	shift 2
	expect "usage, exit 2: $name" 2 "$pat" timeout 20 "$RA" "$@"
}
UNK="unknown option|unrecognized option|invalid option"
MISS="needs a value|requires an argument|needs a"
while IFS='~' read -r name pat args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # the arguments are words
	eval "usage \"\$name\" \"\$pat\" $args"
done <<EOF
explain: unknown option~$UNK~explain --frob "$T/cv.pcap"
explain: a value missing~$MISS~explain "$T/cv.pcap" -c
explain: not a number~positive number~explain -c 12x "$T/cv.pcap"
gen: unknown option~$UNK~gen demo --frob -o "$T/x.pcap"
gen: a value missing~$MISS~gen demo -o
gen: not a number~--size~gen demo --size 12x -o "$T/x.pcap"
gids: unknown option~$UNK~gids --frob
report: unknown option~$UNK~report --frob "$T/cv.pcap"
report: a value missing~$MISS~report "$T/cv.pcap" -o
report: not a number~positive number~report -c 12x "$T/cv.pcap"
rewrite: unknown option~$UNK~rewrite --frob "$T/cv.pcap" "$T/x.pcap"
rewrite: a value missing~$MISS~rewrite "$T/cv.pcap" "$T/x.pcap" --rewrite
replay: unknown option~$UNK~replay --frob "$T/cv.pcap"
replay: a value missing~$MISS~replay "$T/cv.pcap" --iface
replay: not a number~--count~replay "$T/cv.pcap" --iface lo --count 12x
switch: unknown option~$UNK~switch a b --frob
switch: a value missing~$MISS~switch a b --kmin
switch: not a number~--kmin~switch a b --kmin 12x
lab: no verb~usage: rocelab lab~lab
lab: unknown option~$UNK~lab --frob list
lab: a value missing~$MISS~lab grade 01 --answers
lab: not a number~--mtu wants~lab up --mtu 12x
lab: unknown verb~say list, run NN~lab fly
lab: no such lab~no lab '99'~lab run 99
lab: --gen and --real-rxe~not both~lab run 01 --gen --real-rxe
lab: --set on another verb~--set belongs to 'lab predict'~lab run 04 --set size=1
lab: --set not a value~--set mtu=1000: mtu~lab predict 04 --set mtu=1000
lab: --set no such~has no parameter 'x'~lab predict 04 --set x=1
lab: --seed not a number~--seed~lab quiz 04 --seed 12x
lab: --grade on another verb~--grade belongs to 'lab quiz'~lab grade 04 --grade
peer: unknown option~$UNK~peer --frob
peer: a value missing~$MISS~peer --size
peer: not a number~--size~peer --size 12x 127.0.0.1
peer --compat rping: unknown option~$UNK~peer --compat rping -Z
peer --compat rping: a value missing~$MISS~peer --compat rping -s -C
peer --compat rping: not a number~-C~peer --compat rping -s -C 12x
peer --compat rping: an extra argument~unexpected argument~peer --compat rping -s extra
peer --compat ucmatose: unknown option~$UNK~peer --compat ucmatose -Z
peer --compat ucmatose: a value missing~$MISS~peer --compat ucmatose -C
peer --compat ucmatose: not a number~-C~peer --compat ucmatose -C 12x
peer --compat ucmatose: an extra argument~unexpected argument~peer --compat ucmatose extra
peer --compat udaddy: unknown option~$UNK~peer --compat udaddy -Z
peer --compat udaddy: not a number~-C~peer --compat udaddy -C 12x
peer --compat udaddy: -p 0421 is not octal 0x111~udaddy's -p is the port space~peer --compat udaddy -p 0421
peer --compat ib_send_bw: unknown option~$UNK~peer --compat ib_send_bw --frob
peer --compat ib_send_bw: not a number~-s~peer --compat ib_send_bw -s 12x
realrxe: unknown option~unknown option~realrxe run --bogus
realrxe: a value missing~needs a value~realrxe exec --dir
realrxe: not a number~whole seconds~realrxe start --dir "$T" --timeout 12x
EOF

# A damaged capture is input with problems: exit 1 in every command that reads one.
head -c 1000 "$T/cv.pcap" >"$T/cv-cut.pcap"
expect "damaged, exit 1: explain" 1 "damaged after frame" "$RA" explain "$T/cv-cut.pcap"
expect "damaged, exit 1: explain --compare" 1 "damaged after frame" "$RA" explain --compare "$T/cv-cut.pcap" "$T/cv.pcap"
expect "damaged, exit 1: report" 1 "damaged after frame" "$RA" report -o "$T/cv-cut.html" "$T/cv-cut.pcap"
expect "damaged, exit 1: rewrite" 1 "damaged after frame" "$RA" rewrite "$T/cv-cut.pcap" "$T/cv-o.pcap" --rewrite psn:+1
# replay sends, on its own loopback (a network namespace of its own), where it can make one.
if unshare --net true 2>/dev/null; then
	expect "damaged, exit 1: replay" 1 "damaged after frame" \
		unshare --net sh -c "ip link set lo up && exec \"$RA\" replay \"$T/cv-cut.pcap\" --iface lo --topspeed"
fi
