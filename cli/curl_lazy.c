/* cli/curl_lazy.c — the libcurl functions the `bulkhead` command uses,
 * loaded with dlopen() the first time one is called. Linking libcurl pulls
 * in some thirty shared libraries (GnuTLS, Kerberos, LDAP, ...), whose
 * loading and relocation cost ~25 ms at every start: more than rendering a
 * small chart. Only commands that reach the network (a remote chart, a
 * cluster) pay it now. It has no header: it defines libcurl's own API (the
 * CLI is linked without -lcurl; a libcurl function used by cli/, kube/ or
 * fetcher/ and missing here fails the link, and belongs here). */
#define CURL_DISABLE_TYPECHECK 1 /* curl_easy_setopt/getinfo are functions here */
#include "cli/lazy_open.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>

#define LIBCURL_SONAME "libcurl.so.4"

static struct {
	void (*easy_cleanup)(CURL *);
	char *(*easy_escape)(CURL *, const char *, int);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	CURL *(*easy_init)(void);
	CURLcode (*easy_perform)(CURL *);
	void (*easy_reset)(CURL *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	const char *(*easy_strerror)(CURLcode);
	void (*free)(void *);
	CURLcode (*global_init)(long);
	CURLSHcode (*share_cleanup)(CURLSH *);
	CURLSH *(*share_init)(void);
	CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *);
	CURLUcode (*url_get)(CURLU *, CURLUPart, char **, unsigned int);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
} fn;
static int loaded; /* 1 when every symbol was found */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const struct lazy_sym syms[] = {
		{"curl_easy_cleanup", (void **)&fn.easy_cleanup},
		{"curl_easy_escape", (void **)&fn.easy_escape},
		{"curl_easy_getinfo", (void **)&fn.easy_getinfo},
		{"curl_easy_init", (void **)&fn.easy_init},
		{"curl_easy_perform", (void **)&fn.easy_perform},
		{"curl_easy_reset", (void **)&fn.easy_reset},
		{"curl_easy_setopt", (void **)&fn.easy_setopt},
		{"curl_easy_strerror", (void **)&fn.easy_strerror},
		{"curl_free", (void **)&fn.free},
		{"curl_global_init", (void **)&fn.global_init},
		{"curl_share_cleanup", (void **)&fn.share_cleanup},
		{"curl_share_init", (void **)&fn.share_init},
		{"curl_share_setopt", (void **)&fn.share_setopt},
		{"curl_slist_append", (void **)&fn.slist_append},
		{"curl_slist_free_all", (void **)&fn.slist_free_all},
		{"curl_url", (void **)&fn.url},
		{"curl_url_cleanup", (void **)&fn.url_cleanup},
		{"curl_url_get", (void **)&fn.url_get},
		{"curl_url_set", (void **)&fn.url_set},
	};
	loaded = lazy_open(LIBCURL_SONAME, "libcurl4", syms, sizeof syms / sizeof syms[0]);
}

static int ready(void)
{
	pthread_once(&once, load);
	return loaded;
}

CURLcode curl_global_init(long flags)
{
	return ready() ? fn.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	return ready() ? fn.easy_init() : NULL;
}

/* The handle functions below get only handles made by the loaded library. */
void curl_easy_cleanup(CURL *h)
{
	if (h && ready())
		fn.easy_cleanup(h);
}

char *curl_easy_escape(CURL *h, const char *s, int n)
{
	return ready() ? fn.easy_escape(h, s, n) : NULL;
}

CURLcode curl_easy_perform(CURL *h)
{
	return ready() ? fn.easy_perform(h) : CURLE_FAILED_INIT;
}

void curl_easy_reset(CURL *h)
{
	if (ready())
		fn.easy_reset(h);
}

/* The argument's type follows from the option's number, as in libcurl. */
CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
	va_list ap;
	CURLcode rc;
	if (!ready())
		return CURLE_FAILED_INIT;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = fn.easy_setopt(h, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
		rc = fn.easy_setopt(h, opt, va_arg(ap, void *));
	else if (opt < CURLOPTTYPE_OFF_T)
		rc = fn.easy_setopt(h, opt, va_arg(ap, void (*)(void)));
	else if (opt < CURLOPTTYPE_BLOB)
		rc = fn.easy_setopt(h, opt, va_arg(ap, curl_off_t));
	else
		rc = fn.easy_setopt(h, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

/* Every CURLINFO takes a pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
	va_list ap;
	CURLcode rc;
	if (!ready())
		return CURLE_FAILED_INIT;
	va_start(ap, info);
	rc = fn.easy_getinfo(h, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLSHcode curl_share_cleanup(CURLSH *sh)
{
	return ready() ? fn.share_cleanup(sh) : CURLSHE_NOT_BUILT_IN;
}

CURLSH *curl_share_init(void)
{
	return ready() ? fn.share_init() : NULL;
}

/* Lock functions and user data are pointers, SHARE and UNSHARE an int. */
CURLSHcode curl_share_setopt(CURLSH *sh, CURLSHoption opt, ...)
{
	va_list ap;
	CURLSHcode rc;
	if (!ready())
		return CURLSHE_NOT_BUILT_IN;
	va_start(ap, opt);
	if (opt == CURLSHOPT_SHARE || opt == CURLSHOPT_UNSHARE)
		rc = fn.share_setopt(sh, opt, va_arg(ap, int));
	else if (opt == CURLSHOPT_USERDATA)
		rc = fn.share_setopt(sh, opt, va_arg(ap, void *));
	else
		rc = fn.share_setopt(sh, opt, va_arg(ap, void (*)(void)));
	va_end(ap);
	return rc;
}

const char *curl_easy_strerror(CURLcode c)
{
	return ready() ? fn.easy_strerror(c) : "libcurl could not be loaded";
}

void curl_free(void *p)
{
	if (p && ready())
		fn.free(p);
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
	return ready() ? fn.slist_append(l, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *l)
{
	if (l && ready())
		fn.slist_free_all(l);
}

CURLU *curl_url(void)
{
	return ready() ? fn.url() : NULL;
}

void curl_url_cleanup(CURLU *u)
{
	if (u && ready())
		fn.url_cleanup(u);
}

CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags)
{
	return ready() ? fn.url_get(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags)
{
	return ready() ? fn.url_set(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}
