/* SPDX-License-Identifier: MIT */
/*
 * The Invariant CRC of RoCE (IBA Annex A16.8 for RoCEv1, A17.3.3 for
 * RoCEv2): a CRC-32 over the fields that no router changes. Variant fields
 * are replaced by ones before the CRC runs:
 *   - 8 bytes of ones stand for the (absent) InfiniBand LRH;
 *   - IPv4: TOS, TTL and header checksum; IPv6 and GRH: traffic class,
 *     flow label and hop limit;
 *   - UDP checksum;
 *   - BTH byte 4 (FECN, BECN and the reserved bits).
 * The result is stored on the wire least-significant byte first.
 */
#ifndef ROCELAB_ICRC_H
#define ROCELAB_ICRC_H

#include <stddef.h>
#include <stdint.h>

#include "rocelab/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC-32 (IEEE 802.3, reflected) continuing from @crc, like zlib's crc32(). */
uint32_t rl_crc32(uint32_t crc, const void *buf, size_t len);
/* The same over @a then @b, as rl_crc32(rl_crc32(crc, a, na), b, nb). */
uint32_t rl_crc32_2(uint32_t crc, const void *a, size_t na, const void *b, size_t nb);
/* "isa-l" or "zlib": the library behind rl_crc32(). */
const char *rl_crc32_backend(void);

/*
 * ICRC of a packet whose headers rl_decode() located in @frame (uses the
 * offsets l3_off, bth_off, icrc_off and the l3 kind). Covers everything from
 * the IP header (GRH) to the byte before the ICRC.
 */
uint32_t rl_icrc_compute(const struct rl_pkt *pkt, const uint8_t *frame);
/* The same before pkt->icrc_off is set: @end is the offset just past the ICRC. */
uint32_t rl_icrc_compute_to(const struct rl_pkt *pkt, const uint8_t *frame, size_t end);

/*
 * The same from raw bytes: @l3hdr is the IPv4/IPv6 header (or GRH), @l3_len
 * its length, followed by UDP (not for GRH) and the BTH; @len runs from
 * @l3hdr to the first byte of the ICRC, and the 4 ICRC bytes after it must
 * be readable too (their value does not matter). Returns 0 if @len is too short.
 */
uint32_t rl_icrc_calc(enum rl_l3 l3, const uint8_t *l3hdr, size_t l3_len, size_t len);

/*
 * Which bits of the byte @off bytes after the start of the network header
 * (IPv4 or IPv6 header, or GRH, @l3_len bytes long) the ICRC replaces by ones
 * (IBA 9.9.3.1, A17.3.3): 0xff the whole byte, 0 none. The same masks
 * rl_icrc_calc() applies, for printers that show them (explain -x).
 */
uint8_t rl_icrc_mask_at(enum rl_l3 l3, size_t l3_len, size_t off);

/* The ICRC as Wireshark and scapy display it: the wire bytes read big-endian. */
static inline uint32_t rl_icrc_display(uint32_t icrc)
{
	return (icrc >> 24) | ((icrc >> 8) & 0xff00) | ((icrc << 8) & 0xff0000) | (icrc << 24);
}

#ifdef __cplusplus
}
#endif
#endif
