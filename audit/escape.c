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

/* The escape of one byte below 0x80 into out (1, 2 or 6 bytes). */
static size_t esc_ascii(unsigned char c, char *out)
{
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
	out[0] = (char)c;
	return 1;
}

size_t audit_esc_unit(const unsigned char *src, size_t len, size_t *used,
		      char *out)
{
	unsigned char c = src[0];
	size_t n;

	*used = 1;
	if (c < 0x80)
		return esc_ascii(c, out);
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

/* ---- terminal text ---------------------------------------------------- */

/* The code point of the well-formed sequence src[0..n). */
static uint32_t utf8_decode(const unsigned char *src, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = src[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (src[i] & 0x3f);
	return cp;
}

/* Characters a terminal acts on or that make text read otherwise than it
 * is held: C1 controls, bidi controls, line and paragraph separators. */
static bool tty_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The terminal form of the unit at src[0] (len > 0) into out (at least
 * AUDIT_ESC_UNIT_MAX bytes); *used gets the source bytes it stands for. */
static size_t tty_unit(const unsigned char *src, size_t len, size_t *used,
		       char *out)
{
	unsigned char c = src[0];
	uint32_t cp;
	size_t n;

	*used = 1;
	if (c >= 0x20 && c < 0x7f && c != '\\') {
		out[0] = (char)c;
		return 1;
	}
	if (c == '\\' || c == '\n' || c == '\r' || c == '\t') {
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : '\\';
		return 2;
	}
	n = c < 0x80 ? 0 : audit_utf8_seq_len(src, len);
	if (n == 0) {
		/* C0, DEL, a byte of no well-formed sequence. */
		memcpy(out, "\\x", 2);
		out[2] = hexdig[c >> 4];
		out[3] = hexdig[c & 0xf];
		return 4;
	}
	*used = n;
	cp = utf8_decode(src, n);
	if (tty_hidden(cp)) {
		memcpy(out, "\\u", 2);
		for (int i = 0; i < 4; i++)
			out[2 + i] = hexdig[(cp >> (12 - 4 * i)) & 0xf];
		return 6;
	}
	memcpy(out, src, n);
	return n;
}

size_t audit_escape_tty(char *dst, size_t dst_len, const void *src,
			size_t src_len)
{
	const unsigned char *s = src;
	size_t need = 0, written = 0, i = 0;
	bool cut = dst_len == 0;

	while (i < src_len) {
		char unit[AUDIT_ESC_UNIT_MAX];
		size_t used, n = tty_unit(s + i, src_len - i, &used, unit);

		/* A unit goes in whole or not at all. */
		if (!cut && n <= dst_len - 1 - written) {
			memcpy(dst + written, unit, n);
			written += n;
		} else {
			cut = true;
		}
		need += n;
		i += used;
	}
	if (dst_len > 0)
		dst[written] = '\0';
	return need;
}

/* ---- the writer's fast path ------------------------------------------ */

/* Words loaded and stored at any byte address (no copy through memory,
 * no address taken). */
typedef uint64_t __attribute__((may_alias, aligned(1))) u64_any;
typedef uint32_t __attribute__((may_alias, aligned(1))) u32_any;

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
#define ONES4 0x01010101U
#define HIGHS4 0x80808080U

/*
 * The bytes of a word that are not copied as they are: a mask with the
 * high bit of each byte that is >= 0x80, < 0x20, 0x7f, '"' or '\\' set.
 * Nonzero exactly when the word has such a byte, and its lowest set bit
 * marks the first one in memory on a little-endian machine: the tests
 * (v - ONES) & ~v ... borrow only upwards, and only out of a byte they
 * flag themselves (a byte below 0x20, or a byte equal to the one looked
 * for), so no byte under the first one flagged is flagged wrongly.
 */
#define BAD_BYTES(x, ones, highs)                                          \
	(((x) & (highs)) |                                                 \
	 (((x) - (ones) * 0x20) & ~(x) & (highs)) |                        \
	 ((((x) ^ ((ones) * 0x7f)) - (ones)) & ~((x) ^ ((ones) * 0x7f)) &  \
	  (highs)) |                                                       \
	 ((((x) ^ ((ones) * '"')) - (ones)) & ~((x) ^ ((ones) * '"')) &    \
	  (highs)) |                                                       \
	 ((((x) ^ ((ones) * '\\')) - (ones)) & ~((x) ^ ((ones) * '\\')) &  \
	  (highs)))

static inline bool plain1(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/* Index of the first byte a nonzero BAD_BYTES mask m of the word at s
 * flags (the plain bytes before it are copied as they are). */
static inline size_t first_bad(const unsigned char *s, uint64_t m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	(void)s;
	return (size_t)__builtin_ctzll(m) / 8;
#else
	/* Big-endian: the mask is exact only as a truth value; look. */
	size_t k = 0;

	(void)m;
	while (plain1(s[k]))
		k++;
	return k;
#endif
}

/*
 * dst has room for AUDIT_ESC_UNIT_MAX bytes per byte of src (the worst
 * case).  Plain bytes are copied a word (8, then 4 bytes) at a time: the
 * word is stored before it is looked at, and when it holds a byte to
 * escape only the plain bytes before that one count; the rest of the
 * store is overwritten next.  A store of w bytes at d is made only while
 * w or more source bytes are left, for which the room left is at least
 * 6 * w: no byte outside the room is ever written.
 */
size_t audit_esc_fast(char *dst, const unsigned char *src, size_t len,
		      bool *lossy)
{
	char *d = dst;
	size_t i = 0;
	bool bad = false;

	while (i < len) {
		size_t left = len - i, k, n;
		unsigned char c;

		if (left >= 8) {
			uint64_t x = *(const u64_any *)(src + i), m;

			*(u64_any *)d = x;
			m = BAD_BYTES(x, ONES, HIGHS);
			if (m == 0) {
				d += 8;
				i += 8;
				continue;
			}
			k = first_bad(src + i, m);
		} else if (left >= 4) {
			uint32_t x = *(const u32_any *)(src + i), m;

			*(u32_any *)d = x;
			m = BAD_BYTES(x, ONES4, HIGHS4);
			if (m == 0) {
				d += 4;
				i += 4;
				continue;
			}
			k = first_bad(src + i, m);
		} else if (plain1(src[i])) {
			*d++ = (char)src[i++];
			continue;
		} else {
			k = 0;
		}
		d += k;
		i += k;
		/* src[i] is not copied as it is. */
		c = src[i];
		if (c < 0x80) {
			/* '"', '\\', controls, DEL: audit_esc_unit's table;
			 * NUL is exact but not clean. */
			bad |= c == 0;
			d += esc_ascii(c, d);
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
	*lossy = bad;
	return (size_t)(d - dst);
}
