# Sourced by run.sh and two_flows.sh: the topology both build. Namespaces $NA, $NB and $NC (eth0 at
# 10.23.0.1, .2 and .3, IPv6 off), each joined by a veth to the router namespace $NR (r1, r2, r3, no
# address: rocelab switch forwards between them). False if a namespace or veth cannot be made.
topo_setup() {
    for n in "$NA" "$NB" "$NC" "$NR"; do
        ip netns add "$n" || return 1
        ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip -n "$n" link set lo up
    done
    i=1
    for n in "$NA" "$NB" "$NC"; do
        ip link add eth0 netns "$n" type veth peer name "r$i" netns "$NR" || return 1
        ip -n "$n" addr add "10.23.0.$i/24" dev eth0
        ip -n "$n" link set eth0 up
        ip -n "$NR" link set "r$i" up
        i=$((i + 1))
    done
}
