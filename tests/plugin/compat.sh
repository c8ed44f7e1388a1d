#!/bin/sh
# The plugin compiled against the headers of newer Wireshark releases than the
# one installed (Debian 12's 4.0, which `make plugin-test` links and runs): 4.2
# and 4.4, as a user of Ubuntu 24.04 or Debian 13 would build it. Compiled only,
# never linked or run: their libraries are not installed, and never will be.
#
# The -dev packages are fetched with apt-get download through a private apt
# configuration (sources, lists, cache and an empty dpkg status, all under
# OUTDIR; the system's sources.list is not touched) and unpacked with dpkg-deb -x,
# never installed. Debian's mirror has 4.4 (trixie) but no 4.2 any more (trixie
# moved from 4.2 to 4.4 before its release); 4.2 comes from Ubuntu 24.04 (noble),
# a build of Debian's own wireshark source package, checked against Ubuntu's
# archive key as Debian ships it (ubuntu-keyring, bookworm-backports), which
# Debian's own key vouches for. The first run needs deb.debian.org and
# archive.ubuntu.com; later runs reuse what OUTDIR holds. Without the network
# the first run FAILS: it never skips.
#
# Usage: compat.sh OUTDIR          (CC and RL_CFLAGS: the compiler and the flags
#                                   core/ and the plugin build with; run from the top)
set -u
OUT=${1:?usage: compat.sh OUTDIR}
CC=${CC:-cc}
RL_CFLAGS=${RL_CFLAGS:--D_DEFAULT_SOURCE -Icore/include -std=c11 -Wall -Wextra -Werror}
SRC=dissector/packet-rocelab.c
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PKGS="libwireshark-dev libwsutil-dev libwiretap-dev"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
finish() {
    echo "plugin-compat: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

[ -f "$SRC" ] || { fail "run from the top of the tree ($SRC not found)"; finish; }
for t in apt-get dpkg-deb pkg-config nm; do
    command -v "$t" >/dev/null 2>&1 || { fail "$t is not installed"; finish; }
done
[ -f "$DEBIAN_KEYRING" ] || { fail "no $DEBIAN_KEYRING (debian-archive-keyring)"; finish; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# apt_root NAME SOURCES: a private apt tree OUT/apt-NAME with those sources; prints the options
# that make apt-get use it (and only it: no system sources, an empty dpkg status).
apt_root() {
    a="$OUT/apt-$1"
    mkdir -p "$a/etc/apt.conf.d" "$a/etc/preferences.d" "$a/etc/sources.list.d" "$a/etc/trusted.gpg.d" \
        "$a/lists/partial" "$a/cache/archives/partial"
    : >"$a/status"
    printf '%s\n' "$2" >"$a/etc/sources.list"
    echo "-o Dir::Etc=$a/etc -o Dir::Etc::sourcelist=$a/etc/sources.list -o Dir::Etc::sourceparts=$a/etc/sources.list.d" \
         "-o Dir::State=$a -o Dir::State::lists=$a/lists -o Dir::State::status=$a/status -o Dir::Cache=$a/cache" \
         "-o Debug::NoLocking=1 -o APT::Architecture=amd64 -o Acquire::Languages=none -o APT::Sandbox::User=root"
}

# fetch NAME APTOPTS DIR PKG...: apt-get update, then download PKG... into DIR; messages in OUT/NAME.log.
fetch() {
    _n=$1 _o=$2 _d=$3
    shift 3
    mkdir -p "$_d"
    # shellcheck disable=SC2086  # the options are words
    if ! apt-get $_o --error-on=any update >"$OUT/$_n.log" 2>&1; then
        fail "$_n: apt-get update failed (no network? the first run needs it): $(grep -E '^(E|W|Err):' \
"$OUT/$_n.log" | head -n 2 | tr '\n' ' ')"
        return 1
    fi
    # shellcheck disable=SC2086
    if ! (cd "$_d" && apt-get $_o download "$@") >>"$OUT/$_n.log" 2>&1; then
        fail "$_n: apt-get download $* failed: $(grep -E '^(E|W|Err):' "$OUT/$_n.log" | tail -n 2 | tr '\n' ' ')"
        return 1
    fi
}

# headers VERSION NAME APTOPTS SUITE: OUT/VERSION/usr/include/wireshark from SUITE's -dev packages.
headers() {
    _v=$1 _n=$2 _o=$3 _s=$4
    _inc="$OUT/$_v/usr/include/wireshark"
    [ -f "$_inc/ws_version.h" ] && return 0
    rm -rf "${OUT:?}/$_v" "${OUT:?}/debs-$_v"
    # shellcheck disable=SC2046  # one package/suite a word
    fetch "$_n" "$_o" "$OUT/debs-$_v" $(for p in $PKGS; do echo "$p/$_s"; done) || return 1
    for deb in "$OUT/debs-$_v"/*.deb; do
        dpkg-deb -x "$deb" "$OUT/$_v" || { fail "$_v: dpkg-deb -x $deb failed"; return 1; }
    done
    [ -f "$_inc/ws_version.h" ] || { fail "$_v: the packages hold no ws_version.h"; return 1; }
}

# ---- the headers --------------------------------------------------------------------------
debian=$(apt_root debian "deb [signed-by=$DEBIAN_KEYRING] http://deb.debian.org/debian trixie main
deb [signed-by=$DEBIAN_KEYRING] http://deb.debian.org/debian bookworm-backports main")
have=""
headers 4.4 debian "$debian" trixie && have="$have 4.4"

UBUNTU_KEYRING="$OUT/ubuntu-keyring/usr/share/keyrings/ubuntu-archive-keyring.gpg"
if [ ! -f "$UBUNTU_KEYRING" ]; then
    rm -rf "${OUT:?}/debs-keyring" "${OUT:?}/ubuntu-keyring"
    fetch debian "$debian" "$OUT/debs-keyring" ubuntu-keyring/bookworm-backports &&
        dpkg-deb -x "$OUT"/debs-keyring/ubuntu-keyring_*.deb "$OUT/ubuntu-keyring"
fi
if [ -f "$UBUNTU_KEYRING" ]; then
    ubuntu=$(apt_root ubuntu "deb [signed-by=$UBUNTU_KEYRING] http://archive.ubuntu.com/ubuntu noble universe")
    headers 4.2 ubuntu "$ubuntu" noble && have="4.2 $have"
else
    fail "4.2: no Ubuntu archive keyring (Debian's ubuntu-keyring package)"
fi

# The package lists (some 60 MB) are needed again only if the headers go.
rm -rf "${OUT:?}"/apt-*/lists "${OUT:?}"/apt-*/cache

# ---- the plugin against each -------------------------------------------------------------
GLIB_CFLAGS=$(pkg-config --cflags glib-2.0)
for v in $have; do
    inc="$OUT/$v/usr/include/wireshark"
    # shellcheck disable=SC2086  # flag lists
    got=$($CC $RL_CFLAGS -I"$inc" $GLIB_CFLAGS -E -dM "$SRC" 2>/dev/null |
        awk '$2 == "WIRESHARK_VERSION_MAJOR" { ma = $3 } $2 == "WIRESHARK_VERSION_MINOR" { mi = $3 } END { print ma "." mi }')
    if [ "$got" = "$v" ]; then
        pass "$v: the plugin's source sees Wireshark $got's headers ($inc)"
    else
        fail "$v: the plugin's source sees the headers of Wireshark '$got', not $v's"
        continue
    fi
    # shellcheck disable=SC2086
    if $CC $RL_CFLAGS -O2 -fPIC -fvisibility=hidden -I"$inc" $GLIB_CFLAGS -c "$SRC" -o "$OUT/rocelab-$v.o" \
        2>"$OUT/cc-$v.log"; then
        pass "$v: $SRC compiles against Wireshark $v's headers with -Werror"
    else
        fail "$v: $SRC does not compile against Wireshark $v's headers: $(head -n 5 "$OUT/cc-$v.log" | tr '\n' ' ')"
        continue
    fi
    # What Wireshark's plugin loader looks up; plugin_describe() from 4.4 on.
    want="plugin_register plugin_version plugin_want_major plugin_want_minor"
    [ "$v" = 4.2 ] || want="$want plugin_describe"
    syms=$(nm -g --defined-only "$OUT/rocelab-$v.o" | awk '{ print $3 }')
    missing=""
    for s in $want; do
        echo "$syms" | grep -qx "$s" || missing="$missing $s"
    done
    if [ -z "$missing" ]; then
        pass "$v: the object exports what the $v loader looks up ($want)"
    else
        fail "$v: the object does not export:$missing"
    fi
    if [ "$v" = 4.2 ] && echo "$syms" | grep -qx plugin_describe; then
        fail "4.2: plugin_describe is exported, but 4.2's headers do not have it"
    fi
done
finish
