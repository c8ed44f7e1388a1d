#!/bin/sh
# Lab 16's "On a real link" section, run as its guide writes it: each ```sh block of that section of
# labs/16-congestion/README.md in order, in a scratch folder with the rocelab under test first on
# PATH (the guides' command lists are the same in both languages: tests/labs/run.sh). A block of
# tshark and rocelab explain lines runs line by line, tshark as nobody, each to exit 0 with output;
# any other block runs whole under sh -e. Then the section's claims, against tshark (what the
# switch and the peers print is cross-checked, never the oracle):
#   --cc none:  the switch drops (its summary for sw-b), the receiver NAKs (AETH syndrome 0x60) and
#               gets requests twice (a flow's PSN again: go-back-N); no CE mark, no CNP.
#   --cc dcqcn: loss gone (<= 20 frames and <= 5% of none's, as tests/switch's two_flows.sh
#               bounds it), no NAK, resends <= 5% of none's (one run on a busy machine had 128,
#               with no drop and no NAK: a timeout, not go-back-N); CE marks at the receiver = the switch's marked; CNPs
#               leaving it = the servers' "CNPs out"; each flow within 10% of half the port's bytes.
# A run block where the switch or tcpdump said the kernel dropped frames before they were read (a
# loaded machine) runs again, at most twice; the --cc dcqcn block also once when it misses a bound. Namespaces rl16-*, the section's own: if one is there
# already it is somebody's, and this skips. Needs root (else it skips).
# Usage: switch16.sh ROCELAB
set -u
. "$(dirname "$0")/../lib/tshark.sh"    # run_tshark
R=${1:?usage: switch16.sh ROCELAB}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
GUIDE=$HERE/../../labs/16-congestion/README.md
NS="rl16-a rl16-b rl16-c rl16-sw"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
done_() { echo "switch16: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

if [ "$(id -u)" -ne 0 ]; then echo "SKIP lab 16 on a real link: needs root"; done_; fi
for n in $NS; do
    if [ -e "/run/netns/$n" ]; then echo "SKIP lab 16 on a real link: namespace $n is here already, somebody's"; done_; fi
done
T=$(mktemp -d)
chmod 755 "$T"
cleanup() {
    # Only in our own namespaces: what a block left running there (a client that failed under sh -e).
    for n in $NS; do
        for p in $(ip netns pids "$n" 2>/dev/null); do kill "$p" 2>/dev/null; done
        ip netns del "$n" 2>/dev/null
    done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/bin" && ln -s "$R" "$T/bin/rocelab"

awk -v dir="$T" '/^## On a real link/ { on = 1; next } on && /^## / { on = 0 }
    on && /^```sh/ { c = 1; n++; next } on && /^```/ { c = 0; next }
    on && c { print > (dir "/block." n) }' "$GUIDE"
nb=$(ls "$T"/block.* 2>/dev/null | wc -l)
[ "$nb" -ge 6 ] && pass "the guide's 'On a real link' section: $nb blocks of commands" || { fail "the section has $nb blocks, not 6 or more"; done_; }

# analysis N: true if block N is tshark and explain lines alone
analysis() { ! grep -q -v -E '^(tshark |rocelab explain )' "$T/block.$1"; }
# kernel_dropped FILE: the switch or tcpdump said the kernel dropped frames before they were read
kernel_dropped() { grep -q -E 'dropped by the kernel|^[1-9][0-9]* packets dropped by kernel' "$1"; }
# swfield OUT PORT FIELD: a number of the switch's summary line for PORT
swfield() { grep "^\[.*\] $2 *all" "$1" | sed -n "s/.*[ (]$3 \([0-9]*\).*/\1/p"; }
# whole OUT QPN FIELD: the sum of FIELD ("CNPs in", "out") over QPN's whole-run lines
whole() { grep "QP 0x0000$2 .*(the whole run)" "$1" | sed -n "s/.*CNPs in \([0-9]*\) out \([0-9]*\).*/\1 \2/p" |
          awk -v f="$3" '{ s += (f == "in" ? $1 : $2) } END { print s + 0 }'; }
# tsh PCAP FILTER: frames of PCAP that FILTER takes, by tshark as nobody
tsh() { run_tshark -r - -Y "$2" -T fields -e frame.number <"$1" 2>/dev/null | wc -l; }
# resent PCAP: requests received twice (a flow's PSN again)
resent() { run_tshark -r - -Y 'infiniband.bth.opcode <= 0x0b' -T fields -e ip.dst -e infiniband.bth.psn <"$1" 2>/dev/null |
           sort | uniq -d | wc -l; }

i=0
while [ $i -lt "$nb" ]; do
    i=$((i + 1))
    b=$T/block.$i
    if analysis $i; then
        k=0 why=
        while read -r c; do
            case $c in
            tshark*) (cd "$T" && runuser -u nobody -- bash -o pipefail -c "$c") ;;
            *) (cd "$T" && PATH=$T/bin:$PATH bash -o pipefail -c "$c") ;;
            esac >"$T/a.out" 2>"$T/a.err" </dev/null
            rc=$?
            if [ $rc -ne 0 ] || [ ! -s "$T/a.out" ]; then why="'$c': exit $rc, $(head -c 300 "$T/a.err")"; break; fi
            k=$((k + 1))
        done <"$b"
        [ -z "$why" ] && pass "block $i: the guide's $k tshark / explain lines run on its capture" || fail "block $i: $why"
        continue
    fi
    for attempt in 1 2 3; do
        (cd "$T" && PATH=$T/bin:$PATH timeout 120 sh -e "$b") >"$T/out.$i" 2>&1 </dev/null
        rc=$?
        kernel_dropped "$T/out.$i" || break
        echo "note: block $i: the kernel dropped frames before the switch or tcpdump read them (a loaded machine); again"
    done
    if [ $rc -ne 0 ]; then fail "block $i: exit $rc: $(tail -n 3 "$T/out.$i" | tr '\n' ' ')"; continue; fi
    cc=$(sed -n 's/.*rocelab peer --client .* --cc \([a-z]*\).*/\1/p' "$b" | head -n 1)
    pcap=$(sed -n 's/.* -w \([^ ]*\.pcap\) .*/\1/p' "$b" | head -n 1)
    if [ -z "$cc" ]; then pass "block $i: its $(wc -l <"$b") commands ran"; continue; fi
    pcap=$T/$pcap
    o=$T/out.$i
    if ! grep -q 'QP 0x000021 .*(the whole run)' "$o" || ! grep -q 'QP 0x000031 .*(the whole run)' "$o" ||
       kernel_dropped "$o"; then
        fail "block $i (--cc $cc): a client did not finish, or frames were dropped before they were read: $(tail -n 3 "$o" | tr '\n' ' ')"
        continue
    fi
    drops=$(swfield "$o" sw-b dropped) marked=$(swfield "$o" sw-b marked)
    naks=$(tsh "$pcap" 'infiniband.aeth.syndrome == 0x60') again=$(resent "$pcap")
    ce=$(tsh "$pcap" 'ip.dsfield.ecn == 3') cnps=$(tsh "$pcap" 'infiniband.bth.opcode == 129')
    echo "     --cc $cc: switch dropped ${drops:-?} marked ${marked:-?}; tshark: $naks NAKs, $again resent, $ce CE, $cnps CNPs"
    case $cc in
    none)
        n_drops=${drops:-0} n_again=$again
        if [ "${drops:-0}" -gt 0 ] && [ "$naks" -gt 0 ] && [ "$again" -gt 0 ] && [ "$ce" -eq 0 ] && [ "$cnps" -eq 0 ]; then
            pass "--cc none: the switch dropped $drops, the receiver sent $naks NAKs and got $again requests twice (go-back-N, tshark); no CE, no CNP"
        else fail "--cc none: dropped ${drops:-?}, $naks NAKs, $again resent, $ce CE, $cnps CNPs: expected loss, go-back-N, no marks"; fi ;;
    dcqcn)
        loss_ok=0 marks_ok=0
        if [ -n "${n_drops:-}" ] && [ "${drops:-99}" -le 20 ] && [ $((${drops:-99} * 100)) -le $((n_drops * 5)) ] &&
           [ "$naks" -eq 0 ] && [ $((again * 100)) -le $((n_again * 5)) ]; then loss_ok=1; fi
        out=$(($(whole "$o" 22 out) + $(whole "$o" 32 out)))
        if [ "$ce" -gt 0 ] && [ "$ce" = "$marked" ] && [ "$cnps" -gt 0 ] && [ "$cnps" -eq "$out" ]; then marks_ok=1; fi
        # Each flow's request bytes at the receiver over the steady part: 1 s after the first to 0.5 s before the last.
        sh=$(run_tshark -r - -Y 'infiniband.bth.opcode <= 0x0b' -T fields -e frame.time_epoch -e frame.len -e ip.dst \
                 <"$pcap" 2>/dev/null | awk 'NR == 1 { t0 = $1 } { t[NR] = $1; l[NR] = $2; d[NR] = $3 }
            END { for (i = 1; i <= NR; i++) if (t[i] >= t0 + 1 && t[i] < t[NR] - 0.5) b[d[i]] += l[i]
                  a = b["10.90.0.2"]; c = b["10.90.0.4"]; h = (a + c) / 2
                  ok = h > 0 && a >= 0.9 * h && a <= 1.1 * h && c >= 0.9 * h && c <= 1.1 * h
                  printf "%d %.1f %.1f\n", ok, a * 100 / (a + c + 1e-9), c * 100 / (a + c + 1e-9) }')
        # Six processes on a shared machine: a client held off the CPU can time out and resend, or fall
        # behind its share. Such a run is run once more before it counts.
        if [ $((loss_ok + marks_ok)) -lt 2 ] || [ "${sh%% *}" != 1 ]; then
            if [ -z "${dcqcn_again:-}" ]; then
                dcqcn_again=1
                echo "note: block $i (--cc dcqcn) missed a bound on this run (a loaded machine?); once more"
                i=$((i - 1))
                continue
            fi
        fi
        [ $loss_ok = 1 ] &&
            pass "--cc dcqcn: loss gone: $drops dropped (--cc none: $n_drops), no NAK, $again requests received twice (--cc none: $n_again)" ||
            fail "--cc dcqcn: $drops dropped, $naks NAKs, $again resent; --cc none ${n_drops:-?}, ${n_again:-?}: not <= 20 and <= 5%, no NAK"
        [ $marks_ok = 1 ] &&
            pass "--cc dcqcn: $ce CE marks at the receiver (tshark), as the switch counts; $cnps CNPs from it (tshark), as the servers count" ||
            fail "--cc dcqcn: $ce CE (switch: ${marked:-?}), $cnps CNPs (servers: $out)"
        [ "${sh%% *}" = 1 ] && pass "--cc dcqcn: each flow's share of the port's requests (tshark): ${sh#* } percent" ||
            fail "--cc dcqcn: shares ${sh#* } percent: not within 10% of half" ;;
    esac
done
left=
for n in $NS; do [ -e "/run/netns/$n" ] && left="$left $n"; done
[ -z "$left" ] && pass "the guide's last block takes every namespace down" || fail "namespaces left:$left"
done_
