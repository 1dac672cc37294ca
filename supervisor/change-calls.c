/* SPDX-License-Identifier: MIT */
/*
 * The table of the calls that change the file system (h-change.c):
 * below the handlers and builtin.c, which asks whether a call takes a name
 * away (the trail's directories), so neither calls the other.
 */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>

#include "common/util.h"
#include "supervisor/handlers.h"

#define ROW(name, o, m, d, f, w, fixed, fol) \
	{ SYS_##name, OP_##o, m, d, f, w, fixed, fol }

static const struct change_call change_calls[] = {
	/*   call       op        mode dev flags owner fixed  follow */
	ROW(mkdir,      MKDIR,    1,  -1, -1,  -1,   0,     false),
	ROW(mkdirat,    MKDIR,    2,  -1, -1,  -1,   0,     false),
	ROW(mknod,      MKNOD,    1,   2, -1,  -1,   0,     false),
	ROW(mknodat,    MKNOD,    2,   3, -1,  -1,   0,     false),
	ROW(rmdir,      UNLINK,  -1,  -1, -1,  -1,   AT_REMOVEDIR, false),
	ROW(unlink,     UNLINK,  -1,  -1, -1,  -1,   0,     false),
	ROW(unlinkat,   UNLINK,  -1,  -1,  2,  -1,   0,     false),
	ROW(rename,     RENAME,  -1,  -1, -1,  -1,   0,     false),
	ROW(renameat,   RENAME,  -1,  -1, -1,  -1,   0,     false),
	ROW(renameat2,  RENAME,  -1,  -1,  4,  -1,   0,     false),
	ROW(link,       LINK,    -1,  -1, -1,  -1,   0,     false),
	ROW(linkat,     LINK,    -1,  -1,  4,  -1,   0,     false),
	ROW(symlink,    SYMLINK, -1,  -1, -1,  -1,   0,     false),
	ROW(symlinkat,  SYMLINK, -1,  -1, -1,  -1,   0,     false),
	ROW(chmod,      CHMOD,    1,  -1, -1,  -1,   0,     true),
	ROW(fchmod,     CHMOD,    1,  -1, -1,  -1,   0,     true),
	ROW(fchmodat,   CHMOD,    2,  -1, -1,  -1,   0,     true),
	ROW(fchmodat2,  CHMOD,    2,  -1,  3,  -1,   0,     true),
	ROW(chown,      CHOWN,   -1,  -1, -1,   1,   0,     true),
	ROW(lchown,     CHOWN,   -1,  -1, -1,   1,   0,     false),
	ROW(fchown,     CHOWN,   -1,  -1, -1,   1,   0,     false),
	ROW(fchownat,   CHOWN,   -1,  -1,  4,   2,   0,     true),
	ROW(truncate,   TRUNCATE, -1, -1, -1,   1,   0,     true),
};

#undef ROW

const struct change_call *change_call_of(int nr)
{
	for (size_t i = 0; i < ARRAY_SIZE(change_calls); i++)
		if (change_calls[i].nr == nr)
			return &change_calls[i];
	return NULL;
}

bool change_removes_name(int nr)
{
	const struct change_call *row = change_call_of(nr);

	return row && (row->op == OP_RENAME || row->op == OP_UNLINK);
}
