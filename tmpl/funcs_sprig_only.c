/* tmpl/funcs_sprig_only.c — the function map of an engine made by
 * tmpl_engine_new_sprig(): Sprig's TxtFuncMap alone, as Helm's
 * --name-template gets it. Helm's own functions (include, tpl, required,
 * lookup, toYaml, fromYaml, toToml, ...) are not defined there, and four
 * names keep Sprig's meaning: env, expandenv (the environment), fail (a
 * plain error) and getHostByName (a DNS lookup, one address at random;
 * also what an engine with tmpl_engine_enable_dns() uses). */
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/buf.h"
#include "tmpl/funcs.h"
#include "tmpl/internal.h"

static int ret_text(tmpl_call *c, const char *s, size_t n)
{
	c->result = tmpl_str(c->arena, s, n);
	return c->result.kind == TMPL_INVALID ? tmpl_call_errorf(c, "out of memory") : 0;
}

static int fn_env(tmpl_call *c)
{
	char *name = tmpl_arena_strdup(c->arena, c->argv[0].u.s.ptr, c->argv[0].u.s.len);
	const char *v = name ? getenv(name) : NULL;
	return ret_text(c, v ? v : "", v ? strlen(v) : 0);
}

/* os.ExpandEnv: $NAME and ${NAME} (NAME: letters, digits, '_'; or one
 * special character), unset names expand to "". */
static int fn_expandenv(tmpl_call *c)
{
	const char *s = c->argv[0].u.s.ptr;
	size_t n = c->argv[0].u.s.len;
	bh_buf out = BH_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '$' || i + 1 >= n) {
			bh_buf_putc(&out, s[i]);
			continue;
		}
		size_t start = i + 1, len = 0, skip = 0;
		if (s[start] == '{') {
			size_t j = start + 1;
			while (j < n && s[j] != '}')
				j++;
			if (j >= n || j == start + 1) { /* "${" unclosed or "${}": Go drops it */
				i = j < n ? j : n - 1;
				continue;
			}
			start++;
			len = j - start;
			skip = len + 2;
		} else if (strchr("*#$@!?-", s[start]) || (s[start] >= '0' && s[start] <= '9')) {
			len = 1;
			skip = 1;
		} else {
			while (start + len < n && (s[start + len] == '_' || (s[start + len] >= '0' && s[start + len] <= '9') ||
						   ((s[start + len] | 0x20) >= 'a' && (s[start + len] | 0x20) <= 'z')))
				len++;
			if (!len) { /* a lone '$' is dropped */
				continue;
			}
			skip = len;
		}
		char *name = strndup(s + start, len);
		const char *v = name ? getenv(name) : NULL;
		if (v)
			bh_buf_puts(&out, v);
		free(name);
		i += skip;
	}
	int rc = ret_text(c, out.data ? out.data : "", out.len);
	bh_buf_free(&out);
	return rc;
}

static int fn_fail(tmpl_call *c)
{
	return tmpl_call_errorf(c, "%.*s", (int)c->argv[0].u.s.len, c->argv[0].u.s.ptr);
}

static int fn_get_host_by_name(tmpl_call *c)
{
	char *name = tmpl_arena_strdup(c->arena, c->argv[0].u.s.ptr, c->argv[0].u.s.len);
	struct addrinfo hints, *res = NULL;
	char addrs[16][INET6_ADDRSTRLEN];
	int n = 0;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (name && getaddrinfo(name, NULL, &hints, &res) == 0) {
		for (struct addrinfo *ai = res; ai && n < 16; ai = ai->ai_next) {
			const void *a = ai->ai_family == AF_INET ? (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr :
								 (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
			if (!inet_ntop(ai->ai_family, a, addrs[n], sizeof addrs[n]))
				continue;
			int dup = 0;
			for (int k = 0; k < n; k++)
				dup |= !strcmp(addrs[k], addrs[n]);
			n += !dup;
		}
		freeaddrinfo(res);
	}
	if (!n) /* Sprig indexes an empty list with rand.Intn(0), which panics */
		return tmpl_call_errorf(c, "invalid argument to Intn");
	const char *pick = addrs[random() % n];
	return ret_text(c, pick, strlen(pick));
}

/* fn NULL: not defined in a Sprig-only engine. */
static const tmpl_func_def sprig_only[] = {
	{"env", fn_env, "s", NULL},
	{"expandenv", fn_expandenv, "s", NULL},
	{"fail", fn_fail, "s", NULL},
	{"getHostByName", fn_get_host_by_name, "s", NULL},
	{"include", NULL, NULL, NULL},
	{"tpl", NULL, NULL, NULL},
	{"required", NULL, NULL, NULL},
	{"lookup", NULL, NULL, NULL},
	{"toYaml", NULL, NULL, NULL},
	{"mustToYaml", NULL, NULL, NULL},
	{"toYamlPretty", NULL, NULL, NULL},
	{"fromYaml", NULL, NULL, NULL},
	{"fromYamlArray", NULL, NULL, NULL},
	{"toToml", NULL, NULL, NULL},
	{"fromToml", NULL, NULL, NULL},
	{"fromJsonArray", NULL, NULL, NULL},
	{NULL, NULL, NULL, NULL},
};

const tmpl_func_def *tmpl_sprig_only_find(const char *name, int *found)
{
	for (const tmpl_func_def *d = sprig_only; d->name; d++)
		if (!strcmp(d->name, name)) {
			*found = 1;
			return d->fn ? d : NULL;
		}
	*found = 0;
	return NULL;
}
