/* SPDX-License-Identifier: MIT */
/*
 * DCQCN's reaction point (RP): the sender's half of the congestion control
 * of Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015, section 3.1, as ConnectX NICs implement it. The notification
 * point (the receiver that answers ECN marks with CNPs) is host.c's
 * rl_ecn_congested(); the congestion point is the switch (simwire.c).
 *
 * Per QP: a current rate Rc that a pacer enforces, a target rate Rt it
 * recovers towards, and alpha, the estimate of how congested the path is.
 * A CNP cuts Rc by alpha/2; two counters (a timer of period T and a byte
 * counter of B bytes) raise it again in three stages. Sans-IO: time comes
 * in as @now (ns); rl_dcqcn_next_timer() says when to call again.
 *
 * Arithmetic is integer (rates in bits per second, alpha in fixed point of
 * RL_DCQCN_ALPHA_ONE), not double: a capture made with DCQCN must come out
 * the same byte for byte on every compiler and CPU, and integers leave no
 * room for excess precision or fused multiply-adds to differ.
 */
#ifndef ROCELAB_DCQCN_H
#define ROCELAB_DCQCN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* alpha = 1 in fixed point: 20 fractional bits, finer than the NIC's 10 (initial_alpha_value 1023). */
#define RL_DCQCN_ALPHA_ONE (1u << 20)

/*
 * When a cut sets the target rate Rt to the current rate Rc. The paper
 * does at every cut; a ConnectX does by default only if a timer increase
 * came since the last cut (mlxconfig CLAMP_TGT_RATE False,
 * CLAMP_TGT_RATE_AFTER_TIME_INC True: "the target rate should be updated
 * if the transmission rate was increased due to the timer, and not only due
 * to the byte counter"), so that a run of CNPs keeps the rate Rc came from;
 * the ns-3 DCQCN of HPCC (Li et al., SIGCOMM 2019, rdma-hw.cc
 * CheckRateDecreaseMlx) models the NIC so too.
 */
enum rl_dcqcn_clamp {
	RL_DCQCN_CLAMP_ALWAYS,           /* Rt = Rc at every cut: the paper (clamp_tgt_rate 1) */
	RL_DCQCN_CLAMP_AFTER_TIMER,      /* only after a T increase (clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1) */
};
const char *rl_dcqcn_clamp_name(enum rl_dcqcn_clamp c);

/*
 * The parameters, by the paper's symbol and the mlx5 name
 * (/sys/class/net/<if>/ecn/roce_rp/<name>, or mlxconfig's RPG_*). Defaults
 * are the paper's; the comment gives the NIC's firmware default, as
 * mlxconfig shows it on a ConnectX (RPG_TIME_RESET 300, RPG_BYTE_RESET
 * 32767, RPG_THRESHOLD 1, RPG_AI_RATE 5, RPG_HAI_RATE 50, RPG_GD 11,
 * RPG_MIN_DEC_FAC 50, RPG_MIN_RATE 1, RATE_TO_SET_ON_FIRST_CNP 0,
 * DCE_TCP_G 1019, DCE_TCP_RTT 1, RATE_REDUCE_MONITOR_PERIOD 4,
 * INITIAL_ALPHA_VALUE 1023, MIN_TIME_BETWEEN_CNPS 4 on the NP side).
 */
struct rl_dcqcn_params {
	uint32_t g;                  /* g, alpha's gain, of RL_DCQCN_ALPHA_ONE: paper 1/256 (dce_tcp_g 1019:
					alpha keeps 1019/1024 of itself, g = 5/1024) */
	uint64_t k_ns;               /* K, alpha's update period without CNP: paper 55 us (dce_tcp_rtt, 1 us) */
	uint64_t t_ns;               /* T, rate-increase timer: paper 55 us (rpg_time_reset, 300 us) */
	uint64_t b_bytes;            /* B, byte counter: paper 10 MB (rpg_byte_reset, 32767 B) */
	uint32_t f;                  /* F, fast-recovery steps: paper 5 (rpg_threshold, 1) */
	uint64_t r_ai_bps;           /* R_AI, additive step: 40 Mb/s (rpg_ai_rate, 5 Mb/s) */
	uint64_t r_hai_bps;          /* R_HAI, hyper step: 100 Mb/s (rpg_hai_rate, 50 Mb/s) */
	uint64_t min_rate_bps;       /* Rc's floor: 10 Mb/s here, the paper names none (rpg_min_rate, 1 Mb/s) */
	uint64_t max_rate_bps;       /* Rt's ceiling; 0: the line rate (rpg_max_rate, 0 = line rate) */
	uint32_t alpha_init;         /* alpha at start, of RL_DCQCN_ALPHA_ONE: 1 (initial_alpha_value, 1023) */
	uint64_t first_cnp_rate_bps; /* Rc set by the first CNP; 0: cut by alpha/2 as any (rate_to_set_on_first_cnp) */
	uint64_t reduce_period_ns;   /* at most one cut per period; 0: every CNP cuts, as the paper
					(rate_reduce_monitor_period, 4 us) */
	enum rl_dcqcn_clamp clamp;   /* when a cut moves Rt: the paper's ALWAYS (the NIC's AFTER_TIMER) */
};

/* The paper's parameters (above). */
void rl_dcqcn_params_default(struct rl_dcqcn_params *p);

/*
 * The parameters by name, as an RDMA engineer tunes a NIC: one row each,
 * declared once (dcqcn_params.c), for every printer and for setting one.
 * Values are in the unit a user types, the NIC's where it has one.
 */
enum rl_dcqcn_unit {
	RL_DCQCN_UNIT_US,        /* microseconds (the struct keeps ns) */
	RL_DCQCN_UNIT_BYTES,
	RL_DCQCN_UNIT_NUMBER,    /* a count of events */
	RL_DCQCN_UNIT_MBPS,      /* Mb/s (the struct keeps b/s) */
	RL_DCQCN_UNIT_G1024,     /* the NIC's dce_tcp_g: alpha keeps v/1024 of itself, g = (1024 - v)/1024 */
	RL_DCQCN_UNIT_ALPHA1023, /* the NIC's 10-bit alpha: v/1023, 1023 is alpha = 1 */
	RL_DCQCN_UNIT_FLAG,      /* 0 or 1 */
	RL_DCQCN_UNITS
};
const char *rl_dcqcn_unit_name(enum rl_dcqcn_unit u);

struct rl_dcqcn_param {
	const char *name;            /* mlx5's: /sys/class/net/<if>/ecn/roce_rp/<name> */
	const char *symbol;          /* the paper's, or a word where it has none */
	enum rl_dcqcn_unit unit;
	uint64_t min, max;           /* what may be set, in the unit */
	uint64_t nic_default;        /* a ConnectX's firmware default (mlxconfig), in the unit */
	const char *meaning;
	uint16_t member;             /* where struct rl_dcqcn_params keeps it */
	uint8_t member_size;
};
const struct rl_dcqcn_param *rl_dcqcn_param_table(size_t *count);
/* The @i-th name a NIC has that the model leaves out, with why in *@why; NULL past the last. */
const char *rl_dcqcn_param_unmodelled(size_t i, const char **why);
/* The row named @name; NULL if none. */
const struct rl_dcqcn_param *rl_dcqcn_param_find(const char *name);
/* @d's value in @p, in its unit (rl_dcqcn_params_default() gives the paper's). */
uint64_t rl_dcqcn_param_get(const struct rl_dcqcn_param *d, const struct rl_dcqcn_params *p);
/*
 * Set the parameter @name to @value (in its unit) in @p. Returns 0, or -1
 * with why in @why (@n bytes) and @p unchanged: a name the model does not
 * implement (a NIC's rpg_gd, or the notification point's
 * min_time_between_cnps) says so, an unknown one and a value out of range
 * too.
 */
int rl_dcqcn_param_set(struct rl_dcqcn_params *p, const char *name, uint64_t value, char *why, size_t n);
/* The same from text "NAME=VALUE", VALUE decimal; -1 also for text of another shape. */
int rl_dcqcn_param_assign(struct rl_dcqcn_params *p, const char *text, char *why, size_t n);
/*
 * Whether @p can work on a link of @line_rate_bps: the checks of
 * rl_dcqcn_init(), each with its reason. 0, or -1 with why in @why.
 */
int rl_dcqcn_params_check(const struct rl_dcqcn_params *p, uint64_t line_rate_bps, char *why, size_t n);

/* Where the RP is in its recovery (section 3.1; the stage names are QCN's). */
enum rl_dcqcn_stage {
	RL_DCQCN_LINE_RATE,      /* no CNP yet, or recovered to the ceiling: no pacing, no timers */
	RL_DCQCN_FAST_RECOVERY,  /* both counters at most F: Rc halfway back to Rt */
	RL_DCQCN_ADDITIVE,       /* one counter past F: Rt += R_AI */
	RL_DCQCN_HYPER,          /* both past F: Rt += i * R_HAI */
};
const char *rl_dcqcn_stage_name(enum rl_dcqcn_stage s);

/* What a timer did (rl_dcqcn_step). */
enum rl_dcqcn_event {
	RL_DCQCN_EV_NONE,        /* nothing was due */
	RL_DCQCN_EV_ALPHA,       /* K passed without a CNP: alpha decayed */
	RL_DCQCN_EV_INCREASE,    /* T passed: a rate increase (Rc and maybe Rt changed) */
};

struct rl_dcqcn {
	struct rl_dcqcn_params p;
	uint64_t line_rate_bps;      /* the ceiling when p.max_rate_bps is 0 */
	uint64_t rc_bps, rt_bps;     /* current and target rate */
	uint32_t alpha;              /* of RL_DCQCN_ALPHA_ONE */
	enum rl_dcqcn_stage stage;
	uint32_t timer_events;       /* T expiries since the last cut */
	uint32_t byte_events;        /* B-byte counts since the last cut */
	uint64_t bytes;              /* counted towards the next byte event */
	uint64_t alpha_due, timer_due;  /* next alpha update and rate-increase timer; UINT64_MAX off */
	bool cut_once;               /* a CNP has cut the rate (reduce_period_ns counts from last_cut) */
	uint64_t last_cut;
	uint64_t cnps, cuts, increases;
};

/*
 * Start at the line rate (@line_rate_bps, > 0), alpha = alpha_init. NULL
 * @p: the defaults. Returns 0, or -1 if the parameters cannot work
 * (rl_dcqcn_params_check() says why).
 */
int rl_dcqcn_init(struct rl_dcqcn *st, const struct rl_dcqcn_params *p, uint64_t line_rate_bps, uint64_t now);
/*
 * A CNP arrived: cut the rate (section 3.1: Rt = Rc, Rc = Rc(1 - alpha/2),
 * alpha = (1 - g)alpha + g; Rt as p.clamp says) and restart both counters. False if
 * reduce_period_ns said not now (the CNP is counted, nothing else).
 */
bool rl_dcqcn_on_cnp(struct rl_dcqcn *st, uint64_t now);
/* @bytes left the QP at @now: the byte counter and the pacer. Returns rate increases it caused. */
unsigned rl_dcqcn_on_sent(struct rl_dcqcn *st, uint64_t bytes, uint64_t now);
/* Handle the earliest timer due by @now, if any (alpha first on a tie). */
enum rl_dcqcn_event rl_dcqcn_step(struct rl_dcqcn *st, uint64_t now);
/* Every timer due by @now; returns how many rate increases that made. */
unsigned rl_dcqcn_advance(struct rl_dcqcn *st, uint64_t now);
/* When the next timer is due; UINT64_MAX when at line rate (nothing to recover). */
uint64_t rl_dcqcn_next_timer(const struct rl_dcqcn *st);
/* Is the rate limiter engaged (Rc below the ceiling since a CNP)? */
bool rl_dcqcn_pacing(const struct rl_dcqcn *st);
/*
 * Nanoseconds @bytes take at @rate_bps, rounded up; above what fits the
 * exact product (2^31 bytes: a burst, never a packet), rounded up to the
 * time of a thousand bytes.
 * The pacer that spaces packets by it is the QP's (cc.c), not DCQCN's.
 */
uint64_t rl_dcqcn_tx_ns(uint64_t bytes, uint64_t rate_bps);

#ifdef __cplusplus
}
#endif
#endif
