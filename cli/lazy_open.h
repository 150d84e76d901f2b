/* cli/lazy_open.h — loading a shared library on first use, for the
 * `bulkhead` command's stand-ins of libcurl, libcrypto and libm's functions
 * (cli/curl_lazy.c, crypto_lazy.c, libm_lazy.c): the library is opened with
 * dlopen() and every symbol the stand-ins call is looked up at once. */
#ifndef BH_CLI_LAZY_OPEN_H
#define BH_CLI_LAZY_OPEN_H

#include <stddef.h>

/* One symbol to find: its name in the library, and where its address goes. */
struct lazy_sym {
	const char *name;
	void **slot;
};

/* Opens soname and fills the n slots of syms. Returns 1 when every symbol
 * was found; otherwise says why on stderr (naming the Debian package that
 * has the library, when package is not NULL), leaves the library as it is
 * and returns 0. Called once per library (under its pthread_once). */
int lazy_open(const char *soname, const char *package, const struct lazy_sym *syms, size_t n);

#endif
