/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 (the Ethernet polynomial, reflected) from a real library: Intel's
 * ISA-L when built with RL_CRC_ISAL, zlib otherwise. Both compute the same
 * values; ISA-L is several times faster on packet-sized buffers.
 */
#include "rocelab/icrc.h"

#ifdef RL_CRC_ISAL
#include <isa-l/crc.h>

uint32_t rl_crc32(uint32_t crc, const void *buf, size_t len)
{
	return crc32_gzip_refl(crc, (const unsigned char *)buf, (uint64_t)len);
}

const char *rl_crc32_backend(void)
{
	return "isa-l";
}
#else
#include <limits.h>
#include <zlib.h>

uint32_t rl_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uLong c = crc;

	while (len > UINT_MAX) {
		c = crc32(c, p, UINT_MAX);
		p += UINT_MAX;
		len -= UINT_MAX;
	}
	return (uint32_t)crc32(c, p, (uInt)len);
}

const char *rl_crc32_backend(void)
{
	return "zlib";
}
#endif
