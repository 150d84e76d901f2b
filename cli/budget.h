/* cli/budget.h — a CPU-time budget for a CLI command (`bulkhead template
 * --cpu-limit`): RLIMIT_CPU, and a SIGXCPU handler that prints a clear
 * error naming the limit and the flag, then exits with status 1 (a chart
 * looping over genPrivateKey ends instead of running until killed). */
#ifndef BH_CLI_BUDGET_H
#define BH_CLI_BUDGET_H

#include "lib/error.h"

#define CLI_CPU_LIMIT_DEFAULT 120 /* seconds of CPU for `bulkhead template` */

/* Parses a --cpu-limit value: whole seconds, 0 = no limit. */
int cli_cpu_limit_parse(const char *s, unsigned long *secs, bh_error *err);

/* Limits this process to secs seconds of CPU (0: leaves the limit as it
 * is). The soft limit never goes above the hard one already set. */
int cli_cpu_limit_set(unsigned long secs, bh_error *err);

#endif
