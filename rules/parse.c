/* SPDX-License-Identifier: MIT */
/*
 * rules/parse.c: loading a policy.  The INI text is read by our own strict
 * line scanner (which keeps line numbers and refuses what inih would
 * silently reinterpret), cross-checked against inih, then checked key by
 * key into an immutable struct rules_set.  Every error names FILE:LINE.
 * [policy] include = ... pulls in other policies (see "Includes" below).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/util.h"
#include "rules/internal.h"

extern const char rules_default_policy[];

#define DEFAULT_SOURCE "<default>"
#define SECTION_MAX 49		/* inih copies section names into 50 bytes */
#define KEY_MAX 32		/* bytes of a key name */
#define WHY_MAX 256
#define INCLUDE_DEPTH_MAX 8	/* nested includes below the top policy */
#define INCLUDE_MAX 16		/* include keys in one file */
/* Included files loaded for one policy, all levels together: the two limits
 * above alone allow 16^8 loads of a few tiny files that include each other
 * 16 times over (hours of work at start-up). */
#define INCLUDE_TOTAL_MAX 64

#ifndef SYSGATE_DATADIR
#define SYSGATE_DATADIR "/usr/local/share/sysgate"
#endif

/* ---------------------------------------------------------------------
 * Suggestions (optimal string alignment distance, case-insensitive).
 */

size_t rules_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	/* Distances are at most RULES_WORD_MAX: a short fits. */
	unsigned short d[RULES_WORD_MAX + 1][RULES_WORD_MAX + 1];

	if (la > RULES_WORD_MAX || lb > RULES_WORD_MAX)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned short)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned short)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 &&
			    ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = (unsigned short)v;
		}
	}
	return d[la][lb];
}

void rules_suggest_consider(const char *word, const char *cand,
			    const char **best, size_t *best_dist)
{
	size_t d = rules_edit_distance(word, cand);

	if (d < *best_dist) {
		*best_dist = d;
		*best = cand;
	}
}

const char *rules_suggest_result(const char *word, const char *best,
				 size_t best_dist)
{
	size_t len = strlen(word);
	size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;

	if (!best || best_dist > limit)
		return NULL;
	return best;
}

static const char *suggest_from(const char *word, const char *const *list)
{
	const char *best = NULL;
	size_t best_dist = SIZE_MAX, i;

	for (i = 0; list[i]; i++)
		rules_suggest_consider(word, list[i], &best, &best_dist);
	return rules_suggest_result(word, best, best_dist);
}

/* ---------------------------------------------------------------------
 * Messages.
 */

/* One [policy] include key, its value borrowed from the scan buffer. */
struct include_ref {
	const char *value;
	unsigned line;
};

/* The files being loaded, innermost first, to refuse include cycles. */
struct include_chain {
	const char *id; /* canonical path, or the name of the built-in */
	const struct include_chain *up;
};

struct pctx {
	const char *name;
	char *err;
	size_t err_len;
	const struct rules_vars *vars;
	struct rules_set *rs;
	unsigned depth;			/* 0: the policy given to sysgate */
	unsigned *n_loaded;		/* includes loaded so far, all levels */
	const struct include_chain *chain;
	struct include_ref incl[INCLUDE_MAX];
	size_t n_incl;
	unsigned policy_set;		/* POLICY_* bits set here or inherited */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct pctx *c, unsigned line, const char *fmt, ...)
{
	char msg[RULES_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->err_len) {
		if (line)
			snprintf(c->err, c->err_len, "%s:%u: %s", c->name, line,
				 msg);
		else
			snprintf(c->err, c->err_len, "%s: %s", c->name, msg);
	}
	return -EINVAL;
}

/* "unknown WHAT 'word' (did you mean 'x'?)" */
static int fail_unknown(struct pctx *c, unsigned line, const char *what,
			const char *word, const char *sugg)
{
	if (sugg)
		return fail(c, line, "unknown %s '%s' (did you mean '%s'?)",
			    what, word, sugg);
	return fail(c, line, "unknown %s '%s'", what, word);
}

/* ---------------------------------------------------------------------
 * The line scanner.  It accepts a strict subset of what inih accepts:
 *   [section]            no spaces inside the brackets
 *   key = value          value ends at " ;" (an inline comment)
 *   ; comment, # comment, blank lines
 * and refuses, with the line number, what inih would reinterpret:
 * lines of RULES_LINE_MAX bytes or more (inih splits them), indented lines
 * (inih continues the previous value), ':' as the delimiter, text after a
 * section header, control characters.
 */

enum entry_type { ENT_SECTION, ENT_KEY };

struct entry {
	enum entry_type type;
	unsigned line;
	const char *section; /* the section it belongs to (ENT_KEY) */
	const char *key;
	const char *value;
};

struct scan {
	char *buf;
	struct entry *ents;
	size_t n, cap;
};

static void scan_release(struct scan *s)
{
	free(s->buf);
	free(s->ents);
}

static int scan_add(struct scan *s, struct entry e)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct entry *n = reallocarray(s->ents, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->ents = n;
		s->cap = cap;
	}
	s->ents[s->n++] = e;
	return 0;
}

static bool is_space(char ch)
{
	return isspace((unsigned char)ch) != 0;
}

static char *rstrip(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && is_space(s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* As inih's find_chars_or_comment: the first char of chars, or a ';'
 * that follows whitespace. */
static char *find_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	while (*s && (!chars || !strchr(chars, *s)) &&
	       !(was_space && *s == ';')) {
		was_space = is_space(*s);
		s++;
	}
	return s;
}

static int scan_line(struct pctx *c, struct scan *s, char *line,
		     unsigned lineno, const char **section)
{
	char *p, *end;

	rstrip(line);
	for (p = line; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(c, lineno, "control character 0x%02x in line",
				    ch);
	}
	p = line;
	while (is_space(*p))
		p++;
	if (*p == '\0' || *p == ';' || *p == '#')
		return 0;
	if (p != line)
		return fail(c, lineno,
			    "line starts with whitespace (it would continue the previous value); remove the indentation");
	if (*p == '[') {
		char *name = p + 1;
		size_t len;

		end = find_or_comment(name, "]");
		if (*end != ']')
			return fail(c, lineno, "section header without ']'");
		*end = '\0';
		p = end + 1;
		while (is_space(*p))
			p++;
		if (*p && *p != ';' && *p != '#')
			return fail(c, lineno, "unexpected text after ']'");
		len = strlen(name);
		if (len == 0)
			return fail(c, lineno, "empty section name");
		if (is_space(name[0]) || is_space(name[len - 1]))
			return fail(c, lineno,
				    "section name '%s' has surrounding spaces",
				    name);
		if (len > SECTION_MAX)
			return fail(c, lineno,
				    "section name too long (%zu bytes, the limit is %d)",
				    len, SECTION_MAX);
		*section = name;
		return scan_add(s, (struct entry){ .type = ENT_SECTION,
						   .line = lineno,
						   .section = name });
	}
	end = find_or_comment(p, "=:");
	if (*end != '=' && *end != ':')
		return fail(c, lineno, "expected 'key = value'");
	if (*end == ':')
		return fail(c, lineno, "use '=' between key and value, not ':'");
	*end = '\0';
	rstrip(p);
	if (*p == '\0')
		return fail(c, lineno, "missing key name before '='");
	if (!*section)
		return fail(c, lineno, "key '%s' outside of any section", p);
	{
		char *value = end + 1;

		/* As inih: the comment is found before the value is trimmed,
		 * so "k = ; c" has an empty value. */
		end = find_or_comment(value, NULL);
		*end = '\0';
		while (is_space(*value))
			value++;
		rstrip(value);
		return scan_add(s, (struct entry){ .type = ENT_KEY,
						   .line = lineno,
						   .section = *section,
						   .key = p,
						   .value = value });
	}
}

static int scan_text(struct pctx *c, const char *text, struct scan *s)
{
	const char *section = NULL;
	size_t len = strlen(text), bom = 0;
	unsigned lineno = 0;
	char *p;
	int rc;

	if (len > RULES_MAX_FILE)
		return fail(c, 0, "policy too large (%zu bytes, the limit is %d)",
			    len, RULES_MAX_FILE);
	s->buf = strdup(text);
	if (!s->buf)
		return -ENOMEM;
	p = s->buf;
	/* inih skips a BOM after reading the line: it counts in the first
	 * line's length. */
	if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) {
		p += 3;
		bom = 3;
	}
	while (*p) {
		char *nl = strchr(p, '\n');
		size_t n = (nl ? (size_t)(nl - p) : strlen(p)) + bom;

		bom = 0;
		lineno++;
		if (nl)
			*nl = '\0';
		if (n >= RULES_LINE_MAX)
			return fail(c, lineno,
				    "line too long (%zu bytes, the limit is %d)",
				    n, RULES_LINE_MAX - 1);
		rc = scan_line(c, s, p, lineno, &section);
		if (rc < 0)
			return rc;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Cross-check: inih must see exactly the keys we saw, in order. */
struct xcheck {
	const struct scan *s;
	size_t next;
	unsigned bad_line;
	bool extra;
};

static int xcheck_handler(void *user, const char *section, const char *name,
			  const char *value)
{
	struct xcheck *x = user;

	while (x->next < x->s->n && x->s->ents[x->next].type != ENT_KEY)
		x->next++;
	if (x->next >= x->s->n) {
		x->extra = true;
		return 1;
	}
	{
		const struct entry *e = &x->s->ents[x->next++];

		if (!x->bad_line &&
		    (strcmp(e->section, section) || strcmp(e->key, name) ||
		     strcmp(e->value, value)))
			x->bad_line = e->line;
	}
	return 1;
}

static int cross_check(struct pctx *c, const char *text,
		       const struct scan *s, unsigned last_line)
{
	struct xcheck x = { .s = s };
	int rc = ini_parse_string(text, xcheck_handler, &x);

	if (rc != 0)
		return fail(c, rc > 0 ? (unsigned)rc : 0,
			    "inih cannot parse this line");
	if (x.bad_line)
		return fail(c, x.bad_line,
			    "inih reads this line differently (internal check)");
	while (x.next < s->n && s->ents[x.next].type != ENT_KEY)
		x.next++;
	if (x.extra || x.next != s->n)
		return fail(c, last_line,
			    "inih reads this file differently (internal check)");
	return 0;
}

/* ---------------------------------------------------------------------
 * Values.
 */

static const char *const action_names[] = { "allow", "deny", "kill", "ask",
					    "rewrite", NULL };

static int parse_action(struct pctx *c, unsigned line, const char *v,
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
		return fail_unknown(c, line, "action", v,
				    suggest_from(v, action_names));
	return 0;
}

static int parse_errno(struct pctx *c, unsigned line, const char *v,
		       int *out)
{
	int e = rules_errno_by_name(v);

	if (e <= 0)
		return fail_unknown(c, line, "errno", v,
				    rules_errno_suggest(v));
	*out = e;
	return 0;
}

static int parse_yesno(struct pctx *c, unsigned line, const char *key,
		       const char *v, bool *out)
{
	if (strcmp(v, "yes") == 0)
		*out = true;
	else if (strcmp(v, "no") == 0)
		*out = false;
	else
		return fail(c, line, "invalid value '%s' for '%s' (expected yes or no)",
			    v, key);
	return 0;
}

/* Split a comma list in place; calls fn for each trimmed item. */
typedef int (*item_fn)(struct pctx *c, unsigned line, char *item,
		       void *arg);

static int for_each_item(struct pctx *c, unsigned line, const char *key,
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
			return fail(c, line, "empty item in the list of '%s'",
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
		sugg = suggest_from(name, var_names);
		if (sugg)
			return fail(c, line,
				    "unknown variable ${%s} (did you mean ${%s}?)",
				    name, sugg);
		return fail(c, line, "unknown variable ${%s}", name);
	}
	/* Security: a variable that cannot be determined stops the load;
	 * it never stands for "/" or anything else. */
	if (!val && why)
		return fail(c, line, "variable ${%s} cannot be determined: %s",
			    name, why);
	if (!val)
		return fail(c, line, "variable ${%s} is not set", name);
	*alt = false;
	if (sp && sp[0] == '/' && strcmp(sp, val) != 0) {
		*alt = true;
		if (spelled)
			val = sp;
	}
	if (is_path && val[0] != '/')
		return fail(c, line, "variable ${%s} is not an absolute path ('%s')",
			    name, val);
	if (strpbrk(val, "*?") || (!is_path && strchr(val, '/')))
		return fail(c, line,
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
static int expand_alt(struct pctx *c, unsigned line, const char *what,
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
				return fail(c, line, "'${' without '}'");
			n = (size_t)(close - in - 2);
			if (n == 0 || n >= sizeof(name))
				return fail(c, line, "invalid variable name");
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
			return fail(c, line,
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
static int expand(struct pctx *c, unsigned line, const char *what,
		  const char *in, char *out, size_t out_len)
{
	return expand_alt(c, line, what, in, out, out_len, 0, NULL);
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
static int check_path_glob(struct pctx *c, unsigned line, const char *g)
{
	const char *why, *p;

	/* Files without a name: memfd:NAME and deleted:/PATH (what the
	 * supervisor calls an fd whose file has no path), and the pipes,
	 * sockets and anonymous inodes that fchmod, futimens and the like
	 * may name by fd: pipe:[INODE], socket:[INODE], anon_inode:KIND. */
	if (rules_nameless_prefix(g)) {
		if (rules_glob_check(g, &why) < 0)
			return fail(c, line, "%s: '%s'", why, g);
		return 0;
	}
	if (g[0] != '/' && strncmp(g, "**", 2) != 0)
		return fail(c, line,
			    "relative path glob '%s' (paths must start with '/', '**', 'memfd:', 'deleted:', 'pipe:', 'socket:' or 'anon_inode:')",
			    g);
	if (rules_glob_check(g, &why) < 0)
		return fail(c, line, "%s: '%s'", why, g);
	if (strcmp(g, "/") == 0)
		return 0;
	for (p = g; *p;) {
		size_t n = strcspn(p, "/");

		if ((n == 0 && p != g) || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return fail(c, line,
				    "path glob '%s' is not canonical (no '.', '..', '//' or trailing '/')",
				    g);
		p += n;
		if (*p == '/')
			p++;
	}
	if (g[strlen(g) - 1] == '/')
		return fail(c, line,
			    "path glob '%s' is not canonical (no '.', '..', '//' or trailing '/')",
			    g);
	return 0;
}

static int push_str(char ***list, size_t *n, const char *s)
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

/* ---------------------------------------------------------------------
 * Sections and keys.
 */

enum section_kind { SEC_NONE, SEC_POLICY, SEC_LIMITS, SEC_RULE, SEC_ENV };

enum rule_key {
	RK_SYSCALLS, RK_PATH, RK_ACCESS, RK_ADDR, RK_EXE,
	RK_ARG0, RK_ARG1, RK_ARG2, RK_ARG3, RK_ARG4, RK_ARG5,
	RK_ACTION, RK_ERRNO, RK_STACK, RK_AUDIT, RK_ASK, RK_ASK_TIMEOUT,
	RK_REMEMBER, RK_REDIRECT, RK_REDIRECT_IF,
	RK_ARG0_SET, RK_ARG1_SET, RK_ARG2_SET, RK_ARG3_SET, RK_ARG4_SET,
	RK_ARG5_SET,
	RK_ARG0_CLEAR, RK_ARG1_CLEAR, RK_ARG2_CLEAR, RK_ARG3_CLEAR,
	RK_ARG4_CLEAR, RK_ARG5_CLEAR,
	RK_ARG0_VALUE, RK_ARG1_VALUE, RK_ARG2_VALUE, RK_ARG3_VALUE,
	RK_ARG4_VALUE, RK_ARG5_VALUE,
	RK_COUNT
};

static const char *const rule_keys[] = {
	"syscalls", "path", "access", "addr", "exe",
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5",
	"action", "errno", "stack", "audit", "ask", "ask_timeout", "remember",
	"redirect", "redirect_if",
	"arg0_set", "arg1_set", "arg2_set", "arg3_set", "arg4_set", "arg5_set",
	"arg0_clear", "arg1_clear", "arg2_clear", "arg3_clear", "arg4_clear",
	"arg5_clear",
	"arg0_value", "arg1_value", "arg2_value", "arg3_value", "arg4_value",
	"arg5_value",
	NULL
};

/* Keys that may repeat (their items append). */
static bool rule_key_repeats(enum rule_key k)
{
	return k == RK_SYSCALLS || k == RK_PATH || k == RK_ACCESS ||
	       k == RK_ADDR || k == RK_EXE;
}

/* Indexes into policy_keys; the first three are also POLICY_SET bits. */
enum policy_key { PK_DEFAULT, PK_ERRNO, PK_AUDIT, PK_INCLUDE, PK_UNMEDIATED,
		  PK_OUTPUT, PK_COUNT };
#define POLICY_SET(k) (1u << (k))

static const char *const policy_keys[] = { "default", "errno", "audit",
					   "include", "unmediated", "output",
					   NULL };
static const char *const limit_keys[] = { "processes", "memory", "cpu",
					  "wall", "file_size", "open_files",
					  NULL };
static const char *const audit_levels[] = { "all", "denied", "none", NULL };
static const char *const access_names[] = { "read", "write", "create",
					    "delete", "exec", "stat", NULL };

struct state {
	enum section_kind sec;
	unsigned sec_line;
	unsigned key_line[RK_COUNT]; /* first line of each key, 0 unseen */
	unsigned policy_line, limits_line;
	unsigned env_line;
	unsigned policy_key_line[PK_COUNT];
	unsigned limit_key_line[RULES_LIMIT_COUNT];
	bool rule_err_set[RULES_MAX_RULES];
};

static int find_key(const char *const *keys, const char *k)
{
	int i;

	for (i = 0; keys[i]; i++)
		if (strcmp(keys[i], k) == 0)
			return i;
	return -1;
}

static int unknown_key(struct pctx *c, unsigned line, const char *key,
		       const char *section, const char *const *keys)
{
	const char *sugg = suggest_from(key, keys);

	if (sugg)
		return fail(c, line,
			    "unknown key '%s' in [%s] (did you mean '%s'?)", key,
			    section, sugg);
	return fail(c, line, "unknown key '%s' in [%s]", key, section);
}

/* [policy] unmediated = FAMILY, ...: the families of
 * rules_unmediated_refused() the policy lets through. */
static int parse_unmediated(struct pctx *c, unsigned line, const char *v,
			    unsigned *out)
{
	char word[RULES_WORD_MAX];
	unsigned bits = 0;

	while (*v) {
		size_t n;

		v += strspn(v, " \t,");
		n = strcspn(v, " \t,");
		if (n == 0)
			break;
		if (n >= sizeof(word))
			return fail(c, line, "unmediated: '%.*s' is too long",
				    (int)n, v);
		memcpy(word, v, n);
		word[n] = '\0';
		if (!rules_unmediated_by_name(word))
			return fail_unknown(c, line, "unmediated family", word,
					    suggest_from(word,
							 rules_unmediated_names));
		bits |= rules_unmediated_by_name(word);
		v += n;
	}
	if (!bits)
		return fail(c, line,
			    "unmediated: name one or more of io_uring, mount, handles");
	*out = bits;
	return 0;
}

static int parse_limit(struct pctx *c, unsigned line, enum rules_limit which,
		       const char *key, const char *v, uint64_t *out);

static int policy_key(struct pctx *c, struct state *st,
		      const struct entry *e)
{
	struct rules_set *rs = c->rs;
	int k = find_key(policy_keys, e->key);

	if (k < 0)
		return unknown_key(c, e->line, e->key, "policy", policy_keys);
	if (k == PK_INCLUDE) {
		/* Loaded after this file is read (load_text). */
		if (c->n_incl >= INCLUDE_MAX)
			return fail(c, e->line,
				    "too many includes (the limit is %d)",
				    INCLUDE_MAX);
		c->incl[c->n_incl++] =
			(struct include_ref){ .value = e->value,
					      .line = e->line };
		return 0;
	}
	if (st->policy_key_line[k])
		return fail(c, e->line,
			    "duplicate key '%s' in [policy] (first at line %u)",
			    e->key, st->policy_key_line[k]);
	st->policy_key_line[k] = e->line;
	c->policy_set |= POLICY_SET(k);
	switch (k) {
	case PK_DEFAULT: {
		int rc = parse_action(c, e->line, e->value, &rs->def);

		if (rc == 0 && rs->def == RULES_REWRITE)
			return fail(c, e->line,
				    "default = rewrite: the default has nothing to rewrite (use allow, deny, kill or ask; rewrite in a rule)");
		return rc;
	}
	case PK_ERRNO:
		return parse_errno(c, e->line, e->value, &rs->def_err);
	case PK_UNMEDIATED:
		return parse_unmediated(c, e->line, e->value, &rs->unmediated);
	case PK_OUTPUT:
		rs->output_set = true;
		if (strcmp(e->value, "off") == 0) {
			rs->output_cap = 0;
			return 0;
		}
		/* A size, as [limits] memory (more than 0). */
		return parse_limit(c, e->line, RULES_LIMIT_MEMORY, "output",
				   e->value, &rs->output_cap);
	default: {
		int lvl = find_key(audit_levels, e->value);

		if (lvl < 0)
			return fail_unknown(c, e->line, "audit level", e->value,
					    suggest_from(e->value,
							 audit_levels));
		rs->audit = (enum rules_audit_level)lvl;
		return 0;
	}
	}
}

/* Digits only, no sign, no overflow. */
static int parse_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

static int parse_limit(struct pctx *c, unsigned line, enum rules_limit which,
		       const char *key, const char *v, uint64_t *out)
{
	size_t n = strspn(v, "0123456789");
	const char *unit = v + n;
	uint64_t num, mul = 1;
	int rc = parse_digits(v, n, &num);

	switch (which) {
	case RULES_LIMIT_PROCESSES:
	case RULES_LIMIT_OPEN_FILES:
		if (*unit)
			rc = -EINVAL;
		break;
	case RULES_LIMIT_MEMORY:
	case RULES_LIMIT_FILE_SIZE:
		if (*unit == '\0' || strcmp(unit, "B") == 0)
			mul = 1;
		else if (strchr("KkMmGgTt", unit[0]) &&
			 (unit[1] == '\0' || strcmp(unit + 1, "B") == 0 ||
			  strcmp(unit + 1, "iB") == 0))
			mul = UINT64_C(1)
			      << (10 * (strchr("KMGT", toupper(unit[0])) -
					"KMGT" + 1));
		else
			rc = -EINVAL;
		break;
	case RULES_LIMIT_CPU:
	case RULES_LIMIT_WALL:
		if (*unit == '\0' || strcmp(unit, "s") == 0)
			mul = 1000;
		else if (strcmp(unit, "ms") == 0)
			mul = 1;
		else if (strcmp(unit, "m") == 0 || strcmp(unit, "min") == 0)
			mul = 60 * 1000;
		else if (strcmp(unit, "h") == 0)
			mul = 3600 * 1000;
		else
			rc = -EINVAL;
		break;
	case RULES_LIMIT_COUNT:
		rc = -EINVAL;
		break;
	}
	if (rc == -ERANGE ||
	    (rc == 0 && __builtin_mul_overflow(num, mul, &num)))
		return fail(c, line, "value '%s' of '%s' is too large", v,
			    key);
	if (rc < 0) {
		const char *hint = " (a number)";

		if (which == RULES_LIMIT_MEMORY ||
		    which == RULES_LIMIT_FILE_SIZE)
			hint = " (a number with an optional K, M, G or T)";
		else if (which == RULES_LIMIT_CPU || which == RULES_LIMIT_WALL)
			hint = " (a number with an optional ms, s, m or h)";
		return fail(c, line, "invalid value '%s' for '%s'%s", v,
			    key, hint);
	}
	if (num == 0)
		return fail(c, line, "'%s' must be more than 0", key);
	if ((which == RULES_LIMIT_PROCESSES ||
	     which == RULES_LIMIT_OPEN_FILES) && num > INT32_MAX)
		return fail(c, line, "value '%s' of '%s' is too large", v,
			    key);
	*out = num;
	return 0;
}

static int limits_key(struct pctx *c, struct state *st,
		      const struct entry *e)
{
	struct rules_set *rs = c->rs;
	int k = find_key(limit_keys, e->key);

	if (k < 0)
		return unknown_key(c, e->line, e->key, "limits", limit_keys);
	if (st->limit_key_line[k])
		return fail(c, e->line,
			    "duplicate key '%s' in [limits] (first at line %u)",
			    e->key, st->limit_key_line[k]);
	st->limit_key_line[k] = e->line;
	rs->limit_set[k] = true;
	return parse_limit(c, e->line, (enum rules_limit)k, e->key, e->value,
			   &rs->limits[k]);
}

/* ---------------------------------------------------------------------
 * [env]: the command's environment (rules/env.c applies it).
 *   keep = NAME|GLOB, ...   kept even when a drop glob matches
 *   drop = NAME|GLOB, ...   left out of the command's environment
 *   set = NAME=VALUE        replaces or adds NAME (repeatable)
 */

static const char *const env_keys[] = { "keep", "drop", "set", NULL };

/* TMPDIR and SYSGATE_RUN are the run's: sysgate sets them after [env]. */
static const char *const env_sysgate_vars[] = { "TMPDIR", "SYSGATE_RUN",
						NULL };

/* A name (globs: also '*' and '?'): letters, digits, '_', '.', '-'. */
static int check_env_name(struct pctx *c, unsigned line, const char *key,
			  const char *name, bool globs)
{
	const char *p;

	for (p = name; *p; p++) {
		if (isalnum((unsigned char)*p) || strchr("_.-", *p) ||
		    (globs && strchr("*?", *p)))
			continue;
		if (*p == '=' && globs)
			return fail(c, line,
				    "'%s' in '%s' is a name, not NAME=VALUE (to give a variable a value: set = NAME=VALUE)",
				    name, key);
		if (*p == '[' && globs)
			return fail(c, line,
				    "'%s': '[' is no glob in [env] (only '*' and '?')",
				    name);
		return fail(c, line,
			    "invalid variable name%s '%s' in '%s' (letters, digits, '_', '.' and '-'%s)",
			    globs ? " or glob" : "", name, key,
			    globs ? "; globs '*' and '?'" : "");
	}
	if (!globs && isdigit((unsigned char)name[0]))
		return fail(c, line,
			    "invalid variable name '%s' in '%s' (it starts with a digit)",
			    name, key);
	return 0;
}

static int env_push(struct pctx *c, unsigned line, const char *key,
		    char ***list, size_t *n, const char *s)
{
	int rc = push_str(list, n, s);

	if (rc == -E2BIG)
		return fail(c, line,
			    "too many items in '%s' (the limit is %d in [env])",
			    key, RULES_MAX_ITEMS);
	return rc;
}

static int item_env_keep(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_env *env = arg;
	int rc = check_env_name(c, line, "keep", item, true);

	if (rc < 0)
		return rc;
	return env_push(c, line, "keep", &env->keep, &env->n_keep, item);
}

static int item_env_drop(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_env *env = arg;
	int rc = check_env_name(c, line, "drop", item, true);

	if (rc < 0)
		return rc;
	return env_push(c, line, "drop", &env->drop, &env->n_drop, item);
}

/* set = NAME=VALUE; ${VARIABLES} in VALUE are expanded. */
static int env_set(struct pctx *c, unsigned line, const char *value)
{
	struct rules_env *env = &c->rs->env;
	char name[RULES_LINE_MAX], val[RULES_GLOB_MAX + 1];
	char item[RULES_LINE_MAX + RULES_GLOB_MAX + 2];
	size_t n = strcspn(value, "=");
	unsigned *nl;
	int rc;

	if (value[n] != '=' || n == 0)
		return fail(c, line, "set: expected NAME=VALUE, not '%s'",
			    value);
	snprintf(name, sizeof(name), "%.*s", (int)n, value);
	rstrip(name);
	rc = check_env_name(c, line, "set", name, false);
	if (rc < 0)
		return rc;
	if (find_key(env_sysgate_vars, name) >= 0)
		return fail(c, line,
			    "set: %s is sysgate's (it is set for each run, after [env])",
			    name);
	for (size_t i = 0; i < env->n_set; i++)
		if (strncmp(env->set[i], name, strlen(name)) == 0 &&
		    env->set[i][strlen(name)] == '=')
			return fail(c, line,
				    "set: %s is set twice (first at line %u)",
				    name, env->set_line[i]);
	value += n + 1;
	while (is_space(*value))
		value++;
	rc = expand(c, line, "value", value, val, sizeof(val));
	if (rc < 0)
		return rc;
	snprintf(item, sizeof(item), "%s=%s", name, val);
	nl = reallocarray(env->set_line, env->n_set + 1, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	env->set_line = nl;
	nl[env->n_set] = line;
	return env_push(c, line, "set", &env->set, &env->n_set, item);
}

static int env_key(struct pctx *c, const struct entry *e)
{
	int k = find_key(env_keys, e->key);

	switch (k) {
	case 0:
		return for_each_item(c, e->line, e->key, e->value,
				     item_env_keep, &c->rs->env);
	case 1:
		return for_each_item(c, e->line, e->key, e->value,
				     item_env_drop, &c->rs->env);
	case 2:
		return env_set(c, e->line, e->value);
	default:
		return unknown_key(c, e->line, e->key, "env", env_keys);
	}
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
			return fail_unknown(c, line, "group", item,
					    rules_group_suggest(item));
		return 0;
	}
	si = rules_syscall_by_name(item);
	if (!si)
		return fail_unknown(c, line, "syscall", item,
				    rules_syscall_suggest(item));
	rules_nr_add(r->nrs, si->nr);
	return 0;
}

static int push_checked(struct pctx *c, unsigned line, char ***list,
			size_t *n, const char *s)
{
	int rc = push_str(list, n, s);

	if (rc == -E2BIG)
		return fail(c, line, "too many items (the limit is %d per rule)",
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
	int rc = expand_alt(c, line, what, item, text, sizeof(text), 0, &n_alt);

	while (rc == 0) {
		rc = add(c, line, text, r);
		if (rc < 0 || ++alt >= 1u << n_alt)
			break;
		rc = expand_alt(c, line, what, item, text, sizeof(text), alt,
				NULL);
	}
	return rc;
}

static int add_path(struct pctx *c, unsigned line, const char *g,
		    struct rules_rule *r)
{
	int rc = check_path_glob(c, line, g);

	if (rc < 0)
		return rc;
	return push_checked(c, line, &r->paths, &r->n_paths, g);
}

static int item_path(struct pctx *c, unsigned line, char *item, void *arg)
{
	return each_form(c, line, "glob", item, add_path, arg);
}

static int add_exe(struct pctx *c, unsigned line, const char *g,
		   struct rules_rule *r)
{
	int rc = check_path_glob(c, line, g);

	if (rc < 0)
		return rc;
	return push_checked(c, line, &r->exes, &r->n_exes, g);
}

static int item_exe(struct pctx *c, unsigned line, char *item, void *arg)
{
	return each_form(c, line, "glob", item, add_exe, arg);
}

static int item_access(struct pctx *c, unsigned line, char *item, void *arg)
{
	struct rules_rule *r = arg;
	int k = find_key(access_names, item);

	if (k < 0)
		return fail_unknown(c, line, "access", item,
				    suggest_from(item, access_names));
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
		return fail(c, line, "too many items (the limit is %d per rule)",
			    RULES_MAX_ITEMS);
	rc = rules_addr_parse(text, &a, &why);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return fail(c, line, "invalid address '%s': %s", text, why);
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
	int rc = expand(c, line, "redirect", value, text, sizeof(text));

	if (rc < 0)
		return rc;
	if (!text[0])
		return fail(c, line, "empty 'redirect'");
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
		return fail(c, e->line, "%s: %s", e->key, why);
	for (size_t i = 0; i < r->rw.n_sets; i++)
		if (r->rw.sets[i].arg == arg &&
		    (r->rw.sets[i].how == RULES_REPLACE) != (how == RULES_REPLACE))
			return fail(c, e->line,
				    "'%s' with arg%u_value in rule '%s': replace the value, or set and clear bits, not both",
				    e->key, arg, r->name);
	r->rw.sets[r->rw.n_sets++] = (struct rules_argset){
		.arg = arg, .how = how, .value = v,
	};
	return 0;
}

static int rule_key(struct pctx *c, struct state *st, const struct entry *e)
{
	struct rules_rule *r = cur_rule(c);
	char section[SECTION_MAX + 8];
	char why[WHY_MAX];
	int k = find_key(rule_keys, e->key);
	int rc;

	snprintf(section, sizeof(section), "rule %s", r->name);
	if (k < 0)
		return unknown_key(c, e->line, e->key, section, rule_keys);
	if (st->key_line[k] && !rule_key_repeats((enum rule_key)k))
		return fail(c, e->line,
			    "duplicate key '%s' in [rule %s] (first at line %u)",
			    e->key, r->name, st->key_line[k]);
	if (!st->key_line[k])
		st->key_line[k] = e->line;
	switch ((enum rule_key)k) {
	case RK_SYSCALLS:
		return for_each_item(c, e->line, e->key, e->value,
				     item_syscall, r);
	case RK_PATH:
		return for_each_item(c, e->line, e->key, e->value, item_path,
				     r);
	case RK_EXE:
		return for_each_item(c, e->line, e->key, e->value, item_exe, r);
	case RK_ACCESS:
		return for_each_item(c, e->line, e->key, e->value,
				     item_access, r);
	case RK_ADDR:
		return for_each_item(c, e->line, e->key, e->value, item_addr,
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
			return fail(c, e->line, "%s: %s", e->key, why);
		r->n_conds++;
		return 0;
	case RK_ACTION:
		return parse_action(c, e->line, e->value, &r->action);
	case RK_ERRNO:
		st->rule_err_set[c->rs->n_rules - 1] = true;
		return parse_errno(c, e->line, e->value, &r->err);
	case RK_STACK:
		return parse_yesno(c, e->line, e->key, e->value, &r->stack);
	case RK_AUDIT:
		return parse_yesno(c, e->line, e->key, e->value, &r->audit);
	case RK_ASK:
		free(r->ask);
		r->ask = strdup(e->value);
		return r->ask ? 0 : -ENOMEM;
	case RK_ASK_TIMEOUT:
		rc = parse_limit(c, e->line, RULES_LIMIT_WALL, e->key, e->value,
				 &r->ask_timeout_ms);
		return rc;
	case RK_REMEMBER:
		return parse_yesno(c, e->line, e->key, e->value, &r->remember);
	case RK_REDIRECT:
		return parse_redirect(c, e->line, e->value, r);
	case RK_REDIRECT_IF:
		if (strcmp(e->value, "exists") != 0)
			return fail(c, e->line,
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
		return fail(c, st->sec_line,
			    "rule '%s' has action = rewrite but nothing to rewrite (add 'redirect', or argN_set, argN_clear or argN_value)",
			    r->name);
	if (r->rw.redirect && !first_without(r, takes_path)) {
		char *t = r->rw.redirect;
		size_t n = strlen(t);

		if (t[0] != '/' || strpbrk(t, "*?") || strcmp(t, "/") == 0)
			return fail(c, st->key_line[RK_REDIRECT],
				    "redirect '%s' of rule '%s' must be an absolute path other than '/', without wildcards",
				    t, r->name);
		while (n > 1 && t[n - 1] == '/')
			t[--n] = '\0';
		if (!r->n_paths)
			return fail(c, st->key_line[RK_REDIRECT],
				    "'redirect' in rule '%s' needs 'path' patterns (the literal part of each is replaced)",
				    r->name);
		for (size_t i = 0; i < r->n_paths; i++)
			if (!rules_redirect_glob_ok(r->paths[i]))
				return fail(c, st->key_line[RK_PATH],
					    "path '%s' of rule '%s' cannot be redirected: use a literal path or PREFIX/** with a literal PREFIX",
					    r->paths[i], r->name);
	} else if (r->rw.if_exists) {
		return fail(c, st->key_line[RK_REDIRECT_IF],
			    "'redirect_if' in rule '%s' needs a path 'redirect'",
			    r->name);
	} else if (r->rw.redirect && !first_without(r, redirects_addr)) {
		const char *why = "invalid address";
		struct rules_addr a;
		int rc = rules_addr_parse(r->rw.redirect, &a, &why);

		if (rc == -ENOMEM)
			return rc;
		if (rc < 0)
			return fail(c, st->key_line[RK_REDIRECT],
				    "invalid redirect address '%s': %s",
				    r->rw.redirect, why);
		if ((a.type != RULES_ADDR_INET4 && a.type != RULES_ADDR_INET6) ||
		    a.prefix != (a.type == RULES_ADDR_INET4 ? 32u : 128u) ||
		    (a.port_lo != a.port_hi &&
		     !(a.port_lo == 0 && a.port_hi == 65535))) {
			rules_addr_release(&a);
			return fail(c, st->key_line[RK_REDIRECT],
				    "redirect '%s' of rule '%s' must be one IPv4 or IPv6 host, with one port or none (IP:PORT, [IPv6]:PORT)",
				    r->rw.redirect, r->name);
		}
		r->rw.addr = a;
		r->rw.has_addr = true;
		free(r->rw.redirect);
		r->rw.redirect = NULL;
	} else if (r->rw.redirect) {
		si = first_without(r, takes_path);
		return fail(c, st->key_line[RK_REDIRECT],
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
				return fail(c, st->sec_line,
					    "rule '%s' rewrites arg%u of '%s': the arguments of %s calls are pointers or lengths (use 'redirect')",
					    r->name, a, si->name,
					    si->kind == RULES_KIND_EXEC ? "exec" : "network");
			if ((int)a == si->path_arg[0] ||
			    (int)a == si->path_arg[1] || (int)a == si->addr_arg)
				return fail(c, st->sec_line,
					    "rule '%s' rewrites arg%u of '%s', a pointer to a %s: use 'redirect'",
					    r->name, a, si->name,
					    (int)a == si->addr_arg ? "socket address" : "path");
		}
	}
	return 0;
}

/* Checks that need the whole rule. */
static int rule_finish(struct pctx *c, struct state *st)
{
	struct rules_rule *r = cur_rule(c);
	const struct rules_syscall_info *si;
	unsigned possible = 0;
	int nr;

	if (!st->key_line[RK_SYSCALLS] || nrs_empty(r->nrs))
		return fail(c, st->sec_line, "rule '%s' has no 'syscalls'",
			    r->name);
	if (!st->key_line[RK_ACTION])
		return fail(c, st->sec_line, "rule '%s' has no 'action'",
			    r->name);
	if (st->key_line[RK_ERRNO] && r->action != RULES_DENY &&
	    r->action != RULES_ASK)
		return fail(c, st->key_line[RK_ERRNO],
			    "'errno' is only valid with action = deny or ask (rule '%s' has action = %s)",
			    r->name, rules_action_name(r->action));
	{
		static const enum rule_key ask_keys[] = { RK_ASK, RK_ASK_TIMEOUT,
							  RK_REMEMBER };

		for (size_t i = 0; i < ARRAY_SIZE(ask_keys); i++)
			if (st->key_line[ask_keys[i]] && r->action != RULES_ASK)
				return fail(c, st->key_line[ask_keys[i]],
					    "'%s' is only valid with action = ask (rule '%s' has action = %s)",
					    rule_keys[ask_keys[i]], r->name,
					    rules_action_name(r->action));
	}
	if (r->action == RULES_ASK && !r->ask_timeout_ms)
		r->ask_timeout_ms = RULES_ASK_TIMEOUT_MS;
	if (r->n_paths && (si = first_without(r, takes_path)))
		return fail(c, st->key_line[RK_PATH],
			    "'path' in rule '%s', but syscall '%s' takes no path",
			    r->name, si->name);
	if (r->n_addrs && (si = first_without(r, takes_addr)))
		return fail(c, st->key_line[RK_ADDR],
			    "'addr' in rule '%s', but syscall '%s' has no socket address",
			    r->name, si->name);
	if (r->access) {
		if ((si = first_without(r, has_access)))
			return fail(c, st->key_line[RK_ACCESS],
				    "'access' in rule '%s', but syscall '%s' has no path to check",
				    r->name, si->name);
		for (nr = 0; nr < RULES_NR_MAX; nr++)
			if (rules_nr_has(r->nrs, nr) &&
			    (si = rules_syscall_by_nr(nr)))
				possible |= si->access;
		if (r->access & ~possible) {
			unsigned bit = r->access & ~possible;

			bit &= -bit;
			return fail(c, st->key_line[RK_ACCESS],
				    "access '%s' never applies to the syscalls of rule '%s'",
				    rules_access_name(bit), r->name);
		}
	}
	if (r->action == RULES_REWRITE)
		return rewrite_finish(c, st, r);
	for (int k = RK_REDIRECT; k < RK_COUNT; k++)
		if (st->key_line[k])
			return fail(c, st->key_line[k],
				    "'%s' is only valid with action = rewrite (rule '%s' has action = %s)",
				    rule_keys[k], r->name,
				    rules_action_name(r->action));
	return 0;
}

static bool valid_rule_name(const char *n)
{
	if (!*n)
		return false;
	for (; *n; n++)
		if (!isalnum((unsigned char)*n) && *n != '-' && *n != '_' &&
		    *n != '.')
			return false;
	return true;
}

static int section_start(struct pctx *c, struct state *st,
			 const struct entry *e)
{
	struct rules_set *rs = c->rs;
	const char *name = e->section;
	static const char *const sections[] = { "policy", "limits", "rule",
						"env", NULL };

	memset(st->key_line, 0, sizeof(st->key_line));
	st->sec_line = e->line;
	if (strcmp(name, "policy") == 0) {
		if (st->policy_line)
			return fail(c, e->line,
				    "duplicate section [policy] (first at line %u)",
				    st->policy_line);
		st->policy_line = e->line;
		st->sec = SEC_POLICY;
		return 0;
	}
	if (strcmp(name, "limits") == 0) {
		if (st->limits_line)
			return fail(c, e->line,
				    "duplicate section [limits] (first at line %u)",
				    st->limits_line);
		st->limits_line = e->line;
		st->sec = SEC_LIMITS;
		return 0;
	}
	if (strcmp(name, "env") == 0) {
		if (st->env_line)
			return fail(c, e->line,
				    "duplicate section [env] (first at line %u)",
				    st->env_line);
		st->env_line = e->line;
		st->sec = SEC_ENV;
		return 0;
	}
	if (strcmp(name, "rule") == 0 || strncmp(name, "rule ", 5) == 0) {
		const char *rname = name + 4;
		struct rules_rule *nr;
		size_t i;

		if (*rname == '\0')
			return fail(c, e->line,
				    "a rule section needs a name: [rule NAME]");
		rname++;
		if (!valid_rule_name(rname))
			return fail(c, e->line,
				    "invalid rule name '%s' (letters, digits, '-', '_' and '.')",
				    rname);
		if (strlen(rname) > RULES_NAME_MAX)
			return fail(c, e->line,
				    "rule name too long (the limit is %d bytes)",
				    RULES_NAME_MAX);
		for (i = 0; i < rs->n_rules; i++)
			if (strcmp(rs->rules[i].name, rname) == 0)
				return fail(c, e->line,
					    "duplicate rule '%s' (first at line %u)",
					    rname, rs->rules[i].line);
		if (rs->n_rules >= RULES_MAX_RULES)
			return fail(c, e->line,
				    "too many rules (the limit is %d)",
				    RULES_MAX_RULES);
		nr = reallocarray(rs->rules, rs->n_rules + 1, sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		rs->rules = nr;
		nr = &rs->rules[rs->n_rules];
		*nr = (struct rules_rule){ .line = e->line, .audit = true,
					   .action = RULES_DENY };
		nr->name = strdup(rname);
		nr->file = strdup(c->name);
		if (!nr->name || !nr->file) {
			free(nr->name);
			free(nr->file);
			return -ENOMEM;
		}
		rs->n_rules++;
		st->sec = SEC_RULE;
		return 0;
	}
	{
		char first[SECTION_MAX + 1];
		const char *sugg;
		size_t n = strcspn(name, " ");

		snprintf(first, sizeof(first), "%.*s", (int)n, name);
		sugg = suggest_from(first, sections);
		if (sugg && strcmp(sugg, "rule") == 0)
			return fail(c, e->line,
				    "unknown section [%s] (did you mean [rule%s]?)",
				    name, name[n] ? name + n : " NAME");
		if (sugg)
			return fail(c, e->line,
				    "unknown section [%s] (did you mean [%s]?)",
				    name, sugg);
		return fail(c, e->line, "unknown section [%s]", name);
	}
}

static int section_end(struct pctx *c, struct state *st)
{
	if (st->sec == SEC_RULE)
		return rule_finish(c, st);
	return 0;
}

/* Read the scanned entries into c->rs; st (zeroed by the caller) keeps
 * what the caller needs afterwards (which rules named their errno). */
static int interpret(struct pctx *c, const struct scan *s, struct state *st)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < s->n && rc == 0; i++) {
		const struct entry *e = &s->ents[i];

		if (e->type == ENT_SECTION) {
			rc = section_end(c, st);
			if (rc == 0)
				rc = section_start(c, st, e);
			continue;
		}
		if (e->value[0] == '\0') {
			rc = fail(c, e->line, "empty value for '%s'", e->key);
			break;
		}
		switch (st->sec) {
		case SEC_POLICY:
			rc = policy_key(c, st, e);
			break;
		case SEC_LIMITS:
			rc = limits_key(c, st, e);
			break;
		case SEC_ENV:
			rc = env_key(c, e);
			break;
		case SEC_RULE:
			rc = rule_key(c, st, e);
			break;
		case SEC_NONE:
			rc = fail(c, e->line, "key '%s' outside of any section",
				  e->key);
			break;
		}
	}
	if (rc == 0)
		rc = section_end(c, st);
	return rc;
}

/* ---------------------------------------------------------------------
 * Public entry points.
 */

void rules_free(struct rules_set *rs)
{
	size_t i, j;

	if (!rs)
		return;
	for (i = 0; i < rs->n_rules; i++) {
		struct rules_rule *r = &rs->rules[i];

		free(r->name);
		free(r->file);
		for (j = 0; r->path_globs && j < r->n_paths; j++)
			rules_glob_release(&r->path_globs[j]);
		free(r->path_globs);
		for (j = 0; r->exe_globs && j < r->n_exes; j++)
			rules_glob_release(&r->exe_globs[j]);
		free(r->exe_globs);
		for (j = 0; j < r->n_paths; j++)
			free(r->paths[j]);
		free(r->paths);
		for (j = 0; j < r->n_exes; j++)
			free(r->exes[j]);
		free(r->exes);
		free(r->ask);
		free(r->rw.redirect);
		if (r->rw.has_addr)
			rules_addr_release(&r->rw.addr);
		for (j = 0; j < r->n_addrs; j++)
			rules_addr_release(&r->addrs[j]);
		free(r->addrs);
	}
	free(rs->rules);
	rules_env_release(&rs->env);
	free(rs->source);
	for (i = 0; i < rs->n_files; i++)
		free(rs->files[i]);
	free(rs->files);
	free(rs);
}

const char *rules_file(const struct rules_set *rs, size_t i)
{
	return rs && i < rs->n_files ? rs->files[i] : NULL;
}

/* Add path to the files rs was read from, once.  0 or -ENOMEM. */
static int add_file(struct rules_set *rs, const char *path)
{
	char **f;

	for (size_t i = 0; i < rs->n_files; i++)
		if (strcmp(rs->files[i], path) == 0)
			return 0;
	f = reallocarray(rs->files, rs->n_files + 1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	rs->files = f;
	if (!(f[rs->n_files] = strdup(path)))
		return -ENOMEM;
	rs->n_files++;
	return 0;
}

/* ---------------------------------------------------------------------
 * Reading files and includes.
 *
 * [policy] include = X loads X as a policy of its own (with its own
 * includes), then appends its rules after the rules of the including file,
 * which are therefore tried first: a file that includes "default" can allow
 * what default denies.  [policy] and [limits] values set by the including
 * file win; others come from the includes, the first include that sets one
 * winning (the same order in which their rules are tried).
 */

/* "cannot read: ERROR" with the errno of the call that just failed. */
static int fail_errno(struct pctx *c)
{
	int e = errno;

	fail(c, 0, "cannot read: %s", strerror(e));
	return -e;
}

/*
 * The kernel interface a file on /proc, /sys and the like belongs to, or
 * NULL.  Their "regular" files are not policies, and reading some of them
 * has effects (root reading /proc/kmsg consumes the kernel's messages), so
 * an include that names one is refused before a byte is read.  The type
 * comes from fstatfs() of the open file: /proc/self/fd/N of a real file is
 * that file, on its own file system, and is read as usual.
 */
static const char *kernel_fs(unsigned long type)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ PROC_SUPER_MAGIC, "/proc" },
		{ SYSFS_MAGIC, "/sys" },
		{ DEBUGFS_MAGIC, "debugfs" },
		{ TRACEFS_MAGIC, "tracefs" },
		{ SECURITYFS_MAGIC, "securityfs" },
		{ BPF_FS_MAGIC, "bpf file system" },
		{ CGROUP_SUPER_MAGIC, "cgroup file system" },
		{ CGROUP2_SUPER_MAGIC, "cgroup file system" },
		{ EFIVARFS_MAGIC, "efivarfs" },
	};
	size_t i;

	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

/*
 * Read a whole policy file into a malloc'ed string, errors on c->name.
 * Only a regular file is opened, and never blocks: a policy or an include
 * may name any path, and open() of a FIFO waits for a writer (sysgate check
 * hung on one), open() of a device can act on it, and a regular file of
 * /proc can block in read() (/proc/kmsg).  The stat() keeps devices and
 * FIFOs from being opened at all; fstat() checks what was opened, in case
 * the path changed in between, and O_NONBLOCK keeps that case from
 * blocking.
 */
static int read_policy(struct pctx *c, const char *path, char **out)
{
	AUTO_CLOSE int fd = -1;
	AUTO_FREE char *text = NULL;
	size_t len = 0, line = 1, i;
	struct statfs sf;
	struct stat sb;

	if (stat(path, &sb) < 0)
		return fail_errno(c);
	if (!S_ISREG(sb.st_mode))
		return fail(c, 0, "not a regular file");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) < 0)
		return fail_errno(c);
	if (!S_ISREG(sb.st_mode))
		return fail(c, 0, "not a regular file");
	if (fstatfs(fd, &sf) < 0)
		return fail_errno(c);
	if (kernel_fs((unsigned long)sf.f_type))
		return fail(c, 0, "a file of the kernel's %s, not a policy",
			    kernel_fs((unsigned long)sf.f_type));
	text = malloc(RULES_MAX_FILE + 2);
	if (!text) {
		fail(c, 0, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = TEMP_FAILURE_RETRY_INT(
			read(fd, text + len, RULES_MAX_FILE + 1 - len));

		if (n < 0)
			return fail_errno(c);
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > RULES_MAX_FILE)
			return fail(c, 0,
				    "policy too large (the limit is %d bytes)",
				    RULES_MAX_FILE);
	}
	text[len] = '\0';
	for (i = 0; i < len; i++) {
		if (text[i] == '\0')
			return fail(c, (unsigned)line, "NUL byte in line");
		if (text[i] == '\n')
			line++;
	}
	*out = steal_ptr(&text);
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * The file an include names, into path (path_len bytes): a value with a
 * '/' or ending in ".ini" is a file, relative to the including file's
 * directory; any other value is a shipped policy NAME, looked up as
 * NAME.ini in $SYSGATE_POLICY_DIR (for tests in the build tree), then in
 * the installed policies directory.  "default" is handled by the caller.
 */
static int include_path(struct pctx *c, const struct include_ref *inc,
			const char *value, char *path, size_t path_len)
{
	const char *dirs[2], *slash;
	size_t i, n = 0;
	int len;

	if (strchr(value, '/') || ends_with(value, ".ini")) {
		slash = strrchr(c->name, '/');
		if (value[0] == '/' || !slash)
			len = snprintf(path, path_len, "%s", value);
		else
			len = snprintf(path, path_len, "%.*s/%s",
				       (int)(slash - c->name), c->name, value);
		if (len < 0 || (size_t)len >= path_len)
			return fail(c, inc->line, "include path too long");
		return 0;
	}
	for (i = 0; value[i]; i++)
		if (!isalnum((unsigned char)value[i]) && value[i] != '-' &&
		    value[i] != '_' && value[i] != '.')
			return fail(c, inc->line,
				    "invalid policy name '%s' (a file needs a '/' or the .ini suffix)",
				    value);
	/* Security: only where the user could point -r anyway; secure_getenv
	 * ignores it in a set-id program. */
	dirs[n] = secure_getenv("SYSGATE_POLICY_DIR");
	if (dirs[n] && dirs[n][0])
		n++;
	dirs[n++] = SYSGATE_DATADIR "/policies";
	for (i = 0; i < n; i++) {
		len = snprintf(path, path_len, "%s/%s.ini", dirs[i], value);
		if (len > 0 && (size_t)len < path_len &&
		    access(path, F_OK) == 0)
			return 0;
	}
	return fail(c, inc->line,
		    "no shipped policy '%s' (in %s; a file needs a '/' or the .ini suffix)",
		    value, dirs[n - 1]);
}

/* Append " (included from FILE:LINE)" to a child's message. */
static void note_included_from(struct pctx *c, unsigned line)
{
	size_t used;

	if (!c->err || !c->err_len)
		return;
	used = strnlen(c->err, c->err_len);
	if (used + 1 < c->err_len)
		snprintf(c->err + used, c->err_len - used,
			 " (included from %s:%u)", c->name, line);
}

/* Move list from of n_from strings to the end of list to; 0 or -ENOMEM
 * (from keeps what was not moved). */
static int move_strs(char ***to, size_t *n_to, char ***from, size_t *n_from)
{
	char **nl;

	if (*n_from == 0)
		return 0;
	nl = reallocarray(*to, *n_to + *n_from, sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	memcpy(nl + *n_to, *from, *n_from * sizeof(*nl));
	*to = nl;
	*n_to += *n_from;
	*n_from = 0;
	return 0;
}

/*
 * [env] of an include: its keep and drop globs join the including
 * file's (a keep wins over a drop, whichever file either comes from); its
 * set values count for the names the including file does not set.
 */
static int merge_env(struct pctx *c, const struct include_ref *inc,
		     const char *child_source, struct rules_env *to,
		     struct rules_env *from)
{
	unsigned *nl;
	int rc = 0;

	if (to->n_keep + from->n_keep > RULES_MAX_ITEMS ||
	    to->n_drop + from->n_drop > RULES_MAX_ITEMS ||
	    to->n_set + from->n_set > RULES_MAX_ITEMS)
		return fail(c, inc->line,
			    "too many [env] items with the included policy %s (the limit is %d per key)",
			    child_source, RULES_MAX_ITEMS);
	/* Line 0: a set of an include (set_line is for this file's). */
	nl = reallocarray(to->set_line, to->n_set + from->n_set + 1,
			  sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	memset(nl + to->n_set, 0, (from->n_set + 1) * sizeof(*nl));
	to->set_line = nl;
	rc = move_strs(&to->keep, &to->n_keep, &from->keep, &from->n_keep);
	if (rc == 0)
		rc = move_strs(&to->drop, &to->n_drop, &from->drop,
			       &from->n_drop);
	for (size_t i = 0; rc == 0 && i < from->n_set; i++) {
		const char *set = from->set[i];
		size_t n = strcspn(set, "=") + 1;
		bool mine = false;

		for (size_t j = 0; j < to->n_set && !mine; j++)
			mine = strncmp(to->set[j], set, n) == 0;
		if (mine)
			continue;
		rc = push_str(&to->set, &to->n_set, set);
	}
	return rc;
}

/* Move the rules and the unset [policy]/[limits] values of child into
 * c->rs (whose own rules come first). */
static int merge_include(struct pctx *c, const struct include_ref *inc,
			 struct rules_set *child, unsigned child_set)
{
	struct rules_set *rs = c->rs;
	struct rules_rule *nr;
	size_t i, j;
	int rc;

	for (i = 0; i < child->n_rules; i++)
		for (j = 0; j < rs->n_rules; j++)
			if (strcmp(child->rules[i].name, rs->rules[j].name) ==
			    0)
				return fail(c, inc->line,
					    "included policy %s has a rule '%s' too (rule names must be unique)",
					    child->source, child->rules[i].name);
	if (child->n_rules > RULES_MAX_RULES - rs->n_rules)
		return fail(c, inc->line, "too many rules (the limit is %d)",
			    RULES_MAX_RULES);
	nr = reallocarray(rs->rules, rs->n_rules + child->n_rules,
			  sizeof(*nr));
	if (!nr && rs->n_rules + child->n_rules)
		return -ENOMEM;
	rs->rules = nr;
	for (i = 0; i < child->n_rules; i++)
		rs->rules[rs->n_rules++] = child->rules[i];
	/* The rules' strings now belong to rs. */
	child->n_rules = 0;
	rc = merge_env(c, inc, child->source, &rs->env, &child->env);
	if (rc < 0)
		return rc;

	if (!(c->policy_set & POLICY_SET(PK_DEFAULT)) &&
	    (child_set & POLICY_SET(PK_DEFAULT)))
		rs->def = child->def;
	if (!(c->policy_set & POLICY_SET(PK_ERRNO)) &&
	    (child_set & POLICY_SET(PK_ERRNO)))
		rs->def_err = child->def_err;
	if (!(c->policy_set & POLICY_SET(PK_AUDIT)) &&
	    (child_set & POLICY_SET(PK_AUDIT)))
		rs->audit = child->audit;
	if (!(c->policy_set & POLICY_SET(PK_OUTPUT)) &&
	    (child_set & POLICY_SET(PK_OUTPUT))) {
		rs->output_set = child->output_set;
		rs->output_cap = child->output_cap;
	}
	c->policy_set |= child_set;
	for (i = 0; i < RULES_LIMIT_COUNT; i++) {
		if (rs->limit_set[i] || !child->limit_set[i])
			continue;
		rs->limits[i] = child->limits[i];
		rs->limit_set[i] = true;
	}
	return 0;
}

static int load_text(struct pctx *c, const char *text, const char *id,
		     struct rules_set **out);

static int load_include(struct pctx *c, const struct include_ref *inc)
{
	char value[PATH_MAX], path[PATH_MAX];
	AUTO_FREE char *text = NULL;
	AUTO_FREE char *real = NULL;
	const struct include_chain *l;
	struct pctx child = { .err = c->err, .err_len = c->err_len,
			      .vars = c->vars, .depth = c->depth + 1,
			      .n_loaded = c->n_loaded };
	struct include_chain link = { .up = c->chain };
	struct rules_set *crs = NULL;
	const char *body;
	int rc;

	rc = expand(c, inc->line, "include", inc->value, value, sizeof(value));
	if (rc < 0)
		return rc;
	if (child.depth > INCLUDE_DEPTH_MAX)
		return fail(c, inc->line,
			    "includes nested too deeply (the limit is %d levels)",
			    INCLUDE_DEPTH_MAX);
	if (++*c->n_loaded > INCLUDE_TOTAL_MAX)
		return fail(c, inc->line,
			    "too many included policies (the limit is %d in all)",
			    INCLUDE_TOTAL_MAX);
	if (strcmp(value, "default") == 0) {
		child.name = DEFAULT_SOURCE;
		link.id = DEFAULT_SOURCE;
		body = rules_default_policy;
	} else {
		rc = include_path(c, inc, value, path, sizeof(path));
		if (rc < 0)
			return rc;
		child.name = path;
		rc = read_policy(&child, path, &text);
		if (rc < 0) {
			note_included_from(c, inc->line);
			return rc;
		}
		real = realpath(path, NULL);
		link.id = real ? real : path;
		body = text;
	}
	for (l = c->chain; l; l = l->up)
		if (strcmp(l->id, link.id) == 0)
			return fail(c, inc->line,
				    "include cycle: %s is already being loaded",
				    child.name);
	child.chain = &link;
	rc = load_text(&child, body, link.id, &crs);
	if (rc < 0) {
		if (rc != -ENOMEM)
			note_included_from(c, inc->line);
		return rc;
	}
	rc = merge_include(c, inc, crs, child.policy_set);
	/* The include's own file, then those it includes. */
	if (rc == 0 && body == text)
		rc = add_file(c->rs, link.id);
	for (size_t i = 0; rc == 0 && i < crs->n_files; i++)
		rc = add_file(c->rs, crs->files[i]);
	rules_free(crs);
	if (rc == -ENOMEM)
		return fail(c, inc->line, "out of memory");
	return rc;
}

/*
 * Parse text as the policy c->name into a new set, then load its
 * includes.  c->chain lists the files that include this one; id is this
 * file's entry.
 */
static int load_text(struct pctx *c, const char *text, const char *id,
		     struct rules_set **out)
{
	const struct include_chain link = { .id = id, .up = c->chain };
	struct scan s = { 0 };
	struct state *st = NULL;
	struct rules_set *rs;
	unsigned last_line = 1;
	size_t i, n_own;
	int rc;

	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	/* Defaults when [policy] leaves them out: fail closed. */
	rs->def = RULES_DENY;
	rs->def_err = EPERM;
	rs->audit = RULES_AUDIT_ALL;
	rs->source = strdup(c->name);
	c->rs = rs;
	c->chain = &link;
	rc = rs->source ? scan_text(c, text, &s) : -ENOMEM;
	if (rc == 0) {
		if (s.n)
			last_line = s.ents[s.n - 1].line;
		rc = cross_check(c, text, &s, last_line);
	}
	if (rc == 0) {
		st = calloc(1, sizeof(*st));
		rc = st ? interpret(c, &s, st) : -ENOMEM;
	}
	n_own = rs->n_rules;
	for (i = 0; rc == 0 && i < c->n_incl; i++)
		rc = load_include(c, &c->incl[i]);
	/* Denies without their own errno take the [policy] errno of their
	 * file (or what it inherits), wherever [policy] is in the file;
	 * included rules got theirs when their file was loaded. */
	for (i = 0; rc == 0 && i < n_own; i++)
		if (!st->rule_err_set[i])
			rs->rules[i].err = rs->def_err;
	free(st);
	scan_release(&s);
	c->chain = link.up;
	if (rc < 0) {
		rules_free(rs);
		return rc;
	}
	*out = rs;
	return 0;
}

static int compile_list(char *const *globs, size_t n, struct rules_glob **out)
{
	struct rules_glob *g;

	if (n == 0)
		return 0;
	g = calloc(n, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*out = g;	/* rules_free releases what was compiled */
	for (size_t i = 0; i < n; i++) {
		int rc = rules_glob_compile(globs[i], &g[i]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int rules_compile_globs(struct rules_set *rs)
{
	for (size_t i = 0; i < rs->n_rules; i++) {
		struct rules_rule *r = &rs->rules[i];
		int rc;

		if (r->path_globs || r->exe_globs)
			continue;
		rc = compile_list(r->paths, r->n_paths, &r->path_globs);
		if (rc == 0)
			rc = compile_list(r->exes, r->n_exes, &r->exe_globs);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The top policy: errors and chain set up, a canonical id for cycles. */
static int load_top(const char *text, const char *name,
		    const struct rules_vars *vars, struct rules_set **out,
		    char *err, size_t err_len)
{
	unsigned n_loaded = 0;
	struct pctx c = { .name = name, .err = err, .err_len = err_len,
			  .vars = vars, .n_loaded = &n_loaded };
	AUTO_FREE char *real = NULL;
	int rc;

	if (strcmp(name, DEFAULT_SOURCE) != 0)
		real = realpath(name, NULL);
	rc = load_text(&c, text, real ? real : name, out);
	/* The policy's own file first (its includes were added after). */
	if (rc == 0 && real) {
		size_t n = (*out)->n_files;

		rc = add_file(*out, real);
		if (rc == 0 && n > 0 && (*out)->n_files == n + 1) {
			char *own = (*out)->files[n];

			memmove((*out)->files + 1, (*out)->files,
				n * sizeof(char *));
			(*out)->files[0] = own;
		}
		if (rc < 0) {
			rules_free(*out);
			*out = NULL;
		}
	}
	/* Matching then allocates nothing and parses no glob. */
	if (rc == 0 && (rc = rules_compile_globs(*out)) < 0) {
		rules_free(*out);
		*out = NULL;
	}
	if (rc == -ENOMEM)
		fail(&c, 0, "out of memory");
	return rc;
}

int rules_load_string(const char *text, const char *name,
		      const struct rules_vars *vars, struct rules_set **out,
		      char *err, size_t err_len)
{
	struct pctx c = { .name = name ? name : "<string>", .err = err,
			  .err_len = err_len, .vars = vars };

	if (err && err_len)
		err[0] = '\0';
	if (!text || !out)
		return fail(&c, 0, "no policy text");
	return load_top(text, c.name, vars, out, err, err_len);
}

int rules_load_file(const char *path, const struct rules_vars *vars,
		    struct rules_set **out, char *err, size_t err_len)
{
	struct pctx c = { .name = path ? path : "<null>", .err = err,
			  .err_len = err_len };
	AUTO_FREE char *text = NULL;
	int rc;

	if (err && err_len)
		err[0] = '\0';
	if (!path || !out)
		return fail(&c, 0, "no policy file");
	rc = read_policy(&c, path, &text);
	if (rc < 0)
		return rc;
	return load_top(text, path, vars, out, err, err_len);
}

int rules_load_default(const struct rules_vars *vars, struct rules_set **out,
		       char *err, size_t err_len)
{
	int rc;

	if (err && err_len)
		err[0] = '\0';
	rc = load_top(rules_default_policy, DEFAULT_SOURCE, vars, out, err,
		      err_len);
	if (rc == 0)
		(*out)->builtin = true;
	return rc;
}

bool rules_is_builtin_default(const struct rules_set *rs)
{
	return rs && rs->builtin;
}

const char *rules_default_text(void)
{
	return rules_default_policy;
}

enum rules_audit_level rules_audit_level(const struct rules_set *rs)
{
	return rs ? rs->audit : RULES_AUDIT_ALL;
}

int rules_output_cap(const struct rules_set *rs, uint64_t *cap)
{
	if (!rs || !rs->output_set)
		return -ENOENT;
	*cap = rs->output_cap;
	return 0;
}

const char *rules_source(const struct rules_set *rs)
{
	return rs ? rs->source : NULL;
}

int rules_limit(const struct rules_set *rs, enum rules_limit which,
		uint64_t *out)
{
	if (!rs || (unsigned)which >= RULES_LIMIT_COUNT)
		return -EINVAL;
	if (!rs->limit_set[which])
		return -ENOENT;
	if (out)
		*out = rs->limits[which];
	return 0;
}

const char *rules_limit_name(enum rules_limit which)
{
	if ((unsigned)which >= RULES_LIMIT_COUNT)
		return NULL;
	return limit_keys[which];
}

enum rules_action rules_default_action(const struct rules_set *rs, int *err)
{
	if (!rs) {
		if (err)
			*err = EPERM;
		return RULES_DENY;
	}
	if (err)
		*err = rs->def_err;
	return rs->def;
}

size_t rules_rule_count(const struct rules_set *rs)
{
	return rs ? rs->n_rules : 0;
}

const char *rules_rule_name(const struct rules_set *rs, size_t i)
{
	if (!rs || i >= rs->n_rules)
		return NULL;
	return rs->rules[i].name;
}

bool rules_wants_stacks(const struct rules_set *rs)
{
	for (size_t i = 0; rs && i < rs->n_rules; i++)
		if (rs->rules[i].stack)
			return true;
	return false;
}

const char *rules_action_name(enum rules_action a)
{
	switch (a) {
	case RULES_ALLOW:
		return "allow";
	case RULES_REWRITE:
		return "rewrite";
	case RULES_DENY:
		return "deny";
	case RULES_KILL:
		return "kill";
	case RULES_ASK:
		return "ask";
	}
	return "unknown";
}

int rules_action_rank(enum rules_action a)
{
	switch (a) {
	case RULES_ALLOW:
		return 0;
	case RULES_REWRITE:
		return 1;
	case RULES_ASK:
		return 2;
	case RULES_DENY:
		return 3;
	case RULES_KILL:
		return 4;
	}
	return 4;
}

const char *rules_access_name(unsigned one_access_bit)
{
	size_t i;

	for (i = 0; access_names[i]; i++)
		if (one_access_bit == 1u << i)
			return access_names[i];
	return NULL;
}
