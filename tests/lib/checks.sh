# Shared by the test scripts that run checkers printing "PASS ..." and "FAIL ..." lines.
# shellcheck shell=sh

# checked NAME CMD...: run a checker and print its PASS/FAIL lines. If it exited
# non-zero without a FAIL line (a crash, a missing module), or printed no check
# at all, print a FAIL line that says so. It only prints, so it works inside
# pipelines and subshells.
checked() {
    _name=$1
    shift
    _out=$(mktemp)
    if "$@" >"$_out" 2>&1; then _rc=0; else _rc=$?; fi
    grep -E '^(PASS|FAIL) ' "$_out" || true   # none is reported below; callers may run under set -e
    if [ "$_rc" -ne 0 ] && ! grep -q '^FAIL ' "$_out"; then
        echo "FAIL $_name: checker exited with status $_rc: $(tail -n 3 "$_out" | tr '\n' ' ')"
    elif [ "$_rc" -eq 0 ] && ! grep -q -E '^(PASS|FAIL) ' "$_out"; then
        echo "FAIL $_name: checker ran no checks"
    fi
    rm -f "$_out"
}

# count_lines FILE: add FILE's PASS and FAIL lines to $passed and $failed; show the failures.
count_lines() {
    _np=$(grep -c '^PASS ' "$1" || true)
    _nf=$(grep -c '^FAIL ' "$1" || true)
    passed=$((passed + _np))
    failed=$((failed + _nf))
    grep '^FAIL ' "$1" || true
}

# run_checks NAME CMD...: checked, printing every line, and counted.
run_checks() {
    _rf=$(mktemp)
    checked "$@" >"$_rf"
    cat "$_rf"
    count_lines "$_rf" >/dev/null
    rm -f "$_rf"
}
