/* tests/unit/test_kube.c — unit tests for kube/: kubeconfig parsing and
 * strict tenant mode, in-cluster config and token rotation, retries and
 * error typing, pagination, REST mapping, watch decoding and the resuming
 * watch loop (against a scripted fake transport), readiness rules. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kube/config.h"
#include "kube/kube.h"
#include "kube/ready.h"
#include "kube/wait.h"
#include "kube/watchdec.h"
#include "tests/unit/unit_util.h"

/* ---------------- kubeconfig ---------------- */

static const char *kc_basic =
	"apiVersion: v1\nkind: Config\ncurrent-context: dev\n"
	"clusters:\n- name: c1\n  cluster:\n    server: https://10.0.0.1:6443/\n"
	"    certificate-authority-data: aGVsbG8=\n    tls-server-name: kubernetes\n"
	"- name: c2\n  cluster:\n    server: https://other:443\n"
	"users:\n- name: u1\n  user:\n    token: abc\n"
	"- name: u2\n  user:\n    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n"
	"contexts:\n- name: dev\n  context:\n    cluster: c1\n    user: u1\n    namespace: team-a\n"
	"- name: prod\n  context:\n    cluster: c2\n    user: u2\n";

START_TEST(test_config_basic)
{
	bh_error e = {0};
	kube_config *c = kube_config_parse(kc_basic, strlen(kc_basic), NULL, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_str_eq(c->server, "https://10.0.0.1:6443");
	ck_assert_str_eq(c->ca_pem, "hello");
	ck_assert_uint_eq(c->ca_len, 5);
	ck_assert_str_eq(c->token, "abc");
	ck_assert_str_eq(c->namespace_, "team-a");
	ck_assert_str_eq(c->tls_server_name, "kubernetes");
	ck_assert_str_eq(c->context, "dev");
	kube_config_free(c);

	kube_config_opts o = {.context = "prod"};
	c = kube_config_parse(kc_basic, strlen(kc_basic), &o, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_str_eq(c->server, "https://other:443");
	ck_assert_str_eq(c->cert_pem, "CERT");
	ck_assert_str_eq(c->key_pem, "KEY");
	ck_assert_ptr_null(c->token);
	ck_assert_str_eq(c->namespace_, "default");
	kube_config *d = kube_config_dup(c, &e);
	ck_assert_str_eq(d->key_pem, "KEY");
	kube_config_free(d);
	kube_config_free(c);

	o.context = "nope";
	c = kube_config_parse(kc_basic, strlen(kc_basic), &o, &e);
	ck_assert_ptr_null(c);
	ck_assert_int_eq(e.code, BH_ENOTFOUND);
	ck_assert_str_eq(e.msg, "contexts: no context named \"nope\"");
}
END_TEST

START_TEST(test_config_json_and_errors)
{
	bh_error e = {0};
	const char *js = "{\"kind\":\"Config\",\"current-context\":\"x\",\"clusters\":[{\"name\":\"c\",\"cluster\":"
	                 "{\"server\":\"http://127.0.0.1:8080\",\"insecure-skip-tls-verify\":true}}],"
	                 "\"contexts\":[{\"name\":\"x\",\"context\":{\"cluster\":\"c\"}}]}";
	kube_config *c = kube_config_parse(js, strlen(js), NULL, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_int_eq(c->insecure, 1);
	ck_assert_str_eq(c->server, "http://127.0.0.1:8080");
	kube_config_free(c);

	static const struct {
		const char *doc;
		int code;
		const char *msg;
	} bad[] = {
		{"kind: Config\ncurrent-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n", BH_ENOTFOUND,
		 "clusters: no cluster named \"c\" (used by context \"x\")"},
		{"kind: Config\ncontexts: []\n", BH_EINVAL, "current-context: not set and no context was chosen"},
		{"kind: Pod\n", BH_EINVAL, "kind: \"Pod\" is not Config"},
		{"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: "
		 "{server: ftp://x}\n",
		 BH_EINVAL, "clusters[0].cluster.server: \"ftp://x\" is not an http(s) URL"},
		{"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: "
		 "{server: https://x, certificate-authority-data: '!!!'}\n",
		 BH_EINVAL, "clusters[0].cluster.certificate-authority-data: not valid base64"},
		{"current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n  "
		 "cluster: {server: https://x}\nusers:\n- name: u\n  user: {client-certificate-data: QQ==}\n",
		 BH_EINVAL, "users[0].user: client-certificate and client-key must be given together"},
		{"a: [\n", BH_EPARSE, NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		c = kube_config_parse(bad[i].doc, strlen(bad[i].doc), NULL, &e);
		ck_assert_msg(c == NULL, "case %zu parsed", i);
		ck_assert_int_eq(e.code, bad[i].code);
		if (bad[i].msg)
			ck_assert_str_eq(e.msg, bad[i].msg);
	}
}
END_TEST

static const char *kc_head = "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n";

static kube_config *parse_strict(const char *cluster, const char *user, unsigned allow, bh_error *e)
{
	char doc[2048];
	snprintf(doc, sizeof doc, "%sclusters:\n- name: c\n  cluster:\n%susers:\n- name: u\n  user:\n%s", kc_head,
	         cluster, user);
	kube_config_opts o = {.strict = 1, .allow = allow, .base_dir = "/nonexistent"};
	return kube_config_parse(doc, strlen(doc), &o, e);
}

START_TEST(test_config_strict)
{
	bh_error e = {0};
	const char *srv = "    server: https://remote:6443\n";
	static const struct {
		const char *cluster, *user;
		unsigned allow;
		const char *msg;
	} cases[] = {
		{"", "    exec: {command: /bin/sh}\n", KUBE_ALLOW_EXEC,
		 "users[0].user.exec: exec credential plugins are not allowed in tenant kubeconfigs"},
		{"", "    auth-provider: {name: gcp}\n", KUBE_ALLOW_AUTH_PROVIDER,
		 "users[0].user.auth-provider: auth providers are not allowed in tenant kubeconfigs"},
		{"    certificate-authority: /etc/ssl/ca.pem\n", "    token: t\n", KUBE_ALLOW_FILES,
		 "clusters[0].cluster.certificate-authority: file paths are not allowed in tenant kubeconfigs"},
		{"", "    client-certificate: c.pem\n    client-key: k.pem\n", KUBE_ALLOW_FILES,
		 "users[0].user.client-certificate: file paths are not allowed in tenant kubeconfigs"},
		{"", "    client-key: /root/k.pem\n    client-certificate-data: QQ==\n", KUBE_ALLOW_FILES,
		 "users[0].user.client-key: file paths are not allowed in tenant kubeconfigs"},
		{"", "    tokenFile: /var/run/secrets/token\n", KUBE_ALLOW_FILES,
		 "users[0].user.tokenFile: file paths are not allowed in tenant kubeconfigs"},
		{"    certificate-authority: /etc/ca.pem\n    certificate-authority-data: QQ==\n", "    token: t\n",
		 KUBE_ALLOW_FILES,
		 "clusters[0].cluster.certificate-authority: file paths are not allowed in tenant kubeconfigs"},
		{"", "    token: t\n    tokenFile: /var/run/secrets/token\n", KUBE_ALLOW_FILES,
		 "users[0].user.tokenFile: file paths are not allowed in tenant kubeconfigs"},
		{"    proxy-url: http://proxy:3128\n", "    token: t\n", KUBE_ALLOW_PROXY,
		 "clusters[0].cluster.proxy-url: proxies are not allowed in tenant kubeconfigs"},
		{"    insecure-skip-tls-verify: true\n", "    token: t\n", KUBE_ALLOW_INSECURE,
		 "clusters[0].cluster.insecure-skip-tls-verify: disabling TLS verification is not allowed in tenant "
		 "kubeconfigs"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char cl[512];
		snprintf(cl, sizeof cl, "%s%s", srv, cases[i].cluster);
		/* refused in strict mode, naming the field */
		kube_config *c = parse_strict(cl, cases[i].user, 0, &e);
		ck_assert_msg(c == NULL, "case %zu accepted", i);
		ck_assert_int_eq(e.code, BH_EDENIED);
		ck_assert_str_eq(e.msg, cases[i].msg);
		/* the matching allowance lifts that refusal (what remains is
		 * "unsupported" or a missing file, never the same denial) */
		c = parse_strict(cl, cases[i].user, cases[i].allow, &e);
		if (c) {
			kube_config_free(c);
		} else {
			ck_assert_int_ne(e.code, BH_EDENIED);
			ck_assert_msg(strstr(e.msg, "not allowed") == NULL, "%s", e.msg);
		}
		/* all allowances but the matching one do not */
		c = parse_strict(cl, cases[i].user, ~cases[i].allow, &e);
		ck_assert_ptr_null(c);
		ck_assert_str_eq(e.msg, cases[i].msg);
	}
	/* exec, once allowed, must still be well-formed */
	kube_config *c = parse_strict(srv, "    exec: {command: x}\n", KUBE_ALLOW_EXEC, &e);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(e.msg, "users[0].user.exec.apiVersion: must be client.authentication.k8s.io/v1 or v1beta1");
	/* auth-provider stays unsupported */
	c = parse_strict(srv, "    auth-provider: {name: oidc}\n", KUBE_ALLOW_AUTH_PROVIDER, &e);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(e.msg, "users[0].user.auth-provider: auth providers are not supported by bulkhead");
	/* a clean tenant kubeconfig passes */
	c = parse_strict(srv, "    token: abc\n", 0, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	kube_config_free(c);
}
END_TEST

/* --strict: https only, and no link-local, metadata or loopback-kubelet
 * address in any encoding (each names the address it really is). */
START_TEST(test_config_strict_addresses)
{
	static const struct {
		const char *server, *msg;
	} refused[] = {
		{"http://remote:6443", "\"http://remote:6443\" is not an https:// URL; tenant kubeconfigs must use https"},
		{"HTTP://remote", "is not an http(s) URL"},
		{"https://169.254.169.254", "names 169.254.169.254, a cloud metadata service address"},
		{"https://2852039166", "names 169.254.169.254, a cloud metadata service address"},
		{"https://0251.0376.0251.0376", "names 169.254.169.254, a cloud"},
		{"https://0xa9.0xfe.0xa9.0xfe", "names 169.254.169.254, a cloud"},
		{"https://0XA9FEA9FE:443/", "names 169.254.169.254, a cloud"},
		{"https://169.254.43518", "names 169.254.169.254, a cloud"},
		{"https://169.16689662", "names 169.254.169.254, a cloud"},
		{"https://169.254.169.254./api", "names 169.254.169.254, a cloud"},
		{"https://[::ffff:169.254.169.254]", "names ::ffff:169.254.169.254, a cloud"},
		{"https://[::ffff:a9fe:a9fe]:6443", "names ::ffff:169.254.169.254, a cloud"},
		{"https://[64:ff9b::a9fe:a9fe]", "names 64:ff9b::a9fe:a9fe, a cloud"},
		{"https://[FD00:EC2::254]", "names fd00:ec2::254, a cloud metadata service address"},
		{"https://[fe80::1]", "names fe80::1, a link-local address"},
		{"https://[FEBF::1]:6443", "names febf::1, a link-local address"},
		{"https://169.254.10.1:6443", "names 169.254.10.1, a link-local address"},
		{"https://100.100.100.200", "names 100.100.100.200, a cloud metadata service address"},
		{"https://metadata.google.internal", "names metadata.google.internal, a cloud metadata service address"},
		{"https://METADATA.Google.Internal.", "names METADATA.Google.Internal, a cloud"},
		{"https://127.0.0.1:10250", "names 127.0.0.1, a kubelet port on the loopback interface"},
		{"https://127.1.2.3:10255", "names 127.1.2.3, a kubelet port"},
		{"https://0x7f.1:010250", "names 127.0.0.1, a kubelet port"},
		{"https://0:10250", "names 0.0.0.0, a kubelet port"},
		{"https://localhost:10250", "names localhost, a kubelet port"},
		{"https://LOCALHOST.:10255", "names LOCALHOST, a kubelet port"},
		{"https://node.localhost:10250", "names node.localhost, a kubelet port"},
		{"https://[::1]:10250", "names ::1, a kubelet port"},
		{"https://[::ffff:127.0.0.1]:10250", "names ::ffff:127.0.0.1, a kubelet port"},
		{"https://good@169.254.169.254", "carries user information before '@'"},
		{"https://good:pw@remote:6443", "carries user information before '@'"},
		{"https://%31%36%39.254.169.254", "the host may only hold letters, digits"},
		{"https://[fe80::1%25eth0]", "is not an IPv6 address"},
	};
	static const char *const accepted[] = {
		"https://remote:6443", "https://10.0.0.1", "https://127.0.0.1:6443", "https://[2001:db8::1]:443",
		"https://localhost:6443", "https://169.255.0.1", "https://api.example.com./k8s", "https://[::1]:6443",
	};
	bh_error e = {0};
	char cl[512];
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		snprintf(cl, sizeof cl, "    server: \"%s\"\n", refused[i].server);
		kube_config *c = parse_strict(cl, "    token: t\n", ~0u, &e);
		ck_assert_msg(c == NULL, "%s accepted", refused[i].server);
		ck_assert_msg(strstr(e.msg, refused[i].msg) && !strncmp(e.msg, "clusters[0].cluster.server: ", 28),
			      "%s: %s", refused[i].server, e.msg);
		/* outside strict mode the operator's own kubeconfig may point anywhere */
		if (strncmp(refused[i].server, "HTTP", 4)) {
			char doc[1024];
			snprintf(doc, sizeof doc, "%sclusters:\n- name: c\n  cluster:\n%susers:\n- name: u\n  user: {token: t}\n",
				 kc_head, cl);
			c = kube_config_parse(doc, strlen(doc), NULL, &e);
			ck_assert_msg(c != NULL, "%s: %s", refused[i].server, e.msg);
			kube_config_free(c);
		}
	}
	for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
		snprintf(cl, sizeof cl, "    server: \"%s\"\n", accepted[i]);
		kube_config *c = parse_strict(cl, "    token: t\n", 0, &e);
		ck_assert_msg(c != NULL, "%s: %s", accepted[i], e.msg);
		ck_assert_int_eq(c->strict, 1);
		kube_config_free(c);
	}
}
END_TEST

/* A credential that would end its HTTP header is refused when decoded, in
 * every mode (Go's net/http, and so kubectl, refuses such a value too). */
START_TEST(test_config_credentials_ctl)
{
	static const struct {
		const char *user, *msg;
	} cases[] = {
		{"    token: \"abc\\r\\nImpersonate-User: system:admin\"\n",
		 "users[0].user.token: contains a control character (CR, LF, ...); a bearer token is sent in an HTTP header"},
		{"    token: \"abc\\ndef\"\n", "users[0].user.token: contains a control character"},
		{"    token: \"abc\\u0000def\"\n", "users[0].user.token: contains a NUL character"},
		{"    username: \"u\\r\\nX: y\"\n    password: p\n", "users[0].user.username: contains CR or LF"},
		{"    username: u\n    password: \"p\\nq\"\n", "users[0].user.password: contains CR or LF"},
	};
	const char *srv = "    server: https://remote:6443\n";
	bh_error e = {0};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int strict = 0; strict < 2; strict++) {
			char doc[1024];
			kube_config_opts o = {.strict = strict};
			snprintf(doc, sizeof doc, "%sclusters:\n- name: c\n  cluster:\n%susers:\n- name: u\n  user:\n%s", kc_head,
				 srv, cases[i].user);
			kube_config *c = kube_config_parse(doc, strlen(doc), &o, &e);
			ck_assert_msg(c == NULL, "case %zu accepted", i);
			ck_assert_msg(strstr(e.msg, cases[i].msg), "case %zu: %s", i, e.msg);
		}
	}
	/* nor does a URL or server name holding one reach the transport */
	static const char *const clusters[] = {"    server: \"https://h:1\\r\\nX: y\"\n",
					       "    server: https://h:1\n    tls-server-name: \"h\\nX: y\"\n"};
	for (size_t i = 0; i < 2; i++) {
		char doc[1024];
		snprintf(doc, sizeof doc, "%sclusters:\n- name: c\n  cluster:\n%susers:\n- name: u\n  user: {token: t}\n",
			 kc_head, clusters[i]);
		kube_config *c = kube_config_parse(doc, strlen(doc), NULL, &e);
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(e.msg, i ? "cluster.tls-server-name: contains a control character"
					      : "cluster.server: contains a control character"),
			      "%s", e.msg);
	}
	/* surrounding whitespace of a token (a trailing newline) is not part of it */
	kube_config *c = parse_strict(srv, "    token: \"abc\\n\"\n", 0, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_str_eq(c->token, "abc");
	kube_config_free(c);
}
END_TEST

static char tmpdir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes a temporary tree made by a test. */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *dir, const char *name, const char *data)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(data, f);
	fclose(f);
}

START_TEST(test_config_files_relative)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/bh-kube-test.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	write_file(tmpdir, "ca.pem", "CA-PEM");
	write_file(tmpdir, "tok", "  secret-token\n");
	write_file(tmpdir, "kubeconfig",
	           "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
	           "clusters:\n- name: c\n  cluster: {server: 'https://h:1', certificate-authority: ca.pem}\n"
	           "users:\n- name: u\n  user: {tokenFile: tok}\n");
	char p[512];
	snprintf(p, sizeof p, "%s/kubeconfig", tmpdir);
	bh_error e = {0};
	kube_config *c = kube_config_load(p, NULL, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_str_eq(c->ca_pem, "CA-PEM");
	ck_assert_str_eq(kube_config_token(c, &e), "secret-token");
	kube_config_free(c);
	/* a token file that would end its HTTP header is refused, naming the file */
	write_file(tmpdir, "tok", "secret\r\nImpersonate-User: system:admin\n");
	c = kube_config_load(p, NULL, &e);
	ck_assert_ptr_null(c);
	ck_assert_msg(strstr(e.msg, "users[0].user.tokenFile: token file ") &&
	                  strstr(e.msg, "/tok: contains a control character (CR, LF, ...)"),
	              "%s", e.msg);
	rm_tree(tmpdir);
}
END_TEST

START_TEST(test_config_in_cluster)
{
	char root[256];
	snprintf(root, sizeof root, "/tmp/bh-kube-ic.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	char dir[512];
	snprintf(dir, sizeof dir, "%s/var", root);
	mkdir(dir, 0700);
	strcat(dir, "/run");
	mkdir(dir, 0700);
	strcat(dir, "/secrets");
	mkdir(dir, 0700);
	strcat(dir, "/kubernetes.io");
	mkdir(dir, 0700);
	strcat(dir, "/serviceaccount");
	mkdir(dir, 0700);
	write_file(dir, "token", "tok-1\n");
	write_file(dir, "ca.crt", "CA");
	write_file(dir, "namespace", "flux-system");
	bh_error e = {0};
	unsetenv("KUBERNETES_SERVICE_HOST");
	ck_assert_ptr_null(kube_config_in_cluster_load(root, &e));
	ck_assert_int_eq(e.code, BH_ENOTFOUND);
	setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);
	kube_config *c = kube_config_in_cluster_load(root, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_str_eq(c->server, "https://[fd00::1]:443");
	ck_assert_str_eq(c->namespace_, "flux-system");
	ck_assert_str_eq(c->ca_pem, "CA");
	ck_assert_str_eq(kube_config_token(c, &e), "tok-1");
	/* rotation: the kubelet replaces the file; the next check reads it */
	char tok[600], tmp[600];
	snprintf(tok, sizeof tok, "%s/token", dir);
	snprintf(tmp, sizeof tmp, "%s/token.new", dir);
	write_file(dir, "token.new", "tok-2\n");
	struct timespec ts[2] = {{0, UTIME_NOW}, {1, 0}};
	utimensat(AT_FDCWD, tmp, ts, 0); /* a different mtime, whatever the clock says */
	rename(tmp, tok);
	c->token_checked = 0;
	ck_assert_str_eq(kube_config_token(c, &e), "tok-2");
	/* a missing file keeps the last good token */
	unlink(tok);
	c->token_checked = 0;
	ck_assert_str_eq(kube_config_token(c, &e), "tok-2");
	kube_config_free(c);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	rm_tree(root);
}
END_TEST

static kube_config *exec_config(const char *script, const char *av)
{
	char dir[256];
	snprintf(dir, sizeof dir, "/tmp/bh-kube-exec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "plugin", script);
	char plugin[300], doc[1024];
	snprintf(plugin, sizeof plugin, "%s/plugin", dir);
	chmod(plugin, 0700);
	snprintf(doc, sizeof doc,
	         "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
	         "clusters:\n- name: c\n  cluster: {server: 'https://h:1'}\n"
	         "users:\n- name: u\n  user:\n    exec:\n      apiVersion: %s\n      command: %s\n"
	         "      args: [one, 'two words']\n      env: [{name: BH_PLUGIN_X, value: xval}]\n",
	         av, plugin);
	bh_error e = {0};
	kube_config_opts o = {.strict = 1, .allow = KUBE_ALLOW_EXEC};
	kube_config *c = kube_config_parse(doc, strlen(doc), &o, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	return c;
}

/* Frees an exec_config() and removes its plugin folder. */
static void exec_config_free(kube_config *c)
{
	char dir[300];
	snprintf(dir, sizeof dir, "%s", c->exec_argv[0]);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	kube_config_free(c);
	rm_tree(dir);
}

START_TEST(test_config_exec)
{
	bh_error e = {0};
	/* the plugin sees its args, env and KUBERNETES_EXEC_INFO, and answers a token */
	kube_config *c = exec_config(
		"#!/bin/sh\n"
		"[ \"$1\" = one ] && [ \"$2\" = 'two words' ] && [ \"$BH_PLUGIN_X\" = xval ] || exit 3\n"
		"case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) exit 4;; esac\n"
		"echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",'\n"
		"echo '\"status\":{\"token\":\"tok-exec\",\"expirationTimestamp\":\"2999-01-01T00:00:00Z\"}}'\n",
		"client.authentication.k8s.io/v1");
	ck_assert_ptr_null(c->token);
	ck_assert_msg(kube_config_refresh(c, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(c->token, "tok-exec");
	ck_assert_int_eq(c->exec_have, 1);
	/* cached until expiry: a second refresh does not run it again */
	free(c->token);
	c->token = strdup("cached");
	ck_assert_int_eq(kube_config_refresh(c, &e), 0);
	ck_assert_str_eq(c->token, "cached");
	/* expired (or invalidated after a 401): runs again */
	c->exec_expiry = time(NULL) + 5;
	ck_assert_int_eq(kube_config_refresh(c, &e), 0);
	ck_assert_str_eq(c->token, "tok-exec");
	kube_config *d = kube_config_dup(c, &e);
	ck_assert_str_eq(d->exec_argv[2], "two words");
	kube_config_free(d);
	exec_config_free(c);

	/* client certificate answer, v1beta1 */
	c = exec_config("#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
	                "\"status\":{\"clientCertificateData\":\"CERT\",\"clientKeyData\":\"KEY\"}}'\n",
	                "client.authentication.k8s.io/v1beta1");
	ck_assert_msg(kube_config_refresh(c, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(c->cert_pem, "CERT");
	ck_assert_str_eq(c->key_pem, "KEY");
	exec_config_free(c);

	/* failures name the plugin and say what was wrong */
	static const struct {
		const char *script, *msg;
	} bad[] = {
		{"#!/bin/sh\necho 'no creds for you' >&2\nexit 7\n", "failed with exit code 7: no creds for you"},
		{"#!/bin/sh\necho nope\n", "output is not JSON"},
		{"#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
		 "\"status\":{\"token\":\"t\"}}'\n",
		 "apiVersion \"client.authentication.k8s.io/v1beta1\" does not match"},
		{"#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
		 "\"status\":{}}'\n",
		 "neither a token nor a client certificate"},
		{"#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
		 "\"status\":{\"token\":\"t\",\"expirationTimestamp\":\"soon\"}}'\n",
		 "bad expirationTimestamp \"soon\""},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		c = exec_config(bad[i].script, "client.authentication.k8s.io/v1");
		ck_assert_int_ne(kube_config_refresh(c, &e), 0);
		ck_assert_msg(strstr(e.msg, bad[i].msg) != NULL, "case %zu: %s", i, e.msg);
		ck_assert_msg(strstr(e.msg, "exec plugin /tmp/bh-kube-exec.") != NULL, "%s", e.msg);
		exec_config_free(c);
	}
	/* a command that does not exist */
	const char *doc = "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
	                  "clusters:\n- name: c\n  cluster: {server: 'https://h:1'}\nusers:\n- name: u\n  user:\n"
	                  "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /nonexistent/plugin}\n";
	c = kube_config_parse(doc, strlen(doc), NULL, &e);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(kube_config_refresh(c, &e), BH_EIO);
	/* posix_spawn reports it, or (under valgrind) the child exits 127 */
	ck_assert_msg(!strcmp(e.msg, "exec plugin /nonexistent/plugin: cannot run it: No such file or directory") ||
	                  !strcmp(e.msg, "exec plugin /nonexistent/plugin failed with exit code 127"),
	              "%s", e.msg);
	kube_config_free(c);
}
END_TEST

START_TEST(test_config_limits)
{
	bh_error e = {0};
	char deep[400];
	size_t n = 0;
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	deep[n] = 0;
	ck_assert_ptr_null(kube_config_parse(deep, n, NULL, &e));
	ck_assert_int_eq(e.code, BH_ELIMIT);
	const char *aliases = "a: &x [1]\nb: *x\nc: *nope\n";
	ck_assert_ptr_null(kube_config_parse(aliases, strlen(aliases), NULL, &e));
	ck_assert_int_eq(e.code, BH_EPARSE);
	/* an alias inside its own anchor's node would make a reference cycle */
	const char *cycle = "a: &x [1, *x]\n";
	ck_assert_ptr_null(kube_config_parse(cycle, strlen(cycle), NULL, &e));
	ck_assert_int_ne(e.code, 0);
	ck_assert_str_eq(e.msg, "kubeconfig: error converting YAML to JSON: yaml: anchor 'x' value contains itself");
	/* YAML 1.1 booleans, as sigs.k8s.io/yaml reads them for client-go */
	const char *yes = "current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\nclusters:\n- name: c\n"
	                  "  cluster: {server: 'https://x', insecure-skip-tls-verify: yes}\n";
	kube_config *c = kube_config_parse(yes, strlen(yes), NULL, &e);
	ck_assert_msg(c != NULL, "%s", e.msg);
	ck_assert_int_eq(c->insecure, 1);
	kube_config_free(c);
}
END_TEST

/* ---------------- fake transport ---------------- */

#define MAX_STEPS 64
struct step {
	const char *expect; /* substring the request line must contain ("GET /api/v1/pods?...") */
	long status;
	const char *body;
	const char *retry_after;
	int rc;             /* transport error instead of a response */
	int drop;           /* stream: deliver body then fail with BH_EUNAVAIL */
};
struct fake {
	struct step steps[MAX_STEPS];
	int n, pos;
	char log[MAX_STEPS][512];
	char hdrs[MAX_STEPS][512];
	char bodies[MAX_STEPS][512];
	long slept[MAX_STEPS];
	int nslept;
};

static int fake_next(struct fake *f, const kube_request *req, kube_response *resp, bh_error *err, struct step **out)
{
	ck_assert_msg(f->pos < f->n, "unexpected request %s %s", req->method, req->path);
	struct step *s = &f->steps[f->pos];
	snprintf(f->log[f->pos], sizeof f->log[0], "%s %s", req->method, req->path);
	f->hdrs[f->pos][0] = 0;
	for (size_t i = 0; req->headers && req->headers[i]; i++) {
		strncat(f->hdrs[f->pos], req->headers[i], 200);
		strcat(f->hdrs[f->pos], "|");
	}
	snprintf(f->bodies[f->pos], sizeof f->bodies[0], "%.*s", (int)req->body_len, req->body ? req->body : "");
	ck_assert_msg(strstr(f->log[f->pos], s->expect) != NULL, "step %d: got \"%s\", want \"%s\"", f->pos,
	              f->log[f->pos], s->expect);
	f->pos++;
	*out = s;
	if (s->rc)
		return bh_error_set(err, s->rc, "fake transport error");
	resp->status = s->status;
	if (s->retry_after)
		resp->retry_after = strdup(s->retry_after);
	resp->content_type = strdup("application/json");
	return 0;
}

static int fake_request(void *impl, const kube_request *req, kube_response *resp, bh_error *err)
{
	struct step *s;
	int rc = fake_next(impl, req, resp, err, &s);
	if (!rc && s->body)
		bh_buf_puts(&resp->body, s->body);
	return rc;
}

static int fake_stream(void *impl, const kube_request *req, kube_response *resp, kube_stream_fn fn, void *ud,
                       bh_error *err)
{
	struct step *s;
	int rc = fake_next(impl, req, resp, err, &s);
	if (rc)
		return rc;
	if (resp->status < 200 || resp->status >= 300) {
		if (s->body)
			bh_buf_puts(&resp->body, s->body);
		return 0;
	}
	/* deliver in awkward chunks: 7 bytes at a time */
	const char *b = s->body ? s->body : "";
	size_t len = strlen(b);
	for (size_t off = 0; off < len; off += 7) {
		size_t n = len - off < 7 ? len - off : 7;
		if (fn(ud, b + off, n))
			return 0;
	}
	if (s->drop)
		return bh_error_set(err, BH_EUNAVAIL, "connection reset by peer");
	return 0;
}

static const kube_transport_ops fake_ops = {fake_request, fake_stream, NULL};

static void fake_sleep(void *ud, long ms)
{
	struct fake *f = ud;
	f->slept[f->nslept++] = ms;
}

static struct fake F;

static kube_client *fake_client(void)
{
	bh_error e;
	kube_client *c = kube_client_new(kube_transport_new(&fake_ops, &F), &e);
	ck_assert_ptr_nonnull(c);
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	return c;
}

static void add(const char *expect, long status, const char *body)
{
	F.steps[F.n++] = (struct step){.expect = expect, .status = status, .body = body};
}

static void fake_reset(void)
{
	memset(&F, 0, sizeof F);
}

static const kube_resource pods = {"", "v1", "pods", "Pod", 1};
static const kube_resource crds = {"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                   "CustomResourceDefinition", 0};

START_TEST(test_retry_after_and_budget)
{
	fake_reset();
	kube_client *c = fake_client();
	/* 429 with Retry-After 2, then 503 (backoff), then 200 */
	add("GET /api/v1/namespaces/a/pods/p", 429, "{\"kind\":\"Status\",\"message\":\"slow down\"}");
	F.steps[0].retry_after = "2";
	add("GET /api/v1/namespaces/a/pods/p", 503, "");
	add("GET /api/v1/namespaces/a/pods/p", 200, "{\"kind\":\"Pod\"}");
	json_t *out = NULL;
	bh_error e = {0};
	ck_assert_int_eq(kube_get(c, &pods, "a", "p", NULL, &out, &e), 0);
	ck_assert_str_eq(json_string_value(json_object_get(out, "kind")), "Pod");
	json_decref(out);
	ck_assert_int_eq(F.nslept, 2);
	ck_assert_int_eq(F.slept[0], 2000); /* Retry-After honoured */
	ck_assert_int_eq(F.slept[1], 400);  /* base 200ms doubled for the 2nd retry */
	ck_assert_int_eq(kube_client_last_attempts(c), 3);

	/* Retry-After as an HTTP date (in the past: retry at once) */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("GET", 503, "");
	F.steps[0].retry_after = "Wed, 21 Oct 2015 07:28:00 GMT";
	add("GET", 200, "{}");
	ck_assert_int_eq(kube_get(c, &pods, "a", "p", NULL, &out, &e), 0);
	json_decref(out);
	ck_assert_int_eq(F.nslept, 1);
	ck_assert_int_eq(F.slept[0], 0);

	/* Retry-After beyond the budget: give up at once with a clear error */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	kube_retry_policy p = {5, 100, 1000, 0, 5000};
	kube_client_set_retry(c, &p);
	add("GET /api/v1/namespaces/a/pods/p", 429, "{\"kind\":\"Status\",\"reason\":\"TooManyRequests\","
	                                            "\"message\":\"rate limited\",\"code\":429}");
	F.steps[0].retry_after = "30";
	ck_assert_int_eq(kube_get(c, &pods, "a", "p", NULL, &out, &e), BH_EUNAVAIL);
	ck_assert_int_eq(F.nslept, 0);
	ck_assert_str_eq(e.msg, "giving up after 1 attempts (Retry-After exceeds the remaining retry budget): "
	                        "GET /api/v1/namespaces/a/pods/p: 429 TooManyRequests: rate limited");

	/* attempts exhausted on 500s */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	for (int i = 0; i < 5; i++)
		add("GET", 500, "{\"message\":\"boom\",\"reason\":\"InternalError\"}");
	ck_assert_int_eq(kube_get(c, &pods, "a", "p", NULL, &out, &e), BH_EUNAVAIL);
	ck_assert_int_eq(F.pos, 5);
	ck_assert_int_eq(F.nslept, 4);
	ck_assert_int_eq(F.slept[0], 100);
	ck_assert_int_eq(F.slept[3], 800);
	ck_assert_msg(strstr(e.msg, "giving up after 5 attempts (attempts exhausted)") != NULL, "%s", e.msg);
	ck_assert_int_eq(kube_client_last_status(c), 500);

	/* connection errors are retried for GET, not for POST */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	F.steps[F.n++] = (struct step){.expect = "GET", .rc = BH_EUNAVAIL};
	add("GET", 200, "{}");
	ck_assert_int_eq(kube_get(c, &pods, "a", "p", NULL, &out, &e), 0);
	json_decref(out);
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	F.steps[F.n++] = (struct step){.expect = "POST", .rc = BH_EUNAVAIL};
	json_t *obj = json_pack("{s:{s:s}}", "metadata", "name", "p");
	ck_assert_int_eq(kube_create(c, &pods, "a", obj, NULL, NULL, &e), BH_EUNAVAIL);
	ck_assert_int_eq(F.pos, 1);
	/* ... but a POST is retried on 429 (the server did not act on it) */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("POST", 429, "");
	add("POST", 201, "{}");
	ck_assert_int_eq(kube_create(c, &pods, "a", obj, NULL, NULL, &e), 0);
	/* and not on 500 */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("POST", 500, "");
	ck_assert_int_eq(kube_create(c, &pods, "a", obj, NULL, NULL, &e), BH_EUNAVAIL);
	ck_assert_int_eq(F.pos, 1);
	json_decref(obj);
	kube_client_free(c);
}
END_TEST

START_TEST(test_typed_errors)
{
	static const struct {
		long status;
		int code;
	} cases[] = {{404, BH_ENOTFOUND}, {409, BH_ECONFLICT}, {410, BH_EGONE}, {422, BH_EINVAL},
	             {403, BH_EDENIED},   {401, BH_EDENIED},   {400, BH_EINVAL}};
	bh_error e = {0};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fake_reset();
		kube_client *c = fake_client();
		add("GET", cases[i].status,
		    "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"R\",\"message\":\"pods \\\"p\\\" said no\"}");
		json_t *out = NULL;
		ck_assert_int_eq(kube_get(c, &pods, "a", "p", NULL, &out, &e), cases[i].code);
		ck_assert_ptr_null(out);
		char want[200];
		snprintf(want, sizeof want, "GET /api/v1/namespaces/a/pods/p: %ld R: pods \"p\" said no", cases[i].status);
		ck_assert_str_eq(e.msg, want);
		ck_assert_int_eq(F.pos, 1); /* never retried */
		ck_assert_str_eq(kube_client_last_reason(c), "R");
		kube_client_free(c);
	}
}
END_TEST

/* A transport that takes requests together: records the size of each
 * batch, answers from the same script as fake_request. */
static size_t batches[MAX_STEPS];
static int nbatches;

static void fake_requests(void *impl, size_t n, const kube_request *reqs, kube_response *resps, int *rcs,
			  bh_error *const *errs)
{
	batches[nbatches++] = n;
	for (size_t i = 0; i < n; i++)
		rcs[i] = fake_request(impl, &reqs[i], &resps[i], errs[i]);
}

static const kube_transport_ops fake_batch_ops = {fake_request, fake_stream, NULL, fake_requests};

/* kube_get_many over ops: each item gets what kube_get would give it (its
 * words, its own retries), one failing does not fail the others. */
static void check_get_many(const kube_transport_ops *ops)
{
	bh_error e;
	kube_client *c;
	kube_get_item it[7];
	const char *names[] = {"a", "b", "c", "d", "e", "f", ""};
	static const char *want_log[] = {"GET /api/v1/namespaces/n/pods/a", "GET /api/v1/namespaces/n/pods/b",
					 "GET /api/v1/namespaces/n/pods/c", "GET /api/v1/namespaces/n/pods/d",
					 "GET /api/v1/namespaces/n/pods/c", "GET /api/v1/namespaces/n/pods/e"};
	fake_reset();
	nbatches = 0;
	c = kube_client_new(kube_transport_new(ops, &F), &e);
	ck_assert_ptr_nonnull(c);
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("pods/a", 200, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}}");
	add("pods/b", 404, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"message\":\"pods \\\"b\\\" not found\"}");
	add("pods/c", 503, "");
	add("pods/d", 429, "{\"kind\":\"Status\",\"reason\":\"TooManyRequests\",\"message\":\"rate limited\"}");
	F.steps[3].retry_after = "100";
	add("pods/c", 200, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"c\"}}");
	add("pods/e", 200, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"e\"}}");
	for (int i = 0; i < 7; i++)
		it[i] = (kube_get_item){.r = &pods, .ns = i == 5 ? NULL : "n", .name = names[i]};
	kube_get_many(c, it, 7);
	ck_assert_int_eq(F.pos, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_str_eq(F.log[i], want_log[i]);
	ck_assert_int_eq(it[0].rc, 0);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(it[0].out, "metadata"), "name")), "a");
	ck_assert_int_eq(it[1].rc, BH_ENOTFOUND);
	ck_assert_ptr_null(it[1].out);
	ck_assert_str_eq(it[1].err.msg, "GET /api/v1/namespaces/n/pods/b: 404 NotFound: pods \"b\" not found");
	ck_assert_int_eq(it[2].rc, 0); /* retried after its 503, alone */
	ck_assert_int_eq(F.nslept, 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(it[2].out, "metadata"), "name")), "c");
	ck_assert_int_eq(it[3].rc, BH_EUNAVAIL); /* its own give-up, not another item's */
	ck_assert_str_eq(it[3].err.msg, "giving up after 1 attempts (Retry-After exceeds the remaining retry budget): "
					"GET /api/v1/namespaces/n/pods/d: 429 TooManyRequests: rate limited");
	ck_assert_int_eq(it[4].rc, 0);
	ck_assert_int_eq(it[5].rc, BH_EINVAL); /* no request for these two */
	ck_assert_str_eq(it[5].err.msg, "pods is namespaced: a namespace is required");
	ck_assert_int_eq(it[6].rc, BH_EINVAL);
	ck_assert_str_eq(it[6].err.msg, "get pods: a name is required");
	for (int i = 0; i < 7; i++)
		json_decref(it[i].out);
	kube_client_free(c);
}

START_TEST(test_get_many)
{
	check_get_many(&fake_ops); /* a transport without requests: one by one */
	ck_assert_int_eq(nbatches, 0);
	check_get_many(&fake_batch_ops);
	/* the first four together; the retry and the lone fifth one by one */
	ck_assert_int_eq(nbatches, 1);
	ck_assert_uint_eq(batches[0], 4);
}
END_TEST

START_TEST(test_pagination_and_410)
{
	fake_reset();
	kube_client *c = fake_client();
	add("GET /api/v1/namespaces/a/pods?labelSelector=app%3Dx&limit=2", 200,
	    "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"continue\":\"t1\",\"resourceVersion\":\"5\"},"
	    "\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}]}");
	add("GET /api/v1/namespaces/a/pods?labelSelector=app%3Dx&limit=2&continue=t1", 410,
	    "{\"kind\":\"Status\",\"reason\":\"Expired\",\"message\":\"continue token expired\",\"code\":410}");
	/* restarted from the beginning */
	add("GET /api/v1/namespaces/a/pods?labelSelector=app%3Dx&limit=2", 200,
	    "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"continue\":\"u1\",\"resourceVersion\":\"9\"},"
	    "\"items\":[{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}]}");
	add("GET /api/v1/namespaces/a/pods?labelSelector=app%3Dx&limit=2&continue=u1", 200,
	    "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"continue\":\"u2\",\"resourceVersion\":\"9\"},"
	    "\"items\":[{\"metadata\":{\"name\":\"c\"}},{\"metadata\":{\"name\":\"d\"}}]}");
	add("GET /api/v1/namespaces/a/pods?labelSelector=app%3Dx&limit=2&continue=u2", 200,
	    "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\"},"
	    "\"items\":[{\"metadata\":{\"name\":\"e\"}}]}");
	kube_list_opts lo = {.label_selector = "app=x", .limit = 2};
	json_t *out = NULL;
	bh_error e = {0};
	ck_assert_msg(kube_list(c, &pods, "a", &lo, &out, &e) == 0, "%s", e.msg);
	json_t *items = json_object_get(out, "items");
	ck_assert_uint_eq(json_array_size(items), 5);
	const char *want = "abcde";
	for (size_t i = 0; i < 5; i++) {
		const char *n = json_string_value(json_object_get(json_object_get(json_array_get(items, i), "metadata"), "name"));
		ck_assert_int_eq(n[0], want[i]);
	}
	ck_assert_str_eq(json_string_value(json_object_get(out, "kind")), "PodList");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(out, "metadata"), "resourceVersion")), "9");
	json_decref(out);

	/* max_items */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("GET", 200, "{\"metadata\":{\"continue\":\"x\"},\"items\":[{},{}]}");
	add("GET", 200, "{\"metadata\":{},\"items\":[{},{}]}");
	lo.max_items = 3;
	ck_assert_int_eq(kube_list(c, &pods, "a", &lo, &out, &e), BH_ELIMIT);
	kube_client_free(c);
}
END_TEST

START_TEST(test_mapping)
{
	fake_reset();
	kube_client *c = fake_client();
	add("GET /apis/example.com/v1", 200,
	    "{\"kind\":\"APIResourceList\",\"groupVersion\":\"example.com/v1\",\"resources\":["
	    "{\"name\":\"widgets\",\"namespaced\":true,\"kind\":\"Widget\"},"
	    "{\"name\":\"widgets/status\",\"namespaced\":true,\"kind\":\"Widget\"}]}");
	kube_resource r;
	bh_error e = {0};
	ck_assert_msg(kube_mapping_get(c, "example.com/v1", "Widget", &r, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(r.resource, "widgets");
	ck_assert_str_eq(r.group, "example.com");
	ck_assert_int_eq(r.namespaced, 1);
	/* cached: no request */
	ck_assert_int_eq(kube_mapping_get(c, "example.com/v1", "Widget", &r, &e), 0);
	ck_assert_int_eq(F.pos, 1);
	/* unknown kind: rediscover once (a CRD installed a moment ago) */
	add("GET /apis/example.com/v1", 200,
	    "{\"resources\":[{\"name\":\"widgets\",\"namespaced\":true,\"kind\":\"Widget\"},"
	    "{\"name\":\"gadgets\",\"namespaced\":false,\"kind\":\"Gadget\"}]}");
	ck_assert_int_eq(kube_mapping_get(c, "example.com/v1", "Gadget", &r, &e), 0);
	ck_assert_str_eq(r.resource, "gadgets");
	ck_assert_int_eq(r.namespaced, 0);
	char *p = kube_path_new(&r, "ignored", "g1", "status");
	ck_assert_str_eq(p, "/apis/example.com/v1/gadgets/g1/status");
	free(p);
	/* still unknown after rediscovery */
	add("GET /apis/example.com/v1", 200, "{\"resources\":[]}");
	ck_assert_int_eq(kube_mapping_get(c, "example.com/v1", "Nope", &r, &e), BH_ENOTFOUND);
	ck_assert_str_eq(e.msg, "no matches for kind \"Nope\" in version \"example.com/v1\""); /* k8s' NoKindMatchError */
	/* group/version not served */
	add("GET /api/v2", 404, "{\"message\":\"not found\"}");
	ck_assert_int_eq(kube_mapping_get(c, "v2", "Pod", &r, &e), BH_ENOTFOUND);
	ck_assert_str_eq(e.msg, "no matches for kind \"Pod\" in version \"v2\"");
	/* Helm's APIVersions */
	add("GET /api", 200, "{\"versions\":[\"v1\"]}");
	add("GET /apis", 200, "{\"groups\":[{\"name\":\"apps\",\"versions\":[{\"groupVersion\":\"apps/v1\"}]},"
	                    "{\"name\":\"metrics\",\"versions\":[{\"groupVersion\":\"metrics/v1beta1\"}]}]}");
	add("GET /api/v1", 200, "{\"resources\":[{\"name\":\"pods\",\"kind\":\"Pod\"},{\"name\":\"pods/log\","
	                       "\"kind\":\"Pod\"},{\"name\":\"bindings\",\"kind\":\"Binding\"}]}");
	add("GET /apis/apps/v1", 200, "{\"resources\":[{\"name\":\"deployments\",\"kind\":\"Deployment\"},"
	                             "{\"name\":\"deployments/scale\",\"kind\":\"Scale\"}]}");
	add("GET /apis/metrics/v1beta1", 503, "{\"message\":\"unavailable\"}");
	for (int i = 0; i < 4; i++) /* retried: GET on 503 */
		add("GET /apis/metrics/v1beta1", 503, "{\"message\":\"unavailable\"}");
	json_t *vs = NULL;
	ck_assert_msg(kube_discovery_api_versions(c, &vs, &e) == 0, "%s", e.msg);
	char *txt = json_dumps(vs, JSON_COMPACT);
	ck_assert_str_eq(txt, "[\"apps/v1\",\"apps/v1/Deployment\",\"apps/v1/Scale\",\"metrics/v1beta1\",\"v1\","
	                      "\"v1/Binding\",\"v1/Pod\"]");
	free(txt);
	json_decref(vs);
	add("GET /version", 200, "{\"gitVersion\":\"v1.35.0\"}");
	char ver[32];
	ck_assert_int_eq(kube_server_version(c, ver, sizeof ver, &e), 0);
	ck_assert_str_eq(ver, "v1.35.0");
	/* core group path */
	p = kube_path_new(&pods, "ns1", "p", NULL);
	ck_assert_str_eq(p, "/api/v1/namespaces/ns1/pods/p");
	free(p);
	p = kube_path_new(&pods, NULL, NULL, NULL);
	ck_assert_str_eq(p, "/api/v1/pods");
	free(p);
	kube_client_free(c);
}
END_TEST

/* kube_write_opts.answer_drop: the members are left out of the apply's
 * answer (the one kube_wait's first look takes), one the skim does not
 * vouch for stays; without it the answer is whole. */
START_TEST(test_apply_answer_drop)
{
	fake_reset();
	kube_client *c = fake_client();
	bh_error e = {0};
	json_t *obj = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "apps/v1", "kind", "Deployment", "metadata", "name", "d");
	kube_resource deps = {"apps", "v1", "deployments", "Deployment", 1};
	static const char *const answer =
		"{\"metadata\":{\"name\":\"d\",\"labels\":{\"a\":\"b\"},\"managedFields\":[{\"manager\":\"m\"}],"
		"\"annotations\":{\"x\":\"\u00e9\"},\"resourceVersion\":\"7\"},\"spec\":{\"replicas\":1,\"template\":{"
		"\"spec\":{\"containers\":[]}}},\"status\":{}}";
	static const char *const want[] = {
		"{\"metadata\":{\"name\":\"d\",\"annotations\":{\"x\":\"\u00e9\"},\"resourceVersion\":\"7\"},"
		"\"spec\":{\"replicas\":1},\"status\":{}}",
		NULL};
	for (int drop = 1; drop >= 0; drop--) {
		kube_write_opts wo = {.field_manager = "m", .answer_drop = drop ? kube_wait_apply_drop : NULL};
		json_t *out = NULL, *w = json_loads(drop ? want[0] : answer, 0, NULL);
		add("PATCH /apis/apps/v1/namespaces/t/deployments/d?fieldManager=m", 200, answer);
		ck_assert_int_eq(kube_apply(c, &deps, "t", obj, &wo, &out, &e), 0);
		ck_assert_msg(json_equal(out, w), "drop %d: %s", drop, json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS));
		json_decref(out);
		json_decref(w);
	}
	json_decref(obj);
	kube_client_free(c);
}
END_TEST

START_TEST(test_writes)
{
	fake_reset();
	kube_client *c = fake_client();
	const char *groups[] = {"system:serviceaccounts", "system:authenticated", NULL};
	bh_error e = {0};
	ck_assert_int_eq(kube_client_set_impersonation(c, "system:serviceaccount:t:sa", groups, &e), 0);
	json_t *obj = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata", "name",
	                        "cm", "namespace", "t");
	kube_resource cms = {"", "v1", "configmaps", "ConfigMap", 1};
	add("PATCH /api/v1/namespaces/t/configmaps/cm?dryRun=All&fieldManager=helm-controller&force=true", 200, "{}");
	kube_write_opts wo = {.field_manager = "helm-controller", .force = 1, .dry_run = 1};
	ck_assert_int_eq(kube_apply(c, &cms, "t", obj, &wo, NULL, &e), 0);
	ck_assert_str_eq(F.hdrs[0], "Impersonate-User: system:serviceaccount:t:sa|Impersonate-Group: "
	                            "system:serviceaccounts|Impersonate-Group: system:authenticated|");
	/* SSA without a field manager is refused before sending */
	wo.field_manager = NULL;
	ck_assert_int_eq(kube_apply(c, &cms, "t", obj, &wo, NULL, &e), BH_EINVAL);
	/* status subresource update */
	add("PUT /api/v1/namespaces/t/configmaps/cm/status", 200, "{}");
	kube_write_opts so = {.subresource = "status"};
	ck_assert_int_eq(kube_update(c, &cms, "t", obj, &so, NULL, &e), 0);
	/* merge and JSON patches */
	add("PATCH /api/v1/namespaces/t/configmaps/cm", 200, "{}");
	ck_assert_int_eq(kube_patch(c, &cms, "t", "cm", KUBE_PATCH_JSON, "[]", NULL, NULL, &e), 0);
	/* delete with propagation and preconditions */
	add("DELETE /api/v1/namespaces/t/configmaps/cm", 200, "{}");
	kube_delete_opts dopt = {.propagation = "Foreground", .precondition_uid = "u-1", .grace_seconds = -1};
	ck_assert_int_eq(kube_delete(c, &cms, "t", "cm", &dopt, NULL, &e), 0);
	json_t *body = json_loads(F.bodies[3], 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(body, "propagationPolicy")), "Foreground");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(body, "preconditions"), "uid")), "u-1");
	ck_assert_ptr_null(json_object_get(body, "gracePeriodSeconds"));
	json_decref(body);
	/* events */
	add("POST /api/v1/namespaces/t/events", 201, "{}");
	kube_event ev = {.type = "Warning", .reason = "InstallFailed", .message = "boom",
	                 .reporting_controller = "helm-controller"};
	ck_assert_int_eq(kube_event_create(c, obj, &ev, &e), 0);
	body = json_loads(F.bodies[4], 0, NULL);
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(body, "involvedObject"), "name")), "cm");
	ck_assert_str_eq(json_string_value(json_object_get(body, "reason")), "InstallFailed");
	ck_assert_str_eq(json_string_value(json_object_get(body, "type")), "Warning");
	json_decref(body);
	/* request smuggling is refused before anything is sent */
	kube_response resp = KUBE_RESPONSE_INIT;
	kube_request bad1 = {.method = "GET", .path = "/api/v1 HTTP/1.1\r\nX: y"};
	ck_assert_int_eq(kube_request_send(c, &bad1, &resp, &e), BH_EINVAL);
	const char *hdr[] = {"X-Evil: a\r\nImpersonate-User: admin", NULL};
	kube_request bad2 = {.method = "GET", .path = "/api", .headers = hdr};
	ck_assert_int_eq(kube_request_send(c, &bad2, &resp, &e), BH_EINVAL);
	kube_request bad3 = {.method = "GET", .path = "api"};
	ck_assert_int_eq(kube_request_send(c, &bad3, &resp, &e), BH_EINVAL);
	kube_request bad4 = {.method = "G ET", .path = "/api"};
	ck_assert_int_eq(kube_request_send(c, &bad4, &resp, &e), BH_EINVAL);
	ck_assert_int_eq(kube_client_set_impersonation(c, "a\nb", NULL, &e), BH_EINVAL);
	kube_response_free(&resp);
	/* namespaced resource without namespace */
	ck_assert_int_eq(kube_get(c, &cms, NULL, "x", NULL, NULL, &e), BH_EINVAL);
	ck_assert_int_eq(F.pos, 5);
	json_decref(obj);
	kube_client_free(c);
}
END_TEST

/* ---------------- watch ---------------- */

struct collect {
	char seen[4096];
	int relists;
	int stop_after;
	int n;
	int managed; /* items of a RELIST delivered with managedFields */
};

static int collect_fn(void *ud, kube_watch_type t, json_t *obj)
{
	struct collect *c = ud;
	const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	size_t l = strlen(c->seen);
	if (t == KUBE_WATCH_RELIST) {
		size_t i;
		json_t *it;
		json_array_foreach(json_object_get(obj, "items"), i, it)
			c->managed += json_object_get(json_object_get(it, "metadata"), "managedFields") != NULL;
		c->relists++;
		snprintf(c->seen + l, sizeof c->seen - l, "RELIST(%zu) ", json_array_size(json_object_get(obj, "items")));
	} else {
		snprintf(c->seen + l, sizeof c->seen - l, "%s:%s ", kube_watch_type_name(t), name ? name : "?");
	}
	c->n++;
	return c->stop_after && c->n >= c->stop_after;
}

static int dec_fn(void *ud, kube_watch_type t, json_t *obj)
{
	return collect_fn(ud, t, obj);
}

START_TEST(test_watch_decoder)
{
	struct collect col = {0};
	kube_watchdec d;
	kube_watchdec_init(&d, dec_fn, &col);
	const char *s = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n\n"
	                "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\"}}}\r\n"
	                "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"}}}";
	bh_error e = {0};
	for (size_t i = 0; i < strlen(s); i++)
		ck_assert_int_eq(kube_watchdec_feed(&d, s + i, 1, &e), 0);
	ck_assert_str_eq(col.seen, "ADDED:a MODIFIED:b ");
	ck_assert_int_eq(kube_watchdec_finish(&d, &e), 0);
	ck_assert_str_eq(col.seen, "ADDED:a MODIFIED:b DELETED:c ");
	kube_watchdec_free(&d);

	static const char *bad[] = {
		"{\"type\":\"ADDED\"}\n", "{\"type\":\"NOPE\",\"object\":{}}\n", "[1]\n", "{\"object\":{}}\n",
		"{\"type\":\"ADDED\",\"object\":1}\n", "{nope\n",
		"{\"type\":\"ADDED\",\"type\":\"DELETED\",\"object\":{}}\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kube_watchdec_init(&d, dec_fn, &col);
		ck_assert_int_eq(kube_watchdec_feed(&d, bad[i], strlen(bad[i]), &e), BH_EPARSE);
		kube_watchdec_free(&d);
	}
	kube_watchdec_init(&d, dec_fn, &col);
	d.max_line = 16;
	ck_assert_int_eq(kube_watchdec_feed(&d, "{\"type\":\"ADDED\",", 16, &e), 0);
	ck_assert_int_eq(kube_watchdec_feed(&d, "x", 1, &e), BH_ELIMIT);
	kube_watchdec_free(&d);
}
END_TEST

/* object.metadata.managedFields is dropped before decoding (kube/watch.c):
 * in any place of the metadata, with its comma; anywhere else it stays; a
 * line jansson would refuse is still refused */
struct obj_text {
	kube_watchdec *d;
	char *text, *tree;
	int calls;
};

static int text_fn(void *ud, kube_watch_type t, json_t *obj)
{
	struct obj_text *ot = ud;
	(void)t;
	(void)obj;
	ot->calls++;
	if (ot->d->obj_text)
		ot->text = strndup(ot->d->obj_text, ot->d->obj_len);
	ot->tree = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	return 0;
}

START_TEST(test_watch_drops_managed_fields)
{
	static const struct {
		const char *line, *want; /* the object as compact JSON, NULL = refused */
	} cases[] = {
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"managedFields\":[{\"f:x\":{}}],\"uid\":\"u\"}}}",
		 "{\"metadata\":{\"name\":\"a\",\"uid\":\"u\"}}"},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{ \"managedFields\" : [] , \"name\":\"a\"}}}",
		 "{\"metadata\":{\"name\":\"a\"}}"},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\" , \"managedFields\":[\"}\\\"\"]}}}",
		 "{\"metadata\":{\"name\":\"a\"}}"},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":{}}}}", "{\"metadata\":{}}"},
		/* not object.metadata's: kept */
		{"{\"type\":\"ADDED\",\"object\":{\"spec\":{\"managedFields\":1},\"metadata\":{\"x\":\"managedFields\"}}}",
		 "{\"spec\":{\"managedFields\":1},\"metadata\":{\"x\":\"managedFields\"}}"},
		{"{\"type\":\"ADDED\",\"object\":{\"items\":[{\"metadata\":{\"managedFields\":[]}}]}}",
		 "{\"items\":[{\"metadata\":{\"managedFields\":[]}}]}"},
		/* a value the skim leaves to jansson: dropped from the tree */
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[\"\u00e9\"],\"name\":\"a\"}}}",
		 "{\"metadata\":{\"name\":\"a\"}}"},
		/* refused as before */
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{,\"managedFields\":[]}}}", NULL},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[],}}}", NULL},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[1,]}}}", NULL},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[],\"managedFields\":[]}}}", NULL},
		{"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"managedFields\":[]}}", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		kube_watch_type t;
		json_t *obj = NULL;
		bh_error e = {0};
		int rc = kube_watch_event_parse(cases[i].line, strlen(cases[i].line), &t, &obj, &e);
		if (!cases[i].want) {
			ck_assert_msg(rc == BH_EPARSE, "case %zu accepted", i);
			continue;
		}
		ck_assert_msg(rc == 0, "case %zu: %s", i, e.msg);
		char *got = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
		ck_assert_str_eq(got, cases[i].want);
		free(got);
		/* through the stream decoder: the object's text, when given,
		 * is what was decoded */
		struct obj_text ot = {0};
		kube_watchdec d;
		kube_watchdec_init(&d, text_fn, &ot);
		ot.d = &d;
		ck_assert_int_eq(kube_watchdec_feed(&d, cases[i].line, strlen(cases[i].line), &e), 0);
		ck_assert_int_eq(kube_watchdec_finish(&d, &e), 0);
		kube_watchdec_free(&d);
		ck_assert_int_eq(ot.calls, 1);
		ck_assert_msg(ot.text || strchr(cases[i].line, 0xc3), "case %zu: no text", i);
		if (ot.text) {
			json_t *back = json_loads(ot.text, 0, NULL);
			ck_assert_msg(json_equal(back, obj), "case %zu: text %s", i, ot.text);
			json_decref(back);
		}
		free(ot.text);
		free(ot.tree);
		json_decref(obj);
	}
}
END_TEST

/* kube_watch_opts.tree_drop: the members are left out of the tree, kept in
 * the text; never out of a tree whose text is not given. */
START_TEST(test_watch_tree_drop)
{
	static const char *const drop[] = {"status.history", "spec", "no.such", NULL};
	static const struct {
		const char *line, *tree, *text; /* text NULL: none given */
	} cases[] = {
		{"{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":1},"
		 "\"status\":{\"history\":[{\"v\":1}],\"observedGeneration\":2}}}",
		 "{\"metadata\":{\"name\":\"a\"},\"status\":{\"observedGeneration\":2}}",
		 "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":1},\"status\":{\"history\":[{\"v\":1}],\"observedGeneration\":2}}"},
		/* a value the skim does not vouch for stays in the tree */
		{"{\"type\":\"MODIFIED\",\"object\":{\"spec\":{\"x\":\"\u00e9\"},\"status\":{\"history\":[]}}}",
		 "{\"spec\":{\"x\":\"\u00e9\"},\"status\":{}}", "{\"spec\":{\"x\":\"\u00e9\"},\"status\":{\"history\":[]}}"},
		/* managedFields left in the line: no text, the whole tree */
		{"{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"managedFields\":[\"\u00e9\"]},\"spec\":{},"
		 "\"status\":{\"history\":[]}}}",
		 "{\"metadata\":{},\"spec\":{},\"status\":{\"history\":[]}}", NULL},
		/* the object placed without a step over it (type, then object last),
		 * or by the step when the members are in another order or more */
		{" { \"type\" : \"MODIFIED\" , \"object\" : {\"spec\":{\"x\":1},\"status\":{\"history\":[]}} } ",
		 "{\"status\":{}}", "{\"spec\":{\"x\":1},\"status\":{\"history\":[]}}"},
		{"{\"object\":{\"spec\":{\"x\":1},\"status\":{}},\"type\":\"MODIFIED\"}", "{\"status\":{}}",
		 "{\"spec\":{\"x\":1},\"status\":{}}"},
		{"{\"type\":\"MODIFIED\",\"object\":{\"spec\":{\"x\":1},\"status\":{}},\"more\":{\"a\":\"}\"}}",
		 "{\"status\":{}}", "{\"spec\":{\"x\":1},\"status\":{}}"},
		{"{\"type\":\"MODIFIED\",\"object\":{\"spec\":{}},\"more\":{}}", "{}", "{\"spec\":{}}"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct obj_text ot = {0};
		kube_watchdec d;
		bh_error e = {0};
		kube_watchdec_init(&d, text_fn, &ot);
		ot.d = &d;
		d.drop = drop;
		ck_assert_int_eq(kube_watchdec_feed(&d, cases[i].line, strlen(cases[i].line), &e), 0);
		ck_assert_int_eq(kube_watchdec_finish(&d, &e), 0);
		kube_watchdec_free(&d);
		ck_assert_int_eq(ot.calls, 1);
		ck_assert_msg(!strcmp(ot.tree, cases[i].tree), "case %zu: tree %s", i, ot.tree);
		if (cases[i].text)
			ck_assert_msg(ot.text && !strcmp(ot.text, cases[i].text), "case %zu: text %s", i, ot.text);
		else
			ck_assert_ptr_null(ot.text);
		free(ot.text);
		free(ot.tree);
	}
}
END_TEST

/* kube_watch_opts.tree_load: the decoder reads each event (its tree
 * alone when members are dropped) with the reader it is given, and its
 * errors are the reader's: here json_loadb's, counted and then refusing
 * what it would accept when told to. */
static int loads, load_refuse;

static json_t *counting_load(const char *text, size_t len, size_t flags, json_error_t *je)
{
	loads++;
	if (load_refuse) {
		snprintf(je->text, sizeof je->text, "refused by the test's reader");
		je->column = 1;
		return NULL;
	}
	return json_loadb(text, len, flags, je);
}

START_TEST(test_watch_tree_load)
{
	static const char *const drop[] = {"status.history", NULL};
	const char *lines = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"},"
	                    "\"status\":{\"history\":[1],\"x\":2}}}\n"
	                    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\"}}}\n";
	struct collect col = {0};
	struct obj_text ot = {0};
	kube_watchdec d;
	bh_error e = {0};
	loads = load_refuse = 0;
	kube_watchdec_init(&d, dec_fn, &col);
	d.load = counting_load;
	ck_assert_int_eq(kube_watchdec_feed(&d, lines, strlen(lines), &e), 0);
	kube_watchdec_free(&d);
	ck_assert_str_eq(col.seen, "ADDED:a MODIFIED:b ");
	ck_assert_int_eq(loads, 2);
	/* the members at drop left out of the tree the reader made */
	kube_watchdec_init(&d, text_fn, &ot);
	ot.d = &d;
	d.drop = drop;
	d.load = counting_load;
	ck_assert_int_eq(kube_watchdec_feed(&d, lines, strcspn(lines, "\n") + 1, &e), 0);
	kube_watchdec_free(&d);
	ck_assert_int_eq(loads, 3);
	ck_assert_str_eq(ot.tree, "{\"metadata\":{\"name\":\"a\"},\"status\":{\"x\":2}}");
	free(ot.text);
	free(ot.tree);
	/* the reader's refusal is the event's */
	load_refuse = 1;
	kube_watchdec_init(&d, dec_fn, &col);
	d.load = counting_load;
	ck_assert_int_eq(kube_watchdec_feed(&d, lines, strlen(lines), &e), BH_EPARSE);
	kube_watchdec_free(&d);
	ck_assert_ptr_nonnull(strstr(e.msg, "refused by the test's reader"));
}
END_TEST

#define EV(t, n, rv) "{\"type\":\"" t "\",\"object\":{\"metadata\":{\"name\":\"" n "\",\"resourceVersion\":\"" rv "\"}}}\n"

START_TEST(test_watch_resume_and_relist)
{
	fake_reset();
	kube_client *c = fake_client();
	/* initial list */
	add("GET /api/v1/namespaces/a/pods?limit=500", 200,
	    "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[{\"metadata\":{\"name\":\"p0\","
	    "\"managedFields\":[{\"manager\":\"m\"}]}}]}");
	/* watch from 10: two events, then the connection drops mid-line */
	add("resourceVersion=10", 200, EV("ADDED", "p1", "11") EV("MODIFIED", "p1", "12") "{\"type\":\"ADD");
	F.steps[F.n - 1].drop = 1;
	/* resume from 12: a bookmark, then the server closes normally */
	add("resourceVersion=12", 200, "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"20\"}}}\n");
	/* resume from the bookmark: too old -> ERROR 410 event */
	add("resourceVersion=20", 200,
	    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old\"}}\n");
	/* relist */
	add("GET /api/v1/namespaces/a/pods?limit=500", 200,
	    "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"30\"},\"items\":[{},{}]}");
	/* watch from 30: an HTTP 410 this time */
	add("resourceVersion=30", 410, "{\"kind\":\"Status\",\"code\":410}");
	add("GET /api/v1/namespaces/a/pods?limit=500", 200,
	    "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"40\"},\"items\":[]}");
	/* a 503 with Retry-After, then events; the callback stops after p3 */
	add("resourceVersion=40", 503, "");
	F.steps[F.n - 1].retry_after = "3";
	add("resourceVersion=40", 200, EV("DELETED", "p2", "41") EV("ADDED", "p3", "42") EV("ADDED", "p4", "43"));
	struct collect col = {.stop_after = 7};
	bh_error e = {0};
	kube_watch_opts wo = {.timeout_seconds = 60};
	int rc = kube_watch(c, &pods, "a", &wo, collect_fn, &col, &e);
	ck_assert_msg(rc == 0, "%s", e.msg);
	ck_assert_str_eq(col.seen, "RELIST(1) ADDED:p1 MODIFIED:p1 RELIST(2) RELIST(0) DELETED:p2 ADDED:p3 ");
	ck_assert_int_eq(col.managed, 0); /* a list's items lose managedFields as events do */
	ck_assert_int_eq(F.pos, F.n);
	ck_assert_str_eq(kube_watch_last_rv(c), "42");
	ck_assert_msg(strstr(F.log[1], "watch=1&allowWatchBookmarks=true&timeoutSeconds=60") != NULL, "%s", F.log[1]);
	/* backoff after the drop (200ms), Retry-After on the 503 (3s) */
	ck_assert_int_eq(F.nslept, 2);
	ck_assert_int_eq(F.slept[0], 200);
	ck_assert_int_eq(F.slept[1], 3000);
	kube_client_free(c);
}
END_TEST

START_TEST(test_watch_gives_up)
{
	fake_reset();
	kube_client *c = fake_client();
	for (int i = 0; i < 4; i++)
		F.steps[F.n++] = (struct step){.expect = "resourceVersion=7", .rc = BH_EUNAVAIL};
	struct collect col = {0};
	bh_error e = {0};
	kube_watch_opts wo = {.resource_version = "7", .max_reconnects = 3};
	ck_assert_int_eq(kube_watch(c, &crds, NULL, &wo, collect_fn, &col, &e), BH_EUNAVAIL);
	ck_assert_str_eq(e.msg, "watch customresourcedefinitions: giving up after 4 consecutive failures: fake transport error");
	ck_assert_int_eq(F.pos, 4);
	/* 403 is not retried */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("watch=1", 403, "{\"message\":\"forbidden\",\"reason\":\"Forbidden\"}");
	ck_assert_int_eq(kube_watch(c, &crds, NULL, &wo, collect_fn, &col, &e), BH_EDENIED);
	kube_client_free(c);
}
END_TEST

/* ---------------- readiness ---------------- */

/* o with each member at kube_ready_unread set to a value the rules would
 * notice if they read it (created with its parents when absent): the three
 * readings of it are those of o. A watch for readiness leaves these
 * members out of the tree (kube/wait.c). */
static void check_unread(const json_t *o)
{
	static void (*const fn[])(const json_t *, kube_ready *) = {kube_ready_compute, kube_ready_compute_jobs,
								   kube_ready_compute_hook};
	json_t *p = json_deep_copy(o);
	const char *poison = "{\"replicas\":7,\"generation\":9,\"type\":\"LoadBalancer\",\"phase\":\"Failed\","
			     "\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}],\"spec\":{\"replicas\":7},"
			     "\"status\":{\"phase\":\"Failed\"},\"metadata\":{\"generation\":9}}";
	for (const char *const *u = kube_ready_unread; *u; u++) {
		char parent[64];
		const char *dot = strchr(*u, '.');
		ck_assert_ptr_nonnull(dot);
		ck_assert_uint_lt((size_t)(dot - *u), sizeof parent);
		memcpy(parent, *u, (size_t)(dot - *u));
		parent[dot - *u] = '\0';
		if (!json_is_object(json_object_get(p, parent)))
			json_object_set_new(p, parent, json_object());
		json_object_set_new(json_object_get(p, parent), dot + 1, json_loads(poison, 0, NULL));
	}
	for (size_t i = 0; i < sizeof fn / sizeof fn[0]; i++) {
		kube_ready a, b;
		fn[i](o, &a);
		fn[i](p, &b);
		ck_assert_msg(a.status == b.status && !strcmp(a.message, b.message), "reading %zu reads an unread member: %s / %s",
			      i, a.message, b.message);
	}
	json_decref(p);
}

static void check_ready(const char *json, kube_status want, const char *msg)
{
	json_error_t je;
	json_t *o = json_loads(json, 0, &je);
	ck_assert_msg(o != NULL, "bad test JSON: %s: %s", je.text, json);
	kube_ready r;
	kube_ready_compute(o, &r);
	ck_assert_msg(r.status == want, "%s: got %s (%s), want %s", json, kube_status_name(r.status), r.message,
	              kube_status_name(want));
	if (msg)
		ck_assert_str_eq(r.message, msg);
	check_unread(o);
	json_decref(o);
}

START_TEST(test_ready_rules)
{
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"deletionTimestamp\":\"x\"}}",
	            KUBE_STATUS_TERMINATING, "Resource scheduled for deletion");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"generation\":2},"
	            "\"status\":{\"observedGeneration\":1}}",
	            KUBE_STATUS_IN_PROGRESS, "Deployment generation is 2, but latest observed generation is 1");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":3},\"status\":{\"replicas\":3,"
	            "\"updatedReplicas\":3,\"readyReplicas\":2,\"availableReplicas\":3}}",
	            KUBE_STATUS_IN_PROGRESS, "Ready: 2/3");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":1},\"status\":{\"replicas\":1,"
	            "\"updatedReplicas\":1,\"readyReplicas\":1,\"availableReplicas\":1,\"conditions\":[{\"type\":\"Available\","
	            "\"status\":\"True\"}]}}",
	            KUBE_STATUS_CURRENT, "Deployment is available. Replicas: 1");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"progressDeadlineSeconds\":600},"
	            "\"status\":{\"replicas\":1,\"updatedReplicas\":1,\"readyReplicas\":1,\"availableReplicas\":1}}",
	            KUBE_STATUS_IN_PROGRESS, "ReplicaSet not Available");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"status\":{\"conditions\":[{\"type\":\"Progressing\","
	            "\"status\":\"False\",\"reason\":\"ProgressDeadlineExceeded\"}]}}",
	            KUBE_STATUS_FAILED, "Progress deadline exceeded");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"spec\":{\"replicas\":2},\"status\":{\"replicas\":2,"
	            "\"readyReplicas\":2,\"currentReplicas\":2,\"currentRevision\":\"a\",\"updateRevision\":\"b\"}}",
	            KUBE_STATUS_IN_PROGRESS, "Waiting for updated revision to match current");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"spec\":{\"updateStrategy\":{\"type\":\"OnDelete\"}}}",
	            KUBE_STATUS_CURRENT, NULL);
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"generation\":1},\"status\":{}}",
	            KUBE_STATUS_IN_PROGRESS, "DaemonSet status.observedGeneration not found");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"generation\":1},\"status\":{"
	            "\"observedGeneration\":1,\"desiredNumberScheduled\":2,\"currentNumberScheduled\":2,"
	            "\"updatedNumberScheduled\":2,\"numberAvailable\":2,\"numberReady\":2}}",
	            KUBE_STATUS_CURRENT, "All replicas scheduled as expected. Replicas: 2");
	check_ready("{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"spec\":{\"replicas\":2},\"status\":{"
	            "\"fullyLabeledReplicas\":1}}",
	            KUBE_STATUS_IN_PROGRESS, "Labelled: 1/2");
	check_ready("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"status\":{}}", KUBE_STATUS_IN_PROGRESS, "Job not started");
	check_ready("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"status\":{\"startTime\":\"t\",\"active\":1}}",
	            KUBE_STATUS_CURRENT, "Job in progress. success:0, active: 1, failed: 0");
	check_ready("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"spec\":{\"completions\":1},\"status\":{\"failed\":1,"
	            "\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\"}]}}",
	            KUBE_STATUS_FAILED, "Job Failed. failed: 1/1");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{"
	            "\"name\":\"c1\",\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}}",
	            KUBE_STATUS_FAILED, "Containers in CrashLoop state: c1");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":"
	            "\"Ready\",\"status\":\"True\"}]}}",
	            KUBE_STATUS_CURRENT, "Pod is Ready");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
	            "\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\"}]},\"metadata\":{"
	            "\"creationTimestamp\":\"2020-01-01T00:00:00Z\"}}",
	            KUBE_STATUS_FAILED, "Pod could not be scheduled");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"status\":{\"phase\":\"Pending\"}}",
	            KUBE_STATUS_IN_PROGRESS, "PVC is not Bound. phase: Pending");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{\"type\":\"LoadBalancer\"}}",
	            KUBE_STATUS_IN_PROGRESS, "ClusterIP not set. Service type: LoadBalancer");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{\"clusterIP\":\"10.0.0.1\"}}",
	            KUBE_STATUS_CURRENT, "Service is ready");
	check_ready("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"status\":{"
	            "\"conditions\":[{\"type\":\"Established\",\"status\":\"True\"}]}}",
	            KUBE_STATUS_CURRENT, "CRD is established");
	check_ready("{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"status\":{"
	            "\"conditions\":[{\"type\":\"NamesAccepted\",\"status\":\"False\",\"message\":\"clash\"}]}}",
	            KUBE_STATUS_FAILED, "clash");
	check_ready("{\"apiVersion\":\"apiregistration.k8s.io/v1\",\"kind\":\"APIService\",\"status\":{"
	            "\"conditions\":[{\"type\":\"Available\",\"status\":\"False\",\"message\":\"no endpoints\"}]}}",
	            KUBE_STATUS_IN_PROGRESS, "APIService not available: no endpoints");
	/* custom resources: Ready condition, Stalled, Reconciling, none */
	check_ready("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"metadata\":{\"generation\":3},\"status\":{"
	            "\"observedGeneration\":3,\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"message\":\"wait\"}]}}",
	            KUBE_STATUS_IN_PROGRESS, "wait");
	check_ready("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"status\":{\"conditions\":[{\"type\":\"Ready\","
	            "\"status\":\"True\"}]}}",
	            KUBE_STATUS_CURRENT, "Resource is Ready");
	check_ready("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\",\"status\":{\"conditions\":[{\"type\":\"Stalled\","
	            "\"status\":\"True\",\"message\":\"stuck\"}]}}",
	            KUBE_STATUS_FAILED, "stuck");
	check_ready("{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\"}", KUBE_STATUS_CURRENT, "Resource is current");
	check_ready("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}", KUBE_STATUS_CURRENT, "Resource is always ready");

	/* --wait-for-jobs: a running Job is not done */
	json_t *j = json_loads("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"status\":{\"startTime\":\"t\"}}", 0, NULL);
	kube_ready r;
	kube_ready_compute_jobs(j, &r);
	ck_assert_int_eq(r.status, KUBE_STATUS_IN_PROGRESS);
	ck_assert_str_eq(r.message, "Job in progress");
	kube_ready_compute_hook(j, &r);
	ck_assert_int_eq(r.status, KUBE_STATUS_IN_PROGRESS);
	json_decref(j);
	j = json_loads("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"spec\":{\"completions\":2},\"status\":{"
	               "\"succeeded\":2,\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\"}]}}", 0, NULL);
	kube_ready_compute_jobs(j, &r);
	ck_assert_int_eq(r.status, KUBE_STATUS_CURRENT);
	ck_assert_str_eq(r.message, "Job Completed. succeeded: 2/2");
	json_decref(j);
	/* hooks: pods must finish; other kinds are not waited for */
	j = json_loads("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"t1\"},\"status\":{\"phase\":"
	               "\"Failed\"}}", 0, NULL);
	kube_ready_compute_hook(j, &r);
	ck_assert_int_eq(r.status, KUBE_STATUS_FAILED);
	ck_assert_str_eq(r.message, "pod t1 failed");
	json_decref(j);
	j = json_loads("{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"status\":{}}", 0, NULL);
	kube_ready_compute_hook(j, &r);
	ck_assert_int_eq(r.status, KUBE_STATUS_CURRENT);
	kube_ready_compute_jobs(j, &r);
	ck_assert_int_eq(r.status, KUBE_STATUS_IN_PROGRESS);
	json_decref(j);
}
END_TEST

static const char *apps_disc = "{\"resources\":[{\"name\":\"deployments\",\"namespaced\":true,\"kind\":\"Deployment\"}]}";
static const char *batch_disc = "{\"resources\":[{\"name\":\"jobs\",\"namespaced\":true,\"kind\":\"Job\"}]}";
#define DEP_PROGRESS "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":1},\"status\":{}}"
#define DEP_READY                                                                                              \
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":1},\"status\":{\"replicas\":1,"   \
	"\"updatedReplicas\":1,\"readyReplicas\":1,\"availableReplicas\":1,\"conditions\":[{\"type\":\"Available\","   \
	"\"status\":\"True\"}]}}"
#define JOB_FAILED                                                                                             \
	"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"status\":{\"failed\":1,\"conditions\":[{\"type\":\"Failed\","  \
	"\"status\":\"True\"}]}}"

START_TEST(test_wait)
{
	fake_reset();
	kube_client *c = fake_client();
	json_t *objs[3];
	objs[0] = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "apps/v1", "kind", "Deployment", "metadata", "name",
	                    "web", "namespace", "ns");
	objs[1] = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "batch/v1", "kind", "Job", "metadata", "name", "j",
	                    "namespace", "ns");
	objs[2] = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:b}}", "apiVersion", "apps/v1", "kind", "Deployment", "metadata",
	                    "name", "paused", "namespace", "ns", "spec", "paused", 1);
	add("GET /apis/apps/v1", 200, apps_disc);
	add("GET /apis/batch/v1", 200, batch_disc);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_PROGRESS);
	add("GET /apis/batch/v1/namespaces/ns/jobs/j", 200, JOB_FAILED);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 404, "{\"message\":\"gone\"}");
	add("GET /apis/batch/v1/namespaces/ns/jobs/j", 200, JOB_FAILED);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_READY);
	add("GET /apis/batch/v1/namespaces/ns/jobs/j", 200, JOB_FAILED);
	bh_error e = {0};
	kube_wait_opts wo = {.mode = KUBE_WAIT_READY, .timeout_ms = 60000, .interval_ms = 700};
	/* the Failed Job does not hold the wait up; the paused Deployment is never read */
	ck_assert_int_eq(kube_wait(c, objs, 3, &wo, &e), BH_EEXEC);
	ck_assert_str_eq(e.msg, "resource Job/ns/j not ready. status: Failed, message: Job Failed. failed: 1/1");
	ck_assert_int_eq(F.pos, F.n);
	ck_assert_int_eq(F.nslept, 2);
	ck_assert_int_eq(F.slept[0], 700);

	/* timeout: polls until the deadline, then Helm's message */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	for (int i = 0; i < 4; i++)
		add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_PROGRESS);
	wo.timeout_ms = 2500;
	wo.interval_ms = 1000;
	ck_assert_int_eq(kube_wait(c, objs, 1, &wo, &e), BH_ETIMEOUT);
	ck_assert_str_eq(e.msg, "resource Deployment/ns/web not ready. status: InProgress, message: Replicas: 0/1\n"
	                        "context deadline exceeded");
	ck_assert_int_eq(F.nslept, 3);
	ck_assert_int_eq(F.slept[2], 500);

	/* deletion */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_READY);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 404, "{}");
	wo.mode = KUBE_WAIT_DELETED;
	ck_assert_msg(kube_wait(c, objs, 1, &wo, &e) == 0, "%s", e.msg);
	/* forbidden ends the wait at once */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("GET", 403, "{\"message\":\"no\",\"reason\":\"Forbidden\"}");
	wo.mode = KUBE_WAIT_READY;
	ck_assert_int_eq(kube_wait(c, objs, 1, &wo, &e), BH_EDENIED);
	for (int i = 0; i < 3; i++)
		json_decref(objs[i]);
	kube_client_free(c);
}
END_TEST

/* The last object left is watched from its last look, not polled. */
#define DEP_RV(rv, status)                                                                                    \
	"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\",\"resourceVersion\":\"" rv \
	"\"},\"spec\":{\"replicas\":1},\"status\":" status "}"
#define READY_STATUS                                                                                           \
	"{\"replicas\":1,\"updatedReplicas\":1,\"readyReplicas\":1,\"availableReplicas\":1,\"conditions\":[{"      \
	"\"type\":\"Available\",\"status\":\"True\"}]}"
#define WEV(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"

START_TEST(test_wait_watch)
{
	fake_reset();
	kube_client *c = fake_client();
	json_t *obj = json_pack("{s:s,s:s,s:{s:s,s:s}}", "apiVersion", "apps/v1", "kind", "Deployment", "metadata", "name",
				"web", "namespace", "ns");
	bh_error e = {0};
	kube_wait_opts wo = {.mode = KUBE_WAIT_READY, .timeout_ms = 90000};
	add("GET /apis/apps/v1", 200, apps_disc);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_RV("5", "{}"));
	add("GET /apis/apps/v1/namespaces/ns/deployments?watch=1&allowWatchBookmarks=true&timeoutSeconds=60&resourceVersion=5"
	    "&fieldSelector=metadata.name%3Dweb",
	    200,
	    WEV("BOOKMARK", "{\"kind\":\"Deployment\",\"metadata\":{\"resourceVersion\":\"6\"}}")
	    WEV("MODIFIED", DEP_RV("7", "{\"replicas\":1}")) WEV("MODIFIED", DEP_RV("8", READY_STATUS))
	    WEV("MODIFIED", DEP_RV("9", "{}")));
	ck_assert_msg(kube_wait(c, &obj, 1, &wo, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(F.pos, F.n); /* one watch, stopped at the first ready look */
	ck_assert_int_eq(F.nslept, 0);

	/* 410 Gone: the object is listed again, and that look is the answer */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_RV("5", "{}"));
	add("GET /apis/apps/v1/namespaces/ns/deployments?watch=1", 200,
	    WEV("ERROR", "{\"kind\":\"Status\",\"code\":410,\"message\":\"too old resource version\"}"));
	add("GET /apis/apps/v1/namespaces/ns/deployments?fieldSelector=metadata.name%3Dweb", 200,
	    "{\"kind\":\"DeploymentList\",\"metadata\":{\"resourceVersion\":\"20\"},\"items\":[" DEP_RV("19", READY_STATUS) "]}");
	ck_assert_msg(kube_wait(c, &obj, 1, &wo, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(F.pos, F.n);

	/* a refused watch (no permission to watch, an older broker): polling */
	fake_reset();
	kube_client_set_hooks(c, fake_sleep, unit_no_jitter, &F);
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_RV("5", "{}"));
	add("GET /apis/apps/v1/namespaces/ns/deployments?watch=1", 403, "{\"message\":\"no\",\"reason\":\"Forbidden\"}");
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_RV("5", "{}"));
	add("GET /apis/apps/v1/namespaces/ns/deployments/web", 200, DEP_RV("8", READY_STATUS));
	ck_assert_msg(kube_wait(c, &obj, 1, &wo, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(F.pos, F.n);
	ck_assert_int_eq(F.nslept, 2);
	json_decref(obj);
	kube_client_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kube");
	TCase *tc = tcase_create("config");
	tcase_add_test(tc, test_config_basic);
	tcase_add_test(tc, test_config_json_and_errors);
	tcase_add_test(tc, test_config_strict);
	tcase_add_test(tc, test_config_strict_addresses);
	tcase_add_test(tc, test_config_credentials_ctl);
	tcase_add_test(tc, test_config_files_relative);
	tcase_add_test(tc, test_config_in_cluster);
	tcase_add_test(tc, test_config_limits);
	tcase_add_test(tc, test_config_exec);
	suite_add_tcase(s, tc);
	tc = tcase_create("client");
	tcase_add_test(tc, test_retry_after_and_budget);
	tcase_add_test(tc, test_typed_errors);
	tcase_add_test(tc, test_get_many);
	tcase_add_test(tc, test_pagination_and_410);
	tcase_add_test(tc, test_mapping);
	tcase_add_test(tc, test_writes);
	tcase_add_test(tc, test_apply_answer_drop);
	suite_add_tcase(s, tc);
	tc = tcase_create("watch");
	tcase_add_test(tc, test_watch_decoder);
	tcase_add_test(tc, test_watch_drops_managed_fields);
	tcase_add_test(tc, test_watch_tree_load);
	tcase_add_test(tc, test_watch_tree_drop);
	tcase_add_test(tc, test_watch_resume_and_relist);
	tcase_add_test(tc, test_watch_gives_up);
	suite_add_tcase(s, tc);
	tc = tcase_create("ready");
	tcase_add_test(tc, test_ready_rules);
	tcase_add_test(tc, test_wait);
	tcase_add_test(tc, test_wait_watch);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
