/* SPDX-License-Identifier: MIT */
/*
 * race-exec: the TOCTOU attacker on execve.  For SECONDS, fork a child that
 * starts a thread flipping a path buffer between ALLOWED and DENIED and
 * execs whatever the buffer holds (argv: the path, "10"), retrying while
 * exec fails.  ALLOWED should be a copy of exit-with (exits 10), DENIED a
 * copy of kill-self (dies of signal 10, SIGUSR1): the parent tells from
 * each child's status which program really ran.  Exit 1 (and say so) if
 * the denied program EVER ran; a child killed by SIGKILL or SIGSYS (the
 * supervisor caught the swap at the exec stop) is fine.
 *
 *   race-exec ALLOWED DENIED SECONDS
 *
 * Give ALLOWED and DENIED the same length.
 */
#include "victim.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define TRIES_PER_CHILD 2000

static char path[4096];
static const char *paths[2];
static size_t lens[2];

static void *flipper(void *arg)
{
	volatile char *buf = path;
	unsigned long i;

	(void)arg;
	for (i = 0;; i++) {
		const char *src = paths[i & 1];
		size_t k;

		for (k = 0; k < lens[i & 1] + 1; k++)
			buf[k] = src[k];
	}
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long children = 0, allowed = 0, denied = 0, killed = 0,
		      failed = 0, other = 0;
	double end;

	victim_name = "race-exec";
	if (argc != 4)
		victim_usage("ALLOWED DENIED SECONDS");
	paths[0] = argv[1];
	paths[1] = argv[2];
	lens[0] = strlen(argv[1]);
	lens[1] = strlen(argv[2]);
	if (lens[0] >= sizeof path || lens[1] >= sizeof path)
		victim_usage("ALLOWED DENIED SECONDS (paths too long)");
	end = now() + victim_long(argv[3], "seconds");
	while (now() < end) {
		pid_t c = fork();
		int st;

		if (c < 0)
			victim_setup_fail("fork");
		if (c == 0) {
			pthread_t t;
			char *args[] = { path, (char *)"10", NULL };
			int k;

			memcpy(path, paths[0], lens[0] + 1);
			if (pthread_create(&t, NULL, flipper, NULL))
				_exit(VICTIM_EXIT_SETUP);
			for (k = 0; k < TRIES_PER_CHILD; k++)
				execv(path, args);
			_exit(200);
		}
		children++;
		if (waitpid(c, &st, 0) != c)
			victim_setup_fail("waitpid");
		if (WIFEXITED(st) && WEXITSTATUS(st) == 10)
			allowed++;
		else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1)
			denied++;
		else if (WIFSIGNALED(st) &&
			 (WTERMSIG(st) == SIGKILL || WTERMSIG(st) == SIGSYS))
			killed++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 200)
			failed++;
		else
			other++;
	}
	fprintf(stderr,
		"race-exec: %lu children: %lu ran the allowed program, %lu the "
		"DENIED one, %lu killed, %lu never got an exec through, "
		"%lu other\n", children, allowed, denied, killed, failed, other);
	if (denied) {
		printf("race-exec: THE DENIED PROGRAM RAN %lu times\n", denied);
		return 1;
	}
	if (!allowed) {
		errno = 0;
		victim_setup_fail("the allowed program never ran");
	}
	return 0;
}
