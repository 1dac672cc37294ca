/* SPDX-License-Identifier: MIT */
/*
 * audit/escape.c: JSON string escaping of arbitrary bytes (tracee paths,
 * argv, environment).  Side-effect free; the output is always valid JSON
 * and valid UTF-8 whatever the input.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "audit/audit.h"
#include "audit/escape.h"

/* U+FFFD REPLACEMENT CHARACTER, written in place of each invalid byte. */
static const char utf8_replacement[] = "\xef\xbf\xbd";

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * Well-formed UTF-8 after The Unicode Standard, table 3-7: the ranges of
 * the second byte exclude overlong forms (E0, F0), surrogates (ED) and
 * code points above U+10FFFF (F4).
 */
size_t audit_utf8_seq_len(const unsigned char *src, size_t len)
{
	unsigned char c = src[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0; /* 80..C1 (continuation, overlong 2-byte), F5..FF */

	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;

	if (len < n || src[1] < lo || src[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (!is_cont(src[i]))
			return 0;
	return n;
}

bool audit_utf8_clean(const unsigned char *src, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n;

		if (src[i] >= 0x01 && src[i] < 0x80) {
			i++;
			continue;
		}
		n = audit_utf8_seq_len(src + i, len - i);
		if (n == 0 || src[i] == 0)
			return false;
		i += n;
	}
	return true;
}

size_t audit_esc_plain_run(const unsigned char *src, size_t len)
{
	size_t i = 0;

	while (i < len && src[i] >= 0x20 && src[i] < 0x7f && src[i] != '"' &&
	       src[i] != '\\')
		i++;
	return i;
}

static const char hexdig[] = "0123456789abcdef";

size_t audit_esc_unit(const unsigned char *src, size_t len, size_t *used,
		      char *out)
{
	unsigned char c = src[0];
	size_t n;

	*used = 1;
	switch (c) {
	case '"':
	case '\\':
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	case '\b':
		memcpy(out, "\\b", 2);
		return 2;
	case '\f':
		memcpy(out, "\\f", 2);
		return 2;
	case '\n':
		memcpy(out, "\\n", 2);
		return 2;
	case '\r':
		memcpy(out, "\\r", 2);
		return 2;
	case '\t':
		memcpy(out, "\\t", 2);
		return 2;
	default:
		break;
	}
	/* Other C0 controls and DEL: \u00XX.  These ARE the characters
	 * U+0000..U+001F / U+007F, so the escape is exact, not a byte dump. */
	if (c < 0x20 || c == 0x7f) {
		memcpy(out, "\\u00", 4);
		out[4] = hexdig[c >> 4];
		out[5] = hexdig[c & 0xf];
		return 6;
	}
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	n = audit_utf8_seq_len(src, len);
	if (n == 0) {
		memcpy(out, utf8_replacement, 3);
		return 3;
	}
	memcpy(out, src, n);
	*used = n;
	return n;
}

size_t audit_escape(char *dst, size_t dst_len, const void *src, size_t src_len)
{
	const unsigned char *s = src;
	size_t need = 0, written = 0, i = 0;
	bool cut = dst_len == 0;

	while (i < src_len) {
		char unit[AUDIT_ESC_UNIT_MAX];
		size_t used, n = audit_esc_plain_run(s + i, src_len - i);
		const char *from = (const char *)s + i;
		bool plain = n > 0;

		if (plain) {
			used = n;
		} else {
			n = audit_esc_unit(s + i, src_len - i, &used, unit);
			from = unit;
		}
		if (!cut) {
			size_t room = dst_len - 1 - written;

			/* A plain run is cut anywhere; an escape or a UTF-8
			 * sequence goes in whole or not at all. */
			if (n <= room) {
				memcpy(dst + written, from, n);
				written += n;
			} else {
				if (plain) {
					memcpy(dst + written, from, room);
					written += room;
				}
				cut = true;
			}
		}
		need += n;
		i += used;
	}
	if (dst_len > 0)
		dst[written] = '\0';
	return need;
}

/* ---- the writer's fast path ------------------------------------------ */

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Nonzero when some byte of v is zero (exact as a truth value). */
static inline uint64_t has_zero(uint64_t v)
{
	return (v - ONES) & ~v & HIGHS;
}

/*
 * Are the 8 bytes of x all copied as they are: 0x20-0x7e but '"' and '\\'?
 * Checked in order: a high bit (>= 0x80); then, all bytes being below 0x80,
 * one below 0x20 (x - 0x20 borrows into its high bit); then 0x7f, '"', '\\'.
 */
static inline bool plain8(uint64_t x)
{
	if (x & HIGHS)
		return false;
	if ((x - ONES * 0x20) & ~x & HIGHS)
		return false;
	return !(has_zero(x ^ (ONES * 0x7f)) | has_zero(x ^ (ONES * '"')) |
		 has_zero(x ^ (ONES * '\\')));
}

static inline bool plain1(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

size_t audit_esc_fast(char *dst, const unsigned char *src, size_t len,
		      bool *lossy)
{
	char *d = dst;
	size_t i = 0;
	bool bad = false;

	while (i < len) {
		size_t stop;

		if (len - i >= 8) {
			uint64_t x;

			memcpy(&x, src + i, 8);
			if (plain8(x)) {
				memcpy(d, &x, 8);
				d += 8;
				i += 8;
				continue;
			}
			stop = i + 8;
		} else {
			stop = len;
		}
		/* One unit at a time to the end of this window (a UTF-8
		 * sequence may run past it). */
		while (i < stop) {
			unsigned char c = src[i];
			size_t n;

			if (plain1(c)) {
				*d++ = (char)c;
				i++;
			} else if (c < 0x80) {
				/* '"', '\\', controls, DEL: audit_esc_unit's
				 * table; NUL is exact but not clean. */
				size_t used;

				bad |= c == 0;
				d += audit_esc_unit(src + i, len - i, &used, d);
				i++;
			} else if ((n = audit_utf8_seq_len(src + i, len - i))) {
				memcpy(d, src + i, n);
				d += n;
				i += n;
			} else {
				memcpy(d, utf8_replacement, 3);
				d += 3;
				i++;
				bad = true;
			}
		}
	}
	*lossy = bad;
	return (size_t)(d - dst);
}
