/* tests/conformance/run_vectors.c — runs the template conformance vectors
 * (../shared/conformance/functions/{lang,funcs}.jsonl) through tmpl/ and
 * compares with what Helm 4.1.4 produced.
 *
 * Usage: run_vectors [--write-known-failures] [--verbose] [--only ID]
 *                    KNOWN_FAILURES_FILE JSONL...
 * Prints per file "FILE: N passed, M failed" and the failing ids. Exits 1
 * when a vector fails that KNOWN_FAILURES_FILE (lines "id<TAB>reason") does
 * not list; listed ids that now pass are reported so the list can shrink.
 * --write-known-failures rewrites the file with every current failure. */
#include <ctype.h>
#include <fnmatch.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "helm/strvals.h"
#include "helm/values.h"
#include "lib/buf.h"
#include "lib/yaml.h"
#include "tmpl/helmctx.h"
#include "tmpl/tmpl.h"

/* The vectors run on a thread with this much stack, and engines may use
 * VECTOR_STACK_BUDGET of it (see run_one and main). */
#define VECTOR_THREAD_STACK ((size_t)256 << 20)
#define VECTOR_STACK_BUDGET ((size_t)192 << 20)

typedef struct known {
	char *id;
	char *reason;
	int seen_fail;
} known;

static known *knowns;
static size_t nknowns;

static known *find_known(const char *id)
{
	for (size_t i = 0; i < nknowns; i++)
		if (strcmp(knowns[i].id, id) == 0)
			return &knowns[i];
	return NULL;
}

static void load_known(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *tab, *nl;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		tab = strchr(line, '\t');
		if (tab)
			*tab++ = '\0';
		knowns = realloc(knowns, (nknowns + 1) * sizeof(known));
		knowns[nknowns].id = strdup(line);
		knowns[nknowns].reason = strdup(tab ? tab : "");
		knowns[nknowns].seen_fail = 0;
		nknowns++;
	}
	fclose(f);
}

/* One summarising line for a mismatch (the known-failures reason). */
static void shorten(bh_buf *out, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			bh_buf_puts(out, "\\n");
		else if (c == '\t')
			bh_buf_puts(out, "\\t");
		else if (c < 0x20)
			bh_buf_printf(out, "\\x%02x", c);
		else
			bh_buf_putc(out, (char)c);
		if (i + 1 == max && s[i + 1])
			bh_buf_puts(out, "...");
	}
}

/* Helm's template order: more path segments first, then reverse lexical
 * (sort.Reverse(byPathLen)). */
static int cmp_tmpl_order(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int cx = 0, cy = 0;
	for (const char *p = x; *p; p++)
		cx += *p == '/';
	for (const char *p = y; *p; p++)
		cy += *p == '/';
	if (cx != cy)
		return cy - cx;
	return strcmp(y, x);
}

/* .helmignore subset: one glob per line, matched against the path and its
 * base name; a trailing '/' matches directories. */
static int ignored(const char *ignore, const char *path)
{
	if (!ignore)
		return 0;
	const char *p = ignore;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char pat[512];
		if (n > 0 && n < sizeof pat && p[0] != '#') {
			memcpy(pat, p, n);
			pat[n] = '\0';
			while (n > 0 && (pat[n - 1] == ' ' || pat[n - 1] == '\r'))
				pat[--n] = '\0';
			if (n > 0) {
				const char *base = strrchr(path, '/');
				base = base ? base + 1 : path;
				if (pat[n - 1] == '/') {
					pat[n - 1] = '\0';
					size_t pl = strlen(pat);
					if (strncmp(path, pat, pl) == 0 && path[pl] == '/')
						return 1;
				} else if (fnmatch(pat, path, 0) == 0 || fnmatch(pat, base, 0) == 0) {
					return 1;
				}
			}
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

typedef struct result {
	int pass;
	bh_buf reason;
} result;

static int regex_full_match(const char *pattern, const char *text)
{
	bh_buf p = BH_BUF_INIT;
	regex_t re;
	int ok;
	bh_buf_puts(&p, "^(");
	bh_buf_puts(&p, pattern);
	bh_buf_puts(&p, ")$");
	if (regcomp(&re, bh_buf_str(&p), REG_EXTENDED | REG_NOSUB) != 0) {
		bh_buf_free(&p);
		return 0;
	}
	ok = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	bh_buf_free(&p);
	return ok;
}

static void set_fail(result *r, const char *what, const char *want, const char *got)
{
	r->pass = 0;
	bh_buf_reset(&r->reason);
	bh_buf_puts(&r->reason, what);
	/* VECTORS_FULL=1 shows whole texts (debugging) */
	size_t max = getenv("VECTORS_FULL") ? (size_t)1 << 20 : 80;
	bh_buf_puts(&r->reason, ": want \"");
	shorten(&r->reason, want, max);
	bh_buf_puts(&r->reason, "\" got \"");
	shorten(&r->reason, got, max + 40);
	bh_buf_puts(&r->reason, "\"");
}

/* Builds the chart context and renders vector v. */
static void run_one(json_t *v, result *res)
{
	const char *tmpl_src = json_string_value(json_object_get(v, "template"));
	json_t *files = json_object_get(v, "files");
	json_t *values = NULL;
	json_t *chart = NULL;
	bh_error err;
	bh_buf out = BH_BUF_INIT;
	tmpl_engine *e = NULL;
	const char *chart_name = "vec";
	int rc = 0;
	char errmsg[BH_ERROR_MSG_MAX + 64] = "";
	helmctx_opts o;
	memset(&o, 0, sizeof(o));
	res->pass = 1;
	bh_error_clear(&err);

	/* values */
	json_t *vy = json_object_get(v, "valuesYaml");
	if (vy) {
		if (yaml_parse_values(json_string_value(vy), json_string_length(vy), NULL, &values, &err)) {
			snprintf(errmsg, sizeof errmsg, "cannot load values.yaml: %s", err.msg);
			rc = -1;
		}
	} else if (json_is_object(json_object_get(v, "values"))) {
		values = json_deep_copy(json_object_get(v, "values"));
	}
	if (!values)
		values = json_object();
	json_t *set = json_object_get(v, "set");
	if (rc == 0 && json_is_array(set) && json_array_size(set) > 0) {
		json_t *user = json_object();
		for (size_t i = 0; i < json_array_size(set) && rc == 0; i++) {
			if (strvals_parse_into(json_string_value(json_array_get(set, i)), user, STRVALS_TYPED,
					       NULL, NULL, &err)) {
				snprintf(errmsg, sizeof errmsg, "%s: %s", strvals_flag_prefix(STRVALS_TYPED), err.msg);
				rc = -1;
			}
		}
		if (rc == 0) {
			json_t *merged = values_coalesce_tables(user, values, 0, NULL, NULL);
			if (merged != values) {
				json_incref(merged);
				json_decref(values);
				values = merged;
			}
		}
		json_decref(user);
	}

	/* chart metadata and files */
	const char *helmignore = NULL;
	helmctx_file *hf = NULL;
	size_t nhf = 0;
	const char **tnames = NULL;
	size_t ntn = 0;
	if (json_is_object(files)) {
		const char *k;
		json_t *fv;
		json_t *cy = json_object_get(files, "Chart.yaml");
		if (cy && yaml_parse_any(json_string_value(cy), json_string_length(cy), NULL, 0, &chart, &err) == 0) {
			const char *n = json_string_value(json_object_get(chart, "name"));
			if (n)
				chart_name = n;
		}
		helmignore = json_string_value(json_object_get(files, ".helmignore"));
		hf = calloc(json_object_size(files) + 1, sizeof(*hf));
		tnames = calloc(json_object_size(files) + 2, sizeof(char *));
		json_object_foreach(files, k, fv) {
			if (strncmp(k, "templates/", 10) == 0) {
				tnames[ntn++] = k;
				continue;
			}
			if (strcmp(k, "Chart.yaml") == 0 || strcmp(k, "values.yaml") == 0 ||
			    strcmp(k, "values.schema.json") == 0 || ignored(helmignore, k))
				continue;
			hf[nhf].name = k;
			hf[nhf].data = (const unsigned char *)json_string_value(fv);
			hf[nhf].len = json_string_length(fv);
			nhf++;
		}
	}
	o.values = values;
	o.chart = chart;
	o.files = hf;
	o.n_files = nhf;
	json_t *rel = json_object_get(v, "release");
	o.release_name = rel && json_string_value(json_object_get(rel, "name")) ? json_string_value(json_object_get(rel, "name")) : "x";
	o.release_namespace = rel && json_string_value(json_object_get(rel, "namespace")) ? json_string_value(json_object_get(rel, "namespace")) : "ns";
	o.is_upgrade = rel && json_is_true(json_object_get(rel, "isUpgrade"));
	json_t *caps = json_object_get(v, "capabilities");
	const char *apiv[64];
	if (caps) {
		o.kube_version = json_string_value(json_object_get(caps, "kubeVersion"));
		json_t *av = json_object_get(caps, "apiVersions");
		for (size_t i = 0; json_is_array(av) && i < json_array_size(av) && i < 64; i++)
			apiv[o.n_api_versions++] = json_string_value(json_array_get(av, i));
		o.api_versions = apiv;
	}

	char main_name[512];
	snprintf(main_name, sizeof main_name, "%s/templates/test.yaml", chart_name);
	if (rc == 0) {
		e = tmpl_engine_new(&err);
		tmpl_value root;
		/* vectors run on a big thread stack (see main): let the engine use
		 * it, so sanitizer builds (larger frames) still reach Helm's own
		 * recursion limits first */
		tmpl_limits lim;
		tmpl_limits_default(&lim);
		lim.max_stack = VECTOR_STACK_BUDGET;
		tmpl_engine_set_limits(e, &lim);
		/* parse in Helm's order */
		char **names = calloc(ntn + 2, sizeof(char *));
		const char **srcs = calloc(ntn + 2, sizeof(char *));
		size_t nn = 0;
		names[nn] = strdup(main_name);
		srcs[nn++] = tmpl_src;
		for (size_t i = 0; i < ntn; i++) {
			if (strcmp(tnames[i], "templates/test.yaml") == 0)
				continue;
			char buf[512];
			snprintf(buf, sizeof buf, "%s/%s", chart_name, tnames[i]);
			names[nn] = strdup(buf);
			srcs[nn++] = json_string_value(json_object_get(files, tnames[i]));
		}
		/* sort names with their sources */
		for (size_t i = 0; i < nn; i++)
			for (size_t j = i + 1; j < nn; j++)
				if (cmp_tmpl_order(&names[i], &names[j]) > 0) {
					char *t = names[i];
					names[i] = names[j];
					names[j] = t;
					const char *s = srcs[i];
					srcs[i] = srcs[j];
					srcs[j] = s;
				}
		for (size_t i = 0; i < nn && rc == 0; i++)
			if (tmpl_engine_add(e, names[i], srcs[i] ? srcs[i] : "", srcs[i] ? strlen(srcs[i]) : 0, &err)) {
				snprintf(errmsg, sizeof errmsg, "%s", err.msg);
				rc = -1;
			}
		for (size_t i = 0; i < nn; i++)
			free(names[i]);
		free(names);
		free(srcs);
		if (rc == 0 && helmctx_build(tmpl_engine_arena(e), &o, &root, &err)) {
			snprintf(errmsg, sizeof errmsg, "%s", err.msg);
			rc = -1;
		}
		char base[512];
		snprintf(base, sizeof base, "%s/templates", chart_name);
		if (rc == 0 && helmctx_set_template(tmpl_engine_arena(e), &root, main_name, base, &err)) {
			snprintf(errmsg, sizeof errmsg, "%s", err.msg);
			rc = -1;
		}
		if (rc == 0 && tmpl_engine_render(e, main_name, &root, &out, &err)) {
			snprintf(errmsg, sizeof errmsg, "%s", err.msg);
			rc = -1;
		}
	}

	json_t *ex = json_object_get(v, "expect");
	json_t *exr = json_object_get(v, "expectRegex");
	json_t *exe = json_object_get(v, "expectError");
	json_t *exf = json_object_get(v, "errorFull");
	if (ex || exr) {
		if (rc) {
			set_fail(res, "unexpected error", ex ? json_string_value(ex) : json_string_value(exr), errmsg);
		} else if (ex && (out.len != json_string_length(ex) ||
				  memcmp(bh_buf_str(&out), json_string_value(ex), out.len) != 0)) {
			set_fail(res, "output", json_string_value(ex), bh_buf_str(&out));
		} else if (exr && !regex_full_match(json_string_value(exr), bh_buf_str(&out))) {
			set_fail(res, "output (regex)", json_string_value(exr), bh_buf_str(&out));
		}
	} else if (exe || exf) {
		if (!rc) {
			set_fail(res, "no error", exf ? json_string_value(exf) : json_string_value(exe), bh_buf_str(&out));
		} else if (exf && strcmp(errmsg, json_string_value(exf)) != 0) {
			set_fail(res, "error text", json_string_value(exf), errmsg);
		} else if (!exf && exe && !strstr(errmsg, json_string_value(exe))) {
			set_fail(res, "error", json_string_value(exe), errmsg);
		}
	}
	/* a function this engine does not have yet */
	if (!res->pass && rc) {
		const char *p = strstr(errmsg, "function \"");
		const char *want = exe ? json_string_value(exe) : "";
		if (p && strstr(p, "\" not defined")) {
			const char *q = strchr(p + 10, '"');
			char fn[128];
			snprintf(fn, sizeof fn, "function \"%.*s\"", (int)(q - (p + 10)), p + 10);
			if (!strstr(want, fn)) {
				bh_buf_reset(&res->reason);
				bh_buf_puts(&res->reason, "function not defined: ");
				bh_buf_put(&res->reason, p + 10, (size_t)(q - (p + 10)));
			}
		}
	}
	tmpl_engine_free(e);
	bh_buf_free(&out);
	json_decref(values);
	json_decref(chart);
	free(hf);
	free(tnames);
}

static int real_main(int argc, char **argv);

struct main_args {
	int argc;
	char **argv;
	int rc;
};

static void *main_thread(void *p)
{
	struct main_args *a = p;
	a->rc = real_main(a->argc, a->argv);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t at;
	pthread_t th;
	struct main_args a = {argc, argv, 2};
	if (pthread_attr_init(&at) || pthread_attr_setstacksize(&at, VECTOR_THREAD_STACK) ||
	    pthread_create(&th, &at, main_thread, &a)) {
		fprintf(stderr, "run_vectors: cannot start the worker thread\n");
		return 2;
	}
	pthread_join(th, NULL);
	pthread_attr_destroy(&at);
	return a.rc;
}

static int real_main(int argc, char **argv)
{
	int write_known = 0, verbose = 0, ai = 1, unlisted = 0;
	const char *only = NULL;
	setenv("TZ", "UTC", 1);
	tzset();
	while (ai < argc && argv[ai][0] == '-' && argv[ai][1] == '-') {
		if (strcmp(argv[ai], "--write-known-failures") == 0)
			write_known = 1;
		else if (strcmp(argv[ai], "--verbose") == 0)
			verbose = 1;
		else if (strcmp(argv[ai], "--only") == 0 && ai + 1 < argc)
			only = argv[++ai];
		ai++;
	}
	if (argc - ai < 2) {
		fprintf(stderr, "usage: run_vectors [--write-known-failures] [--verbose] [--only ID] KNOWN JSONL...\n");
		return 2;
	}
	const char *known_path = argv[ai++];
	load_known(known_path);
	FILE *wk = NULL;
	bh_buf newknown = BH_BUF_INIT;
	for (; ai < argc; ai++) {
		FILE *f = fopen(argv[ai], "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		int passed = 0, failed = 0;
		bh_buf fails = BH_BUF_INIT;
		const char *fname = strrchr(argv[ai], '/') ? strrchr(argv[ai], '/') + 1 : argv[ai];
		if (!f) {
			fprintf(stderr, "cannot open %s\n", argv[ai]);
			return 2;
		}
		while ((n = getline(&line, &cap, f)) > 0) {
			json_error_t je;
			json_t *v = json_loadb(line, (size_t)n, JSON_DECODE_INT_AS_REAL, &je);
			if (!v)
				continue;
			const char *id = json_string_value(json_object_get(v, "id"));
			if (only && strcmp(only, id) != 0) {
				json_decref(v);
				continue;
			}
			result r;
			bh_buf_init(&r.reason);
			run_one(v, &r);
			if (r.pass) {
				passed++;
				known *k = find_known(id);
				if (k)
					printf("  now passing (remove from known failures): %s\n", id);
			} else {
				known *k = find_known(id);
				failed++;
				bh_buf_printf(&fails, " %s", id);
				if (k)
					k->seen_fail = 1;
				else
					unlisted++;
				if (verbose || !k)
					printf("  FAIL %s%s: %s\n", id, k ? " (known)" : "", bh_buf_str(&r.reason));
				bh_buf_printf(&newknown, "%s\t%s\n", id, bh_buf_str(&r.reason));
			}
			bh_buf_free(&r.reason);
			json_decref(v);
		}
		free(line);
		fclose(f);
		printf("%s: %d passed, %d failed\n", fname, passed, failed);
		if (failed)
			printf("  failing:%s\n", bh_buf_str(&fails));
		bh_buf_free(&fails);
	}
	if (write_known) {
		wk = fopen(known_path, "w");
		if (!wk) {
			perror(known_path);
			return 2;
		}
		fputs(bh_buf_str(&newknown), wk);
		fclose(wk);
		printf("wrote %s\n", known_path);
		unlisted = 0;
	} else if (unlisted) {
		printf("%d failing vector(s) not listed in %s\n", unlisted, known_path);
	}
	bh_buf_free(&newknown);
	return unlisted ? 1 : 0;
}
