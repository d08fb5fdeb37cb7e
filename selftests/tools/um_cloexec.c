// SPDX-License-Identifier: GPL-2.0
/*
 * um_cloexec - user_marker.h's descriptor does not leak into a program it
 * executes: write a marker (which opens user_events), then become ARGV[1..]
 * (which lists its own descriptors). Built in strict C11, where <fcntl.h>
 * hides O_CLOEXEC, and in gnu11, where it does not.
 */
#include <stdio.h>
#include <unistd.h>

/* the one file of the program that holds user_marker.h's state */
#define USER_MARKER_IMPLEMENTATION
#include "user_marker.h"

int main(int argc, char **argv)
{
	int ret = um_instant("cloexec");

	if (ret || argc < 2) {
		fprintf(stderr, "um_instant: %d\n", ret);
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 1;
}
