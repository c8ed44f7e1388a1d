/* Lab 01, reference solution: the BTH, byte by byte as IBA 9.2 lays it out. */
#include "bth.h"

int lab_parse_bth(const uint8_t *p, size_t len, struct lab_bth *b)
{
	if (len < 12)
		return -1;
	b->opcode = p[0];
	b->se = p[1] >> 7;
	b->migreq = (p[1] >> 6) & 1;
	b->padcnt = (p[1] >> 4) & 3;
	b->tver = p[1] & 0x0f;
	b->pkey = (uint16_t)(p[2] << 8 | p[3]);
	b->fecn = p[4] >> 7;
	b->becn = (p[4] >> 6) & 1;
	b->dqpn = (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
	b->ackreq = p[8] >> 7;
	b->psn = (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11];
	return 0;
}
