/* SPDX-License-Identifier: MIT */
/*
 * Inside the reference transport: the objects behind the verbs handles and
 * the functions the requester (req.c), responder (resp.c) and completer
 * (comp.c) share. A QP's send side is the requester plus the completer; its
 * receive side is the responder (IBA 9.7: "requester" and "responder").
 */
#ifndef ROCELAB_TRANSPORT_H
#define ROCELAB_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/dcqcn.h"
#include "rocelab/packet.h"
#include "rocelab/verbs.h"

#include "opcode_table.h"

#define RL_NEVER UINT64_MAX
/* Largest frame: Ethernet + VLAN + IPv6 + UDP + BTH + headers + 4096 + ICRC. */
#define RL_FRAME_MAX (18 + 40 + 8 + 12 + 64 + 4096 + 4)
/* At most this many PSNs unacknowledged (IBA 9.7.7.1: half the PSN space is the limit; rxe uses 128). */
#define RL_MAX_UNACKED_PSNS 128
/* More packets than this without AckReq, and the next one asks for an ACK (rxe: RXE_MAX_PKT_PER_ACK). */
#define RL_MAX_PKT_PER_ACK 64
#define RL_UD_GRH_LEN 40
/* At most one CNP per QP in this interval (DCQCN's min_time_between_cnps default, 50 us). */
#define RL_CNP_INTERVAL_NS 50000
/* Asynchronous events a host keeps until rl_get_async_event() takes them. */
#define RL_ASYNC_EVENTS 32
/* The port's one P_Key: the default partition, full member (IBA 10.9.1.2); rxe's table holds only it. */
#define RL_PKEY_DEFAULT 0xffff
/* A port counter as PortInfo keeps it: 16 bits, stopping at the top (IBA 14.2.5.6). */
#define RL_PORT_CNTR_MAX 0xffffu

struct rl_host {
	struct rl_host_config cfg;
	bool v4;                        /* cfg.gid is IPv4-mapped: the port speaks RoCEv2 over IPv4 */
	uint32_t port_mtu;
	uint64_t now;
	uint32_t next_qpn;
	uint32_t next_key;
	uint64_t key_rng;               /* cfg.key_seed's generator; unused when it is 0 */
	uint32_t bad_pkey_cntr, qkey_viol_cntr; /* the port's (rl_query_port) */
	struct rl_pd *pds;
	struct rl_mr *mrs;
	struct rl_cq *cqs;
	struct rl_qp *qps;
	struct rl_srq *srqs;
	/* Asynchronous events (IBA 11.6.3), oldest at async_head; the newest is dropped when full. */
	struct rl_async_event async[RL_ASYNC_EVENTS];
	unsigned async_head, async_count;
	char err[200];
	uint8_t frame[RL_FRAME_MAX];    /* what the host sends: a frame, or BTH..ICRC for emit_pkt */
};

struct rl_pd {
	struct rl_host *host;
	unsigned users;
	struct rl_pd *next;
};

struct rl_mr {
	struct rl_pd *pd;
	uint8_t *addr;
	size_t length;
	uint64_t iova;
	unsigned access;
	uint32_t lkey, rkey;
	struct rl_mr *next;
};

struct rl_cq {
	struct rl_host *host;
	struct rl_wc *ring;
	int cap, head, count;
	unsigned users;
	bool overflow;
	struct rl_cq *next;
};

/* A shared receive queue (IBA 10.2.9): a ring of receive WQEs that several QPs take from. */
struct rl_srq {
	struct rl_host *host;
	struct rl_pd *pd;
	void *context;
	struct rl_recv_wr *ring;      /* counters run freely, index = counter % max_wr */
	uint32_t max_wr, max_sge, head, tail;
	uint32_t limit;               /* armed limit, 0 when not armed (or fired) */
	unsigned users;               /* QPs created with it */
	struct rl_srq *next;
};

/* A send work request on its way through requester and completer. */
struct rl_send_wqe {
	struct rl_send_wr wr;
	uint32_t length;          /* bytes in the SGE list */
	uint32_t first_psn;       /* PSNs this message occupies, assigned when first sent */
	uint32_t npkts;
	bool started;             /* the requester has given it PSNs */
	uint32_t resp_bytes;      /* READ: bytes of response placed so far */
	uint8_t atomic_wr[8];     /* ATOMIC WRITE: the value, gathered from the SGE when first sent */
	enum rl_wc_status error;  /* a local error found while sending, reported when flushed */
};

/* A READ, atomic, FLUSH or ATOMIC WRITE the responder executed, kept to answer duplicates (IBA 9.7.5.1.x). */
struct rl_resp_res {
	bool valid;
	bool atomic;
	uint8_t opcode;           /* the request's: a duplicate must be the same operation */
	uint32_t first_psn, last_psn;
	uint64_t va;
	uint32_t rkey, length;
	uint64_t orig;            /* atomic: what memory held before */
	uint32_t msn;
};

/*
 * A READ response being sent (IBA 9.7.5.1.4; rxe's RESPST_READ_REPLY): as many
 * packets at a time as the port takes (rl_host_config.tx_room), so that a 1 GiB
 * READ does not put a million frames on the wire at once.
 */
struct rl_resp_reply {
	bool active;
	bool whole;               /* the first packet is a First (or Only), not a replay's Middle */
	uint32_t rkey;            /* looked up again for each burst: the region may be gone */
	uint64_t va;
	uint32_t len, off;        /* bytes in all, bytes sent */
	uint32_t psn;             /* of the next packet */
};

/*
 * A request packet that arrived while a READ response was being sent: the
 * responder takes requests in PSN order (IBA 9.5), so it waits its turn, as in
 * rxe's responder queue. @payload is a copy.
 */
struct rl_resp_held {
	struct rl_pkt pkt;
	uint8_t *payload;
};

/* Request packets held behind a READ response at most; more are dropped (the requester resends). */
#define RL_RESP_HELD_MAX 256

struct rl_qp {
	struct rl_host *host;
	struct rl_pd *pd;
	struct rl_cq *scq, *rcq;
	struct rl_srq *srq;         /* receives come from here instead of rq */
	enum rl_qp_type type;
	enum rl_qp_state state;
	uint32_t qpn;
	struct rl_qp_attr attr;
	uint32_t mtu;
	bool sq_sig_all;

	/*
	 * Send queue: holds sq_size WQEs; counters run freely, and the ring is
	 * a power of two long, so the slot of counter n is n & sq_mask.
	 */
	struct rl_send_wqe *sq;
	uint32_t sq_size, sq_mask, sq_head, sq_tail;
	/* Receive queue, the same way. */
	struct rl_recv_wr *rq;
	uint32_t rq_size, rq_mask, rq_head, rq_tail;

	/* Requester: the next packet to send is byte @offset of wqe @wqe, with PSN @psn. */
	struct {
		uint32_t wqe;
		uint32_t psn;
		uint32_t offset;
		uint32_t noack_pkts;
		uint32_t op_flags;      /* rl_req_opcode's last search (0: none) and its answer */
		uint8_t opcode;
	} req;

	/* Completer: the oldest wqe not yet completed and the next PSN it waits for. */
	struct {
		uint32_t psn;
		uint64_t timer;         /* retransmit deadline, RL_NEVER if not armed */
		uint64_t rnr_until;     /* RNR wait, RL_NEVER if not waiting */
		int retry_left, rnr_left;
		bool retrying;          /* went back; ignore stale responses until progress */
	} comp;

	/* Responder. */
	struct {
		uint32_t psn;           /* next PSN expected */
		uint32_t msn;           /* messages completed */
		bool nak_sent;          /* a PSN sequence NAK went out for the current gap */
		bool drop_msg;          /* UC: discard until the next First/Only */
		uint8_t last_opcode;    /* previous accepted opcode, for the sequence check */
		bool in_msg;            /* inside a multi-packet message */
		bool have_recv;         /* SEND: the receive wqe being filled */
		struct rl_recv_wr recv;
		uint32_t recv_off;
		struct rl_mr *wmr;      /* WRITE: target region and position */
		uint64_t wva;
		uint32_t wleft, wlen;
		struct rl_resp_res *res;
		unsigned nres, res_next;
		struct rl_resp_reply reply;
		struct rl_resp_held *held;   /* a ring of RL_RESP_HELD_MAX, allocated when first needed */
		unsigned held_head, nheld;
	} resp;

	uint64_t last_cnp;          /* when this QP last sent a CNP */
	uint64_t cnp_interval_ns;   /* and how long until it may send another */
	struct {
		uint64_t cap_bps;       /* the rate it holds the requester to when no algo does; 0: none */
		uint64_t at, last_bytes;  /* when the last request left, and its bytes on the link */
		uint64_t owed;            /* what the bucket lacked of full then, in bits * RL_NS_PER_S (cc.c) */
		uint32_t burst_bytes;     /* rl_qp_cc.max_burst_bytes */
	} pace;
	enum rl_cc_algo cc;         /* how it answers CNPs it receives (cc.c) */
	struct rl_dcqcn dcqcn;      /* RL_CC_DCQCN: the reaction point and its pacer */
	struct rl_qp_stats stats;
	struct rl_encode_cache enc; /* the headers of its last frame, for the next (rl_encode_cached) */
	struct rl_pkt pkt;          /* rl_qp_pkt_init's packet for opcode 0, valid if pkt_ready */
	bool pkt_ready;
	struct rl_qp *next;
};

/* ---- helpers shared by the modules ------------------------------------------ */

void rl_host_set_error(struct rl_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rl_event_emit(struct rl_qp *qp, enum rl_event_type type, uint32_t psn, uint64_t value, const char *text);
/* Tell the host's event callback, if it has one (most programs have none: then this costs a test). */
static inline void rl_event(struct rl_qp *qp, enum rl_event_type type, uint32_t psn, uint64_t value,
			    const char *text)
{
	if (qp->host->cfg.event)
		rl_event_emit(qp, type, psn, value, text);
}

/* Fill @p with the QP's addressing for a packet of @opcode; send it. */
void rl_qp_pkt_init(struct rl_qp *qp, struct rl_pkt *p, uint8_t opcode);
/*
 * Returns the bytes the link carries for the packet: its Ethernet frame
 * (without FCS), or for emit_pkt the Ethernet header, IP, UDP and
 * BTH..ICRC it becomes; 0 if it could not be encoded.
 */
size_t rl_qp_emit(struct rl_qp *qp, struct rl_pkt *p);

/*
 * Congestion control (cc.c), nothing unless the QP was made with one:
 * set up at creation, a CNP received, the requester's packets counted and
 * paced, timers run from rl_host_run() and reported to rl_host_next_timer().
 */
int rl_qp_cc_init(struct rl_qp *qp, const struct rl_qp_cc *cc);
void rl_qp_cc_cnp(struct rl_qp *qp);
void rl_qp_cc_sent(struct rl_qp *qp, size_t bytes);
void rl_qp_cc_run(struct rl_qp *qp);
/* May the requester send now? */
bool rl_qp_cc_may_send(const struct rl_qp *qp);
/* Has the QP an algo or a cap to pace by (else cc.c has nothing to do)? */
static inline bool rl_qp_cc_on(const struct rl_qp *qp)
{
	return qp->cc != RL_CC_NONE || qp->pace.cap_bps;
}
uint64_t rl_qp_cc_next_timer(const struct rl_qp *qp);

struct rl_mr *rl_mr_find_lkey(struct rl_host *h, uint32_t lkey);
struct rl_mr *rl_mr_find_rkey(struct rl_host *h, uint32_t rkey);
/* Pointer to @len bytes at iova @va of @mr, or NULL if out of range. */
uint8_t *rl_mr_ptr(struct rl_mr *mr, uint64_t va, uint64_t len);
/* @len bytes at byte @off of an SGE list if one SGE holds them and its lkey is good; else NULL. */
const uint8_t *rl_sge_ptr(struct rl_host *h, const struct rl_sge *sg, int n, uint32_t off, uint32_t len);
/* Copy between an SGE list and a flat buffer, from byte @off of the list. */
enum rl_wc_status rl_sge_copy(struct rl_host *h, const struct rl_sge *sg, int n, uint32_t off,
			      void *buf, uint32_t len, bool to_sge);

void rl_cq_push(struct rl_cq *cq, const struct rl_wc *wc);
/* Take the oldest receive WQE of @qp's SRQ into @wr (and fire its limit event); false if it is empty. */
bool rl_srq_take(struct rl_qp *qp, struct rl_recv_wr *wr);
void rl_srq_free_all(struct rl_host *h);
void rl_qp_to_error(struct rl_qp *qp, const char *why);
void rl_qp_set_state(struct rl_qp *qp, enum rl_qp_state s, const char *why);

/* The three roles. */
void rl_req_run(struct rl_qp *qp);
/* Work requests the requester has not sent all of yet: without them rl_req_run has nothing to do. */
static inline bool rl_req_pending(const struct rl_qp *qp)
{
	return qp->req.wqe != qp->sq_tail;
}
void rl_resp_recv(struct rl_qp *qp, const struct rl_pkt *pkt);
void rl_comp_recv(struct rl_qp *qp, const struct rl_pkt *pkt);
void rl_comp_timers(struct rl_qp *qp);
/* Has the retransmit timer or the RNR wait run out by @now? Only then has rl_comp_timers work. */
static inline bool rl_comp_timer_due(const struct rl_qp *qp, uint64_t now)
{
	return qp->comp.timer <= now || qp->comp.rnr_until <= now;
}
void rl_comp_flush(struct rl_qp *qp);
/* Retire the oldest work request with @st (an error also takes the QP to ERR). */
void rl_comp_complete(struct rl_qp *qp, enum rl_wc_status st);
void rl_resp_flush(struct rl_qp *qp);
/* Go on with a READ response, then with the requests held behind it. */
void rl_resp_run(struct rl_qp *qp);
/* A READ response or held requests are waiting for the port (asked of every QP at every rl_host_run). */
static inline bool rl_resp_pending(const struct rl_qp *qp)
{
	return qp->resp.reply.active || qp->resp.nheld;
}
/* Forget the READ response in progress and the held requests (reset, error, destroy). */
void rl_resp_drop_pending(struct rl_qp *qp);
/* How many more frames the host's port takes now (rl_host_config.tx_room). */
size_t rl_host_tx_room(const struct rl_host *h);

/*
 * Work request kind helpers. READ, the atomics, FLUSH and ATOMIC WRITE each
 * hold a responder resource until answered, so all count against
 * max_rd_atomic (IBA 9.4.4, C9-37; rxe's check_init_depth for ATOMIC WRITE).
 */
static inline bool rl_wr_is_rd_atomic(enum rl_wr_opcode op)
{
	return op == RL_WR_RDMA_READ || op == RL_WR_ATOMIC_CMP_AND_SWP || op == RL_WR_ATOMIC_FETCH_AND_ADD ||
	       op == RL_WR_FLUSH || op == RL_WR_ATOMIC_WRITE;
}
/* The send WQE of free-running counter @n, and the receive WQE. */
static inline struct rl_send_wqe *rl_sq_wqe(const struct rl_qp *qp, uint32_t n)
{
	return &qp->sq[n & qp->sq_mask];
}
static inline struct rl_recv_wr *rl_rq_wqe(const struct rl_qp *qp, uint32_t n)
{
	return &qp->rq[n & qp->rq_mask];
}
/* UD semantics: a UD QP, or QP1 (the GSI, IBA 13.5.1), which is one. */
static inline bool rl_qp_is_ud(const struct rl_qp *qp)
{
	return qp->type == RL_QPT_UD || qp->type == RL_QPT_GSI;
}

/* ACK timeout, IBA 9.7.6.1.3: 4.096 us * 2^timeout; 0 means wait forever. */
static inline uint64_t rl_qp_timeout_ns(const struct rl_qp *qp)
{
	return qp->attr.timeout ? 4096ull << qp->attr.timeout : RL_NEVER;
}

/* Packets (and PSNs) a @len-byte message or READ response takes at the QP's path MTU; at least one. */
static inline uint32_t rl_qp_npkts(const struct rl_qp *qp, uint32_t len)
{
	return len ? (len + qp->mtu - 1) / qp->mtu : 1;
}

static inline bool rl_wr_is_atomic(enum rl_wr_opcode op)
{
	return op == RL_WR_ATOMIC_CMP_AND_SWP || op == RL_WR_ATOMIC_FETCH_AND_ADD;
}

#endif
