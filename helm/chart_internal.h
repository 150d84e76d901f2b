/* helm/chart_internal.h — shared between the chart loaders (chart.c,
 * chart_archive.c, chart_dir.c); not a public interface. */
#ifndef BH_CHART_INTERNAL_H
#define BH_CHART_INTERNAL_H

#include "helm/chart.h"

/* One load: limits and what nested archives have used so far. */
typedef struct chart_load_ctx {
	chart_limits lim;
	size_t total;  /* decompressed bytes so far (all archives) */
	size_t nfiles; /* files so far */
	size_t depth;  /* sub-chart nesting */
	chart_warn_fn warn; /* what Helm logs while it walks a directory; NULL: nothing */
	void *warn_ud;
} chart_load_ctx;

void chart_limits_fill(chart_limits *dst, const chart_limits *src);
int chart_file_copy(chart_file *dst, const char *name, const void *data, size_t len);
/* Puts f->data (malloc'd, owned by f) under a reference count, so that
 * charts loaded from f and their copies share it instead of copying; when
 * that fails f simply stays unshared. */
void chart_file_adopt(chart_file *f);
/* Puts f->data, which lies in map (a private file mapping of map_len
 * bytes of the file at path, owned by f from now on), under a reference
 * count as above, and records it for chart_mapped_path; the mapping is
 * unmapped with the last reference. BH_ENOMEM when out of memory, 1 when
 * every record is taken (read the file instead); both with map unmapped
 * and f->data NULL. */
int chart_file_adopt_map(chart_file *f, void *map, size_t map_len, const char *path);
/* Frees f's name and drops its data (freed with the last reference). */
void chart_file_release(chart_file *f);
int chart_metadata_validate(json_t *md, bh_error *err);
int chart_load_files_budget(const chart_file *files, size_t n, chart_load_ctx *ctx,
			    chart **out, bh_error *err);
/* Bytes among files that chart_load_files_budget will share rather than
 * copy: the values.schema.json of the chart and of each sub-chart it loads
 * from a directory under charts/ (the same rule as the loader's). */
size_t chart_files_shared_bytes(const chart_file *files, size_t n);
int chart_load_archive_budget(const void *buf, size_t len, chart_load_ctx *ctx,
			      chart **out, bh_error *err);

#endif
