/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer: the reference transport on a real interface, one endpoint
 * per process, like perftest and ibv_rc_pingpong.
 *
 * I/O path: plain UDP sockets. A frame the core emits is sent as a UDP
 * datagram from a socket bound to the QP's UDP source port, with
 * IP_PMTUDISC_DO, so Linux puts DF=1 and Identification 0 in the IPv4
 * header: the header the core computed the ICRC over (IBA A17.3.3 masks TTL,
 * TOS and checksums, not the Identification). A socket bound to 4791 takes
 * what arrives, so the kernel never answers RoCE with ICMP port unreachable;
 * as recvmsg() does not show the IP header, it is rebuilt from the addresses
 * (IP_PKTINFO), the TOS byte (IP_RECVTOS) and the same DF/ID-0 rule, and the
 * core checks the ICRC over it. A sender that puts a different
 * Identification on the wire fails that check and is counted, not accepted.
 * Why sockets and not a packet socket: the kernel does routing, ARP and
 * checksums, and a datagram socket is the fastest path Linux offers.
 *
 * The connection exchange is ibv_rc_pingpong's (rdma-core
 * libibverbs/examples/pingpong.c): the client writes
 * "LID:QPN:PSN:GID" (%04x:%06x:%06x: and the GID as 32 hex digits, 52 bytes
 * with the NUL), reads the server's, and writes "done".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "rocelab/rocelab.h"

#define PEER_ROCE_PORT 4791
#define PEER_TCP_PORT 18515
#define PEER_MSG_LEN (sizeof "0000:000000:000000:00000000000000000000000000000000")
#define PEER_OP_LEN 128
#define PEER_RXE_HDR 80 /* rxe: the largest header it allows for when it picks the path MTU */
#define PEER_BATCH 64
#define PEER_ETH_LEN 14
#define PEER_HDR_LEN (PEER_ETH_LEN + 20 + 8) /* Ethernet, IPv4, UDP */

enum peer_op { PEER_SEND, PEER_WRITE, PEER_READ, PEER_PINGPONG, PEER_FETCH_ADD, PEER_CMP_SWAP, PEER_NOPS };
static const char *const peer_op_names[] = { "send", "write", "read", "pingpong", "fetch-add", "cmp-swap" };
static const char *const peer_test_names[] = { "Send BW", "RDMA_Write BW", "RDMA_Read BW", "Send Latency",
					       "Atomic FETCH_AND_ADD BW", "Atomic CMP_AND_SWAP BW" };

static bool peer_atomic(enum peer_op op)
{
	return op == PEER_FETCH_ADD || op == PEER_CMP_SWAP;
}

struct peer_opts {
	bool server;
	const char *addr;
	enum peer_op op;
	uint32_t size, iters, window;
	enum rl_mtu mtu;
	uint16_t port;
	double loss;
	uint64_t seed;
	uint32_t timeout_s;
	bool json, busy_poll;
};

struct peer_dest {
	uint32_t lid, qpn, psn;
	uint8_t gid[16];
};

struct peer {
	struct peer_opts o;
	int tcp, rx, tx;
	struct peer_rx *rxq;
	struct sockaddr_in local, remote;
	struct rl_host *host;
	struct rl_pd *pd;
	struct rl_cq *cq;
	struct rl_qp *qp;
	struct rl_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	struct peer_dest me, them;
	uint64_t remote_va;
	uint32_t remote_rkey;
	uint64_t rng;
	/* counters */
	uint64_t sent, recv_frames, dropped_loss, rx_bad, tx_errors;
	uint64_t posted, completed, errors;
	uint64_t t_start, t_end;
	double *lat_us;
};

static int peer_buffer(struct peer *p);

/* The data pattern both ends know. */
static uint8_t peer_pattern(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static uint64_t peer_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double peer_rand(struct peer *p)
{
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 7;
	p->rng ^= p->rng << 17;
	return (double)(p->rng >> 11) / 9007199254740992.0;
}

static void peer_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab peer --server [options]\n"
		"       rocelab peer --client ADDR [options]\n\n"
		"Run the reference RoCEv2 transport over a real interface: one endpoint per process, like\n"
		"perftest (ib_send_bw, ib_write_bw, ib_read_bw, ib_send_lat) and ibv_rc_pingpong. The\n"
		"frames are genuine RoCEv2 (UDP port 4791, ICRC) that tcpdump and Wireshark show.\n"
		"The client runs the test; the server learns the operation and size from it.\n\n"
		"options:\n"
		"  -s, --server         wait for a client\n"
		"  -c, --client ADDR    connect to the server at IPv4 address ADDR\n"
		"  -o, --op OP          send, write, read, fetch-add, cmp-swap (bandwidth) or pingpong (SEND\n"
		"                       latency); default write\n"
		"  -t, --transport T    rc (the only one so far)\n"
		"  -S, --size BYTES     message size; default 65536 (pingpong: 2)\n"
		"  -n, --iters N        messages; default 1000\n"
		"  -m, --mtu BYTES      path MTU 256..4096; default: what the interface carries, as rxe picks it\n"
		"  -w, --window N       work requests outstanding; default 16\n"
		"  -p, --port PORT      TCP port of the connection exchange; default 18515\n"
		"      --loss RATE      drop this fraction of received frames on purpose, to watch recovery\n"
		"      --seed N         for --loss and the first PSN; default from the clock\n"
		"      --timeout SEC    give up after this long; default 30\n"
		"      --busy-poll      spin instead of sleeping in poll()\n"
		"      --json           one JSON object with the results, for scripts\n"
		"  -h, --help           this text\n\n"
		"example (two network namespaces joined by a veth pair):\n"
		"  ip netns exec B rocelab peer --server\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 --op write --size 65536\n");
}

static bool peer_parse(int argc, char **argv, struct peer_opts *o, int *rc)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },     { "client", required_argument, NULL, 'c' },
		{ "op", required_argument, NULL, 'o' },   { "transport", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 'S' }, { "iters", required_argument, NULL, 'n' },
		{ "mtu", required_argument, NULL, 'm' },  { "window", required_argument, NULL, 'w' },
		{ "port", required_argument, NULL, 'p' }, { "loss", required_argument, NULL, 'L' },
		{ "seed", required_argument, NULL, 'R' }, { "timeout", required_argument, NULL, 'T' },
		{ "busy-poll", no_argument, NULL, 'B' },  { "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },       { NULL, 0, NULL, 0 },
	};
	bool size_set = false;
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->op = PEER_WRITE;
	o->size = 65536;
	o->iters = 1000;
	o->window = 16;
	o->port = PEER_TCP_PORT;
	o->timeout_s = 30;
	o->seed = peer_now() ^ ((uint64_t)getpid() << 32);
	*rc = CLI_BAD_INPUT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "sc:o:t:S:n:m:w:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->server = true; break;
		case 'c': o->addr = optarg; break;
		case 'o':
			for (v = 0; v < PEER_NOPS && strcmp(optarg, peer_op_names[v]); v++)
				;
			if (v == PEER_NOPS) {
				cli_error("peer", "unknown --op '%s': send, write, read, pingpong, fetch-add or cmp-swap",
					  optarg);
				return false;
			}
			o->op = (enum peer_op)v;
			break;
		case 't':
			if (strcmp(optarg, "rc")) {
				cli_error("peer", "--transport %s: only rc is implemented so far", optarg);
				return false;
			}
			break;
		case 'S':
			if (!cli_parse_u64(optarg, 1u << 30, &v) || !v) {
				cli_error("peer", "--size wants 1..1073741824 bytes, not '%s'", optarg);
				return false;
			}
			o->size = (uint32_t)v;
			size_set = true;
			break;
		case 'n':
			if (!cli_parse_u64(optarg, 100000000, &v) || !v) {
				cli_error("peer", "--iters wants 1..100000000, not '%s'", optarg);
				return false;
			}
			o->iters = (uint32_t)v;
			break;
		case 'm':
			if (!cli_parse_u64(optarg, 4096, &v) || (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096)) {
				cli_error("peer", "--mtu wants 256, 512, 1024, 2048 or 4096, not '%s'", optarg);
				return false;
			}
			o->mtu = (enum rl_mtu)(__builtin_ctz((unsigned)v) - 7);
			break;
		case 'w':
			if (!cli_parse_u64(optarg, 1024, &v) || !v) {
				cli_error("peer", "--window wants 1..1024, not '%s'", optarg);
				return false;
			}
			o->window = (uint32_t)v;
			break;
		case 'p':
			if (!cli_parse_u64(optarg, 65535, &v) || !v) {
				cli_error("peer", "--port wants a TCP port 1..65535, not '%s'", optarg);
				return false;
			}
			o->port = (uint16_t)v;
			break;
		case 'L':
			errno = 0;
			o->loss = strtod(optarg, &end);
			if (errno || *end || !(o->loss >= 0 && o->loss < 1)) {
				cli_error("peer", "--loss wants a fraction 0 <= RATE < 1, not '%s'", optarg);
				return false;
			}
			break;
		case 'R':
			if (!cli_parse_u64(optarg, UINT64_MAX, &o->seed)) {
				cli_error("peer", "--seed wants a number, not '%s'", optarg);
				return false;
			}
			break;
		case 'T':
			if (!cli_parse_u64(optarg, 3600, &v) || !v) {
				cli_error("peer", "--timeout wants 1..3600 seconds, not '%s'", optarg);
				return false;
			}
			o->timeout_s = (uint32_t)v;
			break;
		case 'B': o->busy_poll = true; break;
		case 'J': o->json = true; break;
		case 'h':
			peer_usage(stdout);
			*rc = CLI_OK;
			return false;
		default:
			fprintf(stderr, "Try 'rocelab peer --help'.\n");
			return false;
		}
	}
	if (optind < argc) {
		cli_error("peer", "unexpected argument '%s'", argv[optind]);
		return false;
	}
	if (o->server == !!o->addr) {
		cli_error("peer", "say --server or --client ADDR (one of them)");
		return false;
	}
	if (o->op == PEER_PINGPONG && !size_set)
		o->size = 2;
	if (peer_atomic(o->op)) {
		if (size_set && o->size != 8) {
			cli_error("peer", "atomics work on 8 bytes: --size 8 or no --size");
			return false;
		}
		o->size = 8;
	}
	if (!o->seed)
		o->seed = 1;
	return true;
}

/* ---- the connection exchange (ibv_rc_pingpong's format) -------------------------------------------- */

static bool peer_io(int fd, void *buf, size_t n, bool wr)
{
	uint8_t *b = buf;

	while (n) {
		ssize_t r = wr ? write(fd, b, n) : read(fd, b, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

static void peer_dest_fmt(const struct peer_dest *d, char msg[PEER_MSG_LEN])
{
	char gid[33];

	for (int i = 0; i < 16; i++)
		snprintf(gid + 2 * i, 3, "%02x", d->gid[i]);
	memset(msg, 0, PEER_MSG_LEN);
	snprintf(msg, PEER_MSG_LEN, "%04x:%06x:%06x:%s", d->lid, d->qpn, d->psn, gid);
}

static bool peer_dest_parse(const char *msg, struct peer_dest *d)
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

/* Ours, after the pingpong exchange: what the test is, and where the server's buffer is. */
static void peer_op_fmt(const struct peer *p, char msg[PEER_OP_LEN])
{
	memset(msg, 0, PEER_OP_LEN);
	snprintf(msg, PEER_OP_LEN, "rocelab op %s size %u iters %u mtu %u va %016" PRIx64 " rkey %08x",
		 peer_op_names[p->o.op], p->o.size, p->o.iters, (unsigned)p->o.mtu, rl_mr_iova(p->mr),
		 rl_mr_rkey(p->mr));
}

static bool peer_op_parse(struct peer *p, const char *msg)
{
	char op[16];
	unsigned size, iters, mtu, rkey;
	uint64_t va;
	int i;

	if (sscanf(msg, "rocelab op %15s size %u iters %u mtu %u va %" SCNx64 " rkey %x", op, &size, &iters, &mtu,
		   &va, &rkey) != 6)
		return false;
	for (i = 0; i < PEER_NOPS && strcmp(op, peer_op_names[i]); i++)
		;
	if (i == PEER_NOPS || !size || size > (1u << 30) || !iters || !rl_mtu_bytes((enum rl_mtu)mtu))
		return false;
	if (p->o.server) {
		p->o.op = (enum peer_op)i;
		p->o.size = size;
		p->o.iters = iters;
		/* Both ends use the client's path MTU; the server's interface must carry it too. */
		if ((enum rl_mtu)mtu > p->o.mtu) {
			cli_error("peer", "the client asks for path MTU %u, more than this interface carries (%u): "
				  "raise its MTU with 'ip link set dev IFACE mtu 9000'", rl_mtu_bytes((enum rl_mtu)mtu),
				  rl_mtu_bytes(p->o.mtu));
			return false;
		}
		p->o.mtu = (enum rl_mtu)mtu;
	}
	p->remote_va = va;
	p->remote_rkey = rkey;
	return true;
}

static int peer_tcp_connect(struct peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(p->o.port) };
	socklen_t sl = sizeof(p->local);

	if (inet_pton(AF_INET, p->o.addr, &sa.sin_addr) != 1) {
		cli_error("peer", "'%s' is not an IPv4 address (IPv6 is not implemented yet)", p->o.addr);
		return -1;
	}
	p->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->tcp < 0 || connect(p->tcp, (struct sockaddr *)&sa, sizeof(sa))) {
		if (errno == ECONNREFUSED)
			cli_error("peer", "nobody listens at %s port %u: start 'rocelab peer --server' there first",
				  p->o.addr, p->o.port);
		else if (errno == ENETUNREACH || errno == EHOSTUNREACH)
			cli_error("peer", "no route to %s: check 'ip route' (and the namespace you run in)", p->o.addr);
		else
			cli_error("peer", "cannot connect to %s port %u: %s", p->o.addr, p->o.port, strerror(errno));
		return -1;
	}
	getsockname(p->tcp, (struct sockaddr *)&p->local, &sl);
	p->remote = sa;
	p->remote.sin_port = 0;
	return 0;
}

static int peer_tcp_accept(struct peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(p->o.port) };
	socklen_t sl = sizeof(p->remote);
	int one = 1, ls;
	struct pollfd pf;

	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0)
		return -1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1)) {
		cli_error("peer", "cannot listen on TCP port %u: %s", p->o.port, strerror(errno));
		close(ls);
		return -1;
	}
	if (!p->o.json)
		fprintf(stderr, "rocelab peer: waiting for a client on TCP port %u\n", p->o.port);
	pf.fd = ls;
	pf.events = POLLIN;
	if (poll(&pf, 1, (int)p->o.timeout_s * 1000) != 1) {
		cli_error("peer", "no client came within %u s (--timeout)", p->o.timeout_s);
		close(ls);
		return -1;
	}
	p->tcp = accept4(ls, (struct sockaddr *)&p->remote, &sl, SOCK_CLOEXEC);
	close(ls);
	if (p->tcp < 0)
		return -1;
	sl = sizeof(p->local);
	getsockname(p->tcp, (struct sockaddr *)&p->local, &sl);
	p->remote.sin_port = 0;
	return 0;
}

static int peer_exchange(struct peer *p)
{
	char msg[PEER_MSG_LEN], done[sizeof "done"], op[PEER_OP_LEN];
	bool ok;

	peer_dest_fmt(&p->me, msg);
	if (!p->o.server) {
		ok = peer_io(p->tcp, msg, sizeof(msg), true) && peer_io(p->tcp, msg, sizeof(msg), false) &&
		     peer_io(p->tcp, "done", sizeof("done"), true);
	} else {
		char theirs[PEER_MSG_LEN];

		ok = peer_io(p->tcp, theirs, sizeof(theirs), false) && peer_io(p->tcp, msg, sizeof(msg), true) &&
		     peer_io(p->tcp, done, sizeof(done), false);
		memcpy(msg, theirs, sizeof(msg));
	}
	msg[sizeof(msg) - 1] = '\0';
	if (!ok || !peer_dest_parse(msg, &p->them)) {
		cli_error("peer", "the connection exchange failed: the other side is not a pingpong-style peer");
		return -1;
	}
	/*
	 * Then ours: the client says what to do; the server, once its buffer has
	 * the size asked for, says where it is (its address and rkey).
	 */
	if (!p->o.server) {
		peer_op_fmt(p, op);
		ok = peer_io(p->tcp, op, sizeof(op), true) && peer_io(p->tcp, op, sizeof(op), false);
	} else {
		ok = peer_io(p->tcp, op, sizeof(op), false);
	}
	op[sizeof(op) - 1] = '\0';
	if (!ok) {
		cli_error("peer", "the other side closed the connection during the exchange");
		return -1;
	}
	if (!peer_op_parse(p, op)) {
		cli_error("peer", "the other side sent a test description this version does not know");
		return -1;
	}
	if (p->o.server) {
		if (peer_buffer(p)) {
			cli_error("peer", "cannot allocate %u bytes", p->o.size);
			return -1;
		}
		peer_op_fmt(p, op);
		if (!peer_io(p->tcp, op, sizeof(op), true))
			return -1;
	}
	return 0;
}

/* ---- the wire: UDP sockets ----------------------------------------------------------------------- */

/* The core's frame minus Ethernet, IPv4 and UDP headers, sent from the QP's source port. */
static void peer_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct peer *p = ctx;
	struct sockaddr_in to = p->remote;
	size_t off;

	if (len < PEER_ETH_LEN + 20 + 8)
		return;
	off = PEER_ETH_LEN + (size_t)(frame[PEER_ETH_LEN] & 0x0f) * 4 + 8;
	if (off > len)
		return;
	to.sin_port = htons(PEER_ROCE_PORT);
	if (sendto(p->tx, frame + off, len - off, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		p->tx_errors++;
	else
		p->sent++;
}

/*
 * The Ethernet, IPv4 and UDP headers in front of a datagram that was received
 * at @f + PEER_HDR_LEN: the IPv4 header as Linux sent it (DF, Identification
 * 0, as our sender and rxe's senders do), so that the core can check the ICRC.
 */
static size_t peer_frame(uint8_t *f, const struct sockaddr_in *src, const struct in_addr *dst, uint8_t tos,
			 size_t n)
{
	uint8_t *ip = f + PEER_ETH_LEN, *udp = ip + 20;

	memset(f, 0, PEER_HDR_LEN);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[1] = tos;
	rl_put16(ip + 2, (uint16_t)(n + 28));
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &src->sin_addr, 4);
	memcpy(ip + 16, dst, 4);
	rl_put16(ip + 10, rl_ipv4_checksum(ip, 20));
	memcpy(udp, &src->sin_port, 2);
	rl_put16(udp + 2, PEER_ROCE_PORT);
	rl_put16(udp + 4, (uint16_t)(n + 8));
	return PEER_HDR_LEN + n;
}

/* recvmmsg() slots, set up once: each datagram lands right after room for its rebuilt headers. */
struct peer_rx {
	struct mmsghdr mm[PEER_BATCH];
	struct iovec iov[PEER_BATCH];
	struct sockaddr_in from[PEER_BATCH];
	uint8_t cmsg[PEER_BATCH][128];
	uint8_t frame[PEER_BATCH][PEER_HDR_LEN + 9216];
};

static struct peer_rx *peer_rx_new(void)
{
	struct peer_rx *r = calloc(1, sizeof(*r));

	for (int i = 0; r && i < PEER_BATCH; i++) {
		r->iov[i].iov_base = r->frame[i] + PEER_HDR_LEN;
		r->iov[i].iov_len = sizeof(r->frame[i]) - PEER_HDR_LEN;
		r->mm[i].msg_hdr.msg_iov = &r->iov[i];
		r->mm[i].msg_hdr.msg_iovlen = 1;
		r->mm[i].msg_hdr.msg_name = &r->from[i];
		r->mm[i].msg_hdr.msg_control = r->cmsg[i];
	}
	return r;
}

static void peer_receive(struct peer *p, uint64_t now)
{
	struct peer_rx *r = p->rxq;
	int n;

	/* The kernel shortens these to what it wrote; give the room back. */
	for (int i = 0; i < PEER_BATCH; i++) {
		r->mm[i].msg_hdr.msg_namelen = sizeof(r->from[i]);
		r->mm[i].msg_hdr.msg_controllen = sizeof(r->cmsg[i]);
	}
	n = recvmmsg(p->rx, r->mm, PEER_BATCH, MSG_DONTWAIT, NULL);
	for (int i = 0; i < n; i++) {
		struct msghdr *m = &r->mm[i].msg_hdr;
		struct in_addr dst = p->local.sin_addr;
		uint8_t tos = 0;
		size_t len;

		for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
			if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO)
				dst = ((struct in_pktinfo *)CMSG_DATA(c))->ipi_addr;
			else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
				tos = *CMSG_DATA(c);
		}
		p->recv_frames++;
		if (p->o.loss > 0 && peer_rand(p) < p->o.loss) {
			p->dropped_loss++;
			continue;
		}
		len = peer_frame(r->frame[i], &r->from[i], &dst, tos, r->mm[i].msg_len);
		if (rl_host_recv(p->host, r->frame[i], len, now))
			p->rx_bad++;
	}
}

static int peer_sockets(struct peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PEER_ROCE_PORT) };
	int one = 1, pmtu = IP_PMTUDISC_DO, sz = 4 << 20;

	p->rxq = peer_rx_new();
	p->rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!p->rxq || p->rx < 0)
		return -1;
	setsockopt(p->rx, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	setsockopt(p->rx, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	setsockopt(p->rx, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	sa.sin_addr = p->local.sin_addr;
	if (bind(p->rx, (struct sockaddr *)&sa, sizeof(sa))) {
		cli_error("peer", "cannot bind UDP port 4791 on %s: %s%s", inet_ntoa(p->local.sin_addr),
			  strerror(errno), errno == EADDRINUSE ? " (is Soft-RoCE or another peer using it here?)" : "");
		return -1;
	}
	p->tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (p->tx < 0)
		return -1;
	setsockopt(p->tx, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu));
	setsockopt(p->tx, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	/* A UDP source port per QP, in 0xC000-0xFFFF as rxe picks them; the ICRC covers it. */
	for (unsigned i = 0; i < 0x4000; i++) {
		sa.sin_port = htons((uint16_t)(0xc000 | ((p->me.qpn * 0x9e37u + i) & 0x3fff)));
		if (!bind(p->tx, (struct sockaddr *)&sa, sizeof(sa)))
			return ntohs(sa.sin_port);
	}
	cli_error("peer", "no free UDP source port in 0xC000-0xFFFF");
	return -1;
}

/* The path MTU as rxe picks it from the interface: the largest IB MTU under netdev MTU - headers. */
static int peer_if_mtu(const struct in_addr *a, char name[IF_NAMESIZE])
{
	struct ifaddrs *ifs, *i;
	struct ifreq ifr;
	int mtu = -1, fd;

	if (getifaddrs(&ifs))
		return -1;
	for (i = ifs; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == a->s_addr)
			break;
	if (i) {
		snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", i->ifa_name);
		if (fd >= 0 && !ioctl(fd, SIOCGIFMTU, &ifr))
			mtu = ifr.ifr_mtu;
		if (fd >= 0)
			close(fd);
	}
	freeifaddrs(ifs);
	return mtu;
}

static int peer_pick_mtu(struct peer *p)
{
	char ifname[IF_NAMESIZE] = "?";
	int if_mtu = peer_if_mtu(&p->local.sin_addr, ifname);
	enum rl_mtu best = RL_MTU_256;

	if (if_mtu < 0)
		if_mtu = 1500;
	for (enum rl_mtu m = RL_MTU_256; m <= RL_MTU_4096; m++)
		if ((int)rl_mtu_bytes(m) + PEER_RXE_HDR <= if_mtu)
			best = m;
	if (!p->o.mtu) {
		p->o.mtu = best;
	} else if (p->o.mtu > best) {
		cli_error("peer", "path MTU %u does not fit interface %s (MTU %d): it needs at least %u; "
			  "fix with 'ip link set dev %s mtu %u' on both ends, or use --mtu %u",
			  rl_mtu_bytes(p->o.mtu), ifname, if_mtu, rl_mtu_bytes(p->o.mtu) + PEER_RXE_HDR, ifname,
			  rl_mtu_bytes(p->o.mtu) == 4096 ? 9000u : rl_mtu_bytes(p->o.mtu) + PEER_RXE_HDR,
			  rl_mtu_bytes(best));
		return -1;
	}
	return 0;
}

/* ---- the verbs side ------------------------------------------------------------------------------ */

static int peer_setup(struct peer *p)
{
	struct rl_host_config hc = { .emit = peer_emit, .ctx = p };
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC };

	rl_gid_from_ipv4(hc.gid, (const uint8_t *)&p->local.sin_addr);
	hc.active_mtu = RL_MTU_4096;
	p->host = rl_host_new(&hc);
	p->pd = p->host ? rl_alloc_pd(p->host) : NULL;
	p->cq = p->host ? rl_create_cq(p->host, (int)(2 * p->o.window + 64)) : NULL;
	if (!p->pd || !p->cq)
		return -1;
	ia.send_cq = ia.recv_cq = p->cq;
	ia.max_send_wr = p->o.window + 8;
	ia.max_recv_wr = p->o.window + 8;
	ia.sq_sig_all = true;
	p->qp = rl_create_qp(p->pd, &ia);
	if (!p->qp)
		return -1;
	p->me.qpn = rl_qp_num(p->qp);
	p->me.psn = (uint32_t)(p->o.seed * 0x9e3779b97f4a7c15u >> 40);
	memcpy(p->me.gid, hc.gid, 16);
	return 0;
}

static int peer_buffer(struct peer *p)
{
	int access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ | RL_ACCESS_REMOTE_ATOMIC;

	free(p->buf);
	p->buf_len = p->o.op == PEER_PINGPONG || p->o.op == PEER_SEND ? (size_t)p->o.size * 2 : p->o.size;
	if (peer_atomic(p->o.op) && !p->o.server)
		p->buf_len = 8 * (size_t)p->o.window; /* a slot per outstanding atomic for the value fetched */
	p->buf = malloc(p->buf_len);
	if (!p->buf)
		return -1;
	/* What the client sends and the READ source holds; a WRITE or atomic target starts at 0. */
	for (size_t i = 0; i < p->buf_len; i++)
		p->buf[i] = (p->o.server && (p->o.op == PEER_WRITE || peer_atomic(p->o.op))) ? 0 : peer_pattern(i);
	if (p->mr)
		rl_dereg_mr(p->mr);
	p->mr = rl_reg_mr_iova(p->pd, p->buf, p->buf_len, 0x10000000, (unsigned)access);
	return p->mr ? 0 : -1;
}

static int peer_connect_qp(struct peer *p, uint16_t sport)
{
	struct rl_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = RL_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ |
			    RL_ACCESS_REMOTE_ATOMIC;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS))
		goto err;
	a.qp_state = RL_QPS_RTR;
	memcpy(a.ah_attr.dgid, p->them.gid, 16);
	a.ah_attr.udp_sport = sport;
	a.path_mtu = p->o.mtu;
	a.dest_qp_num = p->them.qpn;
	a.rq_psn = p->them.psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN |
				    RL_QP_MAX_DEST_RD_ATOMIC | RL_QP_MIN_RNR_TIMER))
		goto err;
	a.qp_state = RL_QPS_RTS;
	a.sq_psn = p->me.psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT | RL_QP_RETRY_CNT | RL_QP_RNR_RETRY |
				    RL_QP_MAX_QP_RD_ATOMIC))
		goto err;
	return 0;
err:
	cli_error("peer", "cannot connect the QP: %s", rl_host_error(p->host));
	return -1;
}

/* ---- the test loop ------------------------------------------------------------------------------- */

/* Let the host work, wait for frames or for @fd (if >= 0) until its next timer; true if @fd is readable. */
static bool peer_pump(struct peer *p, int fd)
{
	struct pollfd pf[2] = { { .fd = p->rx, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	uint64_t now = peer_now(), next;
	int ms;

	rl_host_run(p->host, now);
	next = rl_host_next_timer(p->host);
	if (p->o.busy_poll)
		ms = 0;
	else if (next == UINT64_MAX || next > now + 100000000u)
		ms = 100;
	else
		ms = next > now ? (int)((next - now + 999999) / 1000000) : 0;
	if (poll(pf, fd >= 0 ? 2 : 1, ms) > 0 && (pf[0].revents & POLLIN)) {
		peer_receive(p, peer_now());
		rl_host_run(p->host, peer_now());
	}
	return fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP));
}

static bool peer_expired(const struct peer *p)
{
	return peer_now() - p->t_start > (uint64_t)p->o.timeout_s * 1000000000u;
}

/*
 * Keep answering until the wire is quiet for @quiet_ms (at most 2 s): a late
 * retransmission or ACK must find a socket on 4791, or the kernel would answer
 * it with ICMP port unreachable.
 */
static void peer_drain(struct peer *p, unsigned quiet_ms)
{
	uint64_t start = peer_now(), last = start, seen = p->recv_frames;

	while (peer_now() - last < quiet_ms * 1000000ull && peer_now() - start < 2000000000ull) {
		peer_pump(p, -1);
		if (p->recv_frames != seen) {
			seen = p->recv_frames;
			last = peer_now();
		}
	}
}

static int peer_post(struct peer *p, enum rl_wr_opcode op, uint64_t id)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.num_sge = 1;
	wr.sg_list[0].addr = rl_mr_iova(p->mr);
	wr.sg_list[0].length = p->o.size;
	wr.sg_list[0].lkey = rl_mr_lkey(p->mr);
	wr.send_flags = RL_SEND_SIGNALED;
	wr.rdma.remote_addr = p->remote_va;
	wr.rdma.rkey = p->remote_rkey;
	if (op == RL_WR_ATOMIC_FETCH_AND_ADD || op == RL_WR_ATOMIC_CMP_AND_SWP) {
		/*
		 * The server's counter starts at 0 and atomics run in PSN order, so
		 * work request i finds i there: Fetch&Add adds 1, Compare&Swap
		 * replaces i with i + 1. A resent atomic must not run twice
		 * (a duplicate atomic is answered from the result the responder saved).
		 */
		wr.sg_list[0].addr = rl_mr_iova(p->mr) + (id % p->o.window) * 8;
		wr.sg_list[0].length = 8;
		wr.atomic.remote_addr = p->remote_va;
		wr.atomic.rkey = p->remote_rkey;
		wr.atomic.compare_add = op == RL_WR_ATOMIC_FETCH_AND_ADD ? 1 : id;
		wr.atomic.swap = id + 1;
	}
	if (rl_post_send(p->qp, &wr)) {
		cli_error("peer", "post_send: %s", rl_host_error(p->host));
		return -1;
	}
	p->posted++;
	return 0;
}

static int peer_post_recv(struct peer *p, uint64_t id)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.num_sge = 1;
	wr.sg_list[0].addr = rl_mr_iova(p->mr) + p->o.size;
	wr.sg_list[0].length = p->o.size;
	wr.sg_list[0].lkey = rl_mr_lkey(p->mr);
	if (rl_post_recv(p->qp, &wr)) {
		cli_error("peer", "post_recv: %s", rl_host_error(p->host));
		return -1;
	}
	return 0;
}

/* The data that arrived is the pattern the other side sent. */
static bool peer_check(const struct peer *p, const uint8_t *b)
{
	for (size_t i = 0; i < p->o.size; i++)
		if (b[i] != peer_pattern(i))
			return false;
	return true;
}

static bool peer_wc_ok(struct peer *p, const struct rl_wc *wc)
{
	if (wc->status == RL_WC_SUCCESS)
		return true;
	if (!p->errors++)
		cli_error("peer", "work request %" PRIu64 " failed: %s", wc->wr_id, rl_wc_status_str(wc->status));
	return false;
}

/* Client, bandwidth: keep --window work requests outstanding until --iters complete. */
static int peer_client_bw(struct peer *p, uint64_t *stamps)
{
	static const enum rl_wr_opcode ops[] = { RL_WR_SEND, RL_WR_RDMA_WRITE, RL_WR_RDMA_READ, RL_WR_SEND,
						 RL_WR_ATOMIC_FETCH_AND_ADD, RL_WR_ATOMIC_CMP_AND_SWP };
	enum rl_wr_opcode op = ops[p->o.op];
	uint64_t fetched;
	struct rl_wc wc[32];

	p->t_start = peer_now();
	while (p->completed < p->o.iters && !p->errors) {
		while (p->posted < p->o.iters && p->posted - p->completed < p->o.window)
			if (peer_post(p, op, p->posted))
				return -1;
		peer_pump(p, -1);
		for (int n = rl_poll_cq(p->cq, 32, wc), i = 0; i < n; i++) {
			if (!peer_wc_ok(p, &wc[i]))
				break;
			if (peer_atomic(p->o.op)) {
				memcpy(&fetched, p->buf + (wc[i].wr_id % p->o.window) * 8, 8);
				if (fetched != wc[i].wr_id) {
					cli_error("peer", "atomic %" PRIu64 " found %" PRIu64 " at the server, not %" PRIu64,
						  wc[i].wr_id, fetched, wc[i].wr_id);
					return -1;
				}
			}
			stamps[p->completed++] = peer_now();
		}
		if (peer_expired(p)) {
			cli_error("peer", "timed out after %u s with %" PRIu64 " of %u done (--timeout)", p->o.timeout_s,
				  p->completed, p->o.iters);
			return -1;
		}
	}
	p->t_end = peer_now();
	if (p->errors)
		return -1;
	if (p->o.op == PEER_READ && !peer_check(p, p->buf)) {
		cli_error("peer", "the data READ back is not what the server holds");
		return -1;
	}
	return 0;
}

/* Client, latency: SEND, wait for the server's SEND back, as ib_send_lat and ibv_rc_pingpong. */
static int peer_client_lat(struct peer *p)
{
	struct rl_wc wc[8];

	p->t_start = peer_now();
	for (uint32_t it = 0; it < p->o.iters; it++) {
		uint64_t t0 = peer_now();
		bool got = false, sent = false;

		if (peer_post_recv(p, it) || peer_post(p, RL_WR_SEND, it))
			return -1;
		while (!(got && sent) && !p->errors) {
			peer_pump(p, -1);
			for (int n = rl_poll_cq(p->cq, 8, wc), i = 0; i < n; i++) {
				if (!peer_wc_ok(p, &wc[i]))
					break;
				if (wc[i].opcode == RL_WC_RECV) {
					got = true;
					/* Half the round trip, as perftest's send_lat reports it. */
					p->lat_us[it] = (double)(peer_now() - t0) / 2000.0;
					if (!peer_check(p, p->buf + p->o.size)) {
						cli_error("peer", "message %u came back changed", it);
						return -1;
					}
				} else {
					sent = true;
				}
			}
			if (peer_expired(p)) {
				cli_error("peer", "timed out after %u s at message %u of %u (--timeout)", p->o.timeout_s, it,
					  p->o.iters);
				return -1;
			}
		}
		if (p->errors)
			return -1;
		p->completed++;
	}
	p->t_end = peer_now();
	return 0;
}

/* Server: answer until the client says it is finished; verify what was written or sent. */
static int peer_serve(struct peer *p, bool *data_ok)
{
	struct rl_wc wc[32];
	uint32_t want_recv = p->o.op == PEER_SEND || p->o.op == PEER_PINGPONG ? p->o.iters : 0, posted_recv = 0;
	uint32_t got = 0;
	char fin[4];

	*data_ok = true;
	p->t_start = peer_now();
	for (;;) {
		while (posted_recv < want_recv && posted_recv - got < p->o.window + 4)
			if (peer_post_recv(p, posted_recv++))
				return -1;
		if (peer_pump(p, p->tcp))
			break;
		for (int n = rl_poll_cq(p->cq, 32, wc), i = 0; i < n; i++) {
			if (!peer_wc_ok(p, &wc[i]))
				continue;
			if (wc[i].opcode != RL_WC_RECV)
				continue;
			got++;
			if (wc[i].byte_len != p->o.size || !peer_check(p, p->buf + p->o.size))
				*data_ok = false;
			if (p->o.op == PEER_PINGPONG && peer_post(p, RL_WR_SEND, got))
				return -1;
		}
		if (peer_expired(p)) {
			cli_error("peer", "timed out after %u s (--timeout): the client never finished", p->o.timeout_s);
			return -1;
		}
	}
	if (!peer_io(p->tcp, fin, sizeof(fin), false) || memcmp(fin, "fin", 4)) {
		cli_error("peer", "the client went away before the end of the test");
		return -1;
	}
	p->completed = got;
	p->t_end = peer_now();
	if (p->o.op == PEER_WRITE)
		*data_ok = peer_check(p, p->buf);
	if (peer_atomic(p->o.op)) {
		uint64_t v;

		memcpy(&v, p->buf, 8);
		*data_ok = v == p->o.iters;
	}
	if (want_recv && got != want_recv)
		*data_ok = false;
	return 0;
}

/* ---- output, as perftest prints it ----------------------------------------------------------------- */

static void peer_gid_str(const uint8_t gid[16], char *s, size_t n)
{
	size_t o = 0;

	for (int i = 0; i < 16 && o < n; i++)
		o += (size_t)snprintf(s + o, n - o, "%s%02x", i ? ":" : "", gid[i]);
}

static void peer_header(const struct peer *p, uint16_t sport)
{
	char g[64];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    %s Test (rocelab reference transport)\n", peer_test_names[p->o.op]);
	printf(" Number of qps   : 1\t\tTransport type : IB\n");
	printf(" Connection type : RC\t\tUDP sport      : 0x%04x\n", sport);
	printf(" TX depth        : %u\n", p->o.window);
	printf(" Mtu             : %u[B]\n", rl_mtu_bytes(p->o.mtu));
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : 0\n");
	printf(" Data ex. method : Ethernet (TCP port %u, ibv_rc_pingpong format)\n", p->o.port);
	printf("---------------------------------------------------------------------------------------\n");
	peer_gid_str(p->me.gid, g, sizeof(g));
	printf(" local address: LID %#06x QPN %#08x PSN %#08x RKey %#010x VAddr %#018" PRIx64 "\n", p->me.lid,
	       p->me.qpn, p->me.psn, rl_mr_rkey(p->mr), rl_mr_iova(p->mr));
	printf(" GID: %s\n", g);
	peer_gid_str(p->them.gid, g, sizeof(g));
	printf(" remote address: LID %#06x QPN %#08x PSN %#08x RKey %#010x VAddr %#018" PRIx64 "\n", p->them.lid,
	       p->them.qpn, p->them.psn, p->remote_rkey, p->remote_va);
	printf(" GID: %s\n", g);
	printf("---------------------------------------------------------------------------------------\n");
}

static void peer_bw_report(const struct peer *p, const uint64_t *stamps)
{
	double secs = (double)(p->t_end - p->t_start) / 1e9, avg, peak = 0, mb = 1048576.0;
	uint64_t step = p->o.iters >= 20 ? p->o.iters / 10 : 1;

	avg = secs > 0 ? (double)p->o.size * p->o.iters / mb / secs : 0;
	/* Peak: the best of ten stretches of completions (perftest takes the best gap between two). */
	for (uint64_t i = step; i < p->o.iters; i += step) {
		double dt = (double)(stamps[i] - stamps[i - step]) / 1e9;

		if (dt > 0 && (double)p->o.size * (double)step / mb / dt > peak)
			peak = (double)p->o.size * (double)step / mb / dt;
	}
	if (peak < avg)
		peak = avg;
	if (p->o.json) {
		printf("{\"op\":\"%s\",\"bytes\":%u,\"iterations\":%u,\"bw_peak_mbps\":%.2f,\"bw_avg_mbps\":%.2f,"
		       "\"msg_rate_mpps\":%.6f,\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
		       ",\"dropped_by_loss\":%" PRIu64 ",\"rejected\":%" PRIu64 "}\n",
		       peer_op_names[p->o.op], p->o.size, p->o.iters, peak, avg, secs > 0 ? p->o.iters / secs / 1e6 : 0,
		       p->sent, p->recv_frames, p->dropped_loss, p->rx_bad);
		return;
	}
	printf(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
	printf(" %-10u %-14u %-18.2f %-20.2f %.6f\n", p->o.size, p->o.iters, peak, avg,
	       secs > 0 ? p->o.iters / secs / 1e6 : 0);
	printf("---------------------------------------------------------------------------------------\n");
	printf(" frames sent %" PRIu64 ", received %" PRIu64 " (%" PRIu64 " dropped on purpose by --loss, %" PRIu64
	       " rejected)\n", p->sent, p->recv_frames, p->dropped_loss, p->rx_bad);
}

static int peer_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void peer_lat_report(const struct peer *p)
{
	size_t n = p->o.iters;
	double sum = 0, sq = 0, avg, sd;

	qsort(p->lat_us, n, sizeof(double), peer_cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += p->lat_us[i];
	avg = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (p->lat_us[i] - avg) * (p->lat_us[i] - avg);
	sd = sqrt(sq / (double)n);
#define PCT(q) p->lat_us[(size_t)((double)(n - 1) * (q))]
	if (p->o.json) {
		printf("{\"op\":\"pingpong\",\"bytes\":%u,\"iterations\":%u,\"t_min_us\":%.2f,\"t_max_us\":%.2f,"
		       "\"t_typical_us\":%.2f,\"t_avg_us\":%.2f,\"t_stdev_us\":%.2f,\"p99_us\":%.2f,\"p99_9_us\":%.2f,"
		       "\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64 ",\"dropped_by_loss\":%" PRIu64 "}\n",
		       p->o.size, p->o.iters, p->lat_us[0], p->lat_us[n - 1], PCT(0.5), avg, sd, PCT(0.99),
		       PCT(0.999), p->sent, p->recv_frames, p->dropped_loss);
		return;
	}
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
	       "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
	printf(" %-6u %-11u    %-11.2f    %-11.2f  %-15.2f    %-11.2f    %-13.2f   %-20.2f   %.2f\n", p->o.size,
	       p->o.iters, p->lat_us[0], p->lat_us[n - 1], PCT(0.5), avg, sd, PCT(0.99), PCT(0.999));
	printf("---------------------------------------------------------------------------------------\n");
#undef PCT
}

static void peer_close(struct peer *p)
{
	if (p->qp)
		rl_destroy_qp(p->qp);
	if (p->mr)
		rl_dereg_mr(p->mr);
	if (p->cq)
		rl_destroy_cq(p->cq);
	if (p->pd)
		rl_dealloc_pd(p->pd);
	rl_host_free(p->host);
	free(p->buf);
	free(p->lat_us);
	free(p->rxq);
	if (p->tcp >= 0)
		close(p->tcp);
	if (p->rx >= 0)
		close(p->rx);
	if (p->tx >= 0)
		close(p->tx);
}

static int peer_run(struct peer *p)
{
	uint64_t *stamps = NULL;
	int sport, rc = CLI_ERR;
	bool data_ok = true;
	char res[4];

	/* The TCP connection first: it tells which local address (and so GID) faces the peer. */
	if (p->o.server ? peer_tcp_accept(p) : peer_tcp_connect(p))
		return CLI_ERR;
	if (peer_setup(p) || peer_buffer(p)) {
		cli_error("peer", "out of memory");
		return CLI_ERR;
	}
	/* Sockets before the exchange ends, so that the first frame finds port 4791 open. */
	if (peer_pick_mtu(p) || (sport = peer_sockets(p)) < 0 || peer_exchange(p))
		return CLI_ERR;
	if (peer_connect_qp(p, (uint16_t)sport))
		return CLI_ERR;
	if (!p->o.json)
		peer_header(p, (uint16_t)sport);
	if (p->o.server) {
		if (peer_serve(p, &data_ok))
			return CLI_ERR;
		peer_drain(p, 50);
		if (!peer_io(p->tcp, data_ok ? "ok " : "bad", 4, true))
			return CLI_ERR;
		/* Stay on the wire until the client hangs up. */
		while (!peer_pump(p, p->tcp) && !peer_expired(p))
			;
		if (p->o.json)
			printf("{\"served\":\"%s\",\"messages_received\":%" PRIu64 ",\"data_ok\":%s,\"frames_sent\":%" PRIu64
			       ",\"frames_received\":%" PRIu64 ",\"dropped_by_loss\":%" PRIu64 "}\n", peer_op_names[p->o.op],
			       p->completed, data_ok ? "true" : "false", p->sent, p->recv_frames, p->dropped_loss);
		else
			printf(" served %s: %" PRIu64 " messages received, data %s\n", peer_op_names[p->o.op], p->completed,
			       data_ok ? "verified" : "WRONG");
		return data_ok ? CLI_OK : CLI_ERR;
	}
	if (p->o.op == PEER_PINGPONG) {
		p->lat_us = calloc(p->o.iters, sizeof(double));
		if (!p->lat_us || peer_client_lat(p))
			return CLI_ERR;
	} else {
		stamps = calloc(p->o.iters, sizeof(uint64_t));
		if (!stamps || peer_client_bw(p, stamps)) {
			free(stamps);
			return CLI_ERR;
		}
	}
	/* Let the last ACKs and resends settle, then ask the server whether the data arrived intact. */
	peer_drain(p, 50);
	if (!peer_io(p->tcp, "fin", 4, true) || !peer_io(p->tcp, res, sizeof(res), false)) {
		cli_error("peer", "the server went away before confirming the data");
	} else if (memcmp(res, "ok ", 4)) {
		cli_error("peer", "the server says the data it got is wrong");
	} else {
		if (p->o.op == PEER_PINGPONG)
			peer_lat_report(p);
		else
			peer_bw_report(p, stamps);
		rc = CLI_OK;
	}
	free(stamps);
	return rc;
}

int cli_peer(int argc, char **argv)
{
	struct peer p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.tcp = p.rx = p.tx = -1;
	if (!peer_parse(argc, argv, &p.o, &rc))
		return rc;
	p.rng = p.o.seed;
	rc = peer_run(&p);
	peer_close(&p);
	return rc;
}
