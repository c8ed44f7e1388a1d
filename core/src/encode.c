/* SPDX-License-Identifier: MIT */
/*
 * struct rl_pkt -> frame. The caller says what the packet is; everything
 * derived from that (lengths, pad, checksums, ICRC) is computed here, so a
 * frame that leaves rl_encode() is always well formed. A packet that leaves
 * as a path and BTH..ICRC (rl_encode_path) goes through the same transport
 * encoder, with its ICRC over the headers the path stands for.
 */
#include <string.h>

#include "field_rows.h"
#include "opcode_table.h"
#include "rocelab/icrc.h"
#include "rocelab/packet.h"
#include "rocelab/path.h"

static size_t rl_l2_len(const struct rl_pkt *pkt)
{
	switch ((int)pkt->link) {
	case RL_LINK_ETHERNET: return pkt->eth.has_vlan ? 18 : 14;
	case RL_LINK_LINUX_SLL: return 16;
	case RL_LINK_LINUX_SLL2: return 20;
	default: return 0;
	}
}

static uint8_t rl_padcnt(size_t payload_len)
{
	return (uint8_t)((4 - (payload_len & 3)) & 3);
}

/* BTH to ICRC inclusive. */
static size_t rl_transport_len(const struct rl_pkt *pkt)
{
	const struct rl_opcode_info *op = rl_opcode_info(pkt->bth.opcode);

	return RL_BTH_LEN + op->hdr_len + pkt->payload_len + rl_padcnt(pkt->payload_len) +
	       RL_ICRC_LEN;
}

static size_t rl_l3_len(const struct rl_pkt *pkt)
{
	return pkt->l3 == RL_L3_IPV4 ? 20 : 40;
}

size_t rl_encoded_len(const struct rl_pkt *pkt)
{
	size_t udp = pkt->l3 == RL_L3_GRH ? 0 : 8;

	return rl_l2_len(pkt) + rl_l3_len(pkt) + udp + rl_transport_len(pkt);
}

static uint16_t rl_l3_ethertype(const struct rl_pkt *pkt)
{
	switch (pkt->l3) {
	case RL_L3_IPV6: return RL_ETHERTYPE_IPV6;
	case RL_L3_GRH: return RL_ETHERTYPE_ROCEV1;
	default: return RL_ETHERTYPE_IPV4;
	}
}

static uint8_t *rl_encode_l2(const struct rl_pkt *pkt, uint8_t *p)
{
	uint16_t type = rl_l3_ethertype(pkt);
	const struct rl_sll *s = &pkt->sll;

	switch ((int)pkt->link) {
	case RL_LINK_ETHERNET:
		memcpy(p, pkt->eth.dst, 6);
		memcpy(p + 6, pkt->eth.src, 6);
		p += 12;
		if (pkt->eth.has_vlan) {
			rl_put16(p, RL_ETHERTYPE_VLAN);
			rl_put16(p + 2, (uint16_t)((pkt->eth.vlan_pcp & 7) << 13 |
						   (pkt->eth.vlan_dei ? 0x1000 : 0) |
						   (pkt->eth.vlan_id & 0x0fff)));
			p += 4;
		}
		rl_put16(p, type);
		return p + 2;
	case RL_LINK_LINUX_SLL:
		rl_put16(p, s->pkttype);
		rl_put16(p + 2, s->hatype);
		rl_put16(p + 4, s->addr_len);
		memcpy(p + 6, s->addr, 8);
		rl_put16(p + 14, type);
		return p + 16;
	case RL_LINK_LINUX_SLL2:
		rl_put16(p, type);
		rl_put16(p + 2, 0);
		rl_put32(p + 4, s->ifindex);
		rl_put16(p + 8, s->hatype);
		p[10] = (uint8_t)s->pkttype;
		p[11] = s->addr_len;
		memcpy(p + 12, s->addr, 8);
		return p + 20;
	default:
		return p;
	}
}

/* RFC 1071: the one's complement sum, 32 bits at a time, folded to 16. */
uint16_t rl_ipv4_checksum(const uint8_t *hdr, size_t len)
{
	uint64_t sum = 0;
	size_t i = 0;

	for (; i + 3 < len; i += 4)
		sum += rl_get32(hdr + i);
	if (i + 1 < len)
		sum += rl_get16(hdr + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void rl_encode_ipv4(const struct rl_pkt *pkt, uint8_t *h, size_t l4_len)
{
	const struct rl_ipv4 *ip = &pkt->ip4;

	h[0] = 0x45;
	h[1] = (uint8_t)(ip->dscp << 2 | (ip->ecn & 3));
	rl_put16(h + 2, (uint16_t)(20 + l4_len));
	rl_put16(h + 4, ip->id);
	rl_put16(h + 6, (uint16_t)((ip->df ? 0x4000 : 0) | (ip->mf ? 0x2000 : 0) |
				   (ip->frag_off & 0x1fff)));
	h[8] = ip->ttl;
	h[9] = RL_IPPROTO_UDP;
	rl_put16(h + 10, 0);
	memcpy(h + 12, ip->src, 4);
	memcpy(h + 16, ip->dst, 4);
	rl_put16(h + 10, rl_ipv4_checksum(h, 20));
}

/* IPv6 header, or the GRH of RoCEv1 (next header 0x1B). */
static void rl_encode_ipv6(const struct rl_pkt *pkt, uint8_t *h, size_t payload_len)
{
	const struct rl_ipv6 *ip = &pkt->ip6;

	rl_put32(h, 6u << 28 | (uint32_t)ip->tclass << 20 | (ip->flow_label & 0xfffff));
	rl_put16(h + 4, (uint16_t)payload_len);
	h[6] = pkt->l3 == RL_L3_GRH ? RL_GRH_NXTHDR_IBA : RL_IPPROTO_UDP;
	h[7] = ip->hop_limit;
	memcpy(h + 8, ip->src, 16);
	memcpy(h + 24, ip->dst, 16);
}

/*
 * rl_encode() is the floor bench_transport measures: the transport encoder
 * below is inlined whole into it, header encoders included, as it was before
 * rl_encode_path() shared it (with two callers a compiler may keep calls).
 */
#if defined(__GNUC__)
#define RL_ENC_INLINE inline __attribute__((always_inline))
#else
#define RL_ENC_INLINE inline
#endif

/*
 * One encoder per header, generated from the field rows (field_rows.h), as
 * decode.c's decoders are: each zeroes its header (reserved bits are sent
 * as 0) and puts its own fields in.
 */
#define RL_ENC_FIELD(hdr, member, off, bytes, shift, bits, ...) \
	if ((hdr) == cur)                                        \
		RL_FIELD_PUT(h, off, bytes, shift, bits, pkt->member);
#define RL_ENC_HDR(id, hdr, len, ...)                                                  \
	static RL_ENC_INLINE void rl_encode_##id(const struct rl_pkt *pkt, uint8_t *h) \
	{                                                                              \
		const uint32_t cur = (hdr);                                            \
		(void)pkt;                                                             \
		memset(h, 0, len);                                                     \
		RL_FIELD_ROWS(RL_ENC_FIELD)                                            \
	}
RL_FIELD_HDRS(RL_ENC_HDR)

/* The extended headers the opcode table lists for this opcode, in wire order: one step per header row. */
#define RL_ENC_STEP(id, hdr, len, ...)           \
	if ((hdr) != RL_FIELD_BTH && (m & (hdr))) { \
		rl_encode_##id(pkt, h);          \
		h += (len);                      \
	}
static RL_ENC_INLINE uint8_t *rl_encode_ext(const struct rl_pkt *pkt, uint32_t m, uint8_t *h)
{
	RL_FIELD_HDRS(RL_ENC_STEP)
	return h;
}

/*
 * What rl_encode() and rl_encode_path() check alike: a payload that is
 * there and fits the opcode (IBA 9.2; rl_opcode_payload_ok).
 */
static enum rl_status rl_transport_check(const struct rl_pkt *pkt, const struct rl_opcode_info *op)
{
	if (pkt->payload_len && !pkt->payload)
		return RL_E_ARG;
	if (!rl_opcode_info_payload_ok(op, pkt->payload_len))
		return RL_E_PAYLOAD_LEN;
	return RL_OK;
}

/*
 * The transport encoder both ways out share: at @bth, the BTH, the extended
 * headers @op lists, the payload and its pad (IBA 9.2 PadCnt, what the
 * payload needs whatever bth.padcnt says). Returns where the ICRC goes; the
 * caller computes it over the headers in front, written or not.
 */
static RL_ENC_INLINE uint8_t *rl_encode_transport(const struct rl_pkt *pkt, const struct rl_opcode_info *op,
						  uint8_t *bth)
{
	uint8_t pad = rl_padcnt(pkt->payload_len);
	uint8_t *p;

	rl_encode_BTH(pkt, bth);
	rl_bth_set_padcnt(bth, pad);
	p = rl_encode_ext(pkt, op->hdrs, bth + RL_BTH_LEN);
	if (pkt->payload_len)
		memcpy(p, pkt->payload, pkt->payload_len);
	p += pkt->payload_len;
	memset(p, 0, pad);
	return p + pad;
}

/* The ICRC goes on the wire least-significant byte first (IBA A17.3.3). */
static inline void rl_put_icrc(uint8_t *p, uint32_t icrc)
{
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
}

enum rl_status rl_encode(const struct rl_pkt *pkt, uint8_t *buf, size_t cap, size_t *out_len)
{
	const struct rl_opcode_info *op;
	size_t total, tlen, l3_len;
	enum rl_status st;
	uint8_t *p, *l3, *bth;

	if (!pkt || !buf || !out_len || pkt->l3 == RL_L3_NONE ||
	    (pkt->l3 == RL_L3_GRH && pkt->link != RL_LINK_ETHERNET && pkt->link != RL_LINK_LINUX_SLL &&
	     pkt->link != RL_LINK_LINUX_SLL2))
		return RL_E_ARG;
	op = rl_opcode_info(pkt->bth.opcode);
	st = rl_transport_check(pkt, op);
	if (st != RL_OK)
		return st;
	total = rl_encoded_len(pkt);
	if (total > cap)
		return RL_E_NOSPACE;
	tlen = rl_transport_len(pkt);
	l3_len = rl_l3_len(pkt);
	if (tlen + l3_len + 8 > 0xffff)
		return RL_E_ARG;

	l3 = rl_encode_l2(pkt, buf);
	if (pkt->l3 == RL_L3_IPV4)
		rl_encode_ipv4(pkt, l3, tlen + 8);
	else
		rl_encode_ipv6(pkt, l3, tlen + (pkt->l3 == RL_L3_GRH ? 0 : 8));
	bth = l3 + l3_len;
	if (pkt->l3 != RL_L3_GRH) {
		rl_put16(bth, pkt->udp.sport);
		rl_put16(bth + 2, pkt->udp.dport);
		rl_put16(bth + 4, (uint16_t)(tlen + 8));
		rl_put16(bth + 6, pkt->udp.checksum);
		bth += 8;
	}
	p = rl_encode_transport(pkt, op, bth);
	rl_put_icrc(p, rl_icrc_calc(pkt->l3, l3, l3_len, (size_t)(p - l3)));
	*out_len = total;
	return RL_OK;
}

/*
 * The same transport bytes without the frame: the headers the ICRC covers
 * are the ones @path stands for (rl_icrc_path), and none goes into @buf.
 */
enum rl_status rl_encode_path(const struct rl_path *path, const struct rl_pkt *pkt, uint8_t *buf, size_t cap,
			      size_t *out_len)
{
	const struct rl_opcode_info *op;
	enum rl_status st;
	size_t tlen;
	uint8_t *p;

	if (!path || !pkt || !buf || !out_len)
		return RL_E_ARG;
	op = rl_opcode_info(pkt->bth.opcode);
	st = rl_transport_check(pkt, op);
	if (st != RL_OK)
		return st;
	tlen = rl_transport_len(pkt);
	if (tlen > cap)
		return RL_E_NOSPACE;
	if (!rl_path_fits(path, tlen))
		return RL_E_ARG;
	p = rl_encode_transport(pkt, op, buf);
	rl_put_icrc(p, rl_icrc_path(path, buf, tlen));
	*out_len = tlen;
	return RL_OK;
}

void rl_pkt_init(struct rl_pkt *pkt, uint8_t opcode)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->link = RL_LINK_ETHERNET;
	pkt->roce = RL_ROCE_V2;
	pkt->l3 = RL_L3_IPV4;
	pkt->ip4.ihl = 5;
	pkt->ip4.df = true;
	pkt->ip4.ttl = 64;
	pkt->ip4.proto = RL_IPPROTO_UDP;
	pkt->ip6.hop_limit = 64;
	pkt->ip6.next_header = RL_IPPROTO_UDP;
	pkt->udp.sport = 0xc000;
	pkt->udp.dport = RL_ROCEV2_UDP_PORT;
	pkt->sll.hatype = 1;
	pkt->sll.addr_len = 6;
	pkt->bth.opcode = opcode;
	pkt->bth.pkey = 0xffff;
	pkt->op = rl_opcode_info(opcode);
	pkt->hdrs = pkt->op->hdrs;
}

/* Does @pkt have the link, network and UDP fields of the packet @c kept? */
static bool rl_cache_hit(const struct rl_encode_cache *c, const struct rl_pkt *pkt)
{
	if (!c->valid || pkt->link != c->link || pkt->l3 != c->l3 || memcmp(&pkt->eth, &c->eth, sizeof(c->eth)) ||
	    memcmp(&pkt->udp, &c->udp, sizeof(c->udp)))
		return false;
	if (pkt->l3 == RL_L3_IPV4)
		return !memcmp(&pkt->ip4, &c->ip4, sizeof(c->ip4));
	return !memcmp(&pkt->ip6, &c->ip6, sizeof(c->ip6));
}

/* Keep the headers rl_encode() just wrote at @frame for @pkt (Ethernet, IPv4 or IPv6, UDP only). */
static void rl_cache_keep(struct rl_encode_cache *c, const struct rl_pkt *pkt, const uint8_t *frame)
{
	size_t l2 = rl_l2_len(pkt), l3 = rl_l3_len(pkt);
	uint64_t sum = 0;

	c->valid = pkt->link == RL_LINK_ETHERNET && (pkt->l3 == RL_L3_IPV4 || pkt->l3 == RL_L3_IPV6);
	if (!c->valid)
		return;
	c->link = pkt->link;
	c->l3 = pkt->l3;
	c->eth = pkt->eth;
	c->ip4 = pkt->ip4;
	c->ip6 = pkt->ip6;
	c->udp = pkt->udp;
	c->l2_len = (uint8_t)l2;
	c->l3_len = (uint8_t)l3;
	memcpy(c->hdr, frame, l2 + l3 + 8);
	if (pkt->l3 == RL_L3_IPV4) {
		rl_put16(c->hdr + l2 + 2, 0);
		rl_put16(c->hdr + l2 + 10, 0);
		for (size_t i = 0; i < 20; i += 4)
			sum += rl_get32(c->hdr + l2 + i);
	}
	c->ip4_sum = sum;
}

/* RFC 1071's fold, as rl_ipv4_checksum() ends: the kept sum plus the total length. */
static uint16_t rl_cache_ip4_checksum(const struct rl_encode_cache *c, uint16_t total_len)
{
	uint64_t sum = c->ip4_sum + total_len;

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

enum rl_status rl_encode_cached(struct rl_encode_cache *c, const struct rl_pkt *pkt, uint8_t *buf, size_t cap,
				size_t *out_len)
{
	const struct rl_opcode_info *op;
	size_t tlen, total;
	enum rl_status st;
	uint8_t *l3, *udp, *p;

	if (!c || !pkt || !buf || !out_len || !rl_cache_hit(c, pkt)) {
		st = rl_encode(pkt, buf, cap, out_len);
		if (c && st == RL_OK)
			rl_cache_keep(c, pkt, buf);
		return st;
	}
	op = rl_opcode_row(pkt->bth.opcode);
	st = rl_transport_check(pkt, op);
	if (st != RL_OK)
		return st;
	tlen = RL_BTH_LEN + op->hdr_len + pkt->payload_len + rl_padcnt(pkt->payload_len) + RL_ICRC_LEN;
	total = (size_t)c->l2_len + c->l3_len + 8 + tlen;
	if (total > cap)
		return RL_E_NOSPACE;
	if (tlen + c->l3_len + 8 > 0xffff)
		return RL_E_ARG;
	if (cap >= sizeof(c->hdr))
		memcpy(buf, c->hdr, sizeof(c->hdr));   /* a constant length: no call */
	else
		memcpy(buf, c->hdr, (size_t)c->l2_len + c->l3_len + 8);
	l3 = buf + c->l2_len;
	udp = l3 + c->l3_len;
	if (c->l3 == RL_L3_IPV4) {
		rl_put16(l3 + 2, (uint16_t)(20 + 8 + tlen));
		rl_put16(l3 + 10, rl_cache_ip4_checksum(c, (uint16_t)(20 + 8 + tlen)));
	} else {
		rl_put16(l3 + 4, (uint16_t)(8 + tlen));
	}
	rl_put16(udp + 4, (uint16_t)(8 + tlen));
	p = rl_encode_transport(pkt, op, udp + 8);
	rl_put_icrc(p, rl_icrc_calc(c->l3, l3, c->l3_len, (size_t)(p - l3)));
	*out_len = total;
	return RL_OK;
}
