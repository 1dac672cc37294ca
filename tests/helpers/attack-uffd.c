/* SPDX-License-Identifier: MIT */
/*
 * attack-uffd: pass open() a path that lies in a page registered with
 * userfaultfd and never populated: whoever reads it waits for a fault
 * this process never resolves.  A supervisor that reads the path with a
 * fault it must wait for is stalled for good.  Exits with open's errno
 * (EFAULT when the reader gave up on that one call), 0 if it opened, or
 * 255 when userfaultfd itself is refused (its errno on stderr).  Made
 * by the userfaultfd syscall, or where that is refused (it needs
 * CAP_SYS_PTRACE for faults the kernel takes, which no tree has under
 * sysgate) by /dev/userfaultfd, which needs only the right to open it.
 *
 *   attack-uffd [--dev]
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	char *page;
	long uffd;
	int fd;

	victim_name = "attack-uffd";
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--dev")))
		victim_usage("[--dev]");
	if (argc == 2) {
		int dev = open("/dev/userfaultfd", O_RDONLY | O_CLOEXEC);

		if (dev < 0)
			victim_setup_fail("open /dev/userfaultfd");
		uffd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
	} else {
		uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	}
	if (uffd < 0)
		victim_setup_fail("userfaultfd");
	if (ioctl((int)uffd, UFFDIO_API, &api) < 0)
		victim_setup_fail("UFFDIO_API");
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		victim_setup_fail("mmap");
	reg.range.start = (unsigned long)page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl((int)uffd, UFFDIO_REGISTER, &reg) < 0)
		victim_setup_fail("UFFDIO_REGISTER");
	fd = open(page, O_RDONLY);
	if (fd >= 0)
		return 0;
	return victim_result("open", errno);
}
