/* tmpl/tmpl.h — the Go text/template engine as Helm 4 runs it.
 *
 * One tmpl_engine is one Helm rendering: a set of named templates sharing
 * one namespace of definitions (every `define` in any added source is
 * visible to all), the registered functions (tmpl/funcs.h), limits, and the
 * arena that owns every value created while rendering. Typical use:
 *
 *   tmpl_engine *e = tmpl_engine_new(&err);
 *   tmpl_engine_add(e, "vec/templates/a.yaml", src, len, &err);  // parse
 *   ... add every file, in Helm's order (later defines win) ...
 *   tmpl_value dot = helmctx_root(...);                           // helmctx.h
 *   tmpl_engine_render(e, "vec/templates/a.yaml", &dot, &out, &err);
 *   tmpl_engine_free(e);
 *
 * Errors are in Helm 4's shapes: "parse error at (FILE:LINE): MSG", the
 * three-line trace "FILE:LINE:COL\n  executing \"NAME\" at <NODE>:\n    MSG",
 * Go's one-line "template: FILE:L:C: executing ... error calling FN: MSG",
 * and "execution error at (FILE:L:C): MSG" for fail/required. Limit errors
 * use BH_ELIMIT. Parse errors BH_EPARSE, execution errors BH_EEXEC. */
#ifndef TMPL_TMPL_H
#define TMPL_TMPL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/error.h"
#include "tmpl/funcs.h"
#include "tmpl/value.h"

typedef struct tmpl_engine tmpl_engine;

typedef struct tmpl_limits {
	int max_include_depth;  /* include/tpl nesting per name (Helm: 1000) */
	int max_exec_depth;     /* template/include call depth (Go: 100000; default 3000) */
	size_t max_output;      /* bytes of one execution's output (default 64 MiB) */
	uint64_t max_steps;     /* evaluated nodes per top-level execution (default 50M) */
	size_t max_memory;      /* bytes the arena may hold (default 512 MiB) */
	size_t max_source;      /* bytes of one template source (default 16 MiB) */
	int max_parse_depth;    /* nesting of parentheses/blocks (default 10000) */
	size_t max_stack;       /* bytes of C stack parsing/execution may use
				 * (default 4 MiB); deeper nesting fails cleanly */
} tmpl_limits;

void tmpl_limits_default(tmpl_limits *l);

/* A `lookup` implementation (apiVersion, kind, namespace, name) -> value.
 * Return 0 with *out set (an empty map when not found), or a negative code
 * with err set (reported as "error calling lookup: MSG"). Without a
 * callback, lookup returns an empty map (helm template behaviour). */
typedef int (*tmpl_lookup_fn)(void *ud, tmpl_arena *a, const char *api_version,
			      const char *kind, const char *ns, const char *name,
			      tmpl_value *out, bh_error *err);

tmpl_engine *tmpl_engine_new(bh_error *err);
/* An engine with Sprig's TxtFuncMap only (Helm's --name-template): no
 * include/tpl/required/lookup/toYaml/..., and Sprig's env, expandenv, fail
 * and getHostByName (a real DNS lookup). Add sources with
 * tmpl_engine_add_go() to get Go's own parse error text. */
tmpl_engine *tmpl_engine_new_sprig(bh_error *err);
/* Helm's --enable-dns: getHostByName looks names up (else it answers ""). */
void tmpl_engine_enable_dns(tmpl_engine *e);
void tmpl_engine_free(tmpl_engine *e);
/* For a process that exits right after its render (the `bulkhead
 * template` command): from now on tmpl_engine_free() leaves the engines'
 * arena chunks mapped, for exit(2) to return with the rest of the process's
 * pages. An munmap per chunk costs more than the process's teardown does
 * for the same pages (vault: 3 chunks, 118 pages; 1.4% of its CPU).
 * Everything else is freed as before. Call once, from the main thread. */
void tmpl_arenas_leave_to_exit(void);
/* genCA, genSelfSignedCert, genSignedCert and genPrivateKey search each of
 * an RSA key's primes on n threads at once (1 to 8; default 1: no thread,
 * as the sandboxed worker needs), the first prime found taken: a search
 * takes as long as its prime gap, which varies tenfold, and the shortest of
 * n is taken (tmpl/rsa_keygen.c). For a process of its own (the `bulkhead
 * template` command); call once, from the main thread, before any key. */
void tmpl_rsa_keygen_threads(int n);
void tmpl_engine_set_limits(tmpl_engine *e, const tmpl_limits *l);
void tmpl_engine_set_lookup(tmpl_engine *e, tmpl_lookup_fn fn, void *ud);
/* The arena owning the engine's values (use it to build the root value). */
tmpl_arena *tmpl_engine_arena(tmpl_engine *e);

/* Parses src as template NAME (its defines join the shared namespace; a
 * later define of the same name replaces the earlier one). The source is
 * copied. BH_EPARSE with "parse error at (NAME:LINE): MSG". */
int tmpl_engine_add(tmpl_engine *e, const char *name, const char *src, size_t len,
		    bh_error *err);
/* tmpl_engine_add without the copy: the engine keeps pointing into src,
 * which must stay unchanged until tmpl_engine_free(e) (a chart's files
 * outlive its rendering; kube-prometheus-stack's are 1.7 MB). */
int tmpl_engine_add_borrowed(tmpl_engine *e, const char *name, const char *src, size_t len,
			     bh_error *err);
/* One source of tmpl_engine_add_borrowed_all. */
typedef struct tmpl_source {
	const char *name;
	const char *src;
	size_t len;
} tmpl_source;
/* tmpl_engine_add_borrowed of v[0], v[1], ... v[n-1] in turn, with the
 * same result (the same templates; of several failing sources, the first's
 * error), the parsing shared by up to `threads` threads: the caller's and
 * threads - 1 it starts and joins (tmpl/engine_parallel.c). With threads
 * <= 1, or too little to parse to repay a thread, no thread is started: a
 * process whose seccomp filter does not allow clone (the worker) passes 1. */
int tmpl_engine_add_borrowed_all(tmpl_engine *e, const tmpl_source *v, size_t n, int threads, bh_error *err);
/* tmpl_engine_add_borrowed_all in two steps, for a caller with other work
 * meanwhile: _start starts threads - 1 threads parsing v from its first
 * source on, and returns at once; e may then be used for anything but
 * parsing, and v and its sources must stay unchanged. _finish joins in on
 * the caller's thread, waits for the others, adds the templates and frees
 * the job (its result: tmpl_engine_add_borrowed_all's); _cancel stops the
 * threads after their current source, waits for them and frees the job, e
 * getting none of it. _start returns NULL when it started no thread (too
 * little to parse, threads <= 1, or none could be started): the caller
 * then parses as tmpl_engine_add_borrowed_all with threads = 1 does. */
typedef struct tmpl_parse_job tmpl_parse_job;
tmpl_parse_job *tmpl_parse_job_start(tmpl_engine *e, const tmpl_source *v, size_t n, int threads);
int tmpl_parse_job_finish(tmpl_parse_job *j, bh_error *err);
void tmpl_parse_job_cancel(tmpl_parse_job *j);
/* tmpl_engine_add with Go's parse error text ("template: NAME:1: unclosed
 * action"), not Helm's "parse error at (...)" shape. */
int tmpl_engine_add_go(tmpl_engine *e, const char *name, const char *src, size_t len, bh_error *err);
/* 1 if a template (file or define) of that name exists. */
int tmpl_engine_has(const tmpl_engine *e, const char *name);

/* Executes template NAME with dot as `.` and appends the raw output to out
 * (no `<no value>` removal: this is what `include` sees). Errors in Go's own
 * shape (the one-line "template: ..." text), code BH_EEXEC or BH_ELIMIT. */
int tmpl_engine_execute(tmpl_engine *e, const char *name, const tmpl_value *dot,
			bh_buf *out, bh_error *err);
/* What Helm does per file: execute, then delete every "<no value>" from the
 * output, and rewrite errors into Helm 4's shapes (see top). */
int tmpl_engine_render(tmpl_engine *e, const char *name, const tmpl_value *dot,
		       bh_buf *out, bh_error *err);

/* After a failed tmpl_engine_execute/_render whose message was longer than
 * a bh_error holds (err->msg then keeps its head and tail): the whole text,
 * which the caller frees; NULL when the message fitted. */
char *tmpl_engine_take_error_text(tmpl_engine *e);

/* For a process about to forbid itself file access (the worker's seccomp
 * policy): loads now what the engine would otherwise read from files later
 * (the Local time zone); afterwards zones not yet loaded behave as unknown
 * (dateInZone falls back to UTC, as Helm does when a zone cannot be loaded).
 * Call once, before locking down. */
void tmpl_prepare_sandbox(void);

#endif
