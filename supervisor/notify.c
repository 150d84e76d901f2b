/* supervisor/notify.c — see notify.h. */
#include "supervisor/notify.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

static char last_status[256];

void notify_ready(void)
{
	sd_notify(0, "READY=1");
}

void notify_status(const char *fmt, ...)
{
	char msg[256], line[sizeof msg + 8];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!strcmp(msg, last_status))
		return;
	memcpy(last_status, msg, sizeof msg);
	snprintf(line, sizeof line, "STATUS=%s", msg);
	sd_notify(0, line);
}

void notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

void notify_watchdog(double now)
{
	static int checked;
	static double interval, last;
	if (!checked) {
		uint64_t usec = 0;
		checked = 1;
		if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0)
			interval = (double)usec / 1e6 / 2;
	}
	if (interval > 0 && now - last >= interval) {
		last = now;
		sd_notify(0, "WATCHDOG=1");
	}
}
