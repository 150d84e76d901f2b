/* tests/fuzz/fuzz_kube_addr.c — libFuzzer target for the strict server URL
 * check (kube/addr.c). Property, against the real readers of the URL: when
 * kube_url_check_strict accepts a URL, libcurl's own URL parser finds no user
 * information in it, and the host libcurl reads from it, taken as an address
 * literal (inet_pton) or as the resolver takes a numeric name (inet_aton), is
 * not one the policy forbids.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char url[KUBE_ADDR_MAX_URL + 1];
	bh_error err;
	if (size > KUBE_ADDR_MAX_URL)
		return 0;
	memcpy(url, data, size);
	url[size] = '\0';
	if (kube_url_check_strict(url, 1, "server", &err) != 0)
		return 0;
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *user = NULL;
	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		unsigned char a[16];
		size_t n = strlen(host);
		if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK)
			abort(); /* user information slipped through */
		if (host[0] == '[' && n >= 2) {
			char lit[128];
			snprintf(lit, sizeof lit, "%.*s", (int)(n - 2), host + 1);
			if (inet_pton(AF_INET6, lit, a) == 1 && kube_addr_classify(a, 16, (unsigned)atoi(port)))
				abort();
		} else {
			struct in_addr in;
			while (n && host[n - 1] == '.')
				host[--n] = '\0';
			if ((inet_pton(AF_INET, host, a) == 1 && kube_addr_classify(a, 4, (unsigned)atoi(port))) ||
			    (inet_aton(host, &in) && kube_addr_classify((unsigned char *)&in, 4, (unsigned)atoi(port))))
				abort();
		}
	}
	curl_free(host);
	curl_free(port);
	curl_free(user);
	curl_url_cleanup(u);
	return 0;
}
