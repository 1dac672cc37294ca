/* SPDX-License-Identifier: MIT */
/*
 * rules/parse-rule.c: the keys of a [rule NAME] section, and the checks
 * of a complete rule (what its syscalls can have, rewrite, errno).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/util.h"
#include "rules/internal.h"
#include "rules/parse.h"

/* Keys that may repeat (their items append). */
static bool rule_key_repeats(enum rule_key k)
{
	return k == RK_SYSCALLS || k == RK_PATH || k == RK_ACCESS ||
	       k == RK_ADDR || k == RK_EXE;
}

static struct rules_rule *cur_rule(struct pctx *c)
{
	return &c->rs->rules[c->rs->n_rules - 1];
}

static int item_syscall(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_rule *r = arg;
	const struct rules_syscall_info *si;

	if (item[0] == '@') {
		if (rules_group_lookup(item, r->nrs) < 0)
			return rules_fail_unknown(c, line, "group", item,
						  rules_group_suggest(item));
		return 0;
	}
	si = rules_syscall_by_name(item);
	if (!si)
		return rules_fail_unknown(c, line, "syscall", item,
					  rules_syscall_suggest(item));
	rules_nr_add(r->nrs, si->nr);
	return 0;
}

static int push_checked(struct pctx *c, unsigned line, char ***list,
			size_t *n, const char *s)
{
	int rc = rules_push_str(list, n, s);

	if (rc == -E2BIG)
		return rules_fail(c, line, "too many items (the limit is %d per rule)",
				  RULES_MAX_ITEMS);
	return rc;
}

/*
 * Expands item once per form of its variables (canonical, and as spelled
 * where a variable has a spelling of its own: rules_vars) and hands each
 * to add.  0, or the first error.
 */
static int each_form(struct pctx *c, unsigned line, const char *what,
		     const char *item,
		     int (*add)(struct pctx *c, unsigned line, const char *text,
				struct rules_rule *r),
		     struct rules_rule *r)
{
	char text[RULES_GLOB_MAX + 1];
	unsigned n_alt = 0, alt = 0;
	int rc = rules_expand_alt(c, line, what, item, text, sizeof(text), 0, &n_alt);

	while (rc == 0) {
		rc = add(c, line, text, r);
		if (rc < 0 || ++alt >= 1u << n_alt)
			break;
		rc = rules_expand_alt(c, line, what, item, text, sizeof(text), alt,
				      NULL);
	}
	return rc;
}

static int add_path(struct pctx *c, unsigned line, const char *g,
		    struct rules_rule *r)
{
	int rc = rules_check_path_glob(c, line, g);

	if (rc < 0)
		return rc;
	return push_checked(c, line, &r->paths, &r->n_paths, g);
}

/* The ${NAME} a shell variable written $NAME stands for, or NULL. */
static const char *shell_var(const char *name, size_t n)
{
	static const char *const map[][2] = {
		{ "HOME", "HOME" }, { "PWD", "CWD" },	 { "CWD", "CWD" },
		{ "TMPDIR", "TMPDIR" }, { "TMP", "TMPDIR" }, { "RUN", "RUN" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i][0]) == n && !strncmp(name, map[i][0], n))
			return map[i][1];
	return NULL;
}

/*
 * What a shell would expand and sysgate does not: "~/" and "$HOME" are
 * refused at the start of a path (where they make it relative), and
 * warned about inside one (where they are literal names).  A '[' is a
 * plain byte in our globs, never a class: warned about, but in the names
 * of files without one (pipe:[INODE]).
 */
static int path_mistakes(struct pctx *c, unsigned line, const char *key,
			 const char *item)
{
	const char *p;

	if (item[0] == '~')
		return rules_fail(c, line,
				  "%s = %s: '~' is not expanded (write ${HOME}%s)",
				  key, item, item + 1 + strcspn(item + 1, "/"));
	for (p = strchr(item, '$'); p; p = strchr(p + 1, '$')) {
		size_t n = strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"
				  "abcdefghijklmnopqrstuvwxyz0123456789");
		const char *var = shell_var(p + 1, n);

		if (!var)
			continue;
		if (p == item)
			return rules_fail(c, line,
					  "%s = %s: '$%.*s' is not expanded (write ${%s})",
					  key, item, (int)n, p + 1, var);
		if (rules_warn(c, line,
			       "%s = %s: '$%.*s' is a literal name here (a variable is written ${%s})",
			       key, item, (int)n, p + 1, var) < 0)
			return -ENOMEM;
	}
	if ((strstr(item, "/~/") || (strlen(item) > 1 &&
	     !strcmp(item + strlen(item) - 2, "/~"))) &&
	    rules_warn(c, line,
		       "%s = %s: '~' is a literal name here (the home directory is ${HOME})",
		       key, item) < 0)
		return -ENOMEM;
	if (strcmp(key, "redirect") != 0 && strchr(item, '[') &&
	    !rules_nameless_prefix(item) &&
	    rules_warn(c, line,
		       "%s = %s: '[' is a plain character in sysgate globs, not a class: this matches a name with the brackets in it (list each path instead)",
		       key, item) < 0)
		return -ENOMEM;
	return 0;
}

static int item_path(struct pctx *c, unsigned line, char *item, void *arg)
{
	int rc = path_mistakes(c, line, "path", item);

	return rc < 0 ? rc : each_form(c, line, "glob", item, add_path, arg);
}

static int add_exe(struct pctx *c, unsigned line, const char *g,
		   struct rules_rule *r)
{
	int rc = rules_check_path_glob(c, line, g);

	if (rc < 0)
		return rc;
	return push_checked(c, line, &r->exes, &r->n_exes, g);
}

static int item_exe(struct pctx *c, unsigned line, char *item, void *arg)
{
	int rc = path_mistakes(c, line, "exe", item);

	return rc < 0 ? rc : each_form(c, line, "glob", item, add_exe, arg);
}

static int item_access(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_rule *r = arg;
	int k = find_key(rules_access_names, item);

	if (k < 0)
		return rules_fail_unknown(c, line, "access", item,
					  rules_suggest_from(item, rules_access_names));
	r->access |= 1u << k;
	return 0;
}

static int add_addr(struct pctx *c, unsigned line, const char *text,
		    struct rules_rule *r)
{
	struct rules_addr a, *na;
	const char *why = "invalid address";
	int rc;

	if (r->n_addrs >= RULES_MAX_ITEMS)
		return rules_fail(c, line, "too many items (the limit is %d per rule)",
				  RULES_MAX_ITEMS);
	rc = rules_addr_parse(text, &a, &why);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return rules_fail(c, line, "invalid address '%s': %s", text, why);
	na = reallocarray(r->addrs, r->n_addrs + 1, sizeof(*na));
	if (!na) {
		rules_addr_release(&a);
		return -ENOMEM;
	}
	na[r->n_addrs++] = a;
	r->addrs = na;
	return 0;
}

static int item_addr(struct pctx *c, unsigned line, char *item, void *arg)
{
	return each_form(c, line, "address", item, add_addr, arg);
}

/* redirect = PATH (kept as text until the rule is complete: whether it
 * names a path or an address depends on the rule's syscalls). */
static int parse_redirect(struct pctx *c, unsigned line, const char *value,
			  struct rules_rule *r)
{
	char text[RULES_GLOB_MAX + 1];
	int rc = path_mistakes(c, line, "redirect", value);

	if (rc == 0)
		rc = rules_expand(c, line, "redirect", value, text, sizeof(text));
	if (rc < 0)
		return rc;
	if (!text[0])
		return rules_fail(c, line, "empty 'redirect'");
	free(r->rw.redirect);
	r->rw.redirect = strdup(text);
	return r->rw.redirect ? 0 : -ENOMEM;
}

static int parse_argset(struct pctx *c, const struct entry *e,
			struct rules_rule *r, unsigned arg,
			enum rules_set_how how)
{
	char why[WHY_MAX];
	uint64_t v;

	if (rules_expr_parse(e->value, &v, why, sizeof(why)) < 0)
		return rules_fail(c, e->line, "%s: %s", e->key, why);
	for (size_t i = 0; i < r->rw.n_sets; i++)
		if (r->rw.sets[i].arg == arg &&
		    (r->rw.sets[i].how == RULES_REPLACE) != (how == RULES_REPLACE))
			return rules_fail(c, e->line,
					  "'%s' with arg%u_value in rule '%s': replace the value, or set and clear bits, not both",
					  e->key, arg, r->name);
	r->rw.sets[r->rw.n_sets++] = (struct rules_argset){
		.arg = arg, .how = how, .value = v,
	};
	return 0;
}

int rules_rule_key(struct pctx *c, struct state *st, const struct entry *e)
{
	struct rules_rule *r = cur_rule(c);
	char section[SECTION_MAX + 8];
	char why[WHY_MAX];
	int k = find_key(rules_rule_keys, e->key);
	int rc;

	snprintf(section, sizeof(section), "rule %s", r->name);
	if (k < 0)
		return rules_unknown_key(c, e->line, e->key, section, rules_rule_keys);
	if (st->key_line[k] && !rule_key_repeats((enum rule_key)k))
		return rules_fail(c, e->line,
				  "duplicate key '%s' in [rule %s] (first at line %u)",
				  e->key, r->name, st->key_line[k]);
	if (!st->key_line[k])
		st->key_line[k] = e->line;
	switch ((enum rule_key)k) {
	case RK_SYSCALLS:
		return rules_for_each_item(c, e->line, e->key, e->value,
					   item_syscall, r);
	case RK_PATH:
		return rules_for_each_item(c, e->line, e->key, e->value, item_path,
					   r);
	case RK_EXE:
		return rules_for_each_item(c, e->line, e->key, e->value, item_exe, r);
	case RK_ACCESS:
		return rules_for_each_item(c, e->line, e->key, e->value,
					   item_access, r);
	case RK_ADDR:
		return rules_for_each_item(c, e->line, e->key, e->value, item_addr,
					   r);
	case RK_ARG0:
	case RK_ARG1:
	case RK_ARG2:
	case RK_ARG3:
	case RK_ARG4:
	case RK_ARG5:
		rc = rules_argcond_parse(e->value, (unsigned)(k - RK_ARG0),
					 &r->conds[r->n_conds], why,
					 sizeof(why));
		if (rc < 0)
			return rules_fail(c, e->line, "%s: %s", e->key, why);
		r->n_conds++;
		return 0;
	case RK_ACTION:
		return rules_parse_action(c, e->line, e->value, &r->action);
	case RK_ERRNO:
		st->rule_err_set[c->rs->n_rules - 1] = true;
		return rules_parse_errno(c, e->line, e->value, &r->err);
	case RK_STACK:
		return rules_parse_yesno(c, e->line, e->key, e->value, &r->stack);
	case RK_AUDIT:
		return rules_parse_yesno(c, e->line, e->key, e->value, &r->audit);
	case RK_ASK:
		free(r->ask);
		r->ask = strdup(e->value);
		return r->ask ? 0 : -ENOMEM;
	case RK_ASK_TIMEOUT:
		rc = rules_parse_limit(c, e->line, RULES_LIMIT_WALL, e->key, e->value,
				       &r->ask_timeout_ms);
		return rc;
	case RK_REMEMBER:
		return rules_parse_yesno(c, e->line, e->key, e->value, &r->remember);
	case RK_REDIRECT:
		return parse_redirect(c, e->line, e->value, r);
	case RK_REDIRECT_IF:
		if (strcmp(e->value, "exists") != 0)
			return rules_fail(c, e->line,
					  "redirect_if = '%s': the one condition is 'exists'",
					  e->value);
		r->rw.if_exists = true;
		return 0;
	case RK_ARG0_SET: case RK_ARG1_SET: case RK_ARG2_SET:
	case RK_ARG3_SET: case RK_ARG4_SET: case RK_ARG5_SET:
		return parse_argset(c, e, r, (unsigned)(k - RK_ARG0_SET),
				    RULES_SET_BITS);
	case RK_ARG0_CLEAR: case RK_ARG1_CLEAR: case RK_ARG2_CLEAR:
	case RK_ARG3_CLEAR: case RK_ARG4_CLEAR: case RK_ARG5_CLEAR:
		return parse_argset(c, e, r, (unsigned)(k - RK_ARG0_CLEAR),
				    RULES_CLEAR_BITS);
	case RK_ARG0_VALUE: case RK_ARG1_VALUE: case RK_ARG2_VALUE:
	case RK_ARG3_VALUE: case RK_ARG4_VALUE: case RK_ARG5_VALUE:
		return parse_argset(c, e, r, (unsigned)(k - RK_ARG0_VALUE),
				    RULES_REPLACE);
	case RK_COUNT:
		break;
	}
	return -EINVAL;
}

/* The first syscall of r's set that fails pred, or NULL. */
static const struct rules_syscall_info *
first_without(const struct rules_rule *r,
	      bool (*pred)(const struct rules_syscall_info *))
{
	int nr;

	for (nr = 0; nr < RULES_NR_MAX; nr++) {
		const struct rules_syscall_info *si;

		if (!rules_nr_has(r->nrs, nr))
			continue;
		si = rules_syscall_by_nr(nr);
		if (!si || !pred(si))
			return si;
	}
	return NULL;
}

static bool takes_path(const struct rules_syscall_info *si)
{
	return si->kind == RULES_KIND_PATH || si->kind == RULES_KIND_EXEC;
}

static bool takes_addr(const struct rules_syscall_info *si)
{
	return si->kind == RULES_KIND_NET;
}

static bool has_access(const struct rules_syscall_info *si)
{
	return si->access != 0;
}

static bool nrs_empty(const uint64_t *set)
{
	size_t w;

	for (w = 0; w < RULES_NR_WORDS; w++)
		if (set[w])
			return false;
	return true;
}

static bool redirects_addr(const struct rules_syscall_info *si)
{
	return si->kind == RULES_KIND_NET && si->nr != __NR_bind;
}

/* action = rewrite: what it changes must be something the supervisor
 * carries out itself (it cannot rewrite a call the kernel runs). */
static int rewrite_finish(struct pctx *c, struct state *st,
			  struct rules_rule *r)
{
	const struct rules_syscall_info *si;
	int nr;

	if (!r->rw.redirect && !r->rw.n_sets)
		return rules_fail(c, st->sec_line,
				  "rule '%s' has action = rewrite but nothing to rewrite (add 'redirect', or argN_set, argN_clear or argN_value)",
				  r->name);
	if (r->rw.redirect && !first_without(r, takes_path)) {
		char *t = r->rw.redirect;
		size_t n = strlen(t);

		if (t[0] != '/' || strpbrk(t, "*?") || strcmp(t, "/") == 0)
			return rules_fail(c, st->key_line[RK_REDIRECT],
					  "redirect '%s' of rule '%s' must be an absolute path other than '/', without wildcards",
					  t, r->name);
		while (n > 1 && t[n - 1] == '/')
			t[--n] = '\0';
		if (!r->n_paths)
			return rules_fail(c, st->key_line[RK_REDIRECT],
					  "'redirect' in rule '%s' needs 'path' patterns (the literal part of each is replaced)",
					  r->name);
		for (size_t i = 0; i < r->n_paths; i++)
			if (!rules_redirect_glob_ok(r->paths[i]))
				return rules_fail(c, st->key_line[RK_PATH],
						  "path '%s' of rule '%s' cannot be redirected: use a literal path or PREFIX/** with a literal PREFIX",
						  r->paths[i], r->name);
	} else if (r->rw.if_exists) {
		return rules_fail(c, st->key_line[RK_REDIRECT_IF],
				  "'redirect_if' in rule '%s' needs a path 'redirect'",
				  r->name);
	} else if (r->rw.redirect && !first_without(r, redirects_addr)) {
		const char *why = "invalid address";
		struct rules_addr a;
		int rc = rules_addr_parse(r->rw.redirect, &a, &why);

		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return rules_fail(c, st->key_line[RK_REDIRECT],
					  "invalid redirect address '%s': %s",
					  r->rw.redirect, why);
		if ((a.type != RULES_ADDR_INET4 && a.type != RULES_ADDR_INET6) ||
		    a.prefix != (a.type == RULES_ADDR_INET4 ? 32u : 128u) ||
		    (a.port_lo != a.port_hi &&
		     !(a.port_lo == 0 && a.port_hi == 65535))) {
			rules_addr_release(&a);
			return rules_fail(c, st->key_line[RK_REDIRECT],
					  "redirect '%s' of rule '%s' must be one IPv4 or IPv6 host, with one port or none (IP:PORT, [IPv6]:PORT)",
					  r->rw.redirect, r->name);
		}
		r->rw.addr = a;
		r->rw.has_addr = true;
		free(r->rw.redirect);
		r->rw.redirect = NULL;
	} else if (r->rw.redirect) {
		si = first_without(r, takes_path);
		return rules_fail(c, st->key_line[RK_REDIRECT],
				  "'redirect' in rule '%s' applies to paths (file syscalls) or to addresses (connect, sendto, sendmsg, sendmmsg), but '%s' is neither or the rule mixes both",
				  r->name, si ? si->name : "bind");
	}
	for (nr = 0; nr < RULES_NR_MAX; nr++) {
		if (!rules_nr_has(r->nrs, nr) || !(si = rules_syscall_by_nr(nr)))
			continue;
		for (size_t i = 0; i < r->rw.n_sets; i++) {
			unsigned a = r->rw.sets[i].arg;

			if (si->kind == RULES_KIND_EXEC ||
			    si->kind == RULES_KIND_NET)
				return rules_fail(c, st->sec_line,
						  "rule '%s' rewrites arg%u of '%s': the arguments of %s calls are pointers or lengths (use 'redirect')",
						  r->name, a, si->name,
						  si->kind == RULES_KIND_EXEC ? "exec" : "network");
			if ((int)a == si->path_arg[0] ||
			    (int)a == si->path_arg[1] || (int)a == si->addr_arg)
				return rules_fail(c, st->sec_line,
						  "rule '%s' rewrites arg%u of '%s', a pointer to a %s: use 'redirect'",
						  r->name, a, si->name,
						  (int)a == si->addr_arg ? "socket address" : "path");
		}
	}
	return 0;
}

/* Checks that need the whole rule. */
int rules_rule_finish(struct pctx *c, struct state *st)
{
	struct rules_rule *r = cur_rule(c);
	const struct rules_syscall_info *si;
	unsigned possible = 0;
	int nr;

	if (!st->key_line[RK_SYSCALLS] || nrs_empty(r->nrs))
		return rules_fail(c, st->sec_line, "rule '%s' has no 'syscalls'",
				  r->name);
	if (!st->key_line[RK_ACTION])
		return rules_fail(c, st->sec_line, "rule '%s' has no 'action'",
				  r->name);
	if (st->key_line[RK_ERRNO] && r->action != RULES_DENY &&
	    r->action != RULES_ASK)
		return rules_fail(c, st->key_line[RK_ERRNO],
				  "'errno' is only valid with action = deny or ask (rule '%s' has action = %s)",
				  r->name, rules_action_name(r->action));
	{
		static const enum rule_key ask_keys[] = { RK_ASK, RK_ASK_TIMEOUT,
							  RK_REMEMBER };

		for (size_t i = 0; i < ARRAY_SIZE(ask_keys); i++)
			if (st->key_line[ask_keys[i]] && r->action != RULES_ASK)
				return rules_fail(c, st->key_line[ask_keys[i]],
						  "'%s' is only valid with action = ask (rule '%s' has action = %s)",
						  rules_rule_keys[ask_keys[i]], r->name,
						  rules_action_name(r->action));
	}
	if (r->action == RULES_ASK && !r->ask_timeout_ms)
		r->ask_timeout_ms = RULES_ASK_TIMEOUT_MS;
	if (r->n_paths && (si = first_without(r, takes_path)))
		return rules_fail(c, st->key_line[RK_PATH],
				  "'path' in rule '%s', but syscall '%s' takes no path",
				  r->name, si->name);
	if (r->n_addrs && (si = first_without(r, takes_addr)))
		return rules_fail(c, st->key_line[RK_ADDR],
				  "'addr' in rule '%s', but syscall '%s' has no socket address",
				  r->name, si->name);
	if (r->access) {
		if ((si = first_without(r, has_access)))
			return rules_fail(c, st->key_line[RK_ACCESS],
					  "'access' in rule '%s', but syscall '%s' has no path to check",
					  r->name, si->name);
		for (nr = 0; nr < RULES_NR_MAX; nr++)
			if (rules_nr_has(r->nrs, nr) &&
			    (si = rules_syscall_by_nr(nr)))
				possible |= si->access;
		if (r->access & ~possible) {
			unsigned bit = r->access & ~possible;

			bit &= -bit;
			return rules_fail(c, st->key_line[RK_ACCESS],
					  "access '%s' never applies to the syscalls of rule '%s'",
					  rules_access_name(bit), r->name);
		}
	}
	if (r->action == RULES_REWRITE)
		return rewrite_finish(c, st, r);
	for (int k = RK_REDIRECT; k < RK_COUNT; k++)
		if (st->key_line[k])
			return rules_fail(c, st->key_line[k],
					  "'%s' is only valid with action = rewrite (rule '%s' has action = %s)",
					  rules_rule_keys[k], r->name,
					  rules_action_name(r->action));
	return 0;
}

