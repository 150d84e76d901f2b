/* cli/lazy_open.c — see lazy_open.h. */
#include "cli/lazy_open.h"

#include <dlfcn.h>
#include <stdio.h>

int lazy_open(const char *soname, const char *package, const struct lazy_sym *syms, size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		if (package)
			fprintf(stderr, "bulkhead: cannot load %s (install the Debian package %s): %s\n",
				soname, package, dlerror());
		else
			fprintf(stderr, "bulkhead: cannot load %s: %s\n", soname, dlerror());
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			fprintf(stderr, "bulkhead: %s: %s\n", soname, dlerror());
			return 0;
		}
	}
	return 1;
}
