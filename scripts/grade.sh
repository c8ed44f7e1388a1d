#!/bin/sh
# make grade: every lab's exercises, and a score table.
#   questions: rocelab lab grade NN (answers file against the learner's capture); its "why" row
#              is the lab's multiple-choice questions, scored by the same command
#   coding:    labs/grade/check_*.c built with the learner's code, run
# Usage: grade.sh ROCELAB
#   GRADE_FROM=solution grades the reference solutions instead of exercise/;
#   GRADE_ANSWERS=DIR takes DIR/NN.txt as lab NN's answers file;
#   GRADE_LIBS: the core library and what it links with (the Makefile sets it).
set -u
R=${1:?usage: grade.sh ROCELAB}
FROM=${GRADE_FROM:-exercise}
OUT=build/grade
mkdir -p "$OUT"
: >"$OUT/scores"
CC=${CC:-cc}
# In the source tree the core's headers are here and the Makefile passes GRADE_LIBS; in a learner's
# handout (make handout) they are those of the installed rocelab, which pkg-config knows.
if [ -d core/include ]; then
    INC=-Icore/include
    LIBS=${GRADE_LIBS:-build/librocelab.a -lisal -lz}
elif INC=$(pkg-config --cflags rocelab 2>/dev/null) && LIBS=$(pkg-config --libs rocelab); then :
else
    echo "grade: no core/include here and pkg-config knows no rocelab: install rocelab (make install)" >&2
    exit 2
fi

# coding NN NAME MAX CHECKER SOURCE: build the checker with the learner's code (headers from the
# lab's exercise/ folder) and run it; MAX is what a compile failure scores out of.
coding() {
    num=$1 name=$2 max=$3 check=$4 src=$5
    inc=$(dirname "$(dirname "$src")")/exercise
    if ! $CC -std=c11 -Wall -Wextra $INC -I"$inc" "$check" "$src" -o "$OUT/$num-$name" $LIBS 2>"$OUT/$num-$name.cc"; then
        echo "lab $num, $name: your code ($src) does not compile:"
        head -n 5 "$OUT/$num-$name.cc" | sed 's/^/    /'
        echo "score $num $name 0/$max" >>"$OUT/scores"
        return
    fi
    echo "lab $num, $name ($src):"
    timeout 60 "$OUT/$num-$name" >"$OUT/$num-$name.out" 2>&1
    grep -v '^score ' "$OUT/$num-$name.out" | sed 's/^/    /'
    grep '^score ' "$OUT/$num-$name.out" >>"$OUT/scores" ||
        echo "score $num $name 0/$max (the checker stopped: $(tail -n 1 "$OUT/$num-$name.out"))" >>"$OUT/scores"
}

for d in labs/[0-9][0-9]-*/; do
    d=${d%/}
    num=$(basename "$d" | cut -c1-2)
    if [ -f "$d/answers.txt" ]; then
        a=$d/answers.txt
        [ -n "${GRADE_ANSWERS:-}" ] && a=$GRADE_ANSWERS/$num.txt
        "$R" lab grade "$num" --answers "$a" >"$OUT/$num-questions.out" 2>&1
        cat "$OUT/$num-questions.out" | grep -v '^score ' | sed 's/^/  /'
        if grep -q "no capture to grade against" "$OUT/$num-questions.out"; then
            echo "score $num questions -/- not run yet: rocelab lab run $num" >>"$OUT/scores"
        else
            grep '^score ' "$OUT/$num-questions.out" >>"$OUT/scores" ||
                echo "score $num questions 0/- ($(tail -n 1 "$OUT/$num-questions.out"))" >>"$OUT/scores"
        fi
    fi
    [ -f "$d/$FROM/bth.c" ] && coding "$num" bth 12 labs/grade/check_bth.c "$d/$FROM/bth.c"
    [ -f "$d/$FROM/psn.c" ] && coding "$num" psn 8 labs/grade/check_psn.c "$d/$FROM/psn.c"
    [ -f "$d/$FROM/icrc.c" ] && coding "$num" icrc 6 labs/grade/check_icrc.c "$d/$FROM/icrc.c"
done

echo
printf '%-5s %-10s %s\n' lab part score
awk '{ split($4, s, "/"); line = $0; sub(/^score [^ ]* [^ ]* /, "", line)
       printf "%-5s %-10s %s\n", $2, $3, line; got += s[1]; max += s[2] }
     END { printf "%-5s %-10s %d/%d\n", "total", "", got, max }' "$OUT/scores"
