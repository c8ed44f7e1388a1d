/* SPDX-License-Identifier: MIT */
/*
 * The InfiniBand transport opcode table (IBA 9.2, Table 38; RoCEv2 CNP from
 * IBA Annex A17.9.3). One row per opcode value, 256 rows: encode, decode and
 * validation all read this table, so adding an opcode is one row.
 */
#ifndef ROCELAB_OPCODE_H
#define ROCELAB_OPCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Transport service, the top three bits of the opcode (IBA 9.2). */
enum rl_transport {
	RL_TR_RC = 0,   /* 000: Reliable Connection */
	RL_TR_UC = 1,   /* 001: Unreliable Connection */
	RL_TR_RD = 2,   /* 010: Reliable Datagram */
	RL_TR_UD = 3,   /* 011: Unreliable Datagram */
	RL_TR_CNP = 4,  /* 100: RoCEv2 Congestion Notification Packet */
	RL_TR_XRC = 5,  /* 101: eXtended Reliable Connection */
	RL_TR_MANUF = 6 /* 110/111: manufacturer specific */
};
const char *rl_transport_name(enum rl_transport t);

/*
 * Extended transport headers, in the order in which they follow the BTH
 * (IBA 9.2, Figure 98; XRC from IBA Annex A14; FLUSH from IBA 1.5).
 */
enum rl_hdr {
	RL_HDR_RDETH = 1u << 0,       /* 4 bytes: EE context (RD) */
	RL_HDR_DETH = 1u << 1,        /* 8 bytes: Q_Key, source QP (RD, UD) */
	RL_HDR_XRCETH = 1u << 2,      /* 4 bytes: XRC SRQ number (XRC requests) */
	RL_HDR_FETH = 1u << 3,        /* 4 bytes: FLUSH selectivity, placement type */
	RL_HDR_RETH = 1u << 4,        /* 16 bytes: VA, R_Key, DMA length */
	RL_HDR_ATOMICETH = 1u << 5,   /* 28 bytes: VA, R_Key, swap/add, compare */
	RL_HDR_AETH = 1u << 6,        /* 4 bytes: syndrome, MSN */
	RL_HDR_ATOMICACKETH = 1u << 7,/* 8 bytes: original remote data */
	RL_HDR_IMMDT = 1u << 8,       /* 4 bytes: immediate data */
	RL_HDR_IETH = 1u << 9,        /* 4 bytes: R_Key to invalidate */
	RL_HDR_CNP = 1u << 10,        /* 16 reserved bytes of a CNP (A17.9.3) */
};
#define RL_HDR_COUNT 11

#define RL_BTH_LEN 12
#define RL_RDETH_LEN 4
#define RL_DETH_LEN 8
#define RL_XRCETH_LEN 4
#define RL_FETH_LEN 4
#define RL_RETH_LEN 16
#define RL_ATOMICETH_LEN 28
#define RL_AETH_LEN 4
#define RL_ATOMICACKETH_LEN 8
#define RL_IMMDT_LEN 4
#define RL_IETH_LEN 4
#define RL_CNP_LEN 16
#define RL_ICRC_LEN 4

/* Bit number -> header flag, length and name, in wire order. */
size_t rl_hdr_len(enum rl_hdr h);
const char *rl_hdr_name(enum rl_hdr h);

/* What an opcode does; "position" flags say where it sits in a message. */
enum rl_opflag {
	RL_OPF_VALID = 1u << 0,    /* defined by the spec (else reserved) */
	RL_OPF_REQ = 1u << 1,      /* sent by a requester */
	RL_OPF_RESP = 1u << 2,     /* sent by a responder (ACK, READ response) */
	RL_OPF_SEND = 1u << 3,
	RL_OPF_WRITE = 1u << 4,
	RL_OPF_READ = 1u << 5,     /* READ request or READ response */
	RL_OPF_ATOMIC = 1u << 6,   /* CmpSwap, FetchAdd, ATOMIC WRITE, atomic ACK */
	RL_OPF_ACK = 1u << 7,      /* Acknowledge / ATOMIC Acknowledge */
	RL_OPF_PAYLOAD = 1u << 8,  /* may carry payload */
	RL_OPF_IMM = 1u << 9,      /* carries immediate data */
	RL_OPF_INV = 1u << 10,     /* carries an R_Key to invalidate */
	RL_OPF_FIRST = 1u << 11,   /* starts a message */
	RL_OPF_MIDDLE = 1u << 12,
	RL_OPF_LAST = 1u << 13,    /* ends a message; FIRST|LAST is "Only" */
	RL_OPF_CNP = 1u << 14,
	RL_OPF_FLUSH = 1u << 15,
	RL_OPF_RESYNC = 1u << 16,
	RL_OPF_CMPSWAP = 1u << 17, /* Compare&Swap, to tell it from Fetch&Add */
};

struct rl_opcode_info {
	const char *name;        /* IB spec name, e.g. "RC RDMA WRITE First" */
	uint32_t flags;          /* enum rl_opflag */
	uint32_t hdrs;           /* enum rl_hdr: headers after the BTH */
	uint8_t hdr_len;         /* total length of those headers */
	uint8_t fixed_payload;   /* payload length the opcode mandates (0: any) */
};

/* Never NULL: reserved values return a row named "Reserved" without RL_OPF_VALID. */
const struct rl_opcode_info *rl_opcode_info(uint8_t opcode);

static inline enum rl_transport rl_opcode_transport(uint8_t opcode)
{
	unsigned t = opcode >> 5;
	return t >= 6 ? RL_TR_MANUF : (enum rl_transport)t;
}

/* "First", "Middle", "Last", "Only" or "" for single-packet kinds. */
const char *rl_opcode_position(uint8_t opcode);

/* Offset of header @h from the end of the BTH, or -1 if the opcode has none. */
int rl_opcode_hdr_offset(uint8_t opcode, enum rl_hdr h);

/* May a packet with this opcode carry @len bytes of payload (pad excluded)? */
bool rl_opcode_payload_ok(uint8_t opcode, size_t len);

/*
 * The opcode of transport @tr whose flags are exactly @flags (without
 * RL_OPF_VALID): how a requester or responder picks what to send, e.g.
 * rl_opcode_find(RL_TR_RC, RL_OPF_REQ | RL_OPF_SEND | RL_OPF_PAYLOAD | RL_OPF_FIRST)
 * is RC SEND First. Returns -1 if there is none.
 */
int rl_opcode_find(enum rl_transport tr, uint32_t flags);

/* Look an opcode up by its spec name (case-insensitive); -1 if none. */
int rl_opcode_by_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
