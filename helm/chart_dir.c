/* helm/chart_dir.c — Helm's LoadDir (pkg/chart/v2/loader/directory.go) and
 * `.helmignore` rules (pkg/ignore/rules.go, quirks included): a lexical walk
 * of the chart directory that follows symbolic links as Helm's sympath.Walk
 * does (filepath.EvalSymlinks, an INFO line for each). Only the CLI loads
 * charts from directories: the controller's charts are archives. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helm/chart_internal.h"
#include "lib/buf.h"
#include "lib/gopath.h"
#include "lib/heap.h"
#include "lib/vec.h"

/* A template run's peak heap is at least HEAP_RUN_BASE bytes and 11/20
 * of its chart's (all files loaded, sub-charts included; mapped ones too),
 * less its values.schema.json files, which the chart shares instead of
 * copying (chart.h): in the corpus, with the copies, grafana 375 KiB for
 * 224 KiB of chart, vault 564 for 282, traefik 1161 for 1481,
 * cert-manager 941 for 1262 (the closest). */
#define HEAP_RUN_BASE ((size_t)200 << 10)

typedef struct ignore_rule {
	char *pat;
	int negate, must_dir, mode; /* mode 0: basename, 1: rooted, 2: full path */
	int form;                   /* how pat matches (enum below) */
	size_t lit;                 /* PAT_LITERAL: pat's length; PAT_STAR_TAIL: its tail's;
				     * PAT_FNMATCH: its literal prefix's */
} ignore_rule;

/* Most rules are a plain name or "*" then a plain tail (".git", "*.bak"),
 * which fnmatch would match byte by byte (FNM_PATHNAME: '*' stops at '/');
 * those are compared directly. */
enum { PAT_FNMATCH, PAT_LITERAL, PAT_STAR_TAIL };

static int pat_form(const char *pat, size_t *lit)
{
	if (!strpbrk(pat, "*?[\\")) {
		*lit = strlen(pat);
		return PAT_LITERAL;
	}
	if (pat[0] == '*' && !strpbrk(pat + 1, "*?[\\/")) {
		*lit = strlen(pat + 1);
		return PAT_STAR_TAIL;
	}
	*lit = strcspn(pat, "*?[\\");
	return PAT_FNMATCH;
}

typedef struct ignore_rules {
	ignore_rule *v;
	size_t n;
} ignore_rules;

static void rules_free(ignore_rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].pat);
	free(r->v);
}

static int rules_add(ignore_rules *r, const char *line, size_t len, bh_error *err)
{
	while (len && (line[0] == ' ' || line[0] == '\t' || line[0] == '\r')) {
		line++;
		len--;
	}
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	if (!len || line[0] == '#')
		return 0;
	char *rule = strndup(line, len);
	if (!rule)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (strstr(rule, "**")) {
		free(rule);
		return bh_error_set(err, BH_EINVAL, "double-star (**) syntax is not supported");
	}
	ignore_rule ir = {0};
	char *p = rule;
	if (*p == '!') {
		ir.negate = 1;
		p++;
	}
	size_t pl = strlen(p);
	if (pl && p[pl - 1] == '/') {
		ir.must_dir = 1;
		p[--pl] = 0;
	}
	if (*p == '/') {
		ir.mode = 1;
		p++;
	} else if (strchr(p, '/')) {
		ir.mode = 2;
	}
	ir.pat = strdup(p);
	free(rule);
	if (ir.pat)
		ir.form = pat_form(ir.pat, &ir.lit);
	ignore_rule *nv = realloc(r->v, (r->n + 1) * sizeof *nv);
	if (!ir.pat || !nv) {
		free(ir.pat);
		if (nv)
			r->v = nv;
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	r->v = nv;
	r->v[r->n++] = ir;
	return 0;
}

static int rules_parse(ignore_rules *r, const char *text, size_t len, bh_error *err)
{
	size_t i = 0;
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		i = 3;
	while (i < len) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		int rc = rules_add(r, text + i, e - i, err);
		if (rc)
			return rc;
		i = e + 1;
	}
	return 0;
}

/* A path to match, with its base name and their lengths found once for
 * all the rules (each rule's strrchr and strlen before). */
typedef struct rule_path {
	const char *full, *base;
	size_t full_len, base_len;
} rule_path;

static int rule_match(const ignore_rule *ir, const rule_path *p)
{
	const char *n = ir->mode == 0 ? p->base : p->full;
	size_t nl = ir->mode == 0 ? p->base_len : p->full_len;
	if (ir->form == PAT_LITERAL)
		return nl == ir->lit && !memcmp(ir->pat, n, nl);
	if (ir->form == PAT_STAR_TAIL)
		return nl >= ir->lit && (!ir->lit || n[nl - 1] == ir->pat[ir->lit]) &&
		       !memcmp(n + nl - ir->lit, ir->pat + 1, ir->lit) && !memchr(n, '/', nl - ir->lit);
	/* a name that differs from the literal prefix cannot match */
	return nl >= ir->lit && !memcmp(n, ir->pat, ir->lit) && fnmatch(ir->pat, n, FNM_PATHNAME) == 0;
}

/* Rules.Ignore, including Helm's treatment of negated rules. */
static int rules_ignore(const ignore_rules *r, const char *path, int is_dir)
{
	if (!*path || !strcmp(path, ".") || !strcmp(path, "./"))
		return 0;
	const char *slash = strrchr(path, '/');
	rule_path p = {path, slash ? slash + 1 : path, strlen(path), 0};
	p.base_len = p.full_len - (size_t)(p.base - path);
	for (size_t i = 0; i < r->n; i++) {
		const ignore_rule *ir = &r->v[i];
		if (ir->negate) {
			if (ir->must_dir && !is_dir)
				return 1;
			if (!rule_match(ir, &p))
				return 1;
			continue;
		}
		if (ir->must_dir && !is_dir)
			continue;
		if (rule_match(ir, &p))
			return 1;
	}
	return 0;
}

typedef struct walk {
	chart_load_ctx *ctx;
	ignore_rules rules;
	chart_file *files;
	size_t n, cap;
	bh_error *err;
	char *dents; /* getdents64's buffer (DENTS_SIZE), for every directory */
	/* the top .helmignore as read for its rules (ignore_ino: its inode),
	 * taken as the chart's file of that name when it is the same file */
	bh_buf ignore_text;
	struct stat ignore_st;
	int have_ignore;
	char *root;  /* filepath.Abs of the chart directory, as Helm names paths in its log */
} walk;

#define DENTS_SIZE 32768

/* Reads the open file fd (of size, by fstat) into out. A read that
 * returns the file's size, short of the buffer, is its end (a regular
 * file's read stops short only there): one read for the file. A file that
 * grows meanwhile still reads whole. path names it in errors. */
static int read_file(int fd, const char *path, size_t size, size_t max, bh_buf *out, bh_error *err)
{
	size_t want = size > 0 && size < max ? size + 1 : 65536;
	/* the file's size and room for the read that finds its end, not the
	 * next power of two (file_from_buf need not shrink it then) */
	if (!out->data && size > 0 && size < max) {
		if (!(out->data = malloc(size + 2)))
			return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
		out->data[0] = '\0';
		out->cap = size + 2;
	}
	for (;;) {
		if (out->cap - out->len < 2 && bh_buf_grow(out, out->len ? out->len : want) < 0)
			return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
		if (!out->data && bh_buf_grow(out, want) < 0)
			return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
		size_t room = out->cap - out->len - 1;
		ssize_t got = read(fd, out->data + out->len, room);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return bh_error_set(err, BH_EIO, "error reading %s: %s", path, strerror(errno));
		}
		if (!got)
			break;
		if (out->len + (size_t)got > max)
			return bh_error_set(err, BH_ELIMIT, "chart file \"%s\" is larger than the maximum file size %zu",
					    path, max);
		out->len += (size_t)got;
		out->data[out->len] = 0;
		if ((size_t)got < room && out->len == size)
			break;
	}
	if (!bh_buf_ok(out))
		return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
	return 0;
}

/* Opens name in the directory dfd for reading, never through a symbolic
 * link (nor blocking on a FIFO put there), and fstats it into st. */
static int open_at(int dfd, const char *name, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, st)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A read buffer with more spare room than this is shrunk to its text */
#define SPARE_MAX 64

/* f = the text read into data (taken from it), without a leading UTF-8
 * BOM, owned by f (shared under a reference count); *raw its size with
 * the BOM. */
static int file_from_buf(bh_buf *data, const char *path, chart_file *f, size_t *raw, bh_error *err)
{
	size_t bom = data->len >= 3 && !memcmp(data->data, "\xEF\xBB\xBF", 3) ? 3 : 0;
	size_t spare = data->data ? data->cap - data->len - 1 + bom : 0;
	*raw = data->len;
	f->len = data->len - bom;
	if (data->data && bom)
		memmove(data->data, data->data + bom, f->len + 1);
	/* the read buffer becomes the file's data, without the spare room */
	f->data = data->data ? (unsigned char *)bh_buf_detach(data) : calloc(1, 1);
	bh_buf_free(data);
	if (!f->data)
		return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
	if (spare > SPARE_MAX) {
		unsigned char *fit = realloc(f->data, f->len + 1);
		if (fit)
			f->data = fit;
	}
	chart_file_adopt(f);
	return 0;
}

/* Files from this size up are mapped, not read, when they do not end on a
 * page boundary (the zero tail of their last page is their terminating
 * NUL): pages no one reads, such as a template run's crds/, are then never
 * loaded, nor held on the heap for the run. */
#define MAP_MIN ((size_t)16 << 10)

/* f = the open regular file fd (fstat'ed as st) at path; see file_from_buf */
static int load_file(int fd, const char *path, const struct stat *st, size_t max, chart_file *f, size_t *raw,
		     bh_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char head[3];
	/* The BOM is looked for by pread: touching the mapping would fault its
	 * first pages in */
	if ((size_t)st->st_size >= MAP_MIN && (size_t)st->st_size <= max && st->st_size % page &&
	    pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head) {
		size_t len = (size_t)st->st_size;
		/* private and writable: a write stays this process's own */
		void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			size_t bom = !memcmp(head, "\xEF\xBB\xBF", 3) ? 3 : 0;
			f->data = (unsigned char *)map + bom;
			f->len = len - bom;
			*raw = len;
			int rc = chart_file_adopt_map(f, map, len, path);
			if (rc == BH_ENOMEM)
				return bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
			if (rc == 0)
				return 0;
		}
	}
	bh_buf data = BH_BUF_INIT;
	int rc = read_file(fd, path, (size_t)st->st_size, max, &data, err);
	if (rc) {
		bh_buf_free(&data);
		return rc;
	}
	return file_from_buf(&data, path, f, raw, err);
}

/* f (its data) becomes the walk's next file, named name */
static int files_add(walk *w, chart_file *f, const char *name)
{
	if (VEC_RESERVE(w->files, w->cap, w->n + 1, 64) < 0)
		return bh_error_set(w->err, BH_ENOMEM, "out of memory");
	if (!(f->name = strdup(name)))
		return bh_error_set(w->err, BH_ENOMEM, "out of memory");
	w->files[w->n++] = *f;
	return 0;
}

typedef struct dir_entry {
	char *name;
	ino_t ino;
	unsigned char type; /* d_type: DT_UNKNOWN when the file system does not say */
} dir_entry;

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const dir_entry *)a)->name, ((const dir_entry *)b)->name);
}

static void dir_list_free(dir_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* The entries of the directory dfd but . and .., sorted by name, with
 * their types as getdents gives them (no stat of each). */
static int dir_list(walk *w, int dfd, const char *abs, dir_entry **out, size_t *nout)
{
	dir_entry *v = NULL;
	size_t n = 0, cap = 0;
	ssize_t got;
	*out = NULL;
	*nout = 0;
	if (!w->dents && !(w->dents = malloc(DENTS_SIZE)))
		return bh_error_set(w->err, BH_ENOMEM, "out of memory");
	while ((got = getdents64(dfd, w->dents, DENTS_SIZE)) > 0) {
		for (ssize_t off = 0; off < got;) {
			struct dirent64 *de = (struct dirent64 *)(w->dents + off);
			off += de->d_reclen;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (VEC_RESERVE(v, cap, n + 1, 32) < 0)
				goto oom;
			if (!(v[n].name = strdup(de->d_name)))
				goto oom;
			v[n].ino = de->d_ino;
			v[n++].type = de->d_type;
		}
	}
	if (got < 0) {
		int e = errno;
		dir_list_free(v, n);
		return bh_error_set(w->err, BH_EIO, "cannot read directory %s: %s", abs, strerror(e));
	}
	if (n) /* an empty directory: v is NULL */
		qsort(v, n, sizeof *v, entry_cmp);
	*out = v;
	*nout = n;
	return 0;
oom:
	dir_list_free(v, n);
	return bh_error_set(w->err, BH_ENOMEM, "out of memory");
}
/* The regular file name in dfd (opened as fd, fstat'ed as st; fd -1:
 * the top .helmignore, read already), at rel in the chart and abs on disk,
 * becomes the walk's next file. */
static int walk_file(walk *w, int fd, const struct stat *st, const char *abs, const char *rel, const char *name)
{
	chart_file f = {0};
	size_t raw = 0;
	int rc;
	if ((size_t)st->st_size > w->ctx->lim.max_file)
		return bh_error_set(w->err, BH_ELIMIT, "chart file \"%s\" is larger than the maximum file size %zu",
				    name, w->ctx->lim.max_file);
	if (++w->ctx->nfiles > w->ctx->lim.max_files)
		return bh_error_set(w->err, BH_ELIMIT, "chart has more than %zu files (at \"%s\")",
				    w->ctx->lim.max_files, rel);
	if (fd < 0) {
		w->have_ignore = 0;
		rc = file_from_buf(&w->ignore_text, abs, &f, &raw, w->err);
	} else {
		rc = load_file(fd, abs, st, w->ctx->lim.max_file, &f, &raw, w->err);
	}
	if (!rc && raw > w->ctx->lim.max_total - w->ctx->total)
		rc = bh_error_set(w->err, BH_ELIMIT, "chart is larger than the maximum size %zu", w->ctx->lim.max_total);
	if (!rc) {
		w->ctx->total += raw;
		rc = files_add(w, &f, rel);
	}
	if (rc)
		chart_file_release(&f);
	return rc;
}

/* b = its first base bytes (a directory's path and its '/'), then name */
static void path_at(bh_buf *b, size_t base, const char *name)
{
	if (b->data && !b->oom) {
		b->len = base;
		b->data[base] = '\0';
	}
	bh_buf_puts(b, name);
}

/* Go's filepath.EvalSymlinks (walkSymlinks) of the absolute path p: 0 and
 * *out (new, cleaned), BH_ENOMEM, or -1 with why holding Go's error text. */
static int eval_symlinks(const char *p, char **out, char *why, size_t nwhy)
{
	bh_buf path = BH_BUF_INIT, dest = BH_BUF_INIT, next = BH_BUF_INIT;
	char link[PATH_MAX + 1], e[128];
	int links = 0, rc = -1;
	size_t start, end, vol = 1; /* p is absolute: the volume is its '/' */
	*out = NULL;
	bh_buf_puts(&path, p);
	bh_buf_putc(&dest, '/');
	for (start = end = vol;; start = end) {
		if (!bh_buf_ok(&path) || !bh_buf_ok(&dest)) {
			rc = BH_ENOMEM;
			goto done;
		}
		const char *s = path.data;
		while (start < path.len && s[start] == '/')
			start++;
		for (end = start; end < path.len && s[end] != '/';)
			end++;
		size_t l = end - start;
		if (!l)
			break;
		if (l == 1 && s[start] == '.')
			continue;
		if (l == 2 && s[start] == '.' && s[start + 1] == '.') {
			size_t r = dest.len; /* r - 1: the last '/' after the volume */
			while (r > vol && dest.data[r - 1] != '/')
				r--;
			if (r <= vol || !strcmp(dest.data + r, "..")) {
				if (dest.len > vol)
					bh_buf_putc(&dest, '/');
				bh_buf_puts(&dest, "..");
			} else {
				dest.len = r - 1;
				dest.data[dest.len] = '\0';
			}
			continue;
		}
		if (dest.len > 0 && dest.data[dest.len - 1] != '/')
			bh_buf_putc(&dest, '/');
		bh_buf_put(&dest, s + start, l);
		if (!bh_buf_ok(&dest)) {
			rc = BH_ENOMEM;
			goto done;
		}
		struct stat st;
		if (lstat(dest.data, &st)) {
			gopath_errno_text(errno, e, sizeof e);
			snprintf(why, nwhy, "lstat %s: %s", dest.data, e);
			goto done;
		}
		if (!S_ISLNK(st.st_mode)) {
			if (!S_ISDIR(st.st_mode) && end < path.len) {
				gopath_errno_text(ENOTDIR, why, nwhy);
				goto done;
			}
			continue;
		}
		if (++links > 255) {
			snprintf(why, nwhy, "EvalSymlinks: too many links");
			goto done;
		}
		ssize_t k = readlink(dest.data, link, sizeof link - 1);
		if (k < 0) {
			gopath_errno_text(errno, e, sizeof e);
			snprintf(why, nwhy, "readlink %s: %s", dest.data, e);
			goto done;
		}
		link[k] = '\0';
		bh_buf_reset(&next); /* path = link + path[end:] */
		bh_buf_put(&next, link, (size_t)k);
		bh_buf_put(&next, s + end, path.len - end);
		bh_buf tmp = path;
		path = next;
		next = tmp;
		if (k > 0 && link[0] == '/') { /* to an absolute path: from the root again */
			bh_buf_reset(&dest);
			bh_buf_putc(&dest, '/');
			end = 1;
		} else { /* relative: replaces dest's last component */
			size_t r = dest.len;
			while (r > vol && dest.data[r - 1] != '/')
				r--;
			dest.len = r <= vol ? vol : r - 1;
			dest.data[dest.len] = '\0';
			end = 0;
		}
	}
	*out = gopath_clean_dup(dest.data, NULL);
	rc = *out ? 0 : BH_ENOMEM;
done:
	bh_buf_free(&path);
	bh_buf_free(&dest);
	bh_buf_free(&next);
	return rc;
}

static int walk_dir(walk *w, int dfd, const char *abs, const char *rel, size_t depth);

/* The symbolic link at rel (abs on disk), in a directory at depth, as
 * Helm's symwalk takes it: resolved (EvalSymlinks), logged, then walked as
 * what it resolves to, under the link's own name. */
static int walk_link(walk *w, const char *abs, const char *rel, size_t depth)
{
	bh_buf full = BH_BUF_INIT;
	char why[PATH_MAX + 64], *res = NULL;
	struct stat st;
	int rc, fd = -1;
	bh_buf_printf(&full, "%s%s%s", w->root, strcmp(w->root, "/") ? "/" : "", rel);
	if (!bh_buf_ok(&full)) {
		rc = bh_error_set(w->err, BH_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = eval_symlinks(full.data, &res, why, sizeof why)) < 0) {
		rc = rc == BH_ENOMEM ? bh_error_set(w->err, BH_ENOMEM, "out of memory")
				     : bh_error_set(w->err, BH_EIO, "error evaluating symlink %s: %s", full.data, why);
		goto out;
	}
	if (w->ctx->warn) {
		const char *attrs[] = {"path", full.data, "resolved", res, NULL};
		w->ctx->warn(w->ctx->warn_ud, "INFO", "found symbolic link in path. Contents of linked file included and used",
			     attrs);
	}
	if (lstat(res, &st)) {
		gopath_errno_text(errno, why, sizeof why);
		rc = bh_error_set(w->err, BH_EIO, "lstat %s: %s", res, why);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		if (rules_ignore(&w->rules, rel, 1))
			goto out;
		if (depth + 1 > w->ctx->lim.max_path_depth) {
			rc = bh_error_set(w->err, BH_ELIMIT, "chart directory \"%s\" is nested deeper than %zu directories",
					  rel, w->ctx->lim.max_path_depth);
			goto out;
		}
		if ((fd = open(res, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			rc = bh_error_set(w->err, BH_EIO, "cannot read directory %s: %s", abs, strerror(errno));
			goto out;
		}
		rc = walk_dir(w, fd, abs, rel, depth + 1);
		fd = -1;
		goto out;
	}
	if (rules_ignore(&w->rules, rel, 0))
		goto out;
	if (!S_ISREG(st.st_mode)) {
		rc = bh_error_set(w->err, BH_EDENIED, "cannot load irregular file %s as it has file mode type bits set",
				  full.data);
		goto out;
	}
	if ((fd = open(res, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &st) ||
	    !S_ISREG(st.st_mode)) {
		rc = bh_error_set(w->err, BH_EIO, "error reading %s: %s", rel, fd < 0 ? strerror(errno) : "changed while read");
		goto out;
	}
	const char *base = strrchr(res, '/'); /* Go's fi.Name(): the resolved file's */
	rc = walk_file(w, fd, &st, abs, rel, base ? base + 1 : res);
out:
	if (fd >= 0)
		close(fd);
	free(res);
	bh_buf_free(&full);
	return rc;
}

/* Walks the directory dfd (closed here), at rel in the chart and abs on
 * disk, in name order. Each entry is opened relative to dfd, without
 * following a symbolic link; its type is getdents', checked by fstat of
 * what was opened (a stat by name only where getdents does not say). */
static int walk_dir(walk *w, int dfd, const char *abs, const char *rel, size_t depth)
{
	dir_entry *names = NULL;
	size_t nn = 0;
	int rc = dir_list(w, dfd, abs, &names, &nn);
	/* the entries' paths: the directory's, then each name in turn (one
	 * buffer each for the directory, not two grown per entry) */
	bh_buf ap = BH_BUF_INIT, rp = BH_BUF_INIT;
	bh_buf_puts(&ap, abs);
	bh_buf_putc(&ap, '/');
	if (*rel) {
		bh_buf_puts(&rp, rel);
		bh_buf_putc(&rp, '/');
	}
	size_t abase = ap.len, rbase = rp.len;
	for (size_t i = 0; i < nn && !rc; i++) {
		struct stat st;
		int type = names[i].type, fd = -1;
		path_at(&ap, abase, names[i].name);
		path_at(&rp, rbase, names[i].name);
		if (!bh_buf_ok(&ap) || !bh_buf_ok(&rp)) {
			rc = bh_error_set(w->err, BH_ENOMEM, "out of memory");
			goto next;
		}
		if (type == DT_UNKNOWN) {
			if (fstatat(dfd, names[i].name, &st, AT_SYMLINK_NOFOLLOW)) {
				rc = bh_error_set(w->err, BH_EIO, "cannot stat %s: %s", ap.data, strerror(errno));
				goto next;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : S_ISREG(st.st_mode) ? DT_REG : DT_FIFO;
		}
		if (type == DT_LNK) {
			rc = walk_link(w, ap.data, rp.data, depth);
			goto next;
		}
		if (type == DT_DIR) {
			if (rules_ignore(&w->rules, rp.data, 1))
				goto next;
			if (depth + 1 > w->ctx->lim.max_path_depth) {
				rc = bh_error_set(w->err, BH_ELIMIT, "chart directory \"%s\" is nested deeper than %zu directories",
						  rp.data, w->ctx->lim.max_path_depth);
				goto next;
			}
			fd = openat(dfd, names[i].name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				rc = bh_error_set(w->err, BH_EIO, "cannot read directory %s: %s", ap.data, strerror(errno));
			else
				rc = walk_dir(w, fd, ap.data, rp.data, depth + 1);
			fd = -1;
			goto next;
		}
		if (rules_ignore(&w->rules, rp.data, 0))
			goto next;
		if (type == DT_REG && depth == 0 && w->have_ignore && names[i].ino == w->ignore_st.st_ino &&
		    !strcmp(names[i].name, ".helmignore")) {
			/* the file ignore_read read for its rules */
			rc = walk_file(w, -1, &w->ignore_st, ap.data, rp.data, names[i].name);
			goto next;
		}
		if (type == DT_REG && (fd = open_at(dfd, names[i].name, &st)) < 0) {
			if (errno == ELOOP) /* it became a link since */
				rc = bh_error_set(w->err, BH_EIO, "chart file \"%s\" became a symbolic link while it was read", rp.data);
			else
				rc = bh_error_set(w->err, BH_EIO, "error reading %s: %s", ap.data, strerror(errno));
			goto next;
		}
		if (type != DT_REG || !S_ISREG(st.st_mode)) {
			rc = bh_error_set(w->err, BH_EDENIED,
					  "cannot load irregular file %s as it has file mode type bits set", ap.data);
			goto next;
		}
		rc = walk_file(w, fd, &st, ap.data, rp.data, names[i].name);
	next:
		if (fd >= 0)
			close(fd);
	}
	bh_buf_free(&ap);
	bh_buf_free(&rp);
	dir_list_free(names, nn);
	close(dfd);
	return rc;
}

static void files_free(chart_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		chart_file_release(&files[i]);
	free(files);
}

/* The top .helmignore's rules, when there is one; its text is kept in w
 * for the walk (walk_file). */
static int ignore_read(walk *w, int dfd, const char *path)
{
	struct stat st;
	int rc, fd = open_at(dfd, ".helmignore", &st);
	bh_buf ip = BH_BUF_INIT;
	if (fd < 0 && errno == ELOOP) { /* a symbolic link: Helm's os.Stat follows it */
		fd = openat(dfd, ".helmignore", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
		return 0;
	bh_buf_printf(&ip, "%s/.helmignore", path);
	if (!bh_buf_ok(&ip))
		rc = bh_error_set(w->err, BH_ENOMEM, "out of memory");
	else if (fd < 0)
		rc = bh_error_set(w->err, BH_EIO, "error reading %s: %s", ip.data, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = bh_error_set(w->err, BH_EDENIED, "%s is not a regular file (refused)", ip.data);
	else
		rc = read_file(fd, ip.data, (size_t)st.st_size, w->ctx->lim.max_file, &w->ignore_text, w->err);
	if (!rc)
		rc = rules_parse(&w->rules, w->ignore_text.data ? w->ignore_text.data : "", w->ignore_text.len, w->err);
	if (!rc) {
		w->ignore_st = st;
		w->have_ignore = 1;
	}
	if (fd >= 0)
		close(fd);
	bh_buf_free(&ip);
	return rc;
}

/* The files of the chart directory dfd (closed here) at path. */
static int dir_read(int dfd, const char *path, chart_load_ctx *ctx, chart_file **files, size_t *n, bh_error *err)
{
	walk w;
	int rc;
	memset(&w, 0, sizeof w);
	w.ctx = ctx;
	w.err = err;
	*files = NULL;
	*n = 0;
	if (!(w.root = gopath_abs_dup(path))) {
		close(dfd);
		return bh_error_set(err, BH_EIO, "cannot make %s absolute: %s", path, strerror(errno));
	}
	rc = ignore_read(&w, dfd, path);
	if (!rc)
		rc = rules_add(&w.rules, "templates/.?*", 13, err);
	if (!rc)
		rc = walk_dir(&w, dfd, path, "", 0);
	else
		close(dfd);
	rules_free(&w.rules);
	bh_buf_free(&w.ignore_text);
	free(w.dents);
	free(w.root);
	if (rc) {
		files_free(w.files, w.n);
		return rc;
	}
	*files = w.files;
	*n = w.n;
	return 0;
}

static int dir_open(const char *path, bh_error *err)
{
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return bh_error_set(err, BH_EIO, "cannot read directory %s: %s", path, strerror(errno));
	return dfd;
}

int chart_dir_read_files(const char *path, const chart_limits *lim, chart_file **files, size_t *n, bh_error *err)
{
	chart_load_ctx ctx;
	int dfd = dir_open(path, err);
	*files = NULL;
	*n = 0;
	if (dfd < 0)
		return dfd;
	memset(&ctx, 0, sizeof ctx);
	chart_limits_fill(&ctx.lim, lim);
	return dir_read(dfd, path, &ctx, files, n, err);
}

void chart_files_free(chart_file *files, size_t n)
{
	files_free(files, n);
}

/* The chart in the directory dfd (closed here) at path. */
static int load_dir_fd(int dfd, const char *path, const chart_limits *lim, chart_warn_fn warn, void *ud,
		       chart **out, bh_error *err)
{
	chart_load_ctx ctx;
	chart_file *files;
	size_t n;
	memset(&ctx, 0, sizeof ctx);
	chart_limits_fill(&ctx.lim, lim);
	ctx.warn = warn;
	ctx.warn_ud = ud;
	int rc = dir_read(dfd, path, &ctx, &files, &n, err);
	if (!rc) {
		/* the run's heap: populated now (lib/heap.h), not faulted page
		 * by page */
		size_t run = HEAP_RUN_BASE + ctx.total / 20 * 11, shared = chart_files_shared_bytes(files, n);
		heap_expect(run > shared ? run - shared : 0); /* a chart of mostly schema: no wrap */
		rc = chart_load_files_budget(files, n, &ctx, out, err);
		files_free(files, n);
	}
	return rc;
}

int chart_load_dir_log(const char *path, const chart_limits *lim, chart_warn_fn warn, void *ud,
		       chart **out, bh_error *err)
{
	int dfd = dir_open(path, err);
	return dfd < 0 ? dfd : load_dir_fd(dfd, path, lim, warn, ud, out, err);
}

int chart_load_dir(const char *path, const chart_limits *lim, chart **out, bh_error *err)
{
	return chart_load_dir_log(path, lim, NULL, NULL, out, err);
}

int chart_load_path(const char *path, const chart_limits *lim, chart **out, bh_error *err)
{
	return chart_load_path_log(path, lim, NULL, NULL, out, err);
}

int chart_load_path_log(const char *path, const chart_limits *lim, chart_warn_fn warn, void *ud,
			chart **out, bh_error *err)
{
	struct stat st;
	/* opened once, a directory or an archive */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (stat(path, &st))
			return bh_error_set(err, BH_ENOTFOUND, "path \"%s\" not found", path);
		if (S_ISDIR(st.st_mode))
			return chart_load_dir_log(path, lim, warn, ud, out, err);
		return bh_error_set(err, BH_EIO, "file '%s' cannot be read: %s", path, strerror(e));
	}
	if (S_ISDIR(st.st_mode))
		return load_dir_fd(fd, path, lim, warn, ud, out, err);
	unsigned char head[512] = {0};
	ssize_t got = read(fd, head, sizeof head);
	if (got < 3 || head[0] != 0x1f || head[1] != 0x8b || head[2] != 0x08) {
		size_t pl = strlen(path);
		close(fd);
		if ((pl > 4 && !strcmp(path + pl - 4, ".yml")) || (pl > 5 && !strcmp(path + pl - 5, ".yaml")))
			return bh_error_set(err, BH_EINVAL, "file '%s' seems to be a YAML file, but expected a gzipped archive", path);
		/* a small part of Go's http.DetectContentType */
		const char *type = "text/plain; charset=utf-8";
		if (got >= 4 && !memcmp(head, "PK\x03\x04", 4))
			type = "application/zip";
		else if (got >= 5 && !memcmp(head, "%PDF-", 5))
			type = "application/pdf";
		else
			for (size_t i = 0; i < sizeof head; i++) /* Go sniffs the zero-padded 512 bytes */
				if (!head[i] || (head[i] < 0x20 && !strchr("\t\n\f\r\x1b", head[i]))) {
					type = "application/octet-stream";
					break;
				}
		return bh_error_set(err, BH_EINVAL, "file '%s' does not appear to be a gzipped archive; got '%s'", path, type);
	}
	lseek(fd, 0, SEEK_SET);
	int rc = chart_load_fd(fd, lim, out, err);
	close(fd);
	return rc;
}
