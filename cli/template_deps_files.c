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

int deps_read_file(const char *path, size_t max, bh_buf *out, bh_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char chunk[65536];
	if (fd < 0)
		return bh_error_set(err, errno == ENOENT ? BH_ENOTFOUND : BH_EIO, "open %s: %s", path,
				    errno == ENOENT ? "no such file or directory" : strerror(errno));
	for (;;) {
		ssize_t got = read(fd, chunk, sizeof chunk);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			close(fd);
			return bh_error_set(err, BH_EIO, "read %s: %s", path, strerror(e));
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

static int mkdir_all(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int bad = mkdir(path, 0755) && errno != EEXIST;
		*p = '/';
		if (bad)
			return -1;
	}
	return 0;
}

int deps_write_file(const char *path, const void *data, size_t len, bh_error *err)
{
	char *dir = strdup(path);
	int rc = 0;
	if (!dir)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (mkdir_all(dir))
		rc = bh_error_set(err, BH_EIO, "mkdir %s: %s", path, strerror(errno));
	free(dir);
	FILE *f = rc ? NULL : fopen(path, "we");
	if (!rc && !f)
		return bh_error_set(err, BH_EIO, "open %s: %s", path, strerror(errno));
	if (f && len && fwrite(data, 1, len, f) != len)
		rc = bh_error_set(err, BH_EIO, "write %s: %s", path, strerror(errno));
	if (f && fclose(f) && !rc)
		rc = bh_error_set(err, BH_EIO, "write %s: %s", path, strerror(errno));
	return rc;
}

void deps_clean_path(bh_buf *b)
{
	char *s = b->data;
	if (!s || !*s)
		return;
	int rooted = s[0] == '/';
	char *out = s, *p = s;
	size_t w = 0, floor = rooted ? 1 : 0;
	if (rooted)
		w = 1;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (w > floor && !(w - floor >= 2 && !strncmp(out + w - 2, "..", 2) &&
					   (w - 2 == floor || out[w - 3] == '/'))) {
				while (w > floor && out[w - 1] != '/')
					w--;
				if (w > floor)
					w--;
			} else if (!rooted) {
				if (w > floor)
					out[w++] = '/';
				memmove(out + w, "..", 2);
				w += 2;
			}
		} else {
			if (w > floor)
				out[w++] = '/';
			memmove(out + w, p, n);
			w += n;
		}
		p += n;
	}
	if (!w)
		out[w++] = '.';
	out[w] = '\0';
	b->len = w;
}

static int names_sorted(const char *dir, char ***out, size_t *n, bh_error *err)
{
	struct dirent **v = NULL;
	int k = scandir(dir, &v, NULL, alphasort);
	if (k < 0)
		return bh_error_set(err, BH_EIO, "open %s: %s", dir, strerror(errno));
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
		if (rename(from, to))
			printf("Unable to move %s to charts dir %s (Skipping)", from, strerror(errno));
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
		if (!local && unlink(p))
			printf("Could not delete %s: %s (Skipping)", p, strerror(errno));
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
