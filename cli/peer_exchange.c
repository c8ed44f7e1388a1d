/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer, the connection exchange over TCP.
 *
 * It is ibv_rc_pingpong's and ibv_ud_pingpong's (rdma-core
 * libibverbs/examples): the client writes "LID:QPN:PSN:GID" (%04x:%06x:%06x:
 * and the GID as 32 hex digits, 52 bytes with the NUL), reads the server's,
 * and writes "done". The server moves its QP to RTR before it answers, so
 * the client may send at once. Then, unless --compat pingpong, one line of
 * ours says what the test is and where the server's buffer is; with
 * --compat pingpong the data exchange is the pingpong tools' own, so the
 * other side may be the real ibv_rc_pingpong. After the test the client
 * writes "fin" and the server answers whether the data arrived.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if_arp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"
#include "peer.h"

#define PEER_OP_LEN 160
#define PEER_RES_LEN 32

/*
 * --timeout as the socket keeps it (peer_tcp_timeout() set it as
 * SO_RCVTIMEO and SO_SNDTIMEO), in ms; -1 if none. Each peer_io() call is
 * one line of the exchange, and the whole line must move within it: a peer
 * that sends a byte now and then cannot hold this side for longer.
 */
static int peer_io_budget_ms(int fd, bool wr)
{
	struct timeval tv;
	socklen_t l = sizeof(tv);

	if (getsockopt(fd, SOL_SOCKET, wr ? SO_SNDTIMEO : SO_RCVTIMEO, &tv, &l) || (!tv.tv_sec && !tv.tv_usec))
		return -1;
	return (int)(tv.tv_sec * 1000 + tv.tv_usec / 1000);
}

bool peer_io(int fd, void *buf, size_t n, bool wr)
{
	uint8_t *b = buf;
	int budget = peer_io_budget_ms(fd, wr);
	uint64_t end = peer_now() + (uint64_t)(budget > 0 ? budget : 0) * 1000000u;

	while (n) {
		struct pollfd pf = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
		uint64_t now = peer_now();
		ssize_t r;

		if (budget >= 0) {
			int ready = now >= end ? 0 : poll(&pf, 1, (int)((end - now + 999999) / 1000000));

			if (ready < 0 && errno == EINTR)
				continue;
			if (ready == 0) {
				errno = ETIMEDOUT;
				return false;
			}
		}
		/* MSG_NOSIGNAL: a peer that went away is an error we report, not a SIGPIPE that kills us. */
		r = wr ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			errno = ETIMEDOUT;
		if (r == 0)
			errno = ECONNRESET;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/* --timeout on the exchange's socket: connect(), every line, "done" and "fin" (peer_io()). */
static void peer_tcp_timeout(const struct peer *p, int fd)
{
	struct timeval tv = { .tv_sec = (time_t)p->o.timeout_s };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Why a peer_io() failed, for the messages below: the other side was silent too long, or went away. */
static bool peer_io_timed_out(const struct peer *p, const char *who)
{
	if (errno != ETIMEDOUT)
		return false;
	cli_error("peer", "the %s sent no whole exchange line within %u s (--timeout): it is stuck, or not a rocelab "
		  "or pingpong peer; this side gives up rather than wait for ever", who, p->o.timeout_s);
	return true;
}

void peer_dest_fmt(const struct peer_dest *d, char msg[PEER_MSG_LEN])
{
	char gid[33];

	for (int i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", d->gid[i]);
	memset(msg, 0, PEER_MSG_LEN);
	snprintf(msg, PEER_MSG_LEN, "%04x:%06x:%06x:%s", d->lid, d->qpn, d->psn, gid);
}

bool peer_dest_parse(const char *msg, struct peer_dest *d)
{
	char gid[33];
	unsigned b;

	if (sscanf(msg, "%x:%x:%x:%32s", &d->lid, &d->qpn, &d->psn, gid) != 4 || strlen(gid) != 32)
		return false;
	for (int i = 0; i < 16; i++) {
		if (sscanf(gid + 2 * i, "%2x", &b) != 1)
			return false;
		d->gid[i] = (uint8_t)b;
	}
	return d->qpn <= 0xffffff && d->psn <= 0xffffff;
}

/* The other side's GID must be an address of ours to send to: the mistakes people make with -g. */
int peer_dest_check(struct peer *p)
{
	static const uint8_t zero[16];
	union peer_addr a;
	char g[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN];

	peer_gid_str(p->conn.them.gid, g, sizeof(g));
	if (!memcmp(p->conn.them.gid, zero, 16)) {
		cli_error("peer", "the other side sent GID 0: it was started without a GID index. RoCE routes by GID: "
			  "run ibv_rc_pingpong with -g N (Soft-RoCE over IPv4: usually -g 1; 'ibv_devinfo -v' "
			  "lists the GIDs)");
		return -1;
	}
	if (!peer_gid_family_ok(p, p->conn.them.gid)) {
		/*
		 * An IPv4 GID at one end and an IPv6 one (the link-local default GID
		 * of index 0, say) at the other: no packet can carry both. The
		 * kernel's ib_modify_qp() to RTR refuses such an address vector with
		 * EINVAL, at whichever end moves to RTR first (checked in the realrxe
		 * VM, both ways round); so does this side.
		 */
		peer_gid_str(p->conn.me.gid, r, sizeof(r));
		cli_error("peer", "Failed to modify QP to RTR: Invalid argument (the other side's GID %s is %s, ours, %s "
			  "at index %d, is %s: the kernel refuses a source and a destination GID of different families, "
			  "EINVAL). Give both ends GIDs of one family: the IPv4 address's index (-g 1 on rxe) at both, "
			  "or index 0, the link-local IPv6 GID, at both", g, p->net.family == AF_INET ? "IPv6" : "IPv4", r,
			  p->net.gid_index, p->net.family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	/* Frames go to the address in the GID, as the AV says, not to the TCP peer; a link-local one on our link. */
	a = p->net.remote;
	if (a.sa.sa_family != p->net.family) {
		memset(&a, 0, sizeof(a));
		a.sa.sa_family = (sa_family_t)p->net.family;
	}
	if (p->net.family == AF_INET) {
		memcpy(&a.v4.sin_addr, p->conn.them.gid + 12, 4);
	} else {
		memcpy(&a.v6.sin6_addr, p->conn.them.gid, 16);
		if (peer_gid_is_link_local(p->conn.them.gid))
			a.v6.sin6_scope_id = p->net.gids.ifindex;
	}
	if (peer_gid_trusted(p, p->conn.them.gid))
		return -1;
	if (memcmp(&a, &p->net.remote, sizeof(a)) && !p->o.json) {
		peer_addr_str(&p->net.remote, r, sizeof(r));
		fprintf(stderr, "rocelab peer: note: the exchange came from %s, RoCE goes to its GID %s\n", r, g);
	}
	p->net.remote = a;
	return peer_tx_start(p);
}

/*
 * The MAC behind the IPv4 address @ip on @ifname, from the neighbour table
 * (the TCP connection put it there); false if it has none.
 */
static bool peer_neigh_mac(const char *ifname, const uint8_t ip[4], uint8_t mac[6])
{
	struct arpreq r;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	memset(&r, 0, sizeof(r));
	r.arp_pa.sa_family = AF_INET;
	memcpy(&((struct sockaddr_in *)(void *)&r.arp_pa)->sin_addr, ip, 4);
	snprintf(r.arp_dev, sizeof(r.arp_dev), "%s", ifname);
	ok = !ioctl(fd, SIOCGARP, &r) && (r.arp_flags & ATF_COM);
	close(fd);
	if (ok)
		memcpy(mac, r.arp_ha.sa_data, 6);
	return ok;
}

/* 0 if @gid is the peer whose address is the GID @from (or -g 0: the default GID of its MAC); else -1, said why. */
static int peer_gid_from(const struct peer *p, const uint8_t gid[16], const uint8_t from[16])
{
	uint8_t mac[6], mac_gid[16];
	char g[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN];

	if (p->o.allow_other_gid || !memcmp(gid, from, 16))
		return 0;
	/* -g 0 at both ends: the default GID of the MAC the peer's IPv4 address resolved to. */
	if (peer_gid_is_link_local(gid) && rl_gid_is_ipv4(from) && peer_neigh_mac(p->net.gids.ifname, from + 12, mac)) {
		cli_gid_of_mac(mac, mac_gid);
		if (!memcmp(gid, mac_gid, 16))
			return 0;
	}
	peer_gid_str(gid, g, sizeof(g));
	peer_gid_str(from, r, sizeof(r));
	if (rl_gid_is_ipv4(from))
		snprintf(r, sizeof(r), "%u.%u.%u.%u", from[12], from[13], from[14], from[15]);
	cli_error("peer", "the exchange came from %s but names GID %s: this side would send its RoCE frames (READ "
		  "responses, ACKs) to an address that never spoke to it, so anyone who can reach the TCP port could "
		  "aim them at a third host. Refused; give --allow-other-gid if %s really is the other side (a "
		  "GID on another interface of it)%s", r, g, g,
		  peer_gid_is_link_local(gid) ? ". A link-local GID is taken when it is the default GID of the MAC "
		  "the peer's IPv4 address resolves to" : "");
	return -1;
}

int peer_gid_trusted(const struct peer *p, const uint8_t gid[16])
{
	uint8_t tcp[16];

	peer_addr_to_gid(&p->net.remote, tcp);
	return peer_gid_from(p, gid, tcp);
}

bool peer_size_allowed(const struct peer *p, uint32_t size, char *why, size_t n)
{
	if (size <= p->o.max_size)
		return true;
	/* Short: it goes back to the client in one exchange line (PEER_OP_LEN). */
	snprintf(why, n, "%u-byte messages asked, %u at most here (the server's --size caps what a client can make it "
		 "allocate)", size, p->o.max_size);
	return false;
}

/*
 * Ours, after the pingpong exchange: what the test is, and where the server's
 * buffer is. Then " all" for -a (the messages are every size up to size,
 * iters the count of all of them) and " duration S" for -D (iters unknown).
 */
static void peer_op_fmt(const struct peer *p, char msg[PEER_OP_LEN])
{
	uint32_t rounds = 0;

	for (uint32_t len = 2; p->o.all_sizes && len <= p->o.size; len *= 2)
		rounds++;
	memset(msg, 0, PEER_OP_LEN);
	snprintf(msg, PEER_OP_LEN,
		 "rocelab op %s size %u iters %u mtu %u va %016" PRIx64 " rkey %08x transport %s%s%.0u",
		 peer_op_names[p->o.op], p->o.size, p->o.iters * (rounds ? rounds : 1), (unsigned)p->o.mtu,
		 rl_mr_iova(p->verbs.mr), rl_mr_rkey(p->verbs.mr), peer_transport(&p->o, false),
		 p->o.all_sizes ? " all" : p->o.duration_s ? " duration " : "", p->o.duration_s);
}

/* Why the server refuses the client's test: said on both sides, so the client's user sees it too. */
static int peer_refuse(struct peer *p, const char *why)
{
	char msg[PEER_OP_LEN];

	cli_error("peer", "%s", why);
	if (p->o.server) {
		memset(msg, 0, sizeof(msg));
		snprintf(msg, sizeof(msg), "rocelab error: the server says: %s", why);
		peer_io(p->net.tcp, msg, sizeof(msg), true);
	}
	return -1;
}

static int peer_op_parse(struct peer *p, const char *msg)
{
	char op[16], tr[8], why[PEER_OP_LEN - 32];
	unsigned size, iters, mtu, rkey, duration = 0;
	uint64_t va;
	int i, end = 0;

	if (!strncmp(msg, "rocelab error: ", 15)) {
		cli_error("peer", "%s", msg + 15);
		return -1;
	}
	if (sscanf(msg, "rocelab op %15s size %u iters %u mtu %u va %" SCNx64 " rkey %x transport %7s%n", op, &size,
		   &iters, &mtu, &va, &rkey, tr, &end) != 7 ||
	    (msg[end] && strcmp(msg + end, " all") && (sscanf(msg + end, " duration %u", &duration) != 1 || !duration)))
		goto unknown;
	for (i = 0; i < PEER_NOPS && strcmp(op, peer_op_names[i]); i++)
		;
	if (i == PEER_NOPS || !size || size > (1u << 30) || !iters || !rl_mtu_bytes((enum rl_mtu)mtu))
		goto unknown;
	if (strcmp(tr, peer_transport(&p->o, false))) {
		snprintf(why, sizeof(why), "the client runs %s, the server was started for %s: give both the same "
			 "--transport", tr, peer_transport(&p->o, false));
		return peer_refuse(p, why);
	}
	if (p->o.server && !peer_transport_op_ok(&p->o, (enum peer_op)i))
		return peer_refuse(p, "UC carries SEND and RDMA WRITE only (IBA 9.8.3)");
	if (p->o.server && !peer_size_allowed(p, size, why, sizeof(why)))
		return peer_refuse(p, why);
	if (p->o.server) {
		p->o.op = (enum peer_op)i;
		p->o.size = size;
		p->o.iters = iters;
		p->o.all_sizes = !strcmp(msg + end, " all");
		p->o.duration_s = duration;
		/* Both ends use the client's path MTU; the server's interface must carry it too. */
		if ((enum rl_mtu)mtu > p->o.mtu) {
			snprintf(why, sizeof(why), "path MTU %u is more than the server's %s carries (%u): 'ip link "
				 "set dev %s mtu 9000' there", rl_mtu_bytes((enum rl_mtu)mtu), p->net.gids.ifname,
				 rl_mtu_bytes(p->o.mtu), p->net.gids.ifname);
			return peer_refuse(p, why);
		}
		p->o.mtu = (enum rl_mtu)mtu;
	}
	p->conn.remote_va = va;
	p->conn.remote_rkey = rkey;
	return 0;
unknown:
	cli_error("peer", "the other side sent a test description this version does not know");
	return -1;
}

int peer_parse_addr(struct peer *p, const char *addr, union peer_addr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, addr, &sa->v4.sin_addr) == 1) {
		if (p->o.ipv6) {
			cli_error("peer", "--ipv6, but '%s' is an IPv4 address", addr);
			return -1;
		}
		sa->v4.sin_family = AF_INET;
	} else if (inet_pton(AF_INET6, addr, &sa->v6.sin6_addr) == 1) {
		if (IN6_IS_ADDR_LINKLOCAL(&sa->v6.sin6_addr) || IN6_IS_ADDR_V4MAPPED(&sa->v6.sin6_addr)) {
			cli_error("peer", "'%s': use a global or unique-local IPv6 address (fd00::/8), or the plain IPv4 "
				  "address, for the exchange; a link-local one names no interface. RoCE itself may run over "
				  "the link-local GIDs: -g 0 at both ends", addr);
			return -1;
		}
		sa->v6.sin6_family = AF_INET6;
	} else {
		cli_error("peer", "'%s' is not an IPv4 or IPv6 address", addr);
		return -1;
	}
	peer_addr_set_port(sa, p->o.port);
	p->net.family = sa->sa.sa_family;
	return 0;
}

int peer_tcp_connect(struct peer *p)
{
	union peer_addr sa;
	socklen_t sl = sizeof(p->net.local);

	if (peer_parse_addr(p, p->o.addr, &sa))
		return -1;
	p->net.tcp = socket(p->net.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->net.tcp < 0 || peer_bind_device(p, p->net.tcp))
		return -1;
	/* Linux bounds connect() by SO_SNDTIMEO too: it fails with EINPROGRESS when that runs out. */
	peer_tcp_timeout(p, p->net.tcp);
	if (connect(p->net.tcp, &sa.sa, peer_addr_len(&sa))) {
		if (errno == EINPROGRESS || errno == EAGAIN)
			cli_error("peer", "no answer from %s port %u within %u s (--timeout): a firewall dropping the "
				  "connection, or no such host", p->o.addr, p->o.port, p->o.timeout_s);
		else if (errno == ECONNREFUSED && p->o.perftest)
			cli_error("peer", "nobody listens at %s port %u: start the server there first (perftest's tool "
				  "without an address, or 'rocelab peer --compat TOOL')", p->o.addr, p->o.port);
		else if (errno == ECONNREFUSED)
			cli_error("peer", "nobody listens at %s port %u: start 'rocelab peer %s' there first",
				  p->o.addr, p->o.port, p->net.family == AF_INET6 ? "--server --ipv6" : "--server");
		else if (errno == ENETUNREACH || errno == EHOSTUNREACH)
			cli_error("peer", "no route to %s: check 'ip route' (and the namespace you run in)", p->o.addr);
		else
			cli_error("peer", "cannot connect to %s port %u: %s", p->o.addr, p->o.port, strerror(errno));
		return -1;
	}
	getsockname(p->net.tcp, &p->net.local.sa, &sl);
	p->net.remote = sa;
	return 0;
}

int peer_tcp_accept(struct peer *p)
{
	union peer_addr sa;
	socklen_t sl = sizeof(p->net.remote);
	int one = 1, ls;
	struct pollfd pf;

	memset(&sa, 0, sizeof(sa));
	p->net.family = p->o.ipv6 ? AF_INET6 : AF_INET;
	sa.sa.sa_family = (sa_family_t)p->net.family;
	peer_addr_set_port(&sa, p->o.port);
	ls = socket(p->net.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0 || peer_bind_device(p, ls))
		return -1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (p->o.ipv6)
		setsockopt(ls, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(ls, &sa.sa, peer_addr_len(&sa)) || listen(ls, 1)) {
		cli_error("peer", "cannot listen on TCP port %u: %s", p->o.port, strerror(errno));
		close(ls);
		return -1;
	}
	if (!p->o.json)
		fprintf(stderr, "rocelab peer: waiting for a client on TCP port %u%s\n", p->o.port,
			p->o.ipv6 ? " (IPv6)" : "");
	pf.fd = ls;
	pf.events = POLLIN;
	if (poll(&pf, 1, (int)p->o.timeout_s * 1000) != 1) {
		cli_error("peer", "no client came within %u s (--timeout)", p->o.timeout_s);
		close(ls);
		return -1;
	}
	p->net.tcp = accept4(ls, &p->net.remote.sa, &sl, SOCK_CLOEXEC);
	close(ls);
	if (p->net.tcp < 0)
		return -1;
	peer_tcp_timeout(p, p->net.tcp);
	sl = sizeof(p->net.local);
	getsockname(p->net.tcp, &p->net.local.sa, &sl);
	return 0;
}

/* The server's QP is ready to receive before it tells the client where it is. */
static int peer_server_ready(struct peer *p)
{
	if (peer_buffer(p)) {
		cli_error("peer", "cannot allocate %u bytes", p->o.size);
		return -1;
	}
	return peer_connect_qp(p) || peer_post_recvs(p, 0) ? -1 : 0;
}

/*
 * The server's step between the client's QPN/PSN/GID and its own answer:
 * with --compat, its QP is ready to receive. Ours waits for the test line
 * that follows.
 */
static int peer_server_accept(struct peer *p)
{
	return p->o.compat ? peer_server_ready(p) : 0;
}

int peer_exchange(struct peer *p)
{
	char msg[PEER_MSG_LEN], theirs[PEER_MSG_LEN], done[sizeof("done")], op[PEER_OP_LEN];
	bool ok;

	peer_dest_fmt(&p->conn.me, msg);
	if (!p->o.server) {
		ok = peer_io(p->net.tcp, msg, sizeof(msg), true) && peer_io(p->net.tcp, theirs, sizeof(theirs), false) &&
		     peer_io(p->net.tcp, "done", sizeof("done"), true);
	} else {
		ok = peer_io(p->net.tcp, theirs, sizeof(theirs), false);
	}
	theirs[sizeof(theirs) - 1] = '\0';
	if (!ok && peer_io_timed_out(p, p->o.server ? "client" : "server"))
		return -1;
	if (!ok && p->o.server) {
		cli_error("peer", "the client hung up before the connection exchange (its own message says why)");
		return -1;
	}
	if (!ok) {
		cli_error("peer", "the server hung up during the connection exchange: its own output says why (a "
			  "--gid-index it cannot use, for example)");
		return -1;
	}
	if (!peer_dest_parse(theirs, &p->conn.them)) {
		cli_error("peer", "the connection exchange failed: the other side is not a pingpong-style peer");
		return -1;
	}
	if (peer_dest_check(p))
		return -1;
	if (p->o.server) {
		/* ibv_rc_pingpong's server reads up to 52 bytes and wants the 5 of "done". */
		if (peer_server_accept(p))
			return -1;
		peer_dest_fmt(&p->conn.me, msg);
		if (!peer_io(p->net.tcp, msg, sizeof(msg), true)) {
			if (!peer_io_timed_out(p, "client"))
				cli_error("peer", "the client went away during the connection exchange");
			return -1;
		}
		/*
		 * Exactly the 5 bytes of "done": our client sends its test line right
		 * after, and one read() may return both (a race CI once hit under ASan).
		 */
		if (!peer_io(p->net.tcp, done, sizeof("done"), false) || memcmp(done, "done", sizeof("done"))) {
			if (peer_io_timed_out(p, "client"))
				return -1;
			cli_error("peer", "the other side did not finish the exchange with \"done\"");
			return -1;
		}
	}
	if (p->o.compat)
		return 0;
	/*
	 * Then ours: the client says what to do; the server, once its buffer has
	 * the size asked for and its QP is ready, says where the buffer is.
	 */
	if (!p->o.server) {
		peer_op_fmt(p, op);
		ok = peer_io(p->net.tcp, op, sizeof(op), true) && peer_io(p->net.tcp, op, sizeof(op), false);
	} else {
		ok = peer_io(p->net.tcp, op, sizeof(op), false);
	}
	op[sizeof(op) - 1] = '\0';
	if (!ok && peer_io_timed_out(p, p->o.server ? "client" : "server"))
		return -1;
	if (!ok) {
		cli_error("peer", "the other side closed the connection during the exchange");
		return -1;
	}
	if (peer_op_parse(p, op))
		return -1;
	if (p->o.server) {
		if (peer_server_ready(p))
			return -1;
		peer_op_fmt(p, op);
		if (!peer_io(p->net.tcp, op, sizeof(op), true))
			return -1;
	}
	return 0;
}

int peer_exchange_result(struct peer *p, bool data_ok)
{
	char res[PEER_RES_LEN];

	memset(res, 0, sizeof(res));
	snprintf(res, sizeof(res), "%s %" PRIu64, data_ok ? "ok" : "bad", p->stat.completed);
	return peer_io(p->net.tcp, res, sizeof(res), true) ? 0 : -1;
}

bool peer_client_finished(struct peer *p)
{
	char fin[4];

	return peer_io(p->net.tcp, fin, sizeof(fin), false) && !memcmp(fin, "fin", 4);
}

/* The client's end: ask the server whether the data arrived intact, and how many messages. */
int peer_client_result(struct peer *p)
{
	char res[PEER_RES_LEN];
	unsigned long long got;

	/* No word from the server after the test: what this side saw arrive. */
	if (p->o.compat || p->o.cm) {
		p->stat.delivered = p->o.iters - p->stat.lost;
		return 0;
	}
	if (!peer_io(p->net.tcp, "fin", 4, true) || !peer_io(p->net.tcp, res, sizeof(res), false)) {
		if (peer_io_timed_out(p, "server"))
			return -1;
		cli_error("peer", "the server went away before confirming the data");
		return -1;
	}
	res[sizeof(res) - 1] = '\0';
	if (strncmp(res, "ok ", 3) || sscanf(res + 3, "%llu", &got) != 1) {
		cli_error("peer", "the server says the data it got is wrong");
		return -1;
	}
	p->stat.delivered = got;
	return 0;
}
