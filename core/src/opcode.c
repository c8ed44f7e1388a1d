/* SPDX-License-Identifier: MIT */
/*
 * The opcode table, built from the rows in opcode.h (RL_OPCODE_ROWS), which
 * also give the RL_OP_* constants. Modelled on the Linux rxe driver's
 * rxe_opcode.c: one row says everything.
 */
#include <ctype.h>
#include <string.h>

#include "field_rows.h"
#include "opcode_table.h"

/* Length of the headers in @m, from the field table's header rows. */
#define HLEN(m) RL_FIELD_HDRS_LEN(m)

/* One table entry per row of RL_OPCODE_ROWS (opcode.h). */
#define OP(code, id, nm, fl, hd, fixed)                                                      \
	[code] = { .name = nm, .flags = RL_OPF_VALID | (fl), .hdrs = (hd), .hdr_len = HLEN(hd), \
		   .fixed_payload = (fixed) },

const struct rl_opcode_info rl_opcodes[256] = { RL_OPCODE_ROWS(OP) };

const struct rl_opcode_info rl_opcode_unknown = { "Unknown", 0, 0, 0, 0 };

const struct rl_opcode_info *rl_opcode_info(uint8_t opcode)
{
	return rl_opcode_row(opcode);
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

int rl_opcode_hdr_offset(uint8_t opcode, enum rl_hdr h)
{
	const struct rl_opcode_info *info = rl_opcode_info(opcode);
	uint32_t bit = (uint32_t)h;

	if (!bit || (bit & (bit - 1)) || !(info->hdrs & bit))
		return -1;
	/* The headers before it in wire order are its lower bits (enum rl_hdr). */
	return (int)HLEN(info->hdrs & (bit - 1));
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
	return rl_opcode_info_payload_ok(rl_opcode_info(opcode), len);
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
