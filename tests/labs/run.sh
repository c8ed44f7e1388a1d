#!/bin/sh
# rocelab lab: bad use is refused; every lab runs end to end, on a capture from
# rocelab gen (--gen) and, as root, between two namespaces over a veth, with
# nothing left behind afterwards (also after Ctrl-C); the display filters each
# lab suggests are ones Wireshark (with the rocelab plugin) accepts; without
# root the lab says it runs on gen, in a user namespace it captures with
# libpcap; the English and Chinese guides give the same commands in the same
# order, their by-hand commands are the steps of the lab's lab.def (and, over
# the veth, commands the lab ran), their explain and tshark commands run on
# the lab's capture; each replay step's gen arguments make a capture; each
# lab.def and the grader's fact functions name the same questions, and
# answers.txt has their keys; installed by make install, rocelab finds them.
# Usage: run.sh ROCELAB PLUGIN_SO
set -u
R=${1:?usage: run.sh ROCELAB PLUGIN_SO}
SO=${2:?usage: run.sh ROCELAB PLUGIN_SO}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
case $SO in /*) ;; *) SO=$(pwd)/$SO ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
LABS=$(cd "$HERE/../../labs" && pwd)
T=$(mktemp -d)
chmod 755 "$T"
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
mine=0
cleanup() {
    if [ "$mine" -eq 1 ]; then
        ip netns del rl-a 2>/dev/null
        ip netns del rl-b 2>/dev/null
    fi
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# refused NAME PATTERN ARGS...: exits non-zero and says PATTERN
refused() {
    name=$1
    pat=$2
    shift 2
    if "$R" lab "$@" >"$T/out" 2>&1; then fail "$name (exit 0)"
    elif grep -q -- "$pat" "$T/out"; then pass "$name"
    else fail "$name: $(head -c 300 "$T/out")"; fi
}
refused "no verb" "usage: rocelab lab list" 
refused "no such lab" "no lab '99'" run 99
refused "run without a lab" "say list, run NN, grade NN, predict NN, quiz NN, up, down or status" run
refused "--mtu too small" "--mtu wants 1280..65535" up --mtu 100
refused "unknown verb" "say list, run NN" fly
if "$R" lab --help | grep -q "rocelab lab run NN"; then pass "--help"; else fail "--help"; fi
n=$("$R" lab list | grep -c '^  [0-9][0-9]  ')
[ "$n" -ge 13 ] && pass "lab list shows $n labs" || fail "lab list shows $n labs"

# ---- the guides: both languages, the same commands in the same order ---------------------
cmds() { awk '/^```sh/{c=1; next} /^```/{c=0} c' "$1"; }
for d in "$LABS"/[0-9][0-9]-*/; do
    d=${d%/}
    b=$(basename "$d")
    if [ ! -f "$d/README.md" ] || [ ! -f "$d/README.zh-CN.md" ]; then
        fail "$b: a guide in each language (README.md, README.zh-CN.md)"
        continue
    fi
    cmds "$d/README.md" >"$T/en"
    cmds "$d/README.zh-CN.md" >"$T/zh"
    if [ ! -s "$T/en" ]; then fail "$b: the guide has commands"
    elif cmp -s "$T/en" "$T/zh"; then pass "$b: English and Chinese guides, $(wc -l <"$T/en") commands, the same in the same order"
    else fail "$b: the guides' commands differ: $(diff "$T/en" "$T/zh" | head -4 | tr '\n' ' ')"; fi
    if "$R" lab list | grep -q "^  ${b%%-*}  ${b#*-} "; then pass "$b: rocelab lab list knows it"
    else fail "$b: not in rocelab lab list"; fi
done

# ---- tshark with the plugin, as nobody, for the suggested filters -------------------------
WSV=$(tshark --version 2>/dev/null | sed -n '1s/.* \([0-9][0-9]*\.[0-9][0-9]*\)\.[0-9].*/\1/p')
mkdir -p "$T/home" "$T/p/$WSV/epan"
cp "$SO" "$T/p/$WSV/epan/rocelab.so"
ts() {
    chmod -R a+rX "$T"
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/home" WIRESHARK_PLUGIN_DIR="$T/p" "$@"
    else
        env HOME="$T/home" WIRESHARK_PLUGIN_DIR="$T/p" "$@"
    fi
}

# capture_ok NAME PCAP: all RoCE but the TCP exchange (tcpdump counts its frames), every ICRC good,
# at least 1 RoCE frame
capture_ok() {
    sum=$("$R" explain "$2" 2>&1 | grep -- '^--- ')
    total=$(echo "$sum" | sed -n 's/^--- \([0-9]*\) frames.*/\1/p')
    roce=$(echo "$sum" | sed -n 's/^--- [0-9]* frames: \([0-9]*\) RoCE.*/\1/p')
    tcp=$(tcpdump -n -r "$2" tcp 2>/dev/null | wc -l)
    if [ -z "$total" ] || [ -z "$roce" ] || [ "$roce" -lt 1 ] || [ $((roce + tcp)) != "$total" ]; then
        fail "$1: capture ($tcp TCP frames): $sum"; return 1
    fi
    if ! echo "$sum" | grep -q " 0 malformed, 0 ICRC failures"; then fail "$1: capture: $sum"; return 1; fi
    return 0
}

# filters_ok NAME PCAP OUTPUT: every `filter` the lab's "next:" line names is one tshark accepts
filters_ok() {
    grep '^next:' "$3" | grep -o '`[^`]*`' | tr -d '`' | grep -v '^rocelab ' >"$T/filters"
    while read -r f; do
        if ts tshark -r - -Y "$f" <"$2" >/dev/null 2>"$T/ts.err"; then :; else
            fail "$1: Wireshark refuses the suggested filter '$f': $(head -c 200 "$T/ts.err")"
            return
        fi
    done <"$T/filters"
    [ -s "$T/filters" ] || return 0
    pass "$1: the suggested filters ($(tr '\n' ' ' <"$T/filters")) are valid in Wireshark with the plugin"
}

# ---- one definition per lab: labs/NN-name/lab.def ------------------------------------------
# def_cmds DIR: the commands a learner types to do the lab by hand, from its lab.def alone
# (a step with "compat rping" gives rping's own flags: no --server, no --client ADDR; one with
# "compat ib_send_bw" or another perftest tool gives perftest's: the server's address last)
def_cmds() {
    awk -v out="labs/out/$(basename "$1").gen.pcap" '
        { v = $0; sub(/^[ \t]*[a-z]+[ \t]*/, "", v) }
        $1 == "param" { def[$2] = $3 }
        { for (k in def) gsub("[{]" k "[}]", def[k], v) }
        $1 == "mtu" && v != 1500 { up = " --mtu " v }
        $1 == "step" { rping = 0; pt = "" }
        $1 == "compat" && v == "rping" { rping = 1 }
        $1 == "compat" && v ~ /^ib_/ { pt = v }
        $1 == "server" && rping { c[n++] = "ip netns exec rl-b rocelab peer --compat rping " v; next }
        $1 == "client" && rping { c[n++] = "ip netns exec rl-a rocelab peer --compat rping " v; next }
        $1 == "server" && pt != "" { c[n++] = "ip netns exec rl-b rocelab peer --compat " pt (v == "" ? "" : " " v); next }
        $1 == "client" && pt != "" { c[n++] = "ip netns exec rl-a rocelab peer --compat " pt " " v; next }
        $1 == "server" { c[n++] = "ip netns exec rl-b rocelab peer --server" (v == "" ? "" : " " v) }
        $1 == "client" { c[n++] = "ip netns exec rl-a rocelab peer --client 10.90.0.2 " v }
        $1 == "replay" { c[n++] = "rocelab gen " v " --ip-a 10.90.0.1 --ip-b 10.90.0.2 -o " out
                         c[n++] = "ip netns exec rl-b rocelab replay " out " --iface rl-b0" }
        END { print "rocelab lab up" up; for (i = 0; i < n; i++) print c[i] }' "$1/lab.def"
}
# guide_cmds DIR: the guide's commands of those kinds, in its order
guide_cmds() {
    cmds "$1/README.md" | grep -E '^rocelab lab up|^ip netns exec rl-[ab] rocelab (peer|replay) |^rocelab gen '
}
for d in "$LABS"/[0-9][0-9]-*/; do
    d=${d%/}
    b=$(basename "$d")
    [ -f "$d/lab.def" ] || { fail "$b: no lab.def"; continue; }
    def_cmds "$d" >"$T/def"
    guide_cmds "$d" >"$T/guide"
    if cmp -s "$T/def" "$T/guide"; then pass "$b: the guide's by-hand commands ($(wc -l <"$T/def")) are its lab.def's steps"
    else fail "$b: the guide's by-hand commands are not its lab.def's steps: $(diff "$T/def" "$T/guide" | head -4 | tr '\n' ' ')"; fi
    awk '$1 == "question" || $1 == "choice" { print $2 }' "$d/lab.def" >"$T/qdef"
    sed -n 's/^\([^#: ][^: ]*\):.*/\1/p' "$d/answers.txt" >"$T/qans"
    if [ -s "$T/qdef" ] && cmp -s "$T/qdef" "$T/qans"; then pass "$b: answers.txt has the keys of its lab.def's questions ($(tr '\n' ' ' <"$T/qdef"))"
    else fail "$b: answers.txt keys ($(tr '\n' ' ' <"$T/qans")) are not its lab.def's questions ($(tr '\n' ' ' <"$T/qdef"))"; fi
done
if "$R" lab list >/dev/null 2>"$T/err" && [ ! -s "$T/err" ]; then
    pass "every lab.def asks exactly the questions cli/grade_labs.c has fact functions for"
else fail "lab.def files and the grader's fact table: $(head -c 400 "$T/err")"; fi
# broken NAME PATTERN EDIT [VERBS]: a copy of the labs with EDIT (a shell command, in that copy) is
# refused by lab list and lab grade 05 (or VERBS), saying PATTERN
broken() {
    name=$1 pat=$2 edit=$3 verbs=${4:-list:grade 05}
    rm -rf "$T/defs" && cp -r "$LABS" "$T/defs" && rm -rf "$T/defs/out" && (cd "$T/defs" && eval "$edit")
    IFS=:
    set -- $verbs
    unset IFS
    for verb in "$@"; do
        if ROCELAB_LABS=$T/defs "$R" lab $verb >"$T/out" 2>&1; then fail "$name: lab $verb exit 0"; return
        elif ! grep -q -- "$pat" "$T/out"; then fail "$name: lab $verb says $(head -c 300 "$T/out")"; return; fi
    done
    pass "$name: refused by lab $(echo "$verbs" | sed 's/:/ and by lab /g'), saying '$pat'"
}
broken "a question the grader has no fact function for" "lab.def asks question 7, but the grader" \
    'printf "question 7\ntext t\nhint h\n" >>05-acks-msn-credits/lab.def'
broken "a fact function no question asks for" "reads the answer to question 6 of lab 05, but .*does not ask it" \
    'sed -i "/^question 6/,\$d" 05-acks-msn-credits/lab.def'
broken "a lab the grader knows with no definition" "reads answers of lab 02, which has no labs/02-\*/lab.def" \
    'rm -r 02-qp-state-machine' list
broken "a needs word the grader does not know" "05-acks-msn-credits/lab.def needs 'loss', which the grader" \
    'sed -i "s/^needs.*/needs loss/" 05-acks-msn-credits/lab.def'
broken "a capture line that names no capture" \
    "02-qp-state-machine/lab.def:$(grep -n '^capture' "$LABS/02-qp-state-machine/lab.def" | cut -d: -f1): capture wants 'exchange'" \
    'sed -i "s/^capture.*/capture tcp/" 02-qp-state-machine/lab.def' "list:grade 02"
broken "a keyword that is none" "05-acks-msn-credits/lab.def:3: 'titel' is not a keyword" \
    'sed -i "s/^title/titel/" 05-acks-msn-credits/lab.def'
broken "two labs with one number" "two labs numbered 05 (05-acks-msn-credits and 05-other)" \
    'cp -r 05-acks-msn-credits 05-other'
broken "a step with neither peers nor a replay" "step 1 (.*) wants 'server' and 'client'" \
    'sed -i "/^server/d" 05-acks-msn-credits/lab.def'
broken "a compat step for a tool whose flags the lab cannot run" \
    "03-rdma-cm/lab.def:$(grep -n '^compat' "$LABS/03-rdma-cm/lab.def" | cut -d: -f1): 'compat' takes 'rping' or a perftest tool (ib_send_bw, ib_read_lat, ...), not 'pingpong'" \
    'sed -i "s/^compat.*/compat pingpong/" 03-rdma-cm/lab.def' "list:grade 03"
broken "a compat step for a perftest tool rocelab peer does not speak" \
    "15-perftest/lab.def:$(grep -n '^compat' "$LABS/15-perftest/lab.def" | head -n 1 | cut -d: -f1): 'compat' takes 'rping' or a perftest tool (ib_send_bw, ib_read_lat, ...), not 'ib_send_bww'" \
    'sed -i "0,/^compat.*/s//compat ib_send_bww/" 15-perftest/lab.def' "list:grade 15"
broken "two compat lines in one step" "15-perftest/lab.def:$(($(grep -n '^compat' "$LABS/15-perftest/lab.def" | head -n 1 | cut -d: -f1) + 1)): 'compat' twice" \
    'sed -i "0,/^compat.*/s//&\ncompat rping/" 15-perftest/lab.def' "list:grade 15"
broken "compat in a replay step" "step 1 (.*) wants 'server' and 'client' (and maybe 'compat', 'fails'), or 'replay' alone" \
    'sed -i "s/^server.*/replay send/; /^client/d" 03-rdma-cm/lab.def' "list:grade 03"
broken "a choice the grader knows no right option for" "lab.def asks choice w9, but the grader (cli/grade_labs.c grade_choices) has no right option for it" \
    'printf "choice w9\ntext t\noption x\noption y\nhint h\n" >>04-segmentation-mtu/lab.def' "list:grade 04"
broken "a right option the choice does not have" "asks choice w1, but the grader (cli/grade_labs.c grade_choices) names no option of it as the right one" \
    'sed -i "/^option   atomicity among/d; /^option   atomicity only/d" 08-atomics/lab.def' "list:grade 08"
broken "a choice with one option" "choice w9 wants 2 to 6 'option' lines" \
    'printf "choice w9\ntext t\noption x\nhint h\n" >>04-segmentation-mtu/lab.def' "list:grade 04"
broken "an option outside a choice" "'option' belongs to a multiple-choice question: put it after a 'choice' line" \
    'printf "question 7\noption x\n" >>05-acks-msn-credits/lab.def'
# Values that would be cut on their way to a command line, a second mtu, a lab.def that cannot be read.
D05=$LABS/05-acks-msn-credits/lab.def
cl=$(grep -n '^client' "$D05" | head -n 1 | cut -d: -f1)
long="--op send --interface $(printf 'x%.0s' $(seq 1 400))"
broken "a client line too long to run as written" \
    "05-acks-msn-credits/lab.def:$cl: 'client' with a value of ${#long} bytes: at most 400" \
    "sed -i 's/^client .*/client $long/' 05-acks-msn-credits/lab.def"
many=$(printf -- ' --iters 1%.0s' $(seq 1 17))
broken "a client line of more words than a lab runs" "05-acks-msn-credits/lab.def:$cl: 'client' with 34 words: at most 32" \
    "sed -i 's/^client .*/client$many/' 05-acks-msn-credits/lab.def"
broken "a second mtu line" "05-acks-msn-credits/lab.def:$(($(wc -l <"$D05") + 1)): 'mtu' twice" \
    'echo "mtu 9000" >>05-acks-msn-credits/lab.def'
broken "a lab.def that is a folder" "cannot read .*05-acks-msn-credits/lab.def: Is a directory" \
    'rm 05-acks-msn-credits/lab.def && mkdir 05-acks-msn-credits/lab.def'
if ROCELAB_LABS=$T/none "$R" lab list >"$T/out" 2>&1; then fail "ROCELAB_LABS naming no folder: exit 0"
elif grep -q "ROCELAB_LABS=$T/none is not a folder" "$T/out"; then pass "ROCELAB_LABS naming no folder is refused"
else fail "ROCELAB_LABS naming no folder: $(cat "$T/out")"; fi
# Installed by make install (the tree's build/rocelab, whichever ROCELAB this suite was given):
# PREFIX/bin/rocelab reads PREFIX/share/rocelab/labs; a binary with neither says so.
I=$T/inst/usr/local
mkdir -p "$T/inst/run"
if ! make -s -C "$LABS/.." install DESTDIR="$T/inst" PREFIX=/usr/local >"$T/out" 2>&1; then
    fail "make install DESTDIR=$T/inst: $(tail -c 300 "$T/out")"
elif (cd "$T/inst/run" && "$I/bin/rocelab" lab run 05 --gen >"$T/out" 2>&1) &&
   [ "$("$I/bin/rocelab" lab list | grep -c '^  [0-9][0-9]  ')" = "$("$R" lab list | grep -c '^  [0-9][0-9]  ')" ] &&
   capture_ok "installed lab 05" "$T/inst/run/labs/out/05-acks-msn-credits.pcap"; then
    pass "installed by make install under PREFIX, rocelab finds the labs in PREFIX/share/rocelab/labs"
else fail "installed: $(tail -c 300 "$T/out")"; fi
rm -rf "$I/share/rocelab/labs"
if "$I/bin/rocelab" lab list >"$T/out" 2>&1; then fail "a rocelab with no labs folder lists labs"
elif grep -q "cannot find the labs folder beside $I/bin/rocelab (set ROCELAB_LABS to it)" "$T/out"; then
    pass "a rocelab with no labs folder beside it says where it looked and what to set"
else fail "no labs folder: $(cat "$T/out")"; fi

labs=$("$R" lab list | sed -n 's/^  \([0-9][0-9]\)  \([a-z0-9-]*\) .*/\1-\2/p')
mkdir -p "$T/g"
for l in $labs; do
    num=${l%%-*}
    if (cd "$T/g" && "$R" lab run "$num" --gen >"$T/g.out" 2>&1) &&
       grep -q "runs on a capture from rocelab gen" "$T/g.out" && capture_ok "lab $l --gen" "$T/g/labs/out/$l.pcap"; then
        pass "lab $l --gen: a capture from rocelab gen, all RoCE, ICRCs good"
        filters_ok "lab $l" "$T/g/labs/out/$l.pcap" "$T/g.out"
    else
        fail "lab $l --gen: $(tail -c 300 "$T/g.out")"
    fi
done

# ---- without namespaces: the rest of what a lab runs, and the guides' commands ----------------
# Each replay step's rocelab gen arguments, as lab run passes them (with the lab's addresses and its
# parameters at their defaults).
for l in $labs; do
    i=0
    awk '$1 == "param" { def[$2] = $3 }
         $1 == "replay" { v = $0; sub(/^replay[ \t]*/, "", v); for (k in def) gsub("[{]" k "[}]", def[k], v); print v }' \
        "$LABS/$l/lab.def" >"$T/replays"
    while read -r args; do
        i=$((i + 1))
        # shellcheck disable=SC2086  # the arguments are words, as lab run splits them
        if ! "$R" gen $args --ip-a 10.90.0.1 --ip-b 10.90.0.2 -o "$T/replay.pcap" >"$T/out" 2>&1 </dev/null; then
            fail "lab $l replay step $i: rocelab gen $args: $(tail -c 300 "$T/out")"
        elif capture_ok "lab $l replay step $i (rocelab gen $args)" "$T/replay.pcap"; then
            pass "lab $l replay step $i: rocelab gen $args makes a capture, all RoCE, ICRCs good"
        fi
    done <"$T/replays"
done
# The guides' rocelab explain and tshark commands, run in $T/g, where the lab's --gen capture is
# labs/out/NN-name.pcap as the guide names it; tshark as the unprivileged user, with the plugin.
# A guide's `rocelab lab quiz NN` runs too, in its place: it makes the quiz's capture. Its
# `rocelab explain --ladder --svg ... -o labs/out/NN-name.svg` (every guide has one) writes no output
# but the drawing, which must be the guide's figure docs/figures/ladder/NN-name.svg byte for byte.
mkdir -p "$T/bin" && ln -sf "$R" "$T/bin/rocelab"
for l in $labs; do
    # (those reading labs/out/NN-name.switch-*.pcap, a real link's captures, run in tests/labs/switch16.sh)
    cmds "$LABS/$l/README.md" | grep -E '^(rocelab explain |tshark |rocelab lab quiz [0-9]+$)' | grep -v "labs/out/$l\.switch-" |
        sed 's/ *| *less$//' >"$T/gcmds"
    [ -s "$T/gcmds" ] || continue
    n=0 why= lad=
    rm -f "$T/g/labs/out/$l.svg"
    while read -r c; do
        case $c in *" --ladder --svg "*) lad=$c ;; esac
        case $c in
        tshark*) (cd "$T/g" && ts bash -o pipefail -c "$c") ;;
        *) (cd "$T/g" && PATH=$T/bin:$PATH bash -o pipefail -c "$c") ;;
        esac >"$T/gc.out" 2>"$T/gc.err" </dev/null
        rc=$?
        if [ $rc -ne 0 ] || { [ ! -s "$T/gc.out" ] && [ "$lad" != "$c" ]; }; then why="'$c': exit $rc, $(head -c 300 "$T/gc.err")"; break; fi
        case $c in rocelab*) [ -s "$T/gc.err" ] && { why="'$c' says $(head -c 300 "$T/gc.err")"; break; } ;; esac
        n=$((n + 1))
    done <"$T/gcmds"
    if [ -z "$why" ]; then pass "lab $l: the guide's $n rocelab explain / tshark / quiz commands run on its --gen capture"
    else fail "lab $l: a guide command fails on its --gen capture: $why"; fi
    fig=$LABS/../docs/figures/ladder/$l.svg
    if [ -z "$lad" ]; then fail "lab $l: the guide draws no ladder (rocelab explain --ladder --svg)"
    elif cmp -s "$T/g/labs/out/$l.svg" "$fig" && grep -qF "](../../docs/figures/ladder/$l.svg)" "$LABS/$l/README.md" &&
         grep -qF "](../../docs/figures/ladder/$l.svg)" "$LABS/$l/README.zh-CN.md"; then
        pass "lab $l: docs/figures/ladder/$l.svg, in both guides, is what the guide's '$lad' draws"
    else fail "lab $l: docs/figures/ladder/$l.svg is not what '$lad' draws on the --gen capture, or a guide does not show it (remake: sh scripts/ladders.sh)"; fi
    # Its page: each guide has one `rocelab report labs/out/NN-name.pcap`; on the --gen capture it writes
    # labs/out/NN-name.html, whose JSON parses and counts the frames tshark counts. Labs 01, 05, 09 and
    # 10 show a screenshot of it (scripts/report-shots.sh), which must exist.
    rep="rocelab report labs/out/$l.pcap"
    ne=$(cmds "$LABS/$l/README.md" | grep -cxF "$rep")
    nz=$(cmds "$LABS/$l/README.zh-CN.md" | grep -cxF "$rep")
    why=
    if [ "$ne" != 1 ] || [ "$nz" != 1 ]; then why="'$rep' is in README.md $ne times, README.zh-CN.md $nz times (not once each)"
    else
        rm -f "$T/g/labs/out/$l.html"
        if ! (cd "$T/g" && PATH=$T/bin:$PATH sh -c "$rep") >"$T/gc.out" 2>&1 </dev/null; then why="'$rep' fails: $(head -c 300 "$T/gc.out")"
        elif ! nt=$(ts tshark -r "$T/g/labs/out/$l.pcap" -T fields -e frame.number 2>/dev/null | wc -l) || [ "$nt" -eq 0 ]; then why="tshark reads no frames of labs/out/$l.pcap"
        elif ! np=$(/usr/bin/python3 -c '
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
get = lambda i: json.loads(re.search(r"<script type=\"application/json\" id=\"%s\">(.*?)</script>" % i, s, re.S).group(1))
rows, summ = get("rl-rows"), get("rl-summary")
assert isinstance(rows, list) and len(rows) == summ["rows"], "rows"
print(summ["frames"])' "$T/g/labs/out/$l.html" 2>"$T/gc.err"); then why="labs/out/$l.html: its rl-rows / rl-summary JSON: $(tail -c 300 "$T/gc.err")"
        elif [ "$np" != "$nt" ]; then why="labs/out/$l.html counts $np frames, tshark $nt"
        fi
    fi
    case $l in 01-*|05-*|09-*|10-*)
        fig="docs/figures/report/$l.png"
        if [ -z "$why" ] && ! { [ -s "$LABS/../$fig" ] && grep -qF "](../../$fig)" "$LABS/$l/README.md" &&
                                grep -qF "](../../$fig)" "$LABS/$l/README.zh-CN.md"; }; then
            why="$fig is missing or a guide does not show it (remake: sh scripts/report-shots.sh)"
        fi ;;
    esac
    if [ -z "$why" ]; then pass "lab $l: the guides' '$rep' writes labs/out/$l.html, its JSON counting the $nt frames tshark counts"
    else fail "lab $l: the report page: $why"; fi
done

# ---- grading: the reference solutions score full marks, blanks and skeletons zero, -------
# ---- a subtly wrong answer loses exactly its marks ---------------------------------------
# The reference answers come from Wireshark's own dissector (solution/answers.sh runs tshark),
# not from the grader, so each full score is the grader agreeing with an oracle we did not write.
export GRADE_LIBS="${GRADE_LIBS:-$LABS/../build/librocelab.a -lisal -lz}"
G=$T/grade
mkdir -p "$G/ans" "$G/labs/out"
# questions NUM CAPTURE WHERE: reference answers full, blank zero, one answer one off loses one mark
questions() {
    num=$1 cap=$2 where=$3
    d=$(ls -d "$LABS/$num"-*)
    score() { "$R" lab grade "$num" --capture "$cap" --answers "$1" 2>&1 | tee "$G/out" | sed -n "s/^score $num questions //p"; }
    if ! sh "$d/solution/answers.sh" "$cap" >"$G/ans/$num.txt" 2>"$G/sol.err"; then
        fail "lab $num ($where): solution/answers.sh failed: $(head -c 300 "$G/sol.err")"; return
    fi
    s=$(score "$G/ans/$num.txt")
    max=${s#*/}
    if [ -n "$s" ] && [ "${s%/*}" = "$max" ] && [ "$max" -gt 0 ]; then
        pass "lab $num questions ($where): the reference answers, read with tshark, score $s"
    else
        fail "lab $num questions ($where): the reference answers score '$s': $(grep -v right "$G/out" | tr '\n' ' ' | head -c 400)"
    fi
    s=$(score "$d/answers.txt")
    [ "$s" = "0/$max" ] && pass "lab $num questions ($where): the blank answers file scores $s" ||
        fail "lab $num blank answers ($where) score '$s'"
    key=$(grep -v '^#' "$G/ans/$num.txt" | tail -n 1 | cut -d: -f1)
    awk -F': ' -v k="$key" '$1 == k { printf "%s: %d\n", $1, $2 + 1; next } { print }' "$G/ans/$num.txt" >"$G/wrong.txt"
    s=$(score "$G/wrong.txt")
    if [ "$s" = "$((max - 1))/$max" ] && grep -q "^  $key  *0/1 .*: not .*; look at " "$G/out"; then
        pass "lab $num questions ($where): answer $key one off loses that mark only, and says where to look"
    else
        fail "lab $num one wrong answer ($where): '$s' $(grep "^  $key " "$G/out")"
    fi
}
for l in $labs; do
    num=${l%%-*}
    [ -f "$LABS/$l/answers.txt" ] || { fail "lab $l: no answers.txt"; continue; }
    cp "$T/g/labs/out/$l.pcap" "$G/labs/out/"
    questions "$num" "$T/g/labs/out/$l.pcap" "rocelab gen capture"
done
# Lab 03 on what the real kernel does: its rping (tests/fixtures/rxe/rping.pcap, both ends the kernel),
# and the same followed by an ibv_rc_pingpong-like exchange on new QPs between the same hosts.
RPING=$LABS/../tests/fixtures/rxe/rping.pcap
questions 03 "$RPING" "the real kernel's rping"
if "$R" gen pingpong --count 2 --size 64 --qpn-a 0x12 --qpn-b 0x12 --ip-a 10.77.0.3 --ip-b 10.77.0.2 \
        -o "$T/pp.pcap" >/dev/null 2>&1 && mergecap -a -F pcap -w "$T/rping-pp.pcap" "$RPING" "$T/pp.pcap"; then
    questions 03 "$T/rping-pp.pcap" "the real kernel's rping, then a ping-pong"
    if "$R" lab grade 03 --capture "$T/rping-pp.pcap" --answers "$G/ans/03.txt" 2>&1 | grep -q "^  5  *1/1 "; then
        pass "lab 03 question 5 is graded when the capture holds the ping-pong after the DREP"
    else fail "lab 03 question 5 not graded on the kernel's rping followed by a ping-pong"; fi
else fail "lab 03: cannot make the kernel's rping followed by a ping-pong (rocelab gen, mergecap)"; fi
# make grade (below) grades lab 03's --gen capture: its reference answers, not the kernel's.
sh "$LABS/03-rdma-cm/solution/answers.sh" "$G/labs/out/03-rdma-cm.pcap" >"$G/ans/03.txt" 2>/dev/null
CAP=$T/g/labs/out/01-first-capture.pcap
sed 's/^1: .*/1: twenty/' "$G/ans/01.txt" >"$G/nan.txt"
s=$("$R" lab grade 01 --capture "$CAP" --answers "$G/nan.txt" 2>&1 | tee "$G/out" | sed -n 's/^score 01 questions //p')
[ "$s" = 5/6 ] && grep -q "'twenty' is not a number" "$G/out" && pass "lab 01 questions: a word for a number is named" ||
    fail "lab 01 'twenty': '$s'"
if "$R" lab grade 01 --capture "$T/none.pcap" --answers "$G/ans/01.txt" >"$G/out" 2>&1; then fail "grading without a capture succeeded"
elif grep -q "run 'rocelab lab run 01' first" "$G/out"; then pass "grading without a capture says to run the lab"
else fail "grading without a capture: $(cat "$G/out")"; fi
echo "not a pcap" >"$T/bad.pcap"
if "$R" lab grade 01 --capture "$T/bad.pcap" --answers "$G/ans/01.txt" >"$G/out" 2>&1; then fail "grading a corrupt capture succeeded"
elif grep -q "bad.pcap is not a capture this can read" "$G/out"; then pass "grading a file that is no capture says so"
else fail "grading a corrupt capture: $(cat "$G/out")"; fi
head -c 3000 "$T/g/labs/out/05-acks-msn-credits.pcap" >"$T/cut.pcap"
if "$R" lab grade 05 --capture "$T/cut.pcap" --answers "$G/ans/05.txt" >"$G/out" 2>&1 &&
   grep -q "is cut short or very long; graded on its first" "$G/out" && grep -q "^score 05 questions " "$G/out"; then
    pass "grading a capture cut short: a note, and a score on what it holds"
else fail "grading a cut capture: $(cat "$G/out")"; fi

# ---- why: multiple-choice questions ------------------------------------------------------
# why NUM CAPTURE WHERE: the letters of the lab's solution/why.sh (read with tshark, as nobody, where
# the capture decides; else from solution/why.txt, which cites the IBA) score full marks, blanks 0,
# one other letter loses that mark with the hint and without the right option, and an answer that
# is no option's letter is said and scores 0. make grade (below) gets the letters too.
why() {
    num=$1 cap=$2 where=$3
    d=$(ls -d "$LABS/$num"-*); W=$G/why$num
    nw=$(grep -c '^choice ' "$d/lab.def")
    wg() { "$R" lab grade "$num" --capture "$cap" --answers "$1" 2>&1 | tee "$W.out" | sed -n "s/^score $num why //p"; }
    ts sh "$d/solution/why.sh" "$cap" >"$W.ref" 2>"$W.err"
    if [ "$(grep -c '^w[0-9]*: [a-f]$' "$W.ref")" != "$nw" ]; then
        fail "lab $num why ($where): solution/why.sh gives $(wc -l <"$W.ref") of $nw letters: $(head -c 300 "$W.err")"; return
    fi
    s=$(wg "$W.ref")
    [ "$s" = "$nw/$nw" ] && pass "lab $num why ($where): the reference letters ($(tr '\n' ' ' <"$W.ref")) score $s" ||
        fail "lab $num why ($where): the reference letters score '$s': $(grep '^  w' "$W.out" | tr '\n' ' ')"
    s=$(wg "$d/answers.txt")
    [ "$s" = "0/$nw" ] && pass "lab $num why ($where): the blank answers file scores $s" || fail "lab $num why blank ($where): '$s'"
    key=$(tail -n 1 "$W.ref" | cut -d: -f1); right=$(tail -n 1 "$W.ref" | sed 's/^[^:]*: //')
    # The next option's letter (after the last, the first), and the right option's text.
    opts=$(awk -v k="$key" '$1 == "choice" { on = $2 == k; next } on && $1 == "option" { n++ } END { print n }' "$d/lab.def")
    wrong=$(echo "$right $opts" | awk '{ i = index("abcdef", $1) % $2; print substr("abcdef", i + 1, 1) }')
    rtext=$(awk -v k="$key" -v r="$right" '$1 == "choice" { on = $2 == k; next }
        on && $1 == "option" && substr("abcdef", ++n, 1) == r { sub(/^option[ \t]*/, ""); print }' "$d/lab.def")
    sed "s/^$key: .*/$key: $wrong/" "$W.ref" >"$W.wrong"
    s=$(wg "$W.wrong")
    line=$(grep "^  $key " "$W.out")
    if [ "$s" = "$((nw - 1))/$nw" ] && echo "$line" | grep -q "0/1 .*: not $wrong; think again: ." &&
       [ -n "$rtext" ] && ! echo "$line" | grep -qF "$rtext" && ! echo "$line" | grep -qE "[(']$right[)']|: $right\$"; then
        pass "lab $num why ($where): $key answered $wrong, not $right, loses that mark only, with a hint and not the right option"
    else fail "lab $num why one wrong ($where): '$s' $line"; fi
    for bad in 7 z; do
        sed "s/^$key: .*/$key: $bad/" "$W.ref" >"$W.bad"
        s=$(wg "$W.bad")
        [ "$s" = "$((nw - 1))/$nw" ] && grep -q "^  $key *0/1 .*: '$bad' is not one of its options; answer with one letter, a to " "$W.out" &&
            pass "lab $num why ($where): '$bad', no option's letter, is said and scores 0" ||
            fail "lab $num why '$bad' ($where): '$s' $(grep "^  $key " "$W.out")"
    done
    cat "$W.ref" >>"$G/ans/$num.txt"
}
for d in "$LABS"/[0-9][0-9]-*/; do
    grep -q '^choice ' "$d/lab.def" || continue
    b=$(basename "$d")
    if [ -f "$d/solution/why.sh" ]; then why "${b%%-*}" "$T/g/labs/out/$b.pcap" "rocelab gen capture"
    else fail "$b: multiple-choice questions and no solution/why.sh"; fi
done
# No way through the choices without reading them: over every lab's, the longest option each time,
# the shortest, or one letter throughout, scores below half (the right letters: each lab's
# solution/why.sh above).
for d in "$LABS"/[0-9][0-9]-*/; do
    n=$(basename "$d" | cut -c1-2)
    [ -f "$G/why$n.ref" ] || continue
    awk -v n="$n" -v g="$G" '$1 == "choice" { k = $2; i = 0; next }
        $1 == "option" { i++; sub(/^option[ \t]*/, ""); x = length($0)
                         if (x > most[k]) { most[k] = x; l[k] = i }
                         if (!(k in least) || x < least[k]) { least[k] = x; s[k] = i } }
        END { for (k in l) { print n, k, substr("abcdef", l[k], 1) >>(g "/longest")
                             print n, k, substr("abcdef", s[k], 1) >>(g "/shortest") } }' "$d/lab.def"
done
for f in "$G"/why[0-9][0-9].ref; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .ref | cut -c4-5)
    sed -n "s/^\(w[0-9]*\): \([a-f]\)$/$n \1 \2/p" "$f"
done | sort >"$G/right"
total=$(grep -c . "$G/right")
for way in longest shortest; do
    k=$(cat "$G/$way" "$G/right" | awk '{ k = $1 " " $2 } seen[k] != "" && seen[k] == $3 { n++ } { seen[k] = $3 }
        END { print n + 0 }')
    if [ "$total" -ge 10 ] && [ $((2 * k)) -lt "$total" ]; then
        pass "why, all labs: always the $way option scores $k/$total (below half)"
    else fail "why, all labs: always the $way option scores $k/$total: the right options give themselves away by length"; fi
done
for letter in a b c d; do
    k=$(awk -v x="$letter" '$3 == x' "$G/right" | grep -c .)
    [ $((2 * k)) -lt "$total" ] && pass "why, all labs: always '$letter' scores $k/$total (below half)" ||
        fail "why, all labs: always '$letter' scores $k/$total"
done

# ---- why: the letters a capture decides follow the capture --------------------------------
# Lab 09's w1 and lab 11's w2 read their right option off the capture. Copies of the gen captures,
# edited byte by byte, show the other claims (classic pcap: a 24-byte file header, then per frame
# a 16-byte record header, the frame's length at 8; in an IPv4 frame the BTH at 42, its PSN at
# 9-11, an AETH's syndrome at 12, IBA 9.2, 9.3.5): solution/why.sh (tshark) and lab grade must both
# give the option the edit makes right. The edited frame's ICRC goes wrong; neither looks at it.
frame_off() { # FILE N: the offset of frame N's bytes
    off=24 i=1
    while [ $i -lt "$2" ]; do
        off=$((off + 16 + $(od -An -tu4 -j $((off + 8)) -N4 "$1" | tr -d ' '))) i=$((i + 1))
    done
    echo $((off + 16))
}
put() { # FILE OFFSET BYTE...: overwrite bytes (decimal) from OFFSET on
    pf=$1 po=$2; shift 2
    for pb in "$@"; do
        printf "\\$(printf %o "$pb")" | dd of="$pf" bs=1 seek="$po" conv=notrunc status=none; po=$((po + 1))
    done
}
edited() { # NUM KEY CAPTURE LETTER WHAT
    d=$(ls -d "$LABS/$1"-*)
    got=$(ts sh "$d/solution/why.sh" "$3" 2>/dev/null | sed -n "s/^$2: //p")
    printf '%s: %s\n' "$2" "$4" >"$G/edit.ans"
    line=$("$R" lab grade "$1" --capture "$3" --answers "$G/edit.ans" 2>&1 | grep "^  $2 ")
    if [ "$got" = "$4" ] && echo "$line" | grep -q "^  $2  *1/1 "; then
        pass "lab $1 why $2 on a capture where $5: tshark and lab grade both say $4"
    else fail "lab $1 why $2 where $5: tshark says '$got', lab grade: $line"; fi
}
c=$T/g/labs/out/09-loss-go-back-n.pcap
nak=$(ts tshark -r "$c" -Y 'infiniband.aeth.syndrome == 0x60' -T fields -e frame.number -e infiniband.bth.psn 2>/dev/null | head -1)
psn=${nak#*	} nak=${nak%%	*}
if [ -n "$nak" ] && [ "$psn" != "$nak" ]; then
    o=$(frame_off "$c" "$nak")
    for e in "1 c the NAK carries the PSN after the lost one" "16777215 b the NAK carries the PSN before the lost one"; do
        p=$(( (psn + ${e%% *}) % 16777216 )) e=${e#* }
        cp "$c" "$G/e09.pcap" && put "$G/e09.pcap" $((o + 51)) $((p >> 16 & 255)) $((p >> 8 & 255)) $((p & 255))
        edited 09 w1 "$G/e09.pcap" "${e%% *}" "${e#* }"
    done
else fail "lab 09's gen capture: no PSN sequence error NAK to edit"; fi
c=$T/g/labs/out/11-access-errors.pcap
ack=$(ts tshark -r "$c" -Y 'infiniband.bth.opcode == 17 && infiniband.aeth.syndrome < 0x20' -T fields -e frame.number 2>/dev/null | head -1)
n=$(ts tshark -r "$c" -T fields -e frame.number 2>/dev/null | tail -1)
if [ -n "$ack" ] && [ -n "$n" ]; then
    # A copy of the server's ACK after the last frame: the server answered after its NAK.
    o=$(frame_off "$c" "$ack")
    cp "$c" "$G/e11.pcap" && dd if="$c" bs=1 skip=$((o - 16)) count=$((16 + $(od -An -tu4 -j $((o - 8)) -N4 "$c" | tr -d ' '))) \
        status=none >>"$G/e11.pcap"
    edited 11 w2 "$G/e11.pcap" a "the server ACKs after its NAK"
    o=$(frame_off "$G/e11.pcap" $((n + 1)))
    put "$G/e11.pcap" $((o + 54)) 98  # 0x62: NAK, remote access error
    edited 11 w2 "$G/e11.pcap" b "the server NAKs again with a remote access error"
    put "$G/e11.pcap" $((o + 54)) 96  # 0x60: NAK, PSN sequence error
    edited 11 w2 "$G/e11.pcap" c "the server NAKs again with a PSN sequence error"
else fail "lab 11's gen capture: no ACK to copy"; fi

# ---- predict, then run --------------------------------------------------------------------
# For lab 04 the expected predictions are worked out here from the IBA's rules (every packet but
# the last carries the path MTU; payload plus pad is a multiple of 4; UDP 8 + BTH 12 + payload +
# pad + ICRC 4), and checked against what tshark reads off the capture the run then makes.
P=$T/pred
mkdir -p "$P"
size=10001 mtu=1024
pk=$(( (size + mtu - 1) / mtu )); last=$(( size - (pk - 1) * mtu )); pad=$(( (4 - last % 4) % 4 ))
if [ "$pk" -gt 1 ]; then ulen=$(( 8 + 12 + mtu + 4 )); else ulen=$(( 8 + 12 + last + pad + 4 )); fi
P04=$P/labs/out/04-segmentation-mtu.pcap
predict04() { (cd "$P" && printf '%s\n' "$@" | "$R" lab predict 04 --set size=$size --set mtu=$mtu) >"$P/p.out" 2>&1; }
pgrade04() { (cd "$P" && "$R" lab grade 04) 2>&1 | tee "$P/g.out" | sed -n 's/^score 04 predictions //p'; }
if predict04 "$pk" "$last" "$pad" "$ulen" && (cd "$P" && "$R" lab run 04 --gen >"$P/r.out" 2>&1) &&
   grep -q "gen send-bw --count 1 --mtu $mtu --size $size " "$P/r.out"; then
    got=$(sh "$LABS/04-segmentation-mtu/solution/predict.sh" "$P04" | sed 's/^p[0-9]: //' | tr '\n' ' ')
    [ "$got" = "$pk $last $pad $ulen " ] && pass "lab 04 predict: tshark reads '$got' off the run with the learner's size and MTU, as IBA's rules predict" ||
        fail "lab 04 predict: tshark reads '$got' off the run, the rules say '$pk $last $pad $ulen'"
    s=$(pgrade04)
    [ "$s" = 4/4 ] && pass "lab 04 predict: the predictions the rules give score $s" || fail "lab 04 predict: the rules' predictions score '$s': $(cat "$P/g.out")"
    # Written after the capture (as if read off it): not counted.
    predict04 "$pk" "$last" "$pad" "$ulen" && touch -d '1 hour ago' "$P04"
    s=$(pgrade04)
    [ "$s" = 0/4 ] && grep -q "were made after the capture: they are not counted" "$P/g.out" &&
        pass "lab 04 predict: predictions made after the capture are not counted ($s)" ||
        fail "lab 04 predict: predictions after the capture: '$s' $(head -c 300 "$P/g.out")"
else fail "lab 04 predict and run: $(cat "$P/p.out" "$P/r.out" 2>/dev/null | head -c 400)"; fi
cp "$P/labs/out/04-segmentation-mtu.predict" "$P/kept"
(cd "$P" && printf '10\n1O24\n' | "$R" lab predict 04) >"$P/typo.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "prediction p2: '1O24' is not a number" "$P/typo.out" && cmp -s "$P/kept" "$P/labs/out/04-segmentation-mtu.predict" &&
    pass "lab 04 predict: a prediction that is not a number is refused (exit 1), the predictions before it kept" ||
    fail "lab 04 predict typo: exit $rc, $(head -c 300 "$P/typo.out")"
rm -f "$P/labs/out/04-segmentation-mtu.predict"
s=$( (cd "$P" && "$R" lab grade 04) | sed -n 's/^score 04 predictions //p')
[ "$s" = "-/- not made: rocelab lab predict 04, before rocelab lab run 04" ] &&
    pass "lab 04 predict: none made is said, as make grade's table shows a lab not run" || fail "lab 04 no predictions: '$s'"
refused "--set on lab run" "--set belongs to 'lab predict', not to 'lab run'" run 04 --set size=10
refused "--set of a parameter the lab has not" "lab 04 has no parameter 'speed'" predict 04 --set speed=10
refused "--set out of range" "--set mtu=1000: mtu (the first SEND's path MTU) takes 256,512,1024,2048,4096" predict 04 --set mtu=1000
# Every lab asks predictions and has a quiz: a copy of the labs with a 17th that has neither (nor
# more) stands for a lab without them.
rm -rf "$T/bare" && cp -r "$LABS" "$T/bare" && rm -rf "$T/bare/out" && mkdir -p "$T/bare/17-bare"
printf 'title    a lab with no predictions and no quiz\nneeds    send\ngen      send\nnext     read it\nstep     one SEND\nserver\nclient   --op send --iters 1\n' >"$T/bare/17-bare/lab.def"
export ROCELAB_LABS="$T/bare"
refused "predict for a lab without predictions" "lab 17 asks no predictions" predict 17
unset ROCELAB_LABS

# score_below_half SCORE: GOT/MAX with 2 GOT < MAX
below_half() { [ -n "$1" ] && [ "${1#*/}" -gt 0 ] && [ $(( 2 * ${1%/*} )) -lt "${1#*/}" ]; }
# one_off FILE KEY: FILE with KEY's answer one more, to stdout
one_off() { awk -F': ' -v k="$2" '$1 == k { printf "%s: %d\n", $1, $2 + 1; next } { print }' "$1"; }
# one_off_graded KIND SCORE MAX KEY VAL: with KEY answered VAL + 1 the score is one short of MAX, and
# KEY's line (in $W.g.out) says the wrong answer and a hint, but nowhere the right value VAL
one_off_graded() {
    if [ "$2" = "$(($3 - 1))/$3" ] && grep -q "^  $4 *0/1 .*: not $(($5 + 1)); think again: " "$W.g.out" &&
       ! grep "^  $4 " "$W.g.out" | sed "s|^ *$4 *0/1 ||; s/: not $(($5 + 1));//" | grep -qw "$5"; then
        pass "lab $num $1: $4 one off loses that mark only, with a hint that does not give the value"
    else fail "lab $num $1 one off: '$2' $(grep "^  $4 " "$W.g.out")"; fi
}

# predictions NUM SET...: with the learner's parameters SET (NAME=VALUE), the predictions that the
# lab's solution/predict.sh reads with tshark off the capture that followed score full marks (made
# again before it: the file's time is moved on), blanks 0, one off loses that mark with a hint
# that does not give the value, and explain's first frame's numbers copied score below half.
predictions() {
    num=$1; shift
    d=$(ls -d "$LABS/$num"-*); b=$(basename "$d"); W=$T/pl$num; cap=$W/labs/out/$b.pcap
    np=$(grep -c '^predict ' "$d/lab.def")
    sets=""; for a in "$@"; do sets="$sets --set $a"; done
    : >"$W.blank"
    mkdir -p "$W"
    # shellcheck disable=SC2086  # --set NAME=VALUE pairs
    pr() { (cd "$W" && "$R" lab predict "$num" $sets --answers "$1") >"$W.p.out" 2>&1; }
    gr() { touch -d '1 minute' "$cap"; (cd "$W" && "$R" lab grade "$num") 2>&1 | tee "$W.g.out" | sed -n "s/^score $num predictions //p"; }
    if ! pr "$W.blank" || ! (cd "$W" && "$R" lab run "$num" --gen >"$W.r.out" 2>&1) ||
       ! grep -q "with the parameters of your predictions (labs/out/$b.predict): ${*}$" "$W.r.out"; then
        fail "lab $num predict, then run with $*: $(cat "$W.p.out" "$W.r.out" | head -c 400)"; return
    fi
    s=$(gr)
    [ "$s" = "0/$np" ] && pass "lab $num predict ($*): blank predictions score $s" || fail "lab $num blank predictions: '$s'"
    sh "$d/solution/predict.sh" "$cap" >"$W.ref"
    pr "$W.ref"; s=$(gr)
    [ "$s" = "$np/$np" ] && pass "lab $num predict ($*): what tshark reads off the run ($(tr '\n' ' ' <"$W.ref")), predicted, scores $s" ||
        fail "lab $num predict: tshark's values score '$s': $(cat "$W.g.out")"
    key=$(tail -n 1 "$W.ref" | cut -d: -f1); val=$(tail -n 1 "$W.ref" | sed 's/^[^:]*: //')
    one_off "$W.ref" "$key" >"$W.wrong"
    pr "$W.wrong"; s=$(gr)
    one_off_graded predict "$s" "$np" "$key" "$val"
    pl=$("$R" explain "$cap" | sed -n '1s/.* payload=\([0-9]*\).*/\1/p')
    sed "s/: .*/: ${pl:-0}/" "$W.ref" >"$W.copied"
    pr "$W.copied"; s=$(gr)
    below_half "$s" && pass "lab $num predict: explain's first numbers copied (${pl:-0}) score $s" ||
        fail "lab $num predict: explain's numbers copied score '$s'"
}
# Lab 01: 3 packets a message, so the PSN step is not the 1 of lab 01's default 64 bytes.
predictions 01 count=4 size=3000
# Lab 03: three-packet READs and WRITEs, so the READ's PSN span is not 1.
predictions 03 count=3 size=3000
predictions 04 size=10001 mtu=1024
predictions 06 size=5000
predictions 07 size=20000 mtu=512
# Lab 08: five Fetch&Adds; with fewer, more of the predictions would be 0 or 1, numbers a guess finds.
predictions 08 count=5
# Lab 05: 157 packets a SEND, so AckReq inside each message too (rxe: after 65 without).
predictions 05 count=3 size=40000 mtu=256
predictions 09 drop=3
predictions 10 timer=17
predictions 11 bad=3
# Lab 14: 45 bytes, so that the pad is not 0.
predictions 14 size=45
# Lab 13: 1001 bytes, so that the pad is not 0.
predictions 13 size=1001
# Lab 12: 3000 bytes, three packets, so the WRITE is no Only and its DMA Length no packet's payload.
predictions 12 size=3000
# Lab 15: 3000 bytes, three packets a SEND and a short last one, not the default's four full ones.
predictions 15 size=3000
# Lab 15's predictions are about the ib_send_bw step; a run of the lab goes on with other QPs: the
# ib_write_bw step (five WRITEs here) and ib_send_lat (nine SENDs). On the three made one after the
# other, tshark and lab grade must read the predictions in the first alone, as on it alone.
W=$T/pl15s
mkdir -p "$W/labs/out" "$W/labs/15-perftest" && cp "$LABS/15-perftest/answers.txt" "$W/labs/15-perftest/"
g15() { # NAME GEN-ARGS...: $W/NAME.pcap
    o=$W/$1.pcap; shift
    "$R" gen "$@" --ip-a 10.90.0.1 --ip-b 10.90.0.2 -o "$o" >/dev/null 2>&1
}
if g15 bw send-bw --count 16 --size 3000 && g15 wr write-bw --count 5 --size 3000 --qpn-a 0x13 --qpn-b 0x14 &&
   g15 lat send-bw --count 9 --size 64 --qpn-a 0x15 --qpn-b 0x16 &&
   mergecap -a -F pcap -w "$W/labs/out/15-perftest.pcap" "$W/bw.pcap" "$W/wr.pcap" "$W/lat.pcap" 2>/dev/null; then
    sh "$LABS/15-perftest/solution/predict.sh" "$W/bw.pcap" >"$W/alone"
    sh "$LABS/15-perftest/solution/predict.sh" "$W/labs/out/15-perftest.pcap" >"$W/ref"
    (cd "$W" && "$R" lab predict 15 --set size=3000 --answers "$W/ref") >/dev/null 2>&1
    touch -d '1 minute' "$W/labs/out/15-perftest.pcap"
    s=$( (cd "$W" && "$R" lab grade 15) 2>&1 | sed -n 's/^score 15 predictions //p')
    cmp -s "$W/alone" "$W/ref" && [ "$s" = 3/3 ] &&
        pass "lab 15 predict: read in the ib_send_bw step, the WRITEs and SENDs of the steps after it left out ($(tr '\n' ' ' <"$W/ref")$s)" ||
        fail "lab 15 predict in the ib_send_bw step: alone $(tr '\n' ' ' <"$W/alone"), in a run $(tr '\n' ' ' <"$W/ref"), lab grade '$s'"
else fail "lab 15 predict: cannot make a run's three steps (rocelab gen, mergecap)"; fi
# Lab 02: a server QP and a SEND size of the learner's, so neither DestQP nor the frame count is the default's.
predictions 02 qpn=1000 size=5000
# Lab 16: a 3 Gb/s port, not the default's 2: the flows' shares are measured at the learner's rate.
predictions 16 bn=3
for d in "$LABS"/[0-9][0-9]-*/; do
    grep -q '^predict ' "$d/lab.def" || continue
    [ -f "$d/solution/predict.sh" ] && grep -q "^predictions $(basename "$d" | cut -c1-2) " "$0" ||
        fail "$(basename "$d"): predictions that tests/labs does not run, or no solution/predict.sh"
done

# ---- quizzes: hidden parameters, inferred from the frames ---------------------------------
# quiz NUM: the parameters the lab's solution/quiz.sh infers with tshark score full marks, blanks 0,
# one off loses that mark with a hint that does not give the value, explain's first frame's
# numbers copied score below half; --seed makes the same capture again, no seed another.
quiz() {
    num=$1
    d=$(ls -d "$LABS/$num"-*); b=$(basename "$d"); W=$T/ql$num; cap=$W/labs/out/$b.quiz.pcap
    mkdir -p "$W"
    qz() { (cd "$W" && "$R" lab quiz "$num" "$@") >"$W.q.out" 2>&1; }
    qg() { (cd "$W" && "$R" lab quiz "$num" --grade --answers "$1") 2>&1 | tee "$W.g.out" | sed -n "s/^score $num quiz //p"; }
    if ! qz --seed 7 || ! cp "$cap" "$W.a.pcap" || grep -q " gen " "$W.q.out"; then
        fail "lab $num quiz: $(head -c 400 "$W.q.out")"; return
    fi
    nq=$(grep -c '^ask ' "$d/lab.def")
    sh "$d/solution/quiz.sh" "$cap" >"$W.ref"
    s=$(qg "$W.ref")
    [ "$s" = "$nq/$nq" ] && pass "lab $num quiz: the parameters tshark infers ($(tr '\n' ' ' <"$W.ref")) score $s" ||
        fail "lab $num quiz: inferred answers score '$s': $(cat "$W.g.out")"
    s=$(qg "$W/labs/out/$b.quiz.txt")
    [ "$s" = "0/$nq" ] && pass "lab $num quiz: the blank answers file scores $s" || fail "lab $num quiz: blank scores '$s'"
    key=$(tail -n 1 "$W.ref" | cut -d: -f1); val=$(tail -n 1 "$W.ref" | sed 's/^[^:]*: //')
    one_off "$W.ref" "$key" >"$W.wrong"
    s=$(qg "$W.wrong")
    one_off_graded quiz "$s" "$nq" "$key" "$val"
    pl=$("$R" explain "$cap" | sed -n '1s/.* payload=\([0-9]*\).*/\1/p')
    sed "s/: .*/: ${pl:-0}/" "$W.ref" >"$W.copied"
    s=$(qg "$W.copied")
    below_half "$s" && pass "lab $num quiz: explain's first numbers copied (${pl:-0}) score $s" ||
        fail "lab $num quiz: explain's numbers copied score '$s'"
    qz --seed 7 && cmp -s "$W.a.pcap" "$cap" && pass "lab $num quiz: --seed 7 makes the same capture again (a teacher's quiz for a class)" ||
        fail "lab $num quiz: --seed 7 twice differs"
    echo "$key: 7" >>"$W/labs/out/$b.quiz.txt"
    qz --seed 7 && grep -q "^$key: 7$" "$W/labs/out/$b.quiz.txt" && grep -q "your answers in .* are kept" "$W.q.out" &&
        pass "lab $num quiz: the same seed again keeps the answers written for it" ||
        fail "lab $num quiz: the same seed again lost the answers: $(head -c 200 "$W.q.out")"
    # A few hidden values (lab 11's: 16 pairs) may come out the same by chance: five quizzes that are
    # all the first one's would happen once in 16^4 runs, not every run.
    tries=0 qfail=0
    qz && cp "$cap" "$W.b.pcap" || qfail=1
    while [ $qfail -eq 0 ] && [ $tries -lt 4 ]; do
        qz || { qfail=1; break; }
        cmp -s "$W.b.pcap" "$cap" || break
        tries=$((tries + 1))
    done
    [ $qfail -eq 0 ] && ! cmp -s "$W.b.pcap" "$cap" &&
        pass "lab $num quiz: without --seed each quiz is another ($((tries + 1)) tries)" ||
        fail "lab $num quiz: five quizzes without --seed are all one, or one failed: $(head -c 200 "$W.q.out")"
    sh "$d/solution/quiz.sh" "$cap" >"$W.ref2"
    s=$(qg "$W.ref2")
    [ "$s" = "$nq/$nq" ] && pass "lab $num quiz: a random quiz is graded against its own hidden parameters ($s)" ||
        fail "lab $num quiz: random quiz: '$s' $(cat "$W.g.out")"
}
quiz 01
quiz 02
quiz 03
quiz 04
quiz 05
quiz 06
quiz 07
quiz 08
quiz 09
quiz 10
quiz 11
quiz 12
quiz 13
quiz 14
quiz 15
quiz 16
for d in "$LABS"/[0-9][0-9]-*/; do
    grep -q '^quiz ' "$d/lab.def" || continue
    [ -f "$d/solution/quiz.sh" ] && grep -q "^quiz $(basename "$d" | cut -c1-2)$" "$0" ||
        fail "$(basename "$d"): a quiz that tests/labs does not run, or no solution/quiz.sh"
done
Q=$T/quiz
mkdir -p "$Q"
cd "$Q" && refused "quiz --grade before any quiz" "no quiz to grade" quiz 04 --grade
cd - >/dev/null
refused "--seed on lab grade" "--seed belongs to 'lab quiz', not to 'lab grade'" grade 04 --seed 3
export ROCELAB_LABS="$T/bare"
refused "a quiz for a lab without one" "lab 17 has no quiz" quiz 17
unset ROCELAB_LABS

# A capture of another lab, or one without the fault a lab is about, is refused, not graded.
refused "lab 09 graded on a capture with nothing lost" \
    "04-segmentation-mtu.pcap is not a capture of lab 09: it holds no resent request: nothing was lost" \
    grade 09 --capture "$T/g/labs/out/04-segmentation-mtu.pcap" --answers "$G/ans/09.txt"
refused "lab 07 graded on lab 06's capture" "is not a capture of lab 07: it holds no RDMA READ response" \
    grade 07 --capture "$T/g/labs/out/06-rdma-write.pcap" --answers "$G/ans/07.txt"
refused "lab 10 graded on lab 01's capture" "is not a capture of lab 10: it holds no RNR NAK" \
    grade 10 --capture "$T/g/labs/out/01-first-capture.pcap" --answers "$G/ans/10.txt"

# Coding: each checker against the solution, the untouched skeleton, a subtly wrong and a broken copy.
for l in $labs; do cp -r "$LABS/$l" "$G/labs/"; done
cp -r "$LABS/grade" "$G/labs/"
mkdir -p "$G/core" && cp -r "$LABS/../core/include" "$G/core/"
L01=$G/labs/01-first-capture L09=$G/labs/09-loss-go-back-n L14=$G/labs/14-icrc-by-hand
mkdir -p "$L01/wrong" "$L01/broken" "$L09/wrong" "$L14/wrong"
sed 's/b->dqpn = .*/b->dqpn = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];/' \
    "$L01/solution/bth.c" >"$L01/wrong/bth.c"
sed 's/return 0;/return 0/' "$L01/solution/bth.c" >"$L01/broken/bth.c"
# PSN distance as a plain 32-bit subtraction: right until the PSNs wrap or lie far apart.
sed 's/uint32_t d = (a - b) & 0xffffff;.*/return (int32_t)(a - b);/; /return d & 0x800000/d' \
    "$L09/solution/psn.c" >"$L09/wrong/psn.c"
# The ICRC with the UDP checksum left as it is.
grep -v '/\* UDP checksum' "$L14/solution/icrc.c" >"$L14/wrong/icrc.c"
# coding_score FROM NUM NAME: that row of make grade's table, graded from FROM/
# (make grade's table for FROM is the same for every row: made once)
coding_score() {
    [ -s "$G/g.$1.out" ] || (cd "$G" && GRADE_FROM=$1 sh "$LABS/../scripts/grade.sh" "$R" >"$G/g.$1.out" 2>&1)
    awk -v n="$2" -v x="$3" '$1 == n && $2 == x { print $3 }' "$G/g.$1.out"
}
coding() {
    num=$1 name=$2 max=$3 wrong=$4 says=$5
    s=$(coding_score solution "$num" "$name")
    [ "$s" = "$max/$max" ] && pass "lab $num $name exercise: the reference solution scores $s" ||
        fail "lab $num $name solution: '$s' $(grep -A3 "lab $num, $name" "$G/g.solution.out" | tr '\n' ' ')"
    s=$(coding_score exercise "$num" "$name")
    [ "$s" = "0/$max" ] && pass "lab $num $name exercise: the untouched skeleton scores $s" ||
        fail "lab $num $name skeleton: '$s'"
    s=$(coding_score wrong "$num" "$name")
    [ "$s" = "$wrong/$max" ] && grep -q "FAIL $says" "$G/g.wrong.out" &&
        pass "lab $num $name exercise: a subtly wrong version scores $s and names the case ('$says')" ||
        fail "lab $num $name wrong: '$s' $(grep FAIL "$G/g.wrong.out" | head -2)"
}
# What the wrong versions keep, from the checkers' tables: 12 BTH fields, DestQP read wrong: 11.
# 8 PSN kinds; a plain subtraction is right only for nearby PSNs, behind and ahead of the expected
# one with no wrap: 3. 6 ICRC kinds; the UDP checksum unmasked fails only its own kind: 5.
coding 01 bth 12 11 "DestQP of the BTH .*you read 0x"
coding 09 psn 8 3 "lab_psn_diff: across the wrap.*returned -"
coding 14 icrc 6 5 "IPv4 with a random UDP checksum"
s=$(coding_score broken 01 bth)
[ "$s" = 0/12 ] && grep -q "does not compile" "$G/g.broken.out" && pass "lab 01 BTH exercise: code that does not compile scores 0 and says so" ||
    fail "BTH broken: '$s'"
# make grade's table with every reference solution and answer.
(cd "$G" && GRADE_FROM=solution GRADE_ANSWERS="$G/ans" sh "$LABS/../scripts/grade.sh" "$R" >"$G/g.out" 2>&1)
t=$(sed -n 's/^total *//p' "$G/g.out")
if [ -n "$t" ] && [ "${t%/*}" = "${t#*/}" ] && [ "${t#*/}" -gt 60 ] && [ "$(grep -c '^[0-9][0-9] ' "$G/g.out")" -ge 15 ]; then
    pass "make grade: every reference solution and answer file, $(grep -c '^[0-9][0-9] ' "$G/g.out") rows, total $t"
else
    fail "make grade table: $(tail -18 "$G/g.out" | tr '\n' ' ')"
fi

# ---- without root: the lab says it runs on gen ---------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
    mkdir -p "$T/n" && chown 65534 "$T/n"
    if (cd "$T/n" && setpriv --reuid=65534 --regid=65534 --clear-groups "$R" lab run 01 >"$T/n.out" 2>&1) &&
       grep -q "network namespaces need root" "$T/n.out" && capture_ok "lab 01 as nobody" "$T/n/labs/out/01-first-capture.pcap"; then
        pass "without root, lab 01 says why and runs on a capture from rocelab gen"
    else
        fail "lab 01 without root: $(tail -c 300 "$T/n.out")"
    fi
fi

# ---- the real wire: namespaces, peers, tcpdump --------------------------------------------
gone() { ! ip netns list 2>/dev/null | grep -q '^rl-[ab]\b'; }
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP labs over veth: needs root"
elif ! gone; then
    echo "SKIP labs over veth: a lab topology (rl-a, rl-b) is up here already; it is somebody's, left alone"
else
    mine=1
    mkdir -p "$T/w"
    for l in $labs; do
        num=${l%%-*}
        if (cd "$T/w" && "$R" lab run "$num" >"$T/w.out" 2>&1) && capture_ok "lab $l" "$T/w/labs/out/$l.pcap"; then
            if gone; then pass "lab $l over veth: $(grep -c '^step ' "$T/w.out") step(s), a capture of RoCEv2 with good ICRCs, nothing left behind"
            else fail "lab $l: the namespaces are still there afterwards"; fi
            questions "$num" "$T/w/labs/out/$l.pcap" "over veth"
            # With `capture exchange`, each step whose peers exchange over TCP (not rping's CM, not a
            # replay) opens one connection to port 18515, and the capture holds it; without, none: tshark
            # counts the SYNs.
            want=$(awk 'function end() { n += tcp && !cm; tcp = cm = 0 } /^capture[ \t]+exchange/ { x = 1 }
                /^step/ { end() } /^server/ { tcp = 1 } /^compat[ \t]+rping/ { cm = 1 }
                /^(server|client)[ \t].*(-R|--cm)([ \t]|$)/ { cm = 1 }
                END { end(); print x ? n : 0 }' "$LABS/$l/lab.def")
            syn=$(ts tshark -r - -Y 'tcp.flags.syn == 1 && tcp.flags.ack == 0 && tcp.dstport == 18515' <"$T/w/labs/out/$l.pcap" 2>/dev/null | wc -l)
            if [ "$syn" = "$want" ]; then pass "lab $l over veth: the capture holds the TCP exchange of $want step(s), as its lab.def says"
            else fail "lab $l over veth: $syn TCP connections to port 18515 in the capture, $want steps exchange over TCP"; fi
            [ -f "$LABS/$l/solution/why.sh" ] && why "$num" "$T/w/labs/out/$l.pcap" "over veth"
            # The commands the guide shows for doing it by hand are ones this run ran.
            sed -n 's/^  + //p' "$T/w.out" | sed -e 's/ &$//' -e "s|$R|rocelab|g" >"$T/ran"
            # (the guide's lines for namespace rlrxe, the realrxe VM's, are run by tests/realrxe)
            cmds "$LABS/$l/README.md" | grep -E '^ip netns exec rl-[ab] |^rocelab gen ' >"$T/shown"
            if grep -vxF -f "$T/ran" "$T/shown" >"$T/missing"; then
                fail "lab $l over veth: the guide shows commands the lab did not run: $(head -3 "$T/missing" | tr '\n' ' ')"
            else pass "lab $l over veth: the guide's $(wc -l <"$T/shown") by-hand commands are ones the lab ran"; fi
        else
            fail "lab $l over veth: $(tail -c 400 "$T/w.out")"
        fi
        # Lab 02's questions on the TCP exchange: graded over the veth (answered by tshark's tcp.payload),
        # and the server's PSN one off loses that mark only.
        [ "$num" = 02 ] && {
            C02=$T/w/labs/out/$l.pcap
            "$R" lab grade 02 --capture "$C02" --answers "$G/ans/02.txt" >"$G/out" 2>&1
            v=$(sed -n 's/^5: //p' "$G/ans/02.txt")
            sed "s/^5: .*/5: $(( (${v:-0} + 1) % 16777216 ))/" "$G/ans/02.txt" >"$G/wrong02.txt"
            if grep -q "^  5  *1/1 " "$G/out" && grep -q "^  6  *1/1 " "$G/out" && grep -q '^6: 0xfe80$' "$G/ans/02.txt" &&
               "$R" lab grade 02 --capture "$C02" --answers "$G/wrong02.txt" 2>&1 | grep -q "^score 02 questions 5/6$"; then
                pass "lab 02 over veth: the exchange's server PSN ($v) and the client's link-local GID (fe80) are graded from the capture"
            else fail "lab 02 over veth: the exchange questions: $(grep -E '^  [56] ' "$G/out" | tr '\n' ' ')"; fi
        }
        [ "$num" = 02 ] && if grep -q "Failed to modify QP to RTR: Invalid argument (the other side's GID fe80::" "$T/w.out"; then
            pass "lab 02 shows the wrong-GID-index error"; else fail "lab 02: no GID error shown"; fi
        [ "$num" = 12 ] && if grep -q "Failed to modify QP to RTR: Invalid argument (--no-grh" "$T/w.out" &&
            grep -q "Failed to modify QP to RTR: Invalid argument (the other side's GID fe80::" "$T/w.out" &&
            grep -q "work request 0 failed: remote access error" "$T/w.out"; then
            pass "lab 12 shows each pitfall's error: is_global = 0, the GID families, the wrong R_Key"
        else fail "lab 12: the pitfalls' errors: $(grep -E 'rocelab peer:' "$T/w.out" | head -5 | tr '\n' ' ')"; fi
        # Each perftest step: both ends' header blocks and key lines, the client's result row (and the
        # server's, for ib_write_bw and ib_read_bw, which get the client's), 4096 bytes 16 times.
        [ "$num" = 15 ] && if [ "$(grep -c '^ *Data ex. method : Ethernet' "$T/w.out")" = 8 ] &&
            [ "$(grep -c '^ *remote address: LID 0000 QPN 0x' "$T/w.out")" = 8 ] &&
            [ "$(grep -c '^ *GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:90:00:0[12]$' "$T/w.out")" = 16 ] &&
            [ "$(grep -c '^ *4096 *16 ' "$T/w.out")" = 6 ] && [ "$(grep -c '^ *64 *16 ' "$T/w.out")" = 2 ]; then
            pass "lab 15 shows perftest's header blocks, key lines (IPv4-mapped GIDs) and result rows at both ends"
        else fail "lab 15: perftest's output: $(grep -c 'Data ex. method' "$T/w.out") headers, $(grep -c 'GID: ' "$T/w.out") GID lines, $(grep -c '^ *4096 *16 ' "$T/w.out") + $(grep -c '^ *64 *16 ' "$T/w.out") result rows"; fi
    done
    # up / status / down by hand
    if "$R" lab status >/dev/null 2>&1; then fail "lab status says up before lab up"; fi
    if "$R" lab up --mtu 9000 >"$T/up" 2>&1 && "$R" lab status >"$T/st" 2>&1 && grep -q "mtu 9000" "$T/st" &&
       "$R" lab down >/dev/null 2>&1 && gone && ! "$R" lab status >/dev/null 2>&1; then
        pass "lab up --mtu 9000, status (up, MTU 9000), down (gone)"
    else
        fail "lab up/status/down: $(tail -c 300 "$T/up") $(tail -c 300 "$T/st")"
        "$R" lab down >/dev/null 2>&1
    fi
    # Ctrl-C in the middle of a lab
    (cd "$T/w" && exec "$R" lab run 09 >"$T/int" 2>&1) &
    lp=$!
    i=0
    while ! grep -q "^step 1" "$T/int" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -INT $lp
    wait $lp
    rc=$?
    sleep 0.5
    if [ $rc -eq 130 ] && gone && ! pgrep -f "$R peer" >/dev/null; then
        pass "Ctrl-C during a lab: exit 130, namespaces and peers gone"
    else
        fail "Ctrl-C during a lab: exit $rc, $(ip netns list | tr '\n' ' '), $(tail -c 200 "$T/int")"
    fi
    # One lab at a time; only the namespaces rocelab made are removed.
    . "$HERE/lock.sh"
    # A user namespace, as a learner without root runs it.
    mkdir -p "$T/u" && chown 65534 "$T/u"
    if ! setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user --map-root-user --net --mount true 2>/dev/null; then
        echo "SKIP lab in a user namespace: unprivileged user namespaces are off here"
    elif (cd "$T/u" && setpriv --reuid=65534 --regid=65534 --clear-groups \
            unshare --user --map-root-user --net --mount "$R" lab run 01 >"$T/u.out" 2>&1) &&
         grep -q "libpcap captures in its place" "$T/u.out" &&
         capture_ok "lab 01 in a user namespace" "$T/u/labs/out/01-first-capture.pcap"; then
        pass "lab 01 in 'unshare --user --map-root-user --net --mount' without root: real frames, captured"
    else
        fail "lab 01 in a user namespace: $(tail -c 300 "$T/u.out")"
    fi
fi

echo "labs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
