/* SPDX-License-Identifier: MIT */
/*
 * try-open: open one path once and exit with the errno seen (0: opened).
 *
 *   try-open [OPTIONS] PATH [FLAGS]
 *
 * FLAGS letters: r O_RDONLY (default), w O_WRONLY, + O_RDWR, a O_APPEND,
 * c O_CREAT, x O_EXCL, T O_TRUNC, d O_DIRECTORY, t O_TMPFILE, p O_PATH,
 * n O_NOFOLLOW.  Created files get mode 0644 (before the umask).
 *
 * OPTIONS:
 *   --syscall open|openat|openat2|creat  which call (default openat)
 *   --at DIR       openat/openat2 relative to a dirfd of DIR
 *                  (O_RDONLY|O_DIRECTORY; --at-path: O_PATH)
 *   --procfd DIR   open "/proc/self/fd/N/PATH", N a dirfd of DIR
 *                  (O_RDONLY|O_DIRECTORY)
 *   --reopen       open PATH with O_PATH first, then "/proc/self/fd/N"
 *                  with FLAGS (the tested call is the second one)
 *   --reopen-ro    the same with an O_RDONLY first open
 *   --tail         the path string ends at the last byte of a mapped
 *                  page followed by an unmapped one
 *   --cat          copy what can be read from the new fd to stdout
 *   --getfl        print the new fd's number, F_GETFD and F_GETFL (octal)
 */
#include "victim.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

static int parse_flags(const char *s)
{
	int acc = -1, fl = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'r': acc = O_RDONLY; break;
		case 'w': acc = O_WRONLY; break;
		case '+': acc = O_RDWR; break;
		case 'a': fl |= O_APPEND; break;
		case 'c': fl |= O_CREAT; break;
		case 'x': fl |= O_EXCL; break;
		case 'T': fl |= O_TRUNC; break;
		case 'd': fl |= O_DIRECTORY; break;
		case 't': fl |= O_TMPFILE; break;
		case 'p': fl |= O_PATH; break;
		case 'n': fl |= O_NOFOLLOW; break;
		default:
			fprintf(stderr, "try-open: unknown flag '%c'\n", *s);
			exit(VICTIM_EXIT_SETUP);
		}
	}
	if (acc < 0)
		acc = ((fl & O_APPEND) || (fl & O_TMPFILE) == O_TMPFILE) ?
		      O_WRONLY : O_RDONLY;
	return acc | fl;
}

int main(int argc, char **argv)
{
	const char *sc = "openat", *at = NULL, *procfd = NULL;
	int tail = 0, cat = 0, getfl = 0, reopen = 0, flags, dirfd = AT_FDCWD, fd;
	int at_flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	char buf[4096];
	char *path;
	int i;

	victim_name = "try-open";
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--syscall") && i + 1 < argc)
			sc = argv[++i];
		else if (!strcmp(argv[i], "--at") && i + 1 < argc)
			at = argv[++i];
		else if (!strcmp(argv[i], "--at-path") && i + 1 < argc) {
			at = argv[++i];
			at_flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		}
		else if (!strcmp(argv[i], "--procfd") && i + 1 < argc)
			procfd = argv[++i];
		else if (!strcmp(argv[i], "--reopen"))
			reopen = 1;
		else if (!strcmp(argv[i], "--reopen-ro"))
			reopen = 2;
		else if (!strcmp(argv[i], "--tail"))
			tail = 1;
		else if (!strcmp(argv[i], "--cat"))
			cat = 1;
		else if (!strcmp(argv[i], "--getfl"))
			getfl = 1;
		else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else
			victim_usage("[--syscall open|openat|openat2|creat] "
				     "[--at DIR|--at-path DIR|--procfd DIR|--reopen|"
				     "--reopen-ro] "
				     "[--tail] "
				     "[--cat] [--getfl] PATH [FLAGS]");
	}
	if (i >= argc || argc - i > 2)
		victim_usage("[OPTIONS] PATH [FLAGS]");
	flags = parse_flags(i + 1 < argc ? argv[i + 1] : "r");

	if (at) {
		dirfd = open(at, at_flags);
		if (dirfd < 0)
			victim_setup_fail("open dir %s", at);
	}
	if (procfd) {
		int d = open(procfd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (d < 0)
			victim_setup_fail("open dir %s", procfd);
		snprintf(buf, sizeof buf, "/proc/self/fd/%d/%s", d, argv[i]);
		path = strdup(buf);
	} else if (reopen) {
		int p = open(argv[i],
			     (reopen == 1 ? O_PATH : O_RDONLY) | O_CLOEXEC);

		if (p < 0)
			victim_setup_fail("first open of %s", argv[i]);
		snprintf(buf, sizeof buf, "/proc/self/fd/%d", p);
		path = strdup(buf);
	} else {
		path = strdup(argv[i]);
	}
	if (!path)
		victim_setup_fail("strdup");
	if (tail)
		path = victim_tail_str(path);

	if (!strcmp(sc, "openat")) {
		fd = openat(dirfd, path, flags, 0644);
	} else if (!strcmp(sc, "open")) {
		fd = syscall(SYS_open, path, flags, 0644);
	} else if (!strcmp(sc, "creat")) {
		fd = syscall(SYS_creat, path, 0644);
	} else if (!strcmp(sc, "openat2")) {
		struct open_how how = { .flags = (unsigned)flags, .mode = 0 };

		if (flags & (O_CREAT | O_TMPFILE))
			how.mode = 0644;
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
	} else {
		victim_usage("--syscall open|openat|openat2|creat ...");
	}
	if (fd < 0)
		return victim_result(argv[i], errno);

	if (getfl)
		printf("fd=%d getfd=%d getfl=0%o\n", fd, fcntl(fd, F_GETFD),
		       (unsigned)fcntl(fd, F_GETFL));
	if (cat) {
		ssize_t n;

		while ((n = read(fd, buf, sizeof buf)) > 0)
			if (write(1, buf, n) != n)
				victim_setup_fail("write stdout");
	}
	return 0;
}
