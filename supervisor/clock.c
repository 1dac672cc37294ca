/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's clock: the lowest file of supervisor/, used by the
 * process table, the trail and the loop alike, calling nothing of theirs.
 */
#include "config.h"

#include <stdint.h>
#include <time.h>

#include "supervisor/record.h"

uint64_t sup_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
