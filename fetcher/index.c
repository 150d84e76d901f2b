/* fetcher/index.c — see index.h. */
#include "fetcher/index.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lib/yaml.h"

static char *dup_str(const json_t *v)
{
	return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

static void version_free(index_version *v)
{
	free(v->name);
	free(v->version);
	free(v->digest);
	free(v->created);
	for (size_t i = 0; i < v->nurls; i++)
		free(v->urls[i]);
	free(v->urls);
}

void index_free(helm_index *idx)
{
	if (!idx)
		return;
	for (size_t c = 0; c < idx->ncharts; c++) {
		for (size_t i = 0; i < idx->charts[c].nversions; i++)
			version_free(&idx->charts[c].versions[i]);
		free(idx->charts[c].versions);
		free(idx->charts[c].name);
	}
	free(idx->charts);
	free(idx);
}

/* Helm reads entries into typed Go fields: a field of the wrong type fails
 * the whole index (json.Unmarshal). */
static int entry_types(const char *chart, size_t i, const json_t *e, bh_error *err)
{
	static const char *const strs[] = {"name", "version", "digest", "created", "apiVersion", "appVersion"};
	const json_t *v, *u;
	size_t k;
	for (k = 0; k < sizeof strs / sizeof *strs; k++)
		if ((v = json_object_get(e, strs[k])) && !json_is_string(v) && !json_is_null(v))
			return bh_error_set(err, BH_EINVAL, "error unmarshaling index.yaml: entries.%s[%zu].%s is not a string",
					    chart, i, strs[k]);
	if ((v = json_object_get(e, "urls")) && !json_is_array(v) && !json_is_null(v))
		return bh_error_set(err, BH_EINVAL, "error unmarshaling index.yaml: entries.%s[%zu].urls is not a list", chart, i);
	json_array_foreach(v, k, u) if (!json_is_string(u))
		return bh_error_set(err, BH_EINVAL, "error unmarshaling index.yaml: entries.%s[%zu].urls[%zu] is not a string",
				    chart, i, k);
	return 0;
}

/* Helm's chart.Metadata.Validate, the parts an index entry can fail. */
static int entry_valid(const json_t *e)
{
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *ver = json_string_value(json_object_get(e, "version"));
	semver sv;
	char msg[128];
	if (!name || !*name || strchr(name, '/') || strchr(name, '\\') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return 0;
	return ver && *ver && semver_parse(ver, strlen(ver), &sv, msg, sizeof msg) == 0;
}

static int version_load(const json_t *e, index_version *v, bh_error *err)
{
	const json_t *urls = json_object_get(e, "urls"), *u;
	const char *ver = json_string_value(json_object_get(e, "version"));
	char msg[128];
	size_t i;
	memset(v, 0, sizeof *v);
	semver_parse(ver, strlen(ver), &v->sv, msg, sizeof msg);
	v->name = dup_str(json_object_get(e, "name"));
	v->version = strdup(ver);
	v->digest = dup_str(json_object_get(e, "digest"));
	v->created = dup_str(json_object_get(e, "created"));
	if (json_is_array(urls)) {
		if (json_array_size(urls) > INDEX_MAX_URLS)
			return bh_error_set(err, BH_ELIMIT, "chart %s version %s has more than %d urls", v->name, ver,
					    INDEX_MAX_URLS);
		v->urls = calloc(json_array_size(urls) + 1, sizeof *v->urls);
		if (!v->urls)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		json_array_foreach(urls, i, u) v->urls[v->nurls++] = strdup(json_string_value(u));
	}
	if (!v->name || !v->version)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

/* Newest first; equal versions (build metadata differs) newest .created first. */
static int cmp_versions(const void *a, const void *b)
{
	const index_version *x = a, *y = b;
	int c = semver_compare(&y->sv, &x->sv);
	if (c)
		return c;
	return strcmp(y->created ? y->created : "", x->created ? x->created : "");
}

static int cmp_charts(const void *a, const void *b)
{
	return strcmp(((const index_chart *)a)->name, ((const index_chart *)b)->name);
}

int index_decode(const char *text, size_t len, size_t max_bytes, helm_index **out, bh_error *err)
{
	yaml_limits lim = {max_bytes, INDEX_MAX_DEPTH, INDEX_MAX_NODES};
	json_t *doc = NULL, *entries, *list, *e;
	helm_index *idx;
	const char *name;
	size_t total = 0, i;
	int rc;
	*out = NULL;
	if (len == 0)
		return bh_error_set(err, BH_EINVAL, "empty index.yaml file");
	if (len > max_bytes)
		return bh_error_set(err, BH_ELIMIT, "index.yaml is larger than %zu bytes", max_bytes);
	if ((rc = yaml_parse_any(text, len, &lim, 0, &doc, err)) < 0)
		return rc == BH_ELIMIT ? rc : bh_error_prefix(err, "error unmarshaling index.yaml");
	if (!json_is_object(doc)) {
		json_decref(doc);
		return bh_error_set(err, BH_EINVAL, "error unmarshaling index.yaml: not a mapping");
	}
	entries = json_object_get(doc, "entries");
	if (entries && !json_is_object(entries) && !json_is_null(entries)) {
		json_decref(doc);
		return bh_error_set(err, BH_EINVAL, "error unmarshaling index.yaml: entries is not a mapping");
	}
	if (!(idx = calloc(1, sizeof *idx)) ||
	    !(idx->charts = calloc(json_object_size(entries) + 1, sizeof *idx->charts))) {
		free(idx);
		json_decref(doc);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	rc = 0;
	json_object_foreach(entries, name, list) {
		index_chart *c = &idx->charts[idx->ncharts];
		if (!json_is_array(list) && !json_is_null(list)) {
			rc = bh_error_set(err, BH_EINVAL, "error unmarshaling index.yaml: entries.%s is not a list", name);
			break;
		}
		if ((total += json_array_size(list)) > INDEX_MAX_VERSIONS) {
			rc = bh_error_set(err, BH_ELIMIT, "index.yaml has more than %d chart versions", INDEX_MAX_VERSIONS);
			break;
		}
		if (!(c->name = strdup(name)) || !(c->versions = calloc(json_array_size(list) + 1, sizeof *c->versions))) {
			free(c->name);
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			break;
		}
		idx->ncharts++;
		json_array_foreach(list, i, e) {
			if (json_is_object(e) && (rc = entry_types(name, i, e, err)) < 0)
				break;
			if (!json_is_object(e) || !entry_valid(e)) {
				idx->skipped++; /* Helm: "skipping loading invalid entry" */
				continue;
			}
			if ((rc = version_load(e, &c->versions[c->nversions++], err)) < 0)
				break;
		}
		if (rc < 0)
			break;
		qsort(c->versions, c->nversions, sizeof *c->versions, cmp_versions);
	}
	if (rc == 0 && !json_string_value(json_object_get(doc, "apiVersion")))
		rc = bh_error_set(err, BH_EINVAL, "no API version specified");
	if (rc == 0 && json_string_value(json_object_get(doc, "apiVersion"))[0] == '\0')
		rc = bh_error_set(err, BH_EINVAL, "no API version specified");
	json_decref(doc);
	if (rc < 0) {
		index_free(idx);
		return rc;
	}
	qsort(idx->charts, idx->ncharts, sizeof *idx->charts, cmp_charts);
	*out = idx;
	return 0;
}

int index_get(const helm_index *idx, const char *name, const char *constraint, const index_version **out,
	      bh_error *err)
{
	index_chart key = {(char *)name, NULL, 0};
	const index_chart *c = bsearch(&key, idx->charts, idx->ncharts, sizeof key, cmp_charts);
	const char *con = constraint && *constraint ? constraint : "*";
	char msg[256];
	*out = NULL;
	if (!c)
		return bh_error_set(err, BH_ENOTFOUND, "no chart name found");
	if (c->nversions == 0)
		return bh_error_set(err, BH_ENOTFOUND, "no chart version found");
	if (constraint && *constraint)
		for (size_t i = 0; i < c->nversions; i++)
			if (strcmp(c->versions[i].version, constraint) == 0) {
				*out = &c->versions[i];
				return 0;
			}
	for (size_t i = 0; i < c->nversions; i++) {
		int ok = semver_constraint_check(con, strlen(con), &c->versions[i].sv, msg, sizeof msg);
		if (ok < 0)
			return bh_error_set(err, BH_EINVAL, "%s", msg);
		if (ok) {
			*out = &c->versions[i];
			return 0;
		}
	}
	return bh_error_set(err, BH_ENOTFOUND, "no '%s' chart with version matching '%s' found", name,
			    constraint && *constraint ? constraint : "");
}
