/* SPDX-License-Identifier: MIT */
/*
 * rules/match.c: rules_match(), the decision for one copied event, and
 * the same walk told rule by rule for rules_explain().  Part of the
 * trusted path: a pure function of the set and the event, no allocation,
 * no I/O.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "rules/internal.h"

static bool eval(const struct rules_argcond *c, uint64_t a, bool narrow)
{
	uint64_t v = c->value, m = c->mask;

	if (narrow) {
		a &= UINT32_MAX;
		v &= UINT32_MAX;
		m &= UINT32_MAX;
	}
	switch (c->op) {
	case RULES_OP_EQ:
		return a == v;
	case RULES_OP_NE:
		return a != v;
	case RULES_OP_LT:
		return a < v;
	case RULES_OP_LE:
		return a <= v;
	case RULES_OP_GT:
		return a > v;
	case RULES_OP_GE:
		return a >= v;
	case RULES_OP_ANY:
		return (a & m) != 0;
	case RULES_OP_MASKED_EQ:
		return (a & m) == v;
	}
	return false;
}

/*
 * Security: for an argument whose width is not known, an allow needs the
 * condition under both readings and a deny or kill under either, so a
 * caller cannot slip past a rule by setting or clearing the upper 32 bits.
 */
bool rules_cond_holds(const struct rules_argcond *c, int nr,
		      const uint64_t *args, enum rules_action action)
{
	uint64_t a;
	bool n, w;

	if (c->arg >= RULES_NARGS)
		return false;
	a = args[c->arg];
	switch (rules_arg_width(nr, c->arg)) {
	case RULES_WIDTH_32:
		return eval(c, a, true);
	case RULES_WIDTH_64:
		return eval(c, a, false);
	case RULES_WIDTH_UNKNOWN:
		break;
	}
	n = eval(c, a, true);
	w = eval(c, a, false);
	switch (action) {
	case RULES_ALLOW:
		return n && w;
	case RULES_REWRITE:
	case RULES_DENY:
	case RULES_KILL:
	case RULES_ASK:
		break;
	}
	return n || w;
}

bool rules_rule_is_scalar(const struct rules_rule *r)
{
	return r->n_paths == 0 && r->n_addrs == 0 && r->n_exes == 0 &&
	       r->access == 0;
}

/* An allow must cover every access class the event has, a deny or kill
 * any of them (the supervisor passes one, this keeps a stray extra bit
 * from widening an allow). */
static bool access_ok(const struct rules_rule *r, unsigned ev_access)
{
	if (r->access == 0)
		return true;
	if (ev_access == 0)
		return false;
	if (r->action == RULES_ALLOW)
		return (ev_access & ~r->access) == 0;
	return (ev_access & r->access) != 0;
}

/* Does any of the n globs (compiled in cg when the set was loaded) match s? */
static bool any_glob(char *const *globs, const struct rules_glob *cg,
		     size_t n, const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < n; i++) {
		if (cg ? rules_glob_match_compiled(&cg[i], s, len) :
			 rules_glob_match_n(globs[i], s, len))
			return true;
	}
	return false;
}

/*
 * The first condition of r that ev fails (*arg: the argument of a failed
 * scalar condition), or RULES_WHY_MATCH when r matches.  Every test is a
 * pure condition on the rule and the event, and the rule matches when all
 * hold: they are tried cheapest first (the syscall, the access class, the
 * scalar conditions), so that most rules are passed over without looking
 * at a glob.
 */
static enum rules_why rule_why(const struct rules_rule *r,
			       const struct rules_event *ev, unsigned *arg)
{
	size_t i;

	if (!rules_nr_has(r->nrs, ev->nr))
		return RULES_WHY_SYSCALL;
	if (!access_ok(r, ev->access))
		return RULES_WHY_ACCESS;
	for (i = 0; i < r->n_conds; i++) {
		if (!rules_cond_holds(&r->conds[i], ev->nr, ev->args,
				      r->action)) {
			*arg = r->conds[i].arg;
			return RULES_WHY_ARG;
		}
	}
	if (r->n_paths &&
	    (!ev->path || !any_glob(r->paths, r->path_globs, r->n_paths,
				    ev->path)))
		return RULES_WHY_PATH;
	if (r->n_addrs) {
		bool hit = false;

		if (!ev->addr && !ev->unix_path)
			return RULES_WHY_ADDR;
		for (i = 0; i < r->n_addrs && !hit; i++)
			hit = rules_addr_match_ev(&r->addrs[i], ev);
		if (!hit)
			return RULES_WHY_ADDR;
	}
	if (r->n_exes &&
	    (!ev->exe || !any_glob(r->exes, r->exe_globs, r->n_exes, ev->exe)))
		return RULES_WHY_EXE;
	return RULES_WHY_MATCH;
}

bool rules_level_records(enum rules_audit_level level, enum rules_action a,
			  bool rule_flag)
{
	switch (level) {
	case RULES_AUDIT_ALL:
		return rule_flag;
	case RULES_AUDIT_DENIED:
		/* An answer to ask may deny: the supervisor drops the
		 * record of an allowed answer at this level. */
		return a == RULES_DENY || a == RULES_KILL || a == RULES_ASK;
	case RULES_AUDIT_NONE:
		return false;
	}
	return true;
}

/*
 * Permissive mode: the policy's refusal becomes an allow that says what
 * it would have been, and is always recorded.  Security: only verdicts
 * of the policy pass here; sysgate's own checks are made by the
 * supervisor after or instead of rules_match(), and the fail-closed
 * verdict of a missing set or event is never relaxed.
 */
static void relax(const struct rules_set *rs, struct rules_verdict *v)
{
	if (!rs->permissive)
		return;
	switch (v->action) {
	case RULES_DENY:
	case RULES_KILL:
	case RULES_ASK:
		v->would = v->action;
		v->action = RULES_ALLOW;
		v->audit = true;
		v->ask = NULL;
		v->rewrite = NULL;
		if (v->would == RULES_KILL)
			v->err = 0;
		break;
	case RULES_ALLOW:
	case RULES_REWRITE:
		break;
	}
}

int rules_verdict_rank(const struct rules_verdict *v)
{
	int r = 2 * rules_action_rank(v->action);

	return v->action == RULES_ALLOW && v->would != RULES_ALLOW ? r + 1 : r;
}

void rules_match_walk(const struct rules_set *rs,
		      const struct rules_event *ev, const char *skip,
		      rules_explain_fn fn, void *ctx,
		      struct rules_verdict *out)
{
	size_t i;

	/* Fail closed on a missing set or event. */
	*out = (struct rules_verdict){ .action = RULES_DENY, .err = EPERM,
				       .audit = true };
	if (!rs || !ev)
		return;
	for (i = 0; i < rs->n_rules; i++) {
		const struct rules_rule *r = &rs->rules[i];
		struct rules_explain_step st;

		if (skip && r->name == skip)
			continue;
		st.arg = 0;
		st.why = rule_why(r, ev, &st.arg);
		if (fn) {
			st.index = i;
			st.rule = r->name;
			st.line = r->line;
			fn(&st, ctx);
		}
		if (st.why != RULES_WHY_MATCH)
			continue;
		out->action = r->action;
		out->err = r->action == RULES_DENY || r->action == RULES_ASK ?
			   r->err : 0;
		out->rule = r->name;
		out->audit = rules_level_records(rs->audit, r->action,
						 r->audit);
		out->stack = r->stack;
		out->ask = r->ask;
		out->ask_timeout_ms = r->ask_timeout_ms;
		out->remember = r->remember;
		out->rewrite = r->action == RULES_REWRITE ? &r->rw : NULL;
		return;
	}
	out->action = rs->def;
	out->err = rs->def == RULES_DENY ? rs->def_err : 0;
	out->rule = NULL;
	out->audit = rules_level_records(rs->audit, rs->def, true);
	out->stack = false;
}

void rules_match(const struct rules_set *rs, const struct rules_event *ev,
		 struct rules_verdict *out)
{
	rules_match_walk(rs, ev, NULL, NULL, NULL, out);
	if (rs && ev)
		relax(rs, out);
}

void rules_match_rewritten(const struct rules_set *rs,
			   const struct rules_event *ev, const char *by,
			   struct rules_verdict *out)
{
	rules_match_walk(rs, ev, by, NULL, NULL, out);
	/* Security: rewritten once.  Letting another rewrite count as an
	 * allow let a redirect lead past every later rule. */
	if (out->action == RULES_REWRITE) {
		out->action = RULES_DENY;
		out->err = EACCES;
		out->audit = true;
		out->rewrite = NULL;
	}
	if (rs && ev)
		relax(rs, out);
}
