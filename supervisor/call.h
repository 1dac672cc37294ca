/* SPDX-License-Identifier: MIT */
/* A notified call, with everything copied out of the tracee. */
#ifndef SYSGATE_SUPERVISOR_CALL_H
#define SYSGATE_SUPERVISOR_CALL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <linux/seccomp.h>

#include "common/seccomp-compat.h"
#include "rules/rules.h"
#include "supervisor/decode.h"

struct creds;
struct stack_trace;
struct sup;
struct proc;

#define CALL_MAX_PATHS 2

struct call_path {
	const char *arg_name;  /* "path", "oldpath", ... */
	size_t raw_len;
	bool have_raw;
	bool have_resolved;
	unsigned access;
	struct rules_verdict v;
	bool checked;
	bool redirected;
	/* redirected: the rule that did it (its name, from the set), and
	 * the length of its redirect, the start of redirect[] that the
	 * path must stay under. */
	const char *rewrite_by;
	size_t redirect_base;
	/* The path the supervisor wrote in a restarted call's registers
	 * (c->expect_path). */
	bool expected;
	/* No path: the call acts on the open file its fd names (fchmod,
	 * fsetxattr, futimens, ...), resolved as AT_EMPTY_PATH. */
	bool fd_form;
	/* The buffers last (call_init() clears what comes before them). */
	char raw[PATH_MAX];    /* as the program passed it (copied) */
	char resolved[PATH_MAX];
	/* action = rewrite: the path the call is carried out on instead
	 * (absolute), and the canonical path the caller named. */
	char redirect[PATH_MAX];
	char from[PATH_MAX];
};

/* One notified call, with everything copied out of the tracee. */
struct call {
	const struct seccomp_notif *req;
	const struct rules_syscall_info *info;
	const char *name;      /* syscall name */
	int match_nr;          /* the call its paths are decided as (an
				* ioctl that changes a file's attributes:
				* fchmod), 0: its own */
	pid_t tid, tgid;
	const char *exe;
	struct call_path paths[CALL_MAX_PATHS];
	unsigned n_paths;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool have_addr;
	int domain;            /* network calls: the socket's own family
				* (SO_DOMAIN), 0: not known */
	struct rules_verdict v; /* the deciding (strictest) verdict */
	int err;               /* positive errno returned, 0 if none */
	int64_t result;        /* value returned on success */
	bool have_result;
	bool emulated;
	uint64_t pre_seq;      /* seq of the record written before a change
				* was made (0: none); the result follows in a
				* syscall.result record */
	bool pending;          /* being recorded before the change is made */
	uint64_t open_flags;   /* open family: the flags asked for */
	const struct creds *creds; /* --user: the caller's, for threads */
	const char *decided_by; /* action = ask: who answered */
	const char *note;      /* extra explanation ("path swapped at exec") */
	/* action = rewrite: the call was rewritten and decided again. */
	bool rewritten;
	const char *rewrite_rule;
	/* Its family's handler, for the call decided again
	 * (rewrite_restart()): set by dispatch.c, which sits above the
	 * handlers and the core they call. */
	int (*redispatch)(struct sup *s, struct call *c, struct proc *p);
	uint64_t orig_args[6];     /* the caller's own arguments */
	struct seccomp_notif rw_req; /* the notification as rewritten */
	struct sockaddr_storage rw_addr; /* connect/send: where it goes */
	socklen_t rw_addr_len;
	bool have_rw_addr;
	const struct stack_trace *stack; /* stack = yes: the caller's stack
				* (borrowed from its process entry, copied
				* into a call_job) */
	/* A call restarted by regs.c with a new path: the path it must
	 * name (borrowed from the edit), and in which argument. */
	const char *expect_path;
	int expect_arg;
	size_t expect_base;	/* the redirect's target in expect_path */
	/* An inet bind (or a listen's bind) made: the address the socket
	 * got (getsockname), the port the kernel chose for port 0. */
	struct sockaddr_storage bound;
	socklen_t bound_len;
	bool have_bound;
	/* A datagram sent to port 53 that is a DNS query: its question. */
	struct dns_query dns;
	bool have_dns;
};

/* The outcome of a call carried out by the supervisor: a value, or
 * -errno. */
static inline void call_result(struct call *c, int64_t rc)
{
	if (rc < 0) {
		c->err = (int)-rc;
	} else {
		c->result = rc;
		c->have_result = true;
	}
}

/* The action and rule a call is recorded with: a rewritten call that was
 * allowed as rewritten is a rewrite by the rule that rewrote it. */
static inline enum rules_action call_action(const struct call *c)
{
	return c->rewritten && c->v.action == RULES_ALLOW ? RULES_REWRITE :
							     c->v.action;
}

static inline const char *call_rule(const struct call *c)
{
	return c->rewritten && c->v.action == RULES_ALLOW ? c->rewrite_rule :
							     c->v.rule;
}

#endif
