/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction-point parameters by name: one row each, under mlx5's
 * name (/sys/class/net/<if>/ecn/roce_rp/<name>), with the paper's symbol
 * (Zhu et al., SIGCOMM 2015, section 3.1), the unit a user types and the
 * ConnectX firmware default as dcqcn.h quotes it. Units follow the NIC's:
 * NVIDIA's "DCQCN CC Parameters" gives dce_tcp_g and initial_alpha_value
 * as 10-bit fixed point (alpha's update keeps dce_tcp_g/1024 of alpha, so
 * the paper's g is (1024 - dce_tcp_g)/1024), periods in microseconds and
 * rates in Mb/s.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rocelab/dcqcn.h"
#include "units.h"

#define RL_G_DENOM 1024u             /* dce_tcp_g's fixed point: 10 fractional bits */
#define RL_ALPHA_NIC_ONE 1023u       /* initial_alpha_value's alpha = 1 */
#define RL_US_MAX_NIC 131071u        /* dce_tcp_rtt's range on a ConnectX (17 bits) */
#define RL_RATE_MAX_MBPS 400000u     /* 400 Gb/s: the fastest RoCE port */
#define RL_PERIOD_MAX_US UINT32_MAX  /* rate_reduce_monitor_period's range on a ConnectX */

const char *rl_dcqcn_unit_name(enum rl_dcqcn_unit u)
{
	static const char *const names[] = {
		[RL_DCQCN_UNIT_US] = "us", [RL_DCQCN_UNIT_BYTES] = "bytes", [RL_DCQCN_UNIT_NUMBER] = "events",
		[RL_DCQCN_UNIT_MBPS] = "Mb/s", [RL_DCQCN_UNIT_G1024] = "1024ths kept",
		[RL_DCQCN_UNIT_ALPHA1023] = "1023 = 1", [RL_DCQCN_UNIT_FLAG] = "0 or 1",
	};

	return (unsigned)u < sizeof(names) / sizeof(names[0]) ? names[u] : "?";
}

#define RL_DCQCN_PARAM(member_, name_, symbol_, unit_, min_, max_, nic_, meaning_)                 \
	{ .name = name_, .symbol = symbol_, .unit = unit_, .min = min_, .max = max_, .nic_default = nic_, \
	  .meaning = meaning_, .member = offsetof(struct rl_dcqcn_params, member_),                  \
	  .member_size = sizeof(((struct rl_dcqcn_params *)0)->member_) }

static const struct rl_dcqcn_param rl_dcqcn_params_rows[] = {
	RL_DCQCN_PARAM(g, "dce_tcp_g", "g", RL_DCQCN_UNIT_G1024, 0, RL_G_DENOM - 1, 1019,
		       "alpha's gain: each update keeps this many 1024ths of alpha (1020 is g = 1/256)"),
	RL_DCQCN_PARAM(k_ns, "dce_tcp_rtt", "K", RL_DCQCN_UNIT_US, 1, RL_US_MAX_NIC, 1,
		       "alpha decays by (1 - g) each K without a CNP"),
	RL_DCQCN_PARAM(t_ns, "rpg_time_reset", "T", RL_DCQCN_UNIT_US, 1, RL_US_MAX_NIC, 300,
		       "the rate-increase timer: an increase each T since the last cut"),
	RL_DCQCN_PARAM(b_bytes, "rpg_byte_reset", "B", RL_DCQCN_UNIT_BYTES, 1, UINT32_MAX, 32767,
		       "the byte counter: an increase each B bytes sent since the last cut"),
	RL_DCQCN_PARAM(f, "rpg_threshold", "F", RL_DCQCN_UNIT_NUMBER, 1, 31, 1,
		       "increases of fast recovery before additive, then hyper increase"),
	RL_DCQCN_PARAM(r_ai_bps, "rpg_ai_rate", "R_AI", RL_DCQCN_UNIT_MBPS, 1, RL_RATE_MAX_MBPS, 5,
		       "additive increase: Rt grows by R_AI"),
	RL_DCQCN_PARAM(r_hai_bps, "rpg_hai_rate", "R_HAI", RL_DCQCN_UNIT_MBPS, 1, RL_RATE_MAX_MBPS, 50,
		       "hyper increase: Rt grows by i x R_HAI"),
	RL_DCQCN_PARAM(min_rate_bps, "rpg_min_rate", "Rmin", RL_DCQCN_UNIT_MBPS, 1, RL_RATE_MAX_MBPS, 1,
		       "no cut takes Rc below it"),
	RL_DCQCN_PARAM(max_rate_bps, "rpg_max_rate", "Rmax", RL_DCQCN_UNIT_MBPS, 0, RL_RATE_MAX_MBPS, 0,
		       "Rt's ceiling, a cap on the QP too; 0: the line rate"),
	RL_DCQCN_PARAM(alpha_init, "initial_alpha_value", "alpha0", RL_DCQCN_UNIT_ALPHA1023, 1, RL_ALPHA_NIC_ONE,
		       RL_ALPHA_NIC_ONE, "alpha at the first CNP"),
	RL_DCQCN_PARAM(first_cnp_rate_bps, "rate_to_set_on_first_cnp", "R1", RL_DCQCN_UNIT_MBPS, 0, RL_RATE_MAX_MBPS,
		       0, "Rc set by the first CNP; 0: cut by alpha/2 as any CNP"),
	RL_DCQCN_PARAM(reduce_period_ns, "rate_reduce_monitor_period", "Tcut", RL_DCQCN_UNIT_US, 0, RL_PERIOD_MAX_US,
		       4, "at most one cut per period, later CNPs only counted; 0: every CNP cuts"),
	RL_DCQCN_PARAM(clamp, "clamp_tgt_rate", "clamp", RL_DCQCN_UNIT_FLAG, 0, 1, 0,
		       "1: every cut sets Rt = Rc (the paper); 0: only one after a timer increase"),
};

/* Names a NIC has that the model leaves out, and why. */
static const struct {
	const char *name, *why;
} rl_dcqcn_unmodelled[] = {
	{ "rpg_gd", "not modelled: the cut is the paper's Rc x alpha/2, which a NIC scales by rpg_gd" },
	{ "rpg_min_dec_fac", "not modelled: no cut is bounded but by rpg_min_rate" },
	{ "clamp_tgt_rate_after_time_inc",
	  "not a setting of its own here: clamp_tgt_rate=0 is the NIC's default pair (0, and this 1), "
	  "clamp_tgt_rate=1 the paper's; both 0 is not modelled" },
	{ "min_time_between_cnps", "the notification point's (the receiver's CNP spacing), not the reaction point's" },
};

const char *rl_dcqcn_param_unmodelled(size_t i, const char **why)
{
	if (i >= sizeof(rl_dcqcn_unmodelled) / sizeof(rl_dcqcn_unmodelled[0]))
		return NULL;
	if (why)
		*why = rl_dcqcn_unmodelled[i].why;
	return rl_dcqcn_unmodelled[i].name;
}

const struct rl_dcqcn_param *rl_dcqcn_param_table(size_t *count)
{
	*count = sizeof(rl_dcqcn_params_rows) / sizeof(rl_dcqcn_params_rows[0]);
	return rl_dcqcn_params_rows;
}

const struct rl_dcqcn_param *rl_dcqcn_param_find(const char *name)
{
	size_t n;
	const struct rl_dcqcn_param *t = rl_dcqcn_param_table(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* A value in @d's unit into what the struct keeps (@v already in range). */
static uint64_t rl_dcqcn_to_model(const struct rl_dcqcn_param *d, uint64_t v)
{
	switch (d->unit) {
	case RL_DCQCN_UNIT_US: return v * RL_NS_PER_US;
	case RL_DCQCN_UNIT_MBPS: return v * RL_BPS_PER_MBPS;
	case RL_DCQCN_UNIT_G1024: return (RL_G_DENOM - v) * (RL_DCQCN_ALPHA_ONE / RL_G_DENOM);
	case RL_DCQCN_UNIT_ALPHA1023: return (v * RL_DCQCN_ALPHA_ONE + RL_ALPHA_NIC_ONE / 2) / RL_ALPHA_NIC_ONE;
	case RL_DCQCN_UNIT_FLAG: return v ? RL_DCQCN_CLAMP_ALWAYS : RL_DCQCN_CLAMP_AFTER_TIMER;
	default: return v;
	}
}

/* What the struct keeps into @d's unit, rounded to the nearest. */
static uint64_t rl_dcqcn_from_model(const struct rl_dcqcn_param *d, uint64_t m)
{
	switch (d->unit) {
	case RL_DCQCN_UNIT_US: return (m + RL_NS_PER_US / 2) / RL_NS_PER_US;
	case RL_DCQCN_UNIT_MBPS: return (m + RL_BPS_PER_MBPS / 2) / RL_BPS_PER_MBPS;
	case RL_DCQCN_UNIT_G1024:
		return RL_G_DENOM - (m + RL_DCQCN_ALPHA_ONE / RL_G_DENOM / 2) / (RL_DCQCN_ALPHA_ONE / RL_G_DENOM);
	case RL_DCQCN_UNIT_ALPHA1023: return (m * RL_ALPHA_NIC_ONE + RL_DCQCN_ALPHA_ONE / 2) / RL_DCQCN_ALPHA_ONE;
	case RL_DCQCN_UNIT_FLAG: return m == RL_DCQCN_CLAMP_ALWAYS;
	default: return m;
	}
}

/* The struct's member of @d, whatever its width (the clamp is an enum). */
static uint64_t rl_dcqcn_load(const struct rl_dcqcn_param *d, const struct rl_dcqcn_params *p)
{
	const unsigned char *m = (const unsigned char *)p + d->member;
	uint32_t u32;
	uint64_t u64;

	if (d->unit == RL_DCQCN_UNIT_FLAG)
		return p->clamp;
	if (d->member_size == sizeof(u32)) {
		memcpy(&u32, m, sizeof(u32));
		return u32;
	}
	memcpy(&u64, m, sizeof(u64));
	return u64;
}

static void rl_dcqcn_store(const struct rl_dcqcn_param *d, struct rl_dcqcn_params *p, uint64_t v)
{
	unsigned char *m = (unsigned char *)p + d->member;
	uint32_t u32 = (uint32_t)v;

	if (d->unit == RL_DCQCN_UNIT_FLAG)
		p->clamp = (enum rl_dcqcn_clamp)v;
	else if (d->member_size == sizeof(u32))
		memcpy(m, &u32, sizeof(u32));
	else
		memcpy(m, &v, sizeof(v));
}

uint64_t rl_dcqcn_param_get(const struct rl_dcqcn_param *d, const struct rl_dcqcn_params *p)
{
	return rl_dcqcn_from_model(d, rl_dcqcn_load(d, p));
}

int rl_dcqcn_param_set(struct rl_dcqcn_params *p, const char *name, uint64_t value, char *why, size_t n)
{
	const struct rl_dcqcn_param *d = rl_dcqcn_param_find(name);

	if (!d) {
		const char *other, *because;

		for (size_t i = 0; (other = rl_dcqcn_param_unmodelled(i, &because)); i++)
			if (!strcmp(name, other)) {
				snprintf(why, n, "%s: %s", name, because);
				return -1;
			}
		snprintf(why, n, "no DCQCN reaction-point parameter '%s' by mlx5's roce_rp names", name);
		return -1;
	}
	if (value < d->min || value > d->max) {
		snprintf(why, n, "%s (%s) wants %" PRIu64 "..%" PRIu64 " %s, not %" PRIu64, d->name, d->symbol, d->min,
			 d->max, rl_dcqcn_unit_name(d->unit), value);
		return -1;
	}
	rl_dcqcn_store(d, p, rl_dcqcn_to_model(d, value));
	return 0;
}

int rl_dcqcn_param_assign(struct rl_dcqcn_params *p, const char *text, char *why, size_t n)
{
	char name[64];
	const char *eq = strchr(text, '=');
	const char *v = eq ? eq + 1 : NULL;
	size_t len = eq ? (size_t)(eq - text) : 0;
	uint64_t value = 0;
	bool number = true;

	if (!eq || !len) {
		snprintf(why, n, "'%s' is not NAME=VALUE", text);
		return -1;
	}
	if (len >= sizeof(name)) {
		snprintf(why, n, "no DCQCN reaction-point parameter '%.*s' by mlx5's roce_rp names", (int)len, text);
		return -1;
	}
	memcpy(name, text, len);
	name[len] = '\0';
	/* Decimal digits only: no sign, blank, exponent or suffix for strtoull to take or drop; no wrap past 2^64. */
	for (const char *c = v; *c; c++) {
		uint64_t digit = (uint64_t)(*c - '0');

		if (*c < '0' || *c > '9' || value > (UINT64_MAX - digit) / 10) {
			number = false;
			break;
		}
		value = value * 10 + digit;
	}
	if (!*v || !number) {
		snprintf(why, n, "%s wants a whole number, not '%s'", name, v);
		return -1;
	}
	return rl_dcqcn_param_set(p, name, value, why, n);
}

/* Rt's ceiling on a link of @line: rpg_max_rate if set and below it. */
static uint64_t rl_dcqcn_params_ceiling(const struct rl_dcqcn_params *p, uint64_t line)
{
	return p->max_rate_bps && p->max_rate_bps < line ? p->max_rate_bps : line;
}

int rl_dcqcn_params_check(const struct rl_dcqcn_params *p, uint64_t line_rate_bps, char *why, size_t n)
{
	uint64_t ceiling = rl_dcqcn_params_ceiling(p, line_rate_bps);

	/* Zero periods and steps: an additive step of 0 never reaches the ceiling, the timers would fire for ever. */
	if (!line_rate_bps || line_rate_bps > UINT64_MAX / RL_DCQCN_ALPHA_ONE)
		snprintf(why, n, "a line rate of %" PRIu64 " b/s: it must be above 0 and fit alpha's products",
			 line_rate_bps);
	else if (!p->k_ns || !p->t_ns)
		snprintf(why, n, "a zero period (dce_tcp_rtt K or rpg_time_reset T): its timer would never advance");
	else if (!p->b_bytes)
		snprintf(why, n, "rpg_byte_reset (B) of 0: the byte counter would count for ever");
	else if (!p->r_ai_bps)
		snprintf(why, n, "rpg_ai_rate (R_AI) of 0: additive increase would never reach the ceiling");
	else if (p->g > RL_DCQCN_ALPHA_ONE || p->alpha_init > RL_DCQCN_ALPHA_ONE)
		snprintf(why, n, "g or the initial alpha above 1");
	else if (!p->min_rate_bps)
		snprintf(why, n, "rpg_min_rate of 0: a cut could stop the QP");
	else if (p->min_rate_bps > ceiling)
		snprintf(why, n, "rpg_min_rate %g Mb/s is above the ceiling, %g Mb/s (the line rate, or rpg_max_rate "
			 "below it)", (double)p->min_rate_bps / RL_BPS_PER_MBPS, (double)ceiling / RL_BPS_PER_MBPS);
	else if (p->first_cnp_rate_bps > ceiling)
		snprintf(why, n, "rate_to_set_on_first_cnp %g Mb/s is above the ceiling, %g Mb/s (the line rate, or "
			 "rpg_max_rate below it)", (double)p->first_cnp_rate_bps / RL_BPS_PER_MBPS,
			 (double)ceiling / RL_BPS_PER_MBPS);
	else if ((unsigned)p->clamp > RL_DCQCN_CLAMP_AFTER_TIMER)
		snprintf(why, n, "an unknown clamp rule %u", (unsigned)p->clamp);
	else
		return 0;
	return -1;
}
