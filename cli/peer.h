/* SPDX-License-Identifier: MIT */
/*
 * rocelab peer, shared between its files, one concern each:
 *   peer.c           options, and the command itself
 *   peer_exchange.c  the TCP connection exchange (the pingpong tools' format)
 *   peer_run.c       the verbs objects, the QP's connection, the test loops
 *   peer_report.c    the results, as perftest prints them, or --json
 *   peer_wire.c      the wire: addresses, the GID table, UDP sockets, packets in and out
 *   peer_rping.c     --compat rping: rping's flags, its data protocol and its output
 *   peer_cmatose.c   --compat ucmatose, udaddy: their flags, connections, data and output
 *   peer_perftest.c  --compat ib_send_bw ... ib_read_lat: perftest's flags, its exchange (TCP, or -R's
 *                    rdma_cm), loops (-a, -D) and output
 *   peer_cm.c        --cm and the --compat tools: the connection through the CM agent on QP1
 *   peer_srq.c       --compat pingpong --srq N: ibv_srq_pingpong's QPs on one SRQ, its exchange and loop
 */
#ifndef ROCELAB_CLI_PEER_H
#define ROCELAB_CLI_PEER_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "gids.h"
#include "rocelab/rdma_cm.h"
#include "rocelab/rocelab.h"

#define PEER_ROCE_PORT 4791
#define PEER_TCP_PORT 18515
#define PEER_QKEY 0x11111111u /* ibv_ud_pingpong's Q_Key */
#define PEER_UD_GRH 40                /* UD: the first 40 bytes of a receive hold the GRH */
#define PEER_UD_WAIT_NS 50000000u     /* UD pingpong: a reply this late counts as lost */
#define PEER_ALL_MAX (1u << 23)       /* -a: the largest size, as perftest's (2^23 bytes) */
#define PEER_CMATOSE_MAX_CONN 16      /* --compat ucmatose / udaddy: -c at most */
#define PEER_TX_SOCKS (PEER_CMATOSE_MAX_CONN + 1) /* UDP source ports sent from: a QP's each, QP1's (CM) */
#define PEER_SRQ_MAX_QP 256           /* --srq N at most: ibv_srq_pingpong's MAX_QP */
/* One line of the pingpong tools' exchange: "LID:QPN:PSN:GID" and the NUL. */
#define PEER_MSG_LEN (sizeof "0000:000000:000000:00000000000000000000000000000000")
#define PEER_BAD_RKEY_BITS 0xffu      /* --bad-rkey: the R_Key's low byte (the key beside the MR's index) inverted */
#define PEER_BAD_VA_OFFSET (1u << 20) /* --bad-va: 1 MiB past the server's address, out of its region */
#define PEER_VA_OFFSET_MAX (1ull << 40) /* --va-offset at most: far past any buffer, well inside 64 bits */
/* The server's buffer, remotely: a random page-aligned address below 2^47, at least 4 GiB up (PEER_VA_MIN). */
#define PEER_VA_MASK 0x00007ffffffff000ull
#define PEER_VA_MIN 0x0000000100000000ull
/* A server without --size serves messages up to this (-a's largest size): a client cannot make it take more. */
#define PEER_SERVE_MAX PEER_ALL_MAX
/*
 * The pacer's burst (ibv_qp_rate_limit_attr.max_burst_sz): how far it may
 * catch up after this process woke late. With --rate, 20 ms at the cap (a
 * process on a busy machine is held off that long), at least 64 KiB; then
 * the wait for the next timer does. Without it (DCQCN's Rc only) 64 KiB.
 * The wait is ppoll()'s, to the nanosecond: DCQCN's timers (55 us) come due
 * far more often than a millisecond, and spinning for them would take a core
 * from the switch and tcpdump on a small machine.
 */
#define PEER_PACER_BURST_MIN 65536u
#define PEER_PACER_BURST_NS 20000000u
/* The longest wait with nothing due: the host's timers are looked at again after it. */
#define PEER_IDLE_WAIT_NS 100000000u
/* The UD (UC) pingpong's own wait for a reply. */
#define PEER_UNRELIABLE_WAIT_NS 10000000u
/* --rate in Gb/s: from 1 Mb/s (with DCQCN: its floor, rpg_min_rate, 10 Mb/s unless --dcqcn says) to 400 Gb/s. */
#define PEER_RATE_MIN_GBPS 0.001
#define PEER_BPS_PER_MBPS 1000000u
#define PEER_RATE_MAX_GBPS 400.0

enum peer_op { PEER_SEND, PEER_WRITE, PEER_READ, PEER_PINGPONG, PEER_FETCH_ADD, PEER_CMP_SWAP, PEER_WRITE_IMM, PEER_NOPS };

union peer_addr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

struct peer_opts {
	bool server;
	const char *addr;
	enum peer_op op;
	bool ud;            /* --transport ud */
	bool uc;            /* --transport uc */
	bool ipv6;
	bool compat;        /* --compat pingpong: ibv_rc_pingpong / ibv_ud_pingpong on the other side */
	const char *ifname; /* --interface */
	int gid_index;      /* --gid-index; -1: the GID of the address that reaches the peer */
	uint32_t size, iters, window;
	enum rl_mtu mtu;
	uint16_t port;
	double loss;
	double tx_loss;     /* --tx-loss: the fraction of our own frames dropped before they leave */
	uint64_t drop_request; /* --drop-request (server): the Nth RoCE packet received is dropped; 0: none */
	uint64_t seed;
	uint32_t qpn;       /* --qpn; 0: 0x11, as rxe */
	uint32_t timeout_s;
	bool json, busy_poll;
	bool rping;         /* --compat rping: rping's flags and protocol (peer_rping.c) */
	bool cm;            /* --cm (and --compat rping): connect through the CM on QP1, not TCP */
	bool no_grh;        /* --no-grh: RTR without a GRH (is_global = 0), refused as the kernel does */
	bool bad_rkey, bad_va; /* --bad-rkey, --bad-va: the client's RDMA work requests aim wrong */
	uint64_t bad_at;    /* --bad-at: only this work request (1-based) aims wrong; 0: every one */
	bool retry_set;     /* --retry-cnt given: retry_cnt in place of perftest's 7 */
	uint8_t retry_cnt;
	uint64_t va_offset; /* --va-offset (--bad-va: PEER_BAD_VA_OFFSET): the client's RDMA aims this far past */
	/* The QP attributes behind RNR and timeouts; each *_set: given, else rl_conn_defaults()'s. */
	bool rnr_timer_set, rnr_retry_set, qp_timeout_set;
	uint8_t min_rnr_timer; /* --min-rnr-timer: ibv_qp_attr.min_rnr_timer, what our RNR NAKs ask for */
	uint8_t rnr_retry;     /* --rnr-retry: ibv_qp_attr.rnr_retry, 7 = for ever */
	uint8_t qp_timeout;    /* -u, --qp-timeout: ibv_qp_attr.timeout, 4.096 us * 2^N */
	bool no_recv;       /* --no-recv (server): no receive WQE posted, so every SEND meets an RNR NAK */
	uint32_t recv_delay_ms; /* --recv-delay (server): the receives posted only this long after RTS */
	uint32_t cq_mod;    /* -Q, --cq-mod (client): IBV_SEND_SIGNALED on every N-th send WR only; 0: all */
	bool show_wc;       /* --show-wc: every completion's status by name, IBV_WC_SUCCESS too */
	uint32_t max_size;  /* server: the largest message a client may ask for (its --size, or PEER_SERVE_MAX) */
	bool allow_other_gid; /* --allow-other-gid: send RoCE to a GID that is not the TCP peer's address */
	struct {
		const char *source;  /* -I ADDR: the client's source address */
		uint32_t count;      /* -C: pings; 0 = until interrupted, as rping */
		unsigned verbose, validate, debug;  /* -v, -V, -d */
		bool corrupt;        /* --corrupt (server): change each ping before writing it back */
	} rp;
	const char *ibdev;  /* -d, --ib-dev: perftest's RDMA device, taken as the interface (--interface) */
	uint32_t qps;       /* -q, --qps: 1 only (one QP per process) */
	uint32_t duration_s; /* -D, --duration: run this long instead of --iters (0: count --iters) */
	bool all_sizes;     /* -a, --all: every power of two from 2 to --size's maximum, a table row each */
	bool cmatose;       /* --compat ucmatose, udaddy (with ud): their flags and protocol (peer_cmatose.c) */
	struct {
		uint32_t connections; /* -c */
		uint32_t count;       /* -C: messages each way on each connection */
		bool migrate;         /* -m (ucmatose): move to a new event channel; nothing on the wire */
	} ct;
	uint32_t srq;       /* --srq N (with --compat pingpong): ibv_srq_pingpong's N QPs on one SRQ */
	enum rl_cc_algo cc; /* --cc: the QP's reaction point (rl_qp_init_attr.cc); none, as rxe */
	uint64_t rate_bps;  /* --rate: the pacer's cap (ibv_qp_rate_limit_attr.rate_limit); 0: none */
	uint64_t cnp_interval_ns; /* --cnp-interval: the NP's min_time_between_cnps; 0: the core's 50 us */
	struct rl_dcqcn_params dcqcn; /* --dcqcn: the RP's parameters, with --cc dcqcn; valid if dcqcn_set */
	bool dcqcn_set;
	bool perftest;      /* --compat ib_send_bw ... ib_read_lat: perftest's flags and exchange (peer_perftest.c) */
	struct {
		unsigned tool;        /* which of the seven */
		const char *dev;      /* -d: an RDMA device name, or an interface's */
		uint32_t rx_depth, cq_mod;  /* -r, -Q */
		bool size_set, cq_mod_set;
		bool rdma_cm;         /* -R: the exchange on a QP of its own, both QPs connected by rdma_cm */
	} pt;
};

struct peer_dest {
	uint32_t lid, qpn, psn;
	uint8_t gid[16];
};

struct peer_rx;
struct peer_tx;

/* A socket bound to one UDP source port: frames whose path names that port leave through it. */
struct peer_txsock {
	uint16_t sport;
	int fd;
};

/* Sockets and addresses: the TCP exchange and the RoCE wire (peer_wire.c). */
struct peer_net {
	int family;
	int tcp, rx;
	int hold;           /* IPv4 with a raw rx socket: the UDP socket that keeps port 4791 open */
	struct peer_txsock tx[PEER_TX_SOCKS];
	int ntx;
	struct peer_rx *rxq;
	struct peer_tx *txq;
	union peer_addr local, remote;
	bool local_known;   /* a CM server without an address learns it from the first frame */
	struct cli_gids gids; /* the port's GID table, as rxe builds it (gids.c) */
	int gid_index;
	uint16_t sport;     /* the QP's UDP source port (the first tx socket's) */
	uint64_t rng;       /* --loss */
	uint64_t tx_rng;    /* --tx-loss */
	bool failed;        /* set up on the first frame failed (peer_cm.c said why) */
};

/* The verbs objects of the one QP, and its buffer. */
struct peer_verbs {
	struct rl_host *host;
	struct rl_pd *pd;
	struct rl_cq *cq;
	struct rl_qp *qp;
	struct rl_mr *mr;
	uint8_t *buf;
	size_t buf_len;
};

/* What the connection exchange told each side. */
struct peer_conn {
	struct peer_dest me, them;
	uint64_t remote_va;
	uint32_t remote_rkey;
	uint32_t qkey;      /* UD: the other side's Q_Key (PEER_QKEY, or what SIDR_REP announced) */
};

struct peer;

#define PEER_CM_EVENTS 8

/* The CM agent on QP1, the ids, and the events taken from it but not yet handled (peer_cm.c). */
struct peer_cm {
	struct rl_cm_agent *agent;
	struct rl_rdma_cm_id *listen, *id;
	struct rl_rdma_cm_event *ev[PEER_CM_EVENTS];
	unsigned nev;
	/* A CM server without an address: set up the rest once the first frame says which address is ours. */
	int (*up)(struct peer *p);
};

/* What happened: frames, work requests, times. */
struct peer_stat {
	uint64_t sent, recv_frames, dropped_loss, dropped_tx, rx_bad, tx_errors;
	uint64_t posted, completed, errors, lost, delivered, sends_done;
	uint64_t msgs_discarded, pkts_discarded; /* UC: the responder's (IBA 9.8.3), from core's counters */
	uint32_t recvs_out, recvs_posted, spins;
	uint64_t t_start, t_end;
	uint64_t t_up;          /* the QP reached RTS (--recv-delay counts from here) */
	uint64_t round_first;   /* the first work request of this round (-Q: which to signal) */
	uint64_t wcs;           /* completions polled, successful or not */
	uint64_t flushed;       /* of them, IBV_WC_WR_FLUSH_ERR */
	uint64_t tx_bytes, rx_bytes; /* RoCE frames out and in, as the link carries them (Ethernet, IP, UDP, BTH..ICRC) */
	struct rl_wc first_err; /* the first failed completion that was not a flush (status 0: none) */
	bool recvs_held;        /* --recv-delay: the receives are not posted yet */
	char err_why[128];      /* why the QP went to the error state (the transport's words) */
	uint8_t last_nak;       /* the AETH syndrome of the last NAK this QP sent (0: none) */
	double *lat_us;
	size_t nlat, lat_cap;
	/* A round of the test (-a: one per size): its message size and the messages it completed. */
	uint32_t len;
	uint64_t round_done;
};

struct peer_rping;
struct peer_cmatose;
struct peer_perftest;

/* The per-second lines while data flows (peer_progress.c), iperf's habit. */
struct peer_progress {
	bool on;
	uint64_t t0, last;          /* the first line's start, and the last line's end */
	uint64_t sampled;           /* when the last line was made */
	unsigned lines;
	uint64_t tx0, rx0;          /* peer_stat's bytes at t0 */
	uint64_t tx_bytes, rx_bytes;  /* and at the last line */
	struct rl_qp_stats st;      /* the QP's counters at the last line */
};

struct peer {
	struct peer_opts o;
	struct peer_rping *rping;  /* --compat rping: its control block (peer_rping.c) */
	struct peer_cmatose *cmatose; /* --compat ucmatose, udaddy: their struct cmatest (peer_cmatose.c) */
	struct peer_perftest *perftest; /* --compat ib_* -R: its two rdma_cm connections (peer_perftest.c) */
	struct peer_net net;
	struct peer_verbs verbs;
	struct peer_conn conn;
	struct peer_cm cm;
	struct peer_stat stat;
	struct peer_progress prog;
};

#define PEER_ECT0 0x02   /* ECN-Capable Transport (0), the IP header's low two bits (RFC 3168) */

/* The QP's traffic class (ah_attr.grh.traffic_class): ECT(0) with DCQCN on, else 0 as rxe's default. */
static inline uint8_t peer_traffic_class(const struct peer_opts *o)
{
	return o->cc == RL_CC_DCQCN ? PEER_ECT0 : 0;
}

/* ---- peer.c: the test's names and data ---- */

extern const char *const peer_op_names[PEER_NOPS];
void peer_usage(FILE *f);
/* Zero options, then what every parser (rocelab's and each --compat tool's) starts from: --timeout 30,
 * the GID facing the peer, a seed from the clock. */
void peer_opts_init(struct peer_opts *o);
bool peer_atomic(enum peer_op op);
bool peer_sends(enum peer_op op);
/* RDMA WRITE, with or without immediate: the data lands in the server's buffer at the client's address. */
bool peer_writes(enum peer_op op);
/* Does the server post receives for this test? SENDs need them, and so does a WRITE with immediate (IBA 9.7.5.2.8). */
bool peer_receives(enum peer_op op);
/* The data both ends know, and whether @n bytes at @b are it. */
uint8_t peer_pattern(const struct peer *p, size_t i);
bool peer_check(const struct peer *p, const uint8_t *b, size_t n);
/* The size of the messages sent now: --size, or -a's size of this round. */
uint32_t peer_msg_len(const struct peer *p);
/* --loss, --tx-loss: a fraction 0 <= RATE < 1 in @arg; false with a message. */
bool peer_rate(const char *opt, const char *arg, double *rate);

/* ---- peer_exchange.c ---- */

/* ADDR (IPv4, or IPv6) with p->o.port as *sa; sets p->net.family; -1 with a message. */
int peer_parse_addr(struct peer *p, const char *addr, union peer_addr *sa);

/* The TCP connection: the client's to ADDR, or the server's first client. */
int peer_tcp_connect(struct peer *p);
int peer_tcp_accept(struct peer *p);
/* Both sides' QPN, PSN and GID, then (unless --compat) the test and the server's buffer. */
int peer_exchange(struct peer *p);
/* After the test: the server tells (and the client asks) whether the data arrived, and how much. */
int peer_exchange_result(struct peer *p, bool data_ok);
int peer_client_result(struct peer *p);
/* The server's end of the test: the client's "fin". */
bool peer_client_finished(struct peer *p);
/* All of @n bytes to (@wr) or from the TCP socket @fd; false if it failed or closed. */
bool peer_io(int fd, void *buf, size_t n, bool wr);
/* One exchange line, to and from struct peer_dest; parse is false for a line that is not one. */
void peer_dest_fmt(const struct peer_dest *d, char msg[PEER_MSG_LEN]);
bool peer_dest_parse(const char *msg, struct peer_dest *d);
/* p->conn.them's GID: one this side can send to (else -1 with a message); RoCE goes there from now on. */
int peer_dest_check(struct peer *p);
/*
 * Is @gid, named in the exchange, the address of the one who made it
 * (p->net.remote), or with a link-local GID, the default GID of its MAC?
 * -1 with a message if not (and no --allow-other-gid): else anyone could
 * aim this side's RoCE traffic at a third host.
 */
int peer_gid_trusted(const struct peer *p, const uint8_t gid[16]);
/* Server: may a client ask for messages of @size bytes? false (with the reason in @why) if not. */
bool peer_size_allowed(const struct peer *p, uint32_t size, char *why, size_t n);

/* ---- peer_run.c ---- */

/* The transport's name, "rc", "uc" or "ud" (upper case with @upper). */
const char *peer_transport(const struct peer_opts *o, bool upper);
/* UC or UD: nothing acknowledged, nothing resent; what is lost stays lost. */
bool peer_unreliable(const struct peer_opts *o);
/* Can the transport carry @op? false (with a message) if not: UC has no READ or atomics (IBA 9.8.3). */
bool peer_transport_op_ok(const struct peer_opts *o, enum peer_op op);

/* The host (rl_host) for p->net.local, sending through peer_emit(). */
int peer_host_new(struct peer *p);
/* The host, PD, CQ and QP (in RESET) of the test. */
int peer_setup(struct peer *p);

/*
 * rl_poll_cq() on the test's CQ, and each completion told as a libibverbs
 * program prints it: a failed one always (a flush after the first counted
 * instead, see peer_wc_finish()), every one with --show-wc.
 */
int peer_poll_cq(struct peer *p, int n, struct rl_wc *wc);
/* After a failure: the completions left in the CQ, the flushes' count, and what the QP did. */
void peer_wc_finish(struct peer *p);
/* What the QP went through that a learner should see (RNR NAKs, the error state); nothing if nothing. */
void peer_qp_report(const struct peer *p);

/* The buffer and its MR (again when the size changes). */
int peer_buffer(struct peer *p);
/* RESET -> INIT -> RTR -> RTS with what the exchange brought. */
int peer_connect_qp(struct peer *p);
int peer_post_recvs(struct peer *p, uint32_t completed);
/*
 * Let the host work and send, then wait for packets or for @fd (if >= 0)
 * until the host's next timer; true if @fd is readable (or hung up).
 */
bool peer_pump(struct peer *p, int fd);
/*
 * peer_progress.c: with p->prog.on, a line each second the QP has run
 * (rate, DCQCN's Rc and stage, CNPs in and out, CE marks seen); then
 * peer_progress_end()'s summary of the whole run, if it lasted a second.
 */
void peer_progress(struct peer *p, uint64_t now);
void peer_progress_end(struct peer *p);
/*
 * How long the wire must be quiet before a side leaves: longer than two local
 * ACK timeouts at the timeout 14 everyone here uses (4.096 us * 2^14 = 67 ms,
 * IBA 9.7.6.1.3), so that a SEND resent because our last ACK was lost still
 * finds port 4791 open, and so does its resend if that is lost too.
 */
#define PEER_QUIET_MS 150
/* Keep answering until the wire is quiet for @quiet_ms (at most 2 s). */
void peer_drain(struct peer *p, unsigned quiet_ms);
/* PEER_QUIET_MS, or with a longer -u two of its local ACK timeouts (still at most 2 s). */
unsigned peer_quiet_ms(const struct peer *p);
/* The whole test, after the options; returns a CLI_* exit code. */
int peer_run(struct peer *p);
void peer_close(struct peer *p);

/* ---- peer_rping.c ---- */

/* rocelab's own options next to a tool's flags (--compat rping, ucmatose, udaddy): their getopt codes. */
enum peer_compat_opt {
	PEER_O_LOSS = 256, PEER_O_SEED, PEER_O_QPN, PEER_O_TIMEOUT, PEER_O_JSON, PEER_O_COMPAT, PEER_O_IFACE,
	PEER_O_CORRUPT, PEER_O_TX_LOSS, PEER_O_ALLOW_GID,
};
#define PEER_COMPAT_LONGOPTS                                                                                  \
	{ "loss", required_argument, NULL, PEER_O_LOSS }, { "seed", required_argument, NULL, PEER_O_SEED },     \
	{ "qpn", required_argument, NULL, PEER_O_QPN }, { "timeout", required_argument, NULL, PEER_O_TIMEOUT }, \
	{ "json", no_argument, NULL, PEER_O_JSON }, { "compat", required_argument, NULL, PEER_O_COMPAT },       \
	{ "interface", required_argument, NULL, PEER_O_IFACE }, { "tx-loss", required_argument, NULL, PEER_O_TX_LOSS }, \
	{ "allow-other-gid", no_argument, NULL, PEER_O_ALLOW_GID }
/* One of rocelab's own options (enum peer_compat_opt); false (with a message) if it is refused. */
bool peer_compat_flag(struct peer_opts *o, int c, const char *arg);
/* @arg of the tool's flag @opt: an IPv4 or IPv6 address (the tools also resolve names; this side does not). */
bool peer_addr_arg(const char *opt, const char *arg, bool *v6);

/* Is this `rocelab peer --compat rping ...` (rping's own flags follow)? */
bool peer_rping_asked(int argc, char **argv);
/* rping's flags and ours; false with *rc set (CLI_OK after --help) when there is nothing to run. */
bool peer_rping_parse(int argc, char **argv, struct peer_opts *o, int *rc);
/* rping -s or rping -c; returns a CLI_* exit code. */
int peer_rping_run(struct peer *p);

/* ---- peer_cmatose.c ---- */

/* Is this `rocelab peer --compat ucmatose ...` or `--compat udaddy ...` (*ud)? Their own flags follow. */
bool peer_cmatose_asked(int argc, char **argv, bool *ud);
/* The tool's flags and ours; false with *rc set (CLI_OK after --help) when there is nothing to run. */
bool peer_cmatose_parse(int argc, char **argv, bool ud, struct peer_opts *o, int *rc);
/* The tool as server (no -s) or client; returns a CLI_* exit code. */
int peer_cmatose_run(struct peer *p);

/* ---- peer_srq.c ---- */

/* --compat pingpong --srq N against ibv_srq_pingpong -q N; returns a CLI_* exit code. */
int peer_srq_run(struct peer *p);

/* ---- peer_perftest.c ---- */

/* Is this `rocelab peer --compat ib_send_bw ...` (or another perftest tool, *tool)? perftest's flags follow. */
bool peer_perftest_asked(int argc, char **argv, unsigned *tool);
/* perftest's flags and ours; false with *rc set (CLI_OK after --help) when there is nothing to run. */
bool peer_perftest_parse(int argc, char **argv, unsigned tool, struct peer_opts *o, int *rc);
/* The tool as server (no address) or client; returns a CLI_* exit code. */
int peer_perftest_run(struct peer *p);

/* ---- peer_cm.c ---- */

/* The CM agent on the host's QP1; -1 with a message. */
int peer_cm_agent(struct peer *p);
/* Run the agent and move its new events to p->cm.ev (after the host ran). */
void peer_cm_run(struct peer *p, uint64_t now);
/* The oldest event not yet handled (the caller acks it with rl_rdma_ack_cm_event()), or NULL. */
struct rl_rdma_cm_event *peer_cm_event(struct peer *p);
/* Wait (--timeout) for the next event; NULL with a message if none came. */
struct rl_rdma_cm_event *peer_cm_wait(struct peer *p, const char *what);
/* The CM server's first frame: its destination is our address; then p->cm.up(). */
int peer_cm_first_frame(struct peer *p, const struct rl_path *path);
/* Free what is left: events, ids, the agent. */
void peer_cm_close(struct peer *p);
/* --cm: connect (client) or accept (server) through the CM instead of peer_exchange(). */
int peer_cm_connect(struct peer *p);
/* --cm client after the test: DREQ, and the DREP awaited. Server: the DISCONNECTED awaited already, the DREP. */
void peer_cm_disconnect(struct peer *p);
/* The server after its DREP: on the wire as long as a lost DREP would take the client to ask again. */
void peer_cm_linger(struct peer *p);

/* ---- peer_report.c ---- */

void peer_header(const struct peer *p);
void peer_bw_report(const struct peer *p, const uint64_t *stamps);
void peer_lat_report(const struct peer *p);
void peer_pingpong_report(const struct peer *p);
/* -a: a row of the table per size as each ends (the title before the first), then the totals. */
void peer_round_report(const struct peer *p, const uint64_t *stamps, bool first);
void peer_rounds_end(const struct peer *p);
void peer_served_report(const struct peer *p, bool data_ok);
/* --json after a failed run: the first failed completion (its ibv_wc_status), the flushes, the QP's state. */
void peer_fail_json(const struct peer *p);

/* ---- peer_wire.c ---- */

uint64_t peer_now(void);

void peer_addr_set_port(union peer_addr *a, uint16_t port);
socklen_t peer_addr_len(const union peer_addr *a);
void peer_addr_str(const union peer_addr *a, char *s, size_t n);
void peer_addr_to_gid(const union peer_addr *a, uint8_t gid[16]);
static inline void peer_gid_str(const uint8_t gid[16], char *s, size_t n)
{
	cli_gid_str(gid, s, n);
}
static inline bool peer_gid_is_link_local(const uint8_t gid[16])
{
	return cli_gid_is_link_local(gid);
}
/* Is @gid an address of the family p->net.family (IPv4-mapped for IPv4)? */
bool peer_gid_family_ok(const struct peer *p, const uint8_t gid[16]);

/* Pick the local GID (--gid-index, or the one of p->net.local) and make p->net.local its address. */
int peer_pick_gid(struct peer *p);
/* The path MTU as rxe picks it from the interface; an --mtu it cannot carry is refused. */
int peer_pick_mtu(struct peer *p);
/* The UDP sockets: 4791 to receive, the QP's source port to send; -1 with a message. */
int peer_sockets(struct peer *p, uint16_t sport, bool any_sport);
/* Only the receiving side (on p->net.local, which may be the any address) and the send queue. */
int peer_rx_sockets(struct peer *p);
/* The local address that reaches p->net.remote (or -I's), as the kernel's route lookup picks it. */
int peer_route_local(struct peer *p);
void peer_gid_to_addr(const uint8_t gid[16], int family, union peer_addr *a);
/* The host's emit_pkt callback: BTH..ICRC, queued as a UDP datagram for peer_flush(). */
void peer_emit(void *ctx, const struct rl_path *path, const uint8_t *pkt, size_t len);
/* Send what peer_emit() queued, in one sendmmsg() where it can. */
void peer_flush(struct peer *p);
/* Packets may flow to p->net.remote from now on. */
int peer_tx_start(struct peer *p);
/* Everything the rx socket holds, into the host (which runs after each), with --loss applied. */
void peer_receive(struct peer *p, uint64_t now);
void peer_queues_free(struct peer *p);
/* SO_BINDTODEVICE for --interface; -1 with a message. */
int peer_bind_device(const struct peer *p, int fd);

#endif
