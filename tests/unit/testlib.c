/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "testlib.h"

const char *const tl_shape_names[TL_SHAPE_COUNT] = {
	"eth-ipv4", "eth-ipv6", "vlan-ipv4", "vlan-ipv6", "sll-ipv4", "sll2-ipv6", "raw-ipv4",
	"raw-ipv6", "eth-grh (RoCEv1)",
};

static size_t tl_calloc_fail_size;

void tl_fail_next_calloc(size_t size) { tl_calloc_fail_size = size; }

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	if (tl_calloc_fail_size && n == 1 && size == tl_calloc_fail_size) {
		tl_calloc_fail_size = 0;
		return NULL;
	}
	return __real_calloc(n, size);
}

uint64_t tl_rand(struct tl_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

uint32_t tl_rand_below(struct tl_rng *r, uint32_t n)
{
	return (uint32_t)(tl_rand(r) % n);
}

static void tl_fill(struct tl_rng *r, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)tl_rand(r);
}

static void tl_frame(struct tl_rng *r, enum tl_shape shape, struct rl_pkt *p)
{
	bool v6 = shape == TL_ETH_V6 || shape == TL_VLAN_V6 || shape == TL_SLL2_V6 || shape == TL_RAW_V6;

	p->l3 = shape == TL_ETH_GRH ? RL_L3_GRH : v6 ? RL_L3_IPV6 : RL_L3_IPV4;
	p->roce = shape == TL_ETH_GRH ? RL_ROCE_V1 : RL_ROCE_V2;
	switch (shape) {
	case TL_SLL_V4: p->link = RL_LINK_LINUX_SLL; break;
	case TL_SLL2_V6: p->link = RL_LINK_LINUX_SLL2; break;
	case TL_RAW_V4: case TL_RAW_V6: p->link = RL_LINK_RAW; break;
	default: p->link = RL_LINK_ETHERNET; break;
	}
	tl_fill(r, p->eth.dst, 6);
	tl_fill(r, p->eth.src, 6);
	p->eth.has_vlan = shape == TL_VLAN_V4 || shape == TL_VLAN_V6;
	p->eth.vlan_pcp = (uint8_t)tl_rand_below(r, 8);
	p->eth.vlan_dei = tl_rand_below(r, 2);
	p->eth.vlan_id = (uint16_t)tl_rand_below(r, 4096);
	p->sll.pkttype = (uint16_t)tl_rand_below(r, 5);
	p->sll.ifindex = (uint32_t)tl_rand(r);
	tl_fill(r, p->sll.addr, 6);
	p->ip4.dscp = (uint8_t)tl_rand_below(r, 64);
	p->ip4.ecn = (uint8_t)tl_rand_below(r, 4);
	p->ip4.id = (uint16_t)tl_rand(r);
	p->ip4.df = tl_rand_below(r, 2);
	p->ip4.ttl = (uint8_t)tl_rand(r);
	tl_fill(r, p->ip4.src, 4);
	tl_fill(r, p->ip4.dst, 4);
	p->ip6.tclass = (uint8_t)tl_rand(r);
	p->ip6.flow_label = tl_rand_below(r, 1u << 20);
	p->ip6.hop_limit = (uint8_t)tl_rand(r);
	tl_fill(r, p->ip6.src, 16);
	tl_fill(r, p->ip6.dst, 16);
	p->udp.sport = (uint16_t)(0xc000 + tl_rand_below(r, 0x4000));
	p->udp.checksum = tl_rand_below(r, 2) ? 0 : (uint16_t)tl_rand(r);
}

void tl_random_pkt(struct tl_rng *r, uint8_t opcode, enum tl_shape shape, struct rl_pkt *p,
		   uint8_t *payload)
{
	const struct rl_opcode_info *op;
	size_t len = 0;

	rl_pkt_init(p, opcode);
	op = p->op;
	tl_frame(r, shape, p);
	p->bth.se = tl_rand_below(r, 2);
	p->bth.migreq = tl_rand_below(r, 2);
	p->bth.pkey = (uint16_t)tl_rand(r);
	p->bth.fecn = tl_rand_below(r, 2);
	p->bth.becn = tl_rand_below(r, 2);
	p->bth.dqpn = tl_rand_below(r, 1u << 24);
	p->bth.ackreq = tl_rand_below(r, 2);
	p->bth.psn = tl_rand_below(r, 1u << 24);
	p->rdeth_eecnxt = tl_rand_below(r, 1u << 24);
	p->deth.qkey = (uint32_t)tl_rand(r);
	p->deth.src_qp = tl_rand_below(r, 1u << 24);
	p->xrc_srq = tl_rand_below(r, 1u << 24);
	p->feth.sel = (uint8_t)tl_rand_below(r, 4);
	p->feth.plt = (uint8_t)tl_rand_below(r, 16);
	p->reth.va = tl_rand(r);
	p->reth.rkey = (uint32_t)tl_rand(r);
	p->reth.dma_len = (uint32_t)tl_rand(r);
	p->atomiceth.va = tl_rand(r);
	p->atomiceth.rkey = (uint32_t)tl_rand(r);
	p->atomiceth.swap_add = tl_rand(r);
	p->atomiceth.compare = tl_rand(r);
	p->aeth.syndrome = (uint8_t)tl_rand_below(r, 128);
	p->aeth.msn = tl_rand_below(r, 1u << 24);
	p->atomicack_orig = tl_rand(r);
	p->immdt = (uint32_t)tl_rand(r);
	p->ieth_rkey = (uint32_t)tl_rand(r);

	/* Payload rules (IBA 9.2): only the last/only packet may need pad. */
	if (op->fixed_payload)
		len = op->fixed_payload;
	else if (op->flags & RL_OPF_PAYLOAD)
		len = (op->flags & RL_OPF_LAST) || !(op->flags & RL_OPF_VALID)
			      ? tl_rand_below(r, 300)
			      : 4 * tl_rand_below(r, 75);
	tl_fill(r, payload, len);
	p->payload = payload;
	p->payload_len = len;
}

size_t tl_hex(const char *text, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *text && n < cap; text++) {
		int v;

		if (!isxdigit((unsigned char)*text))
			continue;
		v = isdigit((unsigned char)*text) ? *text - '0' : (tolower((unsigned char)*text) - 'a' + 10);
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

void tl_scapy_uc_send(struct rl_pkt *p, bool ipv6)
{
	static const uint8_t mac[6] = { 0x24, 0x8a, 0x07, 0xa8, 0xfa, 0x22 };
	static const uint8_t payload[18] = {
		'F', '0', 0x81, 0x8b, 0xe2, 0x89, '5', 0xd9, 0x0e, 0x9a, 0x95, 'P', 'T', 0x01, 0xbe, 0x88, '^', 'P',
	};

	rl_pkt_init(p, RL_OP_UC_SEND_ONLY);
	memcpy(p->eth.dst, mac, 6);
	memcpy(p->eth.src, mac, 6);
	p->udp.sport = 49152;
	p->bth.migreq = true;
	p->bth.dqpn = 211;
	p->bth.psn = 13571856;
	p->payload = payload;
	p->payload_len = sizeof(payload);
	if (ipv6) {
		p->l3 = RL_L3_IPV6;
		inet_pton(AF_INET6, "2022::1023", p->ip6.src);
		inet_pton(AF_INET6, "2023::1024", p->ip6.dst);
		p->ip6.tclass = 226;
		p->ip6.flow_label = 0x1face;
		p->ip6.hop_limit = 255;
	} else {
		p->ip4.ecn = 1;                 /* tos=0x1 */
		p->ip4.id = 1144;
		inet_pton(AF_INET, "192.168.0.7", p->ip4.src);
		inet_pton(AF_INET, "192.168.0.7", p->ip4.dst);
	}
}

void tl_scapy_path(bool ipv6, struct rl_path *path)
{
	uint8_t ip[4];

	memset(path, 0, sizeof(*path));
	if (ipv6) {
		inet_pton(AF_INET6, "2022::1023", path->sgid);
		inet_pton(AF_INET6, "2023::1024", path->dgid);
		path->traffic_class = 226;
		path->flow_label = 0x1face;
		path->hop_limit = 255;
	} else {
		inet_pton(AF_INET, "192.168.0.7", ip);
		rl_gid_from_ipv4(path->sgid, ip);
		rl_gid_from_ipv4(path->dgid, ip);
		path->traffic_class = 1;
		path->ip_id = 1144;
		path->ip_df = true;
		path->hop_limit = 64;
	}
	path->udp_sport = 49152;
}

const char tl_cnp_cx4[] =
	"e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2 003c 718c 4000 4011 9161 0a00 1101 0a00"
	"1201 0000 12b7 0028 0000 8100 ffff 4000 0118 0000 0000 0000 0000 0000 0000 0000"
	"0000 0000 0000 82fd 002a";

void tl_cnp_cx4_path(struct rl_path *path)
{
	uint8_t src[4] = { 10, 0, 17, 1 }, dst[4] = { 10, 0, 18, 1 };

	memset(path, 0, sizeof(*path));
	rl_gid_from_ipv4(path->sgid, src);
	rl_gid_from_ipv4(path->dgid, dst);
	path->traffic_class = 0xc2;
	path->hop_limit = 64;
	path->ip_id = 0x718c;
	path->ip_df = true;
}

bool tl_mark_ce_ipv4(uint8_t *frame, size_t len)
{
	uint32_t sum = 0;

	if (len < 34 || frame[12] != 0x08 || frame[13] != 0x00)
		return false;
	frame[15] |= 3;
	frame[24] = frame[25] = 0;
	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)frame[i] << 8 | frame[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	frame[24] = (uint8_t)(~sum >> 8);
	frame[25] = (uint8_t)~sum;
	return true;
}
