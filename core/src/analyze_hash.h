/* SPDX-License-Identifier: MIT */
/*
 * The analyzer's flow keys and their hash (analyze.c's inside), apart so
 * that tests/unit/test_analyze.c can find keys whose 32-bit hashes are equal
 * and check that such flows are still told apart. Nothing here is public API.
 */
#ifndef ROCELAB_ANALYZE_HASH_H
#define ROCELAB_ANALYZE_HASH_H

#include <stdint.h>
#include <string.h>

#include "rocelab/opcode.h"

/*
 * The flows are found through three hash tables (open addressing, linear
 * probing), each mapping a key to the indexes of the flows that have it:
 *
 *	AN_BY_REQUEST	a request: requester's and responder's addresses, the
 *			responder's QPN (BTH DestQP) and the transport; every flow
 *	AN_BY_REQUESTER	an RC response: the same addresses and the requester's
 *			QPN (its DestQP), for flows that learned it
 *	AN_BY_ADDRS	an RC response to a flow that has not learned it yet:
 *			the addresses alone
 *
 * A key may map to several flows (a QPN reused by a new connection): a
 * lookup takes the one with the lowest index, as a scan in order would.
 */
enum an_index {
	AN_BY_REQUEST,
	AN_BY_REQUESTER,
	AN_BY_ADDRS,
	AN_INDEXES
};

/* splitmix64's finalizer: every input bit moves about half the output bits. */
static inline uint64_t an_mix(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/*
 * The hash of key (@req_ip, @resp_ip, @v) in index @k (addresses as IPv6, an
 * IPv4 one in the last 4 bytes): each word multiplied by its own odd
 * constant, mixed once. @v is an_request_key() in AN_BY_REQUEST, the
 * requester's QPN in AN_BY_REQUESTER, 0 in AN_BY_ADDRS.
 */
static inline uint32_t an_hash(const uint8_t req_ip[16], const uint8_t resp_ip[16], enum an_index k, uint64_t v)
{
	uint64_t w[4];

	memcpy(w, req_ip, 16);
	memcpy(w + 2, resp_ip, 16);
	return (uint32_t)an_mix(w[0] * 0x9e3779b97f4a7c15ull ^ w[1] * 0xc2b2ae3d27d4eb4full ^
				w[2] * 0x165667b19e3779f9ull ^ w[3] * 0x27d4eb2f165667c5ull ^ (uint64_t)k << 56 ^ v);
}

/* The value beside the addresses in a request's key: the responder's QPN and the transport. */
static inline uint64_t an_request_key(uint32_t resp_qpn, enum rl_transport tr)
{
	return (uint64_t)resp_qpn << 8 | tr;
}

#endif
