/* SPDX-License-Identifier: MIT */
/*
 * audit/escape.h: private to audit/ and its unit tests.  The JSON string
 * encoder shared by the record writer and audit_escape(): a unit-at-a-time
 * interface so callers can append into their own buffers.
 */
#ifndef SYSGATE_AUDIT_ESCAPE_H
#define SYSGATE_AUDIT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Longest encoding of one unit: "\u00XX" is 6 bytes, U+FFFD is 3 bytes,
 * a 4-byte UTF-8 sequence is 4 bytes. */
#define AUDIT_ESC_UNIT_MAX 6

/*
 * Length of the longest run of bytes at src[0..len) that are copied to the
 * JSON string as they are (printable ASCII other than '"' and '\\').
 */
size_t audit_esc_plain_run(const unsigned char *src, size_t len);

/*
 * Encode the unit that starts at src[0] (len > 0) into out (at least
 * AUDIT_ESC_UNIT_MAX bytes).  Sets *used to the source bytes consumed (1-4)
 * and returns the number of bytes written to out.  An invalid byte becomes
 * U+FFFD; whether that happened is audit_utf8_clean()'s business.
 */
size_t audit_esc_unit(const unsigned char *src, size_t len, size_t *used,
		      char *out);

/*
 * Length of the valid UTF-8 sequence starting at src[0] (1-4), or 0 when
 * src[0] does not start one (overlong, surrogate, > U+10FFFF, cut short,
 * stray continuation byte).
 */
size_t audit_utf8_seq_len(const unsigned char *src, size_t len);

/* True when src[0..len) is valid UTF-8 without NUL bytes. */
bool audit_utf8_clean(const unsigned char *src, size_t len);

/*
 * The record writer's escaper: encodes src[0..len) by the audit_escape()
 * rule into dst, which must have room for AUDIT_ESC_UNIT_MAX * len bytes
 * (the worst case), and returns the number of bytes written (no NUL, no
 * quotes).  *lossy is set to !audit_utf8_clean(src, len): whether a byte
 * was replaced by U+FFFD or a NUL was escaped, i.e. whether the string
 * alone does not give the bytes back.  The same bytes as audit_escape(),
 * found a word of plain bytes at a time; bytes of dst past the returned
 * length (inside the room) may have been written over.
 */
size_t audit_esc_fast(char *dst, const unsigned char *src, size_t len,
		      bool *lossy);

#endif
