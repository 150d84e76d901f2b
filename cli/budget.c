/* cli/budget.c — see budget.h. */
#include "cli/budget.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char cpu_msg[256];
static size_t cpu_msg_len;

static void on_sigxcpu(int sig)
{
	ssize_t w;
	(void)sig;
	w = write(2, cpu_msg, cpu_msg_len);
	(void)w;
	_exit(1);
}

int cli_cpu_limit_parse(const char *s, unsigned long *secs, bh_error *err)
{
	char *end;
	unsigned long v;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || *s == '-' || *s == '+' || errno || v > 1000000)
		return bh_error_set(err, BH_EINVAL,
				    "invalid argument \"%s\" for \"--cpu-limit\" flag: want whole seconds from 0 (no limit) to 1000000",
				    s);
	*secs = v;
	return 0;
}

int cli_cpu_limit_set(unsigned long secs, bh_error *err)
{
	struct rlimit rl;
	struct sigaction sa;
	int n;
	if (!secs)
		return 0;
	if (getrlimit(RLIMIT_CPU, &rl))
		return bh_error_set(err, BH_EIO, "getrlimit(RLIMIT_CPU): %s", strerror(errno));
	n = snprintf(cpu_msg, sizeof cpu_msg,
		     "Error: CPU time limit exceeded: rendering used %lu seconds of CPU "
		     "(--cpu-limit %lu; raise it, or 0 for no limit)\n", secs, secs);
	cpu_msg_len = n > 0 && (size_t)n < sizeof cpu_msg ? (size_t)n : 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigxcpu;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGXCPU, &sa, NULL))
		return bh_error_set(err, BH_EIO, "sigaction(SIGXCPU): %s", strerror(errno));
	if (rl.rlim_max == RLIM_INFINITY || (rlim_t)secs < rl.rlim_max)
		rl.rlim_cur = (rlim_t)secs;
	else
		rl.rlim_cur = rl.rlim_max;
	/* the hard limit (SIGKILL) stays a little above, for the handler */
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur + 5)
		rl.rlim_max = rl.rlim_cur + 5;
	if (setrlimit(RLIMIT_CPU, &rl))
		return bh_error_set(err, BH_EIO, "setrlimit(RLIMIT_CPU): %s", strerror(errno));
	return 0;
}
