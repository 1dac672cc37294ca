/* SPDX-License-Identifier: MIT */
/*
 * The question of a DNS query (RFC 1035 4.1), read from a datagram the
 * tree sends to port 53, for the trail.  The bytes are the tree's and may
 * be anything: every length is checked against what is left, a name is
 * cut at 255 bytes, and compression pointers (which a question has no
 * use for) end the parse rather than being followed.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "common/util.h"
#include "supervisor/decode.h"

#define DNS_HEADER 12

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Append one label's bytes to out as text: letters, digits, '-' and '_'
 * as they are, '.' and '\\' escaped, other bytes as \DDD (as dig shows
 * them).  Returns the new length, or 0 when out is full. */
static size_t put_label(char *out, size_t off, size_t cap, const uint8_t *l,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t ch = l[i];
		int w;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
		    ch == '*')
			w = snprintf(out + off, cap - off, "%c", ch);
		else if (ch == '.' || ch == '\\')
			w = snprintf(out + off, cap - off, "\\%c", ch);
		else
			w = snprintf(out + off, cap - off, "\\%03u", ch);
		if (w < 0 || (size_t)w >= cap - off)
			return 0;
		off += (size_t)w;
	}
	return off;
}

/*
 * Security: buf is the tree's datagram.  Each label length is checked
 * against the bytes left before it is used, the name against 255 bytes
 * and the text against q->name; nothing is followed (no pointer), so
 * the parse is linear in len and ends on any byte sequence.
 */
int dns_parse_query(const void *buf, size_t len, struct dns_query *q)
{
	const uint8_t *p = buf;
	size_t pos = DNS_HEADER, wire = 0, off = 0;
	unsigned flags, qd;

	if (!buf || len < DNS_HEADER + 5)
		return -EINVAL;
	flags = get16(p + 2);
	qd = get16(p + 4);
	/* A query (QR 0) with at least one question. */
	if ((flags & 0x8000) || qd == 0)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	for (;;) {
		size_t n;

		if (pos >= len)
			return -EINVAL;
		n = p[pos++];
		if (n == 0)
			break;
		if (n > 63)	/* a pointer (0xc0) or a reserved form */
			return -EINVAL;
		wire += n + 1;
		if (wire > 254 || n > len - pos)
			return -EINVAL;
		if (off) {
			if (off + 1 >= sizeof(q->name))
				return -EINVAL;
			q->name[off++] = '.';
		}
		off = put_label(q->name, off, sizeof(q->name), p + pos, n);
		if (!off)
			return -EINVAL;
		pos += n;
	}
	if (len - pos < 4)
		return -EINVAL;
	if (!off)
		snprintf(q->name, sizeof(q->name), ".");	/* the root */
	q->id = get16(p);
	q->opcode = (flags >> 11) & 0xf;
	q->qdcount = qd;
	q->qtype = get16(p + pos);
	q->qclass = get16(p + pos + 2);
	return 0;
}

static const struct {
	unsigned type;
	const char *name;
} qtypes[] = {
	{ 1, "A" }, { 2, "NS" }, { 5, "CNAME" }, { 6, "SOA" }, { 12, "PTR" },
	{ 13, "HINFO" }, { 15, "MX" }, { 16, "TXT" }, { 28, "AAAA" },
	{ 33, "SRV" }, { 35, "NAPTR" }, { 43, "DS" }, { 46, "RRSIG" },
	{ 48, "DNSKEY" }, { 52, "TLSA" }, { 64, "SVCB" }, { 65, "HTTPS" },
	{ 99, "SPF" }, { 252, "AXFR" }, { 255, "ANY" }, { 257, "CAA" },
};

const char *dns_type_name(unsigned type)
{
	for (size_t i = 0; i < ARRAY_SIZE(qtypes); i++)
		if (qtypes[i].type == type)
			return qtypes[i].name;
	return NULL;
}

void dns_add_query(struct audit_rec *r, const char *key,
		   const struct dns_query *q)
{
	const char *t = dns_type_name(q->qtype);

	audit_obj_begin(r, key);
	audit_str(r, "name", q->name);
	if (t)
		audit_str(r, "type", t);
	else
		audit_uint(r, "type", q->qtype);
	if (q->qclass == 1)
		audit_str(r, "class", "IN");
	else
		audit_uint(r, "class", q->qclass);
	audit_uint(r, "id", q->id);
	if (q->opcode)
		audit_uint(r, "opcode", q->opcode);
	if (q->qdcount > 1)
		audit_uint(r, "questions", q->qdcount);
	audit_obj_end(r);
}
