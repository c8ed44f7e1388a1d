/* SPDX-License-Identifier: MIT */
/* The opcode table against IBA 9.2 Table 38, written out independently here. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

/* Spot checks typed from the spec, not from opcode.c. */
static const struct {
	uint8_t op;
	const char *name;
	uint32_t hdrs;
	const char *pos;
} spec[] = {
	{ 0x00, "RC SEND First", 0, "First" },
	{ 0x03, "RC SEND Last with Immediate", RL_HDR_IMMDT, "Last" },
	{ 0x06, "RC RDMA WRITE First", RL_HDR_RETH, "First" },
	{ 0x0b, "RC RDMA WRITE Only with Immediate", RL_HDR_RETH | RL_HDR_IMMDT, "Only" },
	{ 0x0c, "RC RDMA READ Request", RL_HDR_RETH, "" },
	{ 0x0d, "RC RDMA READ response First", RL_HDR_AETH, "First" },
	{ 0x0e, "RC RDMA READ response Middle", 0, "Middle" },
	{ 0x11, "RC Acknowledge", RL_HDR_AETH, "" },
	{ 0x12, "RC ATOMIC Acknowledge", RL_HDR_AETH | RL_HDR_ATOMICACKETH, "" },
	{ 0x13, "RC CmpSwap", RL_HDR_ATOMICETH, "" },
	{ 0x14, "RC FetchAdd", RL_HDR_ATOMICETH, "" },
	{ 0x17, "RC SEND Only with Invalidate", RL_HDR_IETH, "Only" },
	{ 0x24, "UC SEND Only", 0, "Only" },
	{ 0x2b, "UC RDMA WRITE Only with Immediate", RL_HDR_RETH | RL_HDR_IMMDT, "Only" },
	{ 0x4b, "RD RDMA WRITE Only with Immediate", RL_HDR_RDETH | RL_HDR_DETH | RL_HDR_RETH | RL_HDR_IMMDT, "Only" },
	{ 0x51, "RD Acknowledge", RL_HDR_RDETH | RL_HDR_AETH, "" },
	{ 0x55, "RD RESYNC", RL_HDR_RDETH | RL_HDR_DETH, "" },
	{ 0x64, "UD SEND Only", RL_HDR_DETH, "Only" },
	{ 0x65, "UD SEND Only with Immediate", RL_HDR_DETH | RL_HDR_IMMDT, "Only" },
	{ 0x81, "CNP", RL_HDR_CNP, "" },
	{ 0xa6, "XRC RDMA WRITE First", RL_HDR_XRCETH | RL_HDR_RETH, "First" },
	{ 0xb1, "XRC Acknowledge", RL_HDR_AETH, "" },
	{ 0xb7, "XRC SEND Only with Invalidate", RL_HDR_XRCETH | RL_HDR_IETH, "Only" },
};

/* Reserved values (IBA 9.2 Table 38) that must decode as unknown. */
static const uint8_t reserved[] = { 0x15, 0x18, 0x1b, 0x1e, 0x1f, 0x2c, 0x2d, 0x30, 0x56, 0x60,
				    0x63, 0x66, 0x80, 0x82, 0xb5, 0xc0, 0xff };

static void test_spec_rows(void)
{
	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		const struct rl_opcode_info *info = rl_opcode_info(spec[i].op);

		CU_ASSERT_STRING_EQUAL(info->name, spec[i].name);
		CU_ASSERT_EQUAL(info->hdrs, spec[i].hdrs);
		CU_ASSERT_STRING_EQUAL(rl_opcode_position(spec[i].op), spec[i].pos);
		CU_ASSERT_TRUE(info->flags & RL_OPF_VALID);
		CU_ASSERT_EQUAL(rl_opcode_by_name(spec[i].name), spec[i].op);
	}
}

static void test_reserved_rows(void)
{
	for (size_t i = 0; i < sizeof(reserved); i++) {
		const struct rl_opcode_info *info = rl_opcode_info(reserved[i]);

		CU_ASSERT_FALSE(info->flags & RL_OPF_VALID);
		CU_ASSERT_EQUAL(info->hdrs, 0);
	}
}

/*
 * Header lengths after the BTH, typed from the spec's header layouts
 * (IBA 9.3: RETH 16, AETH 4, AtomicAckETH 8, AtomicETH 28, DETH 8, ImmDt 4;
 * FETH 4, Release 1.5; the CNP's 16 reserved bytes, A17.9.3), not summed
 * from the table's own header rows.
 */
static void test_hdr_len_from_spec(void)
{
	static const struct { uint8_t op; unsigned len; } spec[] = {
		{ 0x04, 0 },        /* RC SEND Only */
		{ 0x06, 16 },       /* RC RDMA WRITE First: RETH */
		{ 0x0b, 20 },       /* RC RDMA WRITE Only with Immediate: RETH, ImmDt */
		{ 0x0d, 4 },        /* RC RDMA READ response First: AETH */
		{ 0x0e, 0 },        /* RC RDMA READ response Middle */
		{ 0x11, 4 },        /* RC Acknowledge: AETH */
		{ 0x12, 12 },       /* RC ATOMIC Acknowledge: AETH, AtomicAckETH */
		{ 0x13, 28 },       /* RC CmpSwap: AtomicETH */
		{ 0x17, 4 },        /* RC SEND Only with Invalidate: IETH */
		{ 0x1c, 20 },       /* RC FLUSH: FETH, RETH */
		{ 0x1d, 16 },       /* RC ATOMIC WRITE: RETH */
		{ 0x4b, 32 },       /* RD RDMA WRITE Only with Immediate: RDETH, DETH, RETH, ImmDt */
		{ 0x64, 8 },        /* UD SEND Only: DETH */
		{ 0x65, 12 },       /* UD SEND Only with Immediate: DETH, ImmDt */
		{ 0x81, 16 },       /* CNP */
		{ 0xaa, 20 },       /* XRC RDMA WRITE Only: XRCETH, RETH */
	};

	for (size_t i = 0; i < sizeof(spec) / sizeof(spec[0]); i++)
		CU_ASSERT_EQUAL(rl_opcode_info(spec[i].op)->hdr_len, spec[i].len);
}

/* Every row: name prefix = transport, header rules of IBA 9.4. */
static void test_table_consistency(void)
{
	int valid = 0;

	for (int op = 0; op < 256; op++) {
		const struct rl_opcode_info *info = rl_opcode_info((uint8_t)op);
		const char *tr = rl_transport_name(rl_opcode_transport((uint8_t)op));

		CU_ASSERT_PTR_NOT_NULL_FATAL(info->name);
		if (!(info->flags & RL_OPF_VALID)) {
			CU_ASSERT_EQUAL(info->hdr_len, 0);
			continue;
		}
		valid++;
		CU_ASSERT_EQUAL(strncmp(info->name, tr, strlen(tr)), 0);
		/* A packet is a request or a response, never both (CNP is neither). */
		CU_ASSERT_FALSE((info->flags & RL_OPF_REQ) && (info->flags & RL_OPF_RESP));
		/* Immediate data only on last/only packets (IBA 9.4.1). */
		if (info->hdrs & RL_HDR_IMMDT)
			CU_ASSERT_TRUE(info->flags & RL_OPF_LAST);
		/* RETH on first/only WRITE packets and READ requests only (IBA 9.4.3). */
		if ((info->hdrs & RL_HDR_RETH) && (info->flags & RL_OPF_WRITE))
			CU_ASSERT_TRUE(info->flags & RL_OPF_FIRST);
		/* An atomic request carries an AtomicETH, except ATOMIC WRITE (0x1d, IBA 1.5 A19): RETH + 8 bytes. */
		if ((info->flags & RL_OPF_ATOMIC) && (info->flags & RL_OPF_REQ))
			CU_ASSERT_EQUAL(!!(info->hdrs & RL_HDR_ATOMICETH), !(info->flags & RL_OPF_ATOMIC_WRITE));
		CU_ASSERT_EQUAL(!!(info->flags & RL_OPF_ATOMIC_WRITE), op == 0x1d);
	}
	/* RC 25 (incl. FLUSH, ATOMIC WRITE), UC 12, RD 22, UD 2, CNP 1, XRC 23. */
	CU_ASSERT_EQUAL(valid, 25 + 12 + 22 + 2 + 1 + 23);
}

static void test_hdr_offsets(void)
{
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x4b, RL_HDR_RDETH), 0);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x4b, RL_HDR_DETH), 4);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x4b, RL_HDR_RETH), 12);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x4b, RL_HDR_IMMDT), 28);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x12, RL_HDR_ATOMICACKETH), 4);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x04, RL_HDR_RETH), -1);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x15, RL_HDR_AETH), -1);
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x1c, RL_HDR_RETH), 4);        /* after the FETH */
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0xaa, RL_HDR_RETH), 4);        /* after the XRCETH */
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x4b, RL_HDR_RDETH | RL_HDR_DETH), -1);   /* one header at a time */
	CU_ASSERT_EQUAL(rl_opcode_hdr_offset(0x4b, (enum rl_hdr)0), -1);
}

static void test_aeth_tables(void)
{
	CU_ASSERT_EQUAL(rl_syndrome_type(0x00), RL_AETH_ACK);
	CU_ASSERT_EQUAL(rl_syndrome_type(0x3f), RL_AETH_RNR_NAK);
	CU_ASSERT_EQUAL(rl_syndrome_type(0x60), RL_AETH_NAK);
	CU_ASSERT_EQUAL(rl_syndrome_value(0x62), RL_NAK_REM_ACCESS_ERR);
	CU_ASSERT_EQUAL(rl_syndrome_make(RL_AETH_NAK, RL_NAK_PSN_SEQ_ERR), 0x60);
	CU_ASSERT_EQUAL(rl_syndrome_make(RL_AETH_ACK, RL_AETH_CREDITS_INVALID), 0x1f);
	/* IBA Table 46: 0 is the longest delay, 655.36 ms; 1 is 0.01 ms; 31 is 491.52 ms. */
	CU_ASSERT_EQUAL(rl_rnr_timer_us(0), 655360);
	CU_ASSERT_EQUAL(rl_rnr_timer_us(1), 10);
	CU_ASSERT_EQUAL(rl_rnr_timer_us(14), 1280);
	CU_ASSERT_EQUAL(rl_rnr_timer_us(31), 491520);
	/* IBA Table 45: credits grow by sqrt(2)-ish steps; 31 means "invalid". */
	CU_ASSERT_EQUAL(rl_credit_count(5), 6);
	CU_ASSERT_EQUAL(rl_credit_count(30), 32768);
	CU_ASSERT_EQUAL(rl_credit_count(31), -1);
	/* The code for n WQEs is the largest whose count is at most n; from 32768 on, 30. */
	for (uint32_t n = 0, code = 0; n < 70000; n++) {
		while (code < 30 && (uint32_t)rl_credit_count((uint8_t)(code + 1)) <= n)
			code++;
		CU_ASSERT_EQUAL_FATAL(rl_credit_code(n), code);
	}
	CU_ASSERT_STRING_EQUAL(rl_nak_code_name(RL_NAK_PSN_SEQ_ERR), "PSN sequence error");
}

/* IBA 9.7.2 and 9.7.5.1.1: the PSN space is 2^24 and wraps; half behind ePSN is "duplicate". */
static void test_psn_space(void)
{
	CU_ASSERT_EQUAL(rl_psn_diff(5, 3), 2);
	CU_ASSERT_EQUAL(rl_psn_diff(3, 5), -2);
	CU_ASSERT_EQUAL(rl_psn_diff(0, 0xffffff), 1);
	CU_ASSERT_EQUAL(rl_psn_diff(0xffffff, 0), -1);
	CU_ASSERT_EQUAL(rl_psn_diff(0x7fffff, 0), 0x7fffff);
	CU_ASSERT_EQUAL(rl_psn_diff(0x800000, 0), -0x800000);
	CU_ASSERT_EQUAL(rl_psn_add(0xfffffe, 3), 1);
	CU_ASSERT_EQUAL(rl_psn_check(100, 100), RL_PSN_IN_ORDER);
	CU_ASSERT_EQUAL(rl_psn_check(100, 99), RL_PSN_DUPLICATE);
	CU_ASSERT_EQUAL(rl_psn_check(100, 101), RL_PSN_OUT_OF_ORDER);
	CU_ASSERT_EQUAL(rl_psn_check(0, 0xffffff), RL_PSN_DUPLICATE);
	CU_ASSERT_EQUAL(rl_psn_check(0xffffff, 0), RL_PSN_OUT_OF_ORDER);
	CU_ASSERT_EQUAL(rl_psn_check(0x800000, 0), RL_PSN_DUPLICATE);   /* exactly 2^23 behind */
	CU_ASSERT_EQUAL(rl_psn_check(0x800001, 0), RL_PSN_OUT_OF_ORDER); /* 2^23 - 1 ahead */
	/* The libibverbs numbers a learner sees in ibv_wc_status_str(): 9, 10, 11. */
	CU_ASSERT_EQUAL(rl_nak_wc_status(RL_NAK_INVALID_REQ), 9);
	CU_ASSERT_EQUAL(rl_nak_wc_status(RL_NAK_REM_ACCESS_ERR), 10);
	CU_ASSERT_EQUAL(rl_nak_wc_status(RL_NAK_REM_OP_ERR), 11);
}

/*
 * Named opcodes against IBA 9.2 Table 38: the numbers and names are typed
 * from the spec (and from IBA 1.5 for FLUSH and ATOMIC WRITE, A17.9.3 for
 * the CNP), not taken from opcode.h.
 */
static void test_named_from_spec(void)
{
	static const struct { int constant; uint8_t spec; const char *name; } named[] = {
		{ RL_OP_RC_SEND_FIRST, 0x00, "RC SEND First" },
		{ RL_OP_RC_SEND_ONLY, 0x04, "RC SEND Only" },
		{ RL_OP_RC_SEND_ONLY_WITH_IMMEDIATE, 0x05, "RC SEND Only with Immediate" },
		{ RL_OP_RC_RDMA_WRITE_FIRST, 0x06, "RC RDMA WRITE First" },
		{ RL_OP_RC_RDMA_WRITE_ONLY, 0x0a, "RC RDMA WRITE Only" },
		{ RL_OP_RC_RDMA_READ_REQUEST, 0x0c, "RC RDMA READ Request" },
		{ RL_OP_RC_RDMA_READ_RESPONSE_LAST, 0x0f, "RC RDMA READ response Last" },
		{ RL_OP_RC_ACKNOWLEDGE, 0x11, "RC Acknowledge" },
		{ RL_OP_RC_ATOMIC_ACKNOWLEDGE, 0x12, "RC ATOMIC Acknowledge" },
		{ RL_OP_RC_COMPARE_SWAP, 0x13, "RC CmpSwap" },
		{ RL_OP_RC_FETCH_ADD, 0x14, "RC FetchAdd" },
		{ RL_OP_RC_SEND_LAST_WITH_INVALIDATE, 0x16, "RC SEND Last with Invalidate" },
		{ RL_OP_RC_FLUSH, 0x1c, "RC FLUSH" },
		{ RL_OP_RC_ATOMIC_WRITE, 0x1d, "RC ATOMIC WRITE" },
		{ RL_OP_UC_SEND_MIDDLE, 0x21, "UC SEND Middle" },
		{ RL_OP_UC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x29, "UC RDMA WRITE Last with Immediate" },
		{ RL_OP_RD_SEND_FIRST, 0x40, "RD SEND First" },
		{ RL_OP_RD_ACKNOWLEDGE, 0x51, "RD Acknowledge" },
		{ RL_OP_RD_RESYNC, 0x55, "RD RESYNC" },
		{ RL_OP_UD_SEND_ONLY, 0x64, "UD SEND Only" },
		{ RL_OP_UD_SEND_ONLY_WITH_IMMEDIATE, 0x65, "UD SEND Only with Immediate" },
		{ RL_OP_CNP, 0x81, "CNP" },
		{ RL_OP_XRC_SEND_FIRST, 0xa0, "XRC SEND First" },
		{ RL_OP_XRC_ATOMIC_ACKNOWLEDGE, 0xb2, "XRC ATOMIC Acknowledge" },
		{ RL_OP_XRC_SEND_ONLY_WITH_INVALIDATE, 0xb7, "XRC SEND Only with Invalidate" },
	};

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		CU_ASSERT_EQUAL(named[i].constant, named[i].spec);
		CU_ASSERT_STRING_EQUAL(rl_opcode_info((uint8_t)named[i].constant)->name, named[i].name);
	}
}

/*
 * Every constant spells its row's spec name: "RC RDMA READ response First"
 * is RL_OP_RC_RDMA_READ_RESPONSE_FIRST, with rxe's words for the two
 * atomics (CmpSwap COMPARE_SWAP, FetchAdd FETCH_ADD).
 */
static void tl_spell(const char *name, char *out, size_t n)
{
	static const struct { const char *from, *to; } words[] = {
		{ "CmpSwap", "COMPARE_SWAP" }, { "FetchAdd", "FETCH_ADD" },
	};
	size_t o = 0;

	o += (size_t)snprintf(out, n, "RL_OP_");
	while (*name && o + 16 < n) {
		size_t w = 0;

		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!strncmp(name, words[i].from, strlen(words[i].from))) {
				o += (size_t)snprintf(out + o, n - o, "%s", words[i].to);
				w = strlen(words[i].from);
			}
		if (w) {
			name += w;
			continue;
		}
		out[o++] = *name == ' ' ? '_' : (char)toupper((unsigned char)*name);
		name++;
	}
	out[o] = '\0';
}

static void test_named_spell_rows(void)
{
#define TL_OP_ROW(code, id, nm, fl, hd, fixed) { RL_OP_##id, "RL_OP_" #id },
	static const struct { int op; const char *constant; } rows[] = { RL_OPCODE_ROWS(TL_OP_ROW) };
#undef TL_OP_ROW
	int valid = 0;
	char want[96];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct rl_opcode_info *info = rl_opcode_info((uint8_t)rows[i].op);

		CU_ASSERT_TRUE(info->flags & RL_OPF_VALID);
		tl_spell(info->name, want, sizeof(want));
		CU_ASSERT_STRING_EQUAL(rows[i].constant, want);
	}
	/* One constant per valid opcode: the rows are the whole table. */
	for (int op = 0; op < 256; op++)
		valid += !!(rl_opcode_info((uint8_t)op)->flags & RL_OPF_VALID);
	CU_ASSERT_EQUAL(sizeof(rows) / sizeof(rows[0]), (size_t)valid);
}

int tl_suite_opcode(void)
{
	CU_pSuite s = CU_add_suite("opcode", NULL, NULL);

	return !s || !CU_add_test(s, "rows typed from IBA Table 38", test_spec_rows) ||
	       !CU_add_test(s, "reserved opcodes are unknown", test_reserved_rows) ||
	       !CU_add_test(s, "table is self-consistent", test_table_consistency) ||
	       !CU_add_test(s, "header lengths typed from the spec", test_hdr_len_from_spec) ||
	       !CU_add_test(s, "extended header offsets", test_hdr_offsets) ||
	       !CU_add_test(s, "AETH syndrome, RNR timer, credits", test_aeth_tables) ||
	       !CU_add_test(s, "PSN distance, the responder's check, NAK statuses", test_psn_space) ||
	       !CU_add_test(s, "named opcodes have the spec's numbers", test_named_from_spec) ||
	       !CU_add_test(s, "each named opcode spells its row", test_named_spell_rows);
}
