/* sandbox/survey_fuzz.c — driver for the syscall survey (sandbox/survey.sh):
 * linked with one libFuzzer target of tests/fuzz/, it reads every input named
 * on the command line, runs worker_prepare() as bulkhead-worker does, and
 * then, for each input, forks a child that locks down with the worker's
 * filter in survey mode (a call outside the filter is logged and allowed,
 * not trapped) and runs the target once. Under `strace -f`, everything after
 * each child's seccomp() is what the render path asks of the kernel once
 * locked down. Never built into the product. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#include "worker/prepare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

int main(int argc, char **argv)
{
	int devnull = open("/dev/null", O_WRONLY), bad = 0;
	if (devnull < 0 || worker_prepare() < 0) {
		fprintf(stderr, "survey_fuzz: prepare failed\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t len = 0;
		unsigned char *in = slurp(argv[i], &len);
		int st;
		pid_t pid;
		if (!in)
			continue;
		fflush(NULL);
		if ((pid = fork()) == 0) {
			sandbox_opts o = {devnull, -1, 0, 60, 1};
			bh_error e;
			if (sandbox_lockdown(&o, &e) < 0)
				_exit(3);
			LLVMFuzzerTestOneInput(in, len);
			_exit(0);
		}
		free(in);
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "survey_fuzz: %s: child ended abnormally\n", argv[i]);
			bad++;
		}
	}
	return bad ? 1 : 0;
}
