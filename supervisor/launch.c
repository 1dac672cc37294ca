/* SPDX-License-Identifier: MIT */
/*
 * Starting the command: fork (launch_fork, before the policy is loaded:
 * the child resets its signals and waits), let the tracer seize the child
 * (launch_start), then in the child a short linear list of checked calls
 * (the policy's resource limits, --user's identity, no CAP_SYS_PTRACE, no
 * new privileges, the guard filter where the policy filter does not hold
 * the guards itself, the policy filter with its listener) and execve.  The
 * supervisor takes the listener from the child with pidfd_getfd at one
 * ptrace stop: the child's seccomp() is followed by an int3 (a breakpoint
 * trap, not a syscall), so that the child needs no syscall of its own after
 * the filter is on besides the execve that the policy decides.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <grp.h>
#include <termios.h>
#include <unistd.h>

#include "common/seccomp-compat.h"
#include "common/util.h"
#include "supervisor/launch.h"

#define CHILD_FAIL 125

static void child_fail(const char *what)
{
	/* Between fork and exec: report and leave with sysgate's status. */
	int e = errno;
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "sysgate: child: %s: %s\n", what,
			 strerror(e));

	if (n > 0 && write(2, msg, (size_t)n) < 0) {
		/* nothing more to do */
	}
	_exit(CHILD_FAIL);
}

/* Remove one capability from the bounding, ambient, inheritable,
 * permitted and effective sets of the calling process. */
static int drop_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned idx = (unsigned)cap / 32;
	uint32_t bit = 1u << ((unsigned)cap % 32);

	bool bset_denied = false;

	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
		if (errno != EPERM && errno != EINVAL)
			return -1;
		bset_denied = errno == EPERM;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0);
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	/* Without CAP_SETPCAP the bounding set stays as it is: fine when the
	 * capability is not held (an ordinary user; no new privileges at
	 * exec, so it cannot be gained back). */
	if (bset_denied && (d[idx].permitted & bit))
		return -1;
	d[idx].effective &= ~bit;
	d[idx].permitted &= ~bit;
	d[idx].inheritable &= ~bit;
	return (int)syscall(SYS_capset, &h, d);
}

static long seccomp_load(unsigned long flags, const struct sock_fprog *prog)
{
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
}

#if !defined(__x86_64__)
#error "launch.c: the listener hand-off is written for x86_64"
#endif
/* The address right after the int3 below: where the child's trap stop is. */
extern const char sysgate_listener_trap[] __attribute__((visibility("hidden")));

/*
 * seccomp(SET_MODE_FILTER, flags, prog), then a breakpoint trap with the
 * result still in rax.  The trap is a SIGTRAP with si_code SI_KERNEL at
 * sysgate_listener_trap, which no other process can forge; the traced
 * child stops there, the supervisor takes the listener (rax) and resumes
 * it with the signal suppressed.  noinline: the label exists once.
 */
static __attribute__((noinline)) long
seccomp_load_trap(unsigned long flags, const struct sock_fprog *prog)
{
	long ret;

	__asm__ volatile("syscall\n\t"
			 "int3\n"
			 ".globl sysgate_listener_trap\n\t"
			 ".hidden sysgate_listener_trap\n"
			 "sysgate_listener_trap:"
			 : "=a"(ret)
			 : "0"((long)SYS_seccomp), "D"((long)SECCOMP_SET_MODE_FILTER),
			   "S"(flags), "d"(prog)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* The go message: this header, then the guard's and the policy's
 * instructions. */
struct go_hdr {
	char go;
	unsigned short guard_len, policy_len;
	unsigned short n_rlimits;
	struct launch_rlimit rlimits[ARRAY_SIZE(((struct launch_spec *)0)->rlimits)];
};

/* Where the child reads the filters to (touched in the child only). */
static struct sock_filter child_insns[2 * BPF_MAXINSNS];

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The signals of the calling process whose disposition is not the default
 * (ignored or caught: SigIgn and SigCgt of /proc/self/status, signal N as
 * bit N-1) into *out: 0, or -1 when they cannot be read.  No allocation:
 * the child calls it.
 */
static int signals_not_default(uint64_t *out)
{
	static const char *const keys[] = { "\nSigIgn:\t", "\nSigCgt:\t" };
	char buf[4096];
	uint64_t mask = 0;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *p = strstr(buf, keys[i]);
		uint64_t v = 0;

		if (!p)
			return -1;
		p += strlen(keys[i]);
		for (int digits = 0; digits < 16; digits++, p++) {
			int d = *p >= '0' && *p <= '9' ? *p - '0' :
				*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

			if (d < 0)
				return -1;
			v = v << 4 | (uint64_t)d;
		}
		mask |= v;
	}
	*out = mask;
	return 0;
}

/* The kernel's struct sigaction (x86_64). */
struct ksigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

/*
 * Every signal back to its default disposition for the command, as if
 * sysgate had not been between: exec resets caught signals by itself, but
 * ignored ones stay ignored (sysgate ignores SIGPIPE and SIGXFSZ, and may
 * have been started with more ignored).  Only the signals not at their
 * default are reset: one read of /proc/self/status instead of a sigaction
 * for each of the 64 (start-up time, issue 5); all of them when it cannot
 * be read.  With the system call itself: glibc's sigaction() refuses 32
 * and 33, which it keeps for its threads, and which sysgate can inherit
 * ignored all the same.
 */
static void reset_signals(void)
{
	const struct ksigaction dfl = { .handler = SIG_DFL };
	uint64_t mask = UINT64_MAX;	/* all, unless read */

	(void)signals_not_default(&mask);
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && ((mask >> (sig - 1)) & 1))
			syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(dfl.mask));
}

static void __attribute__((noreturn))
child_main(const struct launch_spec *ls, int go_fd, int ready_fd, pid_t parent)
{
	sigset_t none;
	struct go_hdr hdr;
	struct sock_fprog guard, policy;
	long fd;

	/*
	 * What needs nothing of the policy comes first, while the supervisor
	 * loads the policy and opens the trail (launch_fork is called before
	 * both): nothing here is visible outside the child.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_fail("PR_SET_PDEATHSIG");
	if (getppid() != parent)
		_exit(CHILD_FAIL);
	reset_signals();
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		child_fail("sigprocmask");
	if (setpgid(0, 0) < 0)
		child_fail("setpgid");
	umask(ls->umask);

	if (write(ready_fd, "r", 1) != 1)
		_exit(CHILD_FAIL);
	close(ready_fd);
	/*
	 * The go message carries the resource limits and the two filters,
	 * built by the supervisor once it had the policy.  Anything short of
	 * all of it (the supervisor went away, or gave up before the command
	 * could start) ends the child before its exec.
	 */
	if (read_full(go_fd, &hdr, sizeof(hdr)) < 0 || hdr.go != 'g' ||
	    hdr.n_rlimits > ARRAY_SIZE(hdr.rlimits) ||
	    hdr.guard_len > BPF_MAXINSNS ||
	    hdr.policy_len == 0 || hdr.policy_len > BPF_MAXINSNS ||
	    read_full(go_fd, child_insns, ((size_t)hdr.guard_len + hdr.policy_len) *
		      sizeof(struct sock_filter)) < 0)
		_exit(CHILD_FAIL);

	/* In the foreground of the terminal if sysgate was (its own process
	 * group): ^C reaches the tree, job control keeps working. */
	if (ls->foreground_tty >= 0) {
		signal(SIGTTOU, SIG_IGN);
		if (tcsetpgrp(ls->foreground_tty, getpid()) < 0) {
			/* not fatal: no job control then */
		}
		signal(SIGTTOU, SIG_DFL);
	}
	for (unsigned i = 0; i < hdr.n_rlimits; i++) {
		struct rlimit rl = { hdr.rlimits[i].value, hdr.rlimits[i].value };

		/* RLIMIT_CPU: SIGXCPU at the limit, SIGKILL a second later. */
		if (hdr.rlimits[i].resource == RLIMIT_CPU)
			rl.rlim_max = rl.rlim_cur + 1;
		if (setrlimit(hdr.rlimits[i].resource, &rl) < 0)
			child_fail("setting a resource limit");
	}

	if (ls->set_user) {
		/* Groups first: setgroups needs the privilege setresuid drops. */
		if (setgroups((size_t)ls->n_groups, ls->groups) < 0)
			child_fail("setgroups");
		if (setresgid(ls->gid, ls->gid, ls->gid) < 0)
			child_fail("setresgid");
		if (setresuid(ls->uid, ls->uid, ls->uid) < 0)
			child_fail("setresuid");
	}
	/*
	 * Security: a tree running as root would still hold CAP_SYS_PTRACE,
	 * which overrides the supervisor's non-dumpable flag: ptrace,
	 * process_vm_readv/writev and /proc/PID/mem of the supervisor.  Drop
	 * it from every set, the bounding set included, so that no program
	 * of the tree gets it back at exec.
	 */
	if (drop_cap(CAP_SYS_PTRACE) < 0)
		child_fail("dropping CAP_SYS_PTRACE");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail("PR_SET_NO_NEW_PRIVS");

	guard.len = hdr.guard_len;
	guard.filter = child_insns;
	policy.len = hdr.policy_len;
	policy.filter = child_insns + hdr.guard_len;
	/* No guard filter: the policy filter holds the guards itself. */
	if (guard.len && seccomp_load(0, &guard) < 0)
		child_fail("loading the guard filter");
	/*
	 * go_fd stays open: it is O_CLOEXEC, so execve closes it.
	 *
	 * WAIT_KILLABLE_RECV: once the supervisor has received a call, only
	 * a fatal signal interrupts it, so an emulated call cannot be done
	 * twice when a signal handler restarts it.
	 */
	fd = seccomp_load_trap(SECCOMP_FILTER_FLAG_NEW_LISTENER |
			       SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &policy);
	if (fd < 0 && errno == EINVAL)
		fd = seccomp_load_trap(SECCOMP_FILTER_FLAG_NEW_LISTENER, &policy);
	if (fd < 0)
		child_fail("loading the policy filter");
	/* The listener is O_CLOEXEC: it is gone once execve succeeds. */
	execve(ls->path, ls->argv, ls->envp);
	_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
}

/*
 * Wait for the child's trap after its seccomp(NEW_LISTENER) and take the
 * listener fd out of it.  A trap that reports an error (the kernel lacks
 * WAIT_KILLABLE_RECV) is resumed: the child tries again or fails.
 */
static int take_listener(pid_t pid, int pidfd, int *listener, int *status)
{
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, __WALL);
		int inject = 0;

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			return -ECHILD;
		}
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st);

		if (sig == SIGTRAP && (st >> 16) == 0) {
			siginfo_t si;
			struct user_regs_struct regs;

			if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0 ||
			    ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
				return -errno;
			/*
			 * Security: only the child's own trap (SI_KERNEL, which
			 * kill() and sigqueue() cannot send, at the address of
			 * the trap; the child runs sysgate's code, mapped where
			 * it is in the supervisor) says where the listener is.
			 */
			if (si.si_code == SI_KERNEL &&
			    regs.rip == (unsigned long long)(uintptr_t)sysgate_listener_trap) {
				long rval = (long)regs.rax;

				if (rval >= 0) {
					int fd = pidfd_getfd(pidfd, (int)rval, 0);

					if (fd < 0)
						return -errno;
					*listener = fd;
					if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
						return -errno;
					return 0;
				}
				/* seccomp() failed: suppress the trap */
			} else {
				inject = sig;
			}
		} else if ((st >> 16) == 0 && sig != SIGSTOP) {
			inject = sig;	/* a real signal: deliver it */
		}
		if (ptrace(PTRACE_CONT, pid, 0, (void *)(long)inject) < 0)
			return -errno;
	}
}

/* writev all of iov (the pipe may hold less than the filters). */
static int write_full(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EPIPE;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int launch_fork(const struct launch_spec *ls, struct launch_child *lc)
{
	int go[2], ready[2];
	pid_t parent = getpid();
	pid_t pid;
	int r;

	lc->pid = -1;
	lc->go = lc->ready = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ready, O_CLOEXEC) < 0) {
		r = -errno;
		close(go[0]);
		close(go[1]);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(go[0]);
		close(go[1]);
		close(ready[0]);
		close(ready[1]);
		return r;
	}
	if (pid == 0) {
		close(go[1]);
		close(ready[0]);
		child_main(ls, go[0], ready[1], parent);
	}
	close(go[0]);
	close(ready[1]);
	lc->pid = pid;
	lc->parent = parent;
	lc->go = go[1];
	lc->ready = ready[0];
	return 0;
}

/* Close what is left of lc's pipes. */
static void child_pipes_close(struct launch_child *lc)
{
	if (lc->go >= 0)
		close(lc->go);
	if (lc->ready >= 0)
		close(lc->ready);
	lc->go = lc->ready = -1;
}

void launch_abandon(struct launch_child *lc)
{
	int st;

	if (lc->pid < 0)
		return;
	/* Without its go message the child ends by itself; the kill makes
	 * it sure, and at once. */
	child_pipes_close(lc);
	kill(lc->pid, SIGKILL);
	while (waitpid(lc->pid, &st, __WALL) < 0 && errno == EINTR)
		;
	lc->pid = -1;
}

int launch_start(const struct launch_spec *ls, struct launch_child *lc,
		 struct launch_result *out)
{
	struct sock_fprog guard = { 0 }, policy = { 0 };
	char b;
	ssize_t n;
	pid_t pid;
	int st;
	int r;
	AUTO_CLOSE int pidfd = -1;

	out->pid = -1;
	out->listener = -1;
	out->early_status = -1;
	out->build_failed = false;
	if (lc->pid < 0 && (r = launch_fork(ls, lc)) < 0)
		return r;
	pid = lc->pid;
	/* The filters are built while the child may still set itself up. */
	r = ls->build(ls->build_arg, &guard, &policy);
	if (r < 0) {
		out->build_failed = true;
		goto fail;
	}
	/* The child's set-up is done (or it failed and exited). */
	do
		n = read(lc->ready, &b, 1);
	while (n < 0 && errno == EINTR);
	close(lc->ready);
	lc->ready = -1;
	if (n != 1) {
		child_pipes_close(lc);
		while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
			;
		lc->pid = -1;
		out->early_status = st;
		free(guard.filter);
		free(policy.filter);
		return -ECHILD;
	}
	/* Security: in its cgroups before it runs anything of the command,
	 * so that every process of the tree is under the tree's limits. */
	if (ls->place) {
		r = ls->place(pid, ls->place_arg);
		if (r < 0)
			goto fail;
	}
	pidfd = pidfd_open(pid, 0);
	if (pidfd < 0) {
		r = -errno;
		goto fail;
	}
	/*
	 * Security: EXITKILL, so that the tree dies with the supervisor.
	 * No TRACEEXIT: nothing is decided at a task's exit stop (its exit
	 * status says how it ended), and the stop cost every task one more
	 * round trip through the supervisor.
	 */
	if (ptrace(PTRACE_SEIZE, pid, 0,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
				  PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				  PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL)) < 0) {
		r = -errno;
		goto fail;
	}
	/* Seized: the child stops at its trap, no stop is needed before. */
	{
		struct go_hdr hdr = { 'g', guard.len, policy.len,
				      (unsigned short)ls->n_rlimits, { { 0, 0 } } };
		struct iovec iov[3] = {
			{ &hdr, sizeof(hdr) },
			{ guard.filter, guard.len * sizeof(struct sock_filter) },
			{ policy.filter, policy.len * sizeof(struct sock_filter) },
		};

		if (ls->n_rlimits > ARRAY_SIZE(hdr.rlimits)) {
			r = -EINVAL;
			goto fail;
		}
		memcpy(hdr.rlimits, ls->rlimits,
		       ls->n_rlimits * sizeof(hdr.rlimits[0]));
		r = write_full(lc->go, iov, 3);
		free(guard.filter);
		free(policy.filter);
		guard.filter = policy.filter = NULL;
		if (r < 0)
			goto fail;
	}
	close(lc->go);
	lc->go = -1;
	r = take_listener(pid, pidfd, &out->listener, &out->early_status);
	lc->pid = -1;	/* the result's now */
	if (r == -ECHILD)
		return r;	/* the child ended before its exec: status set */
	if (r < 0) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
			;
		return r;
	}
	out->pid = pid;
	/* Faster wake-ups of the waiting task where the kernel has it
	 * (kernel < 6.6: the ordinary wake-up is fine); choose_wake() in
	 * notify.c turns it off and on again as the load changes. */
	out->sync_wake = ioctl(out->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			       SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) == 0;
	return 0;
fail:
	free(guard.filter);
	free(policy.filter);
	launch_abandon(lc);
	return r;
}
