/* SPDX-License-Identifier: MIT */
/*
 * sysgate check POLICY --explain CALL, and the warnings of sysgate check:
 * which rule decides a call written as in the trail, why each rule before
 * it did not, and which mechanism carries the call; rules that can never
 * match and literal paths that do not exist.  The answer is a run's: the
 * filters the run loads are run on the call (rules_filter_run()); a call
 * they send to the supervisor meets its built-in checks (those known
 * without a run), then rules_match().
 */
#include "config.h"

#include <arpa/inet.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "rules/rules.h"
#include "tools/tools.h"

#define EXPLAIN_MAX_WORDS 16
#define EXPLAIN_COND_MAX 1024

struct call {
	struct rules_event ev;
	const struct rules_syscall_info *info;	/* NULL: a number without a row */
	const char *name;	/* its name, or "syscall_NNN" */
	char nr_name[32];
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

/* The syscall, by name or by number ("600", or the trail's
 * "syscall_600" for a number without a row). */
static int parse_nr(const char *w, struct call *c)
{
	char *end;
	long nr;

	c->info = rules_syscall_by_name(w);
	if (!c->info && !strncmp(w, "syscall_", 8))
		w += 8;
	if (!c->info && w[0] >= '0' && w[0] <= '9') {
		errno = 0;
		nr = strtol(w, &end, 10);
		if (errno || *end || nr > 0x3fffffff) {
			fprintf(stderr, "sysgate check: --explain: '%s' is no x86_64 syscall number\n",
				w);
			return -EINVAL;
		}
		c->ev.nr = (int)nr;
		c->info = rules_syscall_by_nr((int)nr);
		snprintf(c->nr_name, sizeof(c->nr_name), "syscall_%ld", nr);
		c->name = c->info ? c->info->name : c->nr_name;
		return 0;
	}
	if (!c->info) {
		fprintf(stderr, "sysgate check: --explain: unknown syscall '%s'\n",
			w);
		return -EINVAL;
	}
	c->ev.nr = c->info->nr;
	c->name = c->info->name;
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
	if (parse_nr(words[0], c) < 0)
		return -EINVAL;
	switch (c->info ? c->info->kind : RULES_KIND_SCALAR) {
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
		printf("no: does not name %s\n", x->c->name);
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

/* What the filters of a run return for the call: the policy's, with the
 * guard filter under it where the policy's does not hold the guards (as
 * sysgate run loads them); *guard_ret: the guard filter's own answer.
 * 0, or -errno. */
static int filter_answer(const struct rules_set *rs, const struct call *c,
			 uint32_t *ret, uint32_t *guard_ret)
{
	struct sock_fprog prog = { 0 }, guard = { 0 };
	struct seccomp_data d = { .nr = c->ev.nr, .arch = AUDIT_ARCH_X86_64 };
	int64_t r = -1, g = -1;
	int rc;

	memcpy(d.args, c->ev.args, sizeof(d.args));
	rc = rules_build_filter(rs, &prog);
	if (rc == 0)
		rc = rules_build_guard_filter(&guard);
	if (rc == 0) {
		r = rules_filter_stacked(rules_filter_has_guards(rs) ? NULL :
					 &guard, &prog, &d);
		g = rules_filter_run(&guard, &d);
	}
	free(prog.filter);
	free(guard.filter);
	if (rc < 0)
		return rc;
	if (r < 0 || g < 0)
		return -EINVAL;
	*ret = (uint32_t)r;
	*guard_ret = (uint32_t)g;
	return 0;
}

/* A filter's answer as a verdict: what the caller sees. */
static void answer_verdict(uint32_t ret, struct rules_verdict *v)
{
	*v = (struct rules_verdict){ .action = RULES_ALLOW };
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
		break;
	case SECCOMP_RET_ERRNO:
		v->action = RULES_DENY;
		v->err = (int)(ret & SECCOMP_RET_DATA);
		break;
	default:
		v->action = RULES_KILL;
		break;
	}
}

static bool same_verdict(const struct rules_verdict *a,
			 const struct rules_verdict *b)
{
	return a->action == b->action &&
	       (a->action != RULES_DENY || a->err == b->err);
}

/* A builtin check of the supervisor that decides the call before any
 * rule: its name as the trail records it ("sysgate:outside-tree"), why,
 * and the errno. */
struct builtin {
	const char *rule;
	const char *why;
	int err;
};

/* The read-only files of a process outside the tree that ps(1) reads:
 * the list of supervisor/notify.c, notify_builtin_check() (explain.sh
 * compares the two on a real run). */
static bool proc_readable(const char *rest)
{
	static const char *const readable[] = {
		"stat", "status", "cmdline", "comm", "statm", "cgroup",
		"limits", "loginuid", "sessionid", "oom_score", "wchan",
		"schedstat",
	};
	size_t n = strcspn(rest, "/");

	if (n == 0 || (n == strlen(rest) && !strcmp(rest, "task")))
		return true;
	for (size_t i = 0; i < sizeof(readable) / sizeof(readable[0]); i++)
		if (!strcmp(rest, readable[i]))
			return true;
	return false;
}

/* /proc/N/...: a process outside the run's tree (pid 1 never is in it;
 * the tree's own and /proc/self are decided by the rules). */
static bool builtin_proc(const struct call *c, struct builtin *b)
{
	const char *p = c->ev.path, *rest;
	char *end;
	long pid;

	if (strncmp(p, "/proc/", 6) != 0 || p[6] < '1' || p[6] > '9')
		return false;
	pid = strtol(p + 6, &end, 10);
	if (*end != '/' && *end != '\0')
		return false;
	rest = *end == '/' ? end + 1 : end;
	if (!strncmp(rest, "task/", 5) && rest[5] >= '0' && rest[5] <= '9') {
		rest += 5 + strspn(rest + 5, "0123456789");
		rest = *rest == '/' ? rest + 1 : *rest ? "-" : rest;
	}
	if ((c->ev.access & (RULES_ACC_READ | RULES_ACC_STAT)) &&
	    proc_readable(rest))
		return false;
	*b = (struct builtin){
		.rule = "sysgate:outside-tree", .err = EACCES,
		.why = pid == 1 ?
		       "process 1 is outside the run's tree: of its /proc files the tree may read only those ps reads" :
		       "when that process is outside the run's tree (the tree's own are decided by the rules): of its /proc files the tree may read only those ps reads",
	};
	return true;
}

/* Is p dir or below it (dir itself only for more than a stat)? */
static bool in_dir(const char *p, const char *dir, unsigned access)
{
	size_t n = strlen(dir);

	return n && !strncmp(p, dir, n) &&
	       (p[n] == '/' ||
		(p[n] == '\0' && (access & ~(unsigned)RULES_ACC_STAT)));
}

/* sysgate's state directories, as sysgate run names them (main.c). */
static bool builtin_state(const struct call *c, struct builtin *b)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char raw[PATH_MAX], dir[PATH_MAX];
	int len = -1;

	if (xdg && xdg[0] == '/')
		len = snprintf(raw, sizeof(raw), "%s/sysgate", xdg);
	else if (home && home[0] == '/')
		len = snprintf(raw, sizeof(raw), "%s/.local/state/sysgate",
			       home);
	if (!((len > 0 && (size_t)len < sizeof(raw) &&
	       tools_canon_path(raw, dir, sizeof(dir)) == 0 &&
	       in_dir(c->ev.path, dir, c->ev.access)))) {
		snprintf(raw, sizeof(raw), "/tmp/sysgate-%u",
			 (unsigned)getuid());
		if (tools_canon_path(raw, dir, sizeof(dir)) < 0 ||
		    !in_dir(c->ev.path, dir, c->ev.access))
			return false;
	}
	*b = (struct builtin){
		.rule = "sysgate:state", .err = EACCES,
		.why = "sysgate's state directory (other runs' trails and keys) is out of the tree's reach",
	};
	return true;
}

/*
 * The supervisor's checks that come before the rules and no policy
 * switches off (supervisor/notify.c), as far as they are known without
 * a run: calls refused under every policy, unmediated calls, and for a
 * path the policy's own files, the state directory and /proc of
 * processes outside the tree.  Not known here: the trail's own path, the
 * signing key, the supervisor's pid, --user.
 */
static bool builtin_check(const struct rules_set *rs, const struct call *c,
			  struct builtin *b)
{
	const unsigned change = RULES_ACC_WRITE | RULES_ACC_DELETE |
				RULES_ACC_CREATE;
	const char *f;

	if (!c->info || c->info->decide == RULES_DECIDE_REFUSED) {
		*b = (struct builtin){
			.rule = c->info ? "sysgate:refused" :
					  "sysgate:unknown-syscall",
			.err = ENOSYS,
			.why = c->info ? "refused under every policy, as on a kernel without it" :
					 "a number without a row of the syscall table: refused under every policy",
		};
		return true;
	}
	if (rules_unmediated_refused(rs, c->ev.nr)) {
		*b = (struct builtin){
			.rule = "sysgate:unmediated", .err = EPERM,
			.why = "it would do what the path and address rules decide without being seen by them ([policy] unmediated opts in)",
		};
		return true;
	}
	if (!c->ev.path)
		return false;
	for (size_t i = 0; (f = rules_file(rs, i)); i++) {
		if (strcmp(f, c->ev.path) || !(c->ev.access & change))
			continue;
		*b = (struct builtin){
			.rule = "sysgate:config", .err = EACCES,
			.why = "the policy's own files are not changed by the tree",
		};
		return true;
	}
	return builtin_state(c, b) || builtin_proc(c, b);
}

static void print_mechanism_kernel(const struct rules_set *rs,
				   const struct call *c,
				   const struct rules_verdict *fv)
{
	printf("mechanism: kernel (the seccomp filter decides %s: %s)\n",
	       c->name, rules_action_name(fv->action));
	/* The commands the filter still sends to the supervisor where it
	 * allows the rest (rules/filter.c). */
	if (fv->action != RULES_ALLOW)
		return;
	if (!strcmp(c->name, "ioctl") || !strcmp(c->name, "fcntl"))
		printf("  but %s reach the supervisor (who gets SIGIO: the tree only)\n",
		       c->name[0] == 'i' ? "FIOSETOWN and SIOCSPGRP" :
					   "F_SETOWN and F_SETOWN_EX");
	if (!strcmp(c->name, "ioctl") &&
	    rules_mechanism(rs, rules_syscall_by_name("fchmod")->nr, NULL) ==
	    RULES_MECH_NOTIFY)
		printf("  and FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION,"
		       " FS_IOC_ENABLE_VERITY and FS_IOC_SET_ENCRYPTION_POLICY\n"
		       "  are decided as fchmod of the file their fd names\n");
}

static void print_decision(const struct rules_set *rs,
			   const struct rules_verdict *v, const char *by)
{
	char at[PATH_MAX + 16];
	size_t i, n = rules_rule_count(rs);

	printf("decision: %s", rules_action_name(v->action));
	if (v->action == RULES_DENY)
		printf(" %s", rules_errno_name(v->err) ? rules_errno_name(v->err) :
		       "(unknown errno)");
	if (by) {
		printf(" by %s\n", by);
		return;
	}
	for (i = 0; v->rule && i < n; i++)
		if (!strcmp(rules_rule_name(rs, i), v->rule))
			break;
	if (v->rule)
		printf(" by rule '%s' (%s)\n", v->rule,
		       where(rs, i, rules_source(rs), at, sizeof(at)));
	else
		printf(" by the policy default (no rule matches)\n");
}

/*
 * A call the filter decides: the kernel answers, and nothing reaches the
 * trail.  The rules are walked for the story of a policy's own answer; a
 * guard's answer (clone3, the *xattrat calls, CLONE_UNTRACED, TIOCSTI...)
 * is sysgate's.
 */
static void explain_kernel(const struct rules_set *rs, struct call *c,
			   struct explain_ctx *x, uint32_t ret,
			   uint32_t guard_ret)
{
	struct rules_verdict fv, v;

	answer_verdict(ret, &fv);
	if (guard_ret != SECCOMP_RET_ALLOW && ret == guard_ret) {
		printf("  sysgate's guard filter: yes: it decides (a check no policy switches off; sysgate check POLICY lists them)\n");
		print_decision(rs, &fv, "sysgate's guard filter");
	} else {
		rules_explain(rs, &c->ev, print_step, x, &v);
		print_decision(rs, same_verdict(&v, &fv) ? &v : &fv,
			       same_verdict(&v, &fv) ? NULL :
			       "the seccomp filter");
	}
	printf("recorded: no (the kernel decides: the call never reaches the supervisor)\n");
	print_mechanism_kernel(rs, c, &fv);
}

/* A call the filter sends to the supervisor: its built-in checks, then
 * the rules. */
static void explain_supervisor(const struct rules_set *rs, struct call *c,
			       struct explain_ctx *x)
{
	struct rules_verdict v;
	struct builtin b;
	char by[128];

	if (builtin_check(rs, c, &b)) {
		rules_match(rs, &c->ev, &v);
		/* An unmediated call: the policy's own deny or kill stands. */
		if (!strcmp(b.rule, "sysgate:unmediated") &&
		    (v.action == RULES_DENY || v.action == RULES_KILL)) {
			rules_explain(rs, &c->ev, print_step, x, &v);
			print_decision(rs, &v, NULL);
		} else {
			printf("  %s: yes: it decides (%s)\n", b.rule, b.why);
			v = (struct rules_verdict){ .action = RULES_DENY,
						    .err = b.err };
			snprintf(by, sizeof(by), "%s, before any rule", b.rule);
			print_decision(rs, &v, by);
		}
		printf("recorded: yes\n");
	} else {
		rules_explain(rs, &c->ev, print_step, x, &v);
		print_decision(rs, &v, NULL);
		printf("recorded: %s\n", v.audit ? "yes" :
		       "no (the policy's audit settings leave it out)");
	}
	printf("mechanism: notification (the supervisor decides %s)\n",
	       c->name);
}

int tools_explain(const struct rules_set *rs, const char *call_text)
{
	struct call c;
	struct explain_ctx x = { .rs = rs, .c = &c };
	uint32_t ret, guard_ret;
	char *copy = strdup(call_text);
	int rc;

	if (!copy) {
		fprintf(stderr, "sysgate check: out of memory\n");
		return 125;
	}
	/* copy is cut into the words c points into: freed at the end. */
	if (parse_call(copy, &c) < 0) {
		free(copy);
		return 125;
	}
	rc = filter_answer(rs, &c, &ret, &guard_ret);
	if (rc < 0) {
		fprintf(stderr, "%s: the seccomp filter cannot be compiled: %s\n",
			rules_source(rs), strerror(-rc));
		free(copy);
		return 125;
	}
	printf("call: %s", c.name);
	if (c.ev.path)
		printf(" %s (access %s)", c.ev.path,
		       rules_access_name(c.ev.access));
	if (c.ev.addr)
		printf(" %s", c.addr_text);
	if (c.ev.exe)
		printf(" by %s", c.ev.exe);
	for (int i = 0; i < 6; i++)
		if (c.ev.args[i])
			printf(" arg%d=0x%llx", i,
			       (unsigned long long)c.ev.args[i]);
	printf("\n");
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_USER_NOTIF:
		explain_supervisor(rs, &c, &x);
		break;
	case SECCOMP_RET_TRACE:
		printf("mechanism: trace (%s stops under ptrace)\n", c.name);
		break;
	default:
		explain_kernel(rs, &c, &x, ret, guard_ret);
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
