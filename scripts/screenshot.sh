#!/bin/sh
# Take docs/wireshark-request-loss.png: the real Wireshark (Qt) under Xvfb with
# the rocelab plugin, on the request-loss scenario, RoCE Lab tree expanded.
# Not part of `make test`; run it after changing what the plugin shows.
# Needs: wireshark-qt xvfb xdotool imagemagick (apt-get install them), root.
set -eu
cd "$(dirname "$0")/.."
OUT=${1:-docs/wireshark-request-loss.png}
D=:77
T=$(mktemp -d)
chmod 755 "$T"
trap 'pkill -f "wireshark -r $T" 2>/dev/null; kill $XVFB 2>/dev/null; rm -rf "$T"' EXIT INT TERM

make -s all plugin
mkdir -p "$T/plugins/4.0/epan" "$T/home/.config/wireshark"
cp build/plugin/rocelab.so "$T/plugins/4.0/epan/"
build/rocelab gen request-loss -o "$T/request-loss.pcap"
printf 'gui.geometry_main_x: 0\ngui.geometry_main_y: 0\ngui.geometry_main_width: 1500\ngui.geometry_main_height: 950\n' \
	>"$T/home/.config/wireshark/recent"
chmod -R a+rX "$T"
chown -R 65534 "$T/home"

Xvfb $D -screen 0 1500x950x24 -nolisten tcp >/dev/null 2>&1 &
XVFB=$!
sleep 1
# Wireshark loads personal plugins only when not run as root.
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$T/home" XDG_RUNTIME_DIR="$T/home" DISPLAY=$D \
	WIRESHARK_PLUGIN_DIR="$T/plugins" wireshark -r "$T/request-loss.pcap" -g 6 \
	--disable-heuristic rpcrdma_infiniband -o gui.layout_type:1 -o gui.layout_content_3:NONE \
	>/dev/null 2>&1 &
export DISPLAY=$D
i=0
until W=$(xdotool search --name "request-loss.pcap" 2>/dev/null | head -1) && [ -n "$W" ]; do
	i=$((i + 1))
	[ $i -lt 60 ] || { echo "screenshot: Wireshark did not open" >&2; exit 1; }
	sleep 0.5
done
sleep 2
xdotool windowsize "$W" 1500 950 windowmove "$W" 0 0
sleep 1
xdotool mousemove 700 507 mousedown 1 mousemove 700 400 mousemove 700 285 mouseup 1   # details pane up
sleep 0.5
xdotool mousemove 200 399 click 1 key shift+Right                                    # expand RoCE Lab
sleep 1
import -window root "$OUT"
echo "screenshot: $OUT"
