/* SPDX-License-Identifier: MIT */
/*
 * A string builder over a caller's buffer: appends never overflow and the
 * text stays NUL-terminated. Numbers are formatted without printf, which
 * keeps `rocelab explain` faster than tcpdump on big captures.
 */
#ifndef ROCELAB_STRBUF_H
#define ROCELAB_STRBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rl_sb {
	char *buf;
	size_t len;     /* characters written, not counting the NUL */
	size_t cap;     /* size of buf, at least 1 */
};

static inline void rl_sb_init(struct rl_sb *sb, char *buf, size_t cap)
{
	sb->buf = buf;
	sb->len = 0;
	sb->cap = cap;
	if (cap)
		buf[0] = 0;
}

static inline void rl_sb_putc(struct rl_sb *sb, char c)
{
	if (sb->len + 1 < sb->cap) {
		sb->buf[sb->len++] = c;
		sb->buf[sb->len] = 0;
	}
}

/* Append @n bytes (truncated to what fits). */
void rl_sb_putn_slow(struct rl_sb *sb, const char *s, size_t n);

static inline void rl_sb_putn(struct rl_sb *sb, const char *s, size_t n)
{
	if (sb->len + n < sb->cap) {
		memcpy(sb->buf + sb->len, s, n);
		sb->len += n;
		sb->buf[sb->len] = 0;
	} else {
		rl_sb_putn_slow(sb, s, n);
	}
}

/* Inline so that the length of a string literal is known at compile time. */
static inline void rl_sb_puts(struct rl_sb *sb, const char *s)
{
	rl_sb_putn(sb, s, strlen(s));
}

/* "0x" and lower-case hex digits, zero-padded to at least @width digits. */
void rl_sb_hex(struct rl_sb *sb, uint64_t v, unsigned width);
/* Decimal, zero-padded to exactly @width digits (for fractions). */
void rl_sb_u64w(struct rl_sb *sb, uint64_t v, unsigned width);

/* Decimal. Inline for one digit, about half the numbers explain prints (seconds, counts). */
static inline void rl_sb_u64(struct rl_sb *sb, uint64_t v)
{
	if (v < 10)
		rl_sb_putc(sb, (char)('0' + v));
	else
		rl_sb_u64w(sb, v, 1);
}
/* The @n bytes at @a in decimal, joined by @sep: "192.168.0.1". */
void rl_sb_dec_bytes(struct rl_sb *sb, const uint8_t *a, size_t n, char sep);

#ifdef __cplusplus
}
#endif
#endif
