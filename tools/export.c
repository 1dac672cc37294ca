/* SPDX-License-Identifier: MIT */
/*
 * sysgate export --format ocsf TRAIL: each record of a trail as one OCSF
 * 1.3.0 event (a JSON object a line on stdout), for SIEMs and log
 * shippers.  Reads the trail through audit/'s reader (jansson) and uses
 * rules/'s syscall table to tell file, process and network calls apart.
 *
 * Every record gives exactly one event, never none: a record of a type
 * this file does not know becomes a Base Event (class 0).  The whole
 * record is kept under "unmapped", so nothing of the trail is lost.
 * The mapping is described in docs/shipping-trails.md.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "rules/rules.h"
#include "tools/tools.h"

#define EXIT_TOOL_FAILURE 125
#define OCSF_VERSION "1.3.0"
/* Processes remembered per run (parent, program) and syscall records
 * waiting for their syscall.result; past this, events lose the parent
 * or the pending object, never the record itself. */
#define MAX_TRACKED 1000000

/* OCSF class and category uids used here. */
enum {
	OCSF_BASE = 0,
	OCSF_FILE = 1001,
	OCSF_PROCESS = 1007,
	OCSF_FINDING = 2004,
	OCSF_NETWORK = 4001,
	OCSF_APP_LIFECYCLE = 6002,
};

struct ocsf_class {
	int uid;
	const char *name;
	int category;
	const char *category_name;
};

static const struct ocsf_class classes[] = {
	{ OCSF_BASE, "Base Event", 0, "Uncategorized" },
	{ OCSF_FILE, "File System Activity", 1, "System Activity" },
	{ OCSF_PROCESS, "Process Activity", 1, "System Activity" },
	{ OCSF_FINDING, "Detection Finding", 2, "Findings" },
	{ OCSF_NETWORK, "Network Activity", 4, "Network Activity" },
	{ OCSF_APP_LIFECYCLE, "Application Lifecycle", 6, "Application Activity" },
};

struct ocsf_name {
	int class_uid;
	int id;
	const char *name;
};

/* Activity captions of OCSF 1.3.0 for the ids this file emits (99,
 * Other, takes the source's own name instead). */
static const struct ocsf_name activities[] = {
	{ OCSF_FILE, 1, "Create" },	  { OCSF_FILE, 2, "Read" },
	{ OCSF_FILE, 3, "Update" },	  { OCSF_FILE, 4, "Delete" },
	{ OCSF_FILE, 5, "Rename" },	  { OCSF_FILE, 6, "Set Attributes" },
	{ OCSF_FILE, 7, "Set Security" }, { OCSF_FILE, 8, "Get Attributes" },
	{ OCSF_FILE, 12, "Mount" },	  { OCSF_FILE, 13, "Unmount" },
	{ OCSF_FILE, 14, "Open" },	  { OCSF_PROCESS, 1, "Launch" },
	{ OCSF_PROCESS, 2, "Terminate" }, { OCSF_NETWORK, 1, "Open" },
	{ OCSF_NETWORK, 4, "Fail" },	  { OCSF_NETWORK, 5, "Refuse" },
	{ OCSF_NETWORK, 6, "Traffic" },	  { OCSF_FINDING, 1, "Create" },
	{ OCSF_APP_LIFECYCLE, 3, "Start" }, { OCSF_APP_LIFECYCLE, 4, "Stop" },
};

static const char *const severities[] = {
	"Unknown", "Informational", "Low", "Medium", "High", "Critical", "Fatal",
};

enum { SEV_INFO = 1, SEV_LOW = 2, SEV_MEDIUM = 3, SEV_HIGH = 4 };

/* What is known about the run being exported; reset when "run" changes. */
struct export {
	char *run;
	json_t *start;	 /* the run.start record, or NULL */
	json_t *ppid;	 /* "pid" -> parent pid */
	json_t *exe;	 /* "pid" -> program path */
	json_t *pending; /* "seq" -> what the pending syscall event named */
	unsigned long events;
};

static void export_reset(struct export *x, const char *run)
{
	free(x->run);
	x->run = run ? strdup(run) : NULL;
	json_decref(x->start);
	x->start = NULL;
	json_object_clear(x->ppid);
	json_object_clear(x->exe);
	json_object_clear(x->pending);
}

/* ---- small helpers ---------------------------------------------------- */

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && s[1] ? s + 1 : path ? path : "";
}

static void set_new(json_t *o, const char *key, json_t *v)
{
	if (v)
		json_object_set_new(o, key, v);
}

static void set_str(json_t *o, const char *key, const char *v)
{
	if (v)
		json_object_set_new(o, key, json_string(v));
}

static const char *activity_caption(int class_uid, int id)
{
	for (size_t i = 0; i < sizeof(activities) / sizeof(activities[0]); i++)
		if (activities[i].class_uid == class_uid && activities[i].id == id)
			return activities[i].name;
	return NULL;
}

static const struct ocsf_class *class_of(int uid)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].uid == uid)
			return &classes[i];
	return &classes[0];
}

/* RFC 3339 UTC with microseconds -> milliseconds since the epoch (OCSF's
 * timestamp_t); 0 when the text is not in that form. */
static int64_t ts_ms(const char *ts)
{
	struct tm tm = { 0 };
	int us = 0, n = 0;

	if (!ts || sscanf(ts, "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ%n", &tm.tm_year,
			  &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
			  &tm.tm_sec, &us, &n) != 7 || ts[n] != '\0')
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + us / 1000;
}

static void key_of(char *buf, size_t len, json_t *num)
{
	snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(num));
}

/* ---- objects ------------------------------------------------------------ */

static json_t *device_obj(struct export *x)
{
	json_t *d = json_object(), *os = json_object();
	const char *host = x->start ? str_of(x->start, "host") : NULL;
	const char *kernel = x->start ? str_of(x->start, "kernel") : NULL;

	set_str(d, "hostname", host);
	set_str(d, "name", host);
	json_object_set_new(d, "type_id", json_integer(0));
	json_object_set_new(d, "type", json_string("Unknown"));
	json_object_set_new(os, "name", json_string("Linux"));
	json_object_set_new(os, "type_id", json_integer(200));
	json_object_set_new(os, "type", json_string("Linux"));
	if (kernel && !strncmp(kernel, "Linux ", 6))
		set_str(os, "version", kernel + 6);
	json_object_set_new(d, "os", os);
	return d;
}

static json_t *user_obj(struct export *x)
{
	json_t *uid = x->start ? json_object_get(x->start, "uid") : NULL;
	json_t *u;
	char buf[32];

	if (!json_is_integer(uid))
		return NULL;
	u = json_object();
	key_of(buf, sizeof(buf), uid);
	json_object_set_new(u, "uid", json_string(buf));
	return u;
}

static json_t *file_obj(const char *path, int type_id)
{
	json_t *f = json_object();

	set_str(f, "path", path);
	json_object_set_new(f, "name", json_string(base_name(path)));
	json_object_set_new(f, "type_id", json_integer(type_id));
	json_object_set_new(f, "type", json_string(type_id == 1 ? "Regular File" :
						   type_id == 2 ? "Folder" :
								  "Unknown"));
	return f;
}

/* The process pid (tid: the thread, may be NULL) as OCSF's process object,
 * with its program (exe, or the one remembered) and its parent. */
static json_t *process_obj(struct export *x, json_t *pid, json_t *tid,
			   const char *exe)
{
	json_t *p = json_object(), *ppid, *u;
	char key[32];

	if (!json_is_integer(pid))
		return p;
	key_of(key, sizeof(key), pid);
	if (!exe)
		exe = json_string_value(json_object_get(x->exe, key));
	json_object_set(p, "pid", pid);
	if (json_is_integer(tid))
		json_object_set(p, "tid", tid);
	if (exe) {
		json_object_set_new(p, "name", json_string(base_name(exe)));
		json_object_set_new(p, "file", file_obj(exe, 1));
	}
	ppid = json_object_get(x->ppid, key);
	if (ppid) {
		json_t *pp = json_object();

		json_object_set(pp, "pid", ppid);
		json_object_set_new(p, "parent_process", pp);
	}
	u = user_obj(x);
	set_new(p, "user", u);
	return p;
}

static json_t *actor_obj(struct export *x, json_t *rec)
{
	json_t *a = json_object();

	json_object_set_new(a, "process",
			    process_obj(x, json_object_get(rec, "pid"),
					json_object_get(rec, "tid"),
					str_of(rec, "exe")));
	set_new(a, "user", user_obj(x));
	return a;
}

/* A socket address of the trail ({family, ip, port} or {path}) as an
 * OCSF network endpoint. */
static json_t *endpoint_obj(json_t *addr)
{
	json_t *e = json_object();
	const char *path = str_of(addr, "path");

	if (json_object_get(addr, "ip"))
		json_object_set(e, "ip", json_object_get(addr, "ip"));
	if (json_is_integer(json_object_get(addr, "port")))
		json_object_set(e, "port", json_object_get(addr, "port"));
	if (path)
		set_str(e, "name", path);
	else if (!json_object_get(addr, "ip"))
		set_str(e, "name", str_of(addr, "family"));
	return e;
}

static json_t *local_endpoint(struct export *x)
{
	json_t *e = json_object();

	set_str(e, "hostname", x->start ? str_of(x->start, "host") : NULL);
	if (!json_object_size(e))
		set_str(e, "name", "localhost");
	return e;
}

/* ---- the event frame --------------------------------------------------- */

static json_t *metadata_obj(struct export *x, json_t *rec, bool control)
{
	json_t *m = json_object(), *p = json_object();
	const char *version = x->start ? str_of(x->start, "version") : NULL;
	char uid[512];

	json_object_set_new(p, "name", json_string("sysgate"));
	json_object_set_new(p, "vendor_name", json_string("sysgate"));
	set_str(p, "version", version ? version : PACKAGE_VERSION);
	json_object_set_new(m, "product", p);
	json_object_set_new(m, "version", json_string(OCSF_VERSION));
	json_object_set_new(m, "log_name", json_string("sysgate-audit"));
	set_str(m, "original_time", str_of(rec, "ts"));
	if (str_of(rec, "run")) {
		set_str(m, "correlation_uid", str_of(rec, "run"));
		snprintf(uid, sizeof(uid), "%s:%" JSON_INTEGER_FORMAT,
			 str_of(rec, "run"),
			 json_integer_value(json_object_get(rec, "seq")));
		set_str(m, "uid", uid);
	}
	if (json_is_integer(json_object_get(rec, "seq")))
		json_object_set(m, "sequence", json_object_get(rec, "seq"));
	json_object_set_new(m, "profiles",
			    control ? json_pack("[ss]", "host", "security_control") :
				      json_pack("[s]", "host"));
	return m;
}

/* The attributes every event has (OCSF base event), for a record. */
static json_t *event_new(struct export *x, json_t *rec, int class_uid,
			 int activity_id, const char *activity_name,
			 int severity_id, bool control)
{
	const struct ocsf_class *c = class_of(class_uid);
	const char *caption = activity_caption(class_uid, activity_id);
	json_t *e = json_object();
	char type_name[256];

	if (!caption)
		caption = activity_name ? activity_name : "Other";
	json_object_set_new(e, "class_uid", json_integer(c->uid));
	json_object_set_new(e, "class_name", json_string(c->name));
	json_object_set_new(e, "category_uid", json_integer(c->category));
	json_object_set_new(e, "category_name", json_string(c->category_name));
	json_object_set_new(e, "activity_id", json_integer(activity_id));
	json_object_set_new(e, "activity_name", json_string(caption));
	json_object_set_new(e, "type_uid",
			    json_integer((json_int_t)c->uid * 100 + activity_id));
	snprintf(type_name, sizeof(type_name), "%s: %s", c->name, caption);
	json_object_set_new(e, "type_name", json_string(type_name));
	json_object_set_new(e, "severity_id", json_integer(severity_id));
	json_object_set_new(e, "severity", json_string(severities[severity_id]));
	json_object_set_new(e, "time", json_integer(ts_ms(str_of(rec, "ts"))));
	json_object_set_new(e, "metadata", metadata_obj(x, rec, control));
	json_object_set_new(e, "device", device_obj(x));
	json_object_set(e, "unmapped", rec);
	return e;
}

/* status_id, status, status_code and status_detail from a record's
 * outcome: errno (failed), result (done) or pending (outcome follows). */
static void set_status(json_t *e, json_t *rec)
{
	const char *err = str_of(rec, "errno");
	const char *note = str_of(rec, "note");

	if (err && !strcmp(err, "EINPROGRESS")) {
		/* A non-blocking connect: neither done nor failed yet. */
		json_object_set_new(e, "status_id", json_integer(99));
		json_object_set_new(e, "status", json_string("In Progress"));
		set_str(e, "status_code", err);
	} else if (err) {
		json_object_set_new(e, "status_id", json_integer(2));
		json_object_set_new(e, "status", json_string("Failure"));
		set_str(e, "status_code", err);
	} else if (json_object_get(rec, "result")) {
		json_object_set_new(e, "status_id", json_integer(1));
		json_object_set_new(e, "status", json_string("Success"));
	} else {
		json_object_set_new(e, "status_id", json_integer(0));
		json_object_set_new(e, "status", json_string("Unknown"));
		if (json_is_true(json_object_get(rec, "pending")))
			note = "pending: the outcome is in the syscall.result record";
	}
	set_str(e, "status_detail", note);
}

/* security_control: what sysgate decided, and by which rule. */
/* Security: closed world for the reader too; an action this exporter does
 * not know is shown as a refusal (a finding), never as allowed activity. */
static bool is_denial(const char *action)
{
	return action && strcmp(action, "allow") && strcmp(action, "rewrite");
}

static void set_decision(json_t *e, const char *action, const char *rule)
{
	bool denied = is_denial(action);
	json_t *auth = json_object(), *pol = json_object();

	json_object_set_new(e, "action_id", json_integer(denied ? 2 : 1));
	json_object_set_new(e, "action", json_string(denied ? "Denied" : "Allowed"));
	if (!action || !strcmp(action, "allow")) {
		json_object_set_new(e, "disposition_id", json_integer(1));
		json_object_set_new(e, "disposition", json_string("Allowed"));
	} else if (!strcmp(action, "deny")) {
		json_object_set_new(e, "disposition_id", json_integer(2));
		json_object_set_new(e, "disposition", json_string("Blocked"));
	} else {
		/* kill: the caller was killed; rewrite: done on other
		 * arguments.  OCSF has no caption for either. */
		json_object_set_new(e, "disposition_id", json_integer(99));
		json_object_set_new(e, "disposition",
				    json_string(!strcmp(action, "kill") ? "Killed" :
					     !strcmp(action, "rewrite") ? "Rewritten" :
									  action));
	}
	set_str(auth, "decision", action ? action : "allow");
	set_str(pol, "name", rule ? rule : "default");
	set_str(pol, "desc", rule ? "sysgate policy rule" :
				    "the policy's default decision");
	json_object_set_new(auth, "policy", pol);
	json_object_set_new(e, "authorizations", json_pack("[o]", auth));
}

/* ---- syscall records ---------------------------------------------------- */

static bool name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* The File System Activity id of a call on paths. */
static int file_activity(const char *name, const char *access)
{
	static const char *const renames[] = { "rename", "renameat", "renameat2", NULL };
	static const char *const security[] = {
		"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "lchown",
		"fchown", "fchownat", NULL };
	static const char *const attrs[] = {
		"setxattr", "lsetxattr", "fsetxattr", "removexattr",
		"lremovexattr", "fremovexattr", "utime", "utimes", "futimesat",
		"utimensat", "futimens", "ioctl", "setxattrat", "removexattrat",
		NULL };
	static const char *const opens[] = {
		"open", "openat", "openat2", "open_by_handle_at", NULL };
	static const char *const updates[] = { "truncate", "ftruncate", NULL };

	if (name_in(name, renames))
		return 5;
	if (name_in(name, security))
		return 7;
	if (name_in(name, attrs))
		return 6;
	if (name_in(name, updates))
		return 3;
	if (!strcmp(name, "mount"))
		return 12;
	if (!strcmp(name, "umount2"))
		return 13;
	if (!access)
		return 99;
	if (!strcmp(access, "create"))
		return 1;
	if (!strcmp(access, "delete"))
		return 4;
	if (!strcmp(access, "read"))
		return name_in(name, opens) ? 14 : 2;
	if (!strcmp(access, "write"))
		return name_in(name, opens) ? 14 : 3;
	if (!strcmp(access, "stat") && strncmp(name, "ch", 2))
		return 8;
	return 99;
}

static bool is_dir_call(const char *name)
{
	static const char *const dirs[] = { "mkdir", "mkdirat", "rmdir", "chdir",
					    "chroot", "pivot_root", NULL };
	return name_in(name, dirs);
}

/* The path-th checked path of a syscall record (its canonical form), or
 * the path the program passed. */
static const char *path_at(json_t *rec, size_t i)
{
	json_t *p = json_array_get(json_object_get(rec, "paths"), i);
	json_t *args = json_object_get(rec, "args");

	if (p)
		return str_of(p, "path");
	if (i == 0)
		return str_of(args, "path") ? str_of(args, "path") :
					      str_of(args, "oldpath");
	return str_of(args, "newpath");
}

/* The objects an event about this call names: file (and file_result) for
 * calls on paths, endpoints for calls on addresses, the process for the
 * rest.  Returns the activity id for the call's own class. */
static int call_objects(struct export *x, json_t *rec, const char *name,
			const struct rules_syscall_info *si, json_t *objs)
{
	json_t *args = json_object_get(rec, "args");
	json_t *first = json_array_get(json_object_get(rec, "paths"), 0);
	int dir = is_dir_call(name) ? 2 : 0;

	if (si && si->kind == RULES_KIND_PATH) {
		json_object_set_new(objs, "file", file_obj(path_at(rec, 0) ?
							   path_at(rec, 0) : "", dir));
		if (path_at(rec, 1))
			json_object_set_new(objs, "file_result",
					    file_obj(path_at(rec, 1), dir));
		return file_activity(name, str_of(first, "access"));
	}
	if (si && si->kind == RULES_KIND_NET) {
		bool bind = strstr(name, "bind") != NULL;
		json_t *ep = endpoint_obj(json_object_get(args, "addr"));

		json_object_set_new(objs, "dst_endpoint", ep);
		json_object_set_new(objs, "src_endpoint", local_endpoint(x));
		if (!bind)
			json_object_set_new(objs, "connection_info",
					    json_pack("{s:i,s:s}", "direction_id", 2,
						      "direction", "Outbound"));
		return bind ? 99 : strstr(name, "connect") ? 1 : 6;
	}
	if (si && si->kind == RULES_KIND_EXEC && path_at(rec, 0)) {
		/* The process as it asks to become: the program checked. */
		json_t *p = json_object();

		json_object_set(p, "pid", json_object_get(rec, "pid"));
		json_object_set(p, "tid", json_object_get(rec, "tid"));
		set_str(p, "name", base_name(path_at(rec, 0)));
		json_object_set_new(p, "file", file_obj(path_at(rec, 0), 1));
		json_object_set_new(objs, "process", p);
		return 99;
	}
	json_object_set_new(objs, "process",
			    process_obj(x, json_object_get(rec, "pid"),
					json_object_get(rec, "tid"),
					str_of(rec, "exe")));
	return 99;
}

static int class_of_kind(const struct rules_syscall_info *si)
{
	if (!si)
		return OCSF_BASE;
	switch (si->kind) {
	case RULES_KIND_PATH:
		return OCSF_FILE;
	case RULES_KIND_NET:
		return OCSF_NETWORK;
	case RULES_KIND_EXEC:
	case RULES_KIND_SCALAR:
		return OCSF_PROCESS;
	}
	return OCSF_BASE;
}

static void merge(json_t *e, json_t *objs)
{
	json_object_update(e, objs);
}

static void set_message(json_t *e, json_t *rec, const char *name, json_t *objs)
{
	const char *what = str_of(json_object_get(objs, "file"), "path");
	const char *action = str_of(rec, "action");
	const char *rule = str_of(rec, "rule");
	json_t *ep = json_object_get(objs, "dst_endpoint");
	char buf[1024], addr[300] = "";

	if (!what && ep) {
		if (str_of(ep, "ip"))
			snprintf(addr, sizeof(addr), "%s:%" JSON_INTEGER_FORMAT,
				 str_of(ep, "ip"),
				 json_integer_value(json_object_get(ep, "port")));
		else
			snprintf(addr, sizeof(addr), "%s",
				 str_of(ep, "name") ? str_of(ep, "name") : "");
		what = addr;
	}
	snprintf(buf, sizeof(buf), "%s%s%s: %s by %s%s%s%s%s", name,
		 what ? " " : "", what ? what : "", action ? action : "allow",
		 rule ? "rule " : "", rule ? rule : "the policy's default",
		 str_of(rec, "errno") ? " (" : "",
		 str_of(rec, "errno") ? str_of(rec, "errno") : "",
		 str_of(rec, "errno") ? ")" : "");
	json_object_set_new(e, "message", json_string(buf));
}

/* A denial or kill: a Detection Finding whose evidence is the call. */
static json_t *finding_event(struct export *x, json_t *rec, const char *name,
			     json_t *objs)
{
	const char *action = str_of(rec, "action");
	const char *rule = str_of(rec, "rule");
	bool kill = action && !strcmp(action, "kill");
	json_t *e = event_new(x, rec, OCSF_FINDING, 1, NULL,
			      kill ? SEV_HIGH : SEV_MEDIUM, true);
	json_t *info = json_object(), *evidence = json_object(), *an;
	char title[512];

	json_object_set(info, "uid", json_object_get(json_object_get(e, "metadata"), "uid"));
	set_message(e, rec, name, objs);
	snprintf(title, sizeof(title), "sysgate: %s", str_of(e, "message"));
	json_object_set_new(info, "title", json_string(title));
	an = json_pack("{s:s,s:i,s:s}", "name", rule ? rule : "default",
		       "type_id", 1, "type", "Rule");
	json_object_set_new(info, "analytic", an);
	json_object_set_new(info, "types", json_pack("[s]", "Policy Violation"));
	json_object_set(info, "created_time", json_object_get(e, "time"));
	json_object_set_new(e, "finding_info", info);
	json_object_set_new(e, "actor", actor_obj(x, rec));
	json_object_set_new(evidence, "actor", actor_obj(x, rec));
	json_object_update(evidence, objs);
	json_object_del(evidence, "file_result");
	json_object_set_new(e, "evidences", json_pack("[o]", evidence));
	json_object_set_new(e, "status_id", json_integer(1));
	json_object_set_new(e, "status", json_string("New"));
	json_object_set_new(e, "confidence_id", json_integer(3));
	json_object_set_new(e, "confidence", json_string("High"));
	set_decision(e, action, rule);
	return e;
}

/* Remember what a pending call named, for its syscall.result. */
static void remember_pending(struct export *x, json_t *rec, json_t *e)
{
	static const char *const keep[] = { "class_uid", "activity_id", "file",
					    "file_result", "dst_endpoint",
					    "src_endpoint", "connection_info",
					    "process", NULL };
	json_t *p;
	char key[32];

	if (!json_is_true(json_object_get(rec, "pending")) ||
	    json_object_size(x->pending) >= MAX_TRACKED)
		return;
	p = json_object();
	for (const char *const *k = keep; *k; k++)
		if (json_object_get(e, *k))
			json_object_set(p, *k, json_object_get(e, *k));
	key_of(key, sizeof(key), json_object_get(rec, "seq"));
	json_object_set_new(x->pending, key, p);
}

static json_t *syscall_event(struct export *x, json_t *rec)
{
	const char *name = str_of(rec, "syscall");
	const struct rules_syscall_info *si = name ? rules_syscall_by_name(name) : NULL;
	json_t *objs = json_object(), *e;
	int class_uid = class_of_kind(si), activity;

	if (!name)
		name = "syscall";
	activity = call_objects(x, rec, name, si, objs);
	if (is_denial(str_of(rec, "action"))) {
		e = finding_event(x, rec, name, objs);
		json_decref(objs);
		return e;
	}
	e = event_new(x, rec, class_uid, class_uid == OCSF_BASE ? 99 : activity,
		      name, SEV_INFO, true);
	merge(e, objs);
	json_object_set_new(e, "actor", actor_obj(x, rec));
	set_status(e, rec);
	set_decision(e, str_of(rec, "action"), str_of(rec, "rule"));
	set_message(e, rec, name, objs);
	remember_pending(x, rec, e);
	json_decref(objs);
	return e;
}

/* The outcome of a pending call: the same class and objects as the call's
 * event, with the outcome as the status.  A result whose call was not
 * seen (a cut trail) is a Base Event. */
static json_t *result_event(struct export *x, json_t *rec)
{
	json_t *ref = json_object_get(rec, "ref"), *p, *e;
	const char *err = str_of(rec, "errno");
	int class_uid, activity;
	char key[32];

	key_of(key, sizeof(key), ref);
	p = json_is_integer(ref) ? json_object_get(x->pending, key) : NULL;
	if (!p) {
		e = event_new(x, rec, OCSF_BASE, 99, "syscall.result", SEV_INFO, false);
		set_status(e, rec);
		return e;
	}
	class_uid = (int)json_integer_value(json_object_get(p, "class_uid"));
	activity = (int)json_integer_value(json_object_get(p, "activity_id"));
	if (class_uid == OCSF_NETWORK && activity == 1 && err &&
	    strcmp(err, "EINPROGRESS"))
		activity = !strcmp(err, "ECONNREFUSED") ? 5 : 4;
	e = event_new(x, rec, class_uid, activity, str_of(rec, "syscall"),
		      SEV_INFO, false);
	json_object_del(p, "class_uid");
	json_object_del(p, "activity_id");
	merge(e, p);
	json_object_set_new(e, "actor", actor_obj(x, rec));
	set_status(e, rec);
	json_object_del(x->pending, key);
	return e;
}

/* ---- process and run records ------------------------------------------ */

static void remember_process(struct export *x, json_t *rec, const char *type)
{
	json_t *pid = json_object_get(rec, "pid");
	char key[32];

	if (!json_is_integer(pid))
		return;
	key_of(key, sizeof(key), pid);
	if (!strcmp(type, "proc.fork") && json_integer_value(pid) ==
	    json_integer_value(json_object_get(rec, "tid")) &&
	    json_object_size(x->ppid) < MAX_TRACKED)
		json_object_set(x->ppid, key, json_object_get(rec, "ppid"));
	if (!strcmp(type, "proc.exec") && str_of(rec, "path") &&
	    json_object_size(x->exe) < MAX_TRACKED)
		json_object_set(x->exe, key, json_object_get(rec, "path"));
}

static void forget_process(struct export *x, json_t *rec)
{
	json_t *pid = json_object_get(rec, "pid");
	char key[32];

	if (!json_is_integer(pid) || json_is_true(json_object_get(rec, "thread")))
		return;
	key_of(key, sizeof(key), pid);
	json_object_del(x->ppid, key);
	json_object_del(x->exe, key);
}

static json_t *cmd_line(json_t *argv)
{
	size_t i, len = 0;
	json_t *v, *s;
	char *buf, *p;

	json_array_foreach(argv, i, v)
		len += strlen(json_string_value(v) ? json_string_value(v) :
			      str_of(v, "text") ? str_of(v, "text") : "") + 1;
	buf = p = calloc(1, len + 1);
	if (!buf)
		return NULL;
	json_array_foreach(argv, i, v) {
		const char *a = json_string_value(v) ? json_string_value(v) :
				str_of(v, "text") ? str_of(v, "text") : "";

		p += sprintf(p, "%s%s", i ? " " : "", a);
	}
	s = json_string(buf);
	free(buf);
	return s;
}

static json_t *proc_event(struct export *x, json_t *rec, const char *type)
{
	json_t *pid = json_object_get(rec, "pid"), *tid = json_object_get(rec, "tid");
	const char *kind = str_of(rec, "kind");
	json_t *e, *proc, *actor;
	int activity = 99;
	const char *name = type + 5;

	if (!strcmp(type, "proc.fork"))
		name = kind && !strcmp(kind, "thread") ? "Thread Create" : "Fork";
	else if (!strcmp(type, "proc.exec"))
		activity = 1;
	else if (!strcmp(type, "proc.exit"))
		activity = 2;
	else
		name = "Signal";
	remember_process(x, rec, type);
	e = event_new(x, rec, OCSF_PROCESS, activity, name, SEV_INFO, false);
	proc = process_obj(x, pid, tid, str_of(rec, "path"));
	if (!strcmp(type, "proc.exec"))
		set_new(proc, "cmd_line", cmd_line(json_object_get(rec, "argv")));
	json_object_set_new(e, "process", proc);
	if (!strcmp(type, "proc.fork")) {
		actor = json_object();
		json_object_set_new(actor, "process",
				    process_obj(x, json_object_get(rec, "ppid"),
						NULL, NULL));
		set_new(actor, "user", user_obj(x));
	} else {
		actor = actor_obj(x, rec);
	}
	json_object_set_new(e, "actor", actor);
	if (json_is_integer(json_object_get(rec, "code")))
		json_object_set(e, "exit_code", json_object_get(rec, "code"));
	if (str_of(rec, "signal")) {
		char d[64];

		snprintf(d, sizeof(d), "signal %s", str_of(rec, "signal"));
		json_object_set_new(e, "status_detail", json_string(d));
	}
	if (!strcmp(type, "proc.exit"))
		forget_process(x, rec);
	return e;
}

/* run.start and run.end: sysgate as an application started and stopped. */
static json_t *run_event(struct export *x, json_t *rec, const char *type)
{
	bool start = !strcmp(type, "run.start");
	const char *status = str_of(rec, "status");
	int sev = status && strcmp(status, "exited") && strcmp(status, "signaled") ?
			  SEV_MEDIUM : SEV_INFO;
	json_t *e, *app, *actor;

	if (start) {
		json_decref(x->start);
		x->start = json_incref(rec);
	}
	e = event_new(x, rec, OCSF_APP_LIFECYCLE, start ? 3 : 4, NULL, sev, false);
	app = json_pack("{s:s,s:s}", "name", "sysgate", "vendor_name", "sysgate");
	set_str(app, "version", x->start ? str_of(x->start, "version") : NULL);
	json_object_set_new(e, "app", app);
	actor = json_pack("{s:s}", "app_name", "sysgate");
	set_new(actor, "user", user_obj(x));
	if (json_is_integer(json_object_get(rec, "supervisor_pid")))
		json_object_set_new(actor, "process",
				    process_obj(x, json_object_get(rec, "supervisor_pid"),
						NULL, NULL));
	json_object_set_new(e, "actor", actor);
	if (!start) {
		json_object_set_new(e, "status_id", json_integer(status &&
					 !strcmp(status, "failed") ? 2 : 1));
		set_str(e, "status", status);
		set_str(e, "status_detail", str_of(rec, "error"));
	}
	return e;
}

/* A resource limit reached: a finding, the limit as its rule. */
static json_t *limit_event(struct export *x, json_t *rec)
{
	char rule[128], msg[512], title[600];
	json_t *objs = json_object(), *e;

	snprintf(rule, sizeof(rule), "limits.%s",
		 str_of(rec, "limit") ? str_of(rec, "limit") : "?");
	if (json_object_get(rec, "pid"))
		json_object_set_new(objs, "process",
				    process_obj(x, json_object_get(rec, "pid"),
						json_object_get(rec, "tid"), NULL));
	else
		json_object_set_new(objs, "device", device_obj(x));
	e = finding_event(x, rec, "limit", objs);
	json_object_set_new(json_object_get(json_object_get(e, "finding_info"),
					    "analytic"), "name", json_string(rule));
	set_decision(e, "deny", rule);
	snprintf(msg, sizeof(msg), "limit %s reached: %s",
		 str_of(rec, "limit") ? str_of(rec, "limit") : "?",
		 str_of(rec, "action") ? str_of(rec, "action") : "");
	json_object_set_new(e, "message", json_string(msg));
	snprintf(title, sizeof(title), "sysgate: %s", msg);
	json_object_set_new(json_object_get(e, "finding_info"), "title",
			    json_string(title));
	json_decref(objs);
	return e;
}

/*
 * output: the command's stdout or stderr.  OCSF has no class for a
 * program's own output: a Base Event whose message is the text (data,
 * with U+FFFD for bytes that are not UTF-8; unmapped keeps the record
 * whole, data_hex included) and whose time is when sysgate read it.
 */
static json_t *output_event(struct export *x, json_t *rec)
{
	json_t *e = event_new(x, rec, OCSF_BASE, 99, "output", SEV_INFO, false);
	const char *data = str_of(rec, "data");
	const char *t = str_of(rec, "time");

	if (data)
		json_object_set_new(e, "message", json_string(data));
	if (t)
		json_object_set_new(e, "time", json_integer(ts_ms(t)));
	return e;
}

static json_t *record_event(struct export *x, json_t *rec)
{
	const char *type = str_of(rec, "type");
	const char *run = str_of(rec, "run");
	json_t *e;

	if ((run || x->run) && (!run || !x->run || strcmp(run, x->run)))
		export_reset(x, run);
	if (!type)
		type = "";
	if (!strcmp(type, "syscall"))
		return syscall_event(x, rec);
	if (!strcmp(type, "syscall.result"))
		return result_event(x, rec);
	if (!strncmp(type, "proc.", 5) &&
	    (!strcmp(type, "proc.fork") || !strcmp(type, "proc.exec") ||
	     !strcmp(type, "proc.exit") || !strcmp(type, "proc.signal")))
		return proc_event(x, rec, type);
	if (!strcmp(type, "run.start") || !strcmp(type, "run.end"))
		return run_event(x, rec, type);
	if (!strcmp(type, "limit"))
		return limit_event(x, rec);
	if (!strcmp(type, "output"))
		return output_event(x, rec);
	/* Closed world for the reader too: a record of another type is
	 * still exported, whole, as a Base Event. */
	e = event_new(x, rec, OCSF_BASE, 99, *type ? type : "unknown", SEV_INFO, false);
	return e;
}

/* ---- live: one line at a time (run --audit-format ocsf) ---------------- */

struct export_live {
	struct export x;
};

struct export_live *export_live_new(void)
{
	struct export_live *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->x.ppid = json_object();
	l->x.exe = json_object();
	l->x.pending = json_object();
	if (!l->x.ppid || !l->x.exe || !l->x.pending) {
		export_live_free(l);
		return NULL;
	}
	return l;
}

int export_live_line(void *ctx, const char *line, size_t len, char **out,
		     size_t *out_len)
{
	struct export_live *l = ctx;
	json_t *rec, *e;
	char *text;

	rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(rec)) {
		json_decref(rec);
		return -EBADMSG;
	}
	e = record_event(&l->x, rec);
	json_decref(rec);
	text = e ? json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(e);
	if (!text)
		return -ENOMEM;
	l->x.events++;
	*out = text;
	*out_len = strlen(text);
	return 0;
}

void export_live_free(struct export_live *l)
{
	if (!l)
		return;
	export_reset(&l->x, NULL);
	json_decref(l->x.ppid);
	json_decref(l->x.exe);
	json_decref(l->x.pending);
	free(l);
}

/* ---- the command --------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sysgate export --format ocsf [--] AUDIT\n"
		"Each record of the trail AUDIT (- for standard input) as one OCSF "
		OCSF_VERSION " event,\n"
		"a JSON object a line, on standard output.  No hash is checked: see\n"
		"sysgate verify.  AUDIT may be latest or ~N (see sysgate runs).\n"
		"  --format ocsf   the Open Cybersecurity Schema Framework (the only format)\n"
		"  -h, --help      this text\n"
		"Exit status: 0; 1 when a line that is not a record was skipped; 125 when\n"
		"the trail cannot be read or the output written.\n");
}

/* The command line: -1, or the exit status. */
static int export_args(int argc, char **argv, const char **path)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char path_buf[PATH_MAX], id[TOOLS_RUN_ID_MAX];
	const char *format = NULL;
	int c;

	optind = 0;
	while ((c = tools_getopt(argc, argv, "export", ":h", longopts)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tools_usage_error("export");
		}
	}
	if (!format) {
		fprintf(stderr, "sysgate export: no --format given (known: ocsf)\n");
		return tools_usage_error("export");
	}
	if (strcmp(format, "ocsf")) {
		fprintf(stderr, "sysgate export: unknown format '%s' (known: ocsf)\n",
			format);
		return tools_usage_error("export");
	}
	if (argc - optind != 1) {
		fprintf(stderr, "sysgate export: %s\n", optind >= argc ?
			"no trail given" : "one trail at a time");
		return tools_usage_error("export");
	}
	/* latest, ~N: the trail, whole (every run of the file). */
	*path = !strcmp(argv[optind], "-") ? "-" :
		tools_trail_arg("export", argv[optind], path_buf, id);
	return *path ? -1 : EXIT_TOOL_FAILURE;
}

/* stream: the trail comes through a pipe as the run goes; each event is
 * flushed as soon as it is made, for the reader at the other end. */
static int export_trail(struct audit_reader *rd, const char *path, bool stream)
{
	struct export x = { .ppid = json_object(), .exe = json_object(),
			    .pending = json_object() };
	unsigned long bad = 0;
	json_t *rec, *e;
	int r, status = 0;

	while ((r = audit_reader_next(rd, &rec)) != 0) {
		if (r == -EBADMSG) {
			fprintf(stderr, "sysgate export: %s: line %" PRIu64
				": not a record, skipped\n", path,
				audit_reader_line(rd));
			bad++;
			continue;
		}
		if (r < 0)
			break;
		e = record_event(&x, rec);
		if (!e || json_dumpf(e, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER) < 0 ||
		    putchar('\n') == EOF) {
			json_decref(e);
			r = -EIO;
			break;
		}
		json_decref(e);
		x.events++;
		if (stream && fflush(stdout) != 0) {
			r = -EIO;
			break;
		}
	}
	if (r < 0) {
		fprintf(stderr, "sysgate export: %s: %s\n", path, strerror(-r));
		status = EXIT_TOOL_FAILURE;
	} else if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sysgate export: cannot write stdout\n");
		status = EXIT_TOOL_FAILURE;
	} else if (bad) {
		status = 1;
	}
	export_reset(&x, NULL);
	json_decref(x.ppid);
	json_decref(x.exe);
	json_decref(x.pending);
	return status;
}

int tool_export(int argc, char **argv)
{
	const char *path = NULL;
	struct audit_reader *rd = NULL;
	int r, status;

	r = export_args(argc, argv, &path);
	if (r >= 0)
		return r;
	r = !strcmp(path, "-") ? audit_reader_open_fd(STDIN_FILENO, &rd) :
				 audit_reader_open_path(path, &rd);
	if (r < 0) {
		fprintf(stderr, "sysgate export: %s: %s\n", path, strerror(-r));
		return EXIT_TOOL_FAILURE;
	}
	status = export_trail(rd, path, !strcmp(path, "-"));
	audit_reader_free(rd);
	return status;
}
