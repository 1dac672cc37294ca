/* SPDX-License-Identifier: MIT */
/*
 * try-kept FILE ROUNDS: in each round, opens FILE 40 times in a row, alone
 * (a run of calls from one caller), then does one thing right after the
 * last open:
 *   - reads its own mask back (sched_getaffinity);
 *   - forks a child, which reads its mask;
 *   - starts a thread, which reads its mask;
 *   - looks at Cpus_allowed_list in /proc (read(2) of a file opened
 *     before: not a call the supervisor sees).
 * Under sysgate a run's caller stays bound to the supervisor's CPU between
 * its calls (supervisor/cpubind.c).  What must hold, as without sysgate:
 * every mask read, the thread's own, its child's and its new thread's, is
 * the one the process started with.  The /proc look shows the binding
 * (it may name one CPU): "kept-seen N" counts the rounds where it did,
 * and "fork-kept N" / "thread-kept N" the forks and threads started while
 * it did (read just before), so that a test can tell that the case was
 * met.  Last, the thread sets its own mask to one CPU after a run and
 * opens on: the mask stays the one it set.
 * Exits 0, or 1 after naming the first broken rule.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static const char *file;
static cpu_set_t start_mask;
static int status_fd;

static void run_of_opens(void)
{
	for (int i = 0; i < 40; i++) {
		int fd = open(file, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			victim_setup_fail("open %s", file);
		close(fd);
	}
}

/* Does /proc say this thread's mask names one CPU?  No notified call. */
static bool proc_one_cpu(void)
{
	char buf[4096];
	ssize_t n = pread(status_fd, buf, sizeof(buf) - 1, 0);
	const char *l;

	if (n <= 0)
		victim_setup_fail("read of /proc/self/task/TID/status");
	buf[n] = '\0';
	l = strstr(buf, "Cpus_allowed_list:");
	if (!l)
		victim_setup_fail("no Cpus_allowed_list in the status");
	l += strlen("Cpus_allowed_list:");
	while (*l == ' ' || *l == '\t')
		l++;
	/* One CPU: a number alone. */
	return strspn(l, "0123456789") == strcspn(l, "\n");
}

static int mask_count(void)
{
	cpu_set_t m;

	if (sched_getaffinity(0, sizeof(m), &m) < 0)
		return -errno;
	return CPU_EQUAL(&m, &start_mask) ? 0 : CPU_COUNT(&m);
}

static void *thread_main(void *arg)
{
	*(int *)arg = mask_count();
	return NULL;
}

int main(int argc, char **argv)
{
	char path[64];
	long rounds, kept_seen = 0, fork_kept = 0, thread_kept = 0;
	cpu_set_t one;
	int cpu = -1;

	victim_name = "try-kept";
	if (argc != 3)
		victim_usage("FILE ROUNDS");
	file = argv[1];
	rounds = victim_long(argv[2], "ROUNDS");
	if (sched_getaffinity(0, sizeof(start_mask), &start_mask) < 0)
		victim_setup_fail("sched_getaffinity");
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status",
		 (long)syscall(SYS_gettid));
	status_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (status_fd < 0)
		victim_setup_fail("open %s", path);
	for (long r = 0; r < rounds && !victim_bad; r++) {
		int got;
		bool kept;
		pid_t pid;
		pthread_t t;

		run_of_opens();
		got = mask_count();
		if (got)
			victim_fail("round %ld: its own mask after a run of opens names %d CPUs, not its own",
			     r, got);

		run_of_opens();
		kept = proc_one_cpu();
		pid = fork();
		if (pid < 0)
			victim_setup_fail("fork");
		if (pid == 0)
			_exit(mask_count() == 0 ? 0 : 1);
		if (waitpid(pid, &got, 0) != pid)
			victim_setup_fail("waitpid");
		if (!WIFEXITED(got) || WEXITSTATUS(got) != 0)
			victim_fail("round %ld: a child forked after a run of opens has another mask than its parent's", r);
		fork_kept += kept;

		run_of_opens();
		kept = proc_one_cpu();
		if (pthread_create(&t, NULL, thread_main, &got) != 0)
			victim_setup_fail("pthread_create");
		pthread_join(t, NULL);
		if (got)
			victim_fail("round %ld: a thread started after a run of opens has a mask of %d CPUs, not its own",
			     r, got);
		thread_kept += kept;

		run_of_opens();
		kept_seen += proc_one_cpu();
	}
	/* Its own one-CPU mask, set after a run: not undone. */
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &start_mask)) {
			cpu = c;
			break;
		}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	run_of_opens();
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		victim_setup_fail("sched_setaffinity");
	run_of_opens();
	/* Time for the supervisor to let a kept binding go (it would put
	 * the mask it saved back over this one). */
	usleep(20000);
	{
		cpu_set_t m;

		if (sched_getaffinity(0, sizeof(m), &m) < 0 || !CPU_EQUAL(&m, &one))
			victim_fail("the mask it set itself (CPU %d) was changed (%d CPUs)",
			     cpu, CPU_COUNT(&m));
	}
	printf("kept-seen %ld\nfork-kept %ld\nthread-kept %ld\n", kept_seen,
	       fork_kept, thread_kept);
	return victim_bad;
}
