/* SPDX-License-Identifier: MIT */
/*
 * rules/explain.c: why a policy decides a call the way it does (which
 * rules were tried and the condition that failed in each), rules that can
 * never match, and the text of a rule's conditions.  For `sysgate check`;
 * not on the trusted path.  The step-by-step walk is rules_match()'s own
 * (match.c, rules_match_walk()).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "rules/internal.h"

void rules_explain(const struct rules_set *rs, const struct rules_event *ev,
		   rules_explain_fn fn, void *ctx, struct rules_verdict *out)
{
	/* match.c's own walk: explaining cannot disagree with deciding. */
	rules_match_walk(rs, ev, NULL, fn, ctx, out);
}

/* ---- condition text --------------------------------------------------- */

struct out {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
		      o->used < o->len ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void put_addr(struct out *o, const struct rules_addr *a)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	switch (a->type) {
	case RULES_ADDR_INET4:
		inet_ntop(AF_INET, a->ip, ip, sizeof(ip));
		put(o, "%s", ip);
		if (a->prefix != 32)
			put(o, "/%u", a->prefix);
		break;
	case RULES_ADDR_INET6:
		inet_ntop(AF_INET6, a->ip, ip, sizeof(ip));
		put(o, "[%s]", ip);
		if (a->prefix != 128)
			put(o, "/%u", a->prefix);
		break;
	case RULES_ADDR_UNIX:
		put(o, "unix:%s", a->glob);
		return;
	case RULES_ADDR_UNIX_ABSTRACT:
		put(o, "unix-abstract:%s", a->glob);
		return;
	}
	if (a->port_lo == 0 && a->port_hi == 65535)
		return;
	if (a->port_lo == a->port_hi)
		put(o, ":%u", a->port_lo);
	else
		put(o, ":%u-%u", a->port_lo, a->port_hi);
}

static void put_cond(struct out *o, const struct rules_argcond *c)
{
	static const char *const ops[] = {
		[RULES_OP_EQ] = "==", [RULES_OP_NE] = "!=",
		[RULES_OP_LT] = "<",  [RULES_OP_LE] = "<=",
		[RULES_OP_GT] = ">",  [RULES_OP_GE] = ">=",
	};

	switch (c->op) {
	case RULES_OP_ANY:
		put(o, "arg%u & 0x%" PRIx64, c->arg, c->mask);
		return;
	case RULES_OP_MASKED_EQ:
		put(o, "arg%u & 0x%" PRIx64 " == 0x%" PRIx64, c->arg, c->mask,
		    c->value);
		return;
	case RULES_OP_EQ:
	case RULES_OP_NE:
	case RULES_OP_LT:
	case RULES_OP_LE:
	case RULES_OP_GT:
	case RULES_OP_GE:
		put(o, "arg%u %s 0x%" PRIx64, c->arg, ops[c->op], c->value);
		return;
	}
}

size_t rules_rule_condition(const struct rules_set *rs, size_t i,
			    enum rules_why why, unsigned arg, char *buf,
			    size_t len)
{
	struct out o = { .buf = buf, .len = len };
	const struct rules_rule *r;
	size_t k;

	if (len)
		buf[0] = '\0';
	if (!rs || i >= rs->n_rules)
		return 0;
	r = &rs->rules[i];
	switch (why) {
	case RULES_WHY_PATH:
		for (k = 0; k < r->n_paths; k++)
			put(&o, "%s%s", k ? ", " : "", r->paths[k]);
		break;
	case RULES_WHY_ACCESS:
		for (k = 0; k < 6; k++)
			if (r->access & (1u << k))
				put(&o, "%s%s", o.used ? ", " : "",
				    rules_access_name(1u << k));
		break;
	case RULES_WHY_ADDR:
		for (k = 0; k < r->n_addrs; k++) {
			if (k)
				put(&o, ", ");
			put_addr(&o, &r->addrs[k]);
		}
		break;
	case RULES_WHY_EXE:
		for (k = 0; k < r->n_exes; k++)
			put(&o, "%s%s", k ? ", " : "", r->exes[k]);
		break;
	case RULES_WHY_ARG:
		for (k = 0; k < r->n_conds; k++) {
			if (r->conds[k].arg != arg)
				continue;
			if (o.used)
				put(&o, ", ");
			put_cond(&o, &r->conds[k]);
		}
		break;
	case RULES_WHY_MATCH:
	case RULES_WHY_SYSCALL:
		break;
	}
	return o.used;
}

/* ---- static checks ---------------------------------------------------- */

unsigned rules_rule_line(const struct rules_set *rs, size_t i)
{
	if (!rs || i >= rs->n_rules)
		return 0;
	return rs->rules[i].line;
}

const char *rules_rule_file(const struct rules_set *rs, size_t i)
{
	if (!rs || i >= rs->n_rules)
		return NULL;
	return rs->rules[i].file;
}

const char *rules_rule_path(const struct rules_set *rs, size_t i, size_t k)
{
	if (!rs || i >= rs->n_rules || k >= rs->rules[i].n_paths)
		return NULL;
	return rs->rules[i].paths[k];
}

bool rules_glob_is_literal(const char *glob)
{
	return glob && !strpbrk(glob, "*?");
}

static bool nrs_subset(const uint64_t *sub, const uint64_t *super)
{
	size_t w;

	for (w = 0; w < RULES_NR_WORDS; w++)
		if (sub[w] & ~super[w])
			return false;
	return true;
}

/*
 * Does earlier rule e decide every event rule r could match?  e must name
 * all of r's syscalls and have no condition but possibly an access list,
 * which must then cover r's (non-empty) list.  An event r matches has a
 * class in r's list: a deny or kill e shares it.  An allow e needs all the
 * event's classes in its list, which holds when r is an allow too; a deny
 * r matches on any one class, so an event with two classes could pass e.
 * The supervisor passes one class per check, but "never" must be true.
 */
static bool decides_first(const struct rules_rule *e,
			  const struct rules_rule *r)
{
	if (e->n_paths || e->n_addrs || e->n_exes || e->n_conds)
		return false;
	if (!nrs_subset(r->nrs, e->nrs))
		return false;
	if (e->access == 0)
		return true;
	if (r->access == 0 || (r->access & ~e->access))
		return false;
	return e->action != RULES_ALLOW || r->action == RULES_ALLOW;
}

bool rules_shadowed(const struct rules_set *rs, size_t i, size_t *by)
{
	size_t j, first = i;

	if (!rs || i >= rs->n_rules)
		return false;
	for (j = 0; j < i; j++) {
		if (!decides_first(&rs->rules[j], &rs->rules[i]))
			continue;
		if (first == i)
			first = j;
		/* A rule of its own file tells the author of that file
		 * more than an includer's override does. */
		if (!strcmp(rs->rules[j].file, rs->rules[i].file)) {
			first = j;
			break;
		}
	}
	if (by && first < i)
		*by = first;
	return first < i;
}
