/* SPDX-License-Identifier: MIT */
/* Helpers for the unit tests: a seeded PRNG and packet crafting, in lwIP's manner. */
#ifndef ROCELAB_TESTLIB_H
#define ROCELAB_TESTLIB_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
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

/*
 * scapy's "RoCE layer" example packet (test/contrib/roce.uts): a UC SEND
 * Only, QP 211, PSN 13571856, MigReq, UDP source port 49152, 18 bytes of
 * payload; over IPv4 192.168.0.7 -> 192.168.0.7 (TOS 1, ID 1144) or, with
 * @ipv6, its twin 2022::1023 -> 2023::1024 (traffic class 226, flow label
 * 0x1face, hop limit 255). scapy computes its ICRC as 0x78f353f3 and
 * 0x3e5b743b: a vector nobody here wrote.
 */
void tl_scapy_uc_send(struct rl_pkt *p, bool ipv6);
struct rl_path;
/* The path that packet took, written out from scapy's fields (not from our decoder): DF set, TTL 64 over IPv4. */
void tl_scapy_path(bool ipv6, struct rl_path *path);

/*
 * A CNP captured on a ConnectX-4 Lx (scapy's roce.uts), as hex text for
 * tl_hex(): 10.0.17.1 -> 10.0.18.1, to QP 0x118, UDP checksum 0, DSCP 48 and
 * ECN 2, IPv4 Identification 0x718c (a sender that does not send 0). The
 * BTH starts at TL_CNP_CX4_BTH. tl_cnp_cx4_path() is its path, written out
 * from the header fields as Wireshark shows them, not from our decoder.
 */
extern const char tl_cnp_cx4[];
#define TL_CNP_CX4_BTH (14 + 20 + 8)
void tl_cnp_cx4_path(struct rl_path *path);

/*
 * Mark an Ethernet + IPv4 @frame Congestion Experienced (ECN 11, RFC 3168)
 * and redo its header checksum (RFC 1071), as a switch does; the ICRC does
 * not cover the ECN bits (IBA A17.3.3). False, untouched, if not IPv4.
 */
bool tl_mark_ce_ipv4(uint8_t *frame, size_t len);

/* Parse "aa bb cc ..." / "aabbcc" hex text into @out; returns the byte count. */
size_t tl_hex(const char *text, uint8_t *out, size_t cap);

/*
 * Make the next calloc(1, @size) anywhere in the program (core included)
 * return NULL, once: the unit tests link with -Wl,--wrap=calloc.
 */
void tl_fail_next_calloc(size_t size);

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
int tl_suite_connect(void);
int tl_suite_rewrite(void);
int tl_suite_analyze(void);
int tl_suite_path(void);
int tl_suite_decode_path(void);
int tl_suite_encode_path(void);
int tl_suite_cm(void);
int tl_suite_rdma_cm(void);
int tl_suite_cm_property(void);
int tl_suite_cm_hostile(void);
int tl_suite_srq(void);
int tl_suite_trust(void);
int tl_suite_bottleneck(void);
int tl_suite_dcqcn(void);
int tl_suite_dcqcn_params(void);
int tl_suite_cc_fairness(void);
int tl_suite_cc_pacer(void);

#endif
