/* SPDX-License-Identifier: MIT */
/* The trusted path's core (notify.c) and what it exports to the loop. */
#ifndef SYSGATE_SUPERVISOR_NOTIFY_H
#define SYSGATE_SUPERVISOR_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/seccomp.h>

#include "common/seccomp-compat.h"
#include "rules/rules.h"

struct sup;
struct call;
struct resolved;
struct proc;

/* Shared by notify.c, the handlers (h-*.c) and net.c (the trusted path);
 * the entry point is in dispatch.h. */
/*
 * The event loop is about to sleep: the next caller's notification wakes
 * it on the caller's CPU again (see notify_send_resp()).
 */
void notify_wake_idle(struct sup *s);
int notify_send_resp(struct sup *s, uint64_t id, int64_t val, int err,
		     bool cont);
bool notify_id_valid(struct sup *s, uint64_t id);
/* Install our fd in the caller of notification id (not answering it):
 * its number there, or -errno. */
int notify_add_fd(struct sup *s, uint64_t id, int fd, bool cloexec);
/* Record the call, then reply (CONTINUE when cont). */
int notify_finish(struct sup *s, struct call *c, bool cont);
/* Record a call before the change it allows is made; 0 or -EIO. */
int notify_record_before_change(struct sup *s, struct call *c);
/* Security: a rename or removal of path r of call c that would move a
 * directory above the trail is refused (sysgate:audit-trail): true and
 * *v set. */
bool notify_trail_dir_guard(const struct sup *s, const struct call *c,
			    const struct resolved *r, struct rules_verdict *v);
/* Checks no policy can switch off; true when they decided (deny). */
bool notify_builtin_check(struct sup *s, const struct resolved *r,
			  unsigned access, struct rules_verdict *v);
void notify_verdict_builtin(struct rules_verdict *v, const char *rule, int err);
int notify_caller_umask(struct call *c);

/* --user: give the event loop's thread its own credentials back, if it
 * holds a caller's (kept from one call to the next): called before any
 * work of the supervisor's own. */
void notify_creds_release(void);

/* Exec verification at PTRACE_EVENT_EXEC (h-exec.c, shares the checks). */
void notify_exec_event(struct sup *s, struct proc *p, pid_t former_tid);
/* p leaves the process table: its exec check (p->exec) and its --user
 * credentials (p->creds) are freed (procs_on_forget()). */
void notify_exec_forget(struct proc *p);
void caller_creds_forget(struct proc *p);

#endif
