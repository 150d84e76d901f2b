/* lib/gostrconv.c — see gostrconv.h. */
#include "lib/gostrconv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int go_shortest_digits(double v, char digits[32], int *ndigits, int *dp)
{
	char tmp[64];
	int p, exp10;
	if (v == 0 || isinf(v) || isnan(v))
		return -1;
	v = fabs(v);
	for (p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* tmp is "d.ddde[+-]XX" */
	{
		char *e = strchr(tmp, 'e');
		int k = 0;
		exp10 = atoi(e + 1);
		for (char *c = tmp; c < e; c++)
			if (*c >= '0' && *c <= '9')
				digits[k++] = *c;
		while (k > 1 && digits[k - 1] == '0')
			k--;
		digits[k] = '\0';
		*ndigits = k;
	}
	*dp = exp10 + 1;
	return 0;
}

static size_t put(char *buf, size_t n, size_t at, char c)
{
	if (at + 1 < n)
		buf[at] = c;
	return at + 1;
}

static size_t fmt_e(char *buf, size_t n, size_t at, const char *d, int nd, int dp, char ech)
{
	int exp = dp - 1, i;
	char eb[16];
	at = put(buf, n, at, d[0]);
	if (nd > 1) {
		at = put(buf, n, at, '.');
		for (i = 1; i < nd; i++)
			at = put(buf, n, at, d[i]);
	}
	at = put(buf, n, at, ech);
	at = put(buf, n, at, exp < 0 ? '-' : '+');
	snprintf(eb, sizeof eb, "%02d", exp < 0 ? -exp : exp);
	for (i = 0; eb[i]; i++)
		at = put(buf, n, at, eb[i]);
	return at;
}

static size_t fmt_f(char *buf, size_t n, size_t at, const char *d, int nd, int dp)
{
	int i, frac;
	if (dp > 0) {
		for (i = 0; i < dp; i++)
			at = put(buf, n, at, i < nd ? d[i] : '0');
	} else {
		at = put(buf, n, at, '0');
	}
	frac = nd - dp;
	if (frac > 0) {
		at = put(buf, n, at, '.');
		for (i = 0; i < frac; i++) {
			int j = dp + i;
			at = put(buf, n, at, (j >= 0 && j < nd) ? d[j] : '0');
		}
	}
	return at;
}

int go_format_float(char *buf, size_t n, double v, char fmt, int prec)
{
	char d[32];
	int nd, dp;
	size_t at = 0;
	if (isnan(v))
		return snprintf(buf, n, "NaN");
	if (isinf(v))
		return snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
	if (prec >= 0) {
		char f[8];
		snprintf(f, sizeof f, "%%.*%c", fmt);
		return snprintf(buf, n, f, prec, v);
	}
	if (signbit(v))
		at = put(buf, n, at, '-');
	if (v == 0) {
		d[0] = '0';
		d[1] = '\0';
		nd = 1;
		dp = 1;
	} else {
		go_shortest_digits(v, d, &nd, &dp);
	}
	switch (fmt) {
	case 'e':
	case 'E':
		at = fmt_e(buf, n, at, d, nd, dp, fmt);
		break;
	case 'f':
		at = fmt_f(buf, n, at, d, nd, dp);
		break;
	default: { /* 'g'/'G', shortest: Go decides with precision 6 */
		int exp = dp - 1;
		if (exp < -4 || exp >= 6)
			at = fmt_e(buf, n, at, d, nd, dp, fmt == 'G' ? 'E' : 'e');
		else
			at = fmt_f(buf, n, at, d, nd, dp);
		break;
	}
	}
	if (n)
		buf[at < n ? at : n - 1] = '\0';
	return (int)at;
}

int go_unhex(unsigned c)
{
	if (c >= '0' && c <= '9')
		return (int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (int)(c - 'A' + 10);
	return -1;
}
