#!/bin/sh
# Oracle tests: rocelab's decoder against independent implementations.
#
#   sh tests/oracle/run.sh build/rocelab        (what `make oracle` runs)
#
# For each seed in $ORACLE_SEEDS (default "1 2 3") we generate the
# all-opcodes capture (85 opcodes x Ethernet/IPv4, Ethernet/IPv6, VLAN/IPv4,
# VLAN/IPv6, RoCEv1) and compare `rocelab explain --json` with
#   * stock tshark's built-in InfiniBand dissector (compare_tshark.py, any
#     python3): every field of every packet, packet counts, ICRC;
#   * Debian's scapy 2.5 (scapy_icrc.py, run with /usr/bin/python3, the
#     python that has scapy): BTH fields, and the ICRC recomputed by
#     scapy.contrib.roce for IPv4 packets; plus, once, a corrupted-payload
#     and a masked-fields ICRC check.
# Each check prints one PASS/FAIL line; the last line is
# "oracle: N passed, M failed" and the exit status is non-zero if M > 0.
# A missing tool (tshark, scapy) counts as a failure, not a skip.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: sh tests/oracle/run.sh path/to/rocelab" >&2
    exit 2
fi
case $1 in
    /*) ROCELAB=$1 ;;
    *) ROCELAB=$(pwd)/$1 ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
SEEDS=${ORACLE_SEEDS:-1 2 3}
PY=${PYTHON:-python3}          # for compare_tshark.py (stdlib only)
SCAPY_PY=/usr/bin/python3      # Debian's python3 with python3-scapy

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# run_checks, checked, count_lines
. "$HERE/../lib/checks.sh"

# run_tshark, tshark_heuristic_opts
. "$HERE/../lib/tshark.sh"

# What is available?
have_rocelab=yes
if [ ! -x "$ROCELAB" ]; then
    fail "setup: $ROCELAB is not an executable (run make all)"
    have_rocelab=no
fi
have_tshark=yes
if ! command -v tshark >/dev/null 2>&1; then
    fail "setup: tshark not found (apt-get install tshark)"
    have_tshark=no
elif [ "$(id -u)" -eq 0 ] && ! command -v runuser >/dev/null 2>&1; then
    fail "setup: running as root but runuser (util-linux) not found, cannot drop privileges for tshark"
    have_tshark=no
elif ! command -v "$PY" >/dev/null 2>&1; then
    fail "setup: $PY not found"
    have_tshark=no
fi
have_scapy=yes
if ! "$SCAPY_PY" -c 'import scapy.contrib.roce' >/dev/null 2>&1; then
    fail "setup: $SCAPY_PY cannot import scapy.contrib.roce (apt-get install python3-scapy)"
    have_scapy=no
fi

TSHARK_OPTS=""
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    "$ROCELAB" gen all-opcodes -o "$TMP/probe.pcap" --seed 1 2>/dev/null || true
    TSHARK_OPTS=$(tshark_heuristic_opts "$TMP/probe.pcap")
fi

first=yes
for seed in $SEEDS; do
    [ "$have_rocelab" = yes ] || break
    pcap=$TMP/all-opcodes-$seed.pcap
    if ! "$ROCELAB" gen all-opcodes -o "$pcap" --seed "$seed" >"$TMP/gen.log" 2>&1; then
        fail "seed $seed: rocelab gen all-opcodes failed: $(head -c 300 "$TMP/gen.log")"
        continue
    fi
    if ! "$ROCELAB" explain --json "$pcap" >"$TMP/rocelab-$seed.jsonl" 2>"$TMP/explain.log"; then
        fail "seed $seed: rocelab explain --json failed: $(head -c 300 "$TMP/explain.log")"
        continue
    fi

    if [ "$have_tshark" = yes ]; then
        # shellcheck disable=SC2086  # TSHARK_OPTS is a list of words
        if run_tshark $TSHARK_OPTS -r - -T json \
                -J "frame eth vlan ip ipv6 udp infiniband data" \
                <"$pcap" >"$TMP/tshark-$seed.json" 2>"$TMP/tshark.err"; then
            run_checks "tshark seed $seed" \
                "$PY" "$HERE/compare_tshark.py" --label "seed $seed" --require-iba15 \
                "$TMP/rocelab-$seed.jsonl" "$TMP/tshark-$seed.json"
        else
            fail "tshark seed $seed: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        fi
    fi

    if [ "$have_scapy" = yes ]; then
        if [ "$first" = yes ]; then
            mkdir "$TMP/corrupt"
            run_checks "scapy seed $seed" \
                "$SCAPY_PY" "$HERE/scapy_icrc.py" --label "seed $seed" \
                --corrupt "$TMP/corrupt" "$ROCELAB" "$pcap"
        else
            run_checks "scapy seed $seed" \
                "$SCAPY_PY" "$HERE/scapy_icrc.py" --label "seed $seed" "$ROCELAB" "$pcap"
        fi
    fi
    first=no
done

# explain --layout: the bit layout rocelab draws for each header (from its field table), field by
# field against where tshark's InfiniBand dissector reads it: the bytes from a real packet's PDML,
# the bits from the field's bitmask in `tshark -G fields` (layout_tshark.py).
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    # shellcheck disable=SC2086  # TSHARK_OPTS is a list of words
    if run_tshark -G fields >"$TMP/fields.tsv" 2>"$TMP/tshark.err" &&
       run_tshark $TSHARK_OPTS -r - -T pdml <"$TMP/probe.pcap" >"$TMP/probe.pdml" 2>"$TMP/tshark.err"; then
        run_checks "layout" "$PY" "$HERE/layout_tshark.py" "$ROCELAB" "$TMP/fields.tsv" "$TMP/probe.pdml"
    else
        fail "layout: tshark failed: $(head -c 300 "$TMP/tshark.err")"
    fi
fi

# explain --compare: each row of a capture's profile against what tshark's fields say,
# the capture compared with itself and with another (the rows marked as differing).
# CM MADs: every field of every message tshark's CM dissector decodes, against ours.
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    if "$ROCELAB" gen cm-messages -o "$TMP/cm.pcap" >/dev/null 2>&1 &&
       "$ROCELAB" explain --json "$TMP/cm.pcap" >"$TMP/cm.jsonl" 2>/dev/null; then
        # shellcheck disable=SC2046  # one -e per field
        if run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -E occurrence=f \
                $("$PY" "$HERE/compare_cm.py" --print-fields) <"$TMP/cm.pcap" >"$TMP/cm.tsv" 2>"$TMP/tshark.err"; then
            run_checks "cm-messages" "$PY" "$HERE/compare_cm.py" --label cm-messages "$TMP/cm.jsonl" "$TMP/cm.tsv"
        else
            fail "cm-messages: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        fi
    else
        fail "cm-messages: rocelab gen or explain failed"
    fi
fi

# The same on captures of the real kernel: the golden ones in tests/fixtures/rxe/ (rping, a REJ,
# ucmatose, udaddy, ib_send_bw -R: the kernel at both ends) always, and fresh ones when given:
# ORACLE_RXE_DIR is a `rocelab realrxe capture --out DIR` directory. Only the messages the
# tools sent are there, so not every type is required (--any).
# rxe_cm LABEL DIR: every capture in DIR that holds CM MADs; DIR must hold one.
rxe_cm() {
    found=0
    for pcap in "$2"/*.pcap; do
        [ -e "$pcap" ] || break
        n=$(basename "$pcap" .pcap)
        "$ROCELAB" explain --json "$pcap" >"$TMP/rxe-$n.jsonl" 2>/dev/null || true
        grep -q '"cm":' "$TMP/rxe-$n.jsonl" || continue      # a tool without rdma_cm (ib_*_bw without -R)
        found=$((found + 1))
        # shellcheck disable=SC2046
        if run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -E occurrence=f \
                $("$PY" "$HERE/compare_cm.py" --print-fields) <"$pcap" >"$TMP/rxe-$n.tsv" 2>"$TMP/tshark.err"; then
            run_checks "$1 $n" "$PY" "$HERE/compare_cm.py" --any --label "$1 $n" \
                "$TMP/rxe-$n.jsonl" "$TMP/rxe-$n.tsv"
        else
            fail "$1 $n: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        fi
    done
    [ "$found" -gt 0 ] || fail "$1: no capture with CM MADs in $2"
}
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    rxe_cm "golden real" "$HERE/../fixtures/rxe"
    [ -z "${ORACLE_RXE_DIR:-}" ] || rxe_cm "real" "$ORACLE_RXE_DIR"
fi

P="$HERE/profile_tshark.py"
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    # gen_cap NAME ARGS...: $TMP/NAME.pcap from rocelab gen ARGS
    gen_cap() { n=$1; shift; "$ROCELAB" gen "$@" -o "$TMP/$n.pcap" >/dev/null 2>&1 || fail "rocelab gen $* failed"; }
    gen_cap send-bw send-bw --size 4096 --count 16
    gen_cap read-bw read-bw --size 4096 --count 8
    gen_cap write-bw-v6 write-bw --ipv6 --size 3000
    gen_cap request-loss request-loss
    gen_cap rnr rnr
    gen_cap atomic-bw-vlan atomic-bw --vlan 7 --count 8
    gen_cap ud-send ud-send
    # both hosts' QPs numbered 0x11 and their PSNs the same, as two rxe guests may have them
    gen_cap pingpong-same-qpn pingpong --qpn-a 0x11 --qpn-b 0x11 --psn-a 100 --psn-b 100
    for n in send-bw read-bw write-bw-v6 request-loss rnr atomic-bw-vlan ud-send pingpong-same-qpn; do
        profile_checks "$P" "$ROCELAB" "$TMP" "profile $n" "$TMP/$n.pcap"
    done
    profile_checks "$P" "$ROCELAB" "$TMP" "compare send-bw request-loss" "$TMP/send-bw.pcap" "$TMP/request-loss.pcap"
    profile_checks "$P" "$ROCELAB" "$TMP" "compare rnr write-bw-v6" "$TMP/rnr.pcap" "$TMP/write-bw-v6.pcap"
fi

# PSN sequence error NAKs (explain --json's trigger_frame, missing_first_psn, missing_last_psn) against
# what stock tshark's infiniband.bth.psn and infiniband.aeth.syndrome give (nak_links.py): the fault
# scenarios, random loss on the -bw ones, and, cut with editcap as a capture at the responder (the
# lost frames gone: a range missing, one across the PSN wrap) or one that starts after the gap (no
# trigger) would be.
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    N="$HERE/nak_links.py"
    # nak_check NAME [nak_links.py options]: $TMP/NAME.pcap through explain --json and tshark
    nak_check() {
        n=$1; shift
        "$ROCELAB" explain --json "$TMP/$n.pcap" >"$TMP/$n.jsonl" 2>/dev/null || fail "nak $n: rocelab explain failed"
        # shellcheck disable=SC2046  # one -e per field
        if run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$N" --print-fields) \
                <"$TMP/$n.pcap" >"$TMP/$n.tsv" 2>"$TMP/tshark.err"; then
            run_checks "nak $n" "$PY" "$N" --label "nak $n" "$@" "$TMP/$n.jsonl" "$TMP/$n.tsv"
        else
            fail "nak $n: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        fi
    }
    gen_cap nak-request-loss request-loss
    gen_cap nak-reorder reorder
    gen_cap nak-icrc icrc-corruption
    gen_cap nak-wrap psn-wrap --drop 3
    gen_cap nak-send-bw send-bw --loss 0.05 --seed 3 --count 200
    gen_cap nak-write-bw write-bw --loss 0.05 --seed 5 --count 200
    gen_cap nak-drop3 write-bw --count 4 --drop 3,4,5
    gen_cap nak-wrap2 psn-wrap --drop 3,4
    for n in nak-request-loss nak-reorder nak-icrc nak-wrap nak-send-bw nak-write-bw; do
        nak_check "$n"
    done
    if editcap "$TMP/nak-drop3.pcap" "$TMP/nak-at-responder.pcap" 3-5 >/dev/null 2>&1 &&
       editcap "$TMP/nak-wrap2.pcap" "$TMP/nak-wrap-at-responder.pcap" 3-4 >/dev/null 2>&1 &&
       editcap "$TMP/nak-request-loss.pcap" "$TMP/nak-late.pcap" 1-2 >/dev/null 2>&1; then
        nak_check nak-at-responder --want-range
        nak_check nak-wrap-at-responder --want-range
        nak_check nak-late --want-untriggered
    else
        fail "nak: editcap could not cut the captures"
    fi
fi

# gen --pcapng: the frames its wire lost carry the comment "lost on the way (rocelab gen)", as stock
# tshark's frame.comment reads it; the frames are the pcap's (lost_comments.py). With --drop the
# commented frames are exactly those; a lost request is sent again. Frames that passed a
# congestion scenario's switch queue carry its depth instead.
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    LC="$HERE/lost_comments.py"
    # lost_check NAME [lost_comments.py options] -- GEN ARGS...: the pcapng and the pcap of GEN ARGS
    lost_check() {
        n=$1; shift
        o=""
        while [ "$1" != -- ]; do o="$o $1"; shift; done
        shift
        if "$ROCELAB" gen "$@" --pcapng -o "$TMP/$n.pcapng" >/dev/null 2>&1 &&
           "$ROCELAB" gen "$@" -o "$TMP/$n.pcap" >/dev/null 2>&1; then
            for x in pcapng pcap; do
                # shellcheck disable=SC2046  # one -e per field
                run_tshark -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$LC" --print-fields) \
                    <"$TMP/$n.$x" >"$TMP/$n.$x.tsv" 2>"$TMP/tshark.err" || fail "lost $n: tshark failed on the $x"
            done
            # shellcheck disable=SC2086  # o: options, a word each
            run_checks "lost $n" "$PY" "$LC" --label "lost $n" $o "$TMP/$n.pcapng.tsv" "$TMP/$n.pcap.tsv"
            # explain's [lost on the way] notes: on the frames tshark shows a comment on, the rest as the pcap's
            want=$(awk -F'\t' '$8 == "lost on the way (rocelab gen)" { printf "%s ", $1 }' "$TMP/$n.pcapng.tsv")
            got=$("$ROCELAB" explain "$TMP/$n.pcapng" 2>/dev/null | awk '/ \[lost on the way\]/ { printf "%s ", $1 }')
            "$ROCELAB" explain "$TMP/$n.pcapng" 2>/dev/null | sed 's/ \[lost on the way\]//' >"$TMP/$n.ng.txt"
            "$ROCELAB" explain "$TMP/$n.pcap" 2>/dev/null >"$TMP/$n.pc.txt"
            if [ -n "$want" ] && [ "$got" = "$want" ] && cmp -s "$TMP/$n.ng.txt" "$TMP/$n.pc.txt"; then
                pass "lost $n: explain notes [lost on the way] on the $(echo "$want" | wc -w) frames tshark shows a comment on, the rest as of the pcap"
            else
                fail "lost $n: explain's [lost on the way] on frames '$(echo "$got" | cut -c1-80)', tshark's comments on '$(echo "$want" | cut -c1-80)', or the rest differs"
            fi
        else
            fail "lost $n: rocelab gen $* failed"
        fi
    }
    lost_check request-loss -- request-loss
    lost_check drop --drop 3,4,5 -- write-bw --count 4 --drop 3,4,5
    lost_check send-bw -- send-bw --loss 0.05 --seed 3 --count 20
    # The switch queue's tail drops (lab 16's first step): lost frames and "bottleneck queue N B"
    # depths on the rest, none deeper than the queue.
    lost_check dcqcn-none --queue 120 -- dcqcn --cc none --mtu 1024 --size 16384 --count 30 --rate 10 \
        --bottleneck 5 --queue 120 --kmax 20 --pmax 0.5
    lost_check cm-req-lost -- cm-req-lost
    lost_check lost-read-response -- lost-read-response
fi

# CM links (rocelab explain's line and --json): what each CM message answers, its resends,
# and the first data PSN each REQ/REP announced, against tshark's own CM fields (cm_links.py);
# on cm-messages, the real kernel's rping, and that capture with its REQ sent twice and its
# REP's Starting PSN moved (../plugin/check_cm.py mutate).
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    CMCHK="$HERE/../plugin/check_cm.py"
    cp "$HERE/../fixtures/rxe/rping.pcap" "$TMP/cml-rping.pcap"
    "$ROCELAB" gen cm-messages -o "$TMP/cml-cm.pcap" >/dev/null 2>&1 || fail "cm links: rocelab gen cm-messages failed"
    "$PY" "$CMCHK" mutate "$TMP/cml-rping.pcap" "$TMP/cml-rping-resent.pcap" ||
        fail "cm links: could not build the capture with a resent REQ"
    for c in cm rping rping-resent; do
        case $c in
            cm) want= ;;
            rping) want=--data ;;
            *) want="--resend --data" ;;
        esac
        "$ROCELAB" explain --json "$TMP/cml-$c.pcap" >"$TMP/cml-$c.jsonl" 2>/dev/null
        "$ROCELAB" explain "$TMP/cml-$c.pcap" >"$TMP/cml-$c.txt" 2>/dev/null
        # shellcheck disable=SC2046  # one -e per field
        if run_tshark $TSHARK_OPTS -r - -T fields -E occurrence=f $("$PY" "$CMCHK" stock-fields) \
                <"$TMP/cml-$c.pcap" >"$TMP/cml-$c.tsv" 2>"$TMP/tshark.err"; then
            # shellcheck disable=SC2086  # $want is a list of flags
            run_checks "cm links $c" "$PY" "$HERE/cm_links.py" "cm links $c" "$TMP/cml-$c.jsonl" "$TMP/cml-$c.txt" \
                "$TMP/cml-$c.tsv" "$TMP/cml-$c.pcap" $want
        else
            fail "cm links $c: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        fi
    done
fi

# explain --ladder --svg: each arrow against tshark's frame (its source, opcode and PSN, its CM
# message, its pcapng comment), on rocelab gen's exchanges (losses, resends, CM, UD, IPv6) and on
# the real kernel's rping (ladder_tshark.py).
if [ "$have_tshark" = yes ] && [ "$have_rocelab" = yes ]; then
    LT="$HERE/ladder_tshark.py"
    # each scenario and what its drawing must show (ladder_tshark.py --want)
    for gw in "demo:" "request-loss --pcapng:lost,resent" "reorder:gap,resent" "cm-req-lost --pcapng:lost,resent,answers" \
              "rping:answers" "ud-sidr:answers" "send --ipv6:" "icrc-corruption:bad,resent" "kernel:answers"; do
        g=${gw%%:*} w=${gw#*:}
        c=$(echo "$g" | cut -d' ' -f1)
        cap=$TMP/lad-$c.pcap
        if [ "$c" = kernel ]; then
            cap=$HERE/../fixtures/rxe/rping.pcap
        # shellcheck disable=SC2086  # the scenario and its flags
        elif ! "$ROCELAB" gen $g -o "$cap" >/dev/null 2>"$TMP/gen.err"; then
            fail "ladder $c: rocelab gen $g failed: $(head -c 300 "$TMP/gen.err")"; continue
        fi
        if ! "$ROCELAB" explain --ladder --svg -o "$TMP/lad-$c.svg" "$cap" 2>"$TMP/lad.err"; then
            fail "ladder $c: explain --ladder --svg failed: $(head -c 300 "$TMP/lad.err")"; continue
        fi
        # shellcheck disable=SC2046  # one -e per field
        if run_tshark $TSHARK_OPTS -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$LT" --print-fields) \
                <"$cap" >"$TMP/lad-$c.tsv" 2>"$TMP/tshark.err"; then
            run_checks "ladder $c" "$PY" "$LT" --label "ladder $g" ${w:+--want "$w"} "$TMP/lad-$c.svg" "$TMP/lad-$c.tsv"
        else
            fail "ladder $c: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        fi
    done
fi

echo "oracle: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
