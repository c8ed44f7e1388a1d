/* SPDX-License-Identifier: MIT */
/*
 * How the first byte of a fuzz input picks the framing of the rest. Shared
 * by the fuzz target (fuzz_decode.c) and the seed writer (mkseeds.c), so a
 * seed always means what the target will make of it.
 */
#ifndef FZ_LINK_H
#define FZ_LINK_H

#include <stdint.h>

#include "rocelab/packet.h"

enum fz_mode {
	FZ_MODE_ETHERNET,	/* rl_decode(RL_LINK_ETHERNET, ...) */
	FZ_MODE_RAW,		/* rl_decode(RL_LINK_RAW, ...) */
	FZ_MODE_SLL,		/* rl_decode(RL_LINK_LINUX_SLL, ...) */
	FZ_MODE_SLL2,		/* rl_decode(RL_LINK_LINUX_SLL2, ...) */
	FZ_MODE_IPV4,		/* rl_decode(RL_LINK_IPV4, ...) */
	FZ_MODE_IPV6,		/* rl_decode(RL_LINK_IPV6, ...) */
	FZ_MODE_L3_GRH,		/* rl_decode_l3(..., grh = true, ...): a bare RoCEv1 GRH */
	FZ_MODE_L3_IP,		/* rl_decode_l3(..., grh = false, ...) */
	FZ_MODE_COUNT
};

/* Every byte value selects a mode; seeds write the mode number itself. */
static inline enum fz_mode fz_mode_of(uint8_t sel)
{
	return (enum fz_mode)(sel % FZ_MODE_COUNT);
}

/* The link type that a rl_decode() mode passes (RL_LINK_RAW for the l3 modes). */
static inline enum rl_link fz_mode_link(enum fz_mode m)
{
	switch (m) {
	case FZ_MODE_ETHERNET: return RL_LINK_ETHERNET;
	case FZ_MODE_SLL: return RL_LINK_LINUX_SLL;
	case FZ_MODE_SLL2: return RL_LINK_LINUX_SLL2;
	case FZ_MODE_IPV4: return RL_LINK_IPV4;
	case FZ_MODE_IPV6: return RL_LINK_IPV6;
	default: return RL_LINK_RAW;
	}
}

#endif
