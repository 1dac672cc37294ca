/* SPDX-License-Identifier: MIT */
/*
 * The files a run wrote: each noted when a write to it is recorded (an
 * open for writing or creating, a truncate, a rename's new name), and at
 * the end of the run,
 * once the tree is gone, a file.final record per file with its size, so
 * that an output file that ended empty or short is in the trail.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "audit/audit.h"
#include "common/util.h"
#include "supervisor/call.h"
#include "supervisor/record.h"
#include "supervisor/sup.h"

/* Files followed per run; more are counted in run.end. */
#define WRITTEN_MAX 4096
#define WRITTEN_BUCKETS 1024

struct written {
	struct written *next;   /* hash chain */
	struct written *order;  /* in the order first written */
	uint64_t seq;           /* the record of its first write */
	char path[];
};

static struct written *buckets[WRITTEN_BUCKETS];
static struct written *first, **last = &first;
static unsigned n_written;
static unsigned long n_dropped;
/* Records are made on the event loop and on call_job threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bucket_of(const char *path)
{
	size_t h = 5381;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		h = h * 33 + *p;
	return h % WRITTEN_BUCKETS;
}

static void note_path(const char *path, uint64_t seq)
{
	size_t b = bucket_of(path), len = strlen(path);
	struct written *w;

	for (w = buckets[b]; w; w = w->next)
		if (!strcmp(w->path, path))
			return;
	if (n_written >= WRITTEN_MAX) {
		n_dropped++;
		return;
	}
	w = malloc(sizeof(*w) + len + 1);
	if (!w) {
		n_dropped++;	/* only the final size is lost */
		return;
	}
	memcpy(w->path, path, len + 1);
	w->seq = seq;
	w->next = buckets[b];
	w->order = NULL;
	buckets[b] = w;
	*last = w;
	last = &w->order;
	n_written++;
}

/* Does c write to (or create) its path cp: opens for writing, creat,
 * truncate, and the new name of a rename (a file written under a
 * temporary name and renamed into place); not the metadata calls, not
 * directories made. */
static bool writes_file(const struct call *c, const struct call_path *cp)
{
	int nr = c->req->data.nr;

	if (!cp->checked || !(cp->access & (RULES_ACC_WRITE | RULES_ACC_CREATE)))
		return false;
	if (nr == SYS_rename || nr == SYS_renameat || nr == SYS_renameat2)
		return cp == &c->paths[1];
	return (c->info && c->info->family == RULES_FAM_OPEN) ||
	       nr == SYS_truncate;
}

void written_note_call(const struct call *c, uint64_t seq)
{
	enum rules_action a = call_action(c);

	/* A call that failed wrote nothing; a pending one is being made. */
	if ((a != RULES_ALLOW && a != RULES_REWRITE) || (c->err && !c->pending))
		return;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < c->n_paths; i++) {
		const struct call_path *cp = &c->paths[i];
		const char *path = cp->redirected ? cp->redirect : cp->resolved;

		if (writes_file(c, cp) && path[0] == '/')
			note_path(path, seq);
	}
	pthread_mutex_unlock(&lock);
}

/*
 * Security: called once every task of the tree is gone, so none can swap
 * a directory of the path meanwhile; the path is canonical, so it is
 * looked up with no symlink followed (a link met there was put there
 * since: ELOOP, recorded, not followed), and only opened O_PATH for
 * fstat: nothing is read, and the size is what the tree, which wrote the
 * file there, could see itself.
 */
static int final_stat(const char *path, struct stat *st)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int written_record_all(struct sup *s)
{
	struct written *w, *next;
	int rc = 0;

	for (w = first; w; w = next) {
		struct stat st;
		int e = final_stat(w->path, &st);

		next = w->order;
		if (rc == 0 && (e < 0 || S_ISREG(st.st_mode))) {
			struct audit_rec *r = audit_begin(s->out.audit,
							  "file.final");

			audit_bytes(r, "path", w->path, strlen(w->path));
			audit_uint(r, "first_seq", w->seq);
			if (e < 0) {
				const char *n = rules_errno_name(-e);

				audit_str(r, "error", n ? n : "E?");
			} else {
				audit_uint(r, "size", (uint64_t)st.st_size);
			}
			rc = audit_commit(r);
		}
		free(w);
	}
	first = NULL;
	last = &first;
	memset(buckets, 0, sizeof(buckets));
	n_written = 0;
	return rc;
}

unsigned long written_dropped(void)
{
	return n_dropped;
}
