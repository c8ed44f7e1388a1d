/* SPDX-License-Identifier: MIT */
/*
 * The field table (rocelab/field.h): its rows against the header layouts of
 * IBA 9.2/9.3 and 1.5, the iterator, and FLUSH and ATOMIC WRITE end to end.
 * The byte strings are typed from the spec's layouts, not from field_rows.h.
 */
#include <string.h>

#include "testlib.h"

/* Every row fits its header, no two fields of a header share a bit, and names are unique. */
static void test_rows_fit_their_headers(void)
{
	size_t n;
	const struct rl_field *tab = rl_field_table(&n);

	CU_ASSERT_TRUE(n > 30);
	for (size_t i = 0; i < n; i++) {
		const struct rl_field *f = &tab[i];
		const struct rl_field_hdr *h = rl_field_hdr(f->hdr);

		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		CU_ASSERT_TRUE(f->off + f->bytes <= h->len);
		CU_ASSERT_TRUE(f->bits >= 1 && f->shift + f->bits <= 8u * f->bytes);
		CU_ASSERT_TRUE(8u * f->member_size >= f->bits);
		CU_ASSERT_TRUE(f->name && *f->name && f->key && *f->key && f->filter && f->meaning && *f->meaning);
		/* Rows are grouped by header, in wire order. */
		if (i)
			CU_ASSERT_TRUE(tab[i - 1].hdr == f->hdr || tab[i - 1].hdr < f->hdr);
		for (size_t j = 0; j < i; j++) {
			const struct rl_field *g = &tab[j];

			if (g->hdr != f->hdr)
				continue;
			CU_ASSERT_STRING_NOT_EQUAL(g->key, f->key);
			CU_ASSERT_STRING_NOT_EQUAL(g->filter, f->filter);
			/* Bits as offsets from the header's first bit, MSB first. */
			unsigned fa = 8u * (f->off + f->bytes) - f->shift - f->bits, fb = fa + f->bits;
			unsigned ga = 8u * (g->off + g->bytes) - g->shift - g->bits, gb = ga + g->bits;
			CU_ASSERT_TRUE(fb <= ga || gb <= fa);
		}
	}
}

/*
 * The headers, in wire order, with the names and lengths the spec gives
 * them: IBA 9.2 (BTH), 9.3.1-9.3.8, A14.6.3.1 (XRCETH), Release 1.5 (FETH)
 * and A17.9.3 (the CNP's 16 reserved bytes).
 */
static const struct { uint32_t hdr; const char *name; unsigned len; } spec_hdrs[] = {
	{ RL_FIELD_BTH, "BTH", 12 },         { RL_HDR_RDETH, "RDETH", 4 },
	{ RL_HDR_DETH, "DETH", 8 },          { RL_HDR_XRCETH, "XRCETH", 4 },
	{ RL_HDR_FETH, "FETH", 4 },          { RL_HDR_RETH, "RETH", 16 },
	{ RL_HDR_ATOMICETH, "AtomicETH", 28 }, { RL_HDR_AETH, "AETH", 4 },
	{ RL_HDR_ATOMICACKETH, "AtomicAckETH", 8 }, { RL_HDR_IMMDT, "ImmDt", 4 },
	{ RL_HDR_IETH, "IETH", 4 },          { RL_HDR_CNP, "CNP", 16 },
};
#define SPEC_HDRS (sizeof(spec_hdrs) / sizeof(spec_hdrs[0]))

/*
 * Every field, typed from the spec's header layouts (BTH IBA 9.2 Figure 99
 * with RoCEv2's FECN/BECN of A17.4.2; RDETH, DETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH IBA 9.3; XRCETH A14.6.3.1; FETH Release 1.5:
 * reserved bits 31-6, SEL 5-4, PLT 3-0), as tests/plugin/check.py's SPEC
 * has them too: first byte from the start of its header, bytes spanned,
 * bits to its right within those bytes, width. Keyed by the row's JSON key.
 */
static const struct spec_field {
	uint32_t hdr;
	const char *key;
	uint8_t off, bytes, shift, bits;
} spec_fields[] = {
	{ RL_FIELD_BTH, "opcode", 0, 1, 0, 8 },   { RL_FIELD_BTH, "se", 1, 1, 7, 1 },
	{ RL_FIELD_BTH, "migreq", 1, 1, 6, 1 },   { RL_FIELD_BTH, "padcnt", 1, 1, 4, 2 },
	{ RL_FIELD_BTH, "tver", 1, 1, 0, 4 },     { RL_FIELD_BTH, "pkey", 2, 2, 0, 16 },
	{ RL_FIELD_BTH, "fecn", 4, 1, 7, 1 },     { RL_FIELD_BTH, "becn", 4, 1, 6, 1 },
	{ RL_FIELD_BTH, "resv6", 4, 1, 0, 6 },    { RL_FIELD_BTH, "dqpn", 5, 3, 0, 24 },
	{ RL_FIELD_BTH, "ackreq", 8, 1, 7, 1 },   { RL_FIELD_BTH, "resv7", 8, 1, 0, 7 },
	{ RL_FIELD_BTH, "psn", 9, 3, 0, 24 },
	{ RL_HDR_RDETH, "eecnxt", 1, 3, 0, 24 },
	{ RL_HDR_DETH, "qkey", 0, 4, 0, 32 },     { RL_HDR_DETH, "src_qp", 5, 3, 0, 24 },
	{ RL_HDR_XRCETH, "srq", 1, 3, 0, 24 },
	{ RL_HDR_FETH, "sel", 3, 1, 4, 2 },       { RL_HDR_FETH, "plt", 3, 1, 0, 4 },
	{ RL_HDR_RETH, "va", 0, 8, 0, 64 },       { RL_HDR_RETH, "rkey", 8, 4, 0, 32 },
	{ RL_HDR_RETH, "dma_len", 12, 4, 0, 32 },
	{ RL_HDR_ATOMICETH, "va", 0, 8, 0, 64 },  { RL_HDR_ATOMICETH, "rkey", 8, 4, 0, 32 },
	{ RL_HDR_ATOMICETH, "swap_add", 12, 8, 0, 64 }, { RL_HDR_ATOMICETH, "compare", 20, 8, 0, 64 },
	{ RL_HDR_AETH, "syndrome", 0, 1, 0, 8 },  { RL_HDR_AETH, "msn", 1, 3, 0, 24 },
	{ RL_HDR_ATOMICACKETH, "orig", 0, 8, 0, 64 },
	{ RL_HDR_IMMDT, "immdt", 0, 4, 0, 32 },
	{ RL_HDR_IETH, "rkey", 0, 4, 0, 32 },
};
#define SPEC_FIELDS (sizeof(spec_fields) / sizeof(spec_fields[0]))

static const struct spec_field *spec_field(uint32_t hdr, const char *key)
{
	for (size_t i = 0; i < SPEC_FIELDS; i++)
		if (spec_fields[i].hdr == hdr && !strcmp(spec_fields[i].key, key))
			return &spec_fields[i];
	return NULL;
}

/* Where header @hdr starts in a packet with extended headers @hdrs, from the spec's lengths. */
static size_t spec_hdr_start(uint32_t hdrs, uint32_t hdr)
{
	size_t off = 0;

	if (hdr == RL_FIELD_BTH)
		return 0;
	for (size_t i = 0; i < SPEC_HDRS && spec_hdrs[i].hdr != hdr; i++)
		if (spec_hdrs[i].hdr == RL_FIELD_BTH || (hdrs & spec_hdrs[i].hdr))
			off += spec_hdrs[i].len;
	return off;
}

/* One header row per enum rl_hdr bit, in wire order, with the spec's name and length. */
static void test_header_rows(void)
{
	CU_ASSERT_EQUAL(SPEC_HDRS, RL_HDR_COUNT + 1);
	for (size_t i = 0; i < SPEC_HDRS; i++) {
		const struct rl_field_hdr *h = rl_field_hdr(spec_hdrs[i].hdr);

		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		CU_ASSERT_EQUAL(h->hdr, spec_hdrs[i].hdr);
		CU_ASSERT_STRING_EQUAL(h->name, spec_hdrs[i].name);
		CU_ASSERT_EQUAL(h->len, spec_hdrs[i].len);
		CU_ASSERT_PTR_EQUAL(h, rl_field_hdr(RL_FIELD_BTH) + i);   /* wire order, BTH first */
	}
	CU_ASSERT_PTR_NULL(rl_field_hdr(1u << RL_HDR_COUNT));
}

/* Every row of the table has the layout typed above, and every typed field has its row. */
static void test_layout_from_spec(void)
{
	size_t n;
	const struct rl_field *tab = rl_field_table(&n);

	CU_ASSERT_EQUAL(n, SPEC_FIELDS);
	for (size_t i = 0; i < n; i++) {
		const struct spec_field *sf = spec_field(tab[i].hdr, tab[i].key);

		CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
		CU_ASSERT_EQUAL(tab[i].off, sf->off);
		CU_ASSERT_EQUAL(tab[i].bytes, sf->bytes);
		CU_ASSERT_EQUAL(tab[i].shift, sf->shift);
		CU_ASSERT_EQUAL(tab[i].bits, sf->bits);
	}
}

/* An RC FLUSH frame, as IBA 1.5 lays it out, with its headers' bytes typed here. */
static const char flush_transport[] =
	"1c 00 ff ff 00 00 00 11 80 00 00 64"                          /* BTH: FLUSH, QP 0x11, AckReq, PSN 100 */
	"00 00 00 12"                                                  /* FETH: SEL 1 (MR), PLT 2 (persistence) */
	"00 00 7f 00 12 34 56 78 ab cd 00 01 00 00 10 00";             /* RETH: va, rkey, len 4096 */

/* An RC ATOMIC WRITE: RETH, then the 8 bytes written. */
static const char awrite_transport[] =
	"1d 00 ff ff 00 00 00 12 80 00 01 00"                          /* BTH: ATOMIC WRITE, QP 0x12, PSN 256 */
	"00 00 00 00 00 00 10 00 00 00 00 2a 00 00 00 08"              /* RETH: va 0x1000, rkey 0x2a, len 8 */
	"01 02 03 04 05 06 07 08";                                     /* the payload */

static size_t encode(struct rl_pkt *p, uint8_t *f, size_t cap)
{
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(rl_encode(p, f, cap, &n), RL_OK);
	return n;
}

static void test_flush_end_to_end(void)
{
	uint8_t want[64], f[256];
	size_t wn = tl_hex(flush_transport, want, sizeof(want)), n;
	struct rl_pkt p, d;
	char line[256];

	rl_pkt_init(&p, RL_OP_RC_FLUSH);
	p.bth.dqpn = 0x11;
	p.bth.ackreq = true;
	p.bth.psn = 100;
	p.feth.sel = 1;
	p.feth.plt = 2;
	p.reth.va = 0x7f0012345678ull;
	p.reth.rkey = 0xabcd0001;
	p.reth.dma_len = 4096;
	n = encode(&p, f, sizeof(f));
	/* Ethernet 14 + IPv4 20 + UDP 8, then the transport headers, then the ICRC. */
	CU_ASSERT_EQUAL_FATAL(n, 42 + wn + 4);
	CU_ASSERT_EQUAL(memcmp(f + 42, want, wn), 0);

	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_OK);
	CU_ASSERT_EQUAL(d.hdrs, RL_HDR_FETH | RL_HDR_RETH);
	CU_ASSERT_EQUAL(d.feth.sel, 1);
	CU_ASSERT_EQUAL(d.feth.plt, 2);
	CU_ASSERT_EQUAL(d.reth.va, 0x7f0012345678ull);
	CU_ASSERT_EQUAL(d.reth.rkey, 0xabcd0001);
	CU_ASSERT_EQUAL(d.reth.dma_len, 4096);
	CU_ASSERT_EQUAL(d.payload_len, 0);

	rl_describe_pkt(&d, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "RC FLUSH QP=0x000011 PSN=100 AckReq sel=1 plt=2 va=0x7f0012345678 "
				     "rkey=0xabcd0001 len=4096");
	/* A FLUSH carries no payload (IBA 1.5): one byte more is malformed. */
	CU_ASSERT_FALSE(rl_opcode_payload_ok(RL_OP_RC_FLUSH, 1));
}

static void test_atomic_write_end_to_end(void)
{
	static const uint8_t data[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t want[64], f[256];
	size_t wn = tl_hex(awrite_transport, want, sizeof(want)), n;
	struct rl_pkt p, d;
	char line[256];

	rl_pkt_init(&p, RL_OP_RC_ATOMIC_WRITE);
	p.bth.dqpn = 0x12;
	p.bth.ackreq = true;
	p.bth.psn = 256;
	p.reth.va = 0x1000;
	p.reth.rkey = 0x2a;
	p.reth.dma_len = 8;
	p.payload = data;
	p.payload_len = sizeof(data);
	n = encode(&p, f, sizeof(f));
	CU_ASSERT_EQUAL_FATAL(n, 42 + wn + 4);
	CU_ASSERT_EQUAL(memcmp(f + 42, want, wn), 0);

	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &d), RL_OK);
	CU_ASSERT_EQUAL(d.hdrs, RL_HDR_RETH);
	CU_ASSERT_EQUAL(d.reth.va, 0x1000);
	CU_ASSERT_EQUAL(d.payload_len, 8);
	CU_ASSERT_EQUAL(memcmp(d.payload, data, 8), 0);
	rl_describe_pkt(&d, line, sizeof(line));
	CU_ASSERT_STRING_EQUAL(line, "RC ATOMIC WRITE QP=0x000012 PSN=256 AckReq va=0x1000 rkey=0x2a len=8 payload=8");
	/* Exactly 8 bytes (IBA 1.5): the encoder refuses 4. */
	p.payload_len = 4;
	CU_ASSERT_EQUAL(rl_encode(&p, f, sizeof(f), &n), RL_E_PAYLOAD_LEN);
}

/* The iterator walks a FLUSH's fields in wire order, at their offsets from the BTH. */
static void test_iterator_flush(void)
{
	static const struct { const char *key; size_t off; uint64_t v; } want[] = {
		{ "sel", 12 + 3, 1 }, { "plt", 12 + 3, 2 },
		{ "va", 16, 0x7f0012345678ull }, { "rkey", 24, 0xabcd0001 }, { "dma_len", 28, 4096 },
	};
	const struct rl_field *f;
	struct rl_field_iter it;
	struct rl_pkt p;
	size_t i = 0, bth = 0;

	rl_pkt_init(&p, RL_OP_RC_FLUSH);
	p.feth.sel = 1;
	p.feth.plt = 2;
	p.reth.va = 0x7f0012345678ull;
	p.reth.rkey = 0xabcd0001;
	p.reth.dma_len = 4096;
	rl_field_iter_init(&it, &p);
	while ((f = rl_field_next(&it))) {
		if (f->hdr == RL_FIELD_BTH) {
			CU_ASSERT_TRUE(it.off < RL_BTH_LEN);
			bth++;
			continue;
		}
		CU_ASSERT_FATAL(i < sizeof(want) / sizeof(want[0]));
		CU_ASSERT_STRING_EQUAL(f->key, want[i].key);
		CU_ASSERT_EQUAL(it.off, want[i].off);
		CU_ASSERT_EQUAL(it.value, want[i].v);
		i++;
	}
	CU_ASSERT_EQUAL(i, sizeof(want) / sizeof(want[0]));
	CU_ASSERT_EQUAL(bth, 13);   /* every BTH field, reserved ones too */

	/* Header by header: BTH, FETH, RETH; a CNP's header has no fields but is there. */
	{
		const struct rl_field_hdr *h;
		const char *names[4] = { 0 };
		size_t k = 0;

		rl_field_iter_init(&it, &p);
		while ((h = rl_field_next_hdr(&it)) && k < 4)
			names[k++] = h->name;
		CU_ASSERT_EQUAL(k, 3);
		CU_ASSERT_STRING_EQUAL(names[1], "FETH");
		CU_ASSERT_STRING_EQUAL(names[2], "RETH");
		rl_pkt_init(&p, RL_OP_CNP);
		rl_field_iter_init(&it, &p);
		CU_ASSERT_STRING_EQUAL(rl_field_next_hdr(&it)->name, "BTH");
		h = rl_field_next_hdr(&it);
		CU_ASSERT_PTR_NOT_NULL_FATAL(h);
		CU_ASSERT_STRING_EQUAL(h->name, "CNP");
		CU_ASSERT_PTR_NULL(rl_field_next(&it));
		CU_ASSERT_PTR_NULL(rl_field_next_hdr(&it));
	}
}

/*
 * For every opcode, random field values: the iterator puts each field where
 * the spec's layouts put it (offset from the BTH, from spec_hdrs and
 * spec_fields, not from the table), and the value it reports is the one the
 * frame's bytes hold there, read here bit by bit.
 */
static void test_iterator_matches_bytes(void)
{
	struct tl_rng r = { 0x5eed };
	uint8_t payload[512], f[2048];

	for (int op = 0; op < 256; op++) {
		const struct rl_field *fl;
		struct rl_field_iter it;
		struct rl_pkt p, d;
		size_t n = 0;

		if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
			continue;
		tl_random_pkt(&r, (uint8_t)op, TL_ETH_V4, &p, payload);
		CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
		CU_ASSERT_FATAL(!rl_status_fatal(rl_decode(RL_LINK_ETHERNET, f, n, &d)));
		rl_field_iter_init(&it, &d);
		while ((fl = rl_field_next(&it))) {
			const struct spec_field *sf = spec_field(fl->hdr, fl->key);
			size_t at;
			const uint8_t *b;
			unsigned first;
			uint64_t v = 0;

			CU_ASSERT_PTR_NOT_NULL_FATAL(sf);
			at = spec_hdr_start(d.hdrs, fl->hdr) + sf->off;
			CU_ASSERT_EQUAL(it.off, at);
			b = f + d.bth_off + at;
			first = 8u * sf->bytes - sf->shift - sf->bits;   /* MSB-first bit index */
			for (unsigned k = first; k < first + sf->bits; k++)
				v = v << 1 | ((b[k / 8] >> (7 - k % 8)) & 1);
			CU_ASSERT_EQUAL(it.value, v);
			if (strcmp(fl->key, "padcnt"))   /* the encoder sets PadCnt from the payload itself */
				CU_ASSERT_EQUAL(rl_field_value(fl, &p), v);
		}
	}
}

/*
 * hdr.h's few accessors (for code that edits bytes in place: rewrite.c,
 * crafted damage, graders) read what the table decodes, for every opcode.
 */
static void test_accessors_agree(void)
{
	struct tl_rng r = { 0xacce55 };
	uint8_t payload[512], f[2048];

	for (int op = 0; op < 256; op++) {
		struct rl_pkt p, d;
		const uint8_t *b;
		size_t n = 0;
		int o;

		if (!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID))
			continue;
		tl_random_pkt(&r, (uint8_t)op, TL_ETH_V6, &p, payload);
		CU_ASSERT_EQUAL_FATAL(rl_encode(&p, f, sizeof(f), &n), RL_OK);
		CU_ASSERT_FATAL(!rl_status_fatal(rl_decode(RL_LINK_ETHERNET, f, n, &d)));
		b = f + d.bth_off;
		CU_ASSERT_EQUAL(rl_bth_opcode(b), d.bth.opcode);
		CU_ASSERT_EQUAL(rl_bth_se(b), d.bth.se);
		CU_ASSERT_EQUAL(rl_bth_migreq(b), d.bth.migreq);
		CU_ASSERT_EQUAL(rl_bth_padcnt(b), d.bth.padcnt);
		CU_ASSERT_EQUAL(rl_bth_tver(b), d.bth.tver);
		CU_ASSERT_EQUAL(rl_bth_pkey(b), d.bth.pkey);
		CU_ASSERT_EQUAL(rl_bth_fecn(b), d.bth.fecn);
		CU_ASSERT_EQUAL(rl_bth_becn(b), d.bth.becn);
		CU_ASSERT_EQUAL(rl_bth_dqpn(b), d.bth.dqpn);
		CU_ASSERT_EQUAL(rl_bth_ackreq(b), d.bth.ackreq);
		CU_ASSERT_EQUAL(rl_bth_psn(b), d.bth.psn);
		if ((o = rl_field_hdr_offset(&d, RL_HDR_DETH)) >= 0)
			CU_ASSERT_EQUAL(rl_deth_srcqp(b + o), d.deth.src_qp);
	}
}

int tl_suite_field(void)
{
	CU_pSuite s = CU_add_suite("field", NULL, NULL);

	return !s || !CU_add_test(s, "rows fit their headers, no bit shared", test_rows_fit_their_headers) ||
	       !CU_add_test(s, "header rows: names and lengths typed from the spec", test_header_rows) ||
	       !CU_add_test(s, "bit positions typed from the spec", test_layout_from_spec) ||
	       !CU_add_test(s, "FLUSH: encode, decode, describe", test_flush_end_to_end) ||
	       !CU_add_test(s, "ATOMIC WRITE: encode, decode, describe", test_atomic_write_end_to_end) ||
	       !CU_add_test(s, "iterator: a FLUSH's fields and headers", test_iterator_flush) ||
	       !CU_add_test(s, "iterator values are the frame's bits", test_iterator_matches_bytes) ||
	       !CU_add_test(s, "hdr.h accessors read what the table decodes", test_accessors_agree);
}
