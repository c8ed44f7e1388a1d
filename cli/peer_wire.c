/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer, the wire: UDP sockets carry the core's packets.
 *
 * Why sockets: the kernel does routing, neighbour discovery and checksums,
 * and a datagram socket is the fastest path Linux offers without a kernel
 * module. The host hands over each packet as a path and its bytes from the
 * BTH to the ICRC (emit_pkt), sent as a UDP datagram from a socket bound to
 * the QP's UDP source port. Over IPv4 that socket has IP_PMTUDISC_DO, so
 * Linux sends DF=1 and Identification 0: the path the core computed the ICRC
 * over (IBA A17.3.3 masks TTL, TOS and the checksums, not the
 * Identification). Over IPv6 the ICRC masks traffic class, flow label and
 * hop limit, the only fields Linux chooses, and IPV6_DONTFRAG keeps a
 * datagram from being fragmented.
 *
 * A packet that arrives goes to the host the same way, as a path and
 * BTH..ICRC (rl_host_read_pkt), and the host checks the ICRC over the
 * invariant fields the path carries. A socket bound to 4791 takes what
 * arrives, so the kernel never answers RoCE with ICMP port unreachable.
 * recvmsg() on it does not show the IP header, and over IPv4 the ICRC
 * covers the Identification, which each sender picks its own way (Linux's
 * rxe counts it up). So where it may (CAP_NET_RAW), the peer reads IPv4
 * packets from a raw IPPROTO_UDP socket instead, which hands over the IP
 * header as it came, and the path takes the real Identification from it;
 * the UDP socket then only holds the port, and a filter drops its copies.
 * Without that right, and over IPv6 (whose ICRC covers no field a sender
 * picks), the path is made of the addresses (IP_PKTINFO / IPV6_PKTINFO), the
 * TOS or traffic class and, over IPv4, DF with Identification 0: rocelab's
 * own packets then pass, and a sender with other Identifications fails the
 * ICRC check and is counted, not accepted.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "peer.h"

#define PEER_RXE_HDR 80 /* rxe: the largest header it allows for when it picks the path MTU */
#define PEER_BATCH 64
#define PEER_DGRAM_MAX 9216
#define PEER_IPV4_LEN 20
#define PEER_UDP_LEN 8
#define PEER_TTL 64 /* what Linux sends; the ICRC masks it */
#define PEER_DAD_POLL_NS 100000000 /* a tentative IPv6 address: try bind() again every 100 ms, */
#define PEER_DAD_POLLS 50          /* for at most 5 s (DAD: 1 s by default) */

uint64_t peer_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double peer_rand(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return (double)(*rng >> 11) / 9007199254740992.0;
}

/* ---- addresses and GIDs ------------------------------------------------------------------------- */

void peer_addr_set_port(union peer_addr *a, uint16_t port)
{
	if (a->sa.sa_family == AF_INET6)
		a->v6.sin6_port = htons(port);
	else
		a->v4.sin_port = htons(port);
}

socklen_t peer_addr_len(const union peer_addr *a)
{
	return a->sa.sa_family == AF_INET6 ? sizeof(a->v6) : sizeof(a->v4);
}

void peer_addr_str(const union peer_addr *a, char *s, size_t n)
{
	if (!inet_ntop(a->sa.sa_family, a->sa.sa_family == AF_INET6 ? (const void *)&a->v6.sin6_addr
								     : (const void *)&a->v4.sin_addr,
		       s, (socklen_t)n))
		snprintf(s, n, "?");
}

void peer_addr_to_gid(const union peer_addr *a, uint8_t gid[16])
{
	if (a->sa.sa_family == AF_INET6)
		memcpy(gid, &a->v6.sin6_addr, 16);
	else
		rl_gid_from_ipv4(gid, (const uint8_t *)&a->v4.sin_addr);
}

/* The GID table of the interface that holds @a (or of --interface). */
static int peer_gid_table(const char *ifname, const union peer_addr *a, struct cli_gids *t)
{
	char name[IF_NAMESIZE], s[INET6_ADDRSTRLEN];

	if (!ifname && !cli_gid_ifname_of(a->sa.sa_family == AF_INET6 ? (const void *)&a->v6.sin6_addr
									: (const void *)&a->v4.sin_addr,
					  a->sa.sa_family, name)) {
		peer_addr_str(a, s, sizeof(s));
		cli_error("peer", "no interface holds the address %s", s);
		return -1;
	}
	return cli_gid_table("peer", ifname ? ifname : name, t);
}

static void peer_gid_list(const struct cli_gids *t, char *s, size_t n)
{
	size_t o = 0;
	char g[INET6_ADDRSTRLEN];

	s[0] = '\0';
	for (int i = 0; i < t->n && o < n; i++) {
		peer_gid_str(t->gid[i], g, sizeof(g));
		o += (size_t)snprintf(s + o, n - o, "%s%d %s", i ? ", " : "", i, g);
	}
}

bool peer_gid_family_ok(const struct peer *p, const uint8_t gid[16])
{
	return rl_gid_is_ipv4(gid) == (p->net.family == AF_INET);
}

int peer_pick_gid(struct peer *p)
{
	const struct cli_gids *t = &p->net.gids;
	uint8_t mine[16];
	char list[512], g[INET6_ADDRSTRLEN], a[INET6_ADDRSTRLEN];
	int gi = p->o.gid_index;

	if (peer_gid_table(p->o.ifname, &p->net.local, &p->net.gids))
		return -1;
	peer_gid_list(t, list, sizeof(list));
	peer_addr_to_gid(&p->net.local, mine);
	peer_addr_str(&p->net.local, a, sizeof(a));
	if (gi < 0) {
		for (gi = 1; gi < t->n && memcmp(t->gid[gi], mine, 16); gi++)
			;
		if (gi == t->n) {
			cli_error("peer", "the address %s that reaches the other side is not on interface %s (GIDs: %s): "
				  "check 'ip route get' for the peer's address", a, t->ifname, list);
			return -1;
		}
	} else if (gi >= t->n) {
		cli_error("peer", "GID index %d is not in the GID table of %s, which has %d (%s): "
			  "like ibv_rc_pingpong -g and perftest -x, --gid-index picks one of these", gi, t->ifname, t->n,
			  list);
		return -1;
	} else if (peer_gid_is_link_local(t->gid[gi])) {
		/*
		 * The link-local default GID: RoCEv2 over IPv6 link-local, on this
		 * link only, whatever family the exchange used. The kernel does it
		 * when both ends take index 0 (checked in the realrxe VM); a GID of
		 * the other family at the other end is refused at RTR (peer_exchange.c).
		 */
		p->net.family = AF_INET6;
		memset(&p->net.local, 0, sizeof(p->net.local));
		p->net.local.v6.sin6_family = AF_INET6;
		p->net.local.v6.sin6_scope_id = t->ifindex;
	} else if (!peer_gid_family_ok(p, t->gid[gi])) {
		peer_gid_str(t->gid[gi], g, sizeof(g));
		cli_error("peer", "GID index %d (%s) is %s, but the other side is reached over %s; GIDs of %s: %s", gi,
			  g, p->net.family == AF_INET ? "IPv6" : "IPv4", p->net.family == AF_INET ? "IPv4" : "IPv6", t->ifname,
			  list);
		return -1;
	}
	p->net.gid_index = gi;
	if (p->net.family == AF_INET)
		memcpy(&p->net.local.v4.sin_addr, t->gid[gi] + 12, 4);
	else
		memcpy(&p->net.local.v6.sin6_addr, t->gid[gi], 16);
	return 0;
}

int peer_pick_mtu(struct peer *p)
{
	enum rl_mtu best = RL_MTU_256;
	const char *ifn = p->net.gids.ifname;
	int if_mtu = p->net.gids.mtu;
	uint32_t need;

	for (enum rl_mtu m = RL_MTU_256; m <= RL_MTU_4096; m++)
		if ((int)rl_mtu_bytes(m) + PEER_RXE_HDR <= if_mtu)
			best = m;
	if (!p->o.mtu) {
		p->o.mtu = best;
	} else if (p->o.mtu > best) {
		need = rl_mtu_bytes(p->o.mtu) + PEER_RXE_HDR;
		cli_error("peer", "path MTU %u does not fit interface %s (MTU %d): it needs at least %u; "
			  "fix with 'ip link set dev %s mtu %u' on both ends, or use --mtu %u",
			  rl_mtu_bytes(p->o.mtu), ifn, if_mtu, need, ifn, rl_mtu_bytes(p->o.mtu) == 4096 ? 9000u : need,
			  rl_mtu_bytes(best));
		return -1;
	}
	return 0;
}

int peer_bind_device(const struct peer *p, int fd)
{
	if (!p->o.ifname)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, p->o.ifname, (socklen_t)strlen(p->o.ifname) + 1)) {
		cli_error("peer", "cannot bind to interface %s: %s", p->o.ifname,
			  errno == ENODEV ? "no such interface ('ip -br link' lists them)" : strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- frames out ---------------------------------------------------------------------------------- */

/*
 * Frames wait here until peer_flush() sends them with one sendmmsg() per
 * socket: the ACK of a message and the reply that follows it leave
 * together, and a window of WRITE packets costs a few system calls, not one
 * each. Each frame keeps its own destination and socket: the path names
 * both (QP1's CM MADs leave from another UDP source port than the QP's).
 */
struct peer_tx {
	struct mmsghdr mm[PEER_BATCH];
	struct iovec iov[PEER_BATCH];
	union peer_addr to[PEER_BATCH];
	int fd[PEER_BATCH];
	unsigned n;
	uint8_t dgram[PEER_BATCH][PEER_DGRAM_MAX];
};

static bool peer_is_request(const struct iovec *v)
{
	uint8_t op = ((const uint8_t *)v->iov_base)[0];

	return v->iov_len && !(rl_opcode_info(op)->flags & (RL_OPF_RESP | RL_OPF_CNP));
}

/*
 * Requests leave before responses. The two are separate PSN spaces (our
 * requester's, the other side's requester's), each kept in order, so this
 * only stops a reply the other side waits for from queueing behind the ACK
 * of its previous message: on a veth the kernel carries one datagram of a
 * sendmmsg() to the other socket before it starts the next.
 */
static void peer_tx_order(struct peer_tx *t)
{
	struct iovec v[PEER_BATCH];
	union peer_addr to[PEER_BATCH];
	int fd[PEER_BATCH];
	unsigned k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < t->n; i++)
			if (peer_is_request(&t->iov[i]) == !pass) {
				v[k] = t->iov[i];
				to[k] = t->to[i];
				fd[k++] = t->fd[i];
			}
	memcpy(t->iov, v, t->n * sizeof(v[0]));
	memcpy(t->to, to, t->n * sizeof(to[0]));
	memcpy(t->fd, fd, t->n * sizeof(fd[0]));
}

void peer_flush(struct peer *p)
{
	struct peer_tx *t = p->net.txq;
	unsigned done = 0, end;

	if (t && t->n > 1)
		peer_tx_order(t);

	while (t && done < t->n) {
		int r;

		for (end = done; end < t->n && t->fd[end] == t->fd[done]; end++)
			t->mm[end].msg_hdr.msg_namelen = peer_addr_len(&t->to[end]);
		r = sendmmsg(t->fd[done], t->mm + done, end - done, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			/* The one that failed is counted and skipped (a full queue, an ICMP error reported late). */
			p->stat.tx_errors++;
			done++;
			continue;
		}
		p->stat.sent += (unsigned)r;
		done += (unsigned)r;
	}
	if (t)
		t->n = 0;
}

void peer_gid_to_addr(const uint8_t gid[16], int family, union peer_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->sa.sa_family = (sa_family_t)family;
	if (family == AF_INET)
		memcpy(&a->v4.sin_addr, gid + 12, 4);
	else
		memcpy(&a->v6.sin6_addr, gid, 16);
}

static int peer_tx_socket(struct peer *p, uint16_t sport, bool any_sport);

/* The socket bound to UDP source port @sport (made the first time a path names it); -1 if it cannot be. */
static int peer_tx_fd(struct peer *p, uint16_t sport)
{
	for (int i = 0; i < p->net.ntx; i++)
		if (p->net.tx[i].sport == sport)
			return p->net.tx[i].fd;
	return peer_tx_socket(p, sport, false) ? -1 : p->net.tx[p->net.ntx - 1].fd;
}

/* The host's packet, BTH..ICRC, sent from the source port to the destination its path names. */
void peer_emit(void *ctx, const struct rl_path *path, const uint8_t *pkt, size_t len)
{
	struct peer *p = ctx;
	struct peer_tx *t = p->net.txq;
	int fd;

	if (!t)
		return;
	/* --tx-loss: lost on the way, before the other side's ingress (a kernel peer has no --loss of ours). */
	if (p->o.tx_loss > 0 && peer_rand(&p->net.tx_rng) < p->o.tx_loss) {
		p->stat.dropped_tx++;
		return;
	}
	fd = peer_tx_fd(p, path->udp_sport);
	if (len > sizeof(t->dgram[0]) || fd < 0) {
		p->stat.tx_errors++;
		return;
	}
	if (t->n == PEER_BATCH)
		peer_flush(p);
	memcpy(t->dgram[t->n], pkt, len);
	t->iov[t->n].iov_base = t->dgram[t->n];
	t->iov[t->n].iov_len = len;
	peer_gid_to_addr(path->dgid, p->net.family, &t->to[t->n]);
	if (p->net.family == AF_INET6 && peer_gid_is_link_local(path->dgid))
		t->to[t->n].v6.sin6_scope_id = p->net.gids.ifindex;
	peer_addr_set_port(&t->to[t->n], PEER_ROCE_PORT);
	t->fd[t->n] = fd;
	t->n++;
	p->stat.tx_bytes += CLI_ETH_HDR_LEN + rl_path_hdr_len(path) + len;
}

static struct peer_tx *peer_tx_new(void)
{
	struct peer_tx *t = calloc(1, sizeof(*t));

	for (int i = 0; t && i < PEER_BATCH; i++) {
		t->mm[i].msg_hdr.msg_iov = &t->iov[i];
		t->mm[i].msg_hdr.msg_iovlen = 1;
		t->mm[i].msg_hdr.msg_name = &t->to[i];
	}
	return t;
}

/* ---- frames in ----------------------------------------------------------------------------------- */

/* recvmmsg() slots, set up once: a UDP socket's datagram, or a raw socket's IP packet. */
struct peer_rx {
	struct mmsghdr mm[PEER_BATCH];
	struct iovec iov[PEER_BATCH];
	union peer_addr from[PEER_BATCH];
	uint8_t cmsg[PEER_BATCH][128];
	uint8_t data[PEER_BATCH][PEER_IPV4_LEN + PEER_UDP_LEN + PEER_DGRAM_MAX];
};

static struct peer_rx *peer_rx_new(void)
{
	struct peer_rx *r = calloc(1, sizeof(*r));

	for (int i = 0; r && i < PEER_BATCH; i++) {
		r->iov[i].iov_base = r->data[i];
		r->iov[i].iov_len = sizeof(r->data[i]);
		r->mm[i].msg_hdr.msg_iov = &r->iov[i];
		r->mm[i].msg_hdr.msg_iovlen = 1;
		r->mm[i].msg_hdr.msg_name = &r->from[i];
		r->mm[i].msg_hdr.msg_control = r->cmsg[i];
	}
	return r;
}

void peer_queues_free(struct peer *p)
{
	free(p->net.rxq);
	free(p->net.txq);
	p->net.rxq = NULL;
	p->net.txq = NULL;
}

/*
 * The path of a datagram from a UDP socket: its addresses, its source port,
 * and what Linux sends that recvmsg() does not show (IPv4: DF, Identification 0).
 */
static void peer_dgram_path(const union peer_addr *src, const union peer_addr *dst, uint8_t tclass,
			    struct rl_path *path)
{
	memset(path, 0, sizeof(*path));
	peer_addr_to_gid(src, path->sgid);
	peer_addr_to_gid(dst, path->dgid);
	path->udp_sport = ntohs(src->sa.sa_family == AF_INET6 ? src->v6.sin6_port : src->v4.sin_port);
	path->traffic_class = tclass;
	path->hop_limit = PEER_TTL;
	path->ip_df = src->sa.sa_family == AF_INET;
}

/* The destination address and TOS / traffic class of a received datagram, from its control messages. */
static void peer_cmsgs(struct msghdr *m, union peer_addr *dst, uint8_t *tclass)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
			dst->v4.sin_addr = ((struct in_pktinfo *)CMSG_DATA(c))->ipi_addr;
		else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			*tclass = *CMSG_DATA(c);
		else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO)
			dst->v6.sin6_addr = ((struct in6_pktinfo *)CMSG_DATA(c))->ipi6_addr;
		else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			*tclass = (uint8_t)v;
		}
	}
}

/*
 * A raw socket's IPv4 packet of @n bytes at @ip: 1 with the path its header
 * says if it is RoCEv2 (UDP to 4791), 0 for any other UDP the socket sees.
 * RoCE senders put no IP options in (rxe does not) and a path has no room
 * for them: -1 for RoCEv2 behind options, which the ICRC would cover.
 */
static int peer_raw_path(const uint8_t *ip, size_t n, struct rl_path *path)
{
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4;

	if (n < PEER_IPV4_LEN + PEER_UDP_LEN || ip[0] >> 4 != 4 || ihl < PEER_IPV4_LEN || n < ihl + PEER_UDP_LEN ||
	    ip[9] != IPPROTO_UDP || rl_get16(ip + ihl + 2) != PEER_ROCE_PORT)
		return 0;
	if (ihl != PEER_IPV4_LEN)
		return -1;
	memset(path, 0, sizeof(*path));
	rl_gid_from_ipv4(path->sgid, ip + 12);
	rl_gid_from_ipv4(path->dgid, ip + 16);
	path->traffic_class = ip[1];
	path->ip_id = rl_get16(ip + 4);
	path->ip_df = ip[6] & 0x40;
	path->hop_limit = ip[8];
	path->udp_sport = rl_get16(ip + PEER_IPV4_LEN);
	return 1;
}

void peer_receive(struct peer *p, uint64_t now)
{
	struct peer_rx *r = p->net.rxq;
	bool raw = p->net.hold >= 0, lost;
	struct rl_path path;
	int n;

	/* The kernel shortens these to what it wrote; give the room back. */
	for (int i = 0; i < PEER_BATCH; i++) {
		r->mm[i].msg_hdr.msg_namelen = sizeof(r->from[i]);
		r->mm[i].msg_hdr.msg_controllen = sizeof(r->cmsg[i]);
	}
	n = recvmmsg(p->net.rx, r->mm, PEER_BATCH, MSG_DONTWAIT, NULL);
	for (int i = 0; i < n; i++) {
		const uint8_t *data = r->data[i];
		size_t len = r->mm[i].msg_len, off = 0;
		int roce = 1;

		if (raw) {
			roce = peer_raw_path(data, len, &path);
			if (!roce)
				continue;
			off = PEER_IPV4_LEN + PEER_UDP_LEN;
		} else {
			union peer_addr dst = p->net.local;
			uint8_t tclass = 0;

			peer_cmsgs(&r->mm[i].msg_hdr, &dst, &tclass);
			peer_dgram_path(&r->from[i], &dst, tclass, &path);
		}
		p->stat.recv_frames++;
		/* --loss draws for every frame, so that --drop-request beside it leaves its seeded losses as they were. */
		lost = p->o.loss > 0 && peer_rand(&p->net.rng) < p->o.loss;
		if (lost || p->stat.recv_frames == p->o.drop_request) {
			p->stat.dropped_loss++;
			continue;
		}
		if (!p->verbs.host && (roce < 0 || peer_cm_first_frame(p, &path))) {
			if (p->net.failed)
				return;
			continue;
		}
		if (roce < 0 || rl_host_read_pkt(p->verbs.host, &path, data + off, len - off, now))
			p->stat.rx_bad++;
		else
			p->stat.rx_bytes += CLI_ETH_HDR_LEN + rl_path_hdr_len(&path) + len - off;
		rl_host_run(p->verbs.host, now);
	}
}

int peer_tx_start(struct peer *p)
{
	if (!p->net.txq)
		p->net.txq = peer_tx_new();
	return p->net.txq ? 0 : -1;
}

/* ---- sockets ------------------------------------------------------------------------------------- */

static void peer_bufsize(int fd, int opt_force, int opt)
{
	int sz = 4 << 20;

	/* Root may go past net.core.rmem_max / wmem_max, and a burst of UD datagrams needs the room. */
	if (setsockopt(fd, SOL_SOCKET, opt_force, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, opt, &sz, sizeof(sz));
}

/*
 * bind(), waiting while an IPv6 address is tentative: an interface just
 * brought up holds its link-local address (GID index 0) only once duplicate
 * address detection is done, about a second later (RFC 4862 5.4), and
 * until then bind() says EADDRNOTAVAIL.
 */
static int peer_bind_when_ready(int fd, const union peer_addr *sa)
{
	const struct timespec pause = { 0, PEER_DAD_POLL_NS };

	for (unsigned waited = 0;; waited++) {
		if (!bind(fd, &sa->sa, peer_addr_len(sa)))
			return 0;
		if (errno != EADDRNOTAVAIL || sa->sa.sa_family != AF_INET6 || waited == PEER_DAD_POLLS)
			return -1;
		nanosleep(&pause, NULL);
	}
}

/* The UDP socket on 4791: where frames arrive, or (IPv4, raw socket) only what keeps the port open. */
static int peer_udp_socket(struct peer *p)
{
	union peer_addr sa = p->net.local;
	char a[INET6_ADDRSTRLEN];
	int one = 1, fd = socket(p->net.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || peer_bind_device(p, fd)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (p->net.family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
		/*
		 * The kernel's rxe sends RoCEv2 over IPv6 with UDP checksum 0, as
		 * over IPv4 (the ICRC protects the packet; RFC 6935 lets a tunnel do
		 * so). Linux drops such an IPv6 datagram unless the socket takes
		 * zero checksums: without this, nothing from the kernel arrived.
		 */
		setsockopt(fd, IPPROTO_UDP, UDP_NO_CHECK6_RX, &one, sizeof(one));
	} else {
		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
		setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	}
	peer_addr_set_port(&sa, PEER_ROCE_PORT);
	peer_bufsize(fd, SO_RCVBUFFORCE, SO_RCVBUF);
	if (peer_bind_when_ready(fd, &sa)) {
		peer_addr_str(&sa, a, sizeof(a));
		cli_error("peer", "cannot bind UDP port 4791 on %s: %s%s", a, strerror(errno),
			  errno == EADDRINUSE ? " (is Soft-RoCE or another peer using it here?)" : "");
		close(fd);
		return -1;
	}
	return fd;
}

/* IPv4: a raw socket that sees the UDP packets to our address with their IP header; -1 without CAP_NET_RAW. */
static int peer_raw_socket(struct peer *p)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP);

	if (fd < 0)
		return -1;
	if (bind(fd, &p->net.local.sa, sizeof(p->net.local.v4)) || peer_bind_device(p, fd)) {
		close(fd);
		return -1;
	}
	peer_bufsize(fd, SO_RCVBUFFORCE, SO_RCVBUF);
	return fd;
}

static int peer_rx_socket(struct peer *p)
{
	struct sock_filter none = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog drop_all = { .len = 1, .filter = &none };
	int udp = peer_udp_socket(p), raw = -1;

	if (udp < 0)
		return -1;
	if (p->net.family == AF_INET)
		raw = peer_raw_socket(p);
	if (raw < 0) {
		p->net.rx = udp;
		if (p->net.family == AF_INET && !p->o.json)
			fprintf(stderr, "rocelab peer: note: without CAP_NET_RAW this peer cannot see the IPv4 "
				"Identification of what arrives, and takes it for 0 (as rocelab sends): frames from "
				"kernel Soft-RoCE will fail the ICRC check. Run as root for them.\n");
		return 0;
	}
	if (setsockopt(udp, SOL_SOCKET, SO_ATTACH_FILTER, &drop_all, sizeof(drop_all))) {
		cli_error("peer", "cannot filter the UDP socket on 4791: %s", strerror(errno));
		close(udp);
		close(raw);
		return -1;
	}
	p->net.hold = udp;
	p->net.rx = raw;
	return 0;
}

/*
 * A socket to send from UDP source port @sport (or, with @any_sport, the
 * first free one from there), on p->net.local; -1 with a message.
 */
static int peer_tx_socket(struct peer *p, uint16_t sport, bool any_sport)
{
	union peer_addr sa = p->net.local;
	int pmtu = IP_PMTUDISC_DO, pmtu6 = IPV6_PMTUDISC_DO, one = 1, tclass = peer_traffic_class(&p->o), fd;

	if (p->net.ntx == PEER_TX_SOCKS) {
		cli_error("peer", "frames from more than %d UDP source ports", PEER_TX_SOCKS);
		return -1;
	}
	fd = socket(p->net.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || peer_bind_device(p, fd)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The QP's traffic class (ah_attr): with --cc dcqcn, ECT(0), as a NIC with DCQCN on marks its RoCE traffic. */
	if (p->net.family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu6, sizeof(pmtu6));
		setsockopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, &one, sizeof(one));
		if (tclass && setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tclass, sizeof(tclass)))
			cli_error("peer", "cannot set the traffic class 0x%02x: %s", tclass, strerror(errno));
	} else {
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
		if (tclass && setsockopt(fd, IPPROTO_IP, IP_TOS, &tclass, sizeof(tclass)))
			cli_error("peer", "cannot set the TOS 0x%02x: %s", tclass, strerror(errno));
	}
	peer_bufsize(fd, SO_SNDBUFFORCE, SO_SNDBUF);
	/* A UDP source port per QP, in 0xC000-0xFFFF as rxe picks them; the ICRC covers it. */
	for (unsigned i = 0; i < (any_sport ? 0x4000u : 1u); i++) {
		uint16_t port = (uint16_t)(any_sport ? 0xc000 | ((sport + i) & 0x3fff) : sport);

		peer_addr_set_port(&sa, port);
		if (!bind(fd, &sa.sa, peer_addr_len(&sa))) {
			p->net.tx[p->net.ntx++] = (struct peer_txsock){ port, fd };
			return 0;
		}
	}
	if (any_sport)
		cli_error("peer", "no free UDP source port in 0xC000-0xFFFF");
	else
		cli_error("peer", "the QP's UDP source port 0x%04x is in use: %s", sport, strerror(errno));
	close(fd);
	return -1;
}

int peer_rx_sockets(struct peer *p)
{
	if (peer_rx_socket(p))
		return -1;
	p->net.rxq = peer_rx_new();
	return p->net.rxq && !peer_tx_start(p) ? 0 : -1;
}

int peer_sockets(struct peer *p, uint16_t sport, bool any_sport)
{
	if (peer_rx_sockets(p) || peer_tx_socket(p, sport, any_sport))
		return -1;
	p->net.sport = p->net.tx[0].sport;
	return 0;
}

/*
 * The kernel's route lookup: a UDP socket connected to the other side's
 * port 4791 (bound first to -I's address, if given) is given the local
 * address the route picks, which is what rdma_resolve_addr() binds to.
 */
int peer_route_local(struct peer *p)
{
	union peer_addr to = p->net.remote, src;
	socklen_t sl = sizeof(p->net.local);
	int fd = socket(p->net.family, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -1;

	peer_addr_set_port(&to, PEER_ROCE_PORT);
	if (fd < 0 || peer_bind_device(p, fd))
		goto out;
	if (p->o.rp.source) {
		if (peer_parse_addr(p, p->o.rp.source, &src))
			goto out;
		if (src.sa.sa_family != to.sa.sa_family) {
			cli_error("peer", "-I %s and -a %s are of different address families", p->o.rp.source, p->o.addr);
			goto out;
		}
		peer_addr_set_port(&src, 0);
		if (bind(fd, &src.sa, peer_addr_len(&src))) {
			cli_error("peer", "cannot bind to the source address %s: %s", p->o.rp.source, strerror(errno));
			goto out;
		}
	}
	if (connect(fd, &to.sa, peer_addr_len(&to))) {
		if (errno == ENETUNREACH || errno == EHOSTUNREACH)
			cli_error("peer", "no route to %s: check 'ip route' (and the namespace you run in)", p->o.addr);
		else
			cli_error("peer", "cannot find a route to %s: %s", p->o.addr, strerror(errno));
		goto out;
	}
	getsockname(fd, &p->net.local.sa, &sl);
	peer_addr_set_port(&p->net.local, 0);
	p->net.local_known = true;
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	return r;
}
