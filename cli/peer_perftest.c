/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer --compat ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw,
 * ib_send_lat, ib_write_lat, ib_read_lat: perftest (linux-rdma/perftest,
 * 4.5+0.17 as Debian 12 ships it, which calls itself version 6.06) at the
 * other end, its flags, its out-of-band exchange, its test loops and its
 * output, on the reference transport.
 *
 * The exchange is perftest's "Ethernet" one: a TCP connection to port 18515,
 * the client writes first at every step, the server reads first.
 *   version   16 bytes, "6.06" and NULs; the other side's must be 5.70 or later
 *   sys data  the cycle buffer (page size) and the cache line size, 4 bytes each,
 *             big-endian; both sides take the larger
 *   MTU       2 bytes, "%d" of the port's MTU enum (3 is 1024) and its NUL; both
 *             use the smaller
 *   keys      108 bytes, "LID:OUT_READS:QPN:PSN:RKEY:VADDR:g0:...:g15:SRQN:" in hex
 *             (%04x:%04x:%06x:%06x:%08x:%016llx, 16 x %02x, %08x) and a NUL: the
 *             key message of perftest_communication.c, sent again at each
 *             synchronisation point ("hand shake") of the tool
 *   reports   ib_write_bw, ib_read_bw, ib_atomic_bw: the client's results for
 *             the server to print: size and iterations (8 bytes each,
 *             big-endian), BW peak, BW average and message rate (IEEE doubles,
 *             big-endian)
 *   done      5 bytes, "done" and its NUL, at the close (not ib_write_lat)
 * Each tool has its own sequence of hand shakes (struct pt_tool). perftest
 * exchanges no test parameters: both ends must be given the same -s and -n
 * (and -R, -a, -D). With -R the same exchange goes as SENDs on a QP of its
 * own, connected by rdma_cm like the test's QP (the -R section below).
 * -q N (the BW tools' num_of_qps): N data QPs. The hand shakes that carry
 * the keys are made once per QP, in order (each QP connects to the other
 * side's of the same index); the others once, with QP 0's keys. -n runs on
 * each QP, so both tables count N times -n; with -R each data QP has its
 * own rdma_cm connection.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "json.h"
#include "peer.h"
#include "rocelab/hdr.h"

#define PT_VERSION "6.06"           /* what Debian 12's perftest (4.5+0.17) calls itself */
#define PT_VERSION_LEN 16           /* perftest's MAX_VERSION */
#define PT_MIN_VERSION 5.70         /* check_version_compatibility() */
#define PT_KEY_LEN 108              /* KEY_MSG_SIZE_GID */
#define PT_KEY_FIELDS 23            /* LID, OUT_READS, QPN, PSN, RKEY, VADDR, 16 GID bytes, SRQN */
#define PT_MTU_LEN 2                /* check_mtu(): sizeof(char[2]) from version 5.31 */
#define PT_REPORT_LEN 40            /* xchg_bw_reports(): size, iters, peak, average, message rate */
#define PT_PAGE 4096                /* the cycle buffer: DEF_PAGE_SIZE */
#define PT_CACHE_LINE 64            /* DEF_CACHE_LINE_SIZE */
#define PT_OUT_READS 128            /* what rxe's max_qp_rd_atom gives perftest (OUT 0x80) */
#define PT_MIN_ITERS 5              /* MIN_ITER */
#define PT_LAT_TAIL 2               /* LAT_MEASURE_TAIL: the slowest samples left out */
#define PT_CQ_MOD_SIZE_LIMIT 8192   /* MSG_SIZE_CQ_MOD_LIMIT: larger messages, no CQ moderation */
#define PT_UD_RECVS 4096            /* UD: receives this side keeps posted at least */
#define PT_DEF_RX_SEND 512          /* DEF_RX_SEND */
#define PT_UC_MAX_RX 16000          /* UC_MAX_RX */
#define PT_DUR_DRAIN_MS 1000        /* -D: the other side's clock ends later, and perftest's latency loops post
				     * one more message then (ib_write_lat): the wire served until quiet so long */
#define PT_MIN_QP_NUM 1              /* -q: MIN_QP_NUM .. MAX_QP_NUM */
#define PT_MAX_QP_NUM 16384
#define PT_LINE "---------------------------------------------------------------------------------------\n"

enum pt_verb { PT_SEND, PT_WRITE, PT_READ, PT_ATOMIC };  /* perftest's enum, in its order */
static const char *const pt_verb_names[] = { "Send", "RDMA_Write", "RDMA_Read", "Atomic" };

/*
 * A tool: its verb, BW or latency, and where its main() hand shakes. All
 * exchange keys, connect the QP, hand shake before printing the remote key
 * and once more before the test; the rest differs (struct fields).
 */
struct pt_tool {
	const char *name;
	enum pt_verb verb;
	bool lat;
	bool ud_ok;          /* -c UD: perftest allows it for SEND only */
	bool uc_ok;          /* -c UC: SEND and WRITE (no READ, no atomics on UC: IBA 9.7.4) */
	bool pcie_ro;        /* the "PCIe relax order" line says ON (ib_write_lat's says OFF) */
	bool shake_first;    /* one hand shake before the one whose keys are used (ib_write_lat, ib_read_lat) */
	bool shake_at_rts;   /* one right after the QP is connected (ib_send_bw, ib_send_lat) */
	bool reports;        /* the client's results go to the server, which prints them */
	bool close;          /* ctx_close_connection(): one more hand shake, and "done" */
};

static const struct pt_tool pt_tools[] = {
	{ "ib_send_bw", PT_SEND, false, true, true, true, false, true, false, true },
	{ "ib_write_bw", PT_WRITE, false, false, true, true, false, false, true, true },
	{ "ib_read_bw", PT_READ, false, false, false, true, false, false, true, true },
	{ "ib_atomic_bw", PT_ATOMIC, false, false, false, true, false, false, true, true },
	{ "ib_send_lat", PT_SEND, true, true, true, true, false, true, false, true },
	{ "ib_write_lat", PT_WRITE, true, false, true, false, true, false, false, false },
	{ "ib_read_lat", PT_READ, true, false, false, true, true, false, false, true },
};
#define PT_NTOOLS (sizeof(pt_tools) / sizeof(pt_tools[0]))

/* perftest's struct pingpong_dest, as the key message carries it. */
struct pt_dest {
	uint32_t lid, out_reads, qpn, psn, rkey, srqn;
	uint64_t vaddr;
	uint8_t gid[16];
};

/* What one run keeps: the tool, both ends' keys, the buffer, the times perftest records. */
struct pt_run {
	const struct pt_tool *tool;
	struct pt_dest me, them;
	uint32_t cycle_buffer, cache_line;
	uint8_t *buf;
	size_t half;            /* the buffer: what this side sends at 0, what arrives at @half */
	uint64_t *posted, *completed;  /* perftest's tposted[], tcompleted[] (ns) */
	uint64_t sends_out, recvs_posted;
	uint64_t sent, received;        /* the latency tests' completions of each kind, all told */
	struct { uint64_t size, iters; double peak, avg, rate; } rep;  /* the BW result, ours or the client's */
	uint64_t t0, t1, t_end;         /* -D: the sample's start and end, the test's end (ns) */
	uint64_t dur_iters;             /* -D: completions in the sample */
	bool have_rep;
	/*
	 * -q N: the data QPs. QP 0 is p->verbs.qp with the keys r->me and r->them;
	 * QP q sends from r->buf + 2q * half and takes the other side's data at
	 * (2q + 1) * half. The work requests' wr_id is a count * N + q.
	 */
	uint32_t nqp;
	struct rl_qp **qps;             /* [0] is p->verbs.qp */
	struct pt_dest *mes, *thems;    /* each QP's keys, both ends' ([0]: r->me, r->them) */
	uint64_t *rposted, *rdone;      /* each QP's receives posted and completed ([0]'s posted: recvs_posted) */
	uint64_t *scnt, *ccnt;          /* the BW client's: each QP's work requests posted and completed */
};

static const struct pt_tool *pt_tool_of(const struct peer_opts *o)
{
	return &pt_tools[o->pt.tool];
}

/* QP @q's halves of the buffer: what it sends, where the other side's data comes. */
static uint8_t *pt_tx_buf(const struct pt_run *r, uint32_t q)
{
	return r->buf + 2 * (size_t)q * r->half;
}

static uint8_t *pt_rx_buf(const struct pt_run *r, uint32_t q)
{
	return r->buf + (2 * (size_t)q + 1) * r->half;
}

/* ---- the options -------------------------------------------------------------------------------- */

bool peer_perftest_asked(int argc, char **argv, unsigned *tool)
{
	for (int i = 1; i < argc; i++) {
		const char *name = NULL;

		if (!strcmp(argv[i], "--compat") && i + 1 < argc)
			name = argv[i + 1];
		else if (!strncmp(argv[i], "--compat=", 9))
			name = argv[i] + 9;
		for (unsigned t = 0; name && t < PT_NTOOLS; t++)
			if (!strcmp(name, pt_tools[t].name)) {
				*tool = t;
				return true;
			}
	}
	return false;
}

/* perftest's own flags that rocelab does not do: refused by name. */
static bool pt_refused(int c)
{
	switch (c) {
	case 'b':
		cli_error("peer", "-b (bidirectional) is not supported: one side sends, as perftest's default");
		return false;
	}
	return false;
}

/*
 * -q N (num_of_qps): N data QPs, for the BW tools only; the latency tools
 * refuse more than one with perftest's parser's words.
 */
static bool pt_qps_flag(struct peer_opts *o, const char *arg)
{
	uint64_t v;

	if (!cli_arg_u64("peer", "-q", arg, PT_MIN_QP_NUM, PT_MAX_QP_NUM, NULL, &v))
		return false;
	if (v > 1 && pt_tools[o->pt.tool].lat) {
		fprintf(stderr, " Multiple QPs only available on bw tests\n");
		cli_error("peer", "%s: -q %" PRIu64 ": one QP only (perftest's latency tests run one)",
			  pt_tools[o->pt.tool].name, v);
		return false;
	}
	o->qps = (uint32_t)v;
	return true;
}

/* One of perftest's flags; false (with a message) if it is refused. */
static bool pt_flag(struct peer_opts *o, int c, const char *arg)
{
	static const char *const conns[] = { "RC", "UC", "UD" };
	uint64_t v;
	int t;

	switch (c) {
	case 'd':
		/* perftest names the RDMA device (rxe0); rocelab has none: an interface name is taken as --interface. */
		if (!*arg || strlen(arg) >= IF_NAMESIZE) {
			cli_error("peer", "-d wants a device or interface name, not '%s'", arg);
			return false;
		}
		o->pt.dev = arg;
		return true;
	case 'x':
		if (!cli_arg_u64("peer", "-x", arg, 0, 255, NULL, &v))
			return false;
		o->gid_index = (int)v;
		return true;
	case 's':
		if (!cli_arg_u64("peer", "-s", arg, 1, 1u << 30, NULL, &v))
			return false;
		o->size = (uint32_t)v;
		o->pt.size_set = true;
		return true;
	case 'n':
		if (!cli_arg_u64("peer", "-n", arg, PT_MIN_ITERS, 100000000, NULL, &v))
			return false;
		o->iters = (uint32_t)v;
		return true;
	case 'c':
		t = cli_arg_choice("peer", "-c", arg, conns, sizeof(conns) / sizeof(conns[0]));
		if (t < 0)
			return false;
		o->uc = t == 1;
		o->ud = t == 2;
		return true;
	case 't':
		if (!cli_arg_u64("peer", "-t", arg, 1, 8192, NULL, &v))
			return false;
		o->window = (uint32_t)v;
		return true;
	case 'r':
		if (!cli_arg_u64("peer", "-r", arg, 1, 16384, NULL, &v))
			return false;
		o->pt.rx_depth = (uint32_t)v;
		return true;
	case 'Q':
		if (!cli_arg_u64("peer", "-Q", arg, 1, 1024, NULL, &v))
			return false;
		o->pt.cq_mod = (uint32_t)v;
		o->pt.cq_mod_set = true;
		return true;
	case 'm':
		if (!cli_parse_u64(arg, UINT32_MAX, &v) || !rl_mtu_from_bytes(v)) {
			cli_error("peer", "-m wants 256, 512, 1024, 2048 or 4096, not '%s'", arg);
			return false;
		}
		o->mtu = rl_mtu_from_bytes(v);
		return true;
	case 'p':
		if (!cli_arg_u64("peer", "-p", arg, 1, 65535, NULL, &v))
			return false;
		o->port = (uint16_t)v;
		return true;
	case 'i':
		if (!cli_arg_u64("peer", "-i", arg, 1, 1, "1 (a Soft-RoCE device has one port)", &v))
			return false;
		return true;
	case 'q':
		return pt_qps_flag(o, arg);
	case 'F':
		return true;   /* perftest: do not fail on a CPU frequency that varies; nothing to check here */
	case 'R':
		o->pt.rdma_cm = true;
		return true;
	case 'a':
		o->all_sizes = true;
		return true;
	case 'D':
		if (!cli_arg_u64("peer", "-D", arg, 1, 86400, NULL, &v))
			return false;
		o->duration_s = (uint32_t)v;
		return true;
	}
	return pt_refused(c);
}

/* -q N with the rest: the Ethernet exchange (RC, UC, UD) and -R's RC connections, one each. */
static bool pt_check_qps(struct peer_opts *o)
{
	if (!o->qps)
		o->qps = 1;
	if (o->qps > 1 && o->pt.rdma_cm && o->ud) {
		cli_error("peer", "-q %u with -R and -c UD is not supported yet: -R -q N connects RC QPs", o->qps);
		return false;
	}
	return true;
}

/* What the flags mean together, as perftest's force_dependecies() sees them. */
static bool pt_check_opts(struct peer_opts *o, int argc, char **argv)
{
	const struct pt_tool *t = pt_tool_of(o);

	if (optind < argc - 1) {
		cli_error("peer", "unexpected argument '%s': perftest takes one, the server's address", argv[optind + 1]);
		return false;
	}
	if (optind < argc) {
		if (!peer_addr_arg("the server address", argv[optind], &o->ipv6))
			return false;
		o->addr = argv[optind];
	}
	o->server = !o->addr;
	if (o->ud && !t->ud_ok) {
		cli_error("peer", "%s: -c UD carries SEND only (perftest allows UD for ib_send_bw and ib_send_lat)",
			  t->name);
		return false;
	}
	if (o->uc && !t->uc_ok) {
		cli_error("peer", "%s: -c UC has no RDMA READ and no atomics (IBA 9.7.4): RC only", t->name);
		return false;
	}
	if (o->pt.rdma_cm && o->uc) {
		/* force_dependecies(): " UC is not supported in librdmacm" */
		cli_error("peer", "-R with -c UC: UC is not supported in librdmacm (perftest refuses it too)");
		return false;
	}
	if (!pt_check_qps(o))
		return false;
	if (o->duration_s && o->all_sizes) {
		fprintf(stderr, "Duration mode currently doesn't support running on all sizes.\n");
		cli_error("peer", "-D and -a: perftest runs one or the other");
		return false;
	}
	if (o->all_sizes && t->verb == PT_ATOMIC) {
		/* force_dependecies(): -a makes the size MAX_SIZE, and then */
		fprintf(stderr, "Message size cannot be changed for Atomic tests \n");
		cli_error("peer", "ib_atomic_bw works on 8 bytes: no -a");
		return false;
	}
	if (t->verb == PT_ATOMIC && o->pt.size_set && o->size != 8) {
		cli_error("peer", "ib_atomic_bw works on 8 bytes: -s 8 or no -s");
		return false;
	}
	if (!o->pt.size_set)
		o->size = t->verb == PT_ATOMIC ? 8 : t->lat ? 2 : 65536;
	if (!o->iters)
		o->iters = !t->lat && t->verb == PT_WRITE ? 5000 : 1000;
	if (!o->window)
		o->window = t->lat ? 1 : 128;
	if (o->window > o->iters)
		o->window = o->iters;
	if (!o->pt.rx_depth)
		o->pt.rx_depth = t->verb == PT_SEND ? PT_DEF_RX_SEND : 1;
	if (t->verb == PT_SEND && o->pt.rx_depth > o->iters)
		o->pt.rx_depth = o->iters;
	/* UD and UC, nothing resent: room for every message, up to perftest's UC_MAX_RX */
	if ((o->ud || o->uc) && o->pt.rx_depth == PT_DEF_RX_SEND)
		o->pt.rx_depth = o->iters < PT_UC_MAX_RX ? o->iters : PT_UC_MAX_RX;
	/* perftest's "WA for a bug when rx_depth is odd in SEND" */
	if (t->verb == PT_SEND && o->pt.rx_depth % 2)
		o->pt.rx_depth++;
	if (!o->pt.cq_mod)
		o->pt.cq_mod = 100;
	/* CQ moderation off for large messages, but not with -a (perftest: its one value serves every size) */
	if (o->size > PT_CQ_MOD_SIZE_LIMIT && !o->ud && !o->pt.cq_mod_set && !o->all_sizes)
		o->pt.cq_mod = 1;
	/* -a: every size up to MAX_SIZE, whatever -s said (perftest's force_dependecies()) */
	if (o->all_sizes) {
		o->size = PEER_ALL_MAX;
		o->pt.size_set = false;
	}
	if (o->pt.cq_mod > o->window)
		o->pt.cq_mod = o->window;
	if (!o->seed)
		o->seed = 1;
	return true;
}

bool peer_perftest_parse(int argc, char **argv, unsigned tool, struct peer_opts *o, int *rc)
{
	static const struct option lo[] = {
		PEER_COMPAT_LONGOPTS,
		{ "ib-dev", required_argument, NULL, 'd' },    { "gid-index", required_argument, NULL, 'x' },
		{ "size", required_argument, NULL, 's' },      { "iters", required_argument, NULL, 'n' },
		{ "connection", required_argument, NULL, 'c' }, { "tx-depth", required_argument, NULL, 't' },
		{ "rx-depth", required_argument, NULL, 'r' },  { "cq-mod", required_argument, NULL, 'Q' },
		{ "mtu", required_argument, NULL, 'm' },       { "port", required_argument, NULL, 'p' },
		{ "ib-port", required_argument, NULL, 'i' },   { "qp", required_argument, NULL, 'q' },
		{ "all", no_argument, NULL, 'a' },             { "duration", required_argument, NULL, 'D' },
		{ "rdma_cm", no_argument, NULL, 'R' },         { "bidirectional", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },            { NULL, 0, NULL, 0 },
	};
	int c;

	peer_opts_init(o);
	o->perftest = true;
	o->pt.tool = tool;
	o->port = PEER_TCP_PORT;
	*rc = CLI_ERR;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:x:s:n:c:t:r:Q:m:p:i:q:FaD:Rbh", lo, NULL)) != -1) {
		if (c == 'h') {
			peer_usage(stdout);
			*rc = CLI_OK;
			return false;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "Try 'rocelab peer --help'.\n");
			return false;
		}
		if (!(c >= 256 ? peer_compat_flag(o, c, optarg) : pt_flag(o, c, optarg)))
			return false;
	}
	if (o->pt.dev && !o->ifname && if_nametoindex(o->pt.dev))
		o->ifname = o->pt.dev;
	else if (o->pt.dev && !o->ifname && !o->json)
		fprintf(stderr, "rocelab peer: note: -d %s is not a network interface here: rocelab has no RDMA device "
			"and uses the interface that faces the other side (--interface IF, or -d IF, to choose)\n",
			o->pt.dev);
	return pt_check_opts(o, argc, argv);
}

/* ---- time ---------------------------------------------------------------------------------------- */

static bool pt_expired(const struct peer *p, uint64_t start)
{
	return peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u;
}

/* ---- -R: the exchange on a QP of its own, connected by rdma_cm ------------------------------------- */
/*
 * perftest -R (work_rdma_cm, which turns use_rdma_cm on too): create_comm_struct()
 * makes a communication QP (RC, a send and a receive queue one deep) and
 * establish_connection() connects it through rdma_cm to the port (18515,
 * RDMA_PS_TCP) instead of opening the TCP socket. Each exchange of the
 * Ethernet method then goes as one SEND on it, the same sizes in the same
 * order (ctx_xchg_data_rdma(): 16, 4, 4, 2, the reports' 8s), with one
 * receive posted at a time (post_one_recv_wqe(), before the connection and
 * again after each read). The keys go in binary (rdma_write_keys()):
 * struct pingpong_dest, 56 bytes, big-endian:
 *   lid, out_reads, qpn, psn, rkey (4 each), 4 bytes of padding, vaddr (8),
 *   the GID (16), srqn, gid_index (4 each; the reader takes neither).
 * create_rdma_cm_connection() connects the data QP through a second rdma_cm
 * connection to the same port: a hand shake before it (the server listens
 * anew after it; a client too early is refused with REJ reason 8 and tries
 * again, 10 times 100 ms apart) and one after it, both with the keys still
 * zero. The test's own hand shakes follow as without -R, but ctx_connect()
 * is the CM's. At the close no "done": the client's DREQ ends the data
 * connection, the server's (its rdma_destroy_id()) the communication one.
 *
 * -c UD: the communication QP stays RC (RDMA_PS_TCP); the data QP's
 * "connection" is Service ID Resolution (IBA 12.11) in RDMA_PS_UDP, the
 * same port: the client's SIDR_REQ, the server's SIDR_REP with its QPN
 * and Q_Key (rdma_cm's RDMA_UDP_QKEY), which the client's SENDs then
 * carry. A client too early finds no service (SIDR_REP status 1) and tries
 * again, as for REJ 8. ib_send_lat's server must send too, and learns
 * where from a SEND with immediate (4 bytes of the buffer, the client's
 * QPN as the immediate) that the client sends as soon as its SIDR_REP is
 * in, to a receive the server posted before its SIDR_REP
 * (rdma_cm_request_ud_connection_parameters(), _send_...()): the sender's
 * address, the immediate's QPN, the server's own Q_Key. A datagram has no
 * connection to end: the client's DREQ ends the communication one.
 */
#define PT_CM_KEY_LEN 56              /* sizeof(struct pingpong_dest) */
#define PT_CM_BUF 64                  /* a key at most; receives at 0, sends at PT_CM_BUF */
#define PT_CM_WR_ID 7                 /* perftest's SYNC_SPEC_ID */
#define PT_CM_TRIES 10                /* rdma_cm_client_connection()'s max_retries */
#define PT_CM_RETRY_NS 100000000ull   /* ... 100 ms apart */
#define PT_CM_RESOLVE_MS 2000         /* rdma_resolve_addr() / _route() timeouts, as perftest passes them */
#define PT_CM_REJ_NO_LISTENER 8       /* REJ reason: invalid service ID (IBA 12.6.7.2) */
#define PT_CM_REJ_CONSUMER 28         /* REJ reason: consumer reject (IBA 12.6.7.2) */
#define PT_CM_SIDR_NO_SERVICE 1       /* SIDR_REP status: service ID not supported (IBA 12.11.2) */
#define PT_CM_UD_WR_ID 0xff1d         /* -c UD, ib_send_lat: the SEND with immediate and its receive */
#define PT_CM_UD_IMM_LEN 4            /* ... its payload: sizeof(uint32_t) in perftest */
#define PT_CM_END_NS 1000000000ull    /* at the close: the wait for the other side's DREQ, or our DREP */
#define PT_CM_RD_ATOMIC 16            /* READs, atomics outstanding each way: perftest offers out_reads (128 on rxe),
				       * the reference QP takes 16 at most */

/* One of the two connections: its id and what its last event said. */
struct pt_cm_conn {
	struct rl_rdma_cm_id *id;
	unsigned events;                  /* how many came: a wait is for the next */
	enum rl_rdma_cm_event_type last;
	int status;
	bool disconnected;
	struct {                          /* -c UD: where the SENDs go (SIDR_REP's QPN and Q_Key, or the SEND with immediate's) */
		uint8_t dgid[16];
		uint32_t qpn, qkey;
	} ud;
};

/* -R's state: the connections, the server's listener, the communication QP and its buffer. */
struct peer_perftest {
	struct pt_cm_conn comm, data;
	struct rl_rdma_cm_id *listen;
	struct rl_rdma_cm_id *listen_ud;  /* -c UD: the data QP's listener, RDMA_PS_UDP */
	struct rl_rdma_cm_id **req;       /* server: CONNECT_REQUESTs not yet taken, in their order (nconn) */
	unsigned nreq, accepted;
	unsigned nconn;                   /* the connections: the communication QP's, a data QP's each (-q) */
	struct pt_cm_conn *more;          /* -q N: the data connections of QPs 1 .. N-1 */
	const char *other_c;              /* server: the data QP asked for with the other -c (refused) */
	struct rl_pd *pd;
	struct rl_cq *scq, *rcq;
	struct rl_qp *qp;
	struct rl_mr *mr;
	uint8_t *buf;
};

/* -q N: the data connection of QP 1 .. N-1 that @id is, or NULL. */
static struct pt_cm_conn *pt_cm_more_of(struct peer_perftest *c, const struct rl_rdma_cm_id *id)
{
	for (unsigned i = 0; id && i + 2 < c->nconn; i++)
		if (c->more[i].id == id)
			return &c->more[i];
	return NULL;
}

/* -R's state, for @nqp data QPs; NULL if out of memory. */
static struct peer_perftest *pt_cm_new(uint32_t nqp)
{
	struct peer_perftest *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nconn = 1 + nqp;
	c->req = calloc(c->nconn, sizeof(*c->req));
	c->more = calloc(nqp, sizeof(*c->more));
	if (!c->req || !c->more) {
		free(c->req);
		free(c->more);
		free(c);
		return NULL;
	}
	return c;
}

/*
 * The CM's events, each to its connection; a CONNECT_REQUEST is kept for
 * pt_cm_accept() (nconn at most: the communication QP's, to the RDMA_PS_TCP
 * listener, then a data QP's each, to the same one or to -c UD's RDMA_PS_UDP
 * one).
 */
static void pt_cm_take(struct peer *p)
{
	struct peer_perftest *c = p->perftest;
	struct rl_rdma_cm_event *ev;

	while ((ev = peer_cm_event(p))) {
		struct pt_cm_conn *k = ev->id == c->comm.id ? &c->comm : ev->id == c->data.id ? &c->data : NULL;
		unsigned n = c->nreq + c->accepted;

		if (!k)
			k = pt_cm_more_of(c, ev->id);
		if (ev->event == RL_RDMA_CM_EVENT_CONNECT_REQUEST) {
			if (p->o.server && n < c->nconn && ev->listen_id == (n == 1 && c->listen_ud ? c->listen_ud : c->listen))
				c->req[c->nreq++] = ev->id;
			else
				rl_rdma_reject(ev->id, NULL, 0);
			if (p->o.server && n == 1 && c->listen_ud && ev->listen_id == c->listen)
				c->other_c = "RC (a REQ in RDMA_PS_TCP)";   /* not the SIDR_REQ -c UD waits for */
		} else if (k) {
			k->events++;
			k->last = ev->event;
			k->status = ev->status;
			k->disconnected |= ev->event == RL_RDMA_CM_EVENT_DISCONNECTED;
			if (ev->event == RL_RDMA_CM_EVENT_ESTABLISHED) {
				memcpy(k->ud.dgid, ev->ud.ah_attr.dgid, 16);
				k->ud.qpn = ev->ud.qp_num;
				k->ud.qkey = ev->ud.qkey;
			}
		}
		rl_rdma_ack_cm_event(ev);
	}
}

static void pt_cm_step(struct peer *p)
{
	peer_pump(p, -1);
	pt_cm_take(p);
}

/*
 * The next event of @k: 0 if it is @want, 1 for a REJ of reason 8 or a
 * SIDR_REP of status 1 (nobody listens yet), -1 with a message for anything
 * else or nothing in --timeout.
 */
static int pt_cm_expect(struct peer *p, struct pt_cm_conn *k, enum rl_rdma_cm_event_type want)
{
	unsigned seen = k->events;
	uint64_t start = peer_now();

	while (k->events == seen) {
		if (p->net.failed)
			return -1;
		if (peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u) {
			cli_error("peer", "no %s within %u s (--timeout)", rl_rdma_event_str(want), p->o.timeout_s);
			return -1;
		}
		pt_cm_step(p);
	}
	if (k->last == want)
		return 0;
	if (k->last == RL_RDMA_CM_EVENT_REJECTED && k->status == PT_CM_REJ_NO_LISTENER)
		return 1;
	if (k->last == RL_RDMA_CM_EVENT_UNREACHABLE && k->status == PT_CM_SIDR_NO_SERVICE)
		return 1;
	if (k->last == RL_RDMA_CM_EVENT_REJECTED && k->status == PT_CM_REJ_CONSUMER) {
		cli_error("peer", "%s: the server refused the connection (REJ reason 28, consumer reject): with -R both ends "
			  "need the same tool and -c", rl_rdma_event_str(want));
		return -1;
	}
	if (k->last == RL_RDMA_CM_EVENT_UNREACHABLE)
		cli_error("peer", "%s: no answer from %s port %u (%s): is perftest's server (the tool with -R and no "
			  "address) running there?", rl_rdma_event_str(want), p->o.addr, p->o.port,
			  rl_rdma_event_str(k->last));
	else
		cli_error("peer", "%s: %s, status %d", rl_rdma_event_str(want), rl_rdma_event_str(k->last), k->status);
	return -1;
}

/* The conn_param of both connections: READs and atomics outstanding for those tools only; RNR retry 7. */
static void pt_cm_param(struct rl_rdma_conn_param *cp, uint8_t rd)
{
	memset(cp, 0, sizeof(*cp));
	cp->responder_resources = rd;
	cp->initiator_depth = rd;
	cp->retry_count = 7;   /* DEF_RETRY_COUNT */
	cp->rnr_retry_count = 7;
}

/* post_one_recv_wqe(): the communication QP's one receive. */
static int pt_cm_post_recv(struct peer *p)
{
	struct peer_perftest *c = p->perftest;
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PT_CM_WR_ID;
	wr.num_sge = 1;
	wr.sg_list[0].addr = (uintptr_t)c->buf;
	wr.sg_list[0].length = PT_CM_BUF;
	wr.sg_list[0].lkey = rl_mr_lkey(c->mr);
	if (rl_post_recv(c->qp, &wr)) {
		cli_error("peer", "post_recv (the exchange's QP): %s", rl_host_error(p->verbs.host));
		return -1;
	}
	return 0;
}

/*
 * Client: one connection (@comm: the communication QP, whose receive goes
 * up before the REQ; else the data QP's, SIDR with -c UD) to the server's
 * port; REJ 8 (SIDR_REP status 1) is tried again.
 */
static int pt_cm_connect(struct peer *p, struct pt_cm_conn *k, struct rl_qp *qp, uint8_t rd, bool comm)
{
	uint16_t ps = p->o.ud && !comm ? RL_RDMA_PS_UDP : RL_RDMA_PS_TCP;
	struct rl_rdma_addr src = { { 0 }, 0 }, dst = { { 0 }, p->o.port };
	struct rl_qp_attr reset = { .qp_state = RL_QPS_RESET };
	struct rl_rdma_conn_param cp;
	int r;

	memcpy(src.gid, p->conn.me.gid, 16);
	peer_addr_to_gid(&p->net.remote, dst.gid);
	pt_cm_param(&cp, rd);
	for (unsigned i = 1;; i++) {
		k->id = rl_rdma_create_id(p->cm.agent, p->perftest, ps);
		if (!k->id)
			return -1;
		r = rl_rdma_resolve_addr(k->id, &src, &dst, PT_CM_RESOLVE_MS) ? -1 :
		    pt_cm_expect(p, k, RL_RDMA_CM_EVENT_ADDR_RESOLVED);
		if (!r)
			r = rl_rdma_resolve_route(k->id, PT_CM_RESOLVE_MS) ? -1 :
			    pt_cm_expect(p, k, RL_RDMA_CM_EVENT_ROUTE_RESOLVED);
		if (!r && rl_rdma_attach_qp(k->id, qp)) {
			cli_error("peer", "rdma_create_qp: the QP would not move to INIT");
			r = -1;
		}
		if (!r && comm)
			r = pt_cm_post_recv(p);
		if (!r)
			r = rl_rdma_connect(k->id, &cp) ? -1 : pt_cm_expect(p, k, RL_RDMA_CM_EVENT_ESTABLISHED);
		if (r <= 0)
			return r;
		/* REJ 8: the server does not listen (yet): a new id, the QP back to RESET, 100 ms. */
		rl_rdma_destroy_id(k->id);
		k->id = NULL;
		rl_modify_qp(qp, &reset, RL_QP_STATE);
		if (i == PT_CM_TRIES && ps == RL_RDMA_PS_UDP) {
			cli_error("peer", "refused %u times: nobody listens at %s port %u in RDMA_PS_UDP (SIDR_REP status 1, "
				  "service ID not supported): start perftest's server (the tool with -R -c UD and no address) "
				  "there first", i, p->o.addr, p->o.port);
			return -1;
		}
		if (i == PT_CM_TRIES) {
			cli_error("peer", "rejected %u times: nobody listens at %s port %u (REJ reason 8, invalid service "
				  "ID): start perftest's server (the tool with -R and no address) there first", i, p->o.addr,
				  p->o.port);
			return -1;
		}
		for (uint64_t t = peer_now(); peer_now() - t < PT_CM_RETRY_NS;)
			pt_cm_step(p);
	}
}

/* -c UD, ib_send_lat's server: the receive for the client's SEND with immediate, in the data QP's receive half. */
static int pt_cm_ud_recv(struct peer *p)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PT_CM_UD_WR_ID;
	wr.num_sge = 1;
	wr.sg_list[0].addr = (uintptr_t)p->verbs.buf + p->verbs.buf_len / 2;
	wr.sg_list[0].length = PEER_UD_GRH + PT_CM_UD_IMM_LEN;
	wr.sg_list[0].lkey = rl_mr_lkey(p->verbs.mr);
	if (rl_post_recv(p->verbs.qp, &wr)) {
		cli_error("peer", "post_recv: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	return 0;
}

/* -c UD, ib_send_lat: the one completion of the SEND with immediate (@recv: its receive), in --timeout. */
static int pt_cm_ud_wc(struct peer *p, bool recv, struct rl_wc *wc)
{
	uint64_t start = peer_now();

	while (rl_poll_cq(p->verbs.cq, 1, wc) != 1) {
		if (p->net.failed)
			return -1;
		if (pt_expired(p, start)) {
			cli_error("peer", "%s within %u s (--timeout)", recv ? "no SEND with immediate from the client "
				  "(its QPN, perftest's UD -R set-up)" : "our SEND with immediate did not complete",
				  p->o.timeout_s);
			return -1;
		}
		pt_cm_step(p);
	}
	if (wc->status != RL_WC_SUCCESS || wc->wr_id != PT_CM_UD_WR_ID || (recv && !(wc->wc_flags & RL_WC_WITH_IMM))) {
		cli_error("peer", "the SEND with immediate of perftest's UD -R set-up: %s, wr_id %" PRIu64 "%s",
			  rl_wc_status_str(wc->status), wc->wr_id, recv && !(wc->wc_flags & RL_WC_WITH_IMM) ?
			  ", no immediate" : "");
		return -1;
	}
	return 0;
}

/*
 * -c UD, ib_send_lat, once the SIDR is done: the client SENDs the server
 * its QPN as the immediate, to the SIDR_REP's QPN and Q_Key; the server
 * takes it, with the sender's address and its own Q_Key, as where its
 * SENDs go.
 */
static int pt_cm_ud_lat(struct peer *p)
{
	struct pt_cm_conn *k = &p->perftest->data;
	struct rl_send_wr wr;
	struct rl_qp_attr a;
	struct rl_wc wc;

	if (p->o.server) {
		if (pt_cm_ud_wc(p, true, &wc))
			return -1;
		rl_query_qp(p->verbs.qp, &a);
		memcpy(k->ud.dgid, rl_rdma_id_dst(k->id)->gid, 16);   /* whence the SIDR_REQ came, and the SEND */
		k->ud.qpn = wc.imm_data;
		k->ud.qkey = a.qkey;
		return 0;
	}
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PT_CM_UD_WR_ID;
	wr.opcode = RL_WR_SEND_WITH_IMM;
	wr.send_flags = RL_SEND_SIGNALED;
	wr.imm_data = rl_qp_num(p->verbs.qp);
	wr.num_sge = 1;
	wr.sg_list[0].addr = (uintptr_t)p->verbs.buf;
	wr.sg_list[0].length = PT_CM_UD_IMM_LEN;
	wr.sg_list[0].lkey = rl_mr_lkey(p->verbs.mr);
	memcpy(wr.ud.dgid, k->ud.dgid, 16);
	wr.ud.remote_qpn = k->ud.qpn;
	wr.ud.remote_qkey = k->ud.qkey;
	if (rl_post_send(p->verbs.qp, &wr)) {
		cli_error("peer", "post_send: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	return pt_cm_ud_wc(p, false, &wc);
}

/* Server: the next CONNECT_REQUEST (the first is the communication QP's, the second the data QP's), accepted. */
static int pt_cm_accept(struct peer *p, struct pt_cm_conn *k, struct rl_qp *qp, uint8_t rd, bool comm)
{
	struct peer_perftest *c = p->perftest;
	struct rl_rdma_conn_param cp;
	uint64_t start = peer_now();
	int r;

	while (!c->nreq) {
		if (p->net.failed)
			return -1;
		if (c->other_c) {
			peer_drain(p, PEER_QUIET_MS);   /* the REJ sent, before we go */
			cli_error("peer", "the client asked for the data QP with %s, and this side has -c UD: with -R both ends "
				  "need the same -c", c->other_c);
			return -1;
		}
		if (peer_now() - start > (uint64_t)p->o.timeout_s * 1000000000u) {
			cli_error("peer", "no client's REQ for the %s QP within %u s (--timeout)", comm ? "exchange's" : "data",
				  p->o.timeout_s);
			return -1;
		}
		pt_cm_step(p);
	}
	if (comm)
		qp = c->qp;   /* made once the first frame came (pt_cm_server_up) */
	k->id = c->req[0];
	memmove(c->req, c->req + 1, (c->nconn - 1) * sizeof(*c->req));
	c->nreq--;
	c->accepted++;
	if (rl_rdma_attach_qp(k->id, qp)) {
		cli_error("peer", "rdma_create_qp: the QP would not move to INIT");
		return -1;
	}
	if (comm && pt_cm_post_recv(p))
		return -1;
	if (!comm && p->o.ud && pt_tool_of(&p->o)->lat && pt_cm_ud_recv(p))
		return -1;
	pt_cm_param(&cp, rd);
	if ((r = rl_rdma_accept(k->id, &cp))) {
		cli_error("peer", "rdma_accept: %s", r == -EINVAL ? "the QP would not move to RTS" : strerror(-r));
		return -1;
	}
	return 0;
}

/* The communication QP: its PD, CQs, buffer and QP (RC, one deep), on the host made for the CM. */
static int pt_cm_objects(struct peer *p)
{
	struct peer_perftest *c = p->perftest;
	struct rl_qp_init_attr ia = { .qp_type = RL_QPT_RC, .max_send_wr = 1, .max_recv_wr = 1 };

	c->pd = rl_alloc_pd(p->verbs.host);
	c->scq = rl_create_cq(p->verbs.host, 2);
	c->rcq = rl_create_cq(p->verbs.host, 2);
	c->buf = calloc(2, PT_CM_BUF);
	if (!c->pd || !c->scq || !c->rcq || !c->buf)
		return -1;
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	c->qp = rl_create_qp(c->pd, &ia);
	c->mr = rl_reg_mr_iova(c->pd, c->buf, 2 * PT_CM_BUF, (uintptr_t)c->buf, RL_ACCESS_LOCAL_WRITE);
	return c->qp && c->mr ? 0 : -1;
}

/* Server, once the first frame says which address is ours: the host, the agent, the listener, the QP. */
static int pt_cm_server_up(struct peer *p)
{
	struct peer_perftest *c = p->perftest;
	struct rl_rdma_addr any = { { 0 }, p->o.port };

	if (peer_pick_gid(p) || peer_pick_mtu(p) || peer_host_new(p) || peer_cm_agent(p))
		return -1;
	if (pt_cm_objects(p)) {
		cli_error("peer", "cannot set up the exchange's QP: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	c->listen = rl_rdma_create_id(p->cm.agent, c, RL_RDMA_PS_TCP);
	if (!c->listen || rl_rdma_bind_addr(c->listen, &any) || rl_rdma_listen(c->listen, (int)c->nconn)) {
		cli_error("peer", "cannot listen on rdma_cm port %u", p->o.port);
		return -1;
	}
	/* -c UD: the data QP's SIDR_REQ comes to the same port in RDMA_PS_UDP (listening from now on, none is refused). */
	if (!p->o.ud)
		return 0;
	c->listen_ud = rl_rdma_create_id(p->cm.agent, c, RL_RDMA_PS_UDP);
	if (!c->listen_ud || rl_rdma_bind_addr(c->listen_ud, &any) || rl_rdma_listen(c->listen_ud, 1)) {
		cli_error("peer", "cannot listen on rdma_cm port %u (RDMA_PS_UDP)", p->o.port);
		return -1;
	}
	return 0;
}

/* establish_connection() with -R: the communication QP connected (client) or accepted (server). */
static int pt_cm_open(struct peer *p)
{
	struct peer_perftest *c = p->perftest;

	if (p->o.server) {
		p->net.family = p->o.ipv6 ? AF_INET6 : AF_INET;
		memset(&p->net.local, 0, sizeof(p->net.local));
		p->net.local.sa.sa_family = (sa_family_t)p->net.family;
		p->cm.up = pt_cm_server_up;
		if (peer_rx_sockets(p))
			return -1;
		if (!p->o.json)
			fprintf(stderr, "rocelab peer: waiting for a client's REQ on rdma_cm port %u (service ID %#018"
				PRIx64 ")\n", p->o.port, rl_cm_service_id(RL_RDMA_PS_TCP, p->o.port));
		return pt_cm_accept(p, &c->comm, NULL, 0, true);
	}
	if (peer_parse_addr(p, p->o.addr, &p->net.remote) || peer_route_local(p) || peer_pick_gid(p) ||
	    peer_pick_mtu(p) || peer_rx_sockets(p) || peer_host_new(p) || peer_cm_agent(p))
		return -1;
	if (pt_cm_objects(p)) {
		cli_error("peer", "cannot set up the exchange's QP: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	return pt_cm_connect(p, &c->comm, c->qp, 0, true);
}

/* rdma_write_data(): @n bytes in one SEND, its completion awaited. */
static bool pt_cm_write(struct peer *p, const void *buf, size_t n)
{
	struct peer_perftest *c = p->perftest;
	uint64_t start = peer_now();
	struct rl_send_wr wr;
	struct rl_wc wc;

	memcpy(c->buf + PT_CM_BUF, buf, n);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PT_CM_WR_ID;
	wr.opcode = RL_WR_SEND;
	wr.num_sge = 1;
	wr.sg_list[0].addr = (uintptr_t)c->buf + PT_CM_BUF;
	wr.sg_list[0].length = (uint32_t)n;
	wr.sg_list[0].lkey = rl_mr_lkey(c->mr);
	wr.send_flags = RL_SEND_SIGNALED;
	if (rl_post_send(c->qp, &wr)) {
		cli_error("peer", "post_send (the exchange's QP): %s", rl_host_error(p->verbs.host));
		return false;
	}
	while (rl_poll_cq(c->scq, 1, &wc) != 1) {
		if (pt_expired(p, start) || c->comm.disconnected) {
			cli_error("peer", "the exchange's SEND of %zu bytes did not complete%s", n,
				  c->comm.disconnected ? ": the other side disconnected" : " (--timeout)");
			return false;
		}
		pt_cm_step(p);
	}
	if (wc.status != RL_WC_SUCCESS) {
		cli_error("peer", "the exchange's SEND completed with %s", rl_wc_status_str(wc.status));
		return false;
	}
	return true;
}

/* rdma_read_data(): the next SEND of the other side, which must be @n bytes; the receive posted again. */
static bool pt_cm_read(struct peer *p, void *buf, size_t n)
{
	struct peer_perftest *c = p->perftest;
	uint64_t start = peer_now();
	struct rl_wc wc;

	while (rl_poll_cq(c->rcq, 1, &wc) != 1) {
		if (c->comm.disconnected) {
			cli_error("peer", "the other side disconnected the exchange's QP (its own output says why)");
			return false;
		}
		if (pt_expired(p, start)) {
			cli_error("peer", "the other side said nothing for %u s (--timeout)", p->o.timeout_s);
			return false;
		}
		pt_cm_step(p);
	}
	if (wc.status != RL_WC_SUCCESS) {
		cli_error("peer", "the exchange's receive completed with %s", rl_wc_status_str(wc.status));
		return false;
	}
	if (wc.byte_len != n) {
		cli_error("peer", "the other side sent %u bytes where perftest's exchange has %zu: are both ends given "
			  "the same tool and flags (with -R)?", wc.byte_len, n);
		return false;
	}
	memcpy(buf, c->buf, n);
	return !pt_cm_post_recv(p);
}

/* rdma_write_keys(): struct pingpong_dest as the comment above says. */
static void pt_cm_key_fmt(const struct peer *p, const struct pt_dest *d, uint8_t b[PT_CM_KEY_LEN])
{
	memset(b, 0, PT_CM_KEY_LEN);
	if (!d)
		return;   /* create_rdma_cm_connection()'s hand shakes: the keys still zero */
	rl_put32(b, d->lid);
	rl_put32(b + 4, d->out_reads);
	rl_put32(b + 8, d->qpn);
	rl_put32(b + 12, d->psn);
	rl_put32(b + 16, d->rkey);
	rl_put64(b + 24, d->vaddr);
	memcpy(b + 32, d->gid, 16);
	rl_put32(b + 48, d->srqn);
	rl_put32(b + 52, (uint32_t)p->net.gid_index);
}

/* rdma_read_keys(): what it takes (not srqn, not gid_index). */
static void pt_cm_key_parse(const uint8_t b[PT_CM_KEY_LEN], struct pt_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->lid = rl_get32(b);
	d->out_reads = rl_get32(b + 4);
	d->qpn = rl_get32(b + 8);
	d->psn = rl_get32(b + 12);
	d->rkey = rl_get32(b + 16);
	d->vaddr = rl_get64(b + 24);
	memcpy(d->gid, b + 32, 16);
}

/* One side's end of a connection: @first sends the DREQ now; else the other's is awaited (then our own). */
static void pt_cm_end(struct peer *p, struct pt_cm_conn *k, bool first)
{
	uint64_t start = peer_now();
	bool theirs;

	if (!k->id)
		return;
	while (!first && !k->disconnected && peer_now() - start < PT_CM_END_NS)
		pt_cm_step(p);
	theirs = k->disconnected;
	/* After their DREQ: our DREP. Otherwise our DREQ, and its DREP awaited (DISCONNECTED). */
	if (rl_rdma_disconnect(k->id) || theirs)
		return;
	for (start = peer_now(); !k->disconnected && peer_now() - start < PT_CM_END_NS;)
		pt_cm_step(p);
}

/*
 * The close: the client ends the data connection, the server the
 * communication one, as perftest's two do. -c UD: no data connection to
 * end (rdma_cm_disconnect_nodes() skips UD), and the client, first to
 * destroy its ids, ends the communication one.
 */
static void pt_cm_close(struct peer *p)
{
	struct peer_perftest *c = p->perftest;

	if (p->o.ud) {
		pt_cm_end(p, &c->comm, !p->o.server);
	} else {
		pt_cm_end(p, &c->data, !p->o.server);
		for (unsigned i = 0; i + 2 < c->nconn; i++)
			pt_cm_end(p, &c->more[i], !p->o.server);
		pt_cm_end(p, &c->comm, p->o.server);
	}
	if (p->o.server)
		peer_cm_linger(p);
	else
		peer_drain(p, PEER_QUIET_MS);
}

static void pt_cm_free(struct peer *p)
{
	struct peer_perftest *c = p->perftest;

	if (!c)
		return;
	peer_cm_close(p);
	if (c->qp)
		rl_destroy_qp(c->qp);
	if (c->mr)
		rl_dereg_mr(c->mr);
	if (c->scq)
		rl_destroy_cq(c->scq);
	if (c->rcq)
		rl_destroy_cq(c->rcq);
	if (c->pd)
		rl_dealloc_pd(c->pd);
	free(c->buf);
	free(c->req);
	free(c->more);
	free(c);
	p->perftest = NULL;
}

/* ---- the exchange: TCP (-R: the SENDs above) -------------------------------------------------------- */

static bool pt_write(struct peer *p, const void *buf, size_t n)
{
	const uint8_t *b = buf;

	if (p->perftest)
		return pt_cm_write(p, buf, n);

	while (n) {
		ssize_t r = send(p->net.tcp, b, n, MSG_NOSIGNAL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/* Has @fd something to read (or hung up), within 100 ms? */
static bool pt_readable(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	return poll(&pf, 1, 100) > 0;
}

/* @n bytes from the other side; the wire is served meanwhile (its test may run while we wait). */
static bool pt_read(struct peer *p, void *buf, size_t n)
{
	uint8_t *b = buf;
	uint64_t start = peer_now();

	if (p->perftest)
		return pt_cm_read(p, buf, n);
	while (n) {
		ssize_t r;

		while (!(p->verbs.host ? peer_pump(p, p->net.tcp) : pt_readable(p->net.tcp)))
			if (pt_expired(p, start)) {
				cli_error("peer", "the other side said nothing for %u s (--timeout)", p->o.timeout_s);
				return false;
			}
		r = recv(p->net.tcp, b, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/* One exchange of @n bytes each way: the client writes first, the server reads first (ctx_xchg_data). */
static bool pt_xchg(struct peer *p, const void *mine, void *theirs, size_t n)
{
	if (!p->o.server)
		return pt_write(p, mine, n) && pt_read(p, theirs, n);
	return pt_read(p, theirs, n) && pt_write(p, mine, n);
}

static void pt_key_fmt(const struct pt_dest *d, char msg[PT_KEY_LEN])
{
	int n;

	memset(msg, 0, PT_KEY_LEN);
	n = snprintf(msg, PT_KEY_LEN, "%04x:%04x:%06x:%06x:%08x:%016" PRIx64 ":", d->lid, d->out_reads, d->qpn, d->psn,
		     d->rkey, d->vaddr);
	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, PT_KEY_LEN - (size_t)n, "%02x:", d->gid[i]);
	snprintf(msg + n, PT_KEY_LEN - (size_t)n, "%08x:", d->srqn);
}

static bool pt_key_parse(const char *msg, struct pt_dest *d)
{
	char copy[PT_KEY_LEN], *save = NULL, *tok, *end;
	uint64_t v[PT_KEY_FIELDS];
	int n = 0;

	memcpy(copy, msg, PT_KEY_LEN);
	copy[PT_KEY_LEN - 1] = '\0';
	for (tok = strtok_r(copy, ":", &save); tok && n < PT_KEY_FIELDS; tok = strtok_r(NULL, ":", &save)) {
		errno = 0;
		v[n++] = strtoull(tok, &end, 16);
		if (errno || *end)
			return false;
	}
	if (n != PT_KEY_FIELDS || v[2] > 0xffffff || v[3] > 0xffffff)
		return false;
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	for (int i = 0; i < 16; i++) {
		if (v[6 + i] > 0xff)
			return false;
		d->gid[i] = (uint8_t)v[6 + i];
	}
	d->srqn = (uint32_t)v[22];
	return true;
}

/* ctx_hand_shake(): our key message for theirs; @keep takes what it says. -R: @r NULL sends the keys zero. */
static int pt_hand_shake(struct peer *p, struct pt_run *r, bool keep)
{
	char mine[PT_KEY_LEN], theirs[PT_KEY_LEN];
	struct pt_dest d;

	if (p->perftest) {
		uint8_t bmine[PT_CM_KEY_LEN], btheirs[PT_CM_KEY_LEN];

		pt_cm_key_fmt(p, r ? &r->me : NULL, bmine);
		if (!pt_xchg(p, bmine, btheirs, PT_CM_KEY_LEN))
			return -1;
		pt_cm_key_parse(btheirs, &d);
		if (keep)
			r->them = d;
		return 0;
	}
	pt_key_fmt(&r->me, mine);
	if (!pt_xchg(p, mine, theirs, PT_KEY_LEN)) {
		cli_error("peer", "the other side closed the connection during perftest's exchange (its own output "
			  "says why)");
		return -1;
	}
	if (!pt_key_parse(theirs, &d)) {
		cli_error("peer", "the other side's key message is not perftest's: <%.*s>", PT_KEY_LEN, theirs);
		return -1;
	}
	if (keep)
		r->them = d;
	return 0;
}

/* exchange_versions(), check_version_compatibility(), check_sys_data(), check_mtu()'s exchange. */
static int pt_preamble(struct peer *p, struct pt_run *r, enum rl_mtu *their_mtu)
{
	char mine[PT_VERSION_LEN] = PT_VERSION, theirs[PT_VERSION_LEN + 1] = { 0 }, mtu[4] = { 0 }, rmtu[PT_MTU_LEN + 1] = { 0 };
	uint8_t sys[4], rsys[4];
	long m;

	if (!pt_xchg(p, mine, theirs, PT_VERSION_LEN)) {
		cli_error("peer", "the other side closed the connection before perftest's version exchange");
		return -1;
	}
	if (atof(theirs) < PT_MIN_VERSION) {
		cli_error("peer", "the other side says it is perftest version '%.16s': perftest wants 5.70 or later "
			  "(\"Current implementation is not compatible with versions older than 5.70\")", theirs);
		return -1;
	}
	r->cycle_buffer = PT_PAGE;
	r->cache_line = PT_CACHE_LINE;
	rl_put32(sys, PT_PAGE);
	if (!pt_xchg(p, sys, rsys, 4))
		return -1;
	if (rl_get32(rsys) > r->cycle_buffer && rl_get32(rsys) <= (1u << 24))
		r->cycle_buffer = rl_get32(rsys);
	rl_put32(sys, PT_CACHE_LINE);
	if (!pt_xchg(p, sys, rsys, 4))
		return -1;
	if (rl_get32(rsys) > r->cache_line && rl_get32(rsys) <= 4096)
		r->cache_line = rl_get32(rsys);
	snprintf(mtu, sizeof(mtu), "%d", (int)p->o.mtu);
	if (!pt_xchg(p, mtu, rmtu, PT_MTU_LEN))
		return -1;
	m = strtol(rmtu, NULL, 10);
	*their_mtu = m >= RL_MTU_256 && m <= RL_MTU_4096 ? (enum rl_mtu)m : 0;
	return 0;
}

/* ---- the verbs objects ---------------------------------------------------------------------------- */

/* Random bytes, as perftest fills its buffer (ib_write_lat's: zeros, its counter goes in the last byte). */
static void pt_fill(struct peer *p, uint8_t *b, size_t n)
{
	uint64_t x = p->o.seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
}

/* -q N: the arrays, and QPs 1 .. N-1 like QP 0 (@ia). */
static int pt_setup_qps(struct peer *p, struct pt_run *r, struct rl_qp_init_attr *ia)
{
	r->qps = calloc(r->nqp, sizeof(*r->qps));
	r->mes = calloc(r->nqp, sizeof(*r->mes));
	r->thems = calloc(r->nqp, sizeof(*r->thems));
	r->rposted = calloc(r->nqp, sizeof(*r->rposted));
	r->rdone = calloc(r->nqp, sizeof(*r->rdone));
	r->scnt = calloc(r->nqp, sizeof(*r->scnt));
	r->ccnt = calloc(r->nqp, sizeof(*r->ccnt));
	if (!r->qps || !r->mes || !r->thems || !r->rposted || !r->rdone || !r->scnt || !r->ccnt)
		return -1;
	r->qps[0] = p->verbs.qp;
	for (uint32_t q = 1; q < r->nqp; q++)
		if (!(r->qps[q] = rl_create_qp(p->verbs.pd, ia)))
			return -1;
	return 0;
}

/* Each QP's keys: QP 0's (r->me), with its own QPN, PSN and receive buffer. */
static void pt_keys_qps(const struct peer *p, struct pt_run *r)
{
	r->mes[0] = r->me;
	for (uint32_t q = 1; q < r->nqp; q++) {
		r->mes[q] = r->me;
		r->mes[q].qpn = rl_qp_num(r->qps[q]);
		r->mes[q].psn = (uint32_t)((p->o.seed + q) * 0x9e3779b97f4a7c15u >> 40);
		r->mes[q].vaddr = (uintptr_t)pt_rx_buf(r, q);
	}
}

/* Free what pt_setup_qps() made (QP 0 is p->verbs.qp's, destroyed with the rest). */
static void pt_free_qps(struct pt_run *r)
{
	for (uint32_t q = 1; r->qps && q < r->nqp; q++)
		if (r->qps[q])
			rl_destroy_qp(r->qps[q]);
	free(r->qps);
	free(r->mes);
	free(r->thems);
	free(r->rposted);
	free(r->rdone);
	free(r->scnt);
	free(r->ccnt);
}

static int pt_setup(struct peer *p, struct pt_run *r)
{
	const struct pt_tool *t = r->tool;
	struct rl_qp_init_attr ia = { .qp_type = p->o.ud ? RL_QPT_UD : p->o.uc ? RL_QPT_UC : RL_QPT_RC };
	unsigned access = RL_ACCESS_LOCAL_WRITE | RL_ACCESS_REMOTE_WRITE | RL_ACCESS_REMOTE_READ | RL_ACCESS_REMOTE_ATOMIC;
	size_t need = (size_t)p->o.size + PEER_UD_GRH;

	/* BUFF_SIZE(): a message or the cycle buffer, whichever is larger; twice, as perftest's own. */
	r->half = (need < r->cycle_buffer ? r->cycle_buffer : need + PT_PAGE - 1) / PT_PAGE * PT_PAGE;
	if (!p->verbs.host && peer_host_new(p))   /* -R: made for the CM already */
		return -1;
	p->verbs.pd = rl_alloc_pd(p->verbs.host);
	p->verbs.cq = rl_create_cq(p->verbs.host, (int)(r->nqp * (p->o.window + p->o.pt.rx_depth + PT_UD_RECVS) + 64));
	if (!p->verbs.pd || !p->verbs.cq)
		return -1;
	ia.send_cq = ia.recv_cq = p->verbs.cq;
	ia.max_send_wr = p->o.window + 8;
	ia.max_recv_wr = (p->o.ud && p->o.pt.rx_depth < PT_UD_RECVS ? PT_UD_RECVS : p->o.pt.rx_depth) + 8;
	p->verbs.qp = rl_create_qp(p->verbs.pd, &ia);
	r->buf = p->verbs.buf = aligned_alloc(PT_PAGE, 2 * r->nqp * r->half);
	if (!p->verbs.qp || !r->buf || pt_setup_qps(p, r, &ia))
		return -1;
	p->verbs.buf_len = 2 * r->nqp * r->half;
	memset(r->buf, 0, p->verbs.buf_len);
	if (!(t->verb == PT_WRITE && t->lat))
		pt_fill(p, r->buf, p->verbs.buf_len);
	/* Registered at its own address, as libibverbs does: perftest's VAddr is a pointer. */
	p->verbs.mr = rl_reg_mr_iova(p->verbs.pd, r->buf, p->verbs.buf_len, (uintptr_t)r->buf, access);
	if (!p->verbs.mr)
		return -1;
	p->conn.me.qpn = rl_qp_num(p->verbs.qp);
	/* lrand48() & 0xffffff in perftest: any 24-bit PSN */
	p->conn.me.psn = (uint32_t)(p->o.seed * 0x9e3779b97f4a7c15u >> 40);
	r->me.qpn = p->conn.me.qpn;
	r->me.psn = p->conn.me.psn;
	r->me.out_reads = PT_OUT_READS;
	r->me.rkey = rl_mr_rkey(p->verbs.mr);
	r->me.vaddr = (uintptr_t)r->buf + r->half;   /* where the other side's data goes: our second half */
	memcpy(r->me.gid, p->conn.me.gid, 16);
	pt_keys_qps(p, r);
	r->posted = calloc((size_t)p->o.iters * r->nqp, sizeof(uint64_t));
	r->completed = calloc((size_t)p->o.iters * r->nqp, sizeof(uint64_t));
	return r->posted && r->completed ? 0 : -1;
}

/* An IPv4-mapped GID (::ffff:a.b.c.d), what perftest calls an IPv4 GID. */
static bool pt_v4mapped(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}

/* ctx_check_gid_compatibility() and what rocelab needs of the other side's GID to send to it. */
static int pt_check_gid(struct peer *p, struct pt_run *r)
{
	static const uint8_t zero[16];
	char g[INET6_ADDRSTRLEN];
	union peer_addr a;
	bool mine4 = pt_v4mapped(r->me.gid), theirs4 = pt_v4mapped(r->them.gid);

	peer_gid_str(r->them.gid, g, sizeof(g));
	if (mine4 != theirs4) {
		fprintf(stderr, "\n Found Incompatibility issue with GID types.\n");
		fprintf(stderr, " Please Try to use a different IP version.\n\n");
		cli_error("peer", "the other side's GID %s is %s, this side's is %s: give both ends -x of the same "
			  "family (Soft-RoCE over IPv4: -x 1)", g, theirs4 ? "IPv4" : "IPv6", mine4 ? "IPv4" : "IPv6");
		return -1;
	}
	if (!memcmp(r->them.gid, zero, 16) || peer_gid_is_link_local(r->them.gid) ||
	    !peer_gid_family_ok(p, r->them.gid)) {
		cli_error("peer", "the other side sent GID %s, which is not an address this side can send to: give it "
			  "the GID index of its IP address (-x; Soft-RoCE over IPv4: usually -x 1)", g);
		return -1;
	}
	/* Ethernet exchange only: under -R the CM gave the path, taken as its MADs say (docs/peer-trust.md). */
	if (peer_gid_trusted(p, r->them.gid))
		return -1;
	peer_gid_to_addr(r->them.gid, p->net.family, &a);
	peer_addr_set_port(&a, PEER_ROCE_PORT);
	p->net.remote = a;
	memcpy(p->conn.them.gid, r->them.gid, 16);
	p->conn.them.qpn = r->them.qpn;
	p->conn.them.psn = r->them.psn;
	p->conn.remote_va = r->them.vaddr;
	p->conn.remote_rkey = r->them.rkey;
	return peer_tx_start(p);
}

/* ---- the output, as perftest prints it ------------------------------------------------------------ */

static void pt_print_test_info(const struct peer *p, const struct pt_run *r)
{
	const struct pt_tool *t = r->tool;
	const char *dev = p->o.pt.dev ? p->o.pt.dev : p->net.gids.ifname;

	if (p->o.json)
		return;
	printf(PT_LINE);
	printf("                    %s %s%s Test\n", pt_verb_names[t->verb], t->verb == PT_ATOMIC ? "FETCH_AND_ADD " : "",
	       t->lat ? "Latency" : "BW");
	printf(" Dual-port       : OFF\t\tDevice         : %s\n", dev);
	printf(" Number of qps   : %u\t\tTransport type : IB\n", r->nqp);
	printf(" Connection type : %s\t\tUsing SRQ      : OFF\n", p->o.ud ? "UD" : p->o.uc ? "UC" : "RC");
	printf(" PCIe relax order: %s\n", t->pcie_ro ? "ON" : "OFF");
	printf(" ibv_wr* API     : OFF\n");
	if (!p->o.server)
		printf(" TX depth        : %u\n", p->o.window);
	if (t->verb == PT_SEND && p->o.server)
		printf(" RX depth        : %u\n", p->o.pt.rx_depth);
	if (!t->lat)
		printf(" CQ Moderation   : %u\n", p->o.pt.cq_mod);
	printf(" Mtu             : %u[B]\n", rl_mtu_bytes(p->o.mtu));
	printf(" Link type       : Ethernet\n");
	printf(" GID index       : %d\n", p->net.gid_index);
	if (t->verb == PT_READ || t->verb == PT_ATOMIC)
		printf(" Outstand reads  : %d\n", PT_OUT_READS);
	else
		printf(" Max inline data : 0[B]\n");
	printf(" rdma_cm QPs\t : %s\n", p->o.pt.rdma_cm ? "ON" : "OFF");
	printf(" Data ex. method : %s\n", p->o.pt.rdma_cm ? "rdma_cm" : "Ethernet");
	/* perftest says so after the connection is made, as here */
	if (p->o.pt.rdma_cm && p->o.server) {
		printf(PT_LINE);
		printf(" Waiting for client rdma_cm QP to connect\n");
		printf(" Please run the same command with the IB/RoCE interface IP\n");
	}
	printf(PT_LINE);
}

/* ctx_print_pingpong_data(): one end's key, as perftest shows it. */
static void pt_print_dest(const struct peer *p, const struct pt_run *r, const struct pt_dest *d, const char *side)
{
	const uint8_t *g = d->gid;

	if (p->o.json)
		return;
	printf(" %s address: LID %#04x QPN %#06x PSN %#06x", side, d->lid, d->qpn, d->psn);
	if (r->tool->verb == PT_READ)
		printf(" OUT %#04x", d->out_reads);
	if (r->tool->verb == PT_READ || r->tool->verb == PT_WRITE)
		printf(" RKey %#08x VAddr %#016" PRIx64, d->rkey, d->vaddr);
	printf("\n GID: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n", g[0], g[1],
	       g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static void pt_print_bw(const struct peer *p, const struct pt_run *r)
{
	if (p->o.json)
		return;
	printf(" %-7" PRIu64 "    %-10" PRIu64 "       %-7.2f            %-7.2f\t\t   %-7.6f\n", r->rep.size, r->rep.iters,
	       r->rep.peak, r->rep.avg, r->rep.rate);
}

/*
 * print_report_bw(): the average over the first post to the last
 * completion; the peak, perftest's, the least time per message over any
 * stretch from a post to a completion that ends a CQ moderation batch.
 */
static void pt_report_bw(const struct peer *p, struct pt_run *r, bool peak)
{
	uint64_t n = (uint64_t)p->o.iters * r->nqp, mod = p->o.pt.cq_mod, best;
	double secs, mb = 0x100000;

	if (p->o.duration_s) {
		/* DURATION: noPeak; what completed in the sample, over the sample's time */
		n = r->dur_iters;
		peak = false;
		best = r->t1 - r->t0;
	} else {
		best = r->completed[n - 1] - r->posted[0];
	}
	secs = (double)best / 1e9;

	for (uint64_t i = 0; peak && i < n; i++) {
		for (uint64_t j = (i + 1 + mod - 1) / mod * mod - 1; j < n; j += mod)
			if ((r->completed[j] - r->posted[i]) / (j - i + 1) < best)
				best = (r->completed[j] - r->posted[i]) / (j - i + 1);
		if (n % mod && (r->completed[n - 1] - r->posted[i]) / (n - i) < best)
			best = (r->completed[n - 1] - r->posted[i]) / (n - i);
	}
	r->rep.size = p->o.size;
	r->rep.iters = n;
	r->rep.peak = peak && best ? (double)p->o.size * 1e9 / (double)best / mb : 0;
	r->rep.avg = secs > 0 ? (double)p->o.size * (double)n / secs / mb : 0;
	r->rep.rate = secs > 0 ? (double)n / secs / 1e6 : 0;
	r->have_rep = true;
	pt_print_bw(p, r);
}

static int pt_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * print_report_lat(): the times between one post and the next, sorted, the
 * slowest two left out; half of each for SEND and WRITE (a round trip),
 * the whole for READ. perftest's standard deviation sums squares of whole
 * microseconds: so does this one, so that both ends print alike.
 */
static void pt_report_lat(const struct peer *p, struct pt_run *r)
{
	uint64_t n = p->o.iters - 1, *d = r->completed;   /* the deltas, in the completion times' room */
	double f = r->tool->verb == PT_READ ? 1000.0 : 2000.0, sum = 0, avg, sq = 0, median;
	int cnt = (int)n - PT_LAT_TAIL, i99, i999;

	for (uint64_t i = 0; i < n; i++)
		d[i] = r->posted[i + 1] - r->posted[i];
	qsort(d, n, sizeof(*d), pt_cmp_u64);
	median = (cnt - 1) % 2 ? (double)((d[cnt / 2] + d[cnt / 2 - 1]) / 2) : (double)d[cnt / 2];
	for (int i = 0; i < cnt; i++)
		sum += (double)d[i] / f;
	avg = sum / cnt;
	for (int i = 0; i < cnt; i++) {
		int v = (int)(avg - (double)d[i] / f);

		sq += (double)(v * v);
	}
	i99 = (int)ceil(cnt * 0.99);
	i999 = (int)ceil(cnt * 0.999);
	if (p->o.json)
		return;
	printf(" %-7u %u          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
	       p->o.size, p->o.iters, (double)d[0] / f, (double)d[cnt] / f, median / f, avg, sqrt(sq / cnt),
	       (double)d[i99] / f, (double)d[i999] / f);
}

/*
 * print_report_lat_duration(): the sample's time over what completed in it
 * (half of it for SEND and WRITE, a round trip), and the completions a second.
 */
static void pt_report_lat_dur(const struct peer *p, struct pt_run *r)
{
	double us = (double)(r->t1 - r->t0) / 1000.0, rtt = r->tool->verb == PT_READ ? 1 : 2;
	double lat = r->dur_iters ? us / rtt / (double)r->dur_iters : 0, tps = us > 0 ? (double)r->dur_iters / (us / 1e6) : 0;

	r->rep.iters = r->dur_iters;
	r->have_rep = true;
	if (p->o.json)
		return;
	printf(" %-7u       %" PRIu64 "            %-7.2f        %-7.2f\n", p->o.size, r->dur_iters, lat, tps);
}

static void pt_json(const struct peer *p, const struct pt_run *r, int ret)
{
	struct rl_qp_stats st;
	struct json j;

	memset(&st, 0, sizeof(st));
	if (p->verbs.qp)
		rl_qp_stats(p->verbs.qp, &st);
	json_begin(&j, stdout);
	json_obj(&j, NULL);
	json_str(&j, "compat", r->tool->name);
	json_str(&j, "role", p->o.server ? "server" : "client");
	json_str(&j, "transport", p->o.ud ? "ud" : p->o.uc ? "uc" : "rc");
	json_u64(&j, "bytes", p->o.size);
	json_u64(&j, "iterations", p->o.duration_s && r->have_rep ? r->rep.iters : (uint64_t)p->o.iters * r->nqp);
	if (r->nqp > 1)
		json_u64(&j, "qps", r->nqp);
	if (r->have_rep) {
		json_double(&j, "bw_peak_mbps", r->rep.peak, 2);
		json_double(&j, "bw_avg_mbps", r->rep.avg, 2);
	}
	json_u64(&j, "frames_sent", p->stat.sent);
	json_u64(&j, "frames_received", p->stat.recv_frames);
	json_u64(&j, "dropped_by_loss", p->stat.dropped_loss);
	json_u64(&j, "dropped_by_tx_loss", p->stat.dropped_tx);
	json_u64(&j, "retransmits", st.retransmits);
	json_bool(&j, "ok", ret == 0);
	json_end(&j);
	json_newline(&j);
}

/* ---- the test loops ------------------------------------------------------------------------------- */

static bool pt_wc_ok(struct peer *p, const struct rl_wc *wc)
{
	if (wc->status == RL_WC_SUCCESS)
		return true;
	if (!p->stat.errors++)
		fprintf(stderr, " Completion with error at %s:\n Failed status %d: wr_id %" PRIu64 " (%s)\n",
			p->o.server ? "server" : "client", (int)wc->status, wc->wr_id, rl_wc_status_str(wc->status));
	return false;
}

/* A receive on QP @q, whose receives posted so far are *@posted. */
static int pt_post_recv(struct peer *p, struct pt_run *r, uint32_t q, uint64_t *posted)
{
	struct rl_recv_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = *posted * r->nqp + q;
	wr.num_sge = 1;
	wr.sg_list[0].addr = (uintptr_t)pt_rx_buf(r, q);
	wr.sg_list[0].length = p->o.size + (p->o.ud ? PEER_UD_GRH : 0);
	wr.sg_list[0].lkey = rl_mr_lkey(p->verbs.mr);
	if (rl_post_recv(r->qps[q], &wr)) {
		cli_error("peer", "post_recv: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	(*posted)++;
	return 0;
}

/*
 * ctx_set_recv_wqes(), and again after each receive: rx_depth posted, never
 * more than the test needs. UD: at least PT_UD_RECVS, for a burst that
 * arrives between two polls of the CQ finds no receive lost otherwise
 * (nothing on the wire tells how many are posted).
 */
static int pt_post_recvs(struct peer *p, struct pt_run *r, uint32_t q, uint64_t received)
{
	uint32_t depth = p->o.ud && p->o.pt.rx_depth < PT_UD_RECVS ? PT_UD_RECVS : p->o.pt.rx_depth;
	uint64_t *posted = q ? &r->rposted[q] : &r->recvs_posted;

	while ((p->o.duration_s || *posted < p->o.iters) && *posted - received < depth)
		if (pt_post_recv(p, r, q, posted))
			return -1;
	return 0;
}

/* Every QP's receives, before a round (-q N: rx_depth on each, as ctx_set_recv_wqes()). */
static int pt_post_recvs_qps(struct peer *p, struct pt_run *r)
{
	for (uint32_t q = 0; q < r->nqp; q++) {
		r->rdone[q] = 0;
		if (q)
			r->rposted[q] = 0;
		if (pt_post_recvs(p, r, q, 0))
			return -1;
	}
	return 0;
}

/* A work request of the tool's verb on QP @q, its @id-th there. */
static int pt_post_send(struct peer *p, struct pt_run *r, uint32_t q, uint64_t id)
{
	static const enum rl_wr_opcode ops[] = { RL_WR_SEND, RL_WR_RDMA_WRITE, RL_WR_RDMA_READ, RL_WR_ATOMIC_FETCH_AND_ADD };
	const struct pt_dest *them = q ? &r->thems[q] : &r->them;
	enum pt_verb v = r->tool->verb;
	struct rl_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id * r->nqp + q;
	wr.opcode = ops[v];
	wr.num_sge = 1;
	/* A READ lands in our second half, as perftest's own. */
	wr.sg_list[0].addr = (uintptr_t)(v == PT_READ ? pt_rx_buf(r, q) : pt_tx_buf(r, q));
	wr.sg_list[0].length = v == PT_ATOMIC ? 8 : p->o.size;
	wr.sg_list[0].lkey = rl_mr_lkey(p->verbs.mr);
	wr.send_flags = RL_SEND_SIGNALED;
	wr.rdma.remote_addr = them->vaddr;
	wr.rdma.rkey = them->rkey;
	wr.atomic.remote_addr = them->vaddr;
	wr.atomic.rkey = them->rkey;
	wr.atomic.compare_add = 1;   /* ATOMIC_ADD_VALUE */
	if (p->o.ud && p->perftest) {
		/* -R: the SIDR_REP's QPN and Q_Key (the server: the SEND with immediate's), as perftest's cm_node */
		memcpy(wr.ud.dgid, p->perftest->data.ud.dgid, 16);
		wr.ud.remote_qpn = p->perftest->data.ud.qpn;
		wr.ud.remote_qkey = p->perftest->data.ud.qkey;
	} else if (p->o.ud) {
		memcpy(wr.ud.dgid, them->gid, 16);
		wr.ud.remote_qpn = them->qpn;
		wr.ud.remote_qkey = PEER_QKEY;   /* perftest's DEF_QKEY, 0x11111111 */
	}
	if (rl_post_send(r->qps[q], &wr)) {
		cli_error("peer", "post_send: %s", rl_host_error(p->verbs.host));
		return -1;
	}
	r->sends_out++;
	return 0;
}

/* One pump of the wire; -1 after a failed completion, or once --timeout has passed since @start. */
static int pt_poll(struct peer *p, uint64_t start, const char *what, uint64_t done, uint64_t want)
{
	peer_pump(p, -1);
	if (p->perftest)
		pt_cm_take(p);
	if (p->stat.errors)
		return -1;
	if (pt_expired(p, start)) {
		cli_error("peer", "timed out after %u s with %" PRIu64 " of %" PRIu64 " %s (--timeout)", p->o.timeout_s,
			  done, want, what);
		return -1;
	}
	return 0;
}

/*
 * -D SEC (DURATION): perftest's alarm states from the start of the test:
 * a margin of SEC/4 whole seconds to warm up, the sample, the same margin
 * again, then the end. What completes in the sample counts, over the
 * sample's time (r->t0 .. r->t1).
 */
static void pt_dur_start(struct peer *p, struct pt_run *r, uint64_t now)
{
	uint64_t s = 1000000000ull, margin = p->o.duration_s / 4 * s;

	r->t0 = now + margin;
	r->t1 = now + p->o.duration_s * s - margin;
	r->t_end = now + p->o.duration_s * s;
}

static bool pt_dur_sample(const struct pt_run *r, uint64_t now)
{
	return now >= r->t0 && now < r->t1;
}

/* One pump of the wire during -D's run (its end is the clock's, not --timeout's); -1 after a failed completion. */
static int pt_dur_poll(struct peer *p)
{
	peer_pump(p, -1);
	if (p->perftest)
		pt_cm_take(p);
	return p->stat.errors ? -1 : 0;
}

/*
 * run_iter_bw(): on each QP in turn, -t work requests outstanding until -n
 * have completed there (-D: until its time is up); -q N: N times -n in all.
 */
static int pt_client_bw(struct peer *p, struct pt_run *r)
{
	uint64_t posted = 0, done = 0, start = peer_now(), total = (uint64_t)p->o.iters * r->nqp;
	uint64_t *scnt = r->scnt, *ccnt = r->ccnt;
	bool dur = p->o.duration_s;
	struct rl_wc wc[32];

	memset(scnt, 0, r->nqp * sizeof(*scnt));
	memset(ccnt, 0, r->nqp * sizeof(*ccnt));
	if (dur)
		pt_dur_start(p, r, start);
	while (dur ? peer_now() < r->t_end : done < total) {
		for (uint32_t q = 0; q < r->nqp; q++)
			while ((dur || scnt[q] < p->o.iters) && scnt[q] - ccnt[q] < p->o.window) {
				if (!dur)
					r->posted[posted] = peer_now();
				posted++;
				if (pt_post_send(p, r, q, scnt[q]++))
					return -1;
			}
		if (dur ? pt_dur_poll(p) : pt_poll(p, start, "work requests completed", done, total))
			return -1;
		for (int n = rl_poll_cq(p->verbs.cq, 32, wc), i = 0; i < n; i++) {
			uint64_t now = peer_now();

			if (!pt_wc_ok(p, &wc[i]))
				return -1;
			ccnt[wc[i].wr_id % r->nqp]++;
			r->sends_out--;
			if (dur)
				r->dur_iters += pt_dur_sample(r, now);
			else
				r->completed[done] = now;
			done++;
		}
	}
	return 0;
}

/* run_iter_bw_server(): -n receives on each QP (-D: until its time is up); the clock starts at the first. */
static int pt_server_bw(struct peer *p, struct pt_run *r)
{
	uint64_t done = 0, start = peer_now(), total = (uint64_t)p->o.iters * r->nqp;
	bool dur = p->o.duration_s;
	struct rl_wc wc[32];

	while (dur ? !done || peer_now() < r->t_end : done < total) {
		if (dur && done ? pt_dur_poll(p) : pt_poll(p, start, "messages received", done, total))
			return -1;
		for (int n = rl_poll_cq(p->verbs.cq, 32, wc), i = 0; i < n; i++) {
			uint64_t now = peer_now();
			uint32_t q = (uint32_t)(wc[i].wr_id % r->nqp);

			if (!pt_wc_ok(p, &wc[i]))
				return -1;
			if (wc[i].opcode != RL_WC_RECV)
				continue;
			if (!done && dur)
				pt_dur_start(p, r, now);   /* set_on_first_rx_packet() */
			else if (!done)
				r->posted[0] = now;
			if (dur)
				r->dur_iters += pt_dur_sample(r, now);
			else
				r->completed[done] = now;
			done++;
			if (pt_post_recvs(p, r, q, ++r->rdone[q]))
				return -1;
		}
	}
	return 0;
}

/*
 * Until @want completions of the kind @recv says have come, all told; the
 * other kind is counted on the way (a reply may come before the ACK of what
 * it answers, or after).
 */
static int pt_wait_wc(struct peer *p, struct pt_run *r, bool recv, uint64_t want, uint64_t start)
{
	bool dur = p->o.duration_s;
	struct rl_wc wc;

	while ((recv ? r->received : r->sent) < want) {
		while (rl_poll_cq(p->verbs.cq, 1, &wc) == 1) {
			if (!pt_wc_ok(p, &wc))
				return -1;
			if (wc.opcode != RL_WC_RECV) {
				r->sent++;
				r->sends_out--;
				r->dur_iters += dur && pt_dur_sample(r, peer_now());
			} else if (pt_post_recvs(p, r, 0, ++r->received)) {
				return -1;
			}
		}
		if ((recv ? r->received : r->sent) >= want)
			break;
		if (dur && peer_now() >= r->t_end)
			return 1;
		if (dur ? pt_dur_poll(p) : pt_poll(p, start, recv ? "messages received" : "sends completed",
						      recv ? r->received : r->sent, p->o.iters))
			return -1;
	}
	return 0;
}

/* Does the latency loop go on: -n each way, or (-D) until its time is up. */
static bool pt_lat_more(const struct peer *p, const struct pt_run *r, uint64_t scnt, uint64_t rcnt)
{
	if (p->o.duration_s)
		return peer_now() < r->t_end;
	return scnt < p->o.iters || rcnt < p->o.iters;
}

/* run_iter_lat_send(): the client SENDs first, each side answers what it received. */
static int pt_lat_send(struct peer *p, struct pt_run *r)
{
	uint64_t scnt = 0, rcnt = 0, start = peer_now();
	bool dur = p->o.duration_s;
	int ret = 0;

	if (dur)
		pt_dur_start(p, r, start);
	while (!ret && pt_lat_more(p, r, scnt, rcnt)) {
		if ((dur || rcnt < p->o.iters) && !(scnt < 1 && !p->o.server))
			ret = pt_wait_wc(p, r, true, ++rcnt, start);
		if (!ret && (dur || scnt < p->o.iters)) {
			if (!dur)
				r->posted[scnt] = peer_now();
			scnt++;
			ret = pt_post_send(p, r, 0, scnt) ? -1 : pt_wait_wc(p, r, false, scnt, start);
		}
	}
	return ret < 0 ? -1 : 0;
}

/*
 * run_iter_lat_write(): the server WRITEs first; each side writes its count
 * into the last byte of the message and waits until the other side's count
 * shows in the last byte of its own buffer.
 */
static int pt_lat_write(struct peer *p, struct pt_run *r)
{
	volatile uint8_t *poll_byte = r->buf + r->half + p->o.size - 1;
	uint64_t scnt = 0, rcnt = 0, start = peer_now();
	bool dur = p->o.duration_s;
	int ret = 0;

	if (dur)
		pt_dur_start(p, r, start);
	while (!ret && pt_lat_more(p, r, scnt, rcnt)) {
		if ((dur || rcnt < p->o.iters) && !(scnt < 1 && p->o.server)) {
			rcnt++;
			while (!ret && *poll_byte != (uint8_t)rcnt) {
				if (dur && peer_now() >= r->t_end)
					ret = 1;
				else if (dur ? pt_dur_poll(p) : pt_poll(p, start, "WRITEs seen", rcnt - 1, p->o.iters))
					ret = -1;
			}
		}
		if (!ret && (dur || scnt < p->o.iters)) {
			if (!dur)
				r->posted[scnt] = peer_now();
			r->buf[p->o.size - 1] = (uint8_t)++scnt;
			ret = pt_post_send(p, r, 0, scnt) ? -1 : pt_wait_wc(p, r, false, scnt, start);
		}
	}
	return ret < 0 ? -1 : 0;
}

/* run_iter_lat(): the client READs, one at a time; the server does nothing. */
static int pt_lat_read(struct peer *p, struct pt_run *r)
{
	uint64_t start = peer_now();
	bool dur = p->o.duration_s;
	int ret = 0;

	if (dur)
		pt_dur_start(p, r, start);
	for (uint64_t i = 0; !ret && (dur ? peer_now() < r->t_end : i < p->o.iters); i++) {
		if (!dur)
			r->posted[i] = peer_now();
		ret = pt_post_send(p, r, 0, i) ? -1 : pt_wait_wc(p, r, false, i + 1, start);
	}
	return ret < 0 ? -1 : 0;
}

/* Our own sends acknowledged (at most 2 s), so that nothing of ours is resent once the other side has gone. */
static void pt_settle(struct peer *p, struct pt_run *r)
{
	uint64_t start = peer_now();
	struct rl_wc wc[8];

	while (r->sends_out && !p->stat.errors && peer_now() - start < 2000000000ull) {
		peer_pump(p, -1);
		for (int n = rl_poll_cq(p->verbs.cq, 8, wc), i = 0; i < n; i++)
			if (wc[i].opcode != RL_WC_RECV && pt_wc_ok(p, &wc[i]))
				r->sends_out--;
	}
}

/* ---- the reports exchange (ib_write_bw, ib_read_bw, ib_atomic_bw) ---------------------------------- */

static void pt_put_double(uint8_t *b, double d)
{
	uint64_t v;

	memcpy(&v, &d, 8);
	rl_put64(b, v);
}

static double pt_get_double(const uint8_t *b)
{
	uint64_t v = rl_get64(b);
	double d;

	memcpy(&d, &v, 8);
	return d;
}

/* xchg_bw_reports(): five exchanges, the client's report for the server's (which has none: zeros). */
static int pt_xchg_reports(struct peer *p, struct pt_run *r)
{
	uint8_t mine[PT_REPORT_LEN] = { 0 }, theirs[PT_REPORT_LEN];
	static const size_t off[] = { 0, 8, 16, 24, 32 };

	if (r->have_rep) {
		rl_put64(mine, r->rep.size);
		rl_put64(mine + 8, r->rep.iters);
		pt_put_double(mine + 16, r->rep.peak);
		pt_put_double(mine + 24, r->rep.avg);
		pt_put_double(mine + 32, r->rep.rate);
	}
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (!pt_xchg(p, mine + off[i], theirs + off[i], 8)) {
			cli_error("peer", "the other side went away before the reports were exchanged");
			return -1;
		}
	if (p->o.server) {
		r->rep.size = rl_get64(theirs);
		r->rep.iters = rl_get64(theirs + 8);
		r->rep.peak = pt_get_double(theirs + 16);
		r->rep.avg = pt_get_double(theirs + 24);
		r->rep.rate = pt_get_double(theirs + 32);
		r->have_rep = true;
	}
	return 0;
}

/* ---- the command ---------------------------------------------------------------------------------- */

/* The TCP connection, the version, sys data and MTU exchange, the verbs objects, the sockets. */
static int pt_prepare(struct peer *p, struct pt_run *r)
{
	enum rl_mtu theirs = 0;

	if (p->o.server && !p->o.json) {
		printf("\n************************************\n");
		printf("* Waiting for client to connect... *\n");
		printf("************************************\n");
		fflush(stdout);
	}
	if (p->o.pt.rdma_cm ? pt_cm_open(p) : p->o.server ? peer_tcp_accept(p) : peer_tcp_connect(p))
		return -1;
	if ((!p->o.pt.rdma_cm && (peer_pick_gid(p) || peer_pick_mtu(p))) || pt_preamble(p, r, &theirs))
		return -1;
	if (theirs && theirs < p->o.mtu)
		p->o.mtu = theirs;
	if (p->o.ud && p->o.size > rl_mtu_bytes(p->o.mtu)) {
		if (p->o.pt.size_set) {
			fprintf(stderr, " Max message size in UD cannot be greater than MTU \n");
			cli_error("peer", "-s %u: a UD message is one packet, and the path MTU is %u", p->o.size,
				  rl_mtu_bytes(p->o.mtu));
			return -1;
		}
		fprintf(stderr, " Max msg size in UD is MTU %u\n Changing to this MTU\n", rl_mtu_bytes(p->o.mtu));
		p->o.size = rl_mtu_bytes(p->o.mtu);
	}
	if (pt_setup(p, r)) {
		cli_error("peer", "cannot set up the QP and its buffer: %s",
			  p->verbs.host ? rl_host_error(p->verbs.host) : "out of memory");
		return -1;
	}
	/* -R: the CM's sockets are open already. */
	if (p->o.pt.rdma_cm)
		return 0;
	/* Sockets before the exchange ends, so that the first frame finds port 4791 open. */
	return peer_sockets(p, rl_qp_udp_sport(p->verbs.qp), !p->o.ud);
}

/*
 * -R: create_rdma_cm_connection(): a hand shake, the data QP's connection
 * (READs and atomics: PT_CM_RD_ATOMIC of them each way), a hand shake.
 */
static int pt_cm_data(struct peer *p, struct pt_run *r)
{
	struct peer_perftest *c = p->perftest;
	uint8_t rd = r->tool->verb == PT_READ || r->tool->verb == PT_ATOMIC ? PT_CM_RD_ATOMIC : 0;
	struct rl_qp_attr a;

	if (pt_hand_shake(p, NULL, false))
		return -1;
	if (p->o.server ? pt_cm_accept(p, &c->data, p->verbs.qp, rd, false)
			: pt_cm_connect(p, &c->data, p->verbs.qp, rd, false))
		return -1;
	if (p->o.ud && r->tool->lat && pt_cm_ud_lat(p))
		return -1;
	/* -q N: the other data QPs' connections, one after the other */
	for (uint32_t q = 1; q < r->nqp; q++)
		if (p->o.server ? pt_cm_accept(p, &c->more[q - 1], r->qps[q], rd, false)
				: pt_cm_connect(p, &c->more[q - 1], r->qps[q], rd, false))
			return -1;
	if (pt_hand_shake(p, NULL, false))
		return -1;
	/* The QP's peer; the PSN the keys carry stays perftest's own random one, which the CM does not use. */
	rl_query_qp(p->verbs.qp, &a);
	p->conn.them.qpn = p->o.ud ? c->data.ud.qpn : a.dest_qp_num;
	return 0;
}

/*
 * A hand shake for each QP, its keys for the other side's of the same index
 * (the loops of the tools' main()); @print shows each remote key as it comes.
 * QP 0's stay in r->me and r->them.
 */
static int pt_hand_shake_qps(struct peer *p, struct pt_run *r, bool print)
{
	struct pt_dest me0 = r->me;

	for (uint32_t q = 0; q < r->nqp; q++) {
		r->me = r->mes[q];
		if (pt_hand_shake(p, r, true))
			return -1;
		r->thems[q] = r->them;
		if (print)
			pt_print_dest(p, r, &r->them, "remote");
	}
	r->me = me0;
	r->them = r->thems[0];
	return 0;
}

/* ctx_connect() for QPs 1 .. N-1 (QP 0: peer_connect_qp()): each to the other side's QP of its index. */
static int pt_connect_qps(struct peer *p, struct pt_run *r)
{
	for (uint32_t q = 1; q < r->nqp; q++) {
		struct rl_conn c;

		rl_conn_defaults(&c);
		c.qkey = PEER_QKEY;
		c.sq_psn = r->mes[q].psn;
		c.qpn = r->thems[q].qpn;
		c.psn = r->thems[q].psn;
		memcpy(c.gid, r->thems[0].gid, 16);
		c.udp_sport = p->net.sport;
		c.path_mtu = p->o.mtu;
		if (rl_qp_connect(r->qps[q], &c)) {
			cli_error("peer", "cannot connect QP %u: %s", q, rl_host_error(p->verbs.host));
			return -1;
		}
	}
	return 0;
}

/* The keys, the QP connected, the hand shakes of the tool up to its test. */
static int pt_connect(struct peer *p, struct pt_run *r)
{
	const struct pt_tool *t = r->tool;

	if (p->o.pt.rdma_cm && pt_cm_data(p, r))
		return -1;
	pt_print_test_info(p, r);
	if (t->shake_first && pt_hand_shake(p, r, true))
		return -1;
	if (pt_hand_shake_qps(p, r, false))
		return -1;
	/* -R: ctx_check_gid_compatibility() and ctx_connect() are not called: the CM connected the QP. */
	if (!p->o.pt.rdma_cm && (pt_check_gid(p, r) || peer_connect_qp(p) || pt_connect_qps(p, r)))
		return -1;
	if (t->shake_at_rts && pt_hand_shake(p, r, false))
		return -1;
	for (uint32_t q = 0; q < r->nqp; q++)
		pt_print_dest(p, r, &r->mes[q], "local");
	if (pt_hand_shake_qps(p, r, true))
		return -1;
	/* -a: the SEND tools post their receives and hand shake at each size (pt_all_sizes). */
	if (p->o.all_sizes && t->verb == PT_SEND)
		return 0;
	/* The receives are posted before the last hand shake: nothing is sent before there is room for it. */
	if (t->verb == PT_SEND && (p->o.server || t->lat) && pt_post_recvs_qps(p, r))
		return -1;
	if (pt_hand_shake(p, r, false))
		return -1;
	return 0;
}

static int pt_all_sizes(struct peer *p, struct pt_run *r);
static int pt_round(struct peer *p, struct pt_run *r);

/* The test and its report, as the tool's main() runs them on this side. */
static int pt_test(struct peer *p, struct pt_run *r)
{
	const struct pt_tool *t = r->tool;

	/* ib_read_lat's server does nothing, and prints no table. */
	if (t->lat && t->verb == PT_READ && p->o.server)
		return 0;
	if (!p->o.json) {
		printf(PT_LINE);
		if (t->lat && p->o.duration_s)
			printf(" #bytes        #iterations       t_avg[usec]    tps average\n");
		else
			printf(t->lat ? " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
					"t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec] \n"
				      : " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n");
	}
	/* ib_write_bw's, ib_read_bw's, ib_atomic_bw's server: the client's test, served while it waits. */
	if (t->reports && p->o.server)
		return 0;
	if (p->o.all_sizes)
		return pt_all_sizes(p, r);
	return pt_round(p, r);
}

/*
 * -a (RUN_ALL): a round, and a row of the table, for each power of two
 * from 2 to 2^23 bytes (UD: to the path MTU), -n iterations each. Only the
 * SEND tools synchronise between rounds: the receives of the round posted,
 * a hand shake (ib_send_bw: one more after the round). ib_write_bw's and
 * ib_read_bw's server prints the client's last row only, as perftest's.
 */
static int pt_all_sizes(struct peer *p, struct pt_run *r)
{
	const struct pt_tool *t = r->tool;
	uint32_t max = p->o.size;

	for (uint32_t size = 2; size <= max; size *= 2) {
		p->o.size = size;
		r->recvs_posted = r->sent = r->received = 0;
		if (t->verb == PT_SEND) {
			if ((p->o.server || t->lat) && pt_post_recvs_qps(p, r))
				return -1;
			if (pt_hand_shake(p, r, false))
				return -1;
		}
		if (pt_round(p, r))
			return -1;
		if (t->verb == PT_SEND && !t->lat && pt_hand_shake(p, r, false))
			return -1;
	}
	return 0;
}

/* One round of the test at p->o.size, and its row of the table. */
static int pt_round(struct peer *p, struct pt_run *r)
{
	const struct pt_tool *t = r->tool;
	int ret;

	if (!t->lat)
		ret = p->o.server ? pt_server_bw(p, r) : pt_client_bw(p, r);
	else if (t->verb == PT_SEND)
		ret = pt_lat_send(p, r);
	else if (t->verb == PT_WRITE)
		ret = pt_lat_write(p, r);
	else
		ret = pt_lat_read(p, r);
	if (ret) {
		fprintf(stderr, " Test exited with Error\n");
		return -1;
	}
	if (t->lat && p->o.duration_s)
		pt_report_lat_dur(p, r);
	else if (t->lat)
		pt_report_lat(p, r);
	else
		pt_report_bw(p, r, !p->o.server);
	return 0;
}

/* After the test: the reports, the close, what the tool prints last. */
static int pt_finish(struct peer *p, struct pt_run *r)
{
	const struct pt_tool *t = r->tool;

	pt_settle(p, r);
	if (t->reports) {
		if (!p->o.server && !p->o.json)
			printf(PT_LINE);
		if (pt_hand_shake(p, r, false) || pt_xchg_reports(p, r))
			return -1;
		if (p->o.server)
			pt_print_bw(p, r);
	} else if (!p->o.json && !(t->lat && t->verb == PT_READ)) {
		printf(PT_LINE);
	}
	if (t->close) {
		if (pt_hand_shake(p, r, false) || (!p->o.pt.rdma_cm && !pt_write(p, "done", sizeof("done"))))
			return -1;
	}
	if (!p->o.json && ((t->reports && p->o.server) || (t->lat && t->verb == PT_READ)))
		printf(PT_LINE);
	fflush(stdout);
	/* -R: the DREQs at once, as perftest's, and the wire served after them. */
	if (p->o.pt.rdma_cm)
		pt_cm_close(p);
	else
		peer_drain(p, p->o.duration_s ? PT_DUR_DRAIN_MS : PEER_QUIET_MS);   /* a late resend or ACK must still find port 4791 open */
	return 0;
}

int peer_perftest_run(struct peer *p)
{
	struct pt_run r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.tool = pt_tool_of(&p->o);
	r.nqp = p->o.qps ? p->o.qps : 1;
	if (p->o.pt.rdma_cm && !(p->perftest = pt_cm_new(r.nqp))) {
		cli_error("peer", "out of memory");
		return CLI_ERR;
	}
	ret = pt_prepare(p, &r) || pt_connect(p, &r) || pt_test(p, &r) || pt_finish(p, &r) ? -1 : 0;
	if (p->o.json)
		pt_json(p, &r, ret);
	else if (p->o.loss > 0 || p->o.tx_loss > 0)
		fprintf(stderr, "rocelab peer: %" PRIu64 " of %" PRIu64 " frames received dropped on purpose by --loss, %"
			PRIu64 " of %" PRIu64 " sent by --tx-loss\n", p->stat.dropped_loss, p->stat.recv_frames,
			p->stat.dropped_tx, p->stat.sent + p->stat.dropped_tx);
	free(r.posted);
	free(r.completed);
	pt_free_qps(&r);
	pt_cm_free(p);
	return ret ? CLI_ERR : CLI_OK;
}
