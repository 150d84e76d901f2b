/* tests/fuzz/fuzz_kubeconfig.c — libFuzzer target for the kubeconfig parser
 * (kube_config_parse), in strict tenant mode and in normal mode with files
 * refused by a base_dir that does not exist. Property: what strict mode accepts
 * is https, passes the address policy on its own, and holds no credential
 * that could end an HTTP header.
 * FUZZ_SEEDS: tests/fuzz/corpus/fuzz_kubeconfig
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kube/addr.h"
#include "kube/config.h"

static void check_accepted(const kube_config *c)
{
	bh_error e;
	if (!c)
		return;
	if (strncmp(c->server, "https://", 8) || kube_url_check_strict(c->server, 1, "server", &e) != 0 || !c->strict)
		abort();
	const char *cred[] = {c->token, c->username, c->password};
	for (size_t i = 0; i < 3; i++)
		if (cred[i] && strpbrk(cred[i], "\r\n"))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bh_error err;
	kube_config_opts strict = {.strict = 1, .base_dir = "/nonexistent-fuzz"};
	kube_config *c = kube_config_parse((const char *)data, size, &strict, &err);
	check_accepted(c);
	kube_config_free(c);
	kube_config_opts open = {.strict = 1, .allow = KUBE_ALLOW_PROXY | KUBE_ALLOW_INSECURE,
	                         .context = "fuzz", .base_dir = "/nonexistent-fuzz"};
	c = kube_config_parse((const char *)data, size, &open, &err);
	check_accepted(c);
	kube_config_free(c);
	return 0;
}
