#!/bin/sh
# Install what rocelab needs, with apt-get (Debian 12 / Ubuntu 22.04+).
# Idempotent: silent when everything is present.
#   bootstrap.sh demo   what `make demo` needs: build rocelab, run lab 01 (namespaces, tcpdump)
#   bootstrap.sh        everything the tests use as well (Wireshark, scapy, clang, QEMU, Chromium, ...)
# Set ROCELAB_NO_BOOTSTRAP=1 to skip (e.g. on other distributions);
# ROCELAB_BOOTSTRAP_EXTRA adds package names (the tests use it).
set -eu

DEMO="build-essential pkg-config libpcap-dev libisal-dev zlib1g-dev tcpdump iproute2"
case ${1:-all} in
demo) PKGS="$DEMO ${ROCELAB_BOOTSTRAP_EXTRA:-}" ;;
all) PKGS="$DEMO libcunit1-dev \
libglib2.0-dev wireshark-dev libwireshark-dev tshark python3-scapy \
clang libclang-rt-dev util-linux tcpreplay qemu-system-x86 kmod cpio libibverbs-dev help2man \
chromium chromium-driver python3-selenium python3-html5lib python3-pil tidy \
${ROCELAB_BOOTSTRAP_EXTRA:-}" ;;
*) echo "usage: bootstrap.sh [demo|all]" >&2; exit 2 ;;
esac

[ "${ROCELAB_NO_BOOTSTRAP:-0}" = 1 ] && exit 0

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "bootstrap: this is not a Debian/Ubuntu system; install the equivalents of:" >&2
	echo "  $PKGS" >&2
	echo "then run make with ROCELAB_NO_BOOTSTRAP=1" >&2
	exit 1
fi

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

# libclang-rt-dev is a virtual name on some releases; accept the versioned ones.
have_clang_rt() {
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
	ls /usr/lib/llvm-*/lib/clang/*/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1
}

missing=""
for p in $PKGS; do
	case $p in
	libclang-rt-dev) have_clang_rt || missing="$missing $p" ;;
	*) installed "$p" || missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "bootstrap: missing packages:$missing" >&2
	echo "bootstrap: run as root:  apt-get install -y$missing" >&2
	echo "           (or: sudo make ...)" >&2
	exit 1
fi

echo "bootstrap: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections 2>/dev/null || true
apt-get update -qq
# libclang-rt-dev may not exist by that name; fall back to clang's own runtime package.
if ! apt-get install -y -qq --no-install-recommends $missing >/tmp/rocelab-bootstrap.log 2>&1; then
	alt=$(echo "$missing" | sed 's/libclang-rt-dev//')
	rt=$(apt-cache search --names-only '^libclang-rt-[0-9]+-dev$' | sort -V | tail -n1 | cut -d' ' -f1)
	apt-get install -y -qq --no-install-recommends $alt $rt >>/tmp/rocelab-bootstrap.log 2>&1 || {
		echo "bootstrap: apt-get install failed; see /tmp/rocelab-bootstrap.log" >&2
		tail -n 20 /tmp/rocelab-bootstrap.log >&2
		exit 1
	}
fi
echo "bootstrap: done"
