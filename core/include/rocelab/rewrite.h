/* SPDX-License-Identifier: MIT */
/*
 * Rewriting captured frames so that a capture from one setup replays into
 * another: MAC and IP addresses, QP numbers, a PSN shift. The IPv4 header
 * checksum and the ICRC are recomputed; a frame whose ICRC was wrong stays
 * wrong by the same amount, so a corruption lab still shows its corruption.
 */
#ifndef ROCELAB_REWRITE_H
#define ROCELAB_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/packet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RL_REWRITE_MAX 16

struct rl_rewrite {
	struct { uint8_t from[6], to[6]; } mac[RL_REWRITE_MAX];
	size_t nmac;
	struct { uint8_t from[16], to[16]; bool v6; } ip[RL_REWRITE_MAX];
	size_t nip;
	struct { uint32_t from, to; } qpn[RL_REWRITE_MAX];
	size_t nqpn;
	int32_t psn_shift;          /* added to every BTH PSN, modulo 2^24 */
};

/*
 * Parse one rule: "mac:OLD=NEW", "ip:OLD=NEW" (IPv4 or IPv6), "qpn:OLD=NEW"
 * or "psn:+N" / "psn:-N". Returns 0, or -1 with a reason in @why.
 */
int rl_rewrite_parse(struct rl_rewrite *rw, const char *rule, char *why, size_t why_len);

/* "02:00:00:00:00:01" -> 6 bytes; false if it is not a MAC address. */
bool rl_parse_mac(const char *s, uint8_t mac[6]);

/* Is anything to be changed at all? */
bool rl_rewrite_empty(const struct rl_rewrite *rw);

/*
 * Apply @rw to a frame in place. RoCE frames get every rule; other frames
 * only the MAC rules (their own checksums are left alone). Returns RL_OK,
 * RL_NOT_ROCE (MACs rewritten only) or the decode error that stopped it
 * (the frame is then left untouched).
 */
enum rl_status rl_rewrite_frame(const struct rl_rewrite *rw, enum rl_link link, uint8_t *frame, size_t len);

#ifdef __cplusplus
}
#endif
#endif
