#!/bin/sh
# scripts/man.sh ROCELAB OUTDIR: the man pages, made from the binary's own --help by help2man,
# split the way git's are: rocelab(1) for the command and its list of subcommands, and
# rocelab-CMD(1) for each subcommand that `rocelab --help` lists. Generated at build time, never
# committed, so a page cannot say something the binary does not.
set -eu
rocelab=$1
out=$2
command -v help2man >/dev/null 2>&1 || {
	echo "man: needs help2man (apt-get install help2man), or run make bootstrap" >&2
	exit 1
}
mkdir -p "$out"
# "rocelab 0.1.0 (CRC-32: isa-l)" -> 0.1.0
version=$("$rocelab" --version | awk '{ print $2; exit }')
# The subcommands with their one-line summaries, from the "commands:" block of --help.
"$rocelab" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print } on && /^$/ { exit }' >"$out/commands.txt"
[ -s "$out/commands.txt" ] || { echo "man: no commands in '$rocelab --help'" >&2; exit 1; }

self="$(cd "$(dirname "$rocelab")" && pwd)/$(basename "$rocelab")"
# wrapper NAME [CMD]: help2man names a page after the program it runs, and takes its synopsis from
# "Usage:" and "   or:" lines; rocelab's say "usage:" and indent the other forms under it.
wrapper() {
	printf '#!/bin/sh\n"%s" %s "$@" | sed -e "s/^usage:/Usage:/" -e "1,/^\$/s/^  *rocelab /   or: rocelab /"\n' \
		"$self" "${2:-}" >"$out/$1"
	chmod 755 "$out/$1"
}
seealso() { # seealso PAGE: every page but PAGE, as "rocelab-gen(1), ..."
	{ echo rocelab; awk '{ print "rocelab-" $1 }' "$out/commands.txt"; } |
		grep -vx "$1" | sed 's/.*/\\fB&\\fR(1)/' | paste -sd, - | sed 's/,/, /g'
}

cat >"$out/rocelab.h2m" <<H2M
[SEE ALSO]
$(seealso rocelab)
.PP
The labs' guides, installed under \fIshare/rocelab/labs\fR (\fBrocelab lab list\fR).
H2M
wrapper rocelab
help2man --no-info --section=1 --source="rocelab $version" --manual="rocelab manual" \
	--version-string="$version" --name="RoCEv2 on the wire, without RDMA hardware" \
	--include="$out/rocelab.h2m" --output="$out/rocelab.1" "$out/rocelab"
rm -f "$out/rocelab" "$out/rocelab.h2m"

while read -r cmd summary; do
	wrapper "rocelab-$cmd" "$cmd"
	printf '[SEE ALSO]\n%s\n' "$(seealso "rocelab-$cmd")" >"$out/rocelab-$cmd.h2m"
	help2man --no-info --section=1 --source="rocelab $version" --manual="rocelab manual" \
		--version-string="$version" --name="$summary" \
		--include="$out/rocelab-$cmd.h2m" --output="$out/rocelab-$cmd.1" "$out/rocelab-$cmd"
	rm -f "$out/rocelab-$cmd" "$out/rocelab-$cmd.h2m"
done <"$out/commands.txt"
