/* SPDX-License-Identifier: MIT */
/*
 * replay: runs a libFuzzer target without libFuzzer, under make check: on
 * each file of the target's checked-in corpus
 * ($srcdir/tests/fuzz/corpus/REPLAY_CORPUS, REPLAY_CORPUS defined by each
 * replay program's build rule; or the files and directories given as
 * arguments), and on a fixed set of
 * variants of each (cut at a few offsets, a few bytes flipped), so a gcc
 * build exercises the target too.  Exits 0 when every input ran; a bug
 * shows as a crash or a sanitizer report.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define REPLAY_MAX_INPUT (4 * 1024 * 1024)

#ifndef REPLAY_CORPUS
#error "define REPLAY_CORPUS, the directory of tests/fuzz/corpus/ to replay"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long runs;

static void run(const uint8_t *data, size_t size)
{
	LLVMFuzzerTestOneInput(data, size);
	runs++;
}

/* The input, then cuts and flips at positions spread over it. */
static void run_variants(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	run(data, size);
	if (size == 0)
		return;
	copy = malloc(size);
	if (!copy) {
		perror("replay");
		exit(99);
	}
	for (unsigned k = 1; k <= 7; k++) {
		size_t at = size * k / 8;

		run(data, at);
		memcpy(copy, data, size);
		copy[at] ^= (uint8_t)(1u << k);
		run(copy, size);
		memcpy(copy, data, size);
		copy[at] = '\n';
		run(copy, size);
	}
	free(copy);
}

static int run_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf;
	size_t len = 0;

	if (fd < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(REPLAY_MAX_INPUT);
	if (!buf) {
		close(fd);
		return -1;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, REPLAY_MAX_INPUT - len);

		if (n < 0) {
			fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (n == 0 || (len += (size_t)n) == REPLAY_MAX_INPUT)
			break;
	}
	close(fd);
	run_variants(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, rc = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (names[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			if (run_file(sub) < 0)
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	char dir[4096];
	int rc = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			if (run_path(argv[i]) < 0)
				rc = 99;
	} else {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s",
			 srcdir ? srcdir : ".", REPLAY_CORPUS);
		if (run_path(dir) < 0)
			rc = 99;
	}
	printf("replay: %lu inputs%s\n", runs, rc ? " (some unreadable)" : "");
	if (!rc && runs == 0)
		rc = 99;
	return rc;
}
