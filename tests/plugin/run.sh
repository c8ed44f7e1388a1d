#!/bin/sh
# The Wireshark plugin (dissector/) inside tshark: it loads; on every fault
# scenario of `rocelab gen` its fields mark exactly the frames that the decoded
# packets say they should (check.py works that out from `rocelab explain --json`
# and the frame bytes, not from the plugin), in one pass, in two passes (-2)
# and through display filters; it still annotates a RoCE packet that TFTP took
# because it came from UDP port 69; its CM fields and links agree with
# Wireshark's own CM dissector (check_cm.py); mutated captures do not crash
# the sanitizer build; and `tshark -q -z expert` lists its expert infos with no tree
# built, as many of each kind as stock tshark's InfiniBand fields call for (check_expert.py).
# Usage: run.sh PLUGIN_SO ROCELAB [PLUGIN_ASAN_SO]     (KEEP=1 keeps its files)
#   (PLUGIN_ASAN_SO defaults to ../plugin-asan/rocelab.so next to PLUGIN_SO)
set -u
SO=${1:?usage: run.sh PLUGIN_SO ROCELAB [PLUGIN_ASAN_SO]}
R=${2:?usage: run.sh PLUGIN_SO ROCELAB [PLUGIN_ASAN_SO]}
ASAN_SO=${3:-$(dirname "$SO")/../plugin-asan/rocelab.so}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
CHECK="$HERE/check.py"
T=$(mktemp -d)
# KEEP=1 keeps the captures, tshark's output and check.py's reports for a look.
if [ -n "${KEEP:-}" ]; then
    trap 'echo "plugin: files kept in $T"' EXIT
else
    trap 'rm -rf "$T"' EXIT INT TERM
fi
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
finish() {
    echo "plugin: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
# checked, count_lines
. "$HERE/../lib/checks.sh"

for f in "$SO" "$ASAN_SO" "$R"; do
    [ -f "$f" ] || { fail "missing $f (make plugin plugin-asan all)"; finish; }
done
command -v tshark >/dev/null 2>&1 || { fail "tshark is not installed (make bootstrap)"; finish; }
command -v editcap >/dev/null 2>&1 || { fail "editcap is not installed (make bootstrap)"; finish; }

# Wireshark looks for plugins in WIRESHARK_PLUGIN_DIR/<major.minor>/epan, and
# ignores that variable (and personal plugins) when run as root: so tshark runs
# as nobody, with everything it reads in a world-readable folder. An empty
# extcap folder keeps it from starting extcap helpers (they hang under ASan).
WSV=$(tshark --version 2>/dev/null | sed -n '1s/.* \([0-9][0-9]*\.[0-9][0-9]*\)\.[0-9].*/\1/p')
[ -n "$WSV" ] || { fail "cannot tell tshark's version"; finish; }
mkdir -p "$T/home" "$T/ext" "$T/p/$WSV/epan" "$T/pa/$WSV/epan" "$T/f"
cp "$SO" "$T/p/$WSV/epan/rocelab.so"
cp "$ASAN_SO" "$T/pa/$WSV/epan/rocelab.so"
chmod 755 "$T"
if [ "$(id -u)" -eq 0 ]; then
    chown 65534:65534 "$T/home" "$T/f"
fi

# ts PLUGIN_DIR COMMAND...: run COMMAND (tshark, or env ... tshark) as nobody with that plugin folder.
ts() {
    d=$1
    shift
    chmod -R a+rX "$T"
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups \
            env HOME="$T/home" WIRESHARK_PLUGIN_DIR="$d" WIRESHARK_EXTCAP_DIR="$T/ext" "$@"
    else
        env HOME="$T/home" WIRESHARK_PLUGIN_DIR="$d" WIRESHARK_EXTCAP_DIR="$T/ext" "$@"
    fi
}
# Our own complaints only: other dissectors' heuristics print warnings of their own.
ours() { grep -i -E 'rocelab|roce lab|plugin' "$1" | head -n 5; }

# ---- it loads ---------------------------------------------------------------
ts "$T/p" tshark -G plugins >"$T/plugins.txt" 2>"$T/plugins.err"
if grep -q "^rocelab.so[[:space:]].*$T/p/$WSV/epan/rocelab.so" "$T/plugins.txt"; then
    pass "tshark -G plugins lists rocelab.so from $T/p/$WSV/epan"
else
    fail "tshark -G plugins does not list the plugin: $(cat "$T/plugins.err")"
    finish
fi

# Every field under rocelab. has a blurb (-G fields: F, name, abbrev, type, parent,
# base, bitmask, blurb; expert infos have only their summary), and the promised ones exist.
ts "$T/p" tshark -G fields 2>/dev/null | awk -F'\t' '$1 == "F" && $3 ~ /^rocelab\./' >"$T/fields.txt"
noblurb=$(awk -F'\t' '$8 == "" && $3 !~ /^rocelab\.expert\./ { print $3 }' "$T/fields.txt" | tr '\n' ' ')
if [ -z "$noblurb" ]; then
    pass "every rocelab.* field has a blurb ($(wc -l <"$T/fields.txt") fields)"
else
    fail "fields without a blurb: $noblurb"
fi
missing=""
for f in rocelab.summary rocelab.explanation rocelab.icrc.status rocelab.icrc.expected rocelab.analysis.verdict \
         rocelab.analysis.retransmission rocelab.analysis.duplicate rocelab.analysis.out_of_order rocelab.analysis.gap \
         rocelab.analysis.expected_psn rocelab.analysis.original_frame rocelab.response_to rocelab.response_in \
         rocelab.time rocelab.request_frame rocelab.response_frame rocelab.response_time rocelab.ack.first_psn rocelab.ack.last_psn rocelab.ack.first_frame rocelab.msg.number \
         rocelab.msg.bytes rocelab.msg.total rocelab.nak.meaning rocelab.nak.resend_psn rocelab.rnr.wait_us \
         rocelab.ecn.ce rocelab.cnp rocelab.bth.fecn rocelab.bth.becn; do
    awk -F'\t' -v f="$f" '$3 == f { found = 1 } END { exit !found }' "$T/fields.txt" || missing="$missing $f"
done
if [ -z "$missing" ]; then
    pass "all the documented rocelab.* fields are registered"
else
    fail "fields not registered:$missing"
fi

# ---- the fault scenarios ----------------------------------------------------------
# shellcheck disable=SC2046  # the field list is words
set -- $("$PY" "$CHECK" fields)
for sc in request-loss lost-ack lost-read-response rnr access-error icrc-corruption duplicate reorder ecn; do
    if ! "$R" gen "$sc" -o "$T/$sc.pcap" 2>"$T/gen.err"; then
        fail "$sc: rocelab gen failed: $(cat "$T/gen.err")"
        continue
    fi
    "$R" explain --json "$T/$sc.pcap" >"$T/$sc.jsonl" 2>/dev/null
    # one pass, the capture on stdin; two passes need a file (tshark -2 cannot rewind stdin)
    ts "$T/p" tshark -r - -T fields -E occurrence=f "$@" <"$T/$sc.pcap" >"$T/$sc.1.tsv" 2>"$T/$sc.err"
    ts "$T/p" tshark -2 -r "$T/$sc.pcap" -T fields -E occurrence=f "$@" >"$T/$sc.2.tsv" 2>>"$T/$sc.err"
    mkdir -p "$T/f/$sc"
    "$PY" "$CHECK" filters "$sc" >"$T/$sc.filters"
    while IFS='	' read -r name flt; do
        ts "$T/p" tshark -r - -Y "$flt" -T fields -e frame.number <"$T/$sc.pcap" >"$T/f/$sc/$name.1" 2>>"$T/$sc.err"
        ts "$T/p" tshark -2 -r "$T/$sc.pcap" -Y "$flt" -T fields -e frame.number >"$T/f/$sc/$name.2" 2>>"$T/$sc.err"
    done <"$T/$sc.filters"
    if [ -n "$(ours "$T/$sc.err")" ]; then
        fail "$sc: tshark complained about the plugin: $(ours "$T/$sc.err")"
    fi
    checked "$sc" "$PY" "$CHECK" scenario "$sc" "$T/$sc.pcap" "$T/$sc.jsonl" "$T/$sc.1.tsv" "$T/$sc.2.tsv" \
        "$T/f/$sc" >"$T/$sc.report"
    count_lines "$T/$sc.report"
done

# ---- CNPs: what DCQCN should do, the same in Wireshark as in explain --json -----------------
# The rocelab.cnp.* fields on exactly the frames stock tshark calls opcode 129, in one pass and
# in two, with the values explain --json gives (gen incast: CNPs to three QPs between two hosts).
"$R" gen incast --count 20 -o "$T/incast.pcap" 2>/dev/null
CNPKEYS="count cut alpha_ppm alpha_after_ppm rc_before_ppm rc_ppm rt_ppm ce_seen rate_bps window_ns prev_rate_bps"
for sc in ecn incast; do
    [ -s "$T/$sc.pcap" ] || { fail "cnp $sc: no capture"; continue; }
    "$R" explain --json "$T/$sc.pcap" >"$T/$sc.cnp.jsonl" 2>/dev/null
    # (not set --: the sections below use "$@", check.py's field list)
    cnpf="-e frame.number -e infiniband.bth.opcode -e rocelab.cnp.qp $(for k in $CNPKEYS; do printf -- '-e rocelab.cnp.%s ' "$k"; done)"
    # shellcheck disable=SC2086  # one -e per field
    ts "$T/p" tshark -r - -T fields -E occurrence=f $cnpf <"$T/$sc.pcap" >"$T/$sc.cnp.1.tsv" 2>/dev/null
    # shellcheck disable=SC2086
    ts "$T/p" tshark -2 -r "$T/$sc.pcap" -T fields -E occurrence=f $cnpf >"$T/$sc.cnp.2.tsv" 2>/dev/null
    checked "cnp $sc" "$PY" - "$sc" "$T/$sc.cnp.jsonl" "$T/$sc.cnp.1.tsv" "$T/$sc.cnp.2.tsv" "$CNPKEYS" \
        >"$T/$sc.cnp.report" <<'PY'
import json, sys
sc, jsonl, keys = sys.argv[1], sys.argv[2], sys.argv[5].split()
want = {}
for line in open(jsonl):
    o = json.loads(line)
    c = o.get("analysis", {}).get("cnp")
    if c:
        want[o["frame"]] = [str(c["qp"])] + [str(int(c[k])) for k in keys]
for tsv, how in ((sys.argv[3], "one pass"), (sys.argv[4], "two passes")):
    rows = [l.split("\t") for l in open(tsv).read().split("\n") if l]
    cnps = [int(r[0]) for r in rows if r[1] == "129"]
    got = {int(r[0]): [str(int(r[2], 0))] + r[3:] for r in rows if r[3]}
    bad = [f for f in cnps if got.get(f) != want.get(f)]
    if cnps and sorted(got) == cnps and sorted(want) == cnps and not bad:
        print("PASS cnp %s (%s): rocelab.cnp.* on the %d frames tshark calls opcode 129, as explain --json" %
              (sc, how, len(cnps)))
    else:
        f = bad[0] if bad else None
        print("FAIL cnp %s (%s): %d CNPs, %d with fields, %d in explain; frame %s: plugin %s, explain %s" %
              (sc, how, len(cnps), len(got), len(want), f, got.get(f), want.get(f)))
PY
    count_lines "$T/$sc.cnp.report"
done
missing=""
for k in qp $CNPKEYS; do
    awk -F'\t' -v f="rocelab.cnp.$k" '$3 == f { found = 1 } END { exit !found }' "$T/fields.txt" || missing="$missing $k"
done
[ -z "$missing" ] && pass "the rocelab.cnp.* fields are registered" || fail "rocelab.cnp.* not registered:$missing"

# ---- tshark -q -z expert: the expert infos with no tree built ---------------------------
# The RDMA engineer's triage command, with no -Y and no -V: tshark builds no protocol
# tree, and the plugin's expert infos must be listed all the same, as many of each kind
# as check_expert.py works out from stock tshark's InfiniBand fields (no plugin loaded)
# and the frames' bytes. Some pcaps come from the loop above; a few more are made here.
XCHK="$HERE/check_expert.py"
mkdir -p "$T/none/$WSV/epan"
"$R" gen send-bw --count 20 --size 1024 --window 8 --drop 5,12 -o "$T/bw-loss.pcap" 2>/dev/null
"$R" gen cm-req-lost -o "$T/cm-req-lost.pcap" 2>/dev/null
"$R" gen cm-reject -o "$T/cm-reject.pcap" 2>/dev/null
# shellcheck disable=SC2046  # the field list is words
for sc in request-loss lost-ack rnr access-error icrc-corruption duplicate reorder ecn bw-loss cm-req-lost cm-reject; do
    if [ ! -s "$T/$sc.pcap" ]; then
        fail "expert $sc: no capture"
        continue
    fi
    ts "$T/none" tshark -r - -T fields -E occurrence=a $("$PY" "$XCHK" fields) <"$T/$sc.pcap" >"$T/$sc.stock.tsv" \
        2>/dev/null
    ts "$T/p" tshark -r - -q -z expert <"$T/$sc.pcap" >"$T/$sc.expert.txt" 2>"$T/$sc.expert.err"
    checked "expert $sc" "$PY" "$XCHK" check "$sc" "$T/$sc.stock.tsv" "$T/$sc.expert.txt" "$T/$sc.pcap" \
        >"$T/$sc.expert.report"
    count_lines "$T/$sc.expert.report"
    # two passes: each expert info listed once, not once per pass
    ts "$T/p" tshark -2 -r "$T/$sc.pcap" -q -z expert >"$T/$sc.expert2.txt" 2>>"$T/$sc.expert.err"
    checked "expert $sc -2" "$PY" "$XCHK" check "$sc (-2)" "$T/$sc.stock.tsv" "$T/$sc.expert2.txt" "$T/$sc.pcap" \
        >"$T/$sc.expert2.report"
    count_lines "$T/$sc.expert2.report"
done

# ---- the README: RPC-over-RDMA's guess on the demo's first frame ---------------------------
# The README says tshark marks frame 1 of `rocelab gen demo` "[Malformed Packet]" (the
# rpcrdma_infiniband heuristic takes its payload) and that --disable-heuristic
# rpcrdma_infiniband stops it; both lines run here as it writes them.
README="$HERE/../../README.md"
"$R" gen demo -o "$T/demo.pcap" 2>/dev/null
line="tshark -r demo.pcap -c 1 --disable-heuristic rpcrdma_infiniband"
if ! grep -q "^$line " "$README"; then
    fail "README: no line '$line'"
else
    ts "$T/p" tshark -r - -c 1 <"$T/demo.pcap" >"$T/demo.0" 2>/dev/null
    ts "$T/p" tshark -r - -c 1 --disable-heuristic rpcrdma_infiniband <"$T/demo.pcap" >"$T/demo.1" 2>/dev/null
    if grep -q 'RC Send Only.*\[Malformed Packet\]' "$T/demo.0" && grep -q 'RC Send Only' "$T/demo.1" &&
       ! grep -q Malformed "$T/demo.1"; then
        pass "README: frame 1 of gen demo is [Malformed Packet] in tshark, and not with --disable-heuristic rpcrdma_infiniband"
    else
        fail "README: the rpcrdma_infiniband claim does not hold: '$(cat "$T/demo.0")' / '$(cat "$T/demo.1")'"
    fi
fi

# ---- a RoCE packet that another protocol takes ----------------------------------------
# UDP gives a packet to its lower port's protocol first: from source port 69 it is
# TFTP's. The ICRC covers the source port, so check.py recomputes it (zlib's CRC-32).
if [ -f "$T/request-loss.pcap" ] && "$PY" "$CHECK" port69 "$T/request-loss.pcap" "$T/port69.pcap" >/dev/null; then
    "$R" explain --json "$T/port69.pcap" >"$T/port69.jsonl" 2>/dev/null
    ts "$T/p" tshark -r - -T fields -E occurrence=f "$@" <"$T/port69.pcap" >"$T/port69.tsv" 2>/dev/null
    checked "port 69" "$PY" "$CHECK" port69-check "$T/port69.jsonl" "$T/port69.tsv" "$T/request-loss.1.tsv" \
        >"$T/port69.report"
    count_lines "$T/port69.report"
else
    fail "port 69: could not build the capture"
fi

# ---- other framings: raw IP, IPv4, Linux cooked (tcpdump -i any) v1 and v2 -------------
for kind in raw ipv4 sll sll2; do
    if [ -f "$T/reorder.pcap" ] && "$PY" "$CHECK" relink "$T/reorder.pcap" "$T/$kind.pcap" "$kind"; then
        ts "$T/p" tshark -r - -T fields -E occurrence=f "$@" <"$T/$kind.pcap" >"$T/$kind.tsv" 2>/dev/null
        checked "$kind" "$PY" "$CHECK" same "$kind" "$T/$kind.tsv" "$T/reorder.1.tsv" >"$T/$kind.report"
        count_lines "$T/$kind.report"
    else
        fail "$kind: could not build the capture"
    fi
done

# ---- every transport header field, from core's field table, against the frames' bytes ----
# all-opcodes has every opcode (FLUSH and ATOMIC WRITE too) in every framing.
"$R" gen all-opcodes -o "$T/all-opcodes.pcap" 2>/dev/null
"$R" explain --json "$T/all-opcodes.pcap" >"$T/all-opcodes.jsonl" 2>/dev/null
# shellcheck disable=SC2046  # the field list is words
ts "$T/p" tshark -r - -T fields -E occurrence=f -e frame.number $("$PY" "$CHECK" header-fields) \
    <"$T/all-opcodes.pcap" >"$T/headers.tsv" 2>"$T/headers.err"
checked "headers" "$PY" "$CHECK" headers "$T/all-opcodes.pcap" "$T/all-opcodes.jsonl" "$T/headers.tsv" \
    >"$T/headers.report"
count_lines "$T/headers.report"

# ---- CM MADs: every rocelab.cm.* filter, links, resends and first PSNs --------------------
# check_cm.py works the expectations out from Wireshark's own CM dissector (and the
# MAD bytes where tshark only names the message); on one of each CM message, the real
# kernel's rping, and that capture with its REQ sent twice and its REP's PSN moved.
CMCHK="$HERE/check_cm.py"
for f in rocelab.cm.req.local_qpn rocelab.cm.rep.starting_psn rocelab.cm.mad.tid rocelab.cm.sidr_rep.qkey \
         rocelab.cm.answers_frame rocelab.cm.original_frame rocelab.cm.psn_frame; do
    awk -F'\t' -v f="$f" '$3 == f { found = 1 } END { exit !found }' "$T/fields.txt" ||
        fail "cm: $f is not registered"
done
frametype=$(awk -F'\t' '$3 ~ /^rocelab\.cm\.(answers_frame|answered_in|original_frame|resent_in|psn_frame)$/ { print $4 }' \
    "$T/fields.txt" | sort -u | tr '\n' ' ')
[ "$frametype" = "FT_FRAMENUM " ] && pass "cm: the CM links are FT_FRAMENUM fields" ||
    fail "cm: the CM links have types: $frametype"
"$R" gen cm-messages -o "$T/cm.pcap" 2>/dev/null
cp "$HERE/../fixtures/rxe/rping.pcap" "$T/rping.pcap"
"$PY" "$CMCHK" mutate "$T/rping.pcap" "$T/rping-resent.pcap" || fail "cm: could not build the capture with a resent REQ"
for c in cm rping rping-resent; do
    case $c in
        cm) want= ;;
        rping) want=--data ;;
        *) want="--resend --data" ;;
    esac
    # shellcheck disable=SC2046  # the field list is words
    ts "$T/p" tshark -2 -r "$T/$c.pcap" -T fields -E occurrence=f $("$PY" "$CMCHK" fields) \
        >"$T/$c.cm.tsv" 2>"$T/$c.cm.err"
    "$PY" "$CMCHK" filters "$T/$c.cm.tsv" "$T/$c.pcap" >"$T/$c.cm.filters"
    mkdir -p "$T/f/cm-$c"
    while IFS='	' read -r name flt _; do
        ts "$T/p" tshark -r "$T/$c.pcap" -Y "$flt" -T fields -e frame.number >"$T/f/cm-$c/$name" 2>>"$T/$c.cm.err"
    done <"$T/$c.cm.filters"
    if [ -n "$(ours "$T/$c.cm.err")" ]; then
        fail "cm $c: tshark complained about the plugin: $(ours "$T/$c.cm.err")"
    fi
    # shellcheck disable=SC2086  # $want is a list of flags
    checked "cm $c" "$PY" "$CMCHK" check "cm $c" "$T/$c.cm.tsv" "$T/$c.pcap" "$T/$c.cm.filters" "$T/f/cm-$c" $want \
        >"$T/$c.cm.report"
    count_lines "$T/$c.cm.report"
done

# ---- issue 22 D6: a frame the snap length cut after its headers -----------------------
# editcap -s 100 on gen demo: 7 frames cut. Stock tshark's InfiniBand fields read the BTH from those
# 100 bytes; the plugin's verdicts must not call the cut frames' followers a GAP, and it says "cut".
"$R" gen demo -o "$T/snapdemo.pcap" 2>/dev/null
editcap -s 100 "$T/snapdemo.pcap" "$T/snap100.pcap"
ts "$T/p" tshark -r "$T/snap100.pcap" -T fields -e frame.number -e infiniband.bth.psn -e rocelab.analysis.verdict \
    -e rocelab.icrc.status -e rocelab.analysis.gap -e _ws.col.Info >"$T/snap100.out" 2>"$T/snap100.err"
ncut=$(awk -F '\t' '$4 == 2' "$T/snap100.out" | wc -l)
ngap=$(grep -c -E 'GAP|missing' "$T/snap100.out")
nmark=$(grep -c '\[cut by the snap length\]' "$T/snap100.out")
nverdict=$(awk -F '\t' '$2 != "" && $3 != ""' "$T/snap100.out" | wc -l)
if [ "$ncut" -eq 7 ] && [ "$ngap" -eq 0 ] && [ "$nmark" -eq 7 ] && [ "$(wc -l <"$T/snap100.out")" -eq 16 ]; then
    pass "snap length 100: 7 frames cut, ICRC status unknown, marked, no false GAP ($nverdict PSN verdicts)"
else
    fail "snap length 100: $ncut ICRC unknown (7 wanted), $nmark marked, $ngap GAP lines: $(head -n 12 "$T/snap100.out")"
fi
# Every cut request has a PSN verdict, as tshark's own PSN for it says it should be in order.
if awk -F '\t' '$4 == 2 && $3 == "" && $1 != 11 && $1 != 12 { bad = 1 } END { exit bad }' "$T/snap100.out"; then
    pass "snap length 100: the cut requests are in the PSN analysis"
else
    fail "snap length 100: a cut request has no PSN verdict: $(cat "$T/snap100.out")"
fi

# ---- robustness: mutated captures under ASan and UBSan --------------------------------
# tshark is not instrumented, so the ASan runtime is preloaded for the plugin's sake.
ASAN_LIB=$(ldd "$ASAN_SO" 2>/dev/null | awk '/libasan/ { print $3; exit }')
if [ -z "$ASAN_LIB" ]; then
    fail "robustness: $ASAN_SO is not linked with libasan"
    finish
fi
SAN_ENV="LD_PRELOAD=$ASAN_LIB ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
# shellcheck disable=SC2086  # SAN_ENV is a list of assignments
if ts "$T/pa" env $SAN_ENV tshark -G plugins 2>"$T/asan.err" | grep -q "$T/pa/$WSV/epan/rocelab.so"; then
    pass "robustness: the sanitizer build loads into tshark (LD_PRELOAD=$ASAN_LIB)"
else
    fail "robustness: the sanitizer build does not load: $(head -n 3 "$T/asan.err")"
    finish
fi
"$R" gen all-opcodes -o "$T/all-opcodes.pcap" 2>/dev/null
"$R" gen malformed -o "$T/malformed.pcap" 2>/dev/null
inputs=""
for f in request-loss lost-ack lost-read-response rnr access-error icrc-corruption duplicate reorder ecn all-opcodes malformed \
         cm rping-resent; do
    [ -f "$T/$f.pcap" ] && inputs="$inputs $T/$f.pcap"
done
# shellcheck disable=SC2086
mergecap -a -w "$T/base.pcap" $inputs
nbase=$(capinfos -c -M "$T/base.pcap" 2>/dev/null | awk '/Number of packets/ { print $NF }')
# error rate, seed, and one pass or two or no tree (q: -q -z expert); then truncated frames (-s)
for run in "0.002 1 1" "0.01 2 2" "0.02 3 1" "0.02 4 2" "0.05 5 1" "0.1 6 2" "0.3 7 1" "0.05 8 q" "s60 0 2" "s90 0 1" \
           "s60 0 q"; do
    # shellcheck disable=SC2086
    set -- $run
    case $1 in
        s*) editcap -s "${1#s}" "$T/base.pcap" "$T/mut.pcap" 2>"$T/editcap.err"; what="cut to ${1#s} bytes" ;;
        *) editcap -E "$1" --seed "$2" "$T/base.pcap" "$T/mut.pcap" 2>"$T/editcap.err"; what="-E $1 --seed $2" ;;
    esac
    # -V prints a tree, one "RoCE Lab" line per annotated frame; -q -z expert builds none
    # and lists the expert infos, one line (with "RoCE Lab") per distinct summary.
    case $3 in
        2) mode=-2 two=-2 opts=-V ;;
        q) mode="no tree" two='' opts="-q -z expert" ;;
        *) mode='' two='' opts=-V ;;
    esac
    # shellcheck disable=SC2086  # SAN_ENV, $two and $opts are lists of words
    ts "$T/pa" env $SAN_ENV tshark $two -r "$T/mut.pcap" $opts >"$T/mut.out" 2>"$T/mut.err"
    rc=$?
    if [ "$3" = q ]; then marked=$(grep -c 'RoCE Lab' "$T/mut.out"); else marked=$(grep -c '^RoCE Lab' "$T/mut.out"); fi
    if grep -q -E 'AddressSanitizer|runtime error|UndefinedBehaviorSanitizer' "$T/mut.err"; then
        fail "robustness ($what, ${mode:-one pass}): sanitizer report"
        grep -A 12 -E 'AddressSanitizer|runtime error' "$T/mut.err" | head -n 20
    elif [ "$rc" -ne 0 ]; then
        fail "robustness ($what, ${mode:-one pass}): tshark exited with $rc: $(tail -n 2 "$T/mut.err")"
    elif [ "$marked" -eq 0 ]; then
        fail "robustness ($what, ${mode:-one pass}): the plugin annotated nothing"
    else
        pass "robustness ($what, ${mode:-one pass}): $nbase frames, $marked $([ "$3" = q ] && echo "expert summaries" ||
            echo annotated), no sanitizer report"
    fi
done
finish
