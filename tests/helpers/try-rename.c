/* SPDX-License-Identifier: MIT */
/*
 * try-rename: rename(2) once (renameat2 RENAME_EXCHANGE with --exchange)
 * and exit with the errno.
 *
 *   try-rename [--tail] [--exchange] OLD NEW
 */
#include "victim.h"

#include <fcntl.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int i = 1, tail = 0, exch = 0, r;
	char *o, *n;

	victim_name = "try-rename";
	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--tail"))
			tail = 1;
		else if (!strcmp(argv[i], "--exchange"))
			exch = 1;
		else
			victim_usage("[--tail] [--exchange] OLD NEW");
	}
	if (argc - i != 2)
		victim_usage("[--tail] [--exchange] OLD NEW");
	o = tail ? victim_tail_str(argv[i]) : argv[i];
	n = tail ? victim_tail_str(argv[i + 1]) : argv[i + 1];
	if (exch)
		r = renameat2(AT_FDCWD, o, AT_FDCWD, n, RENAME_EXCHANGE);
	else
		r = rename(o, n);
	return victim_result(argv[i + 1], r < 0 ? errno : 0);
}
