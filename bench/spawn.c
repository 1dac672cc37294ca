/* SPDX-License-Identifier: MIT */
/*
 * bench-spawn procs|threads N HOLD_MS: make N processes (children that exec
 * cat, reading a pipe) or N threads (waiting on a barrier), keep them all
 * alive for HOLD_MS, then end them and reap them.  For the supervisor memory table:
 * at the peak the supervisor tracks N + 1 live tasks.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPAWN_MAX 100000
#define SPAWN_PROGRAM "/bin/cat"

static pthread_barrier_t start, stop;

static void hold(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int spawn_procs(long n, long hold_ms)
{
	int p[2];
	long made = 0;

	if (pipe(p) < 0)
		return -errno;
	for (; made < n; made++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "bench-spawn: fork %ld: %s\n", made + 1,
				strerror(errno));
			break;
		}
		if (pid == 0) {
			/* A real program, as in a build: cat reads the pipe
			 * and ends at EOF, when the parent closes its end. */
			close(p[1]);
			if (dup2(p[0], STDIN_FILENO) < 0)
				_exit(127);
			execl(SPAWN_PROGRAM, "cat", (char *)NULL);
			_exit(127);
		}
	}
	hold(hold_ms);
	close(p[1]);
	close(p[0]);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return made == n ? 0 : -EAGAIN;
}

static void *waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&stop);
	return NULL;
}

static int spawn_threads(long n, long hold_ms)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	long made = 0;

	if (!t)
		return -ENOMEM;
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_barrier_init(&stop, NULL, (unsigned)n + 1);
	for (; made < n; made++) {
		int e = pthread_create(&t[made], NULL, waiter, NULL);

		if (e) {
			fprintf(stderr, "bench-spawn: thread %ld: %s\n", made + 1,
				strerror(e));
			/* The barriers would never open: give up at once. */
			_exit(1);
		}
	}
	pthread_barrier_wait(&start);
	hold(hold_ms);
	pthread_barrier_wait(&stop);
	for (long i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	long n, hold_ms;
	int r;

	if (argc != 4 || (strcmp(argv[1], "procs") && strcmp(argv[1], "threads"))) {
		fprintf(stderr, "usage: bench-spawn procs|threads N HOLD_MS\n");
		return 2;
	}
	n = atol(argv[2]);
	hold_ms = atol(argv[3]);
	if (n < 1 || n > SPAWN_MAX || hold_ms < 0) {
		fprintf(stderr, "bench-spawn: N must be 1..%d\n", SPAWN_MAX);
		return 2;
	}
	r = !strcmp(argv[1], "procs") ? spawn_procs(n, hold_ms) :
					spawn_threads(n, hold_ms);
	return r < 0 ? 1 : 0;
}
