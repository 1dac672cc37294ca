/* SPDX-License-Identifier: MIT */
/* Private to supervisor/: starting the command under the filters. */
#ifndef SYSGATE_SUPERVISOR_LAUNCH_H
#define SYSGATE_SUPERVISOR_LAUNCH_H

#include <linux/filter.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct launch_spec {
	const char *path;            /* resolved program path */
	char *const *argv;
	char *const *envp;
	/*
	 * Builds the guard and the policy filters (malloc'd instructions,
	 * freed by launch_start; an empty guard, len 0, is not loaded),
	 * 0 or -errno.  Called in the supervisor
	 * after the fork, while the child sets itself up; the child gets
	 * them with its go byte and loads them before its execve.
	 */
	int (*build)(const void *arg, struct sock_fprog *guard,
		     struct sock_fprog *policy);
	const void *build_arg;
	int foreground_tty;          /* fd of our terminal if we are in its
				      * foreground, else -1 */
	mode_t umask;
	/* Resource limits set in the child before exec ([limits]). */
	struct {
		int resource;
		rlim_t value;
	} rlimits[4];
	unsigned n_rlimits;
	/* --user: the identity the child takes before exec. */
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

struct launch_result {
	pid_t pid;
	int listener;
	int early_status;            /* wait status if the child ended
				      * before its filter was on */
	bool build_failed;           /* the error is ls->build's */
	bool sync_wake;              /* the listener has
				      * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP */
};

/*
 * Fork and start the command seized, with the guard and policy filters
 * loaded; the child is left running into its execve (which the policy
 * decides).  Returns 0, -ECHILD if the child ended early (early_status set),
 * or -errno (the child is killed and reaped).
 */
int launch_start(const struct launch_spec *ls, struct launch_result *out);

#endif
