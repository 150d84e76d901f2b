/* kube/config.c — kubeconfig parsing, strict tenant mode, in-cluster config. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kube/addr.h"
#include "kube/config.h"
#include "kube/internal.h"
#include "lib/yaml.h"
#include "lib/buf.h"

#define SA_DIR "var/run/secrets/kubernetes.io/serviceaccount"
#define MAX_CRED_FILE (1u << 20)

void kube_config_free(kube_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->server);
	free(cfg->tls_server_name);
	free(cfg->proxy_url);
	free(cfg->ca_pem);
	free(cfg->cert_pem);
	if (cfg->key_pem) {
		explicit_bzero(cfg->key_pem, cfg->key_len);
		free(cfg->key_pem);
	}
	if (cfg->token) {
		explicit_bzero(cfg->token, strlen(cfg->token));
		free(cfg->token);
	}
	free(cfg->token_file);
	free(cfg->username);
	if (cfg->password) {
		explicit_bzero(cfg->password, strlen(cfg->password));
		free(cfg->password);
	}
	free(cfg->namespace_);
	free(cfg->context);
	free(cfg->user);
	kube_strv_free(cfg->exec_argv);
	kube_strv_free(cfg->exec_env);
	free(cfg->exec_api_version);
	free(cfg);
}

static int dupfield(char **dst, const char *src, size_t len)
{
	if (!src) {
		*dst = NULL;
		return 0;
	}
	*dst = malloc(len + 1);
	if (!*dst)
		return -1;
	memcpy(*dst, src, len);
	(*dst)[len] = 0;
	return 0;
}

kube_config *kube_config_dup(const kube_config *c, bh_error *err)
{
	kube_config *d = calloc(1, sizeof *d);
	if (!d)
		goto oom;
	*d = *c;
	d->server = d->tls_server_name = d->proxy_url = d->ca_pem = d->cert_pem = d->key_pem = NULL;
	d->token = d->token_file = d->username = d->password = d->namespace_ = d->context = d->user = NULL;
	d->exec_argv = d->exec_env = NULL;
	d->exec_api_version = NULL;
	if ((c->exec_argv && !(d->exec_argv = kube_strv_dup(c->exec_argv))) ||
	    (c->exec_env && !(d->exec_env = kube_strv_dup(c->exec_env))) ||
	    dupfield(&d->exec_api_version, c->exec_api_version, c->exec_api_version ? strlen(c->exec_api_version) : 0))
		goto oom;
	if (dupfield(&d->server, c->server, c->server ? strlen(c->server) : 0) ||
	    dupfield(&d->tls_server_name, c->tls_server_name, c->tls_server_name ? strlen(c->tls_server_name) : 0) ||
	    dupfield(&d->proxy_url, c->proxy_url, c->proxy_url ? strlen(c->proxy_url) : 0) ||
	    dupfield(&d->ca_pem, c->ca_pem, c->ca_len) ||
	    dupfield(&d->cert_pem, c->cert_pem, c->cert_len) ||
	    dupfield(&d->key_pem, c->key_pem, c->key_len) ||
	    dupfield(&d->token, c->token, c->token ? strlen(c->token) : 0) ||
	    dupfield(&d->token_file, c->token_file, c->token_file ? strlen(c->token_file) : 0) ||
	    dupfield(&d->username, c->username, c->username ? strlen(c->username) : 0) ||
	    dupfield(&d->password, c->password, c->password ? strlen(c->password) : 0) ||
	    dupfield(&d->namespace_, c->namespace_, c->namespace_ ? strlen(c->namespace_) : 0) ||
	    dupfield(&d->context, c->context, c->context ? strlen(c->context) : 0) ||
	    dupfield(&d->user, c->user, c->user ? strlen(c->user) : 0))
		goto oom;
	return d;
oom:
	kube_config_free(d);
	bh_error_set(err, BH_ENOMEM, "out of memory");
	return NULL;
}

/* Finds the entry named `name` in a list of {name, <inner>: {...}}. */
static json_t *named_entry(json_t *list, const char *name, const char *inner, size_t *index)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		if (n && !strcmp(n, name)) {
			*index = i;
			json_t *in = json_object_get(e, inner);
			return in ? in : json_null();
		}
	}
	return NULL;
}

/* Optional string field; BH_EINVAL when present but not a string. */
static int get_str(json_t *obj, const char *key, const char *where, const char **out, bh_error *err)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bh_error_set(err, BH_EINVAL, "%s.%s: must be a string", where, key);
	*out = json_string_value(v);
	if (strlen(*out) != json_string_length(v))
		return bh_error_set(err, BH_EINVAL, "%s.%s: contains a NUL character", where, key);
	if (!**out)
		*out = NULL;
	return 0;
}

static int get_bool(json_t *obj, const char *key, const char *where, int *out, bh_error *err)
{
	json_t *v = json_object_get(obj, key);
	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	if (json_is_string(v) && (!strcmp(json_string_value(v), "true") || !strcmp(json_string_value(v), "false"))) {
		*out = !strcmp(json_string_value(v), "true");
		return 0;
	}
	return bh_error_set(err, BH_EINVAL, "%s.%s: must be true or false", where, key);
}

static char *resolve_path(const char *path, const kube_config_opts *o)
{
	if (path[0] == '/' || !o->base_dir || !o->base_dir[0])
		return strdup(path);
	bh_buf b = BH_BUF_INIT;
	bh_buf_printf(&b, "%s/%s", o->base_dir, path);
	return bh_buf_ok(&b) ? bh_buf_detach(&b) : NULL;
}

/* Loads a credential from "<key>-data" (base64) or "<key>" (a file path). */
static int load_blob(json_t *obj, const char *key, const char *where, const kube_config_opts *o,
                     char **out, size_t *out_len, bh_error *err)
{
	char dkey[64];
	snprintf(dkey, sizeof dkey, "%s-data", key);
	const char *data, *file;
	int rc = get_str(obj, dkey, where, &data, err);
	if (!rc)
		rc = get_str(obj, key, where, &file, err);
	if (rc)
		return rc;
	/* strict mode refuses the path even when inline data would win */
	if (file && o->strict && !(o->allow & KUBE_ALLOW_FILES))
		return bh_error_set(err, BH_EDENIED, "%s.%s: file paths are not allowed in tenant kubeconfigs", where,
		                    key);
	if (data) {
		*out = kube_base64_decode(data, strlen(data), out_len);
		if (!*out)
			return bh_error_set(err, BH_EINVAL, "%s.%s: not valid base64", where, dkey);
		return 0;
	}
	if (file) {
		if (o->strict && !(o->allow & KUBE_ALLOW_FILES))
			return bh_error_set(err, BH_EDENIED,
			                    "%s.%s: file paths are not allowed in tenant kubeconfigs", where, key);
		char *p = resolve_path(file, o);
		if (!p)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		*out = kube_file_read(p, MAX_CRED_FILE, out_len, err);
		free(p);
		if (!*out)
			return bh_error_prefix(err, "%s.%s", where, key);
	}
	return 0;
}

static const char *trim_dup(const char *s, size_t n, char **out)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
		s++;
		n--;
	}
	dupfield(out, s, n);
	return *out;
}

static int parse_cluster(kube_config *cfg, json_t *cl, const char *where, const kube_config_opts *o,
                         bh_error *err)
{
	if (!json_is_object(cl))
		return bh_error_set(err, BH_EINVAL, "%s: must be a mapping", where);
	const char *server, *tsn, *proxy;
	int insecure;
	int rc = get_str(cl, "server", where, &server, err);
	if (!rc)
		rc = get_str(cl, "tls-server-name", where, &tsn, err);
	if (!rc)
		rc = get_str(cl, "proxy-url", where, &proxy, err);
	if (!rc)
		rc = get_bool(cl, "insecure-skip-tls-verify", where, &insecure, err);
	if (rc)
		return rc;
	if (!server)
		return bh_error_set(err, BH_EINVAL, "%s.server: missing", where);
	if (kube_has_ctl(server) || (tsn && kube_has_ctl(tsn)) || (proxy && kube_has_ctl(proxy)))
		return bh_error_set(err, BH_EINVAL, "%s.%s: contains a control character", where,
		                    kube_has_ctl(server) ? "server" : tsn && kube_has_ctl(tsn) ? "tls-server-name" : "proxy-url");
	if (strncmp(server, "https://", 8) && strncmp(server, "http://", 7))
		return bh_error_set(err, BH_EINVAL, "%s.server: \"%s\" is not an http(s) URL", where, server);
	if (o->strict) {
		char w[160];
		snprintf(w, sizeof w, "%s.server", where);
		if ((rc = kube_url_check_strict(server, 1, w, err)) < 0)
			return rc;
		cfg->strict = 1;
	}
	if (proxy && o->strict && !(o->allow & KUBE_ALLOW_PROXY))
		return bh_error_set(err, BH_EDENIED, "%s.proxy-url: proxies are not allowed in tenant kubeconfigs",
		                    where);
	if (insecure && o->strict && !(o->allow & KUBE_ALLOW_INSECURE))
		return bh_error_set(err, BH_EDENIED,
		                    "%s.insecure-skip-tls-verify: disabling TLS verification is not allowed in tenant kubeconfigs",
		                    where);
	size_t n = strlen(server);
	while (n > 0 && server[n - 1] == '/')
		n--;
	if (dupfield(&cfg->server, server, n) || dupfield(&cfg->tls_server_name, tsn, tsn ? strlen(tsn) : 0) ||
	    dupfield(&cfg->proxy_url, proxy, proxy ? strlen(proxy) : 0))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	cfg->insecure = insecure;
	rc = load_blob(cl, "certificate-authority", where, o, &cfg->ca_pem, &cfg->ca_len, err);
	if (rc)
		return rc;
	if (cfg->ca_pem && insecure)
		return bh_error_set(err, BH_EINVAL,
		                    "%s: certificate-authority and insecure-skip-tls-verify cannot both be set", where);
	return 0;
}

static int parse_exec(kube_config *cfg, json_t *x, const char *where, bh_error *err)
{
	char w[128];
	snprintf(w, sizeof w, "%s.exec", where);
	if (!json_is_object(x))
		return bh_error_set(err, BH_EINVAL, "%s: must be a mapping", w);
	const char *cmd, *av;
	int rc = get_str(x, "command", w, &cmd, err);
	if (!rc)
		rc = get_str(x, "apiVersion", w, &av, err);
	if (rc)
		return rc;
	if (!cmd)
		return bh_error_set(err, BH_EINVAL, "%s.command: missing", w);
	if (!av || (strcmp(av, "client.authentication.k8s.io/v1") && strcmp(av, "client.authentication.k8s.io/v1beta1")))
		return bh_error_set(err, BH_EINVAL,
		                    "%s.apiVersion: must be client.authentication.k8s.io/v1 or v1beta1", w);
	const char *mode = json_string_value(json_object_get(x, "interactiveMode"));
	if (mode && !strcmp(mode, "Always"))
		return bh_error_set(err, BH_EINVAL, "%s.interactiveMode: Always needs a terminal, which a controller has not",
		                    w);
	json_t *args = json_object_get(x, "args"), *env = json_object_get(x, "env");
	if ((args && !json_is_array(args) && !json_is_null(args)) || (env && !json_is_array(env) && !json_is_null(env)))
		return bh_error_set(err, BH_EINVAL, "%s: args and env must be lists", w);
	size_t na = json_array_size(args), ne = json_array_size(env), i;
	if (na > 256 || ne > 256)
		return bh_error_set(err, BH_ELIMIT, "%s: too many args or env entries", w);
	cfg->exec_argv = calloc(na + 2, sizeof(char *));
	cfg->exec_env = calloc(ne + 1, sizeof(char *));
	if (!cfg->exec_argv || !cfg->exec_env || !(cfg->exec_argv[0] = strdup(cmd)) ||
	    !(cfg->exec_api_version = strdup(av)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	json_t *e;
	json_array_foreach(args, i, e) {
		if (!json_is_string(e))
			return bh_error_set(err, BH_EINVAL, "%s.args[%zu]: must be a string", w, i);
		if (!(cfg->exec_argv[i + 1] = strdup(json_string_value(e))))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(env, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));
		const char *val = json_string_value(json_object_get(e, "value"));
		if (!n || !*n || strchr(n, '=') || !val)
			return bh_error_set(err, BH_EINVAL, "%s.env[%zu]: needs a name (without '=') and a value", w, i);
		bh_buf b = BH_BUF_INIT;
		bh_buf_printf(&b, "%s=%s", n, val);
		if (!bh_buf_ok(&b))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		cfg->exec_env[i] = bh_buf_detach(&b);
	}
	return 0;
}

static int parse_user(kube_config *cfg, json_t *u, const char *where, const kube_config_opts *o,
                      bh_error *err)
{
	if (json_is_null(u))
		return 0;
	if (!json_is_object(u))
		return bh_error_set(err, BH_EINVAL, "%s: must be a mapping", where);
	json_t *v;
	if ((v = json_object_get(u, "exec")) && !json_is_null(v)) {
		if (o->strict && !(o->allow & KUBE_ALLOW_EXEC))
			return bh_error_set(err, BH_EDENIED,
			                    "%s.exec: exec credential plugins are not allowed in tenant kubeconfigs", where);
		int rc = parse_exec(cfg, v, where, err);
		if (rc)
			return rc;
	}
	if ((v = json_object_get(u, "auth-provider")) && !json_is_null(v)) {
		if (o->strict && !(o->allow & KUBE_ALLOW_AUTH_PROVIDER))
			return bh_error_set(err, BH_EDENIED,
			                    "%s.auth-provider: auth providers are not allowed in tenant kubeconfigs", where);
		return bh_error_set(err, BH_EINVAL, "%s.auth-provider: auth providers are not supported by bulkhead",
		                    where);
	}
	static const char *const unsupported[] = {"as", "as-uid", "as-groups", "as-user-extra"};
	for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
		if ((v = json_object_get(u, unsupported[i])) && !json_is_null(v))
			return bh_error_set(err, BH_EINVAL,
			                    "%s.%s: impersonation in kubeconfig files is not supported by bulkhead", where,
			                    unsupported[i]);
	const char *token, *token_file, *user, *pass;
	int rc = get_str(u, "token", where, &token, err);
	if (!rc)
		rc = get_str(u, "tokenFile", where, &token_file, err);
	if (!rc)
		rc = get_str(u, "username", where, &user, err);
	if (!rc)
		rc = get_str(u, "password", where, &pass, err);
	if (rc)
		return rc;
	if (token_file && o->strict && !(o->allow & KUBE_ALLOW_FILES))
		return bh_error_set(err, BH_EDENIED, "%s.tokenFile: file paths are not allowed in tenant kubeconfigs",
		                    where);
	if (token_file && !token) {
		cfg->token_file = resolve_path(token_file, o);
		if (!cfg->token_file)
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		if (!kube_config_token(cfg, err))
			return bh_error_prefix(err, "%s.tokenFile", where);
	}
	if (token && !trim_dup(token, strlen(token), &cfg->token))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	/* what goes into an HTTP header may not end it (Go's net/http, and so
	 * kubectl, refuses such a value too) */
	if (cfg->token && kube_has_ctl(cfg->token))
		return bh_error_set(err, BH_EINVAL, "%s.token: contains a control character (CR, LF, ...); a bearer token "
				    "is sent in an HTTP header", where);
	if ((user && strpbrk(user, "\r\n")) || (pass && strpbrk(pass, "\r\n")))
		return bh_error_set(err, BH_EINVAL, "%s.%s: contains CR or LF", where,
				    user && strpbrk(user, "\r\n") ? "username" : "password");
	if (user && (dupfield(&cfg->username, user, strlen(user)) ||
	             dupfield(&cfg->password, pass ? pass : "", pass ? strlen(pass) : 0)))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	rc = load_blob(u, "client-certificate", where, o, &cfg->cert_pem, &cfg->cert_len, err);
	if (!rc)
		rc = load_blob(u, "client-key", where, o, &cfg->key_pem, &cfg->key_len, err);
	if (rc)
		return rc;
	if (!!cfg->cert_pem != !!cfg->key_pem)
		return bh_error_set(err, BH_EINVAL, "%s: client-certificate and client-key must be given together",
		                    where);
	return 0;
}

static int parse_doc(kube_config *cfg, json_t *root, const kube_config_opts *o, bh_error *err)
{
	if (!json_is_object(root))
		return bh_error_set(err, BH_EINVAL, "kubeconfig: not a mapping");
	const char *kind = json_string_value(json_object_get(root, "kind"));
	if (kind && strcmp(kind, "Config"))
		return bh_error_set(err, BH_EINVAL, "kind: \"%s\" is not Config", kind);
	json_t *clusters = json_object_get(root, "clusters");
	json_t *users = json_object_get(root, "users");
	json_t *contexts = json_object_get(root, "contexts");
	if (clusters && !json_is_array(clusters) && !json_is_null(clusters))
		return bh_error_set(err, BH_EINVAL, "clusters: must be a list");
	if (users && !json_is_array(users) && !json_is_null(users))
		return bh_error_set(err, BH_EINVAL, "users: must be a list");
	if (contexts && !json_is_array(contexts) && !json_is_null(contexts))
		return bh_error_set(err, BH_EINVAL, "contexts: must be a list");
	const char *ctxname = o->context;
	if (!ctxname || !*ctxname) {
		int rc = get_str(root, "current-context", "kubeconfig", &ctxname, err);
		if (rc)
			return rc;
	}
	if (!ctxname)
		return bh_error_set(err, BH_EINVAL, "current-context: not set and no context was chosen");
	size_t ci, ki = 0, ui = 0;
	json_t *ctx = named_entry(contexts, ctxname, "context", &ci);
	if (!ctx)
		return bh_error_set(err, BH_ENOTFOUND, "contexts: no context named \"%s\"", ctxname);
	char where[96];
	snprintf(where, sizeof where, "contexts[%zu].context", ci);
	if (!json_is_object(ctx))
		return bh_error_set(err, BH_EINVAL, "%s: must be a mapping", where);
	const char *clname, *uname, *ns;
	int rc = get_str(ctx, "cluster", where, &clname, err);
	if (!rc)
		rc = get_str(ctx, "user", where, &uname, err);
	if (!rc)
		rc = get_str(ctx, "namespace", where, &ns, err);
	if (rc)
		return rc;
	if (!clname)
		return bh_error_set(err, BH_EINVAL, "%s.cluster: missing", where);
	json_t *cl = named_entry(clusters, clname, "cluster", &ki);
	if (!cl)
		return bh_error_set(err, BH_ENOTFOUND, "clusters: no cluster named \"%s\" (used by context \"%s\")",
		                    clname, ctxname);
	snprintf(where, sizeof where, "clusters[%zu].cluster", ki);
	rc = parse_cluster(cfg, cl, where, o, err);
	if (rc)
		return rc;
	if (uname) {
		json_t *u = named_entry(users, uname, "user", &ui);
		if (!u)
			return bh_error_set(err, BH_ENOTFOUND, "users: no user named \"%s\" (used by context \"%s\")",
			                    uname, ctxname);
		snprintf(where, sizeof where, "users[%zu].user", ui);
		rc = parse_user(cfg, u, where, o, err);
		if (rc)
			return rc;
	}
	if (dupfield(&cfg->namespace_, ns ? ns : "default", strlen(ns ? ns : "default")) ||
	    dupfield(&cfg->context, ctxname, strlen(ctxname)) || dupfield(&cfg->user, uname, uname ? strlen(uname) : 0))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

kube_config *kube_config_parse(const char *data, size_t len, const kube_config_opts *opts, bh_error *err)
{
	static const kube_config_opts none = {0};
	if (!opts)
		opts = &none;
	if (len > KUBE_CONFIG_MAX_BYTES) {
		bh_error_set(err, BH_ELIMIT, "kubeconfig: larger than %u bytes", KUBE_CONFIG_MAX_BYTES);
		return NULL;
	}
	/* client-go reads kubeconfigs with sigs.k8s.io/yaml, as lib/yaml does */
	yaml_limits lim = {KUBE_CONFIG_MAX_BYTES, KUBE_CONFIG_MAX_DEPTH, KUBE_CONFIG_MAX_NODES};
	json_t *root = NULL;
	if (yaml_parse_any(data, len, &lim, YAML_KEEP_INTS, &root, err) < 0) {
		bh_error_prefix(err, "kubeconfig");
		return NULL;
	}
	kube_config *cfg = calloc(1, sizeof *cfg);
	if (!cfg) {
		json_decref(root);
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	int rc = parse_doc(cfg, root, opts, err);
	json_decref(root);
	if (rc) {
		kube_config_free(cfg);
		return NULL;
	}
	return cfg;
}

kube_config *kube_config_load(const char *path, const kube_config_opts *opts, bh_error *err)
{
	size_t len;
	char *data = kube_file_read(path, KUBE_CONFIG_MAX_BYTES, &len, err);
	if (!data)
		return NULL;
	kube_config_opts o = {0};
	if (opts)
		o = *opts;
	char *pathcopy = NULL;
	if (!o.base_dir) {
		pathcopy = strdup(path);
		if (!pathcopy) {
			free(data);
			bh_error_set(err, BH_ENOMEM, "out of memory");
			return NULL;
		}
		o.base_dir = dirname(pathcopy);
	}
	kube_config *cfg = kube_config_parse(data, len, &o, err);
	free(data);
	free(pathcopy);
	if (!cfg)
		bh_error_prefix(err, "%s", path);
	return cfg;
}

const char *kube_config_token(kube_config *cfg, bh_error *err)
{
	if (!cfg->token_file)
		return cfg->token;
	time_t now = time(NULL);
	if (cfg->token && now == cfg->token_checked)
		return cfg->token;
	struct stat st;
	if (stat(cfg->token_file, &st) != 0) {
		if (cfg->token)
			return cfg->token; /* keep the last good token while the file is being replaced */
		bh_error_set(err, BH_EIO, "token file %s: %s", cfg->token_file, strerror(errno));
		return NULL;
	}
	cfg->token_checked = now;
	if (cfg->token && st.st_mtim.tv_sec == cfg->token_mtime && st.st_mtim.tv_nsec == cfg->token_mtime_ns)
		return cfg->token;
	size_t len;
	char *data = kube_file_read(cfg->token_file, MAX_CRED_FILE, &len, err);
	if (!data)
		return cfg->token;
	char *tok = NULL;
	if (memchr(data, '\0', len)) {
		explicit_bzero(data, len);
		free(data);
		bh_error_set(err, BH_EINVAL, "token file %s: contains a NUL character", cfg->token_file);
		return cfg->token;
	}
	trim_dup(data, len, &tok);
	explicit_bzero(data, len);
	free(data);
	if (!tok) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return cfg->token;
	}
	if (!*tok) {
		free(tok);
		if (!cfg->token)
			bh_error_set(err, BH_EINVAL, "token file %s is empty", cfg->token_file);
		return cfg->token;
	}
	if (kube_has_ctl(tok)) {
		explicit_bzero(tok, strlen(tok));
		free(tok);
		bh_error_set(err, BH_EINVAL, "token file %s: contains a control character (CR, LF, ...)", cfg->token_file);
		return cfg->token;
	}
	if (cfg->token) {
		explicit_bzero(cfg->token, strlen(cfg->token));
		free(cfg->token);
	}
	cfg->token = tok;
	cfg->token_mtime = st.st_mtim.tv_sec;
	cfg->token_mtime_ns = st.st_mtim.tv_nsec;
	return cfg->token;
}

kube_config *kube_config_in_cluster_load(const char *root, bh_error *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	if (!host || !*host || !port || !*port) {
		bh_error_set(err, BH_ENOTFOUND,
		             "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
		return NULL;
	}
	if (!root || !*root)
		root = "/";
	kube_config *cfg = calloc(1, sizeof *cfg);
	bh_buf b = BH_BUF_INIT;
	if (!cfg)
		goto oom;
	if (strchr(host, ':'))
		bh_buf_printf(&b, "https://[%s]:%s", host, port);
	else
		bh_buf_printf(&b, "https://%s:%s", host, port);
	if (!bh_buf_ok(&b))
		goto oom;
	cfg->server = bh_buf_detach(&b);
	bh_buf_printf(&b, "%s/%s/token", root, SA_DIR);
	if (!bh_buf_ok(&b))
		goto oom;
	cfg->token_file = bh_buf_detach(&b);
	if (!kube_config_token(cfg, err))
		goto fail;
	bh_buf_printf(&b, "%s/%s/ca.crt", root, SA_DIR);
	if (!bh_buf_ok(&b))
		goto oom;
	cfg->ca_pem = kube_file_read(bh_buf_str(&b), MAX_CRED_FILE, &cfg->ca_len, err);
	if (!cfg->ca_pem)
		goto fail;
	bh_buf_reset(&b);
	bh_buf_printf(&b, "%s/%s/namespace", root, SA_DIR);
	size_t nlen;
	char *ns = kube_file_read(bh_buf_str(&b), 4096, &nlen, NULL);
	if (ns) {
		trim_dup(ns, nlen, &cfg->namespace_);
		free(ns);
	}
	if (!cfg->namespace_ || !*cfg->namespace_) {
		free(cfg->namespace_);
		cfg->namespace_ = strdup("default");
	}
	bh_buf_free(&b);
	if (!cfg->namespace_)
		goto oom;
	return cfg;
oom:
	bh_error_set(err, BH_ENOMEM, "out of memory");
fail:
	bh_buf_free(&b);
	kube_config_free(cfg);
	bh_error_prefix(err, "in-cluster configuration");
	return NULL;
}

kube_config *kube_config_default_load(bh_error *err)
{
	const char *env = getenv("KUBECONFIG");
	if (env && *env) {
		char *first = strdup(env);
		if (!first) {
			bh_error_set(err, BH_ENOMEM, "out of memory");
			return NULL;
		}
		char *colon = strchr(first, ':');
		if (colon)
			*colon = 0;
		kube_config *cfg = kube_config_load(first, NULL, err);
		free(first);
		return cfg;
	}
	if (getenv("KUBERNETES_SERVICE_HOST"))
		return kube_config_in_cluster_load(NULL, err);
	const char *home = getenv("HOME");
	if (!home) {
		bh_error_set(err, BH_ENOTFOUND, "no kubeconfig: KUBECONFIG and HOME are unset and not in a cluster");
		return NULL;
	}
	bh_buf b = BH_BUF_INIT;
	bh_buf_printf(&b, "%s/.kube/config", home);
	if (!bh_buf_ok(&b)) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	kube_config *cfg = kube_config_load(b.data, NULL, err);
	bh_buf_free(&b);
	return cfg;
}

int kube_config_refresh(kube_config *cfg, bh_error *err)
{
	if (cfg->token_file && !kube_config_token(cfg, err))
		return err ? err->code : BH_EIO;
	if (cfg->exec_argv) {
		time_t now = time(NULL);
		if (!cfg->exec_have || (cfg->exec_expiry && now + 10 >= cfg->exec_expiry))
			return kube_exec_credential(cfg, err);
	}
	return 0;
}

int kube_config_refresh_for(kube_config *cfg, const char *method, const char *path, bh_error *err)
{
	int rc;
	if (!kube_config_refresh(cfg, err))
		return 0;
	rc = bh_error_prefix(err, "%s %s", method, path);
	if (rc == BH_ETIMEOUT || rc == BH_EUNAVAIL)
		rc = err ? (err->code = BH_EINVAL) : BH_EINVAL;
	return rc;
}

void kube_config_invalidate(kube_config *cfg)
{
	cfg->exec_have = 0;
}
