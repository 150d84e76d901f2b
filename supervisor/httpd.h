/* supervisor/httpd.h — bulkheadd's HTTP endpoints: /metrics (Prometheus
 * text) on --metrics-addr, /healthz and /readyz on --health-addr, served by
 * libmicrohttpd on its own thread, bounded (connection cap, per-address cap,
 * idle timeout, small per-connection memory, GET/HEAD only), so a slow or
 * hostile scraper never reaches the main loop. The main loop only flips
 * atomic flags (ready, heartbeat). */
#ifndef BH_SUPERVISOR_HTTPD_H
#define BH_SUPERVISOR_HTTPD_H

#include "lib/error.h"

enum { HTTPD_METRICS = 1, HTTPD_HEALTH = 2 };

typedef struct httpd httpd;

/* addr: "HOST:PORT", ":PORT" (every address) or "[V6]:PORT"; port 0 picks
 * a free one (see httpd_port). roles: HTTPD_METRICS and/or HTTPD_HEALTH. */
httpd *httpd_start(const char *addr, unsigned roles, bh_error *err);
unsigned httpd_port(const httpd *h);
void httpd_stop(httpd *h);

/* /readyz answers 200 only while ready is set (caches synced, not stopping). */
void httpd_set_ready(int ready);
/* The main loop calls this each turn; /healthz fails when it has not for
 * HTTPD_STALL_SECONDS. */
void httpd_heartbeat(void);
#define HTTPD_STALL_SECONDS 120

#endif
