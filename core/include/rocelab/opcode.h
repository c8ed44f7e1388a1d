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
/* Each header's name and length at run time: rl_field_hdr() (field.h), the header rows of field_rows.h. */

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
	RL_OPF_ATOMIC_WRITE = 1u << 18, /* ATOMIC WRITE: an atomic with a RETH and 8 bytes of payload,
					   not an AtomicETH */
};

/*
 * The opcode rows, IBA 9.2 Table 38 ("OpCode field"), with XRC (IBA Annex
 * A14), FLUSH and ATOMIC WRITE (IBA 1.5) and the RoCEv2 CNP (IBA A17.9.3).
 * Each row is written once, as
 *     OP(value, CONSTANT, "spec name", what it does, headers after the BTH, fixed payload)
 * and expanded twice: into the RL_OP_* constants below and into the table in
 * opcode.c, so that a constant cannot drift from its row. The shorthands
 * (RL_O_*) stand for the rl_opflag and rl_hdr values defined above.
 */
#define RL_O_F RL_OPF_FIRST
#define RL_O_M RL_OPF_MIDDLE
#define RL_O_L RL_OPF_LAST
#define RL_O_O (RL_OPF_FIRST | RL_OPF_LAST)
#define RL_O_SEND (RL_OPF_REQ | RL_OPF_SEND | RL_OPF_PAYLOAD)
#define RL_O_WRITE (RL_OPF_REQ | RL_OPF_WRITE | RL_OPF_PAYLOAD)
#define RL_O_READRQ (RL_OPF_REQ | RL_OPF_READ | RL_O_O)
#define RL_O_READRS (RL_OPF_RESP | RL_OPF_READ | RL_OPF_PAYLOAD)
#define RL_O_ATOMIC (RL_OPF_REQ | RL_OPF_ATOMIC | RL_O_O)
#define RL_O_ACK (RL_OPF_RESP | RL_OPF_ACK)
#define RL_O_IMM RL_OPF_IMM
#define RL_O_INV RL_OPF_INV

/* Requests of RD carry RDETH and DETH, of XRC XRCETH (ex); responses of RD carry RDETH (rex). */
#define RL_OP_REQ_ROWS(OP, base, tr, ex)                                                           \
	OP(base + 0x00, tr##_SEND_FIRST, #tr " SEND First", RL_O_SEND | RL_O_F, ex, 0)             \
	OP(base + 0x01, tr##_SEND_MIDDLE, #tr " SEND Middle", RL_O_SEND | RL_O_M, ex, 0)           \
	OP(base + 0x02, tr##_SEND_LAST, #tr " SEND Last", RL_O_SEND | RL_O_L, ex, 0)               \
	OP(base + 0x03, tr##_SEND_LAST_WITH_IMMEDIATE, #tr " SEND Last with Immediate",            \
	   RL_O_SEND | RL_O_L | RL_O_IMM, ex | RL_HDR_IMMDT, 0)                                    \
	OP(base + 0x04, tr##_SEND_ONLY, #tr " SEND Only", RL_O_SEND | RL_O_O, ex, 0)               \
	OP(base + 0x05, tr##_SEND_ONLY_WITH_IMMEDIATE, #tr " SEND Only with Immediate",            \
	   RL_O_SEND | RL_O_O | RL_O_IMM, ex | RL_HDR_IMMDT, 0)

#define RL_OP_WRITE_ROWS(OP, base, tr, ex)                                                         \
	OP(base + 0x06, tr##_RDMA_WRITE_FIRST, #tr " RDMA WRITE First", RL_O_WRITE | RL_O_F,       \
	   ex | RL_HDR_RETH, 0)                                                                    \
	OP(base + 0x07, tr##_RDMA_WRITE_MIDDLE, #tr " RDMA WRITE Middle", RL_O_WRITE | RL_O_M, ex, 0) \
	OP(base + 0x08, tr##_RDMA_WRITE_LAST, #tr " RDMA WRITE Last", RL_O_WRITE | RL_O_L, ex, 0)  \
	OP(base + 0x09, tr##_RDMA_WRITE_LAST_WITH_IMMEDIATE, #tr " RDMA WRITE Last with Immediate", \
	   RL_O_WRITE | RL_O_L | RL_O_IMM, ex | RL_HDR_IMMDT, 0)                                   \
	OP(base + 0x0a, tr##_RDMA_WRITE_ONLY, #tr " RDMA WRITE Only", RL_O_WRITE | RL_O_O,         \
	   ex | RL_HDR_RETH, 0)                                                                    \
	OP(base + 0x0b, tr##_RDMA_WRITE_ONLY_WITH_IMMEDIATE, #tr " RDMA WRITE Only with Immediate", \
	   RL_O_WRITE | RL_O_O | RL_O_IMM, ex | RL_HDR_RETH | RL_HDR_IMMDT, 0)

#define RL_OP_READ_ATOMIC_ROWS(OP, base, tr, ex, rex)                                              \
	OP(base + 0x0c, tr##_RDMA_READ_REQUEST, #tr " RDMA READ Request", RL_O_READRQ,             \
	   ex | RL_HDR_RETH, 0)                                                                    \
	OP(base + 0x0d, tr##_RDMA_READ_RESPONSE_FIRST, #tr " RDMA READ response First",            \
	   RL_O_READRS | RL_O_F, rex | RL_HDR_AETH, 0)                                             \
	OP(base + 0x0e, tr##_RDMA_READ_RESPONSE_MIDDLE, #tr " RDMA READ response Middle",          \
	   RL_O_READRS | RL_O_M, rex, 0)                                                           \
	OP(base + 0x0f, tr##_RDMA_READ_RESPONSE_LAST, #tr " RDMA READ response Last",              \
	   RL_O_READRS | RL_O_L, rex | RL_HDR_AETH, 0)                                             \
	OP(base + 0x10, tr##_RDMA_READ_RESPONSE_ONLY, #tr " RDMA READ response Only",              \
	   RL_O_READRS | RL_O_O, rex | RL_HDR_AETH, 0)                                             \
	OP(base + 0x11, tr##_ACKNOWLEDGE, #tr " Acknowledge", RL_O_ACK, rex | RL_HDR_AETH, 0)      \
	OP(base + 0x12, tr##_ATOMIC_ACKNOWLEDGE, #tr " ATOMIC Acknowledge",                        \
	   RL_O_ACK | RL_OPF_ATOMIC, rex | RL_HDR_AETH | RL_HDR_ATOMICACKETH, 0)                   \
	OP(base + 0x13, tr##_COMPARE_SWAP, #tr " CmpSwap", RL_O_ATOMIC | RL_OPF_CMPSWAP,           \
	   ex | RL_HDR_ATOMICETH, 0)                                                               \
	OP(base + 0x14, tr##_FETCH_ADD, #tr " FetchAdd", RL_O_ATOMIC, ex | RL_HDR_ATOMICETH, 0)

#define RL_OP_INV_ROWS(OP, base, tr, ex)                                                           \
	OP(base + 0x16, tr##_SEND_LAST_WITH_INVALIDATE, #tr " SEND Last with Invalidate",          \
	   RL_O_SEND | RL_O_L | RL_O_INV, ex | RL_HDR_IETH, 0)                                     \
	OP(base + 0x17, tr##_SEND_ONLY_WITH_INVALIDATE, #tr " SEND Only with Invalidate",          \
	   RL_O_SEND | RL_O_O | RL_O_INV, ex | RL_HDR_IETH, 0)

#define RL_OPCODE_ROWS(OP)                                                                         \
	RL_OP_REQ_ROWS(OP, 0x00, RC, 0)                                                            \
	RL_OP_WRITE_ROWS(OP, 0x00, RC, 0)                                                          \
	RL_OP_READ_ATOMIC_ROWS(OP, 0x00, RC, 0, 0)                                                 \
	RL_OP_INV_ROWS(OP, 0x00, RC, 0)                                                            \
	/* IBA 1.5: FLUSH (FETH + RETH) and ATOMIC WRITE (RETH + 8 bytes of payload). */           \
	OP(0x1c, RC_FLUSH, "RC FLUSH", RL_OPF_REQ | RL_O_O | RL_OPF_FLUSH,                         \
	   RL_HDR_FETH | RL_HDR_RETH, 0)                                                           \
	OP(0x1d, RC_ATOMIC_WRITE, "RC ATOMIC WRITE",                                               \
	   RL_OPF_REQ | RL_O_O | RL_OPF_ATOMIC | RL_OPF_ATOMIC_WRITE | RL_OPF_PAYLOAD,             \
	   RL_HDR_RETH, 8)                                                                         \
	RL_OP_REQ_ROWS(OP, 0x20, UC, 0)                                                            \
	RL_OP_WRITE_ROWS(OP, 0x20, UC, 0)                                                          \
	RL_OP_REQ_ROWS(OP, 0x40, RD, RL_HDR_RDETH | RL_HDR_DETH)                                   \
	RL_OP_WRITE_ROWS(OP, 0x40, RD, RL_HDR_RDETH | RL_HDR_DETH)                                 \
	RL_OP_READ_ATOMIC_ROWS(OP, 0x40, RD, RL_HDR_RDETH | RL_HDR_DETH, RL_HDR_RDETH)             \
	OP(0x55, RD_RESYNC, "RD RESYNC", RL_OPF_REQ | RL_O_O | RL_OPF_RESYNC,                      \
	   RL_HDR_RDETH | RL_HDR_DETH, 0)                                                          \
	OP(0x64, UD_SEND_ONLY, "UD SEND Only", RL_O_SEND | RL_O_O, RL_HDR_DETH, 0)                 \
	OP(0x65, UD_SEND_ONLY_WITH_IMMEDIATE, "UD SEND Only with Immediate",                       \
	   RL_O_SEND | RL_O_O | RL_O_IMM, RL_HDR_DETH | RL_HDR_IMMDT, 0)                           \
	OP(0x81, CNP, "CNP", RL_OPF_CNP, RL_HDR_CNP, 0)                                            \
	RL_OP_REQ_ROWS(OP, 0xa0, XRC, RL_HDR_XRCETH)                                               \
	RL_OP_WRITE_ROWS(OP, 0xa0, XRC, RL_HDR_XRCETH)                                             \
	RL_OP_READ_ATOMIC_ROWS(OP, 0xa0, XRC, RL_HDR_XRCETH, 0)                                    \
	RL_OP_INV_ROWS(OP, 0xa0, XRC, RL_HDR_XRCETH)

/* The named opcodes: RL_OP_RC_SEND_FIRST, RL_OP_RC_ACKNOWLEDGE, RL_OP_CNP, ... */
#define RL_OP_ENUM_ROW(code, id, name, flags, hdrs, fixed) RL_OP_##id = (code),
enum rl_op { RL_OPCODE_ROWS(RL_OP_ENUM_ROW) };
#undef RL_OP_ENUM_ROW

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

/* The same for a row already looked up (the decoder's per-packet path). */
static inline bool rl_opcode_info_payload_ok(const struct rl_opcode_info *info, size_t len)
{
	if (!(info->flags & RL_OPF_VALID))
		return true;
	if (!(info->flags & RL_OPF_PAYLOAD))
		return len == 0;
	if (info->fixed_payload)
		return len == info->fixed_payload;
	return (info->flags & RL_OPF_LAST) || !(len & 3);
}

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
