/* SPDX-License-Identifier: MIT */
/*
 * rules/rewrite.c: what a rule with action = rewrite changes in a call.
 * Pure functions of the verdict and the copied call; the supervisor
 * carries the rewritten call out and has it decided again (rules.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rules/internal.h"

/* The length of the literal part of a redirect glob: the whole glob when
 * it has no wildcard, the part before "/" "**" when that is its only
 * wildcard at the end; 0 when the glob is neither (the parser refuses
 * such a glob in a redirect rule). */
static size_t redirect_prefix_len(const char *glob)
{
	size_t n = strlen(glob);

	if (!strpbrk(glob, "*?"))
		return n;
	if (n >= 3 && strcmp(glob + n - 3, "/**") == 0 &&
	    !memchr(glob, '*', n - 3) && !memchr(glob, '?', n - 3))
		return n - 3;
	return 0;
}

bool rules_redirect_glob_ok(const char *glob)
{
	return glob[0] == '/' && redirect_prefix_len(glob) > 0;
}

int rules_rewrite_path(const struct rules_verdict *v, const char *path,
		       char *out, size_t len)
{
	const struct rules_rule *r;
	size_t i;

	if (!v || v->action != RULES_REWRITE || !v->rewrite ||
	    !v->rewrite->redirect || !path)
		return -ENOENT;
	/* rw is embedded in its rule: the rule's globs say what matched. */
	r = (const struct rules_rule *)((const char *)v->rewrite -
					offsetof(struct rules_rule, rw));
	for (i = 0; i < r->n_paths; i++) {
		size_t p = redirect_prefix_len(r->paths[i]);
		int n;

		if (!p || !rules_glob_match(r->paths[i], path))
			continue;
		/* "/tmp/" "**" matches "/tmp" itself and "/tmp/...": keep what
		 * follows the prefix ("" or "/..."). */
		if (strncmp(path, r->paths[i], p) != 0)
			continue;
		n = snprintf(out, len, "%s%s", r->rw.redirect, path + p);
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	return -ENOENT;
}

bool rules_rewrite_if_exists(const struct rules_verdict *v)
{
	return v && v->action == RULES_REWRITE && v->rewrite &&
	       v->rewrite->if_exists;
}

const char *rules_rewrite_redirect(const struct rules_verdict *v)
{
	if (!v || v->action != RULES_REWRITE || !v->rewrite)
		return NULL;
	return v->rewrite->redirect;
}

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int rules_rewrite_addr(const struct rules_verdict *v,
		       const struct sockaddr *sa, socklen_t len,
		       struct sockaddr_storage *out, socklen_t *out_len)
{
	const struct rules_addr *to;
	bool keep_port;
	uint16_t port = 0;

	if (!v || v->action != RULES_REWRITE || !v->rewrite ||
	    !v->rewrite->has_addr || !sa)
		return -ENOENT;
	to = &v->rewrite->addr;
	keep_port = to->port_lo == 0 && to->port_hi == 65535;
	memset(out, 0, sizeof(*out));
	switch (sa->sa_family) {
	case AF_INET: {
		struct sockaddr_in in;

		if (len < (socklen_t)sizeof(in))
			return -EINVAL;
		if (to->type != RULES_ADDR_INET4)
			return -EAFNOSUPPORT;
		memcpy(&in, sa, sizeof(in));
		port = keep_port ? in.sin_port : htons(to->port_lo);
		in.sin_port = port;
		memcpy(&in.sin_addr, to->ip, 4);
		memcpy(out, &in, sizeof(in));
		*out_len = sizeof(in);
		return 0;
	}
	case AF_INET6: {
		struct sockaddr_in6 in6;

		if (len < (socklen_t)sizeof(in6))
			return -EINVAL;
		memcpy(&in6, sa, sizeof(in6));
		port = keep_port ? in6.sin6_port : htons(to->port_lo);
		in6.sin6_port = port;
		in6.sin6_flowinfo = 0;
		in6.sin6_scope_id = 0;
		if (to->type == RULES_ADDR_INET4) {
			memcpy(in6.sin6_addr.s6_addr, v4mapped, 12);
			memcpy(in6.sin6_addr.s6_addr + 12, to->ip, 4);
		} else if (to->type == RULES_ADDR_INET6) {
			memcpy(in6.sin6_addr.s6_addr, to->ip, 16);
		} else {
			return -EAFNOSUPPORT;
		}
		memcpy(out, &in6, sizeof(in6));
		*out_len = sizeof(in6);
		return 0;
	}
	default:
		return -EAFNOSUPPORT;
	}
}

bool rules_rewrite_args(const struct rules_verdict *v, uint64_t args[6])
{
	bool changed = false;
	size_t i;

	if (!v || v->action != RULES_REWRITE || !v->rewrite)
		return false;
	for (i = 0; i < v->rewrite->n_sets; i++) {
		const struct rules_argset *s = &v->rewrite->sets[i];
		uint64_t old = args[s->arg];

		switch (s->how) {
		case RULES_SET_BITS:
			args[s->arg] |= s->value;
			break;
		case RULES_CLEAR_BITS:
			args[s->arg] &= ~s->value;
			break;
		case RULES_REPLACE:
			args[s->arg] = s->value;
			break;
		}
		changed |= args[s->arg] != old;
	}
	return changed;
}

const char *rules_rule_redirect_dir(const struct rules_set *rs, size_t i)
{
	const struct rules_rule *r;
	size_t k;

	if (!rs || i >= rs->n_rules)
		return NULL;
	r = &rs->rules[i];
	if (r->action != RULES_REWRITE || !r->rw.redirect)
		return NULL;
	for (k = 0; k < r->n_paths; k++)
		if (strpbrk(r->paths[k], "*?"))
			return r->rw.redirect;
	return NULL;
}
