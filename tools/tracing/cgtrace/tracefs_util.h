/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs_util.h - instances and filter files through libtracefs, with
 * errors a user can act on
 */
#ifndef CGTRACE_TRACEFS_UTIL_H
#define CGTRACE_TRACEFS_UTIL_H

#include <stdbool.h>
#include <tracefs.h>

/* The context filter files, in the order show and reset walk them. */
extern const char * const tfs_pid_files[4];
extern const char * const tfs_cgroup_files[4];

/* Default of user_events_rate (Documentation/trace/user-markers.rst). */
#define TFS_USER_EVENTS_RATE_DEFAULT	"100000 10000"

int tfs_init(bool write);
int tfs_instance_get(const char *name, bool create,
		     struct tracefs_instance **inst, bool *created);
void tfs_instance_put(struct tracefs_instance *inst, bool destroy);
bool tfs_instance_exists(const char *name);
bool tfs_is_top(struct tracefs_instance *inst);
const char *tfs_instance_label(struct tracefs_instance *inst);
bool tfs_has(struct tracefs_instance *inst, const char *file);
int tfs_require(struct tracefs_instance *inst, const char *file);
int tfs_write(struct tracefs_instance *inst, const char *file,
	      const char *str, bool trunc);
int tfs_clear(struct tracefs_instance *inst, const char *file);
char *tfs_read(struct tracefs_instance *inst, const char *file);
int tfs_set_cgroups(struct tracefs_instance *inst, const char *file,
		    char **cgroups, int n);
int tfs_set_pids(struct tracefs_instance *inst, const char *file,
		 char **pids, int n);
bool tfs_has_user_markers(struct tracefs_instance *inst);

#endif
