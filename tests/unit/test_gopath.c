/* tests/unit/test_gopath.c — lib/gopath: path.Clean, Dir and Base of tricky
 * paths against helm v4.1.4 (the outputs of `{{ clean }}`, `{{ base }}` and
 * `{{ dir }}` in a chart's template), the component count Clean gives,
 * filepath.Abs (relative, absolute, with "..", and the working directory
 * named by $PWD through a symbolic link, as helm's "Chart path" shows it),
 * os.MkdirAll's failing directory and Go's errno texts. */
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/gopath.h"
#include "tests/unit/unit_util.h"

/* input, clean, base, dir: helm template of {{ clean IN }} {{ base IN }} {{ dir IN }} */
static const char *const helm_paths[][4] = {
	{"", ".", ".", "."},
	{".", ".", ".", "."},
	{"..", "..", "..", "."},
	{"/", "/", "/", "/"},
	{"//", "/", "/", "/"},
	{"///", "/", "/", "/"},
	{"/.", "/", ".", "/"},
	{"/..", "/", "..", "/"},
	{"/../a", "/a", "a", "/"},
	{"/../../a/b", "/a/b", "b", "/a"},
	{"a//b/./../c/", "a/c", "c", "a/c"},
	{"a/", "a", "a", "a"},
	{"a//", "a", "a", "a"},
	{"./", ".", ".", "."},
	{"../", "..", "..", ".."},
	{".//", ".", ".", "."},
	{"a/b/c", "a/b/c", "c", "a/b"},
	{"a/b/c/", "a/b/c", "c", "a/b/c"},
	{"a/./b", "a/b", "b", "a"},
	{"a/../b", "b", "b", "."},
	{"a/../..", "..", "..", "."},
	{"a/../../b", "../b", "b", ".."},
	{"../../a", "../../a", "a", "../.."},
	{"../a/../..", "../..", "..", ".."},
	{"./a/./b/.", "a/b", ".", "a/b"},
	{"/a/b/..", "/a", "..", "/a/b"},
	{"/a/b/../..", "/", "..", "/a"},
	{"/a/b/../../..", "/", "..", "/"},
	{"abc/def/../../..", "..", "..", "."},
	{"a/...", "a/...", "...", "a"},
	{".../a", ".../a", "a", "..."},
	{"..a/b", "..a/b", "b", "..a"},
	{"a/..b", "a/..b", "..b", "a"},
	{"a.b/c.", "a.b/c.", "c.", "a.b"},
	{"//a//b//", "/a/b", "b", "/a/b"},
	{"a/b/../../../c/d", "../c/d", "d", "../c"},
	{"x/./../y/./", "y", ".", "y"},
	{"/./././", "/", ".", "/"},
	{"../..", "../..", "..", ".."},
	{"..//..//.", "../..", ".", "../.."},
	{"a/b/c/../../d/../../../e", "../e", "e", ".."},
	{"/x/..", "/", "..", "/x"},
	{"//..", "/", "..", "/"},
	{".a", ".a", ".a", "."},
	{"a.", "a.", "a.", "."},
	{"...", "...", "...", "."},
	{".../..", ".", "..", "..."},
	{"a/c/..", "a", "..", "a/c"},
	{"/ab/../cd/./ef//", "/cd/ef", "ef", "/cd/ef"},
};

START_TEST(test_gopath_helm_vectors)
{
	for (size_t i = 0; i < sizeof helm_paths / sizeof helm_paths[0]; i++) {
		const char *in = helm_paths[i][0];
		bh_buf b = BH_BUF_INIT;
		bh_buf_puts(&b, "pre:"); /* appends after what the buffer holds */
		gopath_clean_buf(&b, in, strlen(in));
		ck_assert_msg(!strcmp(b.data + 4, helm_paths[i][1]), "clean %s: %s", in, b.data + 4);
		ck_assert_uint_eq(b.len, 4 + strlen(helm_paths[i][1]));
		bh_buf_reset(&b);
		gopath_dir_buf(&b, in, strlen(in));
		ck_assert_msg(!strcmp(bh_buf_str(&b), helm_paths[i][3]), "dir %s: %s", in, bh_buf_str(&b));
		bh_buf_free(&b);
		size_t n;
		const char *base = gopath_base(in, strlen(in), &n);
		ck_assert_msg(n == strlen(helm_paths[i][2]) && !memcmp(base, helm_paths[i][2], n), "base %s: %.*s", in,
			      (int)n, base);
		char *d = gopath_clean_dup(in, NULL);
		ck_assert_str_eq(d, helm_paths[i][1]);
		free(d);
		bh_buf_puts(&b, in);
		gopath_clean_in_place(&b);
		ck_assert_str_eq(bh_buf_str(&b), helm_paths[i][1]);
		ck_assert_uint_eq(b.len, strlen(helm_paths[i][1]));
		bh_buf_free(&b);
	}
}
END_TEST

START_TEST(test_gopath_components)
{
	static const struct {
		const char *in;
		size_t n;
	} v[] = {{"", 0}, {".", 0}, {"/", 0}, {"a", 1}, {"a/b/c", 3}, {"a/../b", 1}, {"../x", 2},
		 {"../../a/b/..", 3}, {"/../a/b", 2}, {"a/b/../../..", 1}, {"x//y/./z/", 3}};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		size_t n = 99;
		char *d = gopath_clean_dup(v[i].in, &n);
		ck_assert_ptr_nonnull(d);
		ck_assert_msg(n == v[i].n, "%s: %zu components", v[i].in, n);
		free(d);
	}
	/* bytes Go strings may hold: a NUL is an ordinary byte of a name */
	bh_buf b = BH_BUF_INIT;
	ck_assert_uint_eq(gopath_clean_buf(&b, "a/\0/../b", 8), 2);
	ck_assert_uint_eq(b.len, 3);
	ck_assert(!memcmp(b.data, "a/b", 3));
	bh_buf_free(&b);
}
END_TEST

START_TEST(test_gopath_abs)
{
	char tmpl[] = "/tmp/test_gopath.XXXXXX", old[PATH_MAX], want[PATH_MAX + 64];
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(getcwd(old, sizeof old));
	char *real = realpath(tmpl, NULL), *saved_pwd = getenv("PWD") ? strdup(getenv("PWD")) : NULL;
	ck_assert_ptr_nonnull(real);
	snprintf(want, sizeof want, "%s/sub", real);
	ck_assert_int_eq(mkdir(want, 0755), 0);
	snprintf(want, sizeof want, "%s/link", real);
	ck_assert_int_eq(symlink("sub", want), 0);
	ck_assert_int_eq(chdir(want), 0);

	/* $PWD unset or not naming "." : getcwd's (resolved) name */
	unsetenv("PWD");
	char *a = gopath_abs_dup("c/../d/./e/");
	snprintf(want, sizeof want, "%s/sub/d/e", real);
	ck_assert_str_eq(a, want);
	free(a);
	setenv("PWD", "/", 1);
	a = gopath_abs_dup("..");
	ck_assert_str_eq(a, real);
	free(a);
	/* $PWD naming "." through the link: kept, as helm's Chart path is */
	snprintf(want, sizeof want, "%s/link/", real);
	setenv("PWD", want, 1);
	a = gopath_abs_dup("./c");
	snprintf(want, sizeof want, "%s/link/c", real);
	ck_assert_str_eq(a, want);
	free(a);
	a = gopath_abs_dup("");
	snprintf(want, sizeof want, "%s/link", real);
	ck_assert_str_eq(a, want);
	free(a);
	a = gopath_getwd_dup();
	snprintf(want, sizeof want, "%s/link/", real);
	ck_assert_str_eq(a, want); /* os.Getwd returns $PWD as it is */
	free(a);
	/* absolute: only cleaned */
	a = gopath_abs_dup("//x/../y//z/..");
	ck_assert_str_eq(a, "/y");
	free(a);
	a = gopath_abs_dup("/../..");
	ck_assert_str_eq(a, "/");
	free(a);

	ck_assert_int_eq(chdir(old), 0);
	if (saved_pwd)
		setenv("PWD", saved_pwd, 1);
	else
		unsetenv("PWD");
	free(saved_pwd);
	snprintf(want, sizeof want, "%s/link", real);
	unlink(want);
	snprintf(want, sizeof want, "%s/sub", real);
	rmdir(want);
	rmdir(real);
	free(real);
}
END_TEST

/* os.MkdirAll: parents made; a file on the way is ENOTDIR naming that file
 * (Go stats the parents first), as helm's --output-dir errors show */
START_TEST(test_gopath_mkdir_all)
{
	char dir[] = "/tmp/test_gopath.XXXXXX", p[PATH_MAX];
	size_t at = 99;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(p, sizeof p, "%s/a/b//c/", dir);
	ck_assert_int_eq(gopath_mkdir_all(p, 0755, &at), 0);
	ck_assert_int_eq(gopath_mkdir_all(p, 0755, &at), 0); /* there already */
	snprintf(p, sizeof p, "%s/a/b/c/f", dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(p, sizeof p, "%s/a/b/c/f/x/y", dir);
	ck_assert_int_eq(gopath_mkdir_all(p, 0755, &at), ENOTDIR);
	ck_assert_uint_eq(at, strlen(dir) + strlen("/a/b/c/f"));
	ck_assert_int_eq(gopath_mkdir_all("/proc/1/x/y", 0755, &at), ENOENT);
	ck_assert_uint_eq(at, strlen("/proc/1/x"));
	snprintf(p, sizeof p, "%s/a/b/c/f", dir);
	unlink(p);
	static const char *const made[] = {"/a/b/c", "/a/b", "/a", ""};
	for (size_t i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", dir, made[i]);
		ck_assert_int_eq(rmdir(p), 0);
	}
}
END_TEST

START_TEST(test_gopath_errno)
{
	static const struct {
		int e;
		const char *go;
	} v[] = {
		/* syscall.Errno(e).Error() (zerrors_linux_amd64.go) */
		{ENOENT, "no such file or directory"},
		{EACCES, "permission denied"},
		{ENOTDIR, "not a directory"},
		{EISDIR, "is a directory"},
		{ELOOP, "too many levels of symbolic links"},
		{ENAMETOOLONG, "file name too long"},
		{EIO, "input/output error"},
		{ENOMEM, "cannot allocate memory"},
		{EEXIST, "file exists"},
		{ENOSPC, "no space left on device"},
		{EROFS, "read-only file system"},
		{EPERM, "operation not permitted"},
		{EAGAIN, "resource temporarily unavailable"},
		{ESTALE, "stale NFS file handle"}, /* glibc: "Stale file handle" */
		{EDOTDOT, "RFS specific error"},
		{EREMOTEIO, "remote I/O error"},
		{ERFKILL, "operation not possible due to RF-kill"},
		{41, "errno 41"},
		{58, "errno 58"},
		{133, "errno 133"}, /* EHWPOISON: not in Go's table */
		{0, "errno 0"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		ck_assert_str_eq(gopath_errno_text(v[i].e, buf, sizeof buf), v[i].go);
	char small[6];
	ck_assert_str_eq(gopath_errno_text(ENOENT, small, sizeof small), "no su");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gopath");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_gopath_helm_vectors);
	tcase_add_test(tc, test_gopath_components);
	tcase_add_test(tc, test_gopath_abs);
	tcase_add_test(tc, test_gopath_mkdir_all);
	tcase_add_test(tc, test_gopath_errno);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
