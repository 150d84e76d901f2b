/* helm/chart_archive.c — Helm's LoadArchiveFiles (pkg/chart/loader/archive)
 * with libarchive, from memory: path checks, links refused, every byte
 * counted (the tar header's size is not trusted). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helm/chart_internal.h"
#include "helm/targz.h"
#include "lib/buf.h"
#include "lib/gopath.h"
#include "lib/vec.h"

typedef struct file_list {
	chart_file *v;
	size_t n, cap;
} file_list;

static void list_free(file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		chart_file_release(&l->v[i]);
	free(l->v);
}

/* A ".." component, with either separator. */
static int has_dotdot(const char *p)
{
	for (;;) {
		size_t l = strcspn(p, "/\\");
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (!p[l])
			return 0;
		p += l + 1;
	}
}

/* Helm keeps the last of several entries with one name (later files
 * overwrite earlier ones in its maps); so does this: each file once. */
static chart_file *slot_for(file_list *l, json_t *index, const char *name, int *fresh)
{
	json_t *at = json_object_get(index, name);
	if (at) {
		chart_file *f = &l->v[json_integer_value(at)];
		chart_file_release(f);
		*fresh = 0;
		return f;
	}
	if (VEC_RESERVE(l->v, l->cap, l->n + 1, 64) < 0)
		return NULL;
	if (json_object_set_new(index, name, json_integer((json_int_t)l->n)) < 0)
		return NULL;
	*fresh = 1;
	return &l->v[l->n];
}

static int entry_error(bh_error *err, int code, const char *what, const char *entry)
{
	return bh_error_set(err, code, "%s: entry \"%s\"", what, entry);
}

int chart_load_archive_budget(const void *buf, size_t len, chart_load_ctx *ctx,
			      chart **out, bh_error *err)
{
	targz *a;
	targz_entry e;
	file_list fl = {0};
	json_t *index = NULL; /* file name -> its position in fl */
	int rc = 0;
	const unsigned char *u = buf;

	if (len > ctx->lim.max_archive)
		return bh_error_set(err, BH_ELIMIT, "chart archive is larger than the maximum size %zu", ctx->lim.max_archive);
	if (len < 3 || u[0] != 0x1f || u[1] != 0x8b || u[2] != 0x08)
		return bh_error_set(err, BH_EINVAL, "chart archive does not appear to be a gzipped archive");
	/* every byte inflated counts, headers and skipped data too */
	a = targz_new(buf, len,
		      2 * (uint64_t)(ctx->lim.max_total - ctx->total) + 2048 * (uint64_t)ctx->lim.max_files +
			      ((uint64_t)1 << 20),
		      err);
	if (!a) {
		bh_error_prefix(err, "cannot read chart archive");
		return err ? err->code : BH_EINVAL;
	}
	index = json_object();
	if (!index) {
		targz_free(a);
		return bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
	}
	for (;;) {
		int r = targz_next(a, &e, err);
		if (r == 0)
			break;
		if (r < 0) {
			rc = r;
			if (r == BH_ELIMIT)
				rc = bh_error_set(err, BH_ELIMIT, "decompressed chart is larger than the maximum size %zu",
						  ctx->lim.max_total);
			else
				bh_error_prefix(err, "cannot read chart archive");
			goto done;
		}
		const char *raw = e.name;
		if (e.type == TARGZ_DIR || e.type == TARGZ_GLOBAL)
			continue;
		if (e.type == TARGZ_HARDLINK) {
			rc = entry_error(err, BH_EDENIED, "chart archive contains a hard link (refused)", raw);
			goto done;
		}
		if (e.type == TARGZ_SYMLINK) {
			rc = entry_error(err, BH_EDENIED, "chart archive contains a symbolic link (refused)", raw);
			goto done;
		}
		if (e.type != TARGZ_REG) {
			rc = entry_error(err, BH_EDENIED, "chart archive contains an irregular file (refused)", raw);
			goto done;
		}
		/* Stricter than Helm, whose loader takes "/c/x" as "c/x" and
		 * "c/t/../t/x" as "c/t/x": no tool that packages charts writes
		 * either, so an absolute name or a ".." anywhere is refused. */
		if (raw[0] == '/' || raw[0] == '\\') {
			rc = entry_error(err, BH_EDENIED, "chart illegally contains absolute paths", raw);
			goto done;
		}
		if (has_dotdot(raw)) {
			rc = entry_error(err, BH_EDENIED, "chart illegally references parent directory", raw);
			goto done;
		}
		/* strip the first component; normalise '\' to '/' */
		char delim = strchr(raw, '\\') ? '\\' : '/';
		const char *first_end = strchr(raw, delim);
		size_t first_len = first_end ? (size_t)(first_end - raw) : strlen(raw);
		char *n = strdup(first_end ? first_end + 1 : "");
		if (!n) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
			goto done;
		}
		for (char *q = n; *q; q++)
			if (*q == delim)
				*q = '/';
		if (n[0] == '/') {
			free(n);
			rc = entry_error(err, BH_EDENIED, "chart illegally contains absolute paths", raw);
			goto done;
		}
		size_t comps = 0;
		char *clean = gopath_clean_dup(n, &comps);
		free(n);
		if (!clean) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
			goto done;
		}
		if (!strcmp(clean, ".")) {
			free(clean);
			rc = bh_error_set(err, BH_EDENIED,
					  "chart illegally contains content outside the base directory: \"%s\"", raw);
			goto done;
		}
		if (!strncmp(clean, "..", 2)) {
			free(clean);
			rc = entry_error(err, BH_EDENIED, "chart illegally references parent directory", raw);
			goto done;
		}
		if (((clean[0] >= 'a' && clean[0] <= 'z') || (clean[0] >= 'A' && clean[0] <= 'Z')) &&
		    clean[1] == ':' && clean[2] == '/') {
			free(clean);
			rc = entry_error(err, BH_EDENIED, "chart contains illegally named files", raw);
			goto done;
		}
		if (first_len == 10 && !strncmp(raw, "Chart.yaml", 10)) {
			free(clean);
			rc = bh_error_set(err, BH_EINVAL, "chart yaml not in base directory");
			goto done;
		}
		if (comps > ctx->lim.max_path_depth) {
			free(clean);
			rc = bh_error_set(err, BH_ELIMIT, "chart archive entry \"%s\" is nested deeper than %zu directories",
					  raw, ctx->lim.max_path_depth);
			goto done;
		}
		if (++ctx->nfiles > ctx->lim.max_files) {
			free(clean);
			rc = bh_error_set(err, BH_ELIMIT, "chart archive has more than %zu files (at entry \"%s\")",
					  ctx->lim.max_files, raw);
			goto done;
		}
		uint64_t hsize = e.size;
		size_t remaining = ctx->lim.max_total - ctx->total;
		if (hsize > 0 && (uint64_t)hsize > remaining) {
			free(clean);
			rc = bh_error_set(err, BH_ELIMIT, "decompressed chart is larger than the maximum size %zu",
					  ctx->lim.max_total);
			goto done;
		}
		if (hsize > 0 && (uint64_t)hsize > ctx->lim.max_file) {
			rc = bh_error_set(err, BH_ELIMIT, "chart file \"%s\" is larger than the maximum file size %zu",
					  clean, ctx->lim.max_file);
			free(clean);
			goto done;
		}
		bh_buf data = BH_BUF_INIT;
		char chunk[65536];
		for (;;) {
			long got = targz_read(a, chunk, sizeof chunk, err);
			if (got == 0)
				break;
			if (got < 0) {
				rc = (int)got;
				if (rc == BH_ELIMIT)
					rc = bh_error_set(err, BH_ELIMIT,
							  "decompressed chart is larger than the maximum size %zu",
							  ctx->lim.max_total);
				else
					bh_error_prefix(err, "cannot read chart archive entry \"%s\"", raw);
				break;
			}
			if ((size_t)got > remaining - data.len || data.len + (size_t)got > ctx->lim.max_total) {
				rc = bh_error_set(err, BH_ELIMIT, "decompressed chart is larger than the maximum size %zu",
						  ctx->lim.max_total);
				break;
			}
			if (data.len + (size_t)got > ctx->lim.max_file) {
				rc = bh_error_set(err, BH_ELIMIT,
						  "chart file \"%s\" is larger than the maximum file size %zu", clean,
						  ctx->lim.max_file);
				break;
			}
			bh_buf_put(&data, chunk, (size_t)got);
			if (!bh_buf_ok(&data)) {
				rc = bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
				break;
			}
		}
		if (rc) {
			bh_buf_free(&data);
			free(clean);
			goto done;
		}
		ctx->total += data.len;
		int fresh = 0;
		chart_file *slot = slot_for(&fl, index, clean, &fresh);
		if (!slot) {
			bh_buf_free(&data);
			free(clean);
			rc = bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
			goto done;
		}
		const char *d = data.data ? data.data : "";
		size_t dl = data.len;
		if (dl >= 3 && (unsigned char)d[0] == 0xEF && (unsigned char)d[1] == 0xBB && (unsigned char)d[2] == 0xBF) {
			d += 3;
			dl -= 3;
		}
		/* the inflated buffer becomes the file's data, shared by the chart */
		if (data.data && d != data.data) {
			memmove(data.data, d, dl);
			data.data[dl] = 0;
			data.len = dl;
		}
		slot->name = clean;
		slot->len = dl;
		slot->blob = NULL;
		slot->data = data.data ? (unsigned char *)bh_buf_detach(&data) : calloc(1, 1);
		if (slot->data) { /* give back the buffer's spare room */
			unsigned char *fit = realloc(slot->data, dl + 1);
			if (fit)
				slot->data = fit;
		}
		rc = slot->data ? 0 : BH_ENOMEM;
		if (rc)
			chart_file_release(slot);
		else
			chart_file_adopt(slot);
		bh_buf_free(&data);
		if (rc) {
			rc = bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
			goto done;
		}
		fl.n += (size_t)fresh;
	}
	if (fl.n == 0) {
		rc = bh_error_set(err, BH_EINVAL, "no files in chart archive");
		goto done;
	}
	targz_free(a);
	a = NULL;
	rc = chart_load_files_budget(fl.v, fl.n, ctx, out, err);
done:
	targz_free(a);
	json_decref(index);
	list_free(&fl);
	return rc;
}

int chart_load_archive(const void *buf, size_t len, const chart_limits *lim,
		       chart **out, bh_error *err)
{
	chart_load_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	chart_limits_fill(&ctx.lim, lim);
	return chart_load_archive_budget(buf, len, &ctx, out, err);
}

int chart_load_fd(int fd, const chart_limits *lim, chart **out, bh_error *err)
{
	chart_limits l;
	bh_buf b = BH_BUF_INIT;
	char chunk[65536];
	chart_limits_fill(&l, lim);
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof chunk);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			bh_buf_free(&b);
			return bh_error_set(err, BH_EIO, "cannot read chart archive: %s", strerror(errno));
		}
		if (got == 0)
			break;
		if (b.len + (size_t)got > l.max_archive) {
			bh_buf_free(&b);
			return bh_error_set(err, BH_ELIMIT, "chart archive is larger than the maximum size %zu",
					    l.max_archive);
		}
		bh_buf_put(&b, chunk, (size_t)got);
		if (!bh_buf_ok(&b)) {
			bh_buf_free(&b);
			return bh_error_set(err, BH_ENOMEM, "out of memory reading chart archive");
		}
	}
	int rc = chart_load_archive(b.data ? b.data : "", b.len, &l, out, err);
	bh_buf_free(&b);
	return rc;
}
