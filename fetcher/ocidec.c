/* fetcher/ocidec.c — see ocidec.h. */
#include "fetcher/ocidec.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"

/* ---- WWW-Authenticate ---------------------------------------------------- */
static int is_tchar(int c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static size_t token_end(const char *s, size_t n, size_t i)
{
	while (i < n && is_tchar((unsigned char)s[i]))
		i++;
	return i;
}

/* A token68 (base64-like, '=' padding) ending at a comma or the end? Its end, or 0. */
static size_t token68_end(const char *s, size_t n, size_t i)
{
	size_t j = i;
	while (j < n && (isalnum((unsigned char)s[j]) || strchr("-._~+/", s[j])))
		j++;
	if (j == i)
		return 0;
	while (j < n && s[j] == '=')
		j++;
	j = skip_ws(s, n, j);
	return j == n || s[j] == ',' ? j : 0;
}

static int add_param(oci_challenge *c, const char *name, size_t nl, char *value, bh_error *err)
{
	oci_auth_param *p;
	if (c->nparams >= OCI_AUTH_MAX_PARAMS) {
		free(value);
		return bh_error_set(err, BH_ELIMIT, "WWW-Authenticate: more than %d parameters in one challenge",
				    OCI_AUTH_MAX_PARAMS);
	}
	p = &c->params[c->nparams];
	if (!(p->name = strndup(name, nl)) || !value) {
		free(p->name);
		free(value);
		p->name = NULL;
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	for (char *q = p->name; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	p->value = value;
	c->nparams++;
	return 0;
}

/* quoted-string at s[i] == '"': its unescaped value, *end past the quote. */
static char *quoted(const char *s, size_t n, size_t i, size_t *end, bh_error *err)
{
	char *v = malloc(n - i + 1);
	size_t o = 0;
	if (!v) {
		bh_error_set(err, BH_ENOMEM, "out of memory");
		return NULL;
	}
	for (i++; i < n && s[i] != '"'; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t')
			break;
		v[o++] = s[i];
	}
	if (i >= n || s[i] != '"') {
		free(v);
		bh_error_set(err, BH_EPARSE, "WWW-Authenticate: unterminated or invalid quoted string at offset %zu", i);
		return NULL;
	}
	v[o] = '\0';
	*end = i + 1;
	return v;
}

int oci_auth_decode(const char *s, size_t n, oci_challenges *out, bh_error *err)
{
	size_t i = 0;
	memset(out, 0, sizeof *out);
	if (n > OCI_AUTH_MAX_HEADER)
		return bh_error_set(err, BH_ELIMIT, "WWW-Authenticate: %zu bytes, limit %d", n, OCI_AUTH_MAX_HEADER);
	for (;;) {
		oci_challenge *c;
		size_t e;
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
			i++;
		if (i >= n)
			break;
		if ((e = token_end(s, n, i)) == i)
			return bh_error_set(err, BH_EPARSE, "WWW-Authenticate: expected an authentication scheme at offset %zu", i);
		if (out->n >= OCI_AUTH_MAX_CHALLENGES)
			return bh_error_set(err, BH_ELIMIT, "WWW-Authenticate: more than %d challenges", OCI_AUTH_MAX_CHALLENGES);
		c = &out->c[out->n++];
		if (!(c->scheme = strndup(s + i, e - i)))
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		i = e;
		if (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != ',')
			return bh_error_set(err, BH_EPARSE, "WWW-Authenticate: unexpected '%c' at offset %zu", s[i], i);
		i = skip_ws(s, n, i);
		/* a token68, or auth-params until the next challenge */
		if ((e = token68_end(s, n, i)) && token_end(s, n, i) < e && s[token_end(s, n, i)] == '=' &&
		    skip_ws(s, n, token_end(s, n, i) + 1) < n && s[skip_ws(s, n, token_end(s, n, i) + 1)] != ',' &&
		    s[skip_ws(s, n, token_end(s, n, i) + 1)] != '=')
			e = 0; /* "name=value": an auth-param, not a token68 */
		if (e) {
			size_t t = e;
			while (t > i && (s[t - 1] == ' ' || s[t - 1] == '\t'))
				t--;
			if (add_param(c, "", 0, strndup(s + i, t - i), err) < 0)
				return err->code;
			i = e;
			continue;
		}
		for (;;) {
			size_t ne = token_end(s, n, i), j;
			char *v;
			if (ne == i)
				break;
			j = skip_ws(s, n, ne);
			if (j >= n || s[j] != '=')
				break; /* the next challenge's scheme */
			j = skip_ws(s, n, j + 1);
			if (j < n && s[j] == '"') {
				if (!(v = quoted(s, n, j, &e, err)))
					return err->code;
			} else {
				e = token_end(s, n, j);
				v = strndup(s + j, e - j);
			}
			if (add_param(c, s + i, ne - i, v, err) < 0)
				return err->code;
			i = skip_ws(s, n, e);
			if (i < n && s[i] != ',')
				return bh_error_set(err, BH_EPARSE, "WWW-Authenticate: expected ',' at offset %zu", i);
			while (i < n && (s[i] == ',' || s[i] == ' ' || s[i] == '\t'))
				i++;
		}
	}
	return 0;
}

void oci_auth_free(oci_challenges *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->c[i].scheme);
		for (size_t k = 0; k < c->c[i].nparams; k++) {
			free(c->c[i].params[k].name);
			free(c->c[i].params[k].value);
		}
	}
	memset(c, 0, sizeof *c);
}

const oci_challenge *oci_auth_find(const oci_challenges *c, const char *scheme)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i].scheme && strcasecmp(c->c[i].scheme, scheme) == 0)
			return &c->c[i];
	return NULL;
}

const char *oci_auth_param_get(const oci_challenge *c, const char *name)
{
	for (size_t i = 0; c && i < c->nparams; i++)
		if (strcasecmp(c->params[i].name, name) == 0)
			return c->params[i].value;
	return NULL;
}

/* ---- JSON helpers ---------------------------------------------------------- */
json_t *oci_json_load(const char *what, const char *text, size_t n, size_t max, bh_error *err)
{
	json_error_t je;
	json_t *root;
	if (n > max) {
		bh_error_set(err, BH_ELIMIT, "%s: %zu bytes, limit %zu", what, n, max);
		return NULL;
	}
	if (!(root = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je))) {
		bh_error_set(err, BH_EPARSE, "%s: invalid JSON: %s (line %d)", what, je.text, je.line);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		bh_error_set(err, BH_EPARSE, "%s: not a JSON object", what);
		return NULL;
	}
	return root;
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* A string member (NULL when absent); -1 when present but not a printable string of at most max bytes. */
static int opt_str(const json_t *o, const char *key, size_t max, char **out)
{
	const json_t *v = json_object_get(o, key);
	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) > max || strlen(json_string_value(v)) != json_string_length(v) ||
	    !printable(json_string_value(v)))
		return -1;
	return (*out = strdup(json_string_value(v))) ? 0 : -1;
}

/* ---- manifests ---------------------------------------------------------------- */
int oci_digest_valid_sha256(const char *d)
{
	if (!d || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 71)
		return 0;
	for (d += 7; *d; d++)
		if (!isdigit((unsigned char)*d) && !(*d >= 'a' && *d <= 'f'))
			return 0;
	return 1;
}

/* "<algorithm>:<encoded>" as the OCI image spec defines it. */
static int digest_valid(const char *d)
{
	const char *c = strchr(d, ':');
	if (!c || c == d || !c[1])
		return 0;
	for (const char *p = d; p < c; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && !strchr("+._-", *p))
			return 0;
	for (const char *p = c + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("=_-", *p))
			return 0;
	return strncmp(d, "sha256:", 7) != 0 || oci_digest_valid_sha256(d);
}

static int descriptor(const char *what, const json_t *o, oci_descriptor *d, bh_error *err)
{
	const json_t *sz = json_object_get(o, "size");
	if (!json_is_object(o))
		return bh_error_set(err, BH_EINVAL, "%s is not an object", what);
	if (opt_str(o, "mediaType", 255, &d->media_type) < 0 || !d->media_type)
		return bh_error_set(err, BH_EINVAL, "%s: mediaType is missing or invalid", what);
	if (opt_str(o, "digest", 200, &d->digest) < 0 || !d->digest || !digest_valid(d->digest))
		return bh_error_set(err, BH_EINVAL, "%s: digest is missing or invalid", what);
	if (!json_is_integer(sz) || json_integer_value(sz) < 0)
		return bh_error_set(err, BH_EINVAL, "%s: size is missing or negative", what);
	if (opt_str(o, "artifactType", 255, &d->artifact_type) < 0)
		return bh_error_set(err, BH_EINVAL, "%s: artifactType is not a string", what);
	d->size = json_integer_value(sz);
	return 0;
}

static void descriptor_free(oci_descriptor *d)
{
	free(d->media_type);
	free(d->digest);
	free(d->artifact_type);
}

int oci_manifest_decode(const char *text, size_t n, oci_manifest **out, bh_error *err)
{
	json_t *root = oci_json_load("manifest", text, n, OCI_MAX_MANIFEST, err), *list, *v;
	oci_manifest *m;
	size_t i;
	int rc = 0;
	*out = NULL;
	if (!root)
		return err->code;
	if (!(m = calloc(1, sizeof *m))) {
		json_decref(root);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	if (json_integer_value(json_object_get(root, "schemaVersion")) != 2 || !json_is_integer(json_object_get(root, "schemaVersion")))
		rc = bh_error_set(err, BH_EINVAL, "manifest: schemaVersion must be 2");
	else if (opt_str(root, "mediaType", 255, &m->media_type) < 0 || opt_str(root, "artifactType", 255, &m->artifact_type) < 0)
		rc = bh_error_set(err, BH_EINVAL, "manifest: mediaType or artifactType is not a string");
	if (rc == 0) {
		m->is_index = json_is_array(json_object_get(root, "manifests")) && !json_object_get(root, "layers");
		list = json_object_get(root, m->is_index ? "manifests" : "layers");
		if (!json_is_array(list))
			rc = bh_error_set(err, BH_EINVAL, "manifest: layers is missing or not an array");
		else if (json_array_size(list) > OCI_MAX_LAYERS)
			rc = bh_error_set(err, BH_ELIMIT, "manifest: %zu %s, limit %d", json_array_size(list),
					  m->is_index ? "manifests" : "layers", OCI_MAX_LAYERS);
		else if (!m->is_index)
			rc = descriptor("manifest config", json_object_get(root, "config"), &m->config, err);
		if (rc == 0 && !(m->layers = calloc(json_array_size(list) + 1, sizeof *m->layers)))
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		json_array_foreach(list, i, v) {
			if (rc < 0)
				break;
			m->nlayers++;
			rc = descriptor(m->is_index ? "manifest of the index" : "manifest layer", v, &m->layers[i], err);
		}
	}
	json_decref(root);
	if (rc < 0) {
		oci_manifest_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void oci_manifest_free(oci_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nlayers; i++)
		descriptor_free(&m->layers[i]);
	descriptor_free(&m->config);
	free(m->layers);
	free(m->media_type);
	free(m->artifact_type);
	free(m);
}

/* ---- tags, tokens ------------------------------------------------------------ */
int oci_tags_decode(const char *text, size_t n, char ***tags, size_t *ntags, bh_error *err)
{
	json_t *root = oci_json_load("tag list", text, n, (size_t)16 << 20, err), *list, *v;
	size_t i;
	*tags = NULL;
	*ntags = 0;
	if (!root)
		return err->code;
	list = json_object_get(root, "tags");
	if (json_is_null(list) || !list) { /* a repository without tags */
		json_decref(root);
		return 0;
	}
	if (!json_is_array(list) || json_array_size(list) > OCI_MAX_TAGS) {
		int code = json_is_array(list) ? BH_ELIMIT : BH_EINVAL; /* list dies with root */
		json_decref(root);
		return bh_error_set(err, code, "tag list: tags is not an array of at most %d tags", OCI_MAX_TAGS);
	}
	if (!(*tags = calloc(json_array_size(list) + 1, sizeof **tags))) {
		json_decref(root);
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	}
	json_array_foreach(list, i, v) {
		const char *s = json_string_value(v);
		/* a tag is [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}; anything else is skipped */
		if (!s || !*s || json_string_length(v) > 128 || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != json_string_length(v) ||
		    *s == '.' || *s == '-')
			continue;
		if (!((*tags)[*ntags] = strdup(s))) {
			json_decref(root);
			return bh_error_set(err, BH_ENOMEM, "out of memory");
		}
		(*ntags)++;
	}
	json_decref(root);
	return 0;
}

void oci_tags_free(char **tags, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(tags[i]);
	free(tags);
}

int oci_link_next(const char *s, size_t n, char **next, bh_error *err)
{
	const char *end;
	*next = NULL;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n == 0)
		return 0;
	if (n > OCI_MAX_LINK)
		return bh_error_set(err, BH_ELIMIT, "tag list: Link header longer than %d bytes", OCI_MAX_LINK);
	if (*s != '<')
		return bh_error_set(err, BH_EPARSE, "tag list: invalid next link: missing '<'");
	if (!(end = memchr(s, '>', n)))
		return bh_error_set(err, BH_EPARSE, "tag list: invalid next link: missing '>'");
	for (const char *c = s + 1; c < end; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return bh_error_set(err, BH_EPARSE, "tag list: invalid next link: a control character or space in the URL");
	if (end == s + 1)
		return bh_error_set(err, BH_EPARSE, "tag list: invalid next link: an empty URL");
	if (!(*next = strndup(s + 1, (size_t)(end - s - 1))))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

int oci_token_decode(const char *text, size_t n, char **token, bh_error *err)
{
	json_t *root = oci_json_load("token service answer", text, n, OCI_MAX_TOKEN_ANSWER, err);
	int rc = 0;
	*token = NULL;
	if (!root)
		return err->code;
	if (opt_str(root, "token", 16384, token) < 0 || (!*token && opt_str(root, "access_token", 16384, token) < 0))
		rc = bh_error_set(err, BH_EINVAL, "token service answer: token is not a printable string of at most 16384 bytes");
	else if (!*token || !**token)
		rc = bh_error_set(err, BH_EINVAL, "token service answer: no token");
	for (const char *p = *token; rc == 0 && *p; p++)
		if (*p == ' ' || *p == '\t')
			rc = bh_error_set(err, BH_EINVAL, "token service answer: the token contains spaces");
	if (rc < 0) {
		free(*token);
		*token = NULL;
	}
	json_decref(root);
	return rc;
}

/* ---- docker config ------------------------------------------------------------- */
/* StdEncoding (padding optional); NULL if invalid. */
static char *b64_decode(const char *s, size_t n)
{
	char *out = malloc(n / 4 * 3 + 4);
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	if (!out)
		return NULL;
	while (n && s[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		int v = bh_base64_value((unsigned char)s[i]);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = '\0';
	if (strlen(out) != o) { /* a NUL inside */
		free(out);
		return NULL;
	}
	return out;
}

/* "https://host:5000/v1/" -> "host:5000" in buf. */
static void key_host(const char *k, char *buf, size_t n)
{
	const char *p = strstr(k, "://");
	p = p ? p + 3 : k;
	snprintf(buf, n, "%.*s", (int)strcspn(p, "/"), p);
}

int oci_dockercfg_lookup(const char *text, size_t n, const char *host, char **username, char **password,
			 bh_error *err)
{
	json_t *root = oci_json_load("docker config", text, n, OCI_MAX_DOCKER_CONFIG, err), *auths, *v;
	const char *k;
	char kh[512];
	int rc = BH_ENOTFOUND;
	*username = *password = NULL;
	if (!root)
		return err->code;
	auths = json_object_get(root, "auths");
	if (!json_is_object(auths)) {
		json_decref(root);
		return bh_error_set(err, BH_EINVAL, "docker config: no \"auths\" object");
	}
	json_object_foreach(auths, k, v) {
		char *auth = NULL, *tok = NULL;
		key_host(k, kh, sizeof kh);
		if (strcasecmp(kh, host) != 0)
			continue;
		if (!json_is_object(v) || opt_str(v, "auth", 65536, &auth) < 0 || opt_str(v, "username", 4096, username) < 0 ||
		    opt_str(v, "password", 16384, password) < 0 || opt_str(v, "identitytoken", 16384, &tok) < 0) {
			rc = bh_error_set(err, BH_EINVAL, "docker config: the entry for %s is malformed", host);
		} else if (auth && *auth) {
			char *up = b64_decode(auth, strlen(auth)), *colon = up ? strchr(up, ':') : NULL;
			free(*username);
			free(*password);
			*username = *password = NULL;
			if (!colon) {
				rc = bh_error_set(err, BH_EINVAL, "docker config: the \"auth\" of %s is not base64 of "
						  "username:password", host);
			} else {
				*colon = '\0';
				*username = strdup(up);
				*password = strdup(colon + 1);
				rc = *username && *password ? 0 : bh_error_set(err, BH_ENOMEM, "out of memory");
			}
			if (up) {
				explicit_bzero(up, strlen(up) + (colon ? strlen(colon + 1) + 1 : 0));
				free(up);
			}
		} else if (*username && *password) {
			rc = 0;
		} else if (tok) {
			rc = bh_error_set(err, BH_EINVAL, "docker config: the entry for %s holds an identity token, which "
					  "bulkhead does not support (only username and password)", host);
		} else {
			rc = bh_error_set(err, BH_EINVAL, "docker config: the entry for %s has neither auth nor username "
					  "and password", host);
		}
		if (auth)
			explicit_bzero(auth, strlen(auth));
		free(auth);
		free(tok);
		break;
	}
	json_decref(root);
	if (rc == BH_ENOTFOUND)
		bh_error_set(err, BH_ENOTFOUND, "docker config: no credentials for %s", host);
	if (rc < 0) {
		free(*username);
		free(*password);
		*username = *password = NULL;
	}
	return rc;
}
