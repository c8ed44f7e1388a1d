/* SPDX-License-Identifier: MIT */
/* Status codes of the codec: each malformation has its own name and reason. */
#ifndef ROCELAB_STATUS_H
#define ROCELAB_STATUS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RL_STATUS_LIST(X)                                                                        \
	X(RL_OK, "ok", "the packet decoded cleanly")                                              \
	X(RL_NOT_ROCE, "not-roce", "not a RoCE packet (not UDP port 4791 nor ethertype 0x8915)")  \
	X(RL_E_ICRC, "icrc-mismatch", "the ICRC does not match the packet: a receiver drops it")   \
	X(RL_E_UNKNOWN_OPCODE, "unknown-opcode", "the BTH opcode is reserved in the IB spec")      \
	X(RL_E_TRUNC_L2, "truncated-l2", "the frame ends inside its link-layer header")            \
	X(RL_E_TRUNC_IP, "truncated-ip", "the frame ends inside the IP header or its payload")     \
	X(RL_E_IP_VERSION, "ip-version", "the IP version field disagrees with the ethertype")      \
	X(RL_E_IP_HDR_LEN, "ip-header-length", "the IPv4 header length (IHL) is below 5 words")    \
	X(RL_E_IP_LEN, "ip-length", "the IP length field is smaller than the IP header")           \
	X(RL_E_IP_FRAGMENT, "ip-fragment", "the IP packet is a fragment: RoCE never fragments")    \
	X(RL_E_TRUNC_UDP, "truncated-udp", "the packet ends inside the UDP header")               \
	X(RL_E_UDP_LEN, "udp-length", "the UDP length disagrees with the IP length")              \
	X(RL_E_TRUNC_BTH, "truncated-bth", "the packet ends inside the 12-byte BTH")              \
	X(RL_E_TVER, "bad-tver", "the BTH transport header version is not 0")                     \
	X(RL_E_MISSING_HDR, "missing-header", "a header that the opcode requires is missing")     \
	X(RL_E_TRUNC_ICRC, "truncated-icrc", "the packet is too short to hold the 4-byte ICRC")   \
	X(RL_E_PAD, "bad-pad", "the pad count is inconsistent with the payload")                   \
	X(RL_E_PAYLOAD_LEN, "payload-length", "the payload length is not allowed for this opcode") \
	X(RL_E_GRH, "bad-grh", "the RoCEv1 GRH next header is not 0x1B (IBA transport)")           \
	X(RL_E_ARG, "bad-argument", "a caller passed an invalid argument")                         \
	X(RL_E_NOSPACE, "no-space", "the output buffer is too small for the packet")                 \
	X(RL_CUT, "cut", "the capture's snap length cut the packet: its headers are decoded, its ICRC is unknown")

enum rl_status {
#define RL_STATUS_ENUM(name, tag, reason) name,
	RL_STATUS_LIST(RL_STATUS_ENUM)
#undef RL_STATUS_ENUM
	RL_STATUS_COUNT
};

/* Short stable tag, e.g. "truncated-bth" (used in JSON and tests). */
const char *rl_status_name(enum rl_status s);
/* One sentence a learner can act on. */
const char *rl_status_reason(enum rl_status s);
/*
 * A fatal status means the packet could not be decoded to its end. The ICRC,
 * unknown-opcode and cut statuses are not fatal: every header was decoded.
 */
static inline bool rl_status_fatal(enum rl_status s)
{
	return s != RL_OK && s != RL_NOT_ROCE && s != RL_E_ICRC && s != RL_E_UNKNOWN_OPCODE && s != RL_CUT;
}

#ifdef __cplusplus
}
#endif
#endif
