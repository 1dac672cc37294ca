/* SPDX-License-Identifier: MIT */
/*
 * bench-runcmd [-m] [-o OUT] [-e ERR] -- CMD [ARG...]: run CMD once and
 * print "<wall us> <status>", status as a shell shows it (128+N for signal
 * N).  stdin is /dev/null; stdout and stderr go to OUT and ERR (default
 * /dev/null).
 *
 * -m adds "<peak RSS kB> <CPU ms>" of CMD's own process, not of its
 * children: CMD is traced for its exit only (PTRACE_O_TRACEEXIT), and at
 * that stop VmHWM and utime+stime (all its threads, without waited-for
 * children) are read from /proc.  wait4's ru_maxrss would not do: it is
 * the largest of the process and every descendant it waited for, and
 * sysgate waits for the whole tree it supervises.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"

static void die(const char *what)
{
	fprintf(stderr, "bench-runcmd: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long vm_hwm_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* utime + stime of the whole thread group, in ms. */
static long cpu_ms(pid_t pid)
{
	char path[64], buf[2048];
	unsigned long ut, stime;
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* Fields after the command name, which may hold spaces: field 3 is
	 * the state, utime and stime are fields 14 and 15. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &stime) != 2)
		return -1;
	return (long)((ut + stime) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

static void redirect(int to, const char *path, int flags)
{
	int fd = open(path ? path : "/dev/null", flags, 0644);

	if (fd < 0 || dup2(fd, to) < 0)
		_exit(126);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *err = NULL;
	bool mem = false, armed = false;
	long hwm = -1, cpu = -1;
	uint64_t t0, t1;
	pid_t pid;
	int c, st;

	while ((c = getopt(argc, argv, "+mo:e:")) != -1) {
		switch (c) {
		case 'm':
			mem = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'e':
			err = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: bench-runcmd [-m] [-o OUT] [-e ERR] -- CMD [ARG...]\n");
		return 2;
	}
	t0 = bench_now_ns();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		redirect(STDIN_FILENO, NULL, O_RDONLY);
		redirect(STDOUT_FILENO, out, O_WRONLY | O_CREAT | O_TRUNC);
		redirect(STDERR_FILENO, err, O_WRONLY | O_CREAT | O_TRUNC);
		if (mem && ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			_exit(126);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			die("waitpid");
		}
		if (!WIFSTOPPED(st))
			break;
		if (!armed && WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0) {
			/* The stop after execve: from now on, stop at the exit. */
			ptrace(PTRACE_SETOPTIONS, pid, 0,
			       (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
			armed = true;
			ptrace(PTRACE_CONT, pid, 0, 0);
		} else if ((st >> 16) == PTRACE_EVENT_EXIT) {
			hwm = vm_hwm_kb(pid);
			cpu = cpu_ms(pid);
			ptrace(PTRACE_CONT, pid, 0, 0);
		} else {
			ptrace(PTRACE_CONT, pid, 0,
			       (void *)(long)((st >> 16) ? 0 : WSTOPSIG(st)));
		}
	}
	t1 = bench_now_ns();
	printf("%llu %d", (unsigned long long)((t1 - t0) / 1000),
	       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	if (mem)
		printf(" %ld %ld", hwm, cpu);
	printf("\n");
	return 0;
}
