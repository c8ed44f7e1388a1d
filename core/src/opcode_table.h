/* SPDX-License-Identifier: MIT */
/*
 * The opcode table itself, for core's per-packet paths (the transport's
 * send and receive, the decoder): rl_opcode_info() without a call into
 * another file for every lookup. Everyone else calls rl_opcode_info().
 */
#ifndef RL_OPCODE_TABLE_H
#define RL_OPCODE_TABLE_H

#include "rocelab/opcode.h"

extern const struct rl_opcode_info rl_opcodes[256];       /* rows of RL_OPCODE_ROWS; reserved: no name */
extern const struct rl_opcode_info rl_opcode_unknown;     /* what a reserved opcode looks up to */

/* rl_opcode_info(), inlined. */
static inline const struct rl_opcode_info *rl_opcode_row(uint8_t opcode)
{
	const struct rl_opcode_info *info = &rl_opcodes[opcode];

	return info->name ? info : &rl_opcode_unknown;
}

#endif
