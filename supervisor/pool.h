/* SPDX-License-Identifier: MIT */
/* Calls finished on worker threads (pool.c). */
#ifndef SYSGATE_SUPERVISOR_POOL_H
#define SYSGATE_SUPERVISOR_POOL_H

#include <limits.h>
#include <stdbool.h>
#include <linux/seccomp.h>

#include "common/seccomp-compat.h"
#include "supervisor/call.h"
#include "supervisor/stack.h"
#include "supervisor/tracee.h"

struct sup;

/*
 * A call finished on a worker thread (a blocking FIFO open, connect or
 * send): its own copies of what later turns of the loop may change (the
 * caller's exe name, the notification, --user credentials).  Embedded
 * first in each job.  call_job_init copies c; call_job_start runs fn(j)
 * on a detached thread (0 or -errno: then the job is still the caller's);
 * on the thread, call_job_enter takes the caller's credentials (-EPERM if
 * it cannot: the call must fail), which the thread keeps after the job
 * (the next job of the same caller switches nothing); call_job_leave
 * marks the end of the part done as the caller.
 */
struct call_job {
	struct sup *s;
	struct call c;
	char exe[PATH_MAX];
	struct seccomp_notif req;
	struct creds creds;
	bool have_creds;
	struct stack_trace stack; /* the call's stack, when it has one */
};
void call_job_init(struct call_job *j, struct sup *s, const struct call *c);
int call_job_start(struct call_job *j, void *(*fn)(void *));
int call_job_enter(struct call_job *j);
void call_job_leave(struct call_job *j);

#endif
