/* SPDX-License-Identifier: MIT */
/*
 * try-priv: make one privileged or escape-prone syscall, with arguments
 * that make it harmless (or fail) if it gets through, and exit with the
 * errno.  Natively these fail with EINVAL, EFAULT, EBADF, EIO... (or
 * succeed, for unshare), never EPERM when run as root, so an EPERM comes
 * from the policy.
 *
 *   try-priv unshare|mount|bpf|io_uring|keyctl|userfaultfd|ptrace|setns|init_module
 */
#include "victim.h"

#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	const char *op;
	long r;

	victim_name = "try-priv";
	if (argc != 2)
		victim_usage("unshare|mount|bpf|io_uring|keyctl|userfaultfd|"
			     "ptrace|setns|init_module");
	op = argv[1];
	if (!strcmp(op, "unshare"))
		r = unshare(CLONE_NEWUSER);
	else if (!strcmp(op, "mount"))
		r = syscall(SYS_mount, NULL, NULL, NULL, 0UL, NULL);
	else if (!strcmp(op, "bpf"))
		r = syscall(SYS_bpf, -1, NULL, 0);
	else if (!strcmp(op, "io_uring"))
		r = syscall(SYS_io_uring_setup, 0, NULL);
	else if (!strcmp(op, "keyctl"))
		r = syscall(SYS_keyctl, -1L, 0L, 0L, 0L, 0L);
	else if (!strcmp(op, "userfaultfd"))
		r = syscall(SYS_userfaultfd, -1);
	else if (!strcmp(op, "ptrace"))
		r = syscall(SYS_ptrace, 0x7fffffffL, 0L, 0L, 0L);
	else if (!strcmp(op, "setns"))
		r = syscall(SYS_setns, -1, 0);
	else if (!strcmp(op, "init_module"))
		r = syscall(SYS_init_module, NULL, 0UL, "");
	else
		victim_usage("unshare|mount|bpf|io_uring|keyctl|userfaultfd|"
			     "ptrace|setns|init_module");
	return victim_result(op, r < 0 ? errno : 0);
}
