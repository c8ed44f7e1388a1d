/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's parameters by mlx5 name (dcqcn_params.c). The expected values are
 * written out from the sources, not from the code: the paper's defaults
 * (Zhu et al., SIGCOMM 2015), and NVIDIA's "DCQCN CC Parameters" for the
 * NIC's units (dce_tcp_g and initial_alpha_value in 10-bit fixed point,
 * periods in us, rates in Mb/s).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/dcqcn.h"
#include "testlib.h"

#define ONE RL_DCQCN_ALPHA_ONE
#define MBPS 1000000ull

/* One setting per row: a value other than the paper's, the member it lands in, what that member must then hold. */
struct dp_case {
	const char *text;
	size_t member;
	uint64_t want;
};

#define DP(text_, member_, want_) { text_, offsetof(struct rl_dcqcn_params, member_), want_ }

static const struct dp_case dp_cases[] = {
	DP("dce_tcp_g=960", g, ONE / 16),               /* keeps 960/1024 of alpha: g = 64/1024 = 1/16 */
	DP("dce_tcp_rtt=7", k_ns, 7000),
	DP("rpg_time_reset=300", t_ns, 300000),         /* a ConnectX's T */
	DP("rpg_byte_reset=32767", b_bytes, 32767),
	DP("rpg_threshold=1", f, 1),
	DP("rpg_ai_rate=5", r_ai_bps, 5 * MBPS),
	DP("rpg_hai_rate=50", r_hai_bps, 50 * MBPS),
	DP("rpg_min_rate=1", min_rate_bps, 1 * MBPS),
	DP("rpg_max_rate=20000", max_rate_bps, 20000 * MBPS),
	DP("initial_alpha_value=1", alpha_init, (ONE + 511) / 1023),   /* 1/1023 of 2^20, rounded */
	DP("rate_to_set_on_first_cnp=1000", first_cnp_rate_bps, 1000 * MBPS),
	DP("rate_reduce_monitor_period=4", reduce_period_ns, 4000),
	DP("clamp_tgt_rate=0", clamp, RL_DCQCN_CLAMP_AFTER_TIMER),
};
#define DP_NCASES (sizeof(dp_cases) / sizeof(dp_cases[0]))

/* Every member of struct rl_dcqcn_params, by hand: the struct as the test knows it. */
static const size_t dp_members[] = {
	offsetof(struct rl_dcqcn_params, g), offsetof(struct rl_dcqcn_params, k_ns),
	offsetof(struct rl_dcqcn_params, t_ns), offsetof(struct rl_dcqcn_params, b_bytes),
	offsetof(struct rl_dcqcn_params, f), offsetof(struct rl_dcqcn_params, r_ai_bps),
	offsetof(struct rl_dcqcn_params, r_hai_bps), offsetof(struct rl_dcqcn_params, min_rate_bps),
	offsetof(struct rl_dcqcn_params, max_rate_bps), offsetof(struct rl_dcqcn_params, alpha_init),
	offsetof(struct rl_dcqcn_params, first_cnp_rate_bps), offsetof(struct rl_dcqcn_params, reduce_period_ns),
	offsetof(struct rl_dcqcn_params, clamp),
};
#define DP_NMEMBERS (sizeof(dp_members) / sizeof(dp_members[0]))

static uint64_t dp_member(const struct rl_dcqcn_params *p, size_t off)
{
	uint32_t u32;
	uint64_t u64;

	if (off == offsetof(struct rl_dcqcn_params, clamp))
		return p->clamp;
	if (off == offsetof(struct rl_dcqcn_params, g) || off == offsetof(struct rl_dcqcn_params, f) ||
	    off == offsetof(struct rl_dcqcn_params, alpha_init)) {
		memcpy(&u32, (const unsigned char *)p + off, sizeof(u32));
		return u32;
	}
	memcpy(&u64, (const unsigned char *)p + off, sizeof(u64));
	return u64;
}

/* The name of "NAME=VALUE" into @buf. */
static const char *dp_name(const char *text, char *buf, size_t n)
{
	size_t len = (size_t)(strchr(text, '=') - text);

	CU_ASSERT_FATAL(len < n);
	memcpy(buf, text, len);
	buf[len] = '\0';
	return buf;
}

/*
 * Each row, set by its name, changes its own member to the value its unit
 * means, and nothing else; the row names that member and reads the value
 * back; every row and every member has its case.
 */
static void test_dcqcn_params_each_row_sets_its_member(void)
{
	size_t n;
	const struct rl_dcqcn_param *t = rl_dcqcn_param_table(&n);
	char why[200], name[64];
	bool member_seen[DP_NMEMBERS] = { false };

	CU_ASSERT_EQUAL(n, DP_NCASES);
	for (size_t i = 0; i < DP_NCASES; i++) {
		struct rl_dcqcn_params def, p;
		const struct rl_dcqcn_param *d = rl_dcqcn_param_find(dp_name(dp_cases[i].text, name, sizeof(name)));

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(d->member, dp_cases[i].member);
		rl_dcqcn_params_default(&def);
		rl_dcqcn_params_default(&p);
		CU_ASSERT_EQUAL_FATAL(rl_dcqcn_param_assign(&p, dp_cases[i].text, why, sizeof(why)), 0);
		CU_ASSERT_EQUAL(dp_member(&p, dp_cases[i].member), dp_cases[i].want);
		CU_ASSERT_NOT_EQUAL(dp_member(&def, dp_cases[i].member), dp_cases[i].want);
		for (size_t m = 0; m < DP_NMEMBERS; m++) {
			if (dp_members[m] == dp_cases[i].member)
				member_seen[m] = true;
			else
				CU_ASSERT_EQUAL(dp_member(&p, dp_members[m]), dp_member(&def, dp_members[m]));
		}
		CU_ASSERT_EQUAL(rl_dcqcn_param_get(d, &p), strtoull(strchr(dp_cases[i].text, '=') + 1, NULL, 10));
	}
	for (size_t m = 0; m < DP_NMEMBERS; m++)
		CU_ASSERT(member_seen[m]);
	for (size_t i = 0; i < n; i++)
		CU_ASSERT_PTR_EQUAL(rl_dcqcn_param_find(t[i].name), &t[i]);
}

/* The defaults, read through the names, are the paper's in the NIC's units (dcqcn.h, docs/transport.md). */
static void test_dcqcn_params_defaults_by_name(void)
{
	static const struct {
		const char *name;
		uint64_t paper, nic;
	} want[] = {
		{ "dce_tcp_g", 1020, 1019 },        /* g = 1/256 = 4/1024: alpha keeps 1020/1024 */
		{ "dce_tcp_rtt", 55, 1 },           /* K = 55 us */
		{ "rpg_time_reset", 55, 300 },      /* T = 55 us */
		{ "rpg_byte_reset", 10000000, 32767 },
		{ "rpg_threshold", 5, 1 },
		{ "rpg_ai_rate", 40, 5 },
		{ "rpg_hai_rate", 100, 50 },
		{ "rpg_min_rate", 10, 1 },
		{ "rpg_max_rate", 0, 0 },
		{ "initial_alpha_value", 1023, 1023 },
		{ "rate_to_set_on_first_cnp", 0, 0 },
		{ "rate_reduce_monitor_period", 0, 4 },
		{ "clamp_tgt_rate", 1, 0 },
	};
	struct rl_dcqcn_params p;

	rl_dcqcn_params_default(&p);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct rl_dcqcn_param *d = rl_dcqcn_param_find(want[i].name);

		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		CU_ASSERT_EQUAL(rl_dcqcn_param_get(d, &p), want[i].paper);
		CU_ASSERT_EQUAL(d->nic_default, want[i].nic);
		CU_ASSERT(d->min <= want[i].paper && want[i].paper <= d->max);
		CU_ASSERT(d->min <= d->nic_default && d->nic_default <= d->max);
		CU_ASSERT(d->symbol && d->symbol[0] && d->meaning && d->meaning[0]);
		CU_ASSERT_STRING_NOT_EQUAL(rl_dcqcn_unit_name(d->unit), "?");
	}
}

/* A refusal leaves the parameters as they were and says @part. */
static void dp_refused(const char *text, const char *part)
{
	struct rl_dcqcn_params def, p;
	char why[200] = "";

	rl_dcqcn_params_default(&def);
	rl_dcqcn_params_default(&p);
	CU_ASSERT_EQUAL(rl_dcqcn_param_assign(&p, text, why, sizeof(why)), -1);
	if (!strstr(why, part))
		fprintf(stderr, "\n'%s': '%s' lacks '%s'\n", text, why, part);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, part));
	for (size_t m = 0; m < DP_NMEMBERS; m++)
		CU_ASSERT_EQUAL(dp_member(&p, dp_members[m]), dp_member(&def, dp_members[m]));
}

static void test_dcqcn_params_refusals(void)
{
	/* Names: unknown, and the NIC's that the model leaves out, each with its reason. */
	dp_refused("rpg_frobnicate=1", "no DCQCN reaction-point parameter 'rpg_frobnicate'");
	dp_refused("RPG_TIME_RESET=300", "no DCQCN reaction-point parameter");
	dp_refused("rpg_gd=11", "rpg_gd: not modelled");
	dp_refused("rpg_min_dec_fac=50", "rpg_min_dec_fac: not modelled");
	dp_refused("min_time_between_cnps=4", "notification point");
	dp_refused("clamp_tgt_rate_after_time_inc=1", "clamp_tgt_rate=0");
	/* Out of range, at each side of each bound the NIC's documentation gives. */
	dp_refused("dce_tcp_g=1024", "dce_tcp_g (g) wants 0..1023");
	dp_refused("dce_tcp_rtt=0", "wants 1..131071 us, not 0");
	dp_refused("rpg_time_reset=131072", "wants 1..131071 us, not 131072");
	dp_refused("rpg_byte_reset=0", "rpg_byte_reset (B) wants 1..");
	dp_refused("rpg_threshold=0", "wants 1..31");
	dp_refused("rpg_threshold=32", "wants 1..31");
	dp_refused("rpg_ai_rate=0", "rpg_ai_rate (R_AI) wants 1..400000 Mb/s");
	dp_refused("rpg_min_rate=400001", "not 400001");
	dp_refused("initial_alpha_value=1024", "wants 1..1023");
	dp_refused("initial_alpha_value=0", "wants 1..1023");
	dp_refused("clamp_tgt_rate=2", "clamp_tgt_rate (clamp) wants 0..1");
	/* Malformed text. */
	dp_refused("rpg_time_reset", "is not NAME=VALUE");
	dp_refused("=300", "is not NAME=VALUE");
	dp_refused("", "is not NAME=VALUE");
	dp_refused("rpg_time_reset=", "wants a whole number, not ''");
	dp_refused("rpg_time_reset=-1", "wants a whole number, not '-1'");
	dp_refused("rpg_time_reset=+5", "wants a whole number");
	dp_refused("rpg_time_reset= 5", "wants a whole number");
	dp_refused("rpg_time_reset=5us", "wants a whole number");
	dp_refused("rpg_time_reset=1e3", "wants a whole number");
	dp_refused("rpg_time_reset=0x10", "wants a whole number");
	dp_refused("rpg_time_reset=300=4", "wants a whole number");
	dp_refused("rpg_time_reset=99999999999999999999", "wants a whole number");
	dp_refused("rpg_time_reset=18446744073709551614", "wants 1..131071 us");
	dp_refused("rpg_time_reset=18446744073709551615", "wants 1..131071 us, not 18446744073709551615");
	dp_refused("a_name_longer_than_sixty_four_characters_is_no_parameter_of_dcqcn_at_all=1", "no DCQCN reaction-point parameter");
}

/* Values each in range that cannot work together: a floor or first-CNP rate above the ceiling. */
static void test_dcqcn_params_check_together(void)
{
	struct rl_dcqcn_params p;
	struct rl_dcqcn st;
	char why[200];

	rl_dcqcn_params_default(&p);
	CU_ASSERT_EQUAL(rl_dcqcn_params_check(&p, 25000 * MBPS, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_dcqcn_param_assign(&p, "rpg_min_rate=30000", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_dcqcn_params_check(&p, 25000 * MBPS, why, sizeof(why)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "rpg_min_rate 30000 Mb/s"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "25000 Mb/s"));
	CU_ASSERT_EQUAL(rl_dcqcn_init(&st, &p, 25000 * MBPS, 0), -1);
	rl_dcqcn_params_default(&p);
	CU_ASSERT_EQUAL(rl_dcqcn_param_assign(&p, "rpg_max_rate=1000", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_dcqcn_param_assign(&p, "rate_to_set_on_first_cnp=2000", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(rl_dcqcn_params_check(&p, 25000 * MBPS, why, sizeof(why)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "rate_to_set_on_first_cnp 2000 Mb/s is above the ceiling, 1000 Mb/s"));
	CU_ASSERT_EQUAL(rl_dcqcn_init(&st, &p, 25000 * MBPS, 0), -1);
}

/* A first CNP with rate_to_set_on_first_cnp sets Rc to it, where the paper's halves it. */
static void test_dcqcn_params_first_cnp_rate(void)
{
	struct rl_dcqcn_params p;
	struct rl_dcqcn st;
	char why[200];

	rl_dcqcn_params_default(&p);
	CU_ASSERT_EQUAL(rl_dcqcn_param_assign(&p, "rate_to_set_on_first_cnp=1000", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, 25000 * MBPS, 0), 0);
	CU_ASSERT(rl_dcqcn_on_cnp(&st, 1000));
	CU_ASSERT_EQUAL(st.rc_bps, 1000 * MBPS);
	rl_dcqcn_params_default(&p);
	CU_ASSERT_EQUAL_FATAL(rl_dcqcn_init(&st, &p, 25000 * MBPS, 0), 0);
	CU_ASSERT(rl_dcqcn_on_cnp(&st, 1000));
	CU_ASSERT_EQUAL(st.rc_bps, 12500 * MBPS);
}

int tl_suite_dcqcn_params(void)
{
	CU_pSuite s = CU_add_suite("dcqcn_params", NULL, NULL);

	return !s || !CU_add_test(s, "each row sets the member it names, nothing else", test_dcqcn_params_each_row_sets_its_member) ||
	       !CU_add_test(s, "by name, the defaults are the paper's; the NIC's as mlxconfig's", test_dcqcn_params_defaults_by_name) ||
	       !CU_add_test(s, "unknown and unmodelled names, out-of-range values, malformed text refused", test_dcqcn_params_refusals) ||
	       !CU_add_test(s, "a floor or first-CNP rate above the ceiling refused, saying so", test_dcqcn_params_check_together) ||
	       !CU_add_test(s, "rate_to_set_on_first_cnp: the first CNP's Rc", test_dcqcn_params_first_cnp_rate);
}
