/* SPDX-License-Identifier: MIT */
/*
 * sysgate check POLICY --explain CALL, and the warnings of sysgate check:
 * which rule decides a call written as in the trail, why each rule before
 * it did not, and which mechanism carries the call; rules that can never
 * match and literal paths that do not exist.  Only rules/ code decides:
 * the verdict shown is rules_match()'s.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "rules/rules.h"
#include "tools/tools.h"

#define EXPLAIN_MAX_WORDS 16
#define EXPLAIN_COND_MAX 1024

struct call {
	struct rules_event ev;
	const struct rules_syscall_info *info;
	struct sockaddr_storage ss;
	const char *addr_text;	/* the address as the user wrote it */
};

/* Address as the trail writes it: 10.0.0.5:443, [::1]:80, unix:/run/x,
 * unix-abstract:name.  No port: 0. */
static int parse_addr(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port = NULL;
	unsigned long p = 0;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (!strncmp(s, "unix:", 5) || !strncmp(s, "unix-abstract:", 14)) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;
		bool abstract = s[4] == '-';
		const char *name = s + (abstract ? 14 : 5);
		size_t nl = strlen(name);

		if (nl + 1 >= sizeof(un->sun_path))
			return -ENAMETOOLONG;
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + (abstract ? 1 : 0), name, nl);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + nl +
				   1);
		return 0;
	}
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end)
			return -EINVAL;
		hl = (size_t)(end - s - 1);
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, hl);
		host[hl] = '\0';
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return -EINVAL;
	} else {
		const char *colon = strchr(s, ':');

		hl = colon ? (size_t)(colon - s) : strlen(s);
		if (hl >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, hl);
		host[hl] = '\0';
		port = colon ? colon + 1 : NULL;
	}
	if (port) {
		char *end;

		errno = 0;
		p = strtoul(port, &end, 10);
		if (errno || !*port || *end || p > 65535)
			return -EINVAL;
	}
	if (s[0] == '[') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*in6);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -EINVAL;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)p);
		*len = sizeof(*in);
	}
	return 0;
}

static unsigned access_by_name(const char *name)
{
	for (unsigned bit = 1; bit <= RULES_ACC_STAT; bit <<= 1)
		if (!strcmp(rules_access_name(bit), name))
			return bit;
	return 0;
}

/* The class a call has when the user names none: read for the open
 * family, create for mkdir, delete for unlink, and so on. */
static unsigned default_access(unsigned possible)
{
	static const unsigned order[] = {
		RULES_ACC_READ, RULES_ACC_CREATE, RULES_ACC_DELETE,
		RULES_ACC_WRITE, RULES_ACC_EXEC, RULES_ACC_STAT,
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (possible & order[i])
			return order[i];
	return 0;
}

/* "argN=VALUE" or "exe=PATH": 1 when taken, 0 when not such a word,
 * -EINVAL when malformed. */
static int parse_extra(const char *w, struct call *c)
{
	if (!strncmp(w, "exe=", 4)) {
		if (w[4] != '/')
			return -EINVAL;
		c->ev.exe = w + 4;
		return 1;
	}
	if (!strncmp(w, "arg", 3) && w[3] >= '0' && w[3] <= '5' &&
	    w[4] == '=') {
		char *end;

		errno = 0;
		c->ev.args[w[3] - '0'] = strtoull(w + 5, &end, 0);
		if (errno || !w[5] || *end)
			return -EINVAL;
		return 1;
	}
	return 0;
}

static int parse_call(char *text, struct call *c)
{
	char *words[EXPLAIN_MAX_WORDS];
	size_t n = 0, used = 1, i;
	char *save = NULL, *w;

	memset(c, 0, sizeof(*c));
	for (w = strtok_r(text, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == EXPLAIN_MAX_WORDS) {
			fprintf(stderr, "sysgate check: --explain: too many words\n");
			return -EINVAL;
		}
		words[n++] = w;
	}
	if (n == 0) {
		fprintf(stderr, "sysgate check: --explain: empty call\n");
		return -EINVAL;
	}
	c->info = rules_syscall_by_name(words[0]);
	if (!c->info) {
		fprintf(stderr, "sysgate check: --explain: unknown syscall '%s'\n",
			words[0]);
		return -EINVAL;
	}
	c->ev.nr = c->info->nr;
	switch (c->info->kind) {
	case RULES_KIND_PATH:
	case RULES_KIND_EXEC:
		if (n < 2 || words[1][0] != '/') {
			fprintf(stderr,
				"sysgate check: --explain: %s needs an absolute path (as in the trail)\n",
				words[0]);
			return -EINVAL;
		}
		c->ev.path = words[1];
		used = 2;
		c->ev.access = default_access(c->info->access);
		if (n > 2 && access_by_name(words[2])) {
			c->ev.access = access_by_name(words[2]);
			if (!(c->ev.access & c->info->access)) {
				fprintf(stderr,
					"sysgate check: --explain: %s cannot have access '%s'\n",
					words[0], words[2]);
				return -EINVAL;
			}
			used = 3;
		}
		break;
	case RULES_KIND_NET:
		if (n < 2 || parse_addr(words[1], &c->ss, &c->ev.addr_len) < 0) {
			fprintf(stderr,
				"sysgate check: --explain: %s needs an address: IP:PORT, [IPV6]:PORT, unix:PATH or unix-abstract:NAME\n",
				words[0]);
			return -EINVAL;
		}
		c->ev.addr = (const struct sockaddr *)&c->ss;
		c->addr_text = words[1];
		used = 2;
		break;
	case RULES_KIND_SCALAR:
		break;
	}
	for (i = used; i < n; i++) {
		if (parse_extra(words[i], c) != 1) {
			fprintf(stderr,
				"sysgate check: --explain: unexpected '%s' (after the %s arguments: argN=VALUE or exe=PATH)\n",
				words[i], words[0]);
			return -EINVAL;
		}
	}
	return 0;
}

struct explain_ctx {
	const struct rules_set *rs;
	const struct call *c;
};

/* Where rule i is, for a reader of the policy `from`: "line 12", or
 * "<default>:87" for a rule an include brought in. */
static const char *where(const struct rules_set *rs, size_t i,
			 const char *from, char *buf, size_t len)
{
	const char *f = rules_rule_file(rs, i);

	if (f && from && strcmp(f, from))
		snprintf(buf, len, "%s:%u", f, rules_rule_line(rs, i));
	else
		snprintf(buf, len, "line %u", rules_rule_line(rs, i));
	return buf;
}

static void print_step(const struct rules_explain_step *st, void *arg)
{
	const struct explain_ctx *x = arg;
	const struct rules_event *ev = &x->c->ev;
	char cond[EXPLAIN_COND_MAX];
	char at[PATH_MAX + 16];

	printf("  rule '%s' (%s): ", st->rule,
	       where(x->rs, st->index, rules_source(x->rs), at, sizeof(at)));
	rules_rule_condition(x->rs, st->index, st->why, st->arg, cond,
			     sizeof(cond));
	switch (st->why) {
	case RULES_WHY_MATCH:
		printf("yes: it decides\n");
		return;
	case RULES_WHY_SYSCALL:
		printf("no: does not name %s\n", x->c->info->name);
		return;
	case RULES_WHY_PATH:
		if (ev->path)
			printf("no: path %s does not match %s\n", ev->path, cond);
		else
			printf("no: the call has no path (rule wants %s)\n", cond);
		return;
	case RULES_WHY_ACCESS:
		printf("no: access %s is not in %s\n",
		       ev->access ? rules_access_name(ev->access) : "(none)",
		       cond);
		return;
	case RULES_WHY_ADDR:
		printf("no: address %s does not match %s\n", x->c->addr_text,
		       cond);
		return;
	case RULES_WHY_EXE:
		if (ev->exe)
			printf("no: exe %s does not match %s\n", ev->exe, cond);
		else
			printf("no: exe unknown (add exe=PATH; rule wants %s)\n",
			       cond);
		return;
	case RULES_WHY_ARG:
		printf("no: arg%u = 0x%llx, condition %s is false\n", st->arg,
		       (unsigned long long)ev->args[st->arg], cond);
		return;
	}
}

int tools_explain(const struct rules_set *rs, const char *call_text)
{
	struct call c;
	struct explain_ctx x = { .rs = rs, .c = &c };
	struct rules_verdict v;
	enum rules_action ka = RULES_ALLOW;
	char *copy = strdup(call_text);
	char at[PATH_MAX + 16];
	size_t i, n = rules_rule_count(rs);

	if (!copy) {
		fprintf(stderr, "sysgate check: out of memory\n");
		return 125;
	}
	/* copy is cut into the words c points into: freed at the end. */
	if (parse_call(copy, &c) < 0) {
		free(copy);
		return 125;
	}
	printf("call: %s", c.info->name);
	if (c.ev.path)
		printf(" %s (access %s)", c.ev.path,
		       rules_access_name(c.ev.access));
	if (c.ev.addr)
		printf(" %s", c.addr_text);
	if (c.ev.exe)
		printf(" by %s", c.ev.exe);
	printf("\n");
	rules_explain(rs, &c.ev, print_step, &x, &v);
	printf("decision: %s", rules_action_name(v.action));
	if (v.action == RULES_DENY)
		printf(" %s", rules_errno_name(v.err) ? rules_errno_name(v.err) :
		       "(unknown errno)");
	for (i = 0; v.rule && i < n; i++)
		if (!strcmp(rules_rule_name(rs, i), v.rule))
			break;
	if (v.rule)
		printf(" by rule '%s' (%s)\n", v.rule,
		       where(rs, i, rules_source(rs), at, sizeof(at)));
	else
		printf(" by the policy default (no rule matches)\n");
	printf("recorded: %s\n", v.audit ? "yes" : "no");
	switch (rules_mechanism(rs, c.ev.nr, &ka)) {
	case RULES_MECH_KERNEL:
		printf("mechanism: kernel (the seccomp filter decides %s: %s%s)\n",
		       c.info->name, rules_action_name(ka),
		       rules_always_notified(c.ev.nr) ?
		       "; the supervisor still checks its target" : "");
		/* The commands the filter still sends to the supervisor
		 * where it allows the rest (rules/filter.c). */
		if (ka != RULES_ALLOW)
			break;
		if (!strcmp(c.info->name, "ioctl") || !strcmp(c.info->name, "fcntl"))
			printf("  but %s reach the supervisor (who gets SIGIO: the tree only)\n",
			       c.info->name[0] == 'i' ? "FIOSETOWN and SIOCSPGRP" :
							"F_SETOWN and F_SETOWN_EX");
		if (!strcmp(c.info->name, "ioctl") &&
		    rules_mechanism(rs, rules_syscall_by_name("fchmod")->nr,
				    NULL) == RULES_MECH_NOTIFY)
			printf("  and FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION,"
			       " FS_IOC_ENABLE_VERITY and FS_IOC_SET_ENCRYPTION_POLICY\n"
			       "  are decided as fchmod of the file their fd names\n");
		break;
	case RULES_MECH_NOTIFY:
		printf("mechanism: notification (the supervisor decides %s)\n",
		       c.info->name);
		break;
	case RULES_MECH_TRACE:
		printf("mechanism: trace (%s stops under ptrace)\n", c.info->name);
		break;
	}
	free(copy);
	return 0;
}

/* Literal paths are only warned about when they surely do not exist:
 * EACCES and the like say nothing. */
static bool surely_missing(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* A literal path that does not exist is seldom a mistake: a deny rule
 * guards files a machine may lack (~/.netrc, /etc/sudoers without sudo),
 * an allow rule names a file a run will create or every candidate of a
 * PATH search (/usr/local/sbin/env).  A missing first directory is
 * (/ect/shadow, /hom/me/project): only that is warned about. */
static bool worth_warning(const char *p)
{
	char top[PATH_MAX];
	const char *slash = p[0] == '/' ? strchr(p + 1, '/') : NULL;
	size_t n = slash ? (size_t)(slash - p) : strlen(p);

	if (!surely_missing(p))
		return false;
	if (n >= sizeof(top))
		return true;
	memcpy(top, p, n);
	top[n] = '\0';
	return surely_missing(top);
}

/* Is p tmpdir or under it? */
static bool under(const char *p, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	return n && !strncmp(p, dir, n) && (p[n] == '\0' || p[n] == '/');
}

unsigned tools_check_warnings(const struct rules_set *rs, const char *tmpdir,
			      FILE *out)
{
	size_t i, k, by, n = rules_rule_count(rs);
	char at[PATH_MAX + 16];
	unsigned warned = 0;
	const char *w;

	/* The loader's: mistakes that still make a valid policy. */
	for (i = 0; (w = rules_warning(rs, i)); i++, warned++)
		fprintf(out, "warning: %s\n", w);
	for (i = 0; i < n; i++) {
		const char *p;

		if (rules_shadowed(rs, i, &by)) {
			const char *f = rules_rule_file(rs, i);
			/* An included rule that a rule of another file
			 * decides first is overridden, on purpose. */
			bool over = strcmp(f, rules_rule_file(rs, by)) != 0;

			fprintf(out,
				"%s: %s:%u: rule '%s' %s: rule '%s' (%s) decides all its calls first\n",
				over ? "note" : "warning", f,
				rules_rule_line(rs, i), rules_rule_name(rs, i),
				over ? "is overridden" : "can never match",
				rules_rule_name(rs, by),
				where(rs, by, f, at, sizeof(at)));
			warned += !over;
		}
		for (k = 0; (p = rules_rule_path(rs, i, k)); k++) {
			/* ${TMPDIR}: each run makes its own. */
			if (!rules_glob_is_literal(p) || under(p, tmpdir) ||
			    !worth_warning(p))
				continue;
			fprintf(out, "warning: %s:%u: path '%s' does not exist\n",
				rules_rule_file(rs, i), rules_rule_line(rs, i),
				p);
			warned++;
		}
	}
	return warned;
}
