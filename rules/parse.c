/* SPDX-License-Identifier: MIT */
/*
 * rules/parse.c: loading a policy: reading its file and its includes into
 * an immutable struct rules_set, and the public entry points.  Every error
 * names FILE:LINE.  The parser's other files: rules/parse.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "common/util.h"
#include "rules/internal.h"
#include "rules/parse.h"

extern const char rules_default_policy[];

#ifndef SYSGATE_DATADIR
#define SYSGATE_DATADIR "/usr/local/share/sysgate"
#endif

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
	for (i = 0; i < rs->n_warnings; i++)
		free(rs->warnings[i]);
	free(rs->warnings);
	free(rs);
}

const char *rules_warning(const struct rules_set *rs, size_t i)
{
	return rs && i < rs->n_warnings ? rs->warnings[i] : NULL;
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

	rules_fail(c, 0, "cannot read: %s", strerror(e));
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
		return rules_fail(c, 0, "not a regular file");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) < 0)
		return fail_errno(c);
	if (!S_ISREG(sb.st_mode))
		return rules_fail(c, 0, "not a regular file");
	if (fstatfs(fd, &sf) < 0)
		return fail_errno(c);
	if (kernel_fs((unsigned long)sf.f_type))
		return rules_fail(c, 0, "a file of the kernel's %s, not a policy",
				  kernel_fs((unsigned long)sf.f_type));
	text = malloc(RULES_MAX_FILE + 2);
	if (!text) {
		rules_fail(c, 0, "out of memory");
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
			return rules_fail(c, 0,
					  "policy too large (the limit is %d bytes)",
					  RULES_MAX_FILE);
	}
	text[len] = '\0';
	for (i = 0; i < len; i++) {
		if (text[i] == '\0')
			return rules_fail(c, (unsigned)line, "NUL byte in line");
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
			return rules_fail(c, inc->line, "include path too long");
		return 0;
	}
	for (i = 0; value[i]; i++)
		if (!isalnum((unsigned char)value[i]) && value[i] != '-' &&
		    value[i] != '_' && value[i] != '.')
			return rules_fail(c, inc->line,
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
	return rules_fail(c, inc->line,
			  "no shipped policy '%s' (in %s; a file needs a '/' or the .ini suffix)",
			  value, dirs[n - 1]);
}

const char *rules_builtin_text(const char *name)
{
	const struct rules_builtin *b;

	for (b = rules_builtin_policies; name && b->name; b++)
		if (strcmp(b->name, name) == 0)
			return b->text;
	return NULL;
}

/* Does $SYSGATE_POLICY_DIR hold NAME.ini?  It is the user's own choice
 * of shipped policies (a source tree's), ahead of the built-in copies. */
static bool in_policy_dir(const char *name)
{
	const char *dir = secure_getenv("SYSGATE_POLICY_DIR");
	char path[PATH_MAX];
	int len;

	if (!dir || !dir[0])
		return false;
	len = snprintf(path, sizeof(path), "%s/%s.ini", dir, name);
	return len > 0 && (size_t)len < sizeof(path) &&
	       access(path, F_OK) == 0;
}

/* include = NAME of a shipped policy: its built-in text, named "<NAME>"
 * in messages, unless $SYSGATE_POLICY_DIR has its own; NULL otherwise
 * (a file, or a policy installed beside the shipped ones). */
static const char *include_builtin(const char *value, char *id, size_t id_len)
{
	const char *text;
	int len;

	if (strchr(value, '/') || ends_with(value, ".ini"))
		return NULL;
	text = rules_builtin_text(value);
	if (!text || in_policy_dir(value))
		return NULL;
	len = snprintf(id, id_len, "<%s>", value);
	return len > 0 && (size_t)len < id_len ? text : NULL;
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
		return rules_fail(c, inc->line,
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
		rc = rules_push_str(&to->set, &to->n_set, set);
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
				return rules_fail(c, inc->line,
						  "included policy %s has a rule '%s' too (rule names must be unique)",
						  child->source, child->rules[i].name);
	if (child->n_rules > RULES_MAX_RULES - rs->n_rules)
		return rules_fail(c, inc->line, "too many rules (the limit is %d)",
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
	for (i = 0; i < child->n_warnings; i++) {
		rc = rules_push_str(&rs->warnings, &rs->n_warnings,
				    child->warnings[i]);
		if (rc < 0 && rc != -E2BIG)
			return rc;
	}
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
	char bid[NAME_MAX + 3];
	const char *body;
	int rc;

	rc = rules_expand(c, inc->line, "include", inc->value, value, sizeof(value));
	if (rc < 0)
		return rc;
	if (child.depth > INCLUDE_DEPTH_MAX)
		return rules_fail(c, inc->line,
				  "includes nested too deeply (the limit is %d levels)",
				  INCLUDE_DEPTH_MAX);
	if (++*c->n_loaded > INCLUDE_TOTAL_MAX)
		return rules_fail(c, inc->line,
				  "too many included policies (the limit is %d in all)",
				  INCLUDE_TOTAL_MAX);
	if (strcmp(value, "default") == 0) {
		child.name = DEFAULT_SOURCE;
		link.id = DEFAULT_SOURCE;
		body = rules_default_policy;
	} else if ((body = include_builtin(value, bid, sizeof(bid)))) {
		child.name = bid;
		link.id = bid;
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
			return rules_fail(c, inc->line,
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
		return rules_fail(c, inc->line, "out of memory");
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
	rc = rs->source ? rules_scan_text(c, text, &s) : -ENOMEM;
	if (rc == 0) {
		if (s.n)
			last_line = s.ents[s.n - 1].line;
		rc = rules_cross_check(c, text, &s, last_line);
	}
	if (rc == 0) {
		st = calloc(1, sizeof(*st));
		rc = st ? rules_interpret(c, &s, st) : -ENOMEM;
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
	rules_scan_release(&s);
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

/* A policy without a rule whose default refuses: every call the filter
 * sees is refused, the command's own start (execve) with them. */
static int warn_empty(struct pctx *c, struct rules_set *rs)
{
	if (rs->n_rules || (rs->def != RULES_DENY && rs->def != RULES_KILL))
		return 0;
	c->rs = rs;
	return rules_warn(c, 0,
			  "the policy has no rule and its default is %s: it %s every call, the command's own execve included (add rules, or include = default)",
			  rules_action_name(rs->def),
			  rs->def == RULES_DENY ? "denies" : "kills on");
}

static bool is_builtin_text(const char *text)
{
	const struct rules_builtin *b;

	for (b = rules_builtin_policies; b->name; b++)
		if (b->text == text)
			return true;
	return false;
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

	/* A built-in policy ("<default>", "<strict>"...) is no file. */
	if (!is_builtin_text(text))
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
	if (rc == 0 && ((rc = rules_compile_globs(*out)) < 0 ||
			(rc = warn_empty(&c, *out)) < 0)) {
		rules_free(*out);
		*out = NULL;
	}
	if (rc == -ENOMEM)
		rules_fail(&c, 0, "out of memory");
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
		return rules_fail(&c, 0, "no policy text");
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
		return rules_fail(&c, 0, "no policy file");
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

int rules_load_builtin(const char *name, const struct rules_vars *vars,
		       struct rules_set **out, char *err, size_t err_len)
{
	struct pctx c = { .name = name ? name : "<null>", .err = err,
			  .err_len = err_len, .vars = vars };
	char id[NAME_MAX + 3];
	const char *text = rules_builtin_text(name);
	int len;

	if (err && err_len)
		err[0] = '\0';
	if (!text || !out) {
		rules_fail(&c, 0, "no shipped policy of that name");
		return -ENOENT;
	}
	if (strcmp(name, "default") == 0)
		return rules_load_default(vars, out, err, err_len);
	len = snprintf(id, sizeof(id), "<%s>", name);
	if (len < 0 || (size_t)len >= sizeof(id))
		return rules_fail(&c, 0, "policy name too long");
	return load_top(text, id, vars, out, err, err_len);
}

bool rules_is_builtin_default(const struct rules_set *rs)
{
	return rs && rs->builtin && !rs->permissive;
}

void rules_set_permissive(struct rules_set *rs, bool on)
{
	if (rs)
		rs->permissive = on;
}

bool rules_is_permissive(const struct rules_set *rs)
{
	return rs && rs->permissive;
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
	return rules_limit_keys[which];
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
	/* Fail closed: a value out of the enum ranks as kill. */
	return (unsigned)a <= RULES_KILL ? (int)a : RULES_KILL;
}

const char *rules_access_name(unsigned one_access_bit)
{
	size_t i;

	for (i = 0; rules_access_names[i]; i++)
		if (one_access_bit == 1u << i)
			return rules_access_names[i];
	return NULL;
}

