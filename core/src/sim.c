/* SPDX-License-Identifier: MIT */
/* Two hosts, one simulated wire, simulated time. */
#include <stdlib.h>
#include <string.h>

#include "rocelab/sim.h"

struct rl_sim_port {
	struct rl_sim *sim;
	int idx;
};

struct rl_sim {
	struct rl_host *host[2];
	struct rl_simwire *wire;
	struct rl_sim_port port[2];
	uint64_t now;
};

static void rl_sim_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct rl_sim_port *p = ctx;

	rl_simwire_send(p->sim->wire, p->idx, frame, len, p->sim->now);
}

struct rl_sim *rl_sim_new(const struct rl_sim_config *cfg)
{
	struct rl_sim *sim = calloc(1, sizeof(*sim));

	if (!sim)
		return NULL;
	sim->now = cfg->start_ns;
	sim->wire = rl_simwire_new(&cfg->wire);
	for (int i = 0; i < 2 && sim->wire; i++) {
		struct rl_host_config hc = cfg->host[i];

		sim->port[i] = (struct rl_sim_port){ sim, i };
		hc.emit = rl_sim_emit;
		hc.ctx = &sim->port[i];
		if (!hc.event_ctx)
			hc.event_ctx = cfg->host[i].ctx;
		sim->host[i] = rl_host_new(&hc);
		if (!sim->host[i])
			break;
	}
	if (!sim->wire || !sim->host[0] || !sim->host[1]) {
		rl_sim_free(sim);
		return NULL;
	}
	return sim;
}

void rl_sim_free(struct rl_sim *sim)
{
	if (!sim)
		return;
	rl_host_free(sim->host[0]);
	rl_host_free(sim->host[1]);
	rl_simwire_free(sim->wire);
	free(sim);
}

struct rl_host *rl_sim_host(struct rl_sim *sim, int i) { return sim->host[i & 1]; }
struct rl_simwire *rl_sim_wire(struct rl_sim *sim) { return sim->wire; }
uint64_t rl_sim_now(const struct rl_sim *sim) { return sim->now; }

static uint64_t rl_sim_next(const struct rl_sim *sim)
{
	uint64_t t = rl_simwire_next_time(sim->wire);
	uint64_t a = rl_host_next_timer(sim->host[0]), b = rl_host_next_timer(sim->host[1]);

	if (a < t)
		t = a;
	return b < t ? b : t;
}

long rl_sim_run(struct rl_sim *sim, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx)
{
	struct rl_simwire_delivery d;
	long steps;

	for (steps = 0; steps < max_steps; steps++) {
		bool busy = app ? app(sim, sim->now, ctx) : false;
		uint64_t t;

		rl_host_run(sim->host[0], sim->now);
		rl_host_run(sim->host[1], sim->now);
		t = rl_sim_next(sim);
		if (t == UINT64_MAX) {
			if (!busy)
				return steps;
			continue;       /* the application has more to post; it runs again */
		}
		if (t > until_ns)
			return steps;
		if (t > sim->now)
			sim->now = t;
		while (rl_simwire_deliver(sim->wire, sim->now, &d)) {
			rl_host_recv(sim->host[d.to_port], d.frame, d.len, sim->now);
			rl_host_run(sim->host[d.to_port], sim->now);
		}
	}
	return -1;
}
