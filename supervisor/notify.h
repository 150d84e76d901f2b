/* supervisor/notify.h — systemd's service notification protocol through
 * libsystemd's sd_notify: READY=1 once the HelmRelease cache has synced,
 * STATUS= lines when what the daemon does changes, WATCHDOG=1 at half of
 * the service's WatchdogSec (from the main loop, so a stalled loop is
 * restarted), and STOPPING=1 on shutdown. Without $NOTIFY_SOCKET every call
 * does nothing. */
#ifndef BH_SUPERVISOR_NOTIFY_H
#define BH_SUPERVISOR_NOTIFY_H

void notify_ready(void);
/* STATUS=<text>, sent only when the text changed since the last one. */
void notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void notify_stopping(void);
/* From the main loop each turn: WATCHDOG=1 when half the interval passed. */
void notify_watchdog(double now);

#endif
