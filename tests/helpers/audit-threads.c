/* SPDX-License-Identifier: MIT */
/*
 * audit-threads: load for the audit trail.  NTHREADS threads start
 * together; thread T makes COUNT calls on the paths DIR/tT-0, DIR/tT-1, ...
 * in order, so the trail can be checked for per-thread order.
 *
 *   audit-threads create DIR NTHREADS COUNT   create each file (O_EXCL)
 *   audit-threads open DIR NTHREADS COUNT     open each path for reading
 *                                             (missing or denied is fine)
 *
 * COUNT 0 means without end (until killed).  In create mode a thread
 * stops at its first failure (the supervisor is gone, the disk is full)
 * and says so on stderr.  Exits 0, or VICTIM_EXIT_SETUP.  Prints the
 * number of calls that succeeded per thread on stdout at the end.
 */
#include "victim.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>

#define MAX_THREADS 256

struct worker {
	pthread_t thread;
	unsigned id;
	unsigned long ok;
	int err;
};

static const char *dir;
static bool create_mode;
static unsigned long count;
static pthread_barrier_t start;

static void *work(void *arg)
{
	struct worker *w = arg;
	char path[PATH_MAX];

	pthread_barrier_wait(&start);
	for (unsigned long i = 0; count == 0 || i < count; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/t%u-%lu", dir, w->id, i);
		if (create_mode)
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				  0644);
		else
			fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (create_mode) {
				w->err = errno;
				fprintf(stderr, "audit-threads: %s: %s\n", path,
					victim_errname(errno));
				break;
			}
			continue;
		}
		close(fd);
		w->ok++;
	}
	return NULL;
}

static unsigned long number(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v > max)
		victim_usage("create|open DIR NTHREADS COUNT");
	return v;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	unsigned n;

	victim_name = "audit-threads";
	if (argc != 5 || (strcmp(argv[1], "create") && strcmp(argv[1], "open")))
		victim_usage("create|open DIR NTHREADS COUNT");
	create_mode = !strcmp(argv[1], "create");
	dir = argv[2];
	n = (unsigned)number(argv[3], MAX_THREADS);
	count = number(argv[4], ULONG_MAX);
	if (n == 0)
		victim_usage("create|open DIR NTHREADS COUNT");
	errno = pthread_barrier_init(&start, NULL, n);
	if (errno)
		victim_setup_fail("pthread_barrier_init");
	for (unsigned i = 0; i < n; i++) {
		w[i].id = i;
		errno = pthread_create(&w[i].thread, NULL, work, &w[i]);
		if (errno)
			victim_setup_fail("pthread_create");
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	for (unsigned i = 0; i < n; i++)
		printf("t%u %lu%s%s\n", w[i].id, w[i].ok, w[i].err ? " " : "",
		       w[i].err ? victim_errname(w[i].err) : "");
	return 0;
}
