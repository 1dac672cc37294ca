/* SPDX-License-Identifier: MIT */
/*
 * How a run stops when sysgate cannot go on (the trail cannot be
 * written, out of memory, the listener fails): every file of the trusted
 * path may call sup_fail(), so this file sits below them all and calls
 * only the process table and the cgroup (no call back up to the loop).
 */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "supervisor/cgroup.h"
#include "supervisor/procs.h"
#include "supervisor/sup.h"

struct sup *sup_global;

static void kill_one(struct proc *p, void *arg)
{
	(void)arg;
	if (p->tid == p->tgid)
		kill(p->tgid, SIGKILL);
}

void sup_kill_tree(void)
{
	procs_each(kill_one, NULL);
	if (sup_global)
		cgroup_kill(&sup_global->lim.cg);
}

void sup_fail(struct sup *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->tally.failed) {
		va_start(ap, fmt);
		vsnprintf(s->tally.fail_msg, sizeof(s->tally.fail_msg), fmt,
			  ap);
		va_end(ap);
		s->tally.failed = true;
		fprintf(stderr, "sysgate: %s: stopping the process tree\n",
			s->tally.fail_msg);
	}
	/* Security: fail closed: no call runs unrecorded after this. */
	sup_kill_tree();
}
