#!/bin/sh
# `make install` into a scratch DESTDIR, then build and run a program against the
# installed headers and library through pkg-config, as a user of the library would.
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
make -s install DESTDIR="$T" PREFIX=/opt/rocelab >/dev/null
pass=0
fail=0
check() { if "$@"; then pass=$((pass + 1)); echo "ok   $desc"; else fail=$((fail + 1)); echo "FAIL $desc"; fi; }

# -Werror is CI's and make test's (WERROR=1), not a user's plain make: a newer compiler's new warning
# must not stop someone building rocelab. (make -n: what would run, in a scratch build folder.)
here=$(pwd)
desc="a plain make compiles without -Werror"
check sh -c '! env -u WERROR -u MAKEFLAGS -u MAKELEVEL make -n -C "$1" B="$2/b" all | grep -q -- -Werror' sh "$here" "$T"
desc="make WERROR=1 (CI) and make test compile with -Werror"
check sh -c 'make -n -C "$1" B="$2/b" WERROR=1 all | grep -q -- "-Wextra -Werror" &&
	env -u WERROR make -n -C "$1" B="$2/b" ROCELAB_NO_BOOTSTRAP=1 test 2>/dev/null | grep -q -- "-Wextra -Werror"' sh "$here" "$T"

desc="rocelab installed in PREFIX/bin"; check test -x "$T/opt/rocelab/bin/rocelab"
desc="librocelab.a and headers installed"; check test -f "$T/opt/rocelab/lib/librocelab.a" -a -f "$T/opt/rocelab/include/rocelab/rocelab.h"

cat >"$T/t.c" <<'C'
#include <rocelab/rocelab.h>
int main(void)
{
	uint8_t frame[128];
	struct rl_pkt p, d;
	size_t n;

	rl_pkt_init(&p, (uint8_t)rl_opcode_by_name("RC Acknowledge"));
	p.aeth.msn = 42;
	if (rl_encode(&p, frame, sizeof(frame), &n) != RL_OK)
		return 1;
	return rl_decode(RL_LINK_ETHERNET, frame, n, &d) != RL_OK || d.aeth.msn != 42;
}
C
flags=$(PKG_CONFIG_SYSROOT_DIR="$T" PKG_CONFIG_LIBDIR="$T/opt/rocelab/lib/pkgconfig" pkg-config --cflags --libs rocelab)
desc="a program builds with pkg-config --cflags --libs rocelab"
check ${CC:-cc} -std=c11 -Wall -Wextra -Werror "$T/t.c" $flags -o "$T/t"
desc="and encodes and decodes a packet"; check "$T/t"
desc="the installed rocelab finds its realrxe script under PREFIX/share"
check sh -c '"$1/opt/rocelab/bin/rocelab" realrxe --help | grep -q "rocelab realrxe build"' sh "$T"
P=$T/opt/rocelab
desc="LICENSE in the tree (MIT, as each source's SPDX line says)"
check grep -q "^MIT License" LICENSE

# The labs, from outside the source folder: the installed rocelab lists them with their guides
# under PREFIX/share/rocelab, runs one (--gen: no namespaces) into the current folder, and a
# learner who starts it where nothing can be written gets it under $XDG_DATA_HOME.
mkdir "$T/work" "$T/ro"
desc="lab list names the installed guides' folder, and each listed lab's guide is there"
check sh -c 'cd "$1/work" && "$2/bin/rocelab" lab list >"$1/list" &&
	grep -q "guides in $2/share/rocelab/labs/NN-name/README.md" "$1/list" &&
	! grep -q "guide not written" "$1/list" &&
	[ "$(grep -c "^  [0-9][0-9]  " "$1/list")" -eq "$(ls -d "$3"/labs/[0-9][0-9]-*/ | wc -l)" ] &&
	for l in $(sed -n "s/^  \([0-9][0-9]\)  \([a-z0-9-]*\) .*/\1-\2/p" "$1/list"); do
		test -s "$2/share/rocelab/labs/$l/README.md" || exit 1; done' sh "$T" "$P" "$here"
desc="lab run 05 --gen from another folder writes labs/out there, and a blank answers file to fill in"
check sh -c 'cd "$1/work" && "$2/bin/rocelab" lab run 05 --gen >"$1/run" 2>&1 &&
	tcpdump -r labs/out/05-acks-msn-credits.pcap -nn "udp dst port 4791" 2>/dev/null | grep -q . &&
	cmp -s labs/05-acks-msn-credits/answers.txt "$2/share/rocelab/labs/05-acks-msn-credits/answers.txt"' sh "$T" "$P"
desc="lab grade 05 there reads them (answers not written yet: scored, not refused)"
check sh -c 'cd "$1/work" && "$2/bin/rocelab" lab grade 05 >"$1/grade" 2>&1;
	grep -q "your answers (labs/05-acks-msn-credits/answers.txt) against your capture (labs/out/05-acks-msn-credits.pcap)" "$1/grade"' sh "$T" "$P"
chmod 555 "$T/ro"
chmod 755 "$T"
mkdir "$T/xdg" "$T/home"
if [ "$(id -u)" -eq 0 ]; then as_user="runuser -u nobody --"; chown nobody "$T/xdg" "$T/home"; else as_user=; fi
desc="from a folder it cannot write, lab run puts its files under \$XDG_DATA_HOME/rocelab and says so"
check sh -c 'cd "$1/ro" && $3 env XDG_DATA_HOME="$1/xdg" "$2/bin/rocelab" lab run 04 --gen >"$1/run" 2>&1 &&
	grep -q "your files go under $1/xdg/rocelab" "$1/run" &&
	test -s "$1/xdg/rocelab/labs/out/04-segmentation-mtu.pcap" -a -s "$1/xdg/rocelab/labs/04-segmentation-mtu/answers.txt" &&
	$3 env XDG_DATA_HOME="$1/xdg" "$2/bin/rocelab" lab grade 04 2>&1 | grep -q "against your capture (labs/out/04-segmentation-mtu.pcap)"' \
	sh "$T" "$P" "$as_user"
desc="  ... and under ~/.local/share/rocelab without XDG_DATA_HOME"
check sh -c 'cd "$1/ro" && $3 env -u XDG_DATA_HOME HOME="$1/home" "$2/bin/rocelab" lab run 04 --gen >"$1/run" 2>&1 &&
	test -s "$1/home/.local/share/rocelab/labs/out/04-segmentation-mtu.pcap"' sh "$T" "$P" "$as_user"

# The learners' handout (make handout): every lab's guides, lab.def, blank answers and exercises,
# nothing of any lab's solution/ (no file of one, under any name), and its make grade builds the
# exercises against the installed rocelab through pkg-config: the blank exercise compiles and
# scores below full marks, lab 01's reference solution dropped in scores them all.
make -s handout B="$T/hb" >/dev/null
mkdir "$T/hand" && tar -C "$T/hand" -xzf "$T/hb/rocelab-labs.tar.gz"
H=$T/hand/rocelab-labs
desc="make handout: each lab's guides, lab.def, answers.txt and exercise/ are in the learners' copy"
check sh -c 'cd "$1" && for d in labs/[0-9][0-9]-*/; do
		for f in lab.def README.md README.zh-CN.md answers.txt; do cmp -s "$d$f" "$2/$d$f" || exit 1; done
		if [ -d "${d}exercise" ]; then diff -r "${d}exercise" "$2/${d}exercise" >/dev/null || exit 1; fi
	done' sh "$here" "$H"
desc="  ... and no solution: no solution/ folder, no file with a solution file's contents"
check sh -c 'test -z "$(find "$2" -name solution)" && cd "$1" &&
	for f in labs/*/solution/*; do find "$2" -type f -exec cmp -s "$f" {} \; -print | grep -q . && exit 1; done; true' sh "$here" "$H"
# links_ok DIR: every image a guide under DIR/labs shows (![..](path)) is there, relative to the guide.
links_ok() {
	n=0
	for g in "$1"/labs/[0-9][0-9]-*/README*.md; do
		for l in $(sed -n 's/.*!\[[^]]*\](\([^)]*\)).*/\1/p' "$g"); do
			test -s "$(dirname "$g")/$l" || { echo "$g: $l is missing" >&2; return 1; }
			n=$((n + 1))
		done
	done
	[ "$n" -gt 0 ]
}
desc="  ... and every figure its guides show, where they point"; check links_ok "$H"
desc="the installed guides' figures are installed where they point"; check links_ok "$P/share/rocelab"
pc="PKG_CONFIG_SYSROOT_DIR=$T PKG_CONFIG_LIBDIR=$P/lib/pkgconfig"
desc="  ... its make grade builds the blank exercises with the installed library, and scores them"
check sh -c 'cd "$1" && env $3 make -s grade ROCELAB="$2/bin/rocelab" >"$1/g1" 2>&1 &&
	grep -q "^01    bth  " "$1/g1" && ! grep -q "^01    bth  *12/12" "$1/g1" && grep -q "^total" "$1/g1" &&
	! grep -q "does not compile" "$1/g1"' sh "$H" "$P" "$pc"
desc="  ... and with lab 01's reference bth.c in place of the exercise, 12/12"
check sh -c 'cp "$4/labs/01-first-capture/solution/bth.c" "$1/labs/01-first-capture/exercise/bth.c" && cd "$1" &&
	env $3 make -s grade ROCELAB="$2/bin/rocelab" >"$1/g2" 2>&1 && grep -q "^01    bth  *12/12" "$1/g2"' sh "$H" "$P" "$pc" "$here"

# The man pages, made from --help at build time: rocelab(1) and one per subcommand, as git's.
cmds=$("$P/bin/rocelab" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
desc="man pages installed: rocelab(1) and rocelab-CMD(1) for each of: $(echo $cmds)"
check sh -c 'test -n "$2" && test -s "$1/share/man/man1/rocelab.1" &&
	for c in $2; do test -s "$1/share/man/man1/rocelab-$c.1" || exit 1; done' sh "$P" "$cmds"
desc="man -l renders rocelab-gen(1): its name line, synopsis and --mtu option, from gen --help"
check sh -c 'MANWIDTH=200 man -l "$1/share/man/man1/rocelab-gen.1" 2>/dev/null >"$2/man" &&
	grep -q "rocelab-gen - write a capture of RoCEv2 packets" "$2/man" && grep -A2 "^SYNOPSIS" "$2/man" | grep -q "rocelab gen SCENARIO -o FILE" &&
	grep -q -- "--mtu N" "$2/man"' sh "$P" "$T"
desc="man -l renders rocelab(1), which names every subcommand's page"
check sh -c 'MANWIDTH=200 man -l "$1/share/man/man1/rocelab.1" 2>/dev/null >"$2/man" && grep -q "^SEE ALSO" "$2/man" &&
	for c in $3; do grep -q "rocelab-$c(1)" "$2/man" || exit 1; done' sh "$P" "$T" "$cmds"
desc="man pages are not in the source tree (generated, not committed)"
check sh -c 'test -z "$(git ls-files "*.1")"'

# Bash completion, as bash loads it (complete -p) and asks it (COMP_WORDS, COMPREPLY).
cat >"$T/comp.bash" <<'BASH'
PATH=$1/bin:$PATH
source "$1/share/bash-completion/completions/rocelab"
complete -p rocelab | grep -q -- '-F _rocelab rocelab$' || { echo "complete -p: not registered"; exit 1; }
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _rocelab; echo " ${COMPREPLY[*]} "; }
want() { case $(c "${@:2}") in *" $1 "*) ;; *) echo "'${*:2}' does not offer $1: $(c "${@:2}")"; exit 1 ;; esac; }
for cmd in $(rocelab --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do want "$cmd" rocelab ""; done
[ "$(c rocelab ex)" = " explain " ] || { echo "'rocelab ex': $(c rocelab ex)"; exit 1; }
want --mtu rocelab gen send --m
want --json rocelab explain --j
want --transport rocelab peer --tr
# gen's scenarios: every name offered is one gen --list describes, and gen writes it
for s in $(c rocelab gen ""); do rocelab gen --list | grep -q "^  $s " || { echo "gen scenario $s?"; exit 1; }; done
want demo rocelab gen ""
want rnr rocelab gen r
rocelab gen "$(c rocelab gen rn | tr -d ' ')" -o "$2/rnr.pcap" >/dev/null 2>&1 || exit 1
want run rocelab lab ""
want grade rocelab lab ""
# lab numbers: those of the installed labs' folders
for d in "$1"/share/rocelab/labs/[0-9][0-9]-*; do n=$(basename "$d"); want "${n%%-*}" rocelab lab run ""; done
[ "$(c rocelab lab grade 1 | wc -w)" -eq "$(ls -d "$1"/share/rocelab/labs/1[0-9]-* | wc -l)" ] || { echo "lab grade 1: $(c rocelab lab grade 1)"; exit 1; }
want stop rocelab realrxe ""
exit 0
BASH
desc="bash completion: subcommands, their options, gen's scenarios, lab verbs and numbers"
check bash "$T/comp.bash" "$P" "$T"

make -s uninstall DESTDIR="$T" PREFIX=/opt/rocelab >/dev/null
desc="make uninstall removes it"; check test ! -e "$T/opt/rocelab/bin/rocelab" -a ! -e "$T/opt/rocelab/include/rocelab" -a ! -e "$T/opt/rocelab/share/rocelab/realrxe"
desc="  ... with its man pages and completion"
check sh -c '! ls "$1"/share/man/man1/rocelab*.1 >/dev/null 2>&1 && test ! -e "$1/share/bash-completion/completions/rocelab"' sh "$P"
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
