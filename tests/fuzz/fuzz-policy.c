/* SPDX-License-Identifier: MIT */
/*
 * fuzz-policy: the libFuzzer target of rules/'s policy loader
 * (rules_load_string) and of what runs on a loaded set: the filter
 * compiler, the matcher and its explanation, and the accessors `sysgate
 * check` prints.  Beyond "no crash, no leak, no UB" it checks the loader's
 * promises (rules.h): a set, or a negative errno with a "NAME: ..."
 * message; a policy that loads also compiles (what `sysgate check`
 * accepts, `sysgate run` must be able to load); rules_explain() decides as
 * rules_match() does.
 *
 * Includes: the policy is named as a file in a directory that does not
 * exist, the variables point there too and SYSGATE_POLICY_DIR as well, so
 * a relative include, ${HOME}/... or a shipped name finds nothing.  An
 * absolute include still reads that file of the machine (read-only, at
 * most RULES_MAX_FILE bytes; read_policy() refuses what is not a regular
 * file without blocking).
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "rules/rules.h"

#define FUZZ_DIR "/nonexistent/sysgate-fuzz"
#define FUZZ_NAME FUZZ_DIR "/policy.ini"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct rules_vars vars = {
	.home = FUZZ_DIR "/home",
	.cwd = FUZZ_DIR "/cwd",
	.tmpdir = FUZZ_DIR "/tmp",
	.run = "fuzz-run",
};

static void check(int ok)
{
	if (!ok)
		abort();
}

static bool valid_action(enum rules_action a)
{
	switch (a) {
	case RULES_ALLOW:
	case RULES_REWRITE:
	case RULES_DENY:
	case RULES_KILL:
	case RULES_ASK:
		return true;
	}
	return false;
}

/* The rule a verdict names is one of the set's. */
static bool known_rule(const struct rules_set *rs, const char *name)
{
	size_t i, n = rules_rule_count(rs);

	if (!name)
		return true;
	for (i = 0; i < n; i++)
		if (rules_rule_name(rs, i) == name)
			return true;
	return false;
}

struct explain_ctx {
	const struct rules_set *rs;
	size_t steps, last;
	bool matched;
};

static void on_step(const struct rules_explain_step *step, void *arg)
{
	struct explain_ctx *x = arg;
	char buf[64];

	check(!x->matched);	/* nothing after the deciding rule */
	check(step->index < rules_rule_count(x->rs));
	check(x->steps == 0 || step->index > x->last);
	check(step->rule == rules_rule_name(x->rs, step->index));
	check(step->why != RULES_WHY_ARG || step->arg < 6);
	/* Cut to a small buffer: still NUL-terminated. */
	rules_rule_condition(x->rs, step->index, step->why, step->arg, buf,
			     sizeof(buf));
	check(memchr(buf, '\0', sizeof(buf)) != NULL);
	x->matched = step->why == RULES_WHY_MATCH;
	x->last = step->index;
	x->steps++;
}

static void apply_rewrite(const struct rules_verdict *v,
			  const struct rules_event *ev)
{
	struct sockaddr_storage ss;
	socklen_t ss_len = 0;
	uint64_t args[6];
	char out[4096];

	check(v->rewrite != NULL);
	if (ev->path &&
	    rules_rewrite_path(v, ev->path, out, sizeof(out)) == 0)
		check(memchr(out, '\0', sizeof(out)) != NULL);
	if (ev->addr &&
	    rules_rewrite_addr(v, ev->addr, ev->addr_len, &ss, &ss_len) == 0)
		check(ss_len > 0 && ss_len <= sizeof(ss));
	memcpy(args, ev->args, sizeof(args));
	rules_rewrite_args(v, args);
}

static void decide(const struct rules_set *rs, const struct rules_event *ev)
{
	struct rules_verdict m, e;
	struct explain_ctx x = { .rs = rs };

	memset(&m, 0xa5, sizeof(m));
	memset(&e, 0x5a, sizeof(e));
	rules_match(rs, ev, &m);
	rules_explain(rs, ev, on_step, &x, &e);
	check(valid_action(m.action));
	check(m.action != RULES_DENY || m.err > 0);
	check(known_rule(rs, m.rule));
	/* rules_explain fills its verdict exactly as rules_match does. */
	check(e.action == m.action && e.err == m.err && e.rule == m.rule &&
	      e.audit == m.audit && e.stack == m.stack &&
	      e.rewrite == m.rewrite);
	/* It walks to the deciding rule, or through all for the default. */
	check(x.matched == (m.rule != NULL));
	check(m.rule || x.steps == rules_rule_count(rs));
	if (m.action == RULES_REWRITE)
		apply_rewrite(&m, ev);
}

static void match_events(const struct rules_set *rs)
{
	static const struct {
		const char *path;
		unsigned access;
		uint64_t flags;
	} opens[] = {
		{ "/etc/passwd", RULES_ACC_READ, 0 /* O_RDONLY */ },
		{ FUZZ_DIR "/home/.ssh/id_rsa", RULES_ACC_READ, 0 },
		{ FUZZ_DIR "/cwd/out/a.o", RULES_ACC_WRITE, 01 /* O_WRONLY */ },
		{ FUZZ_DIR "/tmp/x", RULES_ACC_CREATE, 0101 /* O_CREAT */ },
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", RULES_ACC_STAT, 0 },
		{ "/", RULES_ACC_DELETE, 02 /* O_RDWR */ },
		{ "memfd:x", RULES_ACC_WRITE, 02 },
	};
	struct sockaddr_in in = {
		.sin_family = AF_INET,
		.sin_port = htons(80),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_un un = { .sun_family = AF_UNIX,
				  .sun_path = "/run/fuzz.sock" };
	struct sockaddr_un abstract = { .sun_family = AF_UNIX,
					.sun_path = "\0dbus-fuzz" };
	struct sockaddr_in any = { .sin_family = AF_INET,
				   .sin_port = htons(8080) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(443),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in6 mapped = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(53),
		.sin6_addr.s6_addr = { [10] = 0xff, [11] = 0xff, 10, 1, 2, 3 },
	};
	const struct {
		int nr;
		const struct sockaddr *sa;
		socklen_t len;
	} nets[] = {
		{ __NR_connect, (const struct sockaddr *)&abstract,
		  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 10) },
		{ __NR_bind, (const struct sockaddr *)&any, sizeof(any) },
		{ __NR_connect, (const struct sockaddr *)&in6, sizeof(in6) },
		{ __NR_sendto, (const struct sockaddr *)&mapped,
		  sizeof(mapped) },
		/* sun_path matched as it is: no canonical path given. */
		{ __NR_connect, (const struct sockaddr *)&un, sizeof(un) },
	};
	struct rules_event ev;
	size_t i;

	for (i = 0; i < sizeof(opens) / sizeof(opens[0]); i++) {
		ev = (struct rules_event){
			.nr = __NR_openat,
			.args = { (uint64_t)(uint32_t)-100 /* AT_FDCWD */,
				  0x1000, opens[i].flags, 0644 },
			.exe = "/usr/bin/cc",
			.access = opens[i].access,
			.path = opens[i].path,
		};
		decide(rs, &ev);
	}
	ev = (struct rules_event){
		.nr = __NR_execve,
		.args = { 0x1000, 0x2000, 0x3000 },
		.exe = "/bin/sh",
		.access = RULES_ACC_EXEC,
		.path = "/usr/bin/true",
	};
	decide(rs, &ev);
	ev = (struct rules_event){
		.nr = __NR_connect,
		.args = { 3, 0x1000, sizeof(in) },
		.addr = (const struct sockaddr *)&in,
		.addr_len = sizeof(in),
	};
	decide(rs, &ev);
	ev = (struct rules_event){
		.nr = __NR_connect,
		.args = { 3, 0x1000, sizeof(un) },
		.exe = "/usr/bin/python3",
		.addr = (const struct sockaddr *)&un,
		.addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
					sizeof("/run/fuzz.sock")),
		.unix_path = "/run/fuzz.sock",
	};
	decide(rs, &ev);
	for (i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		ev = (struct rules_event){
			.nr = nets[i].nr,
			.args = { 3, 0x1000, nets[i].len, 0, 0x2000,
				  nets[i].len },
			.addr = nets[i].sa,
			.addr_len = nets[i].len,
		};
		decide(rs, &ev);
	}
	ev = (struct rules_event){
		.nr = __NR_rename,
		.args = { 0x1000, 0x2000 },
		.access = RULES_ACC_DELETE,
		.path = FUZZ_DIR "/cwd/old",
	};
	decide(rs, &ev);
	/* Scalar calls: a named one, one unused on x86_64, one past the
	 * table, and a negative number. */
	ev = (struct rules_event){ .nr = __NR_getpid };
	decide(rs, &ev);
	ev = (struct rules_event){ .nr = 335, .args = { 1, 2, 3, 4, 5, 6 } };
	decide(rs, &ev);
	ev = (struct rules_event){ .nr = 4000 };
	decide(rs, &ev);
	ev = (struct rules_event){ .nr = -1 };
	decide(rs, &ev);
}

static void accessors(const struct rules_set *rs)
{
	static const int nrs[] = { __NR_read, __NR_openat, __NR_execve,
				   __NR_connect, __NR_clone, __NR_kill,
				   335, 511, 512, -1 };
	enum rules_action def;
	uint64_t v;
	size_t i, n = rules_rule_count(rs), by;
	int err = 0;
	char buf[256];

	def = rules_default_action(rs, &err);
	check(valid_action(def));
	check(def != RULES_DENY || err > 0);
	check(rules_source(rs) != NULL);
	for (i = 0; i < RULES_LIMIT_COUNT; i++) {
		int rc = rules_limit(rs, (enum rules_limit)i, &v);

		check(rc == 0 || rc == -ENOENT);
		check(rules_limit_name((enum rules_limit)i) != NULL);
	}
	check(rules_limit(rs, RULES_LIMIT_COUNT, &v) == -EINVAL);
	for (i = 0; i < n; i++) {
		const char *name = rules_rule_name(rs, i);

		check(name != NULL && name[0] != '\0');
		check(rules_rule_line(rs, i) > 0);
		for (size_t k = 0; rules_rule_path(rs, i, k); k++)
			;
		for (int why = RULES_WHY_PATH; why <= RULES_WHY_EXE; why++)
			rules_rule_condition(rs, i, (enum rules_why)why, 0,
					     buf, sizeof(buf));
		for (unsigned a = 0; a < 6; a++)
			rules_rule_condition(rs, i, RULES_WHY_ARG, a, buf,
					     sizeof(buf));
		if (rules_shadowed(rs, i, &by))
			check(by < i);
		rules_rule_redirect_dir(rs, i);
	}
	check(rules_rule_name(rs, n) == NULL);
	check(rules_rule_line(rs, n) == 0);
	for (i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		enum rules_action ka;

		rules_mechanism(rs, nrs[i], &ka);
		rules_never_allows(rs, nrs[i]);
	}
	rules_audit_level(rs);
	rules_wants_stacks(rs);
	rules_filter_has_guards(rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool env_set;
	/* Never dereferenced: shows whether a failed load wrote *out. */
	struct rules_set *const unset = (struct rules_set *)&vars;
	struct rules_set *rs = unset;
	struct sock_fprog prog = { 0 };
	char err[RULES_ERR_MAX];
	char *text;
	int rc;

	if (!env_set) {
		/* Shipped policy names are looked up here first, then in the
		 * installed directory (which a build tree need not have). */
		setenv("SYSGATE_POLICY_DIR", FUZZ_DIR "/policies", 1);
		env_set = true;
	}
	/* The API takes a C string: the text ends at the first NUL. */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(err, 'x', sizeof(err));
	rc = rules_load_string(text, FUZZ_NAME, &vars, &rs, err, sizeof(err));
	free(text);
	if (rc < 0) {
		check(rs == unset);	/* *out left alone */
		check(memchr(err, '\0', sizeof(err)) != NULL);
		/* "NAME:LINE: what" or "NAME: what", NAME the policy's or an
		 * included file's. */
		check(err[0] != '\0' && err[0] != ':');
		check(strstr(err, ": ") != NULL);
		return 0;
	}
	check(rc == 0 && rs != NULL && rs != unset);
	/* Loaded means it compiles: `sysgate check` accepts only what
	 * `sysgate run` can load. */
	check(rules_build_filter(rs, &prog) == 0);
	check(prog.len > 0 && prog.filter != NULL);
	free(prog.filter);
	accessors(rs);
	match_events(rs);
	rules_free(rs);
	return 0;
}
