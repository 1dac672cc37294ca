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
 * (start-up time): launch_fork() as soon as the command is known,
 * before the policy is loaded; launch_start() once the filters can be
 * built.  The child reads the fields marked "fork" (set before
 * launch_fork, unchanged after); the rest is read by the supervisor in
 * launch_start or sent with the go message.
 */
struct launch_spec {
	const char *path;            /* fork: resolved program path */
	char *const *argv;           /* fork */
	/* fork, but it may be replaced (not changed in place) up to
	 * launch_start(): the child reads it only at its execve, which
	 * comes after launch_start() has resumed it (the policy's [env],
	 * loop.c). */
	char *const *envp;
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
	/* fork, but may be set to -1 up to launch_start() (read after the
	 * go message, as envp): when above 2, put on the command's fd 1 / 2
	 * just before its filters (the output pipes, output.c); else fd 1 /
	 * 2 stay. */
	int stdout_fd, stderr_fd;
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
	/*
	 * Called with the child's pid when its listener has been taken, the
	 * child stopped at its trap, just before it is let go on to its
	 * execve (NULL: none).
	 */
	void (*handoff)(pid_t pid, void *arg);
	void *handoff_arg;
};

/* A child forked by launch_fork, waiting for launch_start. */
struct launch_child {
	pid_t pid;                   /* -1: none */
	pid_t parent;
	int go;                      /* write end of the go pipe */
	int ready;                   /* read end of the ready pipe */
	int pidfd;                   /* once seized, else -1 */
	/* launch_go_early: the filters sent (malloc'd), which launch_start
	 * compares with those it builds. */
	bool went;
	struct sock_fprog sent_guard, sent_policy;
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

/* Start the child (clone(CLONE_VM): it shares our memory until its
 * execve, see launch.c): it resets its signals, takes its own process group
 * and waits for launch_start.  What ls points to stays as it is until
 * launch_start has returned or launch_abandon was called.  0 or -errno
 * (lc->pid is -1 then). */
int launch_fork(const struct launch_spec *ls, struct launch_child *lc);

/*
 * Seize lc's child and send it its go message now, with these filters
 * (malloc'd; lc keeps them) and no resource limits: where the filters are
 * known before the policy is loaded (the built-in policy's, compiled with
 * sysgate), the child loads them meanwhile.  launch_start then checks that
 * they are exactly what it builds for the policy loaded, with no limits
 * and no cgroup to place the child in, or starts a new child.  0, or
 * -errno (the child is then ended: launch_start starts a new one).
 */
int launch_go_early(struct launch_child *lc, struct sock_fprog *guard,
		    struct sock_fprog *policy);

/* Kill a child launch_fork made and launch_start was not given, and wait
 * for it (an error before the command could start). */
void launch_abandon(struct launch_child *lc);

/* Start lc's child (launch_fork's) under the filters: 0, or -errno with
 * the child gone (-ECHILD: it ended on its own, out->early_status). */
int launch_start(const struct launch_spec *ls, struct launch_child *lc,
		 struct launch_result *out);

#endif
