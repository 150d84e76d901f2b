/* cli/libm_lazy.c — the libm functions the `bulkhead` command uses, so that
 * libm is not mapped at every start (it cost 340 KiB of resident pages, a
 * sixteenth of rendering a small chart, and its relocations). floor, modf,
 * frexp and ldexp are exact operations (no rounding but the one ldexp does
 * into the subnormal range, done by the FPU here as in libm) and are
 * written out below; fmod and pow, which only a few template functions and
 * JSON Schema's multipleOf reach, load libm with dlopen() on first use, as
 * cli/crypto_lazy.c does for libcrypto. It has no header: it defines libm's
 * own API; the CLI is linked with --as-needed, so a libm function the CLI's
 * libraries start to use and missing here links libm again (no failure,
 * only the start-up cost comes back: `ldd cli/bulkhead` shows it). */
#include "cli/lazy_open.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define LIBM_SONAME "libm.so.6"
#define TWO52 4503599627370496.0 /* from here on every double is an integer */

static uint64_t bits_of(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

static double double_of(uint64_t u)
{
	double x;
	memcpy(&x, &u, sizeof x);
	return x;
}

double floor(double x)
{
	double t;
	if (!(fabs(x) < TWO52) || x == 0)
		return x; /* NaN, infinities, integers, ±0 */
	t = (double)(int64_t)x;
	return t > x ? t - 1 : t;
}

double modf(double x, double *ip)
{
	double t;
	if (isnan(x)) {
		*ip = x;
		return x;
	}
	if (!(fabs(x) < TWO52)) {
		*ip = x;
		return copysign(0.0, x);
	}
	t = copysign((double)(int64_t)x, x);
	*ip = t;
	return copysign(x - t, x); /* exact below 2^52 */
}

double frexp(double x, int *e)
{
	uint64_t u = bits_of(x);
	int ex = (int)(u >> 52 & 0x7ff), adj = 0;
	if (x == 0 || ex == 0x7ff) {
		*e = 0;
		return x;
	}
	if (ex == 0) { /* subnormal: scale into the normal range first */
		u = bits_of(x * 18446744073709551616.0);
		ex = (int)(u >> 52 & 0x7ff);
		adj = -64;
	}
	*e = ex - 1022 + adj;
	return double_of((u & ~(0x7ffULL << 52)) | (1022ULL << 52));
}

/* x * 2^n, with the single rounding a subnormal result needs done by the
 * last multiplication */
double ldexp(double x, int n)
{
	if (n > 1023) {
		x *= 0x1p1023;
		n -= 1023;
		if (n > 1023) {
			x *= 0x1p1023;
			n -= 1023;
			if (n > 1023)
				n = 1023;
		}
	} else if (n < -1022) {
		/* keep 53 bits spare so that only the last step rounds */
		x *= 0x1p-969;
		n += 969;
		if (n < -1022) {
			x *= 0x1p-969;
			n += 969;
			if (n < -1022)
				n = -1022;
		}
	}
	return x * double_of((uint64_t)(0x3ff + n) << 52);
}

static struct {
	double (*fmod)(double, double);
	double (*pow)(double, double);
} fn;
static int loaded; /* 1 when both were found */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	static const struct lazy_sym syms[] = {{"fmod", (void **)&fn.fmod}, {"pow", (void **)&fn.pow}};
	loaded = lazy_open(LIBM_SONAME, NULL, syms, sizeof syms / sizeof syms[0]);
}

double fmod(double x, double y)
{
	pthread_once(&once, load);
	return loaded ? fn.fmod(x, y) : NAN;
}

double pow(double x, double y)
{
	pthread_once(&once, load);
	return loaded ? fn.pow(x, y) : NAN;
}
