/* Lab 14, coding exercise: the Invariant CRC of a RoCEv2 packet (IBA A17.3.3). */
#ifndef LAB_ICRC_H
#define LAB_ICRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * The ICRC of the RoCEv2 packet at @pkt: its IP header (IPv4 or IPv6: the
 * version is the first nibble), then UDP, the BTH and the rest. @len bytes
 * run from the IP header up to, not including, the 4-byte ICRC.
 *
 * Return the CRC-32 (zlib's crc32()) of 8 bytes of 0xff (they stand for the
 * InfiniBand LRH, which RoCEv2 has not) followed by the @len bytes with every
 * variant field -- one a router may change -- set to all ones:
 *   IPv4: the TOS byte, TTL and header checksum;
 *   IPv6: traffic class, flow label and hop limit;
 *   UDP:  the checksum;
 *   BTH:  byte 4 (FECN, BECN and the 6 reserved bits).
 * On the wire the ICRC is this value least-significant byte first.
 * Do not change @pkt: work on a copy.
 */
uint32_t lab_icrc(const uint8_t *pkt, size_t len);

#endif
