/* SPDX-License-Identifier: MIT */
/*
 * try-chmod: chmod(2) once and exit with the errno.
 *
 *   try-chmod [--tail] PATH MODE        (MODE octal)
 */
#include "victim.h"

#include <sys/stat.h>

int main(int argc, char **argv)
{
	int i = 1, tail = 0, r;
	char *p;

	victim_name = "try-chmod";
	if (i < argc && !strcmp(argv[i], "--tail")) {
		tail = 1;
		i++;
	}
	if (argc - i != 2)
		victim_usage("[--tail] PATH MODE");
	p = tail ? victim_tail_str(argv[i]) : argv[i];
	r = chmod(p, strtoul(argv[i + 1], NULL, 8));
	return victim_result(argv[i], r < 0 ? errno : 0);
}
