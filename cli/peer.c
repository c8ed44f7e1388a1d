/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer: the reference transport on a real interface, one endpoint
 * per process, like perftest and ibv_rc_pingpong. This file holds the
 * options and the command; peer.h says where the rest lives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "peer.h"

#define PEER_PAGE 4096

const char *const peer_op_names[PEER_NOPS] = { "send", "write", "read", "pingpong", "fetch-add", "cmp-swap" };

bool peer_atomic(enum peer_op op)
{
	return op == PEER_FETCH_ADD || op == PEER_CMP_SWAP;
}

bool peer_sends(enum peer_op op)
{
	return op == PEER_SEND || op == PEER_PINGPONG;
}

/*
 * The data both ends know. Ours: a pattern of the offset. The pingpong
 * tools': 0x7b (their memset), and with their -c the client zeroes the
 * first byte of every page; either is accepted from the other side.
 */
uint8_t peer_pattern(const struct peer *p, size_t i)
{
	if (p->o.compat)
		return i % PEER_PAGE ? 0x7b : 0;
	return (uint8_t)(i * 7 + 3);
}

bool peer_check(const struct peer *p, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != peer_pattern(p, i) && !(p->o.compat && b[i] == 0x7b))
			return false;
	return true;
}

void peer_usage(FILE *f)
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
		"      --compat rping   rping's protocol and flags: see below\n"
		"      --compat ucmatose, --compat udaddy  cmatose's and udaddy's: see below\n"
		"      --compat pingpong  talk to the real ibv_rc_pingpong (ibv_ud_pingpong with -t ud): its\n"
		"                       exchange only, its data and iterations; defaults follow the tool\n"
		"                       (size 4096, UD 2048; path MTU 1024)\n"
		"      --cm             connect through the CM on QP1 (rdma_cm: REQ, REP, RTU; DREQ, DREP at the\n"
		"                       end; SIDR_REQ, SIDR_REP with -t ud), as perftest's -R, instead of the\n"
		"                       TCP exchange; both ends say it. The client's REQ carries the test in\n"
		"                       rocelab's private data after rdma_cm's header (op, transport, MTU, size,\n"
		"                       iterations; the REP the server's buffer): the server needs no --op or\n"
		"                       --size. A REQ without it (perftest -R's) is served with the server's own\n"
		"                       flags, as perftest's two ends must be given the same. The server checks\n"
		"                       the data and says so itself: nothing comes back to the client after the\n"
		"                       test. The server learns its address from the client's first frame.\n"
		"  -p, --port PORT      TCP port of the connection exchange (--cm: the rdma_cm port); default\n"
		"                       18515\n"
		"      --loss RATE      drop this fraction of received frames on purpose, to watch recovery\n"
		"      --tx-loss RATE   drop this fraction of the frames this side sends, as if lost on the way\n"
		"                       (loss at the other side's ingress, when that side is not rocelab)\n"
		"      --seed N         for --loss and the first PSN; default from the clock\n"
		"      --qpn N          this end's QP number; default 0x11, the first one rxe hands out\n"
		"                       (rxe numbers each new QP one higher: a second run is 0x12)\n"
		"      --timeout SEC    give up after this long; default 30\n"
		"      --busy-poll      spin instead of sleeping in poll()\n"
		"      --json           one JSON object with the results, for scripts\n"
		"  -h, --help           this text\n\n"
		"The classic mistakes, made on purpose (labs/14-pitfalls):\n"
		"      --no-grh         move the QP to RTR without a GRH (ibv_ah_attr.is_global = 0): RoCE\n"
		"                       has no LIDs, so the kernel refuses it (EINVAL), and so does this\n"
		"      --bad-rkey       client: RDMA work requests with the server's R_Key, low byte inverted:\n"
		"                       NAK remote access error, IBV_WC_REM_ACCESS_ERR, the QP in error\n"
		"      --bad-va         client: RDMA work requests 1 MiB past the server's address (the same)\n"
		"      --retry-cnt N    the RC QP's retry count at RTS, 0..7 (default 7, as perftest and\n"
		"                       ibv_rc_pingpong): unanswered requests are sent again N times, then\n"
		"                       the work request fails, 'transport retry counter exceeded' (the\n"
		"                       kernel's rxe takes 7 as 'for ever' and never gives up)\n\n"
		"--compat rping: rping's protocol (librdmacm's example: the client advertises a buffer, the\n"
		"server READs it, says go ahead, WRITEs it back into a second one), rping's flags and output:\n"
		"  rocelab peer --compat rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
		"  rocelab peer --compat rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
		"  -s / -c              server / client\n"
		"  -a ADDR              client: the server's address; server: listen on it (default: any)\n"
		"  -I ADDR              client: the source address (rping's -I; the interface is --interface)\n"
		"  -p PORT              port; default 7174, rping's\n"
		"  -C COUNT             client: pings; 0 or none: until interrupted, as rping (the server\n"
		"                       answers until the client disconnects, as rping's does)\n"
		"  -S SIZE              ping data size, 23..65535 (rping's limits); default 64\n"
		"  -v                   print the data: \"ping data: ...\" (client), \"server ping data: ...\"\n"
		"  -V                   client: compare the data written back with the data sent\n"
		"  -d                   rping's debug lines, the rdma_cm events among them\n"
		"  and rocelab's own: --interface IF, --timeout SEC (for each wait), --loss RATE, --tx-loss RATE,\n"
		"  --seed N, --qpn N, --json (a summary after rping's output), and --corrupt (server: change\n"
		"  one byte of each ping before writing it back, so that the client's -V has something to find).\n"
		"  rping's -P (persistent server) and -q (self-created QP) are not supported.\n"
		"  The two ends connect as rping's do, through rdma_cm on QP1 (REQ, REP, RTU; DREQ, DREP), so\n"
		"  the other end may be the real rping; -d prints the rdma_cm events as they come.\n\n"
		"--compat ucmatose, --compat udaddy: librdmacm's examples cmatose (RC, REQ/REP/RTU, DREQ/DREP)\n"
		"and udaddy (UD, SIDR_REQ/SIDR_REP), their flags, protocol, output and exit status:\n"
		"  rocelab peer --compat ucmatose [-b addr] [-c conns] [-C count] [-S size] [-p port] [-m]\n"
		"  rocelab peer --compat ucmatose -s addr [-b addr] [-c conns] [-C count] [-S size] [-p port]\n"
		"  rocelab peer --compat udaddy [-s addr] [-b addr] [-c conns] [-C count] [-S size]\n"
		"  -s ADDR              client: the server's address (without -s: the server)\n"
		"  -b ADDR              server: listen on it (default: any); client: the source address\n"
		"  -c CONNS             connections, each its own QP, opened at once; default 1, at most 16\n"
		"                       (the server waits for that many)\n"
		"  -C COUNT, -S SIZE    messages each way on each connection, and their size; default 10 of\n"
		"                       100 bytes (udaddy: at most the path MTU)\n"
		"  -p PORT              ucmatose's port, default 7471; udaddy's port is 7174 (its -p is the\n"
		"                       port space: 0x111, RDMA_PS_UDP, only); -P tcp / udp and -f ip are taken\n"
		"  ucmatose: the server SENDs, the client receives then SENDs back the buffer it received\n"
		"  into, the server sends a DREQ on each connection. udaddy: the client SENDs with immediate\n"
		"  (its QPN), the server answers to the sender its GRH names; SIDR has no disconnect.\n"
		"  The tools check no data; rocelab's ucmatose server checks the echo. A failed completion\n"
		"  fails the run, and each wait ends after --timeout (a UD datagram lost is never resent:\n"
		"  udaddy waits for every one). Also --interface, --loss, --tx-loss, --seed, --qpn, --json.\n"
		"  -t (type of service) and -a (ACK timeout) are not supported; -m only says it migrated.\n\n"
		"example (two network namespaces joined by a veth pair):\n"
		"  ip netns exec B rocelab peer --server\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 --op write --size 65536\n"
		"  ip netns exec B rocelab peer --server -t ud\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 -t ud --op pingpong\n"
		"  ip netns exec B rocelab peer --server --cm\n"
		"  ip netns exec A rocelab peer --client 10.0.0.2 --cm --op read\n");
}

/* The path MTU @arg names in bytes, or 0 if it names none of the five (enum rl_mtu). */
static enum rl_mtu peer_mtu(const char *arg)
{
	uint64_t v;

	return cli_parse_u64(arg, UINT32_MAX, &v) ? rl_mtu_from_bytes(v) : 0;
}

/* What the options mean together; false (with a message) for combinations that cannot work. */
static bool peer_defaults(struct peer_opts *o, bool size_set, bool op_set)
{
	if (o->server == !!o->addr) {
		cli_error("peer", "say --server or --client ADDR (one of them)");
		return false;
	}
	if (o->compat && o->cm) {
		cli_error("peer", "--compat pingpong is the pingpong tools' TCP exchange; --cm connects through the CM "
			  "instead: say one of them");
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

bool peer_rate(const char *opt, const char *arg, double *rate)
{
	char *end;

	errno = 0;
	*rate = strtod(arg, &end);
	if (errno || *end || !(*rate >= 0 && *rate < 1)) {
		cli_error("peer", "%s wants a fraction 0 <= RATE < 1, not '%s'", opt, arg);
		return false;
	}
	return true;
}

static bool peer_parse(int argc, char **argv, struct peer_opts *o, int *rc)
{
	enum { O_LOSS = 256, O_SEED, O_QPN, O_TIMEOUT, O_BUSY, O_JSON, O_COMPAT, O_CM, O_TX_LOSS, O_NO_GRH, O_BAD_RKEY, O_BAD_VA, O_RETRY_CNT };
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
		{ "cm", no_argument, NULL, O_CM },          { "tx-loss", required_argument, NULL, O_TX_LOSS },
		{ "no-grh", no_argument, NULL, O_NO_GRH },  { "bad-rkey", no_argument, NULL, O_BAD_RKEY },
		{ "bad-va", no_argument, NULL, O_BAD_VA },  { "retry-cnt", required_argument, NULL, O_RETRY_CNT },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	static const char *const transports[] = { "rc", "ud" };
	bool size_set = false, op_set = false;
	uint64_t v;
	int c, t;

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
			t = cli_arg_choice("peer", "--transport", optarg, transports, sizeof(transports) / sizeof(transports[0]));
			if (t < 0)
				return false;
			o->ud = t == 1;
			break;
		case 'S':
			if (!cli_arg_u64("peer", "--size", optarg, 1, 1u << 30, NULL, &v))
				return false;
			o->size = (uint32_t)v;
			size_set = true;
			break;
		case 'n':
			if (!cli_arg_u64("peer", "--iters", optarg, 1, 100000000, NULL, &v))
				return false;
			o->iters = (uint32_t)v;
			break;
		case 'm':
			o->mtu = peer_mtu(optarg);
			if (!o->mtu) {
				cli_error("peer", "--mtu wants 256, 512, 1024, 2048 or 4096, not '%s'", optarg);
				return false;
			}
			break;
		case 'w':
			if (!cli_arg_u64("peer", "--window", optarg, 1, 1024, NULL, &v))
				return false;
			o->window = (uint32_t)v;
			break;
		case 'p':
			if (!cli_arg_u64("peer", "--port", optarg, 1, 65535, NULL, &v))
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
			if (!cli_arg_u64("peer", "--gid-index", optarg, 0, 255, NULL, &v))
				return false;
			o->gid_index = (int)v;
			break;
		case O_LOSS:
			if (!peer_rate("--loss", optarg, &o->loss))
				return false;
			break;
		case O_TX_LOSS:
			if (!peer_rate("--tx-loss", optarg, &o->tx_loss))
				return false;
			break;
		case O_SEED:
			if (!cli_arg_u64("peer", "--seed", optarg, 0, UINT64_MAX, NULL, &o->seed))
				return false;
			break;
		case O_QPN:
			/* QPs 0 and 1 are the management QPs (IBA 3.5.1). */
			if (!cli_arg_u64("peer", "--qpn", optarg, 2, 0xffffff, NULL, &v))
				return false;
			o->qpn = (uint32_t)v;
			break;
		case O_TIMEOUT:
			if (!cli_arg_u64("peer", "--timeout", optarg, 1, 3600, NULL, &v))
				return false;
			o->timeout_s = (uint32_t)v;
			break;
		case O_BUSY: o->busy_poll = true; break;
		case O_JSON: o->json = true; break;
		case O_CM: o->cm = true; break;
		case O_NO_GRH: o->no_grh = true; break;
		case O_BAD_RKEY: o->bad_rkey = true; break;
		case O_BAD_VA: o->bad_va = true; break;
		case O_RETRY_CNT:
			/* A 3-bit field (IBA 9.7.6.1.3). */
			if (!cli_arg_u64("peer", "--retry-cnt", optarg, 0, 7, NULL, &v))
				return false;
			o->retry_cnt = (uint8_t)v;
			o->retry_set = true;
			break;
		case O_COMPAT:
			if (!strcmp(optarg, "rping") || !strcmp(optarg, "ucmatose") || !strcmp(optarg, "udaddy")) {
				cli_error("peer", "--compat %s takes %s's flags: write it as '--compat %s'", optarg, optarg, optarg);
				return false;
			}
			if (strcmp(optarg, "pingpong")) {
				cli_error("peer", "--compat knows four tools: pingpong (ibv_rc_pingpong, ibv_ud_pingpong), rping, "
					  "ucmatose and udaddy");
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
	if ((o->bad_rkey || o->bad_va) && (o->server || o->ud || o->compat || o->cm || peer_sends(o->op))) {
		cli_error("peer", "--bad-rkey and --bad-va aim the client's RDMA WRITE, READ or atomics at the "
			  "server's buffer (RC, rocelab's exchange): a SEND carries no R_Key or address");
		return false;
	}
	return peer_defaults(o, size_set, op_set);
}

/* Did standard output reach its file (not so on a full disk)? Else say so, and exit CLI_ERR. */
static int peer_output_written(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("peer", "cannot write the output");
		return CLI_ERR;
	}
	return rc;
}

/* Our options, or a tool's own after --compat rping, ucmatose or udaddy. */
static bool peer_parse_any(int argc, char **argv, struct peer_opts *o, int *rc)
{
	bool ud;

	if (peer_rping_asked(argc, argv))
		return peer_rping_parse(argc, argv, o, rc);
	if (peer_cmatose_asked(argc, argv, &ud))
		return peer_cmatose_parse(argc, argv, ud, o, rc);
	return peer_parse(argc, argv, o, rc);
}

int cli_peer(int argc, char **argv)
{
	struct peer p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.net.tcp = p.net.rx = p.net.hold = -1;
	p.conn.qkey = PEER_QKEY;
	if (!peer_parse_any(argc, argv, &p.o, &rc))
		return peer_output_written(rc);
	p.net.rng = p.o.seed;
	p.net.tx_rng = p.o.seed ^ 0x5bd1e9955bd1e995ull;
	rc = p.o.rping ? peer_rping_run(&p) : p.o.cmatose ? peer_cmatose_run(&p) : peer_run(&p);
	peer_close(&p);
	return peer_output_written(rc);
}
