/* lib/error.h — the one error convention used by every bulkhead module.
 *
 * A fallible function returns int: 0 (BH_OK) on success, or a negative BH_E*
 * code, and when given a non-NULL `bh_error *err` it fills err->msg with a
 * message a user can act on (what was wrong, and where). Library code never
 * exits or aborts on bad input. Callers add context with bh_error_prefix().
 * Functions returning pointers return NULL on failure and fill `err` likewise.
 */
#ifndef BH_ERROR_H
#define BH_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum bh_code {
	BH_OK = 0,
	BH_EINVAL = -1,    /* malformed or invalid input */
	BH_ENOMEM = -2,    /* allocation failed */
	BH_EIO = -3,       /* read/write/system call failed */
	BH_ELIMIT = -4,    /* a size, depth, count or time limit was exceeded */
	BH_ENOTFOUND = -5, /* the named thing does not exist */
	BH_EPARSE = -6,    /* syntax error in a document */
	BH_EDENIED = -7,   /* refused by policy (sandbox, RBAC, broker) */
	BH_ECONFLICT = -8, /* conflict (409, lock held, ownership) */
	BH_ETIMEOUT = -9,  /* deadline passed */
	BH_EPROTO = -10,   /* protocol violation by a peer */
	BH_EEXEC = -11,    /* template execution / action failed */
	BH_EGONE = -12,    /* resource version expired (410) */
	BH_EUNAVAIL = -13, /* transient: retry may succeed (429/5xx, connection) */
};

#define BH_ERROR_MSG_MAX 8192

typedef struct bh_error {
	int code;
	char msg[BH_ERROR_MSG_MAX];
} bh_error;

/* Sets err (if non-NULL) to code and a printf-style message; returns code. */
int bh_error_set(bh_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int bh_error_vset(bh_error *err, int code, const char *fmt, va_list ap);
/* Prepends "context: " to err->msg (if non-NULL); returns err->code. */
int bh_error_prefix(bh_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bh_error_clear(bh_error *err);
/* A short name for a code, e.g. "EINVAL". */
const char *bh_code_name(int code);

#endif
