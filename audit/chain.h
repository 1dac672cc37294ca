/* SPDX-License-Identifier: MIT */
/*
 * audit/chain.h: private to audit/.  What the writer needs of the verifier
 * to chain a new run to the trail it appends to: the hash of a line that is
 * a whole record, checked by the verifier's own parser.
 */
#ifndef SYSGATE_AUDIT_CHAIN_H
#define SYSGATE_AUDIT_CHAIN_H

#include <stddef.h>

#include "audit/audit.h"

/* The member of run.start that names the run before it in its file. */
#define AUDIT_PREV_RUN_KEY "prev_run_hash"

/*
 * line[0..len) (no newline) is one record as the verifier reads it: a JSON
 * object with a valid seq, type and run, ending with its "hash" member.
 * Returns 0 and the stored hash (raw) in hash, or -EBADMSG.  The hash is
 * not recomputed (that needs the record before).
 */
int audit_line_hash(const char *line, size_t len,
		    unsigned char hash[AUDIT_HASH_BYTES]);

#endif
