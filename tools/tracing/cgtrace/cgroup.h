/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup.h - find cgroup2 and turn what a user names into a cgroup
 */
#ifndef CGTRACE_CGROUP_H
#define CGTRACE_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

/* A resolved cgroup: where it is and what the kernel calls it. */
struct cg_ref {
	char			*dir;	/* directory under the cgroup2 mount */
	char			*path;	/* cgroup path, as /proc/PID/cgroup prints it */
	unsigned long long	id;	/* inode of dir: the cgroup id */
};

const char *cg_mount_dir(void);
int cg_resolve(const char *arg, struct cg_ref *ref);
int cg_ref_from_dir(const char *dir, struct cg_ref *ref);
void cg_ref_free(struct cg_ref *ref);
char *cg_kernel_word(const struct cg_ref *ref);
char *cg_self_dir(void);
char *cg_path_of_pid(pid_t pid);
char *cg_path_of_dir(const char *dir);

/*
 * cg_walk callback: a cgroup directory and its name; returns 0 to go on,
 * 1 to skip the cgroups below this one, -1 to stop
 */
typedef int (*cg_walk_fn)(const char *dir, const char *name, void *data);
int cg_walk(const char *dir, cg_walk_fn fn, void *data);

#endif
