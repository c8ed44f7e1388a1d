/* SPDX-License-Identifier: MIT */
/*
 * Paths: the IP and UDP layer of a RoCEv2 packet as a few fields, for
 * programs that leave those headers to a socket (see rocelab/path.h).
 */
#include <string.h>

#include "rocelab/hdr.h"
#include "rocelab/packet.h"
#include "rocelab/path.h"
#include "rocelab/verbs.h"

#define RL_IPV4_DF 0x40           /* in the byte of the flags (RFC 791) */

bool rl_path_is_ipv4(const struct rl_path *path)
{
	return rl_gid_is_ipv4(path->sgid) && rl_gid_is_ipv4(path->dgid);
}

int rl_path_from_pkt(const struct rl_pkt *pkt, struct rl_path *path)
{
	memset(path, 0, sizeof(*path));
	if (pkt->roce != RL_ROCE_V2)
		return -1;
	if (pkt->l3 == RL_L3_IPV4) {
		rl_gid_from_ipv4(path->sgid, pkt->ip4.src);
		rl_gid_from_ipv4(path->dgid, pkt->ip4.dst);
		path->traffic_class = (uint8_t)(pkt->ip4.dscp << 2 | pkt->ip4.ecn);
		path->hop_limit = pkt->ip4.ttl;
		path->ip_id = pkt->ip4.id;
		path->ip_df = pkt->ip4.df;
	} else if (pkt->l3 == RL_L3_IPV6) {
		memcpy(path->sgid, pkt->ip6.src, 16);
		memcpy(path->dgid, pkt->ip6.dst, 16);
		path->traffic_class = pkt->ip6.tclass;
		path->hop_limit = pkt->ip6.hop_limit;
		path->flow_label = pkt->ip6.flow_label;
	} else {
		return -1;
	}
	path->udp_sport = pkt->udp.sport;
	return 0;
}

size_t rl_path_hdr_len(const struct rl_path *path)
{
	return (rl_gid_is_ipv4(path->sgid) ? RL_IPV4_HDR_LEN : RL_IPV6_HDR_LEN) + RL_UDP_HDR_LEN;
}

bool rl_path_fits(const struct rl_path *path, size_t len)
{
	return rl_gid_is_ipv4(path->sgid) == rl_gid_is_ipv4(path->dgid) &&
	       len <= 0xffff - rl_path_hdr_len(path);
}

int rl_path_to_pkt(const struct rl_path *path, size_t len, struct rl_pkt *pkt)
{
	size_t hlen = rl_path_hdr_len(path);

	if (!rl_path_fits(path, len))
		return -1;
	pkt->roce = RL_ROCE_V2;
	if (rl_gid_is_ipv4(path->sgid)) {
		struct rl_ipv4 *ip = &pkt->ip4;

		pkt->l3 = RL_L3_IPV4;
		ip->ihl = RL_IPV4_HDR_LEN / 4;
		ip->dscp = path->traffic_class >> 2;
		ip->ecn = path->traffic_class & 3;
		ip->total_len = (uint16_t)(hlen + len);
		ip->id = path->ip_id;
		ip->df = path->ip_df;
		ip->mf = false;
		ip->frag_off = 0;
		ip->ttl = path->hop_limit;
		ip->proto = RL_IPPROTO_UDP;
		ip->checksum = 0;
		memcpy(ip->src, path->sgid + 12, 4);
		memcpy(ip->dst, path->dgid + 12, 4);
	} else {
		struct rl_ipv6 *ip = &pkt->ip6;

		pkt->l3 = RL_L3_IPV6;
		ip->tclass = path->traffic_class;
		ip->flow_label = path->flow_label & 0xfffff;
		ip->payload_len = (uint16_t)(RL_UDP_HDR_LEN + len);
		ip->next_header = RL_IPPROTO_UDP;
		ip->hop_limit = path->hop_limit;
		memcpy(ip->src, path->sgid, 16);
		memcpy(ip->dst, path->dgid, 16);
	}
	pkt->udp.sport = path->udp_sport;
	pkt->udp.dport = RL_ROCEV2_UDP_PORT;
	pkt->udp.len = (uint16_t)(RL_UDP_HDR_LEN + len);
	pkt->udp.checksum = 0;
	return 0;
}

size_t rl_path_hdr(const struct rl_path *path, size_t len, uint8_t *out)
{
	bool v4 = rl_gid_is_ipv4(path->sgid);
	size_t ip_len = rl_path_hdr_len(path) - RL_UDP_HDR_LEN;
	uint8_t *udp = out + ip_len;

	if (!rl_path_fits(path, len))
		return 0;
	memset(out, 0, ip_len + RL_UDP_HDR_LEN);
	if (v4) {
		out[0] = 4 << 4 | RL_IPV4_HDR_LEN / 4;
		out[1] = path->traffic_class;
		rl_put16(out + 2, (uint16_t)(ip_len + RL_UDP_HDR_LEN + len));
		rl_put16(out + 4, path->ip_id);
		out[6] = path->ip_df ? RL_IPV4_DF : 0;
		out[8] = path->hop_limit;
		out[9] = RL_IPPROTO_UDP;
		memcpy(out + 12, path->sgid + 12, 4);
		memcpy(out + 16, path->dgid + 12, 4);
	} else {
		rl_put32(out, 6u << 28 | (uint32_t)path->traffic_class << 20 | (path->flow_label & 0xfffff));
		rl_put16(out + 4, (uint16_t)(RL_UDP_HDR_LEN + len));
		out[6] = RL_IPPROTO_UDP;
		out[7] = path->hop_limit;
		memcpy(out + 8, path->sgid, 16);
		memcpy(out + 24, path->dgid, 16);
	}
	rl_put16(udp, path->udp_sport);
	rl_put16(udp + 2, RL_ROCEV2_UDP_PORT);
	rl_put16(udp + 4, (uint16_t)(RL_UDP_HDR_LEN + len));
	return ip_len + RL_UDP_HDR_LEN;
}
