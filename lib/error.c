/* lib/error.c — see error.h. */
#include "lib/error.h"

#include <stdio.h>
#include <string.h>

int bh_error_vset(bh_error *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	}
	return code;
}

int bh_error_set(bh_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bh_error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int bh_error_prefix(bh_error *err, const char *fmt, ...)
{
	char pre[1024], old[BH_ERROR_MSG_MAX];
	va_list ap;
	if (!err)
		return BH_EINVAL;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	{
		size_t pl = strlen(pre), ol = strnlen(old, sizeof old - 1), cap = sizeof err->msg - 1, at = 0;
		if (pl > cap)
			pl = cap;
		memcpy(err->msg, pre, pl);
		at = pl;
		if (at + 2 <= cap) {
			memcpy(err->msg + at, ": ", 2);
			at += 2;
		}
		if (ol > cap - at)
			ol = cap - at;
		memcpy(err->msg + at, old, ol);
		err->msg[at + ol] = '\0';
	}
	return err->code;
}

void bh_error_clear(bh_error *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

const char *bh_code_name(int code)
{
	switch (code) {
	case BH_OK: return "OK";
	case BH_EINVAL: return "EINVAL";
	case BH_ENOMEM: return "ENOMEM";
	case BH_EIO: return "EIO";
	case BH_ELIMIT: return "ELIMIT";
	case BH_ENOTFOUND: return "ENOTFOUND";
	case BH_EPARSE: return "EPARSE";
	case BH_EDENIED: return "EDENIED";
	case BH_ECONFLICT: return "ECONFLICT";
	case BH_ETIMEOUT: return "ETIMEOUT";
	case BH_EPROTO: return "EPROTO";
	case BH_EEXEC: return "EEXEC";
	case BH_EGONE: return "EGONE";
	case BH_EUNAVAIL: return "EUNAVAIL";
	}
	return "EUNKNOWN";
}
