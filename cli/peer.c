/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer: the reference transport on a real interface, one endpoint
 * per process, like perftest and ibv_rc_pingpong. The wire (UDP sockets,
 * and why) is in peer_wire.c; this file is the test.
 *
 * The connection exchange is ibv_rc_pingpong's and ibv_ud_pingpong's
 * (rdma-core libibverbs/examples): the client writes "LID:QPN:PSN:GID"
 * (%04x:%06x:%06x: and the GID as 32 hex digits, 52 bytes with the NUL),
 * reads the server's, and writes "done". The server moves its QP to RTR
 * before it answers, so the client may send at once. Then, unless --compat
 * pingpong, one line of ours says what the test is and where the server's
 * buffer is; with --compat pingpong the data exchange is the pingpong
 * tools' own, so the other side may be the real ibv_rc_pingpong.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "peer.h"

#define PEER_MSG_LEN (sizeof "0000:000000:000000:00000000000000000000000000000000")
#define PEER_OP_LEN 160
#define PEER_RES_LEN 32
#define PEER_UD_GRH 40
#define PEER_PAGE 4096
#define PEER_UD_WAIT_NS 50000000u /* UD pingpong: a reply this late counts as lost */

static const char *const peer_op_names[] = { "send", "write", "read", "pingpong", "fetch-add", "cmp-swap" };
static const char *const peer_test_names[] = { "Send BW", "RDMA_Write BW", "RDMA_Read BW", "Send Latency",
					       "Atomic FETCH_AND_ADD BW", "Atomic CMP_AND_SWAP BW" };

static bool peer_atomic(enum peer_op op)
{
	return op == PEER_FETCH_ADD || op == PEER_CMP_SWAP;
}

static bool peer_sends(enum peer_op op)
{
	return op == PEER_SEND || op == PEER_PINGPONG;
}

static int peer_buffer(struct peer *p);

/*
 * The data both ends know. Ours: a pattern of the offset. The pingpong
 * tools': 0x7b (their memset), and with their -c the client zeroes the
 * first byte of every page; either is accepted from the other side.
 */
static uint8_t peer_pattern(const struct peer *p, size_t i)
{
	if (p->o.compat)
		return i % PEER_PAGE ? 0x7b : 0;
	return (uint8_t)(i * 7 + 3);
}

static bool peer_check(const struct peer *p, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != peer_pattern(p, i) && !(p->o.compat && b[i] == 0x7b))
			return false;
	return true;
}

static void peer_usage(FILE *f)
{
	fprintf(f,
		"usage: rocelab peer --server [options]\n"
		"       rocelab peer --client ADDR [options]\n\n"
		"Run the reference RoCEv2 transport over a real interface: one endpoint per process, like\n"
		"perftest (ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat) and\n"
		"ibv_rc_pingpong / ibv_ud_pingpong. The frames are genuine RoCEv2 (UDP port 4791, ICRC)\n"
		"that tcpdump and Wireshark show. The client runs the test; the server learns the operation\n"
		"and size from it.\n\n"
		"options:\n"
		"  -s, --server         wait for a client\n"
		"  -c, --client ADDR    connect to the server at ADDR (IPv4, or IPv6 with --ipv6)\n"
		"  -o, --op OP          send, write, read, fetch-add, cmp-swap (bandwidth) or pingpong (SEND\n"
		"                       latency); default write (UD: send)\n"
		"  -t, --transport T    rc (reliable connected, default) or ud (unreliable datagram: SEND only,\n"
		"                       one packet per message, nothing resent); the server must say the same\n"
		"  -S, --size BYTES     message size; default 65536 (pingpong: 2, UD: 1024)\n"
		"  -n, --iters N        messages; default 1000\n"
		"  -m, --mtu BYTES      path MTU 256..4096; default: what the interface carries, as rxe picks it\n"
		"  -w, --window N       work requests outstanding; default 16\n"
		"  -6, --ipv6           RoCEv2 over IPv6 (the server listens on IPv6; GIDs are IPv6 addresses)\n"
		"  -I, --interface IF   use this interface (its addresses, GID table and MTU)\n"
		"  -g, --gid-index N    the local GID, by index in the interface's GID table (as\n"
		"                       ibv_rc_pingpong -g, perftest -x); default: the address facing the peer\n"
		"      --compat pingpong  talk to the real ibv_rc_pingpong (ibv_ud_pingpong with -t ud): its\n"
		"                       exchange only, its data and iterations; defaults follow the tool\n"
		"                       (size 4096, UD 2048; path MTU 1024)\n"
		"  -p, --port PORT      TCP port of the connection exchange; default 18515\n"
		"      --loss RATE      drop this fraction of received frames on purpose, to watch recovery\n"
		"      --seed N         for --loss and the first PSN; default from the clock\n"
		"      --qpn N          this end's QP number; default 0x11, the first one rxe hands out\n"
		"                       (rxe numbers each new QP one higher: a second run is 0x12)\n"
		"      --timeout SEC    give up after this long; default 30\n"
		"      --busy-poll      spin instead of sleeping in poll()\n"
		"      --json           one JSON object with the results, for scripts\n"
		"  -h, --help           this text\n\n"
		"example (two network namespaces joined by a veth pair):\n"
		"  ip netns exec B rocelab peer --server\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 --op write --size 65536\n"
		"  ip netns exec B rocelab peer --server -t ud\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 -t ud --op pingpong\n");
}

static bool peer_parse_num(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
	if (cli_parse_u64(arg, max, v) && *v >= min)
		return true;
	cli_error("peer", "%s wants %" PRIu64 "..%" PRIu64 ", not '%s'", opt, min, max, arg);
	return false;
}

/* What the options mean together; false (with a message) for combinations that cannot work. */
static bool peer_defaults(struct peer_opts *o, bool size_set, bool op_set)
{
	if (o->server == !!o->addr) {
		cli_error("peer", "say --server or --client ADDR (one of them)");
		return false;
	}
	if (o->compat) {
		if (op_set && o->op != PEER_PINGPONG) {
			cli_error("peer", "--compat pingpong runs the pingpong tools' exchange: no --op %s",
				  peer_op_names[o->op]);
			return false;
		}
		o->op = PEER_PINGPONG;
		if (!size_set)
			o->size = o->ud ? 2048 : 4096;
		if (!o->mtu && !o->ud)
			o->mtu = RL_MTU_1024;
	} else if (o->ud && !op_set) {
		o->op = PEER_SEND;
	}
	if (o->ud && !peer_sends(o->op)) {
		cli_error("peer", "--transport ud carries SEND only (no RDMA READ, WRITE or atomics on a datagram "
			  "service): use --op send or --op pingpong");
		return false;
	}
	if (!size_set && !o->compat)
		o->size = o->op == PEER_PINGPONG ? 2 : o->ud ? 1024 : 65536;
	if (peer_atomic(o->op)) {
		if (size_set && o->size != 8) {
			cli_error("peer", "atomics work on 8 bytes: --size 8 or no --size");
			return false;
		}
		o->size = 8;
	}
	if (o->ud && o->size > 4096) {
		cli_error("peer", "a UD message is one packet: --size %u is more than the largest path MTU, 4096",
			  o->size);
		return false;
	}
	if (!o->seed)
		o->seed = 1;
	return true;
}

static bool peer_parse(int argc, char **argv, struct peer_opts *o, int *rc)
{
	enum { O_LOSS = 256, O_SEED, O_QPN, O_TIMEOUT, O_BUSY, O_JSON, O_COMPAT };
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },       { "client", required_argument, NULL, 'c' },
		{ "op", required_argument, NULL, 'o' },     { "transport", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 'S' },   { "iters", required_argument, NULL, 'n' },
		{ "mtu", required_argument, NULL, 'm' },    { "window", required_argument, NULL, 'w' },
		{ "port", required_argument, NULL, 'p' },   { "ipv6", no_argument, NULL, '6' },
		{ "interface", required_argument, NULL, 'I' }, { "gid-index", required_argument, NULL, 'g' },
		{ "loss", required_argument, NULL, O_LOSS }, { "seed", required_argument, NULL, O_SEED },
		{ "qpn", required_argument, NULL, O_QPN },
		{ "timeout", required_argument, NULL, O_TIMEOUT }, { "busy-poll", no_argument, NULL, O_BUSY },
		{ "json", no_argument, NULL, O_JSON },      { "compat", required_argument, NULL, O_COMPAT },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	bool size_set = false, op_set = false;
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->op = PEER_WRITE;
	o->iters = 1000;
	o->window = 16;
	o->port = PEER_TCP_PORT;
	o->timeout_s = 30;
	o->gid_index = -1;
	o->seed = peer_now() ^ ((uint64_t)getpid() << 32);
	*rc = CLI_BAD_INPUT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "sc:o:t:S:n:m:w:p:6I:g:x:h", lo, NULL)) != -1) {
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
			op_set = true;
			break;
		case 't':
			if (strcmp(optarg, "rc") && strcmp(optarg, "ud")) {
				cli_error("peer", "--transport wants rc or ud, not '%s'", optarg);
				return false;
			}
			o->ud = !strcmp(optarg, "ud");
			break;
		case 'S':
			if (!peer_parse_num("--size", optarg, 1, 1u << 30, &v))
				return false;
			o->size = (uint32_t)v;
			size_set = true;
			break;
		case 'n':
			if (!peer_parse_num("--iters", optarg, 1, 100000000, &v))
				return false;
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
			if (!peer_parse_num("--window", optarg, 1, 1024, &v))
				return false;
			o->window = (uint32_t)v;
			break;
		case 'p':
			if (!peer_parse_num("--port", optarg, 1, 65535, &v))
				return false;
			o->port = (uint16_t)v;
			break;
		case '6': o->ipv6 = true; break;
		case 'I':
			if (!*optarg || strlen(optarg) >= IF_NAMESIZE) {
				cli_error("peer", "--interface wants an interface name, not '%s'", optarg);
				return false;
			}
			o->ifname = optarg;
			break;
		case 'g':
		case 'x':
			if (!peer_parse_num("--gid-index", optarg, 0, 255, &v))
				return false;
			o->gid_index = (int)v;
			break;
		case O_LOSS:
			errno = 0;
			o->loss = strtod(optarg, &end);
			if (errno || *end || !(o->loss >= 0 && o->loss < 1)) {
				cli_error("peer", "--loss wants a fraction 0 <= RATE < 1, not '%s'", optarg);
				return false;
			}
			break;
		case O_SEED:
			if (!peer_parse_num("--seed", optarg, 0, UINT64_MAX, &o->seed))
				return false;
			break;
		case O_QPN:
			/* QPs 0 and 1 are the management QPs (IBA 3.5.1). */
			if (!peer_parse_num("--qpn", optarg, 2, 0xffffff, &v))
				return false;
			o->qpn = (uint32_t)v;
			break;
		case O_TIMEOUT:
			if (!peer_parse_num("--timeout", optarg, 1, 3600, &v))
				return false;
			o->timeout_s = (uint32_t)v;
			break;
		case O_BUSY: o->busy_poll = true; break;
		case O_JSON: o->json = true; break;
		case O_COMPAT:
			if (strcmp(optarg, "pingpong")) {
				cli_error("peer", "--compat knows one tool: pingpong (ibv_rc_pingpong, ibv_ud_pingpong)");
				return false;
			}
			o->compat = true;
			break;
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
	return peer_defaults(o, size_set, op_set);
}

/* ---- the connection exchange (the pingpong tools' format) ---------------------------------------- */

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

/* The other side's GID must be an address of ours to send to: the mistakes people make with -g. */
static int peer_dest_check(struct peer *p)
{
	static const uint8_t zero[16];
	union peer_addr a;
	char g[INET6_ADDRSTRLEN], r[INET6_ADDRSTRLEN];

	peer_gid_str(p->them.gid, g, sizeof(g));
	if (!memcmp(p->them.gid, zero, 16)) {
		cli_error("peer", "the other side sent GID 0: it was started without a GID index. RoCE routes by GID: "
			  "run ibv_rc_pingpong with -g N (Soft-RoCE over IPv4: usually -g 1; 'ibv_devinfo -v' "
			  "lists the GIDs)");
		return -1;
	}
	if (peer_gid_is_link_local(p->them.gid) || !peer_gid_family_ok(p, p->them.gid)) {
		cli_error("peer", "the other side sent GID %s, which is not an %s address this side can send to: "
			  "give it the GID index of its %s address (-g)", g, p->family == AF_INET ? "IPv4" : "IPv6",
			  p->family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	/* Frames go to the address in the GID, as the AV says, not to the TCP peer. */
	a = p->remote;
	if (p->family == AF_INET)
		memcpy(&a.v4.sin_addr, p->them.gid + 12, 4);
	else
		memcpy(&a.v6.sin6_addr, p->them.gid, 16);
	if (memcmp(&a, &p->remote, sizeof(a)) && !p->o.json) {
		peer_addr_str(&p->remote, r, sizeof(r));
		fprintf(stderr, "rocelab peer: note: the exchange came from %s, RoCE goes to its GID %s\n", r, g);
	}
	p->remote = a;
	return peer_tx_start(p);
}

/* Ours, after the pingpong exchange: what the test is, and where the server's buffer is. */
static void peer_op_fmt(const struct peer *p, char msg[PEER_OP_LEN])
{
	memset(msg, 0, PEER_OP_LEN);
	snprintf(msg, PEER_OP_LEN,
		 "rocelab op %s size %u iters %u mtu %u va %016" PRIx64 " rkey %08x transport %s",
		 peer_op_names[p->o.op], p->o.size, p->o.iters, (unsigned)p->o.mtu, rl_mr_iova(p->mr),
		 rl_mr_rkey(p->mr), p->o.ud ? "ud" : "rc");
}

/* Why the server refuses the client's test: said on both sides, so the client's user sees it too. */
static int peer_refuse(struct peer *p, const char *why)
{
	char msg[PEER_OP_LEN];

	cli_error("peer", "%s", why);
	if (p->o.server) {
		memset(msg, 0, sizeof(msg));
		snprintf(msg, sizeof(msg), "rocelab error: the server says: %s", why);
		peer_io(p->tcp, msg, sizeof(msg), true);
	}
	return -1;
}

static int peer_op_parse(struct peer *p, const char *msg)
{
	char op[16], tr[8], why[PEER_OP_LEN - 32];
	unsigned size, iters, mtu, rkey;
	uint64_t va;
	int i;

	if (!strncmp(msg, "rocelab error: ", 15)) {
		cli_error("peer", "%s", msg + 15);
		return -1;
	}
	if (sscanf(msg, "rocelab op %15s size %u iters %u mtu %u va %" SCNx64 " rkey %x transport %7s", op, &size,
		   &iters, &mtu, &va, &rkey, tr) != 7)
		goto unknown;
	for (i = 0; i < PEER_NOPS && strcmp(op, peer_op_names[i]); i++)
		;
	if (i == PEER_NOPS || !size || size > (1u << 30) || !iters || !rl_mtu_bytes((enum rl_mtu)mtu))
		goto unknown;
	if (strcmp(tr, p->o.ud ? "ud" : "rc")) {
		snprintf(why, sizeof(why), "the client runs %s, the server was started for %s: give both the same "
			 "--transport", tr, p->o.ud ? "ud" : "rc");
		return peer_refuse(p, why);
	}
	if (p->o.server) {
		p->o.op = (enum peer_op)i;
		p->o.size = size;
		p->o.iters = iters;
		/* Both ends use the client's path MTU; the server's interface must carry it too. */
		if ((enum rl_mtu)mtu > p->o.mtu) {
			snprintf(why, sizeof(why), "path MTU %u is more than the server's %s carries (%u): 'ip link "
				 "set dev %s mtu 9000' there", rl_mtu_bytes((enum rl_mtu)mtu), p->gids.ifname,
				 rl_mtu_bytes(p->o.mtu), p->gids.ifname);
			return peer_refuse(p, why);
		}
		p->o.mtu = (enum rl_mtu)mtu;
	}
	p->remote_va = va;
	p->remote_rkey = rkey;
	return 0;
unknown:
	cli_error("peer", "the other side sent a test description this version does not know");
	return -1;
}

static int peer_parse_addr(struct peer *p, union peer_addr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, p->o.addr, &sa->v4.sin_addr) == 1) {
		if (p->o.ipv6) {
			cli_error("peer", "--ipv6, but '%s' is an IPv4 address", p->o.addr);
			return -1;
		}
		sa->v4.sin_family = AF_INET;
	} else if (inet_pton(AF_INET6, p->o.addr, &sa->v6.sin6_addr) == 1) {
		if (IN6_IS_ADDR_LINKLOCAL(&sa->v6.sin6_addr) || IN6_IS_ADDR_V4MAPPED(&sa->v6.sin6_addr)) {
			cli_error("peer", "'%s': use a global or unique-local IPv6 address (fd00::/8), or the plain IPv4 "
				  "address; link-local GIDs have no route", p->o.addr);
			return -1;
		}
		sa->v6.sin6_family = AF_INET6;
	} else {
		cli_error("peer", "'%s' is not an IPv4 or IPv6 address", p->o.addr);
		return -1;
	}
	peer_addr_set_port(sa, p->o.port);
	p->family = sa->sa.sa_family;
	return 0;
}

static int peer_tcp_connect(struct peer *p)
{
	union peer_addr sa;
	socklen_t sl = sizeof(p->local);

	if (peer_parse_addr(p, &sa))
		return -1;
	p->tcp = socket(p->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->tcp < 0 || peer_bind_device(p, p->tcp))
		return -1;
	if (connect(p->tcp, &sa.sa, peer_addr_len(&sa))) {
		if (errno == ECONNREFUSED)
			cli_error("peer", "nobody listens at %s port %u: start 'rocelab peer --server%s' there first",
				  p->o.addr, p->o.port, p->family == AF_INET6 ? " --ipv6" : "");
		else if (errno == ENETUNREACH || errno == EHOSTUNREACH)
			cli_error("peer", "no route to %s: check 'ip route' (and the namespace you run in)", p->o.addr);
		else
			cli_error("peer", "cannot connect to %s port %u: %s", p->o.addr, p->o.port, strerror(errno));
		return -1;
	}
	getsockname(p->tcp, &p->local.sa, &sl);
	p->remote = sa;
	return 0;
}

static int peer_tcp_accept(struct peer *p)
{
	union peer_addr sa;
	socklen_t sl = sizeof(p->remote);
	int one = 1, ls;
	struct pollfd pf;

	memset(&sa, 0, sizeof(sa));
	p->family = p->o.ipv6 ? AF_INET6 : AF_INET;
	sa.sa.sa_family = (sa_family_t)p->family;
	peer_addr_set_port(&sa, p->o.port);
	ls = socket(p->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
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
	p->tcp = accept4(ls, &p->remote.sa, &sl, SOCK_CLOEXEC);
	close(ls);
	if (p->tcp < 0)
		return -1;
	sl = sizeof(p->local);
	getsockname(p->tcp, &p->local.sa, &sl);
	return 0;
}

static int peer_connect_qp(struct peer *p);
static int peer_post_recvs(struct peer *p, uint32_t n);

/* The server's QP is ready to receive before it tells the client where it is. */
static int peer_server_ready(struct peer *p)
{
	if (peer_buffer(p)) {
		cli_error("peer", "cannot allocate %u bytes", p->o.size);
		return -1;
	}
	return peer_connect_qp(p) || peer_post_recvs(p, 0) ? -1 : 0;
}

static int peer_exchange(struct peer *p)
{
	char msg[PEER_MSG_LEN], theirs[PEER_MSG_LEN], done[sizeof("done")], op[PEER_OP_LEN];
	bool ok;

	peer_dest_fmt(&p->me, msg);
	if (!p->o.server) {
		ok = peer_io(p->tcp, msg, sizeof(msg), true) && peer_io(p->tcp, theirs, sizeof(theirs), false) &&
		     peer_io(p->tcp, "done", sizeof("done"), true);
	} else {
		ok = peer_io(p->tcp, theirs, sizeof(theirs), false);
	}
	theirs[sizeof(theirs) - 1] = '\0';
	if (!ok && p->o.server) {
		cli_error("peer", "the client hung up before the connection exchange (its own message says why)");
		return -1;
	}
	if (!ok) {
		cli_error("peer", "the server hung up during the connection exchange: its own output says why (a "
			  "--gid-index it cannot use, for example)");
		return -1;
	}
	if (!peer_dest_parse(theirs, &p->them)) {
		cli_error("peer", "the connection exchange failed: the other side is not a pingpong-style peer");
		return -1;
	}
	if (peer_dest_check(p))
		return -1;
	if (p->o.server) {
		/* ibv_rc_pingpong's server reads up to 52 bytes and wants the 5 of "done". */
		if ((p->o.compat && peer_server_ready(p)) || !peer_io(p->tcp, msg, sizeof(msg), true))
			return -1;
		/*
		 * Exactly the 5 bytes of "done": our client sends its test line right
		 * after, and one read() may return both (a race CI once hit under ASan).
		 */
		if (!peer_io(p->tcp, done, sizeof("done"), false) || memcmp(done, "done", sizeof("done"))) {
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
		ok = peer_io(p->tcp, op, sizeof(op), true) && peer_io(p->tcp, op, sizeof(op), false);
	} else {
		ok = peer_io(p->tcp, op, sizeof(op), false);
	}
	op[sizeof(op) - 1] = '\0';
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
		if (!peer_io(p->tcp, op, sizeof(op), true))
			return -1;
	}
	return 0;
}

/* ---- the verbs side ------------------------------------------------------------------------------ */

static int peer_setup(struct peer *p)
{
	struct rl_host_config hc = { .emit = peer_emit, .ctx = p };
	struct rl_qp_init_attr ia = { .qp_type = p->o.ud ? RL_QPT_UD : RL_QPT_RC };
	uint32_t depth = p->o.window + 8;

	if (p->o.ud || p->o.compat)
		depth += 512; /* datagrams are not flow controlled: keep receives posted ahead (the tools: 500) */
	peer_addr_to_gid(&p->local, hc.gid);
	/* The port's MTU: a UD message must fit it (IBA: one packet per UD message). */
	hc.active_mtu = p->o.mtu;
	hc.first_qpn = p->o.qpn;
	p->host = rl_host_new(&hc);
	p->pd = p->host ? rl_alloc_pd(p->host) : NULL;
	p->cq = p->host ? rl_create_cq(p->host, (int)(2 * depth + 64)) : NULL;
	if (!p->pd || !p->cq)
		return -1;
	ia.send_cq = ia.recv_cq = p->cq;
	ia.max_send_wr = p->o.window + 8;
	ia.max_recv_wr = depth;
	ia.sq_sig_all = true;
	p->qp = rl_create_qp(p->pd, &ia);
	if (!p->qp)
		return -1;
	p->me.qpn = rl_qp_num(p->qp);
	p->me.psn = (uint32_t)(p->o.seed * 0x9e3779b97f4a7c15u >> 40);
	memcpy(p->me.gid, hc.gid, 16);
	return 0;
}

/*
 * The buffer. Ours: what is sent at 0, what arrives at size (UD: after the
 * 40-byte GRH area). The pingpong tools': one message-sized buffer that is
 * sent from and received into (UD: the GRH area first, then the message).
 */
static size_t peer_send_off(const struct peer *p)
{
	return p->o.compat && p->o.ud ? PEER_UD_GRH : 0;
}

static size_t peer_recv_off(const struct peer *p)
{
	return p->o.compat ? 0 : p->o.size;
}

static size_t peer_data_off(const struct peer *p)
{
	return peer_recv_off(p) + (p->o.ud ? PEER_UD_GRH : 0);
}

static int peer_buffer(struct peer *p)
{
	int access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ | RL_ACCESS_REMOTE_ATOMIC;
	/* A WRITE or atomic target, and where a READ lands, start at 0: what arrives there is then checked. */
	bool target = p->o.server ? p->o.op == PEER_WRITE || peer_atomic(p->o.op) : p->o.op == PEER_READ;

	free(p->buf);
	if (p->o.compat)
		p->buf_len = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);
	else if (peer_sends(p->o.op))
		p->buf_len = (size_t)p->o.size * 2 + (p->o.ud ? PEER_UD_GRH : 0);
	else if (peer_atomic(p->o.op) && !p->o.server)
		p->buf_len = 8 * (size_t)p->o.window; /* a slot per outstanding atomic for the value fetched */
	else
		p->buf_len = p->o.size;
	p->buf = malloc(p->buf_len);
	if (!p->buf)
		return -1;
	memset(p->buf, p->o.compat ? 0x7b : 0, p->buf_len);
	for (size_t i = 0; !target && i < p->o.size && peer_send_off(p) + i < p->buf_len; i++)
		if (!p->o.compat || !p->o.server)
			p->buf[peer_send_off(p) + i] = peer_pattern(p, i);
	if (p->mr)
		rl_dereg_mr(p->mr);
	p->mr = rl_reg_mr_iova(p->pd, p->buf, p->buf_len, 0x10000000, (unsigned)access);
	return p->mr ? 0 : -1;
}

static int peer_connect_ud(struct peer *p)
{
	struct rl_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = RL_QPS_INIT;
	a.port_num = 1;
	a.qkey = PEER_QKEY;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_QKEY))
		return -1;
	a.qp_state = RL_QPS_RTR;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE))
		return -1;
	a.qp_state = RL_QPS_RTS;
	a.sq_psn = p->me.psn;
	return rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_SQ_PSN);
}

/* RESET -> INIT -> RTR -> RTS with the other side's QPN, PSN and GID (IBA 10.3.1). */
static int peer_connect_rc(struct peer *p)
{
	struct rl_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = RL_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ |
			    RL_ACCESS_REMOTE_ATOMIC;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_PKEY_INDEX | RL_QP_PORT | RL_QP_ACCESS_FLAGS))
		return -1;
	a.qp_state = RL_QPS_RTR;
	memcpy(a.ah_attr.dgid, p->them.gid, 16);
	a.ah_attr.udp_sport = p->sport;
	a.path_mtu = p->o.mtu;
	a.dest_qp_num = p->them.qpn;
	a.rq_psn = p->them.psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	if (rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_AV | RL_QP_PATH_MTU | RL_QP_DEST_QPN | RL_QP_RQ_PSN |
				    RL_QP_MAX_DEST_RD_ATOMIC | RL_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = RL_QPS_RTS;
	a.sq_psn = p->me.psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return rl_modify_qp(p->qp, &a, RL_QP_STATE | RL_QP_SQ_PSN | RL_QP_TIMEOUT | RL_QP_RETRY_CNT |
				       RL_QP_RNR_RETRY | RL_QP_MAX_QP_RD_ATOMIC);
}

static int peer_connect_qp(struct peer *p)
{
	if (rl_qp_state(p->qp) == RL_QPS_RTS)
		return 0;
	if (p->o.ud ? peer_connect_ud(p) : peer_connect_rc(p)) {
		cli_error("peer", "cannot connect the QP: %s", rl_host_error(p->host));
		return -1;
	}
	return 0;
}

/* ---- the test loop ------------------------------------------------------------------------------- */

/* Let the host work, wait for frames or for @fd (if >= 0) until its next timer; true if @fd is readable. */
static bool peer_pump(struct peer *p, int fd)
{
	struct pollfd pf[2] = { { .fd = p->rx, .events = POLLIN }, { .fd = fd, .events = POLLIN } };
	uint64_t now = peer_now(), next;
	int ms;

	rl_host_run(p->host, now);
	peer_flush(p);
	if (p->o.busy_poll) {
		bool readable = false;

		/* No poll() at all while spinning, but a look at @fd now and then. */
		if (fd >= 0 && !(++p->spins & 255)) {
			struct pollfd t = { .fd = fd, .events = POLLIN };

			readable = poll(&t, 1, 0) > 0 && (t.revents & (POLLIN | POLLHUP));
		}
		peer_receive(p, peer_now());
		rl_host_run(p->host, peer_now());
		return readable;
	}
	next = rl_host_next_timer(p->host);
	if (rl_cq_pending(p->cq))
		ms = 0;
	else if (next == UINT64_MAX || next > now + 100000000u)
		ms = 100;
	else
		ms = next > now ? (int)((next - now + 999999) / 1000000) : 0;
	if (p->o.ud && ms > 10)
		ms = 10; /* the UD pingpong's own wait for a reply */
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

static bool peer_wc_ok(struct peer *p, const struct rl_wc *wc);

/* One pump, counting the SENDs that completed (for when no message is expected). */
static void peer_reap_sends(struct peer *p)
{
	struct rl_wc wc[8];

	peer_pump(p, -1);
	for (int n = rl_poll_cq(p->cq, 8, wc), i = 0; i < n; i++)
		p->sends_done += peer_wc_ok(p, &wc[i]) && wc[i].opcode != RL_WC_RECV;
}

/*
 * Wait (at most 2 s) until every SEND this side posted is acknowledged: once
 * the other side has gone, nothing of ours may still be resent to its closed
 * port (the kernel would answer with ICMP port unreachable).
 */
static void peer_settle(struct peer *p)
{
	uint64_t start = peer_now();

	while (p->sends_done < p->posted && peer_now() - start < 2000000000ull && !p->errors)
		peer_reap_sends(p);
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
	peer_flush(p);
}

static int peer_post(struct peer *p, enum rl_wr_opcode op, uint64_t id)
{
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = op;
	wr.num_sge = 1;
	wr.sg_list[0].addr = rl_mr_iova(p->mr) + peer_send_off(p);
	wr.sg_list[0].length = p->o.size;
	wr.sg_list[0].lkey = rl_mr_lkey(p->mr);
	wr.send_flags = RL_SEND_SIGNALED;
	wr.rdma.remote_addr = p->remote_va;
	wr.rdma.rkey = p->remote_rkey;
	if (p->o.ud) {
		memcpy(wr.ud.dgid, p->them.gid, 16);
		wr.ud.remote_qpn = p->them.qpn;
		wr.ud.remote_qkey = PEER_QKEY;
	}
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

/* How many receives this side keeps posted, if it receives SENDs at all. */
static uint32_t peer_recv_depth(const struct peer *p)
{
	if (!peer_sends(p->o.op) || (!p->o.server && p->o.op != PEER_PINGPONG))
		return 0;
	return p->o.window + 4 + (p->o.ud || p->o.compat ? 512 : 0);
}

static int peer_post_recv(struct peer *p)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = p->recvs_posted;
	wr.num_sge = 1;
	wr.sg_list[0].addr = rl_mr_iova(p->mr) + peer_recv_off(p);
	wr.sg_list[0].length = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);
	wr.sg_list[0].lkey = rl_mr_lkey(p->mr);
	if (rl_post_recv(p->qp, &wr)) {
		cli_error("peer", "post_recv: %s", rl_host_error(p->host));
		return -1;
	}
	p->recvs_posted++;
	return 0;
}

/* @completed receives finished: post new ones up to the depth, as ibv_rc_pingpong's rx_depth. */
static int peer_post_recvs(struct peer *p, uint32_t completed)
{
	p->recvs_out -= completed;
	while (p->recvs_out < peer_recv_depth(p)) {
		if (peer_post_recv(p))
			return -1;
		p->recvs_out++;
	}
	return 0;
}

static bool peer_wc_ok(struct peer *p, const struct rl_wc *wc)
{
	if (wc->status == RL_WC_SUCCESS)
		return true;
	if (!p->errors++)
		cli_error("peer", "work request %" PRIu64 " failed: %s", wc->wr_id, rl_wc_status_str(wc->status));
	return false;
}

/* A received message: the size the test said, and the data the other side sends. */
static bool peer_recv_ok(const struct peer *p, const struct rl_wc *wc)
{
	uint32_t want = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);

	return wc->byte_len == want && peer_check(p, p->buf + peer_data_off(p), p->o.size);
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
	if (p->o.op == PEER_READ && !peer_check(p, p->buf, p->o.size)) {
		cli_error("peer", "the data READ back is not what the server holds");
		return -1;
	}
	return 0;
}

/*
 * Client, latency: SEND, wait for the other side's SEND back. As ib_send_lat,
 * a round ends when the reply arrives: the ACK of our SEND completes it on
 * its own time (at most --window SENDs wait for theirs). With --compat
 * pingpong a round also waits for that completion, as ibv_rc_pingpong does.
 * Over UD nothing is resent: a reply that does not come within
 * PEER_UD_WAIT_NS is counted lost and the next round starts.
 */
static int peer_client_lat(struct peer *p)
{
	struct rl_wc wc[8];

	p->t_start = peer_now();
	for (uint32_t it = 0; it < p->o.iters; it++) {
		bool got = false, sent = false;
		uint64_t t0;

		while (p->posted - p->sends_done >= p->o.window && !p->errors && !peer_expired(p))
			peer_reap_sends(p);
		t0 = peer_now();   /* the round trip, not the wait for a free send slot */
		if (peer_post(p, RL_WR_SEND, it))
			return -1;
		while (!(got && (sent || !p->o.compat)) && !p->errors) {
			peer_pump(p, -1);
			for (int n = rl_poll_cq(p->cq, 8, wc), i = 0; i < n; i++) {
				if (!peer_wc_ok(p, &wc[i]))
					break;
				if (wc[i].opcode != RL_WC_RECV) {
					sent = true;
					p->sends_done++;
					continue;
				}
				got = true;
				/* Half the round trip, as perftest's send_lat reports it. */
				p->lat_us[p->nlat++] = (double)(peer_now() - t0) / 2000.0;
				if (!peer_recv_ok(p, &wc[i])) {
					cli_error("peer", "message %u came back changed", it);
					return -1;
				}
				if (peer_post_recvs(p, 1))
					return -1;
			}
			if (p->o.ud && sent && !got && peer_now() - t0 > PEER_UD_WAIT_NS) {
				p->lost++;
				break;
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
	peer_settle(p);
	if (!p->nlat) {
		cli_error("peer", "no reply came back in %u rounds", p->o.iters);
		return -1;
	}
	return 0;
}

/* One completion at the server: a message to check (and, for pingpong, answer) or a reply sent. */
static int peer_serve_wc(struct peer *p, const struct rl_wc *wc, bool *data_ok)
{
	if (!peer_wc_ok(p, wc))
		return 0;
	if (wc->opcode != RL_WC_RECV) {
		p->sends_done++;
		return 0;
	}
	p->completed++;
	if (!peer_recv_ok(p, wc))
		*data_ok = false;
	if (peer_post_recvs(p, 1) || (p->o.op == PEER_PINGPONG && peer_post(p, RL_WR_SEND, p->completed)))
		return -1;
	return 0;
}

/*
 * Server: answer until the client says it is finished (with --compat
 * pingpong, until every round is done, as the tools count them); verify what
 * was written or sent.
 */
static int peer_serve(struct peer *p, bool *data_ok)
{
	struct rl_wc wc[32];
	uint64_t last = peer_now(), seen = 0;
	char fin[4];
	int n;

	*data_ok = true;
	p->t_start = peer_now();
	for (;;) {
		if (peer_pump(p, p->o.compat ? -1 : p->tcp))
			break;
		/* Every completion before the next batch of frames, so that receives are posted again in time. */
		while ((n = rl_poll_cq(p->cq, 32, wc)) > 0)
			for (int i = 0; i < n; i++)
				if (peer_serve_wc(p, &wc[i], data_ok))
					return -1;
		if (p->completed != seen) {
			seen = p->completed;
			last = peer_now();
		}
		if (p->o.compat && ((p->completed == p->o.iters && p->sends_done == p->o.iters) ||
				    (p->o.ud && seen && peer_now() - last > 1000000000u)))
			break;
		if (peer_expired(p)) {
			cli_error("peer", "timed out after %u s (--timeout) with %" PRIu64 " of %u messages received and %"
				  PRIu64 " replies done: the client never finished", p->o.timeout_s, p->completed, p->o.iters,
				  p->sends_done);
			return -1;
		}
	}
	p->t_end = peer_now();
	if (!p->o.compat && (!peer_io(p->tcp, fin, sizeof(fin), false) || memcmp(fin, "fin", 4))) {
		cli_error("peer", "the client went away before the end of the test");
		return -1;
	}
	if (p->o.op == PEER_WRITE)
		*data_ok = peer_check(p, p->buf, p->o.size);
	if (peer_atomic(p->o.op)) {
		uint64_t v;

		memcpy(&v, p->buf, 8);
		*data_ok = v == p->o.iters;
	}
	/* RC delivers every message; UD delivers what the wire (and --loss) let through. */
	if (peer_sends(p->o.op) && (p->o.ud ? !p->completed : p->completed != p->o.iters))
		*data_ok = false;
	return 0;
}

/* ---- output, as perftest prints it ----------------------------------------------------------------- */

static void peer_header(const struct peer *p)
{
	char g[INET6_ADDRSTRLEN];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    %s Test (rocelab reference transport)\n",
	       p->o.compat ? "ibv_pingpong" : peer_test_names[p->o.op]);
	printf(" Number of qps   : 1\t\tTransport type : IB\n");
	printf(" Connection type : %s\t\tUDP sport      : 0x%04x\n", p->o.ud ? "UD" : "RC", p->sport);
	printf(" TX depth        : %u\n", p->o.window);
	printf(" Mtu             : %u[B]\n", rl_mtu_bytes(p->o.mtu));
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : %d\t\tInterface      : %s\n", p->gid_index, p->gids.ifname);
	printf(" Data ex. method : Ethernet (TCP port %u, %s)\n", p->o.port,
	       p->o.compat ? "ibv_rc_pingpong's exchange only" : "ibv_rc_pingpong format + rocelab test line");
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
	uint64_t step = p->o.iters / 10;

	avg = secs > 0 ? (double)p->o.size * p->o.iters / mb / secs : 0;
	/* Peak: the best of ten stretches of completions (perftest takes the best gap between two). */
	for (uint64_t i = step; step >= 2 && i < p->o.iters; i += step) {
		double dt = (double)(stamps[i] - stamps[i - step]) / 1e9;

		if (dt > 0 && (double)p->o.size * (double)step / mb / dt > peak)
			peak = (double)p->o.size * (double)step / mb / dt;
	}
	if (peak < avg)
		peak = avg;
	if (p->o.json) {
		printf("{\"op\":\"%s\",\"transport\":\"%s\",\"bytes\":%u,\"iterations\":%u,\"bw_peak_mbps\":%.2f,"
		       "\"bw_avg_mbps\":%.2f,\"msg_rate_mpps\":%.6f,\"delivered\":%" PRIu64 ",\"frames_sent\":%" PRIu64
		       ",\"frames_received\":%" PRIu64 ",\"dropped_by_loss\":%" PRIu64 ",\"rejected\":%" PRIu64 "}\n",
		       peer_op_names[p->o.op], p->o.ud ? "ud" : "rc", p->o.size, p->o.iters, peak, avg,
		       secs > 0 ? p->o.iters / secs / 1e6 : 0, p->delivered, p->sent, p->recv_frames, p->dropped_loss,
		       p->rx_bad);
		return;
	}
	printf(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
	printf(" %-10u %-14u %-18.2f %-20.2f %.6f\n", p->o.size, p->o.iters, peak, avg,
	       secs > 0 ? p->o.iters / secs / 1e6 : 0);
	printf("---------------------------------------------------------------------------------------\n");
	if (p->o.ud && peer_sends(p->o.op))
		printf(" delivered %" PRIu64 " of %u messages (UD: what is lost stays lost)\n", p->delivered,
		       p->o.iters);
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
	size_t n = p->nlat;
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
		printf("{\"op\":\"pingpong\",\"transport\":\"%s\",\"bytes\":%u,\"iterations\":%u,\"lost\":%" PRIu64
		       ",\"t_min_us\":%.2f,\"t_max_us\":%.2f,\"t_typical_us\":%.2f,\"t_avg_us\":%.2f,\"t_stdev_us\":%.2f,"
		       "\"p99_us\":%.2f,\"p99_9_us\":%.2f,\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
		       ",\"dropped_by_loss\":%" PRIu64 "}\n",
		       p->o.ud ? "ud" : "rc", p->o.size, p->o.iters, p->lost, p->lat_us[0], p->lat_us[n - 1], PCT(0.5),
		       avg, sd, PCT(0.99), PCT(0.999), p->sent, p->recv_frames, p->dropped_loss);
		return;
	}
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
	       "t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
	printf(" %-6u %-11u    %-11.2f    %-11.2f  %-15.2f    %-11.2f    %-13.2f   %-20.2f   %.2f\n", p->o.size,
	       p->o.iters, p->lat_us[0], p->lat_us[n - 1], PCT(0.5), avg, sd, PCT(0.99), PCT(0.999));
	printf("---------------------------------------------------------------------------------------\n");
	if (p->o.ud)
		printf(" %" PRIu64 " of %u rounds lost (UD: nothing is resent; a reply later than %u ms counts lost)\n",
		       p->lost, p->o.iters, PEER_UD_WAIT_NS / 1000000);
#undef PCT
}

/* The two lines ibv_rc_pingpong prints at the end, for --compat pingpong. */
static void peer_pingpong_report(const struct peer *p)
{
	double usec = (double)(p->t_end - p->t_start) / 1000.0;
	long long bytes = (long long)p->o.size * p->o.iters * 2;

	if (p->o.json || usec <= 0)
		return;
	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / 1e6, (double)bytes * 8. / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", p->o.iters, usec / 1e6, usec / p->o.iters);
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
	peer_queues_free(p);
	if (p->tcp >= 0)
		close(p->tcp);
	if (p->rx >= 0)
		close(p->rx);
	if (p->hold >= 0)
		close(p->hold);
	if (p->tx >= 0)
		close(p->tx);
}

/* Addresses, GID, MTU, the QP and the sockets: everything before the exchange. */
static int peer_prepare(struct peer *p)
{
	/* The TCP connection first: it tells which local address (and so GID) faces the peer. */
	if (p->o.server ? peer_tcp_accept(p) : peer_tcp_connect(p))
		return -1;
	if (peer_pick_gid(p) || peer_pick_mtu(p))
		return -1;
	if (p->o.ud && (!p->o.server || p->o.compat) && p->o.size > rl_mtu_bytes(p->o.mtu)) {
		cli_error("peer", "a UD message is one packet: --size %u is more than the path MTU %u of %s; use "
			  "--size %u or less, or a larger interface MTU", p->o.size, rl_mtu_bytes(p->o.mtu), p->gids.ifname,
			  rl_mtu_bytes(p->o.mtu));
		return -1;
	}
	if (peer_setup(p) || ((!p->o.server || p->o.compat) && peer_buffer(p))) {
		cli_error("peer", "out of memory");
		return -1;
	}
	/* Sockets before the exchange ends, so that the first frame finds port 4791 open. */
	return peer_sockets(p, rl_qp_udp_sport(p->qp), !p->o.ud);
}

static int peer_run_server(struct peer *p)
{
	bool data_ok = true;
	char res[PEER_RES_LEN];

	if (peer_serve(p, &data_ok))
		return CLI_ERR;
	peer_settle(p);
	peer_drain(p, 50);
	if (!p->o.compat) {
		memset(res, 0, sizeof(res));
		snprintf(res, sizeof(res), "%s %" PRIu64, data_ok ? "ok" : "bad", p->completed);
		if (!peer_io(p->tcp, res, sizeof(res), true))
			return CLI_ERR;
		/* Stay on the wire until the client hangs up. */
		while (!peer_pump(p, p->tcp) && !peer_expired(p))
			;
		peer_flush(p);
	}
	if (p->o.json)
		printf("{\"served\":\"%s\",\"transport\":\"%s\",\"messages_received\":%" PRIu64
		       ",\"data_ok\":%s,\"frames_sent\":%" PRIu64 ",\"frames_received\":%" PRIu64
		       ",\"dropped_by_loss\":%" PRIu64 "}\n", peer_op_names[p->o.op], p->o.ud ? "ud" : "rc", p->completed,
		       data_ok ? "true" : "false", p->sent, p->recv_frames, p->dropped_loss);
	else
		printf(" served %s: %" PRIu64 " messages received, data %s\n", peer_op_names[p->o.op], p->completed,
		       data_ok ? "verified" : "WRONG");
	if (p->o.compat)
		peer_pingpong_report(p);
	return data_ok ? CLI_OK : CLI_ERR;
}

/* The client's end: ask the server whether the data arrived intact, and how many messages. */
static int peer_client_result(struct peer *p)
{
	char res[PEER_RES_LEN];
	unsigned long long got;

	if (p->o.compat) {
		p->delivered = p->o.iters - p->lost;
		return 0;
	}
	if (!peer_io(p->tcp, "fin", 4, true) || !peer_io(p->tcp, res, sizeof(res), false)) {
		cli_error("peer", "the server went away before confirming the data");
		return -1;
	}
	res[sizeof(res) - 1] = '\0';
	if (strncmp(res, "ok ", 3) || sscanf(res + 3, "%llu", &got) != 1) {
		cli_error("peer", "the server says the data it got is wrong");
		return -1;
	}
	p->delivered = got;
	return 0;
}

static int peer_run(struct peer *p)
{
	uint64_t *stamps = NULL;
	int rc = CLI_ERR;

	if (peer_prepare(p) || peer_exchange(p))
		return CLI_ERR;
	if (peer_connect_qp(p) || peer_post_recvs(p, 0))
		return CLI_ERR;
	if (!p->o.json)
		peer_header(p);
	if (p->o.server)
		return peer_run_server(p);
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
	/* Let the last ACKs and resends settle before the result. */
	peer_drain(p, 50);
	if (!peer_client_result(p)) {
		if (p->o.op == PEER_PINGPONG)
			peer_lat_report(p);
		else
			peer_bw_report(p, stamps);
		if (p->o.compat)
			peer_pingpong_report(p);
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
	p.tcp = p.rx = p.tx = p.hold = -1;
	if (!peer_parse(argc, argv, &p.o, &rc))
		return rc;
	p.rng = p.o.seed;
	rc = peer_run(&p);
	peer_close(&p);
	return rc;
}
