/* SPDX-License-Identifier: MIT */
/*
 * A simulated Ethernet link between two ports, in simulated time, for
 * running two simulated RoCE hosts against each other (tests, pcapgen).
 *
 * Sans-IO, like the rest of core: no sockets, threads, clocks or globals.
 * The caller passes the time (nanoseconds) and asks when the next frame
 * arrives. A driver loop looks like:
 *
 *	while ((t = rl_simwire_next_time(w)) != UINT64_MAX) {
 *		while (rl_simwire_deliver(w, t, &d))
 *			host_receive(host[d.to_port], d.frame, d.len, t);  (may send at t)
 *	}
 *
 * Each direction (port 0 -> 1, port 1 -> 0) has a transmit queue, a
 * serializer (rate_bps) and a propagation delay (latency_ns):
 *
 *	start   = max(now, the direction's busy_until)
 *	busy    = start + ceil(len * 8e9 / rate_bps)
 *	arrival = busy + latency_ns
 *
 * Faults (drop, duplicate, reorder, corrupt, ECN mark) are decided when a
 * frame is sent, by a PRNG seeded from the config: the same seed and the
 * same sends give the same frames at the same times, byte for byte.
 */
#ifndef ROCELAB_SIMWIRE_H
#define ROCELAB_SIMWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest frame the wire carries: jumbo frames, with room to spare. */
#define RL_SIMWIRE_MAX_FRAME 10000

#define RL_SIMWIRE_DEFAULT_LATENCY_NS 1000
#define RL_SIMWIRE_DEFAULT_QUEUE_FRAMES 1024

/* Return statuses of rl_simwire_send(). */
enum rl_simwire_err {
	RL_SIMWIRE_OK = 0,
	RL_SIMWIRE_E_ARG = -1,    /* no wire */
	RL_SIMWIRE_E_PORT = -2,   /* the port is not 0 or 1 */
	RL_SIMWIRE_E_FRAME = -3,  /* frame NULL, empty or longer than RL_SIMWIRE_MAX_FRAME */
	RL_SIMWIRE_E_TIME = -4,   /* now is earlier than the previous send's now */
	RL_SIMWIRE_E_NOMEM = -5,  /* out of memory: the frame was not sent (nor numbered) */
	RL_SIMWIRE_E_CONFIG = -6, /* a bottleneck parameter out of range (see struct rl_bottleneck) */
};
/* One sentence for a status, e.g. for a CLI or a test log. */
const char *rl_simwire_strerror(int status);

/*
 * What became of a frame. One fate per frame: when several fault draws
 * fire for the same frame, the first in this list wins (so the rate of a
 * later fault is slightly below its nominal value when several are set).
 * A fault that does not apply is skipped: corruption only hits RoCE frames,
 * ECN marking only frames whose IP header says ECT(0) or ECT(1).
 */
enum rl_simwire_fate {
	RL_SIMWIRE_DELIVERED = 0,        /* arrives once, unchanged */
	RL_SIMWIRE_QUEUE_FULL,           /* tail-dropped by the sender's full transmit queue */
	RL_SIMWIRE_DROPPED_BY_NUMBER,    /* its number is in drop_frames: lost on the wire */
	RL_SIMWIRE_DROPPED,              /* lost on the wire at random (drop_rate) */
	RL_SIMWIRE_DUPLICATED,           /* arrives twice, the copy right behind the original */
	RL_SIMWIRE_REORDERED,            /* delayed by reorder_delay_ns: later frames overtake it */
	RL_SIMWIRE_CORRUPTED,            /* arrives with one bit flipped that only the ICRC catches */
	RL_SIMWIRE_ECN_MARKED,           /* arrives with IP ECN = CE (11) */
	/*
	 * The two fates of a bottleneck (struct rl_bottleneck). They rank right
	 * after RL_SIMWIRE_QUEUE_FULL: a frame the congestion point drops never
	 * reaches the wire's faults. A frame it marks CE and the wire then
	 * duplicates, reorders or corrupts keeps the wire's fate (and its CE).
	 */
	RL_SIMWIRE_BOTTLENECK_FULL,      /* tail-dropped: the bottleneck's queue had no room for it */
	RL_SIMWIRE_RED_DROPPED,          /* RED chose it, but it is Not-ECT: dropped instead of marked */
	RL_SIMWIRE_FATE_COUNT
};
/* Short stable tag: "delivered", "queue-full", "dropped-by-number", ... */
const char *rl_simwire_fate_name(enum rl_simwire_fate fate);

/* A frame as it enters the wire, for the optional record callback. */
struct rl_simwire_record {
	uint64_t number;             /* 1-based, in send order, both directions together */
	int from_port;
	uint64_t time_ns;            /* when its last bit passes a tap on the link (after serialization, plus a
				      * reordered frame's delay); a duplicated frame is recorded twice */
	uint64_t sent_ns;            /* when the port handed it over: the send's now (<= time_ns) */
	const uint8_t *frame;        /* as it travels: after corruption or ECN marking */
	size_t len;
	enum rl_simwire_fate fate;
};

/* Every field's zero value is a sensible default: {0} is a perfect wire. */
struct rl_simwire_config {
	uint64_t latency_ns;         /* one-way propagation delay; 0: 1000 ns */
	uint64_t rate_bps;           /* serialization rate; 0: infinitely fast */
	size_t queue_frames;         /* frames waiting to be serialized, per direction; 0: 1024 */
	uint64_t seed;               /* every random fault comes from a PRNG seeded here */
	/* Per-frame probabilities, 0..1. */
	double drop_rate, dup_rate, reorder_rate, corrupt_rate, ecn_rate;
	/* Exact frame numbers to drop (1-based, as in struct rl_simwire_record); copied. */
	const uint64_t *drop_frames;
	size_t n_drop_frames;
	uint64_t reorder_delay_ns;   /* extra delay of a reordered frame; 0: 3 x latency */
	/*
	 * Optional: choose a frame's fate yourself (e.g. "lose the second
	 * packet A sends"). Return RL_SIMWIRE_DELIVERED to leave it to the
	 * rates above. Corrupt and ECN-mark apply only where they can (a RoCE
	 * frame; an ECN-capable one). Called once per frame, in send order.
	 */
	enum rl_simwire_fate (*choose)(void *ctx, uint64_t number, int from_port, const uint8_t *frame,
				       size_t len);
	/* Optional: called from rl_simwire_send() for every frame, whatever its fate. */
	void (*record)(void *ctx, const struct rl_simwire_record *r);
	void *ctx;
};

/* A frame handed to a port by rl_simwire_deliver(). */
struct rl_simwire_delivery {
	int to_port;
	uint64_t time_ns;            /* its arrival time (<= the now asked about) */
	const uint8_t *frame;        /* valid until the next rl_simwire_deliver() or _free() */
	size_t len;
	uint64_t number;             /* the frame's number, as in the record */
};

/* Counters of one direction: frames sent by a port and what became of them. */
struct rl_simwire_stats {
	uint64_t sent;               /* accepted by rl_simwire_send(), whatever their fate */
	uint64_t delivered;          /* copies handed out (a duplicated frame counts twice) */
	uint64_t dropped;            /* lost on the wire: at random and by number */
	uint64_t duplicated, reordered, corrupted, ecn_marked;
	uint64_t queue_full;         /* tail-dropped before the wire */
	uint64_t bottleneck_dropped; /* dropped by the direction's bottleneck: queue full or RED */
};

struct rl_simwire;

/* NULL on a bad config (a rate outside 0..1, frame number 0) or no memory; NULL cfg: defaults. */
struct rl_simwire *rl_simwire_new(const struct rl_simwire_config *cfg);
/* Frees the wire and every frame still in flight. */
void rl_simwire_free(struct rl_simwire *w);

/*
 * Port 0 or 1 hands a frame to the wire at time @now; the wire copies it.
 * Returns RL_SIMWIRE_OK or a negative enum rl_simwire_err. A lost frame
 * still returns OK (a sender cannot tell) and is counted in the stats.
 * @now must not go back in time from one send to the next (both ports
 * share one clock): the transmit queues are reckoned against it.
 */
int rl_simwire_send(struct rl_simwire *w, int port, const uint8_t *frame, size_t len, uint64_t now);

/* Earliest arrival time of a frame in flight; UINT64_MAX when the wire is empty. */
uint64_t rl_simwire_next_time(const struct rl_simwire *w);

/*
 * Take the next frame that has arrived by @now: earliest arrival first,
 * frames arriving at the same time in send order. Returns false if none.
 */
bool rl_simwire_deliver(struct rl_simwire *w, uint64_t now, struct rl_simwire_delivery *out);

/*
 * Frames @port has handed over that have not started serializing by @now
 * (its transmit queue); 0 for a bad port or an infinitely fast wire.
 */
size_t rl_simwire_queued(struct rl_simwire *w, int port, uint64_t now);
/* When fewer than @n frames will wait in @port's transmit queue: @now if they do already. */
uint64_t rl_simwire_queue_below(struct rl_simwire *w, int port, uint64_t now, size_t n);

/* Counters of the direction from @port (all zero for a bad port). */
void rl_simwire_stats(const struct rl_simwire *w, int port, struct rl_simwire_stats *st);

/*
 * ---- a congestion point -------------------------------------------------
 *
 * A bottleneck on one direction: a switch's egress queue between the
 * sender's link and the wire, with its own line rate, a byte limit and RED
 * with ECN marking, as a DCQCN switch is configured (Zhu et al., "Congestion
 * Control for Large-Scale RDMA Deployments", SIGCOMM 2015, the CP algorithm;
 * Linux tc-red(8) min/max/probability/ecn). A frame reaches it when the
 * sender's link has serialized it (at the send's now on an infinitely fast
 * link) and, once admitted, leaves at
 *
 *	depart  = max(arrival, the previous frame's depart) + ceil(len * 8e9 / rate_bps)
 *	arrival at the far port = depart + latency_ns
 *
 * The queue depth is the bytes of the frames admitted and not yet departed
 * (the frame in service included). On arrival, with depth d before the frame:
 *
 *	d + len > queue_bytes         tail drop (RL_SIMWIRE_BOTTLENECK_FULL)
 *	d <= kmin                     never marked
 *	kmin < d <= kmax              marked with p = pmax * (d - kmin) / (kmax - kmin)
 *	d > kmax                      always marked
 *
 * d is the instantaneous queue, as DCQCN's switches (and DCTCP's) use it, not
 * tc-red's average (an EWMA tuned by burst and avpkt). Marking sets ECN to CE
 * on an ECT(0)/ECT(1) frame (IPv4's header checksum updated; the ICRC masks
 * the ECN bits, IBA A17.3.3) and leaves CE as CE; a Not-ECT frame chosen for
 * marking is dropped instead (RL_SIMWIRE_RED_DROPPED), as sch_red.c's
 * INET_ECN_set_ce() failure path does. The draw is the wire's seeded PRNG
 * on a stream of its own, so adding a bottleneck moves no other fault.
 *
 * Off by default: a wire without rl_simwire_set_bottleneck() is unchanged.
 */
struct rl_bottleneck_sample;

struct rl_bottleneck {
	uint64_t rate_bps;           /* line rate out of the queue; must not be 0 */
	uint32_t queue_bytes;        /* the queue's limit; 0: no limit */
	uint32_t kmin, kmax;         /* RED thresholds, bytes of queue; kmin <= kmax */
	double pmax;                 /* marking probability at kmax, 0..1 */
	/* Optional: the queue over time, for plots (each enqueue, drop and dequeue). */
	void (*sample)(void *ctx, const struct rl_bottleneck_sample *s);
	void *ctx;
};

enum rl_bottleneck_event {
	RL_BOTTLENECK_ENQUEUE,       /* admitted (perhaps marked); depth includes it */
	RL_BOTTLENECK_DROP,          /* tail-dropped or RED-dropped; depth unchanged */
	RL_BOTTLENECK_DEQUEUE,       /* its last bit left; depth without it */
};

/*
 * One change of the queue. Dequeues are reported once time has passed them:
 * at the next arrival at this bottleneck, rl_simwire_deliver() or
 * rl_simwire_bottleneck_depth(), so a driver that drains the wire sees all.
 */
struct rl_bottleneck_sample {
	int from_port;               /* the direction: frames sent by this port */
	enum rl_bottleneck_event event;
	uint64_t time_ns;
	uint64_t number;             /* the frame, numbered as in struct rl_simwire_record */
	uint32_t len;
	uint64_t depth_bytes;        /* after the event */
	bool marked;                 /* an enqueue this bottleneck marked CE */
};

struct rl_bottleneck_stats {
	uint64_t enqueued, dequeued;
	uint64_t marked;             /* set to CE here (a frame already CE counts too) */
	uint64_t dropped_full;       /* tail drops past queue_bytes */
	uint64_t dropped_red;        /* Not-ECT frames RED chose */
	uint64_t max_depth_bytes;    /* deepest the queue has been */
};

/*
 * Give the direction from @port a bottleneck (copied), or take it away with
 * @b NULL. Frames already queued keep their departure times. Returns
 * RL_SIMWIRE_OK, RL_SIMWIRE_E_ARG, _E_PORT, _E_CONFIG (rate 0, kmin > kmax,
 * pmax outside 0..1) or _E_NOMEM.
 */
int rl_simwire_set_bottleneck(struct rl_simwire *w, int port, const struct rl_bottleneck *b);
/* Bytes in the bottleneck of @port's direction at @now (0 without one); reports dequeues up to @now. */
uint64_t rl_simwire_bottleneck_depth(struct rl_simwire *w, int port, uint64_t now);
/* Its counters (all zero without a bottleneck or for a bad port). */
void rl_simwire_bottleneck_stats(const struct rl_simwire *w, int port, struct rl_bottleneck_stats *st);
/* The marking probability RED applies at queue depth @depth_bytes (the formula above). */
double rl_bottleneck_mark_prob(const struct rl_bottleneck *b, uint64_t depth_bytes);

/*
 * The DCQCN paper's switch settings (Zhu et al. 2015, section 5's
 * Kmin = 5 KB, Kmax = 200 KB, Pmax = 1%), a 10 Gb/s port and a 400 KB
 * buffer: the defaults of 'rocelab gen dcqcn' and 'rocelab switch'.
 */
#define RL_BOTTLENECK_KB 1024u
void rl_bottleneck_defaults(struct rl_bottleneck *b);

/*
 * ---- the same congestion point on its own, in real time ----------------
 *
 * One egress queue fed with real frames and a clock the caller reads (a
 * user-space switch: rocelab switch). Same model, same marking and same
 * counters as the simulated wire's bottleneck above: the caller offers each
 * frame when it arrives, the queue marks CE in it or says to drop it, and
 * says when its last bit departs; the caller sends it then. Times are
 * nanoseconds on any clock that does not go back. The RED draws come from
 * a splitmix64 stream seeded by @seed, one draw per frame offered.
 */
struct rl_bottleneck_queue;

enum rl_bottleneck_verdict {
	RL_BOTTLENECK_PASS,          /* admitted unchanged */
	RL_BOTTLENECK_MARKED,        /* admitted, ECN set to CE (IPv4 checksum updated) */
	RL_BOTTLENECK_DROP_FULL,     /* tail drop: no room under queue_bytes */
	RL_BOTTLENECK_DROP_RED,      /* RED chose it, but it is Not-ECT */
};

/* NULL on a config rl_simwire_set_bottleneck() would refuse, or no memory. */
struct rl_bottleneck_queue *rl_bottleneck_queue_new(const struct rl_bottleneck *b, uint64_t seed);
void rl_bottleneck_queue_free(struct rl_bottleneck_queue *q);
/*
 * Frame @frame arrives at @now (no earlier than the previous offer): the
 * verdict, with the frame marked in place if MARKED, and *@depart the time
 * its last bit leaves if admitted. -1 (nothing counted) if out of memory.
 * An admitted frame's pointer (not its bytes) stays in the queue for
 * rl_bottleneck_queue_pop(). Frames departed by @now leave the queue here,
 * as in rl_bottleneck_queue_depth(): a caller that sends what it offered
 * pops them first.
 */
int rl_bottleneck_queue_offer(struct rl_bottleneck_queue *q, uint8_t *frame, size_t len, uint64_t now,
			      uint64_t *depart);
/* The oldest frame queued, if its last bit has left by @now: out of the queue, its pointer and length. */
bool rl_bottleneck_queue_pop(struct rl_bottleneck_queue *q, uint64_t now, uint8_t **frame, size_t *len);
/* Bytes queued at @now (frames departed by then leave, with their DEQUEUE samples). */
uint64_t rl_bottleneck_queue_depth(struct rl_bottleneck_queue *q, uint64_t now);
/*
 * Read-only, for a report between offers: the bytes queued at @to, and in
 * *@area the depth's integral over [@from, @to] (bytes x ns) if nothing
 * arrives meanwhile. Nothing leaves, so a later offer stamped before @to
 * still finds the frames that were there. @from no earlier than the last offer or pop.
 */
uint64_t rl_bottleneck_queue_depth_over(const struct rl_bottleneck_queue *q, uint64_t from, uint64_t to,
					uint64_t *area);
/* When the oldest frame queued departs; UINT64_MAX when empty. */
uint64_t rl_bottleneck_queue_next_departure(const struct rl_bottleneck_queue *q);
void rl_bottleneck_queue_stats(const struct rl_bottleneck_queue *q, struct rl_bottleneck_stats *st);

#ifdef __cplusplus
}
#endif
#endif
