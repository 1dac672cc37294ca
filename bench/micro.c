/* SPDX-License-Identifier: MIT */
/*
 * bench-micro OP N BATCHES: time one call of the micro table in this
 * process, as it is (natively) or under `sysgate run`.  Prints
 * "<median ns per call> <result of the first call>".  OP+thread: the
 * calls are made by a second thread of the process, not its leader.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

struct run {
	enum bench_op op;
	long n;
	int batches;
	double ns;
	char result[32];
	int r;
};

static void *run_op(void *arg)
{
	struct run *run = arg;
	struct bench_ctx ctx;

	run->r = bench_setup(run->op, &ctx);
	if (run->r == 0)
		run->r = bench_measure(&ctx, run->n, run->batches, &run->ns,
				       run->result, sizeof(run->result));
	return NULL;
}

int main(int argc, char **argv)
{
	struct run run = { .r = -EINVAL };
	char name[32];
	size_t len;
	bool thread = false;
	pthread_t t;

	if (argc == 4) {
		len = strlen(argv[1]);
		thread = len > 7 && !strcmp(argv[1] + len - 7, "+thread");
		snprintf(name, sizeof(name), "%.*s", (int)(thread ? len - 7 : len), argv[1]);
	}
	if (argc != 4 || bench_op_parse(name, &run.op) < 0) {
		fprintf(stderr, "usage: bench-micro getppid|open-deny|open-allow|exec|connect[+thread] N BATCHES\n");
		return 2;
	}
	run.n = atol(argv[2]);
	run.batches = atoi(argv[3]);
	if (!thread)
		run_op(&run);
	else if ((errno = pthread_create(&t, NULL, run_op, &run)) != 0)
		run.r = -errno;
	else
		pthread_join(t, NULL);
	if (run.r < 0) {
		fprintf(stderr, "bench-micro %s: %s\n", argv[1], strerror(-run.r));
		return 1;
	}
	printf("%.1f %s\n", run.ns, run.result);
	return 0;
}
