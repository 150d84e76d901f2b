/* supervisor/audit.c — see audit.h. */
#include "supervisor/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "helm/release.h"

static int audit_fd = -1;

int audit_open(const char *path, bh_error *err)
{
	if (!path)
		return 0;
	audit_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (audit_fd < 0)
		return bh_error_set(err, BH_EIO, "opening audit log %s: %s", path, strerror(errno));
	return 0;
}

void audit_close(void)
{
	if (audit_fd >= 0)
		close(audit_fd);
	audit_fd = -1;
}

void audit_write(const char *hr, const char *identity, const char *verb, const char *path, long status,
		 double duration_ms, const char *refused)
{
	struct timespec ts;
	char when[40];
	json_t *o;
	char *s;
	if (audit_fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	release_time_format((long long)ts.tv_sec, ts.tv_nsec, when);
	o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:f}", "time", when, "helmRelease", hr ? hr : "", "identity",
		      identity ? identity : "(controller)", "verb", verb ? verb : "", "path", path ? path : "", "status",
		      (json_int_t)status, "durationMs", (double)((long long)(duration_ms * 1000)) / 1000.0);
	if (!o)
		return;
	if (refused)
		json_object_set_new(o, "refused", json_string(refused));
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (s) {
		size_t n = strlen(s);
		s[n] = '\n';
		ssize_t w = write(audit_fd, s, n + 1);
		(void)w;
		free(s);
	}
}
