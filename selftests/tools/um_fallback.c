// SPDX-License-Identifier: GPL-2.0
/*
 * um_fallback - user_marker.h without the user_events file (built with
 * UM_TRACEFS pointing nowhere): spans go through the prctl fallback, and
 * the async calls, which the prctl cannot carry, return -EOPNOTSUPP.
 * Prints "begin RC end RC async_begin RC async_end RC".
 */
#include <stdio.h>

/* the one file of the program that holds user_marker.h's state; with
 * the prctl fallback, which is off unless asked for */
#define USER_MARKER_IMPLEMENTATION
#define UM_PRCTL
#include "user_marker.h"

int main(void)
{
	int b = um_begin("fallback");
	int e = um_end();
	int ab = um_async_begin("fallback-req", 7);
	int ae = um_async_end("fallback-req", 7);

	printf("begin %d end %d async_begin %d async_end %d\n", b, e, ab, ae);
	return 0;
}
