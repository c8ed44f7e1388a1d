#!/bin/sh
# `rocelab report`'s page, in a browser, against stock tshark.
#
#   sh tests/report/run.sh [--update-golden] build/rocelab      (what `make report-test` runs)
#
# For each of rocelab gen's captures below (a loss and go-back-N, RNR NAKs, a READ, UD SENDs,
# ECN marks and CNPs, a CM connection, DCQCN on one flow and two sharing a switch) it writes `rocelab report CAP -o PAGE.html` and checks:
#   * static_check.py: html5lib's strict parser reads the page; it references nothing outside
#     itself; its shell is docs/report-format.md's;
#   * tidy -q -e: no error and no warning (the page is our own HTML5 shell, and tidy 5.6 knows
#     HTML5; a warning there is sloppy markup, so it fails too, but for the messages in
#     TIDY_ALLOW: tidy's own gaps, named with the reason they are not the page's fault);
#   * browser.py, in headless Chromium through Selenium: no console warning or error, one arrow
#     per frame tshark decodes as InfiniBand and of the kind IBA gives that frame, NAKs rl-nak,
#     requests sent again rl-trouble, lost frames rl-lost, clicks and #frame-N showing tshark's
#     opcode, PSN and QP and explain --json's object in #rl-detail / #rl-detail-json, and a
#     screenshot against tests/report/golden/NAME.png (2% of pixels may differ);
#     --update-golden writes the screenshots there instead.
# gen dcqcn and fairness --pcapng (14,000 frames each): the static checks, and browser.py --rates:
# one rate line per data flow tshark finds, each line's mean over the last third of the capture
# within 5% of tshark's bytes (data.len) there, fairness's two flows within 10% of each other
# over the last third of the time both send, the queue graph's max the deepest "bottleneck queue
# N B" comment tshark reads (frame.comment), and fairness's rates graph against
# golden/fairness-rates.png.
# explain --compare A B -o PAGE: both captures drawn side by side, a click in B's column showing
# B's frame in B's panel (b-rl-detail).
# Then a capture of a million frames (gen write-bw): its page must draw (the ready marker
# documentElement.dataset.rlReady == "1") within a 300 s hang guard with the arrow of a
# #frame-N deep in it in view and that frame in the panel. On two cores the capture and its
# 100 MB page take about 6 s to write and, with the placeholder script, 2.4 s to load (bench
# part 9 prints the load time); REPORT_BIG=0 leaves it out.
# The last line is "report: N passed, M failed"; the exit status is non-zero if M > 0.
# A missing tool counts as a failure, not a skip. Runs as root (tshark then as nobody,
# Chromium without its sandbox, as it must as root) or as anyone.
set -u

UPDATE=""
if [ "${1:-}" = --update-golden ]; then
    UPDATE=--update-golden
    shift
fi
if [ $# -ne 1 ]; then
    echo "usage: sh tests/report/run.sh [--update-golden] path/to/rocelab" >&2
    exit 2
fi
case $1 in
    /*) ROCELAB=$1 ;;
    *) ROCELAB=$(pwd)/$1 ;;
esac
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3             # Debian's python3: python3-selenium, python3-html5lib, python3-pil
GOLDEN=${REPORT_GOLDEN:-$HERE/golden}   # REPORT_GOLDEN: elsewhere (to try --update-golden)
# tidy messages that are tidy's gaps, not the page's (a grep -E pattern; none known yet)
TIDY_ALLOW='^$'

TMP=$(mktemp -d)
chmod 755 "$TMP"                # tshark runs as nobody but reads the captures on stdin
mkdir "$TMP/home" "$TMP/b"
# browser.py ARGS: with Chromium's home, profile and caches all in $TMP (nothing left in the user's home)
# It runs in the background, waited for, so that a signal is acted on at once, not when it ends.
browser() {
    env HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/home/.config" XDG_CACHE_HOME="$TMP/home/.cache" \
        "$PY" "$HERE/browser.py" --tmp "$TMP/b" "$@" &
    wait $!
}
# Every browser.py runs in a session of its own (its id in $TMP/b/sessions); whatever of it is
# left (chromedriver, chromium and its helpers), even on a failure or an interrupt, is ended by
# that session's id, and no other process.
cleanup() {
    if [ -s "$TMP/b/sessions" ]; then
        while read -r sid; do
            pids=$(ps -e -o pid= -o sid= | awk -v s="$sid" '$2 == s { print $1 }')
            # shellcheck disable=SC2086  # a list of ids
            [ -z "$pids" ] || kill -9 $pids 2>/dev/null
        done <"$TMP/b/sessions"
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# run_checks, checked, count_lines
. "$HERE/../lib/checks.sh"
# run_tshark
. "$HERE/../lib/tshark.sh"

ok=yes
if [ ! -x "$ROCELAB" ]; then
    fail "setup: $ROCELAB is not an executable (run make all)"
    ok=no
fi
for t in tshark editcap tidy "$PY" /usr/bin/chromium /usr/bin/chromedriver; do
    command -v "$t" >/dev/null 2>&1 || { fail "setup: $t not found (sh scripts/bootstrap.sh all)"; ok=no; }
done
if [ "$(id -u)" -eq 0 ] && ! command -v runuser >/dev/null 2>&1; then
    fail "setup: running as root but runuser (util-linux) not found, cannot drop privileges for tshark"
    ok=no
fi
if ! "$PY" -c 'import selenium, html5lib, PIL' 2>"$TMP/py.err"; then
    fail "setup: $PY lacks a module: $(tail -n 1 "$TMP/py.err") (python3-selenium python3-html5lib python3-pil)"
    ok=no
fi
if [ "$ok" = no ]; then
    echo "report: $passed passed, $failed failed"
    exit 1
fi
if ! "$ROCELAB" report --help >/dev/null 2>&1; then
    fail "setup: $ROCELAB has no report command"
    echo "report: $passed passed, $failed failed"
    exit 1
fi

# static_checks NAME: $TMP/NAME.html read by html5lib's strict parser, and by tidy.
static_checks() {
    n=$1
    run_checks "$n static" "$PY" "$HERE/static_check.py" --label "$n" "$TMP/$n.html"
    tidy -q -e "$TMP/$n.html" >"$TMP/tidy.out" 2>&1
    rc=$?
    grep -v -E "$TIDY_ALLOW" "$TMP/tidy.out" >"$TMP/tidy.left"
    if [ "$rc" -ge 2 ]; then
        fail "$n: tidy finds errors: $(head -n 5 "$TMP/tidy.out" | tr '\n' ' ')"
    elif [ -s "$TMP/tidy.left" ]; then
        fail "$n: tidy warns: $(head -n 5 "$TMP/tidy.left" | tr '\n' ' ')"
    else
        pass "$n: tidy -q -e finds no error and no warning"
    fi
}

# page NAME WANT SELECT GEN-ARGS...: a capture from rocelab gen, its report, and every check.
# WANT: what the capture must show (browser.py --want); SELECT: the frame for #frame-N and the
# screenshot (0: the middle one).
page() {
    n=$1 want=$2 sel=$3
    shift 3
    cap=$TMP/$n.pcap
    case " $* " in *" --pcapng "*) cap=$TMP/$n.pcapng ;; esac
    if ! "$ROCELAB" gen "$@" -o "$cap" >/dev/null 2>"$TMP/gen.err"; then
        fail "$n: rocelab gen $* failed: $(head -c 300 "$TMP/gen.err")"
        return
    fi
    if ! "$ROCELAB" report "$cap" -o "$TMP/$n.html" >"$TMP/report.out" 2>&1 || [ ! -s "$TMP/$n.html" ]; then
        fail "$n: rocelab report failed: $(head -c 300 "$TMP/report.out")"
        return
    fi
    pass "$n: rocelab report wrote $(wc -c <"$TMP/$n.html") bytes"
    static_checks "$n"
    "$ROCELAB" explain --json "$cap" >"$TMP/$n.jsonl" 2>"$TMP/explain.err" ||
        fail "$n: rocelab explain --json failed: $(head -c 300 "$TMP/explain.err")"
    # shellcheck disable=SC2046  # one -e per field
    if ! run_tshark -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$HERE/browser.py" --print-fields) \
            <"$cap" >"$TMP/$n.tsv" 2>"$TMP/tshark.err"; then
        fail "$n: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        return
    fi
    run_checks "$n browser" browser --label "$n" --name "$n" --want "$want" --select "$sel" --golden "$GOLDEN" $UPDATE "$TMP/$n.html" "$TMP/$n.tsv" "$TMP/$n.jsonl"
}

#    name     must show       select  rocelab gen ...
page loss     nak,resent,lost 5       request-loss --pcapng
page rnr      nak,ack         0       rnr
page read     req,resp        0       read
page ud-send  req             0       ud-send --count 4
page ecn      cnp             0       ecn
page cm       cm,req,ack      0       cm-connect

# The Congestion section on the congestion scenarios' pcapngs (pages of 14,000 frames, whose
# ladders draw only the rows in view, so not page()'s checks of every arrow): the static checks,
# every flow's rate line against tshark's bytes, fairness while both flows send, the switch
# queue's deepest comment, and a picture of fairness's rates graph.
for n in dcqcn fairness; do
    if ! "$ROCELAB" gen "$n" --pcapng -o "$TMP/$n.pcapng" >/dev/null 2>"$TMP/gen.err" ||
       ! "$ROCELAB" report -q "$TMP/$n.pcapng" -o "$TMP/$n.html" >"$TMP/report.out" 2>&1; then
        fail "$n: rocelab gen or report failed: $(head -c 300 "$TMP/gen.err" "$TMP/report.out")"
        continue
    fi
    static_checks "$n"
    # shellcheck disable=SC2046  # one -e per field
    if ! run_tshark -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$HERE/browser.py" --print-rate-fields) \
            <"$TMP/$n.pcapng" >"$TMP/$n.rates.tsv" 2>"$TMP/tshark.err" ||
       ! run_tshark -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$HERE/browser.py" --print-fields) \
            <"$TMP/$n.pcapng" >"$TMP/$n.tsv" 2>"$TMP/tshark.err"; then
        fail "$n rates: tshark failed: $(head -c 300 "$TMP/tshark.err")"
        continue
    fi
    fair=""
    golden=""
    [ "$n" = fairness ] && fair=--fair && golden="--golden $GOLDEN $UPDATE"
    # shellcheck disable=SC2086  # options, or none
    run_checks "$n rates" browser --label "$n rates" --name "$n" --rates "$TMP/$n.rates.tsv" $fair $golden \
        "$TMP/$n.html" "$TMP/$n.tsv" /dev/null
done

# The summary's per-QP requests, NAKs and RNR NAKs against tshark, where three QPs share two hosts
# (gen srq: one of them runs its SRQ dry) and on the loss and RNR captures.
if "$ROCELAB" gen srq -o "$TMP/srq.pcap" >/dev/null 2>&1 && "$ROCELAB" report -q "$TMP/srq.pcap" -o "$TMP/srq.html"; then
    for n in srq loss rnr; do
        cap=$TMP/$n.pcap
        [ -e "$cap" ] || cap=$TMP/$n.pcapng
        run_tshark -r - -T fields -E separator=/t -E occurrence=f -e frame.number -e ip.src -e ip.dst \
            -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.bth.destqp -e infiniband.aeth.syndrome \
            <"$cap" >"$TMP/$n.qp.tsv" 2>/dev/null
        if "$PY" "$HERE/qp_counts.py" "$TMP/$n.html" "$TMP/$n.qp.tsv" >"$TMP/qp.out" 2>&1; then
            pass "$n: the summary's $(cat "$TMP/qp.out")"
        else
            fail "$n: the summary's per-QP counts are not tshark's: $(tr '\n' ' ' <"$TMP/qp.out")"
        fi
    done
else
    fail "srq: rocelab gen or report failed"
fi

# explain --compare A B -o PAGE: the loss and RNR captures side by side (their tshark fields and
# explain --json lines are the ones page() left).
if "$ROCELAB" explain --compare "$TMP/loss.pcapng" "$TMP/rnr.pcap" -o "$TMP/cmp.html" >"$TMP/cmp.out" 2>&1; then
    run_checks "compare static" "$PY" "$HERE/static_check.py" --label compare "$TMP/cmp.html"
    run_checks "compare browser" browser --label compare --compare "$TMP/rnr.tsv" "$TMP/rnr.jsonl" \
        "$TMP/cmp.html" "$TMP/loss.tsv" "$TMP/loss.jsonl"
else
    fail "compare: rocelab explain --compare -o failed: $(tail -c 300 "$TMP/cmp.out")"
fi

# The big one: write-bw of one-packet WRITEs, each ACKed: a million frames.
if [ "${REPORT_BIG:-1}" = 1 ] && [ -z "$UPDATE" ]; then
    cap=$TMP/big.pcap
    if "$ROCELAB" gen write-bw --size 64 --count "${REPORT_BIG_COUNT:-500000}" -o "$cap" >"$TMP/gen.out" 2>&1 &&
       "$ROCELAB" report "$cap" -o "$TMP/big.html" >"$TMP/report.out" 2>&1; then
        pass "big: $(tail -n 1 "$TMP/gen.out" | sed 's/^rocelab gen: //'), report of $(wc -c <"$TMP/big.html") bytes"
        # the frame: three quarters in; tshark reads it alone, cut out by editcap (its fields need no
        # other frame), and its number put back
        nf=$(sed -n 's/^rocelab gen: wrote \([0-9]*\) frames.*/\1/p' "$TMP/gen.out")
        # three quarters in, and the very last frame (the end of the ladder's scroll range)
        for f in $((${nf:-0} * 3 / 4 + 1)) "${nf:-0}"; do
            editcap -r "$cap" "$TMP/big-cut.pcap" "$f" >/dev/null 2>&1 || fail "big: editcap could not cut frame $f out"
            # shellcheck disable=SC2046  # one -e per field
            run_tshark -r - -T fields -E separator=/t -E occurrence=f $("$PY" "$HERE/browser.py" --print-fields) \
                <"$TMP/big-cut.pcap" 2>/dev/null | awk -F'\t' -v OFS='\t' -v f="$f" '{ $1 = f; print }' >"$TMP/big.tsv"
            : >"$TMP/big.jsonl"    # past summary.detail_limit rows the page holds no detail object
            run_checks "big browser" browser --label big --big --frame "$f" --hang 300 "$TMP/big.html" "$TMP/big.tsv" "$TMP/big.jsonl"
        done
    else
        fail "big: rocelab gen or report failed: $(tail -c 300 "$TMP/gen.out" "$TMP/report.out")"
    fi
fi

echo "report: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
