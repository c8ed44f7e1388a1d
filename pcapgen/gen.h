/* SPDX-License-Identifier: MIT */
/*
 * pcapgen: scenarios on a simulated wire, written to a pcap. The options a
 * scenario reads, the pcap writer and the scenario tables (the two-host
 * session they run in is scenarios.c's own). Depends on core and libpcap;
 * errors come back as messages (gen_out.msg), never printed here. The
 * `rocelab gen` subcommand (cli/gen.c) parses options and calls this.
 */
#ifndef ROCELAB_GEN_H
#define ROCELAB_GEN_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>

#include "rocelab/rocelab.h"

/* A simulated start time (2023-11-14 22:13:20 UTC), so files are reproducible. */
#define GEN_EPOCH_NS 1700000000000000000ull
#define GEN_MAX_DROPS 64
#define GEN_PROGRESS_EVERY 100000
/* The pcapng comment on a frame the simulated wire lost on purpose (--loss, --drop, the loss scenarios). */
#define GEN_LOST_COMMENT "lost on the way (rocelab gen)"
/*
 * The pcapng comment on a frame that passed the congestion scenarios' switch
 * queue: "bottleneck queue 41234 B", the bytes queued ahead of it when it
 * arrived (the depth RED compares with Kmin and Kmax, rocelab/simwire.h).
 * gen_depth_comment() writes it, gen_depth_parse() reads it back (explain, report).
 */
#define GEN_DEPTH_COMMENT_PREFIX "bottleneck queue "
#define GEN_DEPTH_COMMENT_UNIT " B"
#define GEN_DEPTH_COMMENT_MAX 48
#define GEN_NO_DEPTH UINT64_MAX      /* a frame that met no queue: no depth comment */

struct gen_opts {
	const char *out;
	uint64_t seed;
	bool ipv6;
	bool vlan;
	uint16_t vlan_id;
	enum rl_mtu mtu;
	bool mtu_set;                /* --mtu given (the congestion scenarios' own default is 4096) */
	uint32_t size;               /* 0: the scenario's default */
	uint64_t count;              /* 0: the scenario's default */
	uint32_t window;             /* 0: the scenario's default */
	double loss;
	uint64_t drops[GEN_MAX_DROPS];
	size_t ndrops;
	uint64_t bad_write;          /* --bad-write: access-error and range-error aim this WRITE wrong; 0: the first */
	uint64_t drop_request;       /* --drop-request: A's Nth frame on the wire is lost (1-based); 0: none */
	/* The QP attributes behind RNR (IBA 9.7.5.2.8); each *_set: given, else rl_conn_defaults()'s. */
	bool rnr_timer_set, rnr_retry_set;
	uint8_t min_rnr_timer;       /* --min-rnr-timer: the code B's RNR NAKs carry (IBA Table 46) */
	uint8_t rnr_retry;           /* --rnr-retry: A's retries after an RNR NAK; 7 = for ever */
	uint8_t mac[2][6];
	uint8_t ip4[2][4];
	uint8_t ip6[2][16];
	uint32_t qpn[2];
	uint32_t psn[2];
	bool psn_set[2];
	uint64_t rate_bps;
	uint64_t latency_ns;
	uint32_t qps;                /* fabric: QPs; 0: its default */
	bool pcapng;                 /* write pcapng (lost frames commented) instead of pcap */
	/* The congestion scenarios (congestion.c): the switch port's queue and the senders' control. */
	bool cc_none;                /* --cc none: no reaction point, CNPs only counted */
	uint64_t bn_rate_bps;        /* --bottleneck: the queue's line rate */
	uint32_t bn_queue_bytes;     /* --queue: its limit, tail drop past it */
	uint32_t bn_kmin, bn_kmax;   /* --kmin, --kmax: RED's thresholds */
	double bn_pmax;              /* --pmax: marking probability at kmax */
	uint32_t senders;            /* incast: flows into the one receiver */
	uint64_t cnp_interval_ns;    /* --cnp-interval: the receiver's min_time_between_cnps; 0: the core's */
	struct rl_dcqcn_params dcqcn; /* --dcqcn: the senders' reaction point; the paper's unless set */
	bool dcqcn_set;              /* --dcqcn given (refused with --cc none) */
};

/* KB as tc's (tc(8): kb = 1024 bytes); the congestion point's defaults are core's rl_bottleneck_defaults(). */
#define GEN_KB RL_BOTTLENECK_KB
#define GEN_SENDERS_MIN 2
#define GEN_SENDERS_MAX 4
#define GEN_SENDERS_DEFAULT 3

/* The defaults: seed 1, MTU 1024, 192.168.100.1/.2 (fd00::1/::2), 02:00:00:00:00:01/02, QPNs 0x11/0x12. */
void gen_opts_default(struct gen_opts *o);

/*
 * Frames go to a pcap through libpcap (or to a pcapng written here), optionally with an 802.1Q tag added,
 * in timestamp order: frames whose time may still be overtaken wait in a
 * small heap (as many as are in flight, in buffers reused from frame to
 * frame), so memory stays constant.
 */
struct gen_held {
	uint64_t t_ns, seq;
	size_t len, cap;
	uint8_t *frame;
	bool lost;
	uint64_t depth;              /* the queue it met, or GEN_NO_DEPTH */
};

/* A held frame's buffer, kept for the next frame once written. */
struct gen_spare {
	uint8_t *frame;
	size_t cap;
};

/* Called every GEN_PROGRESS_EVERY frames written, with the count. */
typedef void (*gen_progress_fn)(uint64_t frames);

struct gen_out {
	pcap_t *dead;
	pcap_dumper_t *dump;         /* pcap through libpcap; NULL when writing pcapng to ng */
	FILE *ng;
	const struct gen_opts *o;
	uint64_t frames;
	uint64_t next_progress;
	gen_progress_fn progress;
	int err;                     /* out of memory for a held frame */
	int write_errno;             /* errno of the first write that failed (the stream keeps only that one did) */
	struct gen_held *held;       /* a min-heap on (t_ns, seq) */
	size_t nheld, capheld;       /* room in held and in spare */
	struct gen_spare *spare;     /* buffers of frames written, for the next held ones */
	size_t nspare;
	uint64_t seq;
	char msg[320];               /* why the writer or the scenario failed */
};

/*
 * Start a pcap on @f, which the writer then owns (closed by gen_out_close(), or
 * here on failure); o->out names it in messages. Where @f leads (a temporary
 * file renamed into place, standard output) is the caller's business.
 * @progress may be NULL. 0, or -1 with out->msg.
 */
int gen_out_open(struct gen_out *out, const struct gen_opts *o, FILE *f, gen_progress_fn progress);
/*
 * Write a frame stamped @t_ns; no later call will carry a time before @horizon_ns.
 * @lost: the wire lost it on purpose (a pcapng says so in the frame's comment).
 */
void gen_out_frame(struct gen_out *out, uint64_t t_ns, uint64_t horizon_ns, const uint8_t *frame, size_t len,
		   bool lost);
/* The same, for a frame that met a switch queue @depth bytes deep (a pcapng comments it unless lost). */
void gen_out_frame_depth(struct gen_out *out, uint64_t t_ns, uint64_t horizon_ns, const uint8_t *frame,
			 size_t len, bool lost, uint64_t depth);
/* The depth comment of @depth into @buf (GEN_DEPTH_COMMENT_MAX bytes are enough). */
void gen_depth_comment(char *buf, size_t n, uint64_t depth);
/* Whether @comment is a depth comment, exactly; its depth in *@depth if so. */
bool gen_depth_parse(const char *comment, uint64_t *depth);
/* Flush and close the stream, checking that every write went through. 0, or -1 with out->msg. */
int gen_out_close(struct gen_out *out);
/* Say why in out->msg; returns -1. */
int gen_fail(struct gen_out *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A congestion point's thresholds, checked one way for 'gen dcqcn' and
 * 'rocelab switch' (congestion.c): Kmin above Kmax, or a queue (0: no limit)
 * below Kmax or too short to hold Kmax and two frames of @frame_bytes, where
 * it would tail-drop before RED marks every frame. 0, or -1 with why in @why.
 */
int gen_bottleneck_check(uint32_t kmin, uint32_t kmax, uint32_t queue_bytes, uint64_t frame_bytes, char *why,
			 size_t n);

/* ---- the scenarios (scenarios.c, cm.c, crafted.c, congestion.c) ---------------------------------------------- */

/*
 * The options only some scenarios read, a kind each. A scenario's row says
 * which kinds it takes; cli/gen.c refuses the others, which it would
 * otherwise ignore in silence, with a reason: the row's own (gen_scenario.why)
 * or, if it has none for that kind, the kind's.
 */
enum gen_opt_kind {
	GEN_OPT_WIRE,     /* the simulated wire: --loss, --drop, --drop-request, --rate, --latency */
	GEN_OPT_WINDOW,   /* --window: work requests outstanding */
	GEN_OPT_RNR,      /* --min-rnr-timer, --rnr-retry: what RNR NAKs carry and how often A retries */
	GEN_OPT_PSN_A,    /* --psn-a */
	GEN_OPT_PSN_B,    /* --psn-b: on the wire only where B sends requests */
	GEN_OPT_QPN_A,    /* --qpn-a */
	GEN_OPT_QPN_B,    /* --qpn-b */
	GEN_OPT_MTU,      /* --mtu */
	GEN_OPT_SEED,     /* --seed */
	GEN_OPT_IPV6,     /* --ipv6 */
	GEN_OPT_COUNT,    /* --count: messages or rounds */
	GEN_OPT_SIZE,     /* --size: bytes per message */
	GEN_OPT_QPS,      /* --qps: fabric's connections */
	GEN_OPT_BAD,      /* --bad-write: which WRITE aims wrong */
	GEN_OPT_CC,       /* the switch port and the congestion control */
	GEN_OPT_SENDERS,  /* --senders */
	GEN_OPT_NP,       /* --cnp-interval: the receiver of CE-marked packets */
	GEN_OPT_KINDS
};

/* gen_scenario.takes: a bit per kind. */
enum gen_takes {
	GEN_TAKES_WIRE = 1u << GEN_OPT_WIRE,
	GEN_TAKES_WINDOW = 1u << GEN_OPT_WINDOW,
	GEN_TAKES_RNR = 1u << GEN_OPT_RNR,
	GEN_TAKES_PSN_A = 1u << GEN_OPT_PSN_A,
	GEN_TAKES_PSN_B = 1u << GEN_OPT_PSN_B,
	GEN_TAKES_QPN_A = 1u << GEN_OPT_QPN_A,
	GEN_TAKES_QPN_B = 1u << GEN_OPT_QPN_B,
	GEN_TAKES_MTU = 1u << GEN_OPT_MTU,
	GEN_TAKES_SEED = 1u << GEN_OPT_SEED,
	GEN_TAKES_IPV6 = 1u << GEN_OPT_IPV6,
	GEN_TAKES_COUNT = 1u << GEN_OPT_COUNT,
	GEN_TAKES_SIZE = 1u << GEN_OPT_SIZE,
	GEN_TAKES_QPS = 1u << GEN_OPT_QPS,
	GEN_TAKES_BAD = 1u << GEN_OPT_BAD,
	GEN_TAKES_CC = 1u << GEN_OPT_CC,
	GEN_TAKES_SENDERS = 1u << GEN_OPT_SENDERS,
	GEN_TAKES_NP = 1u << GEN_OPT_NP,
	GEN_TAKES_QPN = GEN_TAKES_QPN_A | GEN_TAKES_QPN_B,
	/*
	 * Two QPs on the simulated wire, what every scenario but the crafted ones
	 * runs on; B's PSN, RNR and --window only where a row adds them.
	 */
	GEN_TAKES_PAIR = GEN_TAKES_WIRE | GEN_TAKES_QPN | GEN_TAKES_PSN_A | GEN_TAKES_MTU | GEN_TAKES_SEED |
			 GEN_TAKES_IPV6,
	GEN_TAKES_MSGS = GEN_TAKES_COUNT | GEN_TAKES_SIZE,
};

/*
 * A row's own reasons (gen_scenario.why), by kind, each naming what does
 * take the option where one does: GEN_WHY([GEN_OPT_MTU] = "...", ...).
 * GEN_WHY_MSGS(r): @r for --count and --size, of which the row takes at most one.
 */
#define GEN_WHY(...) ((const char *const[GEN_OPT_KINDS]){ __VA_ARGS__ })
#define GEN_WHY_MSGS(r) [GEN_OPT_COUNT] = (r), [GEN_OPT_SIZE] = (r)

struct gen_scenario {
	const char *name;
	int (*run)(const struct gen_opts *o, struct gen_out *out);
	unsigned takes;              /* enum gen_takes */
	/* Why it does not take a kind, where its own reason says more than the kind's; NULL: none. */
	const char *const *why;
	const char *teaches;
};

/* The scenario called @name, or NULL. */
const struct gen_scenario *gen_find(const char *name);

/* The next number of the seeded generator (xorshift64*) whose state is *@s, never 0 (crafted.c). */
uint64_t gen_rand(uint64_t *s);

/* The fabric scenario (fabric.c): --qps connections interleaved as a port mirror sees them. */
int gen_fabric(const struct gen_opts *o, struct gen_out *out);

extern const struct gen_scenario gen_crafted[];
extern const size_t gen_ncrafted;
extern const struct gen_scenario gen_transport[];
extern const size_t gen_ntransport;
extern const struct gen_scenario gen_rdma_cm[];
extern const size_t gen_nrdma_cm;
extern const struct gen_scenario gen_congestion[];
extern const size_t gen_ncongestion;

#endif
