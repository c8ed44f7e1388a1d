/* SPDX-License-Identifier: MIT */
/* The RoCE Invariant CRC: IBA Annex A16.8 (RoCEv1) and A17.3.3 (RoCEv2). */
#include <string.h>

#include "rocelab/icrc.h"

/*
 * CRC-32 state after the 8 bytes of ones that stand for the InfiniBand LRH,
 * whose fields are all variant (IBA A17.3.3). Starting from it saves hashing
 * those bytes for every packet; tests check it against zlib.
 */
#define RL_ICRC_LRH_SEED 0x2144df1cu

/* Largest masked prefix: IPv4 with options (60) + UDP (8) + BTH (12). */
#define RL_ICRC_PREFIX_MAX (60 + 8 + RL_BTH_LEN)

static void rl_icrc_mask_l3(enum rl_l3 l3, uint8_t *h)
{
	if (l3 == RL_L3_IPV4) {
		h[1] = 0xff;                    /* TOS (DSCP and ECN) */
		h[8] = 0xff;                    /* TTL */
		h[10] = h[11] = 0xff;           /* header checksum */
	} else {                                /* IPv6 header or GRH */
		h[0] |= 0x0f;                   /* traffic class, high nibble */
		h[1] = h[2] = h[3] = 0xff;      /* traffic class, flow label */
		h[7] = 0xff;                    /* hop limit */
	}
}

uint32_t rl_icrc_calc(enum rl_l3 l3, const uint8_t *l3hdr, size_t l3_len, size_t len)
{
	uint8_t prefix[RL_ICRC_PREFIX_MAX];
	size_t udp = l3 == RL_L3_GRH ? 0 : 8;
	size_t n = l3_len + udp + RL_BTH_LEN;
	uint32_t crc;

	if (n > sizeof(prefix) || n > len)
		return 0;
	memcpy(prefix, l3hdr, n);
	rl_icrc_mask_l3(l3, prefix);
	if (udp)
		prefix[l3_len + 6] = prefix[l3_len + 7] = 0xff;  /* UDP checksum */
	prefix[l3_len + udp + 4] = 0xff;                     /* FECN, BECN, Resv6 */

	crc = rl_crc32(RL_ICRC_LRH_SEED, prefix, n);
	return rl_crc32(crc, l3hdr + n, len - n);
}

uint32_t rl_icrc_compute(const struct rl_pkt *pkt, const uint8_t *frame)
{
	size_t l3_len = pkt->l3 == RL_L3_IPV4 ? (size_t)pkt->ip4.ihl * 4 : 40;

	return rl_icrc_calc(pkt->l3, frame + pkt->l3_off, l3_len, pkt->icrc_off - pkt->l3_off);
}
