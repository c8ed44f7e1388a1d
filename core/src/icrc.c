/* SPDX-License-Identifier: MIT */
/* The RoCE Invariant CRC: IBA Annex A16.8 (RoCEv1) and A17.3.3 (RoCEv2). */
#include <string.h>

#include "rocelab/icrc.h"
#include "rocelab/path.h"

/*
 * CRC-32 state after the 8 bytes of ones that stand for the InfiniBand LRH,
 * whose fields are all variant (IBA A17.3.3). Starting from it saves hashing
 * those bytes for every packet; tests check it against zlib.
 */
#define RL_ICRC_LRH_SEED 0x2144df1cu

/*
 * The variant fields, as masks over the first bytes of the packet from the
 * network header on: a byte is ORed with its mask before the CRC runs, so
 * 0xff marks a field that counts as all ones.
 */
static const uint8_t rl_icrc_mask_ipv4[48] = {
	[1] = 0xff,                  /* IPv4 TOS: DSCP and ECN */
	[8] = 0xff,                  /* IPv4 TTL */
	[10] = 0xff, [11] = 0xff,    /* IPv4 header checksum */
	[26] = 0xff, [27] = 0xff,    /* UDP checksum */
	[32] = 0xff,                 /* BTH byte 4: FECN, BECN, Resv6 */
};
static const uint8_t rl_icrc_mask_ipv6[64] = {
	[0] = 0x0f, [1] = 0xff,      /* IPv6 traffic class */
	[2] = 0xff, [3] = 0xff,      /* IPv6 flow label */
	[7] = 0xff,                  /* IPv6 hop limit */
	[46] = 0xff, [47] = 0xff,    /* UDP checksum */
	[52] = 0xff,                 /* BTH byte 4 */
};
static const uint8_t rl_icrc_mask_grh[64] = {
	[0] = 0x0f, [1] = 0xff,      /* GRH traffic class */
	[2] = 0xff, [3] = 0xff,      /* GRH flow label */
	[7] = 0xff,                  /* GRH hop limit */
	[44] = 0xff,                 /* BTH byte 4 (RoCEv1 has no UDP) */
};

/*
 * dst = src | mask for 16 bytes. Done as one 16-byte store where the
 * compiler allows it: the CRC code then reads back whole 16-byte words, and
 * a wide read of narrow recent stores stalls the CPU (store forwarding).
 */
#if defined(__GNUC__)
typedef uint8_t rl_v16 __attribute__((vector_size(16)));

static inline void rl_or16(uint8_t *dst, const uint8_t *src, const uint8_t *mask)
{
	rl_v16 a, m;

	memcpy(&a, src, 16);
	memcpy(&m, mask, 16);
	a |= m;
	memcpy(dst, &a, 16);
}

static inline void rl_copy16(uint8_t *dst, const uint8_t *src)
{
	rl_v16 a;

	memcpy(&a, src, 16);
	memcpy(dst, &a, 16);
}
#else
static inline void rl_or16(uint8_t *dst, const uint8_t *src, const uint8_t *mask)
{
	for (int i = 0; i < 16; i++)
		dst[i] = src[i] | mask[i];
}

static inline void rl_copy16(uint8_t *dst, const uint8_t *src)
{
	memcpy(dst, src, 16);
}
#endif

/*
 * Below this many covered bytes a packet is copied whole, masked, and hashed
 * in one CRC call instead of two: a second call costs more than copying the
 * rest. From 256 bytes on ISA-L reads 64-byte words, which the CPU cannot
 * forward from our 16-byte stores, so bigger packets keep the two calls.
 */
#define RL_ICRC_ONE_CALL_MAX 256

/*
 * dst = the @len covered bytes at @src with the @mlen-byte @mask ORed in,
 * in 16-byte stores only (@mlen <= @len, @mlen a multiple of 16, @len >= 16).
 * The last 16 bytes go first: the aligned chunks stored after them win
 * where they overlap, and nothing is read past @len.
 */
static void rl_icrc_copy(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *mask, size_t mlen)
{
	size_t i;

	rl_copy16(dst + len - 16, src + len - 16);
	for (i = 0; i < mlen; i += 16)
		rl_or16(dst + i, src + i, mask + i);
	for (; i + 16 <= len; i += 16)
		rl_copy16(dst + i, src + i);
}

/*
 * Any layout, including IPv4 options and packets shorter than a mask table.
 * Kept out of line: its buffer and loops would weigh on the common path.
 */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t rl_icrc_slow(enum rl_l3 l3, const uint8_t *l3hdr, size_t l3_len, size_t len)
{
	uint8_t prefix[60 + 8 + RL_BTH_LEN];
	size_t udp = l3 == RL_L3_GRH ? 0 : 8;
	size_t n = l3_len + udp + RL_BTH_LEN;
	const uint8_t *mask = l3 == RL_L3_IPV4 ? rl_icrc_mask_ipv4 : l3 == RL_L3_IPV6 ? rl_icrc_mask_ipv6
										: rl_icrc_mask_grh;
	size_t base = l3 == RL_L3_IPV4 ? 20 : 40;

	if (n > sizeof(prefix) || n > len)
		return 0;
	memcpy(prefix, l3hdr, n);
	for (size_t i = 0; i < base; i++)
		prefix[i] |= mask[i];
	/* UDP and BTH masks sit after the fixed header, shifted by any IPv4 options. */
	for (size_t i = base; i < base + udp + RL_BTH_LEN; i++)
		prefix[i - base + l3_len] |= mask[i];
	return rl_crc32_2(RL_ICRC_LRH_SEED, prefix, n, l3hdr + n, len - n);
}

uint32_t rl_icrc_calc(enum rl_l3 l3, const uint8_t *l3hdr, size_t l3_len, size_t len)
{
	_Alignas(16) uint8_t buf[RL_ICRC_ONE_CALL_MAX];
	const uint8_t *mask;
	size_t mlen;

	switch (l3) {
	case RL_L3_IPV4:
		mask = rl_icrc_mask_ipv4;
		mlen = l3_len == 20 ? sizeof(rl_icrc_mask_ipv4) : 0;
		break;
	case RL_L3_IPV6:
		mask = rl_icrc_mask_ipv6;
		mlen = sizeof(rl_icrc_mask_ipv6);
		break;
	case RL_L3_GRH:
		mask = rl_icrc_mask_grh;
		mlen = sizeof(rl_icrc_mask_grh);
		break;
	default:
		return 0;
	}
	/* The 4 ICRC bytes follow @len, so a short packet (an ACK) may still read mlen bytes. */
	if (!mlen || len + RL_ICRC_LEN < mlen)
		return rl_icrc_slow(l3, l3hdr, l3_len, len);
	if (len > mlen && len < RL_ICRC_ONE_CALL_MAX) {
		rl_icrc_copy(buf, l3hdr, len, mask, mlen);
		return rl_crc32(RL_ICRC_LRH_SEED, buf, len);
	}
	for (size_t i = 0; i < mlen; i += 16)
		rl_or16(buf + i, l3hdr + i, mask + i);
	if (len <= mlen)
		return rl_crc32(RL_ICRC_LRH_SEED, buf, len);
	return rl_crc32_2(RL_ICRC_LRH_SEED, buf, mlen, l3hdr + mlen, len - mlen);
}

uint8_t rl_icrc_mask_at(enum rl_l3 l3, size_t l3_len, size_t off)
{
	const uint8_t *mask = l3 == RL_L3_IPV4 ? rl_icrc_mask_ipv4 : l3 == RL_L3_IPV6 ? rl_icrc_mask_ipv6
										: rl_icrc_mask_grh;
	size_t base = l3 == RL_L3_IPV4 ? 20 : 40, udp = l3 == RL_L3_GRH ? 0 : 8;

	if (l3 != RL_L3_IPV4 && l3 != RL_L3_IPV6 && l3 != RL_L3_GRH)
		return 0;
	if (off < base)
		return off < l3_len ? mask[off] : 0;
	/* IPv4 options (covered as they are) shift the UDP and BTH masks, as in rl_icrc_slow(). */
	if (off < l3_len)
		return 0;
	off = off - l3_len + base;
	return off < base + udp + RL_BTH_LEN ? mask[off] : 0;
}

uint32_t rl_icrc_compute_to(const struct rl_pkt *pkt, const uint8_t *frame, size_t end)
{
	size_t l3_len = pkt->l3 == RL_L3_IPV4 ? (size_t)pkt->ip4.ihl * 4 : 40;

	return rl_icrc_calc(pkt->l3, frame + pkt->l3_off, l3_len, end - RL_ICRC_LEN - pkt->l3_off);
}

uint32_t rl_icrc_compute(const struct rl_pkt *pkt, const uint8_t *frame)
{
	return rl_icrc_compute_to(pkt, frame, pkt->icrc_off + RL_ICRC_LEN);
}

uint32_t rl_icrc_path(const struct rl_path *path, const uint8_t *bth, size_t len)
{
	uint8_t prefix[RL_PATH_HDR_MAX + RL_BTH_LEN];
	const uint8_t *mask;
	size_t hlen, n;

	if (len < RL_BTH_LEN + RL_ICRC_LEN)
		return 0;
	hlen = rl_path_hdr(path, len, prefix);
	if (!hlen)
		return 0;
	/* The headers as the path's sender wrote them, then the BTH: the masks run over both. */
	memcpy(prefix + hlen, bth, RL_BTH_LEN);
	n = hlen + RL_BTH_LEN;
	mask = rl_path_is_ipv4(path) ? rl_icrc_mask_ipv4 : rl_icrc_mask_ipv6;
	for (size_t i = 0; i < n; i++)
		prefix[i] |= mask[i];
	return rl_crc32_2(RL_ICRC_LRH_SEED, prefix, n, bth + RL_BTH_LEN, len - RL_BTH_LEN - RL_ICRC_LEN);
}
