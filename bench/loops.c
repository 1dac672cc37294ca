/* SPDX-License-Identifier: MIT */
/*
 * The measured loops of the micro table (see bench.h).  Each loop does the
 * least a program does to make the call: the calls around it (close after
 * an open, fork and waitpid around an exec, socket and close around a
 * connect) are part of the native cost as well, so ratios compare like
 * with like.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"

static const struct {
	const char *name;
	enum bench_op op;
	int nr;
} ops[] = {
	{ "getppid", BENCH_GETPPID, SYS_getppid },
	{ "open-deny", BENCH_OPEN_DENY, SYS_openat },
	{ "open-allow", BENCH_OPEN_ALLOW, SYS_openat },
	{ "exec", BENCH_EXEC, SYS_execve },
	{ "connect", BENCH_CONNECT, SYS_connect },
};

int bench_op_parse(const char *name, enum bench_op *op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (!strcmp(ops[i].name, name)) {
			*op = ops[i].op;
			return 0;
		}
	}
	return -EINVAL;
}

int bench_op_nr(enum bench_op op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].nr;
	return -1;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void *accept_thread(void *arg)
{
	int l = *(int *)arg;

	for (;;) {
		int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		if (c >= 0)
			close(c);
	}
	return NULL;
}

static int setup_listener(struct bench_ctx *ctx)
{
	static int listen_fd;
	socklen_t len = sizeof(ctx->addr);
	pthread_t t;
	int one = 1;

	ctx->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ctx->listen_fd < 0)
		return -errno;
	setsockopt(ctx->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&ctx->addr, 0, sizeof(ctx->addr));
	ctx->addr.sin_family = AF_INET;
	ctx->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ctx->listen_fd, (struct sockaddr *)&ctx->addr,
		 sizeof(ctx->addr)) < 0 ||
	    listen(ctx->listen_fd, 4096) < 0 ||
	    getsockname(ctx->listen_fd, (struct sockaddr *)&ctx->addr, &len) < 0)
		return -errno;
	/* The thread outlives this frame: hand it a static copy. */
	listen_fd = ctx->listen_fd;
	if (pthread_create(&t, NULL, accept_thread, &listen_fd) != 0)
		return -EAGAIN;
	pthread_detach(t);
	return 0;
}

int bench_setup(enum bench_op op, struct bench_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->op = op;
	ctx->listen_fd = -1;
	if (op == BENCH_CONNECT)
		return setup_listener(ctx);
	return 0;
}

static void set_result(char *buf, size_t len, int err)
{
	snprintf(buf, len, "%s", err ? strerrorname_np(err) : "ok");
}

/* One call of op; returns 0 or the errno the call failed with (for an
 * exec: the child's exit status + 1000, or the fork's errno). */
static int one_call(const struct bench_ctx *ctx)
{
	static char *const argv[] = { (char *)BENCH_EXEC_PATH, NULL };
	extern char **environ;
	int fd, st;
	pid_t pid;

	switch (ctx->op) {
	case BENCH_GETPPID:
		syscall(SYS_getppid);
		return 0;
	case BENCH_OPEN_DENY:
	case BENCH_OPEN_ALLOW:
		fd = open(ctx->op == BENCH_OPEN_DENY ? BENCH_DENY_PATH :
			  BENCH_ALLOW_PATH, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	case BENCH_EXEC:
		pid = fork();
		if (pid < 0)
			return errno;
		if (pid == 0) {
			execve(BENCH_EXEC_PATH, argv, environ);
			_exit(127);
		}
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				return errno;
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 :
		       1000 + (WIFEXITED(st) ? WEXITSTATUS(st) : 128);
	case BENCH_CONNECT:
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return errno;
		if (connect(fd, (const struct sockaddr *)&ctx->addr,
			    sizeof(ctx->addr)) < 0) {
			int e = errno;

			close(fd);
			return e;
		}
		close(fd);
		return 0;
	}
	return EINVAL;
}

int bench_measure(struct bench_ctx *ctx, long n, int batches,
		  double *median_ns, char *result, size_t result_len)
{
	double *per_call;
	long warm = n / 10 > 0 ? n / 10 : 1;
	int first;

	if (n <= 0 || batches <= 0 || batches > 1000)
		return -EINVAL;
	per_call = calloc((size_t)batches, sizeof(*per_call));
	if (!per_call)
		return -ENOMEM;
	first = one_call(ctx);
	if (first >= 1000)
		snprintf(result, result_len, "exit %d", first - 1000);
	else
		set_result(result, result_len, first);
	for (long i = 1; i < warm; i++)
		one_call(ctx);
	for (int b = 0; b < batches; b++) {
		uint64_t t0 = bench_now_ns();

		for (long i = 0; i < n; i++)
			one_call(ctx);
		per_call[b] = (double)(bench_now_ns() - t0) / (double)n;
	}
	*median_ns = bench_median(per_call, (size_t)batches);
	free(per_call);
	return 0;
}
