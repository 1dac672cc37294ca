/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/unit.h: the runner the CUnit tests share.  CUnit's own exit
 * status says nothing about failures (docs/PLATFORM.md 1): this reads
 * the count and turns it into automake's.
 */
#ifndef SYSGATE_TESTS_UNIT_H
#define SYSGATE_TESTS_UNIT_H

#include <CUnit/Basic.h>
#include <stddef.h>
#include <stdio.h>

struct unit_test {
	const char *name;
	CU_TestFunc fn;
};

/* Runs tests[0..n) as the suite name, one line per test, and prints
 * "N passed, M failed".  0: all passed; 1: a failure; 99: CUnit itself
 * failed (automake's hard error). */
static inline int unit_run(const char *name, const struct unit_test *tests, size_t n)
{
	unsigned int failures, failed, run;
	CU_pSuite suite;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 99;
	suite = CU_add_suite(name, NULL, NULL);
	if (!suite)
		goto harness;
	for (size_t i = 0; i < n; i++)
		if (!CU_add_test(suite, tests[i].name, tests[i].fn))
			goto harness;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		goto harness;
	/* Read before CU_cleanup_registry() resets them. */
	failures = CU_get_number_of_failures();
	failed = CU_get_number_of_tests_failed();
	run = CU_get_number_of_tests_run();
	printf("%u passed, %u failed\n", run - failed, failed);
	CU_cleanup_registry();
	return failures > 0 ? 1 : 0;

harness:
	CU_cleanup_registry();
	return 99;
}

#endif
