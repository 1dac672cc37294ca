/* SPDX-License-Identifier: MIT */
/*
 * rules/addr.c: socket address patterns (addr keys) and their matching
 * against a copied struct sockaddr, the way the kernel will route it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "rules/internal.h"

/*
 * Syntax (one item of an addr list):
 *   IPv4[/PREFIX][:PORT[-PORT]]        127.0.0.0/8, 10.1.2.3:443
 *   [IPv6][/PREFIX][:PORT[-PORT]]      [::1], [fe80::]/10:443
 *   unix:GLOB                          path sockets, glob on sun_path
 *   unix-abstract:GLOB                 abstract names, without the NUL
 * A prefix must not leave host bits set.  No port means any port.  An
 * IPv4-mapped IPv6 pattern ([::ffff:a.b.c.d]/PREFIX >= 96) is stored as the
 * IPv4 pattern, since mapped addresses are matched as IPv4.
 *
 * Matching:
 *   - an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is its IPv4 address;
 *   - for connect (connect_semantics), 0.0.0.0 and :: reach the local host
 *     and are matched as 127.0.0.1 and ::1; for bind they mean "every
 *     interface" and match only a pattern that covers them;
 *   - AF_UNIX: a path socket (sun_path[0] != 0) is matched by unix: globs
 *     on the path up to the first NUL; an abstract one (sun_path[0] == 0)
 *     by unix-abstract: globs on the name (the bytes after the NUL, which
 *     may hold any byte); an unnamed address (length sizeof(sa_family_t),
 *     bind's autobind) counts as the abstract name "" since the kernel
 *     then picks an abstract name; so "unix-abstract:**" covers it;
 *   - other families match nothing.
 */

#define UNIX_PATH_LEN (sizeof(((struct sockaddr_un *)0)->sun_path))

static int parse_uint(const char *s, size_t len, unsigned long max,
		      unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 6)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "/PREFIX" and ":PORT[-PORT]" after the address. */
static int parse_suffix(const char *p, unsigned max_prefix,
			struct rules_addr *a, const char **why)
{
	unsigned long v, w;

	a->prefix = max_prefix;
	a->port_lo = 0;
	a->port_hi = 65535;
	if (*p == '/') {
		size_t n;

		p++;
		n = strcspn(p, ":");
		if (parse_uint(p, n, max_prefix, &v) < 0) {
			*why = "invalid prefix length";
			return -EINVAL;
		}
		a->prefix = (unsigned)v;
		p += n;
	}
	if (*p == ':') {
		size_t n;

		p++;
		n = strcspn(p, "-");
		if (parse_uint(p, n, 65535, &v) < 0) {
			*why = "invalid port";
			return -EINVAL;
		}
		w = v;
		p += n;
		if (*p == '-') {
			p++;
			if (parse_uint(p, strlen(p), 65535, &w) < 0) {
				*why = "invalid port";
				return -EINVAL;
			}
			p += strlen(p);
			if (w < v) {
				*why = "port range is backwards";
				return -EINVAL;
			}
		}
		a->port_lo = (uint16_t)v;
		a->port_hi = (uint16_t)w;
	}
	if (*p) {
		*why = "unexpected text after the address";
		return -EINVAL;
	}
	return 0;
}

static bool prefix_equal(const uint8_t *x, const uint8_t *y, unsigned bits)
{
	unsigned full = bits / 8, rest = bits % 8;

	if (memcmp(x, y, full) != 0)
		return false;
	if (rest) {
		uint8_t mask = (uint8_t)(0xff << (8 - rest));

		if ((x[full] & mask) != (y[full] & mask))
			return false;
	}
	return true;
}

/* Does ip have bits set past the first `bits` bits? */
static bool host_bits_set(const uint8_t *ip, unsigned bytes, unsigned bits)
{
	unsigned i;

	for (i = 0; i < bytes; i++) {
		uint8_t host_mask;

		if (i * 8 >= bits)
			host_mask = 0xff;
		else if (i * 8 + 8 > bits)
			host_mask = (uint8_t)(0xff >> (bits - i * 8));
		else
			host_mask = 0;
		if (ip[i] & host_mask)
			return true;
	}
	return false;
}

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0xff, 0xff };

int rules_addr_parse(const char *text, struct rules_addr *out,
		     const char **why)
{
	struct rules_addr a = { 0 };
	char buf[INET6_ADDRSTRLEN + 1];
	size_t n;

	if (strncmp(text, "unix:", 5) == 0 ||
	    strncmp(text, "unix-abstract:", 14) == 0) {
		bool abstract = text[4] == '-';
		const char *g = text + (abstract ? 14 : 5);

		if (*g == '\0') {
			*why = "empty socket glob";
			return -EINVAL;
		}
		if (rules_glob_check(g, why) < 0)
			return -EINVAL;
		a.type = abstract ? RULES_ADDR_UNIX_ABSTRACT : RULES_ADDR_UNIX;
		a.glob = strdup(g);
		if (!a.glob)
			return -ENOMEM;
		*out = a;
		return 0;
	}
	if (text[0] == '[') {
		const char *end = strchr(text, ']');

		if (!end) {
			*why = "missing ']' after the IPv6 address";
			return -EINVAL;
		}
		n = (size_t)(end - text - 1);
		if (n == 0 || n >= sizeof(buf)) {
			*why = "invalid IPv6 address";
			return -EINVAL;
		}
		memcpy(buf, text + 1, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET6, buf, a.ip) != 1) {
			*why = "invalid IPv6 address";
			return -EINVAL;
		}
		a.type = RULES_ADDR_INET6;
		if (parse_suffix(end + 1, 128, &a, why) < 0)
			return -EINVAL;
		if (host_bits_set(a.ip, 16, a.prefix)) {
			*why = "the address has bits set beyond its prefix";
			return -EINVAL;
		}
		if (a.prefix >= 96 && memcmp(a.ip, v4mapped, 12) == 0) {
			memmove(a.ip, a.ip + 12, 4);
			memset(a.ip + 4, 0, 12);
			a.prefix -= 96;
			a.type = RULES_ADDR_INET4;
		}
		*out = a;
		return 0;
	}
	n = strcspn(text, "/:");
	if (n == 0 || n >= sizeof(buf) || text[0] < '0' || text[0] > '9') {
		*why = "not an address (IPv4, [IPv6], unix:GLOB or unix-abstract:GLOB)";
		return -EINVAL;
	}
	memcpy(buf, text, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, a.ip) != 1) {
		*why = "invalid IPv4 address";
		return -EINVAL;
	}
	a.type = RULES_ADDR_INET4;
	if (parse_suffix(text + n, 32, &a, why) < 0)
		return -EINVAL;
	if (host_bits_set(a.ip, 4, a.prefix)) {
		*why = "the address has bits set beyond its prefix";
		return -EINVAL;
	}
	*out = a;
	return 0;
}

void rules_addr_release(struct rules_addr *a)
{
	if (!a)
		return;
	free(a->glob);
	a->glob = NULL;
}

static bool port_ok(const struct rules_addr *a, uint16_t port_be)
{
	uint16_t port = ntohs(port_be);

	return port >= a->port_lo && port <= a->port_hi;
}

static bool match_ip(const struct rules_addr *a, int family,
		     const uint8_t *ip, uint16_t port_be)
{
	if (a->type == RULES_ADDR_INET4 && family == AF_INET)
		return prefix_equal(a->ip, ip, a->prefix) &&
		       port_ok(a, port_be);
	if (a->type == RULES_ADDR_INET6 && family == AF_INET6)
		return prefix_equal(a->ip, ip, a->prefix) &&
		       port_ok(a, port_be);
	return false;
}

bool rules_addr_match_ev(const struct rules_addr *a,
			 const struct rules_event *ev)
{
	if (ev->unix_path) {
		if (a->type != RULES_ADDR_UNIX)
			return false;
		return rules_glob_match(a->glob, ev->unix_path);
	}
	return rules_addr_match(a, ev->addr, ev->addr_len,
				ev->nr != __NR_bind);
}

bool rules_addr_match(const struct rules_addr *a, const struct sockaddr *sa,
		      socklen_t len, bool connect_semantics)
{
	static const uint8_t any6[16] = { 0 };
	static const uint8_t loop6[16] = { [15] = 1 };
	static const uint8_t loop4[4] = { 127, 0, 0, 1 };

	if (!a || !sa || len < (socklen_t)sizeof(sa_family_t))
		return false;
	switch (sa->sa_family) {
	case AF_INET: {
		struct sockaddr_in in;
		uint8_t ip[4];

		if (len < (socklen_t)sizeof(in))
			return false;
		memcpy(&in, sa, sizeof(in));
		memcpy(ip, &in.sin_addr, 4);
		if (connect_semantics && in.sin_addr.s_addr == INADDR_ANY)
			memcpy(ip, loop4, 4);
		return match_ip(a, AF_INET, ip, in.sin_port);
	}
	case AF_INET6: {
		struct sockaddr_in6 in6;
		uint8_t ip[16];

		if (len < (socklen_t)sizeof(in6))
			return false;
		memcpy(&in6, sa, sizeof(in6));
		memcpy(ip, &in6.sin6_addr, 16);
		if (memcmp(ip, v4mapped, 12) == 0) {
			uint8_t ip4[4];

			memcpy(ip4, ip + 12, 4);
			if (connect_semantics &&
			    memcmp(ip4, any6, 4) == 0)
				memcpy(ip4, loop4, 4);
			return match_ip(a, AF_INET, ip4, in6.sin6_port);
		}
		if (connect_semantics && memcmp(ip, any6, 16) == 0)
			memcpy(ip, loop6, 16);
		return match_ip(a, AF_INET6, ip, in6.sin6_port);
	}
	case AF_UNIX: {
		const char *sun_path = (const char *)sa +
				       offsetof(struct sockaddr_un, sun_path);
		size_t n = (size_t)len - offsetof(struct sockaddr_un, sun_path);

		if (len <= (socklen_t)offsetof(struct sockaddr_un, sun_path)) {
			/* Unnamed: autobind picks an abstract name. */
			return a->type == RULES_ADDR_UNIX_ABSTRACT &&
			       rules_glob_match_n(a->glob, "", 0);
		}
		if (n > UNIX_PATH_LEN)
			n = UNIX_PATH_LEN;
		if (sun_path[0] == '\0')
			return a->type == RULES_ADDR_UNIX_ABSTRACT &&
			       rules_glob_match_n(a->glob, sun_path + 1, n - 1);
		if (a->type != RULES_ADDR_UNIX)
			return false;
		n = strnlen(sun_path, n);
		return rules_glob_match_n(a->glob, sun_path, n);
	}
	default:
		return false;
	}
}
