/* SPDX-License-Identifier: MIT */
/*
 * Grades lab 09's coding exercise: the learner's lab_psn_diff() and
 * lab_psn_check() against the core's rl_psn_diff() and rl_psn_check() (the
 * one core/src/resp.c runs) on random PSN pairs of eight kinds. A kind
 * scores when every pair of it is right; the first wrong pair is named, in
 * words. Every kind mixes in equal PSNs, so a function that always says
 * "0" or "in order" scores nothing. Prints "score 09 psn GOT/MAX" last.
 */
#include <stdbool.h>
#include <stdio.h>

#include "psn.h"
#include "rocelab/hdr.h"
#include "rocelab/verbs.h"

#define CASES 5000
#define PSN_MASK 0xffffffu

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

/* A pair (a, b) of one kind: case @c of it. */
typedef void (*pair_fn)(int c, uint32_t *a, uint32_t *b);

static void near(int c, uint32_t *a, uint32_t *b)
{
	*b = 1000 + rnd(0xffffff - 2000);
	*a = c % 4 ? *b + rnd(1000) - 500 : *b;
}

static void wrap(int c, uint32_t *a, uint32_t *b)
{
	/* one just below 0xffffff, the other just past 0 */
	uint32_t hi = 0xffffff - rnd(300), lo = rnd(300);

	*a = c % 4 == 0 ? hi : c % 2 ? lo : hi;
	*b = c % 4 == 0 ? hi : c % 2 ? hi : lo;
}

static void far(int c, uint32_t *a, uint32_t *b)
{
	*b = rnd(0x1000000);
	uint32_t off = 1 + rnd(200);

	*a = c % 4 ? (c % 2 ? *b + 0x800000 + off : *b + 0x800000 - off) & PSN_MASK : *b;
}

static void half(int c, uint32_t *a, uint32_t *b)
{
	*b = rnd(0x1000000);
	*a = c % 4 ? (*b + 0x800000) & PSN_MASK : *b;
}

static void behind(int c, uint32_t *a, uint32_t *b)
{
	/* a = the request's PSN, b = the PSN expected */
	*b = 0x1000 + rnd(0xffffff - 0x2000);
	*a = c % 4 ? *b - 1 - rnd(0x1000) : *b;
}

static void ahead(int c, uint32_t *a, uint32_t *b)
{
	*b = rnd(0xffffff - 0x2000);
	*a = c % 4 ? *b + 1 + rnd(0x1000) : *b;
}

static void check_far(int c, uint32_t *a, uint32_t *b)
{
	if (c % 3 == 0)
		half(c, a, b);
	else
		far(c, a, b);
}

struct kind {
	const char *name;
	pair_fn pair;
	bool verdict; /* grades lab_psn_check(b, a), else lab_psn_diff(a, b) */
	int failed;
};

static struct kind kinds[] = {
	{ "lab_psn_diff: nearby PSNs, no wrap", near, false, 0 },
	{ "lab_psn_diff: across the wrap from 0xffffff to 0", wrap, false, 0 },
	{ "lab_psn_diff: far apart, about 2^23 either way", far, false, 0 },
	{ "lab_psn_diff: exactly 2^23 apart (that is -2^23)", half, false, 0 },
	{ "lab_psn_check: requests behind the expected PSN", behind, true, 0 },
	{ "lab_psn_check: requests ahead of the expected PSN", ahead, true, 0 },
	{ "lab_psn_check: across the wrap", wrap, true, 0 },
	{ "lab_psn_check: far away, at the 2^23 boundary", check_far, true, 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static int abs32(int32_t v)
{
	return v < 0 ? -v : v;
}

static const char *verdict_words(int v)
{
	switch (v) {
	case LAB_PSN_IN_ORDER: return "IN_ORDER (execute it)";
	case LAB_PSN_DUPLICATE: return "DUPLICATE (answer again, do not execute again)";
	case LAB_PSN_SEQ_ERR: return "SEQ_ERR (NAK: PSN sequence error)";
	default: return "no verdict at all";
	}
}

static int core_verdict(uint32_t epsn, uint32_t psn)
{
	switch (rl_psn_check(epsn, psn)) {
	case RL_PSN_IN_ORDER: return LAB_PSN_IN_ORDER;
	case RL_PSN_DUPLICATE: return LAB_PSN_DUPLICATE;
	default: return LAB_PSN_SEQ_ERR;
	}
}

static void grade_pair(struct kind *k, uint32_t a, uint32_t b)
{
	if (!k->verdict) {
		int32_t want = rl_psn_diff(a, b), have = lab_psn_diff(a, b);

		if (want != have && !k->failed++)
			printf("FAIL %s: lab_psn_diff(0x%06x, 0x%06x) returned %d; it is %d (%s)\n", k->name, a, b, have,
			       want, want == 0 ? "the same PSN" : want < 0 ? "a comes before b" : "a comes after b");
		return;
	}
	int want = core_verdict(b, a), have = (int)lab_psn_check(b, a);

	if (want != have && !k->failed++)
		printf("FAIL %s: expecting PSN 0x%06x, a request with PSN 0x%06x: you said %s; the responder's answer "
		       "is %s (the request is %d PSNs %s)\n",
		       k->name, b, a, verdict_words(have), verdict_words(want), abs32(rl_psn_diff(a, b)),
		       rl_psn_diff(a, b) < 0 ? "behind" : "ahead");
}

int main(void)
{
	unsigned got = 0;

	for (size_t k = 0; k < NKINDS; k++)
		for (int c = 0; c < CASES; c++) {
			uint32_t a, b;

			kinds[k].pair(c, &a, &b);
			grade_pair(&kinds[k], a & PSN_MASK, b & PSN_MASK);
		}
	for (size_t k = 0; k < NKINDS; k++)
		if (!kinds[k].failed) {
			printf("PASS %s: right on all %d pairs\n", kinds[k].name, CASES);
			got++;
		}
	printf("score 09 psn %u/%zu\n", got, NKINDS);
	return 0;
}
