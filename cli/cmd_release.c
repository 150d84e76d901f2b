/* cli/cmd_release.c — `bulkhead release install|upgrade|rollback|uninstall|
 * test|unlock ...`: the Helm actions of helm/action.h against a cluster
 * (kubeconfig), so tests can drive bulkhead and the helm CLI alternately.
 *
 *   bulkhead release install NAME CHART [-n NS] [-f FILE] [--set K=V] ...
 *   bulkhead release upgrade NAME CHART [...]
 *   bulkhead release rollback NAME [VERSION] [...]
 *   bulkhead release uninstall NAME [...]
 *   bulkhead release test NAME [--filter NAME|!NAME]...
 *   bulkhead release unlock NAME
 *
 * Prints one summary line and the objects touched; -o json prints the
 * action's report instead. Exit status 1 on failure ("Error: ..."). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helm/action.h"
#include "helm/chart.h"
#include "helm/values.h"
#include "kube/config.h"
#include "kube/curl.h"
#include "kube/kube.h"
#include "lib/buf.h"

#define MAXLIST 64

typedef struct strs {
	const char *v[MAXLIST + 1];
	size_t n;
} strs;

static int push(strs *l, const char *s)
{
	if (l->n >= MAXLIST)
		return -1;
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bulkhead release install|upgrade NAME CHART [flags]\n"
		   "       bulkhead release rollback NAME [VERSION] [flags]\n"
		   "       bulkhead release uninstall|test|unlock NAME [flags]\n"
		   "flags: -n NS, --kubeconfig FILE, -f FILE, --set K=V, --set-string K=V, --set-json K=JSON,\n"
		   "       --timeout DURATION (5m), --no-hooks, --no-wait, --no-wait-for-jobs, -o json,\n"
		   "       --field-manager NAME (helm-controller), --create-namespace, --replace,\n"
		   "       --crds skip|create|create-replace, --disable-take-ownership, --force-conflicts,\n"
		   "       --preserve-values, --force, --cleanup-on-fail, --max-history N, --recreate,\n"
		   "       --keep-history, --deletion-propagation background|foreground|orphan,\n"
		   "       --filter NAME|!NAME, --description TEXT, --crd-label K=V\n");
}

/* "300", "90s", "5m", "1m30s", "2h" -> ms; -1 on error. */
static long parse_duration(const char *s)
{
	long total = 0;
	if (!*s)
		return -1;
	while (*s) {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (end == s || errno || v < 0)
			return -1;
		switch (*end) {
		case 'h': total += v * 3600000L; end++; break;
		case 'm': total += v * 60000L; end++; break;
		case 's': total += v * 1000L; end++; break;
		case '\0': total += v * 1000L; break;
		default: return -1;
		}
		s = end;
	}
	return total;
}

static int read_file(const char *path, bh_buf *out)
{
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;
	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		bh_buf_put(out, buf, n);
	fclose(f);
	return bh_buf_ok(out) ? 0 : -1;
}

static void log_line(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "bulkhead: %s\n", msg);
}

static void print_report(const action_result *res, int json)
{
	if (!res->report)
		return;
	if (json) {
		char *s = json_dumps(res->report, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (s)
			printf("%s\n", s);
		free(s);
		return;
	}
	json_t *r = res->report, *o;
	size_t i;
	if (json_integer_value(json_object_get(r, "version")) == 0 && !json_array_size(json_object_get(r, "objects")) &&
	    !json_array_size(json_object_get(r, "hooks")) && !*json_string_value(json_object_get(r, "status")))
		return; /* nothing happened */
	printf("%s %s/%s: version %d %s (%s)\n", json_string_value(json_object_get(r, "action")),
	       json_string_value(json_object_get(r, "namespace")), json_string_value(json_object_get(r, "release")),
	       (int)json_integer_value(json_object_get(r, "version")), json_string_value(json_object_get(r, "status")),
	       json_string_value(json_object_get(r, "description")));
	json_array_foreach(json_object_get(r, "objects"), i, o)
		printf("  %s %s %s/%s\n", json_string_value(json_object_get(o, "op")),
		       json_string_value(json_object_get(o, "kind")), json_string_value(json_object_get(o, "namespace")),
		       json_string_value(json_object_get(o, "name")));
	json_array_foreach(json_object_get(r, "hooks"), i, o)
		printf("  hook %s %s %s: %s\n", json_string_value(json_object_get(o, "event")),
		       json_string_value(json_object_get(o, "kind")), json_string_value(json_object_get(o, "name")),
		       json_string_value(json_object_get(o, "phase")));
}

static int parse_crds(const char *s, action_crds *out)
{
	if (!strcmp(s, "skip") || !strcmp(s, "Skip"))
		*out = ACTION_CRDS_SKIP;
	else if (!strcmp(s, "create") || !strcmp(s, "Create"))
		*out = ACTION_CRDS_CREATE;
	else if (!strcmp(s, "create-replace") || !strcmp(s, "CreateReplace"))
		*out = ACTION_CRDS_CREATE_REPLACE;
	else
		return -1;
	return 0;
}

int cmd_release(int argc, char **argv)
{
	const char *action, *ns = NULL, *kubeconfig = getenv("KUBECONFIG"), *manager = NULL, *prop = NULL;
	const char *description = NULL;
	strs args = {0}, files = {0}, set = {0}, set_string = {0}, set_json = {0}, filters = {0}, crd_labels = {0};
	int json_out = 0, no_hooks = 0, no_wait = 0, no_jobs = 0, create_ns = 0, replace = 0, take = 1,
	    force_conflicts = 1, preserve = 0, force = 0, cleanup = 0, max_history = 0, recreate = 0, keep = 0;
	long timeout = 0;
	action_crds crds = ACTION_CRDS_DEFAULT;
	bh_error err = {0};
	int rc = 1;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	action = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKES(flag) (!strcmp(a, flag) && v && (i++, 1))
		if (TAKES("-n") || TAKES("--namespace"))
			ns = v;
		else if (TAKES("--kubeconfig"))
			kubeconfig = v;
		else if (TAKES("-f") || TAKES("--values"))
			rc = push(&files, v);
		else if (TAKES("--set"))
			rc = push(&set, v);
		else if (TAKES("--set-string"))
			rc = push(&set_string, v);
		else if (TAKES("--set-json"))
			rc = push(&set_json, v);
		else if (TAKES("--filter"))
			rc = push(&filters, v);
		else if (TAKES("--crd-label"))
			rc = push(&crd_labels, v);
		else if (TAKES("--field-manager"))
			manager = v;
		else if (TAKES("--deletion-propagation"))
			prop = v;
		else if (TAKES("--description"))
			description = v;
		else if (TAKES("--timeout")) {
			if ((timeout = parse_duration(v)) < 0) {
				fprintf(stderr, "Error: invalid --timeout \"%s\"\n", v);
				return 2;
			}
		} else if (TAKES("--max-history"))
			max_history = atoi(v);
		else if (TAKES("--crds")) {
			if (parse_crds(v, &crds)) {
				fprintf(stderr, "Error: invalid --crds \"%s\" (skip, create, create-replace)\n", v);
				return 2;
			}
		} else if (TAKES("-o") || TAKES("--output"))
			json_out = !strcmp(v, "json");
		else if (!strcmp(a, "--no-hooks"))
			no_hooks = 1;
		else if (!strcmp(a, "--no-wait"))
			no_wait = 1;
		else if (!strcmp(a, "--no-wait-for-jobs"))
			no_jobs = 1;
		else if (!strcmp(a, "--create-namespace"))
			create_ns = 1;
		else if (!strcmp(a, "--replace"))
			replace = 1;
		else if (!strcmp(a, "--disable-take-ownership"))
			take = 0;
		else if (!strcmp(a, "--no-force-conflicts"))
			force_conflicts = 0;
		else if (!strcmp(a, "--force-conflicts"))
			force_conflicts = 1;
		else if (!strcmp(a, "--preserve-values"))
			preserve = 1;
		else if (!strcmp(a, "--force"))
			force = 1;
		else if (!strcmp(a, "--cleanup-on-fail"))
			cleanup = 1;
		else if (!strcmp(a, "--recreate"))
			recreate = 1;
		else if (!strcmp(a, "--keep-history"))
			keep = 1;
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "Error: unknown flag %s\n", a);
			usage(stderr);
			return 2;
		} else
			rc = push(&args, a);
		if (rc < 0) {
			fprintf(stderr, "Error: too many arguments\n");
			return 2;
		}
#undef TAKES
	}
	int needs_chart = !strcmp(action, "install") || !strcmp(action, "upgrade");
	if (args.n < 1 || (needs_chart && args.n != 2) || (!needs_chart && args.n > 2) ||
	    (!needs_chart && args.n == 2 && strcmp(action, "rollback"))) {
		usage(stderr);
		return 2;
	}
	if (!kubeconfig) {
		fprintf(stderr, "Error: no kubeconfig (--kubeconfig or KUBECONFIG)\n");
		return 2;
	}

	kube_config_opts ko = {0};
	kube_config *kcfg = kube_config_load(kubeconfig, &ko, &err);
	kube_client *kc = NULL;
	json_t *vals = NULL, *crdl = NULL;
	chart *c = NULL;
	bh_buf vbufs[MAXLIST];
	values_file vf[MAXLIST];
	action_result res;
	action_result_init(&res);
	memset(vbufs, 0, sizeof vbufs);
	rc = 1;
	if (!kcfg || !(kc = kube_curl_client_new(kcfg, &err)))
		goto fail;
	if (!ns)
		ns = kcfg->namespace_ && *kcfg->namespace_ ? kcfg->namespace_ : "default";
	action_config cfg = {kc, manager, log_line, NULL};
	crdl = json_object();
	for (size_t i = 0; crdl && i < crd_labels.n; i++) {
		const char *eq = strchr(crd_labels.v[i], '=');
		if (!eq) {
			bh_error_set(&err, BH_EINVAL, "--crd-label wants KEY=VALUE, got \"%s\"", crd_labels.v[i]);
			goto fail;
		}
		char key[256];
		snprintf(key, sizeof key, "%.*s", (int)(eq - crd_labels.v[i]), crd_labels.v[i]);
		json_object_set_new(crdl, key, json_string(eq + 1));
	}
	action_wait w = {no_wait, no_jobs, timeout};
	if (needs_chart) {
		for (size_t i = 0; i < files.n; i++) {
			if (read_file(files.v[i], &vbufs[i])) {
				bh_error_set(&err, BH_EIO, "open %s: %s", files.v[i], strerror(errno));
				goto fail;
			}
			vf[i].name = files.v[i];
			vf[i].data = vbufs[i].data ? vbufs[i].data : "";
			vf[i].len = vbufs[i].len;
		}
		values_options vo = {
			.files = vf, .nfiles = files.n, .set_json = set_json.v, .nset_json = set_json.n,
			.set = set.v, .nset = set.n, .set_string = set_string.v, .nset_string = set_string.n,
		};
		if (values_compose(&vo, &vals, &err) < 0 || chart_load_path(args.v[1], NULL, &c, &err) < 0 ||
		    chart_check_api_version(c, &err) < 0)
			goto fail;
	}
	if (!strcmp(action, "install")) {
		action_install_opts o = {args.v[0], ns, c, vals, crds, create_ns, replace, no_hooks, !take,
					 force_conflicts, w, description, crdl};
		rc = action_install(&cfg, &o, &res, &err);
	} else if (!strcmp(action, "upgrade")) {
		action_upgrade_opts o = {args.v[0], ns, c, vals, crds, preserve, force, cleanup, no_hooks, !take,
					 force_conflicts, max_history, w, description, crdl};
		rc = action_upgrade(&cfg, &o, &res, &err);
	} else if (!strcmp(action, "rollback")) {
		action_rollback_opts o = {args.v[0], ns, args.n == 2 ? atoi(args.v[1]) : 0, recreate, force, cleanup,
					  no_hooks, max_history, w};
		rc = action_rollback(&cfg, &o, &res, &err);
	} else if (!strcmp(action, "uninstall")) {
		action_uninstall_opts o = {args.v[0], ns, keep, no_hooks, prop, w, description};
		rc = action_uninstall(&cfg, &o, &res, &err);
	} else if (!strcmp(action, "test")) {
		action_test_opts o = {args.v[0], ns, filters.n ? filters.v : NULL, timeout};
		rc = action_test(&cfg, &o, &res, &err);
	} else if (!strcmp(action, "unlock")) {
		rc = action_unlock(&cfg, args.v[0], ns, &res, &err);
	} else {
		fprintf(stderr, "Error: unknown action \"%s\"\n", action);
		usage(stderr);
		rc = 2;
		goto out;
	}
	print_report(&res, json_out);
	if (rc < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "Error: %s\n", err.msg);
	rc = 1;
out:
	json_decref(crdl);
	action_result_free(&res);
	for (size_t i = 0; i < MAXLIST; i++)
		bh_buf_free(&vbufs[i]);
	json_decref(vals);
	chart_free(c);
	kube_client_free(kc);
	kube_config_free(kcfg);
	return rc;
}
