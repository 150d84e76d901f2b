/* lib/gopath.h — the one port of Go's path handling that helm's output
 * depends on, for every module that must name paths and failures as helm
 * does: path.Clean / Dir / Base (identical to path/filepath's on Linux;
 * Sprig's clean, dir and base, chart archive entry names, dependency and
 * chart paths), os.Getwd and filepath.Abs (chart directories as helm names
 * them), os.MkdirAll (the directories it fails on), and syscall.Errno.Error() (Go's lower-case errno texts, e.g. "no
 * such file or directory", where glibc's strerror() is capitalised).
 *
 * Naming: *_dup returns a new string the caller free()s (NULL when out of
 * memory or, for the ones that say so, with errno set); *_buf appends to a
 * bh_buf (allocation failure is the buffer's sticky oom flag). */
#ifndef BH_GOPATH_H
#define BH_GOPATH_H

#include <stddef.h>

#include "lib/buf.h"

/* path.Clean of p[0..n) (any bytes) appended to out. Returns the number of
 * components of the result ("a/../b" -> 1, "../x" -> 2, "." and "/" -> 0). */
size_t gopath_clean_buf(bh_buf *out, const char *p, size_t n);
/* path.Clean of the string p: new, NULL when out of memory; *ncomp (when
 * not NULL) = its components as gopath_clean_buf counts them. */
char *gopath_clean_dup(const char *p, size_t *ncomp);
/* b's text replaced by its path.Clean. */
void gopath_clean_in_place(bh_buf *b);
/* path.Dir of p[0..n) appended to out. */
void gopath_dir_buf(bh_buf *out, const char *p, size_t n);
/* path.Base of p[0..n): a part of p, or a static "." or "/"; *len = its
 * length. */
const char *gopath_base(const char *p, size_t n, size_t *len);
/* os.Getwd: $PWD when it is absolute and names the working directory (so
 * a directory reached through a symbolic link keeps that name), else
 * getcwd(). New; NULL with errno set on failure. */
char *gopath_getwd_dup(void);
/* filepath.Abs of path: Clean(path) when absolute, else Clean(Getwd() + "/"
 * + path). New; NULL with errno set on failure (ENOMEM included). */
char *gopath_abs_dup(const char *path);
/* os.MkdirAll(path, mode): 0, or the errno of the PathError it returns
 * (ENOTDIR for a file on the way) with *at = the length of the directory
 * that error names ("mkdir " + path[0..*at) + ": " + its text). */
int gopath_mkdir_all(const char *path, unsigned mode, size_t *at);
/* syscall.Errno(e).Error() on Linux into buf (n bytes; 64 hold any), which
 * is returned: glibc's text with its first letter lower-cased ("RFS
 * specific error" kept), Go's own where they differ, "errno N" for a
 * number Go's table lacks. */
const char *gopath_errno_text(int e, char *buf, size_t n);

#endif
