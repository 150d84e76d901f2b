/* cli/template_deps.h — `bulkhead template --dependency-update`: the
 * missing dependencies of a chart directory fetched as Helm 4.1.4's
 * downloader.Manager.Update does it. Chart.yaml's dependencies are
 * resolved against repositories.yaml (`@name`/`alias:name` or a URL it
 * lists) and otherwise taken as unmanaged repository URLs; every index is
 * downloaded into the repository cache (NAME-index.yaml, NAME-charts.txt,
 * "helm-manager-<sha256 of the URL>" for unmanaged ones) and read back from
 * there; a version is chosen per semver constraint (https index, `oci://`
 * tags, a `file://` directory, or charts/ itself); the archives are
 * written into a tmpcharts-PID directory, moved into charts/ (outdated
 * archives deleted) and Chart.lock rewritten when its digest changed.
 * Helm's progress lines go to stdout, its "Pulled:"/"Digest:" lines to
 * stderr, and its error texts are returned. The bytes are fetched by the
 * fetcher's code through cli/template_remote.h. */
#ifndef BH_CLI_TEMPLATE_DEPS_H
#define BH_CLI_TEMPLATE_DEPS_H

#include "cli/template_remote.h"
#include "helm/chart.h"
#include "lib/error.h"

typedef struct template_deps {
	const char *chart_path;  /* the chart as given to template (made absolute) */
	const chart *chart;      /* as loaded from chart_path */
	const char *repo_config; /* repositories.yaml */
	const char *repo_cache;  /* the repository cache directory */
	int debug;               /* --debug: Helm's extra progress lines */
	const template_remote *registry; /* --plain-http, TLS files for oci:// */
	/* slog lines (level "DEBUG"), or NULL */
	void (*log)(void *ud, const char *level, const char *msg, const char *const *attrs);
	void *log_ud;
} template_deps;

/* Manager.Update for d->chart_path. 0, or an error with Helm's text. */
int template_deps_update(const template_deps *d, bh_error *err);

#endif
