/* SPDX-License-Identifier: MIT */
/*
 * Private to supervisor/: a cgroup for the run's process tree, made where
 * the supervisor may (below its own cgroup of each controller), so that
 * [limits] memory, processes and cpu hold for the whole tree.  cgroup v1
 * (memory, pids, cpuacct hierarchies) and the v2 unified hierarchy are
 * supported; where neither is writable the caller falls back to rlimits.
 *
 *	struct cgroup_run cg;
 *	cgroup_init(&cg);
 *	cgroup_setup(&cg, run_id, &want);   // before the run.start record
 *	cgroup_attach(&cg, pid);            // the child, before it goes on
 *	cgroup_read(&cg, CGROUP_CPU_USAGE_US, &v); ...
 *	cgroup_release(&cg);                // once every process is gone
 */
#ifndef SYSGATE_SUPERVISOR_CGROUP_H
#define SYSGATE_SUPERVISOR_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum cgroup_via {
	CGROUP_NONE = 0,	/* no cgroup: the caller uses an rlimit */
	CGROUP_V1,
	CGROUP_V2,
};

/* What a group is made for. */
enum cgroup_ctrl {
	CGROUP_MEMORY = 0,	/* memory.limit_in_bytes / memory.max */
	CGROUP_PIDS,		/* pids.max */
	CGROUP_CPU,		/* cpuacct.usage / cpu.stat usage_usec */
	CGROUP_NCTRL
};

/* Counters read from the groups. */
enum cgroup_counter {
	CGROUP_CPU_USAGE_US,	/* CPU time of the tree, microseconds */
	CGROUP_OOM_KILLS,	/* processes killed by the OOM killer */
	CGROUP_MEMORY_MAX_HITS,	/* times the memory use reached the limit */
	CGROUP_PIDS_REFUSED,	/* forks refused at pids.max */
};

struct cgroup_want {
	uint64_t memory_bytes;	/* 0: no memory limit */
	uint64_t max_tasks;	/* 0: no pids.max */
	bool cpu;		/* account the tree's CPU time */
};

#define CGROUP_MAX_GROUPS CGROUP_NCTRL

struct cgroup_run {
	/* Distinct groups made (v1: one per hierarchy; v2: one). */
	struct {
		char path[PATH_MAX];
		int dir_fd;		/* O_PATH fd of the group */
		enum cgroup_via via;
	} g[CGROUP_MAX_GROUPS];
	unsigned n;
	int of[CGROUP_NCTRL];		/* index in g per controller, -1: none */
	char why[CGROUP_NCTRL][PATH_MAX + 128];	/* why there is none (for -v) */
};

/* An empty set: nothing made. */
void cgroup_init(struct cgroup_run *cg);

/*
 * Make a group "sysgate-RUN_ID" for each controller that want asks for,
 * below the supervisor's own cgroup of that controller (from
 * /proc/self/cgroup and /proc/self/mountinfo), and set its limits.  A
 * controller that is not mounted, not delegated (v2) or not writable gets
 * no group (cgroup_via() says CGROUP_NONE and why[] says why); that is no
 * error.  note_fd, unless -1, is told each group before it is made (a line
 * "cgroup PATH"), for cgroup_remove_left() in a later run should this
 * supervisor be killed.  Returns the number of controllers given a group.
 * Blocks only on cgroupfs.
 */
int cgroup_setup(struct cgroup_run *cg, const char *run_id,
		 const struct cgroup_want *want, int note_fd);

/* Move process pid into every group made.  0, or -errno (the limits would
 * not hold: the caller must not let the process run). */
int cgroup_attach(const struct cgroup_run *cg, pid_t pid);

/* How a controller is enforced, and the group's path (NULL: none;
 * borrowed from cg). */
enum cgroup_via cgroup_via(const struct cgroup_run *cg, enum cgroup_ctrl c);
const char *cgroup_path(const struct cgroup_run *cg, enum cgroup_ctrl c);
/* "cgroup-v1", "cgroup-v2" ("rlimit" for CGROUP_NONE). */
const char *cgroup_via_name(enum cgroup_via via);

/* Read a counter into *out.  0, -ENOENT when the controller has no group,
 * or -errno. */
int cgroup_read(const struct cgroup_run *cg, enum cgroup_counter which,
		uint64_t *out);

/* Kill every process of the groups where the kernel can (v2
 * cgroup.kill); the caller also kills the tree it knows. */
void cgroup_kill(const struct cgroup_run *cg);

/*
 * Remove the groups (they must be empty: call after every process of the
 * tree is gone; an emptied group can stay busy for a moment, so rmdir is
 * retried for up to a second).  Leaves cg empty.  0, or -errno of the
 * first group that could not be removed (its path is printed on stderr).
 * Accepts an empty set.
 */
int cgroup_release(struct cgroup_run *cg);

/* Remove the groups "sysgate-RUN_ID" of a run whose supervisor was killed
 * (tmpdir_sweep() found it dead): those its notes name (what cgroup_setup()
 * wrote to its note_fd; NULL: none), wherever that run was started, and
 * those where this supervisor's own cgroups are.  An empty group only
 * (rmdir), named so and on a cgroup file system; says on stderr what it
 * removed (when verbose) or could not remove (unless quiet). */
void cgroup_remove_left(const char *run_id, const char *notes, bool verbose,
			bool quiet);

#endif
