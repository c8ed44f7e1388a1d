/* SPDX-License-Identifier: MIT */
/*
 * The simulated wire: timing, ordering, the transmit queue, and each fault
 * (drop, duplicate, reorder, corrupt, ECN mark), with literal timestamps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rocelab/simwire.h"
#include "testlib.h"

int tl_suite_simwire(void);

#define GBPS 1000000000ull

/* What the record callback saw, indexed by frame number. */
struct log {
	size_t n;                       /* records seen */
	uint64_t last;                  /* highest number seen */
	enum rl_simwire_fate fate[12001];
	int port[12001];
	uint64_t time[12001];
	uint64_t hash;                  /* FNV-1a over everything recorded */
	uint8_t last_frame[512];        /* the bytes of the latest record */
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void log_record(void *ctx, const struct rl_simwire_record *r)
{
	struct log *l = ctx;

	l->n++;
	l->last = r->number;
	if (r->number < sizeof(l->fate) / sizeof(l->fate[0])) {
		l->fate[r->number] = r->fate;
		l->port[r->number] = r->from_port;
		l->time[r->number] = r->time_ns;
	}
	l->hash = fnv(l->hash, &r->number, sizeof(r->number));
	l->hash = fnv(l->hash, &r->from_port, sizeof(r->from_port));
	l->hash = fnv(l->hash, &r->time_ns, sizeof(r->time_ns));
	l->hash = fnv(l->hash, &r->fate, sizeof(r->fate));
	l->hash = fnv(l->hash, r->frame, r->len);
	memcpy(l->last_frame, r->frame, r->len < sizeof(l->last_frame) ? r->len : sizeof(l->last_frame));
}

static struct log *log_new(void)
{
	struct log *l = calloc(1, sizeof(*l));

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	l->hash = 0xcbf29ce484222325ull;
	return l;
}

/* A non-RoCE Ethernet frame (local experimental ethertype) carrying @id. */
static void mk_raw(uint8_t *buf, size_t len, uint32_t id)
{
	memset(buf, 0xa5, len);
	rl_put16(buf + 12, 0x88b5);
	rl_put32(buf + 14, id);
}

/* A RoCEv2 frame built by the encoder; @ecn goes in the IPv4 TOS or IPv6 traffic class. */
static size_t mk_roce(uint8_t *buf, size_t cap, const char *opname, size_t payload,
		      enum rl_l3 l3, uint8_t ecn, uint32_t psn)
{
	uint8_t pl[256];
	struct rl_pkt p;
	size_t n;

	for (size_t i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 7 + 1);
	rl_pkt_init(&p, (uint8_t)rl_opcode_by_name(opname));
	p.l3 = l3;
	p.ip4.dscp = 26;
	p.ip4.ecn = ecn;
	p.ip6.tclass = (uint8_t)(26 << 2 | ecn);
	p.bth.dqpn = 0x11;
	p.bth.psn = psn;
	p.aeth.msn = psn;
	p.payload = pl;
	p.payload_len = payload;
	CU_ASSERT_EQUAL_FATAL(rl_encode(&p, buf, cap, &n), RL_OK);
	return n;
}

static struct rl_simwire *wire(const struct rl_simwire_config *c)
{
	struct rl_simwire *w = rl_simwire_new(c);

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	return w;
}

static int popcount8(uint8_t b)
{
	int n = 0;

	for (; b; b &= (uint8_t)(b - 1))
		n++;
	return n;
}

/* ---- timing ------------------------------------------------------------- */

static void test_one_frame_arrives_after_serialization_and_latency(void)
{
	struct rl_simwire_config c = { .latency_ns = 500, .rate_bps = GBPS };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint8_t f[125];

	mk_raw(f, sizeof(f), 1);
	CU_ASSERT_EQUAL(rl_simwire_next_time(w), UINT64_MAX);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 10), RL_SIMWIRE_OK);
	/* 125 bytes at 1 Gb/s: 1000 ns on the link, then 500 ns of propagation. */
	CU_ASSERT_EQUAL(rl_simwire_next_time(w), 10 + 1000 + 500);
	CU_ASSERT_FALSE(rl_simwire_deliver(w, 1509, &d));
	CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, 1510, &d));
	CU_ASSERT_EQUAL(d.to_port, 1);
	CU_ASSERT_EQUAL(d.time_ns, 1510);
	CU_ASSERT_EQUAL(d.number, 1);
	CU_ASSERT_EQUAL_FATAL(d.len, sizeof(f));
	CU_ASSERT_EQUAL(memcmp(d.frame, f, sizeof(f)), 0);
	CU_ASSERT_FALSE(rl_simwire_deliver(w, UINT64_MAX, &d));
	CU_ASSERT_EQUAL(rl_simwire_next_time(w), UINT64_MAX);
	rl_simwire_free(w);
}

static void test_serialization_time_rounds_up(void)
{
	struct rl_simwire_config c = { .latency_ns = 1, .rate_bps = 3 * GBPS };
	struct rl_simwire *w = wire(&c);
	uint8_t f[1] = { 0 };

	/* 8 bits at 3 Gb/s is 2.67 ns: the wire says 3. */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 1, f, 1, 100), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_next_time(w), 100 + 3 + 1);
	rl_simwire_free(w);
}

static void test_back_to_back_frames_serialize_one_after_the_other(void)
{
	struct rl_simwire_config c = { .latency_ns = 500, .rate_bps = GBPS };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint8_t f[125];
	uint64_t want[] = { 1500, 2500, 3500, 11500 };

	mk_raw(f, sizeof(f), 1);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	/* The link is idle again by then: no waiting. */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 10000), RL_SIMWIRE_OK);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
		CU_ASSERT_EQUAL(d.time_ns, want[i]);
		CU_ASSERT_EQUAL(d.number, (uint64_t)i + 1);
	}
	rl_simwire_free(w);
}

static void test_rate_zero_has_no_serialization_delay(void)
{
	struct rl_simwire *w = wire(&(struct rl_simwire_config){ 0 });
	struct rl_simwire_delivery d;
	static uint8_t f[RL_SIMWIRE_MAX_FRAME];

	mk_raw(f, sizeof(f), 1);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 7), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 7), RL_SIMWIRE_OK);
	/* Both arrive after the default latency alone, 1000 ns. */
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, 1007, &d));
		CU_ASSERT_EQUAL(d.time_ns, 1007);
	}
	rl_simwire_free(w);
}

static void test_a_frame_lost_on_the_wire_still_held_the_link(void)
{
	static const uint64_t drop[] = { 1 };
	struct rl_simwire_config c = {
		.latency_ns = 500, .rate_bps = GBPS, .drop_frames = drop, .n_drop_frames = 1,
	};
	struct rl_simwire *w = wire(&c);
	uint8_t f[125];

	mk_raw(f, sizeof(f), 1);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	/* Frame 2 waited for frame 1's 1000 ns on the link, although frame 1 never arrives. */
	CU_ASSERT_EQUAL(rl_simwire_next_time(w), 2000 + 500);
	rl_simwire_free(w);
}

/* ---- ordering ----------------------------------------------------------- */

static void test_same_time_arrivals_come_in_send_order(void)
{
	struct rl_simwire *w = wire(NULL);
	struct rl_simwire_delivery d;
	uint8_t f[64];

	/* Six frames, both ports taking turns, all arriving at 1000. */
	for (uint32_t i = 1; i <= 6; i++) {
		mk_raw(f, sizeof(f), i);
		CU_ASSERT_EQUAL(rl_simwire_send(w, (int)(i % 2), f, sizeof(f), 0), RL_SIMWIRE_OK);
	}
	for (uint32_t i = 1; i <= 6; i++) {
		CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, 1000, &d));
		CU_ASSERT_EQUAL(d.number, i);
		CU_ASSERT_EQUAL(d.to_port, (int)(!(i % 2)));
		CU_ASSERT_EQUAL(rl_get32(d.frame + 14), i);
	}
	rl_simwire_free(w);
}

static void test_two_directions_are_independent(void)
{
	/* 1 Mb/s: a 125-byte frame holds its link for 1 ms. */
	struct rl_simwire_config c = { .latency_ns = 1000, .rate_bps = 1000000 };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint8_t f[125];
	static const struct { uint64_t number, time; int to; } want[] = {
		{ 1, 1001000, 1 }, { 3, 1001000, 0 }, { 2, 2001000, 1 },
	};

	mk_raw(f, sizeof(f), 0);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	/* Port 1's link is idle: its frame does not wait behind port 0's. */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 1, f, sizeof(f), 0), RL_SIMWIRE_OK);
	for (size_t i = 0; i < 3; i++) {
		CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
		CU_ASSERT_EQUAL(d.number, want[i].number);
		CU_ASSERT_EQUAL(d.time_ns, want[i].time);
		CU_ASSERT_EQUAL(d.to_port, want[i].to);
	}
	rl_simwire_free(w);
}

/* ---- the transmit queue ------------------------------------------------- */

static void test_full_queue_tail_drops(void)
{
	struct log *l = log_new();
	struct rl_simwire_config c = {
		.rate_bps = 1000000, .queue_frames = 4, .record = log_record, .ctx = l,
	};
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_stats st;
	struct rl_simwire_delivery d;
	uint8_t f[125];
	uint64_t got = 0;

	mk_raw(f, sizeof(f), 0);
	/* Frame 1 goes on the link at once, 2-5 wait, 6-10 find the queue full. */
	for (int i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	for (uint64_t n = 1; n <= 10; n++)
		CU_ASSERT_EQUAL(l->fate[n], n <= 5 ? RL_SIMWIRE_DELIVERED : RL_SIMWIRE_QUEUE_FULL);
	rl_simwire_stats(w, 0, &st);
	CU_ASSERT_EQUAL(st.sent, 10);
	CU_ASSERT_EQUAL(st.queue_full, 5);
	CU_ASSERT_EQUAL(st.dropped, 0);

	/* At 1 ms frame 2 starts serializing: one place is free, exactly one. */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 1000000), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 1000000), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(l->fate[11], RL_SIMWIRE_DELIVERED);
	CU_ASSERT_EQUAL(l->fate[12], RL_SIMWIRE_QUEUE_FULL);
	/* The other direction has its own queue. */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 1, f, sizeof(f), 1000000), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(l->fate[13], RL_SIMWIRE_DELIVERED);

	while (rl_simwire_deliver(w, UINT64_MAX, &d))
		got++;
	CU_ASSERT_EQUAL(got, 7);
	rl_simwire_stats(w, 0, &st);
	CU_ASSERT_EQUAL(st.queue_full, 6);
	CU_ASSERT_EQUAL(st.delivered, 6);
	rl_simwire_free(w);
	free(l);
}

/* ---- drops -------------------------------------------------------------- */

static void test_drop_frames_drops_exactly_those_numbers(void)
{
	static const uint64_t drop[] = { 6, 2, 5 };    /* any order */
	struct log *l = log_new();
	struct rl_simwire_config c = {
		.drop_frames = drop, .n_drop_frames = 3, .record = log_record, .ctx = l,
	};
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	struct rl_simwire_stats s0, s1;
	uint64_t want[] = { 1, 3, 4, 7, 8 };
	size_t k = 0;
	uint8_t f[64];

	for (uint32_t i = 1; i <= 8; i++) {
		mk_raw(f, sizeof(f), i);
		CU_ASSERT_EQUAL(rl_simwire_send(w, (int)(i % 2), f, sizeof(f), 10 * i), RL_SIMWIRE_OK);
	}
	CU_ASSERT_EQUAL(l->n, 8);
	for (uint64_t n = 1; n <= 8; n++) {
		bool dropped = n == 2 || n == 5 || n == 6;

		CU_ASSERT_EQUAL(l->fate[n], dropped ? RL_SIMWIRE_DROPPED_BY_NUMBER : RL_SIMWIRE_DELIVERED);
		CU_ASSERT_EQUAL(l->time[n], 10 * n);
	}
	while (rl_simwire_deliver(w, UINT64_MAX, &d)) {
		CU_ASSERT_FATAL(k < 5);
		CU_ASSERT_EQUAL(d.number, want[k]);
		CU_ASSERT_EQUAL(rl_get32(d.frame + 14), want[k]);
		k++;
	}
	CU_ASSERT_EQUAL(k, 5);
	rl_simwire_stats(w, 1, &s1);     /* odd numbers: 1 3 5 7 */
	rl_simwire_stats(w, 0, &s0);     /* even numbers: 2 4 6 8 */
	CU_ASSERT_EQUAL(s1.dropped, 1);
	CU_ASSERT_EQUAL(s0.dropped, 2);
	CU_ASSERT_EQUAL(s1.delivered + s0.delivered, 5);
	rl_simwire_free(w);
	free(l);
}

/* 10,000 frames through a lossy wire; returns how many were dropped, @l says which. */
static uint64_t lossy_run(uint64_t seed, struct log *l)
{
	struct rl_simwire_config c = { .seed = seed, .drop_rate = 0.3, .record = log_record, .ctx = l };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	struct rl_simwire_stats s0, s1;
	uint64_t dropped = 0, delivered = 0;
	uint8_t f[64];

	for (uint32_t i = 1; i <= 10000; i++) {
		mk_raw(f, sizeof(f), i);
		CU_ASSERT_EQUAL(rl_simwire_send(w, (int)(i % 2), f, sizeof(f), i), RL_SIMWIRE_OK);
		dropped += l->fate[i] == RL_SIMWIRE_DROPPED;
	}
	while (rl_simwire_deliver(w, UINT64_MAX, &d)) {
		CU_ASSERT_EQUAL(l->fate[d.number], RL_SIMWIRE_DELIVERED);
		delivered++;
	}
	rl_simwire_stats(w, 0, &s0);
	rl_simwire_stats(w, 1, &s1);
	CU_ASSERT_EQUAL(s0.dropped + s1.dropped, dropped);
	CU_ASSERT_EQUAL(delivered, 10000 - dropped);
	rl_simwire_free(w);
	return dropped;
}

static void test_drop_rate_is_near_its_value_and_repeatable(void)
{
	struct log *a = log_new(), *b = log_new(), *o = log_new();
	uint64_t na = lossy_run(42, a), nb = lossy_run(42, b), no = lossy_run(43, o);

	/* Binomial(10000, 0.3): sd 46, so +-300 is over 6 sd. */
	CU_ASSERT(na >= 2700 && na <= 3300);
	CU_ASSERT(no >= 2700 && no <= 3300);
	CU_ASSERT_EQUAL(na, nb);
	CU_ASSERT_EQUAL(memcmp(a->fate, b->fate, sizeof(a->fate)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a->fate, o->fate, sizeof(a->fate)), 0);
	free(a);
	free(b);
	free(o);
}

/* ---- duplicate and reorder ---------------------------------------------- */

static void test_duplicate_delivers_the_same_bytes_twice(void)
{
	struct log *l = log_new();
	struct rl_simwire_config c = {
		.latency_ns = 500, .rate_bps = GBPS, .dup_rate = 1, .record = log_record, .ctx = l,
	};
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	struct rl_simwire_stats st;
	uint8_t f[125];

	mk_raw(f, sizeof(f), 77);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 0), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(l->fate[1], RL_SIMWIRE_DUPLICATED);
	/* The copy follows one serialization time (1000 ns) behind the original. */
	for (uint64_t t = 1500; t <= 2500; t += 1000) {
		CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
		CU_ASSERT_EQUAL(d.time_ns, t);
		CU_ASSERT_EQUAL(d.number, 1);
		CU_ASSERT_EQUAL(d.to_port, 1);
		CU_ASSERT_EQUAL_FATAL(d.len, sizeof(f));
		CU_ASSERT_EQUAL(memcmp(d.frame, f, sizeof(f)), 0);
	}
	CU_ASSERT_FALSE(rl_simwire_deliver(w, UINT64_MAX, &d));
	rl_simwire_stats(w, 0, &st);
	CU_ASSERT_EQUAL(st.sent, 1);
	CU_ASSERT_EQUAL(st.duplicated, 1);
	CU_ASSERT_EQUAL(st.delivered, 2);
	rl_simwire_free(w);
	free(l);
}

static void test_reorder_lets_a_later_frame_arrive_first(void)
{
	struct log *l = log_new();
	struct rl_simwire_config c = {
		.latency_ns = 1000, .seed = 7, .reorder_rate = 0.3, .record = log_record, .ctx = l,
	};
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	size_t pos[101] = { 0 }, k = 0, reordered = 0;

	/* One frame every 100 ns; a reordered one is 3000 ns late (3 x latency). */
	for (uint32_t i = 1; i <= 100; i++) {
		uint8_t f[64];

		mk_raw(f, sizeof(f), i);
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, sizeof(f), 100 * i), RL_SIMWIRE_OK);
	}
	while (rl_simwire_deliver(w, UINT64_MAX, &d)) {
		bool late = l->fate[d.number] == RL_SIMWIRE_REORDERED;

		CU_ASSERT_EQUAL(d.time_ns, 100 * d.number + 1000 + (late ? 3000 : 0));
		pos[d.number] = ++k;
	}
	CU_ASSERT_EQUAL(k, 100);
	for (uint64_t n = 1; n < 100; n++) {
		if (l->fate[n] != RL_SIMWIRE_REORDERED)
			continue;
		reordered++;
		if (l->fate[n + 1] == RL_SIMWIRE_DELIVERED)
			CU_ASSERT(pos[n + 1] < pos[n]);    /* overtaken */
	}
	CU_ASSERT(reordered >= 10 && reordered <= 50);
	rl_simwire_free(w);
	free(l);
}

/*
 * Frames in flight come out by arrival time, then send order, whichever way
 * they went in (in order, or behind a later one: both ports, reordered,
 * duplicated), and each copy once, with its own bytes.
 */
/* @d comes no earlier than the frame before it (*@last_time, *@last_number), with its own bytes; counted in @seen. */
static void check_in_order(const struct rl_simwire_delivery *d, uint64_t *last_time, uint64_t *last_number,
			   uint64_t *seen)
{
	CU_ASSERT(d->time_ns > *last_time || (d->time_ns == *last_time && d->number >= *last_number));
	*last_time = d->time_ns;
	*last_number = d->number;
	CU_ASSERT_EQUAL(rl_get32(d->frame + 14), d->number);
	seen[d->number]++;
}

static void test_mixed_faults_deliver_in_time_then_send_order(void)
{
	struct rl_simwire_config c = {
		.latency_ns = 700, .rate_bps = 10 * GBPS, .seed = 11, .reorder_rate = 0.2, .dup_rate = 0.1,
		.queue_frames = 64,
	};
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint64_t last_time = 0, last_number = 0, now = 0, seen[2001] = { 0 }, k = 0, sent = 0;

	for (uint32_t i = 1; i <= 2000; i++) {
		uint8_t f[264];
		size_t len = 64 + (i % 3) * 100;

		mk_raw(f, len, i);
		now += (i * 7919u) % 300;                  /* gaps from 0 to 299 ns */
		CU_ASSERT_EQUAL(rl_simwire_send(w, (int)(i % 2), f, len, now), RL_SIMWIRE_OK);
		while (i % 5 == 0 && rl_simwire_deliver(w, now, &d)) {
			check_in_order(&d, &last_time, &last_number, seen);
			k++;
		}
	}
	while (rl_simwire_deliver(w, UINT64_MAX, &d)) {
		check_in_order(&d, &last_time, &last_number, seen);
		k++;
	}
	for (int p = 0; p < 2; p++) {
		struct rl_simwire_stats st;

		rl_simwire_stats(w, p, &st);
		sent += st.sent - st.queue_full + st.duplicated;
	}
	CU_ASSERT_EQUAL(k, sent);
	for (int n = 1; n <= 2000; n++)
		CU_ASSERT(seen[n] <= 2);
	CU_ASSERT_EQUAL(rl_simwire_next_time(w), UINT64_MAX);
	rl_simwire_free(w);
}

/* ---- corruption --------------------------------------------------------- */

/* Every corrupted copy: ICRC mismatch, one bit flipped, after the BTH. */
static void check_corruption(const char *opname, size_t payload, enum rl_l3 l3)
{
	struct log *l = log_new();
	struct rl_simwire_config c = { .seed = 3, .corrupt_rate = 1, .record = log_record, .ctx = l };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	struct rl_simwire_stats st;
	struct rl_pkt orig, got;
	uint8_t f[256];
	size_t n = mk_roce(f, sizeof(f), opname, payload, l3, 0, 5), hits_icrc = 0, hits_ext = 0;

	CU_ASSERT_EQUAL_FATAL(rl_decode(RL_LINK_ETHERNET, f, n, &orig), RL_OK);
	for (int i = 0; i < 300; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, n, (uint64_t)i), RL_SIMWIRE_OK);
	while (rl_simwire_deliver(w, UINT64_MAX, &d)) {
		size_t diff = SIZE_MAX, bits = 0;

		CU_ASSERT_EQUAL(l->fate[d.number], RL_SIMWIRE_CORRUPTED);
		CU_ASSERT_EQUAL_FATAL(d.len, n);
		CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, d.frame, d.len, &got), RL_E_ICRC);
		for (size_t j = 0; j < n; j++) {
			int b = popcount8(d.frame[j] ^ f[j]);

			if (b)
				diff = j;
			bits += (size_t)b;
		}
		CU_ASSERT_EQUAL(bits, 1);
		CU_ASSERT(diff >= orig.bth_off + RL_BTH_LEN && diff < orig.icrc_off + RL_ICRC_LEN);
		hits_icrc += diff >= orig.icrc_off;
		hits_ext += diff < orig.bth_off + RL_BTH_LEN + 4;
	}
	/* The range reaches both ends: the first word after the BTH, and the ICRC. */
	CU_ASSERT(hits_icrc > 0);
	CU_ASSERT(hits_ext > 0);
	rl_simwire_stats(w, 0, &st);
	CU_ASSERT_EQUAL(st.corrupted, 300);
	CU_ASSERT_EQUAL(st.delivered, 300);
	rl_simwire_free(w);
	free(l);
}

static void test_corrupt_send_only_fails_the_icrc_by_one_bit(void)
{
	check_corruption("RC SEND Only", 64, RL_L3_IPV4);
	check_corruption("RC SEND Only", 64, RL_L3_IPV6);
}

static void test_corrupt_ack_without_payload_fails_the_icrc_by_one_bit(void)
{
	check_corruption("RC Acknowledge", 0, RL_L3_IPV4);
}

static void test_corrupt_leaves_non_roce_frames_alone(void)
{
	struct log *l = log_new();
	struct rl_simwire_config c = { .corrupt_rate = 1, .record = log_record, .ctx = l };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	struct rl_simwire_stats st;
	uint8_t raw[100], udp[256];
	size_t n = mk_roce(udp, sizeof(udp), "RC SEND Only", 64, RL_L3_IPV4, 0, 1);

	rl_put16(udp + 14 + 20 + 2, 4792);      /* UDP to another port: not RoCE */
	mk_raw(raw, sizeof(raw), 9);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, raw, sizeof(raw), 0), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, udp, n, 0), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(l->fate[1], RL_SIMWIRE_DELIVERED);
	CU_ASSERT_EQUAL(l->fate[2], RL_SIMWIRE_DELIVERED);
	CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
	CU_ASSERT_EQUAL(memcmp(d.frame, raw, sizeof(raw)), 0);
	CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
	CU_ASSERT_EQUAL(memcmp(d.frame, udp, n), 0);
	rl_simwire_stats(w, 0, &st);
	CU_ASSERT_EQUAL(st.corrupted, 0);
	rl_simwire_free(w);
	free(l);
}

static void test_record_shows_the_frame_as_it_travels(void)
{
	struct log *l = log_new();
	struct rl_simwire_config c = { .corrupt_rate = 1, .record = log_record, .ctx = l };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint8_t f[256];
	size_t n = mk_roce(f, sizeof(f), "RC SEND Only", 64, RL_L3_IPV4, 0, 1);

	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, n, 0), RL_SIMWIRE_OK);
	CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
	CU_ASSERT_EQUAL(memcmp(l->last_frame, d.frame, n), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(l->last_frame, f, n), 0);
	rl_simwire_free(w);
	free(l);
}

/* ---- ECN ---------------------------------------------------------------- */

/* Send one frame through an always-marking wire; returns its fate, @out the delivered bytes. */
static enum rl_simwire_fate ecn_pass(const uint8_t *f, size_t n, uint8_t *out)
{
	struct log *l = log_new();
	struct rl_simwire_config c = { .ecn_rate = 1, .record = log_record, .ctx = l };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	enum rl_simwire_fate fate;

	CU_ASSERT_EQUAL(rl_simwire_send(w, 1, f, n, 0), RL_SIMWIRE_OK);
	CU_ASSERT_TRUE_FATAL(rl_simwire_deliver(w, UINT64_MAX, &d));
	CU_ASSERT_EQUAL_FATAL(d.len, n);
	memcpy(out, d.frame, n);
	fate = l->fate[1];
	rl_simwire_free(w);
	free(l);
	return fate;
}

static void test_ecn_marks_ect_ipv4_as_ce_with_a_valid_checksum(void)
{
	for (uint8_t ect = 1; ect <= 2; ect++) {
		uint8_t f[256], g[256], hdr[20];
		size_t n = mk_roce(f, sizeof(f), "RC SEND Only", 64, RL_L3_IPV4, ect, 1);
		struct rl_pkt p;

		CU_ASSERT_EQUAL(ecn_pass(f, n, g), RL_SIMWIRE_ECN_MARKED);
		CU_ASSERT_EQUAL(g[15] & 3, 3);
		CU_ASSERT_EQUAL(g[15] >> 2, 26);                /* DSCP untouched */
		memcpy(hdr, g + 14, 20);
		rl_put16(hdr + 10, 0);
		CU_ASSERT_EQUAL(rl_get16(g + 14 + 10), rl_ipv4_checksum(hdr, 20));
		CU_ASSERT_NOT_EQUAL(rl_get16(g + 14 + 10), rl_get16(f + 14 + 10));
		CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, g, n, &p), RL_OK);
		CU_ASSERT_EQUAL(p.ip4.ecn, 3);
		/* Nothing else changed. */
		CU_ASSERT_EQUAL(memcmp(g, f, 15), 0);
		CU_ASSERT_EQUAL(memcmp(g + 16, f + 16, 8), 0);
		CU_ASSERT_EQUAL(memcmp(g + 26, f + 26, n - 26), 0);
	}
}

static void test_ecn_marks_ect_ipv6_as_ce(void)
{
	uint8_t f[256], g[256];
	size_t n = mk_roce(f, sizeof(f), "RC SEND Only", 64, RL_L3_IPV6, 2, 1);
	struct rl_pkt p;

	CU_ASSERT_EQUAL(ecn_pass(f, n, g), RL_SIMWIRE_ECN_MARKED);
	CU_ASSERT_EQUAL(rl_decode(RL_LINK_ETHERNET, g, n, &p), RL_OK);
	CU_ASSERT_EQUAL(p.ip6.tclass, 26 << 2 | 3);
}

static void test_ecn_leaves_not_ect_and_ce_frames_alone(void)
{
	for (uint8_t ecn = 0; ecn <= 3; ecn += 3) {
		uint8_t f[256], g[256];
		size_t n = mk_roce(f, sizeof(f), "RC SEND Only", 64, RL_L3_IPV4, ecn, 1);

		CU_ASSERT_EQUAL(ecn_pass(f, n, g), RL_SIMWIRE_DELIVERED);
		CU_ASSERT_EQUAL(memcmp(f, g, n), 0);
	}
}

/* A router updates the checksum incrementally: one that was wrong stays wrong. */
static void test_ecn_keeps_a_wrong_ip_checksum_wrong(void)
{
	uint8_t f[256], g[256];
	size_t n = mk_roce(f, sizeof(f), "RC SEND Only", 64, RL_L3_IPV4, 2, 1);

	f[14 + 11] ^= 0x10;
	CU_ASSERT_NOT_EQUAL(rl_ipv4_checksum(f + 14, 20), 0);
	CU_ASSERT_EQUAL(ecn_pass(f, n, g), RL_SIMWIRE_ECN_MARKED);
	CU_ASSERT_EQUAL(g[15] & 3, 3);
	CU_ASSERT_NOT_EQUAL(rl_ipv4_checksum(g + 14, 20), 0);
	/* Sanity: over a correct header the same sum is 0. */
	n = mk_roce(f, sizeof(f), "RC SEND Only", 64, RL_L3_IPV4, 2, 1);
	CU_ASSERT_EQUAL(ecn_pass(f, n, g), RL_SIMWIRE_ECN_MARKED);
	CU_ASSERT_EQUAL(rl_ipv4_checksum(g + 14, 20), 0);
}

/* ---- determinism -------------------------------------------------------- */

struct trace { uint64_t records, deliveries; struct rl_simwire_stats st[2]; };

/* Every fault at once, bursts that fill the queues; hashes of all that happened. */
static void faulty_run(uint64_t seed, struct trace *t)
{
	struct log *l = log_new();
	struct rl_simwire_config c = {
		.rate_bps = 10 * GBPS, .queue_frames = 8, .seed = seed, .drop_rate = 0.05,
		.dup_rate = 0.05, .reorder_rate = 0.05, .corrupt_rate = 0.05, .ecn_rate = 0.2,
		.record = log_record, .ctx = l,
	};
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint64_t h = 0xcbf29ce484222325ull, now = 0;
	uint8_t f[512];

	for (uint32_t i = 0; i < 3000; i++) {
		size_t n = mk_roce(f, sizeof(f), "RC SEND Only", 4 * (i % 64), RL_L3_IPV4, 2, i);

		now += i % 32 ? 0 : 2000;        /* bursts of 32 back-to-back frames */
		CU_ASSERT_EQUAL(rl_simwire_send(w, (int)(i % 3 == 0), f, n, now), RL_SIMWIRE_OK);
		while (rl_simwire_deliver(w, now, &d)) {
			h = fnv(h, &d.to_port, sizeof(d.to_port));
			h = fnv(h, &d.time_ns, sizeof(d.time_ns));
			h = fnv(h, &d.number, sizeof(d.number));
			h = fnv(h, d.frame, d.len);
		}
	}
	while (rl_simwire_deliver(w, UINT64_MAX, &d)) {
		h = fnv(h, &d.time_ns, sizeof(d.time_ns));
		h = fnv(h, d.frame, d.len);
	}
	t->records = l->hash;
	t->deliveries = h;
	rl_simwire_stats(w, 0, &t->st[0]);
	rl_simwire_stats(w, 1, &t->st[1]);
	rl_simwire_free(w);
	free(l);
}

static void test_same_seed_same_frames_at_the_same_times(void)
{
	struct trace a, b, o;

	faulty_run(1, &a);
	faulty_run(1, &b);
	faulty_run(2, &o);
	CU_ASSERT_EQUAL(a.records, b.records);
	CU_ASSERT_EQUAL(a.deliveries, b.deliveries);
	CU_ASSERT_EQUAL(memcmp(a.st, b.st, sizeof(a.st)), 0);
	CU_ASSERT_NOT_EQUAL(a.records, o.records);
	CU_ASSERT_NOT_EQUAL(a.deliveries, o.deliveries);
	for (int p = 0; p < 2; p++) {
		const struct rl_simwire_stats *s = &a.st[p];

		/* Every fault happened, and every frame is accounted for. */
		CU_ASSERT(s->dropped && s->duplicated && s->reordered && s->corrupted &&
			  s->ecn_marked && s->queue_full);
		CU_ASSERT_EQUAL(s->delivered, s->sent - s->dropped - s->queue_full + s->duplicated);
	}
	CU_ASSERT_EQUAL(a.st[0].sent + a.st[1].sent, 3000);
}

/* ---- arguments and memory ----------------------------------------------- */

static void test_bad_arguments_are_refused(void)
{
	struct log *l = log_new();
	struct rl_simwire_config c = { .record = log_record, .ctx = l };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	struct rl_simwire_stats st = { .sent = 99 };
	static uint8_t f[RL_SIMWIRE_MAX_FRAME + 1];

	CU_ASSERT_EQUAL(rl_simwire_send(w, 2, f, 64, 0), RL_SIMWIRE_E_PORT);
	CU_ASSERT_EQUAL(rl_simwire_send(w, -1, f, 64, 0), RL_SIMWIRE_E_PORT);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, NULL, 64, 0), RL_SIMWIRE_E_FRAME);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, 0, 0), RL_SIMWIRE_E_FRAME);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, RL_SIMWIRE_MAX_FRAME + 1, 0), RL_SIMWIRE_E_FRAME);
	CU_ASSERT_EQUAL(rl_simwire_send(NULL, 0, f, 64, 0), RL_SIMWIRE_E_ARG);
	CU_ASSERT_EQUAL(l->n, 0);                /* refused frames are not numbered */
	CU_ASSERT_EQUAL(rl_simwire_send(w, 0, f, RL_SIMWIRE_MAX_FRAME, 100), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 1, f, 64, 99), RL_SIMWIRE_E_TIME);
	CU_ASSERT_EQUAL(rl_simwire_send(w, 1, f, 64, 100), RL_SIMWIRE_OK);
	CU_ASSERT_EQUAL(l->n, 2);
	CU_ASSERT_EQUAL(l->last, 2);
	CU_ASSERT_FALSE(rl_simwire_deliver(NULL, UINT64_MAX, &d));
	CU_ASSERT_FALSE(rl_simwire_deliver(w, UINT64_MAX, NULL));
	CU_ASSERT_EQUAL(rl_simwire_next_time(NULL), UINT64_MAX);
	rl_simwire_stats(w, 2, &st);
	CU_ASSERT_EQUAL(st.sent, 0);
	CU_ASSERT_STRING_NOT_EQUAL(rl_simwire_strerror(RL_SIMWIRE_E_TIME), rl_simwire_strerror(RL_SIMWIRE_E_PORT));
	rl_simwire_free(w);
	rl_simwire_free(NULL);
	free(l);
}

static void test_bad_configs_are_refused(void)
{
	static const uint64_t zero[] = { 3, 0 };
	struct rl_simwire_config bad[] = {
		{ .drop_rate = 1.5 }, { .dup_rate = -0.1 }, { .reorder_rate = NAN },
		{ .corrupt_rate = 2 }, { .ecn_rate = INFINITY }, { .n_drop_frames = 1 },
		{ .drop_frames = zero, .n_drop_frames = 2 },
	};
	struct rl_simwire_config edge = { .drop_rate = 1, .ecn_rate = 0 };
	struct rl_simwire *w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_PTR_NULL(rl_simwire_new(&bad[i]));
	w = rl_simwire_new(&edge);
	CU_ASSERT_PTR_NOT_NULL(w);
	rl_simwire_free(w);
}

/* Under ASan this fails if frames still in flight, or the last delivered one, leak. */
static void test_free_releases_frames_in_flight(void)
{
	struct rl_simwire_config c = { .dup_rate = 0.5, .seed = 9 };
	struct rl_simwire *w = wire(&c);
	struct rl_simwire_delivery d;
	uint8_t f[300];

	mk_raw(f, sizeof(f), 1);
	for (uint64_t i = 0; i < 200; i++)
		CU_ASSERT_EQUAL(rl_simwire_send(w, (int)(i & 1), f, sizeof(f), i * 10), RL_SIMWIRE_OK);
	CU_ASSERT_TRUE(rl_simwire_deliver(w, 1500, &d));
	CU_ASSERT_NOT_EQUAL(rl_simwire_next_time(w), UINT64_MAX);
	rl_simwire_free(w);
}

static void test_fates_have_names(void)
{
	CU_ASSERT_STRING_EQUAL(rl_simwire_fate_name(RL_SIMWIRE_DELIVERED), "delivered");
	CU_ASSERT_STRING_EQUAL(rl_simwire_fate_name(RL_SIMWIRE_DROPPED_BY_NUMBER), "dropped-by-number");
	CU_ASSERT_STRING_EQUAL(rl_simwire_fate_name(RL_SIMWIRE_ECN_MARKED), "ecn-marked");
	CU_ASSERT_STRING_EQUAL(rl_simwire_fate_name(RL_SIMWIRE_FATE_COUNT), "unknown-fate");
	for (int i = 0; i < RL_SIMWIRE_FATE_COUNT; i++)
		CU_ASSERT_PTR_NOT_NULL(rl_simwire_fate_name((enum rl_simwire_fate)i));
}

int tl_suite_simwire(void)
{
	CU_pSuite s = CU_add_suite("simwire", NULL, NULL);

	return !s ||
	       !CU_add_test(s, "one frame: arrival = now + serialization + latency",
			    test_one_frame_arrives_after_serialization_and_latency) ||
	       !CU_add_test(s, "serialization time rounds up", test_serialization_time_rounds_up) ||
	       !CU_add_test(s, "back-to-back frames serialize one after the other",
			    test_back_to_back_frames_serialize_one_after_the_other) ||
	       !CU_add_test(s, "rate 0: no serialization delay", test_rate_zero_has_no_serialization_delay) ||
	       !CU_add_test(s, "a frame lost on the wire still held the link",
			    test_a_frame_lost_on_the_wire_still_held_the_link) ||
	       !CU_add_test(s, "same-time arrivals come in send order",
			    test_same_time_arrivals_come_in_send_order) ||
	       !CU_add_test(s, "the two directions are independent", test_two_directions_are_independent) ||
	       !CU_add_test(s, "a full transmit queue tail-drops", test_full_queue_tail_drops) ||
	       !CU_add_test(s, "drop_frames drops exactly those numbers",
			    test_drop_frames_drops_exactly_those_numbers) ||
	       !CU_add_test(s, "drop_rate 0.3: near 30%, same seed same drops",
			    test_drop_rate_is_near_its_value_and_repeatable) ||
	       !CU_add_test(s, "duplicate delivers the same bytes twice",
			    test_duplicate_delivers_the_same_bytes_twice) ||
	       !CU_add_test(s, "reorder lets a later frame arrive first",
			    test_reorder_lets_a_later_frame_arrive_first) ||
	       !CU_add_test(s, "mixed faults: delivered by time, then send order",
			    test_mixed_faults_deliver_in_time_then_send_order) ||
	       !CU_add_test(s, "corrupt SEND Only: ICRC mismatch, one bit",
			    test_corrupt_send_only_fails_the_icrc_by_one_bit) ||
	       !CU_add_test(s, "corrupt ACK without payload: ICRC mismatch, one bit",
			    test_corrupt_ack_without_payload_fails_the_icrc_by_one_bit) ||
	       !CU_add_test(s, "corrupt leaves non-RoCE frames alone",
			    test_corrupt_leaves_non_roce_frames_alone) ||
	       !CU_add_test(s, "the record shows the frame as it travels",
			    test_record_shows_the_frame_as_it_travels) ||
	       !CU_add_test(s, "ECN marks ECT IPv4 as CE, checksum valid, ICRC valid",
			    test_ecn_marks_ect_ipv4_as_ce_with_a_valid_checksum) ||
	       !CU_add_test(s, "ECN marks ECT IPv6 as CE", test_ecn_marks_ect_ipv6_as_ce) ||
	       !CU_add_test(s, "ECN leaves Not-ECT and CE frames alone",
			    test_ecn_leaves_not_ect_and_ce_frames_alone) ||
	       !CU_add_test(s, "ECN keeps a wrong IP checksum wrong",
			    test_ecn_keeps_a_wrong_ip_checksum_wrong) ||
	       !CU_add_test(s, "same seed: same frames at the same times",
			    test_same_seed_same_frames_at_the_same_times) ||
	       !CU_add_test(s, "bad arguments are refused", test_bad_arguments_are_refused) ||
	       !CU_add_test(s, "bad configs are refused", test_bad_configs_are_refused) ||
	       !CU_add_test(s, "free releases frames in flight", test_free_releases_frames_in_flight) ||
	       !CU_add_test(s, "fates have names", test_fates_have_names);
}
