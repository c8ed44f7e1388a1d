#!/bin/sh
# make handout: the learners' copy of the labs, OUT/rocelab-labs.tar.gz. Each lab's guides, its
# lab.def, a blank answers file and its exercise/, the exercises' checkers and the grading script,
# with a Makefile whose `make grade` works against an installed rocelab. No lab's solution/ goes
# in: that folder is the teacher's (reference answers, predict.sh, quiz.sh, reference code), and
# the tests read it from the source tree.
# Usage: handout.sh OUT
set -eu
OUT=${1:?usage: handout.sh OUT}
cd "$(dirname "$0")/.."
mkdir -p "$OUT"
S=$(mktemp -d "$OUT/.handout.XXXXXX")
trap 'rm -rf "$S"' EXIT INT TERM
H=$S/rocelab-labs
mkdir -p "$H/labs/grade"
cp scripts/handout/README.md scripts/handout/Makefile "$H/"
cp scripts/grade.sh "$H/grade.sh"
cp labs/grade/README.md labs/grade/check_*.c "$H/labs/grade/"
# The guides' figures, at the same place relative to them as in the source tree (../../docs/figures).
mkdir -p "$H/docs/figures/ladder" "$H/docs/figures/report"
cp docs/figures/*.svg "$H/docs/figures/"
cp docs/figures/ladder/*.svg "$H/docs/figures/ladder/"
cp docs/figures/report/*.png "$H/docs/figures/report/"
n=0
for d in labs/[0-9][0-9]-*/; do
    d=${d%/}
    mkdir -p "$H/$d"
    cp "$d/lab.def" "$d/README.md" "$d/README.zh-CN.md" "$d/answers.txt" "$H/$d/"
    if [ -d "$d/exercise" ]; then cp -R "$d/exercise" "$H/$d/"; fi
    n=$((n + 1))
done
# Nothing of a solution may have come along: a learner's copy with one is not a handout.
if find "$H" -name solution -o -name '*.sh' ! -path "$H/grade.sh" | grep -q .; then
    echo "handout: a solution found its way in:" >&2
    find "$H" -name solution -o -name '*.sh' ! -path "$H/grade.sh" >&2
    exit 1
fi
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$S" -czf "$S/rocelab-labs.tar.gz" rocelab-labs
mv "$S/rocelab-labs.tar.gz" "$OUT/rocelab-labs.tar.gz"
echo "handout: $OUT/rocelab-labs.tar.gz ($n labs, no solutions): give it to your learners with rocelab installed"
