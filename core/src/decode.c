/* SPDX-License-Identifier: MIT */
/*
 * Frame -> struct rl_pkt. Each layer checks its length before it reads, and
 * each malformation returns its own status with the offset where it was
 * found. The transport headers after the BTH are located by the opcode table.
 * A packet that comes as a path and BTH..ICRC (rl_decode_path) takes its
 * network layer from the path and joins the same transport decoder.
 */
#include <string.h>

#include "field_rows.h"
#include "opcode_table.h"
#include "rocelab/cm.h"
#include "rocelab/icrc.h"
#include "rocelab/packet.h"
#include "rocelab/path.h"

static enum rl_status rl_fail(struct rl_pkt *pkt, enum rl_status st, size_t off, size_t need,
			      size_t have)
{
	pkt->err_off = off;
	pkt->err_need = need;
	pkt->err_have = have;
	return st;
}

/*
 * One decoder per header, generated from the field rows (field_rows.h): each
 * keeps the rows of its own header, so it compiles to the loads and masks a
 * hand-written one would have.
 */
#define RL_DEC_FIELD(hdr, member, off, bytes, shift, bits, ...) \
	if ((hdr) == cur)                                        \
		pkt->member = RL_FIELD_GET(h, off, bytes, shift, bits);
#define RL_DEC_HDR(id, hdr, ...)                                             \
	static void rl_decode_##id(struct rl_pkt *pkt, const uint8_t *h)    \
	{                                                                    \
		const uint32_t cur = (hdr);                                  \
		(void)pkt;                                                   \
		(void)h;                                                     \
		RL_FIELD_ROWS(RL_DEC_FIELD)                                  \
	}
RL_FIELD_HDRS(RL_DEC_HDR)

/*
 * Walk the extended headers the opcode table lists, in wire order: one step
 * per header row (the BTH's row is left out), which the compiler turns into
 * the tests and inlined decoders a hand-written ladder would have.
 */
#define RL_DEC_STEP(id, hdr, len, ...)           \
	if ((hdr) != RL_FIELD_BTH && (m & (hdr))) { \
		rl_decode_##id(pkt, h);          \
		h += (len);                      \
	}
static void rl_decode_ext(struct rl_pkt *pkt, const uint8_t *h)
{
	uint32_t m = pkt->hdrs;

	RL_FIELD_HDRS(RL_DEC_STEP)
}

/*
 * Pad (IBA 9.2 PadCnt): pad bytes are part of what follows the headers, and
 * only the last or only packet of a message may carry them. The payload
 * itself must fit the opcode (rl_opcode_payload_ok).
 */
static enum rl_status rl_check_payload(struct rl_pkt *pkt, const struct rl_opcode_info *op, size_t area)
{
	uint8_t pad = pkt->bth.padcnt;
	size_t off = pkt->payload_off;

	if (pad > area)
		return rl_fail(pkt, RL_E_PAD, off, pad, area);
	if (pad && (op->flags & RL_OPF_VALID) &&
	    (op->flags & (RL_OPF_PAYLOAD | RL_OPF_LAST)) != (RL_OPF_PAYLOAD | RL_OPF_LAST))
		return rl_fail(pkt, RL_E_PAD, off, 0, pad);
	if (!rl_opcode_info_payload_ok(op, area - pad))
		return rl_fail(pkt, RL_E_PAYLOAD_LEN, off, op->fixed_payload, area - pad);
	return RL_OK;
}

/*
 * The end of a packet the capture cut (rl_decode_cut): the payload is there
 * only if all of it was captured, and the ICRC, which was not, is unknown.
 */
static enum rl_status rl_decode_cut_end(struct rl_pkt *pkt)
{
	pkt->cut = true;
	if (pkt->payload_off + pkt->payload_len > pkt->cap_len)
		pkt->payload = NULL;
	pkt->icrc_off = pkt->cap_len;  /* nothing of it to show */
	if (!(pkt->op->flags & RL_OPF_VALID))
		return rl_fail(pkt, RL_E_UNKNOWN_OPCODE, pkt->bth_off, 0, 0);
	return RL_CUT;
}

static uint32_t rl_get32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * From the BTH at pkt->bth_off to pkt->end_off, which the caller has checked
 * (pkt->cap_len, when set, is where the captured bytes end before that).
 * The ICRC (IBA A17.3.3) also covers the IP and UDP headers: those in @data,
 * or, if @path is given, those the path stands for.
 */
static enum rl_status rl_decode_transport(const uint8_t *data, struct rl_pkt *pkt,
					  const struct rl_path *path)
{
	size_t off = pkt->bth_off, end = pkt->end_off, cap = pkt->cap_len, avail, hdr_len;
	const struct rl_opcode_info *op;
	enum rl_status st;
	uint32_t expected = 0;

	if (end - off < RL_BTH_LEN)
		return rl_fail(pkt, RL_E_TRUNC_BTH, off, RL_BTH_LEN, end - off);
	if (cap && cap < off + RL_BTH_LEN)
		return rl_fail(pkt, RL_E_TRUNC_BTH, off, RL_BTH_LEN, cap - off);
	/*
	 * The ICRC first, kept until the packet proves whole: the CPU parses the
	 * headers below while the CRC's latency chain runs.
	 */
	if ((!cap || cap >= end) && end - off >= RL_BTH_LEN + RL_ICRC_LEN)
		expected = path ? rl_icrc_path(path, data + off, end - off) : rl_icrc_compute_to(pkt, data, end);
	rl_decode_BTH(pkt, data + off);
	/* IBA 9.2: TVer is 0; other values mean a layout this decoder cannot know. */
	if (pkt->bth.tver != 0)
		return rl_fail(pkt, RL_E_TVER, off + 1, 0, pkt->bth.tver);

	op = rl_opcode_row(pkt->bth.opcode);
	hdr_len = op->hdr_len;
	pkt->op = op;
	pkt->hdrs = op->hdrs;
	off += RL_BTH_LEN;
	avail = end - off;
	if (avail < hdr_len)
		return rl_fail(pkt, RL_E_MISSING_HDR, off, hdr_len, avail);
	if (avail < hdr_len + RL_ICRC_LEN)
		return rl_fail(pkt, RL_E_TRUNC_ICRC, end, hdr_len + RL_ICRC_LEN, avail);
	if (cap && cap < off + hdr_len)
		return rl_fail(pkt, RL_E_MISSING_HDR, off, hdr_len, cap - off);
	rl_decode_ext(pkt, data + off);

	off += hdr_len;
	pkt->payload_off = off;
	pkt->icrc_off = end - RL_ICRC_LEN;
	pkt->payload = data + off;
	avail = end - RL_ICRC_LEN - off;

	st = rl_check_payload(pkt, op, avail);
	if (st != RL_OK)
		return st;
	pkt->payload_len = avail - pkt->bth.padcnt;
	if (cap && cap < end)
		return rl_decode_cut_end(pkt);

	pkt->icrc = rl_get32le(data + end - RL_ICRC_LEN);
	pkt->icrc_expected = expected;
	pkt->icrc_ok = pkt->icrc == pkt->icrc_expected;

	if (!(op->flags & RL_OPF_VALID))
		return rl_fail(pkt, RL_E_UNKNOWN_OPCODE, pkt->bth_off, 0, 0);
	if (!pkt->icrc_ok)
		return rl_fail(pkt, RL_E_ICRC, end - RL_ICRC_LEN, 0, 0);
	return RL_OK;
}

static enum rl_status rl_decode_udp(const uint8_t *data, struct rl_pkt *pkt, size_t ip_payload)
{
	const uint8_t *u = data + pkt->l4_off;

	pkt->udp.sport = rl_get16(u);
	pkt->udp.dport = rl_get16(u + 2);
	pkt->udp.len = rl_get16(u + 4);
	pkt->udp.checksum = rl_get16(u + 6);
	if (pkt->udp.len != ip_payload)
		return rl_fail(pkt, RL_E_UDP_LEN, pkt->l4_off + 4, ip_payload, pkt->udp.len);
	pkt->bth_off = pkt->l4_off + 8;
	pkt->roce = RL_ROCE_V2;
	return rl_decode_transport(data, pkt, NULL);
}

/*
 * The fixed 20 bytes, read as words before anything is stored: @ip's bytes
 * could alias @h's, and each store would otherwise make the compiler read
 * the frame again.
 */
static void rl_decode_ip4hdr(const uint8_t *h, struct rl_ipv4 *ip)
{
	uint32_t w0 = rl_get32(h), w1 = rl_get32(h + 4), w2 = rl_get32(h + 8);
	uint8_t addr[8];

	memcpy(addr, h + 12, sizeof(addr));
	ip->dscp = (uint8_t)(w0 >> 18 & 0x3f);
	ip->ecn = (uint8_t)(w0 >> 16 & 3);
	ip->total_len = (uint16_t)w0;
	ip->id = (uint16_t)(w1 >> 16);
	ip->df = w1 & 0x4000;
	ip->mf = w1 & 0x2000;
	ip->frag_off = w1 & 0x1fff;
	ip->ttl = (uint8_t)(w2 >> 24);
	ip->proto = (uint8_t)(w2 >> 16);
	ip->checksum = (uint16_t)w2;
	memcpy(ip->src, addr, 4);
	memcpy(ip->dst, addr + 4, 4);
}

static enum rl_status rl_decode_ipv4(const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	size_t off = pkt->l3_off, hlen;
	const uint8_t *h = data + off;
	struct rl_ipv4 *ip = &pkt->ip4;

	pkt->l3 = RL_L3_IPV4;
	if (len - off < 20)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, 20, len - off);
	if (h[0] >> 4 != 4)
		return rl_fail(pkt, RL_E_IP_VERSION, off, 4, h[0] >> 4);
	ip->ihl = h[0] & 0x0f;
	hlen = (size_t)ip->ihl * 4;
	if (ip->ihl < 5)
		return rl_fail(pkt, RL_E_IP_HDR_LEN, off, 20, hlen);
	if (len - off < hlen)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, hlen, len - off);
	rl_decode_ip4hdr(h, ip);

	if (ip->proto != RL_IPPROTO_UDP || ip->frag_off)
		return RL_NOT_ROCE;
	pkt->l4_off = off + hlen;
	if (len - pkt->l4_off < 8)
		return rl_fail(pkt, RL_E_TRUNC_UDP, pkt->l4_off, 8, len - pkt->l4_off);
	if (rl_get16(data + pkt->l4_off + 2) != RL_ROCEV2_UDP_PORT)
		return RL_NOT_ROCE;
	if (ip->mf)
		return rl_fail(pkt, RL_E_IP_FRAGMENT, off + 6, 0, 0);
	if (ip->total_len < hlen + 8)
		return rl_fail(pkt, RL_E_IP_LEN, off + 2, hlen + 8, ip->total_len);
	if (ip->total_len > len - off)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, ip->total_len, len - off);
	pkt->end_off = off + ip->total_len;
	return rl_decode_udp(data, pkt, ip->total_len - hlen);
}

static void rl_decode_ip6hdr(const uint8_t *h, struct rl_ipv6 *ip)
{
	uint32_t w = rl_get32(h);

	ip->tclass = (uint8_t)(w >> 20);
	ip->flow_label = w & 0xfffff;
	ip->payload_len = rl_get16(h + 4);
	ip->next_header = h[6];
	ip->hop_limit = h[7];
	memcpy(ip->src, h + 8, 16);
	memcpy(ip->dst, h + 24, 16);
}

static enum rl_status rl_decode_ipv6(const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	size_t off = pkt->l3_off;
	struct rl_ipv6 *ip = &pkt->ip6;

	pkt->l3 = RL_L3_IPV6;
	if (len - off < 40)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, 40, len - off);
	if (data[off] >> 4 != 6)
		return rl_fail(pkt, RL_E_IP_VERSION, off, 6, data[off] >> 4);
	rl_decode_ip6hdr(data + off, ip);
	if (ip->next_header != RL_IPPROTO_UDP)
		return RL_NOT_ROCE;
	pkt->l4_off = off + 40;
	if (len - pkt->l4_off < 8)
		return rl_fail(pkt, RL_E_TRUNC_UDP, pkt->l4_off, 8, len - pkt->l4_off);
	if (rl_get16(data + pkt->l4_off + 2) != RL_ROCEV2_UDP_PORT)
		return RL_NOT_ROCE;
	if (ip->payload_len < 8)
		return rl_fail(pkt, RL_E_IP_LEN, off + 4, 8, ip->payload_len);
	if (ip->payload_len > len - pkt->l4_off)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, 40 + (size_t)ip->payload_len, len - off);
	pkt->end_off = pkt->l4_off + ip->payload_len;
	return rl_decode_udp(data, pkt, ip->payload_len);
}

/* RoCEv1 (IBA Annex A16): the IB GRH directly after the Ethernet header. */
static enum rl_status rl_decode_grh(const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	size_t off = pkt->l3_off;
	struct rl_ipv6 *grh = &pkt->ip6;

	pkt->l3 = RL_L3_GRH;
	pkt->roce = RL_ROCE_V1;
	if (len - off < 40)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, 40, len - off);
	if (data[off] >> 4 != 6)
		return rl_fail(pkt, RL_E_IP_VERSION, off, 6, data[off] >> 4);
	rl_decode_ip6hdr(data + off, grh);
	if (grh->next_header != RL_GRH_NXTHDR_IBA)
		return rl_fail(pkt, RL_E_GRH, off + 6, RL_GRH_NXTHDR_IBA, grh->next_header);
	if (grh->payload_len > len - off - 40)
		return rl_fail(pkt, RL_E_TRUNC_IP, off, 40 + (size_t)grh->payload_len, len - off);
	pkt->l4_off = pkt->bth_off = off + 40;
	pkt->end_off = pkt->bth_off + grh->payload_len;
	return rl_decode_transport(data, pkt, NULL);
}

static enum rl_status rl_decode_ethertype(const uint8_t *data, size_t len, struct rl_pkt *pkt,
					  uint16_t type)
{
	switch (type) {
	case RL_ETHERTYPE_IPV4: return rl_decode_ipv4(data, len, pkt);
	case RL_ETHERTYPE_IPV6: return rl_decode_ipv6(data, len, pkt);
	case RL_ETHERTYPE_ROCEV1: return rl_decode_grh(data, len, pkt);
	default: return RL_NOT_ROCE;
	}
}

static enum rl_status rl_decode_eth(const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	struct rl_eth *eth = &pkt->eth;
	size_t off = 14;

	if (len < 14)
		return rl_fail(pkt, RL_E_TRUNC_L2, 0, 14, len);
	memcpy(eth->dst, data, 6);
	memcpy(eth->src, data + 6, 6);
	eth->ethertype = rl_get16(data + 12);
	eth->has_vlan = eth->ethertype == RL_ETHERTYPE_VLAN;
	if (eth->has_vlan) {
		uint16_t tci;

		if (len < 18)
			return rl_fail(pkt, RL_E_TRUNC_L2, 14, 18, len);
		tci = rl_get16(data + 14);
		eth->vlan_pcp = (uint8_t)(tci >> 13);
		eth->vlan_dei = tci & 0x1000;
		eth->vlan_id = tci & 0x0fff;
		eth->ethertype = rl_get16(data + 16);
		off = 18;
	}
	pkt->l3_off = off;
	return rl_decode_ethertype(data, len, pkt, eth->ethertype);
}

/* Linux cooked headers, as written by tcpdump -i any (pcap-linktype(7)). */
static enum rl_status rl_decode_sll(const uint8_t *data, size_t len, struct rl_pkt *pkt, bool v2)
{
	struct rl_sll *s = &pkt->sll;
	size_t hlen = v2 ? 20 : 16;

	if (len < hlen)
		return rl_fail(pkt, RL_E_TRUNC_L2, 0, hlen, len);
	if (v2) {
		s->protocol = rl_get16(data);
		s->ifindex = rl_get32(data + 4);
		s->hatype = rl_get16(data + 8);
		s->pkttype = data[10];
		s->addr_len = data[11];
		memcpy(s->addr, data + 12, 8);
	} else {
		s->pkttype = rl_get16(data);
		s->hatype = rl_get16(data + 2);
		s->addr_len = (uint8_t)rl_get16(data + 4);
		memcpy(s->addr, data + 6, 8);
		s->protocol = rl_get16(data + 14);
		s->ifindex = 0;
	}
	pkt->l3_off = hlen;
	return rl_decode_ethertype(data, len, pkt, s->protocol);
}

/*
 * Ask for the frame's cache lines now: the decoder reads the headers, then
 * the ICRC at the end, then the CRC streams over everything; fetching early
 * overlaps the memory latency with the header work.
 */
static void rl_prefetch_frame(const uint8_t *data, size_t len)
{
#if defined(__GNUC__)
	for (size_t off = 64; off < len && off < 512; off += 64)
		__builtin_prefetch(data + off);
	if (len)
		__builtin_prefetch(data + len - 1);
#else
	(void)data;
	(void)len;
#endif
}

static void rl_decode_reset(enum rl_link link, size_t len, struct rl_pkt *pkt)
{
	pkt->link = link;
	pkt->roce = RL_ROCE_NONE;
	pkt->l3 = RL_L3_NONE;
	pkt->op = NULL;
	pkt->hdrs = 0;
	pkt->payload = NULL;
	pkt->payload_len = 0;
	pkt->icrc = pkt->icrc_expected = 0;
	pkt->icrc_ok = false;
	pkt->frame_len = len;
	pkt->l3_off = pkt->l4_off = pkt->bth_off = pkt->payload_off = pkt->icrc_off = 0;
	pkt->end_off = pkt->err_off = pkt->err_need = pkt->err_have = 0;
	pkt->cut = false;
	pkt->cap_len = 0;
	pkt->eth.has_vlan = false;
}

static enum rl_status rl_decode_raw_ip(const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	if (len < 1)
		return rl_fail(pkt, RL_E_TRUNC_IP, 0, 20, 0);
	switch (data[0] >> 4) {
	case 4: return rl_decode_ipv4(data, len, pkt);
	case 6: return rl_decode_ipv6(data, len, pkt);
	default: return RL_NOT_ROCE;
	}
}

static enum rl_status rl_decode_wire(enum rl_link link, const uint8_t *data, size_t len, struct rl_pkt *pkt);

enum rl_status rl_decode(enum rl_link link, const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	if (!data || !pkt)
		return RL_E_ARG;
	rl_prefetch_frame(data, len);
	rl_decode_reset(link, len, pkt);
	return rl_decode_wire(link, data, len, pkt);
}

/* After rl_decode_reset(): by link type. */
static enum rl_status rl_decode_wire(enum rl_link link, const uint8_t *data, size_t len, struct rl_pkt *pkt)
{
	switch ((int)link) {
	case RL_LINK_ETHERNET: return rl_decode_eth(data, len, pkt);
	case RL_LINK_LINUX_SLL: return rl_decode_sll(data, len, pkt, false);
	case RL_LINK_LINUX_SLL2: return rl_decode_sll(data, len, pkt, true);
	case RL_LINK_RAW:
	case 12: /* DLT_RAW on most systems */
	case 14: /* DLT_RAW on OpenBSD */
		pkt->link = RL_LINK_RAW;
		return rl_decode_raw_ip(data, len, pkt);
	case RL_LINK_IPV4: return rl_decode_ipv4(data, len, pkt);
	case RL_LINK_IPV6: return rl_decode_ipv6(data, len, pkt);
	default: return RL_E_ARG;
	}
}

enum rl_status rl_decode_cut(enum rl_link link, const uint8_t *data, size_t caplen, size_t wire_len,
			     struct rl_pkt *pkt)
{
	enum rl_status st = rl_decode(link, data, caplen, pkt);

	/*
	 * A second pass with the length on the wire only when the first stopped
	 * at the IP length check, after the UDP header: every byte before that
	 * is then inside @caplen, and the transport decoder checks the rest
	 * against pkt->cap_len. (RoCEv1's GRH has no UDP header: not done.)
	 */
	if (caplen >= wire_len || st != RL_E_TRUNC_IP || !pkt->l4_off || pkt->l3 == RL_L3_GRH)
		return st;
	{
		struct rl_pkt whole;
		enum rl_status st2;

		rl_decode_reset(link, wire_len, &whole);
		whole.cap_len = caplen;
		st2 = rl_decode_wire(link, data, wire_len, &whole);
		/* A cut MAD stays undecoded: the CM reads all of its payload. */
		if ((st2 != RL_CUT && st2 != RL_E_UNKNOWN_OPCODE) || (!whole.payload && whole.bth.dqpn == RL_GSI_QPN))
			return st;
		*pkt = whole;
		return st2;
	}
}

enum rl_status rl_decode_l3(const uint8_t *data, size_t len, bool grh, struct rl_pkt *pkt)
{
	if (!data || !pkt)
		return RL_E_ARG;
	rl_decode_reset(RL_LINK_RAW, len, pkt);
	return grh ? rl_decode_grh(data, len, pkt) : rl_decode_raw_ip(data, len, pkt);
}

enum rl_status rl_decode_path(const struct rl_path *path, const uint8_t *bth, size_t len,
			      struct rl_pkt *pkt)
{
	if (!path || !bth || !pkt)
		return RL_E_ARG;
	rl_prefetch_frame(bth, len);
	rl_decode_reset(RL_LINK_RAW, len, pkt);
	if (rl_path_to_pkt(path, len, pkt))
		return RL_E_ARG;
	/* The headers are not in @bth: l3_off, l4_off and bth_off stay 0. */
	pkt->end_off = len;
	return rl_decode_transport(bth, pkt, path);
}

bool rl_link_supported(int linktype)
{
	switch (linktype) {
	case RL_LINK_ETHERNET: case RL_LINK_RAW: case 12: case 14: case RL_LINK_LINUX_SLL:
	case RL_LINK_IPV4: case RL_LINK_IPV6: case RL_LINK_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}

const char *rl_link_name(enum rl_link link)
{
	switch (link) {
	case RL_LINK_ETHERNET: return "Ethernet";
	case RL_LINK_RAW: return "raw IP";
	case RL_LINK_LINUX_SLL: return "Linux cooked (SLL)";
	case RL_LINK_IPV4: return "raw IPv4";
	case RL_LINK_IPV6: return "raw IPv6";
	case RL_LINK_LINUX_SLL2: return "Linux cooked v2 (SLL2)";
	}
	return "unknown";
}
