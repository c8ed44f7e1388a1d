/* SPDX-License-Identifier: MIT */
/*
 * The reference RoCEv2 transport, with an API shaped like libibverbs so that
 * what a learner writes here reads like an ibv_* program: protection domain,
 * memory region, completion queue, queue pair; post_send, post_recv,
 * poll_cq; modify_qp through RESET -> INIT -> RTR -> RTS.
 *
 * Sans-IO, in the manner of ngtcp2: a host never reads a clock or a socket.
 * Packets come in with the current time, as whole Ethernet frames
 * (rl_host_recv(): pcaps, the simulated wire) or as a path and the bytes
 * from the BTH to the ICRC (rl_host_read_pkt(): a program whose sockets own
 * IP and UDP, like ngtcp2's read_pkt). They go out the same two ways,
 * through the emit or the emit_pkt callback. Receiving only receives:
 * rl_host_run() then lets the work it caused, queued work and due timers
 * make progress; rl_host_next_timer() says when to call it again. Posting a
 * work request only queues it: nothing is sent until the host runs.
 *
 * Memory is the application's: a registered region is its buffer, named on
 * the wire by an I/O virtual address (iova) that the application chooses, so
 * that simulated runs are reproducible byte for byte.
 */
#ifndef ROCELAB_VERBS_H
#define ROCELAB_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rl_host;
struct rl_path;
struct rl_pd;
struct rl_mr;
struct rl_cq;
struct rl_qp;
struct rl_srq;

/* Path MTU, as ibv_mtu: 1 = 256 ... 5 = 4096 bytes (IBA 9.2: PMTU). */
enum rl_mtu { RL_MTU_256 = 1, RL_MTU_512, RL_MTU_1024, RL_MTU_2048, RL_MTU_4096 };
static inline uint32_t rl_mtu_bytes(enum rl_mtu m) { return m >= RL_MTU_256 && m <= RL_MTU_4096 ? 128u << m : 0; }
/* The path MTU of @bytes (256, 512, 1024, 2048 or 4096); 0 for any other number. */
static inline enum rl_mtu rl_mtu_from_bytes(uint64_t bytes)
{
	for (enum rl_mtu m = RL_MTU_256; m <= RL_MTU_4096; m++)
		if (rl_mtu_bytes(m) == bytes)
			return m;
	return (enum rl_mtu)0;
}

/*
 * ibv_qp_type values; RL_QPT_GSI is the kernel's IB_QPT_GSI: QP1, the General
 * Service Interface that carries MADs such as CM messages (IBA 13.5.1). It
 * is a UD QP with number 1, one per host, whose Q_Key is always 0x80010000.
 */
enum rl_qp_type { RL_QPT_GSI = 1, RL_QPT_RC = 2, RL_QPT_UC = 3, RL_QPT_UD = 4 };

/* QP states, IBA 10.3.1 (ibv_qp_state order). */
enum rl_qp_state {
	RL_QPS_RESET, RL_QPS_INIT, RL_QPS_RTR, RL_QPS_RTS, RL_QPS_SQD, RL_QPS_SQE, RL_QPS_ERR,
};
const char *rl_qp_state_name(enum rl_qp_state s);

/* Access flags of a memory region or a QP (ibv_access_flags values). */
enum rl_access {
	RL_ACCESS_LOCAL_WRITE = 1,
	RL_ACCESS_REMOTE_WRITE = 2,
	RL_ACCESS_REMOTE_READ = 4,
	RL_ACCESS_REMOTE_ATOMIC = 8,
	/* IBA 1.5 Memory Placement Extensions (A19): who may FLUSH to which placement. */
	RL_ACCESS_FLUSH_GLOBAL = 1 << 8,      /* IBV_ACCESS_FLUSH_GLOBAL */
	RL_ACCESS_FLUSH_PERSISTENT = 1 << 9,  /* IBV_ACCESS_FLUSH_PERSISTENT */
};

/* Send work request opcodes (ibv_wr_opcode values). */
enum rl_wr_opcode {
	RL_WR_RDMA_WRITE = 0,
	RL_WR_RDMA_WRITE_WITH_IMM = 1,
	RL_WR_SEND = 2,
	RL_WR_SEND_WITH_IMM = 3,
	RL_WR_RDMA_READ = 4,
	RL_WR_ATOMIC_CMP_AND_SWP = 5,
	RL_WR_ATOMIC_FETCH_AND_ADD = 6,
	RL_WR_SEND_WITH_INV = 9,
	RL_WR_FLUSH = 14,            /* IBA 1.5 FLUSH: make earlier writes visible or persistent */
	RL_WR_ATOMIC_WRITE = 15,     /* IBA 1.5 ATOMIC WRITE: store 8 bytes in one piece */
};
const char *rl_wr_opcode_name(enum rl_wr_opcode op);

enum rl_send_flags { RL_SEND_SIGNALED = 2, RL_SEND_SOLICITED = 4 };

/* What a FLUSH makes of earlier writes: the FETH placement type bits (ibv_placement_type). */
enum rl_flush_type { RL_FLUSH_GLOBAL = 1, RL_FLUSH_PERSISTENT = 2 };
/* What a FLUSH covers: the FETH selectivity level (ibv_selectivity_level). */
enum rl_flush_level { RL_FLUSH_RANGE = 0, RL_FLUSH_MR = 1 };

/* Completion statuses, ibv_wc_status values. */
enum rl_wc_status {
	RL_WC_SUCCESS = 0,
	RL_WC_LOC_LEN_ERR = 1,
	RL_WC_LOC_QP_OP_ERR = 2,
	RL_WC_LOC_PROT_ERR = 4,
	RL_WC_WR_FLUSH_ERR = 5,
	RL_WC_BAD_RESP_ERR = 7,
	RL_WC_LOC_ACCESS_ERR = 8,
	RL_WC_REM_INV_REQ_ERR = 9,
	RL_WC_REM_ACCESS_ERR = 10,
	RL_WC_REM_OP_ERR = 11,
	RL_WC_RETRY_EXC_ERR = 12,
	RL_WC_RNR_RETRY_EXC_ERR = 13,
};
/* As ibv_wc_status_str(): "success", "remote access error", ... */
const char *rl_wc_status_str(enum rl_wc_status s);
/* The libibverbs enum's own name, "IBV_WC_REM_ACCESS_ERR": what a program prints beside the number. */
const char *rl_wc_status_name(enum rl_wc_status s);

enum rl_wc_opcode {
	RL_WC_SEND = 0, RL_WC_RDMA_WRITE = 1, RL_WC_RDMA_READ = 2, RL_WC_COMP_SWAP = 3,
	RL_WC_FETCH_ADD = 4, RL_WC_FLUSH = 8, RL_WC_ATOMIC_WRITE = 9,
	RL_WC_RECV = 128, RL_WC_RECV_RDMA_WITH_IMM = 129,
};
/* The libibverbs enum's name of a completion's opcode, "IBV_WC_RDMA_WRITE". */
const char *rl_wc_opcode_name(enum rl_wc_opcode op);

enum rl_wc_flags { RL_WC_WITH_IMM = 2, RL_WC_WITH_INV = 8, RL_WC_GRH = 1 };

struct rl_sge {
	uint64_t addr;      /* in the MR's iova space */
	uint32_t length;
	uint32_t lkey;
};

#define RL_MAX_SGE 4

struct rl_send_wr {
	uint64_t wr_id;
	struct rl_sge sg_list[RL_MAX_SGE];
	int num_sge;
	enum rl_wr_opcode opcode;
	unsigned send_flags;        /* enum rl_send_flags */
	uint32_t imm_data;          /* host order; big-endian on the wire */
	uint32_t invalidate_rkey;   /* SEND with invalidate */
	struct {                    /* also ATOMIC WRITE's target; its 8-byte value is the SGE data */
		uint64_t remote_addr;
		uint32_t rkey;
	} rdma;
	struct {
		uint64_t remote_addr;
		uint32_t rkey;
		uint64_t compare_add;   /* compare (CmpSwap) or add (FetchAdd) */
		uint64_t swap;
	} atomic;
	struct {                    /* FLUSH: ibv_wr_flush()'s arguments */
		uint64_t remote_addr;
		uint32_t rkey;
		uint32_t len;           /* bytes from remote_addr; RL_FLUSH_MR ignores it */
		uint8_t type;           /* enum rl_flush_type bits */
		uint8_t level;          /* enum rl_flush_level */
	} flush;
	struct {                    /* UD only: where the datagram goes */
		uint8_t dgid[16];
		uint8_t dmac[6];
		uint32_t remote_qpn;
		uint32_t remote_qkey;
	} ud;
};

struct rl_recv_wr {
	uint64_t wr_id;
	struct rl_sge sg_list[RL_MAX_SGE];
	int num_sge;
};

struct rl_wc {
	uint64_t wr_id;
	enum rl_wc_status status;
	enum rl_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t imm_data;          /* host order, valid with RL_WC_WITH_IMM */
	uint32_t invalidated_rkey;  /* valid with RL_WC_WITH_INV */
	uint32_t qp_num;
	uint32_t src_qp;            /* UD */
	unsigned wc_flags;          /* enum rl_wc_flags */
};

/* Address vector: RoCE routes by GID (an IP address), never by LID. */
struct rl_ah_attr {
	uint8_t dgid[16];           /* IPv4-mapped ::ffff:a.b.c.d for IPv4 */
	uint8_t dmac[6];
	uint16_t udp_sport;         /* 0: derived from the QP numbers, in 0xC000-0xFFFF */
	uint8_t traffic_class;      /* DSCP << 2 | ECN */
	uint8_t hop_limit;          /* 0: 64 */
};

struct rl_qp_attr {
	enum rl_qp_state qp_state;
	unsigned qp_access_flags;   /* what the remote side may do: enum rl_access */
	uint16_t pkey_index;
	uint8_t port_num;
	uint32_t qkey;
	struct rl_ah_attr ah_attr;
	enum rl_mtu path_mtu;
	uint32_t dest_qp_num;
	uint32_t rq_psn;            /* first PSN the responder expects */
	uint32_t sq_psn;            /* first PSN the requester sends */
	uint8_t max_rd_atomic;      /* READ/atomic requests this QP may have outstanding */
	uint8_t max_dest_rd_atomic; /* ... that it accepts from the remote side */
	uint8_t min_rnr_timer;      /* RNR NAK timer value it advertises (IBA Table 46) */
	uint8_t timeout;            /* ACK timeout: 4.096 us * 2^timeout; 0 = infinite */
	uint8_t retry_cnt;          /* retries after timeout or NAK, 0..7 */
	uint8_t rnr_retry;          /* retries after RNR NAK, 0..7; 7 = infinite */
};

/* ibv_qp_attr_mask values. */
enum rl_qp_attr_mask {
	RL_QP_STATE = 1 << 0,
	RL_QP_ACCESS_FLAGS = 1 << 3,
	RL_QP_PKEY_INDEX = 1 << 4,
	RL_QP_PORT = 1 << 5,
	RL_QP_QKEY = 1 << 6,
	RL_QP_AV = 1 << 7,
	RL_QP_PATH_MTU = 1 << 8,
	RL_QP_TIMEOUT = 1 << 9,
	RL_QP_RETRY_CNT = 1 << 10,
	RL_QP_RNR_RETRY = 1 << 11,
	RL_QP_RQ_PSN = 1 << 12,
	RL_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	RL_QP_MIN_RNR_TIMER = 1 << 15,
	RL_QP_SQ_PSN = 1 << 16,
	RL_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	RL_QP_DEST_QPN = 1 << 20,
};

/*
 * What connecting a QP needs (rl_qp_connect()): what the two sides told each
 * other out of band, as perftest's pingpong_dest or rdma-core's pp_dest
 * carry over TCP ("LID:QPN:PSN:GID"), and what this side chose itself.
 * rl_conn_defaults() fills the choices with perftest's values.
 */
struct rl_conn {
	/* The remote side's, exchanged out of band. */
	uint32_t qpn;               /* its QP number: our dest_qp_num (RC, UC) */
	uint32_t psn;               /* its first send PSN: our rq_psn (RC, UC) */
	uint8_t gid[16];            /* its GID (IP address): our ah_attr.dgid (RC, UC) */
	uint8_t mac[6];             /* its MAC, which RoCE resolves from the GID: our ah_attr.dmac */
	/* This side's choices. */
	uint32_t sq_psn;            /* our first send PSN: what we told the remote side as ours */
	enum rl_mtu path_mtu;       /* RC, UC; UD uses the port's MTU */
	unsigned access;            /* qp_access_flags: what the remote side may do here (RC, UC) */
	uint32_t qkey;              /* UD */
	uint16_t pkey_index;
	uint8_t port_num;
	uint8_t traffic_class;      /* ah_attr: DSCP << 2 | ECN */
	uint8_t hop_limit;          /* ah_attr: 0 = 64 */
	uint16_t udp_sport;         /* ah_attr: 0 = derived from the QP numbers */
	uint8_t timeout, retry_cnt, rnr_retry;       /* RC requester (IBA 9.7.6.1.3, 9.7.5.2.8) */
	uint8_t min_rnr_timer;                       /* RC responder (IBA Table 46) */
	uint8_t max_rd_atomic, max_dest_rd_atomic;   /* RC: READ/atomic depth out and in */
};

/* A QP's congestion control: how its requester answers the CNPs its peer sends (IBA A17.9). */
enum rl_cc_algo {
	RL_CC_NONE,     /* CNPs are counted, nothing slows down (as rxe) */
	RL_CC_DCQCN,    /* DCQCN's reaction point (rocelab/dcqcn.h): CNPs cut a paced rate */
};
const char *rl_cc_algo_name(enum rl_cc_algo a);

struct rl_dcqcn_params;

/* Zeroed: none. The rate the pacer starts from is the port's line rate, which a host does not know. */
struct rl_qp_cc {
	enum rl_cc_algo algo;
	uint64_t line_rate_bps;                /* 0: RL_CC_DEFAULT_LINE_RATE */
	const struct rl_dcqcn_params *dcqcn;   /* copied at creation; NULL: the paper's defaults */
	/*
	 * The pacer's cap under any algo, as ibv_modify_qp_rate_limit()'s
	 * rate_limit (there in kb/s); with DCQCN also its ceiling. 0: none.
	 */
	uint64_t rate_limit_bps;
	/*
	 * ibv_qp_rate_limit_attr.max_burst_sz: the pacer's token bucket is
	 * this many bytes deep, refilled at the current rate, so no run of
	 * frames passes it plus what the rate allowed meanwhile. 0: one
	 * frame deep, each packet waits its time after the one before.
	 */
	uint32_t max_burst_bytes;
	/* Notification point: at least this long between two CNPs of the QP (mlx5 roce_np min_time_between_cnps). */
	uint64_t cnp_interval_ns;              /* 0: RL_CNP_INTERVAL_NS, 50 us */
};
/* 40 Gb/s, the links of the DCQCN paper's testbed. */
#define RL_CC_DEFAULT_LINE_RATE 40000000000ull

struct rl_qp_init_attr {
	enum rl_qp_type qp_type;
	struct rl_cq *send_cq, *recv_cq;
	uint32_t max_send_wr, max_recv_wr;   /* 0: 128; max_recv_wr is ignored with an SRQ */
	bool sq_sig_all;
	struct rl_srq *srq;                  /* receives come from this shared receive queue (IBA 10.2.9) */
	/*
	 * Chosen when the QP is made and kept for its life, as a NIC's congestion
	 * control is set for its port and priority before traffic starts, not
	 * moved through modify_qp's state table (IBA Table 91 has no row for it).
	 * RC and UC only: a UD QP has no one peer to send it CNPs.
	 */
	struct rl_qp_cc cc;
};

/*
 * A shared receive queue (IBA 10.2.9; ibv_srq_attr): several QPs take their
 * receive WQEs from it, in the order they were posted. srq_limit arms the
 * limit event: once fewer than srq_limit WQEs are left after a QP took one,
 * the host queues RL_EVENT_SRQ_LIMIT_REACHED and the limit goes back to 0
 * (IBA 11.6.3: one event per arming; rl_modify_srq() arms it again).
 */
struct rl_srq_attr {
	uint32_t max_wr;      /* receive WQEs it holds: 1 .. RL_MAX_SRQ_WR */
	uint32_t max_sge;     /* SGEs per WQE: 0 (taken as 1) .. RL_MAX_SGE */
	uint32_t srq_limit;   /* 0: not armed */
};

struct rl_srq_init_attr {
	void *srq_context;         /* the application's, handed back in rl_srq_context() */
	struct rl_srq_attr attr;   /* srq_limit is ignored here, as ibv_create_srq() ignores it */
};

/* ibv_srq_attr_mask values. */
enum rl_srq_attr_mask { RL_SRQ_MAX_WR = 1 << 0, RL_SRQ_LIMIT = 1 << 1 };

#define RL_MAX_SRQ_WR 65536

/*
 * Asynchronous events (IBA 11.6.3; ibv_event_type values): what
 * ibv_get_async_event() hands a program, taken here with
 * rl_get_async_event().
 */
enum rl_async_event_type {
	RL_EVENT_SRQ_LIMIT_REACHED = 15,   /* IBV_EVENT_SRQ_LIMIT_REACHED: an affiliated event of the SRQ */
};
const char *rl_async_event_name(enum rl_async_event_type t);

struct rl_async_event {
	enum rl_async_event_type event_type;
	union {
		struct rl_qp *qp;
		struct rl_srq *srq;
	} element;
	uint64_t now;          /* when it happened */
};

/* ---- events: what the transport did, for pcapgen, labs and annotations ---- */

enum rl_event_type {
	RL_EV_QP_STATE,      /* a QP changed state: value = new state */
	RL_EV_PSN_CHECK,     /* responder's PSN check: verdict in value (enum rl_psn_verdict) */
	RL_EV_NAK_SENT,      /* responder sent a NAK: value = AETH syndrome */
	RL_EV_ACK_SENT,      /* responder acknowledged psn */
	RL_EV_TIMER_ARMED,   /* value = deadline (ns) */
	RL_EV_TIMER_FIRED,   /* retransmit timeout */
	RL_EV_RNR_WAIT,      /* requester waits the RNR timer: value = deadline (ns) */
	RL_EV_RETRY,         /* requester goes back to psn: value = retries left */
	RL_EV_COMPLETION,    /* a work completion: value = enum rl_wc_status */
	RL_EV_DROP,          /* a received frame was dropped: text says why */
	RL_EV_CNP_SENT,      /* saw ECN Congestion Experienced, told the sender (IBA A17.9) */
	RL_EV_CNP_RECV,      /* the peer saw congestion on this QP's packets */
	RL_EV_SRQ_LIMIT,     /* taking a receive left the QP's SRQ below its limit: value = WQEs left */
	RL_EV_RATE_CHANGE,   /* congestion control moved the QP's current rate: value = new rate (b/s) */
};
const char *rl_event_name(enum rl_event_type t);

enum rl_psn_verdict { RL_PSN_IN_ORDER, RL_PSN_DUPLICATE, RL_PSN_OUT_OF_ORDER };
const char *rl_psn_verdict_name(enum rl_psn_verdict v);
/*
 * The RC responder's PSN check (IBA 9.7.5.1.1): a request with PSN @psn when
 * @epsn is expected. IN_ORDER: execute it. DUPLICATE (the 2^23 PSNs before
 * @epsn): answer again, do not execute again. OUT_OF_ORDER (the rest):
 * packets were lost; NAK with @epsn, once per gap, and drop it.
 */
enum rl_psn_verdict rl_psn_check(uint32_t epsn, uint32_t psn);
/* The completion status of a work request its NAK code fails (IBA 9.7.5.2.4, 10.8.3.1). */
enum rl_wc_status rl_nak_wc_status(uint8_t nak_code);

struct rl_event {
	enum rl_event_type type;
	uint64_t now;
	uint32_t qpn;
	uint32_t psn;
	uint64_t value;
	const char *text;    /* a short reason, for people */
};

/* An Ethernet frame to send, from the Ethernet header to the ICRC. */
typedef void (*rl_emit_fn)(void *ctx, const uint8_t *frame, size_t len);
/* A packet to send on @path: @len bytes from the BTH to the ICRC, for a socket to wrap in IP and UDP. */
typedef void (*rl_emit_pkt_fn)(void *ctx, const struct rl_path *path, const uint8_t *pkt, size_t len);
typedef void (*rl_event_fn)(void *ctx, const struct rl_event *ev);
/* How many more frames the port takes now (its transmit queue's free room). */
typedef size_t (*rl_tx_room_fn)(void *ctx);

struct rl_host_config {
	uint8_t mac[6];
	uint8_t gid[16];          /* IPv4-mapped for RoCEv2 over IPv4, else IPv6 */
	enum rl_mtu active_mtu;   /* the port's MTU; 0: 1024, as rxe on a 1500-byte netdev */
	uint32_t first_qpn;       /* number of the first QP created; 0: 0x11, as rxe */
	rl_emit_fn emit;          /* frames go out here ... */
	rl_emit_pkt_fn emit_pkt;  /* ... or as path + BTH..ICRC here: set exactly one */
	rl_event_fn event;        /* optional */
	void *ctx;                /* passed to emit (and to event, unless event_ctx is set) */
	void *event_ctx;
	/*
	 * The key byte of each memory registration's L_Key and R_Key. 0: a fixed
	 * one (index << 8 | 0x5a), for captures that come out the same every run.
	 * Else drawn from a generator this seeds, as rxe draws it at random, and
	 * the index starts at a drawn place: a caller facing a network it does
	 * not control passes a random seed, so that an R_Key cannot be guessed.
	 */
	uint64_t key_seed;
	/*
	 * Optional, with ctx: the port's free room. A READ response goes out as
	 * the port takes it, rl_host_run() sending more each time it is called,
	 * and requests behind it wait (rl_host_tx_pending()). NULL: the port
	 * takes everything at once.
	 */
	rl_tx_room_fn tx_room;
};

/* ---- the API -------------------------------------------------------------- */

struct rl_host *rl_host_new(const struct rl_host_config *cfg);
void rl_host_free(struct rl_host *h);
/* Why the last call on this host failed, in words a learner can act on. */
const char *rl_host_error(const struct rl_host *h);

/*
 * An Ethernet frame from the wire, checked as rxe_rcv() checks it (ICRC,
 * destination, QP) and handed to its QP. Returns 0, or a negative
 * errno-style code if it was malformed, not for this host or dropped
 * (-EBADMSG for a bad ICRC). Call rl_host_run() after: receiving only receives.
 */
int rl_host_recv(struct rl_host *h, const uint8_t *frame, size_t len, uint64_t now);
/*
 * The same for @len bytes from the BTH to the ICRC that arrived on @path:
 * the ICRC is checked over the invariant fields the path carries (IBA
 * A17.3.3). Returns as rl_host_recv(), and -EMSGSIZE for a packet no frame
 * could hold. Call rl_host_run() after.
 */
int rl_host_read_pkt(struct rl_host *h, const struct rl_path *path, const uint8_t *pkt, size_t len, uint64_t now);
/* Send what queued work and the windows allow, and fire timers due by now. */
void rl_host_run(struct rl_host *h, uint64_t now);
/* When the host next needs rl_host_run(); UINT64_MAX if never. */
uint64_t rl_host_next_timer(const struct rl_host *h);
/* A READ response is waiting for room at the port (tx_room): call rl_host_run() when there is some. */
bool rl_host_tx_pending(const struct rl_host *h);

/* What ibv_query_port() and ibv_query_gid() tell: the port's MTU and address. */
struct rl_port_attr {
	enum rl_mtu active_mtu;
	uint8_t gid[16];
	uint8_t mac[6];
	/* ibv_port_attr's P_Key and Q_Key violation counters (IBA 14.2.5.6 PortInfo), stopping at 0xffff. */
	uint32_t bad_pkey_cntr, qkey_viol_cntr;
};
void rl_query_port(const struct rl_host *h, struct rl_port_attr *attr);

struct rl_pd *rl_alloc_pd(struct rl_host *h);
int rl_dealloc_pd(struct rl_pd *pd);
/* Register @length bytes at @addr, addressed remotely as @iova. */
struct rl_mr *rl_reg_mr_iova(struct rl_pd *pd, void *addr, size_t length, uint64_t iova, unsigned access);
int rl_dereg_mr(struct rl_mr *mr);
uint32_t rl_mr_lkey(const struct rl_mr *mr);
uint32_t rl_mr_rkey(const struct rl_mr *mr);
uint64_t rl_mr_iova(const struct rl_mr *mr);

struct rl_cq *rl_create_cq(struct rl_host *h, int cqe);
int rl_destroy_cq(struct rl_cq *cq);
/* Up to @n completions, oldest first; returns how many. */
int rl_poll_cq(struct rl_cq *cq, int n, struct rl_wc *wc);
/* Completions waiting to be polled: what a completion event (ibv_get_cq_event) tells a driver. */
int rl_cq_pending(const struct rl_cq *cq);

struct rl_qp *rl_create_qp(struct rl_pd *pd, const struct rl_qp_init_attr *attr);
int rl_destroy_qp(struct rl_qp *qp);
uint32_t rl_qp_num(const struct rl_qp *qp);
/* The UDP source port the QP sends from (as rxe: per QP, in 0xC000-0xFFFF; RC may set it in the AV). */
uint16_t rl_qp_udp_sport(const struct rl_qp *qp);
enum rl_qp_state rl_qp_state(const struct rl_qp *qp);
int rl_modify_qp(struct rl_qp *qp, const struct rl_qp_attr *attr, int attr_mask);
/*
 * The attributes (enum rl_qp_attr_mask) a @type QP must give to go from
 * @from to @to: IBA 11.2.4.2 Table 91, as rl_modify_qp() enforces it. 0 if
 * that is not a transition modify_qp makes with attributes.
 */
int rl_qp_attr_required(enum rl_qp_type type, enum rl_qp_state from, enum rl_qp_state to);
int rl_query_qp(const struct rl_qp *qp, struct rl_qp_attr *attr);
/* perftest's choices: path MTU 1024, every remote access, Q_Key 0x11111111, port 1,
 * timeout 14 (67 ms), retry_cnt 7, rnr_retry 7, min_rnr_timer 12 (0.64 ms), 16 READs/atomics. */
void rl_conn_defaults(struct rl_conn *c);
/*
 * Connect @qp as perftest's ctx_connect and ibv_rc_pingpong's pp_connect_ctx
 * do: RESET -> INIT -> RTR -> RTS, three rl_modify_qp() calls with the
 * attributes IBA Table 91 requires of the QP's transport (RC, UC or UD).
 * From INIT (receives posted first) it goes on from there. Returns 0, or
 * the failing rl_modify_qp()'s negative errno with rl_host_error() saying
 * which step and why; the QP stays in the last state it reached.
 */
int rl_qp_connect(struct rl_qp *qp, const struct rl_conn *conn);
int rl_post_send(struct rl_qp *qp, const struct rl_send_wr *wr);
/* A QP created with an SRQ has no receive queue of its own: -EINVAL, post to the SRQ. */
int rl_post_recv(struct rl_qp *qp, const struct rl_recv_wr *wr);

/*
 * Shared receive queues, as ibv_create_srq() and the rest. Create returns
 * NULL with rl_host_error() saying why. Post returns 0, -EINVAL (num_sge
 * over max_sge) or -ENOMEM (max_wr WQEs posted already). Modify: RL_SRQ_LIMIT
 * arms the limit (at most max_wr; 0 disarms), RL_SRQ_MAX_WR resizes (not
 * below the WQEs posted or the armed limit); -EINVAL otherwise. Query gives
 * srq_limit 0 once the event has fired. Destroy: -EBUSY while a QP uses it.
 */
struct rl_srq *rl_create_srq(struct rl_pd *pd, const struct rl_srq_init_attr *attr);
int rl_modify_srq(struct rl_srq *srq, const struct rl_srq_attr *attr, int attr_mask);
int rl_query_srq(const struct rl_srq *srq, struct rl_srq_attr *attr);
int rl_destroy_srq(struct rl_srq *srq);
int rl_post_srq_recv(struct rl_srq *srq, const struct rl_recv_wr *wr);
/* Receive WQEs posted and not yet taken by a QP. */
uint32_t rl_srq_pending(const struct rl_srq *srq);
void *rl_srq_context(const struct rl_srq *srq);
/* The oldest asynchronous event not yet taken: 0, or -EAGAIN if there is none (never blocks). */
int rl_get_async_event(struct rl_host *h, struct rl_async_event *ev);

/* Counters a learner or a test may look at. */
struct rl_qp_stats {
	uint64_t pkts_sent, pkts_recv, retransmits, timeouts, rnr_naks_recv, seq_naks_recv;
	uint64_t naks_sent, dup_requests, out_of_order_drops, qkey_violations, icrc_drops;
	uint64_t ecn_ce_recv, cnps_sent, cnps_recv;
	/* Responder: SEND and WRITE messages executed whole; request packets dropped unexecuted. */
	uint64_t msgs_recv, pkts_discarded;
	/* UC: messages of which some packets arrived but not all, dropped whole (IBA 9.8.3). */
	uint64_t msgs_discarded;
	/*
	 * Dropped before the QP saw them: RC/UC packets from an address other
	 * than the one the QP is connected to (rxe's check_addr drops them
	 * uncounted; counted here so a learner sees them), and packets whose
	 * P_Key does not match the QP's partition (also in the port's bad_pkey_cntr).
	 */
	uint64_t addr_drops, pkey_violations;
	/* Responder: of naks_sent, the RNR NAKs (no receive WQE for a SEND, IBA 9.7.5.2.8). */
	uint64_t rnr_naks_sent;
	/* Congestion control (rl_qp_cc): the rate's cuts and increases, and the current rate (0: none). */
	uint64_t rate_decreases, rate_increases, cc_rate_bps;
	uint32_t cc_stage;   /* RL_CC_DCQCN: its enum rl_dcqcn_stage (rl_dcqcn_stage_name) */
};
void rl_qp_stats(const struct rl_qp *qp, struct rl_qp_stats *st);

/* Helpers for addresses: IPv4 a.b.c.d as an IPv4-mapped GID. */
void rl_gid_from_ipv4(uint8_t gid[16], const uint8_t ip4[4]);
bool rl_gid_is_ipv4(const uint8_t gid[16]);

#ifdef __cplusplus
}
#endif
#endif
