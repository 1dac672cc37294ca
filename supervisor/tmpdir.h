/* SPDX-License-Identifier: MIT */
/* Private to supervisor/: the command's private TMPDIR. */
#ifndef SYSGATE_SUPERVISOR_TMPDIR_H
#define SYSGATE_SUPERVISOR_TMPDIR_H

#include <limits.h>
#include <pwd.h>
#include <stdbool.h>

/*
 * PARENT/sysgate-RUNID, with PARENT/sysgate-RUNID.lock beside it: a file
 * of the supervisor's, flock()ed while the run lives.  The kernel drops
 * that lock when the supervisor dies, even by SIGKILL, so a later run
 * finds the directory of a killed run (tmpdir_sweep()) and removes it.
 * The lock is outside the directory: the command cannot remove it, and a
 * directory without one (an older sysgate's, someone else's) is never
 * swept.  The run notes in the lock file what else it makes (lines of
 * text, tmpdir_note_fd()), and the sweep hands that to its caller.
 */
struct tmpdir {
	char path[PATH_MAX];    /* PARENT/sysgate-RUNID */
	char lock[PATH_MAX];    /* PARENT/sysgate-RUNID.lock */
	int lock_fd;            /* held while the run lives, or -1 */
};

/* Names the directory (no file is touched): PARENT is $TMPDIR when it is
 * absolute, else /tmp.  0, or -ENAMETOOLONG. */
int tmpdir_name(struct tmpdir *t, const char *tmpdir_env, const char *run_id);

/* Locks, then creates the directory (mode 0700, owned by pw's user under
 * --user).  0, or -errno (nothing is left behind then). */
int tmpdir_create(struct tmpdir *t, const struct passwd *pw);

/* Removes the directory and all in it (through directory fds only, with
 * pw's rights under --user), then its lock.  0, or -errno (-ELOOP: nested
 * too deep, or a symlink in the way); the directory is then left. */
int tmpdir_remove(struct tmpdir *t, const struct passwd *pw);

/* What a -errno of tmpdir_remove() means, for a message. */
const char *tmpdir_strerror(int r);

/* The fd of t's lock file, open for writing, where the run notes what
 * else it makes (a line each) for a sweep should it be killed; -1 when
 * there is no lock (a file system without locks). */
int tmpdir_note_fd(const struct tmpdir *t);

/* Most of a lock file's notes that a sweep reads. */
#define TMPDIR_NOTES_MAX 8192

/* Removes the directories left in t's PARENT by supervisors of the same
 * user that were killed: those whose lock file is the user's and not
 * held.  Says on stderr what it removed (when verbose) or could not
 * remove (unless quiet).  dead, unless NULL, is called with the RUNID of
 * each such run and the notes of its lock file (up to TMPDIR_NOTES_MAX
 * bytes, NUL-terminated, only whole lines), for what else it left. */
void tmpdir_sweep(const struct tmpdir *t, bool verbose, bool quiet,
		  void (*dead)(const char *run_id, const char *notes, void *arg),
		  void *arg);

#endif
