// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c - where cgroup2 is mounted (libmount reads mountinfo), and the
 * one resolver for every way a user names a cgroup: a cgroup path, a
 * cgroup2 directory, id:N, pid:PID, a systemd unit (libsystemd asks
 * systemd), a container id or a container name (the runtime's own list
 * of its containers gives the id).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libmount.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

#include "cgtrace.h"
#include "cgroup.h"

#define CG_MAX_DEPTH	64	/* deeper trees are not walked */
#define CG_MAX_LISTED	8	/* ambiguous matches named in an error */

/* The first cgroup2 mount of this mount namespace. */
static struct {
	bool	looked;
	char	*dir;		/* where it is mounted */
	char	*root;		/* the cgroup path its top directory has */
} cg_mnt;

/*
 * cg_mount_dir - the cgroup2 mount point, NULL (with a message) if none.
 * libmount unescapes mountinfo's octal escapes (a space is "\040").
 */
const char *cg_mount_dir(void)
{
	struct libmnt_table *tb;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;

	if (cg_mnt.looked)
		return cg_mnt.dir;
	cg_mnt.looked = true;
	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	it = mnt_new_iter(MNT_ITER_FORWARD);
	while (tb && it && !mnt_table_next_fs(tb, it, &fs)) {
		if (!mnt_fs_match_fstype(fs, "cgroup2"))
			continue;
		cg_mnt.dir = strdup(mnt_fs_get_target(fs));
		cg_mnt.root = strdup(mnt_fs_get_root(fs) ? mnt_fs_get_root(fs) : "/");
		break;
	}
	mnt_free_iter(it);
	mnt_unref_table(tb);
	if (!cg_mnt.dir || !cg_mnt.root) {
		free(cg_mnt.dir);
		cg_mnt.dir = NULL;
		err_msg("no cgroup2 file system is mounted (/proc/self/mountinfo); mount one with: mount -t cgroup2 none /sys/fs/cgroup");
	}
	return cg_mnt.dir;
}

/* under - the rest of @path after directory @dir, or NULL if not below it */
static const char *under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/' ? path : NULL;
	if (strncmp(path, dir, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path + n;
}

/* join - "a" + "/b" without a doubled or trailing slash (free it) */
static char *join(const char *a, const char *rest)
{
	if (!*rest || !strcmp(rest, "/"))
		rest = "";
	if (!strcmp(a, "/") && *rest)
		a = "";
	return xasprintf("%s%s", a, rest);
}

/* cg_path_of_dir - the cgroup path of a directory below the mount (free) */
char *cg_path_of_dir(const char *dir)
{
	const char *rest;

	if (!cg_mount_dir())
		return NULL;
	rest = under(dir, cg_mnt.dir);
	return rest ? join(cg_mnt.root, rest) : NULL;
}

/* dir_of_path - the directory of a cgroup path (free), NULL if unmounted */
static char *dir_of_path(const char *path)
{
	const char *rest = under(path, cg_mnt.root);

	return rest ? join(cg_mnt.dir, rest) : NULL;
}

static bool is_cgroup_dir(const char *dir, struct stat *st)
{
	char file[4096];

	if (stat(dir, st) || !S_ISDIR(st->st_mode))
		return false;
	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	return !access(file, F_OK);
}

/* cg_ref_from_dir - fill @ref for a cgroup directory below the mount */
int cg_ref_from_dir(const char *dir, struct cg_ref *ref)
{
	struct stat st;
	size_t n;

	memset(ref, 0, sizeof(*ref));
	if (!cg_mount_dir())
		return -1;
	ref->dir = strdup(dir);
	if (!ref->dir)
		return -1;
	n = strlen(ref->dir);
	while (n > 1 && ref->dir[n - 1] == '/')
		ref->dir[--n] = '\0';
	ref->path = cg_path_of_dir(ref->dir);
	if (!ref->path || !is_cgroup_dir(ref->dir, &st)) {
		cg_ref_free(ref);
		return -1;
	}
	ref->id = st.st_ino;
	return 0;
}

void cg_ref_free(struct cg_ref *ref)
{
	free(ref->dir);
	free(ref->path);
	memset(ref, 0, sizeof(*ref));
}

/*
 * cg_kernel_word - how to name @ref in a set_*_cgroup write (free it).
 * The files split on white space: a path holding any is given as id:N.
 */
char *cg_kernel_word(const struct cg_ref *ref)
{
	const char *p;

	for (p = ref->path; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return xasprintf("id:%llu", ref->id);
	return xstrdup(ref->path);
}

/* walk - call fn on every cgroup below dir, depth first */
static int walk(const char *dir, int depth, cg_walk_fn fn, void *data)
{
	char sub[4096];
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int ret = 0;

	if (depth >= CG_MAX_DEPTH)
		return 0;
	dp = opendir(dir);
	while (dp && ret >= 0 && (d = readdir(dp))) {
		if (d->d_name[0] == '.' ||
		    (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
		if (d->d_type == DT_UNKNOWN &&
		    (stat(sub, &st) || !S_ISDIR(st.st_mode)))
			continue;
		ret = fn(sub, d->d_name, data);
		if (!ret)
			ret = walk(sub, depth + 1, fn, data);
	}
	if (dp)
		closedir(dp);
	return ret < 0 ? ret : 0;
}

/* cg_walk - every cgroup below @dir (not @dir itself) */
int cg_walk(const char *dir, cg_walk_fn fn, void *data)
{
	return walk(dir, 0, fn, data);
}

/* What a search looks for, and what it found. */
struct cg_search {
	const char	*want;		/* a container id prefix */
	unsigned long long id;		/* or id:N */
	char		*found[CG_MAX_LISTED];
	int		nr_found;
};

/* container_id_of - the id part of a container's cgroup name, or NULL */
static const char *container_id_of(const char *name, size_t *len)
{
	static const char * const prefixes[] = {
		"docker-", "libpod-", "cri-containerd-", "crio-", "", NULL,
	};
	const char *id, *end;
	int i;

	if (!strncmp(name, "libpod-conmon-", 14))
		return NULL;	/* podman's monitor, not the container */
	for (i = 0; prefixes[i]; i++) {
		if (strncmp(name, prefixes[i], strlen(prefixes[i])))
			continue;
		id = name + strlen(prefixes[i]);
		end = strstr(id, ".scope");
		if (!end)
			end = id + strlen(id);
		else if (end[6])
			continue;
		if (end - id != 64 || strspn(id, "0123456789abcdef") < 64)
			continue;
		*len = end - id;
		return id;
	}
	return NULL;
}

static int search_one(const char *dir, const char *name, void *data)
{
	struct cg_search *s = data;
	struct stat st;
	const char *id;
	size_t len;
	bool match;

	if (s->id)
		match = !stat(dir, &st) && st.st_ino == s->id;
	else
		match = (id = container_id_of(name, &len)) &&
			!strncmp(id, s->want, strlen(s->want));
	if (match && s->nr_found < CG_MAX_LISTED)
		s->found[s->nr_found++] = strdup(dir);
	else if (match)
		s->nr_found++;
	/* an id is unique: stop at the first */
	return s->id && match ? -1 : 0;
}

static void search_free(struct cg_search *s)
{
	int i;

	for (i = 0; i < s->nr_found && i < CG_MAX_LISTED; i++)
		free(s->found[i]);
}

/* search_result - one match into @ref; none or several is an error */
static int search_result(struct cg_search *s, const char *arg,
			 const char *looked_for, struct cg_ref *ref)
{
	int i, ret = -1;

	if (s->nr_found == 1 && s->found[0]) {
		ret = cg_ref_from_dir(s->found[0], ref);
		if (ret)
			err_msg("%s: %s is not a cgroup directory", arg, s->found[0]);
	} else if (!s->nr_found) {
		err_msg("%s: no such cgroup: looked for %s", arg, looked_for);
	} else {
		err_msg("%s matches %d cgroups; name one by its path:", arg,
			s->nr_found);
		for (i = 0; i < s->nr_found && i < CG_MAX_LISTED; i++)
			fprintf(stderr, "cgtrace:   %s\n", s->found[i]);
		if (s->nr_found > CG_MAX_LISTED)
			fprintf(stderr, "cgtrace:   ...\n");
	}
	search_free(s);
	return ret;
}

/* unit_interface - the D-Bus interface of a unit type, by its suffix */
static const char *unit_interface(const char *unit)
{
	static const char * const types[][2] = {
		{ ".service", "Service" }, { ".scope", "Scope" },
		{ ".slice", "Slice" }, { ".socket", "Socket" },
		{ ".mount", "Mount" }, { ".swap", "Swap" },
	};
	static char iface[64];
	size_t n = strlen(unit), k;
	unsigned int i;

	if (strchr(unit, '/'))
		return NULL;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		k = strlen(types[i][0]);
		if (n > k && !strcmp(unit + n - k, types[i][0])) {
			snprintf(iface, sizeof(iface), "org.freedesktop.systemd1.%s",
				 types[i][1]);
			return iface;
		}
	}
	return NULL;
}

/*
 * resolve_unit - a systemd unit's cgroup, as systemd itself says it: the
 * unit's ControlGroup property, asked of the system manager over D-Bus
 */
static int resolve_unit(const char *arg, struct cg_ref *ref)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *object;
	char *cgroup = NULL, *dir;
	sd_bus *bus = NULL;
	int r, ret = -1;

	r = sd_bus_open_system(&bus);
	if (r < 0) {
		err_msg("%s: cannot ask systemd for the unit's cgroup (the system bus: %s; is systemd running here?);\n"
			"         give its cgroup path instead, e.g. -G /system.slice/%s",
			arg, strerror(-r), arg);
		goto out;
	}
	r = sd_bus_call_method(bus, "org.freedesktop.systemd1",
			       "/org/freedesktop/systemd1",
			       "org.freedesktop.systemd1.Manager", "GetUnit",
			       &error, &reply, "s", arg);
	if (r < 0) {
		if (sd_bus_error_has_name(&error, "org.freedesktop.systemd1.NoSuchUnit"))
			err_msg("%s: systemd has no such unit loaded (systemctl status %s); a unit of a\n"
				"         user's manager is named by its cgroup path (systemctl --user show -p ControlGroup %s)",
				arg, arg, arg);
		else
			err_msg("%s: cannot ask systemd for the unit: %s; give its cgroup path instead",
				arg, error.message ? error.message : strerror(-r));
		goto out;
	}
	r = sd_bus_message_read(reply, "o", &object);
	if (r >= 0)
		r = sd_bus_get_property_string(bus, "org.freedesktop.systemd1",
					       object, unit_interface(arg),
					       "ControlGroup", &error, &cgroup);
	if (r < 0) {
		err_msg("%s: systemd did not give the unit's cgroup: %s", arg,
			error.message ? error.message : strerror(-r));
		goto out;
	}
	if (!*cgroup) {
		err_msg("%s: the unit has no cgroup now (it is not running: systemctl start %s)",
			arg, arg);
		goto out;
	}
	dir = dir_of_path(cgroup);
	ret = dir ? cg_ref_from_dir(dir, ref) : -1;
	if (ret)
		err_msg("%s: systemd says its cgroup is %s, which is not below the cgroup2 mount %s",
			arg, cgroup, cg_mnt.dir);
	free(dir);
out:
	free(cgroup);
	sd_bus_message_unref(reply);
	sd_bus_error_free(&error);
	sd_bus_flush_close_unref(bus);
	return ret;
}

/*
 * cg_path_of_pid - the cgroup2 path of a process (free it), NULL if none.
 * libsystemd reads it (sd_pid_get_cgroup()) where it finds cgroup2 at
 * /sys/fs/cgroup; where it does not (ENOMEDIUM: a mount namespace with
 * cgroup2 elsewhere) it is the "0::" line of /proc/PID/cgroup.
 */
char *cg_path_of_pid(pid_t pid)
{
	char file[64], line[4096], *path = NULL;
	FILE *f;
	int r;

	r = sd_pid_get_cgroup(pid, &path);
	if (r >= 0)
		return path;
	if (r != -ENOMEDIUM) {
		errno = -r;
		return NULL;
	}
	snprintf(file, sizeof(file), "/proc/%d/cgroup", pid ? pid : getpid());
	f = fopen(file, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		path = xstrdup(line + 3);
		break;
	}
	if (f)
		fclose(f);
	if (!path)
		errno = ENOENT;
	return path;
}

/* resolve_pid - pid:PID, the cgroup a process is in now */
static int resolve_pid(const char *arg, struct cg_ref *ref)
{
	char *end, *path, *dir;
	long pid;
	int ret;

	errno = 0;
	pid = strtol(arg + 4, &end, 10);
	if (errno || end == arg + 4 || *end || pid <= 0) {
		err_msg("%s: pid:PID takes a process id", arg);
		return -1;
	}
	path = cg_path_of_pid(pid);
	if (!path) {
		err_msg("%s: no cgroup of process %ld: %s", arg, pid,
			errno == ENOENT || errno == ESRCH ? "no such process" :
			strerror(errno));
		return -1;
	}
	dir = dir_of_path(path);
	ret = dir ? cg_ref_from_dir(dir, ref) : -1;
	if (ret)
		err_msg("%s: process %ld is in cgroup %s, which is not below the cgroup2 mount %s",
			arg, pid, path, cg_mnt.dir);
	free(dir);
	free(path);
	return ret;
}

static bool is_container_id(const char *arg)
{
	size_t n = strlen(arg);

	return n >= 12 && n <= 64 && strspn(arg, "0123456789abcdef") == n;
}

/* resolve_container - the cgroup docker, podman, containerd or CRI-O made */
static int resolve_container(const char *arg, struct cg_ref *ref)
{
	struct cg_search s = { .want = arg };
	char *looked;
	int ret;

	cg_walk(cg_mnt.dir, search_one, &s);
	if (asprintf(&looked,
		     "a cgroup below %s named docker-%s*.scope (docker), libpod-%s*.scope (podman),\n"
		     "         cri-containerd-%s*.scope (containerd), crio-%s*.scope (CRI-O), or %s* with\n"
		     "         64 hex digits (cgroupfs drivers: /docker/ID, /kubepods/.../ID)",
		     cg_mnt.dir, arg, arg, arg, arg, arg) < 0)
		looked = NULL;
	ret = search_result(&s, arg, looked ? looked : arg, ref);
	free(looked);
	return ret;
}

/* resolve_id - id:N, the cgroup whose directory has inode N */
static int resolve_id(const char *arg, struct cg_ref *ref)
{
	struct cg_search s = { 0 };
	char *end, *looked;
	struct stat st;
	int ret;

	errno = 0;
	s.id = strtoull(arg + 3, &end, 10);
	if (errno || end == arg + 3 || *end || !s.id) {
		err_msg("%s: id:N takes a cgroup id, a number (stat -c %%i DIR)", arg);
		return -1;
	}
	if (!stat(cg_mnt.dir, &st) && st.st_ino == s.id)
		return cg_ref_from_dir(cg_mnt.dir, ref);
	cg_walk(cg_mnt.dir, search_one, &s);
	if (asprintf(&looked, "a directory with inode %llu below %s", s.id,
		     cg_mnt.dir) < 0)
		looked = NULL;
	ret = search_result(&s, arg, looked ? looked : arg, ref);
	free(looked);
	return ret;
}

/*
 * Container names: the runtime's own list of its containers gives the id
 * a name stands for, and the id the cgroup (resolve_container). podman
 * (and buildah, CRI-O) keep theirs in containers/storage:
 * GRAPHROOT/DRIVER-containers/containers.json, an array of
 * { "id": ..., "names": [...] }; GRAPHROOT is /var/lib/containers/storage
 * unless /etc/containers/storage.conf says otherwise.
 * $CGTRACE_CONTAINERS_STORAGE names the storage.conf to read instead.
 */
#define STORAGE_CONF	"/etc/containers/storage.conf"
#define STORAGE_ROOT	"/var/lib/containers/storage"

/* storage_root - containers/storage's graphroot (free it) */
static char *storage_root(void)
{
	const char *conf = getenv("CGTRACE_CONTAINERS_STORAGE");
	char line[4096], *p, *end, *root = NULL;
	FILE *f;

	f = fopen(conf && *conf ? conf : STORAGE_CONF, "re");
	while (f && !root && fgets(line, sizeof(line), f)) {
		/* graphroot = "/path" (TOML, in its [storage] table) */
		p = line + strspn(line, " \t");
		if (strncmp(p, "graphroot", 9))
			continue;
		p += 9 + strspn(p + 9, " \t");
		if (*p++ != '=')
			continue;
		p += strspn(p, " \t");
		if (*p != '"' || !(end = strchr(p + 1, '"')))
			continue;
		*end = '\0';
		root = xstrdup(p + 1);
	}
	if (f)
		fclose(f);
	return root ? root : xstrdup(STORAGE_ROOT);
}

struct name_search {
	const char	*name;
	char		*ids[CG_MAX_LISTED];	/* the ids named so */
	int		nr_ids;
	int		nr_containers;		/* every container listed */
	char		*looked;		/* the files read, for an error */
};

/* names_in_storage - the containers of one containers.json named @name */
static void names_in_storage(const char *file, struct name_search *ns)
{
	struct json_object *all, *c, *names, *id, *n;
	size_t i, k;
	char *old = ns->looked;

	ns->looked = xasprintf("%s%s%s", old ? old : "", old ? ", " : "", file);
	free(old);
	all = json_object_from_file(file);
	if (!all || !json_object_is_type(all, json_type_array)) {
		json_object_put(all);
		return;
	}
	for (i = 0; i < json_object_array_length(all); i++) {
		c = json_object_array_get_idx(all, i);
		if (!json_object_object_get_ex(c, "id", &id) ||
		    !json_object_is_type(id, json_type_string))
			continue;
		ns->nr_containers++;
		if (!json_object_object_get_ex(c, "names", &names) ||
		    !json_object_is_type(names, json_type_array))
			continue;
		for (k = 0; k < json_object_array_length(names); k++) {
			n = json_object_array_get_idx(names, k);
			if (!json_object_is_type(n, json_type_string) ||
			    strcmp(json_object_get_string(n), ns->name))
				continue;
			if (ns->nr_ids < CG_MAX_LISTED)
				ns->ids[ns->nr_ids] = xstrdup(json_object_get_string(id));
			ns->nr_ids++;
			break;
		}
	}
	json_object_put(all);
}

/*
 * resolve_container_name - a container named @arg: its id from the
 * runtime's list, then its cgroup as for an id. None or several is an
 * error that names what was read.
 */
static int resolve_container_name(const char *arg, struct cg_ref *ref)
{
	struct name_search ns = { .name = arg };
	char *root = storage_root(), *file;
	struct dirent *d;
	DIR *dp;
	int i, ret = -1;
	size_t n;

	dp = opendir(root);
	while (dp && (d = readdir(dp))) {
		n = strlen(d->d_name);
		if (n <= 11 || strcmp(d->d_name + n - 11, "-containers"))
			continue;
		file = xasprintf("%s/%s/containers.json", root, d->d_name);
		if (!access(file, R_OK))
			names_in_storage(file, &ns);
		free(file);
	}
	if (dp)
		closedir(dp);
	if (ns.nr_ids == 1) {
		ret = resolve_container(ns.ids[0], ref);
		if (ret)
			err_msg("%s: that is podman's container %.12s (%s): is it running? (podman ps)",
				arg, ns.ids[0], ns.looked);
	} else if (!ns.nr_ids) {
		err_msg("%s: not a cgroup, unit or container: no container is named so in %s\n"
			"         (%d containers there); a cgroup is named by a path (/system.slice/x.service),\n"
			"         a directory below %s, id:N, pid:PID, a systemd unit (NAME.service, .scope,\n"
			"         .slice) or a container id (12 to 64 hex digits)",
			arg, ns.looked ? ns.looked : root, ns.nr_containers, cg_mnt.dir);
	} else {
		err_msg("%s names %d containers (%s); give the id of one:", arg,
			ns.nr_ids, ns.looked);
		for (i = 0; i < ns.nr_ids && i < CG_MAX_LISTED; i++)
			fprintf(stderr, "cgtrace:   %s\n", ns.ids[i]);
	}
	for (i = 0; i < ns.nr_ids && i < CG_MAX_LISTED; i++)
		free(ns.ids[i]);
	free(ns.looked);
	free(root);
	return ret;
}

/*
 * cg_resolve - the cgroup a user named, or -1 after saying why not.
 *
 * @arg is, in the order tried:
 *  - id:N, a cgroup id (the inode of its directory);
 *  - /PATH: a cgroup path as /proc/PID/cgroup prints it, else a directory
 *    of the cgroup2 mount (the order the kernel's files try them);
 *  - pid:PID, the cgroup of process PID now;
 *  - a systemd unit, NAME.service/.scope/.slice/.socket/.mount/.swap:
 *    the cgroup systemd says it has;
 *  - a container id, 12 to 64 hex digits (docker ps shows 12): the
 *    cgroup docker, podman, containerd or CRI-O made for it;
 *  - a container name, the id its runtime's list gives it (podman's).
 */
int cg_resolve(const char *arg, struct cg_ref *ref)
{
	char *dir;
	int ret;

	memset(ref, 0, sizeof(*ref));
	if (!cg_mount_dir())
		return -1;
	if (!strncmp(arg, "id:", 3))
		return resolve_id(arg, ref);
	if (!strncmp(arg, "pid:", 4))
		return resolve_pid(arg, ref);
	if (arg[0] == '/') {
		dir = dir_of_path(arg);
		ret = dir ? cg_ref_from_dir(dir, ref) : -1;
		if (ret && under(arg, cg_mnt.dir))
			ret = cg_ref_from_dir(arg, ref);
		if (ret)
			err_msg("cgroup %s does not exist (no %s)", arg,
				dir ? dir : arg);
		free(dir);
		return ret;
	}
	if (unit_interface(arg))
		return resolve_unit(arg, ref);
	if (is_container_id(arg))
		return resolve_container(arg, ref);
	return resolve_container_name(arg, ref);
}

/* cg_self_dir - the directory of the caller's own cgroup (free it) */
char *cg_self_dir(void)
{
	char *path, *dir = NULL;

	if (!cg_mount_dir())
		return NULL;
	path = cg_path_of_pid(0);
	if (path)
		dir = dir_of_path(path);
	if (!dir)
		err_msg("our own cgroup (%s) is not below the cgroup2 mount %s (another cgroup namespace?)",
			path ? path : strerror(errno), cg_mnt.dir);
	free(path);
	return dir;
}
