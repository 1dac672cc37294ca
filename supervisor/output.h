/* SPDX-License-Identifier: MIT */
/*
 * Private to supervisor/: the command's stdout and stderr kept in the
 * trail as "output" records, and passed on to sysgate's own.
 *
 *	struct output *o;
 *	output_prepare(cap, &o, &ls.stdout_fd, &ls.stderr_fd);  // before fork
 *	launch_start(...);
 *	output_start(o, audit);        // the relay thread; our write ends closed
 *	output_describe(o, run_start_rec);
 *	...  output_sync(o) before each proc.exit record ...
 *	output_finish(o);              // drained and recorded, before run.end
 *	output_end_fields(o, run_end_rec);
 *	output_free(o);                // the rest passed on, thread joined
 *
 * Each stream that is a pipe, a file or a socket in sysgate becomes a pipe
 * in the command; a terminal (or a closed fd) is left to the command as it
 * is and not kept (sysgate.1, "Output").
 */
#ifndef SYSGATE_SUPERVISOR_OUTPUT_H
#define SYSGATE_SUPERVISOR_OUTPUT_H

#include <stdint.h>

struct output;
struct audit_writer;
struct audit_rec;

/* The default --output-cap: bytes of output kept per run. */
#define OUTPUT_CAP_DEFAULT (1024 * 1024)

/*
 * Decide per stream and make the pipes (cap 0: none, nothing kept).
 * *child_out / *child_err get the fd to put on the command's fd 1 / 2
 * (above 2, close-on-exec), or stay as they are.  0 or -errno; *out is
 * set either way (NULL only for -ENOMEM).
 */
int output_prepare(uint64_t cap, struct output **out, int *child_out,
		   int *child_err);
/* The policy's [policy] output, where the command line gave none: the
 * cap from now on; 0 closes the pipes (the caller then gives the child
 * none: *child_out / *child_err set to -1).  Before output_start. */
void output_set_cap(struct output *o, uint64_t cap, int *child_out,
		    int *child_err);
/* After the command started: close our write ends, start the thread that
 * reads, records into w and passes on.  0 or -errno (then nothing is kept
 * and the command's output is still passed on... by nobody: the caller
 * fails the run). */
int output_start(struct output *o, struct audit_writer *w);
/* run.start's "output": how each stream is kept, and the cap. */
void output_describe(const struct output *o, struct audit_rec *r);
/* Record what the command wrote so far (bounded wait): before a proc.exit,
 * so a process's last words come before its end in the trail.  Returns 0,
 * or the error of an output record that could not be written (-errno):
 * the caller fails closed as for its own record. */
int output_sync(struct output *o);
/* Read what is left (bounded in time), write the kept tail; no output
 * record comes after.  Before run.end.  0 or -errno as output_sync. */
int output_finish(struct output *o);
/* run.end's "output": bytes seen per stream, dropped by the cap. */
void output_end_fields(const struct output *o, struct audit_rec *r);
/* Pass on what is left (until the reader reads nothing for a while),
 * join the thread, close and free.  Accepts NULL. */
void output_free(struct output *o);

#endif
