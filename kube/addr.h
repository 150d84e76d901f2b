/* kube/addr.h — where a server URL really points, for the strict tenant
 * kubeconfig policy. The host is read the way libcurl and the system
 * resolver read it (IPv4 in decimal, octal, hex and short dotted forms;
 * bracketed IPv6, with IPv4 embedded as ::ffff:a.b.c.d, NAT64 or 6to4;
 * trailing dots; any letter case), and the address is classified:
 * link-local (169.254.0.0/16, fe80::/10), a cloud metadata service
 * (169.254.169.254, fd00:ec2::254, 100.100.100.200, metadata.google.internal
 * ...), or a kubelet port (10250, 10255) on loopback.
 *
 * Pure functions of their bytes: no DNS lookup. A name that resolves to such
 * an address is caught when the socket is opened (kube_addr_forbidden, used
 * by the libcurl transport for strict configurations). */
#ifndef BH_KUBE_ADDR_H
#define BH_KUBE_ADDR_H

#include <stddef.h>
#include <sys/socket.h>

#include "lib/error.h"

/* Longest server URL the strict check reads. */
#define KUBE_ADDR_MAX_URL 2048

/* Checks url for a tenant kubeconfig: https (when need_https), no user
 * information, a host of plain characters, and no forbidden address.
 * Returns 0 or BH_EDENIED/BH_EINVAL with a message starting with `where`
 * that says what the host really is, e.g.
 * `clusters[0].cluster.server: "https://2852039166" names 169.254.169.254,
 * a cloud metadata service address; not allowed in tenant kubeconfigs`. */
int kube_url_check_strict(const char *url, int need_https, const char *where, bh_error *err);

/* Reads s[0..n) as an IPv4 address the way inet_aton (and libcurl's URL
 * parser) would: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x).
 * Returns 1 and the address in out (network order), else 0. */
int kube_addr_parse_ipv4(const char *s, size_t n, unsigned char out[4]);

/* Why a tenant may not reach this socket address (port in host order), or
 * NULL when it may. Handles AF_INET and AF_INET6; other families: NULL. */
const char *kube_addr_forbidden(const struct sockaddr *sa, socklen_t len);

/* Why a tenant may not reach addr (4 or 16 bytes) on port, or NULL. */
const char *kube_addr_classify(const unsigned char *addr, size_t alen, unsigned port);

#endif
