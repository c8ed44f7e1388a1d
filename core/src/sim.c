/* SPDX-License-Identifier: MIT */
/* Two hosts, one wire (simulated or a direct FIFO), simulated time. */
#include <stdlib.h>
#include <string.h>

#include "rocelab/sim.h"

struct rl_sim_port {
	struct rl_sim *sim;
	int idx;
};

/*
 * The direct FIFO: frames in fixed slots; a ring of slot numbers in send
 * order, and a stack of free slots so that the slots in use are the ones
 * used last (cache-warm), as malloc would hand them out.
 */
struct rl_sim_fifo {
	uint8_t *slots;
	uint16_t *len;
	uint8_t *to;
	uint32_t *ring, *free;
	size_t mask, head, count, nfree;
};

struct rl_sim {
	struct rl_sim_config cfg;
	struct rl_host *host[2];
	struct rl_simwire *wire;
	struct rl_sim_fifo fifo;
	struct rl_sim_port port[2];
	uint64_t now;
	uint64_t frames, refused;
	uint64_t wake;          /* the application's next call, at the latest */
	size_t injected;        /* frames rl_sim_inject() queued during the filter's call */
	bool kicked[2], stop;
};

static int rl_sim_fifo_push(struct rl_sim *sim, int to, const uint8_t *frame, size_t len, uint32_t *slot)
{
	struct rl_sim_fifo *f = &sim->fifo;
	uint32_t s;

	if (!f->nfree || len > RL_SIM_FIFO_SLOT) {
		sim->refused++;
		return -1;
	}
	s = f->free[--f->nfree];
	memcpy(f->slots + (size_t)s * RL_SIM_FIFO_SLOT, frame, len);
	f->len[s] = (uint16_t)len;
	f->to[s] = (uint8_t)to;
	if (slot)
		*slot = s;
	return 0;
}

static void rl_sim_fifo_enqueue(struct rl_sim_fifo *f, uint32_t s)
{
	f->ring[(f->head + f->count) & f->mask] = s;
	f->count++;
}

/* Queue slot @s ahead of the last @later frames queued (what its filter injected). */
static void rl_sim_fifo_enqueue_before(struct rl_sim_fifo *f, uint32_t s, size_t later)
{
	size_t i = f->count;

	for (; later; later--, i--)
		f->ring[(f->head + i) & f->mask] = f->ring[(f->head + i - 1) & f->mask];
	f->ring[(f->head + i) & f->mask] = s;
	f->count++;
}

static void rl_sim_emit(void *ctx, const uint8_t *frame, size_t len)
{
	struct rl_sim_port *p = ctx;
	struct rl_sim *sim = p->sim;
	uint32_t s;

	sim->frames++;
	if (sim->cfg.tap)
		sim->cfg.tap(sim->cfg.tap_ctx, p->idx, frame, len);
	if (sim->wire) {
		if (rl_simwire_send(sim->wire, p->idx, frame, len, sim->now) != RL_SIMWIRE_OK)
			sim->refused++;
		return;
	}
	if (rl_sim_fifo_push(sim, !p->idx, frame, len, &s))
		return;
	sim->injected = 0;
	if (sim->cfg.fifo.filter &&
	    !sim->cfg.fifo.filter(sim->cfg.fifo.ctx, p->idx, sim->fifo.slots + (size_t)s * RL_SIM_FIFO_SLOT,
				  len, sim->frames)) {
		sim->fifo.free[sim->fifo.nfree++] = s;
		return;
	}
	/* The frame was sent first: it goes ahead of what its filter injected (a duplicate follows it). */
	rl_sim_fifo_enqueue_before(&sim->fifo, s, sim->injected);
}

/* How many frames a host may have waiting in its port's transmit queue (RL_SIM_TX_QUEUE, or less). */
static size_t rl_sim_tx_cap(const struct rl_sim *sim)
{
	size_t q = sim->cfg.wire.queue_frames ? sim->cfg.wire.queue_frames : RL_SIMWIRE_DEFAULT_QUEUE_FRAMES;

	return q < RL_SIM_TX_QUEUE ? q : RL_SIM_TX_QUEUE;
}

/* The room in a port's transmit queue; no limit where frames never queue (no wire, or no rate). */
static size_t rl_sim_tx_room(void *ctx)
{
	struct rl_sim_port *p = ctx;
	struct rl_sim *sim = p->sim;
	size_t cap = rl_sim_tx_cap(sim), queued;

	if (!sim->wire || !sim->cfg.wire.rate_bps)
		return SIZE_MAX;
	queued = rl_simwire_queued(sim->wire, p->idx, sim->now);
	return queued < cap ? cap - queued : 0;
}

/* When a host waiting for room at its port (rl_host_tx_pending) runs again: once half the queue has gone. */
static uint64_t rl_sim_tx_wake(struct rl_sim *sim)
{
	uint64_t t = UINT64_MAX;

	for (int i = 0; i < 2; i++)
		if (sim->wire && rl_host_tx_pending(sim->host[i])) {
			uint64_t u = rl_simwire_queue_below(sim->wire, i, sim->now, (rl_sim_tx_cap(sim) + 1) / 2);

			if (u < t)
				t = u;
		}
	return t;
}

int rl_sim_inject(struct rl_sim *sim, int to, const uint8_t *frame, size_t len)
{
	uint32_t s;

	if (sim->wire || rl_sim_fifo_push(sim, to & 1, frame, len, &s))
		return -1;
	rl_sim_fifo_enqueue(&sim->fifo, s);
	sim->injected++;
	return 0;
}

static int rl_sim_fifo_new(struct rl_sim_fifo *f, size_t frames)
{
	size_t n = 1;

	if (frames > RL_SIM_FIFO_MAX_FRAMES)
		return -1;   /* also keeps the doubling below from running past SIZE_MAX */
	while (n < (frames ? frames : RL_SIM_FIFO_DEFAULT_FRAMES))
		n <<= 1;
	f->slots = aligned_alloc(64, n * RL_SIM_FIFO_SLOT);
	f->len = calloc(n, sizeof(*f->len));
	f->to = calloc(n, sizeof(*f->to));
	f->ring = calloc(n, sizeof(*f->ring));
	f->free = calloc(n, sizeof(*f->free));
	if (!f->slots || !f->len || !f->to || !f->ring || !f->free)
		return -1;
	f->mask = n - 1;
	for (size_t k = 0; k < n; k++)
		f->free[f->nfree++] = (uint32_t)(n - 1 - k);
	return 0;
}

static void rl_sim_fifo_free(struct rl_sim_fifo *f)
{
	free(f->slots);
	free(f->len);
	free(f->to);
	free(f->ring);
	free(f->free);
}

struct rl_sim *rl_sim_new(const struct rl_sim_config *cfg)
{
	struct rl_sim *sim = calloc(1, sizeof(*sim));
	bool wired;

	if (!sim)
		return NULL;
	sim->cfg = *cfg;
	sim->now = cfg->start_ns;
	sim->wake = UINT64_MAX;
	if (cfg->kind == RL_SIM_FIFO) {
		wired = !rl_sim_fifo_new(&sim->fifo, cfg->fifo.frames);
		if (!sim->cfg.fifo.step_ns)
			sim->cfg.fifo.step_ns = RL_SIM_FIFO_DEFAULT_STEP_NS;
	} else {
		sim->wire = rl_simwire_new(&cfg->wire);
		wired = sim->wire != NULL;
	}
	for (int i = 0; i < 2 && wired; i++) {
		struct rl_host_config hc = cfg->host[i];

		sim->port[i] = (struct rl_sim_port){ sim, i };
		hc.emit = rl_sim_emit;   /* the wire takes every frame: no path-level output here */
		hc.emit_pkt = NULL;
		hc.tx_room = rl_sim_tx_room;
		hc.ctx = &sim->port[i];
		if (!hc.event_ctx)
			hc.event_ctx = cfg->host[i].ctx;
		sim->host[i] = rl_host_new(&hc);
		if (!sim->host[i])
			break;
	}
	if (!wired || !sim->host[0] || !sim->host[1]) {
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
	rl_sim_fifo_free(&sim->fifo);
	free(sim);
}

struct rl_host *rl_sim_host(struct rl_sim *sim, int i) { return sim->host[i & 1]; }
struct rl_simwire *rl_sim_wire(struct rl_sim *sim) { return sim->wire; }
uint64_t rl_sim_now(const struct rl_sim *sim) { return sim->now; }
uint64_t rl_sim_frames(const struct rl_sim *sim) { return sim->frames; }
uint64_t rl_sim_refused(const struct rl_sim *sim) { return sim->refused; }
void rl_sim_kick(struct rl_sim *sim, int i) { sim->kicked[i & 1] = true; }
void rl_sim_stop(struct rl_sim *sim) { sim->stop = true; }

void rl_sim_wake(struct rl_sim *sim, uint64_t t)
{
	if (t < sim->wake)
		sim->wake = t;
}

bool rl_sim_idle(const struct rl_sim *sim)
{
	return sim->wire ? rl_simwire_next_time(sim->wire) == UINT64_MAX : sim->fifo.count == 0;
}

static uint64_t rl_sim_next_timer(const struct rl_sim *sim)
{
	uint64_t a = rl_host_next_timer(sim->host[0]), b = rl_host_next_timer(sim->host[1]);

	return a < b ? a : b;
}

/* A frame reaches host d->to_port; then that host runs (receiving only receives). */
static void rl_sim_recv(struct rl_sim *sim, const struct rl_simwire_delivery *d)
{
	if (sim->cfg.deliver)
		sim->cfg.deliver(sim->cfg.tap_ctx, d);
	rl_host_recv(sim->host[d->to_port], d->frame, d->len, sim->now);
	rl_host_run(sim->host[d->to_port], sim->now);
}

/* The application's turn: true if it asked to stop. */
static bool rl_sim_app(struct rl_sim *sim, rl_sim_app_fn app, void *ctx, bool *busy)
{
	sim->wake = UINT64_MAX;
	*busy = app ? app(sim, sim->now, ctx) : false;
	if (!sim->stop)
		return false;
	sim->stop = false;
	return true;
}

static long rl_sim_run_simwire(struct rl_sim *sim, uint64_t until_ns, long max_steps, rl_sim_app_fn app,
			       void *ctx)
{
	struct rl_simwire_delivery d;
	long steps;
	unsigned idle = 0;

	for (steps = 0; steps < max_steps; steps++) {
		uint64_t t, timer;
		bool busy;

		if (rl_sim_app(sim, app, ctx, &busy))
			return steps;
		sim->kicked[0] = sim->kicked[1] = false;   /* both run anyway */
		rl_host_run(sim->host[0], sim->now);
		rl_host_run(sim->host[1], sim->now);
		t = rl_simwire_next_time(sim->wire);
		timer = rl_sim_next_timer(sim);
		if (timer < t)
			t = timer;
		timer = rl_sim_tx_wake(sim);
		if (timer < t)
			t = timer;
		if (sim->wake < t)
			t = sim->wake;
		if (t == UINT64_MAX) {
			if (!busy)
				return steps;
			if (++idle >= RL_SIM_IDLE_TURNS)
				return -1;
			continue;       /* the application has more to post; it runs again */
		}
		idle = 0;
		if (t > until_ns)
			return steps;
		if (t > sim->now)
			sim->now = t;
		while (rl_simwire_deliver(sim->wire, sim->now, &d))
			rl_sim_recv(sim, &d);
	}
	return -1;
}

static void rl_sim_run_kicked(struct rl_sim *sim)
{
	for (int i = 0; i < 2; i++)
		if (sim->kicked[i]) {
			sim->kicked[i] = false;
			rl_host_run(sim->host[i], sim->now);
		}
}

static long rl_sim_run_fifo(struct rl_sim *sim, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx)
{
	struct rl_sim_fifo *f = &sim->fifo;
	long steps;
	unsigned idle = 0;

	rl_host_run(sim->host[0], sim->now);
	rl_host_run(sim->host[1], sim->now);
	for (steps = 0; steps < max_steps && sim->now <= until_ns; steps++) {
		uint64_t t;
		bool busy;

		if (rl_sim_app(sim, app, ctx, &busy))
			return steps;
		rl_sim_run_kicked(sim);
		if (!f->count && app) {
			/*
			 * Nothing in flight: work the application posted without
			 * rl_sim_kick() goes out now, as on the simulated wire,
			 * rather than never or at the next timer.
			 */
			rl_host_run(sim->host[0], sim->now);
			rl_host_run(sim->host[1], sim->now);
		}
		if (f->count) {
			uint32_t s = f->ring[f->head];
			struct rl_simwire_delivery d;

			f->head = (f->head + 1) & f->mask;
			f->count--;
			sim->now += sim->cfg.fifo.step_ns;
			d = (struct rl_simwire_delivery){ f->to[s], sim->now, f->slots + (size_t)s * RL_SIM_FIFO_SLOT,
							  f->len[s], 0 };
			rl_sim_recv(sim, &d);
			f->free[f->nfree++] = s;   /* after: the host read the frame in place */
			idle = 0;
			continue;
		}
		t = rl_sim_next_timer(sim);
		if (sim->wake < t)
			t = sim->wake;
		if (t == UINT64_MAX) {
			if (!busy)
				return steps;
			if (++idle >= RL_SIM_IDLE_TURNS)
				return -1;
			continue;
		}
		idle = 0;
		if (t > until_ns)
			return steps;
		if (t > sim->now)
			sim->now = t;
		rl_host_run(sim->host[0], sim->now);
		rl_host_run(sim->host[1], sim->now);
	}
	return steps < max_steps ? steps : -1;
}

long rl_sim_run(struct rl_sim *sim, uint64_t until_ns, long max_steps, rl_sim_app_fn app, void *ctx)
{
	if (sim->wire)
		return rl_sim_run_simwire(sim, until_ns, max_steps, app, ctx);
	return rl_sim_run_fifo(sim, until_ns, max_steps, app, ctx);
}
