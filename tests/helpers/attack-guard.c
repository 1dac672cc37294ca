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
 *   attack-guard fifreeze DIR ioctl(FIFREEZE) on DIR's file system (give a
 *                             tmpfs: natively EOPNOTSUPP for root, EPERM
 *                             for others; sysgate: EPERM); one that froze
 *                             is thawed at once
 *   attack-guard fithaw DIR   ioctl(FITHAW) (natively EINVAL for root on a
 *                             file system not frozen; sysgate: EPERM)
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#define NR_SETXATTRAT 463
#define USAGE "tiocsti|tioclinux|tiocsti-hi|setxattrat | fifreeze|fithaw DIR"

int main(int argc, char **argv)
{
	char c = 'x';
	char sub[2] = { 3, 0 };	/* TIOCL_SETSEL-like request byte */
	long r;

	victim_name = "attack-guard";
	if (argc == 3 && (!strcmp(argv[1], "fifreeze") ||
			  !strcmp(argv[1], "fithaw"))) {
		int fd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			victim_setup_fail("open %s", argv[2]);
		if (argv[1][2] == 'f') {
			r = syscall(SYS_ioctl, fd, (unsigned long)FIFREEZE, 0);
			if (r == 0)	/* never leave it frozen */
				(void)syscall(SYS_ioctl, fd, (unsigned long)FITHAW, 0);
		} else {
			r = syscall(SYS_ioctl, fd, (unsigned long)FITHAW, 0);
		}
		return victim_result(argv[1], r < 0 ? errno : 0);
	}
	if (argc != 2)
		victim_usage(USAGE);
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
		victim_usage(USAGE);
	return victim_result(argv[1], r < 0 ? errno : 0);
}
