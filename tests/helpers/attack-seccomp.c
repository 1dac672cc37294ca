/* SPDX-License-Identifier: MIT */
/*
 * attack-seccomp: weaken sysgate's filters with filters of one's own.
 *
 *   attack-seccomp listener          install a filter with its own
 *                                    listener (sysgate: EBUSY)
 *   attack-seccomp allow PATH        install an allow-everything filter,
 *                                    then open PATH and print it
 *   attack-seccomp trace PATH        a RET_TRACE-everything filter (stops
 *                                    the supervisor did not ask for),
 *                                    then open PATH and print it
 *
 * Exits with the errno of the listener load, or of the open (0: read).
 * The test checks that the secret's content is not in the output.
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static long load(unsigned ret, unsigned flags)
{
	struct sock_filter f[] = { BPF_STMT(BPF_RET | BPF_K, ret) };
	struct sock_fprog prog = { 1, f };

	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static int cat(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return victim_result(path, errno);
	while ((n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	long r;

	victim_name = "attack-seccomp";
	if (argc == 2 && !strcmp(argv[1], "listener")) {
		r = load(SECCOMP_RET_ALLOW, SECCOMP_FILTER_FLAG_NEW_LISTENER);
		if (r >= 0)
			printf("attack-seccomp: GOT A LISTENER fd %ld\n", r);
		return victim_result("NEW_LISTENER", r < 0 ? errno : 0);
	}
	if (argc == 3 && !strcmp(argv[1], "allow")) {
		if (load(SECCOMP_RET_ALLOW, 0) < 0)
			victim_setup_fail("loading an allow filter");
		return cat(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "trace")) {
		if (load(SECCOMP_RET_TRACE | 0x7777, 0) < 0)
			victim_setup_fail("loading a trace filter");
		return cat(argv[2]);
	}
	victim_usage("listener | allow PATH | trace PATH");
}
