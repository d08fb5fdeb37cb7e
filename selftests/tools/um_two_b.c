// SPDX-License-Identifier: GPL-2.0
/*
 * um_two_b - the second file of um_two (see um_two_a.c): it includes
 * user_marker.h without defining USER_MARKER_IMPLEMENTATION, and begins
 * and ends spans that the other file ends and begins.
 */
#include "user_marker.h"

int b_begin(const char *name)
{
	return um_begin(name);
}

int b_end(void)
{
	return um_end();
}

int b_counter(const char *name, long long v)
{
	return um_counter(name, v);
}

/* the spans this thread has open, as this file sees them */
unsigned int b_spans(void)
{
	return um__spans;
}
