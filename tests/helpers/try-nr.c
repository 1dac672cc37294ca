/* SPDX-License-Identifier: MIT */
/*
 * try-nr: make one raw syscall by number, with arguments that make it
 * harmless if it gets through, and exit with the errno (0 on success).
 * Used for the closed syscall world: numbers the syscall table has no
 * row for (holes, numbers newer than the table, numbers above the
 * highest), and calls refused under every policy.
 *
 *   try-nr NR              syscall(NR, -1, 0, 0, 0, 0, 0)
 *   try-nr setattr PATH    file_setattr(AT_FDCWD, PATH, NODUMP flag)
 *   try-nr getattr PATH    file_getattr(AT_FDCWD, PATH)
 */
#include "victim.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>

/* Linux 6.17's struct file_attr and numbers (newer than our headers). */
struct try_file_attr {
	uint64_t fa_xflags;
	uint32_t fa_extsize;
	uint32_t fa_nextents;
	uint32_t fa_projid;
	uint32_t fa_cowextsize;
};
#define TRY_NR_FILE_GETATTR 468
#define TRY_NR_FILE_SETATTR 469
#define TRY_XFLAG_NODUMP 0x00000080

int main(int argc, char **argv)
{
	struct try_file_attr fa = { 0 };
	char *end;
	long nr, r;

	victim_name = "try-nr";
	if (argc == 3 && !strcmp(argv[1], "getattr")) {
		r = syscall(TRY_NR_FILE_GETATTR, AT_FDCWD, argv[2], &fa,
			    sizeof(fa), 0);
		return victim_result("file_getattr", r < 0 ? errno : 0);
	}
	if (argc == 3 && !strcmp(argv[1], "setattr")) {
		fa.fa_xflags = TRY_XFLAG_NODUMP;
		r = syscall(TRY_NR_FILE_SETATTR, AT_FDCWD, argv[2], &fa,
			    sizeof(fa), 0);
		return victim_result("file_setattr", r < 0 ? errno : 0);
	}
	if (argc != 2)
		victim_usage("NR | setattr PATH | getattr PATH");
	errno = 0;
	nr = strtol(argv[1], &end, 0);
	if (errno || *end || nr < 0)
		victim_usage("NR | setattr PATH | getattr PATH");
	r = syscall(nr, -1L, 0L, 0L, 0L, 0L, 0L);
	return victim_result("syscall", r < 0 ? errno : 0);
}
