/* SPDX-License-Identifier: MIT */
/*
 * The opcode table, IBA 9.2 Table 38 ("OpCode field"), with XRC (IBA Annex
 * A14), FLUSH and ATOMIC WRITE (IBA 1.5) and the RoCEv2 CNP (IBA A17.9.3).
 * Modelled on the Linux rxe driver's rxe_opcode.c: one row says everything.
 */
#include <ctype.h>
#include <string.h>

#include "rocelab/opcode.h"

#define HLEN(m)                                                          \
	((((m) & RL_HDR_RDETH) ? RL_RDETH_LEN : 0) +                     \
	 (((m) & RL_HDR_DETH) ? RL_DETH_LEN : 0) +                       \
	 (((m) & RL_HDR_XRCETH) ? RL_XRCETH_LEN : 0) +                   \
	 (((m) & RL_HDR_FETH) ? RL_FETH_LEN : 0) +                       \
	 (((m) & RL_HDR_RETH) ? RL_RETH_LEN : 0) +                       \
	 (((m) & RL_HDR_ATOMICETH) ? RL_ATOMICETH_LEN : 0) +             \
	 (((m) & RL_HDR_AETH) ? RL_AETH_LEN : 0) +                       \
	 (((m) & RL_HDR_ATOMICACKETH) ? RL_ATOMICACKETH_LEN : 0) +       \
	 (((m) & RL_HDR_IMMDT) ? RL_IMMDT_LEN : 0) +                     \
	 (((m) & RL_HDR_IETH) ? RL_IETH_LEN : 0) +                       \
	 (((m) & RL_HDR_CNP) ? RL_CNP_LEN : 0))

#define OP(code, nm, fl, hd) \
	[code] = { .name = nm, .flags = RL_OPF_VALID | (fl), .hdrs = (hd), .hdr_len = HLEN(hd) }

/* Shorthands for the rows below. */
#define F RL_OPF_FIRST
#define M RL_OPF_MIDDLE
#define L RL_OPF_LAST
#define O (RL_OPF_FIRST | RL_OPF_LAST)
#define RQ RL_OPF_REQ
#define RS RL_OPF_RESP
#define PL RL_OPF_PAYLOAD
#define SEND (RQ | RL_OPF_SEND | PL)
#define WRITE (RQ | RL_OPF_WRITE | PL)
#define READRQ (RQ | RL_OPF_READ | O)
#define READRS (RS | RL_OPF_READ | PL)
#define ATOMIC (RQ | RL_OPF_ATOMIC | O)
#define ACK (RS | RL_OPF_ACK)
#define IMM RL_OPF_IMM
#define INV RL_OPF_INV

#define RD RL_HDR_RDETH
#define DE RL_HDR_DETH
#define XR RL_HDR_XRCETH
#define RE RL_HDR_RETH
#define AT RL_HDR_ATOMICETH
#define AE RL_HDR_AETH
#define AA RL_HDR_ATOMICACKETH
#define IM RL_HDR_IMMDT
#define IE RL_HDR_IETH

/*
 * One block per transport. Requests of RD carry RDETH and DETH, requests of
 * XRC carry XRCETH; responses of RD carry RDETH; the rest is common.
 */
#define REQ_ROWS(base, tr, ex)                                                 \
	OP(base + 0x00, tr " SEND First", SEND | F, ex),                       \
	OP(base + 0x01, tr " SEND Middle", SEND | M, ex),                      \
	OP(base + 0x02, tr " SEND Last", SEND | L, ex),                        \
	OP(base + 0x03, tr " SEND Last with Immediate", SEND | L | IMM, ex | IM), \
	OP(base + 0x04, tr " SEND Only", SEND | O, ex),                        \
	OP(base + 0x05, tr " SEND Only with Immediate", SEND | O | IMM, ex | IM)

#define WRITE_ROWS(base, tr, ex)                                               \
	OP(base + 0x06, tr " RDMA WRITE First", WRITE | F, ex | RE),           \
	OP(base + 0x07, tr " RDMA WRITE Middle", WRITE | M, ex),               \
	OP(base + 0x08, tr " RDMA WRITE Last", WRITE | L, ex),                 \
	OP(base + 0x09, tr " RDMA WRITE Last with Immediate", WRITE | L | IMM, ex | IM), \
	OP(base + 0x0a, tr " RDMA WRITE Only", WRITE | O, ex | RE),            \
	OP(base + 0x0b, tr " RDMA WRITE Only with Immediate", WRITE | O | IMM, ex | RE | IM)

#define READ_ATOMIC_ROWS(base, tr, ex, rex)                                    \
	OP(base + 0x0c, tr " RDMA READ Request", READRQ, ex | RE),             \
	OP(base + 0x0d, tr " RDMA READ response First", READRS | F, rex | AE), \
	OP(base + 0x0e, tr " RDMA READ response Middle", READRS | M, rex),     \
	OP(base + 0x0f, tr " RDMA READ response Last", READRS | L, rex | AE),  \
	OP(base + 0x10, tr " RDMA READ response Only", READRS | O, rex | AE),  \
	OP(base + 0x11, tr " Acknowledge", ACK, rex | AE),                     \
	OP(base + 0x12, tr " ATOMIC Acknowledge", ACK | RL_OPF_ATOMIC, rex | AE | AA), \
	OP(base + 0x13, tr " CmpSwap", ATOMIC | RL_OPF_CMPSWAP, ex | AT),      \
	OP(base + 0x14, tr " FetchAdd", ATOMIC, ex | AT)

#define INV_ROWS(base, tr, ex)                                                 \
	OP(base + 0x16, tr " SEND Last with Invalidate", SEND | L | INV, ex | IE), \
	OP(base + 0x17, tr " SEND Only with Invalidate", SEND | O | INV, ex | IE)

static const struct rl_opcode_info rl_opcodes[256] = {
	REQ_ROWS(0x00, "RC", 0),
	WRITE_ROWS(0x00, "RC", 0),
	READ_ATOMIC_ROWS(0x00, "RC", 0, 0),
	INV_ROWS(0x00, "RC", 0),
	/* IBA 1.5: FLUSH (FETH + RETH) and ATOMIC WRITE (RETH + 8 bytes). */
	OP(0x1c, "RC FLUSH", RQ | O | RL_OPF_FLUSH, RL_HDR_FETH | RE),
	[0x1d] = { "RC ATOMIC WRITE", RL_OPF_VALID | RQ | O | RL_OPF_ATOMIC | PL,
		   RE, HLEN(RE), 8 },

	REQ_ROWS(0x20, "UC", 0),
	WRITE_ROWS(0x20, "UC", 0),

	REQ_ROWS(0x40, "RD", RD | DE),
	WRITE_ROWS(0x40, "RD", RD | DE),
	READ_ATOMIC_ROWS(0x40, "RD", RD | DE, RD),
	OP(0x55, "RD RESYNC", RQ | O | RL_OPF_RESYNC, RD | DE),

	OP(0x64, "UD SEND Only", SEND | O, DE),
	OP(0x65, "UD SEND Only with Immediate", SEND | O | IMM, DE | IM),

	OP(0x81, "CNP", RL_OPF_CNP, RL_HDR_CNP),

	REQ_ROWS(0xa0, "XRC", XR),
	WRITE_ROWS(0xa0, "XRC", XR),
	READ_ATOMIC_ROWS(0xa0, "XRC", XR, 0),
	INV_ROWS(0xa0, "XRC", XR),
};

static const struct rl_opcode_info rl_opcode_unknown = { "Unknown", 0, 0, 0, 0 };

const struct rl_opcode_info *rl_opcode_info(uint8_t opcode)
{
	const struct rl_opcode_info *info = &rl_opcodes[opcode];

	return info->name ? info : &rl_opcode_unknown;
}

static const char *const rl_transport_names[] = {
	[RL_TR_RC] = "RC", [RL_TR_UC] = "UC", [RL_TR_RD] = "RD", [RL_TR_UD] = "UD",
	[RL_TR_CNP] = "CNP", [RL_TR_XRC] = "XRC", [RL_TR_MANUF] = "manufacturer",
};

const char *rl_transport_name(enum rl_transport t)
{
	if ((unsigned)t >= sizeof(rl_transport_names) / sizeof(rl_transport_names[0]))
		return "?";
	return rl_transport_names[t];
}

static const struct {
	const char *name;
	uint8_t len;
} rl_hdr_table[RL_HDR_COUNT] = {
	{ "RDETH", RL_RDETH_LEN },     { "DETH", RL_DETH_LEN },
	{ "XRCETH", RL_XRCETH_LEN },   { "FETH", RL_FETH_LEN },
	{ "RETH", RL_RETH_LEN },       { "AtomicETH", RL_ATOMICETH_LEN },
	{ "AETH", RL_AETH_LEN },       { "AtomicAckETH", RL_ATOMICACKETH_LEN },
	{ "ImmDt", RL_IMMDT_LEN },     { "IETH", RL_IETH_LEN },
	{ "CNP reserved", RL_CNP_LEN },
};

static int rl_hdr_bit(enum rl_hdr h)
{
	for (int i = 0; i < RL_HDR_COUNT; i++)
		if ((unsigned)h == 1u << i)
			return i;
	return -1;
}

size_t rl_hdr_len(enum rl_hdr h)
{
	int b = rl_hdr_bit(h);

	return b < 0 ? 0 : rl_hdr_table[b].len;
}

const char *rl_hdr_name(enum rl_hdr h)
{
	int b = rl_hdr_bit(h);

	return b < 0 ? "?" : rl_hdr_table[b].name;
}

int rl_opcode_hdr_offset(uint8_t opcode, enum rl_hdr h)
{
	const struct rl_opcode_info *info = rl_opcode_info(opcode);
	int off = 0;

	if (!(info->hdrs & h))
		return -1;
	for (int i = 0; i < RL_HDR_COUNT && (1u << i) != (unsigned)h; i++)
		if (info->hdrs & (1u << i))
			off += rl_hdr_table[i].len;
	return off;
}

const char *rl_opcode_position(uint8_t opcode)
{
	uint32_t fl = rl_opcode_info(opcode)->flags;

	if (!(fl & RL_OPF_PAYLOAD))
		return "";
	switch (fl & (RL_OPF_FIRST | RL_OPF_MIDDLE | RL_OPF_LAST)) {
	case RL_OPF_FIRST: return "First";
	case RL_OPF_MIDDLE: return "Middle";
	case RL_OPF_LAST: return "Last";
	case RL_OPF_FIRST | RL_OPF_LAST: return "Only";
	default: return "";
	}
}

/*
 * Payload rules (IBA 9.2 PadCnt, 9.7.2): none for opcodes without payload,
 * the mandated size where the opcode has one, a multiple of 4 on First and
 * Middle packets (they carry a whole path MTU). Reserved opcodes: anything.
 */
bool rl_opcode_payload_ok(uint8_t opcode, size_t len)
{
	const struct rl_opcode_info *info = rl_opcode_info(opcode);

	if (!(info->flags & RL_OPF_VALID))
		return true;
	if (!(info->flags & RL_OPF_PAYLOAD))
		return len == 0;
	if (info->fixed_payload)
		return len == info->fixed_payload;
	return (info->flags & RL_OPF_LAST) || !(len & 3);
}

int rl_opcode_find(enum rl_transport tr, uint32_t flags)
{
	unsigned base = (unsigned)tr << 5;

	if (tr > RL_TR_XRC)
		return -1;
	for (unsigned op = base; op < base + 32; op++)
		if ((rl_opcodes[op].flags & RL_OPF_VALID) && (rl_opcodes[op].flags & ~RL_OPF_VALID) == flags)
			return (int)op;
	return -1;
}

int rl_opcode_by_name(const char *name)
{
	for (int op = 0; op < 256; op++) {
		const char *n = rl_opcodes[op].name;
		size_t i = 0;

		if (!n)
			continue;
		while (n[i] && name[i] &&
		       tolower((unsigned char)n[i]) == tolower((unsigned char)name[i]))
			i++;
		if (!n[i] && !name[i])
			return op;
	}
	return -1;
}
