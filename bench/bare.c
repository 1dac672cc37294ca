/* SPDX-License-Identifier: MIT */
/*
 * bench-bare MECH OP N BATCHES: the kernel's own cost of a mechanism, with
 * nothing of sysgate around it.  A child loads a filter that sends OP's
 * call to MECH and runs the same loop bench-micro runs (bench/loops.c);
 * this process answers with the least the mechanism needs.  The child
 * prints "<median ns per call> <result of the first call>"; when the kernel
 * lacks the mechanism this process prints "n/a <why>".  So the micro table
 * can put sysgate's cost beside the floor it cannot go below.
 *
 * MECH:
 *   allow        a filter that allows every call (the in-kernel fast path)
 *   notif        SECCOMP_RET_USER_NOTIF; a responder thread does RECV, then
 *                SEND (getppid: a value; open-deny: EACCES), ADDFD then SEND
 *                of a file opened once (open-allow), pidfd_getfd + connect
 *                (connect), CONTINUE (execve) and, for the loader's opens
 *                after an exec, open + ADDFD, SEND
 *   notif-sync   the same after SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (6.6+),
 *                probed here
 *   notif-open, notif-sync-open  the same, but open-allow opens the path it
 *                reads from the caller at each call (peek, open, ADDFD,
 *                SEND, close): the least any supervisor that emulates an
 *                open does, where notif installs a file opened once
 *   notif-sync-open-bind  notif-sync-open with the caller bound to the
 *                responder's CPU for the ADDFD (sched_getaffinity, then
 *                sched_setaffinity to that CPU and back before the SEND),
 *                as sysgate does (supervisor/cpubind.c)
 *   notif-sync-open-bind-send  the same, but the ADDFD answers the call
 *                (SECCOMP_ADDFD_FLAG_SEND) and no SEND follows; the mask
 *                is put back after it
 *   trace        SECCOMP_RET_TRACE; the tracer does waitpid + PTRACE_CONT
 *   trace-stack  the same plus the caller's stack (instruction pointers
 *                only) with libunwind-ptrace at each stop
 *   notif-stop   what sysgate does for `stack = yes`: USER_NOTIF (with
 *                WAIT_KILLABLE_RECV); the first notification of a call is
 *                answered with -ERESTARTNOINTR after PTRACE_INTERRUPT, the
 *                caller's PTRACE_EVENT_STOP is resumed with PTRACE_CONT,
 *                and the restarted call's notification is answered as
 *                notif does
 *   notif-stop-stack  the same plus the caller's stack (instruction
 *                pointers only, warm libunwind cache) at each stop
 * For OP exec the child is also ptraced with the fork/exec/exit events
 * sysgate asks for, and each new process's first stop is resumed.
 *
 * bench-bare floor -- CMD [ARG...]: run CMD (exit status passed on) under
 * the floor of a supervisor that checks paths, for the workload table: a
 * filter that notifies the calls sysgate's default policy names (the open
 * family, the calls that change the file system, exec, connect and bind),
 * every process of the tree ptraced with the fork/exec events sysgate asks
 * for (its stops resumed, its signals delivered), SYNC_WAKE_UP where the
 * kernel has it, and one thread that answers each notification with the
 * least a supervisor that decides on the path must do: read the path
 * from the caller's memory and check the notification id; then an open
 * is carried out here (relative to the caller's cwd or dirfd) and
 * installed with ADDFD, the caller bound to this CPU for it as sysgate
 * binds it, and every other call is let through (CONTINUE).  No rules, no
 * record, no symlink walk, no exec check: what is left of sysgate's cost
 * beside it is its own.
 *
 * bench-bare floor -r N -- CMD: the same with N threads in RECV on the
 * listener (several receiving threads): the table's floor x2
 * column shows what a second receiver gains or costs at the floor.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libunwind-ptrace.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "common/seccomp-compat.h"

#define BARE_MAX_FRAMES 64

enum mech { MECH_ALLOW, MECH_NOTIF, MECH_NOTIF_SYNC, MECH_TRACE, MECH_TRACE_STACK,
	    MECH_NOTIF_STOP, MECH_NOTIF_STOP_STACK, MECH_NOTIF_OPEN,
	    MECH_NOTIF_SYNC_OPEN, MECH_NOTIF_SYNC_OPEN_BIND,
	    MECH_NOTIF_SYNC_OPEN_BIND_SEND, MECH_NOTIF_SYNC_READ };

/* The kernel's restart-the-call errno (never reaches user space here). */
#define BARE_ERESTARTNOINTR 513

struct responder {
	int listener;
	int pidfd;		/* the child, for pidfd_getfd */
	int allow_fd;		/* open-allow: the file every ADDFD installs */
	bool open_each;		/* open-allow: open the named file each call */
	bool bind;		/* bind the caller to this CPU for each ADDFD */
	bool addfd_send;	/* answer with the ADDFD (SECCOMP_ADDFD_FLAG_SEND) */
	bool read_path;		/* open-deny: read the caller's path and check
				 * the id before the answer */
	bool floor;		/* floor -- CMD: floor_answer() answers */
	enum bench_op op;
	struct seccomp_notif_sizes sizes;
};

static void die(const char *what)
{
	fprintf(stderr, "bench-bare: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int parse_mech(const char *s, enum mech *m)
{
	static const char *const names[] = {
		[MECH_ALLOW] = "allow", [MECH_NOTIF] = "notif",
		[MECH_NOTIF_SYNC] = "notif-sync", [MECH_TRACE] = "trace",
		[MECH_TRACE_STACK] = "trace-stack",
		[MECH_NOTIF_STOP] = "notif-stop",
		[MECH_NOTIF_STOP_STACK] = "notif-stop-stack",
		[MECH_NOTIF_OPEN] = "notif-open",
		[MECH_NOTIF_SYNC_OPEN] = "notif-sync-open",
		[MECH_NOTIF_SYNC_OPEN_BIND] = "notif-sync-open-bind",
		[MECH_NOTIF_SYNC_OPEN_BIND_SEND] = "notif-sync-open-bind-send",
		[MECH_NOTIF_SYNC_READ] = "notif-sync-read",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(names[i], s)) {
			*m = (enum mech)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Calls of the floor mode: those sysgate's default policy notifies. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

enum floor_kind { FLOOR_OPEN, FLOOR_PATH, FLOOR_ADDR };

static const struct floor_call {
	int nr;
	int arg;		/* the path (or address) argument */
	enum floor_kind kind;
} floor_calls[] = {
	{ SYS_open, 0, FLOOR_OPEN }, { SYS_openat, 1, FLOOR_OPEN },
	{ SYS_creat, 0, FLOOR_OPEN }, { SYS_openat2, 1, FLOOR_PATH },
	{ SYS_execve, 0, FLOOR_PATH }, { SYS_execveat, 1, FLOOR_PATH },
	{ SYS_connect, 1, FLOOR_ADDR }, { SYS_bind, 1, FLOOR_ADDR },
	{ SYS_mkdir, 0, FLOOR_PATH }, { SYS_mkdirat, 1, FLOOR_PATH },
	{ SYS_mknod, 0, FLOOR_PATH }, { SYS_mknodat, 1, FLOOR_PATH },
	{ SYS_rmdir, 0, FLOOR_PATH }, { SYS_unlink, 0, FLOOR_PATH },
	{ SYS_unlinkat, 1, FLOOR_PATH }, { SYS_rename, 0, FLOOR_PATH },
	{ SYS_renameat, 1, FLOOR_PATH }, { SYS_renameat2, 1, FLOOR_PATH },
	{ SYS_link, 0, FLOOR_PATH }, { SYS_linkat, 1, FLOOR_PATH },
	{ SYS_symlink, 1, FLOOR_PATH }, { SYS_symlinkat, 2, FLOOR_PATH },
	{ SYS_chmod, 0, FLOOR_PATH }, { SYS_fchmodat, 1, FLOOR_PATH },
	{ SYS_fchmodat2, 1, FLOOR_PATH }, { SYS_chown, 0, FLOOR_PATH },
	{ SYS_lchown, 0, FLOOR_PATH }, { SYS_fchownat, 1, FLOOR_PATH },
	{ SYS_truncate, 0, FLOOR_PATH }, { SYS_chdir, 0, FLOOR_PATH },
};
#define N_FLOOR_CALLS (sizeof(floor_calls) / sizeof(floor_calls[0]))

static bool is_stop(enum mech m)
{
	return m == MECH_NOTIF_STOP || m == MECH_NOTIF_STOP_STACK;
}

static bool is_notif(enum mech m)
{
	return m == MECH_NOTIF || m == MECH_NOTIF_SYNC || m == MECH_NOTIF_OPEN ||
	       m == MECH_NOTIF_SYNC_OPEN || m == MECH_NOTIF_SYNC_OPEN_BIND ||
	       m == MECH_NOTIF_SYNC_OPEN_BIND_SEND || m == MECH_NOTIF_SYNC_READ ||
	       is_stop(m);
}

static bool is_trace(enum mech m)
{
	return m == MECH_TRACE || m == MECH_TRACE_STACK;
}

static long load_filter(enum mech m, enum bench_op op)
{
	uint32_t action = SECCOMP_RET_ALLOW;
	unsigned int flags = 0;
	int nr1 = bench_op_nr(op);
	/* After an exec the loader's opens are what sysgate sees next. */
	int nr2 = op == BENCH_EXEC ? SYS_openat : nr1;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr1, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr2, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (is_notif(m)) {
		action = SECCOMP_RET_USER_NOTIF;
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
		/* As sysgate loads its policy (docs/PLATFORM.md 3d). */
		if (is_stop(m))
			flags |= SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	} else if (is_trace(m)) {
		action = SECCOMP_RET_TRACE;
	}
	f[7].k = action;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* Read len bytes of the caller's memory; returns what was read or -1. */
static ssize_t peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

static void send_reply(struct responder *r, uint64_t id, int64_t val, int err,
		       uint32_t flags)
{
	struct seccomp_notif_resp resp = {
		.id = id, .val = val, .error = -err, .flags = flags,
	};

	ioctl(r->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/*
 * Install fd in the caller, then answer with its number: two ioctls, as
 * sysgate does (it records the call, with the number, in between).  On
 * this kind of VM that is also faster than one ADDFD with
 * SECCOMP_ADDFD_FLAG_SEND, whose answer wakes the caller on the other CPU,
 * unless the caller is bound to this CPU (addfd_send: then the two are
 * within a few percent, bench row (c6)).
 */
static void send_fd(struct responder *r, const struct seccomp_notif *req,
		    int fd, bool cloexec)
{
	struct seccomp_notif_addfd a = {
		.id = req->id,
		.flags = r->addfd_send ? SECCOMP_ADDFD_FLAG_SEND : 0,
		.srcfd = (uint32_t)fd,
		.newfd_flags = cloexec ? O_CLOEXEC : 0,
	};
	pid_t caller = (pid_t)req->pid;
	cpu_set_t mask, one;
	bool bound = false;
	int n, err;

	int cpu = r->bind ? sched_getcpu() : -1;

	if (cpu >= 0 && sched_getaffinity(caller, sizeof(mask), &mask) == 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		bound = sched_setaffinity(caller, sizeof(one), &one) == 0;
	}
	n = ioctl(r->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
	err = errno;
	if (bound)
		sched_setaffinity(caller, sizeof(mask), &mask);
	if (n < 0)
		send_reply(r, req->id, 0, err, 0);
	else if (!r->addfd_send)
		send_reply(r, req->id, n, 0, 0);
}

static void answer_connect(struct responder *r, const struct seccomp_notif *req)
{
	struct sockaddr_storage ss;
	size_t len = req->data.args[2];
	int sock, err = 0;

	if (len > sizeof(ss) || peek((pid_t)req->pid, req->data.args[1], &ss, len) != (ssize_t)len) {
		send_reply(r, req->id, 0, EFAULT, 0);
		return;
	}
	sock = pidfd_getfd(r->pidfd, (int)req->data.args[0], 0);
	if (sock < 0) {
		send_reply(r, req->id, 0, errno, 0);
		return;
	}
	if (connect(sock, (struct sockaddr *)&ss, (socklen_t)len) < 0)
		err = errno;
	close(sock);
	send_reply(r, req->id, 0, err, 0);
}

/* The dynamic loader's opens after an exec: open what it named, hand it
 * over.  Anything but an absolute path runs as it is. */
static void answer_loader_open(struct responder *r, const struct seccomp_notif *req)
{
	char path[4096];
	ssize_t n = peek((pid_t)req->pid, req->data.args[1], path, sizeof(path));
	int fd;

	if (n <= 0 || !memchr(path, '\0', (size_t)n) || path[0] != '/') {
		send_reply(r, req->id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	fd = open(path, (int)req->data.args[2] | O_CLOEXEC, (mode_t)req->data.args[3]);
	if (fd < 0) {
		send_reply(r, req->id, 0, errno, 0);
		return;
	}
	send_fd(r, req, fd, req->data.args[2] & O_CLOEXEC);
	close(fd);
}

/*
 * The round trip of a supervisor that decides on the path: read it from
 * the caller's memory, check that the notification is still alive (the
 * memory read was of the caller that asked), answer.
 */
static void answer_read_deny(struct responder *r, const struct seccomp_notif *req)
{
	char path[4096];
	ssize_t n = peek((pid_t)req->pid, req->data.args[1], path, sizeof(path));
	uint64_t id = req->id;

	if (n <= 0 || !memchr(path, '\0', (size_t)n) ||
	    ioctl(r->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0) {
		send_reply(r, req->id, 0, EFAULT, 0);
		return;
	}
	send_reply(r, req->id, 0, EACCES, 0);
}

static void answer(struct responder *r, const struct seccomp_notif *req)
{
	switch (r->op) {
	case BENCH_GETPPID:
		send_reply(r, req->id, 1, 0, 0);
		break;
	case BENCH_OPEN_DENY:
		if (r->read_path)
			answer_read_deny(r, req);
		else
			send_reply(r, req->id, 0, EACCES, 0);
		break;
	case BENCH_OPEN_ALLOW:
		if (r->open_each)
			answer_loader_open(r, req);
		else
			send_fd(r, req, r->allow_fd, true);
		break;
	case BENCH_CONNECT:
		answer_connect(r, req);
		break;
	case BENCH_EXEC:
		if (req->data.nr == SYS_execve)
			send_reply(r, req->id, 0, 0,
				   SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		else
			answer_loader_open(r, req);
		break;
	}
}

/* ------------------------------------------------------------------ */
/* floor -- CMD: the workload table's floor                              */

/* The floor's filter: x86_64 calls of floor_calls notified, all else
 * allowed (the kernel's action cache skips the filter for those). */
static long load_floor_filter(void)
{
	struct sock_filter f[4 + N_FLOOR_CALLS + 2];
	struct sock_fprog prog = { .len = 0, .filter = f };
	unsigned short n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < N_FLOOR_CALLS; i++) {
		/* Equal: jump over the rest of the list and the ALLOW. */
		unsigned char skip = (unsigned char)(N_FLOOR_CALLS - 1 - i + 1);

		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (uint32_t)floor_calls[i].nr, skip, 0);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	prog.len = n;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

/* An open, carried out here: relative to the caller's cwd or dirfd, with
 * the flags it gave, installed in it with ADDFD (the caller bound to this
 * CPU), answered with the number. */
static void floor_open(struct responder *r, const struct seccomp_notif *req,
		       const char *path)
{
	int nr = req->data.nr;
	int flags = (int)(nr == SYS_openat ? req->data.args[2] :
			  nr == SYS_open ? req->data.args[1] :
			  O_CREAT | O_WRONLY | O_TRUNC);
	mode_t mode = (mode_t)(nr == SYS_openat ? req->data.args[3] :
			       nr == SYS_open ? req->data.args[2] :
			       req->data.args[1]);
	int dirfd = nr == SYS_openat ? (int)req->data.args[0] : AT_FDCWD;
	pid_t tid = (pid_t)req->pid;
	int base = AT_FDCWD, fd, err;

	if (path[0] != '/') {
		if (dirfd == AT_FDCWD) {
			char link[64];

			snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tid);
			base = open(link, O_PATH | O_CLOEXEC);
		} else {
			/* The caller's own fd table (a thread may have one
			 * of its own): a thread pidfd where the kernel has
			 * them (6.9+), else the task's pidfd. */
			int pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

			if (pidfd < 0)
				pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
			base = pidfd < 0 ? -1 : pidfd_getfd(pidfd, dirfd, 0);
			err = errno;
			if (pidfd >= 0)
				close(pidfd);
			errno = err;
		}
		if (base < 0) {
			send_reply(r, req->id, 0, errno == ESRCH ? ESRCH : EBADF, 0);
			return;
		}
	}
	fd = openat(base, path, flags | O_CLOEXEC, mode);
	err = errno;
	if (base >= 0)
		close(base);
	if (fd < 0) {
		send_reply(r, req->id, 0, err, 0);
		return;
	}
	send_fd(r, req, fd, flags & O_CLOEXEC);
	close(fd);
}

static void floor_answer(struct responder *r, const struct seccomp_notif *req)
{
	const struct floor_call *fc = NULL;
	char buf[4096];
	size_t len = sizeof(buf);
	uint64_t id = req->id;
	ssize_t n;

	for (size_t i = 0; i < N_FLOOR_CALLS; i++)
		if (floor_calls[i].nr == req->data.nr)
			fc = &floor_calls[i];
	if (!fc) {
		send_reply(r, req->id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	if (fc->kind == FLOOR_ADDR)
		len = req->data.args[2] < sizeof(buf) ? (size_t)req->data.args[2] : sizeof(buf);
	/* The path, read once; short reads end at the caller's mapping. */
	n = peek((pid_t)req->pid, req->data.args[fc->arg], buf, len);
	if (n < 0 || (fc->kind != FLOOR_ADDR && !memchr(buf, '\0', (size_t)n))) {
		send_reply(r, req->id, 0, EFAULT, 0);
		return;
	}
	/* Was it the caller's memory?  (The id is still alive.) */
	if (ioctl(r->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) < 0)
		return;
	if (fc->kind == FLOOR_OPEN)
		floor_open(r, req, buf);
	else
		send_reply(r, req->id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

static void *responder_thread(void *arg)
{
	struct responder *r = arg;
	struct seccomp_notif *req = calloc(1, r->sizes.seccomp_notif);

	if (!req)
		die("calloc");
	for (;;) {
		memset(req, 0, r->sizes.seccomp_notif);
		if (ioctl(r->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
			if (errno == ENOENT || errno == EINTR)
				continue;
			break;
		}
		if (r->floor)
			floor_answer(r, req);
		else
			answer(r, req);
	}
	free(req);
	return NULL;
}

/* The caller's stack, instruction pointers only (no symbol names: those
 * cost milliseconds, docs/PLATFORM.md 3h).  Returns the number of frames. */
static int unwind_ips(unw_addr_space_t as, pid_t pid)
{
	unw_cursor_t c;
	void *upt = _UPT_create(pid);
	int depth = 0;

	if (!upt)
		return 0;
	if (unw_init_remote(&c, as, upt) == 0) {
		do {
			unw_word_t ip;

			unw_get_reg(&c, UNW_REG_IP, &ip);
			depth++;
		} while (depth < BARE_MAX_FRAMES && unw_step(&c) > 0);
	}
	_UPT_destroy(upt);
	return depth;
}

/*
 * notif-stop(-stack), on the tracer's own thread (ptrace requests must come
 * from it): each call is interrupted once and answered on its restart.
 * Returns the child's wait status.
 */
static int stop_loop(struct responder *r, pid_t child, bool stack)
{
	struct seccomp_notif *req = calloc(1, r->sizes.seccomp_notif);
	unw_addr_space_t as = NULL;
	bool restarted = false;
	int frames = 0, st = -1;

	if (!req)
		die("calloc");
	if (stack) {
		as = unw_create_addr_space(&_UPT_accessors, 0);
		if (!as)
			die("unw_create_addr_space");
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
	}
	for (;;) {
		struct pollfd p = { .fd = r->listener, .events = POLLIN };
		pid_t pid;

		if (poll(&p, 1, 100) <= 0 || !(p.revents & POLLIN)) {
			if (waitpid(child, &st, WNOHANG | __WALL) == child &&
			    (WIFEXITED(st) || WIFSIGNALED(st)))
				break;
			continue;
		}
		memset(req, 0, r->sizes.seccomp_notif);
		if (ioctl(r->listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
			continue;
		if (restarted) {
			restarted = false;
			answer(r, req);
			continue;
		}
		pid = (pid_t)req->pid;
		if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
			die("PTRACE_INTERRUPT");
		send_reply(r, req->id, 0, BARE_ERESTARTNOINTR, 0);
		for (;;) {
			if (waitpid(pid, &st, __WALL) < 0) {
				if (errno == EINTR)
					continue;
				die("waitpid");
			}
			if (!WIFSTOPPED(st))
				break;
			if (st >> 16 == PTRACE_EVENT_STOP)
				break;
			/* A signal: deliver it, the stop follows. */
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(st));
		}
		if (!WIFSTOPPED(st)) {
			if (pid == child)
				break;
			continue;
		}
		if (stack)
			frames = unwind_ips(as, pid);
		ptrace(PTRACE_CONT, pid, 0, 0);
		restarted = true;
	}
	if (stack) {
		fprintf(stderr, "bench-bare: notif-stop-stack: %d frames per stop\n", frames);
		unw_destroy_addr_space(as);
	}
	free(req);
	return st;
}

/* Resume every stop of the traced tree until the child ends. */
static int tracer_loop(pid_t child, bool stack)
{
	unw_addr_space_t as = NULL;
	int frames = 0, child_status = -1;

	if (stack) {
		as = unw_create_addr_space(&_UPT_accessors, 0);
		if (!as)
			die("unw_create_addr_space");
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
	}
	for (;;) {
		int st, event;
		long inject = 0;
		pid_t pid = waitpid(-1, &st, __WALL);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == child) {
				child_status = st;
				break;
			}
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		event = st >> 16;
		if (event == PTRACE_EVENT_SECCOMP && stack)
			frames = unwind_ips(as, pid);
		else if (event == 0)
			inject = WSTOPSIG(st);	/* a signal: deliver it */
		ptrace(PTRACE_CONT, pid, 0, (void *)inject);
	}
	if (stack) {
		fprintf(stderr, "bench-bare: trace-stack: %d frames per stop\n", frames);
		unw_destroy_addr_space(as);
	}
	return child_status;
}

static void __attribute__((noreturn))
child_main(enum mech m, struct bench_ctx *ctx, long n, int batches, int go_fd,
	   int ctl_fd)
{
	char result[32], c;
	double ns;
	long fd;

	if (read(go_fd, &c, 1) != 1)
		_exit(3);
	fd = load_filter(m, ctx->op);
	if (fd < 0) {
		fprintf(stderr, "bench-bare: seccomp: %s\n", strerror(errno));
		_exit(3);
	}
	if (is_notif(m)) {
		int num = (int)fd;

		if (write(ctl_fd, &num, sizeof(num)) != sizeof(num))
			_exit(3);
		if (read(go_fd, &c, 1) != 1)
			_exit(3);
		close(num);
	}
	if (bench_measure(ctx, n, batches, &ns, result, sizeof(result)) < 0)
		_exit(3);
	printf("%.1f %s\n", ns, result);
	fflush(stdout);
	_exit(0);
}

/* The pipes to the child (go: parent to child, ctl: back) and the child. */
static pid_t fork_child(int go[2], int ctl[2])
{
	pid_t child;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ctl, O_CLOEXEC) < 0)
		die("pipe");
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("fork");
	return child;
}

/* Take the child's listener (its fd number num) and the notification
 * sizes into r. */
static void take_listener(struct responder *r, pid_t child, int num)
{
	r->pidfd = pidfd_open(child, 0);
	if (r->pidfd < 0)
		die("pidfd_open");
	r->listener = pidfd_getfd(r->pidfd, num, 0);
	if (r->listener < 0)
		die("pidfd_getfd");
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &r->sizes) < 0)
		die("SECCOMP_GET_NOTIF_SIZES");
}

/*
 * floor -- CMD: the child loads the floor's filter, hands its listener
 * over and execs CMD, traced as sysgate traces its tree; this thread
 * resumes the stops, floor_thread answers the notifications.  Exits with
 * CMD's status (128+N for a signal, as a shell shows it).
 */
static int floor_main(char **cmd, int receivers)
{
	static struct responder resp;
	int go[2], ctl[2], num, st;
	pthread_t t;
	pid_t child;
	char c;

	child = fork_child(go, ctl);
	if (child == 0) {
		long fd;

		if (read(go[0], &c, 1) != 1)
			_exit(126);
		fd = load_floor_filter();
		if (fd < 0) {
			fprintf(stderr, "bench-bare: seccomp: %s\n", strerror(errno));
			_exit(126);
		}
		num = (int)fd;
		if (write(ctl[1], &num, sizeof(num)) != sizeof(num) ||
		    read(go[0], &c, 1) != 1)
			_exit(126);
		close(num);
		execvp(cmd[0], cmd);
		fprintf(stderr, "bench-bare: %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	close(ctl[1]);
	/* The events sysgate asks for (supervisor/launch.c). */
	if (ptrace(PTRACE_SEIZE, child, 0,
		   (void *)(long)(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD |
				  PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK |
				  PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
				  PTRACE_O_TRACEEXEC)) < 0)
		die("PTRACE_SEIZE");
	if (write(go[1], "g", 1) != 1)
		die("write");
	if (read(ctl[0], &num, sizeof(num)) != sizeof(num)) {
		fprintf(stderr, "bench-bare: the child could not load its filter\n");
		return 126;
	}
	take_listener(&resp, child, num);
	/* As sysgate: SYNC_WAKE_UP where the kernel has it (6.6+). */
	(void)ioctl(resp.listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
		    SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
	resp.bind = true;
	resp.floor = true;
	/* The receivers share resp, which none of them writes. */
	for (int i = 0; i < receivers; i++) {
		if (pthread_create(&t, NULL, responder_thread, &resp) != 0)
			die("pthread_create");
		pthread_detach(t);
	}
	if (write(go[1], "g", 1) != 1)
		die("write");
	st = tracer_loop(child, false);
	fflush(stdout);
	if (st >= 0 && WIFEXITED(st))
		return WEXITSTATUS(st);
	return st >= 0 && WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

int main(int argc, char **argv)
{
	static struct responder resp;
	struct bench_ctx ctx;
	enum mech m;
	enum bench_op op;
	int go[2], ctl[2], st;
	pid_t child;
	long n;
	int batches;

	if (argc >= 4 && !strcmp(argv[1], "floor") && !strcmp(argv[2], "--"))
		_exit(floor_main(argv + 3, 1));
	if (argc >= 6 && !strcmp(argv[1], "floor") && !strcmp(argv[2], "-r") &&
	    atoi(argv[3]) >= 1 && atoi(argv[3]) <= 64 && !strcmp(argv[4], "--"))
		_exit(floor_main(argv + 5, atoi(argv[3])));
	if (argc != 5 || parse_mech(argv[1], &m) < 0 ||
	    bench_op_parse(argv[2], &op) < 0) {
		fprintf(stderr, "usage: bench-bare allow|notif|notif-sync|notif-open|notif-sync-open|notif-sync-open-bind|notif-sync-open-bind-send|notif-sync-read|trace|trace-stack|notif-stop|notif-stop-stack getppid|open-deny|open-allow|exec|connect N BATCHES\n"
				"       bench-bare floor [-r RECEIVERS] -- CMD [ARG...]\n");
		return 2;
	}
	n = atol(argv[3]);
	batches = atoi(argv[4]);
	if ((is_trace(m) || is_stop(m)) && op == BENCH_EXEC) {
		fprintf(stderr, "bench-bare: %s does not follow an exec\n", argv[1]);
		return 2;
	}
	/* The listener and the accept thread exist before any filter. */
	if (bench_setup(op, &ctx) < 0)
		die("setup");
	resp.op = op;
	resp.open_each = m == MECH_NOTIF_OPEN || m == MECH_NOTIF_SYNC_OPEN ||
			 m == MECH_NOTIF_SYNC_OPEN_BIND ||
			 m == MECH_NOTIF_SYNC_OPEN_BIND_SEND;
	resp.bind = m == MECH_NOTIF_SYNC_OPEN_BIND ||
		    m == MECH_NOTIF_SYNC_OPEN_BIND_SEND;
	resp.addfd_send = m == MECH_NOTIF_SYNC_OPEN_BIND_SEND;
	resp.read_path = m == MECH_NOTIF_SYNC_READ;
	resp.allow_fd = open(BENCH_ALLOW_PATH, O_RDONLY | O_CLOEXEC);
	if (resp.allow_fd < 0)
		die(BENCH_ALLOW_PATH);
	child = fork_child(go, ctl);
	if (child == 0) {
		close(go[1]);
		close(ctl[0]);
		child_main(m, &ctx, n, batches, go[0], ctl[1]);
	}
	close(go[0]);
	close(ctl[1]);
	if (is_trace(m) || is_stop(m) || op == BENCH_EXEC) {
		long opts = PTRACE_O_EXITKILL | PTRACE_O_TRACESECCOMP;

		if (op == BENCH_EXEC)
			opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
				PTRACE_O_TRACEEXIT;
		if (ptrace(PTRACE_SEIZE, child, 0, (void *)opts) < 0)
			die("PTRACE_SEIZE");
	}
	if (write(go[1], "g", 1) != 1)
		die("write");
	if (is_notif(m)) {
		pthread_t t;
		int num;

		if (read(ctl[0], &num, sizeof(num)) != sizeof(num)) {
			fprintf(stderr, "bench-bare: the child could not load its filter\n");
			return 1;
		}
		take_listener(&resp, child, num);
		if ((m == MECH_NOTIF_SYNC || m == MECH_NOTIF_SYNC_OPEN ||
		     m == MECH_NOTIF_SYNC_OPEN_BIND ||
		     m == MECH_NOTIF_SYNC_OPEN_BIND_SEND || m == MECH_NOTIF_SYNC_READ) &&
		    ioctl(resp.listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			  SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) < 0) {
			printf("n/a no-sync-wake-up(%s)\n", strerrorname_np(errno));
			kill(child, SIGKILL);
			waitpid(child, &st, __WALL);
			return 0;
		}
		if (!is_stop(m)) {
			if (pthread_create(&t, NULL, responder_thread, &resp) != 0)
				die("pthread_create");
			pthread_detach(t);
		}
		if (write(go[1], "g", 1) != 1)
			die("write");
	}
	if (is_stop(m))
		st = stop_loop(&resp, child, m == MECH_NOTIF_STOP_STACK);
	else if (is_trace(m) || op == BENCH_EXEC)
		st = tracer_loop(child, m == MECH_TRACE_STACK);
	else
		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
	/* The responder may still sit in RECV: leave without joining it. */
	fflush(stdout);
	_exit(st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}
