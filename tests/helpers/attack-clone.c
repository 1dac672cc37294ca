/* SPDX-License-Identifier: MIT */
/*
 * attack-clone: start a process sysgate does not trace.  The child, if
 * one is ever created, creates MARKER (mkdir, no open: as untraced as it
 * gets) and exits; the test checks from outside that MARKER does not
 * exist.  Exits with the errno the clone call gave (0: a child ran).
 *
 *   attack-clone clone3 MARKER            clone3 (sysgate: ENOSYS)
 *   attack-clone untraced MARKER          clone(CLONE_UNTRACED|SIGCHLD)
 *   attack-clone untraced-vfork MARKER    clone(CLONE_UNTRACED|CLONE_VFORK|CLONE_VM)
 *   attack-clone untraced-thread MARKER   clone(CLONE_UNTRACED|CLONE_THREAD|...)
 */
#include "victim.h"

#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static const char *marker;

static int child_fn(void *arg)
{
	(void)arg;
	syscall(SYS_mkdir, marker, 0755);
	syscall(SYS_exit, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long r;
	int st;
	const char *op;

	victim_name = "attack-clone";
	if (argc != 3)
		victim_usage("clone3|untraced|untraced-vfork|untraced-thread MARKER");
	op = argv[1];
	marker = argv[2];
	if (!strcmp(op, "clone3")) {
		struct clone_args ca;

		memset(&ca, 0, sizeof ca);
		ca.exit_signal = SIGCHLD;
		r = syscall(SYS_clone3, &ca, sizeof ca);
		if (r == 0) {
			syscall(SYS_mkdir, marker, 0755);
			_exit(0);
		}
	} else if (!strcmp(op, "untraced")) {
		r = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0L, NULL,
			    NULL, 0L);
		if (r == 0) {
			syscall(SYS_mkdir, marker, 0755);
			_exit(0);
		}
	} else {
		static char stack[65536] __attribute__((aligned(16)));
		int flags = CLONE_UNTRACED | CLONE_VM;

		if (!strcmp(op, "untraced-vfork"))
			flags |= CLONE_VFORK | SIGCHLD;
		else if (!strcmp(op, "untraced-thread"))
			flags |= CLONE_THREAD | CLONE_SIGHAND | CLONE_FS |
				 CLONE_FILES;
		else
			victim_usage("clone3|untraced|untraced-vfork|untraced-thread MARKER");
		r = clone(child_fn, stack + sizeof stack, flags, NULL);
		if (r > 0 && (flags & CLONE_THREAD))
			usleep(200000);
	}
	if (r > 0 && waitpid((pid_t)r, &st, __WALL) < 0 && errno != ECHILD)
		victim_setup_fail("waitpid");
	if (r > 0)
		printf("attack-clone: %s: a child ran (%ld)\n", op, r);
	return victim_result(op, r < 0 ? errno : 0);
}
