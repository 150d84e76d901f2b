/* tests/bench/runstat.c — runs a command (stdout and stderr to /dev/null)
 * and prints what the kernel measured of it, as one line:
 * "WALL_SECONDS CPU_SECONDS PEAK_RSS_KIB EXIT_STATUS" (CPU = user + system,
 * from wait4's rusage; the peak RSS is the child's own, which a small
 * parent keeps honest: a forked Python would lend it its pages).
 * Usage: runstat DIR COMMAND [ARG...]   (DIR: the working directory) */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	if (argc < 3) {
		fprintf(stderr, "usage: runstat DIR COMMAND [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 2;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || chdir(argv[1]) < 0)
			_exit(127);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("runstat: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	printf("%.6f %.6f %ld %d\n", wall, cpu, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
