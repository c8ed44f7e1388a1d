#!/bin/sh
# Every `rocelab gen` scenario: the story it tells (stories.py), tshark's
# built-in dissector agreeing with `rocelab explain --json` on every field
# (tests/oracle/compare_tshark.py), the same bytes from the same arguments,
# and a few golden files compared byte for byte. The scenarios that connect
# through the CM are also read by Wireshark's CM dissector (cm_tshark.py),
# field by field against ours (tests/oracle/compare_cm.py), and next to the
# real kernel's captures in tests/fixtures/rxe/.
# With SCAN_ROCELAB, the same rocelab built with the analyzer's reference lookup (`make scan-lookup`),
# explain's output on fabric captures must be the same from both.
# Usage: run.sh ROCELAB [SCAN_ROCELAB]     (set UPDATE_GOLDEN=1 to rewrite the golden files)
set -u
R=${1:?usage: run.sh ROCELAB [SCAN_ROCELAB]}
RS=${2:-}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
case $RS in /* | "") ;; *) RS=$(pwd)/$RS ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
. "$HERE/../lib/tshark.sh"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# checked, count_lines
. "$HERE/../lib/checks.sh"
. "$HERE/../lib/explain_same.sh"

# scenario name, then its gen options
SCENARIOS="send|
send-imm|
send-inv|
write|
write-imm|
read|
cmp-swap|
fetch-add|
ud-send|
uc-send|
demo|
pingpong|--count 3 --size 256
send-bw|--count 5 --size 4096
write-bw|--count 5 --size 4096
read-bw|--count 5 --size 4096
atomic-bw|--count 5
rping|--count 2
cm-connect|--count 3
cm-req-lost|--count 3
cm-mra|--count 3
cm-reject|
ud-sidr|--count 3
request-loss|
lost-ack|
lost-read-response|
rnr|
srq|
access-error|
range-error|
invalid-request|
icrc-corruption|
duplicate|
reorder|
psn-wrap|
ecn|
dcqcn|--count 40
incast|--count 40
fairness|--count 40"

"$R" gen all-opcodes -o "$T/probe.pcap" 2>/dev/null
TSHARK_OPTS=$(tshark_heuristic_opts "$T/probe.pcap")
FX="$HERE/../fixtures/rxe"

# cm_fields PCAP OUT.tsv CHECKER: the tshark fields CHECKER (cm_tshark.py, compare_cm.py) reads.
cm_fields() {
    # shellcheck disable=SC2046,SC2086  # one -e per field; TSHARK_OPTS is a list of words
    run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$3" --print-fields) \
        <"$1" >"$2" 2>/dev/null
}

# cm_checks LABEL SCENARIO PCAP JSONL [REAL.pcap [CM_TSHARK_OPTIONS]]: the CM story in tshark's
# fields (next to the real kernel's capture if given), and every CM field tshark decodes against
# rocelab's.
cm_checks() {
    set -- "$1" "$2" "$3" "$4" "${5:-}" "${6:-}"
    opts=$6
    if [ -n "$5" ]; then
        cm_fields "$5" "$T/cm.real.tsv" "$HERE/cm_tshark.py" || echo "FAIL $1: tshark could not read $5"
        opts="$opts --real $T/cm.real.tsv"
    fi
    if cm_fields "$3" "$T/cm.tsv" "$HERE/cm_tshark.py" &&
       cm_fields "$3" "$T/cmf.tsv" "$HERE/../oracle/compare_cm.py"; then
        # shellcheck disable=SC2086  # opts is a list of words
        checked "$1: CM in tshark" "$PY" "$HERE/cm_tshark.py" --label "$1" $opts "$2" "$T/cm.tsv"
        checked "$1: CM fields" "$PY" "$HERE/../oracle/compare_cm.py" --any --label "$1" "$4" "$T/cmf.tsv"
    else
        echo "FAIL $1: tshark could not read the capture's CM fields"
    fi
}

echo "$SCENARIOS" | while IFS='|' read -r sc args; do
    # shellcheck disable=SC2086  # args is a list of words
    if ! "$R" gen "$sc" $args -o "$T/$sc.pcap" 2>"$T/gen.err"; then
        echo "FAIL $sc: rocelab gen failed: $(cat "$T/gen.err")"
        continue
    fi
    "$R" explain --json "$T/$sc.pcap" >"$T/$sc.jsonl" 2>/dev/null
    checked "$sc: story" "$PY" "$HERE/stories.py" "$sc" "$T/$sc.jsonl"
    # shellcheck disable=SC2086
    if run_tshark $TSHARK_OPTS -r - -T json -J "frame eth vlan ip ipv6 udp infiniband data" \
            <"$T/$sc.pcap" >"$T/$sc.tshark.json" 2>/dev/null; then
        checked "$sc: tshark" "$PY" "$HERE/../oracle/compare_tshark.py" --label "$sc" "$T/$sc.jsonl" "$T/$sc.tshark.json"
    else
        echo "FAIL $sc: tshark could not read the capture"
    fi
    case $sc in
        cm-reject) cm_checks "$sc" "$sc" "$T/$sc.pcap" "$T/$sc.jsonl" "$FX/rping-rej.pcap" ;;
        ud-sidr) cm_checks "$sc" "$sc" "$T/$sc.pcap" "$T/$sc.jsonl" "$FX/udaddy.pcap" ;;
        cm-*|rping) cm_checks "$sc" "$sc" "$T/$sc.pcap" "$T/$sc.jsonl" ;;
    esac
    # shellcheck disable=SC2086
    "$R" gen "$sc" $args -o "$T/$sc.again.pcap" 2>/dev/null
    if cmp -s "$T/$sc.pcap" "$T/$sc.again.pcap"; then
        echo "PASS $sc: the same arguments give the same bytes"
    else
        echo "FAIL $sc: two runs with the same arguments differ"
    fi
done >"$T/results" 2>&1
count_lines "$T/results"

# dcqcn, incast, fairness at their defaults, with DCQCN and without, in tshark's fields
# (congestion.py): DCQCN resends at least 10x fewer requests and none late in the run, and after
# the first CNP A's requests slow to half the bottleneck's rate or less, as DCQCN's cut must.
for sc in dcqcn incast fairness; do
    for cc in dcqcn none; do
        if "$R" gen "$sc" --cc "$cc" -o "$T/cg.pcap" 2>"$T/gen.err"; then
            # shellcheck disable=SC2086
            run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -e frame.time_epoch -e frame.len \
                -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
                <"$T/cg.pcap" >"$T/cg-$cc.tsv" 2>/dev/null
        else
            fail "$sc --cc $cc: rocelab gen failed: $(cat "$T/gen.err")"
            : >"$T/cg-$cc.tsv"
        fi
    done
    rm -f "$T/cg.pcap"
    "$PY" "$HERE/congestion.py" "$sc vs --cc none" "$T/cg-dcqcn.tsv" "$T/cg-none.tsv" >"$T/cg.out" 2>&1 ||
        grep -q '^FAIL ' "$T/cg.out" || echo "FAIL $sc vs --cc none: congestion.py: $(tail -n 1 "$T/cg.out")" >>"$T/cg.out"
    grep '^PASS ' "$T/cg.out"
    count_lines "$T/cg.out"
done

# rping as the real one ran (rping -C 4 -S 64): the same messages, frame by frame, as
# tests/fixtures/rxe/rping.pcap; and with the options rping's scenario keeps.
"$R" gen rping --count 4 --size 64 -o "$T/rping4.pcap" 2>/dev/null
"$R" explain --json "$T/rping4.pcap" >"$T/rping4.jsonl" 2>/dev/null
cm_checks "rping --count 4" rping "$T/rping4.pcap" "$T/rping4.jsonl" "$FX/rping.pcap" >"$T/results" 2>&1
for v in "--ipv6 --vlan 42" "--mtu 256 --size 1000" "--qpn-a 0x2a --qpn-b 0x2b --seed 9" "--drop 1,2"; do
    resent=""
    case $v in --drop*) resent="--req-resent 2" ;; esac   # frames 1 and 2 are the REQ and its resend
    # shellcheck disable=SC2086
    if "$R" gen rping --count 2 $v -o "$T/rpv.pcap" 2>"$T/gen.err"; then
        "$R" explain --json "$T/rpv.pcap" >"$T/rpv.jsonl" 2>/dev/null
        cm_checks "rping $v" rping "$T/rpv.pcap" "$T/rpv.jsonl" "" "$resent"
    else
        echo "FAIL rping $v: rocelab gen failed: $(cat "$T/gen.err")"
    fi
done >>"$T/results" 2>&1
count_lines "$T/results"

# Variations: IPv6, VLAN, another MTU, chosen QPNs and PSNs.
"$R" gen request-loss --ipv6 --vlan 42 --mtu 256 --size 1024 --qpn-a 0x2a --qpn-b 0x2b --psn-a 100 \
    -o "$T/v.pcap" 2>/dev/null
"$R" explain --json "$T/v.pcap" >"$T/v.jsonl" 2>/dev/null
if "$PY" - "$T/v.jsonl" <<'PY'
import json, sys
p = [json.loads(l) for l in open(sys.argv[1])]
a = [x for x in p if x["ip"]["src"] == "fd00::1"]
ok = (all(x["eth"]["vlan"]["id"] == 42 for x in p) and a[0]["bth"]["psn"] == 100 and
      all(x["bth"]["dqpn"] == 0x2b for x in a) and max(x["payload_len"] for x in a) == 256 and
      sum(1 for x in p if x.get("aeth", {}).get("nak_code") == 0) == 1)
sys.exit(0 if ok else 1)
PY
then pass "options: --ipv6 --vlan --mtu --qpn --psn shape the capture"; else fail "options: --ipv6 --vlan --mtu --qpn --psn shape the capture"; fi

# --loss: a random loss rate still ends with every message delivered (go-back-N repairs it).
"$R" gen write-bw --count 20 --size 8192 --loss 0.1 --seed 7 -o "$T/loss.pcap" 2>/dev/null
"$R" explain --json "$T/loss.pcap" >"$T/loss.jsonl" 2>/dev/null
if "$PY" - "$T/loss.jsonl" <<'PY'
import json, sys
p = [json.loads(l) for l in open(sys.argv[1])]
last = [x for x in p if x["bth"]["opcode_name"] == "RC RDMA WRITE Last"]
naks = [x for x in p if x.get("aeth", {}).get("type") == "NAK"]
sys.exit(0 if len({x["bth"]["psn"] for x in last}) == 20 and naks else 1)
PY
then pass "--loss 0.1: NAKs and retransmissions, all 20 WRITEs end"; else fail "--loss 0.1: NAKs and retransmissions, all 20 WRITEs end"; fi

# srq in tshark's own fields: A's SENDs reach three QPs of B, the RNR NAKs (syndrome 44: RNR, timer
# 12) all name one of them, and B's ACKs (syndrome 31: ACK, credit code 31) answer all three.
"$R" gen srq -o "$T/srq.pcap" 2>/dev/null
# shellcheck disable=SC2086
run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -e ip.src -e infiniband.bth.opcode -e infiniband.bth.destqp \
    -e infiniband.aeth.syndrome <"$T/srq.pcap" >"$T/srq.tsv" 2>/dev/null
sends=$(awk -F'\t' '$1 ~ /\.1$/ && $2 == 4 { print $3 }' "$T/srq.tsv" | sort -u | wc -l)
rnr=$(awk -F'\t' '$2 == 17 && $4 == 44 { print $3 }' "$T/srq.tsv" | sort -u | wc -l)
acked=$(awk -F'\t' '$2 == 17 && $4 == 31 { print $3 }' "$T/srq.tsv" | sort -u | wc -l)
if [ "$sends" -eq 3 ] && [ "$rnr" -eq 1 ] && [ "$acked" -eq 3 ]; then
    pass "srq in tshark: SENDs to 3 QPs, RNR NAKs on 1, ACKs with credit code 31 on all 3"
else
    fail "srq in tshark: SENDs to $sends QPs, RNR NAKs on $rnr, ACKs (credit code 31) on $acked (want 3, 1, 3)"
fi

# fabric, a port mirror's view, in tshark's fields (fabric.py): every QP's WRITEs in order, each ACK
# answering one; explain finds no gap, links every ACK, and past 16384 flows forgets exactly the flows a
# least-recently-used list forgets, and says how many times.
for v in "40 8 5" "17000 2 6"; do
    # shellcheck disable=SC2086  # QPs, WRITEs per QP, seed
    set -- $v
    if "$R" gen fabric --qps "$1" --count "$2" --seed "$3" -o "$T/fab.pcap" 2>"$T/gen.err"; then
        # shellcheck disable=SC2086
        run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -e ip.src -e ip.dst -e infiniband.bth.opcode \
            -e infiniband.bth.destqp -e infiniband.bth.psn <"$T/fab.pcap" >"$T/fab.tsv" 2>/dev/null
        "$R" explain "$T/fab.pcap" >"$T/fab.txt" 2>&1
        if o=$("$PY" "$HERE/fabric.py" "$T/fab.tsv" "$1" "$2" "$T/fab.txt"); then
            pass "fabric --qps $1 --count $2: $(echo "$o" | tail -n 1)"
        else
            fail "fabric --qps $1 --count $2: $(echo "$o" | tr '\n' ' ')"
        fi
    else
        fail "fabric --qps $1: rocelab gen failed: $(cat "$T/gen.err")"
    fi
done

# The flows found through the hash tables and by the reference lookup (every flow scanned:
# RL_ANALYZER_SCAN_LOOKUP) must give explain the same output, also past 16384 flows (17000 QPs).
if [ -z "$RS" ]; then
    echo "SKIP explain with the reference lookup: no SCAN_ROCELAB given (make scenarios builds and passes it)"
else
    for v in "40 8 5" "300 20 7" "17000 1 6"; do
        # shellcheck disable=SC2086  # QPs, WRITEs per QP, seed
        set -- $v
        if ! "$R" gen fabric --qps "$1" --count "$2" --seed "$3" -o "$T/fab.pcap" 2>"$T/gen.err"; then
            fail "fabric --qps $1: rocelab gen failed: $(cat "$T/gen.err")"
        elif o=$(explain_same "$R" "$RS" "$T/fab.pcap" "$T"); then
            pass "fabric --qps $1 --count $2: explain with hash tables and with a scan of every flow: $o"
        else
            fail "fabric --qps $1 --count $2: explain with hash tables and with a scan of every flow: $o"
        fi
    done
fi

# Golden files: committed captures, regenerated byte for byte.
for g in "$HERE"/golden/*.pcap; do
    [ -e "$g" ] || continue
    base=$(basename "$g" .pcap)
    args=$(cat "$HERE/golden/$base.args")
    # shellcheck disable=SC2086
    "$R" gen $args -o "$T/golden.pcap" 2>/dev/null
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$T/golden.pcap" "$g"
        echo "updated $g"
    elif cmp -s "$g" "$T/golden.pcap"; then
        pass "golden $base: regenerated byte for byte"
    else
        fail "golden $base: 'rocelab gen $args' no longer gives the committed bytes (UPDATE_GOLDEN=1 after a deliberate change)"
    fi
done

echo "scenarios: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
