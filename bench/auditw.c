/* SPDX-License-Identifier: MIT */
/*
 * bench-auditw: the audit writer alone.  Appends records shaped like the
 * supervisor's record of an allowed open (audit/audit.h) to a new trail,
 * calling audit_tick() after each commit (or batch) as the supervisor's
 * loop does once a turn, until MAX_RECORDS are written or MAX_MS have
 * passed.
 *
 *   bench-auditw none|interval|every PATH MAX_RECORDS MAX_MS [HOW]
 *	prints "<records per second> <records> <ms>".  HOW is the number of
 *	threads recording at once (default 1: group commit needs 2 or more)
 *	or bN: one thread writing batches of N records (audit_batch_begin /
 *	audit_batch_end).
 *   bench-auditw table MAX_RECORDS MAX_MS DIR [DIR...]
 *	prints a table: each --audit-sync mode, with 1, 2 and 4 threads and
 *	batches of 8 and 64, in each DIR (a trail bench-auditw.jsonl is
 *	created there and removed), next to the target rate.  Each
 *	figure is the median of three runs.
 *
 * Never pass/fail: the table shows figures only.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "audit/audit.h"
#include "bench/bench.h"

/* The target: at least 500,000 records/s with group commit. */
#define TARGET_RATE 500000
/* Each figure of the table is the median of this many runs. */
#define TABLE_REPS 3

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

struct run {
	struct audit_writer *w;
	long max_records;
	uint64_t deadline;	/* bench_now_ns() */
	long batch;		/* 0: one commit at a time */
	atomic_long done;	/* records written, all threads */
	atomic_int err;		/* first error, -errno */
};

static void *writer_thread(void *arg)
{
	struct run *run = arg;
	long mine = 0;

	for (;;) {
		long n = run->batch ? run->batch : 1;
		int r = 0;

		if (run->batch)
			r = audit_batch_begin(run->w);
		for (long i = 0; i < n && r == 0; i++)
			r = one_record(run->w, mine + i);
		if (run->batch) {
			int e = audit_batch_end(run->w);

			if (r == 0)
				r = e;
		}
		if (r == 0)
			r = audit_tick(run->w);
		if (r < 0) {
			int zero = 0;

			atomic_compare_exchange_strong(&run->err, &zero, r);
			break;
		}
		mine += n;
		if (atomic_fetch_add(&run->done, n) + n >= run->max_records)
			break;
		if ((mine & 63) < n && bench_now_ns() > run->deadline)
			break;
	}
	return NULL;
}

/* One measurement; returns records per second, or a negative -errno. */
static double measure(const char *mode, const char *path, long max_records,
		      long max_ms, const char *how, long *records,
		      double *ms)
{
	struct run run = { .max_records = max_records };
	enum audit_sync sync;
	pthread_t t[16];
	long threads = 1;
	uint64_t t0, elapsed;
	int r;

	if (!strcmp(mode, "none"))
		sync = AUDIT_SYNC_NONE;
	else if (!strcmp(mode, "interval"))
		sync = AUDIT_SYNC_INTERVAL;
	else if (!strcmp(mode, "every"))
		sync = AUDIT_SYNC_EVERY;
	else
		return -EINVAL;
	if (how[0] == 'b')
		run.batch = atol(how + 1);
	else
		threads = atol(how);
	if (threads < 1 || threads > 16 || run.batch < 0 || max_records < 1)
		return -EINVAL;
	unlink(path);
	r = audit_open_path(path, sync, "20261129T000000Z-bench0000000", &run.w);
	if (r < 0) {
		fprintf(stderr, "bench-auditw: %s: %s\n", path, strerror(-r));
		return r;
	}
	t0 = bench_now_ns();
	run.deadline = t0 + (uint64_t)max_ms * 1000000;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, writer_thread, &run) != 0) {
			threads = i;
			atomic_store(&run.err, -EAGAIN);
			break;
		}
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	elapsed = bench_now_ns() - t0;
	r = audit_close(run.w);
	unlink(path);
	if (atomic_load(&run.err) < 0)
		r = atomic_load(&run.err);
	if (r < 0) {
		fprintf(stderr, "bench-auditw: %s: %s\n", path, strerror(-r));
		return r;
	}
	*records = atomic_load(&run.done);
	*ms = (double)elapsed / 1e6;
	return (double)*records * 1e9 / (double)elapsed;
}

static const char *fs_name(const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st) < 0)
		return "?";
	switch ((unsigned long)st.f_type) {
	case 0x01021994UL: return "tmpfs";
	case 0xef53UL: return "ext4";
	case 0x9123683eUL: return "btrfs";
	case 0x58465342UL: return "xfs";
	case 0x794c7630UL: return "overlay";
	default: return "other";
	}
}

static int table(long max_records, long max_ms, int ndirs, char **dirs)
{
	static const char *const modes[] = { "none", "interval", "every" };
	static const struct { const char *how, *label; } hows[] = {
		{ "1", "1 thread" },
		{ "2", "2 threads (group commit)" },
		{ "4", "4 threads (group commit)" },
		{ "b8", "batches of 8" },
		{ "b64", "batches of 64" },
	};
	char paths[8][4096];

	if (ndirs < 1 || ndirs > 8)
		return 2;
	for (int d = 0; d < ndirs; d++) {
		printf("   column %d: %s (%s)\n", d + 1, dirs[d],
		       fs_name(dirs[d]));
		snprintf(paths[d], sizeof(paths[d]), "%s/bench-auditw.jsonl",
			 dirs[d]);
	}
	printf("%-12s %-26s", "--audit-sync", "records written by");
	for (int d = 0; d < ndirs; d++) {
		char head[32];

		snprintf(head, sizeof(head), "%d: %s", d + 1, fs_name(dirs[d]));
		printf(" %14s", head);
	}
	printf(" %10s\n", "target");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t h = 0; h < sizeof(hows) / sizeof(hows[0]); h++) {
			printf("%-12s %-26s", modes[m], hows[h].label);
			for (int d = 0; d < ndirs; d++) {
				double rates[TABLE_REPS], ms;
				long n;
				int k;

				for (k = 0; k < TABLE_REPS; k++) {
					rates[k] = measure(modes[m], paths[d],
							   max_records, max_ms,
							   hows[h].how, &n, &ms);
					if (rates[k] < 0)
						break;
				}
				if (k < TABLE_REPS)
					printf(" %14s", "FAILED");
				else
					printf(" %14.0f",
					       bench_median(rates, TABLE_REPS));
				fflush(stdout);
			}
			printf(" %10d\n", TARGET_RATE);
		}
	return 0;
}

int main(int argc, char **argv)
{
	long records;
	double ms, rate;

	if (sodium_init() < 0)
		return 1;
	if (argc >= 5 && !strcmp(argv[1], "table"))
		return table(atol(argv[2]), atol(argv[3]), argc - 4, argv + 4);
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: bench-auditw none|interval|every PATH MAX_RECORDS MAX_MS [THREADS|bBATCH]\n"
			"       bench-auditw table MAX_RECORDS MAX_MS DIR...\n");
		return 2;
	}
	rate = measure(argv[1], argv[2], atol(argv[3]), atol(argv[4]),
		       argc == 6 ? argv[5] : "1", &records, &ms);
	if (rate < 0)
		return rate == -EINVAL ? 2 : 1;
	printf("%.0f %ld %.1f\n", rate, records, ms);
	return 0;
}
