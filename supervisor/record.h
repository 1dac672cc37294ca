/* SPDX-License-Identifier: MIT */
/* Recording (record.c). */
#ifndef SYSGATE_SUPERVISOR_RECORD_H
#define SYSGATE_SUPERVISOR_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rules/rules.h"

struct sup;
struct call;
struct proc;
struct exec_image;

/* Write the call's record (before the reply).  0 or -errno: on failure the
 * caller must fail closed.  *seq (may be NULL) gets the record's seq, when
 * the call is recorded. */
int record_call(struct sup *s, const struct call *c, uint64_t *seq);
/* The result of a call recorded before its change was made. */
int record_result(struct sup *s, const struct call *c);
int record_run_start(struct sup *s);
int record_run_end(struct sup *s, int exit_status);
int record_fork(struct sup *s, pid_t pid, pid_t ppid, pid_t tgid, const char *kind);
/* proc.exec: path (the executable) and the argv of img (borrowed). */
int record_exec(struct sup *s, struct proc *p, const char *path,
		const struct exec_image *img);
/* Read the kernel's core_pattern (before the tree starts). */
void record_load_core_pattern(void);
int record_exit(struct sup *s, struct proc *p, int status);
int record_signal(struct sup *s, struct proc *p, int sig);
int record_exec_violation(struct sup *s, struct proc *p, const char *why,
			  const char *path);
void record_summary(struct sup *s, int exit_status);
/* A resource limit was reached: which, its value, and what was done. */
int record_limit(struct sup *s, struct proc *p, enum rules_limit which,
		 uint64_t value, const char *action);
/* A denied call: its line on --denials-fd (seq: its record's, 0 when it
 * has none) and its place in the end-of-run summary. */
void record_note_denial(struct sup *s, const struct call *c, uint64_t seq);

/* The files the run wrote (written.c).  written_note_call: c, recorded
 * as seq, wrote to its paths (any thread).  written_record_all: once the
 * tree is gone, a file.final record per file, in the order first
 * written; 0 or the audit error.  written_dropped: files not followed
 * (past the cap, or no memory). */
void written_note_call(const struct call *c, uint64_t seq);
int written_record_all(struct sup *s);
unsigned long written_dropped(void);
/* The ask hook's question about c (what: describe()'s words), as one JSON
 * line: the fields of c's trail record, "call", "argv" and "cwd", after
 * seq (the trail's last), ts and run.  A new string (the caller frees
 * it), or NULL. */
char *record_question(struct sup *s, const struct call *c, const char *what);

/* s as text safe for a terminal (audit_escape_tty()), in buf, cut to
 * len; returns buf.  For every tracee string sysgate prints. */
const char *record_tty(char *buf, size_t len, const char *s);

/* Format flags of the open family ("O_WRONLY|O_CREAT"). */
void record_open_flags(char *buf, size_t len, uint64_t flags);

/* Monotonic microseconds (clock.c, below every other file). */
uint64_t sup_now_us(void);

#endif
