/* SPDX-License-Identifier: MIT */
/* Helpers for the unit tests: a seeded PRNG and packet crafting, in lwIP's manner. */
#ifndef ROCELAB_TESTLIB_H
#define ROCELAB_TESTLIB_H

#include <CUnit/CUnit.h>
#include <stdint.h>

#include "rocelab/rocelab.h"

/* xorshift64*: reproducible across machines for a given seed. */
struct tl_rng { uint64_t s; };
uint64_t tl_rand(struct tl_rng *r);
uint32_t tl_rand_below(struct tl_rng *r, uint32_t n);

/* Shapes a crafted frame can take. */
enum tl_shape {
	TL_ETH_V4, TL_ETH_V6, TL_VLAN_V4, TL_VLAN_V6, TL_SLL_V4, TL_SLL2_V6, TL_RAW_V4, TL_RAW_V6,
	TL_ETH_GRH, TL_SHAPE_COUNT
};
extern const char *const tl_shape_names[TL_SHAPE_COUNT];

/*
 * Fill @p for @opcode with random values in every field the opcode carries,
 * framed as @shape; the payload (random, length a function of the opcode's
 * rules) goes in @payload, which must hold 512 bytes.
 */
void tl_random_pkt(struct tl_rng *r, uint8_t opcode, enum tl_shape shape, struct rl_pkt *p,
		   uint8_t *payload);

/* Parse "aa bb cc ..." / "aabbcc" hex text into @out; returns the byte count. */
size_t tl_hex(const char *text, uint8_t *out, size_t cap);

/* Suites; each returns 0 on success. */
int tl_suite_opcode(void);
int tl_suite_field(void);
int tl_suite_codec(void);
int tl_suite_icrc(void);
int tl_suite_malformed(void);
int tl_suite_describe(void);
int tl_suite_simwire(void);
int tl_suite_profile(void);
int tl_suite_rc(void);
int tl_suite_rc_faults(void);
int tl_suite_flush_atomic_write(void);
int tl_suite_property(void);
int tl_suite_qp(void);
int tl_suite_rewrite(void);
int tl_suite_analyze(void);
int tl_suite_path(void);

#endif
