/* SPDX-License-Identifier: MIT */
/*
 * The path of a RoCEv2 packet: what the IP and UDP headers around its
 * BTH..ICRC say, as a socket reports it (ngtcp2's ngtcp2_path, with the few
 * header fields RoCE needs besides the addresses).
 *
 * A program that owns the IP and UDP layers (a UDP socket, a raw socket)
 * hands a host the path and the bytes from the BTH to the ICRC
 * (rl_host_read_pkt, which decodes them where they lie with
 * rl_decode_path), and gets the same back (rl_host_config.emit_pkt, the
 * bytes written by rl_encode_path); no Ethernet, IP or UDP header is built
 * or parsed on its side. The ICRC (IBA A17.3.3) covers the invariant
 * fields of those headers, so the path carries every one a sender may
 * choose: the addresses, the UDP source port and, over IPv4, the
 * Identification and the Don't Fragment flag. The variant fields (TOS, TTL,
 * flow label) are carried for what they mean (ECN), not for the ICRC.
 */
#ifndef ROCELAB_PATH_H
#define ROCELAB_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rl_pkt;

struct rl_path {
	uint8_t sgid[16];        /* source address as a GID: IPv4-mapped (::ffff:a.b.c.d) for IPv4 */
	uint8_t dgid[16];        /* destination, the same way; both of one family */
	uint8_t traffic_class;   /* IPv4 TOS or IPv6 traffic class: DSCP << 2 | ECN */
	uint8_t hop_limit;       /* IPv4 TTL or IPv6 hop limit */
	uint32_t flow_label;     /* IPv6 */
	uint16_t ip_id;          /* IPv4 Identification; in the ICRC */
	bool ip_df;              /* IPv4 Don't Fragment; in the ICRC */
	uint16_t udp_sport;      /* in the ICRC; the destination port is 4791 */
};

/* Largest IP + UDP header a path stands for: IPv6 (40) + UDP (8). */
#define RL_PATH_HDR_MAX 48

/* Is the path RoCEv2 over IPv4 (both GIDs IPv4-mapped)? */
bool rl_path_is_ipv4(const struct rl_path *path);

/* The path of a packet rl_decode() read (RoCEv2 only); -1 for RoCEv1 or no IP layer. */
int rl_path_from_pkt(const struct rl_pkt *pkt, struct rl_path *path);

/*
 * The other way: the network layer of a packet of @len bytes of BTH..ICRC
 * on @path (roce, l3, ip4 or ip6, udp), the fields rl_decode() reads from
 * the headers rl_path_hdr() writes. -1, and @pkt untouched, if
 * rl_path_hdr() would refuse the path.
 */
int rl_path_to_pkt(const struct rl_path *path, size_t len, struct rl_pkt *pkt);

/* Bytes of IP and UDP header in front of the BTH on @path: 28 over IPv4, 48 over IPv6. */
size_t rl_path_hdr_len(const struct rl_path *path);

/* Can @len bytes of BTH..ICRC travel on @path: one address family, and an IP packet that holds them? */
bool rl_path_fits(const struct rl_path *path, size_t len);

/*
 * The IP and UDP headers a sender on @path puts in front of @len bytes of
 * BTH..ICRC, written to @out (RL_PATH_HDR_MAX bytes): an IPv4 header without
 * options or an IPv6 header, then UDP to port 4791. The lengths follow from
 * @len; the IPv4 header checksum and the UDP checksum, variant fields that
 * the ICRC masks (IBA A17.3.3) and no receiver here checks, are 0. Returns
 * the header length (28 or 48), or 0 if the GIDs are of two families or
 * @len does not fit an IP packet.
 */
size_t rl_path_hdr(const struct rl_path *path, size_t len, uint8_t *out);

/*
 * The ICRC of @len bytes of BTH..ICRC on @path (IBA A17.3.3), over the
 * invariant fields of the headers rl_path_hdr() describes: the value the
 * last 4 bytes must hold, as a number (see rocelab/icrc.h). 0 if @len is
 * shorter than a BTH and an ICRC, or the path is not one family.
 */
uint32_t rl_icrc_path(const struct rl_path *path, const uint8_t *bth, size_t len);

#ifdef __cplusplus
}
#endif
#endif
