/* kube/addr.c — see addr.h. */
#include "kube/addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char WHY_LINK_LOCAL[] = "a link-local address (where cloud metadata services answer)";
static const char WHY_METADATA[] = "a cloud metadata service address";
static const char WHY_KUBELET[] = "a kubelet port on the loopback interface";

/* Names of metadata services (lower case, no trailing dot). */
static const char *const metadata_names[] = {
	"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal",
	"metadata.azure.internal", "metadata.tencentyun.com", "metadata.platformequinix.com",
};

/* IPv4 metadata services outside 169.254.0.0/16 (Alibaba, Oracle, Azure
 * WireServer). */
static const unsigned char metadata_v4[][4] = {{100, 100, 100, 200}, {192, 0, 0, 192}, {168, 63, 129, 16}};

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kube_addr_parse_ipv4(const char *s, size_t n, unsigned char out[4])
{
	uint64_t part[4];
	size_t np = 0, i = 0;
	for (;;) {
		uint64_t v = 0;
		unsigned base = 10;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return 0;
		if (s[i] == '0') {
			base = 8;
			i++;
			if (i < n && (s[i] == 'x' || s[i] == 'X')) {
				base = 16;
				i++;
			}
		}
		for (; i < n; i++) {
			int d = hexval((unsigned char)s[i]);
			if (d < 0 || (base != 16 && d > 9))
				break;
			if (base == 8 && d > 7)
				return 0;
			v = v * base + (unsigned)d;
			if (v > 0xffffffffu)
				return 0;
		}
		if (np == 4)
			return 0;
		part[np++] = v;
		if (i == n)
			break;
		if (s[i] != '.')
			return 0;
		i++;
	}
	/* the last part fills the bytes the others left */
	for (size_t k = 0; k + 1 < np; k++)
		if (part[k] > 255)
			return 0;
	uint64_t last = part[np - 1], max = np == 1 ? 0xffffffffu : np == 2 ? 0xffffffu : np == 3 ? 0xffffu : 0xffu;
	if (last > max)
		return 0;
	uint32_t a = 0;
	for (size_t k = 0; k + 1 < np; k++)
		a |= (uint32_t)part[k] << (24 - 8 * k);
	a |= (uint32_t)last;
	out[0] = (unsigned char)(a >> 24);
	out[1] = (unsigned char)(a >> 16);
	out[2] = (unsigned char)(a >> 8);
	out[3] = (unsigned char)a;
	return 1;
}

static const char *classify4(const unsigned char *a, unsigned port, int *loopback)
{
	for (size_t i = 0; i < sizeof metadata_v4 / sizeof metadata_v4[0]; i++)
		if (!memcmp(a, metadata_v4[i], 4))
			return WHY_METADATA;
	if (a[0] == 169 && a[1] == 254)
		return a[2] == 169 && a[3] == 254 ? WHY_METADATA : WHY_LINK_LOCAL;
	/* 0.0.0.0/8 reaches the local host on Linux, as 127.0.0.0/8 does */
	*loopback = a[0] == 127 || a[0] == 0;
	if (*loopback && (port == 10250 || port == 10255))
		return WHY_KUBELET;
	return NULL;
}

const char *kube_addr_classify(const unsigned char *a, size_t alen, unsigned port)
{
	static const unsigned char zero[12], mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff},
					     translated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0},
					     nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0},
					     ec2[16] = {0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54};
	int loopback = 0;
	if (alen == 4)
		return classify4(a, port, &loopback);
	if (alen != 16)
		return NULL;
	if (!memcmp(a, ec2, 16))
		return WHY_METADATA;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return WHY_LINK_LOCAL;
	/* IPv4 inside IPv6: mapped, translated, NAT64, compatible (::a.b.c.d,
	 * which also covers :: and ::1), 6to4 (2002:AABB:CCDD::) */
	if (!memcmp(a, mapped, 12) || !memcmp(a, translated, 12) || !memcmp(a, nat64, 12))
		return classify4(a + 12, port, &loopback);
	if (!memcmp(a, zero, 12)) {
		if (!memcmp(a + 12, "\0\0\0\0", 4) || !memcmp(a + 12, "\0\0\0\1", 4))
			loopback = 1; /* :: and ::1 */
		else
			return classify4(a + 12, port, &loopback);
		return (port == 10250 || port == 10255) ? WHY_KUBELET : NULL;
	}
	if (a[0] == 0x20 && a[1] == 0x02)
		return classify4(a + 2, port, &loopback);
	return NULL;
}

const char *kube_addr_forbidden(const struct sockaddr *sa, socklen_t len)
{
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;
		return kube_addr_classify((const unsigned char *)&s->sin_addr, 4, ntohs(s->sin_port));
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
		return kube_addr_classify(s->sin6_addr.s6_addr, 16, ntohs(s->sin6_port));
	}
	return NULL;
}

static int plain_host_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
	       c == '_';
}

/* A host name (no address) a tenant may not use. */
static const char *classify_name(const char *h, size_t n, unsigned port)
{
	for (size_t i = 0; i < sizeof metadata_names / sizeof metadata_names[0]; i++)
		if (strlen(metadata_names[i]) == n && !strncasecmp(h, metadata_names[i], n))
			return WHY_METADATA;
	if ((n == 9 && !strncasecmp(h, "localhost", 9)) || (n > 10 && !strncasecmp(h + n - 10, ".localhost", 10)))
		return (port == 10250 || port == 10255) ? WHY_KUBELET : NULL;
	return NULL;
}

static int refuse(bh_error *err, const char *where, const char *url, const char *what, const char *why)
{
	return bh_error_set(err, BH_EDENIED, "%s: \"%.300s\" names %s, %s; not allowed in tenant kubeconfigs", where,
			    url, what, why);
}

int kube_url_check_strict(const char *url, int need_https, const char *where, bh_error *err)
{
	size_t ulen = strnlen(url, KUBE_ADDR_MAX_URL + 1);
	const char *auth, *end, *host, *hend, *p;
	unsigned port;
	unsigned char a[16];
	char shown[64];
	if (ulen > KUBE_ADDR_MAX_URL)
		return bh_error_set(err, BH_EINVAL, "%s: longer than %d bytes", where, KUBE_ADDR_MAX_URL);
	if (!strncasecmp(url, "https://", 8)) {
		auth = url + 8;
		port = 443;
	} else if (!strncasecmp(url, "http://", 7) && !need_https) {
		auth = url + 7;
		port = 80;
	} else {
		return bh_error_set(err, BH_EDENIED, "%s: \"%.300s\" is not an https:// URL; tenant kubeconfigs must use https",
				    where, url);
	}
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			return bh_error_set(err, BH_EDENIED,
					    "%s: \"%.300s\" carries user information before '@'; not allowed in tenant kubeconfigs",
					    where, url);
	if (*auth == '[') {
		host = auth + 1;
		hend = memchr(host, ']', (size_t)(end - host));
		if (!hend || (size_t)(hend - host) >= INET6_ADDRSTRLEN)
			return bh_error_set(err, BH_EINVAL, "%s: \"%.300s\" has a malformed IPv6 address", where, url);
		p = hend + 1;
	} else {
		host = auth;
		hend = host + strcspn(host, ":/?#");
		p = hend;
	}
	if (p < end) { /* port: decimal digits, leading zeros allowed (as libcurl) */
		unsigned long v = 0;
		if (*p != ':')
			return bh_error_set(err, BH_EINVAL, "%s: \"%.300s\" has a malformed host", where, url);
		for (p++; p < end; p++) {
			if (*p < '0' || *p > '9' || (v = v * 10 + (unsigned long)(*p - '0')) > 65535)
				return bh_error_set(err, BH_EINVAL, "%s: \"%.300s\" has an invalid port", where, url);
		}
		if (p[-1] != ':')
			port = (unsigned)v;
	}
	if (hend == host)
		return bh_error_set(err, BH_EINVAL, "%s: \"%.300s\" has no host", where, url);
	if (*auth == '[') {
		char h6[INET6_ADDRSTRLEN];
		memcpy(h6, host, (size_t)(hend - host));
		h6[hend - host] = '\0';
		if (inet_pton(AF_INET6, h6, a) != 1)
			return bh_error_set(err, BH_EINVAL, "%s: \"%.300s\": [%s] is not an IPv6 address (zones are not allowed)",
					    where, url, h6);
		const char *why = kube_addr_classify(a, 16, port);
		inet_ntop(AF_INET6, a, shown, sizeof shown);
		return why ? refuse(err, where, url, shown, why) : 0;
	}
	for (p = host; p < hend; p++)
		if (!plain_host_char((unsigned char)*p))
			return bh_error_set(err, BH_EDENIED,
					    "%s: \"%.300s\": the host may only hold letters, digits, '.', '-' and '_'", where, url);
	while (hend > host && hend[-1] == '.') /* "169.254.169.254." is the same host */
		hend--;
	if (kube_addr_parse_ipv4(host, (size_t)(hend - host), a)) {
		const char *why = kube_addr_classify(a, 4, port);
		snprintf(shown, sizeof shown, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		return why ? refuse(err, where, url, shown, why) : 0;
	}
	const char *why = classify_name(host, (size_t)(hend - host), port);
	snprintf(shown, sizeof shown, "%.*s", (int)(hend - host < 60 ? hend - host : 60), host);
	return why ? refuse(err, where, url, shown, why) : 0;
}
