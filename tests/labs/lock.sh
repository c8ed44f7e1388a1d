# Sourced by run.sh as root, with no rl-a or rl-b up (its R, T, pass, fail, gone, capture_ok):
# one lab at a time, and rocelab removes only the namespaces it made (issue 22, D4). Bounded in time.

# Two runs at once: the second is refused while the first runs, which ends as if alone.
mkdir -p "$T/c1" "$T/c2"
(cd "$T/c1" && exec timeout 120 "$R" lab run 09 >"$T/c1.out" 2>&1) &
c1=$!
i=0
while ! grep -q "^step 1" "$T/c1.out" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
(cd "$T/c2" && timeout 60 "$R" lab run 01 >"$T/c2.out" 2>&1)
rc2=$?
wait $c1
rc1=$?
if [ $rc2 -ne 0 ] && grep -q "another rocelab lab (process [0-9]*) is using namespaces rl-a and rl-b" "$T/c2.out"; then
    pass "a second lab run while one runs is refused, naming the first's process"
else
    fail "a second lab run while one runs: exit $rc2, $(tail -c 300 "$T/c2.out")"
fi
if [ $rc1 -eq 0 ] && capture_ok "the first of two runs" "$T/c1/labs/out/09-loss-go-back-n.pcap" &&
   [ ! -e "$T/c2/labs/out/01-first-capture.pcap" ] && gone; then
    pass "the first run ends as if alone: its capture, nothing of the second's, namespaces gone"
else
    fail "the first of two runs: exit $rc1, $(ip netns list | tr '\n' ' '), $(tail -c 300 "$T/c1.out")"
fi
# Started together: one runs, the other is refused; never both, never a mixed capture.
mkdir -p "$T/c3" "$T/c4"
(cd "$T/c3" && exec timeout 120 "$R" lab run 05 >"$T/c3.out" 2>&1) &
c3=$!
(cd "$T/c4" && exec timeout 120 "$R" lab run 10 >"$T/c4.out" 2>&1) &
c4=$!
wait $c3
rc3=$?
wait $c4
rc4=$?
refused=$(grep -l "another rocelab lab" "$T/c3.out" "$T/c4.out" | wc -l)
if [ $((rc3 == 0)) -ne $((rc4 == 0)) ] && [ "$refused" -eq 1 ] && gone; then
    pass "two lab runs started together: one ran, the other was refused"
else
    fail "two lab runs started together: exits $rc3 and $rc4, $refused refused, $(ip netns list | tr '\n' ' ')"
fi

# Namespaces of the lab's names that rocelab did not make are neither used nor removed.
ip netns add rl-a
if ! (cd "$T/c1" && timeout 60 "$R" lab run 01 >"$T/f.out" 2>&1) &&
   grep -q "namespace rl-a: not made by rocelab lab" "$T/f.out" && ip netns list | grep -q '^rl-a\b' &&
   ! ip netns list | grep -q '^rl-b\b'; then
    pass "a lab run beside someone else's rl-a refuses, and leaves it (and makes no rl-b)"
else
    fail "a lab run beside someone else's rl-a: $(ip netns list | tr '\n' ' '), $(tail -c 300 "$T/f.out")"
fi
ip netns add rl-b
if ! "$R" lab down >"$T/f.out" 2>&1 && grep -q "not made by rocelab lab, so left as it is" "$T/f.out" &&
   [ "$(ip netns list | grep -c '^rl-[ab]\b')" -eq 2 ]; then
    pass "lab down leaves namespaces rl-a and rl-b that rocelab did not make"
else
    fail "lab down of someone else's namespaces: $(ip netns list | tr '\n' ' '), $(tail -c 300 "$T/f.out")"
fi
ip netns del rl-a
ip netns del rl-b
