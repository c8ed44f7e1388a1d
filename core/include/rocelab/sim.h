/* SPDX-License-Identifier: MIT */
/*
 * Two simulated hosts on a simulated wire, and the loop that drives them in
 * simulated time: what the tests, `rocelab gen` and the benchmarks run. The
 * application acts between steps through a callback (poll completions, post
 * more work), as a real program would between calls into the NIC.
 */
#ifndef ROCELAB_SIM_H
#define ROCELAB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/simwire.h"
#include "rocelab/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_sim;

/* Which wire joins the two hosts. */
enum rl_sim_wire {
	RL_SIM_SIMWIRE,   /* rl_simwire: latency, rate, seeded faults (simwire.h) */
	RL_SIM_FIFO,      /* a direct FIFO: frames in send order, one at a time, no wire model */
};

/* Longest frame the FIFO carries: Ethernet + VLAN + IPv6 + UDP + BTH + headers + 4096 + ICRC, rounded up. */
#define RL_SIM_FIFO_SLOT 4352
#define RL_SIM_FIFO_DEFAULT_FRAMES 512
#define RL_SIM_FIFO_MAX_FRAMES (1u << 20)
#define RL_SIM_FIFO_DEFAULT_STEP_NS 1000
/*
 * On a simulated wire with a rate, a host hands a READ response to its port
 * as the transmit queue takes it: up to RL_SIM_TX_QUEUE frames waiting (or
 * the wire's queue_frames, if fewer), more once half of them have gone, as
 * rxe stops and starts a QP at a high and a low mark of frames in flight
 * (RXE_INFLIGHT_SKBS_PER_QP_HIGH/LOW). Memory then follows the queue, not the
 * size of the READ; the frames' times are those of a queue never run dry.
 */
#define RL_SIM_TX_QUEUE 256

/*
 * The FIFO's per-frame hook: frame @number (1-based, both directions, in
 * send order) from host @from. It may change the frame in place (corrupt,
 * mark) and put more frames on the wire with rl_sim_inject() (duplicate,
 * forge); it returns false to lose the frame.
 */
typedef bool (*rl_sim_filter_fn)(void *ctx, int from, uint8_t *frame, size_t len, uint64_t number);

struct rl_sim_fifo_config {
	size_t frames;                   /* frames it holds at once; 0: 512 (rounded up to a power of two;
					    at most RL_SIM_FIFO_MAX_FRAMES) */
	uint64_t step_ns;                /* simulated time one delivery takes; 0: 1000 */
	rl_sim_filter_fn filter;         /* optional */
	void *ctx;
};

/* Every frame a host emits, before the wire decides its fate (both wires). */
typedef void (*rl_sim_tap_fn)(void *ctx, int from, const uint8_t *frame, size_t len);
/* Every frame the wire hands to a host, just before the host gets it (number: 0 on the FIFO). */
typedef void (*rl_sim_deliver_fn)(void *ctx, const struct rl_simwire_delivery *d);

struct rl_sim_config {
	enum rl_sim_wire kind;
	struct rl_simwire_config wire;   /* RL_SIM_SIMWIRE: latency, rate, faults, seed, record callback */
	struct rl_sim_fifo_config fifo;  /* RL_SIM_FIFO */
	rl_sim_tap_fn tap;               /* optional */
	rl_sim_deliver_fn deliver;       /* optional */
	void *tap_ctx;                   /* for tap and deliver */
	struct rl_host_config host[2];   /* mac, gid, active_mtu, event; emit/ctx are set by the sim,
					    emit_pkt is cleared (the wire carries whole frames) */
	uint64_t start_ns;               /* simulated time at the start */
};

/*
 * Called after every step with the current time. Return true while the
 * application still has work to do (the loop then keeps running even if
 * the wire is idle); post work from here. rl_sim_wake() asks for a call at
 * a given time, rl_sim_stop() ends the run.
 */
typedef bool (*rl_sim_app_fn)(struct rl_sim *sim, uint64_t now, void *ctx);

/*
 * NULL if the simulated wire refuses its config (rl_simwire_new()), the FIFO
 * would hold more than RL_SIM_FIFO_MAX_FRAMES, a host's active MTU is not
 * one of enum rl_mtu, or memory ran out.
 */
struct rl_sim *rl_sim_new(const struct rl_sim_config *cfg);
void rl_sim_free(struct rl_sim *sim);
struct rl_host *rl_sim_host(struct rl_sim *sim, int i);
struct rl_simwire *rl_sim_wire(struct rl_sim *sim);
uint64_t rl_sim_now(const struct rl_sim *sim);

/*
 * Run until nothing is left to do (wire empty, no timers, @app says done),
 * until simulated time @until_ns, or for at most @max_steps steps. Returns
 * the number of steps taken, or -1 if max_steps ran out, or if @app said it
 * was busy RL_SIM_IDLE_TURNS turns in a row while nothing was in flight and
 * nothing scheduled (a livelock: it waits for what nothing will bring).
 *
 * Each step calls @app first. RL_SIM_SIMWIRE: then both hosts run, time
 * jumps to the next arrival, timer or rl_sim_wake() time, and every frame
 * due then is delivered, each followed by a run of the host that got it.
 * RL_SIM_FIFO: a step delivers one frame, @step_ns after the previous one,
 * after running any host rl_sim_kick() named. When the FIFO is empty after
 * @app's turn, both hosts run at once (what @app posted goes out); if it is
 * still empty, time jumps to the next timer or wake-up and both hosts run.
 * A FIFO run begins by running both hosts and stops once time has passed
 * @until_ns. Work posted from @app therefore goes out on either wire;
 * rl_sim_kick() sends it before the frames already queued are delivered.
 */
long rl_sim_run(struct rl_sim *sim, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx);
#define RL_SIM_IDLE_TURNS 65536

/* Host @i has new work (a post): the FIFO loop runs it before the next delivery, not once the FIFO is empty. */
void rl_sim_kick(struct rl_sim *sim, int i);
/* From @app: call it again at @t at the latest, even if the wire and the timers are quiet until then. */
void rl_sim_wake(struct rl_sim *sim, uint64_t t);
/* From @app: end the run now; rl_sim_run() returns the steps taken. */
void rl_sim_stop(struct rl_sim *sim);
/*
 * RL_SIM_FIFO: put a frame at the tail of the FIFO, towards host @to. 0, or
 * -1 if full or too long. Called from the filter, the frames it puts go
 * behind the frame being filtered (which was sent first), in call order.
 */
int rl_sim_inject(struct rl_sim *sim, int to, const uint8_t *frame, size_t len);
/* Frames emitted so far, both hosts (the numbering the filter sees). */
uint64_t rl_sim_frames(const struct rl_sim *sim);
/* Frames the wire refused: the FIFO full or a frame too long, an rl_simwire_send() error (a setup bug). */
uint64_t rl_sim_refused(const struct rl_sim *sim);
/* Nothing on the wire: no frame in flight or queued. */
bool rl_sim_idle(const struct rl_sim *sim);

#ifdef __cplusplus
}
#endif
#endif
