/* tests/bench/bench_tmpl.c — template engine benchmark: parses and renders
 * (a) the templates of every chart under CORPUS/charts (top chart, its own
 * values.yaml) and (b) every template of CORPUS/functions/lang.jsonl,
 * repeatedly for SECONDS each, and prints templates rendered per second and
 * the peak RSS. Chart templates that call functions this build does not
 * have yet are counted and skipped (the line says how many).
 * Usage: bench_tmpl CORPUS [SECONDS] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <jansson.h>

#include "helm/chart.h"
#include "tmpl/helmctx.h"
#include "tmpl/tmpl.h"

typedef struct unit {
	char *name;         /* template name */
	const char *src;
	size_t len;
	int render;         /* 0 = partial (parse only) */
} unit;

typedef struct job {
	char *label;
	unit *units;
	size_t n;
	json_t *values;
	json_t *chart;
	const helmctx_file *files;
	size_t nfiles;
} job;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One engine: parse all units, render every renderable one. Returns the
 * number rendered, or -1 (with err) if parsing failed. */
static long run_job(const job *j, bh_error *err)
{
	tmpl_engine *e = tmpl_engine_new(err);
	helmctx_opts o;
	tmpl_value root;
	bh_buf out = BH_BUF_INIT;
	long rendered = 0;
	if (!e)
		return -1;
	for (size_t i = 0; i < j->n; i++)
		if (tmpl_engine_add(e, j->units[i].name, j->units[i].src, j->units[i].len, err)) {
			tmpl_engine_free(e);
			return -1;
		}
	memset(&o, 0, sizeof(o));
	o.values = j->values;
	o.chart = j->chart;
	o.files = j->files;
	o.n_files = j->nfiles;
	o.release_name = "bench";
	o.release_namespace = "default";
	if (helmctx_build(tmpl_engine_arena(e), &o, &root, err)) {
		tmpl_engine_free(e);
		return -1;
	}
	for (size_t i = 0; i < j->n; i++) {
		if (!j->units[i].render)
			continue;
		helmctx_set_template(tmpl_engine_arena(e), &root, j->units[i].name, "bench/templates", err);
		bh_buf_reset(&out);
		if (tmpl_engine_render(e, j->units[i].name, &root, &out, err) == 0)
			rendered++;
		else if (getenv("BENCH_VERBOSE"))
			fprintf(stderr, "render %s: %.300s\n", j->units[i].name, err->msg);
	}
	bh_buf_free(&out);
	tmpl_engine_free(e);
	return rendered;
}

static void bench(const char *what, job *jobs, size_t njobs, double secs)
{
	long total = 0;
	double t0 = now(), t;
	bh_error err;
	int iters = 0;
	do {
		for (size_t i = 0; i < njobs; i++) {
			long r = run_job(&jobs[i], &err);
			if (r > 0)
				total += r;
		}
		iters++;
		t = now() - t0;
	} while (t < secs);
	printf("%s: %ld templates rendered in %.2f s (%d rounds): %.0f templates/second\n", what, total, t,
	       iters, (double)total / t);
}

static int load_charts(const char *corpus, job **jobs, size_t *njobs, int *skipped)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/charts", corpus);
	DIR *d = opendir(path);
	struct dirent *de;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		chart *c = NULL;
		bh_error err;
		char cp[8192];
		if (de->d_name[0] == '.')
			continue;
		snprintf(cp, sizeof cp, "%s/%s", path, de->d_name);
		if (chart_load_dir(cp, NULL, &c, &err))
			continue;
		job j;
		memset(&j, 0, sizeof(j));
		j.label = strdup(de->d_name);
		j.values = c->values;
		j.chart = c->metadata;
		helmctx_file *hf = calloc(c->nfiles + 1, sizeof(*hf));
		for (size_t i = 0; i < c->nfiles; i++) {
			hf[i].name = c->files[i].name;
			hf[i].data = c->files[i].data;
			hf[i].len = c->files[i].len;
		}
		j.files = hf;
		j.nfiles = c->nfiles;
		j.units = calloc(c->ntemplates + 1, sizeof(unit));
		for (size_t i = 0; i < c->ntemplates; i++) {
			char nm[4096];
			const char *base = strrchr(c->templates[i].name, '/');
			base = base ? base + 1 : c->templates[i].name;
			snprintf(nm, sizeof nm, "%s/%s", chart_name(c), c->templates[i].name);
			j.units[j.n].name = strdup(nm);
			j.units[j.n].src = (const char *)c->templates[i].data;
			j.units[j.n].len = c->templates[i].len;
			j.units[j.n].render = base[0] != '_' && strcmp(base, "NOTES.txt") != 0;
			j.n++;
		}
		/* keep the chart alive for the whole run (its memory backs the job) */
		long r = run_job(&j, &err);
		if (r > 0)
			printf("  chart %s: %ld of %zu templates render\n", de->d_name, r, j.n);
		if (r <= 0) {
			(*skipped)++;
			printf("  chart %s skipped: %s\n", de->d_name, r < 0 ? err.msg : "no template renders");
			continue;
		}
		*jobs = realloc(*jobs, (*njobs + 1) * sizeof(job));
		(*jobs)[(*njobs)++] = j;
	}
	closedir(d);
	return 0;
}

static int load_lang(const char *corpus, job **jobs, size_t *njobs)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/functions/lang.jsonl", corpus);
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	if (!f)
		return -1;
	while ((n = getline(&line, &cap, f)) > 0) {
		json_error_t je;
		json_t *v = json_loadb(line, (size_t)n, JSON_DECODE_INT_AS_REAL, &je);
		if (!v)
			continue;
		if (!json_object_get(v, "expect") || json_object_get(v, "valuesYaml") || json_object_get(v, "set")) {
			json_decref(v);
			continue;
		}
		job j;
		memset(&j, 0, sizeof(j));
		j.units = calloc(1, sizeof(unit));
		j.units[0].name = strdup("vec/templates/test.yaml");
		j.units[0].src = strdup(json_string_value(json_object_get(v, "template")));
		j.units[0].len = strlen(j.units[0].src);
		j.units[0].render = 1;
		j.n = 1;
		j.values = json_incref(json_object_get(v, "values"));
		json_decref(v);
		*jobs = realloc(*jobs, (*njobs + 1) * sizeof(job));
		(*jobs)[(*njobs)++] = j;
	}
	free(line);
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	job *charts = NULL, *lang = NULL;
	size_t ncharts = 0, nlang = 0, ntemplates = 0;
	int skipped = 0;
	double secs = argc > 2 ? atof(argv[2]) : 3.0;
	struct rusage ru;
	if (argc < 2) {
		fprintf(stderr, "usage: bench_tmpl CORPUS [SECONDS]\n");
		return 2;
	}
	setenv("TZ", "UTC", 1);
	load_charts(argv[1], &charts, &ncharts, &skipped);
	for (size_t i = 0; i < ncharts; i++)
		ntemplates += charts[i].n;
	printf("chart templates: %zu charts usable, %d skipped (render errors)\n", ncharts,
	       skipped);
	if (ncharts)
		bench("charts", charts, ncharts, secs);
	if (load_lang(argv[1], &lang, &nlang) == 0) {
		printf("language vectors: %zu templates (lang.jsonl)\n", nlang);
		bench("lang.jsonl", lang, nlang, secs);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
	return 0;
}
