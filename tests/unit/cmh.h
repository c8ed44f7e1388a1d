/* SPDX-License-Identifier: MIT */
/*
 * A fixture for CM tests: an rl_pair built with cm (QPs in RESET, a CM
 * agent on each host), side 0 the active side (rping -c), side 1 the
 * passive side (rping -s), and an rping-shaped event loop that reacts to
 * each RDMA_CM_EVENT_*. Every frame that left a host is kept, with its
 * time and its MAD decoded, for assertions.
 */
#ifndef ROCELAB_CMH_H
#define ROCELAB_CMH_H

#include "testlib.h"
#include "rocelab/pair.h"
#include "rocelab/rdma_cm.h"

#define CMH_FRAMES 512
#define CMH_EVENTS 64
#define CMH_PORT 7174     /* rping's port */
#define CMH_MEM 65536
#define CMH_WIRE_LOG 256   /* REQs and REJs the simulated wire's record keeps */

struct cmh_frame {
	int from;
	uint64_t t;
	uint8_t opcode;
	uint32_t psn, dqpn;
	bool is_cm;
	struct rl_cm cm;
};

struct cmh_event {
	enum rl_rdma_cm_event_type type;
	int status;
	uint64_t t;
	struct rl_rdma_cm_id *id;
	uint8_t pd[RL_RDMA_MAX_PRIVATE_DATA];
	uint8_t pd_len;
	uint32_t ud_qpn, ud_qkey;
};

/* What the passive consumer does with a CONNECT_REQUEST. */
enum cmh_answer { CMH_ACCEPT, CMH_REJECT, CMH_IGNORE };

struct cmh {
	struct rl_pair p;
	struct rl_rdma_cm_id *listen, *act, *pas;
	enum cmh_answer answer;
	uint64_t accept_delay_ns;     /* accept this long after CONNECT_REQUEST */
	uint64_t accept_at;
	bool no_listener;             /* the passive side listens on another port */
	bool disconnected[2];         /* this side called rl_rdma_disconnect() */
	struct rl_rdma_conn_param param;
	/* FIFO filter: drop these frame numbers (1-based), or every frame from side drop_from */
	uint64_t drop[8];
	int ndrop;
	int drop_from;                /* -1: none */
	struct cmh_frame f[CMH_FRAMES];
	int nf;
	struct cmh_event ev[2][CMH_EVENTS];
	int nev[2];
	/* The simulated wire's verdicts on REJs: how many each side sent, how many were lost. */
	int rej_sent[2], rej_lost[2];
	/* ... each REJ, with the communication ID it was for; and which QP each REQ's communication ID stood for. */
	struct { int from; uint32_t to_comm; bool lost; } rej[CMH_WIRE_LOG];
	int nrej;
	struct { uint32_t comm, qpn; } req[CMH_WIRE_LOG];
	int nreq;
};

/* Build the pair (@type RC or UD, FIFO or @wire simulated wire), the listener and the active id. */
void cmh_setup(struct cmh *h, enum rl_qp_type type, const struct rl_simwire_config *wire, uint64_t seed);
void cmh_teardown(struct cmh *h);
/* Start the active side (resolve_addr) and run until nothing moves or @limit_ns passes. */
void cmh_start(struct cmh *h);
void cmh_run(struct cmh *h, uint64_t limit_ns);
/* How many events of @type side @s got. */
int cmh_count(const struct cmh *h, int s, enum rl_rdma_cm_event_type type);
/* The @k-th (0-based) frame carrying CM message @attr, or NULL. */
const struct cmh_frame *cmh_cm_frame(const struct cmh *h, uint16_t attr, int k);
int cmh_cm_count(const struct cmh *h, uint16_t attr);
/* The communication ID of the REQ that announced QP @qpn (0 if the wire never carried one). */
uint32_t cmh_req_comm(const struct cmh *h, uint32_t qpn);
/* How many REJs side @from sent to communication ID @comm, and how many of them the wire lost. */
void cmh_rej_fate(const struct cmh *h, int from, uint32_t comm, int *sent, int *lost);
/* The first RC/UD data frame (not QP1) sent by @from, or NULL. */
const struct cmh_frame *cmh_data_frame(const struct cmh *h, int from);
void cmh_dump(const struct cmh *h);

#endif
