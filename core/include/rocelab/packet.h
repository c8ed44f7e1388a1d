/* SPDX-License-Identifier: MIT */
/*
 * A RoCE packet, decoded to host-order fields, and the functions that turn
 * frame bytes into one (rl_decode) and one into frame bytes (rl_encode).
 * The same structure is the decoder's output and the encoder's input, so a
 * round trip is an equality check.
 */
#ifndef ROCELAB_PACKET_H
#define ROCELAB_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/hdr.h"
#include "rocelab/opcode.h"
#include "rocelab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_path;

#define RL_ROCEV2_UDP_PORT 4791
#define RL_ETHERTYPE_IPV4 0x0800
#define RL_ETHERTYPE_IPV6 0x86dd
#define RL_ETHERTYPE_VLAN 0x8100
#define RL_ETHERTYPE_ROCEV1 0x8915
#define RL_IPPROTO_UDP 17
#define RL_GRH_NXTHDR_IBA 0x1b
#define RL_GRH_FLOW_LABEL_MASK 0xfffffu   /* the 20-bit Flow Label of the GRH (IBA 8.3) and IPv6 */

/* Link-layer framing, numbered as pcap's LINKTYPE_* values. */
enum rl_link {
	RL_LINK_ETHERNET = 1,
	RL_LINK_RAW = 101,         /* raw IPv4 or IPv6, version from the first nibble */
	RL_LINK_LINUX_SLL = 113,   /* tcpdump -i any, cooked v1 */
	RL_LINK_IPV4 = 228,
	RL_LINK_IPV6 = 229,
	RL_LINK_LINUX_SLL2 = 276,  /* tcpdump -i any, cooked v2 */
};
const char *rl_link_name(enum rl_link link);
/* Is this a link type the decoder understands (also accepts DLT_RAW 12 and 14)? */
bool rl_link_supported(int linktype);

/*
 * Header sizes on the wire: Ethernet without a VLAN tag (what emit_pkt's
 * frames get in front of their IP header), IPv4 without options (RFC 791),
 * IPv6 (RFC 8200), UDP (RFC 768).
 */
#define RL_ETH_HDR_LEN 14
#define RL_IPV4_HDR_LEN 20
#define RL_IPV6_HDR_LEN 40
#define RL_UDP_HDR_LEN 8

enum rl_roce_version { RL_ROCE_NONE = 0, RL_ROCE_V1 = 1, RL_ROCE_V2 = 2 };
enum rl_l3 { RL_L3_NONE = 0, RL_L3_IPV4, RL_L3_IPV6, RL_L3_GRH };

struct rl_eth {
	uint8_t dst[6], src[6];
	bool has_vlan;
	uint8_t vlan_pcp;      /* 802.1Q priority code point */
	bool vlan_dei;
	uint16_t vlan_id;
	uint16_t ethertype;    /* after the VLAN tag, if any */
};

/* Linux cooked capture header (SLL / SLL2), as tcpdump -i any writes it. */
struct rl_sll {
	uint16_t pkttype;      /* 0 to us, 4 outgoing, ... */
	uint16_t hatype;       /* ARPHRD_ETHER = 1 */
	uint32_t ifindex;      /* SLL2 only */
	uint8_t addr_len;
	uint8_t addr[8];
	uint16_t protocol;     /* ethertype */
};

struct rl_ipv4 {
	uint8_t ihl;           /* header length in 32-bit words */
	uint8_t dscp, ecn;     /* the TOS byte, split (RFC 3168) */
	uint16_t total_len, id;
	bool df, mf;
	uint16_t frag_off;     /* in 8-byte units */
	uint8_t ttl, proto;
	uint16_t checksum;
	uint8_t src[4], dst[4];
};

/* An IPv6 header, and also the IB GRH of RoCEv1 (IBA 8.3), which has the same layout. */
struct rl_ipv6 {
	uint8_t tclass;        /* DSCP in the top 6 bits, ECN in the low 2 */
	uint32_t flow_label;
	uint16_t payload_len;
	uint8_t next_header, hop_limit;
	uint8_t src[16], dst[16];
};

struct rl_udp {
	uint16_t sport, dport, len, checksum;
};

struct rl_bth {
	uint8_t opcode;
	bool se, migreq;
	uint8_t padcnt, tver;
	uint16_t pkey;
	bool fecn, becn;
	uint8_t resv6;
	uint32_t dqpn;
	bool ackreq;
	uint8_t resv7;
	uint32_t psn;
};

struct rl_reth { uint64_t va; uint32_t rkey, dma_len; };
struct rl_aeth { uint8_t syndrome; uint32_t msn; };
struct rl_deth { uint32_t qkey, src_qp; };
struct rl_atomiceth { uint64_t va; uint32_t rkey; uint64_t swap_add, compare; };
struct rl_feth { uint8_t sel, plt; };

struct rl_pkt {
	/* Link layer. */
	enum rl_link link;
	struct rl_eth eth;           /* RL_LINK_ETHERNET */
	struct rl_sll sll;           /* RL_LINK_LINUX_SLL, RL_LINK_LINUX_SLL2 */

	/* Network layer: IPv4, IPv6, or the GRH of RoCEv1. */
	enum rl_roce_version roce;
	enum rl_l3 l3;
	struct rl_ipv4 ip4;
	struct rl_ipv6 ip6;          /* IPv6 or GRH */
	struct rl_udp udp;           /* RoCEv2 only */

	/* Transport. hdrs is op->hdrs: which of the members below are valid. */
	struct rl_bth bth;
	const struct rl_opcode_info *op;
	uint32_t hdrs;
	uint32_t rdeth_eecnxt;
	struct rl_deth deth;
	uint32_t xrc_srq;
	struct rl_feth feth;
	struct rl_reth reth;
	struct rl_atomiceth atomiceth;
	struct rl_aeth aeth;
	uint64_t atomicack_orig;
	uint32_t immdt;
	uint32_t ieth_rkey;

	/* Payload without pad; for encode, the bytes to send. */
	const uint8_t *payload;
	size_t payload_len;

	/*
	 * ICRC as a number: the four wire bytes read least-significant first,
	 * i.e. the CRC-32 value (IBA A17.3.3). Wireshark and scapy show the four
	 * bytes read big-endian: see rl_icrc_display().
	 */
	uint32_t icrc;
	uint32_t icrc_expected;      /* decode: what it should be */
	bool icrc_ok;
	/*
	 * rl_decode_cut(): the capture's snap length cut the packet. Its headers
	 * are decoded; payload_len is the length on the wire, payload is NULL
	 * unless all of it was captured, and the ICRC is unknown (not bad).
	 */
	bool cut;
	size_t cap_len;              /* rl_decode_cut(): the bytes captured; 0 otherwise */

	/* Decode bookkeeping: offsets into the frame, and where an error was found. */
	size_t frame_len;            /* bytes examined (the captured length) */
	size_t l3_off, l4_off, bth_off, payload_off, icrc_off;
	size_t end_off;              /* end of the RoCE packet (ignores Ethernet padding) */
	size_t err_off;              /* decode error: offset where the problem is */
	size_t err_need, err_have;   /* decode error: bytes needed / bytes present */
};

/*
 * Decode one captured frame. Returns RL_OK, RL_NOT_ROCE (ordinary traffic:
 * count and skip), a non-fatal status (RL_E_ICRC, RL_E_UNKNOWN_OPCODE: all
 * fields valid) or a fatal error (see rl_status_fatal) whose location is in
 * pkt->err_off / err_need / err_have. Never reads outside data[0..len).
 * Payload points into @data.
 */
enum rl_status rl_decode(enum rl_link link, const uint8_t *data, size_t len, struct rl_pkt *pkt);

/*
 * A frame of @wire_len bytes of which the capture kept @caplen (its snap
 * length). When @caplen holds the headers up to the end of the extended
 * transport headers, they are decoded and RL_CUT is returned (or
 * RL_E_UNKNOWN_OPCODE), with pkt->cut set; otherwise, and for a whole frame,
 * what rl_decode(@caplen) returns. Never reads outside data[0..caplen).
 * A cut MAD on QP1 is not decoded (its payload is what the CM reads).
 */
enum rl_status rl_decode_cut(enum rl_link link, const uint8_t *data, size_t caplen, size_t wire_len,
			     struct rl_pkt *pkt);

/* Decode starting at the IP header (or at the GRH for RoCEv1 if @grh). */
enum rl_status rl_decode_l3(const uint8_t *data, size_t len, bool grh, struct rl_pkt *pkt);

/*
 * Decode a RoCEv2 packet given as its path (rocelab/path.h) and the @len
 * bytes from its BTH to its ICRC, as a socket delivers them. The packet is
 * the one rl_decode() finds behind the IP and UDP headers the path stands
 * for (rl_path_hdr), with the same statuses and the same fields, the ICRC
 * checked over the path's invariant fields; link is RL_LINK_RAW, and the
 * offsets count from the BTH (l3_off and l4_off are 0). RL_E_ARG if the
 * path has two address families or @len does not fit an IP packet.
 */
enum rl_status rl_decode_path(const struct rl_path *path, const uint8_t *bth, size_t len,
			      struct rl_pkt *pkt);

/*
 * Write a well-formed frame for @pkt. The caller fills the link layer, l3
 * (and roce), addresses, UDP ports, BTH, the headers that the opcode table
 * says bth.opcode carries, and the payload. The encoder derives everything
 * that follows from those: ethertype, IP and UDP lengths, IPv4 header
 * checksum, GRH payload length, pad count, and the ICRC. The UDP checksum is
 * written as pkt->udp.checksum (0, as rxe and NICs send, unless set).
 * On return *out_len is the frame length.
 */
enum rl_status rl_encode(const struct rl_pkt *pkt, uint8_t *buf, size_t cap, size_t *out_len);

/*
 * Write @pkt as the @path it travels on (rocelab/path.h) and the bytes from
 * its BTH to its ICRC, for a socket to wrap in IP and UDP: the encoder of
 * rl_decode_path(), and the bytes rl_encode() writes after the UDP header
 * of a frame whose IP and UDP headers say what @path says. The caller fills
 * the BTH, the headers bth.opcode carries, and the payload; the network
 * layer of @pkt is not read. The pad count and the ICRC, over the path's
 * invariant fields (rl_icrc_path), are derived. RL_E_ARG if the path has
 * two address families or the packet does not fit an IP packet on it.
 * On return *out_len is the length from the BTH to the ICRC.
 */
enum rl_status rl_encode_path(const struct rl_path *path, const struct rl_pkt *pkt, uint8_t *buf, size_t cap,
			      size_t *out_len);

/*
 * rl_encode() for a sender whose packets share their addressing, as a
 * connected QP's do: the Ethernet, IP and UDP header bytes of the last
 * packet are kept, and a packet with the same link, network and UDP fields
 * reuses them, with only the lengths and the IPv4 checksum written again.
 * The frame is the one rl_encode() writes, byte for byte; any other packet
 * goes through rl_encode() and becomes the one kept. Zero it before use.
 */
#define RL_ENCODE_CACHE_HDR 66         /* Ethernet + VLAN (18) + IPv6 (40) + UDP (8) */
struct rl_encode_cache {
	bool valid;
	enum rl_link link;
	enum rl_l3 l3;
	struct rl_eth eth;
	struct rl_ipv4 ip4;            /* IPv4 */
	struct rl_ipv6 ip6;            /* IPv6 */
	struct rl_udp udp;
	uint8_t l2_len, l3_len;
	uint64_t ip4_sum;              /* sum of the IPv4 header's 32-bit words, length and checksum 0 */
	uint8_t hdr[RL_ENCODE_CACHE_HDR];
};
enum rl_status rl_encode_cached(struct rl_encode_cache *c, const struct rl_pkt *pkt, uint8_t *buf, size_t cap,
				size_t *out_len);

/* Bytes rl_encode() will need for @pkt. */
size_t rl_encoded_len(const struct rl_pkt *pkt);

/* A message naming what went wrong and where, e.g. for a CLI or a log. */
int rl_decode_error_str(enum rl_status st, const struct rl_pkt *pkt, char *buf, size_t n);

/* Fill a packet with defaults for encoding: IPv4 RoCEv2 over Ethernet, P_Key 0xffff, TTL 64. */
void rl_pkt_init(struct rl_pkt *pkt, uint8_t opcode);

/* IPv4 header checksum (RFC 791) over @len bytes. */
uint16_t rl_ipv4_checksum(const uint8_t *hdr, size_t len);

#ifdef __cplusplus
}
#endif
#endif
