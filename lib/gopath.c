/* lib/gopath.c — see gopath.h. */
#include "lib/gopath.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t gopath_clean_buf(bh_buf *out, const char *p, size_t n)
{
	size_t start = out->len, r = 0, dotdot = 0, nc = 0;
	int rooted = n > 0 && p[0] == '/';
	/* Go's lazybuf: out's bytes from start are the result so far, W long */
#define W (out->len - start)
	if (rooted) {
		bh_buf_putc(out, '/');
		r = dotdot = 1;
	}
	while (r < n && bh_buf_ok(out)) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && p[r + 1] == '.' && (r + 2 == n || p[r + 2] == '/')) {
			r += 2;
			if (W > dotdot) { /* back to the previous '/' (or the start) */
				out->len--;
				while (W > dotdot && out->data[out->len] != '/')
					out->len--;
				nc--;
			} else if (!rooted) {
				if (W > 0)
					bh_buf_putc(out, '/');
				bh_buf_puts(out, "..");
				dotdot = W;
				nc++;
			}
		} else {
			if (W != (size_t)rooted)
				bh_buf_putc(out, '/');
			size_t l = r;
			while (l < n && p[l] != '/')
				l++;
			bh_buf_put(out, p + r, l - r);
			r = l;
			nc++;
		}
	}
	if (W == 0)
		bh_buf_putc(out, '.');
	else if (out->data)
		out->data[out->len] = '\0';
#undef W
	return nc;
}

char *gopath_clean_dup(const char *p, size_t *ncomp)
{
	bh_buf b = BH_BUF_INIT;
	size_t nc = gopath_clean_buf(&b, p, strlen(p));
	if (!bh_buf_ok(&b)) {
		bh_buf_free(&b);
		return NULL;
	}
	if (ncomp)
		*ncomp = nc;
	return bh_buf_detach(&b);
}

void gopath_clean_in_place(bh_buf *b)
{
	bh_buf c = BH_BUF_INIT;
	if (!bh_buf_ok(b))
		return;
	gopath_clean_buf(&c, b->data ? b->data : "", b->len);
	bh_buf_free(b);
	*b = c;
}

void gopath_dir_buf(bh_buf *out, const char *p, size_t n)
{
	while (n > 0 && p[n - 1] != '/')
		n--;
	gopath_clean_buf(out, p, n);
}

const char *gopath_base(const char *p, size_t n, size_t *len)
{
	size_t i;
	if (n == 0) {
		*len = 1;
		return ".";
	}
	while (n > 0 && p[n - 1] == '/')
		n--;
	if (n == 0) {
		*len = 1;
		return "/";
	}
	for (i = n; i > 0 && p[i - 1] != '/'; i--)
		;
	*len = n - i;
	return p + i;
}

char *gopath_getwd_dup(void)
{
	const char *pwd = getenv("PWD");
	char *r;
	if (pwd && pwd[0] == '/') {
		struct stat dot, d;
		if (stat(".", &dot))
			return NULL;
		if (!stat(pwd, &d) && d.st_dev == dot.st_dev && d.st_ino == dot.st_ino) {
			if (!(r = strdup(pwd)))
				errno = ENOMEM;
			return r;
		}
	}
	char cwd[PATH_MAX];
	while (!getcwd(cwd, sizeof cwd))
		if (errno != EINTR)
			return NULL;
	if (!(r = strdup(cwd)))
		errno = ENOMEM;
	return r;
}

char *gopath_abs_dup(const char *path)
{
	bh_buf b = BH_BUF_INIT;
	char *r = NULL;
	if (path[0] != '/') {
		char *wd = gopath_getwd_dup();
		if (!wd)
			return NULL;
		bh_buf_puts(&b, wd);
		bh_buf_putc(&b, '/');
		free(wd);
	}
	bh_buf_puts(&b, path);
	if (bh_buf_ok(&b))
		r = gopath_clean_dup(b.data, NULL);
	bh_buf_free(&b);
	if (!r)
		errno = ENOMEM;
	return r;
}

/* MkdirAll of path[0..n) (path is writable: the byte at n is put back) */
static int mkdir_all(char *path, size_t n, mode_t mode, size_t *at)
{
	struct stat st;
	char c = path[n];
	int e = 0;
	path[n] = '\0';
	if (!stat(path, &st)) {
		e = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		goto out;
	}
	size_t i = n, j;
	while (i > 0 && path[i - 1] == '/') /* the trailing '/' */
		i--;
	for (j = i; j > 0 && path[j - 1] != '/';) /* the last element */
		j--;
	if (j > 1 && (e = mkdir_all(path, j - 1, mode, at))) { /* the parent first */
		path[n] = c;
		return e;
	}
	if (mkdir(path, mode)) {
		e = errno;
		if (!lstat(path, &st) && S_ISDIR(st.st_mode))
			e = 0;
	}
out:
	*at = n;
	path[n] = c;
	return e;
}

int gopath_mkdir_all(const char *path, unsigned mode, size_t *at)
{
	char *p = strdup(path);
	*at = 0;
	if (!p)
		return ENOMEM;
	int e = mkdir_all(p, strlen(p), (mode_t)mode, at);
	free(p);
	return e;
}

const char *gopath_errno_text(int e, char *buf, size_t n)
{
	if (!n)
		return buf;
	/* Go's table (zerrors_linux_*.go) holds 1..132 but for 41 and 58, with
	 * glibc's texts but for ESTALE's */
	if (e <= 0 || e > 132 || e == 41 || e == 58) {
		snprintf(buf, n, "errno %d", e);
		return buf;
	}
	if (e == ESTALE) {
		snprintf(buf, n, "stale NFS file handle");
		return buf;
	}
	snprintf(buf, n, "%s", strerror(e));
	if (buf[0] >= 'A' && buf[0] <= 'Z' && buf[1] >= 'a' && buf[1] <= 'z')
		buf[0] = (char)(buf[0] - 'A' + 'a');
	return buf;
}
