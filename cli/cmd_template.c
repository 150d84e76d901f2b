/* cli/cmd_template.c — `bulkhead template [NAME] CHART [flags]`: a drop-in
 * for `helm template` (Helm 4.1.4): same flags, same stdout bytes, same
 * stderr shapes ("Error: ..." and the --debug hint), exit status 1 on error,
 * --output-dir writing the same files. CHART is a chart directory or a
 * .tgz; the flags are parsed in template_flags.c. Chart repositories
 * (--repo, oci://) are the chart fetcher's (cli/template_remote.h), and so
 * are the dependencies --dependency-update fetches (cli/template_deps.h);
 * post-renderer plugins are never found (bulkhead runs none). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helm/action.h"
#include "helm/chart.h"
#include "helm/provenance.h"
#include "helm/render.h"
#include "helm/values.h"
#include "lib/json_pool.h"
#include "cli/budget.h"
#include "cli/template_cluster.h"
#include "cli/template_deps.h"
#include "cli/template_deps_files.h"
#include "cli/template_flags.h"
#include "cli/template_postrender.h"
#include "cli/template_remote.h"
#include "lib/buf.h"
#include "lib/gopath.h"
#include "lib/yaml.h"
#include "tmpl/tmpl.h"

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

/* LocateChart's filepath.Abs of an existing chart path (symbolic links
 * kept, as Helm names the chart and its files): new, or NULL when the path
 * does not exist. */
static char *chart_abs_dup(const char *path)
{
	struct stat st;
	return stat(path, &st) ? NULL : gopath_abs_dup(path);
}

/* Duplicate mapping keys, which helm reads silently (the later value wins):
 * a warning naming the file and the key, in goyaml's strict-mode words. */
static void warn_duplicates(int *debug, const char *file, const json_t *texts)
{
	size_t i;
	json_t *t;
	json_array_foreach(texts, i, t) {
		const char *attrs[] = {"file", file, "error", json_string_value(t), NULL};
		log_cb(debug, "WARN", "duplicate key in YAML: the later value wins", attrs);
	}
}

static void warn_chart_duplicates(int *debug, const chart *c)
{
	char *path = chart_full_path_dup(c);
	size_t i;
	json_t *w;
	json_array_foreach(c->warnings, i, w) {
		bh_buf f = BH_BUF_INIT;
		json_t *one = json_array();
		bh_buf_printf(&f, "%s/%s", path ? path : "", json_string_value(json_object_get(w, "file")));
		json_array_append(one, json_object_get(w, "text"));
		warn_duplicates(debug, bh_buf_str(&f), one);
		json_decref(one);
		bh_buf_free(&f);
	}
	free(path);
	for (i = 0; i < c->ndeps; i++)
		warn_chart_duplicates(debug, c->deps[i]);
}

/* Helm's loader's line for each chart (sub-charts too) that is not v1 and
 * has a requirements.yaml */
static void note_requirements(int *debug, const chart *c)
{
	if (c->requirements_v2)
		log_cb(debug, "INFO",
		       "Warning: Dependencies are handled in Chart.yaml since apiVersion \"v2\". We recommend "
		       "migrating dependencies to Chart.yaml.",
		       NULL);
	for (size_t i = 0; i < c->ndeps; i++)
		note_requirements(debug, c->deps[i]);
}

static int read_all(const char *path, bh_buf *out, bh_error *err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	char chunk[65536], why[64];
	if (fd < 0)
		return bh_error_set(err, BH_EIO, "open %s: %s", path, gopath_errno_text(errno, why, sizeof why));
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof chunk);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (fd)
				close(fd);
			return bh_error_set(err, BH_EIO, "read %s: %s", path, gopath_errno_text(errno, why, sizeof why));
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

/* template.go writeToFile: "---\n# Source: NAME\nDATA\n" into DIR/NAME,
 * appending when asked, then "wrote DIR/NAME" on stdout. */
static int write_to_file(const char *dir, const char *name, const char *data, size_t len, int append,
			 bh_error *err)
{
	bh_buf p = BH_BUF_INIT, d = BH_BUF_INIT;
	char why[64];
	struct stat st;
	size_t at;
	int rc = 0, e;
	bh_buf_printf(&p, "%s/%s", dir, name);
	gopath_dir_buf(&d, p.data, p.len); /* ensureDirectoryForFile */
	if (!bh_buf_ok(&p) || !bh_buf_ok(&d))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	else if (stat(d.data, &st) && errno != ENOENT)
		rc = bh_error_set(err, BH_EIO, "stat %s: %s", d.data, gopath_errno_text(errno, why, sizeof why));
	else if ((e = gopath_mkdir_all(d.data, 0755, &at)))
		rc = bh_error_set(err, BH_EIO, "mkdir %.*s: %s", (int)at, d.data, gopath_errno_text(e, why, sizeof why));
	FILE *f = rc ? NULL : fopen(p.data, append ? "a" : "w");
	if (!rc && !f)
		rc = bh_error_set(err, BH_EIO, "open %s: %s", p.data, gopath_errno_text(errno, why, sizeof why));
	if (f) {
		fprintf(f, "---\n# Source: %s\n", name);
		fwrite(data, 1, len, f);
		fputc('\n', f);
		if (fclose(f))
			rc = bh_error_set(err, BH_EIO, "write %s: %s", p.data, gopath_errno_text(errno, why, sizeof why));
		else
			printf("wrote %s\n", p.data);
	}
	bh_buf_free(&p);
	bh_buf_free(&d);
	return rc;
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
			    int include_crds, int no_hooks, int skip_tests, int *in_render, bh_error *err)
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
		strlist_push(&written, r->crds[i].path);
	}
	for (size_t i = 0; !rc && i < r->manifests.n; i++) {
		const manifest *m = &r->manifests.v[i];
		rc = write_to_file(bh_buf_str(&nd), m->path, m->content, strlen(m->content), seen(&written, m->path), err);
		strlist_push(&written, m->path);
	}
	fflush(stdout);
	*in_render = rc != 0; /* CRDs and manifests: in the install action, hooks: after it */
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


/* ---- the release namespace: -n, $HELM_NAMESPACE, else the kubeconfig's
 * context (clientcmd: --kubeconfig, else $KUBECONFIG's files merged with
 * the first definition winning, else ~/.kube/config), else "default".
 * A kubeconfig that cannot be read counts as none, as in helm. */

static json_t *kubeconfig_file(const char *path)
{
	bh_buf b = BH_BUF_INIT;
	bh_error err;
	json_t *doc = NULL;
	if (!read_all(path, &b, &err) && b.len <= (4u << 20))
		if (yaml_parse_any(b.data ? b.data : "", b.len, NULL, 0, &doc, &err) || !json_is_object(doc)) {
			json_decref(doc);
			doc = NULL;
		}
	bh_buf_free(&b);
	return doc;
}

static const json_t *named_entry(const json_t *list, const char *name, const char *field)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		if (n && !strcmp(n, name))
			return json_object_get(e, field);
	}
	return NULL;
}

static char *kubeconfig_namespace_dup(const char *explicit_path, const char *context)
{
	strlist paths = {0};
	bh_buf home = BH_BUF_INIT;
	char *env = NULL, *ns = NULL;
	const char *kc = getenv("KUBECONFIG"), *ctx = context && *context ? context : NULL;
	if (explicit_path && *explicit_path) {
		strlist_push(&paths, explicit_path);
	} else if (kc && *kc) {
		env = strdup(kc);
		for (char *save = NULL, *t = env ? strtok_r(env, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
			strlist_push(&paths, t);
	} else {
		bh_buf_printf(&home, "%s/.kube/config", getenv("HOME") ? getenv("HOME") : "");
		strlist_push(&paths, bh_buf_str(&home));
	}
	json_t **docs = calloc(paths.n + 1, sizeof *docs);
	for (size_t i = 0; docs && i < paths.n; i++)
		docs[i] = kubeconfig_file(paths.v[i]);
	if (explicit_path && *explicit_path && docs && !docs[0])
		goto out; /* an explicit file that cannot be loaded is an error */
	for (size_t i = 0; docs && !ctx && i < paths.n; i++) {
		const char *c = json_string_value(json_object_get(docs[i], "current-context"));
		if (c && *c)
			ctx = c;
	}
	for (size_t i = 0; docs && ctx && i < paths.n; i++) {
		const json_t *c = named_entry(json_object_get(docs[i], "contexts"), ctx, "context");
		if (!c)
			continue;
		const char *n = json_string_value(json_object_get(c, "namespace"));
		ns = strdup(n && *n ? n : "default");
		break;
	}
out:
	for (size_t i = 0; docs && i < paths.n; i++)
		json_decref(docs[i]);
	free(docs);
	free(paths.v);
	free(env);
	bh_buf_free(&home);
	return ns;
}

/* action.TemplateName: the --name-template text run with Sprig's functions
 * and no data. */
static int name_from_template(const char *text, bh_buf *out, bh_error *err)
{
	tmpl_engine *e = tmpl_engine_new_sprig(err);
	tmpl_value nil = tmpl_nil();
	int rc = e ? tmpl_engine_add_go(e, "name-template", text, strlen(text), err) : BH_ENOMEM;
	if (!rc)
		rc = tmpl_engine_execute(e, "name-template", &nil, out, err);
	tmpl_engine_free(e);
	return rc;
}

/* downloader.VerifyChart (helm/provenance.h): a local archive, or one
 * downloaded with its .prov (DownloadToCache) */
static int verify_chart(const char *path, const char *keyring, const bh_buf *prov, const bh_buf *name, bh_error *err)
{
	if (name->data)
		return provenance_verify_download(path, bh_buf_str(name), prov->data, prov->len, keyring,
						  (int64_t)time(NULL), err);
	return provenance_verify_chart(path, keyring, (int64_t)time(NULL), err);
}

/* newRegistryClient: a TLS client config is made (and its files read, even
 * for a local chart) when a cert and a key, or a CA file, or
 * --insecure-skip-tls-verify are given. PEM is only looked for, not parsed. */
static int tls_file(const char *path, const char *what, const char *pem_err, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	char why[64];
	int rc = 0;
	if (read_all(path, &b, err)) {
		rc = bh_error_set(err, BH_EIO,
				  "missing registry client: can't create TLS config for client: %s: \"%s\": open %s: %s",
				  what, path, path, gopath_errno_text(errno, why, sizeof why));
	} else if (pem_err && !strstr(bh_buf_str(&b), "-----BEGIN ")) {
		rc = bh_error_set(err, BH_EINVAL, "missing registry client: can't create TLS config for client: %s", pem_err);
	}
	bh_buf_free(&b);
	return rc;
}

static int registry_tls_files(const template_opts *o, int insecure, bh_error *err)
{
	const char *cert = o->cert_file ? o->cert_file : "", *key = o->key_file ? o->key_file : "",
		   *ca = o->ca_file ? o->ca_file : "";
	if (!((*cert && *key) || *ca || insecure))
		return 0;
	if (*cert || *key) {
		if (tls_file(cert, "unable to read cert file", NULL, err) ||
		    tls_file(key, "unable to read key file", NULL, err) ||
		    tls_file(cert, "", "unable to load cert from key pair: tls: failed to find any PEM data in certificate input", err))
			return -1;
	}
	if (*ca && tls_file(ca, "can't read CA file", "failed to append certificates from pem block", err))
		return -1;
	return 0;
}

/* cmdGetDryRunFlagStrategy(isTemplate): 0 client, 1 server, -1 error */
static int dry_run_strategy(const char *v, int *debug, char *msg, size_t msz)
{
	if (!v || !strcmp(v, "client"))
		return 0;
	if (!strcmp(v, "server"))
		return 1;
	if (!strcmp(v, "unset")) {
		log_cb(debug, "WARN", "--dry-run is deprecated and should be replaced with '--dry-run=client'", NULL);
		return 0;
	}
	static const char *t[] = {"1", "t", "T", "TRUE", "true", "True", NULL};
	static const char *f[] = {"0", "f", "F", "FALSE", "false", "False", "none", NULL};
	for (int i = 0; t[i]; i++)
		if (!strcmp(v, t[i])) {
			char w[160];
			snprintf(w, sizeof w, "boolean '--dry-run=%s' flag is deprecated and must be replaced with '--dry-run=client'", v);
			log_cb(debug, "WARN", w, NULL);
			return 0;
		}
	for (int i = 0; f[i]; i++)
		if (!strcmp(v, f[i])) {
			snprintf(msg, msz, "invalid dry-run value (\"%s\"). Must be \"server\" or \"client\"", v);
			return -1;
		}
	snprintf(msg, msz, "invalid dry-run value (\"%s\"). Must be \"none\", \"server\", or \"client\"", v);
	return -1;
}

/* action.Install.NameAndChart for `helm template` (whose release name
 * defaults to "release-name", so -g alone changes nothing). */
static int name_and_chart(const template_opts *o, bh_buf *name, const char **chart, bh_error *err)
{
	if (o->args.n > 2) {
		bh_buf m = BH_BUF_INIT;
		bh_buf_puts(&m, "expected at most two arguments, unexpected arguments: ");
		for (size_t i = 2; i < o->args.n; i++)
			bh_buf_printf(&m, "%s%s", i > 2 ? ", " : "", o->args.v[i]);
		bh_error_set(err, BH_EINVAL, "%s", bh_buf_str(&m));
		bh_buf_free(&m);
		return -1;
	}
	if (o->args.n == 2) {
		bh_buf_puts(name, o->args.v[0]);
		*chart = o->args.v[1];
		if (o->generate_name)
			return bh_error_set(err, BH_EINVAL, "cannot set --generate-name and also specify a name");
		if (o->name_template && *o->name_template)
			return bh_error_set(err, BH_EINVAL, "cannot set --name-template and also specify a name");
		return 0;
	}
	*chart = o->args.v[0];
	if (o->name_template && *o->name_template) {
		return name_from_template(o->name_template, name, err);
	}
	bh_buf_puts(name, "release-name");
	return 0;
}

/* Helm's slog.Warn, for the remote chart path. */
static void warn_cb(const char *wmsg, const char *const *attrs)
{
	int d = 0;
	log_cb(&d, "WARN", wmsg, attrs);
}

/* --repo / chart URL: the chart fetched into a temporary file named in tmp. */
static int remote_chart(template_remote *r, const char *chart, char tmp[300], bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	const char *dir = getenv("TMPDIR");
	int fd, rc;
	r->warn = warn_cb;
	if ((rc = template_remote_fetch(r, chart, &b, err)) == 0) {
		snprintf(tmp, 300, "%.200s/bulkhead-chart-XXXXXX.tgz", dir && *dir ? dir : "/tmp");
		if ((fd = mkstemps(tmp, 4)) < 0 || write(fd, b.data ? b.data : "", b.len) != (ssize_t)b.len) {
			rc = bh_error_set(err, BH_EIO, "writing the downloaded chart to %s: %s", tmp, strerror(errno));
			if (fd >= 0)
				unlink(tmp);
			tmp[0] = '\0';
		}
		if (fd >= 0)
			close(fd);
	}
	bh_buf_free(&b);
	return rc;
}

static int has_crds(const chart *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		const char *n = c->files[i].name, *dot = strrchr(n, '.');
		if (!strncmp(n, "crds/", 5) && dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml") || !strcmp(dot, ".json")))
			return 1;
	}
	for (size_t i = 0; i < c->ndeps; i++)
		if (has_crds(c->deps[i]))
			return 1;
	return 0;
}

/* Install.Run with DryRunStrategy server: the cluster reachable, the
 * CRDs warning, --api-versions ignored (cli/template_cluster.h). */
static int cluster_open(const template_opts *o, const chart *c, template_cluster *tc, int *debug, bh_error *err)
{
	template_kube_flags kf = {
		.kubeconfig = o->kubeconfig, .context = o->kube_context, .apiserver = o->kube_apiserver,
		.token = o->kube_token, .ca_file = o->kube_ca_file, .tls_server_name = o->kube_tls_server_name,
		.insecure = o->kube_insecure, .as_user = o->kube_as_user, .as_groups = o->kube_as_group.v,
		.n_as_groups = o->kube_as_group.n,
	};
	if (template_cluster_open(&kf, tc, err)) {
		log_cb(debug, "ERROR", err->msg, NULL);
		return -1;
	}
	if (!o->skip_crds && has_crds(c))
		log_cb(debug, "WARN", "This chart or one of its subcharts contains CRDs. Rendering may fail or contain inaccuracies.",
		       NULL);
	if (o->api_versions.n)
		log_cb(debug, "DEBUG", "API Version list given outside of client only mode, this list will be ignored", NULL);
	return 0;
}

/* --dependency-update: downloader.Manager.Update, then the chart loaded
 * again (cli/template_deps.h). */
static int update_deps(const template_opts *o, const char *path, const template_remote *remote, chart **c, int *debug,
		       bh_error *err)
{
	bh_buf cfg = BH_BUF_INIT, cache = BH_BUF_INIT;
	template_setting(&cfg, o->repo_config, "HELM_REPOSITORY_CONFIG", "@CONFIG@/repositories.yaml");
	template_setting(&cache, o->repo_cache, "HELM_REPOSITORY_CACHE", "@CACHE@/repository");
	template_deps td = {
		.chart_path = path, .chart = *c, .repo_config = bh_buf_str(&cfg), .repo_cache = bh_buf_str(&cache),
		.debug = *debug, .registry = remote, .log = log_cb, .log_ud = debug,
	};
	int rc = template_deps_update(&td, err);
	bh_buf_free(&cfg);
	bh_buf_free(&cache);
	if (rc)
		return rc;
	chart_free(*c);
	*c = NULL;
	if ((rc = chart_load_path_log(path, NULL, log_cb, debug, c, err)) < 0)
		bh_error_prefix(err, "failed reloading chart after repo update");
	return rc;
}

/* What a successful run leaves to the process's exit instead of freeing:
 * the chart and the rendered result, the biggest trees of the run (their
 * frees were 2-3% of its instructions), kept reachable from here so that a
 * leak checker counts nothing of them. BULKHEAD_FREE_AT_EXIT set frees
 * them as before, for the leak checks of the render path
 * (tests/conformance/valgrind_render.sh). */
static chart *volatile left_chart; /* volatile: stored, never read */
static render_result *volatile left_result;

static int free_at_exit(void)
{
	const char *f = getenv("BULKHEAD_FREE_AT_EXIT");
	return f && *f;
}

static void free_or_leave(chart *c, render_result *res, int ok)
{
	render_result *keep;
	if (ok && !free_at_exit() && (keep = malloc(sizeof *keep))) {
		*keep = *res;
		left_result = keep;
		left_chart = c;
		return;
	}
	render_result_free(res);
	chart_free(c);
}

/* Threads that parse the chart's templates (helm/render.h) and search for
 * an RSA key's primes (tmpl/tmpl.h): two when this process may run on two
 * CPUs or more. Measured on two: the parse took 8% off the median wall time
 * of the corpus, for 0.2-0.5 ms more CPU a run. */
static int cpu_threads(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 1;
	return CPU_COUNT(&set) >= 2 ? 2 : 1;
}

int cmd_template(int argc, char **argv);

int cmd_template(int argc, char **argv)
{
	template_opts o;
	bh_error err;
	bh_buf relname = BH_BUF_INIT, keyring = BH_BUF_INIT, prov = BH_BUF_INIT, prov_name = BH_BUF_INIT;
	bh_buf regcfg = BH_BUF_INIT;
	static char msg[1024];
	int rc = 1, debug = 0;
	char *abs = NULL, *kube = NULL, *kc_ns = NULL;
	template_remote remote = {0};
	template_cluster tc;
	char remote_tmp[300] = "";
	const char *chart_path = NULL, *ns = NULL;
	values_file *vf = NULL;
	bh_buf *vbufs = NULL;
	json_t *vals = NULL;
	chart *c = NULL;
	postrender *pr = NULL;
	render_result res;
	json_hash_seed();
	memset(&res, 0, sizeof res);
	memset(&o, 0, sizeof o);
	memset(&tc, 0, sizeof tc);

	if (template_flags_parse(argc, argv, &o, msg, sizeof msg)) {
		rc = fail(msg, 0);
		goto out;
	}
	debug = o.debug;
	if (o.color && strcmp(o.color, "never") && strcmp(o.color, "auto") && strcmp(o.color, "always")) {
		snprintf(msg, sizeof msg, "invalid color mode \"%s\": must be one of: never, auto, always", o.color);
		log_cb(&debug, "WARN", "command failed", (const char *const[]){"error", msg, NULL});
		goto out;
	}
	if (o.help) {
		template_flags_help(stdout);
		rc = 0;
		goto out;
	}
	if (o.args.n < 1) {
		fprintf(stderr, "Error: \"bulkhead template\" requires at least 1 argument\n\n"
				"Usage:  bulkhead template [NAME] [CHART] [flags]\n");
		goto out;
	}
	if (o.force_replace && o.force_conflicts) {
		rc = fail("if any flags in the group [force-replace force-conflicts] are set none of the others can be; "
			  "[force-conflicts force-replace] were all set", 0);
		goto out;
	}
	if (o.validate_set && o.dry_run) {
		rc = fail("if any flags in the group [validate dry-run] are set none of the others can be; "
			  "[dry-run validate] were all set", 0);
		goto out;
	}
	/* template.go RunE */
	if (o.kube_version && *o.kube_version && render_parse_kube_version(o.kube_version, &kube, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	if (registry_tls_files(&o, o.insecure_tls, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	int server = dry_run_strategy(o.dry_run, &debug, msg, sizeof msg);
	if (server < 0) {
		rc = fail(msg, 0);
		goto out;
	}
	server = server || o.validate; /* --validate is --dry-run=server */
	/* runInstall */
	log_cb(&debug, "DEBUG", "Original chart version", (const char *const[]){"version", o.version ? o.version : "", NULL});
	unsigned long cpu = CLI_CPU_LIMIT_DEFAULT;
	if ((o.cpu_limit && cli_cpu_limit_parse(o.cpu_limit, &cpu, &err)) || cli_cpu_limit_set(cpu, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	if ((!o.version || !*o.version) && o.devel)
		log_cb(&debug, "DEBUG", "setting version to >0.0.0-0", NULL);
	if (name_and_chart(&o, &relname, &chart_path, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	/* chart sources: --repo, a chart URL (cli/template_remote.h) */
	remote.repo = o.repo, remote.version = o.version && *o.version ? o.version : o.devel ? ">0.0.0-0" : NULL;
	remote.username = o.username, remote.password = o.password, remote.ca_file = o.ca_file;
	remote.cert_file = o.cert_file, remote.key_file = o.key_file, remote.insecure_skip_tls_verify = o.insecure_tls;
	remote.pass_credentials = o.pass_credentials, remote.plain_http = o.plain_http;
	template_setting(&regcfg, o.registry_config, "HELM_REGISTRY_CONFIG", "@CONFIG@/registry/config.json");
	remote.registry_config = bh_buf_str(&regcfg);
	/* From here, jansson's small blocks come from pools (lib/json_pool.h):
	 * the values trees and their coalesced copies, 2-5% of a render's
	 * instructions. Not with a cluster, a download or a signature check:
	 * their code frees texts of jansson's with free(); nor for the leak
	 * checks (BULKHEAD_FREE_AT_EXIT), which must see every JSON block. No
	 * JSON value was made before this point. */
	if (!server && !o.verify && !o.dep_update && !free_at_exit() && !template_remote_wanted(&remote, chart_path))
		json_pool_install();
	/* The engine's arena chunks are left to the exit too (tmpl/tmpl.h):
	 * they are mmap'ed, which leak checkers do not follow */
	if (!free_at_exit())
		tmpl_arenas_leave_to_exit();
	/* a process of its own: its parse and key searches may use the CPUs
	 * it has (their threads make no JSON value: the pools above stay on
	 * this thread) */
	tmpl_rsa_keygen_threads(cpu_threads());
	if (template_remote_wanted(&remote, chart_path)) {
		if (o.verify)
			remote.prov = &prov, remote.prov_name = &prov_name;
		if (remote_chart(&remote, chart_path, remote_tmp, &err)) {
			rc = fail(err.msg, 0);
			goto out;
		}
		chart_path = remote_tmp;
	}
	/* LocateChart */
	struct stat st;
	if (stat(chart_path, &st)) {
		const char *slash = strchr(chart_path, '/');
		if (chart_path[0] == '/' || chart_path[0] == '.')
			snprintf(msg, sizeof msg, "path \"%s\" not found", chart_path);
		else if (slash)
			snprintf(msg, sizeof msg, "repo %.*s not found", (int)(slash - chart_path), chart_path);
		else
			snprintf(msg, sizeof msg, "non-absolute URLs should be in form of repo_name/path_to_chart, got: %s",
				 chart_path);
		if (!(chart_path[0] == '/' || chart_path[0] == '.'))
			log_cb(&debug, "DEBUG", "set up default downloader cache", NULL);
		rc = fail(msg, 0);
		goto out;
	}
	abs = chart_abs_dup(chart_path);
	if (o.verify) {
		if (o.keyring)
			bh_buf_puts(&keyring, o.keyring);
		else
			template_default_keyring(&keyring);
		if (verify_chart(abs ? abs : chart_path, bh_buf_str(&keyring), &prov, &prov_name, &err)) {
			rc = fail(err.msg, 0);
			goto out;
		}
	}
	log_cb(&debug, "DEBUG", "Chart path", (const char *const[]){"path", abs ? abs : chart_path, NULL});

	/* the values, then the chart (as helm does) */
	vf = calloc(o.values.n + 1, sizeof *vf);
	vbufs = calloc(o.values.n + 1, sizeof *vbufs);
	if (!vf || !vbufs) {
		rc = fail("out of memory", 0);
		goto out;
	}
	for (size_t i = 0; i < o.values.n; i++) {
		if (read_all(o.values.v[i], &vbufs[i], &err)) {
			rc = fail(err.msg, 0);
			goto out;
		}
		vf[i].name = o.values.v[i];
		vf[i].data = vbufs[i].data ? vbufs[i].data : "";
		vf[i].len = vbufs[i].len;
		json_t *dups = NULL;
		if (yaml_find_duplicates(vf[i].data, vf[i].len, NULL, 1, &dups, &err) == 0)
			warn_duplicates(&debug, o.values.v[i], dups);
		json_decref(dups);
	}
	values_options vo = {
		.files = vf, .nfiles = o.values.n,
		.set_json = o.set_json.v, .nset_json = o.set_json.n,
		.set = o.set.v, .nset = o.set.n,
		.set_string = o.set_string.v, .nset_string = o.set_string.n,
		.set_file = o.set_file.v, .nset_file = o.set_file.n,
		.set_literal = o.set_literal.v, .nset_literal = o.set_literal.n,
		.file_reader = file_reader, .file_ctx = NULL,
	};
	if (values_compose(&vo, &vals, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	if (chart_load_path_log(abs ? abs : chart_path, NULL, log_cb, &debug, &c, &err) ||
	    chart_check_api_version(c, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	note_requirements(&debug, c);
	warn_chart_duplicates(&debug, c);
	if (render_check_installable(c, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	if (json_is_true(json_object_get(c->metadata, "deprecated")))
		log_cb(&debug, "WARN", "this chart is deprecated", NULL);
	if (json_object_get(c->metadata, "dependencies") && chart_check_dependencies(c, &err)) {
		if (!o.dep_update || update_deps(&o, abs ? abs : chart_path, &remote, &c, &debug, &err)) {
			rc = fail(err.msg, 0);
			goto out;
		}
	}
	ns = o.namespace_ && *o.namespace_ ? o.namespace_ : getenv("HELM_NAMESPACE");
	if (!ns || !*ns)
		ns = kc_ns = kubeconfig_namespace_dup(o.kubeconfig, o.kube_context);
	if (o.pr_config && template_postrender_load(o.pr_config, ns ? ns : "default", &pr, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	if (server && cluster_open(&o, c, &tc, &debug, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	render_options ro = {
		.release_name = bh_buf_str(&relname), .namespace_ = ns ? ns : "default", .revision = 1,
		.is_upgrade = o.is_upgrade, .kube_version = o.kube_version && *o.kube_version ? o.kube_version : NULL,
		.api_versions = o.api_versions.v, .n_api_versions = o.api_versions.n,
		.include_crds = o.include_crds, .skip_tests = o.skip_tests, .no_hooks = o.no_hooks,
		.show_only = o.show_only.v, .n_show_only = o.show_only.n, .debug = debug,
		.skip_schema_validation = o.skip_schema, .sub_notes = o.sub_notes, .enable_dns = o.enable_dns,
		.take_values = 1, /* c is rendered once, its values not read after */
		.parse_threads = cpu_threads(),
		.text_only = !server, /* res.manifest is read for the install check only */
		.log = log_cb, .log_ud = &debug,
		.post_render = pr ? postrender_files : NULL, .post_render_ud = pr,
	};
	if (server) { /* the cluster's capabilities and live objects */
		ro.kube_version = tc.version;
		ro.api_versions = tc.api_versions, ro.n_api_versions = tc.n_api_versions;
		ro.lookup = action_lookup, ro.lookup_ud = tc.kc;
	}
	int r = render_chart(c, vals, &ro, &res, &err);
	if (server && r == 0 && !o.is_upgrade &&
	    action_install_check(tc.kc, res.manifest ? res.manifest : "", bh_buf_str(&relname), ns ? ns : "default",
				 o.take_ownership, &err)) {
		rc = fail(err.msg, 0);
		goto out;
	}
	if (o.output_dir && *o.output_dir && r == 0) {
		int in_render = 0;
		if (write_output_dir(&res, o.output_dir, bh_buf_str(&relname), o.release_name, o.include_crds,
				     o.no_hooks, o.skip_tests, &in_render, &err)) {
			rc = fail(err.msg, in_render && !debug);
			goto out;
		}
		if (o.show_only.n) {
			snprintf(msg, sizeof msg, "could not find template %s in chart", o.show_only.v[0]);
			rc = fail(msg, 0);
			goto out;
		}
		write_out("\n");
		rc = 0;
		goto out;
	}
	if (res.template_text && (r == 0 || debug))
		write_out(res.template_text);
	if (r) {
		rc = fail(res.error_text ? res.error_text : err.msg, res.debug_hint && !debug);
		goto out;
	}
	rc = 0;
out:
	template_cluster_close(&tc);
	if (remote_tmp[0])
		unlink(remote_tmp);
	postrender_free(pr);
	free_or_leave(c, &res, rc == 0);
	json_decref(vals);
	for (size_t i = 0; vbufs && i < o.values.n; i++)
		bh_buf_free(&vbufs[i]);
	free(vbufs);
	free(vf);
	free(abs);
	free(kube);
	free(kc_ns);
	bh_buf_free(&relname);
	bh_buf_free(&keyring);
	bh_buf_free(&prov);
	bh_buf_free(&prov_name);
	bh_buf_free(&regcfg);
	template_opts_free(&o);
	return rc;
}
