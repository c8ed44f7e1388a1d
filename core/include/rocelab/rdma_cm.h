/* SPDX-License-Identifier: MIT */
/*
 * An rdma_cm-shaped API over the CM agent (rocelab/cm_agent.h), so that a
 * program written here reads like librdmacm's: rping's event loop
 * (cma_event_handler) can be laid next to one that calls
 * rl_rdma_get_cm_event(). Same calls, same event names and values
 * (enum rdma_cm_event_type), our prefix.
 *
 *   active (client)                         passive (server)
 *   rl_rdma_create_id                       rl_rdma_create_id
 *   rl_rdma_resolve_addr -> ADDR_RESOLVED   rl_rdma_bind_addr, rl_rdma_listen
 *   rl_rdma_resolve_route -> ROUTE_RESOLVED
 *   rl_rdma_create_qp                                    REQ -> CONNECT_REQUEST (a new id)
 *   rl_rdma_connect           --- REQ --->  rl_rdma_create_qp, rl_rdma_accept
 *               ESTABLISHED  <--- REP ---
 *                             --- RTU --->  ESTABLISHED
 *   rl_rdma_disconnect       --- DREQ --->  DISCONNECTED; rl_rdma_disconnect
 *              DISCONNECTED  <--- DREP ---
 *
 * Sans-IO: rl_rdma_resolve_addr() asks the agent's resolve callback for the
 * destination's MAC instead of ARP, and its event is queued at once. The
 * events of an agent come out of one queue, as from one rdma_event_channel.
 * RDMA_PS_UDP ids use SIDR (IBA 12.11) instead: connect sends a SIDR_REQ,
 * accept answers with a SIDR_REP carrying the QPN and Q_Key, and the active
 * side's ESTABLISHED event carries them with an address handle, as udaddy
 * reads them.
 */
#ifndef ROCELAB_RDMA_CM_H
#define ROCELAB_RDMA_CM_H

#include <stddef.h>
#include <stdint.h>

#include "rocelab/cm.h"
#include "rocelab/cm_agent.h"
#include "rocelab/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* librdmacm's enum rdma_cm_event_type, same order and values. */
#define RL_RDMA_CM_EVENT_ROWS(E)                                                                   \
	E(ADDR_RESOLVED) E(ADDR_ERROR) E(ROUTE_RESOLVED) E(ROUTE_ERROR) E(CONNECT_REQUEST)        \
	E(CONNECT_RESPONSE) E(CONNECT_ERROR) E(UNREACHABLE) E(REJECTED) E(ESTABLISHED)            \
	E(DISCONNECTED) E(DEVICE_REMOVAL) E(MULTICAST_JOIN) E(MULTICAST_ERROR) E(ADDR_CHANGE)     \
	E(TIMEWAIT_EXIT)

enum rl_rdma_cm_event_type {
#define RL_RDMA_CM_EVENT_ENUM(tok) RL_RDMA_CM_EVENT_##tok,
	RL_RDMA_CM_EVENT_ROWS(RL_RDMA_CM_EVENT_ENUM)
#undef RL_RDMA_CM_EVENT_ENUM
};
/* As rdma_event_str(): "RDMA_CM_EVENT_ADDR_RESOLVED"; "UNKNOWN EVENT" for another value. */
const char *rl_rdma_event_str(enum rl_rdma_cm_event_type e);

#define RL_RDMA_MAX_PRIVATE_DATA 224   /* the most any CM message carries (MRA's 222, rounded up) */

/* rdma_conn_param. */
struct rl_rdma_conn_param {
	const void *private_data;
	uint8_t private_data_len;
	uint8_t responder_resources;    /* READs/atomics this side takes in at once */
	uint8_t initiator_depth;        /* ... it keeps outstanding */
	uint8_t flow_control;
	uint8_t retry_count;            /* ignored by accept: the REQ set it */
	uint8_t rnr_retry_count;
	uint8_t srq;
	uint32_t qp_num;                /* UD accept: the QP the SIDR_REP announces (0: the id's QP) */
};

struct rl_rdma_cm_id;

/* What an event carries: rdma_cm_event's param.conn or param.ud. */
struct rl_rdma_cm_event {
	struct rl_rdma_cm_id *id;
	struct rl_rdma_cm_id *listen_id;  /* CONNECT_REQUEST: the listener it came to */
	enum rl_rdma_cm_event_type event;
	int status;                       /* REJECTED: the REJ reason; UNREACHABLE: -ETIMEDOUT or the SIDR status */
	uint8_t private_data[RL_RDMA_MAX_PRIVATE_DATA];
	uint8_t private_data_len;         /* a REQ's without rdma_cm's 36-byte header */
	struct {                          /* RC: the remote side's offer, seen from this side */
		uint8_t responder_resources, initiator_depth, flow_control, retry_count, rnr_retry_count, srq;
		uint32_t qp_num;
	} conn;
	struct {                          /* UD (SIDR): where to send the datagrams */
		struct rl_ah_attr ah_attr;
		uint32_t qp_num;
		uint32_t qkey;
	} ud;
	struct rl_rdma_cm_event *next;
};

/* An address: an IPv4-mapped or IPv6 GID and a port (a sockaddr_in, sockaddr_in6). */
struct rl_rdma_addr {
	uint8_t gid[16];
	uint16_t port;
};

/* ps: RL_RDMA_PS_TCP (RC) or RL_RDMA_PS_UDP (UD); NULL for another port space (rl_host_error() says why). */
struct rl_rdma_cm_id *rl_rdma_create_id(struct rl_cm_agent *a, void *context, uint16_t ps);
/* Frees the id and its QP if rl_rdma_create_qp() made it; a connection still up is left without a word (use disconnect). */
int rl_rdma_destroy_id(struct rl_rdma_cm_id *id);
void *rl_rdma_id_context(const struct rl_rdma_cm_id *id);
/* The id's QP (NULL before rl_rdma_create_qp()/rl_rdma_attach_qp()). */
struct rl_qp *rl_rdma_id_qp(const struct rl_rdma_cm_id *id);
enum rl_cm_state rl_rdma_id_state(const struct rl_rdma_cm_id *id);
const struct rl_rdma_addr *rl_rdma_id_src(const struct rl_rdma_cm_id *id);
const struct rl_rdma_addr *rl_rdma_id_dst(const struct rl_rdma_cm_id *id);

/* Passive side: the address (the host's GID, or all zero for any) and port to listen on. */
int rl_rdma_bind_addr(struct rl_rdma_cm_id *id, const struct rl_rdma_addr *addr);
int rl_rdma_listen(struct rl_rdma_cm_id *id, int backlog);

/* Active side: ADDR_RESOLVED (or ADDR_ERROR if the resolve callback knows no MAC), then ROUTE_RESOLVED. */
int rl_rdma_resolve_addr(struct rl_rdma_cm_id *id, const struct rl_rdma_addr *src, const struct rl_rdma_addr *dst,
			 int timeout_ms);
int rl_rdma_resolve_route(struct rl_rdma_cm_id *id, int timeout_ms);

/*
 * A QP for the id (RC for RDMA_PS_TCP, UD for RDMA_PS_UDP) on @pd, moved to
 * INIT as librdmacm does (a UD QP on to RTS, with Q_Key RDMA_UDP_QKEY).
 * rl_rdma_attach_qp() takes one the caller made, in RESET, instead.
 */
int rl_rdma_create_qp(struct rl_rdma_cm_id *id, struct rl_pd *pd, const struct rl_qp_init_attr *attr);
int rl_rdma_attach_qp(struct rl_rdma_cm_id *id, struct rl_qp *qp);

/* Active side: send the REQ (RC) or SIDR_REQ (UD). */
int rl_rdma_connect(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param);
/* Passive side, after CONNECT_REQUEST: move the QP to RTS and send the REP (RC) or SIDR_REP (UD). */
int rl_rdma_accept(struct rl_rdma_cm_id *id, const struct rl_rdma_conn_param *param);
/* Passive side: REJ with reason 28, consumer reject (RC), or SIDR_REP status 2, rejected (UD). */
int rl_rdma_reject(struct rl_rdma_cm_id *id, const void *private_data, uint8_t private_data_len);
/* The QP to ERR and a DREQ, or the DREP to a DREQ received; before the RTU (REP Sent) the QP to ERR alone, as cma.c. */
int rl_rdma_disconnect(struct rl_rdma_cm_id *id);

/* The oldest event of the agent: 0, or -EAGAIN if none (a non-blocking rdma_get_cm_event()). */
int rl_rdma_get_cm_event(struct rl_cm_agent *a, struct rl_rdma_cm_event **ev);
int rl_rdma_ack_cm_event(struct rl_rdma_cm_event *ev);

#ifdef __cplusplus
}
#endif
#endif
