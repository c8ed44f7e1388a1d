#!/bin/busybox sh
# /init of the realrxe VM (busybox sh): load rdma_rxe, bring up eth0 and rxe0,
# then do what the kernel command line says:
#   rxe.mode=ctl    run commands sent on the second serial port (/dev/ttyS1),
#                   a line "MD5 BASE64" each; answer "@@RXE-RC STATUS CMD-MD5 MD5 BASE64"
#                   with the output (realrxe.sh exec)
#   rxe.mode=shell  a shell on the console
#   rxe.mode=probe  say "@@RXE-READY" and power off (does this accelerator boot?)
# rxe.ip=A/N is eth0's address; rxe.maxtime=S powers the guest off after S s whatever happens.
/bin/busybox --install -s /bbin
# iproute2's ip and rdma by full path: busybox has an ip of its own
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocelab:/bbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp

arg() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
MODE=$(arg rxe.mode)
IP=$(arg rxe.ip)
MAXTIME=$(arg rxe.maxtime)
[ -n "$MAXTIME" ] && (sleep "$MAXTIME"; echo "realrxe: --max-time $MAXTIME s reached, powering off"; poweroff -f) &

ctl=/dev/ttyS1
[ "$MODE" = ctl ] || [ "$MODE" = probe ] || ctl=/dev/null
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3<> $ctl
fail() {
	echo "realrxe: $*"
	echo "@@RXE-FAILED $*" >&3
	sleep 1
	poweroff -f
}

KVER=$(uname -r)
for m in $(cat /etc/rxe-modules); do
	insmod "/lib/modules/$KVER/kernel/$m.ko" || fail "insmod $m failed"
done
/bin/ip link set lo up
/bin/ip link set eth0 up || fail "no eth0"
[ -n "$IP" ] && { /bin/ip addr add "$IP" dev eth0 || fail "ip addr add $IP failed"; }
/usr/bin/rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0 failed (see dmesg)"
echo "realrxe: rxe0 on eth0 ${IP:-(no address)}, kernel $KVER, up after $(cut -d' ' -f1 /proc/uptime) s"

case "$MODE" in
probe)
	echo "@@RXE-READY" >&3 ;;
shell)
	echo "realrxe: a shell in the guest; 'poweroff -f' (or Ctrl-D) ends the VM"
	setsid cttyhack sh ;;
ctl)
	echo "@@RXE-READY" >&3
	# Each way a line is "MD5 BASE64": a line the serial port garbled is asked for again.
	while IFS= read -r line <&3; do
		case $line in
		exit) break ;;
		@@AGAIN) echo "$answer" >&3; continue ;;
		esac
		b64=${line#* }
		sum=${line%% *}
		if [ "$sum" != "$(printf '%s' "$b64" | md5sum | cut -c1-32)" ]; then
			echo "@@RXE-AGAIN" >&3
			continue
		fi
		echo "$b64" | base64 -d > /tmp/cmd.sh
		(cd /root && sh /tmp/cmd.sh < /dev/null > /tmp/cmd.out 2>&1)
		rc=$?
		b64=$(base64 /tmp/cmd.out | tr -d '\n')
		# which command this answers (its MD5), then an MD5 over that and the output
		answer="@@RXE-RC $rc $sum $(printf '%s' "$sum $b64" | md5sum | cut -c1-32) $b64"
		echo "$answer" >&3
	done ;;
esac
poweroff -f
