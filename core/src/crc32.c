/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 (the Ethernet polynomial, reflected) from a real library: Intel's
 * ISA-L when built with RL_CRC_ISAL, zlib otherwise. Both compute the same
 * values; ISA-L is several times faster on packet-sized buffers.
 */
#include "rocelab/icrc.h"

#ifdef RL_CRC_ISAL
#include <isa-l/crc.h>

/*
 * ISA-L's AVX-512 CRC (crc32_gzip_refl_by16_10 in 2.30) returns with the
 * upper halves of the vector registers still dirty. Until a VZEROUPPER,
 * every legacy SSE instruction the compiler emits in our code (struct copies,
 * the ICRC masks) then pays a state-transition penalty: measured on a 1 KiB
 * decode it tripled the time (bench part 1). VZEROUPPER is valid wherever
 * AVX is, and ISA-L picks an AVX code path only there.
 */
static inline void rl_crc_clean_upper(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx"))
		__asm__ volatile("vzeroupper" ::: "memory");
#endif
}

uint32_t rl_crc32(uint32_t crc, const void *buf, size_t len)
{
	uint32_t r = crc32_gzip_refl(crc, (const unsigned char *)buf, (uint64_t)len);

	rl_crc_clean_upper();
	return r;
}

/* Two buffers, the registers cleaned once: the ICRC's masked headers, then the rest. */
uint32_t rl_crc32_2(uint32_t crc, const void *a, size_t na, const void *b, size_t nb)
{
	uint32_t r = crc32_gzip_refl(crc, (const unsigned char *)a, (uint64_t)na);

	r = crc32_gzip_refl(r, (const unsigned char *)b, (uint64_t)nb);
	rl_crc_clean_upper();
	return r;
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

uint32_t rl_crc32_2(uint32_t crc, const void *a, size_t na, const void *b, size_t nb)
{
	return rl_crc32(rl_crc32(crc, a, na), b, nb);
}

const char *rl_crc32_backend(void)
{
	return "zlib";
}
#endif
