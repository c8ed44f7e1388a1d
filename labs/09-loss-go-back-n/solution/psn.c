/* Lab 09, a solution: PSN arithmetic and the RC responder's PSN check. */
#include "psn.h"

int32_t lab_psn_diff(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & 0xffffff; /* the distance forward from b to a, modulo 2^24 */

	/* The upper half of the circle is behind: the distance backward is d - 2^24. */
	return d & 0x800000 ? (int32_t)d - 0x1000000 : (int32_t)d;
}

enum lab_psn_verdict lab_psn_check(uint32_t epsn, uint32_t psn)
{
	int32_t d = lab_psn_diff(psn, epsn);

	if (d == 0)
		return LAB_PSN_IN_ORDER;
	return d < 0 ? LAB_PSN_DUPLICATE : LAB_PSN_SEQ_ERR;
}
