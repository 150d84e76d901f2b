/* kube/exec.c — exec credential plugins (client.authentication.k8s.io
 * ExecCredential): run the kubeconfig's command with
 * KUBERNETES_EXEC_INFO, read its JSON answer (bounded in time and size), and
 * keep the token or client certificate it returns until it expires. Only
 * reachable when the kubeconfig was accepted: strict mode refuses exec
 * unless the operator allowed it. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kube/config.h"
#include "kube/internal.h"
#include "lib/buf.h"

extern char **environ;

/* RFC 3339 ("2026-01-02T03:04:05Z", fractions and offsets allowed) -> epoch. */
static int parse_rfc3339(const char *s, time_t *out)
{
	struct tm tm = {0};
	int n = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
	           &tm.tm_sec, &n) != 6)
		return -1;
	const char *p = s + n;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	long off = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int hh, mm;
		if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2)
			return -1;
		off = (hh * 60L + mm) * 60L * (*p == '+' ? 1 : -1);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = timegm(&tm) - off;
	return 0;
}

static char **build_env(const kube_config *cfg)
{
	size_t n = 0, m = 0;
	while (environ && environ[n])
		n++;
	while (cfg->exec_env && cfg->exec_env[m])
		m++;
	char **env = calloc(n + m + 2, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21))
			continue;
		/* the kubeconfig's env entries override inherited ones */
		size_t nl = strcspn(environ[i], "=");
		int overridden = 0;
		for (size_t j = 0; j < m; j++)
			if (!strncmp(cfg->exec_env[j], environ[i], nl) && cfg->exec_env[j][nl] == '=')
				overridden = 1;
		if (!overridden && !(env[k++] = strdup(environ[i])))
			goto oom;
	}
	for (size_t j = 0; j < m; j++)
		if (!(env[k++] = strdup(cfg->exec_env[j])))
			goto oom;
	bh_buf b = BH_BUF_INIT;
	bh_buf_printf(&b, "KUBERNETES_EXEC_INFO={\"kind\":\"ExecCredential\",\"apiVersion\":\"%s\","
	                  "\"spec\":{\"interactive\":false}}",
	              cfg->exec_api_version);
	if (!bh_buf_ok(&b))
		goto oom;
	env[k++] = bh_buf_detach(&b);
	return env;
oom:
	kube_strv_free(env);
	return NULL;
}

/* Runs the plugin; stdout into out, the end of stderr into errtail. */
static int run_plugin(const kube_config *cfg, bh_buf *out, char *errtail, size_t tailsz, bh_error *err)
{
	const char *cmd = cfg->exec_argv[0];
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	char **env = build_env(cfg);
	if (!env)
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		int e = errno;
		kube_strv_free(env);
		for (int i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
		}
		return bh_error_set(err, BH_EIO, "exec plugin %s: pipe: %s", cmd, strerror(e));
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	pid_t pid;
	int src = posix_spawnp(&pid, cmd, &fa, NULL, cfg->exec_argv, env);
	posix_spawn_file_actions_destroy(&fa);
	kube_strv_free(env);
	close(po[1]);
	close(pe[1]);
	if (src) {
		close(po[0]);
		close(pe[0]);
		return bh_error_set(err, BH_EIO, "exec plugin %s: cannot run it: %s", cmd, strerror(src));
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t tl = 0;
	int rc = 0, open_fds = 2;
	struct pollfd pf[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	while (open_fds > 0 && !rc) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = KUBE_EXEC_TIMEOUT_MS - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0) {
			rc = bh_error_set(err, BH_ETIMEOUT, "exec plugin %s: no answer within %d s", cmd,
			                  KUBE_EXEC_TIMEOUT_MS / 1000);
			break;
		}
		int pr = poll(pf, 2, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			rc = bh_error_set(err, BH_EIO, "exec plugin %s: poll: %s", cmd, strerror(errno));
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[4096];
			ssize_t n = read(pf[i].fd, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 0) {
				if (out->len + (size_t)n > KUBE_EXEC_MAX_OUTPUT) {
					rc = bh_error_set(err, BH_ELIMIT, "exec plugin %s: output larger than %u bytes", cmd,
					                  KUBE_EXEC_MAX_OUTPUT);
					break;
				}
				bh_buf_put(out, buf, (size_t)n);
			} else {
				for (ssize_t j = 0; j < n; j++) { /* keep the last tailsz-1 bytes */
					if (tl + 1 >= tailsz) {
						memmove(errtail, errtail + 1, tailsz - 2);
						tl--;
					}
					errtail[tl++] = buf[j];
				}
				errtail[tl] = 0;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	if (rc)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc)
		return rc;
	while (tl > 0 && (errtail[tl - 1] == '\n' || errtail[tl - 1] == '\r'))
		errtail[--tl] = 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return bh_error_set(err, BH_EIO, "exec plugin %s failed with %s %d%s%s", cmd,
		                    WIFEXITED(status) ? "exit code" : "signal",
		                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), tl ? ": " : "", errtail);
	if (!bh_buf_ok(out))
		return bh_error_set(err, BH_ENOMEM, "out of memory");
	return 0;
}

static char *dup_str(const char *s)
{
	return s ? strdup(s) : NULL;
}

int kube_exec_credential(kube_config *cfg, bh_error *err)
{
	const char *cmd = cfg->exec_argv[0];
	bh_buf out = BH_BUF_INIT;
	char errtail[512] = "";
	int rc = run_plugin(cfg, &out, errtail, sizeof errtail, err);
	if (rc) {
		bh_buf_free(&out);
		return rc;
	}
	json_error_t je;
	json_t *cred = json_loadb(out.data ? out.data : "", out.len, 0, &je);
	explicit_bzero(out.data ? out.data : errtail, out.data ? out.len : 0);
	bh_buf_free(&out);
	if (!cred)
		return bh_error_set(err, BH_EPROTO, "exec plugin %s: output is not JSON: %s", cmd, je.text);
	const char *kind = json_string_value(json_object_get(cred, "kind"));
	const char *av = json_string_value(json_object_get(cred, "apiVersion"));
	json_t *st = json_object_get(cred, "status");
	const char *token = json_string_value(json_object_get(st, "token"));
	const char *cert = json_string_value(json_object_get(st, "clientCertificateData"));
	const char *key = json_string_value(json_object_get(st, "clientKeyData"));
	const char *exp = json_string_value(json_object_get(st, "expirationTimestamp"));
	time_t expiry = 0;
	if (!kind || strcmp(kind, "ExecCredential"))
		rc = bh_error_set(err, BH_EPROTO, "exec plugin %s: kind is not ExecCredential", cmd);
	else if (!av || strcmp(av, cfg->exec_api_version))
		rc = bh_error_set(err, BH_EPROTO, "exec plugin %s: apiVersion \"%s\" does not match \"%s\"", cmd,
		                  av ? av : "", cfg->exec_api_version);
	else if (!json_is_object(st))
		rc = bh_error_set(err, BH_EPROTO, "exec plugin %s: no status in its answer", cmd);
	else if (!!cert != !!key)
		rc = bh_error_set(err, BH_EPROTO,
		                  "exec plugin %s: clientCertificateData and clientKeyData must be given together", cmd);
	else if (!(token && *token) && !cert)
		rc = bh_error_set(err, BH_EPROTO, "exec plugin %s: neither a token nor a client certificate", cmd);
	else if (token && (kube_has_ctl(token) || strlen(token) != json_string_length(json_object_get(st, "token"))))
		rc = bh_error_set(err, BH_EPROTO, "exec plugin %s: the token contains a control character (CR, LF, NUL, ...)",
		                  cmd);
	else if (exp && *exp && parse_rfc3339(exp, &expiry))
		rc = bh_error_set(err, BH_EPROTO, "exec plugin %s: bad expirationTimestamp \"%s\"", cmd, exp);
	if (!rc) {
		char *t = token && *token ? dup_str(token) : NULL;
		char *c = dup_str(cert), *k = dup_str(key);
		if ((token && *token && !t) || (cert && (!c || !k))) {
			free(t);
			free(c);
			free(k);
			rc = bh_error_set(err, BH_ENOMEM, "out of memory");
		} else {
			if (cfg->token) {
				explicit_bzero(cfg->token, strlen(cfg->token));
				free(cfg->token);
			}
			cfg->token = t;
			if (c) {
				free(cfg->cert_pem);
				if (cfg->key_pem) {
					explicit_bzero(cfg->key_pem, cfg->key_len);
					free(cfg->key_pem);
				}
				cfg->cert_pem = c;
				cfg->cert_len = strlen(c);
				cfg->key_pem = k;
				cfg->key_len = strlen(k);
			}
			cfg->exec_expiry = expiry;
			cfg->exec_have = 1;
		}
	}
	json_decref(cred);
	return rc;
}
