/* SPDX-License-Identifier: MIT */
/*
 * rules/prebuilt.h: the seccomp program of the built-in default policy,
 * compiled when sysgate is built.  rules/gen-filters writes them into
 * rules/default-filters.c, which the programs that use them link (sysgate
 * and test-rules); librules itself does not.
 *
 * Performance (start-up): compiling it with libseccomp costs every
 * start of sysgate about 0.3 ms in a fresh process.  (It holds the guards,
 * rules_filter_has_guards(): no guard filter is loaded with it.)  The
 * built-in policy's program is the same at every run: the filter
 * decides on syscall numbers and scalar arguments only, never on the paths
 * that ${HOME}, ${CWD} and ${TMPDIR} expand into, and the built-in policy
 * has no [limits] that add calls to it.  tests/unit/test-rules checks that
 * it is exactly what rules_build_filter() makes for the built-in policy,
 * under different variables.
 */
#ifndef SYSGATE_RULES_PREBUILT_H
#define SYSGATE_RULES_PREBUILT_H

#include <linux/filter.h>

struct rules_prebuilt {
	const struct sock_filter *insns; /* NULL when the build could not
					  * compile it (len 0) */
	unsigned short len;
};

/* rules_build_filter()'s program for the set rules_load_default() loads
 * (rules_is_builtin_default()). */
extern const struct rules_prebuilt rules_prebuilt_default;

#endif
