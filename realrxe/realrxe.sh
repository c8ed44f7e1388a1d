#!/bin/bash
# realrxe.sh: a real kernel Soft-RoCE endpoint (Debian's rdma_rxe) in a small
# QEMU VM, built from Debian packages only, for machines whose own kernel has
# no rdma_rxe. `rocelab realrxe ...` runs this script.
set -eu

RR_SRC=$(dirname "$(readlink -f "$0")")
RR_CACHE=${ROCELAB_REALRXE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rocelab/realrxe}
RR_HOST_IP=10.77.0.1

usage() {
	cat <<EOF
usage: rocelab realrxe build [--force]
       rocelab realrxe run [--add PROGRAM[.c]]... [--netns NS] [--max-time S] -- COMMAND...
       rocelab realrxe shell [--add PROGRAM[.c]]... [--netns NS]
       rocelab realrxe capture [--out DIR] [--netns NS] [TOOL...]
       rocelab realrxe start --dir DIR [--add PROGRAM[.c]]... [--guests 1|2] [--netns NS] [--max-time S]
       rocelab realrxe exec --dir DIR [--guest 0|1] [--timeout S] -- COMMAND...
       rocelab realrxe stop --dir DIR

A real kernel Soft-RoCE endpoint: Debian 12's own kernel (rdma_rxe), rdma-core,
ibverbs-utils, perftest, rdmacm-utils, iproute2 and tcpdump in a QEMU VM, for a
machine whose kernel has no rdma_rxe (containers, cloud VMs, WSL, CI).

  build   download the Debian packages (once; cached in $RR_CACHE)
          and make the VM's kernel and initramfs; --force does it again
  run     boot, run COMMAND in the guest (a shell command line), print its
          output, power off; exits with COMMAND's status
  shell   boot with the guest's console on this terminal
  capture reference captures made by the kernel at both ends (two guests):
          TOOL.pcap and TOOL.txt (what the tools printed) in --out (default
          ./rxe-captures) for each TOOL, by default all of:
          $RR_TOOLS
          (rping, ucmatose, udaddy and ib_send_bw-R, that is ib_send_bw -R,
          connect through rdma_cm: their captures hold CM MADs, SIDR for udaddy);
          each end must exit 0 and print its own line of success
  start   boot in the background, for exec and stop (scripts, tests, labs)
  exec    run COMMAND in a started guest, print its output, exit with its status
  stop    power the guest off, remove its network namespace

The guest's rxe0 sits on eth0, $(rr_guest_ip 0)/24, GID index 1. Its other end is a tap
device at $RR_HOST_IP/24 in a network namespace of this host (--netns, default
rlrxe), where rocelab peer, tcpdump or tshark can run:
  ip netns exec rlrxe rocelab peer --server --compat pingpong
  rocelab realrxe exec --dir DIR -- ibv_rc_pingpong -d rxe0 -g 1 $RR_HOST_IP
With --guests 2 a second guest, $(rr_guest_ip 1), shares a bridge with the first and the host
side ('exec --guest 1'); tcpdump on rxtap0 sees what the two send each other.
The guest powers itself off after --max-time seconds (default 1800).
KVM is used where it boots the kernel, TCG (slower, always works) otherwise.
Needs root (network namespaces, tap) and, once, network access to Debian's mirror.

--add PROGRAM puts your own libibverbs / librdmacm program into the guest (run, start and
shell; as many --add as you like). A file NAME.c is compiled here with cc (CC, CFLAGS and
LDLIBS from the environment are used) against Debian's libibverbs-dev and librdmacm-dev,
installed with apt-get when missing, and linked with -lrdmacm -libverbs -lpthread; any
other file must be a program built for Linux x86-64. It becomes the command NAME in the
guest (in /opt/rocelab, on the PATH), with the shared libraries it needs that the guest
lacks, copied from this host. A .c that does not compile shows the compiler's errors.
  rocelab realrxe start --dir DIR --guests 2 --add my_rdma.c
  rocelab realrxe exec --dir DIR -- 'my_rdma -s > /tmp/s.log 2>&1 &'
  rocelab realrxe exec --dir DIR --guest 1 -- my_rdma $(rr_guest_ip 0)
EOF
}

say() { printf 'realrxe: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
# A usage error: rocelab's exit status 2, as for every other command (cli/cli.h).
usage_die() { say "$*"; exit 2; }
# OPT VALUE...: the value an option needs, or a usage error.
need() { [ $# -ge 2 ] && [ -n "$2" ] || usage_die "$1 needs a value"; }
# ROCELAB_DRY_PARSE set (cli/cli.h): the command line is checked; stop before doing anything.
dry() { [ -z "${ROCELAB_DRY_PARSE:-}" ] || exit 0; }

# ---- build ------------------------------------------------------------------------------------

# The guest: the tools, and every shared library their ELF files need (checked at build time).
rr_kernel_pkg() {
	local k
	k=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -n1)
	[ -n "$k" ] || k=$(cd "$RR_CACHE/debs" 2>/dev/null && ls linux-image-[0-9]*-amd64_*.deb 2>/dev/null | sed 's/_.*//' | head -n1)
	[ -n "$k" ] || die "cannot tell which kernel package linux-image-amd64 stands for: is this Debian 12 with its apt lists? (apt-get update)"
	echo "$k"
}

RR_PKGS="busybox-static libc6 libgcc-s1
 rdma-core ibverbs-providers libibverbs1 ibverbs-utils perftest rdmacm-utils librdmacm1
 libnl-3-200 libnl-route-3-200 libibumad3 libpci3
 iproute2 libbpf1 libbsd0 libmd0 libcap2 libelf1 zlib1g libmnl0 libxtables12
 tcpdump libpcap0.8 libssl3 libdbus-1-3 libsystemd0 libudev1 libgcrypt20 libgpg-error0
 liblz4-1 liblzma5 libzstd1"

# In load order (the package has no modules.dep: found with depmod -b and modprobe --show-depends).
# crc32_generic first: without it rdma_rxe says "failed to init crc32 algorithm err:-2".
# sch_tbf and sch_red: the kernel's own rate limit and ECN marking (tc-tbf(8), tc-red(8)) for the
# congestion case of tests/realrxe; fq_codel (its ce_threshold) is built into this kernel.
RR_MODS="crypto/crc32_generic
 net/ipv4/udp_tunnel net/ipv6/ip6_udp_tunnel
 drivers/infiniband/core/ib_core drivers/infiniband/core/ib_uverbs
 fs/configfs/configfs drivers/infiniband/core/ib_cm drivers/infiniband/core/iw_cm
 drivers/infiniband/core/rdma_cm drivers/infiniband/core/rdma_ucm drivers/infiniband/core/ib_umad
 drivers/infiniband/sw/rxe/rdma_rxe
 drivers/virtio/virtio_ring drivers/virtio/virtio
 drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci
 net/core/failover drivers/net/net_failover drivers/net/virtio_net
 drivers/net/veth
 net/sched/sch_tbf net/sched/sch_red"

# A build records the modules and packages it put in (the file 'modules'): a cache made with
# other lists is rebuilt, as one made for another kernel is, on the next build or boot.
rr_mods_list() { printf '%s\n' $RR_MODS $RR_PKGS; }
rr_mods_stale() {
	[ "$(cat "$RR_CACHE/modules" 2>/dev/null)" != "$(rr_mods_list)" ]
}

rr_host_tools() {
	local missing=""
	command -v qemu-system-x86_64 >/dev/null || missing="$missing qemu-system-x86"
	[ -x /sbin/depmod ] || command -v depmod >/dev/null || missing="$missing kmod"
	command -v cpio >/dev/null || missing="$missing cpio"
	command -v dpkg-deb >/dev/null || die "dpkg-deb not found: the VM is built from Debian packages, on Debian or Ubuntu"
	[ -e /usr/include/infiniband/verbs.h ] || missing="$missing libibverbs-dev"
	rr_apt_install $missing
}

rr_apt_install() {   # the host packages named, those missing; as root
	local missing="$*" p
	[ -z "$missing" ] && return 0
	missing=" $missing"
	[ "$(id -u)" = 0 ] || die "missing host packages:$missing (as root: apt-get install$missing)"
	say "installing:$missing"
	for p in 1 2; do
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null && return 0
		[ $p = 1 ] && apt-get update -qq
	done
	die "apt-get install$missing failed"
}

# _apt cannot write into a root-only directory: the download then runs as root (a harmless warning,
# filtered). Success is judged by the files, not by the pipeline's status.
rr_apt_download() {
	(cd "$RR_CACHE/debs" && apt-get download -qq "$@" 2>&1 | { grep -v '^W: Download is performed unsandboxed' >&2 || true; })
}

rr_download() {
	local todo
	mkdir -p "$RR_CACHE/debs"
	todo=$(rr_missing_debs)
	[ -z "$todo" ] && return 0
	say "downloading $(echo "$todo" | wc -w | tr -d ' ') Debian packages (about 80 MB, once) into $RR_CACHE/debs"
	rr_apt_download $todo
	[ -z "$(rr_missing_debs)" ] && return 0
	say "retrying after apt-get update"
	apt-get update -qq || die "apt-get update failed: is Debian's mirror reachable?"
	rr_apt_download $(rr_missing_debs)
	[ -z "$(rr_missing_debs)" ] || die "could not download:$(rr_missing_debs)"
}

rr_missing_debs() {
	local p
	for p in $RR_KPKG $RR_PKGS; do
		[ -n "$(ls "$RR_CACHE/debs/${p}_"*.deb 2>/dev/null)" ] || printf ' %s' "$p"
	done
}

# Every NEEDED soname of the tools, followed recursively, must be in the tree.
rr_check_libs() {
	local root=$1 todo seen=" " miss="" f so p d
	todo="$root/bin/ip $root/sbin/tc $root/usr/bin/rdma $root/usr/bin/tcpdump $root/usr/bin/ibv_devinfo $root/usr/bin/ibv_rc_pingpong
	      $root/usr/bin/ib_send_bw $root/usr/bin/rping $root/usr/bin/ucmatose $root/usr/bin/udaddy $root/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"
	while [ -n "$(echo $todo)" ]; do
		set -- $todo
		f=$1
		shift
		todo="$*"
		for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			case "$seen" in *" $so "*) continue ;; esac
			seen="$seen$so "
			p=""
			for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu; do
				[ -e "$root/$d/$so" ] && p="$root/$d/$so"
			done
			if [ -n "$p" ]; then todo="$todo $p"; else miss="$miss $so"; fi
		done
	done
	[ -z "$miss" ] || die "the guest would lack shared libraries:$miss"
}

rr_build_base() {
	local root="$RR_CACHE/root" ird="$RR_CACHE/initrd.d" p kver m
	rm -rf "$root" "$ird"
	mkdir -p "$root" "$ird"
	for p in $RR_KPKG $RR_PKGS; do
		dpkg-deb -x "$(ls "$RR_CACHE/debs/${p}_"*.deb | head -n1)" "$root"
	done
	kver=$(ls "$root/lib/modules" | head -n1)
	rr_check_libs "$root"
	# Userland without the kernel, its 400 MB of modules, docs and locales; then the modules rxe needs.
	(cd "$root" && tar cf - --exclude=./lib/modules --exclude=./boot --exclude=./usr/share \
		--exclude=./usr/lib/x86_64-linux-gnu/gconv --exclude=./usr/lib/x86_64-linux-gnu/tc .) | (cd "$ird" && tar xf -)
	mkdir -p "$ird/lib/modules/$kver" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/tmp" "$ird/run" "$ird/bbin" \
		"$ird/root" "$ird/var/run" "$ird/opt/rocelab"
	for m in $RR_MODS; do
		mkdir -p "$ird/lib/modules/$kver/kernel/$(dirname "$m")"
		cp "$root/lib/modules/$kver/kernel/$m.ko" "$ird/lib/modules/$kver/kernel/$m.ko"
	done
	printf '%s\n' $RR_MODS > "$ird/etc/rxe-modules"
	echo "root:x:0:0:root:/root:/bin/sh" > "$ird/etc/passwd"
	echo "root:x:0:" > "$ird/etc/group"
	/sbin/ldconfig -r "$ird"
	cp "$root/boot/vmlinuz-$kver" "$RR_CACHE/vmlinuz"
	(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -6) > "$RR_CACHE/base.cpio.gz.tmp"
	mv "$RR_CACHE/base.cpio.gz.tmp" "$RR_CACHE/base.cpio.gz"
	echo "$RR_KPKG $kver" > "$RR_CACHE/kernel"
	rr_mods_list > "$RR_CACHE/modules"
	rm -rf "$root" "$ird"
}

# Ours, on top: the guest's /init and rxe_peer (built here against Debian's libibverbs-dev).
rr_build_peer() {
	if [ ! -x "$RR_CACHE/rxe_peer" ] || [ "$RR_SRC/rxe_peer.c" -nt "$RR_CACHE/rxe_peer" ]; then
		cc -std=c11 -Wall -Wextra -Werror -O2 "$RR_SRC/rxe_peer.c" -o "$RR_CACHE/rxe_peer.tmp" -libverbs ||
			die "cannot build rxe_peer (libibverbs-dev?)"
		mv "$RR_CACHE/rxe_peer.tmp" "$RR_CACHE/rxe_peer"
	fi
}

rr_build() {
	local force=${1:-} t0=$SECONDS
	[ "$(id -u)" = 0 ] || die "run as root: the build may install host packages, and the VM needs a tap device"
	rr_host_tools
	mkdir -p "$RR_CACHE"
	RR_KPKG=$(rr_kernel_pkg)
	if [ -n "$force" ] || [ ! -s "$RR_CACHE/base.cpio.gz" ] || [ "$(cut -d' ' -f1 "$RR_CACHE/kernel" 2>/dev/null)" != "$RR_KPKG" ] || rr_mods_stale; then
		rr_download
		say "making the VM: $RR_KPKG, rdma-core, perftest, iproute2, tcpdump, busybox"
		rr_build_base
		rm -f "$RR_CACHE/accel"
		say "built in $((SECONDS - t0)) s: $RR_CACHE/vmlinuz, base.cpio.gz ($(du -h "$RR_CACHE/base.cpio.gz" | cut -f1))"
	fi
	rr_build_peer
}

# What a boot needs: an existing build is used as it is ('build --force' renews it), unless it lacks
# a module of RR_MODS; rxe_peer follows its source.
rr_ensure_built() {
	if [ -s "$RR_CACHE/base.cpio.gz" ] && ! rr_mods_stale; then rr_build_peer; else rr_build; fi
}

# ---- --add: the learner's own programs --------------------------------------------------------

# Each --add PROGRAM (a .c source, compiled here against Debian's libibverbs-dev and librdmacm-dev,
# or an x86-64 ELF program) goes into the guest's /opt/rocelab, which is on its PATH, under its
# name (a .c without the .c); the shared libraries it needs that the guest lacks go with it.
RR_ADD=()
RR_LIBDIR=usr/lib/x86_64-linux-gnu   # one of the loader's default directories: no ld.so.cache needed

# The guest's files, one path a line ("usr/bin/rping"), listed once per build of base.cpio.gz.
rr_base_list() {
	local l="$RR_CACHE/base.list"
	if [ ! -s "$l" ] || [ "$RR_CACHE/base.cpio.gz" -nt "$l" ]; then
		gzip -dc "$RR_CACHE/base.cpio.gz" | cpio -t --quiet 2>/dev/null | sed 's|^\./||' > "$l.$$" &&
			mv "$l.$$" "$l" || die "cannot list the files of $RR_CACHE/base.cpio.gz"
	fi
	echo "$l"
}

rr_in_guest() { grep -qxF "$1" "$RR_BASE_LIST"; }   # $1: a path without the leading /

# An ELF program this guest can run: 64-bit x86-64, linked (not an object file).
rr_add_elf() {   # $1: file as given
	local h
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] ||
		die "--add $1: not an ELF program (nor a .c source to compile): give a program built for Linux x86-64, or its .c"
	h=$(LC_ALL=C readelf -h "$1" 2>/dev/null) || die "--add $1: readelf cannot read its ELF header"
	case $h in *"Machine:"*"X86-64"*) ;; *)
		die "--add $1: built for $(echo "$h" | sed -n 's/^ *Machine: *//p'), not x86-64, the guest's architecture" ;;
	esac
	case $h in *"Class:"*"ELF64"*) ;; *) die "--add $1: a 32-bit program; the guest runs 64-bit x86-64 ones" ;; esac
	case $h in *"Type:"*"REL "*) die "--add $1: an object file, not a program: link it first (or give its .c)" ;; esac
}

# The host's C compiler and the headers a verbs program includes; missing ones are installed as
# rr_host_tools installs libibverbs-dev.
rr_add_host_dev() {
	local missing=""
	command -v "${CC:-cc}" >/dev/null || missing="$missing gcc libc6-dev"
	[ -e /usr/include/infiniband/verbs.h ] || missing="$missing libibverbs-dev"
	[ -e /usr/include/rdma/rdma_cma.h ] || missing="$missing librdmacm-dev"
	rr_apt_install $missing
}

# $1 (a .c) into $2; CFLAGS and LDLIBS from the environment are added, as make would.
rr_add_compile() {
	rr_add_host_dev
	say "compiling $1 (against libibverbs and librdmacm)"
	# shellcheck disable=SC2086  # CFLAGS and LDLIBS are lists of words
	"${CC:-cc}" -O2 -g -Wall ${CFLAGS:-} -o "$2" "$1" -Wl,--as-needed -lrdmacm -libverbs -lpthread ${LDLIBS:-} ||
		die "--add $1: it does not compile (the compiler's messages are above)"
}

# Check and build every --add into $1/add/opt/rocelab; before anything is booted, so a mistake costs nothing.
rr_add_progs() {   # $1: session dir
	local d="$1/add" f name names=" "
	rm -rf "$d"
	[ ${#RR_ADD[@]} -gt 0 ] || return 0
	mkdir -p "$d/opt/rocelab" "$d/$RR_LIBDIR"
	for f in "${RR_ADD[@]}"; do
		[ -e "$f" ] || die "--add $f: no such file"
		[ -f "$f" ] && [ -r "$f" ] || die "--add $f: not a readable file"
		name=$(basename "$f")
		name=${name%.c}
		case $name in
		""|*[!A-Za-z0-9._+-]*) die "--add $f: name it with letters, digits and ._+- only (it becomes a command in the guest)" ;;
		rxe_peer) die "--add $f: rxe_peer is rocelab's own program in the guest: give yours another name" ;;
		esac
		case $names in *" $name "*) die "--add $f: two programs would be called $name in the guest" ;; esac
		names="$names$name "
		case $f in
		*.c) rr_add_compile "$f" "$d/opt/rocelab/$name" ;;
		*) rr_add_elf "$f"; cp "$f" "$d/opt/rocelab/$name" ;;
		esac
		chmod 755 "$d/opt/rocelab/$name"
	done
}

# The host's copy of shared library $1 (a soname) for a program in directory $2.
rr_add_host_lib() {
	local p
	for p in "$2/$1" $(ldconfig -p 2>/dev/null | sed -n "s|^[[:space:]]*$1 (.*x86-64.*) => ||p") \
		"/lib/x86_64-linux-gnu/$1" "/usr/lib/x86_64-linux-gnu/$1" "/usr/local/lib/$1"; do
		[ -f "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

# The programs' names must not be taken in the guest (its PATH finds /opt/rocelab after the system's
# directories); what they need that the guest lacks is copied from this host, every NEEDED followed
# (as rr_check_libs does for the guest's own tools). The guest must have the loader they ask for.
rr_add_libs() {   # $1: session dir
	local d="$1/add" f so p interp prog name dir i=0 seen=" " files=() dirs=()
	[ -d "$d" ] || return 0
	RR_BASE_LIST=$(rr_base_list)
	for prog in "${RR_ADD[@]}"; do
		name=$(basename "$prog")
		name=${name%.c}
		for dir in usr/sbin usr/bin sbin bin; do
			rr_in_guest "$dir/$name" &&
				die "--add $prog: the guest has a /$dir/$name already, found before yours: give yours another name"
		done
		f="$d/opt/rocelab/$name"
		interp=$(LC_ALL=C readelf -l "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
		[ -z "$interp" ] || rr_in_guest "${interp#/}" ||
			die "--add $prog: it asks for the loader $interp, which the guest lacks (built for another libc?)"
		files+=("$f")
		dirs+=("$(dirname "$prog")")
	done
	while [ $i -lt ${#files[@]} ]; do
		for so in $(LC_ALL=C readelf -d "${files[$i]}" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			case "$seen" in *" $so "*) continue ;; esac
			seen="$seen$so "
			case $so in */*) die "--add: $(basename "${files[$i]}") names the library $so by its path: link it by soname" ;; esac
			rr_in_guest "lib/x86_64-linux-gnu/$so" || rr_in_guest "$RR_LIBDIR/$so" && continue
			p=$(rr_add_host_lib "$so" "${dirs[$i]}") ||
				die "--add: $so is needed (by $(basename "${files[$i]}")), and neither the guest nor this host has it"
			say "adding $so (from $p): the guest has none"
			cp -L "$p" "$d/$RR_LIBDIR/$so"
			files+=("$d/$RR_LIBDIR/$so")
			dirs+=("$(dirname "$p")")
		done
		i=$((i + 1))
	done
}

# ---- boot -------------------------------------------------------------------------------------

rr_overlay() {   # $1: session dir; the initrd = Debian's part + ours (the kernel unpacks both)
	local o="$1/overlay"
	rm -rf "$o"
	mkdir -p "$o/opt/rocelab"
	cp "$RR_SRC/guest-init.sh" "$o/init"
	chmod 755 "$o/init"
	cp "$RR_CACHE/rxe_peer" "$o/opt/rocelab/rxe_peer"
	[ ! -d "$1/add" ] || cp -a "$1/add/." "$o/"
	(cd "$o" && find . | cpio -o -H newc --quiet | gzip -1) > "$1/overlay.cpio.gz"
	cat "$RR_CACHE/base.cpio.gz" "$1/overlay.cpio.gz" > "$1/initrd"
	rm -rf "$o" "$1/overlay.cpio.gz"
}

rr_guest_ip() { echo "10.77.0.$((2 + $1))"; }   # $1: guest number, 0 or 1
rr_gdir() { if [ "$2" = 0 ]; then echo "$1"; else echo "$1/guest$2"; fi; }   # $1: session dir, $2: guest

# One guest: a tap to it holding the host's address. Two: both taps on a bridge that holds it,
# so that the guests reach each other through this host (and tcpdump on rxtap0 sees them).
rr_netns() {   # $1: namespace, $2: guests
	local t
	ip netns add "$1" 2>/dev/null || die "cannot create network namespace $1 (exists already? 'rocelab realrxe stop' or 'ip netns del $1')"
	ip -n "$1" link set lo up
	for t in $(seq 0 $(($2 - 1))); do ip -n "$1" tuntap add rxtap$t mode tap; done
	if [ "$2" = 1 ]; then
		ip -n "$1" addr add "$RR_HOST_IP/24" dev rxtap0
	else
		ip -n "$1" link add rxbr0 type bridge
		for t in $(seq 0 $(($2 - 1))); do ip -n "$1" link set rxtap$t master rxbr0; done
		ip -n "$1" addr add "$RR_HOST_IP/24" dev rxbr0
		ip -n "$1" link set rxbr0 up
	fi
	for t in $(seq 0 $(($2 - 1))); do ip -n "$1" link set rxtap$t up; done
}

rr_qemu() {   # $1: netns, $2: initrd, $3: accel, $4: guest, then qemu's own arguments
	local ns=$1 initrd=$2 accel=$3 g=$4
	shift 4
	ip netns exec "$ns" qemu-system-x86_64 -accel "$accel" -m 512 -smp 1 -no-reboot \
		-kernel "$RR_CACHE/vmlinuz" -initrd "$initrd" \
		-netdev tap,id=n0,ifname=rxtap$g,script=no,downscript=no \
		-device virtio-net-pci,netdev=n0,mac=52:54:00:77:00:0$((2 + g)) "$@"
}

rr_cmdline() {   # $1: mode, $2: max time, $3: guest
	echo "console=ttyS0,115200 quiet panic=-1 rxe.mode=$1 rxe.ip=$(rr_guest_ip "$3")/24 rxe.maxtime=$2"
}

# Wait for the guest's "@@RXE-READY" on its control port, at most $2 s.
rr_wait_ready() {   # $1: guest dir, $2: seconds
	local line end=$((SECONDS + $2))
	exec 9<"$1/ctl.out"
	while [ $SECONDS -lt $end ]; do
		IFS= read -r -t $((end - SECONDS + 1)) line <&9 || return 1
		case ${line%$'\r'} in
		@@RXE-READY) return 0 ;;
		@@RXE-FAILED*) say "the guest says: ${line#@@RXE-FAILED }"; return 1 ;;
		esac
	done
	return 1
}

# qemu holds both FIFOs open read-write, so what the guest says waits in them until read.
rr_launch() {   # $1: guest dir, $2: netns, $3: accel, $4: mode, $5: max time, $6: guest, $7: initrd
	rm -f "$1/ctl.in" "$1/ctl.out" "$1/console.log"
	mkdir -p "$1"
	mkfifo "$1/ctl.in" "$1/ctl.out"
	rr_qemu "$2" "$7" "$3" "$6" -display none -monitor none -serial "file:$1/console.log" \
		-chardev "pipe,id=ctl,path=$1/ctl" -device isa-serial,chardev=ctl \
		-append "$(rr_cmdline "$4" "$5" "$6")" -pidfile "$1/qemu.pid" -daemonize >&2
}

rr_kill() {   # $1: dir; back once qemu is gone (and its tap free), at most 5 s
	local pid i
	pid=$(cat "$1/qemu.pid" 2>/dev/null || true)
	if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
		for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rm -f "$1/qemu.pid"
}

# KVM where it boots Debian's kernel, else TCG; the verdict is kept in the cache.
rr_accel() {   # $1: dir, $2: netns
	local a
	a=$(cat "$RR_CACHE/accel" 2>/dev/null || true)
	[ -n "$a" ] && { echo "$a"; return; }
	a=tcg
	if [ -w /dev/kvm ]; then
		say "trying KVM (once; TCG if it does not boot within 30 s)"
		rr_overlay "$1"
		if rr_launch "$1" "$2" kvm probe 60 0 "$1/initrd" && rr_wait_ready "$1" 30; then a=kvm; fi
		rr_kill "$1"
		exec 9<&-
	fi
	echo "$a" > "$RR_CACHE/accel"
	echo "$a"
}

rr_start() {   # $1: dir, $2: netns, $3: max time, $4: guests (1 or 2)
	local d=$1 accel g gd t0=$SECONDS
	[ "$(id -u)" = 0 ] || die "run as root: the VM's network is a tap device in a network namespace"
	rr_ensure_built
	mkdir -p "$d"
	[ -e "$d/qemu.pid" ] && die "$d holds a running guest already ('rocelab realrxe stop --dir $d')"
	rr_add_libs "$d"
	rr_netns "$2" "$4"
	echo "$2" > "$d/netns"
	accel=$(rr_accel "$d" "$2")
	rr_overlay "$d"
	rm -rf "$d/add"
	for g in $(seq 0 $(($4 - 1))); do
		rr_launch "$(rr_gdir "$d" $g)" "$2" "$accel" ctl "$3" $g "$d/initrd" || { rr_stop "$d"; die "qemu did not start"; }
	done
	for g in $(seq 0 $(($4 - 1))); do
		gd=$(rr_gdir "$d" $g)
		rr_wait_ready "$gd" 180 && continue
		say "guest $g did not come up; its console said:"
		tail -n 20 "$gd/console.log" >&2 || true
		rr_stop "$d"
		exit 1
	done
	if [ "$4" = 1 ]; then
		say "guest up in $((SECONDS - t0)) s ($accel): rxe0 at $(rr_guest_ip 0), host side $RR_HOST_IP in netns $2"
	else
		say "$4 guests up in $((SECONDS - t0)) s ($accel): rxe0 at $(rr_guest_ip 0) (guest 0) and $(rr_guest_ip 1)" \
			"(guest 1), bridged with the host side $RR_HOST_IP in netns $2"
	fi
}

rr_md5() { printf '%s' "$1" | md5sum | cut -c1-32; }

# Run $3 in the guest; a line the serial port garbled, either way, is sent again (at most 3 times).
rr_exec() {   # $1: dir, $2: timeout, $3: command line
	local dir=$1 timeout=$2 cmd=$3 line b64 sum rc="" out="" tries=0 end=$((SECONDS + $2))
	[ -p "$dir/ctl.in" ] && [ -e "$dir/qemu.pid" ] || die "no guest started in $dir ('rocelab realrxe start --dir $dir')"
	exec 8>"$dir/ctl.in" 9<"$dir/ctl.out"
	b64=$(printf '%s' "$cmd" | base64 -w0)
	sum=$(rr_md5 "$b64")
	printf '%s %s\n' "$sum" "$b64" >&8
	while [ $SECONDS -lt $end ] && IFS= read -r -t $((end - SECONDS + 1)) line <&9; do
		line=${line%$'\r'}
		case $line in
		@@RXE-AGAIN)
			tries=$((tries + 1))
			[ $tries -le 3 ] || break
			printf '%s %s\n' "$sum" "$b64" >&8 ;;
		"@@RXE-RC "*)
			# STATUS CMD-MD5 MD5 OUTPUT: an intact answer to an earlier command (one that timed out) is skipped
			set -- ${line#@@RXE-RC }
			out=${4:-}
			if [ "$(rr_md5 "${2:-} $out")" = "${3:-}" ]; then
				[ "$2" = "$sum" ] || continue
				rc=$1
				break
			fi
			tries=$((tries + 1))
			[ $tries -le 3 ] || break
			echo "@@AGAIN" >&8 ;;
		esac
	done
	[ $tries -le 3 ] || { say "the serial line to the guest garbled '$cmd' $tries times"; return 125; }
	[ -n "$rc" ] || { say "the guest did not answer within $timeout s (--timeout): '$cmd'"; return 124; }
	printf '%s' "$out" | base64 -d
	return "$rc"
}

rr_stop_guest() {   # $1: guest dir
	local pid i
	if [ -p "$1/ctl.in" ] && [ -e "$1/qemu.pid" ]; then
		pid=$(cat "$1/qemu.pid")
		{ exec 8>"$1/ctl.in"; echo exit >&8; } 2>/dev/null || true
		for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	fi
	rr_kill "$1"
	rm -f "$1/ctl.in" "$1/ctl.out"
}

rr_stop() {   # $1: dir
	local ns
	[ -d "$1/guest1" ] && rr_stop_guest "$1/guest1"
	rr_stop_guest "$1"
	ns=$(cat "$1/netns" 2>/dev/null || true)
	[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true
	rm -f "$1/netns" "$1/initrd"
}

# ---- capture ----------------------------------------------------------------------------------

# Reference captures: the standard tools with the kernel's rxe at both ends (two guests; rxe
# talking to its own address would use its loopback path and put nothing on a wire).
# ib_send_bw-R is ib_send_bw -R: its QPs connected by rdma_cm, not by a TCP exchange.
RR_TOOLS="ibv_rc_pingpong ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw rping ucmatose udaddy ib_send_bw-R"

rr_tool_server() {   # $1: tool; small runs, so that a learner can read every packet
	case $1 in
	ibv_rc_pingpong) echo "ibv_rc_pingpong -d rxe0 -g 1 -n 8" ;;
	ib_send_bw|ib_write_bw|ib_read_bw) echo "$1 -d rxe0 -x 1 -s 4096 -n 16 -F" ;;
	ib_atomic_bw) echo "ib_atomic_bw -d rxe0 -x 1 -n 16 -F" ;;
	rping) echo "rping -s -a $(rr_guest_ip 0) -C 4 -S 64 -v" ;;
	# two connections (two comm IDs), two 64-byte messages each way on each
	ucmatose|udaddy) echo "$1 -c 2 -C 2 -S 64" ;;
	ib_send_bw-R) echo "ib_send_bw -R -d rxe0 -s 4096 -n 5 -F" ;;
	*) return 1 ;;
	esac
}

rr_tool_client() {   # $1: tool
	case $1 in
	rping) echo "rping -c -a $(rr_guest_ip 0) -C 4 -S 64 -v" ;;
	ucmatose|udaddy) echo "$1 -s $(rr_guest_ip 0) -c 2 -C 2 -S 64" ;;
	*) echo "$(rr_tool_server "$1") $(rr_guest_ip 0)" ;;
	esac
}

# The server runs in guest 0's background; this returns once it listens (TCP 18515 for the
# verbs tools' exchange, an RDMA CM listener for the rdma_cm tools), at most 30 s.
rr_tool_listening() {   # $1: tool
	case $1 in
	rping|ucmatose|udaddy|ib_send_bw-R) echo "rdma res show cm_id | grep -q LISTEN" ;;
	*) echo "netstat -ltn | grep -q ':18515 '" ;;
	esac
}

# What each end prints once the work is done (grep -E): a status of 0 alone is not enough.
rr_tool_said() {   # $1: tool
	case $1 in
	ibv_rc_pingpong) echo "8 iters in" ;;
	ib_send_bw|ib_write_bw|ib_read_bw) echo "^ *4096 +16 " ;;
	ib_atomic_bw) echo "^ *8 +16 " ;;
	ib_send_bw-R) echo "^ *4096 +5 " ;;
	rping) echo "ping data: rdma-ping-3:" ;;
	ucmatose|udaddy) echo "^data transfers complete" ;;
	esac
}

rr_capture_one() {   # $1: session dir, $2: netns, $3: out dir, $4: tool
	local d=$1 ns=$2 out=$3 t=$4 tp rc=0 crc srv i end
	srv=$(rr_tool_server "$t")
	say "capturing $t: guest 0 runs '$srv', guest 1 the client"
	ip netns exec "$ns" tcpdump -i rxtap0 -w "$out/$t.pcap" -U --immediate-mode -s 1600 -B 16384 \
		2>"$d/tcpdump.log" &
	tp=$!
	RR_TCPDUMP=$tp   # for the trap, if this is interrupted
	for i in $(seq 50); do grep -q 'listening on' "$d/tcpdump.log" 2>/dev/null && break; sleep 0.1; done
	rr_exec "$d" 60 "rm -f /tmp/srv.rc; ($srv; echo \$? > /tmp/srv.rc) > /tmp/srv.log 2>&1 &
		i=0; while [ \$i -lt 150 ] && ! { $(rr_tool_listening "$t"); }; do sleep 0.2; i=\$((i + 1)); done
		[ \$i -lt 150 ] || { echo 'the server did not start listening:'; cat /tmp/srv.log; exit 1; }" \
		> "$d/srv-start.txt" || { cat "$d/srv-start.txt" >&2; rc=1; }
	{
		echo "# $t with the kernel's Soft-RoCE at both ends (Debian $(cut -d' ' -f2 "$RR_CACHE/kernel"))"
		echo "# guest 1 ($(rr_guest_ip 1)), client: $(rr_tool_client "$t")"
	} > "$out/$t.txt"
	if [ $rc = 0 ]; then
		rr_exec "$(rr_gdir "$d" 1)" 120 "timeout 100 $(rr_tool_client "$t")" > "$d/client.txt" 2>&1 || crc=$?
		rr_exec "$d" 60 "i=0; while [ \$i -lt 150 ] && [ ! -e /tmp/srv.rc ]; do sleep 0.2; i=\$((i + 1)); done
			cat /tmp/srv.log; exit \$(cat /tmp/srv.rc 2>/dev/null || echo 124)" > "$d/server.txt" 2>&1 || rc=$?
		{
			cat "$d/client.txt"
			echo "# guest 0 ($(rr_guest_ip 0)), server: $srv"
			cat "$d/server.txt"
		} >> "$out/$t.txt"
		[ -z "${crc:-}" ] || rc=$crc
		if [ $rc = 0 ]; then
			for end in client server; do
				grep -Eq -- "$(rr_tool_said "$t")" "$d/$end.txt" && continue
				say "$t: the $end exited 0 but never said '$(rr_tool_said "$t")'"
				rc=1
			done
		fi
	fi
	sleep 0.5
	kill -INT $tp 2>/dev/null || true
	wait $tp 2>/dev/null || true
	RR_TCPDUMP=
	if [ $rc != 0 ]; then
		say "$t failed (status $rc); what the tools said:"
		sed 's/^/    /' "$out/$t.txt" >&2
		return 1
	fi
	printf '%-16s %5s frames  %s  (what the tools printed: %s)\n' "$t" \
		"$(tcpdump -r "$out/$t.pcap" 2>/dev/null | wc -l)" "$out/$t.pcap" "$out/$t.txt"
}

# Did ib_send_bw -R lose perftest's own race between its two rdma_cm connections: the client's second
# REQ before the server's second rdma_listen (the kernel's REJ 8, invalid service ID), or the server's
# second bind of its port before the first id let go of it ("rdma_bind_addr failed")? Seen under load.
rr_perftest_cm_race() {   # $1: tool
	[ "$1" = ib_send_bw-R ] || return 1
	grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$RR_SESSION/client.txt" 2>/dev/null ||
		grep -q 'rdma_bind_addr failed' "$RR_SESSION/server.txt" 2>/dev/null
}

# Both guests without the tool's processes, and no rdma_cm listener left (the kernel lets a new one
# bind the port only once the old id is gone: "rdma_bind_addr failed"), at most 10 s.
rr_tool_gone() {   # $1: tool's program
	local g
	for g in 0 1; do
		rr_exec "$(rr_gdir "$RR_SESSION" $g)" 30 "pkill $1; i=0
			while [ \$i -lt 50 ] && { pgrep $1 >/dev/null || rdma res show cm_id | grep -q LISTEN; }; do
				sleep 0.2; i=\$((i + 1)); done; pkill -9 $1; true" >/dev/null 2>&1
	done
}

# After a failed capture of ib_send_bw -R that lost perftest's own race, at most two more tries.
rr_capture_retries() {   # $1: netns, $2: out dir, $3: tool
	local n
	for n in 2 3; do
		rr_perftest_cm_race "$3" || return 1
		say "$3: perftest -R lost its own race between its two rdma_cm connections (it closes and" \
		    "reopens its listener: the client's REQ met REJ 8, or the server's bind failed); try $n of 3"
		rr_tool_gone ib_send_bw
		rr_capture_one "$RR_SESSION" "$1" "$2" "$3" && return 0
	done
	return 1
}

rr_capture() {   # $1: out dir, $2: netns, then tools
	local out=$1 ns=$2 t fails=0
	shift 2
	[ $# -gt 0 ] || set -- $RR_TOOLS
	for t in "$@"; do rr_tool_server "$t" >/dev/null || usage_die "unknown tool '$t' (one of: $RR_TOOLS)"; done
	mkdir -p "$out" || die "cannot create $out"
	RR_SESSION=$(mktemp -d /tmp/rocelab-realrxe.XXXXXX)
	RR_TCPDUMP=
	trap '[ -z "$RR_TCPDUMP" ] || kill -INT $RR_TCPDUMP 2>/dev/null; rr_stop "$RR_SESSION"; rm -rf "$RR_SESSION"' EXIT
	trap 'exit 130' INT TERM
	rr_start "$RR_SESSION" "$ns" 900 2
	for t in "$@"; do
		rr_capture_one "$RR_SESSION" "$ns" "$out" "$t" && continue
		rr_capture_retries "$ns" "$out" "$t" && continue
		fails=$((fails + 1))
	done
	[ $fails = 0 ] || die "$fails of $# captures failed"
	say "open them in Wireshark, or: rocelab explain $out/<tool>.pcap"
}

# ---- commands ---------------------------------------------------------------------------------

cmd=${1:-}
[ $# -gt 0 ] && shift
dir="" ns=rlrxe maxtime=1800 timeout=600 force="" guests=1 guest=0 out=rxe-captures
while [ $# -gt 0 ]; do
	case $1 in
	--dir) need "$@"; dir=$2; shift 2 ;;
	--netns) need "$@"; ns=$2; shift 2 ;;
	--max-time) need "$@"; maxtime=$2; shift 2 ;;
	--timeout) need "$@"; timeout=$2; shift 2 ;;
	--force) force=1; shift ;;
	--guests) need "$@"; guests=$2; shift 2 ;;
	--guest) need "$@"; guest=$2; shift 2 ;;
	--out) need "$@"; out=$2; shift 2 ;;
	--add) need "$@"; RR_ADD+=("$2"); shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) say "unknown option $1"; usage >&2; exit 2 ;;
	*) break ;;
	esac
done
case $maxtime$timeout in *[!0-9]*) usage_die "--max-time and --timeout take whole seconds" ;; esac
maxtime=$((10#$maxtime)) timeout=$((10#$timeout)) # decimal: 010 is ten, not octal 8
case $guests in 1|2) ;; *) usage_die "--guests takes 1 or 2" ;; esac
case $guest in 0|1) ;; *) usage_die "--guest takes 0 or 1" ;; esac
case $cmd:${#RR_ADD[@]} in
run:*|start:*|shell:*|*:0) ;;
*) usage_die "--add is for run, start and shell: a started guest takes its programs at start" ;;
esac

case $cmd in
build) dry; rr_build "$force" ;;
start)
	[ -n "$dir" ] || usage_die "start needs --dir DIR (where the session lives)"
	dry
	mkdir -p "$dir" || die "cannot create $dir"
	rr_add_progs "$dir"
	rr_start "$dir" "$ns" "$maxtime" "$guests" ;;
exec)
	[ -n "$dir" ] || usage_die "exec needs --dir DIR (of 'rocelab realrxe start')"
	[ $# -gt 0 ] || usage_die "exec needs a COMMAND"
	dry
	rr_exec "$(rr_gdir "$dir" "$guest")" "$timeout" "$*" ;;
stop)
	[ -n "$dir" ] || usage_die "stop needs --dir DIR"
	dry
	rr_stop "$dir" ;;
run)
	[ $# -gt 0 ] || usage_die "run needs a COMMAND"
	dry
	dir=$(mktemp -d /tmp/rocelab-realrxe.XXXXXX)
	trap 'rr_stop "$dir"; rm -rf "$dir"' EXIT
	trap 'exit 130' INT TERM
	rr_add_progs "$dir"
	rr_start "$dir" "$ns" "$maxtime" 1
	set +e
	rr_exec "$dir" "$timeout" "$*"
	exit $? ;;
shell)
	dry
	[ "$(id -u)" = 0 ] || die "run as root"
	rr_ensure_built
	dir=$(mktemp -d /tmp/rocelab-realrxe.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
	rr_add_progs "$dir"
	rr_add_libs "$dir"
	trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$dir"' EXIT
	rr_netns "$ns" 1
	accel=$(rr_accel "$dir" "$ns")
	rr_overlay "$dir"
	say "booting ($accel); the host side is $RR_HOST_IP in netns $ns; 'poweroff -f' ends the VM"
	rr_qemu "$ns" "$dir/initrd" "$accel" 0 -nographic -append "$(rr_cmdline shell "$maxtime" 0)" ;;
capture)
	for t in "$@"; do rr_tool_server "$t" >/dev/null || usage_die "unknown tool '$t' (one of: $RR_TOOLS)"; done
	dry
	[ "$(id -u)" = 0 ] || die "run as root: the VMs' network is a bridge in a network namespace"
	rr_capture "$out" "$ns" "$@" ;;
""|-h|--help|help) usage ;;
*) say "unknown command '$cmd'"; usage >&2; exit 2 ;;
esac
