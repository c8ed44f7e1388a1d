/*
 * Lab 14, coding exercise: complete lab_icrc() (see icrc.h), then run
 * `make grade`. zlib's crc32(crc, buf, n) continues a CRC: start with
 * crc32(0, NULL, 0) and feed it the pieces in order.
 */
#include <zlib.h>

#include "icrc.h"

uint32_t lab_icrc(const uint8_t *pkt, size_t len)
{
	(void)pkt;
	(void)len;
	return 0; /* TODO */
}
