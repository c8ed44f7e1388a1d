# Sourced by run.sh (its R, RA, T, expect, ok and bad): the files rocelab writes are replaced whole
# or not at all and never over their input; every failed write is an error; every command has its
# help through 'rocelab help CMD' and a --version; numbers are decimal or 0x hex.

sum() { sha256sum "$1" | cut -d' ' -f1; }

# check NAME CONDITION...: ok if the shell condition holds.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}

# No temporary file (.NAME.XXXXXX) left in directory $1.
no_leftovers() { [ -z "$(ls -A "$1" | grep '^\.')" ]; }

# ---- a full disk or a closed standard output is an error, for every command's text ----------------
for c in explain gen lab peer replay report rewrite switch; do
	expect "$c --help to a full disk" 2 "rocelab $c: (write error: No space left on device|cannot write the output)" \
		sh -c "\"$RA\" $c --help >/dev/full"
done
"$RA" realrxe --help >/dev/full 2>/dev/null
check "realrxe --help to a full disk (the script's own status)" [ $? -ne 0 ]
expect "rocelab --help to a full disk" 2 "^rocelab: write error: No space left on device" sh -c "\"$RA\" --help >/dev/full"
expect "rocelab --version to a full disk" 2 "^rocelab: write error: No space left on device" sh -c "\"$RA\" --version >/dev/full"
expect "rocelab help gen to a full disk" 2 "write error: No space left on device" sh -c "\"$RA\" help gen >/dev/full"
expect "gen --list to a full disk" 2 "rocelab gen: write error: No space left on device" sh -c "\"$RA\" gen --list >/dev/full"
expect "gen --version to a full disk" 2 "rocelab gen: write error: No space left on device" \
	sh -c "\"$RA\" gen --version >/dev/full"
expect "gen --help with standard output closed" 2 "rocelab gen: write error: Bad file descriptor" \
	sh -c "\"$RA\" gen --help >&-"
# The capture itself: the reason, not only the fact.
expect "gen -o /dev/full says why" 2 "rocelab gen: writing /dev/full failed: No space left on device" \
	"$RA" gen send -o /dev/full
expect "gen -o - to a full disk" 2 "rocelab gen: writing - failed: No space left on device" \
	sh -c "\"$RA\" gen send-bw --count 2000 --size 4096 -o - >/dev/full"
"$R" gen demo -o "$T/sf.pcap" 2>/dev/null
expect "rewrite to /dev/full says why" 2 "rocelab rewrite: writing /dev/full failed: No space left on device" \
	"$RA" rewrite "$T/sf.pcap" /dev/full --rewrite psn:+1
expect "rewrite to - on a full disk" 2 "rocelab rewrite: writing - failed: No space left on device" \
	sh -c "\"$RA\" rewrite \"$T/sf.pcap\" - --rewrite psn:+1 >/dev/full"

# ---- rocelab help CMD is CMD --help; CMD --version is rocelab --version -------------------------------
"$R" --version >"$T/v0"
for c in explain gen lab peer realrxe replay report rewrite switch; do
	"$RA" help "$c" >"$T/h1" 2>&1
	s1=$?
	"$RA" "$c" --help >"$T/h2" 2>&1
	s2=$?
	same=no
	[ $s1 -eq 0 ] && [ $s2 -eq 0 ] && grep -q "rocelab $c" "$T/h1" && cmp -s "$T/h1" "$T/h2" && same=yes
	check "rocelab help $c prints what $c --help prints" [ $same = yes ]
	expect "$c --version" 0 "^rocelab [0-9]+\.[0-9]+" "$RA" "$c" --version
	check "$c --version is rocelab --version" cmp -s "$T/out" "$T/v0"
done
expect "rocelab help alone is the usage" 0 "rocelab help COMMAND" "$RA" help
expect "rocelab help of a command that is not" 2 "unknown command 'frob'" "$RA" help frob
expect "rocelab help of two commands" 2 "one command at a time" "$RA" help gen explain
# Option errors in args.h's words, as every other command says them.
expect "rewrite --rewrite without a value" 2 "rocelab rewrite: option --rewrite needs a value" "$RA" rewrite a b --rewrite
expect "rewrite an unknown option" 2 "rocelab rewrite: unknown option '--frob' \(see rocelab rewrite --help\)" \
	"$RA" rewrite --frob a b

# ---- an output that is the input is refused, by whatever name ---------------------------------------
before=$(sum "$T/sf.pcap")
ln "$T/sf.pcap" "$T/sf-hard.pcap"
ln -s sf.pcap "$T/sf-sym.pcap"
expect "rewrite onto its input" 2 "rocelab rewrite: $T/sf.pcap is the input $T/sf.pcap" \
	"$RA" rewrite "$T/sf.pcap" "$T/sf.pcap" --rewrite psn:+1
expect "rewrite onto its input by another path" 2 "is the input" "$RA" rewrite "$T/sf.pcap" "$T/./sf.pcap" --rewrite psn:+1
expect "rewrite onto a hard link of its input" 2 "is the input" "$RA" rewrite "$T/sf.pcap" "$T/sf-hard.pcap" --rewrite psn:+1
expect "rewrite onto a symlink to its input" 2 "is the input" "$RA" rewrite "$T/sf.pcap" "$T/sf-sym.pcap" --rewrite psn:+1
expect "rewrite from a symlink onto its target" 2 "is the input" "$RA" rewrite "$T/sf-sym.pcap" "$T/sf.pcap" --rewrite psn:+1
expect "rewrite from standard input onto the same file" 2 "is the input -" \
	sh -c "\"$RA\" rewrite - \"$T/sf.pcap\" --rewrite psn:+1 <\"$T/sf.pcap\""
check "the input is intact after each refusal" [ "$(sum "$T/sf.pcap")" = "$before" ]
check "the symlink is still a symlink" [ -L "$T/sf-sym.pcap" ]
check "no temporary file left beside the input" no_leftovers "$T"
rm -f "$T/sf-hard.pcap" "$T/sf-sym.pcap"

# ---- an output is replaced whole, or stays as it was ----------------------------------------------
mkdir "$T/o"
echo "an older capture" >"$T/o/out.pcap"
old=$(sum "$T/o/out.pcap")
expect "rewrite of a damaged capture" 1 "damaged after frame 15" "$RA" rewrite "$T/cut.pcap" "$T/o/out.pcap" --rewrite psn:+1
check "a damaged input leaves the output as it was" [ "$(sum "$T/o/out.pcap")" = "$old" ]
expect "gen whose scenario fails" 2 "never carried the data through" "$RA" gen rping --loss 0.5 --seed 9 -o "$T/o/out.pcap"
check "a failed scenario leaves the output as it was" [ "$(sum "$T/o/out.pcap")" = "$old" ]
check "no temporary file left after the failures" no_leftovers "$T/o"
expect "rewrite into a missing directory" 2 "cannot write $T/no/such.pcap: No such file or directory" \
	"$RA" rewrite "$T/sf.pcap" "$T/no/such.pcap" --rewrite psn:+1
# A good run replaces it, keeping its permissions; a new file gets the umask's.
chmod 640 "$T/o/out.pcap"
expect "gen over an existing file" 0 "wrote 16 frames" "$RA" gen demo -o "$T/o/out.pcap"
check "the replaced file is the new capture" cmp -s "$T/o/out.pcap" "$T/sf.pcap"
check "the replaced file keeps its mode (640)" [ "$(stat -c %a "$T/o/out.pcap")" = 640 ]
if [ "$(id -u)" -eq 0 ] && chown nobody "$T/o/out.pcap" 2>/dev/null; then
	"$RA" gen demo -o "$T/o/out.pcap" 2>/dev/null
	check "the replaced file keeps its owner (root may set it)" [ "$(stat -c %U "$T/o/out.pcap")" = nobody ]
fi
(umask 022 && "$R" gen demo -o "$T/o/new.pcap" 2>/dev/null)
check "a new file gets the umask's mode (644)" [ "$(stat -c %a "$T/o/new.pcap")" = 644 ]
# Through a symlink: the file it points to is replaced, the link stays.
ln -s new.pcap "$T/o/link.pcap"
expect "rewrite onto a symlink to another file" 0 "16 RoCE packets rewritten" \
	"$RA" rewrite "$T/sf.pcap" "$T/o/link.pcap" --rewrite psn:+1
check "the symlink stays a symlink" [ -L "$T/o/link.pcap" ]
check "the file it points to holds the rewritten capture" sh -c "! cmp -s \"$T/o/new.pcap\" \"$T/sf.pcap\""
check "no temporary file left after the good runs" no_leftovers "$T/o"
# Not regular files: written directly (a FIFO, standard output), the same bytes as a file gets.
"$R" rewrite "$T/sf.pcap" "$T/o/file.pcap" --rewrite psn:+1 2>/dev/null
"$RA" rewrite "$T/sf.pcap" - --rewrite psn:+1 >"$T/o/stdout.pcap" 2>"$T/err"
check "rewrite to standard output writes what a file gets" cmp -s "$T/o/file.pcap" "$T/o/stdout.pcap"
mkfifo "$T/o/fifo"
cat "$T/o/fifo" >"$T/o/fromfifo.pcap" &
"$RA" rewrite "$T/sf.pcap" "$T/o/fifo" --rewrite psn:+1 2>"$T/err"
s=$?
wait
same=no
[ $s -eq 0 ] && cmp -s "$T/o/file.pcap" "$T/o/fromfifo.pcap" && same=yes
check "rewrite into a FIFO writes into it" [ $same = yes ]
check "the FIFO is still a FIFO" [ -p "$T/o/fifo" ]

# Killed half way (kill, Ctrl-C, a closed terminal): the old file stays and the temporary one goes.
# (A background job of sh ignores SIGINT; env --default-signal gives it back its default, as a terminal's job has.)
for sig in TERM INT HUP; do
	cp "$T/sf.pcap" "$T/o/big.pcap"
	env --default-signal=INT "$RA" gen send-bw --count 100000000 -o "$T/o/big.pcap" 2>/dev/null &
	pid=$!
	sleep 1
	kill -"$sig" "$pid"
	wait "$pid"
	s=$?
	check "gen killed by SIG$sig mid-write: it dies of it ($s)" [ $s -gt 128 ]
	check "gen killed by SIG$sig mid-write: the old file stays" cmp -s "$T/o/big.pcap" "$T/sf.pcap"
	check "gen killed by SIG$sig mid-write: no temporary file left" no_leftovers "$T/o"
done

# A folder where no file can be made (immutable: root cannot either), the file in it still writable:
# it cannot be replaced safely, so it is not touched, and the message names the folder.
mkdir "$T/ro"
cp "$T/sf.pcap" "$T/ro/out.pcap"
if chattr +i "$T/ro" 2>/dev/null; then
	expect "gen into a folder where no file can be made" 2 \
		"cannot write $T/ro/out.pcap: Operation not permitted in its folder $T/ro \(it is replaced by a new file made there\)" \
		"$RA" gen send -o "$T/ro/out.pcap"
	check "the file in that folder is untouched" cmp -s "$T/ro/out.pcap" "$T/sf.pcap"
	chattr -i "$T/ro"
else
	echo "skip a folder where no file can be made (needs chattr +i: root on ext4, xfs, btrfs)"
fi

# A full file system half way through (a small tmpfs in a mount namespace of our own; needs root).
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
	mkdir "$T/full"
	unshare -m sh -c 'mount -t tmpfs -o size=64k rocelab-test "$1" || exit 99
		cp "$2" "$1/out.pcap"
		"$3" gen send-bw --count 1000 --size 4096 -o "$1/out.pcap" 2>"$1/../full.err"
		echo "$?" >"$1/../full.status"
		sha256sum "$1/out.pcap" | cut -d" " -f1 >"$1/../full.sum"
		ls -A "$1" >"$1/../full.ls"' sh "$T/full" "$T/sf.pcap" "$RA"
	cp "$T/full.err" "$T/err"
	check "gen onto a full file system fails (2)" [ "$(cat "$T/full.status")" = 2 ]
	check "gen onto a full file system says why" grep -q "writing $T/full/out.pcap failed: No space left on device" "$T/full.err"
	check "gen onto a full file system leaves the old file as it was" [ "$(cat "$T/full.sum")" = "$before" ]
	check "gen onto a full file system leaves no temporary file" [ "$(cat "$T/full.ls")" = out.pcap ]
else
	echo "skip a full file system (needs root and unshare -m)"
fi

# ---- one IP version per wire ----------------------------------------------------------------------
expect "gen refuses an IPv4 and an IPv6 address" 2 "--ip-a 10.0.0.1 and --ip-b fd00::2 are not both IPv4 or both IPv6" \
	"$RA" gen send --ip-a 10.0.0.1 --ip-b fd00::2 -o "$T/o/mixed.pcap"
expect "gen refuses an IPv6 and an IPv4 address" 2 "not both IPv4 or both IPv6" \
	"$RA" gen send --ip-a fd00::1 --ip-b 10.0.0.2 -o "$T/o/mixed.pcap"
expect "gen refuses --ipv6 with an IPv4 address" 2 "--ip-b 10.0.0.2 is an IPv4 address, but --ipv6 asks for IPv6" \
	"$RA" gen send --ipv6 --ip-b 10.0.0.2 -o "$T/o/mixed.pcap"
check "nothing written when refused" [ ! -e "$T/o/mixed.pcap" ]
expect "gen: one IPv6 address makes the wire IPv6" 0 "wrote" "$RA" gen send --ip-a fd00::7 -o "$T/o/v6.pcap"
if command -v tshark >/dev/null; then
	tshark -r "$T/o/v6.pcap" -T fields -e ipv6.src -e ipv6.dst 2>/dev/null | head -n 1 >"$T/o/v6.txt"
	check "gen --ip-a fd00::7: A is fd00::7, B the IPv6 default (tshark)" [ "$(cat "$T/o/v6.txt")" = "fd00::7	fd00::2" ]
	# ---- numbers: decimal or 0x, never octal (frame 3 of send is the SEND of --size bytes) ----
	"$RA" gen send --size 010 -o "$T/o/size.pcap" 2>/dev/null
	"$RA" gen send --size 0xa -o "$T/o/sizex.pcap" 2>/dev/null
	# UDP length: 8 + BTH 12 + payload padded to 4 + ICRC 4: 36 for ten bytes, 32 for eight.
	check "gen --size 010 is ten bytes, not octal 8 (tshark)" \
		[ "$(tshark -r "$T/o/size.pcap" -Y frame.number==3 -T fields -e udp.length 2>/dev/null)" = 36 ]
	check "gen --size 0xa is ten bytes too" cmp -s "$T/o/size.pcap" "$T/o/sizex.pcap"
	"$RA" rewrite "$T/sf.pcap" "$T/o/qpn.pcap" --rewrite qpn:018=0x20 2>/dev/null
	check "rewrite qpn:018 is QP 18 (0x12), not octal (tshark)" \
		[ "$(tshark -r "$T/o/qpn.pcap" -Y frame.number==1 -T fields -e infiniband.bth.destqp 2>/dev/null)" = 0x000020 ]
else
	bad "tshark not found: cannot check gen's addresses and sizes"
fi
