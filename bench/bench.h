/* SPDX-License-Identifier: MIT */
/*
 * bench/: the measured loops shared by bench-micro (run natively or under
 * sysgate) and bench-bare (run under a minimal seccomp/ptrace loop of its
 * own), so that both time exactly the same code.  Not part of sysgate: built
 * by `make bench` only, without sanitizers.
 *
 *	struct bench_ctx ctx;
 *	double ns;
 *	char result[32];
 *
 *	bench_op_parse("open-allow", &op);
 *	bench_setup(op, &ctx);                  // before any filter is loaded
 *	bench_measure(&ctx, 2000, 5, &ns, result, sizeof(result));
 */
#ifndef SYSGATE_BENCH_H
#define SYSGATE_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

/* The calls of the micro table.  The paths fit the built-in default
 * policy: the first is a secret (denied), the second is readable. */
#define BENCH_DENY_PATH "/etc/shadow"
#define BENCH_ALLOW_PATH "/etc/passwd"
#define BENCH_EXEC_PATH "/bin/true"

enum bench_op {
	BENCH_GETPPID,		/* syscall(SYS_getppid) */
	BENCH_OPEN_DENY,	/* open(BENCH_DENY_PATH) (+ close if it opened) */
	BENCH_OPEN_ALLOW,	/* open(BENCH_ALLOW_PATH) + close */
	BENCH_EXEC,		/* fork + execve(BENCH_EXEC_PATH) + waitpid */
	BENCH_CONNECT,		/* socket + connect(127.0.0.1) + close */
};

struct bench_ctx {
	enum bench_op op;
	int listen_fd;			/* BENCH_CONNECT: the loopback listener */
	struct sockaddr_in addr;	/* BENCH_CONNECT: where it listens */
};

/* Name ("getppid", "open-deny", ...) to op.  Returns 0 or -EINVAL. */
int bench_op_parse(const char *name, enum bench_op *op);

/* The syscall number a filter must catch to see op's call. */
int bench_op_nr(enum bench_op op);

/*
 * Prepare op: for BENCH_CONNECT a listener on 127.0.0.1 (port chosen by the
 * kernel) and a detached thread that accepts and closes.  Call it before
 * loading a filter that should not see the set-up.  Returns 0 or -errno.
 */
int bench_setup(enum bench_op op, struct bench_ctx *ctx);

/*
 * Run a warm-up of n/10 calls, then `batches` batches of n calls, and store
 * the median batch's nanoseconds per call in *median_ns.  result gets what
 * the first call returned ("ok", an errno name, or "exit N" for an exec),
 * so that a table can show a call that was not answered as expected.
 * Returns 0 or -errno (an argument or a fork that failed).
 */
int bench_measure(struct bench_ctx *ctx, long n, int batches,
		  double *median_ns, char *result, size_t result_len);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* Median of v[0..n-1] (sorts v in place).  n > 0. */
double bench_median(double *v, size_t n);

#endif
