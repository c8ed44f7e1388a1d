/* SPDX-License-Identifier: MIT */
/*
 * Numbers without printf: `rocelab explain` prints several on every line of
 * captures of millions of frames, so each digit costs. Two digits are written
 * at a time from tables, and arithmetic stays in 32 bits while the value fits.
 */
#include "rocelab/strbuf.h"

/* "00" "01" ... "99": the decimal digits of 0 .. 99, two characters each. */
static const char rl_dec_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* "00" "01" ... "ff": the hex digits of a byte. */
#define RL_HEX_ROW(h) h "0" h "1" h "2" h "3" h "4" h "5" h "6" h "7" h "8" h "9" h "a" h "b" h "c" h "d" h "e" h "f"
static const char rl_hex_pairs[] =
	RL_HEX_ROW("0") RL_HEX_ROW("1") RL_HEX_ROW("2") RL_HEX_ROW("3") RL_HEX_ROW("4") RL_HEX_ROW("5")
	RL_HEX_ROW("6") RL_HEX_ROW("7") RL_HEX_ROW("8") RL_HEX_ROW("9") RL_HEX_ROW("a") RL_HEX_ROW("b")
	RL_HEX_ROW("c") RL_HEX_ROW("d") RL_HEX_ROW("e") RL_HEX_ROW("f");

/* The longest a number gets: 20 decimal digits, or "0x" and 16 hex digits. */
#define RL_SB_NUM_MAX 20

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

/* Room for @n more characters and the NUL: where they go, or NULL (then through a copy, truncated). */
static char *rl_sb_room(struct rl_sb *sb, size_t n)
{
	return sb->len + n < sb->cap ? sb->buf + sb->len : NULL;
}

/* The characters at @s were written in place (@s from rl_sb_room) or into a copy: append them. */
static void rl_sb_commit(struct rl_sb *sb, const char *s, size_t n)
{
	if (s != sb->buf + sb->len) {
		rl_sb_putn_slow(sb, s, n);
		return;
	}
	sb->len += n;
	sb->buf[sb->len] = 0;
}

static unsigned rl_dec_digits(uint64_t v)
{
	unsigned n = 0;

	for (;;) {
		if (v < 10)
			return n + 1;
		if (v < 100)
			return n + 2;
		if (v < 1000)
			return n + 3;
		if (v < 10000)
			return n + 4;
		v /= 10000;
		n += 4;
	}
}

/* The decimal digits of @v, ending just before @end; returns where they start. */
static char *rl_dec_back(char *end, uint64_t v)
{
	uint32_t w;

	while (v > UINT32_MAX) {
		uint64_t q = v / 100;

		end -= 2;
		memcpy(end, rl_dec_pairs + 2 * (v - q * 100), 2);
		v = q;
	}
	for (w = (uint32_t)v; w >= 100;) {
		uint32_t q = w / 100;

		end -= 2;
		memcpy(end, rl_dec_pairs + 2 * (w - q * 100), 2);
		w = q;
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, rl_dec_pairs + 2 * w, 2);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
}

void rl_sb_u64w(struct rl_sb *sb, uint64_t v, unsigned width)
{
	unsigned n = rl_dec_digits(v);
	char tmp[RL_SB_NUM_MAX], *out, *p;

	if (n < width)
		n = width < RL_SB_NUM_MAX ? width : RL_SB_NUM_MAX;
	out = rl_sb_room(sb, n);
	if (!out)
		out = tmp;
	p = rl_dec_back(out + n, v);
	while (p > out)
		*--p = '0';
	rl_sb_commit(sb, out, n);
}

static unsigned rl_hex_digits(uint64_t v)
{
	unsigned n = 1;

	if (v >> 32) {
		n += 8;
		v >>= 32;
	}
	if (v >> 16) {
		n += 4;
		v >>= 16;
	}
	if (v >> 8) {
		n += 2;
		v >>= 8;
	}
	return v >> 4 ? n + 1 : n;
}

void rl_sb_hex(struct rl_sb *sb, uint64_t v, unsigned width)
{
	unsigned n = rl_hex_digits(v);
	char tmp[RL_SB_NUM_MAX], *out, *p;

	if (n < width)
		n = width < 16 ? width : 16;
	out = rl_sb_room(sb, n + 2);
	if (!out)
		out = tmp;
	out[0] = '0';
	out[1] = 'x';
	p = out + 2 + n;
	for (unsigned i = 1; i < n; i += 2, v >>= 8) {
		p -= 2;
		memcpy(p, rl_hex_pairs + 2 * (v & 0xff), 2);
	}
	if (n & 1)
		p[-1] = rl_hex_pairs[2 * (v & 15) + 1];
	rl_sb_commit(sb, out, n + 2);
}

/* A byte's decimal digits, then in the fourth character their count. */
#define RL_DEC_BYTE(v)                                                                                   \
	{ (char)('0' + ((v) >= 100 ? (v) / 100 : (v) >= 10 ? (v) / 10 : (v))),                               \
	  (char)((v) >= 100 ? '0' + (v) / 10 % 10 : (v) >= 10 ? '0' + (v) % 10 : 0),                         \
	  (char)((v) >= 100 ? '0' + (v) % 10 : 0), (char)((v) >= 100 ? 3 : (v) >= 10 ? 2 : 1) }
#define RL_DEC_BYTES4(v) RL_DEC_BYTE(v), RL_DEC_BYTE((v) + 1), RL_DEC_BYTE((v) + 2), RL_DEC_BYTE((v) + 3)
#define RL_DEC_BYTES16(v) RL_DEC_BYTES4(v), RL_DEC_BYTES4((v) + 4), RL_DEC_BYTES4((v) + 8), RL_DEC_BYTES4((v) + 12)
#define RL_DEC_BYTES64(v) \
	RL_DEC_BYTES16(v), RL_DEC_BYTES16((v) + 16), RL_DEC_BYTES16((v) + 32), RL_DEC_BYTES16((v) + 48)
static const char rl_dec_byte_tab[256][4] = { RL_DEC_BYTES64(0), RL_DEC_BYTES64(64), RL_DEC_BYTES64(128),
					      RL_DEC_BYTES64(192) };

/*
 * The decimal digits of @v (0 .. 255) at @p, which has room for four characters
 * (the fourth is scribbled on); returns the end of the digits.
 */
static char *rl_dec_byte(char *p, unsigned v)
{
	memcpy(p, rl_dec_byte_tab[v], 4);
	return p + rl_dec_byte_tab[v][3];
}

void rl_sb_dec_bytes(struct rl_sb *sb, const uint8_t *a, size_t n, char sep)
{
	char *out = n ? rl_sb_room(sb, 4 * n) : NULL, *p = out;

	if (!out) {   /* near the end of the buffer: byte by byte, truncated */
		for (size_t i = 0; i < n; i++) {
			char tmp[5], *e = tmp;

			if (i)
				*e++ = sep;
			e = rl_dec_byte(e, a[i]);
			rl_sb_putn(sb, tmp, (size_t)(e - tmp));
		}
		return;
	}
	p = rl_dec_byte(p, a[0]);
	for (size_t i = 1; i < n; i++) {
		*p++ = sep;
		p = rl_dec_byte(p, a[i]);
	}
	rl_sb_commit(sb, out, (size_t)(p - out));
}
