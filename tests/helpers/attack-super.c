/* SPDX-License-Identifier: MIT */
/*
 * attack-super: reach into the supervisor, which is the parent of the
 * command's first process (or into PID).  Exits with the errno the attack
 * call gave, 0 if it got through.  What an attack that gets through does
 * is meant to show from outside:
 *
 *   attack-super ptrace-attach [PID]   PTRACE_ATTACH, then detach with
 *                                      SIGKILL: the supervisor dies
 *   attack-super ptrace-seize [PID]    PTRACE_SEIZE + INTERRUPT, the same
 *   attack-super vm-read [PID]         process_vm_readv (EFAULT: allowed,
 *                                      only the address was bad)
 *   attack-super vm-write [PID]        process_vm_writev, the same
 *   attack-super proc FORM FLAGS [PID] open a /proc file of the target;
 *                                      FORM mem|environ|task-mem|dotdot-mem|
 *                                      at-mem (openat on a /proc dirfd);
 *                                      FLAGS r|w; prints what it read
 *   attack-super getfd [PID]           pidfd_open + pidfd_getfd of fds
 *                                      3..20; writes a line of junk into
 *                                      every stolen writable regular file
 */
#include "victim.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define JUNK "ESCAPE-JUNK from attack-super\n"

static pid_t target(int argc, char **argv, int i)
{
	return argc > i ? (pid_t)victim_long(argv[i], "pid") : getppid();
}

static int do_ptrace(pid_t pid, int seize)
{
	long r;
	int st;

	if (seize)
		r = ptrace(PTRACE_SEIZE, pid, 0L, 0L);
	else
		r = ptrace(PTRACE_ATTACH, pid, 0L, 0L);
	if (r < 0)
		return victim_result("ptrace", errno);
	printf("attack-super: ATTACHED to %d\n", pid);
	fflush(stdout);
	if (seize)
		ptrace(PTRACE_INTERRUPT, pid, 0L, 0L);
	waitpid(pid, &st, __WALL);
	ptrace(PTRACE_DETACH, pid, 0L, (long)SIGKILL);
	kill(pid, SIGKILL);
	return 0;
}

static int do_vm(pid_t pid, int write)
{
	char buf[64] = "ESCAPE";
	struct iovec l = { buf, sizeof buf };
	/* Any address: a kernel that lets the call past its permission
	 * check answers EFAULT (or reads) instead of EPERM. */
	struct iovec r = { (void *)0x10000, sizeof buf };
	ssize_t n;

	if (write)
		n = process_vm_writev(pid, &l, 1, &r, 1, 0);
	else
		n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n < 0 && errno == EFAULT)
		printf("attack-super: permission check PASSED (EFAULT)\n");
	return victim_result(write ? "process_vm_writev" : "process_vm_readv",
			     n < 0 ? errno : 0);
}

static int do_proc(pid_t pid, const char *form, const char *flags)
{
	char p[128], buf[4096];
	int fl = strcmp(flags, "w") ? O_RDONLY : O_WRONLY;
	int fd;
	ssize_t n;

	if (!strcmp(form, "at-mem")) {
		int d = open("/proc", O_RDONLY | O_DIRECTORY);

		if (d < 0)
			victim_setup_fail("open /proc");
		snprintf(p, sizeof p, "%d/mem", pid);
		fd = openat(d, p, fl | O_CLOEXEC);
	} else {
		if (!strcmp(form, "mem"))
			snprintf(p, sizeof p, "/proc/%d/mem", pid);
		else if (!strcmp(form, "environ"))
			snprintf(p, sizeof p, "/proc/%d/environ", pid);
		else if (!strcmp(form, "task-mem"))
			snprintf(p, sizeof p, "/proc/%d/task/%d/mem", pid, pid);
		else if (!strcmp(form, "task-environ"))
			snprintf(p, sizeof p, "/proc/%d/task/%d/environ", pid,
				 pid);
		else if (!strcmp(form, "dotdot-mem"))
			snprintf(p, sizeof p, "/proc/self/../%d/mem", pid);
		else
			victim_usage("proc mem|environ|task-mem|task-environ|"
				     "dotdot-mem|at-mem r|w [PID]");
		fd = open(p, fl | O_CLOEXEC);
	}
	if (fd < 0)
		return victim_result(p, errno);
	printf("attack-super: OPENED %s\n", p);
	if (fl == O_RDONLY && strcmp(form, "mem") && strcmp(form, "task-mem") &&
	    strcmp(form, "dotdot-mem") && strcmp(form, "at-mem")) {
		n = read(fd, buf, sizeof buf - 1);
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				if (!buf[i])
					buf[i] = '\n';
			fwrite(buf, 1, (size_t)n, stdout);
		}
	}
	return 0;
}

static int do_getfd(pid_t pid)
{
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int got = 0, err = 0;

	if (pfd < 0)
		return victim_result("pidfd_open", errno);
	for (int n = 3; n <= 20; n++) {
		int fd = (int)syscall(SYS_pidfd_getfd, pfd, n, 0);
		char l[64], what[256] = "";
		struct stat st;
		ssize_t k;

		if (fd < 0) {
			if (errno != EBADF)
				err = errno;
			continue;
		}
		got++;
		snprintf(l, sizeof l, "/proc/self/fd/%d", fd);
		k = readlink(l, what, sizeof what - 1);
		what[k > 0 ? k : 0] = '\0';
		printf("attack-super: STOLE fd %d: %s\n", n, what);
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    (fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDONLY &&
		    write(fd, JUNK, strlen(JUNK)) > 0)
			printf("attack-super: wrote junk into %s\n", what);
	}
	if (got)
		return 0;
	return victim_result("pidfd_getfd", err ? err : EBADF);
}

int main(int argc, char **argv)
{
	const char *op;

	victim_name = "attack-super";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		victim_usage("ptrace-attach|ptrace-seize|vm-read|vm-write|"
			     "proc FORM r|w|getfd [PID]");
	op = argv[1];
	if (!strcmp(op, "ptrace-attach"))
		return do_ptrace(target(argc, argv, 2), 0);
	if (!strcmp(op, "ptrace-seize"))
		return do_ptrace(target(argc, argv, 2), 1);
	if (!strcmp(op, "vm-read"))
		return do_vm(target(argc, argv, 2), 0);
	if (!strcmp(op, "vm-write"))
		return do_vm(target(argc, argv, 2), 1);
	if (!strcmp(op, "proc") && argc >= 4)
		return do_proc(target(argc, argv, 4), argv[2], argv[3]);
	if (!strcmp(op, "getfd"))
		return do_getfd(target(argc, argv, 2));
	victim_usage("ptrace-attach|ptrace-seize|vm-read|vm-write|"
		     "proc FORM r|w|getfd [PID]");
}
