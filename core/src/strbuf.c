/* SPDX-License-Identifier: MIT */
#include "rocelab/strbuf.h"

void rl_sb_putn_slow(struct rl_sb *sb, const char *s, size_t n)
{
	if (sb->len + 1 >= sb->cap)
		return;
	if (n > sb->cap - 1 - sb->len)
		n = sb->cap - 1 - sb->len;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

static unsigned rl_dec_digits(uint64_t v)
{
	uint64_t p = 10;
	unsigned n = 1;

	while (n < 20 && v >= p) {
		n++;
		p *= 10;       /* wraps only after n reaches 20 */
	}
	return n;
}

void rl_sb_u64w(struct rl_sb *sb, uint64_t v, unsigned width)
{
	/* Two digits per division: "00" "01" ... "99". */
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	unsigned n = rl_dec_digits(v);
	char tmp[24], *end, *p;

	if (n < width)
		n = width < 20 ? width : 20;
	/* Write in place when it fits, else through tmp (then truncated). */
	end = sb->len + n < sb->cap ? sb->buf + sb->len + n : tmp + n;
	p = end;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (v >= 10) {
		*--p = pairs[v * 2 + 1];
		*--p = pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	while (p > end - n)
		*--p = '0';
	if (end == tmp + n) {
		rl_sb_putn_slow(sb, tmp, n);
		return;
	}
	sb->len += n;
	*end = 0;
}

void rl_sb_u64(struct rl_sb *sb, uint64_t v)
{
	rl_sb_u64w(sb, v, 1);
}

void rl_sb_hex(struct rl_sb *sb, uint64_t v, unsigned width)
{
	static const char digits[] = "0123456789abcdef";
	unsigned n = 1;
	char tmp[20], *end, *p;

	while (n < 16 && (v >> (4 * n)))
		n++;
	if (n < width)
		n = width < 16 ? width : 16;
	end = sb->len + n + 2 < sb->cap ? sb->buf + sb->len + n + 2 : tmp + n + 2;
	p = end;
	for (unsigned i = 0; i < n; i++, v >>= 4)
		*--p = digits[v & 15];
	*--p = 'x';
	*--p = '0';
	if (end == tmp + n + 2) {
		rl_sb_putn_slow(sb, tmp, n + 2);
		return;
	}
	sb->len += n + 2;
	*end = 0;
}
