/* SPDX-License-Identifier: MIT */
/*
 * bench-auditw none|interval|every PATH MAX_RECORDS MAX_MS: the audit
 * writer alone.  Appends records shaped like the supervisor's record of an
 * allowed open (audit/audit.h) to a new trail at PATH, calling audit_tick()
 * after each one as the supervisor's loop does once a turn, until
 * MAX_RECORDS are written or MAX_MS have passed.  Prints
 * "<records per second> <records> <ms>".
 */
#include "config.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "bench/bench.h"

static int one_record(struct audit_writer *w, long i)
{
	static const char path[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct audit_rec *r = audit_begin(w, "syscall");

	audit_int(r, "pid", 4242 + (i & 7));
	audit_int(r, "tid", 4242 + (i & 7));
	audit_bytes(r, "exe", "/usr/bin/find", 13);
	audit_str(r, "syscall", "openat");
	audit_obj_begin(r, "args");
	audit_str(r, "dirfd", "AT_FDCWD");
	audit_bytes(r, "path", path, sizeof(path) - 1);
	audit_str(r, "flags", "O_RDONLY|O_CLOEXEC");
	audit_obj_end(r);
	audit_arr_begin(r, "paths");
	audit_obj_begin(r, NULL);
	audit_str(r, "arg", "path");
	audit_bytes(r, "path", path, sizeof(path) - 1);
	audit_str(r, "access", "read");
	audit_str(r, "rule", "read-anywhere");
	audit_str(r, "action", "allow");
	audit_obj_end(r);
	audit_arr_end(r);
	audit_str(r, "rule", "read-anywhere");
	audit_str(r, "action", "allow");
	audit_int(r, "result", 3);
	return audit_commit(r);
}

int main(int argc, char **argv)
{
	struct audit_writer *w = NULL;
	enum audit_sync sync;
	long max_records, max_ms, done = 0;
	uint64_t t0, elapsed;
	int r;

	if (argc != 5) {
		fprintf(stderr, "usage: bench-auditw none|interval|every PATH MAX_RECORDS MAX_MS\n");
		return 2;
	}
	if (!strcmp(argv[1], "none"))
		sync = AUDIT_SYNC_NONE;
	else if (!strcmp(argv[1], "interval"))
		sync = AUDIT_SYNC_INTERVAL;
	else if (!strcmp(argv[1], "every"))
		sync = AUDIT_SYNC_EVERY;
	else
		return 2;
	max_records = atol(argv[3]);
	max_ms = atol(argv[4]);
	if (sodium_init() < 0)
		return 1;
	unlink(argv[2]);
	r = audit_open_path(argv[2], sync, "20261129T000000Z-bench0000000", &w);
	if (r < 0) {
		fprintf(stderr, "bench-auditw: %s: %s\n", argv[2], strerror(-r));
		return 1;
	}
	t0 = bench_now_ns();
	while (done < max_records) {
		r = one_record(w, done);
		if (r == 0)
			r = audit_tick(w);
		if (r < 0) {
			fprintf(stderr, "bench-auditw: %s\n", strerror(-r));
			return 1;
		}
		done++;
		if ((done & 63) == 0 &&
		    bench_now_ns() - t0 > (uint64_t)max_ms * 1000000)
			break;
	}
	elapsed = bench_now_ns() - t0;
	r = audit_close(w);
	if (r < 0) {
		fprintf(stderr, "bench-auditw: close: %s\n", strerror(-r));
		return 1;
	}
	printf("%.0f %ld %.1f\n", (double)done * 1e9 / (double)elapsed, done,
	       (double)elapsed / 1e6);
	unlink(argv[2]);
	return 0;
}
