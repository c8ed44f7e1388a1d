/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction point, section 3.1 of Zhu et al. (SIGCOMM 2015), in
 * integers (see dcqcn.h for why). Sources of the defaults:
 * - the paper: g = 1/256, K = 55 us (longer than the NP's 50 us between
 *   CNPs), T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s, R_HAI = 100 Mb/s.
 *   The ns-3 code released with the paper and htsim's DCQCN use the same g,
 *   B and 50/55 us periods; R_AI, R_HAI and F are the values commonly quoted
 *   for the paper, unverified against its text (which was not at hand).
 * - the NIC: a ConnectX's mlxconfig defaults, as quoted in dcqcn.h. A NIC
 *   also scales its cut by rpg_gd and bounds it by rpg_min_dec_fac; neither
 *   is modelled: the cut is the paper's alpha/2. Its rule for when a cut
 *   moves Rt (clamp_tgt_rate, clamp_tgt_rate_after_time_inc) is:
 *   rl_dcqcn_params.clamp, the paper's rule by default.
 */
#include <stddef.h>

#include "rocelab/dcqcn.h"
#include "units.h"

#define RL_DCQCN_NEVER UINT64_MAX
#define RL_MBPS 1000000ull

#define RL_DCQCN_G_DEFAULT (RL_DCQCN_ALPHA_ONE / 256)
#define RL_DCQCN_K_NS_DEFAULT 55000
#define RL_DCQCN_T_NS_DEFAULT 55000
#define RL_DCQCN_B_DEFAULT (10ull * 1000 * 1000)
#define RL_DCQCN_F_DEFAULT 5
#define RL_DCQCN_AI_DEFAULT (40 * RL_MBPS)
#define RL_DCQCN_HAI_DEFAULT (100 * RL_MBPS)
#define RL_DCQCN_MIN_RATE_DEFAULT (10 * RL_MBPS)

void rl_dcqcn_params_default(struct rl_dcqcn_params *p)
{
	*p = (struct rl_dcqcn_params){
		.g = RL_DCQCN_G_DEFAULT, .k_ns = RL_DCQCN_K_NS_DEFAULT, .t_ns = RL_DCQCN_T_NS_DEFAULT,
		.b_bytes = RL_DCQCN_B_DEFAULT, .f = RL_DCQCN_F_DEFAULT, .r_ai_bps = RL_DCQCN_AI_DEFAULT,
		.r_hai_bps = RL_DCQCN_HAI_DEFAULT, .min_rate_bps = RL_DCQCN_MIN_RATE_DEFAULT,
		.alpha_init = RL_DCQCN_ALPHA_ONE,
	};
}

const char *rl_dcqcn_stage_name(enum rl_dcqcn_stage s)
{
	static const char *const names[] = {
		[RL_DCQCN_LINE_RATE] = "line-rate", [RL_DCQCN_FAST_RECOVERY] = "fast-recovery",
		[RL_DCQCN_ADDITIVE] = "additive-increase", [RL_DCQCN_HYPER] = "hyper-increase",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

const char *rl_dcqcn_clamp_name(enum rl_dcqcn_clamp c)
{
	static const char *const names[] = {
		[RL_DCQCN_CLAMP_ALWAYS] = "always", [RL_DCQCN_CLAMP_AFTER_TIMER] = "after-timer-increase",
	};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

/* Rt's ceiling: rpg_max_rate, but never above the line rate, which no pacer can exceed. */
static uint64_t rl_dcqcn_ceiling(const struct rl_dcqcn *st)
{
	return st->p.max_rate_bps && st->p.max_rate_bps < st->line_rate_bps ? st->p.max_rate_bps : st->line_rate_bps;
}

int rl_dcqcn_init(struct rl_dcqcn *st, const struct rl_dcqcn_params *p, uint64_t line_rate_bps, uint64_t now)
{
	struct rl_dcqcn_params def;
	char why[160];

	(void)now;   /* the timers start at the first CNP, not here */
	if (!p) {
		rl_dcqcn_params_default(&def);
		p = &def;
	}
	*st = (struct rl_dcqcn){ .p = *p, .line_rate_bps = line_rate_bps, .stage = RL_DCQCN_LINE_RATE };
	if (rl_dcqcn_params_check(p, line_rate_bps, why, sizeof(why)))
		return -1;
	st->rc_bps = st->rt_bps = rl_dcqcn_ceiling(st);
	st->alpha = p->alpha_init;
	/* As on a NIC (initial_alpha_value), alpha is alpha_init at the first CNP: its timer starts there. */
	st->alpha_due = st->timer_due = RL_DCQCN_NEVER;
	return 0;
}

/* alpha = (1 - g) alpha + g * @mark (mark 1 with a CNP, 0 without), rounded down. */
static uint32_t rl_dcqcn_alpha_ewma(uint32_t alpha, uint32_t g, bool mark)
{
	uint64_t one = RL_DCQCN_ALPHA_ONE;

	return (uint32_t)(((one - g) * alpha + (mark ? (uint64_t)g * one : 0)) / one);
}

/* Rc halfway to Rt, rounded up so that it reaches Rt; never below the floor. */
static void rl_dcqcn_toward_target(struct rl_dcqcn *st)
{
	st->rc_bps = (st->rt_bps + st->rc_bps + 1) / 2;
	if (st->rc_bps < st->p.min_rate_bps)
		st->rc_bps = st->p.min_rate_bps;
}

/*
 * @t plus @periods periods of @d; RL_DCQCN_NEVER where that passes the end
 * of time, as a capture's timestamps may: the timers then stop, not wrap.
 */
static uint64_t rl_dcqcn_after(uint64_t t, uint64_t d, uint64_t periods)
{
	if (t >= RL_DCQCN_NEVER - 1 || periods > (RL_DCQCN_NEVER - 1 - t) / d)
		return RL_DCQCN_NEVER;
	return t + periods * d;
}

static bool rl_dcqcn_due(uint64_t due, uint64_t now)
{
	return due != RL_DCQCN_NEVER && due <= now;
}

bool rl_dcqcn_on_cnp(struct rl_dcqcn *st, uint64_t now)
{
	uint64_t one = RL_DCQCN_ALPHA_ONE;
	bool first = st->stage == RL_DCQCN_LINE_RATE && !st->cut_once;

	rl_dcqcn_advance(st, now);   /* what was due before this CNP happened first */
	st->cnps++;
	if (st->cut_once && st->p.reduce_period_ns && now - st->last_cut < st->p.reduce_period_ns)
		return false;
	/* timer_events counts T expiries since the last cut: the NIC's "increased due to the timer". */
	if (st->p.clamp == RL_DCQCN_CLAMP_ALWAYS || st->timer_events)
		st->rt_bps = st->rc_bps;
	if (first && st->p.first_cnp_rate_bps)
		st->rc_bps = st->p.first_cnp_rate_bps;
	else
		st->rc_bps -= st->rc_bps * st->alpha / (2 * one);
	if (st->rc_bps < st->p.min_rate_bps)
		st->rc_bps = st->p.min_rate_bps;
	st->alpha = rl_dcqcn_alpha_ewma(st->alpha, st->p.g, true);
	st->stage = RL_DCQCN_FAST_RECOVERY;
	st->timer_events = st->byte_events = 0;
	st->bytes = 0;
	st->alpha_due = rl_dcqcn_after(now, st->p.k_ns, 1);   /* K counts from the last CNP */
	st->timer_due = rl_dcqcn_after(now, st->p.t_ns, 1);
	st->cut_once = true;
	st->last_cut = now;
	st->cuts++;
	return true;
}

/*
 * One rate-increase event (a T expiry or B bytes, counted by the caller):
 * the stage follows the two counters, then Rt moves by the stage's step
 * and Rc halfway to it (section 3.1). Recovered to the ceiling, the limiter
 * lets go and the timers stop.
 */
static void rl_dcqcn_increase(struct rl_dcqcn *st)
{
	uint32_t hi = st->timer_events > st->byte_events ? st->timer_events : st->byte_events;
	uint32_t lo = st->timer_events < st->byte_events ? st->timer_events : st->byte_events;
	uint64_t ceiling = rl_dcqcn_ceiling(st);

	if (hi <= st->p.f)
		st->stage = RL_DCQCN_FAST_RECOVERY;
	else if (lo <= st->p.f)
		st->stage = RL_DCQCN_ADDITIVE;
	else
		st->stage = RL_DCQCN_HYPER;
	if (st->stage == RL_DCQCN_ADDITIVE)
		st->rt_bps += st->p.r_ai_bps;
	else if (st->stage == RL_DCQCN_HYPER)
		st->rt_bps += (uint64_t)(lo - st->p.f) * st->p.r_hai_bps;
	if (st->rt_bps > ceiling)
		st->rt_bps = ceiling;
	rl_dcqcn_toward_target(st);
	st->increases++;
	if (st->rc_bps >= ceiling) {
		st->rc_bps = ceiling;
		st->stage = RL_DCQCN_LINE_RATE;
		st->timer_due = RL_DCQCN_NEVER;   /* alpha keeps decaying, caught up lazily */
	}
}

bool rl_dcqcn_pacing(const struct rl_dcqcn *st)
{
	return st->stage != RL_DCQCN_LINE_RATE;
}

unsigned rl_dcqcn_on_sent(struct rl_dcqcn *st, uint64_t bytes, uint64_t now)
{
	unsigned n = 0;

	(void)now;   /* the byte counter counts bytes, not time; every event still says when */

	if (!rl_dcqcn_pacing(st))
		return 0;
	st->bytes += bytes;
	while (st->bytes >= st->p.b_bytes && rl_dcqcn_pacing(st)) {
		st->bytes -= st->p.b_bytes;
		st->byte_events++;
		rl_dcqcn_increase(st);
		n++;
	}
	return n;
}

enum rl_dcqcn_event rl_dcqcn_step(struct rl_dcqcn *st, uint64_t now)
{
	if (rl_dcqcn_due(st->alpha_due, now) && st->alpha_due <= st->timer_due) {
		if (st->alpha && st->p.g) {
			st->alpha = rl_dcqcn_alpha_ewma(st->alpha, st->p.g, false);
			st->alpha_due = rl_dcqcn_after(st->alpha_due, st->p.k_ns, 1);
			return RL_DCQCN_EV_ALPHA;
		}
		/* Nothing left to decay (or a gain of 0): skip the periods up to now at once. */
		st->alpha_due = rl_dcqcn_after(st->alpha_due, st->p.k_ns, (now - st->alpha_due) / st->p.k_ns + 1);
	}
	if (rl_dcqcn_due(st->timer_due, now)) {
		st->timer_due = rl_dcqcn_after(st->timer_due, st->p.t_ns, 1);
		st->timer_events++;
		rl_dcqcn_increase(st);
		return RL_DCQCN_EV_INCREASE;
	}
	return RL_DCQCN_EV_NONE;
}

unsigned rl_dcqcn_advance(struct rl_dcqcn *st, uint64_t now)
{
	unsigned n = 0;
	enum rl_dcqcn_event ev;

	while ((ev = rl_dcqcn_step(st, now)) != RL_DCQCN_EV_NONE)
		n += ev == RL_DCQCN_EV_INCREASE;
	return n;
}

/*
 * At the ceiling nothing needs waking: alpha's decay is caught up when the
 * next CNP (or a caller's advance) comes, so an idle QP costs no wake-ups.
 * Nor does an alpha with nothing left to decay (0, or a gain of 0): its
 * periods are skipped at the next step, which a K of 1 us would otherwise
 * ask for a million times a second.
 */
uint64_t rl_dcqcn_next_timer(const struct rl_dcqcn *st)
{
	if (!rl_dcqcn_pacing(st))
		return RL_DCQCN_NEVER;
	if (!st->alpha || !st->p.g)
		return st->timer_due;
	return st->alpha_due < st->timer_due ? st->alpha_due : st->timer_due;
}

/* The largest byte count whose bits times RL_NS_PER_S fit 64 bits. */
#define RL_DCQCN_TX_EXACT_BYTES (UINT64_MAX / RL_BITS_PER_BYTE / RL_NS_PER_S)
#define RL_DCQCN_TX_COARSE 1000u   /* above it: bytes and ns by the thousand */

uint64_t rl_dcqcn_tx_ns(uint64_t bytes, uint64_t rate_bps)
{
	if (!rate_bps)
		return 0;
	if (bytes > RL_DCQCN_TX_EXACT_BYTES)
		return rl_dcqcn_tx_ns((bytes + RL_DCQCN_TX_COARSE - 1) / RL_DCQCN_TX_COARSE, rate_bps) * RL_DCQCN_TX_COARSE;
	return (bytes * RL_BITS_PER_BYTE * RL_NS_PER_S + rate_bps - 1) / rate_bps;
}
