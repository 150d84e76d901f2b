/* fetcher/chartvalues.c — see chartvalues.h. */
#include "fetcher/chartvalues.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetcher/tarball.h"
#include "helm/targz.h"
#include "helm/values.h"
#include "lib/yaml.h"

#define MAX_ENTRIES 10000

typedef struct entry {
	char *name;
	bh_buf data;
} entry;

typedef struct chartfiles {
	entry *v;
	size_t n;
	size_t root; /* length of "<dir>/" of Chart.yaml */
	size_t cy;   /* index of Chart.yaml + 1 (0: none yet) */
} chartfiles;

static void files_free(chartfiles *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].name);
		bh_buf_free(&f->v[i].data);
	}
	free(f->v);
}

/* Every regular file of the archive, in order. */
static int files_read(const void *tgz, size_t n, size_t max, chartfiles *f, bh_error *err)
{
	targz *t = targz_new(tgz, n, max, err);
	targz_entry e;
	int rc;
	if (!t)
		return BH_EINVAL;
	while ((rc = targz_next(t, &e, err)) == 1) {
		entry *nv, *x;
		char chunk[16384];
		long r;
		if (e.type != TARGZ_REG)
			continue;
		if (f->n >= MAX_ENTRIES || !(nv = realloc(f->v, (f->n + 1) * sizeof *f->v))) {
			rc = bh_error_set(err, BH_ELIMIT, "chart archive: too many files");
			break;
		}
		f->v = nv;
		x = &f->v[f->n++];
		x->name = strdup(e.name);
		bh_buf_init(&x->data);
		while ((r = targz_read(t, chunk, sizeof chunk, err)) > 0)
			bh_buf_put(&x->data, chunk, (size_t)r);
		if (r < 0) {
			rc = (int)r;
			break;
		}
		if (!x->name || !bh_buf_ok(&x->data)) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		if (!f->cy) {
			const char *s = strchr(x->name, '/');
			if (s && !strcmp(s + 1, "Chart.yaml")) {
				f->cy = f->n;
				f->root = (size_t)(s + 1 - x->name);
			}
		}
	}
	targz_free(t);
	if (rc == 0 && !f->cy)
		rc = bh_error_set(err, BH_EINVAL, "chart archive: Chart.yaml file is missing");
	return rc < 0 ? rc : 0;
}

static entry *files_find(chartfiles *f, const char *rel)
{
	const char *root = f->v[f->cy - 1].name;
	for (size_t i = 0; i < f->n; i++)
		if (!strncmp(f->v[i].name, root, f->root) && !strcmp(f->v[i].name + f->root, rel))
			return &f->v[i];
	return NULL;
}

/* filepath.Clean for a relative path, enough for chart file names. */
static void clean_path(const char *p, char *out, size_t n)
{
	size_t o = 0;
	while (*p) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.')) {
		} else if (o + l + 2 < n) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, l);
			o += l;
		}
		p += l + (p[l] == '/');
	}
	out[o] = '\0';
}

static int parse_yaml(const entry *x, const char *what, json_t **out, bh_error *err)
{
	yaml_limits lim = {x->data.len + 1, 200, 1000000};
	if (yaml_parse_values(x->data.data ? x->data.data : "", x->data.len, &lim, out, err) < 0)
		return bh_error_prefix(err, "unmarshaling values from '%s' failed", what);
	return 0;
}

/* The merged values (new) and the files that contributed. */
static int merge_files(chartfiles *f, const chartvalues_opts *o, json_t **merged, bh_buf *observed, bh_error *err)
{
	*merged = json_object();
	for (size_t i = 0; i < o->nfiles; i++) {
		char rel[1024];
		entry *x;
		json_t *v, *m;
		clean_path(o->files[i], rel, sizeof rel);
		if (!(x = files_find(f, rel))) {
			if (!strcmp(rel, "values.yaml"))
				goto add; /* a chart without values.yaml: empty values */
			if (o->ignore_missing)
				continue;
			return bh_error_set(err, BH_EINVAL, "no values file found at path '%s'", o->files[i]);
		}
		if (parse_yaml(x, o->files[i], &v, err) < 0)
			return BH_EINVAL;
		m = values_merge_maps(*merged, v);
		json_decref(v);
		if (!m)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		json_decref(*merged);
		*merged = m;
	add:
		if (observed->len)
			bh_buf_putc(observed, '\n');
		bh_buf_puts(observed, o->files[i]);
	}
	return bh_buf_ok(observed) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

/* Chart.yaml with version "<version without build metadata>+<meta>". */
static int set_version(entry *cy, const char *meta, char **version_out, bh_error *err)
{
	json_t *md;
	const char *v;
	char *nv;
	bh_buf out = BH_BUF_INIT;
	if (parse_yaml(cy, "Chart.yaml", &md, err) < 0)
		return BH_EINVAL;
	if (!(v = json_string_value(json_object_get(md, "version"))) || !*v) {
		json_decref(md);
		return bh_error_set(err, BH_EINVAL, "failed to parse version from chart metadata as SemVer: "
				    "Chart.yaml has no version");
	}
	if (asprintf(&nv, "%.*s+%s", (int)strcspn(v, "+"), v, meta) < 0) {
		json_decref(md);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_object_set_new(md, "version", json_string(nv));
	if (yaml_emit(md, &out, err) < 0) {
		json_decref(md);
		free(nv);
		bh_buf_free(&out);
		return BH_EINVAL;
	}
	json_decref(md);
	bh_buf_free(&cy->data);
	cy->data = out;
	*version_out = nv;
	return 0;
}

/* ---- writing ------------------------------------------------------------------- */
static int package(chartfiles *f, bh_buf *out, bh_error *err)
{
	bh_buf tar = BH_BUF_INIT;
	int rc = 0;
	for (size_t i = 0; i < f->n && rc == 0; i++)
		rc = tarball_put(&tar, f->v[i].name, f->v[i].data.data, f->v[i].data.len, 0, err);
	if (rc == 0)
		rc = tarball_finish(&tar, out, err);
	bh_buf_free(&tar);
	return rc;
}

int chartvalues_apply(const void *tgz, size_t n, const chartvalues_opts *o, bh_buf *out, char **version_out,
		      char **observed_out, bh_error *err)
{
	chartfiles f = {0};
	json_t *merged = NULL;
	bh_buf observed = BH_BUF_INIT, vals = BH_BUF_INIT;
	entry *vy;
	int rc;
	*version_out = *observed_out = NULL;
	if ((rc = files_read(tgz, n, o->max_inflated, &f, err)) < 0)
		goto done;
	if ((rc = merge_files(&f, o, &merged, &observed, err)) < 0)
		goto done;
	if ((rc = yaml_emit(merged, &vals, err)) < 0)
		goto done;
	if (!(vy = files_find(&f, "values.yaml"))) {
		entry *nv = realloc(f.v, (f.n + 1) * sizeof *f.v);
		if (!nv) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto done;
		}
		f.v = nv;
		vy = &f.v[f.n++];
		bh_buf_init(&vy->data);
		if (asprintf(&vy->name, "%.*svalues.yaml", (int)f.root, f.v[f.cy - 1].name) < 0) {
			vy->name = NULL;
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto done;
		}
	}
	bh_buf_free(&vy->data);
	vy->data = vals;
	bh_buf_init(&vals);
	if ((rc = set_version(&f.v[f.cy - 1], o->version_metadata ? o->version_metadata : "0", version_out,
			      err)) < 0)
		goto done;
	if ((rc = package(&f, out, err)) < 0)
		goto done;
	*observed_out = strdup(observed.data ? observed.data : "");
	if (!*observed_out)
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
done:
	if (rc < 0) {
		free(*version_out);
		*version_out = NULL;
	}
	json_decref(merged);
	bh_buf_free(&observed);
	bh_buf_free(&vals);
	files_free(&f);
	return rc < 0 ? rc : 0;
}
