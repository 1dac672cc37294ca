/* SPDX-License-Identifier: MIT */
/*
 * attack-priv: the privileged or escape-prone calls that try-priv does
 * not make, with arguments that make them harmless if they get through.
 * Exits with the errno seen; the test also checks that the denial is the
 * policy's (an audit record), since some of them fail with EPERM natively
 * for an unprivileged user.
 *
 *   attack-priv open_by_handle_at|name_to_handle_at|process_vm_writev|
 *               process_vm_readv|pidfd_getfd|perf_event_open|kexec_load|
 *               finit_module|delete_module|fsopen|open_tree|chroot|
 *               pivot_root|swapon|io_uring_enter|add_key
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

int main(int argc, char **argv)
{
	const char *op;
	long r;

	victim_name = "attack-priv";
	if (argc != 2)
		victim_usage("SYSCALL");
	op = argv[1];
	if (!strcmp(op, "open_by_handle_at")) {
		struct { unsigned int bytes; int type; unsigned char h[8]; } fh =
			{ 8, 1, { 2, 0, 0, 0, 0, 0, 0, 0 } };	/* inode 2: the root */
		r = syscall(SYS_open_by_handle_at, AT_FDCWD, &fh, O_RDONLY);
	} else if (!strcmp(op, "name_to_handle_at")) {
		struct { unsigned int bytes; int type; unsigned char h[128]; } fh =
			{ 128, 0, { 0 } };
		int mnt;
		r = syscall(SYS_name_to_handle_at, AT_FDCWD, ".", &fh, &mnt, 0);
	} else if (!strcmp(op, "process_vm_writev") ||
		   !strcmp(op, "process_vm_readv")) {
		char buf[8] = "x";
		struct iovec l = { buf, 1 }, rv = { buf, 1 };
		r = op[11] == 'w' ? process_vm_writev(getpid(), &l, 1, &rv, 1, 0)
				  : process_vm_readv(getpid(), &l, 1, &rv, 1, 0);
	} else if (!strcmp(op, "pidfd_getfd")) {
		int pfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
		if (pfd < 0)
			victim_setup_fail("pidfd_open");
		r = syscall(SYS_pidfd_getfd, pfd, 0, 0);
	} else if (!strcmp(op, "perf_event_open"))
		r = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
	else if (!strcmp(op, "kexec_load"))
		r = syscall(SYS_kexec_load, 0UL, 0UL, NULL, 0xdeadUL);
	else if (!strcmp(op, "finit_module"))
		r = syscall(SYS_finit_module, -1, "", 0);
	else if (!strcmp(op, "delete_module"))
		r = syscall(SYS_delete_module, "sysgate_no_such_module", 0);
	else if (!strcmp(op, "fsopen"))
		r = syscall(SYS_fsopen, "sysgate-no-such-fs", 0);
	else if (!strcmp(op, "open_tree"))
		r = syscall(SYS_open_tree, -1, "", 0);
	else if (!strcmp(op, "chroot"))
		r = syscall(SYS_chroot, "/sysgate-no-such-dir");
	else if (!strcmp(op, "pivot_root"))
		r = syscall(SYS_pivot_root, NULL, NULL);
	else if (!strcmp(op, "swapon"))
		r = syscall(SYS_swapon, NULL, 0);
	else if (!strcmp(op, "io_uring_enter"))
		r = syscall(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0);
	else if (!strcmp(op, "add_key"))
		r = syscall(SYS_add_key, NULL, NULL, NULL, 0, 0);
	else
		victim_usage("SYSCALL");
	return victim_result(op, r < 0 ? errno : 0);
}
