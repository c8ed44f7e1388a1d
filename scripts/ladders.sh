#!/bin/sh
# The ladder figures of the lab guides, docs/figures/ladder/NN-name.svg: each lab run with --gen (its
# parameters at their defaults) in a temporary folder, then the guide's own
# `rocelab explain --ladder --svg` line on that capture. tests/labs draws them again and compares.
# Usage, from the top of the repository: sh scripts/ladders.sh [ROCELAB]   (default build/rocelab)
set -eu
R=${1:-build/rocelab}
case $R in /*) ;; *) R=$(pwd)/$R ;; esac
top=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" docs/figures/ladder
ln -s "$R" "$tmp/bin/rocelab"
for d in labs/[0-9][0-9]-*/; do
	b=$(basename "$d")
	cmd=$(awk '/^```sh/ { c = 1; next } /^```/ { c = 0 } c' "$d/README.md" | grep '^rocelab explain --ladder --svg ' || true)
	if [ -z "$cmd" ]; then
		echo "ladders: $d/README.md has no 'rocelab explain --ladder --svg' line" >&2
		exit 1
	fi
	(cd "$tmp" && ROCELAB_LABS="$top/labs" "$R" lab run "${b%%-*}" --gen >/dev/null &&
		PATH=$tmp/bin:$PATH ROCELAB_LABS="$top/labs" sh -c "$cmd")
	cp "$tmp/labs/out/$b.svg" "docs/figures/ladder/$b.svg"
	echo "docs/figures/ladder/$b.svg"
done
