/* cli/template_deps.c — see template_deps.h. Follows Helm 4.1.4's
 * pkg/downloader/manager.go (Update, resolveRepoNames, ensureMissingRepos,
 * UpdateRepositories, downloadAll, safeMoveDeps, writeLock) and
 * internal/resolver (Resolve, HashReq, GetLocalPath). */
#include "cli/template_deps.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/template_deps_files.h"
#include "fetcher/fetch.h"
#include "fetcher/index.h"
#include "fetcher/tarball.h"
#include "lib/buf.h"
#include "lib/gopath.h"
#include "lib/gojson.h"
#include "lib/semver.h"
#include "lib/yaml.h"

#define MANAGER_PREFIX "helm-manager-"
#define MAX_REPO_CONFIG ((size_t)4 << 20)

typedef struct dep {
	char *name, *version, *repository, *condition, *alias;
	const json_t *tags, *import_values; /* borrowed from the chart */
	int enabled;
	bh_buf pulled;   /* an oci:// archive fetched while resolving a range */
	int has_pulled;
	char *no_tag;    /* why no oci:// tag matched the range (Helm fails the download) */
} dep;

typedef struct repo_entry {
	char *name, *url, *username, *password, *ca_file, *cert_file, *key_file;
	int insecure, pass_all;
} repo_entry;

typedef struct names { /* resolveRepoNames' map: key -> repository name */
	char **k, **v;
	size_t n;
} names;

typedef struct state {
	const template_deps *d;
	dep *req, *locked;
	size_t n;
	repo_entry *repos;
	size_t nrepos;
	names rn;
} state;

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

/* A Chart.yaml string field as sigs.k8s.io/yaml reads it. */
static char *field_dup(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return strdup(json_string_value(v));
	json_t *s = v ? chart_yaml_string_new(v) : NULL;
	char *r = dup_or_empty(json_string_value(s));
	json_decref(s);
	return r;
}

static void dep_free(dep *x)
{
	free(x->name);
	free(x->version);
	free(x->repository);
	free(x->condition);
	free(x->alias);
	free(x->no_tag);
	bh_buf_free(&x->pulled);
}

static int names_set(names *m, const char *k, const char *v)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->k[i], k)) {
			char *nv = strdup(v);
			if (!nv)
				return -1;
			free(m->v[i]);
			m->v[i] = nv;
			return 0;
		}
	char **nk = realloc(m->k, (m->n + 1) * sizeof *nk);
	if (nk)
		m->k = nk;
	char **nv = realloc(m->v, (m->n + 1) * sizeof *nv);
	if (nv)
		m->v = nv;
	if (!nk || !nv || !(m->k[m->n] = strdup(k)))
		return -1;
	if (!(m->v[m->n] = strdup(v))) {
		free(m->k[m->n]);
		return -1;
	}
	m->n++;
	return 0;
}

static const char *names_get(const names *m, const char *k)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->k[i], k))
			return m->v[i];
	return NULL;
}

static void state_free(state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		dep_free(&st->req[i]);
		if (st->locked)
			dep_free(&st->locked[i]);
	}
	free(st->req);
	free(st->locked);
	for (size_t i = 0; i < st->nrepos; i++) {
		repo_entry *r = &st->repos[i];
		free(r->name);
		free(r->url);
		free(r->username);
		free(r->password);
		free(r->ca_file);
		free(r->cert_file);
		free(r->key_file);
	}
	free(st->repos);
	for (size_t i = 0; i < st->rn.n; i++) {
		free(st->rn.k[i]);
		free(st->rn.v[i]);
	}
	free(st->rn.k);
	free(st->rn.v);
}

static int oom(bh_error *err)
{
	return bh_error_set(err, BH_ENOMEM, "out of memory");
}

/* ---- inputs --------------------------------------------------------------- */

static int deps_read(state *st, bh_error *err)
{
	const json_t *list = json_object_get(st->d->chart->metadata, "dependencies");
	size_t n = json_array_size(list);
	if (!n)
		return 0;
	if (!(st->req = calloc(n, sizeof *st->req)) || !(st->locked = calloc(n, sizeof *st->locked)))
		return oom(err);
	st->n = n;
	for (size_t i = 0; i < n; i++) {
		const json_t *o = json_array_get(list, i);
		dep *x = &st->req[i];
		x->name = field_dup(o, "name");
		x->version = field_dup(o, "version");
		x->repository = field_dup(o, "repository");
		x->condition = field_dup(o, "condition");
		x->alias = field_dup(o, "alias");
		x->tags = json_object_get(o, "tags");
		x->import_values = json_object_get(o, "import-values");
		x->enabled = json_is_true(json_object_get(o, "enabled"));
		if (!x->name || !x->version || !x->repository || !x->condition || !x->alias)
			return oom(err);
	}
	return 0;
}

/* repo.LoadFile: a missing file is no repositories. */
static int repos_read(state *st, bh_error *err)
{
	bh_buf b = BH_BUF_INIT;
	json_t *doc = NULL;
	const char *path = st->d->repo_config;
	int rc = deps_read_file(path, MAX_REPO_CONFIG, &b, err);
	if (rc == BH_ENOTFOUND) {
		bh_buf_free(&b);
		return 0;
	}
	if (rc == 0 && yaml_parse_any(b.data ? b.data : "", b.len, NULL, 0, &doc, err) < 0)
		rc = BH_EPARSE;
	if (rc < 0)
		rc = bh_error_prefix(err, "couldn't load repositories file (%s)", path);
	bh_buf_free(&b);
	const json_t *list = json_object_get(doc, "repositories");
	size_t n = json_array_size(list);
	if (rc == 0 && n && !(st->repos = calloc(n, sizeof *st->repos)))
		rc = oom(err);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const json_t *o = json_array_get(list, i);
		repo_entry *r = &st->repos[st->nrepos++];
		r->name = field_dup(o, "name");
		r->url = field_dup(o, "url");
		r->username = field_dup(o, "username");
		r->password = field_dup(o, "password");
		r->ca_file = field_dup(o, "caFile");
		r->cert_file = field_dup(o, "certFile");
		r->key_file = field_dup(o, "keyFile");
		r->insecure = json_is_true(json_object_get(o, "insecure_skip_tls_verify"));
		r->pass_all = json_is_true(json_object_get(o, "pass_credentials_all"));
		if (!r->name || !r->url || !r->username || !r->password || !r->ca_file || !r->cert_file || !r->key_file)
			rc = oom(err);
	}
	json_decref(doc);
	return rc;
}

/* urlutil.Equal: the same URL but for a trailing slash. */
static int url_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	return la == lb && !memcmp(a, b, la);
}

static int is_oci(const char *s)
{
	return !strncmp(s, "oci://", 6);
}

static int is_file(const char *s)
{
	return !strncmp(s, "file://", 7);
}

/* url.Parse's scheme ("" when there is none). */
static void url_scheme(const char *u, char *out, size_t n)
{
	size_t i = 0;
	out[0] = '\0';
	if (!((u[0] >= 'a' && u[0] <= 'z') || (u[0] >= 'A' && u[0] <= 'Z')))
		return;
	while (u[i] && u[i] != ':' && (isalnum((unsigned char)u[i]) || u[i] == '+' || u[i] == '-' || u[i] == '.'))
		i++;
	if (u[i] == ':' && i < n)
		snprintf(out, n, "%.*s", (int)i, u);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

/* resolver.GetLocalPath */
static int local_path(const char *repo, const char *chart_path, bh_buf *out, bh_error *err)
{
	const char *p = is_file(repo) ? repo + 7 : repo;
	struct stat st;
	char why[64];
	if (p[0] == '/')
		bh_buf_puts(out, p);
	else
		bh_buf_printf(out, "%s/%s", chart_path, p);
	gopath_clean_in_place(out);
	if (stat(bh_buf_str(out), &st))
		return errno == ENOENT ? bh_error_set(err, BH_ENOTFOUND, "directory %s not found", bh_buf_str(out))
				       : bh_error_set(err, BH_EIO, "stat %s: %s", bh_buf_str(out), gopath_errno_text(errno, why, sizeof why));
	return 0;
}

/* ---- resolveRepoNames ------------------------------------------------------ */

static int resolve_repo_names(state *st, bh_error *err)
{
	bh_buf missing = BH_BUF_INIT;
	int non_url = 0, rc = 0;
	for (size_t i = 0; rc == 0 && i < st->n; i++) {
		dep *x = &st->req[i];
		const char *r = x->repository;
		if (!*r)
			continue;
		if (is_file(r)) {
			bh_buf p = BH_BUF_INIT;
			rc = local_path(r, st->d->chart_path, &p, err);
			bh_buf_free(&p);
			if (rc)
				break;
			if (st->d->debug)
				printf("Repository from local path: %s\n", r);
			rc = names_set(&st->rn, x->name, r) ? oom(err) : 0;
			continue;
		}
		if (is_oci(r)) {
			rc = names_set(&st->rn, x->name, r) ? oom(err) : 0;
			continue;
		}
		int found = 0;
		for (size_t j = 0; !found && j < st->nrepos; j++) {
			const repo_entry *e = &st->repos[j];
			if ((r[0] == '@' && !strcmp(r + 1, e->name)) || (!strncmp(r, "alias:", 6) && !strcmp(r + 6, e->name))) {
				char *u = strdup(e->url);
				if (!u)
					return oom(err);
				free(x->repository);
				x->repository = u;
				found = 1;
			} else if (url_equal(e->url, r)) {
				found = 1;
			}
			if (found && names_set(&st->rn, x->name, e->name))
				rc = oom(err);
		}
		if (found || rc)
			continue;
		char scheme[32];
		url_scheme(r, scheme, sizeof scheme);
		if (*scheme || r[0] == '/') { /* url.ParseRequestURI accepts it */
			rc = names_set(&st->rn, r, r) ? oom(err) : 0;
			continue;
		}
		bh_buf_printf(&missing, "%s%s", missing.len ? ", " : "", r);
		if (!strstr(r, "//") && r[0] != '@' && strncmp(r, "alias:", 6))
			non_url = 1;
	}
	if (rc == 0 && missing.len) {
		rc = bh_error_set(err, BH_ENOTFOUND, "no repository definition for %s. Please add them via 'helm repo add'%s",
				  bh_buf_str(&missing),
				  non_url ? "\nNote that repositories must be URLs or aliases. For example, to refer to the \"example\"\n"
					    "repository, use \"https://charts.example.com/\" or \"@example\" instead of\n"
					    "\"example\". Don't forget to add the repo, too ('helm repo add')."
					  : "");
	}
	bh_buf_free(&missing);
	return rc;
}

/* ---- repository indexes ----------------------------------------------------- */

static void cache_file(const state *st, const char *name, const char *suffix, bh_buf *out)
{
	bh_buf_printf(out, "%s/%s-%s", st->d->repo_cache, name, suffix);
}

/* Go's net/http words for a refused connection, which curl says its way. */
static void go_dial_error(const char *url, bh_error *err)
{
	const char *h = strstr(url, "://");
	if (!strstr(err->msg, "Couldn't connect to server") && !strstr(err->msg, "Connection refused"))
		return;
	h = h ? h + 3 : url;
	size_t hl = strcspn(h, "/?#");
	char host[300];
	if (memchr(h, ':', hl) || hl >= sizeof host - 6)
		snprintf(host, sizeof host, "%.*s", (int)hl, h);
	else
		snprintf(host, sizeof host, "%.*s:%s", (int)hl, h, !strncmp(url, "https", 5) ? "443" : "80");
	bh_error_set(err, BH_EUNAVAIL, "Get \"%s\": dial tcp %s: connect: connection refused", url, host);
}

static void remote_of(const repo_entry *e, template_remote *o)
{
	memset(o, 0, sizeof *o);
	o->repo = e->url;
	o->username = *e->username ? e->username : NULL;
	o->password = *e->password ? e->password : NULL;
	o->ca_file = e->ca_file;
	o->cert_file = e->cert_file;
	o->key_file = e->key_file;
	o->insecure_skip_tls_verify = e->insecure;
	o->pass_credentials = e->pass_all;
}

/* ChartRepository.DownloadIndexFile into the cache. */
static int repo_download_index(const state *st, const repo_entry *e, bh_error *err)
{
	template_remote o;
	bh_buf raw = BH_BUF_INIT, path = BH_BUF_INIT, names_txt = BH_BUF_INIT;
	helm_index *idx = NULL;
	char *iurl = fetch_resolve_url(e->url, "index.yaml");
	int rc;
	remote_of(e, &o);
	if (!iurl)
		return bh_error_set(err, BH_EINVAL, "invalid chart URL format: %s", e->url);
	rc = template_remote_get(&o, iurl, FETCH_DEFAULT_MAX_INDEX, &raw, err);
	if (rc < 0)
		go_dial_error(iurl, err);
	if (rc == 0)
		rc = index_decode(raw.data ? raw.data : "", raw.len, FETCH_DEFAULT_MAX_INDEX, &idx, err);
	for (size_t i = 0; rc == 0 && i < idx->ncharts; i++)
		bh_buf_printf(&names_txt, "%s\n", idx->charts[i].name);
	if (rc == 0) {
		cache_file(st, e->name, "charts.txt", &path);
		rc = deps_write_file(bh_buf_str(&path), names_txt.data, names_txt.len, err);
	}
	if (rc == 0) {
		bh_buf_reset(&path);
		cache_file(st, e->name, "index.yaml", &path);
		rc = deps_write_file(bh_buf_str(&path), raw.data, raw.len, err);
	}
	index_free(idx);
	free(iurl);
	bh_buf_free(&raw);
	bh_buf_free(&path);
	bh_buf_free(&names_txt);
	return rc;
}

/* parallelRepoUpdate (one at a time, in order): a failure is a line. */
static int repos_update(const state *st, const repo_entry *v, size_t n, bh_error *err)
{
	for (size_t i = 0; i < n; i++) {
		char scheme[32];
		url_scheme(v[i].url, scheme, sizeof scheme);
		if (strcmp(scheme, "http") && strcmp(scheme, "https"))
			return bh_error_set(err, BH_EINVAL, "could not find protocol handler for: %s", scheme);
	}
	for (size_t i = 0; i < n; i++) {
		const repo_entry *e = &v[i];
		bh_error e2;
		int managed = !strncmp(e->name, MANAGER_PREFIX, strlen(MANAGER_PREFIX));
		int dup = 0;
		for (size_t j = i + 1; j < n; j++) /* dedupeRepos: the last one of a URL */
			dup |= url_equal(v[j].url, e->url);
		if (dup)
			continue;
		if (repo_download_index(st, e, &e2) < 0) {
			if (managed)
				printf("...Unable to get an update from the \"%s\" chart repository:\n\t%s\n", e->url, e2.msg);
			else
				printf("...Unable to get an update from the \"%s\" chart repository (%s):\n\t%s\n", e->name, e->url,
				       e2.msg);
		} else {
			printf("...Successfully got an update from the \"%s\" chart repository\n", managed ? e->url : e->name);
		}
	}
	fflush(stdout);
	return 0;
}

static char no_text[1];

static int ensure_missing_repos(state *st, bh_error *err)
{
	repo_entry *ru = calloc(st->n + 1, sizeof *ru);
	size_t nru = 0;
	int rc = 0;
	if (!ru)
		return oom(err);
	for (size_t i = 0; rc == 0 && i < st->n; i++) {
		const dep *x = &st->req[i];
		char hex[72], key[128];
		if (!*x->repository || names_get(&st->rn, x->name))
			continue;
		fetch_sha256(x->repository, strlen(x->repository), hex);
		snprintf(key, sizeof key, "%s%s", MANAGER_PREFIX, hex + 7);
		if (names_set(&st->rn, x->name, key) || !(ru[nru].name = strdup(key)) || !(ru[nru].url = strdup(x->repository)))
			rc = oom(err);
		ru[nru].username = ru[nru].password = ru[nru].ca_file = ru[nru].cert_file = ru[nru].key_file = no_text;
		nru++;
	}
	if (rc == 0 && nru) {
		printf("Getting updates for unmanaged Helm repositories...\n");
		rc = repos_update(st, ru, nru, err);
	}
	for (size_t i = 0; i < nru; i++) {
		free(ru[i].name);
		free(ru[i].url);
	}
	free(ru);
	return rc;
}

/* repo.LoadIndexFile of a cached index. */
static int index_load_cached(const state *st, const char *name, helm_index **idx, bh_error *err)
{
	bh_buf path = BH_BUF_INIT, raw = BH_BUF_INIT;
	cache_file(st, name, "index.yaml", &path);
	int rc = deps_read_file(bh_buf_str(&path), FETCH_DEFAULT_MAX_INDEX, &raw, err);
	if (rc == 0)
		rc = index_decode(raw.data ? raw.data : "", raw.len, FETCH_DEFAULT_MAX_INDEX, idx, err);
	bh_buf_free(&path);
	bh_buf_free(&raw);
	return rc;
}

static const index_chart *index_entry(const helm_index *idx, const char *name)
{
	for (size_t i = 0; idx && i < idx->ncharts; i++)
		if (!strcmp(idx->charts[i].name, name))
			return &idx->charts[i];
	return NULL;
}

/* ---- Resolve ------------------------------------------------------------------ */

static int set_locked(dep *l, const char *name, const char *repo, const char *version)
{
	l->name = strdup(name);
	l->repository = strdup(repo);
	l->version = strdup(version);
	l->condition = strdup("");
	l->alias = strdup("");
	return l->name && l->repository && l->version && l->condition && l->alias ? 0 : -1;
}

static int version_ok(const char *constraint, const char *version)
{
	semver v;
	char msg[300];
	if (semver_parse(version, strlen(version), &v, msg, sizeof msg))
		return -1;
	return semver_constraint_check(constraint, strlen(constraint), &v, msg, sizeof msg) == 1;
}

/* A range over an oci:// repository's tags: the archive is pulled now. */
static int oci_resolve(const state *st, dep *x, dep *l, int *found, bh_error *err)
{
	template_remote o = *st->d->registry;
	bh_buf ref = BH_BUF_INIT;
	char *tag = NULL;
	int rc;
	o.repo = NULL;
	o.version = x->version;
	o.warn = NULL;
	o.prov = o.prov_name = NULL;
	o.pulled_version = &tag;
	bh_buf_printf(&ref, "%s/%s", x->repository, x->name);
	rc = template_remote_fetch(&o, bh_buf_str(&ref), &l->pulled, err);
	bh_buf_free(&ref);
	if (rc == BH_ENOTFOUND && strstr(err->msg, "could not locate a version matching")) {
		/* Helm locks no version and fails the download */
		free(l->version);
		l->version = NULL;
		if (!(l->version = strdup("")) || !(l->no_tag = strdup(err->msg)))
			return oom(err);
		*found = 1;
		return 0;
	}
	if (rc < 0)
		return bh_error_prefix(err, "could not retrieve list of tags for repository %s", x->repository);
	l->has_pulled = 1;
	free(l->version);
	l->version = tag;
	if (!tag)
		return oom(err);
	*found = 1;
	return 0;
}

static int resolve(state *st, bh_error *err)
{
	bh_buf missing = BH_BUF_INIT;
	size_t nmissing = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < st->n; i++) {
		dep *x = &st->req[i], *l = &st->locked[i];
		char msg[300];
		semver any;
		semver_parse("0.0.0", 5, &any, msg, sizeof msg);
		if (semver_constraint_check(x->version, strlen(x->version), &any, msg, sizeof msg) < 0) {
			rc = bh_error_set(err, BH_EINVAL, "dependency \"%s\" has an invalid version/constraint format: %s", x->name,
					  msg);
			break;
		}
		int found = 1;
		if (!*x->repository || is_file(x->repository)) {
			bh_buf p = BH_BUF_INIT;
			bh_buf rel = BH_BUF_INIT;
			const char *where = x->repository;
			if (!*where) {
				bh_buf_printf(&rel, "charts/%s", x->name);
				where = bh_buf_str(&rel);
			}
			rc = local_path(where, st->d->chart_path, &p, err);
			if (rc == 0 && !*x->repository) {
				rc = set_locked(l, x->name, "", x->version) ? oom(err) : 0;
			} else if (rc == 0) {
				chart *c = NULL;
				rc = chart_load_dir_log(bh_buf_str(&p), NULL, st->d->log, st->d->log_ud, &c, err);
				int ok = rc == 0 ? version_ok(x->version, chart_version(c)) : 0;
				if (rc == 0 && ok == 1)
					rc = set_locked(l, x->name, x->repository, chart_version(c)) ? oom(err) : 0;
				else if (rc == 0 && ok == 0)
					found = 0;
				/* a chart version that is no semver: skipped, as Helm does */
				chart_free(c);
			}
			bh_buf_free(&p);
			bh_buf_free(&rel);
		} else if (is_oci(x->repository)) {
			semver v;
			if (set_locked(l, x->name, x->repository, x->version))
				rc = oom(err);
			else if (semver_parse(x->version, strlen(x->version), &v, msg, sizeof msg) != 0)
				rc = oci_resolve(st, x, l, &found, err);
		} else {
			const char *rn = names_get(&st->rn, x->name);
			helm_index *idx = NULL;
			if (!rn) {
				rc = set_locked(l, x->name, x->repository, x->version) ? oom(err) : 0;
				continue;
			}
			if (index_load_cached(st, rn, &idx, err) < 0) {
				rc = bh_error_prefix(err, "no cached repository for %s found. (try 'helm repo update')", rn);
				break;
			}
			const index_chart *e = index_entry(idx, x->name);
			if (!e) {
				rc = bh_error_set(err, BH_ENOTFOUND, "%s chart not found in repo %s", x->name, x->repository);
			} else {
				found = 0;
				if (set_locked(l, x->name, x->repository, "")) {
					rc = oom(err);
				}
				for (size_t j = 0; rc == 0 && !found && j < e->nversions; j++) {
					if (!e->versions[j].nurls || version_ok(x->version, e->versions[j].version) != 1)
						continue;
					free(l->version);
					if (!(l->version = strdup(e->versions[j].version)))
						rc = oom(err);
					found = 1;
				}
			}
			index_free(idx);
		}
		if (rc == 0 && !found) {
			bh_buf_printf(&missing, "%s\"%s\" (repository \"%s\", version \"%s\")", nmissing ? ", " : "", x->name,
				      x->repository, x->version);
			nmissing++;
		}
	}
	if (rc == 0 && nmissing)
		rc = bh_error_set(err, BH_ENOTFOUND,
				  "can't get a valid version for %zu subchart(s): %s. Make sure a matching chart version exists in "
				  "the repo, or change the version constraint in Chart.yaml",
				  nmissing, bh_buf_str(&missing));
	bh_buf_free(&missing);
	return rc;
}

/* ---- HashReq ------------------------------------------------------------------- */

static void dep_json(bh_buf *b, const dep *x)
{
	bh_buf_puts(b, "{\"name\":");
	gojson_quote(b, x->name, strlen(x->name), 0);
	if (*x->version) {
		bh_buf_puts(b, ",\"version\":");
		gojson_quote(b, x->version, strlen(x->version), 0);
	}
	bh_buf_puts(b, ",\"repository\":");
	gojson_quote(b, x->repository, strlen(x->repository), 0);
	if (*x->condition) {
		bh_buf_puts(b, ",\"condition\":");
		gojson_quote(b, x->condition, strlen(x->condition), 0);
	}
	if (json_array_size(x->tags)) {
		bh_buf_puts(b, ",\"tags\":");
		gojson_encode(x->tags, 0, b, NULL);
	}
	if (x->enabled)
		bh_buf_puts(b, ",\"enabled\":true");
	if (json_array_size(x->import_values)) {
		bh_buf_puts(b, ",\"import-values\":");
		gojson_encode(x->import_values, 0, b, NULL);
	}
	if (*x->alias) {
		bh_buf_puts(b, ",\"alias\":");
		gojson_quote(b, x->alias, strlen(x->alias), 0);
	}
	bh_buf_putc(b, '}');
}

static void hash_req(const state *st, char out[72])
{
	bh_buf b = BH_BUF_INIT;
	for (int k = 0; k < 2; k++) {
		bh_buf_puts(&b, k ? "],[" : "[[");
		for (size_t i = 0; i < st->n; i++) {
			if (i)
				bh_buf_putc(&b, ',');
			dep_json(&b, k ? &st->locked[i] : &st->req[i]);
		}
	}
	bh_buf_puts(&b, "]]");
	fetch_sha256(b.data ? b.data : "", b.len, out);
	bh_buf_free(&b);
}

/* ---- downloadAll ----------------------------------------------------------------- */

/* tarFromLocalDir: the directory packaged as chartutil.Save names it. */
static int tar_local(const state *st, dep *l, const char *tmp, bh_error *err)
{
	bh_buf p = BH_BUF_INIT, tar = BH_BUF_INIT, gz = BH_BUF_INIT, name = BH_BUF_INIT, dest = BH_BUF_INIT;
	chart *c = NULL;
	chart_file *files = NULL;
	size_t nfiles = 0;
	int rc = local_path(l->repository, st->d->chart_path, &p, err);
	if (rc == 0)
		rc = chart_load_dir_log(bh_buf_str(&p), NULL, st->d->log, st->d->log_ud, &c, err);
	if (rc == 0 && version_ok(l->version, chart_version(c)) != 1)
		rc = bh_error_set(err, BH_ENOTFOUND, "can't get a valid version for dependency %s", l->name);
	if (rc == 0)
		rc = chart_dir_read_files(bh_buf_str(&p), NULL, &files, &nfiles, err);
	for (size_t i = 0; rc == 0 && i < nfiles; i++) {
		bh_buf_reset(&name);
		bh_buf_printf(&name, "%s/%s", chart_name(c), files[i].name);
		rc = tarball_put(&tar, bh_buf_str(&name), files[i].data, files[i].len, (long long)time(NULL), err);
	}
	if (rc == 0)
		rc = tarball_finish(&tar, &gz, err);
	if (rc == 0) {
		bh_buf_printf(&dest, "%s/%s-%s.tgz", tmp, chart_name(c), chart_version(c));
		rc = deps_write_file(bh_buf_str(&dest), gz.data, gz.len, err);
	}
	if (rc == 0) {
		char *v = strdup(chart_version(c));
		if (!v)
			rc = oom(err);
		else {
			free(l->version);
			l->version = v;
		}
	}
	chart_files_free(files, nfiles);
	chart_free(c);
	bh_buf_free(&p);
	bh_buf_free(&tar);
	bh_buf_free(&gz);
	bh_buf_free(&name);
	bh_buf_free(&dest);
	return rc;
}

/* A dependency without a repository: charts/NAME must satisfy it. */
static int check_in_charts(const state *st, const dep *l, bh_error *err)
{
	bh_buf p = BH_BUF_INIT;
	chart *c = NULL;
	int rc;
	bh_buf_printf(&p, "%s/charts/%s", st->d->chart_path, l->name);
	if ((rc = chart_load_dir_log(bh_buf_str(&p), NULL, st->d->log, st->d->log_ud, &c, err)) < 0)
		rc = bh_error_prefix(err, "unable to load chart '%s'", bh_buf_str(&p));
	else if (version_ok(l->version, chart_version(c)) == 0)
		rc = bh_error_set(err, BH_EINVAL, "dependency %s at version %s does not satisfy the constraint %s", l->name,
				  chart_version(c), l->version);
	chart_free(c);
	bh_buf_free(&p);
	return rc;
}

/* findChartURL over the repositories of repositories.yaml, else the
 * unmanaged repository's cached index. *entry: the repository whose
 * credentials go with the download, or NULL. */
static int find_chart_url(const state *st, const dep *l, char **url, const repo_entry **entry, bh_error *err)
{
	helm_index *idx = NULL;
	const char *rn = NULL;
	int rc = 0;
	*url = NULL;
	*entry = NULL;
	for (size_t i = 0; !rn && i < st->nrepos; i++)
		if (url_equal(l->repository, st->repos[i].url)) {
			rn = st->repos[i].name;
			*entry = &st->repos[i];
		}
	if (!rn)
		rn = names_get(&st->rn, l->name);
	if (!rn || index_load_cached(st, rn, &idx, err) < 0) {
		index_free(idx);
		return bh_error_set(err, BH_ENOTFOUND, "chart %s not found in %s: no cached index", l->name, l->repository);
	}
	const index_chart *e = index_entry(idx, l->name);
	const index_version *v = NULL;
	semver want;
	char msg[300];
	int exact = semver_parse(l->version, strlen(l->version), &want, msg, sizeof msg) == 0;
	for (size_t j = 0; e && !v && j < e->nversions; j++)
		if (e->versions[j].nurls &&
		    (!*l->version || (exact ? !semver_compare(&e->versions[j].sv, &want) : !strcmp(e->versions[j].version, l->version))))
			v = &e->versions[j];
	if (!e)
		rc = bh_error_set(err, BH_ENOTFOUND, "entry not found");
	else if (!v)
		rc = bh_error_set(err, BH_ENOTFOUND, "no matching version");
	else if (!(*url = fetch_resolve_url(l->repository, v->urls[0])))
		rc = bh_error_set(err, BH_EINVAL, "invalid chart URL format: %s", v->urls[0]);
	index_free(idx);
	return rc;
}

static int download_one(const state *st, dep *l, const char *tmp, char **seen, size_t *nseen, bh_error *err)
{
	char *url = NULL;
	const repo_entry *e = NULL;
	bh_buf data = BH_BUF_INIT, dest = BH_BUF_INIT;
	template_remote o;
	int rc = 0;
	if (is_oci(l->repository)) {
		if (l->no_tag) {
			printf("Downloading %s from repo %s\n", l->name, l->repository);
			return bh_error_set(err, BH_ENOTFOUND, "could not download %s/%s: %s", l->repository, l->name, l->no_tag);
		}
		if (asprintf(&url, "%s/%s:%s", l->repository, l->name, l->version) < 0)
			return oom(err);
	} else if ((rc = find_chart_url(st, l, &url, &e, err)) < 0) {
		bh_error_prefix(err, "could not find %s", url ? url : "");
		free(url);
		return rc;
	}
	for (size_t i = 0; i < *nseen; i++)
		if (!strcmp(seen[i], url)) {
			printf("Already downloaded %s from repo %s\n", l->name, l->repository);
			free(url);
			return 0;
		}
	printf("Downloading %s from repo %s\n", l->name, l->repository);
	fflush(stdout);
	if (st->d->log)
		st->d->log(st->d->log_ud, "DEBUG", "set up default downloader cache", NULL);
	if (is_oci(url)) {
		o = *st->d->registry;
		o.repo = NULL;
		o.version = NULL;
		o.prov = o.prov_name = NULL;
		if (l->has_pulled)
			bh_buf_put(&data, l->pulled.data, l->pulled.len);
		else
			rc = template_remote_fetch(&o, url, &data, err);
		bh_buf_printf(&dest, "%s/%s-%s.tgz", tmp, l->name, l->version);
	} else {
		if (e)
			remote_of(e, &o);
		else
			memset(&o, 0, sizeof o);
		o.repo = l->repository;
		rc = template_remote_get(&o, url, FETCH_DEFAULT_MAX_CHART, &data, err);
		if (rc < 0)
			go_dial_error(url, err);
		const char *base = strrchr(url, '/');
		size_t bl = strcspn(base ? base + 1 : url, "?#");
		bh_buf_printf(&dest, "%s/%.*s", tmp, (int)bl, base ? base + 1 : url);
	}
	if (rc < 0)
		bh_error_prefix(err, "could not download %s", url);
	else
		rc = deps_write_file(bh_buf_str(&dest), data.data, data.len, err);
	if (rc == 0)
		seen[(*nseen)++] = url;
	else
		free(url);
	bh_buf_free(&data);
	bh_buf_free(&dest);
	return rc;
}

static int download_all(state *st, bh_error *err)
{
	bh_buf dest = BH_BUF_INIT, tmp = BH_BUF_INIT;
	char **seen = calloc(st->n + 1, sizeof *seen);
	size_t nseen = 0, at;
	int rc = 0, e;
	char why[64];
	struct stat sb;
	if (!seen)
		return oom(err);
	for (size_t i = 0; rc == 0 && i < st->nrepos; i++) { /* loadChartRepositories */
		helm_index *idx = NULL;
		rc = index_load_cached(st, st->repos[i].name, &idx, err);
		index_free(idx);
	}
	bh_buf_printf(&dest, "%s/charts", st->d->chart_path);
	bh_buf_printf(&tmp, "%s/tmpcharts-%ld", st->d->chart_path, (long)getpid());
	if (rc == 0 && stat(bh_buf_str(&dest), &sb) == 0) {
		if (!S_ISDIR(sb.st_mode))
			rc = bh_error_set(err, BH_EINVAL, "\"%s\" is not a directory", bh_buf_str(&dest));
	} else if (rc == 0 && errno != ENOENT) {
		rc = bh_error_set(err, BH_EIO, "unable to retrieve file info for '%s': stat %s: %s", bh_buf_str(&dest),
				  bh_buf_str(&dest), gopath_errno_text(errno, why, sizeof why));
	} else if (rc == 0 && (e = gopath_mkdir_all(bh_buf_str(&dest), 0755, &at))) {
		rc = bh_error_set(err, BH_EIO, "mkdir %.*s: %s", (int)at, bh_buf_str(&dest),
				  gopath_errno_text(e, why, sizeof why));
	}
	if (rc == 0 && (e = gopath_mkdir_all(bh_buf_str(&tmp), 0755, &at)))
		rc = bh_error_set(err, BH_EIO, "mkdir %.*s: %s", (int)at, bh_buf_str(&tmp),
				  gopath_errno_text(e, why, sizeof why));
	if (rc < 0)
		goto out;
	printf("Saving %zu charts\n", st->n);
	for (size_t i = 0; rc == 0 && i < st->n; i++) {
		dep *l = &st->locked[i];
		if (!*l->repository) {
			printf("Dependency %s did not declare a repository. Assuming it exists in the charts directory\n", l->name);
			rc = check_in_charts(st, l, err);
		} else if (is_file(l->repository)) {
			if (st->d->debug)
				printf("Archiving %s from repo %s\n", l->name, l->repository);
			rc = tar_local(st, l, bh_buf_str(&tmp), err);
		} else {
			rc = download_one(st, l, bh_buf_str(&tmp), seen, &nseen, err);
		}
	}
	if (rc < 0) {
		printf("Save error occurred:  %s\n", err->msg);
	} else {
		const char **local = calloc(st->n + 1, sizeof *local);
		for (size_t i = 0; local && i < st->n; i++)
			local[i] = *st->locked[i].repository ? "" : st->locked[i].name;
		rc = local ? deps_move(bh_buf_str(&tmp), bh_buf_str(&dest), local, st->n, err) : oom(err);
		free(local);
	}
	fflush(stdout);
	deps_remove_tree(bh_buf_str(&tmp));
out:
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	bh_buf_free(&dest);
	bh_buf_free(&tmp);
	return rc;
}

/* ---- writeLock ------------------------------------------------------------------ */

/* time.Now() as encoding/json writes a time.Time (RFC 3339, nanoseconds,
 * the local zone). */
static void go_now(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	char frac[16], zone[40];
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	snprintf(frac, sizeof frac, ".%09ld", ts.tv_nsec);
	for (size_t l = strlen(frac); l > 1 && frac[l - 1] == '0'; l--)
		frac[l - 1] = '\0';
	if (!strcmp(frac, "."))
		frac[0] = '\0';
	long off = tm.tm_gmtoff;
	if (!off)
		snprintf(zone, sizeof zone, "Z");
	else
		snprintf(zone, sizeof zone, "%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 3600, labs(off) % 3600 / 60);
	snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d%s%s", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, frac, zone);
}

static int write_lock(const state *st, const char *digest, bh_error *err)
{
	const char *fname = strcmp(chart_api_version(st->d->chart), "v1") ? "Chart.lock" : "requirements.lock";
	json_t *lock = json_object(), *deps = json_array();
	bh_buf y = BH_BUF_INIT, path = BH_BUF_INIT;
	char now[128];
	struct stat sb;
	int rc = 0;
	go_now(now, sizeof now);
	for (size_t i = 0; i < st->n; i++) {
		const dep *l = &st->locked[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(l->name));
		if (*l->version)
			json_object_set_new(o, "version", json_string(l->version));
		json_object_set_new(o, "repository", json_string(l->repository));
		json_array_append_new(deps, o);
	}
	json_object_set_new(lock, "generated", json_string(now));
	json_object_set_new(lock, "digest", json_string(digest));
	json_object_set_new(lock, "dependencies", deps);
	bh_buf_printf(&path, "%s/%s", st->d->chart_path, fname);
	if (lstat(bh_buf_str(&path), &sb) == 0 && S_ISLNK(sb.st_mode)) {
		char link[4096];
		ssize_t ln = readlink(bh_buf_str(&path), link, sizeof link - 1);
		link[ln > 0 ? ln : 0] = '\0';
		rc = bh_error_set(err, BH_EDENIED, "the %s file is a symlink to \"%s\"", fname, link);
	}
	if (rc == 0)
		rc = yaml_emit(lock, &y, err);
	if (rc == 0)
		rc = deps_write_file(bh_buf_str(&path), y.data, y.len, err);
	json_decref(lock);
	bh_buf_free(&y);
	bh_buf_free(&path);
	return rc;
}

/* ---- Update ---------------------------------------------------------------------- */

int template_deps_update(const template_deps *d, bh_error *err)
{
	state st;
	struct stat sb;
	char digest[72], why[64];
	int rc;
	memset(&st, 0, sizeof st);
	st.d = d;
	if (stat(d->chart_path, &sb))
		return bh_error_set(err, BH_ENOTFOUND, "could not find %s: stat %s: %s", d->chart_path, d->chart_path,
				    gopath_errno_text(errno, why, sizeof why));
	if (!S_ISDIR(sb.st_mode))
		return bh_error_set(err, BH_EINVAL, "only unpacked charts can be updated");
	if ((rc = deps_read(&st, err)) < 0 || !st.n)
		goto out;
	if ((rc = repos_read(&st, err)) < 0 || (rc = resolve_repo_names(&st, err)) < 0 ||
	    (rc = ensure_missing_repos(&st, err)) < 0)
		goto out;
	if (st.nrepos) { /* UpdateRepositories */
		printf("Hang tight while we grab the latest from your chart repositories...\n");
		if ((rc = repos_update(&st, st.repos, st.nrepos, err)) < 0)
			goto out;
		printf("Update Complete. \xe2\x8e\x88Happy Helming!\xe2\x8e\x88\n");
	}
	fflush(stdout);
	if ((rc = resolve(&st, err)) < 0 || (rc = download_all(&st, err)) < 0)
		goto out;
	hash_req(&st, digest);
	const char *old = json_string_value(json_object_get(d->chart->lock, "digest"));
	if (!old || strcmp(old, digest))
		rc = write_lock(&st, digest, err);
out:
	fflush(stdout);
	state_free(&st);
	return rc;
}
