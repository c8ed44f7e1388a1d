# Shared by tests/scenarios/run.sh and bench/run.sh part 8: two builds of rocelab (the analyzer's
# hash tables, and its reference lookup: make scan-lookup) must explain a capture alike.
# shellcheck shell=sh

# explain_same A B PCAP DIR: explain's output (text and --json; stdout, stderr and exit status) on
# PCAP from rocelab A and from rocelab B, through files in DIR: prints 'identical', or where they
# first differ (and returns 1).
explain_same() {
    for _j in "" --json; do
        for _r in a b; do
            if [ "$_r" = a ]; then _x=$1; else _x=$2; fi
            # shellcheck disable=SC2086  # $_j: no word, or --json
            if "$_x" explain $_j "$3" >"$4/same-$_r.out" 2>"$4/same-$_r.err"; then _st=0; else _st=$?; fi
            echo "exit status $_st" >>"$4/same-$_r.err"
        done
        for _s in out err; do
            cmp -s "$4/same-a.$_s" "$4/same-b.$_s" && continue
            _l=$(cmp "$4/same-a.$_s" "$4/same-b.$_s" 2>&1 | sed -n 's/.*line \([0-9]*\).*/\1/p')
            echo "explain $_j std$_s differs at line ${_l:=1}: [$(sed -n "${_l}p" "$4/same-a.$_s" | cut -c1-160)]" \
                "vs [$(sed -n "${_l}p" "$4/same-b.$_s" | cut -c1-160)]"
            rm -f "$4"/same-[ab].out "$4"/same-[ab].err
            return 1
        done
    done
    rm -f "$4"/same-[ab].out "$4"/same-[ab].err
    echo identical
}
