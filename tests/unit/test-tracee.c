/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test-tracee.c: CUnit tests of supervisor/procs.c (the process
 * table) and of supervisor/tracee.c where it needs no ptrace stop: strings
 * read from another task's memory, the fd of a task's own table taken by
 * pidfd_getfd with the pidfd kept in the table, whether an fd table is
 * shared (and a kernel without PIDFD_THREAD, made with a seccomp filter),
 * the pid behind a pidfd, and credentials (a thread's, as /proc shows
 * them and as the thread reads them; as root, a switch to nobody's on
 * one thread and back, which the other threads do not see).  The "tracee" is this process and
 * its threads: pidfd_getfd, process_vm_readv and kcmp are allowed on
 * one's own thread group, so no privilege is needed.  The rest of the
 * supervisor is not linked: the one function procs.c calls into it is
 * a stub below.
 */
#include "config.h"

#include <CUnit/Basic.h>
#include <linux/capability.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <seccomp.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervisor/procs.h"
#include "supervisor/record.h"
#include "supervisor/tracee.h"
#include "tests/unit/unit.h"

/* What procs_add() calls in the rest of the supervisor. */
uint64_t sup_now_us(void)
{
	return 0;
}

/* ------------------------------------------------------------------ */
/* The process table                                                    */

#define MANY 3000
#define BASE_TID 4000000 /* above pid_max's default: no live task */

static void count_each(struct proc *p, void *arg)
{
	(void)p;
	(*(unsigned *)arg)++;
}

static void test_procs_table(void)
{
	unsigned before = procs_count(), seen = 0;

	/* Thread groups of four: tid BASE+i belongs to BASE+(i & ~3). */
	for (pid_t i = 0; i < MANY; i++) {
		struct proc *p = procs_add(BASE_TID + i, BASE_TID + (i & ~3), 1);

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(p->pidfd, -1);
		CU_ASSERT_EQUAL(p->root_fd, -1);
		CU_ASSERT_EQUAL(p->cwd_fd, -1);
	}
	CU_ASSERT_EQUAL(procs_count(), before + MANY);
	/* Adding again returns the entry there, unchanged. */
	CU_ASSERT_PTR_EQUAL(procs_add(BASE_TID + 5, 7, 7), procs_find(BASE_TID + 5));
	CU_ASSERT_EQUAL(procs_find(BASE_TID + 5)->tgid, BASE_TID + 4);
	CU_ASSERT_EQUAL(procs_count(), before + MANY);
	for (pid_t i = 0; i < MANY; i++) {
		struct proc *p = procs_find(BASE_TID + i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(p->tid, BASE_TID + i);
		CU_ASSERT_EQUAL(p->tgid, BASE_TID + (i & ~3));
	}
	procs_each(count_each, &seen);
	CU_ASSERT_EQUAL(seen, before + MANY);

	/* A tree tgid: a leader's tid, not a thread's, not once exited. */
	CU_ASSERT_TRUE(procs_is_tree_tgid(BASE_TID + 8));
	CU_ASSERT_FALSE(procs_is_tree_tgid(BASE_TID + 9));
	procs_find(BASE_TID + 8)->exited = true;
	CU_ASSERT_FALSE(procs_is_tree_tgid(BASE_TID + 8));
	CU_ASSERT_FALSE(procs_is_tree_tgid(BASE_TID + MANY));

	/* The exe name is a copy. */
	{
		char name[] = "/usr/bin/one";
		struct proc *p = procs_find(BASE_TID + 1);

		procs_set_exe(p, name);
		name[0] = 'X';
		CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/one");
		procs_set_exe(p, "/usr/bin/two");
		CU_ASSERT_STRING_EQUAL(p->exe, "/usr/bin/two");
	}

	for (pid_t i = 1; i < MANY; i += 2)
		procs_del(BASE_TID + i);
	procs_del(BASE_TID + MANY);	/* not there: nothing happens */
	CU_ASSERT_EQUAL(procs_count(), before + MANY / 2);
	for (pid_t i = 0; i < MANY; i++)
		CU_ASSERT_EQUAL(procs_find(BASE_TID + i) != NULL, i % 2 == 0);
	for (pid_t i = 0; i < MANY; i += 2)
		procs_del(BASE_TID + i);
	CU_ASSERT_EQUAL(procs_count(), before);
}

/* ------------------------------------------------------------------ */
/* Strings from a task's memory                                         */

static void test_read_str(void)
{
	static const char hello[] = "hello, tracee";
	long page = sysconf(_SC_PAGESIZE);
	char buf[64];
	char *map;

	CU_ASSERT_EQUAL(tracee_read_str(getpid(), (uintptr_t)hello, buf, sizeof(buf)),
			(ssize_t)strlen(hello));
	CU_ASSERT_STRING_EQUAL(buf, hello);
	/* Room for exactly the string and its NUL, and one byte less. */
	CU_ASSERT_EQUAL(tracee_read_str(getpid(), (uintptr_t)hello, buf, sizeof(hello)),
			(ssize_t)strlen(hello));
	CU_ASSERT_EQUAL(tracee_read_str(getpid(), (uintptr_t)hello, buf, sizeof(hello) - 1),
			-ENAMETOOLONG);
	CU_ASSERT_EQUAL(buf[sizeof(hello) - 2], '\0');
	CU_ASSERT_EQUAL(tracee_read_str(getpid(), (uintptr_t)hello, buf, 0), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(tracee_read_str(getpid(), 0, buf, sizeof(buf)), -EFAULT);

	/* A string that ends at the last byte of a page followed by an
	 * unmapped one is read whole; one that runs on into it is a bad
	 * pointer, as the kernel would say. */
	map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(map != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(munmap(map + page, (size_t)page), 0);
	memset(map, 'a', (size_t)page);
	map[page - 1] = '\0';
	CU_ASSERT_EQUAL(tracee_read_str(getpid(), (uintptr_t)(map + page - 10), buf, sizeof(buf)), 9);
	CU_ASSERT_STRING_EQUAL(buf, "aaaaaaaaa");
	map[page - 1] = 'a';
	CU_ASSERT_EQUAL(tracee_read_str(getpid(), (uintptr_t)(map + page - 10), buf, sizeof(buf)),
			-EFAULT);
	munmap(map, (size_t)page);
}

/* ------------------------------------------------------------------ */
/* Fds of a task's own table                                            */

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/*
 * A thread that shares the leader's table until told to unshare it, then
 * holds file_b as fd n, then file_c as fd n: each step when the test posts
 * go, each answered on done.
 */
struct own_thread {
	pthread_t thread;
	pid_t tid;
	int n, file_b, file_c;
	sem_t go, done;
};

static void *own_thread_main(void *arg)
{
	struct own_thread *t = arg;

	t->tid = (pid_t)syscall(SYS_gettid);
	sem_post(&t->done);
	sem_wait(&t->go);
	if (unshare(CLONE_FILES) < 0 || dup2(t->file_b, t->n) < 0)
		t->tid = -1;
	sem_post(&t->done);
	sem_wait(&t->go);
	if (dup2(t->file_c, t->n) < 0)
		t->tid = -1;
	sem_post(&t->done);
	sem_wait(&t->go);
	return NULL;
}

static int open_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	return fd;
}

static void test_getfd_threads(void)
{
	struct own_thread t = { .n = -1 };
	pid_t me = getpid();
	struct proc *leader, *thread;
	int file_a = open_file("/"), got, kept;

	t.n = file_a;
	t.file_b = open_file("/proc");
	t.file_c = open_file("/dev");
	CU_ASSERT_FATAL(sem_init(&t.go, 0, 0) == 0 && sem_init(&t.done, 0, 0) == 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t.thread, NULL, own_thread_main, &t), 0);
	sem_wait(&t.done);
	leader = procs_add(me, me, getppid());
	thread = procs_add(t.tid, me, getppid());
	CU_ASSERT_FATAL(leader && thread);

	/* Sharing the leader's table: kcmp says so. */
	CU_ASSERT_TRUE(tracee_files_shared(t.tid));
	CU_ASSERT_TRUE(tracee_files_shared(me));

	sem_post(&t.go);
	sem_wait(&t.done);
	CU_ASSERT_FATAL(t.tid > 0);
	CU_ASSERT_FALSE(tracee_files_shared(t.tid));
	CU_ASSERT_FALSE(tracee_files_shared(me));

	/* The thread's fd n is its own file, through a pidfd kept for it. */
	got = tracee_getfd(t.tid, me, t.n);
	CU_ASSERT_FATAL(got >= 0);
	CU_ASSERT_TRUE(same_file(got, t.file_b));
	close(got);
	kept = thread->pidfd;
	CU_ASSERT(kept >= 0);
	CU_ASSERT_EQUAL(leader->pidfd, -1);

	/* The leader's fd n is the leader's file. */
	got = tracee_getfd(me, me, t.n);
	CU_ASSERT_FATAL(got >= 0);
	CU_ASSERT_TRUE(same_file(got, file_a));
	close(got);
	CU_ASSERT(leader->pidfd >= 0 && leader->pidfd != kept);

	/* The kept pidfd names the thread, not the file it held: a new
	 * file at n is seen, through the same pidfd. */
	sem_post(&t.go);
	sem_wait(&t.done);
	CU_ASSERT_FATAL(t.tid > 0);
	got = tracee_getfd(t.tid, me, t.n);
	CU_ASSERT_FATAL(got >= 0);
	CU_ASSERT_TRUE(same_file(got, t.file_c));
	close(got);
	CU_ASSERT_EQUAL(thread->pidfd, kept);

	/* An fd the thread does not hold. */
	CU_ASSERT_EQUAL(tracee_getfd(t.tid, me, 1000000), -EBADF);
	CU_ASSERT_EQUAL(tracee_getfd(t.tid, me, -1), -EBADF);

	/* The entry's end closes what it kept. */
	sem_post(&t.go);
	pthread_join(t.thread, NULL);
	procs_del(t.tid);
	CU_ASSERT_FALSE(fd_open(kept));
	kept = leader->pidfd;
	procs_del(me);
	CU_ASSERT_FALSE(fd_open(kept));

	close(file_a);
	close(t.file_b);
	close(t.file_c);
	sem_destroy(&t.go);
	sem_destroy(&t.done);
}

/*
 * Before linux 6.9, pidfd_open() knows no PIDFD_THREAD: tracee_getfd()
 * then takes a thread's fd from the leader's table, and only while kcmp
 * says the thread shares it.  That kernel is made here in a child whose
 * seccomp filter answers EINVAL to pidfd_open with PIDFD_THREAD (O_EXCL),
 * as the old kernel does.  The child's checks come back as its exit
 * status: bit k set, check k failed.
 */
static int old_kernel_checks(void)
{
	struct own_thread t = { .n = -1 };
	pid_t me = getpid();
	int file_a = open("/", O_RDONLY | O_CLOEXEC), got, failed = 0;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx || file_a < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(pidfd_open), 1,
			     SCMP_A1(SCMP_CMP_MASKED_EQ, O_EXCL, O_EXCL)) < 0 ||
	    seccomp_load(ctx) < 0)
		return 0x80;
	seccomp_release(ctx);
	if (syscall(SYS_pidfd_open, me, O_EXCL) >= 0 || errno != EINVAL)
		return 0x40;
	t.n = file_a;
	t.file_b = open("/proc", O_RDONLY | O_CLOEXEC);
	if (t.file_b < 0 || sem_init(&t.go, 0, 0) < 0 || sem_init(&t.done, 0, 0) < 0 ||
	    pthread_create(&t.thread, NULL, own_thread_main, &t) != 0)
		return 0x40;
	sem_wait(&t.done);
	if (!procs_add(me, me, getppid()) || !procs_add(t.tid, me, getppid()))
		return 0x40;
	/* Shared: the leader's fd n, kept in the leader's entry only. */
	got = tracee_getfd(t.tid, me, t.n);
	failed |= !(got >= 0 && same_file(got, file_a)) << 0;
	failed |= !(procs_find(t.tid)->pidfd == -1 && procs_find(me)->pidfd >= 0) << 1;
	close(got);
	/* Its own table now: refused, never the leader's file. */
	sem_post(&t.go);
	sem_wait(&t.done);
	if (t.tid < 0)
		return 0x40;
	failed |= (tracee_getfd(t.tid, me, t.n) != -EBADF) << 2;
	sem_post(&t.go);
	sem_wait(&t.done);
	sem_post(&t.go);
	pthread_join(t.thread, NULL);
	return failed;
}

static void test_getfd_old_kernel(void)
{
	int status;
	pid_t child = fork();

	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(0x80);
		_exit(old_kernel_checks());
	}
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT_TRUE_FATAL(WIFEXITED(status));
	/* 0x80: the filter could not be loaded; 0x40: the set-up failed. */
	CU_ASSERT_EQUAL(WEXITSTATUS(status) & 0xc0, 0);
	CU_ASSERT_EQUAL(WEXITSTATUS(status) & 1, 0);	/* the leader's file */
	CU_ASSERT_EQUAL(WEXITSTATUS(status) & 2, 0);	/* kept for the leader */
	CU_ASSERT_EQUAL(WEXITSTATUS(status) & 4, 0);	/* refused, own table */
}

struct off_main {
	int fd;
	int got;
};

static void *off_main_thread(void *arg)
{
	struct off_main *o = arg;

	o->got = tracee_getfd(getpid(), getpid(), o->fd);
	return NULL;
}

static void test_getfd_unkept(void)
{
	struct off_main o = { .fd = open_file("/") };
	pid_t me = getpid();
	struct proc *leader = procs_add(me, me, getppid());
	pthread_t th;
	int fds_before, fds_after;
	int got;

	CU_ASSERT_PTR_NOT_NULL_FATAL(leader);
	/* Off the event loop's thread: nothing is kept in the table. */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, off_main_thread, &o), 0);
	pthread_join(th, NULL);
	CU_ASSERT_FATAL(o.got >= 0);
	CU_ASSERT_TRUE(same_file(o.got, o.fd));
	close(o.got);
	CU_ASSERT_EQUAL(leader->pidfd, -1);

	/* A task with no entry: its pidfd is closed after the call. */
	procs_del(me);
	fds_before = dup(0);
	close(fds_before);
	got = tracee_getfd(me, me, o.fd);
	CU_ASSERT_FATAL(got >= 0);
	CU_ASSERT_TRUE(same_file(got, o.fd));
	close(got);
	fds_after = dup(0);
	close(fds_after);
	CU_ASSERT_EQUAL(fds_after, fds_before);
	close(o.fd);
}

/* ------------------------------------------------------------------ */
/* The pid behind a pidfd                                               */

static void test_pidfd_pid(void)
{
	int pidfd, status, notpidfd = open_file("/");
	pid_t child = fork();

	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	CU_ASSERT_FATAL(pidfd >= 0);
	CU_ASSERT_EQUAL(tracee_pidfd_pid(pidfd), child);
	kill(child, SIGKILL);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT_EQUAL(tracee_pidfd_pid(pidfd), -1);
	CU_ASSERT_EQUAL(tracee_pidfd_pid(notpidfd), -EBADF);
	close(pidfd);
	close(notpidfd);
}

/* ------------------------------------------------------------------ */
/* Credentials: the two readers agree; a switch is the thread's alone    */

static struct creds switch_own, switch_seen;
static sem_t switch_done, switch_back;
static int switch_rc = -1, switch_leave_rc = -1, switch_open_errno;

static void *switch_thread(void *arg)
{
	struct creds nobody = { .uid = 65534, .euid = 65534, .suid = 65534,
				.fsuid = 65534, .gid = 65534, .egid = 65534,
				.sgid = 65534, .fsgid = 65534, .umask = -1 };
	int fd;

	(void)arg;
	if (creds_save(&switch_own) < 0)
		goto out;
	switch_rc = creds_switch(&nobody, &switch_own);
	if (switch_rc == 0) {
		creds_save(&switch_seen);
		fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
		/* Opened, but with nobody's f_cred: addresses are zeros. */
		if (fd >= 0) {
			char line[64] = "";

			switch_open_errno = read(fd, line, sizeof(line) - 1) > 0 &&
					    strncmp(line, "0000000000000000", 16) == 0 ?
					    0 : EPERM;
			close(fd);
		} else {
			switch_open_errno = errno;
		}
	}
	sem_post(&switch_done);
	while (sem_wait(&switch_back) < 0)
		;
	switch_leave_rc = creds_leave(&switch_own);
out:
	return NULL;
}

static void test_creds(void)
{
	struct creds fromproc, own, now;
	pthread_t t;
	uid_t r, e, su;

	CU_ASSERT_FATAL(creds_save(&own) == 0);
	CU_ASSERT_FATAL(tracee_creds((pid_t)syscall(SYS_gettid), &fromproc) == 0);
	CU_ASSERT(creds_same(&own, &fromproc));
	CU_ASSERT_EQUAL(own.cap_prm, fromproc.cap_prm);
	if (own.euid != 0 || !(own.cap_eff & (1ULL << CAP_SETUID)))
		return;		/* the switch needs root */
	sem_init(&switch_done, 0, 0);
	sem_init(&switch_back, 0, 0);
	CU_ASSERT_FATAL(pthread_create(&t, NULL, switch_thread, NULL) == 0);
	while (sem_wait(&switch_done) < 0)
		;
	CU_ASSERT_EQUAL(switch_rc, 0);
	CU_ASSERT_EQUAL(switch_seen.uid, 65534);
	CU_ASSERT_EQUAL(switch_seen.suid, 65534);
	CU_ASSERT_EQUAL(switch_seen.fsgid, 65534);
	CU_ASSERT_EQUAL(switch_seen.n_groups, 0);
	CU_ASSERT_EQUAL(switch_seen.cap_eff, 0);
	CU_ASSERT_EQUAL(switch_seen.cap_prm, own.cap_prm);
	CU_ASSERT_EQUAL(switch_open_errno, 0);
	/* This thread kept its own. */
	CU_ASSERT(syscall(SYS_getresuid, &r, &e, &su) == 0 && r == 0 &&
		  e == 0 && su == 0);
	CU_ASSERT(creds_save(&now) == 0 && creds_same(&now, &own));
	sem_post(&switch_back);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(switch_leave_rc, 0);
	CU_ASSERT(creds_same(&switch_own, &own));
	CU_ASSERT_EQUAL(switch_own.secbits, own.secbits);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "procs: add, find, each, delete", test_procs_table },
		{ "read_str: lengths, faults, page ends", test_read_str },
		{ "getfd: threads with own tables, kept pidfds", test_getfd_threads },
		{ "getfd: before linux 6.9 (kcmp)", test_getfd_old_kernel },
		{ "getfd: off the loop's thread, no entry", test_getfd_unkept },
		{ "pidfd_pid", test_pidfd_pid },
		{ "creds: /proc and the thread agree; a switch and back", test_creds },
	};

	tracee_set_main_thread();
	/* As loop.c does: the pidfds tracee.c opens close with their task. */
	procs_on_forget(tracee_forget);
	return unit_run("tracee", tests, sizeof(tests) / sizeof(tests[0]));
}
