/* SPDX-License-Identifier: MIT */
/*
 * Grades lab 01's coding exercise: the learner's lab_parse_bth() against the
 * core's BTH accessors (core/include/rocelab/hdr.h) on random headers, every
 * bit random, reserved bits included. A field scores when it is right on
 * every header; the first header it is wrong on is named, in words.
 * Prints "score 01 bth GOT/MAX" last.
 */
#include <stdio.h>
#include <string.h>

#include "bth.h"
#include "rocelab/hdr.h"

#define CASES 20000

struct field {
	const char *name, *where;
	uint32_t (*spec)(const uint8_t *b);
	uint32_t (*yours)(const struct lab_bth *x);
	int failed;
};

#define SPEC(fn, expr) static uint32_t fn(const uint8_t *b) { return (uint32_t)(expr); }
#define YOURS(fn, m) static uint32_t fn(const struct lab_bth *x) { return (uint32_t)x->m; }
SPEC(s_op, rl_bth_opcode(b)) SPEC(s_se, rl_bth_se(b)) SPEC(s_m, rl_bth_migreq(b)) SPEC(s_pad, rl_bth_padcnt(b))
SPEC(s_tv, rl_bth_tver(b)) SPEC(s_pk, rl_bth_pkey(b)) SPEC(s_f, rl_bth_fecn(b)) SPEC(s_b, rl_bth_becn(b))
SPEC(s_q, rl_bth_dqpn(b)) SPEC(s_a, rl_bth_ackreq(b)) SPEC(s_psn, rl_bth_psn(b))
YOURS(y_op, opcode) YOURS(y_se, se) YOURS(y_m, migreq) YOURS(y_pad, padcnt) YOURS(y_tv, tver) YOURS(y_pk, pkey)
YOURS(y_f, fecn) YOURS(y_b, becn) YOURS(y_q, dqpn) YOURS(y_a, ackreq) YOURS(y_psn, psn)

static struct field fields[] = {
	{ "OpCode", "byte 0", s_op, y_op, 0 },
	{ "SE", "byte 1, the top bit", s_se, y_se, 0 },
	{ "MigReq", "byte 1, bit 6", s_m, y_m, 0 },
	{ "PadCnt", "byte 1, bits 5-4", s_pad, y_pad, 0 },
	{ "TVer", "byte 1, the low 4 bits", s_tv, y_tv, 0 },
	{ "P_Key", "bytes 2-3, big-endian", s_pk, y_pk, 0 },
	{ "FECN", "byte 4, the top bit", s_f, y_f, 0 },
	{ "BECN", "byte 4, bit 6", s_b, y_b, 0 },
	{ "DestQP", "bytes 5-7, 24 bits big-endian (byte 4's low 6 bits are reserved)", s_q, y_q, 0 },
	{ "AckReq", "byte 8, the top bit (the other 7 are reserved)", s_a, y_a, 0 },
	{ "PSN", "bytes 9-11, 24 bits big-endian", s_psn, y_psn, 0 },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint8_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 32);
}

static void hex(const uint8_t *b, char *s)
{
	for (int i = 0; i < 12; i++)
		sprintf(s + 3 * i, "%02x%s", b[i], i < 11 ? " " : "");
}

int main(void)
{
	uint8_t b[16];
	struct lab_bth x;
	char h[40];
	unsigned got = 0, refused = 0;

	for (int c = 0; c < CASES; c++) {
		for (int i = 0; i < 16; i++)
			b[i] = rnd();
		memset(&x, 0xa5, sizeof(x));
		if (lab_parse_bth(b, 12 + (size_t)(c % 5), &x)) {
			if (!refused++) {
				hex(b, h);
				printf("FAIL a full BTH was refused: %s (12 bytes or more are a whole BTH)\n", h);
			}
			continue;
		}
		for (size_t f = 0; f < NFIELDS; f++) {
			uint32_t want = fields[f].spec(b), have = fields[f].yours(&x);

			if (want != have && !fields[f].failed++) {
				hex(b, h);
				printf("FAIL %s of the BTH %s: you read 0x%x, it is 0x%x (%s)\n", fields[f].name, h, have, want,
				       fields[f].where);
			}
		}
	}
	for (size_t f = 0; f < NFIELDS; f++)
		if (!fields[f].failed && !refused) {
			printf("PASS %s right on all %d headers\n", fields[f].name, CASES);
			got++;
		}
	/* The short-input point needs whole BTHs accepted too: refusing everything is not a parser. */
	for (size_t n = 0; n < 12; n++)
		if (!lab_parse_bth(b, n, &x)) {
			printf("FAIL a %zu-byte buffer was taken for a BTH (it has 12 bytes)\n", n);
			refused = 1;
			break;
		}
	if (!refused) {
		printf("PASS buffers shorter than 12 bytes are refused\n");
		got++;
	}
	printf("score 01 bth %u/%zu\n", got, NFIELDS + 1);
	return 0;
}
