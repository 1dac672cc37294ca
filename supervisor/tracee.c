/* SPDX-License-Identifier: MIT */
/*
 * Tracee memory and /proc facts.  Every read of tracee memory happens here,
 * once per event, into a buffer the supervisor owns (docs/INTERNALS.md,
 * *Tracee memory*): matching,
 * auditing and emulation use that copy only.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include "common/util.h"
#include "supervisor/procs.h"
#include "supervisor/tracee.h"

#define PAGE 4096u

static bool own_ptrace_begin(void);
static void own_ptrace_end(void);

/* process_vm_readv/writev and pidfd_getfd of the supervisor's own; see
 * own_ptrace_begin(). */
static ssize_t vm_rw(pid_t tid, const struct iovec *local,
		     const struct iovec *remote, bool write)
{
	ssize_t n = write ? process_vm_writev(tid, local, 1, remote, 1, 0) :
			    process_vm_readv(tid, local, 1, remote, 1, 0);

	if (n < 0 && errno == EPERM && own_ptrace_begin()) {
		n = write ? process_vm_writev(tid, local, 1, remote, 1, 0) :
			    process_vm_readv(tid, local, 1, remote, 1, 0);
		int e = errno;

		own_ptrace_end();
		errno = e;
	}
	return n;
}

int tracee_proc_open(const char *path, int flags)
{
	int fd = open(path, flags);

	if (fd < 0 && (errno == EACCES || errno == EPERM) &&
	    own_ptrace_begin()) {
		fd = open(path, flags);
		int e = errno;

		own_ptrace_end();
		errno = e;
	}
	return fd;
}

static int getfd_own(int pidfd, int fd)
{
	int r = pidfd_getfd(pidfd, fd, 0);

	if (r < 0 && errno == EPERM && own_ptrace_begin()) {
		r = pidfd_getfd(pidfd, fd, 0);
		int e = errno;

		own_ptrace_end();
		errno = e;
	}
	return r;
}

static int vm_errno(void)
{
	/* ESRCH: the task is gone.  Anything else: treat as a bad pointer,
	 * which is what the kernel would have answered the caller. */
	return errno == ESRCH ? -ESRCH : -EFAULT;
}

/*
 * Security: the tree's memory is read through /proc/TID/mem.  Its reads
 * take no fault they must wait for: a page the tree registered with
 * userfaultfd and never fills fails at once (EIO, taken as EFAULT), where
 * process_vm_readv waits, killable only, for a fault the tree never
 * resolves, and the supervisor with it, deaf to SIGTERM and the wall
 * limit.  (Such a read also reads a page the tree mapped PROT_NONE: the
 * call then goes on with what the supervisor read, where the kernel would
 * have failed it with EFAULT.)
 *
 * Each thread keeps the fd it opened last.  The fd names an address
 * space, not a task: every exec and exit of a traced task makes each kept
 * fd stale (mem_gen), so a tid that now runs another program, or names
 * another process, is never read through an old one.
 */
static unsigned mem_gen = 1;
static __thread struct {
	pid_t tid;
	unsigned gen;
	int fd;
} mem_kept = { .fd = -1 };

void tracee_mem_forget(void)
{
	__atomic_add_fetch(&mem_gen, 1, __ATOMIC_RELAXED);
}

int tracee_mem_fd(pid_t tid)
{
	unsigned gen = __atomic_load_n(&mem_gen, __ATOMIC_RELAXED);
	char path[32];
	int fd;

	if (mem_kept.fd >= 0 && mem_kept.tid == tid && mem_kept.gen == gen)
		return mem_kept.fd;
	if (mem_kept.fd >= 0)
		close(mem_kept.fd);
	mem_kept.fd = -1;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	fd = tracee_proc_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -EFAULT;
	mem_kept.tid = tid;
	mem_kept.gen = gen;
	mem_kept.fd = fd;
	return fd;
}

/* Up to len bytes at addr; the count read (short at an unreadable page),
 * or -ESRCH or -EFAULT. */
static ssize_t mem_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	int fd = tracee_mem_fd(tid);
	ssize_t n;

	if (fd < 0)
		return fd;
	if (addr > (uint64_t)INT64_MAX - len)
		return -EFAULT;
	n = pread(fd, buf, len, (off_t)addr);
	if (n < 0)
		return vm_errno();
	return n;
}

ssize_t tracee_read_str(pid_t tid, uint64_t addr, char *buf, size_t max)
{
	size_t got = 0;

	if (max == 0)
		return -ENAMETOOLONG;
	if (addr == 0)
		return -EFAULT;
	/*
	 * Read page by page so that a string ending just before an unmapped
	 * page is read without touching that page (a partial read there is
	 * not an error, the kernel's own strncpy_from_user stops the same way).
	 */
	while (got < max) {
		uint64_t a = addr + got;
		size_t chunk = PAGE - (a & (PAGE - 1));

		if (chunk > max - got)
			chunk = max - got;
		ssize_t n = mem_read(tid, a, buf + got, chunk);

		if (n <= 0)
			return n == 0 ? -EFAULT : n;
		char *nul = memchr(buf + got, '\0', (size_t)n);

		if (nul)
			return nul - buf;
		got += (size_t)n;
		if ((size_t)n < chunk)
			return -EFAULT;
	}
	buf[max - 1] = '\0';
	return -ENAMETOOLONG;
}

int tracee_read(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = mem_read(tid, addr + got, (char *)buf + got,
				     len - got);

		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EFAULT;
		got += (size_t)n;
	}
	return 0;
}

int tracee_write(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = { (void *)buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len == 0)
		return 0;
	n = vm_rw(tid, &local, &remote, true);
	if (n < 0)
		return vm_errno();
	return (size_t)n == len ? 0 : -EFAULT;
}

/* Read a "Key:\tvalue" number from /proc/TID/status. */
static long status_field(pid_t tid, const char *key, int base)
{
	char path[64], buf[2048];
	AUTO_CLOSE int fd = -1;
	ssize_t n;
	size_t klen = strlen(key);

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = TEMP_FAILURE_RETRY_INT(read(fd, buf, sizeof(buf) - 1));
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, key, klen) == 0 && line[klen] == ':')
			return strtol(line + klen + 1, NULL, base);
	}
	return -ENOENT;
}

int tracee_umask(pid_t tid)
{
	long v = status_field(tid, "Umask", 8);

	return v < 0 ? (int)v : (int)(v & 0777);
}

pid_t tracee_tgid(pid_t tid)
{
	return (pid_t)status_field(tid, "Tgid", 10);
}

int tracee_siginfo(pid_t tid, siginfo_t *out)
{
	if (ptrace(PTRACE_GETSIGINFO, tid, 0, out) < 0)
		return -errno;
	return 0;
}

int tracee_exe(pid_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", tid);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* linux 6.9; the 6.1 headers lack it */
#endif
#ifndef KCMP_FILES
#define KCMP_FILES 2
#endif

struct files_scan {
	pid_t tid;
	bool shared;
};

static void files_cmp(struct proc *p, void *arg)
{
	struct files_scan *sc = arg;
	long r;

	if (sc->shared || p->tid == sc->tid || p->exited)
		return;
	r = syscall(SYS_kcmp, sc->tid, p->tid, KCMP_FILES, 0L, 0L);
	/* 0: the same table.  A task gone meanwhile (ESRCH) holds none;
	 * any other failure (no kcmp in this kernel) counts as shared. */
	if (r == 0 || (r < 0 && errno != ESRCH))
		sc->shared = true;
}

bool tracee_files_shared(pid_t tid)
{
	struct files_scan sc = { tid, false };

	assert_loop_thread();
	/*
	 * Security: a table is shared only with tasks cloned with
	 * CLONE_FILES from one that shares it, and every such task of the
	 * tree is traced: each enters the process table (at its creator's
	 * clone event or its own first stop) before the event loop first
	 * resumes it, so every task that has run is a candidate here.
	 * While tid waits for its answer it clones nothing.  One that has
	 * not run yet can be missing: a sharer killed at its clone event
	 * takes the event with it, and its new task is known only at its
	 * own first stop, which may come after this answer.  Such a task
	 * is held there until tid has left the call (tracee_hold_new()).
	 */
	procs_each(files_cmp, &sc);
	return sc.shared;
}

/*
 * Tasks whose call that takes an fd by number was continued as alone with
 * their table (fd_alone), their next stop, call or end not seen yet, and
 * new tasks held at their first stop until those have left their calls.
 */
static unsigned n_alone, n_held;

void tracee_fd_call_continued(pid_t tid)
{
	struct proc *p = procs_find(tid);

	if (p && !p->fd_alone) {
		p->fd_alone = true;
		p->fd_interrupted = false;
		n_alone++;
	}
}

struct hold_scan {
	pid_t tid;		/* the new task */
	bool hold;		/* a sharer's call may not be over */
};

static void hold_cmp(struct proc *p, void *arg)
{
	struct hold_scan *sc = arg;
	long r;

	if (!p->fd_alone || p->exited || p->tid == sc->tid)
		return;
	r = syscall(SYS_kcmp, sc->tid, p->tid, KCMP_FILES, 0L, 0L);
	if (r != 0 && (r >= 0 || errno == ESRCH))
		return;	/* another table, or a task gone */
	/*
	 * Security: p's call may not have read its fd yet.  Its next
	 * ptrace stop comes only once the call is over (a trap is taken on
	 * the way back to user space), and ends the hold (tracee_seen()).
	 */
	if (!p->fd_interrupted) {
		if (ptrace(PTRACE_INTERRUPT, p->tid, 0, 0) == 0)
			p->fd_interrupted = true;
		else if (errno == ESRCH)
			return;	/* exiting: it reads no fd any more */
	}
	sc->hold = true;
}

void tracee_hold_new(struct proc *np)
{
	struct hold_scan sc = { np->tid, false };

	if (!n_alone)
		return;
	procs_each(hold_cmp, &sc);
	if (sc.hold && !np->held) {
		np->held = true;
		n_held++;
	}
}

static void release_one(struct proc *p, void *arg)
{
	struct hold_scan sc = { p->tid, false };

	(void)arg;
	if (!p->held || p->exited)
		return;
	procs_each(hold_cmp, &sc);
	if (sc.hold)
		return;
	p->held = false;
	n_held--;
	/* Resumed as its first stop would have been (loop.c on_stop()). */
	if (ptrace(PTRACE_CONT, p->tid, 0, (void *)(long)p->held_sig) < 0 &&
	    errno != ESRCH)
		fprintf(stderr, "sysgate: warning: task %d held at its first stop could not be resumed (%s)\n",
			(int)p->tid, strerror(errno));
}

static void alone_end(struct proc *p)
{
	if (p->fd_alone) {
		p->fd_alone = false;
		n_alone--;
	}
	if (n_held)
		procs_each(release_one, NULL);
}

void tracee_seen(struct proc *p)
{
	if (p->fd_alone)
		alone_end(p);
}

void tracee_gone(struct proc *p)
{
	tracee_mem_forget();
	if (p->held) {
		p->held = false;
		n_held--;
	}
	if (p->fd_alone || n_held)
		alone_end(p);
}

/*
 * The pidfd of task pid (flags as for pidfd_open), kept in p: p's own
 * when it has one, else a new one, kept in p when there is a p and in
 * *own (for the caller to close) when there is none.  -errno on failure.
 */
static int pidfd_kept(struct proc *p, pid_t pid, unsigned int flags, int *own)
{
	int pidfd;

	if (p && p->pidfd >= 0)
		return p->pidfd;
	pidfd = pidfd_open(pid, flags);
	if (pidfd < 0)
		return -errno;
	if (p)
		p->pidfd = pidfd;
	else
		*own = pidfd;
	return pidfd;
}

/*
 * The process table's entry for task tid of tgid where a pidfd may be
 * kept; NULL off the event loop's thread (an ask worker does not touch
 * the table: it opens its own).  A kept pidfd names its task and no
 * other for as long as we hold it; the entry goes, closing it, when the
 * task does, or when a thread's exec hands its tid to the leader (loop.c).
 */
static struct proc *pidfd_keeper(pid_t tid, pid_t tgid)
{
	struct proc *p;

	if (!tracee_on_main_thread())
		return NULL;
	p = procs_find(tid);
	return p && p->tgid == tgid ? p : NULL;
}

int tracee_getfd(pid_t tid, pid_t tgid, int fd)
{
	AUTO_CLOSE int own = -1;
	int pidfd = -EINVAL;
	int r;

	if (fd < 0)
		return -EBADF;
	/*
	 * A thread made without CLONE_FILES, or that called
	 * unshare(CLONE_FILES), has a table of its own: its fd N is not the
	 * leader's fd N.  PIDFD_THREAD names that very thread; a kernel
	 * older than 6.9 refuses it, and there the leader's pidfd is used
	 * only when kcmp says, for this call, that the thread shares the
	 * leader's table.
	 */
	if (tid != tgid) {
		pidfd = pidfd_kept(pidfd_keeper(tid, tgid), tid, PIDFD_THREAD,
				   &own);
		if (pidfd == -EINVAL &&
		    syscall(SYS_kcmp, tgid, tid, KCMP_FILES, 0L, 0L) != 0)
			return -EBADF;
	}
	if (pidfd == -EINVAL)
		pidfd = pidfd_kept(pidfd_keeper(tgid, tgid), tgid, 0, &own);
	if (pidfd < 0)
		return pidfd;
	r = getfd_own(pidfd, fd);
	if (r < 0)
		return errno == ESRCH ? -ESRCH : -EBADF;
	return r;
}

/* ------------------------------------------------------------------ */
/* The new program's argv and AT_EXECFN at its exec stop                 */

#ifndef AT_NULL
#define AT_NULL 0
#endif
#ifndef AT_EXECFN
#define AT_EXECFN 31
#endif
/* The code segment of a 64-bit task (__USER_CS): any other runs in a
 * 32-bit mode, whose stack holds 32-bit words. */
#define USER64_CS 0x33

/* How much of the new stack is read from the stack pointer up: the
 * pointer arrays, the auxiliary vector and the strings of an ordinary
 * command fit; the read stops short at the end of the stack. */
#define EXEC_STACK_READ (64 * 1024)

/* Append str (n bytes and its NUL) to out->argv, cut at EXEC_MAX_ARGV
 * bytes as a read of /proc/TID/cmdline would be. */
static void argv_add(struct exec_image *out, const char *str, size_t n)
{
	size_t room = EXEC_MAX_ARGV - out->argv_len;

	if (n + 1 < room)
		room = n + 1;
	memcpy(out->argv + out->argv_len, str, room);
	out->argv_len += room;
}

/*
 * The string at addr, when it lies whole (with its NUL) in the n bytes
 * read from base: its length, else -1.
 */
static ssize_t str_in(const char *buf, uint64_t base, size_t n, uint64_t addr)
{
	size_t off, len;

	if (addr < base || addr - base >= n)
		return -1;
	off = (size_t)(addr - base);
	len = strnlen(buf + off, n - off);
	return len == n - off ? -1 : (ssize_t)len;
}

/*
 * The stack as the kernel laid it out for the new program: at the stack
 * pointer argc, argv[], NULL, envp[], NULL, the auxiliary vector, and
 * above them the strings.  Two calls (registers, one read) instead of
 * opening /proc/TID/auxv and /proc/TID/cmdline.  0, or -errno when
 * anything is not where expected (then the caller reads /proc).
 *
 * Security: at the exec stop the new address space is the task's alone
 * (exec gave it a new mm; the other threads of the old one are gone) and
 * it has run nothing, so these words are the kernel's; another process
 * could only change them with ptrace rights over it, with which it could
 * change the AT_EXECFN string that /proc/TID/auxv points to as well.
 */
static int exec_image_from_stack(pid_t tid, struct exec_image *out)
{
	static uint64_t stk[EXEC_STACK_READ / sizeof(uint64_t)];
	const char *bytes = (const char *)stk;
	struct user_regs_struct r;
	struct iovec local = { stk, sizeof(stk) };
	struct iovec remote;
	uint64_t argc, execfn = 0;
	size_t words, k;
	ssize_t n, len;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return -errno;
	if (r.cs != USER64_CS)
		return -EPROTONOSUPPORT;
	remote = (struct iovec){ (void *)(uintptr_t)r.rsp, sizeof(stk) };
	n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	words = (size_t)n / sizeof(uint64_t);
	if (words < 2)
		return -EFAULT;
	argc = stk[0];
	if (argc > words - 2 || stk[argc + 1] != 0)
		return -E2BIG;
	for (k = argc + 2; k < words && stk[k] != 0; k++)
		;	/* envp[] */
	for (k++; k + 1 < words && stk[k] != AT_NULL; k += 2)
		if (stk[k] == AT_EXECFN)
			execfn = stk[k + 1];
	if (k + 1 >= words)
		return -E2BIG;	/* the vector's end was not read */
	len = str_in(bytes, r.rsp, (size_t)n, execfn);
	if (len < 0 || (size_t)len >= sizeof(out->execfn))
		return -E2BIG;
	/* Every string must be there before anything is kept. */
	for (uint64_t i = 0; i < argc; i++)
		if (str_in(bytes, r.rsp, (size_t)n, stk[i + 1]) < 0)
			return -E2BIG;
	memcpy(out->execfn, bytes + (execfn - r.rsp), (size_t)len + 1);
	out->have_execfn = true;
	for (uint64_t i = 0; i < argc; i++) {
		uint64_t a = stk[i + 1];

		argv_add(out, bytes + (a - r.rsp),
			 (size_t)str_in(bytes, r.rsp, (size_t)n, a));
	}
	return 0;
}

/* AT_EXECFN through /proc/TID/auxv (the kernel's copy of the vector). */
static int execfn_from_proc(pid_t tid, char *buf, size_t len)
{
	char path[64];
	uint64_t auxv[2 * 64];
	AUTO_CLOSE int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/auxv", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, auxv, sizeof(auxv));
	if (n < 0)
		return -errno;
	for (size_t i = 0; i + 1 < (size_t)n / sizeof(uint64_t); i += 2) {
		if (auxv[i] == AT_NULL)
			break;
		if (auxv[i] == AT_EXECFN) {
			ssize_t l = tracee_read_str(tid, auxv[i + 1], buf, len);

			return l < 0 ? (int)l : 0;
		}
	}
	return -ENOENT;
}

/* argv through /proc/TID/cmdline. */
static void argv_from_proc(pid_t tid, struct exec_image *out)
{
	char path[64];
	AUTO_CLOSE int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (out->argv_len < EXEC_MAX_ARGV) {
		ssize_t n = read(fd, out->argv + out->argv_len,
				 EXEC_MAX_ARGV - out->argv_len);

		if (n <= 0)
			break;
		out->argv_len += (size_t)n;
	}
}

void tracee_exec_image(pid_t tid, struct exec_image *out)
{
	out->have_execfn = false;
	out->execfn[0] = '\0';
	out->argv_len = 0;
	if (exec_image_from_stack(tid, out) == 0)
		return;
	out->argv_len = 0;
	out->have_execfn =
		execfn_from_proc(tid, out->execfn, sizeof(out->execfn)) == 0;
	argv_from_proc(tid, out);
}

pid_t tracee_pgrp(pid_t pid)
{
	char path[64], buf[1024];
	AUTO_CLOSE int fd = -1;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* "pid (comm) state ppid pgrp ...": comm may hold anything. */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	{
		char state;
		int ppid, pgrp;

		if (sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
			return -EIO;
		return pgrp;
	}
}

pid_t tracee_pidfd_pid(int pidfd)
{
	char path[64], buf[512];
	AUTO_CLOSE int fd = -1;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strstr(buf, "\nPid:");
	if (!p)
		return -EBADF;	/* not a pidfd */
	return (pid_t)strtol(p + 5, NULL, 10);
}

/* "Key: a b c d" of /proc/TID/status: the real, effective, saved and
 * file-system ids. */
static bool status_ids(const char *l, const char *key, uint32_t ids[4])
{
	unsigned long v[4];
	size_t klen = strlen(key);

	if (strncmp(l, key, klen) ||
	    sscanf(l + klen, " %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) != 4)
		return false;
	for (int i = 0; i < 4; i++)
		ids[i] = (uint32_t)v[i];
	return true;
}

static int status_groups(const char *p, struct creds *out)
{
	char *end;

	for (;;) {
		unsigned long g = strtoul(p, &end, 10);

		if (end == p || *p == '\n')
			return 0;
		if (out->n_groups >= CREDS_MAX_GROUPS)
			return -E2BIG;
		out->groups[out->n_groups++] = (gid_t)g;
		p = end;
	}
}

/*
 * Is the user namespace of task tid ours?  1, 0, or -errno.
 *
 * Security: the capabilities a task holds in a user namespace of its own
 * (unshare or clone with CLONE_NEWUSER, where it may be root) count only
 * for what that namespace owns.  /proc shows them as they are, and a
 * thread of ours that took them would hold them in our namespace, the
 * initial one: a tree under --user in a namespace of its own added a
 * route and set trusted.* attributes through sysgate that way.  Such a
 * task's capabilities are taken as none (what its namespace owns, the
 * supervisor then cannot do for it: refused, never lent).
 */
static int userns_ours(pid_t tid)
{
	static struct stat own;
	static bool have_own;
	struct stat st;
	char path[64];
	int fd, r;

	if (!have_own) {
		if (stat("/proc/self/ns/user", &own) < 0)
			return -errno;
		have_own = true;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", tid);
	fd = tracee_proc_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	return st.st_dev == own.st_dev && st.st_ino == own.st_ino;
}

int tracee_creds(pid_t tid, struct creds *out)
{
	char path[64], buf[4096];
	AUTO_CLOSE int fd = -1;
	ssize_t n;
	char *l;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = TEMP_FAILURE_RETRY_INT(read(fd, buf, sizeof(buf) - 1));
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	memset(out, 0, sizeof(*out));
	out->umask = -1;
	for (l = buf; l && *l; l = strchr(l, '\n')) {
		uint32_t ids[4];

		if (*l == '\n')
			l++;
		if (status_ids(l, "Uid:", ids)) {
			out->uid = ids[0];
			out->euid = ids[1];
			out->suid = ids[2];
			out->fsuid = ids[3];
			found |= 1;
		} else if (status_ids(l, "Gid:", ids)) {
			out->gid = ids[0];
			out->egid = ids[1];
			out->sgid = ids[2];
			out->fsgid = ids[3];
			found |= 2;
		} else if (!strncmp(l, "Groups:", 7)) {
			if (status_groups(l + 7, out) < 0)
				return -E2BIG;
			found |= 4;
		} else if (!strncmp(l, "Umask:", 6)) {
			out->umask = (int)(strtol(l + 6, NULL, 8) & 0777);
		} else if (!strncmp(l, "CapInh:", 7)) {
			out->cap_inh = strtoull(l + 7, NULL, 16);
			found |= 8;
		} else if (!strncmp(l, "CapPrm:", 7)) {
			out->cap_prm = strtoull(l + 7, NULL, 16);
			found |= 16;
		} else if (!strncmp(l, "CapEff:", 7)) {
			out->cap_eff = strtoull(l + 7, NULL, 16);
			found |= 32;
		}
	}
	if (found != 63)
		return -EIO;
	found = userns_ours(tid);
	if (found < 0)
		return found;
	if (!found)
		out->cap_eff = out->cap_prm = out->cap_inh = 0;
	return 0;
}

/*
 * Credentials of the calling thread.  Security: every call below is the
 * raw system call, which reads or changes the calling thread's
 * credentials only; glibc's set*id, setgroups and the like change every
 * thread of the process (they broadcast with a signal), and must never be
 * used for this.
 */
static int caps_get(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static int caps_set(uint64_t eff, uint64_t prm, uint64_t inh)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
		{ (uint32_t)(eff >> 32), (uint32_t)(prm >> 32),
		  (uint32_t)(inh >> 32) },
	};

	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/*
 * What the calling thread holds: its own credentials, or a caller's
 * (taken by creds_switch(), given back by creds_leave()).  While it holds
 * a caller's, t_eff and t_inh are the capabilities it has of the caller's
 * and t_own what it gives back.
 */
static __thread bool t_holding;
static __thread uint64_t t_eff, t_inh;
static __thread const struct creds *t_own;

int creds_save(struct creds *saved)
{
	int n, sb;

	if (syscall(SYS_getresuid, &saved->uid, &saved->euid, &saved->suid) < 0 ||
	    syscall(SYS_getresgid, &saved->gid, &saved->egid, &saved->sgid) < 0)
		return -errno;
	saved->fsuid = (uid_t)syscall(SYS_setfsuid, -1);
	saved->fsgid = (gid_t)syscall(SYS_setfsgid, -1);
	n = (int)syscall(SYS_getgroups, CREDS_MAX_GROUPS, saved->groups);
	if (n < 0)
		return -errno;
	saved->n_groups = n;
	sb = (int)syscall(SYS_prctl, PR_GET_SECUREBITS, 0L, 0L, 0L, 0L);
	if (sb < 0)
		return -errno;
	saved->secbits = sb;
	saved->umask = -1;
	return caps_get(&saved->cap_eff, &saved->cap_prm, &saved->cap_inh);
}

bool creds_same(const struct creds *a, const struct creds *b)
{
	return a->uid == b->uid && a->euid == b->euid && a->suid == b->suid &&
	       a->fsuid == b->fsuid && a->gid == b->gid && a->egid == b->egid &&
	       a->sgid == b->sgid && a->fsgid == b->fsgid &&
	       a->cap_eff == b->cap_eff && a->cap_inh == b->cap_inh &&
	       a->n_groups == b->n_groups &&
	       !memcmp(a->groups, b->groups,
		       (size_t)a->n_groups * sizeof(a->groups[0]));
}

/* The ids and groups of c, in an order each step's privilege allows:
 * groups and gids while the thread has CAP_SETGID, uids last. */
static int ids_set(const struct creds *c)
{
	if (syscall(SYS_setgroups, (size_t)c->n_groups, c->groups) < 0 ||
	    syscall(SYS_setresgid, c->gid, c->egid, c->sgid) < 0 ||
	    syscall(SYS_setresuid, c->uid, c->euid, c->suid) < 0)
		return -errno;
	/* setfs*id answer the old value, never an error: asked again. */
	syscall(SYS_setfsgid, c->fsgid);
	syscall(SYS_setfsuid, c->fsuid);
	if ((uid_t)syscall(SYS_setfsuid, -1) != c->fsuid ||
	    (gid_t)syscall(SYS_setfsgid, -1) != c->fsgid)
		return -EPERM;
	return 0;
}

/* Our own effective capabilities back, the rest as it is (the caller's
 * ids, our permitted set): what changing the ids takes. */
static int caps_raise(const struct creds *own)
{
	uint64_t eff, prm, inh;
	int r = caps_get(&eff, &prm, &inh);

	return r < 0 ? r : caps_set(own->cap_eff, own->cap_prm, inh);
}

/*
 * Take on c.  Security: the ids change under SECBIT_NO_SETUID_FIXUP, so
 * the kernel touches no capability set of ours on the way; the last step
 * sets the effective and inheritable sets to the caller's (never more
 * than our permitted set) and leaves our permitted set as it is, so that
 * the thread can come back.  A permitted capability that is not effective
 * is consulted by no check a carried-out call meets: capable(),
 * ns_capable() and file_ns_capable() (an opened file's f_cred, netlink's
 * sender check, SCM_CREDENTIALS) all end in cap_capable(), which tests
 * cap_effective; cap_ptrace_access_check() reads the permitted set only
 * for PTRACE_MODE_REALCREDS, which the calls carried out here (opens of
 * /proc files included: those are FSCREDS) never use, and there only to
 * let the thread reach tasks whose permitted set is within ours, after
 * the uid check has passed on the caller's ids.
 */
static int creds_take(const struct creds *c, const struct creds *own)
{
	int r;

	/* Our effective set first: the thread may hold another caller's,
	 * or have started with one (made by a thread that held it). */
	if ((r = caps_raise(own)) < 0)
		return r;
	if (syscall(SYS_prctl, PR_SET_SECUREBITS,
		    (long)(own->secbits | SECBIT_NO_SETUID_FIXUP),
		    0L, 0L, 0L) < 0)
		return -errno;
	t_holding = true;
	t_own = own;
	if ((r = ids_set(c)) < 0)
		return r;
	t_eff = c->cap_eff & own->cap_prm;
	t_inh = c->cap_inh;
	return caps_set(t_eff, own->cap_prm, t_inh);
}

int creds_switch(const struct creds *c, const struct creds *own)
{
	int r = creds_take(c, own);

	if (r < 0)
		creds_leave(own);
	return r;
}

int creds_leave(const struct creds *own)
{
	struct creds now;
	int r;

	/* A thread made by one that held a caller's starts with them. */
	if (!t_holding && creds_save(&now) == 0 && creds_same(&now, own) &&
	    now.secbits == own->secbits)
		return 0;
	if ((r = caps_raise(own)) < 0 || (r = ids_set(own)) < 0 ||
	    (r = caps_set(own->cap_eff, own->cap_prm, own->cap_inh)) < 0)
		return r;
	if (syscall(SYS_prctl, PR_SET_SECUREBITS, (long)own->secbits,
		    0L, 0L, 0L) < 0)
		return -errno;
	t_holding = false;
	return 0;
}

/*
 * Security: the supervisor's own access to its tracee (reading and
 * writing its memory, taking a dup of its fd) is made with the ptrace
 * rights of the thread.  Holding a caller's credentials, the thread has
 * them through the caller's ids only while the caller is dumpable; for
 * the rest, CAP_SYS_PTRACE is made effective for that one system call and
 * dropped before anything else runs, so that no call carried out for the
 * caller ever has it.  A drop that fails ends the supervisor (and with it
 * the tree, PTRACE_O_EXITKILL): nothing may run with it.
 */
static bool own_ptrace_begin(void)
{
	if (!t_holding || !(t_own->cap_prm & (1ULL << CAP_SYS_PTRACE)))
		return false;
	return caps_set(t_eff | 1ULL << CAP_SYS_PTRACE, t_own->cap_prm,
			t_inh) == 0;
}

static void own_ptrace_end(void)
{
	if (caps_set(t_eff, t_own->cap_prm, t_inh) < 0) {
		fprintf(stderr, "sysgate: cannot drop CAP_SYS_PTRACE: %s\n",
			strerror(errno));
		abort();
	}
}

static pthread_t main_thread;

void tracee_set_main_thread(void)
{
	main_thread = pthread_self();
}

bool tracee_on_main_thread(void)
{
	return pthread_equal(pthread_self(), main_thread);
}

void tracee_forget(struct proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
}
