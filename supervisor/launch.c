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
#include <sched.h>
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

#if !defined(__x86_64__)
#error "launch.c: the child's system calls and the listener hand-off are written for x86_64"
#endif

/*
 * The child shares the supervisor's memory from clone(CLONE_VM) to its
 * execve (launch_fork: no page tables to copy, no page to copy on write;
 * fork() cost the start of every run 0.1 to 0.3 ms here).  So everything
 * the child runs, up to its execve, keeps to four rules:
 *   - system calls through child_sys() only: they return -errno and leave
 *     errno alone, which is the supervisor's main thread's as well (and
 *     glibc's setuid family would signal the supervisor's threads);
 *   - no allocation, no stdio, nothing that takes a lock of libc;
 *   - no write to memory the supervisor uses: its own stack (child_stack)
 *     and child_insns only;
 *   - CHILD_FN: no AddressSanitizer instrumentation, which would take
 *     child_stack for a stack it does not know.
 * The supervisor in turn leaves the memory the child reads (the launch
 * spec, the program's path, argv and environment) as it is until the
 * child has gone on to its execve or ended (launch_start, launch_abandon).
 */
#define CHILD_FN __attribute__((no_sanitize_address, noinline))

static CHILD_FN long child_sys(long nr, long a1, long a2, long a3, long a4)
{
	long ret;
	register long r10 __asm__("r10") = a4;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

#define SYS0(nr) child_sys((nr), 0, 0, 0, 0)
#define SYS1(nr, a) child_sys((nr), (long)(a), 0, 0, 0)
#define SYS2(nr, a, b) child_sys((nr), (long)(a), (long)(b), 0, 0)
#define SYS3(nr, a, b, c) child_sys((nr), (long)(a), (long)(b), (long)(c), 0)
#define SYS4(nr, a, b, c, d) \
	child_sys((nr), (long)(a), (long)(b), (long)(c), (long)(d))

static CHILD_FN size_t child_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static __attribute__((noreturn)) CHILD_FN void child_exit(int status)
{
	for (;;)
		SYS1(SYS_exit_group, status);
}

/* Between the clone and the execve: report and leave with sysgate's
 * status.  err is the failed call's result (-errno). */
static __attribute__((noreturn)) CHILD_FN void child_fail(const char *what,
							  long err)
{
	const char *desc = err < 0 ? strerrordesc_np((int)-err) : NULL;
	struct iovec iov[5] = {
		{ (void *)"sysgate: child: ", 16 },
		{ (void *)what, child_strlen(what) },
		{ (void *)": ", 2 },
		{ (void *)(desc ? desc : "failed"), child_strlen(desc ? desc : "failed") },
		{ (void *)"\n", 1 },
	};

	(void)SYS3(SYS_writev, 2, iov, 5);
	child_exit(CHILD_FAIL);
}

/* Remove one capability from the bounding, ambient, inheritable,
 * permitted and effective sets of the calling process: 0 or -errno. */
static CHILD_FN long drop_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned idx = (unsigned)cap / 32;
	uint32_t bit = 1u << ((unsigned)cap % 32);
	bool bset_denied = false;
	long r;

	r = SYS2(SYS_prctl, PR_CAPBSET_DROP, cap);
	if (r < 0) {
		if (r != -EPERM && r != -EINVAL)
			return r;
		bset_denied = r == -EPERM;
	}
	(void)SYS3(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap);
	r = SYS2(SYS_capget, &h, d);
	if (r < 0)
		return r;
	/* Without CAP_SETPCAP the bounding set stays as it is: fine when the
	 * capability is not held (an ordinary user; no new privileges at
	 * exec, so it cannot be gained back). */
	if (bset_denied && (d[idx].permitted & bit))
		return -EPERM;
	d[idx].effective &= ~bit;
	d[idx].permitted &= ~bit;
	d[idx].inheritable &= ~bit;
	return SYS2(SYS_capset, &h, d);
}

/* The address right after the int3 below: where the child's trap stop is. */
extern const char sysgate_listener_trap[] __attribute__((visibility("hidden")));

/*
 * seccomp(SET_MODE_FILTER, flags, prog), then a breakpoint trap with the
 * result still in rax.  The trap is a SIGTRAP with si_code SI_KERNEL at
 * sysgate_listener_trap, which no other process can forge; the traced
 * child stops there, the supervisor takes the listener (rax) and resumes
 * it with the signal suppressed.  noinline: the label exists once.
 * The listener's fd, or -errno.
 */
static CHILD_FN long seccomp_load_trap(unsigned long flags,
				       const struct sock_fprog *prog)
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

/* Where the child reads the filters to, and its stack (touched in the
 * child only). */
static struct sock_filter child_insns[2 * BPF_MAXINSNS];
static char child_stack[64 * 1024] __attribute__((aligned(64)));

/* All of len bytes from fd: 0, or -1 at an error or the end. */
static CHILD_FN int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		long n = SYS3(SYS_read, fd, p, len);

		if (n == -EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The hex digits after key in buf (a /proc status line) into *out:
 * 0, or -1 when key is missing or malformed. */
static CHILD_FN int status_hex(const char *buf, const char *key, uint64_t *out)
{
	size_t kl = child_strlen(key);
	uint64_t v = 0;

	for (const char *p = buf; *p; p++) {
		size_t i = 0;

		while (i < kl && p[i] == key[i])
			i++;
		if (i < kl)
			continue;
		p += kl;
		for (int digits = 0; digits < 16; digits++, p++) {
			int d = *p >= '0' && *p <= '9' ? *p - '0' :
				*p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

			if (d < 0)
				return -1;
			v = v << 4 | (uint64_t)d;
		}
		*out = v;
		return 0;
	}
	return -1;
}

/*
 * The signals of the calling process whose disposition is not the default
 * (ignored or caught: SigIgn and SigCgt of /proc/self/status, signal N as
 * bit N-1) into *out: 0, or -1 when they cannot be read.
 */
static CHILD_FN int signals_not_default(uint64_t *out)
{
	char buf[4096];
	uint64_t ign, cgt;
	long n;
	long fd = SYS3(SYS_open, "/proc/self/status", O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	n = SYS3(SYS_read, fd, buf, sizeof(buf) - 1);
	(void)SYS1(SYS_close, fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (status_hex(buf, "\nSigIgn:\t", &ign) < 0 ||
	    status_hex(buf, "\nSigCgt:\t", &cgt) < 0)
		return -1;
	*out = ign | cgt;
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
 * for each of the 64 (start-up time); all of them when it cannot
 * be read.  With the system call itself: glibc's sigaction() refuses 32
 * and 33, which it keeps for its threads, and which sysgate can inherit
 * ignored all the same.
 */
static CHILD_FN void reset_signals(void)
{
	const struct ksigaction dfl = { .handler = SIG_DFL };
	uint64_t mask = UINT64_MAX;	/* all, unless read */

	(void)signals_not_default(&mask);
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && ((mask >> (sig - 1)) & 1))
			(void)SYS4(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(dfl.mask));
}

struct child_arg {
	const struct launch_spec *ls;
	int go_fd, ready_fd;         /* the child's ends */
	int go_w, ready_r;           /* the supervisor's */
	pid_t parent;
	bool moved;                  /* launch_fork changed its CPUs: */
	cpu_set_t cpus;              /* the ones to take back */
};

static CHILD_FN int child_main(void *arg)
{
	const struct child_arg *ca = arg;
	const struct launch_spec *ls = ca->ls;
	const uint64_t none = 0;
	struct go_hdr hdr;
	struct sock_fprog guard, policy;
	long r;

	/*
	 * What needs nothing of the policy comes first, while the supervisor
	 * loads the policy and opens the trail (launch_fork is called before
	 * both): nothing here is visible outside the child.
	 */
	if ((r = SYS2(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL)) < 0)
		child_fail("PR_SET_PDEATHSIG", r);
	if (SYS0(SYS_getppid) != ca->parent)
		child_exit(CHILD_FAIL);
	/* The supervisor's ends of the pipes: the go pipe must read as
	 * ended once the supervisor closes its end or goes away. */
	(void)SYS1(SYS_close, ca->go_w);
	(void)SYS1(SYS_close, ca->ready_r);
	reset_signals();
	if ((r = SYS4(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none))) < 0)
		child_fail("sigprocmask", r);
	if ((r = SYS2(SYS_setpgid, 0, 0)) < 0)
		child_fail("setpgid", r);
	(void)SYS1(SYS_umask, ls->umask);

	if (SYS3(SYS_write, ca->ready_fd, "r", 1) != 1)
		child_exit(CHILD_FAIL);
	(void)SYS1(SYS_close, ca->ready_fd);
	/*
	 * The go message carries the resource limits and the two filters,
	 * built by the supervisor once it had the policy.  Anything short of
	 * all of it (the supervisor went away, or gave up before the command
	 * could start) ends the child before its exec.
	 */
	if (read_full(ca->go_fd, &hdr, sizeof(hdr)) < 0 || hdr.go != 'g' ||
	    hdr.n_rlimits > ARRAY_SIZE(hdr.rlimits) ||
	    hdr.guard_len > BPF_MAXINSNS ||
	    hdr.policy_len == 0 || hdr.policy_len > BPF_MAXINSNS ||
	    read_full(ca->go_fd, child_insns, ((size_t)hdr.guard_len + hdr.policy_len) *
		      sizeof(struct sock_filter)) < 0)
		child_exit(CHILD_FAIL);
	/* The CPUs it was started with, for the command. */
	if (ca->moved &&
	    (r = SYS3(SYS_sched_setaffinity, 0, sizeof(ca->cpus), &ca->cpus)) < 0)
		child_fail("restoring the CPU affinity", r);

	/* In the foreground of the terminal if sysgate was (its own process
	 * group): ^C reaches the tree, job control keeps working.  Not fatal
	 * when it fails: no job control then. */
	if (ls->foreground_tty >= 0) {
		const struct ksigaction ign = { .handler = SIG_IGN };
		const struct ksigaction dfl = { .handler = SIG_DFL };
		pid_t self = (pid_t)SYS0(SYS_getpid);

		(void)SYS4(SYS_rt_sigaction, SIGTTOU, &ign, NULL, sizeof(ign.mask));
		(void)SYS3(SYS_ioctl, ls->foreground_tty, TIOCSPGRP, &self);
		(void)SYS4(SYS_rt_sigaction, SIGTTOU, &dfl, NULL, sizeof(dfl.mask));
	}
	for (unsigned i = 0; i < hdr.n_rlimits; i++) {
		struct rlimit rl = { hdr.rlimits[i].value, hdr.rlimits[i].value };

		/* RLIMIT_CPU: SIGXCPU at the limit, SIGKILL a second later. */
		if (hdr.rlimits[i].resource == RLIMIT_CPU)
			rl.rlim_max = rl.rlim_cur + 1;
		if ((r = SYS4(SYS_prlimit64, 0, hdr.rlimits[i].resource, &rl, NULL)) < 0)
			child_fail("setting a resource limit", r);
	}

	{
		/*
		 * Security: a core dump is a file the kernel writes (and first
		 * unlinks) in the crashing task's cwd, or where core_pattern
		 * says, past every rule: none is written for the tree.  A
		 * pattern that pipes to a program takes no notice of the
		 * limit and writes nothing for the tree.  The hard limit
		 * holds: CAP_SYS_RESOURCE, which could raise it, is dropped
		 * below.
		 */
		const struct rlimit no_core = { 0, 0 };

		if ((r = SYS4(SYS_prlimit64, 0, RLIMIT_CORE, &no_core, NULL)) < 0)
			child_fail("setting RLIMIT_CORE", r);
	}
	if (ls->set_user) {
		/* Groups first: setgroups needs the privilege setresuid drops.
		 * The system calls: this task's credentials alone. */
		if ((r = SYS2(SYS_setgroups, ls->n_groups, ls->groups)) < 0)
			child_fail("setgroups", r);
		if ((r = SYS3(SYS_setresgid, ls->gid, ls->gid, ls->gid)) < 0)
			child_fail("setresgid", r);
		if ((r = SYS3(SYS_setresuid, ls->uid, ls->uid, ls->uid)) < 0)
			child_fail("setresuid", r);
	}
	/*
	 * Security: a tree running as root would still hold CAP_SYS_PTRACE,
	 * which overrides the supervisor's non-dumpable flag: ptrace,
	 * process_vm_readv/writev and /proc/PID/mem of the supervisor.  Drop
	 * it from every set, the bounding set included, so that no program
	 * of the tree gets it back at exec.
	 */
	if ((r = drop_cap(CAP_SYS_PTRACE)) < 0)
		child_fail("dropping CAP_SYS_PTRACE", r);
	/*
	 * Security: CAP_SYS_RESOURCE raises hard resource limits: the core
	 * limit of 0 above and the [limits] of the policy would be the
	 * tree's to lift.
	 */
	if ((r = drop_cap(CAP_SYS_RESOURCE)) < 0)
		child_fail("dropping CAP_SYS_RESOURCE", r);
	if ((r = SYS2(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1)) < 0)
		child_fail("PR_SET_NO_NEW_PRIVS", r);
	/* The pipes the supervisor keeps the output from (output.c), as
	 * late as a failure can still be told on sysgate's own stderr. */
	if (ls->stdout_fd > 2 &&
	    (r = SYS2(SYS_dup2, ls->stdout_fd, 1)) < 0)
		child_fail("dup2 of the stdout pipe", r);
	if (ls->stderr_fd > 2 &&
	    (r = SYS2(SYS_dup2, ls->stderr_fd, 2)) < 0)
		child_fail("dup2 of the stderr pipe", r);

	guard.len = hdr.guard_len;
	guard.filter = child_insns;
	policy.len = hdr.policy_len;
	policy.filter = child_insns + hdr.guard_len;
	/* No guard filter: the policy filter holds the guards itself. */
	if (guard.len &&
	    (r = SYS3(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &guard)) < 0)
		child_fail("loading the guard filter", r);
	/*
	 * go_fd stays open: it is O_CLOEXEC, so execve closes it.
	 *
	 * WAIT_KILLABLE_RECV: once the supervisor has received a call, only
	 * a fatal signal interrupts it, so an emulated call cannot be done
	 * twice when a signal handler restarts it.
	 */
	r = seccomp_load_trap(SECCOMP_FILTER_FLAG_NEW_LISTENER |
			      SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &policy);
	if (r == -EINVAL)
		r = seccomp_load_trap(SECCOMP_FILTER_FLAG_NEW_LISTENER, &policy);
	if (r < 0)
		child_fail("loading the policy filter", r);
	/* The listener is O_CLOEXEC: it is gone once execve succeeds.  From
	 * here on the child has its own memory. */
	r = SYS3(SYS_execve, ls->path, ls->argv, ls->envp);
	child_exit(r == -ENOENT || r == -ENOTDIR ? 127 : 126);
}

/*
 * Wait for the child's trap after its seccomp(NEW_LISTENER) and take the
 * listener fd out of it.  A trap that reports an error (the kernel lacks
 * WAIT_KILLABLE_RECV) is resumed: the child tries again or fails.
 */
static int take_listener(const struct launch_spec *ls, pid_t pid, int pidfd,
			 int *listener, int *status)
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
					if (ls->handoff)
						ls->handoff(pid, ls->handoff_arg);
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

/*
 * Performance: the child on another CPU than ours for its set-up, where
 * there is one.  The scheduler tends to start it on our CPU, where it would
 * wait, runnable, until the supervisor sleeps (at launch_start): its set-up
 * then adds to the start-up instead of overlapping the supervisor's (seen
 * on the 2-CPU VM in most runs).  The child takes back its CPUs after the
 * go message, before anything of the command (child_main).  Before the
 * clone returns to us the child cannot have read its go message: ca->moved
 * is set before the go pipe has anything in it.
 */
static void spread(pid_t pid, struct child_arg *ca)
{
	cpu_set_t other;
	int cpu = sched_getcpu();

	if (cpu < 0 || cpu >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(ca->cpus), &ca->cpus) < 0)
		return;
	other = ca->cpus;
	CPU_CLR(cpu, &other);
	if (CPU_COUNT(&other) == 0)
		return;
	ca->moved = true;
	if (sched_setaffinity(pid, sizeof(other), &other) < 0)
		ca->moved = false;
}

int launch_fork(const struct launch_spec *ls, struct launch_child *lc)
{
	/* Read by the child (static: it may still run after we return). */
	static struct child_arg ca;
	int go[2], ready[2];
	pid_t parent = getpid();
	pid_t pid;
	int r;

	*lc = (struct launch_child){ .pid = -1, .go = -1, .ready = -1, .pidfd = -1 };
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ready, O_CLOEXEC) < 0) {
		r = -errno;
		close(go[0]);
		close(go[1]);
		return r;
	}
	ca = (struct child_arg){ ls, go[0], ready[1], go[1], ready[0], parent,
				 false, { { 0 } } };
	/* CLONE_VM: see the rules above child_sys().  Its own files and
	 * signal handlers; SIGCHLD at its end as a forked child. */
	pid = clone(child_main, child_stack + sizeof(child_stack), CLONE_VM | SIGCHLD,
		    &ca);
	if (pid < 0) {
		r = -errno;
		close(go[0]);
		close(go[1]);
		close(ready[0]);
		close(ready[1]);
		return r;
	}
	close(go[0]);
	close(ready[1]);
	spread(pid, &ca);
	lc->pid = pid;
	lc->parent = parent;
	lc->go = go[1];
	lc->ready = ready[0];
	return 0;
}

/* Close lc's pipes and pidfd, free the filters it sent. */
static void child_release(struct launch_child *lc)
{
	if (lc->go >= 0)
		close(lc->go);
	if (lc->ready >= 0)
		close(lc->ready);
	if (lc->pidfd >= 0)
		close(lc->pidfd);
	lc->go = lc->ready = lc->pidfd = -1;
	free(lc->sent_guard.filter);
	free(lc->sent_policy.filter);
	lc->sent_guard = lc->sent_policy = (struct sock_fprog){ 0 };
	lc->went = false;
}

void launch_abandon(struct launch_child *lc)
{
	int st;

	if (lc->pid < 0)
		return;
	/* Without its go message the child ends by itself; the kill makes
	 * it sure, and at once (at its trap stop too). */
	child_release(lc);
	kill(lc->pid, SIGKILL);
	while (waitpid(lc->pid, &st, __WALL) < 0 && errno == EINTR)
		;
	lc->pid = -1;
}

/*
 * Security: EXITKILL, so that the tree dies with the supervisor.  No
 * TRACEEXIT: nothing is decided at a task's exit stop (its exit status says
 * how it ended), and the stop cost every task one more round trip through
 * the supervisor.  The child stops at its trap, no stop is needed before.
 */
static int seize(struct launch_child *lc)
{
	lc->pidfd = pidfd_open(lc->pid, 0);
	if (lc->pidfd < 0)
		return -errno;
	if (ptrace(PTRACE_SEIZE, lc->pid, 0,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP |
				  PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
				  PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL)) < 0)
		return -errno;
	return 0;
}

/* The go message, and the end of the go pipe: 0 or -errno. */
static int send_go(struct launch_child *lc, const struct sock_fprog *guard,
		   const struct sock_fprog *policy,
		   const struct launch_rlimit *rl, unsigned n_rl)
{
	struct go_hdr hdr = { 'g', guard->len, policy->len, (unsigned short)n_rl,
			      { { 0, 0 } } };
	struct iovec iov[3] = {
		{ &hdr, sizeof(hdr) },
		{ guard->filter, guard->len * sizeof(struct sock_filter) },
		{ policy->filter, policy->len * sizeof(struct sock_filter) },
	};
	int r;

	if (n_rl > ARRAY_SIZE(hdr.rlimits))
		return -EINVAL;
	if (n_rl)
		memcpy(hdr.rlimits, rl, n_rl * sizeof(hdr.rlimits[0]));
	r = write_full(lc->go, iov, 3);
	close(lc->go);
	lc->go = -1;
	return r;
}

int launch_go_early(struct launch_child *lc, struct sock_fprog *guard,
		    struct sock_fprog *policy)
{
	int r;

	if (lc->pid < 0 || lc->went) {
		free(guard->filter);
		free(policy->filter);
		*guard = *policy = (struct sock_fprog){ 0 };
		return -ECHILD;
	}
	lc->sent_guard = *guard;
	lc->sent_policy = *policy;
	*guard = *policy = (struct sock_fprog){ 0 };
	r = seize(lc);
	if (r == 0)
		r = send_go(lc, &lc->sent_guard, &lc->sent_policy, NULL, 0);
	if (r < 0) {
		launch_abandon(lc);
		return r;
	}
	lc->went = true;
	return 0;
}

static bool same_prog(const struct sock_fprog *a, const struct sock_fprog *b)
{
	return a->len == b->len &&
	       (a->len == 0 ||
		!memcmp(a->filter, b->filter, a->len * sizeof(struct sock_filter)));
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

	out->pid = -1;
	out->listener = -1;
	out->early_status = -1;
	out->build_failed = false;
	if (lc->pid < 0 && (r = launch_fork(ls, lc)) < 0)
		return r;
	/* The filters are built while the child may still set itself up. */
	r = ls->build(ls->build_arg, &guard, &policy);
	if (r < 0) {
		out->build_failed = true;
		goto fail;
	}
	/*
	 * Security: a child sent its go message early (launch_go_early)
	 * goes on only with exactly the filters built now for the policy
	 * loaded, and only where nothing else was to come before them (no
	 * resource limit, no cgroup): else it is ended and a new one
	 * started, which gets its go message below.
	 */
	if (lc->went && (ls->n_rlimits || ls->place ||
			 !same_prog(&guard, &lc->sent_guard) ||
			 !same_prog(&policy, &lc->sent_policy))) {
		launch_abandon(lc);
		if ((r = launch_fork(ls, lc)) < 0)
			goto fail;
	}
	pid = lc->pid;
	/* The child's set-up is done (or it failed and exited). */
	do
		n = read(lc->ready, &b, 1);
	while (n < 0 && errno == EINTR);
	close(lc->ready);
	lc->ready = -1;
	if (n != 1) {
		child_release(lc);
		while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
			;
		lc->pid = -1;
		out->early_status = st;
		free(guard.filter);
		free(policy.filter);
		return -ECHILD;
	}
	if (!lc->went) {
		/* Security: in its cgroups before it runs anything of the
		 * command, so that every process of the tree is under the
		 * tree's limits. */
		if (ls->place) {
			r = ls->place(pid, ls->place_arg);
			if (r < 0)
				goto fail;
		}
		r = seize(lc);
		if (r == 0)
			r = send_go(lc, &guard, &policy, ls->rlimits, ls->n_rlimits);
		if (r < 0)
			goto fail;
	}
	free(guard.filter);
	free(policy.filter);
	guard.filter = policy.filter = NULL;
	r = take_listener(ls, pid, lc->pidfd, &out->listener, &out->early_status);
	child_release(lc);
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
