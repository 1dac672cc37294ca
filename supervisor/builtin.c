/* SPDX-License-Identifier: MIT */
/*
 * Checks the policy cannot switch off: the run's own configuration, the
 * audit trail and the directories above it, the supervisor's and other
 * processes' /proc entries.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "supervisor/call.h"
#include "supervisor/notify.h"
#include "supervisor/procs.h"
#include "supervisor/resolve.h"
#include "supervisor/sup.h"
#include "supervisor/handlers.h"

/*
 * Security: the run's own configuration (loop.c config_guard_init()):
 * the signing key is neither read nor changed, the policy, its includes
 * and the public key are not changed, and nothing in sysgate's state
 * directory (other runs' trails, keys kept there) is touched at all.
 * Files by inode, so no other name of one (a hard link, a path through
 * /proc) reaches it; the state directory by its canonical path.
 */
static bool config_check(const struct sup *s, const struct resolved *r,
			 unsigned access, struct rules_verdict *v)
{
	const unsigned change = RULES_ACC_WRITE | RULES_ACC_DELETE |
				RULES_ACC_CREATE;

	for (unsigned i = 0; r->fd >= 0 && i < s->guard.n_guards; i++) {
		const struct sup_guard *g = &s->guard.guards[i];

		if (r->st.st_dev != g->dev || r->st.st_ino != g->ino)
			continue;
		if (g->secret && (access & ~(unsigned)RULES_ACC_STAT)) {
			notify_verdict_builtin(v, "sysgate:sign-key", EACCES);
			return true;
		}
		if (access & change) {
			notify_verdict_builtin(v, "sysgate:config", EACCES);
			return true;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(s->guard.state_dirs); i++) {
		const char *d = s->guard.state_dirs[i];
		size_t n = strlen(d);

		if (n && !strncmp(r->path, d, n) &&
		    (r->path[n] == '/' ||
		     (r->path[n] == '\0' && (access & ~(unsigned)RULES_ACC_STAT)))) {
			notify_verdict_builtin(v, "sysgate:state", EACCES);
			return true;
		}
	}
	return false;
}

/*
 * Security: checks the policy cannot switch off.  /proc entries of
 * processes outside the traced tree (the supervisor above all) are out of
 * reach but for a few read-only files that ps(1) needs, the audit trail
 * cannot be written, removed or replaced by the tree, and the key that
 * signs it (--sign-key) cannot be touched at all.
 */
bool notify_builtin_check(struct sup *s, const struct resolved *r,
			  unsigned access, struct rules_verdict *v)
{
	static const char *const readable[] = {
		"stat", "status", "cmdline", "comm", "statm", "cgroup",
		"limits", "loginuid", "sessionid", "oom_score", "wchan",
		"schedstat",
	};
	const char *p = r->path;

	if (s->guard.have_audit_ino && r->fd >= 0 &&
	    r->st.st_dev == s->guard.audit_dev &&
	    r->st.st_ino == s->guard.audit_ino &&
	    (access & (RULES_ACC_WRITE | RULES_ACC_DELETE | RULES_ACC_CREATE))) {
		notify_verdict_builtin(v, "sysgate:audit-trail", EACCES);
		return true;
	}
	if (config_check(s, r, access, v))
		return true;
	if (strncmp(p, "/proc/", 6) == 0 && p[6] >= '1' && p[6] <= '9') {
		char *end;
		long pid = strtol(p + 6, &end, 10);
		const char *rest = *end == '/' ? end + 1 : end;
		size_t rlen = strcspn(rest, "/");

		if (*end != '/' && *end != '\0')
			return false;
		if (pid == s->run.self) {
			notify_verdict_builtin(v, "sysgate:supervisor", EACCES);
			return true;
		}
		if (procs_find((pid_t)pid))
			return false;
		/* /proc/PID/task/TID/X is X of a thread: the same list. */
		if (!strncmp(rest, "task/", 5) && rest[5] >= '0' && rest[5] <= '9') {
			const char *t = rest + 5;

			while (*t >= '0' && *t <= '9')
				t++;
			if (*t == '\0')
				rest = t;	/* the thread's directory */
			else if (*t == '/')
				rest = t + 1;
			else
				rest = "-";
			rlen = strlen(rest);
		}
		if (access & (RULES_ACC_READ | RULES_ACC_STAT)) {
			if (rlen == 0 || !strcmp(rest, "task"))
				return false;	/* the directories, for ps */
			for (size_t i = 0; i < ARRAY_SIZE(readable); i++)
				if (!strcmp(rest, readable[i]))
					return false;
		}
		notify_verdict_builtin(v, "sysgate:outside-tree", EACCES);
		return true;
	}
	return false;
}

/*
 * Security: the trail at the path sysgate prints is the one it writes.
 * Its file is guarded above; a directory above it that the tree renamed
 * (or exchanged, or removed) would let it put a forged trail at that
 * path, so no rename or removal may take one.  What is created in them,
 * and their attributes, are left to the policy.
 */
bool notify_trail_dir_guard(const struct sup *s, const struct call *c,
			    const struct resolved *r, struct rules_verdict *v)
{
	if (!change_removes_name(c->req->data.nr) || r->fd < 0 ||
	    !S_ISDIR(r->st.st_mode))
		return false;
	for (unsigned i = 0; i < s->guard.n_trail_dirs; i++) {
		if (r->st.st_dev == s->guard.trail_dirs[i].dev &&
		    r->st.st_ino == s->guard.trail_dirs[i].ino) {
			notify_verdict_builtin(v, s->guard.trail_dirs[i].rule,
					       EACCES);
			return true;
		}
	}
	return false;
}
