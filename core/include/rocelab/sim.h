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
#include <stdint.h>

#include "rocelab/simwire.h"
#include "rocelab/verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rl_sim;

struct rl_sim_config {
	struct rl_simwire_config wire;   /* latency, rate, faults, seed, record callback */
	struct rl_host_config host[2];   /* mac, gid, active_mtu, event; emit/ctx are set by the sim */
	uint64_t start_ns;               /* simulated time at the start */
};

/*
 * Called after every step with the current time. Return true while the
 * application still has work to do (the loop then keeps running even if
 * the wire is idle); post work from here.
 */
typedef bool (*rl_sim_app_fn)(struct rl_sim *sim, uint64_t now, void *ctx);

struct rl_sim *rl_sim_new(const struct rl_sim_config *cfg);
void rl_sim_free(struct rl_sim *sim);
struct rl_host *rl_sim_host(struct rl_sim *sim, int i);
struct rl_simwire *rl_sim_wire(struct rl_sim *sim);
uint64_t rl_sim_now(const struct rl_sim *sim);

/*
 * Run until nothing is left to do (wire empty, no timers, @app says done),
 * until simulated time @until_ns, or for at most @max_steps steps. Returns
 * the number of steps taken, or -1 if max_steps ran out (a livelock).
 */
long rl_sim_run(struct rl_sim *sim, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
