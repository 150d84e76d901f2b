/* kube/internal.h — helpers shared by the kube/ sources only (not a public API). */
#ifndef BH_KUBE_INTERNAL_H
#define BH_KUBE_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "lib/error.h"

/* Decodes standard base64 (padding optional, whitespace ignored) into a
 * new NUL-terminated buffer; *out_len is its length. NULL on bad input. */
char *kube_base64_decode(const char *in, size_t len, size_t *out_len);

/* Reads a whole file (up to max bytes) into a new NUL-terminated buffer. */
char *kube_file_read(const char *path, size_t max, size_t *out_len, bh_error *err);

/* 1 when s holds a control character that may not appear in an HTTP header
 * value (any byte below 0x20 but TAB, and DEL), as Go's net/http checks. */
int kube_has_ctl(const char *s);

/* NULL-terminated string vectors. */
char **kube_strv_dup(char *const *v);
void kube_strv_free(char **v);

/* Runs cfg's exec credential plugin and stores what it returns (token or
 * client certificate and key, expiry) in cfg. */
struct kube_config;
int kube_exec_credential(struct kube_config *cfg, bh_error *err);

/* Percent-encodes s for a URL query value; appends to b. */
struct bh_buf;
void kube_query_escape(struct bh_buf *b, const char *s);

#endif
