/* cli/template_flags.c — see template_flags.h. */
#include "cli/template_flags.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"

enum ftype {
	F_BOOL, F_STR, F_CSV, F_ARRAY, F_MAP, F_DURATION, F_INT, F_FLOAT32, F_DRYRUN, F_WAIT, F_POSTRENDERER,
	F_HELP,
};

typedef struct flagdef {
	const char *name;
	char shorthand;
	enum ftype type;
	const char *var;        /* the value's name in --help (NULL for bools) */
	const char *usage;
	const char *def;        /* "(default ...)" text; @CACHE@, @CONFIG@, @KEYRING@ expand */
	int global;             /* 0 "Flags:", 1 "Global Flags:", 2 "Bulkhead Flags:" (not helm's) */
	const char *deprecated; /* hidden, with pflag's notice when used */
	long dst;               /* offsetof(template_opts, field), or -1: checked, no effect */
} flagdef;

#define OPT(f) ((long)offsetof(template_opts, f))
#define NONE (-1L)

/* Sorted as pflag lists them; the hidden deprecated ones at the end. */
static const flagdef flags[] = {
	{"api-versions", 'a', F_CSV, "strings", "Kubernetes api versions used for Capabilities.APIVersions (multiple can be specified)", NULL, 0, NULL, OPT(api_versions)},
	{"ca-file", 0, F_STR, "string", "verify certificates of HTTPS-enabled servers using this CA bundle", NULL, 0, NULL, OPT(ca_file)},
	{"cert-file", 0, F_STR, "string", "identify HTTPS client using this SSL certificate file", NULL, 0, NULL, OPT(cert_file)},
	{"create-namespace", 0, F_BOOL, NULL, "create the release namespace if not present", NULL, 0, NULL, NONE},
	{"dependency-update", 0, F_BOOL, NULL, "update dependencies if they are missing before installing the chart", NULL, 0, NULL, OPT(dep_update)},
	{"description", 0, F_STR, "string", "add a custom description", NULL, 0, NULL, NONE},
	{"devel", 0, F_BOOL, NULL, "use development versions, too. Equivalent to version '>0.0.0-0'. If --version is set, this is ignored", NULL, 0, NULL, OPT(devel)},
	{"disable-openapi-validation", 0, F_BOOL, NULL, "if set, the installation process will not validate rendered templates against the Kubernetes OpenAPI Schema", NULL, 0, NULL, NONE},
	{"dry-run", 0, F_DRYRUN, "string[=\"unset\"]", "simulates the operation either client-side or server-side. Must be either: \"client\", or \"server\". '--dry-run=client simulates the operation client-side only and avoids cluster connections. '--dry-run=server' simulates/validates the operation on the server, requiring cluster connectivity.", "\"client\"", 0, NULL, OPT(dry_run)},
	{"enable-dns", 0, F_BOOL, NULL, "enable DNS lookups when rendering templates", NULL, 0, NULL, OPT(enable_dns)},
	{"force-conflicts", 0, F_BOOL, NULL, "if set server-side apply will force changes against conflicts", NULL, 0, NULL, OPT(force_conflicts)},
	{"force-replace", 0, F_BOOL, NULL, "force resource updates by replacement", NULL, 0, NULL, OPT(force_replace)},
	{"generate-name", 'g', F_BOOL, NULL, "generate the name (and omit the NAME parameter)", NULL, 0, NULL, OPT(generate_name)},
	{"help", 'h', F_HELP, NULL, "help for template", NULL, 0, NULL, OPT(help)},
	{"hide-notes", 0, F_BOOL, NULL, "if set, do not show notes in install output. Does not affect presence in chart metadata", NULL, 0, NULL, NONE},
	{"include-crds", 0, F_BOOL, NULL, "include CRDs in the templated output", NULL, 0, NULL, OPT(include_crds)},
	{"insecure-skip-tls-verify", 0, F_BOOL, NULL, "skip tls certificate checks for the chart download", NULL, 0, NULL, OPT(insecure_tls)},
	{"is-upgrade", 0, F_BOOL, NULL, "set .Release.IsUpgrade instead of .Release.IsInstall", NULL, 0, NULL, OPT(is_upgrade)},
	{"key-file", 0, F_STR, "string", "identify HTTPS client using this SSL key file", NULL, 0, NULL, OPT(key_file)},
	{"keyring", 0, F_STR, "string", "location of public keys used for verification", "\"@KEYRING@\"", 0, NULL, OPT(keyring)},
	{"kube-version", 0, F_STR, "string", "Kubernetes version used for Capabilities.KubeVersion", NULL, 0, NULL, OPT(kube_version)},
	{"labels", 'l', F_MAP, "stringToString", "Labels that would be added to release metadata. Should be divided by comma.", "[]", 0, NULL, NONE},
	{"name-template", 0, F_STR, "string", "specify template used to name the release", NULL, 0, NULL, OPT(name_template)},
	{"no-hooks", 0, F_BOOL, NULL, "prevent hooks from running during install", NULL, 0, NULL, OPT(no_hooks)},
	{"output-dir", 0, F_STR, "string", "writes the executed templates to files in output-dir instead of stdout", NULL, 0, NULL, OPT(output_dir)},
	{"pass-credentials", 0, F_BOOL, NULL, "pass credentials to all domains", NULL, 0, NULL, OPT(pass_credentials)},
	{"password", 0, F_STR, "string", "chart repository password where to locate the requested chart", NULL, 0, NULL, OPT(password)},
	{"plain-http", 0, F_BOOL, NULL, "use insecure HTTP connections for the chart download", NULL, 0, NULL, OPT(plain_http)},
	{"post-renderer", 0, F_POSTRENDERER, "postRendererString", "the name of a postrenderer type plugin to be used for post rendering. If it exists, the plugin will be used", NULL, 0, NULL, NONE},
	{"post-renderer-args", 0, F_ARRAY, "postRendererArgsSlice", "an argument to the post-renderer (can specify multiple)", "[]", 0, NULL, NONE},
	{"release-name", 0, F_BOOL, NULL, "use release name in the output-dir path.", NULL, 0, NULL, OPT(release_name)},
	{"render-subchart-notes", 0, F_BOOL, NULL, "if set, render subchart notes along with the parent", NULL, 0, NULL, OPT(sub_notes)},
	{"replace", 0, F_BOOL, NULL, "reuse the given name, only if that name is a deleted release which remains in the history. This is unsafe in production", NULL, 0, NULL, NONE},
	{"repo", 0, F_STR, "string", "chart repository url where to locate the requested chart", NULL, 0, NULL, OPT(repo)},
	{"rollback-on-failure", 0, F_BOOL, NULL, "if set, Helm will rollback (uninstall) the installation upon failure. The --wait flag will be default to \"watcher\" if --rollback-on-failure is set", NULL, 0, NULL, NONE},
	{"server-side", 0, F_BOOL, NULL, "object updates run in the server instead of the client", "true", 0, NULL, NONE},
	{"set", 0, F_ARRAY, "stringArray", "set values on the command line (can specify multiple or separate values with commas: key1=val1,key2=val2)", NULL, 0, NULL, OPT(set)},
	{"set-file", 0, F_ARRAY, "stringArray", "set values from respective files specified via the command line (can specify multiple or separate values with commas: key1=path1,key2=path2)", NULL, 0, NULL, OPT(set_file)},
	{"set-json", 0, F_ARRAY, "stringArray", "set JSON values on the command line (can specify multiple or separate values with commas: key1=jsonval1,key2=jsonval2 or using json format: {\"key1\": jsonval1, \"key2\": \"jsonval2\"})", NULL, 0, NULL, OPT(set_json)},
	{"set-literal", 0, F_ARRAY, "stringArray", "set a literal STRING value on the command line", NULL, 0, NULL, OPT(set_literal)},
	{"set-string", 0, F_ARRAY, "stringArray", "set STRING values on the command line (can specify multiple or separate values with commas: key1=val1,key2=val2)", NULL, 0, NULL, OPT(set_string)},
	{"show-only", 's', F_ARRAY, "stringArray", "only show manifests rendered from the given templates", NULL, 0, NULL, OPT(show_only)},
	{"skip-crds", 0, F_BOOL, NULL, "if set, no CRDs will be installed. By default, CRDs are installed if not already present", NULL, 0, NULL, OPT(skip_crds)},
	{"skip-schema-validation", 0, F_BOOL, NULL, "if set, disables JSON schema validation", NULL, 0, NULL, OPT(skip_schema)},
	{"skip-tests", 0, F_BOOL, NULL, "skip tests from templated output", NULL, 0, NULL, OPT(skip_tests)},
	{"take-ownership", 0, F_BOOL, NULL, "if set, install will ignore the check for helm annotations and take ownership of the existing resources", NULL, 0, NULL, OPT(take_ownership)},
	{"timeout", 0, F_DURATION, "duration", "time to wait for any individual Kubernetes operation (like Jobs for hooks)", "5m0s", 0, NULL, NONE},
	{"username", 0, F_STR, "string", "chart repository username where to locate the requested chart", NULL, 0, NULL, OPT(username)},
	{"values", 'f', F_CSV, "strings", "specify values in a YAML file or a URL (can specify multiple)", NULL, 0, NULL, OPT(values)},
	{"verify", 0, F_BOOL, NULL, "verify the package before using it", NULL, 0, NULL, OPT(verify)},
	{"version", 0, F_STR, "string", "specify a version constraint for the chart version to use. This constraint can be a specific tag (e.g. 1.1.1) or it may reference a valid range (e.g. ^2.0.0). If this is not specified, the latest version is used", NULL, 0, NULL, OPT(version)},
	{"wait", 0, F_WAIT, "WaitStrategy[=watcher]", "if specified, wait until resources are ready (up to --timeout). Values: 'watcher', 'hookOnly', and 'legacy'.", "hookOnly", 0, NULL, NONE},
	{"wait-for-jobs", 0, F_BOOL, NULL, "if set and --wait enabled, will wait until all Jobs have been completed before marking the release as successful. It will wait for as long as --timeout", NULL, 0, NULL, NONE},
	{"burst-limit", 0, F_INT, "int", "client-side default throttling limit", "100", 1, NULL, NONE},
	{"color", 0, F_STR, "string", "use colored output (never, auto, always)", "\"auto\"", 1, NULL, OPT(color)},
	{"colour", 0, F_STR, "string", "use colored output (never, auto, always)", "\"auto\"", 1, NULL, OPT(color)},
	{"content-cache", 0, F_STR, "string", "path to the directory containing cached content (e.g. charts)", "\"@CACHE@/content\"", 1, NULL, NONE},
	{"debug", 0, F_BOOL, NULL, "enable verbose output", NULL, 1, NULL, OPT(debug)},
	{"kube-apiserver", 0, F_STR, "string", "the address and the port for the Kubernetes API server", NULL, 1, NULL, OPT(kube_apiserver)},
	{"kube-as-group", 0, F_ARRAY, "stringArray", "group to impersonate for the operation, this flag can be repeated to specify multiple groups.", NULL, 1, NULL, OPT(kube_as_group)},
	{"kube-as-user", 0, F_STR, "string", "username to impersonate for the operation", NULL, 1, NULL, OPT(kube_as_user)},
	{"kube-ca-file", 0, F_STR, "string", "the certificate authority file for the Kubernetes API server connection", NULL, 1, NULL, OPT(kube_ca_file)},
	{"kube-context", 0, F_STR, "string", "name of the kubeconfig context to use", NULL, 1, NULL, OPT(kube_context)},
	{"kube-insecure-skip-tls-verify", 0, F_BOOL, NULL, "if true, the Kubernetes API server's certificate will not be checked for validity. This will make your HTTPS connections insecure", NULL, 1, NULL, OPT(kube_insecure)},
	{"kube-tls-server-name", 0, F_STR, "string", "server name to use for Kubernetes API server certificate validation. If it is not provided, the hostname used to contact the server is used", NULL, 1, NULL, OPT(kube_tls_server_name)},
	{"kube-token", 0, F_STR, "string", "bearer token used for authentication", NULL, 1, NULL, OPT(kube_token)},
	{"kubeconfig", 0, F_STR, "string", "path to the kubeconfig file", NULL, 1, NULL, OPT(kubeconfig)},
	{"namespace", 'n', F_STR, "string", "namespace scope for this request", NULL, 1, NULL, OPT(namespace_)},
	{"qps", 0, F_FLOAT32, "float32", "queries per second used when communicating with the Kubernetes API, not including bursting", NULL, 1, NULL, NONE},
	{"registry-config", 0, F_STR, "string", "path to the registry config file", "\"@CONFIG@/registry/config.json\"", 1, NULL, OPT(registry_config)},
	{"repository-cache", 0, F_STR, "string", "path to the directory containing cached repository indexes", "\"@CACHE@/repository\"", 1, NULL, OPT(repo_cache)},
	{"repository-config", 0, F_STR, "string", "path to the file containing repository names and URLs", "\"@CONFIG@/repositories.yaml\"", 1, NULL, OPT(repo_config)},
	/* bulkhead's own */
	{"cpu-limit", 0, F_STR, "SECONDS", "CPU time the command may use, then it stops with an error (0 = no limit)", "120", 2, NULL, OPT(cpu_limit)},
	{"post-renderer-config", 0, F_STR, "FILE", "render through the post-renderers, commonMetadata and origin labels of this HelmRelease, as Flux applies them", NULL, 2, NULL, OPT(pr_config)},
	{"atomic", 0, F_BOOL, NULL, "deprecated", NULL, 0, "use --rollback-on-failure instead", NONE},
	{"validate", 0, F_BOOL, NULL, "deprecated", NULL, 0, "use '--dry-run=server' instead", OPT(validate)},
	{NULL, 0, 0, NULL, NULL, NULL, 0, NULL, NONE},
};

int strlist_push(strlist *l, const char *s)
{
	const char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
	if (!nv)
		return -1;
	l->v = nv;
	l->v[l->n++] = s;
	return 0;
}

void template_opts_free(template_opts *o)
{
	strlist *lists[] = {&o->args, &o->values, &o->set, &o->set_string, &o->set_json, &o->set_file,
			    &o->set_literal, &o->api_versions, &o->show_only, &o->kube_as_group};
	for (size_t i = 0; i < o->owned.n; i++)
		free((char *)o->owned.v[i]);
	free(o->owned.v);
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
		free(lists[i]->v);
	memset(o, 0, sizeof *o);
}

/* strconv.Quote for the ASCII the messages carry (other bytes kept). */
static void go_quote(bh_buf *b, const char *s)
{
	bh_buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			bh_buf_printf(b, "\\%c", *p);
		else if (*p == '\n')
			bh_buf_puts(b, "\\n");
		else if (*p == '\t')
			bh_buf_puts(b, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			bh_buf_printf(b, "\\x%02x", *p);
		else
			bh_buf_putc(b, *p);
	}
	bh_buf_putc(b, '"');
}

static int parse_bool(const char *s, int *out)
{
	static const char *t[] = {"1", "t", "T", "TRUE", "true", "True", NULL};
	static const char *f[] = {"0", "f", "F", "FALSE", "false", "False", NULL};
	for (int i = 0; t[i]; i++)
		if (!strcmp(s, t[i]))
			return *out = 1, 0;
	for (int i = 0; f[i]; i++)
		if (!strcmp(s, f[i]))
			return *out = 0, 0;
	return -1;
}

/* strconv.ParseInt(s, 0, 64): "" on success, else the reason. */
static const char *parse_int(const char *s)
{
	const char *p = s;
	int base = 10, neg = 0, prefixed = 0, digits = 0;
	unsigned __int128 v = 0;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		base = 16, p += 2, prefixed = 1;
	else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O'))
		base = 8, p += 2, prefixed = 1;
	else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B'))
		base = 2, p += 2, prefixed = 1;
	else if (p[0] == '0' && p[1])
		base = 8, p++, prefixed = 1;
	int last_us = prefixed; /* an underscore may follow a base prefix */
	for (; *p; p++) {
		int d;
		if (*p == '_') {
			if (!prefixed || last_us == 2)
				return "invalid syntax";
			last_us = 2;
			continue;
		}
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'z')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'Z')
			d = *p - 'A' + 10;
		else
			return "invalid syntax";
		if (d >= base)
			return "invalid syntax";
		last_us = 0;
		digits++;
		if (v <= ((unsigned __int128)1 << 64))
			v = v * (unsigned)base + (unsigned)d;
	}
	if ((!digits && !(prefixed && base == 8 && p > s + (neg || *s == '+'))) || last_us == 2)
		return "invalid syntax";
	if (v > (neg ? (unsigned __int128)1 << 63 : ((unsigned __int128)1 << 63) - 1))
		return "value out of range";
	return "";
}

/* strconv.ParseFloat(s, 32) */
static const char *parse_float32(const char *s)
{
	char *end;
	const char *p = s + (*s == '+' || *s == '-');
	if (!*s || *s == ' ' || *s == '\t' || *s == '\n' || strchr(s, '_'))
		return "invalid syntax";
	if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) && !strpbrk(p, "pP"))
		return "invalid syntax";
	errno = 0;
	float f = strtof(s, &end);
	if (*end || end == s)
		return "invalid syntax";
	if (errno == ERANGE && isinf(f))
		return "value out of range";
	return "";
}

/* time.ParseDuration; the error text (without the value) or NULL. */
static int parse_duration(const char *orig, bh_buf *why)
{
	static const struct {
		const char *u;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"\xce\xbcs", 1000}, {"ms", 1000000},
		     {"s", 1000000000ull}, {"m", 60000000000ull}, {"h", 3600000000000ull}};
	const char *s = orig;
	unsigned __int128 total = 0;
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!strcmp(s, "0"))
		return 0;
	if (!*s)
		goto invalid;
	while (*s) {
		unsigned __int128 v = 0, frac = 0, scale = 1;
		int pre = 0, post = 0;
		if (!(*s == '.' || (*s >= '0' && *s <= '9')))
			goto invalid;
		for (; *s >= '0' && *s <= '9'; s++, pre = 1) {
			v = v * 10 + (unsigned)(*s - '0');
			if (v > ((unsigned __int128)1 << 63))
				goto invalid;
		}
		if (*s == '.') {
			s++;
			for (; *s >= '0' && *s <= '9'; s++, post = 1)
				if (scale < ((unsigned __int128)1 << 80))
					frac = frac * 10 + (unsigned)(*s - '0'), scale *= 10;
		}
		if (!pre && !post)
			goto invalid;
		size_t i = 0;
		while (s[i] && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9'))
			i++;
		if (!i) {
			bh_buf_puts(why, "time: missing unit in duration ");
			go_quote(why, orig);
			return -1;
		}
		uint64_t unit = 0;
		for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
			if (strlen(units[k].u) == i && !memcmp(units[k].u, s, i))
				unit = units[k].ns;
		if (!unit) {
			char *u = strndup(s, i);
			bh_buf_puts(why, "time: unknown unit ");
			go_quote(why, u ? u : "");
			bh_buf_puts(why, " in duration ");
			go_quote(why, orig);
			free(u);
			return -1;
		}
		s += i;
		if (v > (((unsigned __int128)1 << 63) / unit))
			goto invalid;
		v = v * unit + frac * unit / scale;
		total += v;
		if (total > ((unsigned __int128)1 << 63))
			goto invalid;
	}
	if (!neg && total > (((unsigned __int128)1 << 63) - 1))
		goto invalid;
	return 0;
invalid:
	bh_buf_puts(why, "time: invalid duration ");
	go_quote(why, orig);
	return -1;
}

/* pflag's stringToString Set: "K=V" pairs, CSV-split when several '='. */
static int parse_map(const char *val, bh_buf *why)
{
	size_t eqs = 0;
	for (const char *p = val; *p; p++)
		eqs += *p == '=';
	if (!eqs) {
		bh_buf_printf(why, "%s must be formatted as key=value", val);
		return -1;
	}
	if (eqs == 1)
		return 0;
	/* csv fields: quotes allowed, each needs a '=' */
	const char *p = val;
	for (;;) {
		bh_buf field = BH_BUF_INIT;
		int inq = 0;
		for (; *p && (inq || *p != ','); p++) {
			if (*p == '"') {
				inq = !inq;
				continue;
			}
			bh_buf_putc(&field, *p);
		}
		int ok = strchr(bh_buf_str(&field), '=') != NULL;
		if (!ok)
			bh_buf_printf(why, "%s must be formatted as key=value", bh_buf_str(&field));
		bh_buf_free(&field);
		if (!ok)
			return -1;
		if (!*p)
			return 0;
		p++;
	}
}

/* pflag StringSlice: CSV-split values (quotes allowed). */
static int push_csv(strlist *dst, const char *s, strlist *owned)
{
	bh_buf cur = BH_BUF_INIT;
	int inq = 0;
	for (const char *p = s;; p++) {
		if (*p == '"') {
			inq = !inq;
			continue;
		}
		if (!*p || (*p == ',' && !inq)) {
			char *item = cur.data ? bh_buf_detach(&cur) : strdup("");
			if (!item || strlist_push(dst, item) || strlist_push(owned, item))
				return -1;
			if (!*p)
				return 0;
			continue;
		}
		bh_buf_putc(&cur, *p);
	}
}

static void flag_display(const flagdef *f, char *buf, size_t n)
{
	if (f->shorthand)
		snprintf(buf, n, "-%c, --%s", f->shorthand, f->name);
	else
		snprintf(buf, n, "--%s", f->name);
}

static void invalid_arg(const flagdef *f, const char *val, const char *why, char *msg, size_t msz)
{
	char disp[80];
	bh_buf q = BH_BUF_INIT;
	flag_display(f, disp, sizeof disp);
	go_quote(&q, val);
	snprintf(msg, msz, "invalid argument %s for \"%s\" flag: %s", bh_buf_str(&q), disp, why);
	bh_buf_free(&q);
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("level=WARN msg=\"", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\"\n", stderr);
	va_end(ap);
}

/* One value for flag f; -1 with msg set when helm rejects it. */
static int set_flag(const flagdef *f, const char *val, template_opts *o, char *msg, size_t msz)
{
	void *dst = f->dst >= 0 ? (char *)o + f->dst : NULL;
	bh_buf why = BH_BUF_INIT;
	const char *r;
	int b, rc = 0;
	switch (f->type) {
	case F_HELP:
	case F_BOOL:
		if (parse_bool(val, &b)) {
			bh_buf_puts(&why, "strconv.ParseBool: parsing ");
			go_quote(&why, val);
			bh_buf_puts(&why, ": invalid syntax");
			rc = -1;
		} else if (dst) {
			*(int *)dst = b;
		}
		if (!strcmp(f->name, "validate"))
			o->validate_set = 1;
		break;
	case F_INT:
	case F_FLOAT32:
		r = f->type == F_INT ? parse_int(val) : parse_float32(val);
		if (*r) {
			bh_buf_printf(&why, "strconv.%s: parsing ", f->type == F_INT ? "ParseInt" : "ParseFloat");
			go_quote(&why, val);
			bh_buf_printf(&why, ": %s", r);
			rc = -1;
		}
		break;
	case F_DURATION:
		rc = parse_duration(val, &why);
		break;
	case F_MAP:
		rc = parse_map(val, &why);
		break;
	case F_WAIT:
		if (!strcmp(val, "true") || !strcmp(val, "false"))
			warn("--wait=%s is deprecated (boolean value) and can be replaced with --wait=%s", val,
			     !strcmp(val, "true") ? "watcher" : "hookOnly");
		else if (strcmp(val, "watcher") && strcmp(val, "hookOnly") && strcmp(val, "legacy")) {
			bh_buf_puts(&why, "invalid wait input ");
			go_quote(&why, val);
			bh_buf_puts(&why, ". Valid inputs are watcher, hookOnly, and legacy");
			rc = -1;
		}
		break;
	case F_POSTRENDERER:
		/* helm looks the name up among its postrenderer plugins; bulkhead
		 * runs none, so every name is one it cannot find */
		if (*val) {
			bh_buf_printf(&why, "plugin: {Name:%s Type:postrenderer/v1} not found", val);
			rc = -1;
		}
		break;
	case F_STR:
	case F_DRYRUN:
		if (dst)
			*(const char **)dst = val;
		break;
	case F_ARRAY:
		if (dst && strlist_push(dst, val))
			rc = -2;
		break;
	case F_CSV:
		if (dst && push_csv(dst, val, &o->owned))
			rc = -2;
		break;
	}
	if (!rc && f->deprecated)
		fprintf(stderr, "Flag --%s has been deprecated, %s\n", f->name, f->deprecated);
	if (rc == -2)
		snprintf(msg, msz, "out of memory");
	else if (rc)
		invalid_arg(f, val, bh_buf_str(&why), msg, msz);
	bh_buf_free(&why);
	return rc ? -1 : 0;
}

static const flagdef *find_long(const char *name, size_t n)
{
	for (const flagdef *f = flags; f->name; f++)
		if (strlen(f->name) == n && !strncmp(f->name, name, n))
			return f;
	return NULL;
}

static const flagdef *find_short(char c)
{
	for (const flagdef *f = flags; f->name; f++)
		if (f->shorthand == c)
			return f;
	return NULL;
}

/* The value a flag given without "=VALUE" takes (bools and the two
 * NoOptDefVal flags), or NULL when it needs an argument. */
static const char *no_opt_default(const flagdef *f)
{
	switch (f->type) {
	case F_BOOL:
	case F_HELP:
		return "true";
	case F_DRYRUN:
		return "unset";
	case F_WAIT:
		return "watcher";
	default:
		return NULL;
	}
}

int template_flags_parse(int argc, char **argv, template_opts *o, char *msg, size_t msz)
{
	int done = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (done || a[0] != '-' || !a[1]) {
			if (strlist_push(&o->args, a))
				return snprintf(msg, msz, "out of memory"), -1;
			continue;
		}
		if (!strcmp(a, "--")) {
			done = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t nl = eq ? (size_t)(eq - name) : strlen(name);
			const flagdef *f = find_long(name, nl);
			const char *val;
			if (!f) {
				snprintf(msg, msz, "unknown flag: --%.*s", (int)nl, name);
				return -1;
			}
			val = eq ? eq + 1 : no_opt_default(f);
			if (!val) {
				if (i + 1 >= argc) {
					snprintf(msg, msz, "flag needs an argument: %s", a);
					return -1;
				}
				val = argv[++i];
			}
			if (set_flag(f, val, o, msg, msz))
				return -1;
			continue;
		}
		/* shorthands: "-gs x", "-sx", "-s=x" */
		for (const char *p = a + 1; *p; p++) {
			const flagdef *f = find_short(*p);
			const char *val;
			if (!f) {
				snprintf(msg, msz, "unknown shorthand flag: '%c' in -%s", *p, p);
				return -1;
			}
			if (p[1] == '=') {
				val = p + 2;
			} else if ((val = no_opt_default(f)) == NULL) {
				if (p[1]) {
					val = p + 1;
				} else if (i + 1 < argc) {
					val = argv[++i];
				} else {
					snprintf(msg, msz, "flag needs an argument: '%c' in -%s", *p, p);
					return -1;
				}
			}
			if (set_flag(f, val, o, msg, msz))
				return -1;
			if (p[1] == '=' || (f->type != F_BOOL && f->type != F_HELP))
				break;
		}
	}
	return 0;
}

/* helmpath: $HELM_CACHE_HOME, else $XDG_CACHE_HOME/helm, else ~/.cache/helm */
static void helm_home(bh_buf *b, const char *helm_env, const char *xdg_env, const char *fallback)
{
	const char *v = getenv(helm_env), *home = getenv("HOME");
	if (v && *v)
		bh_buf_puts(b, v);
	else if ((v = getenv(xdg_env)) && *v)
		bh_buf_printf(b, "%s/helm", v);
	else
		bh_buf_printf(b, "%s/%s", home ? home : "", fallback);
}

static void expand_default(bh_buf *b, const char *def)
{
	const char *gnupg = getenv("GNUPGHOME"), *home = getenv("HOME");
	for (const char *p = def; *p;) {
		if (!strncmp(p, "@CACHE@", 7)) {
			helm_home(b, "HELM_CACHE_HOME", "XDG_CACHE_HOME", ".cache/helm");
			p += 7;
		} else if (!strncmp(p, "@CONFIG@", 8)) {
			helm_home(b, "HELM_CONFIG_HOME", "XDG_CONFIG_HOME", ".config/helm");
			p += 8;
		} else if (!strncmp(p, "@KEYRING@", 9)) {
			if (gnupg)
				bh_buf_printf(b, "%s/pubring.gpg", gnupg);
			else
				bh_buf_printf(b, "%s/.gnupg/pubring.gpg", home ? home : "");
			p += 9;
		} else {
			bh_buf_putc(b, *p++);
		}
	}
}

void template_default_keyring(bh_buf *b)
{
	expand_default(b, "@KEYRING@");
}

void template_setting(bh_buf *b, const char *given, const char *env, const char *def)
{
	const char *e = getenv(env);
	if (given)
		bh_buf_puts(b, given);
	else if (e && *e)
		bh_buf_puts(b, e);
	else
		expand_default(b, def);
}

/* pflag FlagUsages: "  -s, --name type" padded to one column, usage,
 * "(default ...)". */
static void print_section(FILE *out, int global)
{
	size_t maxlen = 0;
	bh_buf left = BH_BUF_INIT;
	for (const flagdef *f = flags; f->name; f++) {
		if (f->global != global || f->deprecated)
			continue;
		size_t l = strlen(f->name) + 9 + (f->var ? strlen(f->var) + 1 : 0); /* "      --" NAME [" " VAR] + 1 */
		if (l > maxlen)
			maxlen = l;
	}
	for (const flagdef *f = flags; f->name; f++) {
		if (f->global != global || f->deprecated)
			continue;
		bh_buf_reset(&left);
		if (f->shorthand)
			bh_buf_printf(&left, "  -%c, --%s", f->shorthand, f->name);
		else
			bh_buf_printf(&left, "      --%s", f->name);
		if (f->var)
			bh_buf_printf(&left, " %s", f->var);
		fprintf(out, "%s %*s %s", bh_buf_str(&left), (int)(maxlen - left.len), "", f->usage);
		if (f->def) {
			bh_buf d = BH_BUF_INIT;
			expand_default(&d, f->def);
			fprintf(out, " (default %s)", bh_buf_str(&d));
			bh_buf_free(&d);
		}
		fputc('\n', out);
	}
	bh_buf_free(&left);
}

void template_flags_help(FILE *out)
{
	fputs("\nRender chart templates locally and display the output.\n\n"
	      "Any values that would normally be looked up or retrieved in-cluster will be\n"
	      "faked locally. Additionally, none of the server-side testing of chart validity\n"
	      "(e.g. whether an API is supported) is done.\n\n"
	      "To specify the Kubernetes API versions used for Capabilities.APIVersions, use\n"
	      "the '--api-versions' flag. This flag can be specified multiple times or as a\n"
	      "comma-separated list:\n\n"
	      "    $ bulkhead template --api-versions networking.k8s.io/v1 --api-versions cert-manager.io/v1 mychart ./mychart\n\n"
	      "or\n\n"
	      "    $ bulkhead template --api-versions networking.k8s.io/v1,cert-manager.io/v1 mychart ./mychart\n\n"
	      "Usage:\n  bulkhead template [NAME] [CHART] [flags]\n\nFlags:\n",
	      out);
	print_section(out, 0);
	fputs("\nGlobal Flags:\n", out);
	print_section(out, 1);
	fputs("\nBulkhead Flags:\n", out);
	print_section(out, 2);
}
