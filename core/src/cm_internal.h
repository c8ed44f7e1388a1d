/* SPDX-License-Identifier: MIT */
/*
 * Inside the CM agent and the rdma_cm API: the objects behind the handles,
 * shared by cm_agent.c (QP1, MADs in and out, timers), cm_conn.c (the RC
 * connection state machine, IBA 12.9), cm_sidr.c (SIDR, IBA 12.11) and
 * rdma_cm.c (the API).
 */
#ifndef ROCELAB_CM_INTERNAL_H
#define ROCELAB_CM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rocelab/cm.h"
#include "rocelab/rdma_cm.h"

#define RL_CM_NEVER UINT64_MAX
#define RL_CM_GRH_LEN 40u                        /* a UD receive buffer starts with the GRH */
#define RL_CM_RECV_BUFS 64u
#define RL_CM_SEND_BUFS 64u
#define RL_CM_SEND_WR_ID (1ull << 32)   /* marks a send's wr_id; a receive's is its slot */
#define RL_CM_RECV_SLOT (RL_CM_GRH_LEN + RL_MAD_LEN)
#define RL_CM_PKEY_DEFAULT 0xffffu
#define RL_CM_PERMISSIVE_LID 0xffffu             /* RoCE has no LIDs */
#define RL_CM_HOP_LIMIT 64u
#define RL_CM_TID_HI 1ull    /* the kernel puts its MAD agent's number here (2 in the rxe rping capture) */
#define RL_RDMA_MAX_BACKLOG 1024   /* ucma's max_backlog (net.rdma_ucm.max_backlog): rdma_listen's default and ceiling */

/*
 * What rdma_cm leaves a consumer of a REQ's and a SIDR_REQ's private data:
 * the rest after its own header (cma.c's limits, 56 and 180 bytes).
 */
#define RL_CM_REQ_CONSUMER_PD_LEN (RL_CM_REQ_PRIVATE_DATA_LEN - RL_CMA_HDR_LEN)
#define RL_CM_SIDR_REQ_CONSUMER_PD_LEN (RL_CM_SIDR_REQ_PRIVATE_DATA_LEN - RL_CMA_HDR_LEN)
/* The REQ's Retry Count and RNR Retry Count are 3 bits (IBA 12.6.5, Table 106). */
#define RL_CM_RETRY_COUNT_MAX 7u
/*
 * Set in every communication ID and SIDR request ID the agent makes up:
 * 0 stands for "no ID" (a REJ for a REQ, an ID not yet learned).
 */
#define RL_CM_ID_NOT_ZERO 1u
/*
 * An ephemeral port, from the kernel's default local port range
 * (net.ipv4.ip_local_port_range), as cma_alloc_any_port() picks one.
 */
#define RL_CM_PORT_EPHEMERAL_LOW 32768u
#define RL_CM_PORT_EPHEMERAL_HIGH 60999u
/*
 * The sender's address in the GRH a UD receive buffer starts with (IBA
 * 11.4.1.2): the Source GID at byte 8 of the GRH (IBA 8.3); RoCEv2 over
 * IPv4 puts the IPv4 header (RFC 791) in the GRH's last 20 bytes instead,
 * as rxe does, with the version in the first nibble and the source
 * address at byte 12.
 */
#define RL_CM_GRH_SGID_OFF 8u
#define RL_CM_GRH_IPV4_OFF 20u
#define RL_IPV4_VERSION 4u
#define RL_IPV4_SRC_OFF 12u

/* SIDR_REP status (IBA 12.11.2, Table 123; the kernel's enum ib_cm_sidr_status). */
enum rl_sidr_status {
	RL_SIDR_SUCCESS = 0,
	RL_SIDR_UNSUPPORTED = 1,    /* no service on that service ID */
	RL_SIDR_REJECT = 2,         /* the consumer said no */
	RL_SIDR_NO_QP = 3,
};

/* REJ reasons the agent sends (IBA 12.6.7.2, Table 112). */
enum rl_cm_rej_reason {
	RL_CM_REJ_TIMEOUT = 4,
	RL_CM_REJ_INVALID_SERVICE_ID = 8,
	RL_CM_REJ_INVALID_TRANSPORT = 9,
	RL_CM_REJ_INVALID_MTU = 26,
	RL_CM_REJ_CONSUMER = 28,
};

/* What MRA and REJ say they answer (IBA 12.6.6, 12.6.7). */

struct rl_rdma_cm_id {
	struct rl_cm_agent *agent;
	void *context;
	uint16_t ps;
	struct rl_qp *qp;
	bool own_qp;                   /* made by rl_rdma_create_qp(): destroyed with the id */
	struct rl_rdma_addr src, dst;
	uint8_t dmac[6];
	bool bound, addr_resolved, route_resolved;
	struct rl_rdma_cm_id *listener; /* passive: the listener the REQ came to */
	int backlog;                   /* a listener: CONNECT_REQUESTs it lets wait in the event queue */
	enum rl_cm_state state;

	/* The connection, as IBA 12.6 names what the two sides tell each other. */
	uint32_t local_id, remote_id;  /* communication IDs; SIDR: the request ID in both */
	uint64_t tid;
	uint32_t remote_qpn;
	uint32_t sq_psn;               /* the peer's Starting PSN: where this QP's sends start */
	uint32_t rq_psn;               /* ours, announced: where the peer's sends start */
	uint8_t path_mtu, ack_timeout, retry_count, rnr_retry_count;
	uint8_t responder_resources, initiator_depth;
	uint8_t remote_cm_timeout;     /* how long the peer may take to answer (IBA 12.6.5) */
	uint8_t mra_timeout;           /* MRA(REQ) Rcvd: the MRA's service timeout, which each resent REQ waits */
	uint8_t max_retries;
	bool sidr_answered;            /* passive SIDR: the SIDR_REP went out (duplicates get it again) */

	/* The last message sent: resent when its timer runs out, or to a duplicate. */
	struct rl_cm out;
	bool have_out;
	unsigned retries;
	uint64_t timer;                /* RL_CM_NEVER if none */
	uint64_t comm_est_pkts;        /* REP Sent: the QP's received packets when the REP left */
	struct rl_rdma_cm_id *next;
};

struct rl_cm_agent {
	struct rl_cm_agent_config cfg;
	struct rl_host *host;
	struct rl_port_attr port;
	struct rl_pd *pd;
	struct rl_cq *cq;
	struct rl_qp *qp1;
	struct rl_mr *mr;
	uint8_t *mem;                  /* RL_CM_RECV_BUFS receive slots, then RL_CM_SEND_BUFS MADs */
	uint32_t send_next;            /* the send slot to fill next (a ring: MADs complete in order) */
	uint32_t sends_out;            /* posted, not yet completed: their slots are still in use */
	uint64_t now;
	uint64_t rng;
	struct rl_rdma_cm_id *ids;
	struct rl_rdma_cm_event *ev_head, **ev_tail;
	struct rl_cm_agent_stats stats;
};

/* A MAD QP1 received, and who sent it. */
struct rl_cm_rx {
	struct rl_cm cm;
	uint8_t gid[16];               /* from the GRH the receive buffer starts with */
	uint8_t mac[6];                /* from the resolve callback; have_mac false if it knew none */
	bool have_mac;
};

/* cm_agent.c */
uint32_t rl_cm_random(struct rl_cm_agent *a);
/* A communication ID or SIDR request ID, from the seed; never 0. */
uint32_t rl_cm_new_id(struct rl_cm_agent *a);
/* A MAD to the QP1 at @gid/@mac: 0, or a negative errno (counted as dropped). */
int rl_cm_send(struct rl_cm_agent *a, const uint8_t gid[16], const uint8_t mac[6], const struct rl_cm *cm);
/* Send @cm as the id's message to its peer, keep it for resends, time out after @wait ns (RL_CM_NEVER: none). */
void rl_cm_id_send(struct rl_rdma_cm_id *id, const struct rl_cm *cm, uint64_t wait);
/* The time to wait for an answer the peer may take 4.096 us * 2^@timeout to give: plus the round trip. */
uint64_t rl_cm_wait_ns(const struct rl_cm_agent *a, uint8_t timeout);
struct rl_rdma_cm_event *rl_cm_event(struct rl_rdma_cm_id *id, enum rl_rdma_cm_event_type type, int status);
void rl_cm_event_data(struct rl_rdma_cm_event *ev, const uint8_t *p, size_t n);
struct rl_rdma_cm_id *rl_cm_id_new(struct rl_cm_agent *a, void *context, uint16_t ps);
struct rl_rdma_cm_id *rl_cm_find_local(struct rl_cm_agent *a, uint32_t local_id);

/* cm_conn.c: the RC connection (IBA 12.9) */
void rl_cm_recv_conn(struct rl_cm_agent *a, const struct rl_cm_rx *rx);
void rl_cm_conn_timeout(struct rl_rdma_cm_id *id);
void rl_cm_comm_est_check(struct rl_rdma_cm_id *id);
int rl_cm_connect(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param);
int rl_cm_accept(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param);
int rl_cm_reject(struct rl_rdma_cm_id *id, const void *pd, uint8_t len);
int rl_cm_disconnect(struct rl_rdma_cm_id *id);
/* A REJ to a message no connection here takes: back to who sent it. */
void rl_cm_rej_unknown(struct rl_cm_agent *a, const struct rl_cm_rx *rx, uint16_t reason);

/* cm_sidr.c: SIDR (IBA 12.11) */
void rl_cm_recv_sidr(struct rl_cm_agent *a, const struct rl_cm_rx *rx);
void rl_cm_sidr_timeout(struct rl_rdma_cm_id *id);
int rl_cm_sidr_connect(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param);
int rl_cm_sidr_answer(struct rl_rdma_cm_id *id, enum rl_sidr_status st, const struct rl_rdma_conn_param *param);

/* rdma_cm.c */
struct rl_rdma_cm_id *rl_cm_find_listener(struct rl_cm_agent *a, uint16_t ps, uint64_t service_id,
					  const uint8_t gid[16]);
/*
 * Is the listener's backlog full: as many CONNECT_REQUESTs for it wait in the
 * event queue as rdma_listen() allowed? The kernel's ucma counts the same.
 */
bool rl_cm_backlog_full(const struct rl_rdma_cm_id *lid);
/* The CMA header at the start of a REQ's or SIDR_REQ's private data (rdma_cm). */
void rl_cm_put_cma_hdr(const struct rl_rdma_cm_id *id, uint8_t *p);

#endif
