/* SPDX-License-Identifier: MIT */
/*
 * bench-micro OP N BATCHES: time one call of the micro table in this
 * process, as it is (natively) or under `sysgate run`.  Prints
 * "<median ns per call> <result of the first call>".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

int main(int argc, char **argv)
{
	struct bench_ctx ctx;
	enum bench_op op;
	char result[32];
	double ns;
	int r;

	if (argc != 4 || bench_op_parse(argv[1], &op) < 0) {
		fprintf(stderr, "usage: bench-micro getppid|open-deny|open-allow|exec|connect N BATCHES\n");
		return 2;
	}
	r = bench_setup(op, &ctx);
	if (r == 0)
		r = bench_measure(&ctx, atol(argv[2]), atoi(argv[3]), &ns,
				  result, sizeof(result));
	if (r < 0) {
		fprintf(stderr, "bench-micro %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	printf("%.1f %s\n", ns, result);
	return 0;
}
