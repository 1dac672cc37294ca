/* SPDX-License-Identifier: MIT */
/*
 * thread-open: a second thread opens PATH for reading; the process exits
 * with the errno that thread saw.
 *
 *   thread-open PATH
 *   thread-open --own-fds DIR_A DIR_B NAME
 *   thread-open --own-fds-reopen FILE_RO FILE_RW
 *
 * --own-fds: the second thread is made with clone(CLONE_THREAD) but
 * without CLONE_FILES, so it has an fd table of its own.  The leader
 * holds DIR_A as fd N, and so, in its copy of the table, does the
 * thread: it opens NAME relative to fd N (DIR_A), then puts DIR_B at the
 * same number in its table and opens NAME relative to fd N again, which
 * names DIR_B for it now.  When the thread is gone, the leader opens
 * NAME relative to its fd N, DIR_A.  What each open read goes to stdout.  A %d in NAME is replaced by N (NAME
 * /proc/thread-self/fd/%d/F opens F through the thread's fd N as a magic
 * link).
 *
 * --own-fds-reopen: the thread holds FILE_RO read-only as fd N, the leader
 * holds FILE_RW read-write as its fd N; the thread opens
 * /proc/thread-self/fd/N for writing (its own file, which it may not
 * write) and writes THREAD to it.
 */
#include "victim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/syscall.h>

/* Written by the other thread: volatile, so that no store is dropped. */
static volatile int result;

static void *opener(void *arg)
{
	int fd = open(arg, O_RDONLY | O_CLOEXEC);

	result = fd < 0 ? errno : 0;
	return NULL;
}

static const char *own_b;
static char own_name[256];
static int own_n;
static char own_buf[512];
static long own_len;

/* Open own_name relative to fd own_n and append what it holds to
 * own_buf: 0 or an errno. */
static int own_fds_read(void)
{
	long fd = syscall(SYS_openat, own_n, own_name, O_RDONLY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return errno;
	n = syscall(SYS_read, fd, own_buf + own_len,
		    sizeof(own_buf) - (size_t)own_len);
	syscall(SYS_close, fd);
	if (n < 0)
		return errno;
	own_len += n;
	return 0;
}

/* Raw syscalls only: the thread shares the leader's TLS (and errno). */
static int own_fds_thread(void *arg)
{
	long fd;

	(void)arg;
	result = own_fds_read();
	if (result)
		goto out;
	fd = syscall(SYS_openat, AT_FDCWD, own_b,
		     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_dup2, fd, own_n) < 0) {
		result = VICTIM_EXIT_SETUP;
		goto out;
	}
	result = own_fds_read();
out:
	/* The thread alone ends; its result is read by the leader. */
	syscall(SYS_exit, 0);
	return 0;
}

static volatile int reopen_go;

/* The leader has swapped its fd N; the thread's is still FILE_RO. */
static int reopen_thread(void *arg)
{
	const struct timespec ms = { 0, 1000000 };
	char link[64];
	long fd;

	(void)arg;
	while (!reopen_go)
		syscall(SYS_nanosleep, &ms, NULL);
	snprintf(link, sizeof(link), "/proc/thread-self/fd/%d", own_n);
	fd = syscall(SYS_openat, AT_FDCWD, link, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		result = errno;
	else
		result = syscall(SYS_write, fd, "THREAD\n", 7) == 7 ? 0 : errno;
	syscall(SYS_exit, 0);
	return 0;
}

static char thread_stack[64 * 1024] __attribute__((aligned(16)));
static volatile uint32_t thread_tid;

/* Start fn on a thread with an fd table of its own (no CLONE_FILES) and
 * wait until it is gone (CLONE_CHILD_CLEARTID), polling with a sleep
 * that sets no errno (the thread's is ours). */
static void thread_start(int (*fn)(void *))
{
	int flags = CLONE_VM | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD |
		    CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;

	if (clone(fn, thread_stack + sizeof(thread_stack), flags, NULL,
		  &thread_tid, NULL, &thread_tid) < 0)
		victim_setup_fail("clone");
}

static void thread_wait(void)
{
	while (thread_tid != 0)
		usleep(1000);
}

static int own_fds_reopen(const char *ro, const char *rw)
{
	int fd;

	own_n = open(ro, O_RDONLY | O_CLOEXEC);
	if (own_n < 0)
		victim_setup_fail("open %s", ro);
	thread_start(reopen_thread);
	fd = open(rw, O_RDWR | O_CLOEXEC);
	if (fd < 0 || dup2(fd, own_n) < 0)
		victim_setup_fail("open %s as fd %d", rw, own_n);
	close(fd);
	reopen_go = 1;
	thread_wait();
	return victim_result("/proc/thread-self/fd/N", result);
}

static int own_fds(const char *a, const char *b, const char *name)
{

	own_n = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (own_n < 0)
		victim_setup_fail("open %s", a);
	own_b = b;
	/* NAME is the victim's argument, a format on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(own_name, sizeof(own_name), name, own_n);
#pragma GCC diagnostic pop
	thread_start(own_fds_thread);
	thread_wait();
	if (result == VICTIM_EXIT_SETUP)
		victim_setup_fail("open %s as fd %d in the thread", b, own_n);
	if (!result)
		result = own_fds_read();
	if (own_len > 0)
		fwrite(own_buf, 1, (size_t)own_len, stdout);
	return victim_result(own_name, result);
}

int main(int argc, char **argv)
{
	pthread_t t;

	victim_name = "thread-open";
	if (argc == 5 && !strcmp(argv[1], "--own-fds"))
		return own_fds(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "--own-fds-reopen"))
		return own_fds_reopen(argv[2], argv[3]);
	if (argc != 2)
		victim_usage("PATH | --own-fds DIR_A DIR_B NAME | "
			     "--own-fds-reopen FILE_RO FILE_RW");
	errno = pthread_create(&t, NULL, opener, argv[1]);
	if (errno)
		victim_setup_fail("pthread_create");
	pthread_join(t, NULL);
	return victim_result(argv[1], result);
}
