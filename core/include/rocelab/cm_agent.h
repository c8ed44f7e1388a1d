/* SPDX-License-Identifier: MIT */
/*
 * The connection manager of a host, as the kernel's ib_cm over ib_mad: a
 * verbs consumer that owns the host's QP1 (the GSI, IBA 13.5.1), posts its
 * receive buffers, sends CM MADs (rocelab/cm.h) with rl_post_send() as UD
 * SENDs to the peer's QP1, polls its CQ, and keeps the timers of IBA 12.4's
 * MAD retries. The rdma_cm-shaped API over it is rocelab/rdma_cm.h.
 *
 * Sans-IO like the rest of core: time is passed in. After frames reached
 * the host (rl_host_recv()) and the host ran, call rl_cm_agent_run(agent,
 * now): it takes the MADs QP1 received, answers them, and resends what timed
 * out. Its sends go out the next time the host runs; rl_cm_agent_next_timer()
 * says when to call again. Communication IDs, transaction IDs and starting
 * PSNs come from the seed in the config, never from a clock.
 */
#ifndef ROCELAB_CM_AGENT_H
#define ROCELAB_CM_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "rocelab/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_cm_agent;

/*
 * The states of a connection, IBA 12.9 (Figures 155-160), in the order and
 * with the names of the kernel's enum ib_cm_state. rocelab never delays an
 * RTU, so it has no MRA for a REP: MRA_REP_SENT and MRA_REP_RCVD are named
 * only to keep the table whole.
 */
#define RL_CM_STATE_ROWS(S)                                                                        \
	S(IDLE, "Idle") S(LISTEN, "Listen") S(REQ_SENT, "REQ Sent") S(REQ_RCVD, "REQ Rcvd")      \
	S(MRA_REQ_SENT, "MRA(REQ) Sent") S(MRA_REQ_RCVD, "MRA(REQ) Rcvd") S(REP_SENT, "REP Sent") \
	S(REP_RCVD, "REP Rcvd") S(MRA_REP_SENT, "MRA(REP) Sent") S(MRA_REP_RCVD, "MRA(REP) Rcvd") \
	S(ESTABLISHED, "Established") S(DREQ_SENT, "DREQ Sent") S(DREQ_RCVD, "DREQ Rcvd")        \
	S(TIMEWAIT, "TimeWait") S(SIDR_REQ_SENT, "SIDR REQ Sent") S(SIDR_REQ_RCVD, "SIDR REQ Rcvd")

enum rl_cm_state {
#define RL_CM_STATE_ENUM(tok, name) RL_CM_STATE_##tok,
	RL_CM_STATE_ROWS(RL_CM_STATE_ENUM)
#undef RL_CM_STATE_ENUM
};
/* "REQ Sent" */
const char *rl_cm_state_name(enum rl_cm_state s);

/* rdma_cm's choices (the kernel's cma.c and cm.c), the agent's defaults. */
#define RL_CM_RESPONSE_TIMEOUT 20   /* CMA_CM_RESPONSE_TIMEOUT: 4.096 us * 2^20 = 4.3 s */
#define RL_CM_MAX_RETRIES 15        /* CMA_MAX_CM_RETRIES */
#define RL_CM_PACKET_LIFETIME 18    /* CMA_IBOE_PACKET_LIFETIME of Linux 6.1: 4.096 us * 2^18 = 1.07 s */
#define RL_CM_MRA_TIMEOUT 24        /* CMA_CM_MRA_SETTING's service timeout: 68.7 s */
#define RL_CM_CA_ACK_DELAY 15       /* rxe's local CA ACK delay, REP's target ACK delay */
#define RL_RDMA_UDP_QKEY 0x01234567u   /* RDMA_UDP_QKEY: rdma_cm's Q_Key for RDMA_PS_UDP */

/* The time an IBA timeout value stands for: 4.096 us * 2^value (IBA 12.6.5), in ns. */
static inline uint64_t rl_cm_time_ns(unsigned value)
{
	return 4096ull << (value > 31 ? 31 : value);
}

/*
 * The local ACK timeout of a path (IBA 12.7.34): 2 * packet lifetime + the
 * CA's ACK delay, each 4.096 us * 2^value, as one such value again: the
 * larger exponent, one more when the other is within one of it.
 */
uint8_t rl_cm_ack_timeout(uint8_t ca_ack_delay, uint8_t packet_lifetime);

/* The agent's way of finding the MAC of a GID (ARP, neighbour discovery): true if known. */
typedef bool (*rl_cm_resolve_fn)(void *ctx, const uint8_t gid[16], uint8_t mac[6]);

struct rl_cm_agent_config {
	struct rl_host *host;       /* whose QP1 the agent owns (it creates QP1, a PD and a CQ) */
	uint64_t seed;              /* communication IDs, transaction IDs and starting PSNs */
	rl_cm_resolve_fn resolve;   /* GID -> MAC, for resolve_addr and for answering a peer */
	void *resolve_ctx;
	/* 0: the RL_CM_* defaults above. */
	uint8_t response_timeout, max_cm_retries, packet_lifetime, mra_timeout;
	uint64_t ca_guid;           /* 0: from the host's MAC as EUI-64, as rxe does */
};

/* NULL if the host already has a QP1 or memory ran out; rl_host_error() then says which. */
struct rl_cm_agent *rl_cm_agent_new(const struct rl_cm_agent_config *cfg);
/* Destroys its ids (without a word on the wire), QP1, its CQ and PD. */
void rl_cm_agent_free(struct rl_cm_agent *a);
/* Take what QP1 received, answer it, resend what timed out, as of @now. */
void rl_cm_agent_run(struct rl_cm_agent *a, uint64_t now);
/* When the agent next needs rl_cm_agent_run(); UINT64_MAX if never. */
uint64_t rl_cm_agent_next_timer(const struct rl_cm_agent *a);
struct rl_host *rl_cm_agent_host(const struct rl_cm_agent *a);

/* Counters for learners and tests. */
struct rl_cm_agent_stats {
	uint64_t mads_sent, mads_recv, resends, dup_recv, dropped;
};
void rl_cm_agent_stats(const struct rl_cm_agent *a, struct rl_cm_agent_stats *st);

#ifdef __cplusplus
}
#endif
#endif
