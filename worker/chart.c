/* worker/chart.c — see chart.h. */
#include "worker/chart.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>

#include "worker/yamlmin.h"

void worker_chart_free(worker_chart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i].name);
		free(c->files[i].data);
	}
	free(c->files);
	json_decref(c->metadata);
	json_decref(c->values);
	free(c);
}

static int bad_path(const char *p)
{
	if (p[0] == '/' || p[0] == '\\' || strchr(p, '\\') || (p[0] && p[1] == ':'))
		return 1;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (l == 2 && s[0] == '.' && s[1] == '.')
			return 1;
		s += l + (e ? 1 : 0);
	}
	return 0;
}

static chart_file *find(worker_chart *c, const char *name)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i].name, name) == 0)
			return &c->files[i];
	return NULL;
}

int worker_chart_load(const unsigned char *tgz, size_t len, worker_chart **out, bh_error *err)
{
	struct archive *a;
	struct archive_entry *e;
	worker_chart *c;
	size_t total = 0, cap = 0;
	char *root = NULL;
	int rc = 0, r;
	chart_file *cy, *vy;

	*out = NULL;
	if (len > CHART_MAX_TGZ)
		return bh_error_set(err, BH_ELIMIT, "chart archive is %zu bytes, limit %zu", len, CHART_MAX_TGZ);
	if (!(c = calloc(1, sizeof *c)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	a = archive_read_new();
	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_memory(a, tgz, len) != ARCHIVE_OK) {
		rc = bh_error_set(err, BH_EINVAL, "chart archive: %s", archive_error_string(a));
		goto done;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *path = archive_entry_pathname(e), *slash;
		la_int64_t size = archive_entry_size(e);
		chart_file *f;
		mode_t type = archive_entry_filetype(e);
		if (type == AE_IFDIR)
			continue;
		if (type != AE_IFREG) {
			rc = bh_error_set(err, BH_EINVAL, "chart archive: %s is not a regular file (links, devices and fifos are refused)",
					  path ? path : "?");
			goto done;
		}
		if (!path || bad_path(path) || !(slash = strchr(path, '/')) || slash[1] == '\0') {
			rc = bh_error_set(err, BH_EINVAL, "chart archive: illegal path %s", path ? path : "?");
			goto done;
		}
		if (!root) {
			root = strndup(path, (size_t)(slash - path));
		} else if (strlen(root) != (size_t)(slash - path) || strncmp(root, path, strlen(root)) != 0) {
			rc = bh_error_set(err, BH_EINVAL, "chart archive: %s is outside the chart directory %s/", path, root);
			goto done;
		}
		if (size < 0 || (size_t)size > CHART_MAX_FILE) {
			rc = bh_error_set(err, BH_ELIMIT, "chart archive: %s is larger than %zu bytes", path, CHART_MAX_FILE);
			goto done;
		}
		total += (size_t)size;
		if (total > CHART_MAX_TOTAL || c->nfiles >= CHART_MAX_FILES) {
			rc = bh_error_set(err, BH_ELIMIT, "chart archive: decompressed size or file count over the limit");
			goto done;
		}
		if (c->nfiles == cap) {
			chart_file *nf = realloc(c->files, (cap ? cap * 2 : 16) * sizeof *nf);
			if (!nf) {
				rc = bh_error_set(err, BH_ENOMEM, "out of memory");
				goto done;
			}
			c->files = nf;
			cap = cap ? cap * 2 : 16;
		}
		f = &c->files[c->nfiles];
		f->name = strdup(slash + 1);
		f->data = malloc((size_t)size + 1);
		f->len = 0;
		c->nfiles++;
		if (!f->name || !f->data) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
			goto done;
		}
		while (f->len < (size_t)size) {
			la_ssize_t n = archive_read_data(a, f->data + f->len, (size_t)size - f->len);
			if (n <= 0) {
				rc = bh_error_set(err, BH_EINVAL, "chart archive: reading %s: %s", path,
						  n < 0 ? archive_error_string(a) : "truncated");
				goto done;
			}
			f->len += (size_t)n;
		}
		f->data[f->len] = '\0';
	}
	if (r != ARCHIVE_EOF) {
		rc = bh_error_set(err, BH_EINVAL, "chart archive: %s", archive_error_string(a));
		goto done;
	}
	if (!(cy = find(c, "Chart.yaml"))) {
		rc = bh_error_set(err, BH_EINVAL, "chart archive: Chart.yaml file is missing");
		goto done;
	}
	if ((rc = yamlmin_parse((char *)cy->data, cy->len, &c->metadata, err)) < 0) {
		bh_error_prefix(err, "cannot load Chart.yaml");
		goto done;
	}
	if (!json_is_object(c->metadata)) {
		rc = bh_error_set(err, BH_EINVAL, "cannot load Chart.yaml: not a mapping");
		goto done;
	}
	c->name = json_string_value(json_object_get(c->metadata, "name"));
	c->version = json_string_value(json_object_get(c->metadata, "version"));
	c->app_version = json_string_value(json_object_get(c->metadata, "appVersion"));
	if (!c->name || !*c->name || !c->version || !*c->version) {
		rc = bh_error_set(err, BH_EINVAL, "validation: chart.metadata.name and chart.metadata.version are required (as strings)");
		goto done;
	}
	for (const char *s = c->name; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || (*s >= 'A' && *s <= 'Z') ||
		      *s == '_' || *s == '.')) {
			rc = bh_error_set(err, BH_EINVAL, "validation: chart.metadata.name %s is invalid", c->name);
			goto done;
		}
	if ((vy = find(c, "values.yaml"))) {
		if ((rc = yamlmin_parse((char *)vy->data, vy->len, &c->values, err)) < 0) {
			bh_error_prefix(err, "cannot load values.yaml");
			goto done;
		}
		if (json_is_null(c->values)) {
			json_decref(c->values);
			c->values = json_object();
		}
		if (!json_is_object(c->values)) {
			rc = bh_error_set(err, BH_EINVAL, "cannot load values.yaml: not a mapping");
			goto done;
		}
	} else {
		c->values = json_object();
	}
done:
	archive_read_free(a);
	free(root);
	if (rc < 0)
		worker_chart_free(c);
	else
		*out = c;
	return rc;
}
