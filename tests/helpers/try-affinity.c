/* SPDX-License-Identifier: MIT */
/*
 * try-affinity FILE N CPUS: opens FILE N times in the main thread, in two
 * rounds, while a second thread looks at the main thread's CPU mask, which
 * must name CPUS CPUs at the start (what `nproc` tells outside sysgate:
 * the loader's and libc's opens before main() are bound too).
 * Under sysgate each open is carried out by the supervisor, which binds
 * the caller to its own CPU for the moment it adds the fd
 * (supervisor/cpubind.c).  What must hold, as without sysgate:
 *   - after each open, the main thread's own mask is the one it had;
 *   - round 2: the second thread sets the main thread's mask to one CPU
 *     and back to all of them, again and again, while the opens go on;
 *     each value it sets is what the mask is (a binding put back over a
 *     change would undo it for good).  A read-back may catch a binding
 *     of the moment, so it is read until it matches, at most 100,000 times.
 * Prints "bound-seen N": in round 1, how many times the second thread saw
 * the mask name one CPU it did not set (a binding; 0 without sysgate).
 * Exits 0, or 1 after naming the first broken rule.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>

static const char *file;
static long n_opens;
static pid_t main_tid;
static cpu_set_t all;		/* the main thread's mask at the start */
static atomic_long opens_done;
static atomic_int round_no;	/* 1, 2, then 3: stop */
static long bound_seen;

static void wait_opens(long more)
{
	long until = atomic_load(&opens_done) + more;

	while (atomic_load(&opens_done) < until && atomic_load(&round_no) == 2)
		;
}

static void *watcher(void *arg)
{
	cpu_set_t m, one;
	int first = -1;

	(void)arg;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			first = c;
			break;
		}
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	while (atomic_load(&round_no) == 1) {
		if (sched_getaffinity(main_tid, sizeof(m), &m) == 0 &&
		    CPU_COUNT(&m) == 1 && CPU_COUNT(&all) > 1)
			bound_seen++;
	}
	for (long i = 0; atomic_load(&round_no) == 2; i++) {
		const cpu_set_t *want = (i & 1) ? &all : &one;
		long tries;

		if (sched_setaffinity(main_tid, sizeof(*want), want) < 0) {
			victim_fail("sched_setaffinity of the main thread: %s",
			     victim_errname(errno));
			return NULL;
		}
		wait_opens(2);
		for (tries = 0; tries < 100000; tries++)
			if (sched_getaffinity(main_tid, sizeof(m), &m) == 0 &&
			    CPU_EQUAL(&m, want))
				break;
		if (tries == 100000) {
			victim_fail("set %ld: the mask set (%d CPUs) is not the thread's (%d CPUs)",
			     i, CPU_COUNT(want), CPU_COUNT(&m));
			return NULL;
		}
	}
	return NULL;
}

static void open_once(void)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		victim_setup_fail("open %s", file);
	close(fd);
	atomic_fetch_add(&opens_done, 1);
}

int main(int argc, char **argv)
{
	pthread_t t;
	cpu_set_t m;

	victim_name = "try-affinity";
	if (argc != 4)
		victim_usage("FILE N CPUS");
	file = argv[1];
	n_opens = victim_long(argv[2], "N");
	main_tid = (pid_t)syscall(SYS_gettid);
	if (sched_getaffinity(0, sizeof(all), &all) < 0)
		victim_setup_fail("sched_getaffinity");
	if (CPU_COUNT(&all) != victim_long(argv[3], "CPUS")) {
		fprintf(stderr, "try-affinity: the mask at the start names %d CPUs, not %s\n",
			CPU_COUNT(&all), argv[3]);
		return 1;
	}
	atomic_store(&round_no, 1);
	if (pthread_create(&t, NULL, watcher, NULL) != 0)
		victim_setup_fail("pthread_create");
	for (long i = 0; i < n_opens / 2; i++) {
		open_once();
		if (sched_getaffinity(0, sizeof(m), &m) < 0 || !CPU_EQUAL(&m, &all))
			victim_fail("open %ld: the thread's own mask changed (%d CPUs)",
			     i, CPU_COUNT(&m));
	}
	atomic_store(&round_no, 2);
	for (long i = n_opens / 2; i < n_opens && !victim_bad; i++)
		open_once();
	atomic_store(&round_no, 3);
	pthread_join(t, NULL);
	printf("bound-seen %ld\n", bound_seen);
	return victim_bad;
}
