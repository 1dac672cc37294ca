/* SPDX-License-Identifier: MIT */
/*
 * try-shm: POSIX shared memory as programs use it: shm_open(O_CREAT|O_EXCL)
 * NAME, ftruncate, mmap, write, close, shm_open it again read-only and
 * check the content, shm_unlink.  Exit with the errno of the first failing
 * step (0: all worked).
 *
 *   try-shm NAME        (NAME like "/sysgate-test-123")
 */
#include "victim.h"

#include <fcntl.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	const char *name;
	char *p;
	int fd;

	victim_name = "try-shm";
	if (argc != 2)
		victim_usage("NAME");
	name = argv[1];
	fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0)
		return victim_result("shm_open create", errno);
	if (ftruncate(fd, 4096) < 0)
		return victim_result("ftruncate", errno);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return victim_result("mmap", errno);
	strcpy(p, "shared hello");
	munmap(p, 4096);
	close(fd);
	fd = shm_open(name, O_RDONLY, 0);
	if (fd < 0)
		return victim_result("shm_open read", errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return victim_result("mmap read", errno);
	if (strcmp(p, "shared hello")) {
		fprintf(stderr, "try-shm: content lost\n");
		return VICTIM_EXIT_SETUP;
	}
	if (shm_unlink(name) < 0)
		return victim_result("shm_unlink", errno);
	return 0;
}
