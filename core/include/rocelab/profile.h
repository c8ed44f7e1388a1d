/* SPDX-License-Identifier: MIT */
/*
 * A capture's profile: what a RoCE stack does on the wire where the spec
 * leaves it a choice -- UDP checksum, IPv4 Identification, source ports,
 * AckReq, how many packets one ACK covers, credits, timers. Two stacks
 * that interoperate can still differ in all of these; `rocelab explain
 * --compare` prints two profiles side by side.
 *
 * Fed with what the decoder and the analyzer made of each packet, in
 * capture order. Fixed size, no allocation: the IPv4 Identification of
 * more than RL_PROFILE_SENDERS senders is not followed (untracked counts
 * those packets), nor the source port of more than RL_PROFILE_QPS QPs.
 */
#ifndef ROCELAB_PROFILE_H
#define ROCELAB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocelab/analyze.h"
#include "rocelab/packet.h"
#include "rocelab/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RL_PROFILE_SENDERS 32
#define RL_PROFILE_QPS 64
#define RL_PROFILE_RING 4096

/* Count, smallest, largest and sum of a measured time. */
struct rl_profile_range {
	uint64_t n, min, max, sum;
};

struct rl_profile {
	uint64_t packets;              /* RoCE packets that decoded (malformed ones are not profiled) */
	uint64_t ipv4, ipv6, v1;       /* RoCEv2 over IPv4 / IPv6, RoCEv1 */
	uint64_t icrc_bad;
	uint64_t icrc_unknown;         /* cut by the snap length: the ICRC was not captured */

	/* IPv4 and UDP headers (RoCEv2 over IPv4). */
	uint64_t udp_csum_zero;        /* UDP checksum 0: allowed over IPv4 (RFC 768) */
	uint64_t ipid_zero, ipid_next, ipid_other;   /* 0; the same sender's previous + 1; else */
	uint64_t ipid_first;           /* a sender's first packet: nothing to compare with */
	uint64_t df;
	uint8_t ttl_min, ttl_max;
	uint64_t dscp_seen;            /* bit d: DSCP d seen */
	uint8_t ecn_seen;              /* bit e: ECN codepoint e seen */
	uint16_t sport_min, sport_max;
	uint64_t sport_changes;        /* a QP's packets that came from another port than its previous */
	uint64_t untracked;            /* IPv4 packets of senders the table had no room for */

	/* RC requests and ACKs. */
	uint64_t requests, request_ends;   /* request packets; those that end a message (Last, Only) */
	uint64_t ackreq_ends, ackreq_other;
	uint64_t acks;                 /* Acknowledge packets that are ACKs (not NAKs) */
	uint64_t acked_psns;           /* PSNs they acknowledge, together */
	uint32_t acked_max;            /* most PSNs one ACK acknowledged */
	uint64_t credits_none;         /* ACKs whose credit field says "none advertised" (31) */
	uint64_t naks, rnr_naks;
	uint64_t resends;              /* request packets sent again */
	uint32_t pmtu;                 /* largest payload of a First or Middle packet: the path MTU */

	struct rl_profile_range response_ns;   /* request -> its ACK, first READ response or atomic ACK */
	struct rl_profile_range resend_ns;     /* first sending -> the next sending of a PSN */
	struct rl_profile_range rnr_wait_us;   /* what RNR NAKs told the requester to wait */

	struct { uint8_t addr[16]; uint16_t id; } senders[RL_PROFILE_SENDERS];
	unsigned nsenders;
	struct { uint8_t addr[16]; uint32_t dqpn; uint16_t sport; } qps[RL_PROFILE_QPS];
	unsigned nqps;
	struct rl_profile_time { uint64_t frame, t_ns; } ring[RL_PROFILE_RING];   /* recent frames' times */
};

void rl_profile_init(struct rl_profile *p);
/* One packet: @frame is its number in the capture (1-based), @t_ns its time. */
void rl_profile_add(struct rl_profile *p, uint64_t frame, uint64_t t_ns, const struct rl_pkt *pkt,
		    enum rl_status st, const struct rl_annotation *a);

#ifdef __cplusplus
}
#endif
#endif
