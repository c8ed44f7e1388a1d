/* SPDX-License-Identifier: MIT */
/*
 * Byte-level helpers for the InfiniBand transport headers carried by RoCE.
 *
 * The field rows (core/src/field_rows.h, the table of rocelab/field.h) are
 * the source of truth for every header's layout: the decoder and encoder
 * are generated from them. The few accessors below, in the manner of the
 * Linux rxe driver's rxe_hdr.h, serve code that reads or edits a frame's
 * bytes in place (rewrite.c, pcapgen's crafted damage, the encoder's pad
 * count, lab graders); each takes a pointer to the first byte of its header
 * and hides byte order and bit packing. Add one only for such a caller.
 * Also here: PSN arithmetic and the AETH syndrome's parts.
 */
#ifndef ROCELAB_HDR_H
#define ROCELAB_HDR_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Big-endian loads and stores. */
static inline uint16_t rl_get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t rl_get24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
static inline uint32_t rl_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t rl_get64(const uint8_t *p) { return (uint64_t)rl_get32(p) << 32 | rl_get32(p + 4); }
static inline void rl_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void rl_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16); p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)v;
}
static inline void rl_put32(uint8_t *p, uint32_t v) { rl_put16(p, (uint16_t)(v >> 16)); rl_put16(p + 2, (uint16_t)v); }
static inline void rl_put64(uint8_t *p, uint64_t v) { rl_put32(p, (uint32_t)(v >> 32)); rl_put32(p + 4, (uint32_t)v); }

static inline void rl_setbits8(uint8_t *p, uint8_t mask, unsigned shift, unsigned v)
{
	*p = (uint8_t)((*p & ~mask) | ((v << shift) & mask));
}

/*
 * PSNs are 24 bits and wrap from 0xffffff to 0 (IBA 9.7.2): compare them by
 * their distance, never with < on the raw numbers. a - b, as a signed
 * distance from -2^23 to 2^23 - 1.
 */
static inline int32_t rl_psn_diff(uint32_t a, uint32_t b) { return (int32_t)((a - b) << 8) >> 8; }
#define RL_PSN_MASK 0xffffffu   /* a PSN's 24 bits (IBA 9.2, BTH) */
static inline uint32_t rl_psn_add(uint32_t psn, uint32_t n) { return (psn + n) & RL_PSN_MASK; }

/* BTH, IBA 9.2 (the layout: the BTH rows of field_rows.h). */
static inline uint8_t rl_bth_opcode(const uint8_t *b) { return b[0]; }
static inline bool rl_bth_se(const uint8_t *b) { return b[1] & 0x80; }
static inline bool rl_bth_migreq(const uint8_t *b) { return b[1] & 0x40; }
static inline uint8_t rl_bth_padcnt(const uint8_t *b) { return (b[1] >> 4) & 3; }
static inline uint8_t rl_bth_tver(const uint8_t *b) { return b[1] & 0x0f; }
static inline uint16_t rl_bth_pkey(const uint8_t *b) { return rl_get16(b + 2); }
static inline bool rl_bth_fecn(const uint8_t *b) { return b[4] & 0x80; }
static inline bool rl_bth_becn(const uint8_t *b) { return b[4] & 0x40; }
static inline uint32_t rl_bth_dqpn(const uint8_t *b) { return rl_get24(b + 5); }
static inline bool rl_bth_ackreq(const uint8_t *b) { return b[8] & 0x80; }
static inline uint32_t rl_bth_psn(const uint8_t *b) { return rl_get24(b + 9); }

static inline void rl_bth_set_opcode(uint8_t *b, uint8_t v) { b[0] = v; }
static inline void rl_bth_set_padcnt(uint8_t *b, uint8_t v) { rl_setbits8(b + 1, 0x30, 4, v); }
static inline void rl_bth_set_tver(uint8_t *b, uint8_t v) { rl_setbits8(b + 1, 0x0f, 0, v); }
static inline void rl_bth_set_dqpn(uint8_t *b, uint32_t v) { rl_put24(b + 5, v); }
static inline void rl_bth_set_psn(uint8_t *b, uint32_t v) { rl_put24(b + 9, v); }

/* DETH, IBA 9.3.2: the source QP, bytes 5-7 (rewrite.c renumbers it). */
static inline uint32_t rl_deth_srcqp(const uint8_t *h) { return rl_get24(h + 5); }
static inline void rl_deth_set_srcqp(uint8_t *h, uint32_t v) { h[4] = 0; rl_put24(h + 5, v); }

/*
 * The AETH syndrome, IBA 9.7.5.1 Table 43:
 *   bit 7      reserved (0)
 *   bits 6-5   00 ACK, 01 RNR NAK, 10 reserved, 11 NAK
 *   bits 4-0   ACK: credit count; RNR NAK: RNR timer; NAK: NAK code
 */
enum rl_aeth_type { RL_AETH_ACK = 0, RL_AETH_RNR_NAK = 1, RL_AETH_RESERVED = 2, RL_AETH_NAK = 3 };

/* NAK codes, IBA 9.7.5.2.4 Table 44. */
enum rl_nak_code {
	RL_NAK_PSN_SEQ_ERR = 0,
	RL_NAK_INVALID_REQ = 1,
	RL_NAK_REM_ACCESS_ERR = 2,
	RL_NAK_REM_OP_ERR = 3,
	RL_NAK_INVALID_RD_REQ = 4,
};

/* Credit count 31 means "no credits advertised", IBA 9.7.5.1 Table 45. */
#define RL_AETH_CREDITS_INVALID 0x1f

static inline enum rl_aeth_type rl_syndrome_type(uint8_t s) { return (enum rl_aeth_type)((s >> 5) & 3); }
static inline uint8_t rl_syndrome_value(uint8_t s) { return s & 0x1f; }
static inline uint8_t rl_syndrome_make(enum rl_aeth_type t, uint8_t value)
{
	return (uint8_t)(((unsigned)t & 3) << 5 | (value & 0x1f));
}

const char *rl_aeth_type_name(enum rl_aeth_type t);
const char *rl_nak_code_name(uint8_t code);
/* What a NAK code means, one sentence for a learner. */
const char *rl_nak_code_meaning(uint8_t code);
/* Minimum RNR NAK delay for an RNR timer value, in microseconds (IBA 9.7.5.2.8 Table 46). */
uint32_t rl_rnr_timer_us(uint8_t timer);
/* Number of credits meant by an ACK's credit count field (IBA 9.7.7.2 Table 45); -1 if invalid. */
int rl_credit_count(uint8_t value);
/* The credit count field that advertises @n receive WQEs: the largest count not above @n (Table 45). */
uint8_t rl_credit_code(uint32_t n);

#ifdef __cplusplus
}
#endif
#endif
