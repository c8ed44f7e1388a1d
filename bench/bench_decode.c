/* SPDX-License-Identifier: MIT */
/*
 * Decode speed benchmark. With no arguments: build 1M RoCEv2 frames in
 * memory (64-byte and 1024-byte payload sets, a mix of RC/UD opcodes) and
 * time rl_decode(), which verifies the ICRC, against bare ISA-L
 * crc32_gzip_refl() and zlib crc32() over the bytes the ICRC covers. Prints
 * rates and ratios measured in the same run; never asserts a timing.
 *
 *   bench_decode [--packets N]         the decode benchmark (default 1M)
 *   bench_decode --write-pcap FILE N   write a deterministic N-packet pcap
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/crc.h>
#include <zlib.h>

#include "rocelab/rocelab.h"

#define BN_PROG "bench_decode"
#include "bench.h"

#define BN_PACKETS 1000000
#define BN_REPS 5
#define BN_SLOT_ALIGN 64
#define BN_FRAME_MAX 2048
#define BN_PAYLOAD_MAX 1024
#define BN_L3_OFF 14                    /* Ethernet, no VLAN */

/* Decode-benchmark mix, one row per packet index mod 16: payload opcodes mostly. */
static const uint8_t bn_mix[16] = {
	RL_OP_RC_SEND_ONLY, RL_OP_RC_RDMA_WRITE_ONLY, RL_OP_RC_RDMA_READ_RESPONSE_ONLY, RL_OP_RC_SEND_ONLY,
	RL_OP_RC_RDMA_WRITE_ONLY, RL_OP_UD_SEND_ONLY, RL_OP_RC_ACKNOWLEDGE, RL_OP_RC_SEND_ONLY,
	RL_OP_RC_RDMA_WRITE_ONLY, RL_OP_RC_RDMA_READ_RESPONSE_ONLY, RL_OP_RC_SEND_ONLY, RL_OP_RC_RDMA_WRITE_ONLY,
	RL_OP_UD_SEND_ONLY, RL_OP_RC_RDMA_READ_RESPONSE_ONLY, RL_OP_RC_ACKNOWLEDGE, RL_OP_RC_SEND_ONLY,
};

/* Frames packed in 64-byte aligned slots of one buffer. */
struct bn_set {
	uint8_t *buf;
	size_t *off;
	uint16_t *len;
	size_t n;
	uint64_t icrc_bytes;            /* bytes the ICRC covers, all frames */
};

/* One timed contender: a whole pass over a set, returning a value to sink. */
typedef uint32_t (*bn_pass_fn)(const struct bn_set *s);

static volatile uint32_t bn_sink;
static uint8_t bn_payload[BN_PAYLOAD_MAX];

/* Deterministic 32-bit generator (xorshift), for the pcap mix. */
static uint32_t bn_rand(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static void bn_payload_init(void)
{
	for (size_t i = 0; i < sizeof(bn_payload); i++)
		bn_payload[i] = (uint8_t)(i * 31 + 7);
}

/*
 * Fill @pkt as a host pair would send it: requests go from .1 to .2,
 * responses back; the UDP source port is per-QP entropy as in rxe and NICs.
 */
static void bn_fill(struct rl_pkt *pkt, uint8_t opcode, uint32_t qp, uint32_t psn, size_t plen)
{
	static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
	static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
	static const uint8_t ip_a[4] = { 10, 0, 0, 1 }, ip_b[4] = { 10, 0, 0, 2 };
	bool resp;

	rl_pkt_init(pkt, opcode);
	resp = pkt->op->flags & RL_OPF_RESP;
	memcpy(pkt->eth.src, resp ? mac_b : mac_a, 6);
	memcpy(pkt->eth.dst, resp ? mac_a : mac_b, 6);
	memcpy(pkt->ip4.src, resp ? ip_b : ip_a, 4);
	memcpy(pkt->ip4.dst, resp ? ip_a : ip_b, 4);
	pkt->ip4.dscp = 26;
	pkt->ip4.ecn = 2;                       /* ECT(0) */
	pkt->ip4.id = (uint16_t)psn;
	pkt->udp.sport = (uint16_t)(0xc000 | (qp & 0x3fff));
	pkt->bth.dqpn = (resp ? 0x100 : 0x200) + qp;
	pkt->bth.psn = psn & 0xffffff;
	pkt->bth.ackreq = !resp;
	pkt->reth.va = 0x7f0000000000ull + (uint64_t)psn * 4096;
	pkt->reth.rkey = 0x1234 + qp;
	pkt->reth.dma_len = (uint32_t)plen;
	pkt->aeth.syndrome = rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID);
	pkt->aeth.msn = psn & 0xffffff;
	pkt->deth.qkey = 0x11111111;
	pkt->deth.src_qp = 0x300 + qp;
	if (pkt->op->flags & RL_OPF_PAYLOAD) {
		pkt->payload = bn_payload;
		pkt->payload_len = plen;
	}
}

static size_t bn_encode(const struct rl_pkt *pkt, uint8_t *buf, size_t cap)
{
	size_t n;

	if (rl_encode(pkt, buf, cap, &n) != RL_OK)
		bn_die("rl_encode failed");
	return n;
}

/* ---- part 1: decode + verify against bare CRC-32 ------------------------ */

static void bn_set_build(struct bn_set *s, size_t n, size_t plen)
{
	size_t slot = (BN_L3_OFF + 20 + 8 + RL_BTH_LEN + 32 + plen + 4 + BN_SLOT_ALIGN - 1) &
		      ~(size_t)(BN_SLOT_ALIGN - 1);
	struct rl_pkt pkt;

	s->n = n;
	s->buf = bn_alloc(n * slot);
	s->off = bn_alloc(n * sizeof(*s->off));
	s->len = bn_alloc(n * sizeof(*s->len));
	s->icrc_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		bn_fill(&pkt, bn_mix[i % 16], (uint32_t)(i % 8), (uint32_t)(i / 8), plen);
		s->off[i] = i * slot;
		s->len[i] = (uint16_t)bn_encode(&pkt, s->buf + s->off[i], slot);
		s->icrc_bytes += s->len[i] - BN_L3_OFF - RL_ICRC_LEN;
	}
}

static void bn_set_free(struct bn_set *s)
{
	free(s->buf);
	free(s->off);
	free(s->len);
}

static void bn_bad_decode(size_t i, enum rl_status st, const struct rl_pkt *pkt)
{
	char msg[256];

	rl_decode_error_str(st, pkt, msg, sizeof(msg));
	fprintf(stderr, "bench_decode: packet %zu: %s\n", i, msg);
	abort();
}

static uint32_t bn_pass_decode(const struct bn_set *s)
{
	struct rl_pkt pkt;
	uint32_t acc = 0;

	for (size_t i = 0; i < s->n; i++) {
		enum rl_status st = rl_decode(RL_LINK_ETHERNET, s->buf + s->off[i], s->len[i], &pkt);

		if (st != RL_OK)
			bn_bad_decode(i, st, &pkt);
		acc ^= pkt.icrc_expected;
	}
	return acc;
}

/* One call per packet over IP header .. byte before the ICRC. */
static uint32_t bn_pass_isal(const struct bn_set *s)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < s->n; i++)
		acc ^= crc32_gzip_refl(0, s->buf + s->off[i] + BN_L3_OFF,
				       (uint64_t)s->len[i] - BN_L3_OFF - RL_ICRC_LEN);
	return acc;
}

/*
 * The floor under decode+verify, for IPv4 without options: what library CRC
 * calls alone cost. The ICRC's own start value (8 bytes of ones hashed) is
 * left out: the cost of a call does not depend on it.
 */
#define BN_ICRC_MASKED 48               /* IPv4 + UDP + BTH: where the variant fields are */

/* Chunk i holds the ICRC's masks of bytes 16i .. 16i+15 after the IP header (IBA A17.3.3). */
static uint8_t bn_icrc_mask[BN_ICRC_MASKED];
static _Alignas(64) uint8_t bn_masked[BN_FRAME_MAX];

typedef uint8_t bn_v16 __attribute__((vector_size(16)));

static void bn_icrc_mask_init(void)
{
	for (size_t i = 0; i < BN_ICRC_MASKED; i++)
		bn_icrc_mask[i] = rl_icrc_mask_at(RL_L3_IPV4, 20, i);
}

static void bn_or16(uint8_t *dst, const uint8_t *src, const uint8_t *mask)
{
	bn_v16 a, m;

	memcpy(&a, src, 16);
	memcpy(&m, mask, 16);
	a |= m;
	memcpy(dst, &a, 16);
}

static void bn_copy16(uint8_t *dst, const uint8_t *src)
{
	bn_v16 a;

	memcpy(&a, src, 16);
	memcpy(dst, &a, 16);
}

/* Two calls: the masked headers from a 16-byte-wide copy, then the rest in place. */
static uint32_t bn_pass_split(const struct bn_set *s)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < s->n; i++) {
		const uint8_t *p = s->buf + s->off[i] + BN_L3_OFF;
		size_t len = (size_t)s->len[i] - BN_L3_OFF - RL_ICRC_LEN;

		for (size_t o = 0; o < BN_ICRC_MASKED; o += 16)
			bn_or16(bn_masked + o, p + o, bn_icrc_mask + o);
		acc ^= len <= BN_ICRC_MASKED ? rl_crc32(0, bn_masked, len)
					     : rl_crc32_2(0, bn_masked, BN_ICRC_MASKED, p + BN_ICRC_MASKED,
							  len - BN_ICRC_MASKED);
	}
	return acc;
}

/*
 * One call: the whole covered region copied with 16-byte loads and stores
 * into an aligned buffer, the masks ORed into the first chunks. The last
 * 16 bytes go first, so the aligned chunks after them win where they overlap
 * and nothing is read past the ICRC.
 */
static uint32_t bn_pass_copy1(const struct bn_set *s)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < s->n; i++) {
		const uint8_t *p = s->buf + s->off[i] + BN_L3_OFF;
		size_t len = (size_t)s->len[i] - BN_L3_OFF - RL_ICRC_LEN, o;

		bn_copy16(bn_masked + len - 16, p + len - 16);
		for (o = 0; o < BN_ICRC_MASKED; o += 16)
			bn_or16(bn_masked + o, p + o, bn_icrc_mask + o);
		for (; o + 16 <= len; o += 16)
			bn_copy16(bn_masked + o, p + o);
		acc ^= rl_crc32(0, bn_masked, len);
	}
	return acc;
}

/* rl_crc32: one bare ISA-L call plus core's VZEROUPPER, to show what that costs. */
static uint32_t bn_pass_rl_crc32(const struct bn_set *s)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < s->n; i++)
		acc ^= rl_crc32(0, s->buf + s->off[i] + BN_L3_OFF,
				(size_t)s->len[i] - BN_L3_OFF - RL_ICRC_LEN);
	return acc;
}

static uint32_t bn_pass_zlib(const struct bn_set *s)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < s->n; i++)
		acc ^= (uint32_t)crc32(0, s->buf + s->off[i] + BN_L3_OFF,
				       (uInt)(s->len[i] - BN_L3_OFF - RL_ICRC_LEN));
	return acc;
}

static double bn_time(bn_pass_fn fn, const struct bn_set *s)
{
	double t0 = bn_now();

	bn_sink ^= fn(s);
	return bn_now() - t0;
}

static void bn_print_row(const char *name, const struct bn_set *s, double t)
{
	printf("  %-28s %8.2f Mpps  %7.2f GB/s ICRC bytes  %7.1f ns/packet\n", name,
	       (double)s->n / t * 1e-6, (double)s->icrc_bytes / t * 1e-9, t * 1e9 / (double)s->n);
}

/* Best of BN_REPS for each contender, interleaved so drift hits all alike. */
static void bn_bench_set(size_t n, size_t plen)
{
	enum { DECODE, ISAL, ZLIB, RLCRC, SPLIT, COPY1, NFNS };
	static const bn_pass_fn fns[NFNS] = {
		[DECODE] = bn_pass_decode, [ISAL] = bn_pass_isal, [ZLIB] = bn_pass_zlib,
		[RLCRC] = bn_pass_rl_crc32, [SPLIT] = bn_pass_split, [COPY1] = bn_pass_copy1,
	};
	double best[NFNS];
	struct bn_set s;

	for (int k = 0; k < NFNS; k++)
		best[k] = 1e30;
	bn_set_build(&s, n, plen);
	if (bn_pass_split(&s) != bn_pass_copy1(&s))
		bn_die("the floor's two ways to hash the masked bytes disagree");
	for (int r = 0; r < BN_REPS; r++) {
		for (int k = 0; k < NFNS; k++) {
			double t = bn_time(fns[k], &s);

			best[k] = t < best[k] ? t : best[k];
		}
	}
	printf("%zu-byte payload set: %zu packets, %.1f MB under the ICRC (%.0f B/packet avg)\n",
	       plen, s.n, (double)s.icrc_bytes * 1e-6, (double)s.icrc_bytes / (double)s.n);
	bn_print_row("rl_decode (+ ICRC verify)", &s, best[DECODE]);
	bn_print_row("crc32_gzip_refl (ISA-L)", &s, best[ISAL]);
	bn_print_row("crc32 (zlib)", &s, best[ZLIB]);
	printf("  ratio decode+verify / bare crc32_gzip_refl: %.2fx (target <= 1.5x: %s)\n",
	       best[DECODE] / best[ISAL], best[DECODE] / best[ISAL] <= 1.5 ? "met" : "missed");
	printf("  ratio decode+verify / zlib crc32:           %.2fx\n", best[DECODE] / best[ZLIB]);
	printf("  the floor, against bare crc32_gzip_refl (no parsing in any):\n");
	printf("    rl_crc32 (one call + VZEROUPPER)          %.2fx\n", best[RLCRC] / best[ISAL]);
	printf("    masked headers copied, two calls          %.2fx\n", best[SPLIT] / best[ISAL]);
	printf("    masked 16-byte-wide copy + one call       %.2fx\n\n", best[COPY1] / best[ISAL]);
	bn_set_free(&s);
}

static void bn_bench(size_t n)
{
	printf("rocelab decode benchmark: 1 thread, best of %d passes, rl_crc32 backend: %s\n"
	       "mix per 16 packets: 5 RC SEND Only, 4 RC RDMA WRITE Only, 3 RC READ response Only,\n"
	       "2 UD SEND Only, 2 RC Acknowledge (IPv4, Ethernet)\n\n",
	       BN_REPS, rl_crc32_backend());
	bn_bench_set(n, 64);
	bn_bench_set(n, 1024);
}

/* ---- part 2: a deterministic pcap for the explain benchmark ------------- */

struct bn_gen {
	uint32_t rnd;
	uint32_t psn[8];
	FILE *f;
	size_t left;                    /* packets still to write */
	uint64_t usec;                  /* timestamp */
};

static void bn_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void bn_pcap_header(FILE *f)
{
	uint8_t h[24];

	bn_le32(h, 0xa1b2c3d4);
	bn_le32(h + 4, 2 | 4u << 16);   /* version 2.4 */
	bn_le32(h + 8, 0);              /* thiszone */
	bn_le32(h + 12, 0);             /* sigfigs */
	bn_le32(h + 16, 65535);         /* snaplen */
	bn_le32(h + 20, 1);             /* LINKTYPE_ETHERNET */
	if (fwrite(h, sizeof(h), 1, f) != 1)
		bn_die("pcap write failed");
}

static void bn_pcap_record(struct bn_gen *g, const uint8_t *frame, size_t len)
{
	uint8_t h[16];

	bn_le32(h, (uint32_t)(1700000000 + g->usec / 1000000));
	bn_le32(h + 4, (uint32_t)(g->usec % 1000000));
	bn_le32(h + 8, (uint32_t)len);
	bn_le32(h + 12, (uint32_t)len);
	if (fwrite(h, sizeof(h), 1, g->f) != 1 || fwrite(frame, len, 1, g->f) != 1)
		bn_die("pcap write failed");
}

/* Encode and write one packet, if the file still wants one. */
static void bn_emit(struct bn_gen *g, uint8_t opcode, uint32_t qp, uint32_t psn, size_t plen)
{
	uint8_t frame[BN_FRAME_MAX];
	struct rl_pkt pkt;

	if (!g->left)
		return;
	bn_fill(&pkt, opcode, qp, psn, plen);
	bn_pcap_record(g, frame, bn_encode(&pkt, frame, sizeof(frame)));
	g->left--;
	g->usec += 1 + bn_rand(&g->rnd) % 4;
}

/*
 * One exchange on a random QP: SEND or WRITE (acked every fourth PSN), or a
 * READ request and its response. Payloads are 0..1024 bytes.
 */
static void bn_exchange(struct bn_gen *g)
{
	uint32_t r = bn_rand(&g->rnd), qp = r % 8, psn = g->psn[qp]++;
	size_t plen = bn_rand(&g->rnd) % (BN_PAYLOAD_MAX + 1);

	switch ((r >> 8) % 10) {
	case 0: case 1: case 2: case 3:
		bn_emit(g, RL_OP_RC_SEND_ONLY, qp, psn, plen);
		break;
	case 4: case 5: case 6:
		bn_emit(g, RL_OP_RC_RDMA_WRITE_ONLY, qp, psn, plen);
		break;
	default:
		bn_emit(g, RL_OP_RC_RDMA_READ_REQUEST, qp, psn, plen);
		bn_emit(g, RL_OP_RC_RDMA_READ_RESPONSE_ONLY, qp, psn, plen);
		return;
	}
	if (psn % 4 == 3)
		bn_emit(g, RL_OP_RC_ACKNOWLEDGE, qp, psn, 0);
}

static int bn_write_pcap(const char *path, size_t n)
{
	struct bn_gen g = { .rnd = 0x2545f491, .left = n };

	g.f = fopen(path, "wb");
	if (!g.f) {
		perror(path);
		return 1;
	}
	setvbuf(g.f, NULL, _IOFBF, 1 << 20);
	bn_pcap_header(g.f);
	while (g.left)
		bn_exchange(&g);
	if (fclose(g.f) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}

static size_t bn_count(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || !v)
		bn_die("packet count must be a positive integer");
	return (size_t)v;
}

static int bn_usage(void)
{
	fprintf(stderr, "usage: bench_decode [--packets N]\n"
			"       bench_decode --write-pcap FILE N\n");
	return 2;
}

int main(int argc, char **argv)
{
	bn_payload_init();
	bn_icrc_mask_init();
	if (argc == 4 && !strcmp(argv[1], "--write-pcap"))
		return bn_write_pcap(argv[2], bn_count(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "--packets")) {
		bn_bench(bn_count(argv[2]));
		return 0;
	}
	if (argc != 1)
		return bn_usage();
	bn_bench(BN_PACKETS);
	return 0;
}
