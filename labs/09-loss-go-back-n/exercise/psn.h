/* Lab 09, coding exercise: PSN arithmetic and the RC responder's PSN check. */
#ifndef LAB_PSN_H
#define LAB_PSN_H

#include <stdint.h>

/*
 * @a - @b in the 24-bit PSN space (IBA 9.7.2), as a signed distance from
 * -2^23 to 2^23 - 1. PSNs wrap from 0xffffff to 0, so lab_psn_diff(0, 0xffffff)
 * is 1. Both arguments are PSNs: 0 .. 0xffffff.
 */
int32_t lab_psn_diff(uint32_t a, uint32_t b);

enum lab_psn_verdict {
	LAB_PSN_IN_ORDER,  /* the PSN expected: execute the request */
	LAB_PSN_DUPLICATE, /* one of the 2^23 PSNs before it: answer again, do not execute again */
	LAB_PSN_SEQ_ERR,   /* any other: packets were lost; NAK "PSN sequence error" with @epsn */
};

/* An RC responder that expects PSN @epsn receives a request with PSN @psn (IBA 9.7.5.1.1). */
enum lab_psn_verdict lab_psn_check(uint32_t epsn, uint32_t psn);

#endif
