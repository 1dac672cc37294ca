/* SPDX-License-Identifier: MIT */
/*
 * stack-victim: main -> level1 -> level2 -> level3 -> open(PATH), so that a
 * `stack = yes` rule has a known stack to record.  Built twice: with -O0
 * and frame pointers, and a stripped copy (tests/Makefile.inc).  Exits
 * with the errno the open saw (0 when it succeeded).
 *
 *   stack-victim [-n COUNT] [-t THREADS] PATH
 *
 * -n: open COUNT times (each call has its own record and stack);
 * -t: THREADS threads do it at once (main only waits): the errno must be
 * the same in all of them, else the exit is VICTIM_EXIT_SETUP.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>

/*
 * The frames must stay what the source says whatever CFLAGS the build
 * adds (-O2 turns the chain into tail calls): no optimisation here, and
 * the attributes and the barrier after each call as a second guard.
 */
#if defined(__clang__)
#pragma clang optimize off
#elif defined(__GNUC__)
#pragma GCC optimize("O0")
#endif

#define BARRIER() __asm__ __volatile__("" ::: "memory")

static const char *path;
static long count = 1;

__attribute__((noinline)) static int level3(const char *p)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	int err = fd < 0 ? errno : 0;

	BARRIER();
	if (fd >= 0)
		close(fd);
	return err;
}

__attribute__((noinline)) static int level2(const char *p)
{
	int err = level3(p);

	BARRIER();
	return err;
}

__attribute__((noinline)) static int level1(const char *p)
{
	int err = level2(p);

	BARRIER();
	return err;
}

static void *opener(void *arg)
{
	int err = 0;

	(void)arg;
	for (long i = 0; i < count; i++)
		err = level1(path);
	return (void *)(long)err;
}

int main(int argc, char **argv)
{
	long threads = 0;
	int opt;
	int err;

	victim_name = "stack-victim";
	while ((opt = getopt(argc, argv, "n:t:")) != -1) {
		switch (opt) {
		case 'n':
			count = victim_long(optarg, "count");
			break;
		case 't':
			threads = victim_long(optarg, "thread count");
			break;
		default:
			victim_usage("[-n COUNT] [-t THREADS] PATH");
		}
	}
	if (optind != argc - 1 || count < 1 || threads < 0 || threads > 64)
		victim_usage("[-n COUNT] [-t THREADS] PATH");
	path = argv[optind];
	if (threads == 0) {
		err = 0;
		for (long i = 0; i < count; i++)
			err = level1(path);
		BARRIER();
		return victim_result(path, err);
	}

	pthread_t t[64];
	int first = -1;

	for (long i = 0; i < threads; i++) {
		errno = pthread_create(&t[i], NULL, opener, NULL);
		if (errno)
			victim_setup_fail("pthread_create");
	}
	for (long i = 0; i < threads; i++) {
		void *res;

		pthread_join(t[i], &res);
		err = (int)(long)res;
		if (first >= 0 && err != first) {
			fprintf(stderr, "stack-victim: threads saw %d and %d\n",
				first, err);
			return VICTIM_EXIT_SETUP;
		}
		first = err;
	}
	return victim_result(path, first);
}
