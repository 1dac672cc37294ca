/* SPDX-License-Identifier: MIT */
/*
 * rules/parse-values.c: the values of keys: actions, errnos, yes/no,
 * comma lists, ${VARIABLES} and path globs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "rules/internal.h"
#include "rules/parse.h"

/* ---------------------------------------------------------------------
 * Values.
 */

static const char *const action_names[] = { "allow", "deny", "kill", "ask",
					    "rewrite", NULL };

/* Words people write for an action, and the action they mean. */
static const char *const action_aliases[][2] = {
	{ "denied", "deny" },	 { "deny-all", "deny" },  { "block", "deny" },
	{ "reject", "deny" },	 { "refuse", "deny" },	  { "drop", "deny" },
	{ "allowed", "allow" },	 { "permit", "allow" },	  { "accept", "allow" },
	{ "pass", "allow" },	 { "killed", "kill" },	  { "asked", "ask" },
	{ "prompt", "ask" },	 { "redirect", "rewrite" },
};

static const char *action_suggest(const char *v)
{
	for (size_t i = 0; i < sizeof(action_aliases) /
			       sizeof(action_aliases[0]); i++)
		if (strcasecmp(v, action_aliases[i][0]) == 0)
			return action_aliases[i][1];
	return rules_suggest_from(v, action_names);
}

int rules_parse_action(struct pctx *c, unsigned line, const char *v,
		       enum rules_action *out)
{
	if (strcmp(v, "allow") == 0)
		*out = RULES_ALLOW;
	else if (strcmp(v, "deny") == 0)
		*out = RULES_DENY;
	else if (strcmp(v, "kill") == 0)
		*out = RULES_KILL;
	else if (strcmp(v, "ask") == 0)
		*out = RULES_ASK;
	else if (strcmp(v, "rewrite") == 0)
		*out = RULES_REWRITE;
	else
		return rules_fail_unknown(c, line, "action", v, action_suggest(v));
	return 0;
}

int rules_parse_errno(struct pctx *c, unsigned line, const char *v,
		      int *out)
{
	int e = rules_errno_by_name(v);
	const char *digits = v[0] == '-' || v[0] == '+' ? v + 1 : v;

	/* A number is refused: the trail and sysgate check name errnos,
	 * and a name says what the program will see. */
	if (e <= 0 && digits[0] && strspn(digits, "0123456789") ==
	    strlen(digits)) {
		const char *name = strlen(digits) < 5 ?
				   rules_errno_name(atoi(digits)) : NULL;

		if (name)
			return rules_fail(c, line,
					  "errno = %s: errno takes a name (%s is %s: errno = %s)",
					  v, digits, name, name);
		return rules_fail(c, line,
				  "errno = %s: errno takes a name, such as EPERM or EACCES",
				  v);
	}
	if (e <= 0)
		return rules_fail_unknown(c, line, "errno", v,
					  rules_errno_suggest(v));
	*out = e;
	return 0;
}

int rules_parse_yesno(struct pctx *c, unsigned line, const char *key,
		      const char *v, bool *out)
{
	if (strcmp(v, "yes") == 0)
		*out = true;
	else if (strcmp(v, "no") == 0)
		*out = false;
	else
		return rules_fail(c, line, "invalid value '%s' for '%s' (expected yes or no)",
				  v, key);
	return 0;
}

int rules_for_each_item(struct pctx *c, unsigned line, const char *key,
			const char *value, item_fn fn, void *arg)
{
	AUTO_FREE char *copy = strdup(value);
	char *p, *next;
	int rc;

	if (!copy)
		return -ENOMEM;
	for (p = copy; p; p = next) {
		char *item = p;

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		while (is_space(*item))
			item++;
		rstrip(item);
		if (*item == '\0')
			return rules_fail(c, line, "empty item in the list of '%s'",
					  key);
		rc = fn(c, line, item, arg);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ${HOME} ${CWD} ${TMPDIR} ${RUN}. */
static const char *const var_names[] = { "HOME", "CWD", "TMPDIR", "RUN",
					 NULL };

/* The value of ${name}: canonical, or as spelled when spelled is set and
 * the variable has a spelling of its own (*alt tells whether it has). */
static int var_value(struct pctx *c, unsigned line, const char *name,
		     bool spelled, const char **out, bool *alt)
{
	const struct rules_vars *v = c->vars;
	const char *val = NULL, *sp = NULL, *why = NULL;
	bool is_path = true;
	const char *sugg;

	if (strcmp(name, "HOME") == 0) {
		if (v) {
			val = v->home;
			sp = v->home_spelled;
			why = v->home_why;
		}
	} else if (strcmp(name, "CWD") == 0) {
		if (v) {
			val = v->cwd;
			sp = v->cwd_spelled;
			why = v->cwd_why;
		}
	} else if (strcmp(name, "TMPDIR") == 0) {
		if (v) {
			val = v->tmpdir;
			sp = v->tmpdir_spelled;
			why = v->tmpdir_why;
		}
	} else if (strcmp(name, "RUN") == 0) {
		val = v ? v->run : NULL;
		is_path = false;
	} else {
		sugg = rules_suggest_from(name, var_names);
		if (sugg)
			return rules_fail(c, line,
					  "unknown variable ${%s} (did you mean ${%s}?)",
					  name, sugg);
		return rules_fail(c, line, "unknown variable ${%s}", name);
	}
	/* Security: a variable that cannot be determined stops the load;
	 * it never stands for "/" or anything else. */
	if (!val && why)
		return rules_fail(c, line, "variable ${%s} cannot be determined: %s",
				  name, why);
	if (!val)
		return rules_fail(c, line, "variable ${%s} is not set", name);
	*alt = false;
	if (sp && sp[0] == '/' && strcmp(sp, val) != 0) {
		*alt = true;
		if (spelled)
			val = sp;
	}
	if (is_path && val[0] != '/')
		return rules_fail(c, line, "variable ${%s} is not an absolute path ('%s')",
				  name, val);
	if (strpbrk(val, "*?") || (!is_path && strchr(val, '/')))
		return rules_fail(c, line,
				  "variable ${%s} holds characters that would change the glob ('%s')",
				  name, val);
	*out = val;
	return 0;
}

/* Variables with a spelling of their own, at most, in one item: each
 * doubles the globs the item adds. */
#define VAR_ALT_MAX 3

/*
 * Expands the ${VARIABLES} of in into out; what names in for an error
 * ("glob", "address", "redirect", "include").  Bit i of alt picks the
 * spelled form of the i-th variable that has one; *n_alt (may be NULL)
 * gets how many have one.
 */
int rules_expand_alt(struct pctx *c, unsigned line, const char *what,
		     const char *in, char *out, size_t out_len, unsigned alt,
		     unsigned *n_alt)
{
	size_t o = 0;
	unsigned k = 0;

	while (*in) {
		const char *add = in;
		size_t add_len = 1;
		char name[KEY_MAX];

		if (in[0] == '$' && in[1] == '{') {
			const char *close = strchr(in + 2, '}');
			size_t n;
			bool has_alt = false;
			int rc;

			if (!close)
				return rules_fail(c, line, "'${' without '}'");
			n = (size_t)(close - in - 2);
			if (n == 0 || n >= sizeof(name))
				return rules_fail(c, line, "invalid variable name");
			memcpy(name, in + 2, n);
			name[n] = '\0';
			rc = var_value(c, line, name,
				       k < VAR_ALT_MAX && (alt >> k & 1), &add,
				       &has_alt);
			if (rc < 0)
				return rc;
			if (has_alt && k < VAR_ALT_MAX)
				k++;
			add_len = strlen(add);
			in = close + 1;
			/* "/" + "/x" would give "//x". */
			while (add_len > 1 && add[add_len - 1] == '/')
				add_len--;
			if (add_len == 1 && add[0] == '/' && *in == '/')
				add_len = 0;
		} else {
			in++;
		}
		if (add_len >= out_len - o)
			return rules_fail(c, line,
					  "%s too long after expansion (the limit is %zu bytes)",
					  what, out_len - 1);
		memcpy(out + o, add, add_len);
		o += add_len;
	}
	out[o] = '\0';
	if (n_alt)
		*n_alt = k;
	return 0;
}

/* The same with the canonical value of every variable. */
int rules_expand(struct pctx *c, unsigned line, const char *what,
		 const char *in, char *out, size_t out_len)
{
	return rules_expand_alt(c, line, what, in, out, out_len, 0, NULL);
}

size_t rules_nameless_prefix(const char *path)
{
	static const char *const prefixes[] = {
		"memfd:", "deleted:", "pipe:", "socket:", "anon_inode:",
	};

	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
		size_t n = strlen(prefixes[k]);

		if (!strncmp(path, prefixes[k], n))
			return n;
	}
	return 0;
}

/* A path glob must be absolute (or start with "**") and canonical, since
 * it is matched against canonical paths: no ".", "..", "//", trailing
 * '/'. */
int rules_check_path_glob(struct pctx *c, unsigned line, const char *g)
{
	const char *why, *p;

	/* Files without a name: memfd:NAME and deleted:/PATH (what the
	 * supervisor calls an fd whose file has no path), and the pipes,
	 * sockets and anonymous inodes that fchmod, futimens and the like
	 * may name by fd: pipe:[INODE], socket:[INODE], anon_inode:KIND. */
	if (rules_nameless_prefix(g)) {
		if (rules_glob_check(g, &why) < 0)
			return rules_fail(c, line, "%s: '%s'", why, g);
		return 0;
	}
	if (g[0] != '/' && strncmp(g, "**", 2) != 0)
		return rules_fail(c, line,
				  "relative path glob '%s' (paths must start with '/', '**', 'memfd:', 'deleted:', 'pipe:', 'socket:' or 'anon_inode:')",
				  g);
	if (rules_glob_check(g, &why) < 0)
		return rules_fail(c, line, "%s: '%s'", why, g);
	if (strcmp(g, "/") == 0)
		return 0;
	for (p = g; *p;) {
		size_t n = strcspn(p, "/");

		if ((n == 0 && p != g) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return rules_fail(c, line,
					  "path glob '%s' is not canonical (no '.', '..', '//' or trailing '/')",
					  g);
		p += n;
		if (*p == '/')
			p++;
	}
	if (g[strlen(g) - 1] == '/')
		return rules_fail(c, line,
				  "path glob '%s' is not canonical (no '.', '..', '//' or trailing '/')",
				  g);
	return 0;
}

int rules_push_str(char ***list, size_t *n, const char *s)
{
	char **nl;
	char *dup;

	if (*n >= RULES_MAX_ITEMS)
		return -E2BIG;
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	nl = reallocarray(*list, *n + 1, sizeof(*nl));
	if (!nl) {
		free(dup);
		return -ENOMEM;
	}
	nl[(*n)++] = dup;
	*list = nl;
	return 0;
}

