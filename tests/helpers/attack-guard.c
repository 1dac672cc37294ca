/* SPDX-License-Identifier: MIT */
/*
 * attack-guard: one call that sysgate's guards refuse whatever the policy
 * allows (rules_build_guard_filter(): the guard filter, or the policy
 * filter where it holds the guards).  Exits with the errno the call gave.
 *
 *   attack-guard tiocsti      ioctl(0, TIOCSTI, "x"): push a character
 *                             into the terminal's input (sysgate: EPERM;
 *                             natively on a non-terminal: ENOTTY)
 *   attack-guard tioclinux    ioctl(0, TIOCLINUX, ...) (sysgate: EPERM)
 *   attack-guard tiocsti-hi   TIOCSTI with the upper half of the command
 *                             set, which the kernel ignores (EPERM)
 *   attack-guard setxattrat   setxattrat(2) of Linux 6.13, a path call the
 *                             supervisor does not carry out (sysgate:
 *                             ENOSYS; natively: whatever the kernel says)
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#define NR_SETXATTRAT 463

int main(int argc, char **argv)
{
	char c = 'x';
	char sub[2] = { 3, 0 };	/* TIOCL_SETSEL-like request byte */
	long r;

	victim_name = "attack-guard";
	if (argc != 2)
		victim_usage("tiocsti|tioclinux|tiocsti-hi|setxattrat");
	if (!strcmp(argv[1], "tiocsti"))
		r = syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI, &c);
	else if (!strcmp(argv[1], "tioclinux"))
		r = syscall(SYS_ioctl, 0, (unsigned long)TIOCLINUX, sub);
	else if (!strcmp(argv[1], "tiocsti-hi"))
		r = syscall(SYS_ioctl, 0, 0x100000000ul | TIOCSTI, &c);
	else if (!strcmp(argv[1], "setxattrat"))
		r = syscall(NR_SETXATTRAT, AT_FDCWD, "/nonexistent", 0,
			    "user.x", NULL, 0);
	else
		victim_usage("tiocsti|tioclinux|tiocsti-hi|setxattrat");
	return victim_result(argv[1], r < 0 ? errno : 0);
}
