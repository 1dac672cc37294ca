/* SPDX-License-Identifier: MIT */
/* Private to supervisor/: starting the command under the filters. */
#ifndef SYSGATE_SUPERVISOR_LAUNCH_H
#define SYSGATE_SUPERVISOR_LAUNCH_H

#include <linux/filter.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

/*
 * Two steps, so that the child's set-up overlaps the supervisor's own
 * (issue 5: start-up): launch_fork() as soon as the command is known,
 * before the policy is loaded; launch_start() once the filters can be
 * built.  The child copies the spec at the fork: what it reads (marked
 * "fork") must be set before launch_fork; the rest is read by the
 * supervisor in launch_start or sent with the go message.
 */
struct launch_spec {
	const char *path;            /* fork: resolved program path */
	char *const *argv;           /* fork */
	char *const *envp;           /* fork */
	/*
	 * Builds the guard and the policy filters (malloc'd instructions,
	 * freed by launch_start; an empty guard, len 0, is not loaded),
	 * 0 or -errno.  Called in the supervisor by launch_start, while the
	 * child may still be setting itself up; the child gets them with
	 * its go byte and loads them before its execve.
	 */
	int (*build)(const void *arg, struct sock_fprog *guard,
		     struct sock_fprog *policy);
	const void *build_arg;
	int foreground_tty;          /* fork: fd of our terminal if we are in
				      * its foreground, else -1 */
	mode_t umask;                /* fork */
	/* Resource limits set in the child before exec ([limits]), sent
	 * with the go message. */
	struct launch_rlimit {
		int resource;
		rlim_t value;
	} rlimits[4];
	unsigned n_rlimits;
	/* fork: --user, the identity the child takes before exec. */
	bool set_user;
	uid_t uid;
	gid_t gid;
	int n_groups;
	const gid_t *groups;
	/*
	 * Called with the child's pid once its set-up is done and before it
	 * goes on to its filter and execve (NULL: none): puts it in the
	 * run's cgroups.  0, or -errno: then the child is killed and
	 * launch_start returns the error.
	 */
	int (*place)(pid_t pid, void *arg);
	void *place_arg;
};

/* A child forked by launch_fork, waiting for launch_start. */
struct launch_child {
	pid_t pid;                   /* -1: none */
	pid_t parent;
	int go;                      /* write end of the go pipe */
	int ready;                   /* read end of the ready pipe */
};

struct launch_result {
	pid_t pid;
	int listener;
	int early_status;            /* wait status if the child ended
				      * before its filter was on */
	bool build_failed;           /* the error is ls->build's */
	bool sync_wake;              /* the listener has
				      * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP */
};

/* Fork the child: it resets its signals, takes its own process group and
 * waits for launch_start.  0 or -errno (lc->pid is -1 then). */
int launch_fork(const struct launch_spec *ls, struct launch_child *lc);

/* Kill a child launch_fork made and launch_start was not given, and wait
 * for it (an error before the command could start). */
void launch_abandon(struct launch_child *lc);

/* Start lc's child (launch_fork's) under the filters: 0, or -errno with
 * the child gone (-ECHILD: it ended on its own, out->early_status). */
int launch_start(const struct launch_spec *ls, struct launch_child *lc,
		 struct launch_result *out);

#endif
