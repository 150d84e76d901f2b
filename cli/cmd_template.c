/* cli/cmd_template.c — `bulkhead template [NAME] CHART [flags]`: a drop-in
 * for `helm template` (Helm 4.1.4): same flags, same stdout bytes, same
 * stderr shapes ("Error: ..." and the --debug hint), exit status 1 on error,
 * --output-dir writing the same files. CHART is a chart directory or a
 * .tgz; repositories are not contacted (no --repo, --version, post-renderers). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/budget.h"
#include "helm/chart.h"
#include "helm/render.h"
#include "helm/values.h"
#include "cli/template_postrender.h"
#include "lib/buf.h"

typedef struct strlist {
	const char **v;
	size_t n;
} strlist;

static int push(strlist *l, const char *s)
{
	const char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
	if (!nv)
		return -1;
	l->v = nv;
	l->v[l->n++] = s;
	return 0;
}

/* pflag StringSlice: CSV-style split on commas (quotes allowed). */
static int push_csv(strlist *l, char *s, strlist *owned)
{
	bh_buf cur = BH_BUF_INIT;
	int inq = 0;
	for (char *p = s;; p++) {
		if (*p == '"') {
			inq = !inq;
			continue;
		}
		if (!*p || (*p == ',' && !inq)) {
			char *item = cur.data ? bh_buf_detach(&cur) : strdup("");
			if (!item || push(l, item) || push(owned, item))
				return -1;
			if (!*p)
				break;
			continue;
		}
		bh_buf_putc(&cur, *p);
	}
	return 0;
}

static void go_quote_to(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* slog's TextHandler value: quoted when it has spaces, '=', '"' or controls. */
static void slog_value(FILE *f, const char *s)
{
	int q = !*s;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p == '=' || *p == '"' || *p == 0x7f)
			q = 1;
	if (q)
		go_quote_to(f, s);
	else
		fputs(s, f);
}

static void log_cb(void *ud, const char *level, const char *msg, const char *const *attrs)
{
	int debug = *(int *)ud;
	if (!debug && !strcmp(level, "DEBUG"))
		return;
	fprintf(stderr, "level=%s msg=", level);
	slog_value(stderr, msg);
	for (size_t i = 0; attrs && attrs[i]; i += 2) {
		fprintf(stderr, " %s=", attrs[i]);
		slog_value(stderr, attrs[i + 1] ? attrs[i + 1] : "");
	}
	fputc('\n', stderr);
}

static int read_all(const char *path, bh_buf *out, bh_error *err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	char chunk[65536];
	if (fd < 0)
		return bh_error_set(err, BH_EIO, "open %s: %s", path, errno == ENOENT ? "no such file or directory" : strerror(errno));
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof chunk);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (fd)
				close(fd);
			return bh_error_set(err, BH_EIO, "read %s: %s", path, strerror(errno));
		}
		if (!got)
			break;
		bh_buf_put(out, chunk, (size_t)got);
	}
	if (fd)
		close(fd);
	if (!bh_buf_ok(out))
		return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
	return 0;
}

static json_t *file_reader(const char *path, void *ctx, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	(void)ctx;
	if (read_all(path, &b, err)) {
		bh_buf_free(&b);
		return NULL;
	}
	json_t *s = json_stringn(b.data ? b.data : "", b.len);
	bh_buf_free(&b);
	return s;
}

static int fail(const char *msg, int hint)
{
	fprintf(stderr, "Error: %s%s\n", msg, hint ? "\n\nUse --debug flag to render out invalid YAML" : "");
	return 1;
}

static void write_out(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(1, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

/* mkdir -p of the directory part of path */
static int mkdir_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

/* template.go writeToFile: "---\n# Source: NAME\nDATA\n" into DIR/NAME,
 * appending when asked, then "wrote DIR/NAME" on stdout. */
static int write_to_file(const char *dir, const char *name, const char *data, size_t len, int append,
			 bh_error *err)
{
	bh_buf p = BH_BUF_INIT;
	bh_buf_printf(&p, "%s/%s", dir, name);
	if (!bh_buf_ok(&p) || mkdir_parents(p.data)) {
		int e = errno;
		bh_error_set(err, BH_EIO, "mkdir %s: %s", bh_buf_str(&p), strerror(e));
		bh_buf_free(&p);
		return BH_EIO;
	}
	FILE *f = fopen(p.data, append ? "a" : "w");
	if (!f) {
		bh_error_set(err, BH_EIO, "open %s: %s", p.data, strerror(errno));
		bh_buf_free(&p);
		return BH_EIO;
	}
	fprintf(f, "---\n# Source: %s\n", name);
	fwrite(data, 1, len, f);
	fputc('\n', f);
	if (fclose(f)) {
		bh_error_set(err, BH_EIO, "write %s: %s", p.data, strerror(errno));
		bh_buf_free(&p);
		return BH_EIO;
	}
	printf("wrote %s\n", p.data);
	bh_buf_free(&p);
	return 0;
}

static int seen(strlist *written, const char *name)
{
	for (size_t i = 0; i < written->n; i++)
		if (!strcmp(written->v[i], name))
			return 1;
	return 0;
}

/* --output-dir: what renderResources and template.go write instead of stdout */
static int write_output_dir(const render_result *r, const char *dir, const char *release, int use_release_name,
			    int include_crds, int no_hooks, int skip_tests, bh_error *err)
{
	strlist written = {0};
	bh_buf nd = BH_BUF_INIT;
	int rc = 0;
	if (use_release_name)
		bh_buf_printf(&nd, "%s/%s", dir, release);
	else
		bh_buf_puts(&nd, dir);
	for (size_t i = 0; include_crds && !rc && i < r->ncrds; i++) {
		rc = write_to_file(dir, r->crds[i].path, (const char *)r->crds[i].data, r->crds[i].len,
				   seen(&written, r->crds[i].path), err);
		push(&written, r->crds[i].path);
	}
	for (size_t i = 0; !rc && i < r->manifests.n; i++) {
		const manifest *m = &r->manifests.v[i];
		rc = write_to_file(bh_buf_str(&nd), m->path, m->content, strlen(m->content), seen(&written, m->path), err);
		push(&written, m->path);
	}
	fflush(stdout);
	for (size_t i = 0; !no_hooks && !rc && i < r->hooks.n; i++) {
		const manifest *h = &r->hooks.v[i];
		struct stat st;
		bh_buf p = BH_BUF_INIT;
		if (skip_tests && manifest_is_test_hook(h))
			continue;
		bh_buf_printf(&p, "%s/%s", bh_buf_str(&nd), h->path);
		int exists = stat(bh_buf_str(&p), &st) == 0;
		bh_buf_free(&p);
		rc = write_to_file(bh_buf_str(&nd), h->path, h->content, strlen(h->content), exists, err);
	}
	fflush(stdout);
	free(written.v);
	bh_buf_free(&nd);
	return rc;
}

enum { T_STR, T_LIST, T_CSV, T_BOOL, T_UNSUPPORTED };

int cmd_template(int argc, char **argv);

int cmd_template(int argc, char **argv)
{
	strlist args = {0}, files = {0}, set = {0}, set_string = {0}, set_json = {0}, set_file = {0},
		set_literal = {0}, api = {0}, show = {0}, owned = {0};
	const char *ns = getenv("HELM_NAMESPACE"), *kube = NULL, *output_dir = NULL, *pr_config = NULL;
	const char *cpu_limit = NULL;
	postrender *pr = NULL;
	int include_crds = 0, skip_tests = 0, no_hooks = 0, is_upgrade = 0, debug = 0, skip_schema = 0,
	    sub_notes = 0, use_release_name = 0, generate_name = 0, dep_update = 0;
	bh_error err;
	int rc = 1, flags_done = 0;
	static char set_msg[512];
	char *name_template = NULL, *abs = NULL;
	if (!ns || !*ns)
		ns = "default";
	struct {
		const char *lng;
		char shrt;
		int type;
		void *dst;
	} table[] = {
		{"values", 'f', T_CSV, &files},
		{"set", 0, T_LIST, &set},
		{"set-string", 0, T_LIST, &set_string},
		{"set-json", 0, T_LIST, &set_json},
		{"set-file", 0, T_LIST, &set_file},
		{"set-literal", 0, T_LIST, &set_literal},
		{"namespace", 'n', T_STR, &ns},
		{"kube-version", 0, T_STR, &kube},
		{"api-versions", 'a', T_CSV, &api},
		{"show-only", 's', T_LIST, &show},
		{"include-crds", 0, T_BOOL, &include_crds},
		{"skip-tests", 0, T_BOOL, &skip_tests},
		{"no-hooks", 0, T_BOOL, &no_hooks},
		{"is-upgrade", 0, T_BOOL, &is_upgrade},
		{"debug", 0, T_BOOL, &debug},
		{"skip-schema-validation", 0, T_BOOL, &skip_schema},
		{"render-subchart-notes", 0, T_BOOL, &sub_notes},
		{"release-name", 0, T_BOOL, &use_release_name},
		{"generate-name", 'g', T_BOOL, &generate_name},
		{"dependency-update", 0, T_BOOL, &dep_update},
		{"output-dir", 0, T_STR, &output_dir},
		{"cpu-limit", 0, T_STR, &cpu_limit},
		{"name-template", 0, T_STR, &name_template},
		{"create-namespace", 0, T_BOOL, NULL},
		{"devel", 0, T_BOOL, NULL},
		{"disable-openapi-validation", 0, T_BOOL, NULL},
		{"enable-dns", 0, T_BOOL, NULL},
		{"skip-crds", 0, T_BOOL, NULL},
		{"replace", 0, T_BOOL, NULL},
		{"atomic", 0, T_BOOL, NULL},
		{"rollback-on-failure", 0, T_BOOL, NULL},
		{"wait-for-jobs", 0, T_BOOL, NULL},
		{"validate", 0, T_UNSUPPORTED, NULL},
		{"post-renderer", 0, T_UNSUPPORTED, NULL},
		{"post-renderer-config", 0, T_STR, &pr_config},
		{"repo", 0, T_UNSUPPORTED, NULL},
		{"version", 0, T_UNSUPPORTED, NULL},
		{"kubeconfig", 0, T_STR, NULL},
		{"kube-context", 0, T_STR, NULL},
		{"timeout", 0, T_STR, NULL},
		{"description", 0, T_STR, NULL},
		{"labels", 'l', T_STR, NULL},
		{NULL, 0, 0, NULL},
	};
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (flags_done || a[0] != '-' || !a[1]) {
			push(&args, a);
			continue;
		}
		if (!strcmp(a, "--")) {
			flags_done = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("Render chart templates locally and display the output.\n\n"
			       "Usage:\n  bulkhead template [NAME] [CHART] [flags]\n\n"
			       "Flags are those of `helm template`: -f/--values, --set, --set-string,\n"
			       "--set-json, --set-file, --set-literal, -n/--namespace, --kube-version,\n"
			       "-a/--api-versions, --include-crds, --skip-tests, --no-hooks, -s/--show-only,\n"
			       "--is-upgrade, --skip-schema-validation, --render-subchart-notes, --debug.\n\n"
			       "bulkhead's own:\n"
			       "      --cpu-limit SECONDS   CPU time the command may use, then it stops with an\n"
			       "                            error (default %d; 0 = no limit)\n", CLI_CPU_LIMIT_DEFAULT);
			rc = 0;
			goto out;
		}
		const char *val = NULL;
		int k = -1;
		if (a[1] == '-') {
			char *eq = strchr(a + 2, '=');
			size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			for (int t = 0; table[t].lng; t++)
				if (strlen(table[t].lng) == nl && !strncmp(table[t].lng, a + 2, nl))
					k = t;
			if (k < 0) {
				snprintf(set_msg, sizeof set_msg, "unknown flag: --%.*s", (int)nl, a + 2);
				rc = fail(set_msg, 0);
				goto out;
			}
			if (eq)
				val = eq + 1;
		} else {
			for (int t = 0; table[t].lng; t++)
				if (table[t].shrt && table[t].shrt == a[1])
					k = t;
			if (k < 0) {
				snprintf(set_msg, sizeof set_msg, "unknown shorthand flag: '%c' in %s", a[1], a);
				rc = fail(set_msg, 0);
				goto out;
			}
			if (a[2])
				val = a[2] == '=' ? a + 3 : a + 2;
		}
		if (table[k].type == T_UNSUPPORTED) {
			snprintf(set_msg, sizeof set_msg, "flag --%s is not supported by bulkhead template", table[k].lng);
			rc = fail(set_msg, 0);
			goto out;
		}
		if (table[k].type == T_BOOL) {
			int b = 1;
			if (val)
				b = !strcmp(val, "true") || !strcmp(val, "1") || !strcmp(val, "t") || !strcmp(val, "T") ||
				    !strcmp(val, "TRUE") || !strcmp(val, "True");
			if (table[k].dst)
				*(int *)table[k].dst = b;
			continue;
		}
		if (!val) {
			if (i + 1 >= argc) {
				snprintf(set_msg, sizeof set_msg, "flag needs an argument: --%s", table[k].lng);
				rc = fail(set_msg, 0);
				goto out;
			}
			val = argv[++i];
		}
		if (!table[k].dst)
			continue;
		if (table[k].type == T_STR)
			*(const char **)table[k].dst = val;
		else if (table[k].type == T_LIST)
			push(table[k].dst, val);
		else {
			char *copy = strdup(val);
			if (!copy || push(&owned, copy) || push_csv(table[k].dst, copy, &owned)) {
				rc = fail("out of memory", 0);
				goto out;
			}
		}
	}
	log_cb(&debug, "DEBUG", "Original chart version", (const char *const[]){"version", "", NULL});
	{
		unsigned long cpu = CLI_CPU_LIMIT_DEFAULT;
		if ((cpu_limit && cli_cpu_limit_parse(cpu_limit, &cpu, &err)) || cli_cpu_limit_set(cpu, &err)) {
			rc = fail(err.msg, 0);
			goto out;
		}
	}
	if (generate_name || name_template) {
		rc = fail("--generate-name and --name-template are not supported by bulkhead template", 0);
		goto out;
	}
	if (dep_update) {
		rc = fail("--dependency-update is not supported: bulkhead never fetches charts", 0);
		goto out;
	}
	if (args.n < 1) {
		fprintf(stderr, "Error: \"bulkhead template\" requires at least 1 argument\n\n"
				"Usage:  bulkhead template [NAME] [CHART] [flags]\n");
		goto out;
	}
	if (args.n > 2) {
		bh_buf m = BH_BUF_INIT;
		bh_buf_puts(&m, "expected at most two arguments, unexpected arguments: ");
		for (size_t i = 2; i < args.n; i++)
			bh_buf_printf(&m, "%s%s", i > 2 ? ", " : "", args.v[i]);
		rc = fail(bh_buf_str(&m), 0);
		bh_buf_free(&m);
		goto out;
	}
	const char *release = args.n == 2 ? args.v[0] : "release-name";
	const char *chart_path = args.n == 2 ? args.v[1] : args.v[0];

	/* the chart path, the values, then the chart (as helm does) */
	values_file *vf = calloc(files.n + 1, sizeof *vf);
	bh_buf *vbufs = calloc(files.n + 1, sizeof *vbufs);
	json_t *vals = NULL;
	chart *c = NULL;
	render_result res;
	memset(&res, 0, sizeof res);
	if (!vf || !vbufs) {
		rc = fail("out of memory", 0);
		goto out2;
	}
	/* LocateChart comes before the values are read */
	struct stat st;
	if (stat(chart_path, &st)) {
		const char *slash = strchr(chart_path, '/');
		if (chart_path[0] == '/' || chart_path[0] == '.')
			snprintf(set_msg, sizeof set_msg, "path \"%s\" not found", chart_path);
		else if (slash)
			snprintf(set_msg, sizeof set_msg, "repo %.*s not found", (int)(slash - chart_path), chart_path);
		else
			snprintf(set_msg, sizeof set_msg,
				 "non-absolute URLs should be in form of repo_name/path_to_chart, got: %s", chart_path);
		rc = fail(set_msg, 0);
		goto out2;
	}
	abs = realpath(chart_path, NULL);
	log_cb(&debug, "DEBUG", "Chart path", (const char *const[]){"path", abs ? abs : chart_path, NULL});
	for (size_t i = 0; i < files.n; i++) {
		if (read_all(files.v[i], &vbufs[i], &err)) {
			rc = fail(err.msg, 0);
			goto out2;
		}
		vf[i].name = files.v[i];
		vf[i].data = vbufs[i].data ? vbufs[i].data : "";
		vf[i].len = vbufs[i].len;
	}
	values_options vo = {
		.files = vf, .nfiles = files.n,
		.set_json = set_json.v, .nset_json = set_json.n,
		.set = set.v, .nset = set.n,
		.set_string = set_string.v, .nset_string = set_string.n,
		.set_file = set_file.v, .nset_file = set_file.n,
		.set_literal = set_literal.v, .nset_literal = set_literal.n,
		.file_reader = file_reader, .file_ctx = NULL,
	};
	if (values_compose(&vo, &vals, &err)) {
		rc = fail(err.msg, 0);
		goto out2;
	}
	int lrc = chart_load_path(abs ? abs : chart_path, NULL, &c, &err);
	if (lrc) {
		rc = fail(err.msg, 0);
		goto out2;
	}
	if (json_is_true(json_object_get(c->metadata, "deprecated")))
		log_cb(&debug, "WARN", "this chart is deprecated", NULL);
	if (json_object_get(c->metadata, "dependencies") && chart_check_dependencies(c, &err)) {
		rc = fail(err.msg, 0);
		goto out2;
	}
	if (pr_config && template_postrender_load(pr_config, ns, &pr, &err)) {
		rc = fail(err.msg, 0);
		goto out2;
	}
	render_options ro = {
		.release_name = release, .namespace_ = ns, .revision = 1, .is_upgrade = is_upgrade,
		.kube_version = kube, .api_versions = api.v, .n_api_versions = api.n,
		.include_crds = include_crds, .skip_tests = skip_tests, .no_hooks = no_hooks,
		.show_only = show.v, .n_show_only = show.n, .debug = debug,
		.skip_schema_validation = skip_schema, .sub_notes = sub_notes,
		.log = log_cb, .log_ud = &debug,
		.post_render = pr ? postrender_files : NULL, .post_render_ud = pr,
	};
	int r = render_chart(c, vals, &ro, &res, &err);
	if (output_dir && r == 0) {
		if (write_output_dir(&res, output_dir, release, use_release_name, include_crds, no_hooks, skip_tests,
				     &err)) {
			rc = fail(err.msg, 0);
			goto out2;
		}
		if (show.n) {
			snprintf(set_msg, sizeof set_msg, "could not find template %s in chart", show.v[0]);
			rc = fail(set_msg, 0);
			goto out2;
		}
		write_out("\n");
		rc = 0;
		goto out2;
	}
	if (res.template_text && (r == 0 || debug))
		write_out(res.template_text);
	if (r) {
		rc = fail(err.msg, res.debug_hint && !debug);
		goto out2;
	}
	rc = 0;
out2:
	postrender_free(pr);
	free(abs);
	render_result_free(&res);
	chart_free(c);
	json_decref(vals);
	for (size_t i = 0; vbufs && i < files.n; i++)
		bh_buf_free(&vbufs[i]);
	free(vbufs);
	free(vf);
out:
	for (size_t i = 0; i < owned.n; i++)
		free((char *)owned.v[i]);
	free(owned.v);
	free(args.v);
	free(files.v);
	free(set.v);
	free(set_string.v);
	free(set_json.v);
	free(set_file.v);
	free(set_literal.v);
	free(api.v);
	free(show.v);
	return rc;
}
