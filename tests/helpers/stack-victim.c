/* SPDX-License-Identifier: MIT */
/*
 * stack-victim: main -> level1 -> level2 -> level3 -> open(PATH), so that a
 * `stack = yes` rule has a known stack to record.  Built twice: with -O0
 * and frame pointers, and a stripped copy (tests/Makefile.inc).  Exits
 * with the errno the open saw (0 when it succeeded).
 *
 *   stack-victim [-n COUNT] [-t THREADS] [-s] PATH
 *
 * -n: open COUNT times (each call has its own record and stack);
 * -t: THREADS threads do it at once (main only waits): the errno must be
 * the same in all of them, else the exit is VICTIM_EXIT_SETUP;
 * -s: a SIGALRM every 100 us meanwhile, with a handler installed without
 * SA_RESTART; the exit is VICTIM_EXIT_SETUP if no alarm came before the
 * calls were done.  An open that fails with EINTR is tried again (counted
 * apart): a notified call that a signal interrupts before the supervisor
 * has received it fails with EINTR, with no decision and no record.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/time.h>

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
static volatile sig_atomic_t alarms;
static bool alarm_on;
static long eintr;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void start_alarms(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = {
		.it_interval = { .tv_usec = 100 },
		.it_value = { .tv_usec = 100 },
	};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0 ||
	    setitimer(ITIMER_REAL, &it, NULL) < 0)
		victim_setup_fail("SIGALRM timer");
}

__attribute__((noinline)) static int level3(const char *p)
{
	int fd;

	while ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0 && errno == EINTR &&
	       alarm_on)
		__atomic_add_fetch(&eintr, 1, __ATOMIC_RELAXED);

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

/* With -s: did an alarm come while the calls ran? */
static bool alarm_check(void)
{
	if (alarm_on) {
		struct itimerval off = { 0 };

		setitimer(ITIMER_REAL, &off, NULL);
		if (alarms == 0) {
			fprintf(stderr, "stack-victim: no SIGALRM came\n");
			return false;
		}
		fprintf(stderr, "stack-victim: %d SIGALRM, %ld opens tried again after EINTR\n",
			(int)alarms, __atomic_load_n(&eintr, __ATOMIC_RELAXED));
	}
	return true;
}

int main(int argc, char **argv)
{
	long threads = 0;
	int opt;
	int err;

	victim_name = "stack-victim";
	while ((opt = getopt(argc, argv, "n:t:s")) != -1) {
		switch (opt) {
		case 'n':
			count = victim_long(optarg, "count");
			break;
		case 't':
			threads = victim_long(optarg, "thread count");
			break;
		case 's':
			alarm_on = true;
			break;
		default:
			victim_usage("[-n COUNT] [-t THREADS] [-s] PATH");
		}
	}
	if (optind != argc - 1 || count < 1 || threads < 0 || threads > 64)
		victim_usage("[-n COUNT] [-t THREADS] [-s] PATH");
	path = argv[optind];
	if (alarm_on)
		start_alarms();
	if (threads == 0) {
		err = 0;
		for (long i = 0; i < count; i++)
			err = level1(path);
		BARRIER();
		return alarm_check() ? victim_result(path, err) :
					       VICTIM_EXIT_SETUP;
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
	return alarm_check() ? victim_result(path, first) :
				       VICTIM_EXIT_SETUP;
}
