/* cli/template_deps_files.c — see template_deps_files.h. */
#include "cli/template_deps_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helm/chart.h"
#include "lib/gopath.h"

int deps_read_file(const char *path, size_t max, bh_buf *out, bh_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char chunk[65536], why[64];
	int e = errno;
	if (fd < 0)
		return bh_error_set(err, e == ENOENT ? BH_ENOTFOUND : BH_EIO, "open %s: %s", path,
				    gopath_errno_text(e, why, sizeof why));
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			e = errno;
			close(fd);
			return bh_error_set(err, BH_EIO, "read %s: %s", path, gopath_errno_text(e, why, sizeof why));
		}
		if (!got)
			break;
		if (out->len + (size_t)got > max) {
			close(fd);
			return bh_error_set(err, BH_ELIMIT, "%s is larger than %zu bytes", path, max);
		}
		bh_buf_put(out, chunk, (size_t)got);
	}
	close(fd);
	return bh_buf_ok(out) ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory reading %s", path);
}

int deps_write_file(const char *path, const void *data, size_t len, bh_error *err)
{
	bh_buf dir = BH_BUF_INIT;
	char why[64];
	size_t at;
	int rc = 0, e;
	gopath_dir_buf(&dir, path, strlen(path));
	if (!bh_buf_ok(&dir))
		rc = bh_error_set(err, BH_ENOMEM, "out of memory");
	else if ((e = gopath_mkdir_all(dir.data, 0755, &at)))
		rc = bh_error_set(err, BH_EIO, "mkdir %.*s: %s", (int)at, dir.data, gopath_errno_text(e, why, sizeof why));
	bh_buf_free(&dir);
	FILE *f = rc ? NULL : fopen(path, "we");
	if (!rc && !f)
		return bh_error_set(err, BH_EIO, "open %s: %s", path, gopath_errno_text(errno, why, sizeof why));
	if (f && len && fwrite(data, 1, len, f) != len)
		rc = bh_error_set(err, BH_EIO, "write %s: %s", path, gopath_errno_text(errno, why, sizeof why));
	if (f && fclose(f) && !rc)
		rc = bh_error_set(err, BH_EIO, "write %s: %s", path, gopath_errno_text(errno, why, sizeof why));
	return rc;
}

static int names_sorted(const char *dir, char ***out, size_t *n, bh_error *err)
{
	struct dirent **v = NULL;
	char why[64];
	int k = scandir(dir, &v, NULL, alphasort);
	if (k < 0)
		return bh_error_set(err, BH_EIO, "open %s: %s", dir, gopath_errno_text(errno, why, sizeof why));
	*out = calloc((size_t)k + 1, sizeof **out);
	*n = 0;
	for (int i = 0; i < k; i++) {
		if (*out && strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			(*out)[(*n)++] = strdup(v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return *out ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int is_regular(const char *dir, const char *name)
{
	char p[4096];
	struct stat sb;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode);
}

/* Go's os.Rename: 0, or the errno its LinkError holds (EEXIST for a
 * directory at to, before trying). */
static int go_rename(const char *from, const char *to)
{
	struct stat st, ost;
	if (!lstat(to, &st) && S_ISDIR(st.st_mode)) {
		if (lstat(from, &ost))
			return errno;
		if (!strcmp(from, to) || st.st_dev != ost.st_dev || st.st_ino != ost.st_ino)
			return EEXIST;
	}
	return rename(from, to) ? errno : 0;
}

/* fs.renameByCopy of a file, after a rename across devices (EXDEV): 0,
 * or -1 with helm's text in msg. The copy is Go's CopyFile: os.Open,
 * os.Create, the bytes, the source's mode; then the source goes. */
static int rename_by_copy(const char *from, const char *to, char *msg, size_t n)
{
	char why[64], buf[65536];
	const char *op = NULL, *path = NULL; /* the failing call, as Go's PathError names it */
	int in, out = -1, e = 0;
	ssize_t r;
	struct stat st;
	if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		e = errno, op = "open", path = from;
	else if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0)
		e = errno, op = "open", path = to;
	while (!e && (r = read(in, buf, sizeof buf)) != 0) {
		if (r < 0) {
			e = errno, op = "read", path = from;
			break;
		}
		for (ssize_t w = 0, k; !e && w < r; w += k)
			if ((k = write(out, buf + w, (size_t)(r - w))) < 0)
				e = errno, op = "write", path = to;
	}
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) && !e)
		e = errno, op = "close", path = to;
	if (!e && stat(from, &st))
		e = errno, op = "stat", path = from;
	if (!e && chmod(to, st.st_mode & 07777))
		e = errno, op = "chmod", path = to;
	if (e) {
		snprintf(msg, n, "rename fallback failed: cannot rename %s to %s: copying file failed: %s %s: %s", from, to,
			 op, path, gopath_errno_text(e, why, sizeof why));
		return -1;
	}
	if (unlink(from)) { /* os.RemoveAll's PathError */
		e = errno;
		snprintf(msg, n, "cannot delete %s: unlinkat %s: %s", from, from, gopath_errno_text(e, why, sizeof why));
		return -1;
	}
	return 0;
}

/* loader.LoadFile: the chart of an archive, or NULL with err set. */
static chart *load_file(const char *path, bh_error *err)
{
	chart *c = NULL;
	if (chart_load_path(path, NULL, &c, err) < 0)
		return NULL;
	return c;
}

int deps_move(const char *src, const char *dest, const char *const *local_names, size_t n, bh_error *err)
{
	char **sv = NULL, **dv = NULL;
	size_t ns = 0, nd = 0;
	int rc = names_sorted(src, &sv, &ns, err);
	if (rc == 0)
		rc = names_sorted(dest, &dv, &nd, err);
	for (size_t i = 0; rc == 0 && i < ns; i++) {
		char from[4096], to[4096];
		bh_error e2;
		if (!is_regular(src, sv[i]))
			continue;
		snprintf(from, sizeof from, "%s/%s", src, sv[i]);
		snprintf(to, sizeof to, "%s/%s", dest, sv[i]);
		chart *c = load_file(from, &e2);
		if (!c) {
			printf("Could not verify %s for moving: %s (Skipping)", from, e2.msg);
			continue;
		}
		chart_free(c);
		int e = go_rename(from, to);
		char why[64], msg[3 * 4096 + 256];
		if (e == EXDEV) { /* fs.RenameWithFallback: a copy across devices */
			if (rename_by_copy(from, to, msg, sizeof msg))
				printf("Unable to move %s to charts dir %s (Skipping)", from, msg);
		} else if (e) {
			printf("Unable to move %s to charts dir link error: cannot rename %s to %s: rename %s %s: %s "
			       "(Skipping)", from, from, to, from, to, gopath_errno_text(e, why, sizeof why));
		}
	}
	if (rc == 0)
		printf("Deleting outdated charts\n");
	for (size_t i = 0; rc == 0 && i < nd; i++) {
		char p[4096];
		bh_error e2;
		int in_src = 0;
		for (size_t j = 0; j < ns; j++)
			in_src |= !strcmp(sv[j], dv[i]);
		if (in_src || !is_regular(dest, dv[i]))
			continue;
		snprintf(p, sizeof p, "%s/%s", dest, dv[i]);
		chart *c = load_file(p, &e2);
		if (!c) {
			printf("Could not verify %s for deletion: %s (Skipping)\n", p, e2.msg);
			continue;
		}
		int local = 0;
		for (size_t j = 0; j < n; j++)
			local |= local_names[j] && *local_names[j] && !strcmp(local_names[j], chart_name(c));
		chart_free(c);
		char why[64];
		if (!local && unlink(p)) /* os.Remove's PathError */
			printf("Could not delete %s: remove %s: %s (Skipping)", p, p, gopath_errno_text(errno, why, sizeof why));
	}
	names_free(sv, ns);
	names_free(dv, nd);
	return rc;
}

void deps_remove_tree(const char *path)
{
	char **v = NULL;
	size_t n = 0;
	bh_error e;
	if (names_sorted(path, &v, &n, &e) == 0)
		for (size_t i = 0; i < n; i++) {
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", path, v[i]);
			if (unlink(p) && errno == EISDIR)
				deps_remove_tree(p);
		}
	names_free(v, n);
	rmdir(path);
}
