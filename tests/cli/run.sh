#!/bin/sh
# The rocelab command on good and bad input. Usage: run.sh ROCELAB [ROCELAB_ASAN]
# Every bad input must give a clear message and a non-zero exit, never a crash.
set -u
R=${1:?usage: run.sh ROCELAB [ROCELAB_ASAN]}
RA=${2:-$R}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -s "$T/err" ] && sed 's/^/     | /' "$T/err" | head -n 8; }

# expect NAME STATUS PATTERN CMD...: exit status STATUS and PATTERN (grep -E) in stdout+stderr.
expect() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	cat "$T/out" "$T/err" >"$T/all"
	if [ "$got" -ne "$want" ]; then
		echo "     exit status $got, expected $want" >>"$T/err"
		bad "$name"
	elif [ "$got" -ge 128 ] || grep -q -E 'AddressSanitizer|runtime error' "$T/all"; then
		bad "$name (crashed or sanitizer report)"
	elif ! grep -q -E -- "$pat" "$T/all"; then
		echo "     output lacks /$pat/" >>"$T/err"
		bad "$name"
	else
		ok "$name"
	fi
}

# ---- help and usage -------------------------------------------------------
expect "rocelab --help" 0 "explain" "$R" --help
expect "rocelab --version" 0 "rocelab [0-9]" "$R" --version
expect "rocelab without a command" 2 "usage: rocelab" "$RA"
expect "unknown command" 2 "unknown command 'frobnicate'" "$RA" frobnicate
# rocelab realrxe: the script's own checks, before it needs root or a VM.
expect "realrxe --help" 0 "rocelab realrxe build" "$RA" realrxe --help
expect "realrxe unknown command" 2 "unknown command 'frob'" "$RA" realrxe frob
expect "realrxe unknown option" 2 "unknown option --bogus" "$RA" realrxe run --bogus
expect "realrxe exec without --dir" 2 "exec needs --dir DIR" "$RA" realrxe exec -- true
expect "realrxe exec in a dir with no guest" 1 "no guest started in" "$RA" realrxe exec --dir "$T" -- true
expect "realrxe --max-time not a number" 2 "take whole seconds" "$RA" realrxe start --dir "$T" --max-time soon
# --add: what it cannot put into the guest is said before anything is built or booted
expect "realrxe --add a missing file" 1 "--add $T/nothere.c: no such file" "$RA" realrxe run --add "$T/nothere.c" -- true
printf 'not a program\n' >"$T/notes.txt"
expect "realrxe --add a file that is not ELF" 1 "--add $T/notes.txt: not an ELF program" "$RA" realrxe run --add "$T/notes.txt" -- true
expect "realrxe --add on exec" 2 "--add is for run, start and shell" "$RA" realrxe exec --dir "$T" --add "$T/notes.txt" -- true
expect "realrxe --help names --add" 0 "rocelab realrxe start --dir DIR \[--add PROGRAM\[.c\]\]" "$RA" realrxe --help
expect "lab run with --gen and --real-rxe" 2 "--gen or --real-rxe, not both" "$RA" lab run 01 --gen --real-rxe
expect "realrxe script missing" 2 "cannot find realrxe.sh" env ROCELAB_REALRXE=/nonexistent "$RA" realrxe build
expect "explain --help" 0 "usage: rocelab explain" "$R" explain --help
expect "gen --help" 0 "usage: rocelab gen" "$R" gen --help
expect "gen --list" 0 "all-opcodes" "$R" gen --list
expect "explain without a file" 2 "which capture file" "$RA" explain
expect "explain unknown option" 2 "unknown option '--frob'" "$RA" explain --frob x.pcap
expect "explain -c 0" 2 "positive number" "$RA" explain -c 0 x.pcap
expect "explain -c without value" 2 "needs a value" "$RA" explain x.pcap -c
expect "gen without -o" 2 "add -o FILE" "$RA" gen demo
expect "gen unknown scenario" 2 "no scenario 'nope'" "$RA" gen nope -o "$T/x.pcap"
expect "gen bad --vlan" 2 "VLAN ID from 1 to 4094" "$RA" gen demo --vlan 4095 -o "$T/x.pcap"
expect "gen bad --seed" 2 "--seed needs a number" "$RA" gen all-opcodes --seed -3 -o "$T/x.pcap"
expect "gen into a missing directory" 2 "cannot write" "$RA" gen demo -o "$T/no/such/dir.pcap"
# A full disk is an error, whether the last flush or a write while the buffer drained meets it.
expect "gen to a full disk" 2 "rocelab gen: writing /dev/full failed" "$RA" gen send -o /dev/full
expect "gen to a full disk, more than its buffer" 2 "rocelab gen: writing /dev/full failed" \
	"$RA" gen send-bw --count 2000 --size 4096 -o /dev/full
expect "peer --help to a full disk" 2 "rocelab peer: cannot write the output" sh -c "\"$RA\" peer --help >/dev/full"
# rocelab peer's flags are perftest's and ibv_rc_pingpong's: parsed before any network is touched
# (127.0.0.1 port 1: nobody listens, so a command that parses ends there, exit 2, saying so).
NL="nobody listens at 127.0.0.1 port 1"
expect "peer -s is the size (perftest's)" 2 "$NL" "$RA" peer -s 4096 -n 5 -p 1 127.0.0.1
expect "peer -s 010 is ten bytes, not octal 8" 2 "atomics work on 8 bytes" "$RA" peer -s 010 --op fetch-add -p 1 127.0.0.1
expect "peer -s 8 for an atomic" 2 "$NL" "$RA" peer -s 8 --op fetch-add -p 1 127.0.0.1
expect "peer -s 0x10 is hex" 2 "$NL" "$RA" peer -s 0x10 -p 1 127.0.0.1
expect "peer -s without a number says what -s is now" 2 "-s is the message size, as perftest's" "$RA" peer -s
expect "peer -s followed by an option" 2 "-s is the message size" "$RA" peer -s --op write 127.0.0.1
expect "peer -S is not the size" 2 "unknown option '-S'.*|the message size is -s or --size" "$RA" peer -S 64 127.0.0.1
expect "peer --size still" 2 "$NL" "$RA" peer --size 64 -p 1 127.0.0.1
expect "peer -n, --iters" 2 "$NL" "$RA" peer -n 7 --iters 8 -p 1 127.0.0.1
expect "peer -n 0" 2 "--iters wants 1..100000000, not '0'" "$RA" peer -n 0 127.0.0.1
expect "peer -x and -g" 2 "$NL" "$RA" peer -x 1 -g 1 -p 1 127.0.0.1
expect "peer -x 256" 2 "--gid-index wants 0..255, not '256'" "$RA" peer -x 256 127.0.0.1
expect "peer -m 1024" 2 "$NL" "$RA" peer -m 1024 -p 1 127.0.0.1
expect "peer -m 1500" 2 "--mtu wants 256, 512, 1024, 2048 or 4096, not '1500'" "$RA" peer -m 1500 127.0.0.1
expect "peer -p, --port" 2 "$NL" "$RA" peer --port 1 127.0.0.1
expect "peer -p 70000" 2 "--port wants 1..65535, not '70000'" "$RA" peer -p 70000 127.0.0.1
expect "peer -d an interface (lo)" 2 "note: -d lo is the interface lo" "$RA" peer -d lo -p 1 127.0.0.1
expect "peer -d lo runs on lo" 2 "$NL" "$RA" peer --ib-dev lo -p 1 127.0.0.1
expect "peer -d a device that is not here" 2 "-d rlnosuch0: no interface of that name here; rocelab has no RDMA device" \
	"$RA" peer -d rlnosuch0 127.0.0.1
expect "peer -d and --interface of two interfaces" 2 "-d lo and --interface rl0 name two interfaces" \
	"$RA" peer -d lo --interface rl0 127.0.0.1
expect "peer -i 1" 2 "$NL" "$RA" peer -i 1 -p 1 127.0.0.1
expect "peer -i 2" 2 "-i 2: rocelab's RDMA device has one port, 1" "$RA" peer -i 2 127.0.0.1
expect "peer -q 1" 2 "$NL" "$RA" peer -q 1 -p 1 127.0.0.1
expect "peer -q 2: one QP only" 2 "-q 2: rocelab peer runs one QP per process" "$RA" peer -q 2 127.0.0.1
expect "peer --qps 0" 2 "--qps wants 1..16384, not '0'" "$RA" peer --qps 0 127.0.0.1
expect "peer -D" 2 "$NL" "$RA" peer -D 2 -p 1 127.0.0.1
expect "peer --duration 0" 2 "--duration wants 1..3600, not '0'" "$RA" peer --duration 0 127.0.0.1
expect "peer -D with -n" 2 "-D runs for a time, -n counts messages: say one" "$RA" peer -D 2 -n 5 127.0.0.1
expect "peer -D with --cm" 2 "-D works over rocelab's own test exchange: not with --cm" "$RA" peer -D 2 --cm 127.0.0.1
expect "peer -a" 2 "$NL" "$RA" peer -a -p 1 127.0.0.1
expect "peer -a with -s" 2 "-a runs every size from 2 up: no --size with it" "$RA" peer -a -s 64 127.0.0.1
expect "peer -a with -D" 2 "no -D with it" "$RA" peer --all -D 3 127.0.0.1
expect "peer -a with an atomic" 2 "-a: atomics work on 8 bytes only" "$RA" peer -a --op cmp-swap 127.0.0.1
expect "peer -a with --compat pingpong" 2 "not with --compat pingpong" "$RA" peer -a --compat pingpong 127.0.0.1
expect "peer -c UD (perftest's connection type)" 2 "$NL" "$RA" peer -c UD -p 1 127.0.0.1
expect "peer -c rc" 2 "$NL" "$RA" peer -c rc -p 1 127.0.0.1
expect "peer -c UD is UD (SEND only)" 2 "--transport ud carries SEND only" "$RA" peer -c UD --op write 127.0.0.1
expect "peer -c XRC" 2 "--transport wants rc, ud or uc, not 'xrc'" "$RA" peer -c XRC 127.0.0.1
expect "peer -c ADDR (the old --client) says where the address goes" 2 "-c is the connection type, as perftest's -c" \
	"$RA" peer -c 10.0.0.2
expect "peer -t ud still" 2 "$NL" "$RA" peer -t ud -p 1 127.0.0.1
expect "peer -R is --cm" 2 "--compat pingpong is the pingpong tools' TCP exchange; --cm" "$RA" peer -R --compat pingpong 127.0.0.1
expect "peer --client ADDR still" 2 "$NL" "$RA" peer --client 127.0.0.1 -p 1
expect "peer ADDR first, options after" 2 "$NL" "$RA" peer 127.0.0.1 -p 1 -s 64
expect "peer --client and the same address" 2 "$NL" "$RA" peer --client 127.0.0.1 -p 1 127.0.0.1
expect "peer --client and another address" 2 "two server addresses, --client 127.0.0.1 and 127.0.0.2: say one" \
	"$RA" peer --client 127.0.0.1 127.0.0.2
expect "peer --server and an address" 2 "--server waits for a client, but 127.0.0.1 is a server's address" \
	"$RA" peer --server 127.0.0.1
expect "peer --server and --client" 2 "--server and --client together: say one" "$RA" peer --server --client 127.0.0.1
expect "peer two addresses" 2 "unexpected argument '127.0.0.2': the one argument is the server's address" \
	"$RA" peer 127.0.0.1 127.0.0.2
expect "peer an address that is none" 2 "'nowhere' is not an IPv4 or IPv6 address" "$RA" peer -s 64 nowhere
expect "peer unknown option" 2 "unknown option '--frob' \(see rocelab peer --help\)" "$RA" peer --frob
expect "peer --help shows the perftest flags" 0 "-x, -g, --gid-index N" "$R" peer --help
# The knobs that make faults happen for real (issue 18): IBA's field widths, whose side each is.
expect "peer --rnr-retry 7 (for ever)" 2 "$NL" "$RA" peer --rnr-retry 7 --min-rnr-timer 31 -u 31 -p 1 127.0.0.1
expect "peer --rnr-retry 8: a 3-bit field" 2 "--rnr-retry wants 0..7, not '8'" "$RA" peer --rnr-retry 8 127.0.0.1
expect "peer --min-rnr-timer 32: a 5-bit code" 2 "--min-rnr-timer wants 0..31, not '32'" \
	"$RA" peer --min-rnr-timer 32 127.0.0.1
expect "peer -u 32: a 5-bit exponent" 2 "--qp-timeout wants 0..31, not '32'" "$RA" peer -u 32 127.0.0.1
expect "peer --qp-timeout not a number" 2 "--qp-timeout wants 0..31, not 'x'" "$RA" peer --qp-timeout x 127.0.0.1
expect "peer --no-recv on the client" 2 "--no-recv and --recv-delay are the server's" "$RA" peer --no-recv 127.0.0.1
expect "peer --recv-delay over UD" 2 "UD drop it without a word" "$RA" peer --recv-delay 5 -t ud --timeout 1
expect "peer --recv-delay 0" 2 "--recv-delay wants 1..60000, not '0'" "$RA" peer --recv-delay 0
expect "peer --no-recv with --recv-delay" 2 "say one of them" "$RA" peer --no-recv --recv-delay 5
# Congestion control (issue 23): --cc, --rate (Gb/s, decimal), --cnp-interval (us), each refused clearly.
expect "peer --rate 0" 2 "--rate needs Gbit/s from 0.001 to 400 \\(0.5 is 500 Mb/s\\), not '0'" "$RA" peer --rate 0 127.0.0.1
expect "peer --rate abc" 2 "--rate needs Gbit/s from 0.001 to 400 \\(0.5 is 500 Mb/s\\), not 'abc'" \
	"$RA" peer --rate abc 127.0.0.1
expect "peer --rate 0.5x" 2 "--rate needs Gbit/s .* not '0.5x'" "$RA" peer --rate 0.5x 127.0.0.1
expect "peer --cc bogus" 2 "--cc wants none or dcqcn, not 'bogus'" "$RA" peer --cc bogus 127.0.0.1
expect "peer --cnp-interval 0" 2 "--cnp-interval wants 1..1000000, not '0'" "$RA" peer --cnp-interval 0
expect "peer --cnp-interval -5" 2 "--cnp-interval wants 1..1000000, not '-5'" "$RA" peer --cnp-interval -5
expect "peer --cnp-interval 1000001" 2 "--cnp-interval wants 1..1000000, not '1000001'" \
	"$RA" peer --cnp-interval 1000001
expect "peer --cc dcqcn -t ud" 2 "--cc dcqcn needs a connected QP \\(RC or UC\\)" "$RA" peer --cc dcqcn -t ud 127.0.0.1
expect "peer --cc dcqcn --rate under DCQCN's floor" 2 "under DCQCN's floor \\(rpg_min_rate, 10 Mb/s\\)" \
	"$RA" peer --cc dcqcn --rate 0.005 127.0.0.1
expect "peer --help documents --cc, --rate, --cnp-interval" 0 "min_time_between_cnps" "$R" peer --help
expect "peer -Q 0" 2 "--cq-mod wants 1..1024, not '0'" "$RA" peer -Q 0 127.0.0.1
expect "peer -Q past the window" 2 "-Q 32 is more than --window 16" "$RA" peer -Q 32 127.0.0.1
expect "peer -Q 4" 2 "$NL" "$RA" peer -Q 4 --show-wc -p 1 127.0.0.1
expect "peer -Q with pingpong" 2 "not with pingpong, atomics .* or -D" "$RA" peer -Q 2 --op pingpong 127.0.0.1
expect "peer -Q on the server" 2 "not on the server" "$RA" peer -Q 2
expect "peer --va-offset with a SEND" 2 "a SEND carries no R_Key or address" "$RA" peer --va-offset 64 --op send 127.0.0.1
expect "peer --va-offset with --bad-va" 2 "--bad-va is --va-offset 1048576: say one" \
	"$RA" peer --va-offset 64 --bad-va 127.0.0.1
expect "peer --help shows the RNR knobs" 0 "--min-rnr-timer N" "$R" peer --help
expect "peer --drop-request 3 on the server" 2 "no client came within 1 s" "$RA" peer --drop-request 3 -p 45733 --timeout 1
expect "peer --drop-request on the client" 2 "--drop-request is the server's" "$RA" peer --drop-request 3 127.0.0.1
expect "peer --bad-at 2 with --bad-rkey" 2 "$NL" "$RA" peer --bad-rkey --bad-at 2 -p 1 127.0.0.1
expect "peer --bad-at without a mistake to place" 2 "--bad-at says which work request aims wrong: with --bad-rkey" \
	"$RA" peer --bad-at 2 127.0.0.1
expect "peer --drop-request 0" 2 "--drop-request wants 1..[0-9]+, not '0'" "$RA" peer --drop-request 0
# No address: the server, as perftest's; it waits for a client until --timeout.
expect "peer without an address is the server" 2 "no client came within 1 s \(--timeout\)" \
	"$RA" peer -s 64 -p 45731 --timeout 1
# peer --compat ib_*: perftest's flags; a usage error is refused before any socket, status 2.
expect "peer --compat ib_read_bw -c UC" 2 "ib_read_bw: -c UC has no RDMA READ" "$RA" peer --compat ib_read_bw -c UC
expect "peer --compat ib_send_bw -c XRC" 2 "-c wants RC, UC or UD" "$RA" peer --compat ib_send_bw -c XRC
expect "peer --compat ib_read_bw -c UD" 2 "ib_read_bw: -c UD carries SEND only" "$RA" peer --compat ib_read_bw -c UD
expect "peer --compat ib_atomic_bw -s 16" 2 "ib_atomic_bw works on 8 bytes" "$RA" peer --compat ib_atomic_bw -s 16
expect "peer --compat ib_write_lat -n 2" 2 "-n wants 5..100000000" "$RA" peer --compat ib_write_lat -n 2
expect "peer --compat ib_send_bw -D 0" 2 "-D wants 1..86400" "$RA" peer --compat ib_send_bw -D 0
expect "peer --compat ib_send_bw -D 2 -a" 2 "Duration mode currently doesn't support running on all sizes" \
	"$RA" peer --compat ib_send_bw -D 2 -a
expect "peer --compat ib_atomic_bw -a" 2 "Message size cannot be changed for Atomic tests" "$RA" peer --compat ib_atomic_bw -a
# -q N: perftest's num_of_qps, its BW tools only; past the parser it goes on to connect ($NL).
expect "peer -q 2 says where -q N works" 2 "-q N works with --compat ib_send_bw, ib_write_bw, ib_read_bw or ib_atomic_bw" \
	"$RA" peer -q 2 127.0.0.1
expect "peer --compat ib_send_bw -q 4" 2 "$NL" "$RA" peer --compat ib_send_bw -q 4 -p 1 127.0.0.1
expect "peer --compat ib_read_bw -q 16384" 2 "$NL" "$RA" peer --compat ib_read_bw -q 16384 -p 1 127.0.0.1
expect "peer --compat ib_send_bw -c UD -q 2" 2 "$NL" "$RA" peer --compat ib_send_bw -c UD -q 2 -p 1 127.0.0.1
expect "peer --compat ib_write_bw -q 0" 2 "-q wants 1..16384, not '0'" "$RA" peer --compat ib_write_bw -q 0
expect "peer --compat ib_atomic_bw -q 16385" 2 "-q wants 1..16384, not '16385'" "$RA" peer --compat ib_atomic_bw -q 16385
for t in ib_send_lat ib_write_lat ib_read_lat; do
	expect "peer --compat $t -q 2: perftest's words" 2 "^ Multiple QPs only available on bw tests$" "$RA" peer --compat $t -q 2
done
expect "peer --compat ib_send_lat -q 1" 2 "$NL" "$RA" peer --compat ib_send_lat -q 1 -p 1 127.0.0.1
expect "peer --compat ib_send_bw -R -c UC" 2 "UC is not supported in librdmacm" "$RA" peer --compat ib_send_bw -R -c UC
# -R -c UD parses (SIDR for the test's QP); on lo the exchange's REQ meets this side's own CM: REJ 8, 10 times.
expect "peer --compat ib_send_lat -R -c UD" 2 "rejected 10 times: nobody listens at 127.0.0.1 port 1 \(REJ reason 8" \
	"$RA" peer --compat ib_send_lat -R -c UD -p 1 127.0.0.1
expect "peer --compat ib_send_bw with two addresses" 2 "unexpected argument '10.0.0.2'" \
	"$RA" peer --compat ib_send_bw 10.0.0.1 10.0.0.2
expect "peer --compat ib_send_bw -z" 2 "invalid option" "$RA" peer --compat ib_send_bw -z
expect "peer --compat ib_send_lat --help" 0 "--compat ib_send_bw, ib_write_bw, ib_read_bw" "$RA" peer --compat ib_send_lat --help
# rocelab peer: the pitfalls' flags are for the client's RDMA work requests only.
expect "peer --bad-rkey with SEND" 2 "a SEND carries no R_Key or address" "$RA" peer --client 10.0.0.1 --op send --bad-rkey
expect "peer --bad-va on the server" 2 "aim the client's RDMA WRITE, READ or atomics" "$RA" peer --server --bad-va
# rocelab gids: usage and errors.
expect "gids --help" 0 "usage: rocelab gids \\[IF\\]" "$R" gids --help
expect "gids of an interface that is not there" 1 "rocelab gids: no interface 'nosuch0' here \\('ip -br link' lists them\\)" "$RA" gids nosuch0
expect "gids of a name too long for an interface" 1 "no interface 'abcdefghijklmnopqrstuvwxyz' here" "$RA" gids abcdefghijklmnopqrstuvwxyz
expect "gids of two interfaces" 2 "one interface at most, not 2" "$RA" gids lo lo
expect "gids with an unknown option" 2 "Try 'rocelab gids --help'" "$RA" gids --frob
# The table against what the interface says, read here from sysfs and ip, not from rocelab: index 0 is
# fe80:: and the modified EUI-64 of the MAC (RFC 4291 2.5.1), the IPv4 addresses follow as ::ffff:a.b.c.d,
# every row RoCE v2 (rxe has no v1 entries); the columns are show_gids'.
eui64() {   # MAC -> the GID's last 8 bytes as sysfs writes them
	set -- $(echo "$1" | tr : ' ')
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x$1 ^ 2)) "$2" "$3" "$4" "$5" "$6"
}
gids_check() {   # IF
	"$RA" gids "$1" >"$T/gids" 2>"$T/err" || { bad "gids $1: exit $?"; return; }
	want0="-	1	0	fe80:0000:0000:0000:$(eui64 "$(cat "/sys/class/net/$1/address")")			v2	$1"
	i=1
	for a in $(ip -4 -o addr show dev "$1" | awk '{ sub(/\/.*/, "", $4); print $4 }'); do
		set -- "$1" $(echo "$a" | tr . ' ')
		printf -- '-\t1\t%d\t0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\t%s \tv2\t%s\n' $i "$2" "$3" "$4" "$5" "$a" "$1"
		i=$((i + 1))
		set -- "$1"
	done >"$T/want4"
	if [ "$(sed -n 1p "$T/gids")" != "$(printf 'DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4 \t\tVER\tDEV')" ]; then bad "gids $1: show_gids' header"
	elif [ "$(sed -n 3p "$T/gids")" != "$want0" ]; then echo "     $(sed -n 3p "$T/gids") / $want0" >"$T/err"; bad "gids $1: index 0, the default GID"
	elif ! sed -n "4,$((3 + i - 1))p" "$T/gids" | cmp -s - "$T/want4"; then sed -n 4,9p "$T/gids" >"$T/err"; bad "gids $1: the IPv4 rows"
	elif [ "$(tail -n 1 "$T/gids")" != "n_gids_found=$(($(wc -l <"$T/gids") - 3))" ]; then bad "gids $1: n_gids_found"
	else ok "gids $1: the default GID from the MAC, the IPv4 addresses mapped, v2 rows, show_gids' columns"; fi
}
if command -v ip >/dev/null; then
	gids_check lo
	up=$(ip -o link show up | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2; exit }')
	[ -n "$up" ] && [ -e "/sys/class/net/$up/address" ] && gids_check "$up"
	n=$("$R" gids | grep -c '^-	')
	all=0
	for i in $(ip -o link show up | awk -F': ' '$2 != "lo" { sub(/@.*/, "", $2); print $2 }'); do
		all=$((all + $("$R" gids "$i" 2>/dev/null | grep -c '^-	')))
	done
	if [ "$n" = "$all" ] && ! "$R" gids | grep -q '	lo$'; then ok "gids without IF: every interface that is up but lo ($n rows)"
	else bad "gids without IF: $n rows, the interfaces one by one $all"; fi
fi
expect "gen bad --mtu" 2 "256, 512, 1024, 2048, 4096" "$RA" gen send --mtu 1000 -o "$T/x.pcap"
expect "gen bad --loss" 2 "rate from 0 to 0.5" "$RA" gen send --loss 2 -o "$T/x.pcap"
expect "gen bad --drop" 2 "frame numbers like 3 or 3,7,12" "$RA" gen send --drop 3,x -o "$T/x.pcap"
expect "gen bad --qpn-a" 2 "0 and 1 are special QPs" "$RA" gen send --qpn-a 1 -o "$T/x.pcap"
expect "gen bad --ip-a" 2 "not an IPv4 or IPv6 address" "$RA" gen send --ip-a 300.1.1.1 -o "$T/x.pcap"
expect "gen UD larger than the MTU" 2 "a UD message is one packet" "$RA" gen ud-send --size 5000 -o "$T/x.pcap"
# Lab 13's quiz draws how many datagrams ud-send makes; their bytes are checked with tshark below.
expect "gen ud-send --count 3" 0 "wrote 3 frames" "$RA" gen ud-send --count 3 --size 37 --qpn-a 5000 -o "$T/ud.pcap"
expect "gen ud-send --count too many" 2 "--count is 1 .. 64 UD SENDs here, not 65" "$RA" gen ud-send --count 65 -o "$T/x.pcap"
expect "rewrite without rules" 2 "nothing to change" "$RA" rewrite "$T/in.pcap" "$T/out.pcap"
expect "rewrite a missing file" 2 "cannot read" "$RA" rewrite "$T/missing.pcap" "$T/out.pcap" --rewrite psn:+1
expect "rewrite --help" 0 "usage: rocelab rewrite" "$R" rewrite --help
expect "replay --help" 0 "usage: rocelab replay" "$R" replay --help
# rocelab switch refuses what gen dcqcn refuses, and what no switch can be (tests/switch runs it for real).
expect "switch --help" 0 "usage: rocelab switch IFACE IFACE" "$R" switch --help
expect "switch --help: gen dcqcn's defaults" 0 "default 5, 200, 0.01: DCQCN's" "$R" switch --help
expect "switch with one interface" 2 "one interface is not a switch" "$RA" switch lo
expect "switch --kmin above --kmax" 2 "--kmin 300 KB is above --kmax 200 KB" "$RA" switch a b --kmin 300
expect "switch --queue below Kmax and two frames" 2 "holds less than --kmax and two full frames \\(203 KB\\)" \
	"$RA" switch a b --queue 201
expect "switch --rate 0" 2 "--rate needs Gbit/s from 0.001 to 1000 \\(0.5 is 500 Mb/s\\), not '0'" "$RA" switch a b --rate 0
expect "switch --rate ' 1'" 2 "--rate needs Gbit/s .* not ' 1'" "$RA" switch a b --rate ' 1'
expect "switch on an interface that is not there" 2 "no interface 'rl-nonesuch0' here" "$RA" switch rl-nonesuch0 lo
expect "gen --drop and --loss together" 0 "wrote" "$RA" gen write-bw --count 3 --size 4096 --drop 2,5 --loss 0.05 -o "$T/x.pcap"
# The knobs that labs 09 and 10 choose (issue 18); their effect is checked with tshark below.
expect "gen --drop-request 3" 0 "wrote" "$RA" gen write-bw --count 4 --size 2048 --window 4 --drop-request 3 -o "$T/dr.pcap"
expect "gen bad --drop-request" 2 "--drop-request needs a packet number from 1, not '0'" \
	"$RA" gen write-bw --drop-request 0 -o "$T/x.pcap"
expect "gen --min-rnr-timer 13 --rnr-retry 2" 0 "wrote" "$RA" gen rnr --min-rnr-timer 13 --rnr-retry 2 -o "$T/rnr.pcap"
expect "gen --min-rnr-timer 32: a 5-bit code" 2 "--min-rnr-timer needs a timer code from 0 to 31, not '32'" \
	"$RA" gen rnr --min-rnr-timer 32 -o "$T/x.pcap"
expect "gen --rnr-retry 8: a 3-bit count" 2 "--rnr-retry needs a count from 0 to 7, not '8'" \
	"$RA" gen rnr --rnr-retry 8 -o "$T/x.pcap"
expect "gen --bad-write 3 of 4" 0 "wrote" "$RA" gen access-error --count 4 --size 2500 --bad-write 3 -o "$T/bw.pcap"
expect "gen --bad-write past --count" 2 "--bad-write one of them: not 4 of 3" "$RA" gen range-error --count 3 --bad-write 4 -o "$T/x.pcap"
expect "gen --bad-write on another scenario" 2 "--bad-write means nothing to 'write': only access-error and range-error" \
	"$RA" gen write --bad-write 2 -o "$T/x.pcap"
expect "gen --rnr-retry on a crafted scenario" 2 "--rnr-retry means nothing to 'all-opcodes'" \
	"$RA" gen all-opcodes --rnr-retry 2 -o "$T/x.pcap"
# The scenarios the CM connects: each runs clean under the sanitizers; what they cannot do, they say.
expect "gen --list names the CM scenarios" 0 "cm-connect .*REQ/REP/RTU" "$R" gen --list
for sc in cm-connect cm-req-lost cm-mra cm-reject ud-sidr rping; do
	expect "gen $sc" 0 "wrote [0-9]+ frames of '$sc'" "$RA" gen "$sc" --ipv6 -o "$T/x.pcap"
done
expect "gen rping with --psn-a" 2 "the CM picks the starting PSNs" "$RA" gen rping --psn-a 5 -o "$T/x.pcap"
expect "gen cm-connect with too many messages" 2 "--count is at most 4096" "$RA" gen cm-connect --count 5000 -o "$T/x.pcap"
expect "gen ud-sidr larger than the MTU" 2 "a UD message is one packet" "$RA" gen ud-sidr --size 5000 -o "$T/x.pcap"
expect "gen rping larger than its buffers" 2 "at most 4096 bytes" "$RA" gen rping --size 5000 -o "$T/x.pcap"
expect "gen rping on a wire that loses half the frames" 2 "rping: the connection never carried the data through" \
	"$RA" gen rping --loss 0.5 --seed 9 -o "$T/x.pcap"

# ---- bad files --------------------------------------------------------------
expect "explain a missing file" 2 "cannot read $T/missing.pcap" "$RA" explain "$T/missing.pcap"
: >"$T/empty.pcap"
expect "explain an empty file" 2 "cannot read" "$RA" explain "$T/empty.pcap"
echo "this is not a capture file at all, just text" >"$T/text.pcap"
expect "explain a text file" 2 "cannot read" "$RA" explain "$T/text.pcap"
"$R" gen demo -o "$T/demo.pcap" 2>/dev/null
size=$(wc -c <"$T/demo.pcap")
head -c $((size - 30)) "$T/demo.pcap" >"$T/cut.pcap"
expect "explain a pcap cut mid-record" 1 "damaged after frame 15" "$RA" explain "$T/cut.pcap"
grep -q "^15 " "$T/out" && ok "frames before the damage are still printed" || bad "frames before the damage are still printed"
# An 802.11 capture (link type 105): a valid pcap rocelab cannot read.
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\151\000\000\000' >"$T/wifi.pcap"
expect "explain an unsupported link type" 2 "link type .*105.* not supported" "$RA" explain "$T/wifi.pcap"
# Every reader of captures (explain, replay, rewrite) goes through cli/capture.c.
expect "replay a capture that is not Ethernet" 2 "not an Ethernet capture \\(link type" "$RA" replay "$T/wifi.pcap" --iface lo
expect "rewrite a pcap cut mid-record" 1 "damaged after frame 15" "$RA" rewrite "$T/cut.pcap" "$T/out.pcap" --rewrite psn:+1
expect "rewrite reads standard input" 0 "16 frames, 16 RoCE packets rewritten" \
	sh -c "\"$RA\" rewrite - \"$T/out.pcap\" --rewrite psn:+1 <\"$T/demo.pcap\""
expect "rewrite says when the output could not be written" 2 "writing /dev/full failed" \
	"$RA" rewrite "$T/demo.pcap" /dev/full --rewrite psn:+1
"$R" rewrite "$T/demo.pcap" "$T/moved.pcap" --rewrite psn:+1 2>/dev/null
if command -v tshark >/dev/null; then
	tshark -r "$T/demo.pcap" -T fields -e frame.time_epoch >"$T/t1" 2>/dev/null
	tshark -r "$T/moved.pcap" -T fields -e frame.time_epoch >"$T/t2" 2>/dev/null
	if [ -s "$T/t1" ] && cmp -s "$T/t1" "$T/t2" && grep -q '[1-9]$' "$T/t1"; then
		ok "rewrite keeps each frame's time to the nanosecond"
	else bad "rewrite keeps each frame's time to the nanosecond"; fi
else
	bad "tshark not found: cannot check rewrite's times"
fi

# ---- the demo capture ---------------------------------------------------------
expect "explain demo" 0 "16 frames: 16 RoCE, 0 other" "$RA" explain "$T/demo.pcap"
expect "explain demo: RDMA WRITE First with its RETH" 0 \
	"RC RDMA WRITE First QP=0x000012 PSN=[0-9]+ va=0x7f0100030000 rkey=0x[0-9a-f]+ len=1500 payload=1024 ICRC ok" \
	"$R" explain "$T/demo.pcap"
expect "explain -v: fields with meanings" 0 "DMA length 1500 \\(bytes of the whole RDMA operation\\)" \
	"$RA" explain -v "$T/demo.pcap"
expect "explain --ladder draws the conversation" 0 "\\[1\\] +\\|<---- Acknowledge PSN [0-9]+ ACK" "$RA" explain --ladder "$T/demo.pcap"
"$R" gen request-loss -o "$T/loss.pcap" 2>/dev/null
expect "explain --ladder marks retransmissions" 0 "SEND Middle PSN [0-9]+ +---->\\|  RETRANSMISSION of 2" "$R" explain --ladder "$T/loss.pcap"
expect "explain marks the retransmission on its line" 0 "^6 .*RC SEND Middle .*\\[RETRANSMISSION of 2\\]" "$R" explain "$T/loss.pcap"
expect "explain -v explains the NAK" 0 "the requester goes back and resends from PSN" "$R" explain -v "$T/loss.pcap"
expect "explain -c 3 stops after 3 frames" 0 "^--- 3 frames" "$R" explain -c 3 "$T/demo.pcap"
expect "explain reads standard input" 0 "16 frames" sh -c "\"$R\" explain - < \"$T/demo.pcap\""
if command -v editcap >/dev/null; then
	# Cut inside the BTH (42 bytes of Ethernet, IP and UDP, then 12 of BTH): nothing to decode.
	editcap -s 50 "$T/demo.pcap" "$T/snap.pcap"
	expect "explain says when the capture's snap length cut a frame" 0 "^3 .*CUT BY THE CAPTURE: it kept 50 of [0-9]+ bytes" "$RA" explain "$T/snap.pcap"
else
	bad "editcap (wireshark-common) not found: cannot make a snapped capture"
fi
expect "explain --compare with one file" 2 "needs two capture files, not 1" "$RA" explain --compare "$T/demo.pcap"
expect "explain --compare with three files" 2 "needs two capture files, not 3" "$RA" explain --compare "$T/demo.pcap" "$T/demo.pcap" "$T/demo.pcap"
expect "explain --compare -v" 2 "no -v, --json, --ladder or --count" "$RA" explain --compare -v "$T/demo.pcap" "$T/loss.pcap"
expect "explain --compare a missing file" 2 "cannot read $T/missing.pcap" "$RA" explain --compare "$T/demo.pcap" "$T/missing.pcap"
expect "explain --compare a cut pcap" 1 "damaged after frame 15" "$RA" explain --compare "$T/cut.pcap" "$T/demo.pcap"
expect "explain --compare an unsupported link type" 2 "link type .*105.* not supported" "$RA" explain --compare "$T/demo.pcap" "$T/wifi.pcap"
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' >"$T/none.pcap"
expect "explain --compare a capture without RoCE" 0 "none.pcap has no RoCE packet to compare" "$RA" explain --compare "$T/demo.pcap" "$T/none.pcap"
expect "lab grade a capture without RoCE" 2 "none.pcap holds no RoCE frame to grade against" "$RA" lab grade 01 --capture "$T/none.pcap" --answers "$T/none.pcap"
expect "lab grade a capture of another link type" 2 "link type 105 is not one rocelab decodes" "$RA" lab grade 01 --capture "$T/wifi.pcap" --answers "$T/none.pcap"
printf '1: -0\n' >"$T/minus.txt"
expect "lab grade: a negative answer is not a number" 0 "'-0' is not a number" "$RA" lab grade 01 --capture "$T/demo.pcap" --answers "$T/minus.txt"
# An answer inside a comment is no answer, however long its line; only a file of answers is read.
pad=$(printf '%600s' '')
for k in 1 2a 2b 3 4a 4b; do echo "#$pad$k: 1"; done >"$T/comments.txt"
expect "lab grade: answers in long comment lines are not answers" 0 "score 01 questions 0/" "$RA" lab grade 01 --capture "$T/demo.pcap" --answers "$T/comments.txt"
grep -q "not answered" "$T/out" && ! grep -q -E ": (right|not 1;)" "$T/out" && ok "lab grade: every commented answer is 'not answered'" ||
	bad "lab grade: every commented answer is 'not answered'"
expect "lab grade --answers a directory" 2 "answers file $T is not a file \\(a directory\\)" "$RA" lab grade 01 --capture "$T/demo.pcap" --answers "$T"
expect "lab grade --answers /dev/zero ends" 2 "answers file /dev/zero is not a file" timeout 20 "$RA" lab grade 01 --capture "$T/demo.pcap" --answers /dev/zero
expect "explain --compare marks the resends and says why" 0 "Resent packets: A requester resends" "$RA" explain --compare "$T/demo.pcap" "$T/loss.pcap"
# A lab whose steps are all replays (a copy of lab 11 made one) leaves the kernel nothing to do.
cp -r "$(dirname "$0")/../../labs" "$T/replay-labs" && rm -rf "$T/replay-labs/out"
sed -i '/^step/,$ { /^\(server\|client\|fails\)/d; s/^step .*/&\nreplay   access-error/ }' "$T/replay-labs/11-access-errors/lab.def"
expect "lab run --real-rxe of a lab that only replays" 2 "lab 11 only replays frames made by rocelab gen" \
	env ROCELAB_LABS="$T/replay-labs" "$RA" lab run 11 --real-rxe
expect "realrxe --help names capture" 0 "capture \[--out DIR\]" "$RA" realrxe --help
"$R" gen demo -o "$T/demo2.pcap" 2>/dev/null
cmp -s "$T/demo.pcap" "$T/demo2.pcap" && ok "gen is byte-identical for the same arguments" ||
	bad "gen is byte-identical for the same arguments"
"$R" gen all-opcodes --seed 1 -o "$T/a1.pcap" 2>/dev/null
"$R" gen all-opcodes --seed 2 -o "$T/a2.pcap" 2>/dev/null
if [ -s "$T/a1.pcap" ] && [ -s "$T/a2.pcap" ] && ! cmp -s "$T/a1.pcap" "$T/a2.pcap"; then
	ok "a different seed gives different values"
else bad "a different seed gives different values"; fi
expect "gen --ipv6 --vlan" 0 "fd00::1 > fd00::2 RC SEND Only" sh -c \
	"\"$R\" gen demo --ipv6 --vlan 7 -o \"$T/v6.pcap\" && \"$R\" explain \"$T/v6.pcap\""
expect "gen all-opcodes --vlan tags each frame once" 0 " [0-9]+ RoCE, 0 other" sh -c \
	"\"$R\" gen all-opcodes --vlan 5 -o \"$T/av.pcap\" && \"$R\" explain \"$T/av.pcap\""
expect "explain -v shows the VLAN" 0 "802.1Q VLAN 7 priority 3" "$R" explain -v "$T/v6.pcap"

# ---- CM MADs on QP1: decoded from the payload of a UD SEND Only --------------------
"$R" gen cm-messages -o "$T/cm.pcap" 2>/dev/null
expect "gen --list names cm-messages" 0 "cm-messages" "$R" gen --list
expect "explain: a REQ says where rdma_cm connects" 0 \
	"payload=256: CM REQ \\(ConnectRequest\\) comm ID 0x1a2b3c4d QPN 0x000011 PSN [0-9]+ rdma_cm connect to 192.168.100.2 port 7174 \\(rping's default\\) ICRC ok" \
	"$RA" explain "$T/cm.pcap"
expect "explain: a REJ gives its reason in words" 0 "CM REJ \\(ConnectReject\\) .* reason 28: consumer reject" \
	"$RA" explain "$T/cm.pcap"
expect "explain: all twelve CM frames, no ICRC failure" 0 "12 RoCE, 0 other .* 0 malformed, 0 ICRC failures" \
	"$RA" explain "$T/cm.pcap"
expect "explain -v: every CM field, the rdma_cm header" 0 \
	"rdma_cm   RDMA_PS_TCP port 7174: from 192.168.100.1 port 40391 to 192.168.100.2" "$RA" explain -v "$T/cm.pcap"
expect "explain -v: SIDR_REP's Q_Key" 0 "Q_Key 0x01234567" "$RA" explain -v "$T/cm.pcap"
expect "explain --json: the REJ reason" 0 '"reason":28,"reason_text":"consumer reject"' "$RA" explain --json "$T/cm.pcap"
expect "explain --json: the REQ's GIDs" 0 '"primary_remote_gid":"::ffff:192.168.100.2"' "$RA" explain --json "$T/cm.pcap"
# The analyzer's CM links in -v and the ladder, on the real kernel's rping (tests/fixtures/rxe/README.md:
# REQ in frame 3 with PSN 11564567, REP in frame 5, RTU in 6; the passive side's first request is frame 9).
RPING="$(dirname "$0")/../fixtures/rxe/rping.pcap"
expect "explain -v: the RTU establishes the connection" 0 "CM: answers the REP of frame 5, 11.8 ms later" \
	"$RA" explain -v "$RPING"
expect "explain -v: the REQ set the passive side's first PSN" 0 \
	"CM: the REQ of frame 3 set QP 0x11's first PSN to 11564567: it matches" "$RA" explain -v "$RPING"
expect "explain --ladder: CM messages by name, linked" 0 "^ +5 +0\.060177 +\[2\] CM REP +---->\| +answers REQ of 3" \
	"$RA" explain --ladder "$RPING"

# ---- every malformation gets its own name --------------------------------------
"$R" gen malformed -o "$T/bad.pcap" 2>/dev/null
"$RA" explain --json "$T/bad.pcap" >"$T/bad.json" 2>"$T/bad.sum"
for st in ok truncated-bth udp-length bad-tver bad-pad missing-header icrc-mismatch unknown-opcode; do
	grep -q "\"status\":\"$st\"" "$T/bad.json" && ok "malformed: status $st reported" ||
		bad "malformed: status $st reported"
done
grep -q "9 frames: 8 RoCE, 1 other (skipped); 5 malformed, 1 ICRC failures, 1 unknown opcodes" "$T/bad.sum" &&
	ok "malformed: summary counts" || { cp "$T/bad.sum" "$T/err"; bad "malformed: summary counts"; }
expect "malformed: one line each, with a reason" 0 \
	"MALFORMED udp-length: the UDP length disagrees with the IP length: UDP says [0-9]+ bytes, IP says [0-9]+" \
	"$RA" explain "$T/bad.pcap"
expect "malformed: ICRC failure names the expected value" 0 "ICRC BAD \\(expected 0x[0-9a-f]{8}, got 0x[0-9a-f]{8}\\)" \
	"$RA" explain "$T/bad.pcap"

# ---- other framings: tcpdump -i any (SLL, SLL2), raw IP, pcapng ------------------
"$R" explain --json "$T/demo.pcap" 2>/dev/null | sed 's/.*"bth"://' >"$T/eth.bth"
for k in raw sll sll2; do
	python3 "$(dirname "$0")/relink.py" "$T/demo.pcap" "$T/$k.pcap" "$k"
	"$RA" explain --json "$T/$k.pcap" 2>/dev/null | sed 's/.*"bth"://' >"$T/$k.bth"
	if [ -s "$T/$k.bth" ] && [ "$(wc -l <"$T/$k.bth")" -eq 16 ] && cmp -s "$T/eth.bth" "$T/$k.bth"; then
		ok "link type $k decodes like Ethernet"
	else
		bad "link type $k decodes like Ethernet"
	fi
done
if command -v editcap >/dev/null 2>&1; then
	editcap -F pcapng "$T/demo.pcap" "$T/demo.pcapng"
	"$R" explain "$T/demo.pcap" | sed 's/^[0-9]* [0-9.]* //' >"$T/a.txt"
	"$RA" explain "$T/demo.pcapng" | sed 's/^[0-9]* [0-9.]* //' >"$T/b.txt"
	cmp -s "$T/a.txt" "$T/b.txt" && ok "pcapng reads like pcap" || bad "pcapng reads like pcap"
fi

# ---- tcpdump's and tshark's habits: -r -n -V -T -x -l -t, a capture filter, --qp --host --op ------
. "$(dirname "$0")/../lib/tshark.sh"
# gen --drop-request 3: the third request packet is lost, so the NAK names its PSN, the first's + 2 (IBA
# 9.7.5.2.1). gen rnr --min-rnr-timer 13 --rnr-retry 2: RNR NAK syndrome 0x2d (0x20 | 13, IBA Table 43),
# the SEND sent three times in all (once, then two retries) and the third NAK the last frame.
if command -v tshark >/dev/null; then
	psns=$(run_tshark -r - -Y 'infiniband.bth.opcode != 17' -T fields -e infiniband.bth.psn <"$T/dr.pcap" 2>/dev/null | head -n 1)
	nak=$(run_tshark -r - -Y 'infiniband.aeth.syndrome == 0x60' -T fields -e infiniband.bth.psn <"$T/dr.pcap" 2>/dev/null)
	[ -n "$psns" ] && [ "$nak" = $((psns + 2)) ] && ok "gen --drop-request 3: tshark's NAK PSN is the first request's + 2" ||
		bad "gen --drop-request 3: first PSN '$psns', NAK PSN(s) '$nak'"
	# gen access-error --count 4 --size 2500 --bad-write 3: the third WRITE First carries the odd R_Key, and
	# the remote access error NAK (0x62, IBA Table 44) names that packet's PSN.
	bw=$(run_tshark -r - -Y 'infiniband.bth.opcode == 6' -T fields -e infiniband.bth.psn -e infiniband.reth.r_key <"$T/bw.pcap" 2>/dev/null | sed -n 3p)
	nak=$(run_tshark -r - -Y 'infiniband.aeth.syndrome == 0x62' -T fields -e infiniband.bth.psn <"$T/bw.pcap" 2>/dev/null)
	first=$(run_tshark -r - -Y 'infiniband.bth.opcode == 6' -T fields -e infiniband.reth.r_key <"$T/bw.pcap" 2>/dev/null | head -n 1)
	[ -n "$nak" ] && [ "${bw%%	*}" = "$nak" ] && [ "${bw#*	}" != "$first" ] &&
		ok "gen --bad-write 3: tshark's NAK names the third WRITE, the one with another R_Key" ||
		bad "gen --bad-write 3: third WRITE '$bw', NAK PSN '$nak', first R_Key '$first'"
	# gen ud-send --count 3 --size 37 --qpn-a 5000: three UD SEND Only (opcode 100, IBA Table 38), each
	# 37 bytes and a pad of 3, the DETH's source QP 5000 (0x1388).
	ud=$(run_tshark -r - -T fields -e infiniband.bth.opcode -e infiniband.bth.padcnt -e infiniband.deth.srcqp \
		<"$T/ud.pcap" 2>/dev/null | tr '\t\n' ', ')
	[ "$ud" = "100,3,0x00001388 100,3,0x00001388 100,3,0x00001388 " ] &&
		ok "gen ud-send --count 3: tshark reads three UD SENDs, pad 3, source QP 0x1388" ||
		bad "gen ud-send --count 3: tshark reads '$ud'"
	rnr=$(run_tshark -r - -T fields -e infiniband.bth.opcode -e infiniband.aeth.syndrome <"$T/rnr.pcap" 2>/dev/null | tr '\t\n' ', ')
	[ "$rnr" = "4, 17,45 4, 17,45 4, 17,45 " ] && ok "gen --min-rnr-timer 13 --rnr-retry 2: three SENDs, three RNR NAKs of 0x2d" ||
		bad "gen rnr --min-rnr-timer 13 --rnr-retry 2: tshark reads '$rnr'"
fi
expect "explain -r FILE" 0 "^--- 16 frames: 16 RoCE" "$RA" explain -r "$T/demo.pcap"
expect "explain -n is accepted" 0 "^--- 16 frames: 16 RoCE" "$RA" explain -n "$T/demo.pcap"
"$R" explain -v "$T/demo.pcap" >"$T/v.txt" 2>&1
"$RA" explain -V "$T/demo.pcap" >"$T/vv.txt" 2>&1
[ -s "$T/v.txt" ] && cmp -s "$T/v.txt" "$T/vv.txt" && ok "explain -V is -v" || bad "explain -V is -v"
"$R" explain --json "$T/demo.pcap" >"$T/j1" 2>/dev/null
"$RA" explain -T json "$T/demo.pcap" >"$T/j2" 2>/dev/null
[ -s "$T/j1" ] && cmp -s "$T/j1" "$T/j2" && ok "explain -T json is --json" || bad "explain -T json is --json"
expect "explain -T ek: tshark's bulk action line" 0 '^\{"index":\{"_index":"packets-2023-11-14","_type":"doc"\}\}$' \
	env TZ=UTC "$RA" explain -T ek "$T/demo.pcap"
expect "explain -T with an unknown format" 2 "rocelab explain: -T wants json or ek, not 'pdml'" "$RA" explain -T pdml "$T/demo.pcap"
expect "explain -t with an unknown format" 2 "-t wants r, d, dd, a, ad, e, u or ud, not 'x'" "$RA" explain -t x "$T/demo.pcap"
expect "explain -l prints the same" 0 "^16 .*RC Acknowledge .*\\[answers 15 " "$RA" explain -l "$T/demo.pcap"
# Progress on a terminal (stderr a tty, stdout not): from the reader thread's position, growing.
"$R" gen write-bw --count 70000 --size 1024 -o "$T/big.pcap" >/dev/null 2>&1
script -qc "'$R' explain '$T/big.pcap' >/dev/null" /dev/null | tr '\r' '\n' | grep -a '^rocelab explain: ' >"$T/prog.txt"
awk '{ sub("%", "", $3); if ($3 + 0 <= last || $3 + 0 > 100) bad = 1; last = $3 + 0; n++ } END { exit !(n == 2 && !bad) }' "$T/prog.txt" &&
	ok "explain on a terminal: progress from the reader thread, 2 lines growing" ||
	bad "explain on a terminal: progress from the reader thread, 2 lines growing ($(tr '\n' '|' <"$T/prog.txt"))"
rm -f "$T/big.pcap"
# A file is read and decoded on a second thread; -l and a pipe read frame by frame. Same bytes, on a
# capture of several of the reader's blocks with losses the analyzer follows, in each mode and filtered.
"$R" gen send-bw --count 1500 --size 64 --loss 0.01 --seed 3 -o "$T/many.pcap" >/dev/null 2>&1
for m in "" "-v" "--json" "--ladder" "-x" "filter"; do
	f=; [ "$m" = filter ] && m= && f="greater 100"
	"$R" explain $m "$T/many.pcap" $f >"$T/thr.txt" 2>&1
	"$R" explain -l $m "$T/many.pcap" $f >"$T/one.txt" 2>&1
	cat "$T/many.pcap" | "$RA" explain $m - $f >"$T/pipe.txt" 2>&1
	m=${m:-${f:+filter $f}}
	[ "$(grep -c . "$T/thr.txt")" -gt 3000 ] && cmp -s "$T/thr.txt" "$T/one.txt" && cmp -s "$T/thr.txt" "$T/pipe.txt" &&
		ok "explain ${m:-(lines)}: a file read on a second thread prints what -l and a pipe print" ||
		bad "explain ${m:-(lines)}: a file read on a second thread prints what -l and a pipe print"
done
# --json's time_epoch: tshark's frame.time_epoch, to the nanosecond.
run_tshark -r - -T fields -e frame.time_epoch <"$T/demo.pcap" 2>/dev/null >"$T/epoch.tshark"
sed 's/.*"time_epoch":\([0-9.]*\),.*/\1/' "$T/j1" >"$T/epoch.ours"
[ -s "$T/epoch.tshark" ] && cmp -s "$T/epoch.tshark" "$T/epoch.ours" && ok "--json time_epoch is tshark's frame.time_epoch" ||
	bad "--json time_epoch is tshark's frame.time_epoch"
# -t: each format against tshark's own fields, rounded to the microsecond as explain shows them.
run_tshark -r - -T fields -e frame.time_epoch -e frame.time_relative -e frame.time_delta <"$T/loss.pcap" 2>/dev/null >"$T/times"
for t in r d e ad; do
	TZ=UTC "$RA" explain -q -t $t "$T/loss.pcap" >"$T/t.$t" 2>&1
	if /usr/bin/python3 - "$T/times" "$T/t.$t" $t <<'PY'
import sys, time
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
lines = open(sys.argv[2]).read().splitlines()
fmt = sys.argv[3]
def us(s):                     # "1700000000.000001043" -> microseconds, rounded half up
    a, b = s.split(".")
    return (int(a) * 10**9 + int(b.ljust(9, "0")) + 500) // 1000
def span(v):
    return "%d.%06d" % (v // 10**6, v % 10**6)
ok = len(rows) == len(lines) > 0
for (ep, rel, dl), ln in zip(rows, lines):
    no, shown = ln.split(" ")[0], ln.split(" ", 1)[1]
    if fmt == "r": want = span(us(rel))
    elif fmt == "d": want = span(us(dl))
    elif fmt == "e": want = span(us(ep))
    else: want = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(us(ep) // 10**6)) + ".%06d" % (us(ep) % 10**6)
    ok = ok and shown.startswith(want + " ")
sys.exit(0 if ok else 1)
PY
	then ok "explain -t $t agrees with tshark's times"; else bad "explain -t $t agrees with tshark's times"; fi
done
# -x: the bytes tcpdump -xx shows, frame by frame; and the ICRC's marks where IBA A17.3.3 puts them.
tcpdump -r "$T/demo.pcap" -xx 2>/dev/null >"$T/xx.tcpdump"
"$RA" explain -x -q "$T/demo.pcap" >"$T/xx.ours" 2>&1
if /usr/bin/python3 - "$T/xx.tcpdump" "$T/xx.ours" <<'PY'
import re, sys
theirs, cur = [], None
for ln in open(sys.argv[1]):
    m = re.match(r"\s+0x[0-9a-f]{4}:\s+((?:[0-9a-f]{2,4} ?)+)", ln)
    if m:
        cur += bytes.fromhex(m.group(1).replace(" ", ""))
    else:
        cur = bytearray(); theirs.append(cur)
ours, cur = [], None
for ln in open(sys.argv[2]):
    m = re.match(r"([0-9a-f]{4,})  ((?:[0-9a-f]{2} ?){1,16})", ln)
    if m and int(m.group(1), 16) == 0:
        cur = bytearray(); ours.append(cur)
    if m:
        cur += bytes.fromhex(m.group(2).replace(" ", ""))
sys.exit(0 if len(theirs) == 16 and [bytes(b) for b in theirs] == [bytes(b) for b in ours] else 1)
PY
then ok "explain -x shows the bytes tcpdump -xx shows, all 16 frames"; else bad "explain -x shows the bytes tcpdump -xx shows, all 16 frames"; fi
# Frame 1 (Ethernet, IPv4 without options): the marks under 0x0010 are TTL (byte 0x16) and the
# header checksum (0x18, 0x19); under 0x0020 the UDP checksum (0x28, 0x29) and BTH byte 4 (0x2e).
marks=$(sed -n '/^0010 /{n;p;q}' "$T/xx.ours")
marks2=$(sed -n '/^0020 /{n;p;q}' "$T/xx.ours")
[ "$marks" = "                        ^^    ^^ ^^" ] && [ "$marks2" = "                              ^^ ^^             ^^" ] &&
	ok "explain -x marks TTL, IP checksum, UDP checksum and BTH byte 4 as replaced by ones" ||
	bad "explain -x marks TTL, IP checksum, UDP checksum and BTH byte 4 as replaced by ones: '$marks' '$marks2'"
expect "explain -x marks the link layer and the ICRC" 0 "^      -- -- -- -- -- -- -- -- -- -- -- -- -- --    \\^\\^$" "$RA" explain -x -c 1 "$T/demo.pcap"
expect "explain -x has a legend" 0 "== the ICRC itself" "$RA" explain -x -c 1 "$T/demo.pcap"
# A capture filter, as tcpdump reads it: the same frames selected as tcpdump selects, counted in the summary.
for cap in "$T/loss.pcap" "$RPING" "$(dirname "$0")/../fixtures/rxe/ucmatose.pcap"; do
	for f in "ip src 10.77.0.2" "udp and greater 300" "not udp" "ip[8] = 64" "host 192.168.100.2" "arp or udp[8] = 17"; do
		want=$(tcpdump -r "$cap" $f 2>/dev/null | wc -l)
		got=$("$RA" explain "$cap" $f 2>&1 | sed -n 's/^--- [0-9]* frames, \([0-9]*\) shown.*/\1/p')
		[ "$got" = "$want" ] && ok "filter '$f' on $(basename "$cap"): $got frames, as tcpdump" ||
			bad "filter '$f' on $(basename "$cap"): $got frames, tcpdump $want"
	done
done
expect "a capture filter given with -r" 0 "^--- 16 frames, 7 shown: 7 RoCE" "$RA" explain -r "$T/demo.pcap" src host 192.168.100.2
expect "a bad capture filter: libpcap's message" 2 "capture filter 'udp port': .*syntax error" "$RA" explain "$T/demo.pcap" udp port
expect "two capture files are not a filter" 2 "one capture file at a time" "$RA" explain "$T/demo.pcap" "$T/loss.pcap"
# --qp: the QP's packets and the other end of its connection (demo: A's QP 0x11 sends to B's 0x12).
want=$(tcpdump -r "$T/demo.pcap" 'udp[12:4] & 0xffffff = 0x12 or udp[12:4] & 0xffffff = 0x11' 2>/dev/null | wc -l)
expect "--qp 0x12: both directions of its connection, $want frames as tcpdump finds them" 0 "^--- 16 frames, $want shown" \
	"$RA" explain --qp 0x12 "$T/demo.pcap"
expect "--qp 0x99: nothing" 0 "^--- 16 frames, 0 shown" "$RA" explain --qp 0x99 "$T/demo.pcap"
expect "--qp 2^24" 2 "--qp wants 0..16777215" "$RA" explain --qp 0x1000000 "$T/demo.pcap"
want=$(tcpdump -r "$RPING" 'udp port 4791 and host 10.77.0.3' 2>/dev/null | wc -l)
expect "--host: RoCE packets from or to it, $want as tcpdump" 0 "^--- [0-9]+ frames, $want shown" "$RA" explain --host 10.77.0.3 "$RPING"
expect "--host not an address" 2 "--host wants an IPv4 or IPv6 address, not 'nowhere'" "$RA" explain --host nowhere "$T/demo.pcap"
want=$(tcpdump -r "$T/demo.pcap" 'udp[8] <= 5' 2>/dev/null | wc -l)
expect "--op send: every SEND opcode ($want frames, as tcpdump's udp[8] <= 5)" 0 "^--- 16 frames, $want shown" "$RA" explain --op send "$T/demo.pcap"
want=$(tcpdump -r "$T/demo.pcap" 'udp[8] = 0' 2>/dev/null | wc -l)
expect "--op 'RC SEND First': that opcode only" 0 "^--- 16 frames, $want shown" "$RA" explain --op "RC SEND First" "$T/demo.pcap"
want=$(tcpdump -r "$T/demo.pcap" 'udp[8] = 4' 2>/dev/null | wc -l)
expect "--op 'RC SEND Only': not 'with Immediate'" 0 "^--- 16 frames, $want shown" "$RA" explain --op "RC SEND Only" "$T/demo.pcap"
expect "--op with no such opcode" 2 "--op 'ack' names no opcode" "$RA" explain --op ack "$T/demo.pcap"
expect "a hidden frame keeps its number, and the analysis still saw it" 0 "^2 .*RC Acknowledge .*\\[answers 1 after" \
	"$RA" explain --op Acknowledge "$T/demo.pcap"
expect "--compare with a filter" 2 "--compare reads two whole captures" "$RA" explain --compare --qp 3 "$T/demo.pcap" "$T/loss.pcap"
# docs/explain-json.md against the real output, both ways.
if /usr/bin/python3 "$(dirname "$0")/json_schema.py" "$R" "$(dirname "$0")/../../docs/explain-json.md" \
	"$(dirname "$0")"/../fixtures/rxe/*.pcap >"$T/schema" 2>&1; then
	ok "docs/explain-json.md documents every key of --json and -T ek, and nothing else"
else
	grep -v '^PASS' "$T/schema" >"$T/err"; bad "docs/explain-json.md documents every key of --json and -T ek, and nothing else"
fi
# The README's explain lines (the block after "as with tshark's `-Y`:"), run as written with rocelab on PATH.
mkdir -p "$T/readme/bin"
ln -s "$(cd "$(dirname "$RA")" && pwd)/$(basename "$RA")" "$T/readme/bin/rocelab"
awk '/as with tshark.s `-Y`:/ {f = 1; next} f && /^```sh/ {b = 1; next} b && /^```/ {exit} b' \
	"$(dirname "$0")/../../README.md" >"$T/readme/lines"
[ "$(grep -c '^rocelab explain' "$T/readme/lines")" -ge 6 ] && ok "README: the explain block is there" ||
	bad "README: the explain block is there"
while IFS= read -r line; do
	cmd=$(printf '%s\n' "${line%%#*}" | sed 's/ *$//')
	if (cd "$T/readme" && PATH="$T/readme/bin:$PATH" sh -c "$cmd" >"$T/readme/out" 2>"$T/readme/err") &&
		{ [ -s "$T/readme/out" ] || [ -s "$T/readme/err" ]; } &&
		! grep -q -E 'AddressSanitizer|runtime error' "$T/readme/err"; then
		ok "README runs: $cmd"
	else
		cp "$T/readme/err" "$T/err"; bad "README runs: $cmd"
	fi
done <"$T/readme/lines"
grep -q '"_index":"packets-' "$T/readme/demo.ndjson" && ok "README: -T ek wrote the bulk format" || bad "README: -T ek wrote the bulk format"
# The live line in the README's prose: its rocelab half, fed what tcpdump -w - writes.
live=$(grep -o '`tcpdump -i eth0 -U -w - [^`]*`' "$(dirname "$0")/../../README.md" | sed 's/^`.*| *//; s/`$//')
expect "README's live line: $live" 0 "^--- 16 frames: 16 RoCE" sh -c "cd \"$T/readme\" && PATH=\"$T/readme/bin:\$PATH\" $live <demo.pcap"
# Live: a FIFO and a pipe with a writer that pauses; SIGINT and SIGTERM mid-stream.
if /usr/bin/python3 "$(dirname "$0")/live.py" "$RA" "$T/demo.pcap" >"$T/live" 2>&1; then
	ok "live: $(tail -n 1 "$T/live")"
else
	grep -v '^PASS' "$T/live" >"$T/err"; bad "live: frames as they arrive, and the summary after a signal"
fi
# ---- issue 22: odd clocks, pace and rewrite rules (D10, D16, D17) --------------------------------
# A pcapng interface's if_tsoffset and 64-bit stamps: the time is tshark's where it fits (1000 s offset,
# stamp 1000001 us), and a second past 2^62 ns is held to that bound, not a multiply that overflowed.
PNG="$(dirname "$0")/pcapng_ts.py"
python3 "$PNG" "$T/demo.pcap" "$T/ts-ok.pcapng" 1000 1000001
expect "pcapng if_tsoffset: the time tshark shows" 0 "^1 1001\.000001 192\.168\.100\.1" "$RA" explain -t e "$T/ts-ok.pcapng"
python3 "$PNG" "$T/demo.pcap" "$T/ts-far.pcapng" 0x7000000000000000 0
expect "pcapng if_tsoffset past 2^63 ns: held, not overflowed" 0 "^1 4611686018\.427388 .*ICRC ok" "$RA" explain -t e "$T/ts-far.pcapng"
expect "pcapng 64-bit stamp and offset: --json" 0 '"time_epoch":-?4611686018\.427387904' "$RA" explain --json "$T/ts-far.pcapng"
# an offset of 2^63 - 2^32 s and a stamp of 2^64 - 1 us: held to 2^62 ns (2116), not wrapped below 1970;
# an offset of -(2^62 + 2^61 + 2^60) s: held to -2^62 ns (1823)
python3 "$PNG" "$T/demo.pcap" "$T/ts-wrap.pcapng" 0x7fffffff00000000 0xffffffffffffffff
expect "pcapng stamp far past 2^62 ns: held" 0 "^1 2116-02-20 23:53:38" "$RA" explain -t ud "$T/ts-wrap.pcapng"
python3 "$PNG" "$T/demo.pcap" "$T/ts-neg.pcapng" -0x7000000000000000 0
expect "pcapng offset far below 1970: held" 0 "^1 1823-11-12 " "$RA" explain -t ud "$T/ts-neg.pcapng"
expect "replay --speed 1e-308: refused, not sent at once" 2 "--speed needs a positive factor .*1e-06 .. 1e\+06" \
	"$RA" replay --speed 1e-308 --iface lo "$T/demo.pcap"
expect "replay --topspeed --pps: one pace" 2 "give one of them" "$RA" replay --topspeed --pps 10 --iface lo "$T/demo.pcap"
expect "replay --speed --topspeed: one pace" 2 "give one of them" "$RA" replay --speed 2 --topspeed --iface lo "$T/demo.pcap"
expect "rewrite psn:5 without a sign" 2 "psn: needs a shift like \+1000" "$RA" rewrite "$T/demo.pcap" "$T/rw.pcap" --rewrite psn:5
expect "rewrite qpn:X=0 (QP0 is the SMI)" 2 "cannot be 0 or 1" "$RA" rewrite "$T/demo.pcap" "$T/rw.pcap" --rewrite qpn:0x12=0
expect "rewrite qpn:X=1 (QP1 is the GSI)" 2 "cannot be 0 or 1" "$RA" rewrite "$T/demo.pcap" "$T/rw.pcap" --rewrite qpn:0x12=1
[ ! -e "$T/rw.pcap" ] && ok "a refused rule writes no output" || bad "a refused rule writes no output"
# ---- issue 22 D6: a frame cut after its headers is decoded, marked, and kept in the PSN analysis ------
if command -v editcap >/dev/null && command -v tshark >/dev/null; then
	editcap -s 100 "$T/demo.pcap" "$T/cut100.pcap"
	expect "snap length 100: the cut SEND First is decoded and marked" 0 \
		"^3 .* RC SEND First QP=0x000012 PSN=[0-9]+ payload=1024 \\[cut by the snap length: 100 of 1082 bytes kept, ICRC unknown\\]$" \
		"$RA" explain "$T/cut100.pcap"
	"$RA" explain "$T/cut100.pcap" >"$T/cut100.txt" 2>&1
	grep -q -E 'GAP|MALFORMED|ICRC BAD' "$T/cut100.txt" && { cp "$T/cut100.txt" "$T/err"; bad "snap length 100: no false GAP, nothing malformed or bad"; } ||
		ok "snap length 100: no false GAP, nothing malformed or bad"
	grep -q "0 malformed, 0 ICRC failures" "$T/cut100.txt" && grep -q "7 packets were cut by the capture's snap length after their headers" "$T/cut100.txt" &&
		ok "snap length 100: the summary counts 7 cut, 0 malformed" || { cp "$T/cut100.txt" "$T/err"; bad "snap length 100: the summary counts 7 cut, 0 malformed"; }
	# The oracle: tshark's InfiniBand dissector reads the same opcode, QP and PSN from the 100 bytes.
	tshark -r "$T/cut100.pcap" -T fields -e frame.number -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
		2>/dev/null >"$T/cut100.tshark"
	"$RA" explain --json "$T/cut100.pcap" 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    if line.startswith("{"):
        f = json.loads(line)
        b = f.get("bth")
        if b:
            print("%d\t%d\t0x%06x\t%d\t%s" % (f["frame"], b["opcode"], b["dqpn"], b["psn"], f["status"]))' >"$T/cut100.ours"
	if [ "$(grep -c 'cut$' "$T/cut100.ours")" -eq 7 ] && [ "$(cut -f 1-4 "$T/cut100.ours")" = "$(cat "$T/cut100.tshark")" ]; then
		ok "snap length 100: opcode, QP and PSN of all 16 frames as tshark reads them; 7 have status cut"
	else
		diff "$T/cut100.ours" "$T/cut100.tshark" >"$T/err"; bad "snap length 100: opcode, QP and PSN as tshark reads them"
	fi
	# --compare and lab grade decode as explain does: the 7 frames longer than 100 bytes (by tshark's
	# frame.len) have no ICRC to judge, and none is called bad.
	long=$(tshark -r "$T/cut100.pcap" -T fields -e frame.len 2>/dev/null | awk '$1 > 100' | wc -l)
	expect "snap length 100: --compare says the ICRC of the $long cut frames was not captured" 0 \
		"^\\* ICRC +good in every packet +not captured in $long of 16 \\(snap length\\), good in the rest" \
		"$RA" explain --compare "$T/demo.pcap" "$T/cut100.pcap"
	expect "snap length 100: -V says the ICRC was not captured" 0 "ICRC      not captured: the snap length cut the frame \\(100 of 1082 bytes kept\\)" \
		"$RA" explain -V "$T/cut100.pcap"
else
	bad "editcap or tshark (wireshark-common, tshark) not found: cannot check cut frames"
fi
# ---- gen: an option a scenario would not read is refused, not ignored -------------------------------
expect "gen all-opcodes --loss: refused, crafted packets have no wire" 2 "--loss means nothing to 'all-opcodes'" \
	"$R" gen all-opcodes --loss 0.1 -o "$T/x.pcap"
expect "gen fabric --rate=10: refused" 2 "^rocelab gen: --rate means nothing to 'fabric'" \
	"$R" gen fabric --rate=10 -o "$T/x.pcap"
expect "gen fabric --qpn-a: refused, its QPs come from --qps" 2 "numbered from --qps" \
	"$R" gen fabric --qpn-a 5 -o "$T/x.pcap"
expect "gen send --qps: refused, only fabric has many QPs" 2 "--qps means nothing to 'send'" \
	"$R" gen send --qps 5 -o "$T/x.pcap"
expect "gen fabric --qps 3 --count 4: 12 WRITEs and 3 ACKs" 0 "wrote 15 frames of 'fabric'" \
	"$R" gen fabric --qps 3 --count 4 -o "$T/x.pcap"
expect "gen fabric --size 2000 at MTU 1024: refused, a WRITE is one packet" 2 "does not fit one packet" \
	"$R" gen fabric --size 2000 -o "$T/x.pcap"
# ---- issue 22 D8: a READ response goes out as the transmit queue takes it -------------------------------
# 128 MiB: the two 128 MiB regions and a queue of 256 frames fit in 300 MB of address space. When the
# responder put all 131,072 response frames on the wire at once it needed 600 MB (and 8.6 GB for 1 GiB).
expect "gen read --size 128MiB in 300 MB of address space" 0 "wrote 131073 frames of 'read'" \
	sh -c "ulimit -v 300000 && exec \"$R\" gen read --size 134217728 -o /dev/null"
# ---- issue 22: gen's faults happen at any --size, or the size is refused (D5, D9, D15) ---------------
for n in 1 8 16 64; do
	rm -f "$T/range.pcap"
	timeout 60 "$RA" gen range-error --size $n -o "$T/range.pcap" >/dev/null 2>"$T/err"
	expect "gen range-error --size $n: the WRITE runs past the region" 0 "NAK remote access error" \
		"$R" explain "$T/range.pcap"
done
expect "gen range-error --size 16: three frames, not RNR forever" 0 "wrote 3 frames" \
	timeout 60 "$RA" gen range-error --size 16 -o "$T/range.pcap"
expect "gen request-loss --size 1000: refused (one packet)" 2 "needs a message of 2 packets or more: --size 1000 at --mtu 1024" \
	"$RA" gen request-loss --size 1000 -o "$T/f.pcap"
expect "gen lost-read-response --size 64: refused" 2 "second READ response packet needs a message of 2 packets" \
	"$RA" gen lost-read-response --size 64 -o "$T/f.pcap"
expect "gen icrc-corruption --size 100: refused" 2 "give --size 1025 or more" "$RA" gen icrc-corruption --size 100 -o "$T/f.pcap"
expect "gen reorder --size 2048: refused (two packets)" 2 "3 packets or more: --size 2048" "$RA" gen reorder --size 2048 -o "$T/f.pcap"
expect "gen request-loss --size 1000 --mtu 256: the loss is there" 0 "RETRANSMISSION|GAP" \
	sh -c "\"$RA\" gen request-loss --size 1000 --mtu 256 -o - | \"$R\" explain -"
# Half the frames lost: the QPs spend their retries and go to error, and the capture ends there
# (gen pingpong once reposted each flushed receive, which flushed again, for ever).
expect "gen pingpong --loss 0.5: ends when the retries run out" 0 "wrote [0-9]+ frames of 'pingpong'" \
	timeout 60 "$RA" gen pingpong --loss 0.5 --count 3 -o "$T/pp.pcap"
expect "gen reorder --size 2049: a packet overtaken" 0 "GAP: 1 missing" \
	sh -c "\"$RA\" gen reorder --size 2049 -o - | \"$R\" explain -"
expect "gen icrc-corruption --size 1025: the ICRC is bad" 0 "ICRC BAD|ICRC bad|1 ICRC failure" \
	sh -c "\"$RA\" gen icrc-corruption --size 1025 -o - | \"$R\" explain -"
expect "gen --size 0: refused, not the default" 2 "--size needs a byte count from 1 to 1 GiB, not '0'" \
	"$RA" gen demo --size 0 -o "$T/f.pcap"
[ ! -e "$T/f.pcap" ] && ok "gen: a refused size writes no file" || bad "gen: a refused size writes no file"
# ---- the files rocelab writes, write errors, help and --version of every command ----------------------
. "$(dirname "$0")/safety.sh"
# ---- exit statuses: usage 2, bad input 1, for every command -------------------------------------
. "$(dirname "$0")/conventions.sh"
# ---- a pcapng of several link types (mergecap, editcap) --------------------------------------------
. "$(dirname "$0")/mixed.sh"
# ---- explain --layout: header diagrams --------------------------------------------------------------
. "$(dirname "$0")/layout.sh"
# ---- explain --ladder --svg: a capture's sequence diagram -------------------------------------------
. "$(dirname "$0")/ladder.sh"
# ---- gen's congestion scenarios: a queue too small to mark before it drops is refused ---------------
expect "gen dcqcn with a queue that cannot mark before it drops" 2 "holds less than --kmax and two full frames" \
	"$RA" gen dcqcn --queue 16 --kmax 16 --kmin 4 -o "$T/cg.pcap"
[ ! -e "$T/cg.pcap" ] && ok "gen dcqcn refused: no capture" || bad "gen dcqcn refused: no capture"
# ---- gen's --count and --size: honoured, or refused with a reason, never ignored --------------------
. "$(dirname "$0")/genopts.sh"
# ---- explain on CNPs: per QP, what DCQCN should do, against tshark ---------------------------------
. "$(dirname "$0")/cnp.sh"
# ---- --dcqcn: DCQCN's parameters by mlx5's names, their effect by tshark ---------------------------
. "$(dirname "$0")/dcqcn_params.sh"
# ---- report: a capture as one HTML page -------------------------------------------------------------
. "$(dirname "$0")/report.sh"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
