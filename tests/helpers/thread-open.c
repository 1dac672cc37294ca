/* SPDX-License-Identifier: MIT */
/*
 * thread-open: a second thread opens PATH for reading; the process exits
 * with the errno that thread saw.
 *
 *   thread-open PATH
 *   thread-open --own-fds DIR_A DIR_B NAME
 *
 * --own-fds: the second thread is made with clone(CLONE_THREAD) but
 * without CLONE_FILES, so it has an fd table of its own.  The leader
 * holds DIR_A as fd N; the thread puts DIR_B at the same number in its
 * table and opens NAME relative to fd N, which names DIR_B for it (and
 * DIR_A for the leader).  What it read goes to stdout.  A %d in NAME
 * is replaced by N (NAME /proc/thread-self/fd/%d/F opens F through the
 * thread's fd N as a magic link).
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>

static int result;

static void *opener(void *arg)
{
	int fd = open(arg, O_RDONLY | O_CLOEXEC);

	result = fd < 0 ? errno : 0;
	return NULL;
}

static const char *own_b;
static char own_name[256];
static int own_n;
static char own_buf[256];
static long own_len;

/* Raw syscalls only: the thread shares the leader's TLS (and errno),
 * and the kernel clears tid (CLONE_CHILD_CLEARTID) when it is gone. */
static int own_fds_thread(void *arg)
{
	long fd;

	(void)arg;
	fd = syscall(SYS_openat, AT_FDCWD, own_b,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_dup2, fd, own_n) < 0) {
		result = VICTIM_EXIT_SETUP;
		syscall(SYS_exit, 0);
	}
	fd = syscall(SYS_openat, own_n, own_name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		result = errno;
		syscall(SYS_exit, 0);
	}
	own_len = syscall(SYS_read, fd, own_buf, sizeof(own_buf));
	result = own_len < 0 ? errno : 0;
	syscall(SYS_exit, 0);
	return 0;
}

static int own_fds(const char *a, const char *b, const char *name)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	static volatile uint32_t tid;
	int flags = CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;

	own_n = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (own_n < 0)
		victim_setup_fail("open %s", a);
	own_b = b;
	/* NAME is the victim's argument, a format on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(own_name, sizeof(own_name), name, own_n);
#pragma GCC diagnostic pop
	if (clone(own_fds_thread, stack + sizeof(stack), flags, NULL,
		  &tid, NULL, &tid) < 0)
		victim_setup_fail("clone");
	/* Polled with a sleep that sets no errno (the thread's is ours). */
	while (tid != 0)
		usleep(1000);
	if (result == VICTIM_EXIT_SETUP)
		victim_setup_fail("open %s as fd %d in the thread", b, own_n);
	if (!result && own_len > 0)
		fwrite(own_buf, 1, (size_t)own_len, stdout);
	return victim_result(own_name, result);
}

int main(int argc, char **argv)
{
	pthread_t t;

	victim_name = "thread-open";
	if (argc == 5 && !strcmp(argv[1], "--own-fds"))
		return own_fds(argv[2], argv[3], argv[4]);
	if (argc != 2)
		victim_usage("PATH | --own-fds DIR_A DIR_B NAME");
	errno = pthread_create(&t, NULL, opener, argv[1]);
	if (errno)
		victim_setup_fail("pthread_create");
	pthread_join(t, NULL);
	return victim_result(argv[1], result);
}
