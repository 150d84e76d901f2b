"""Optional profiler for kubesim's own speed (KUBESIM_PROFILE=FILE): every
thread (request handlers, watches, controllers, the accept loop) runs under
its own cProfile profiler (thread CPU time, not wall); their statistics are merged and written to FILE
(pstats format: python3 -m pstats FILE) when kubesim stops."""
import cProfile
import pstats
import threading
import time

_lock = threading.Lock()
_done = []  # finished threads' profilers
_live = set()


def _collect(prof):
    prof.disable()
    with _lock:
        _live.discard(prof)
        _done.append(prof)


def install():
    """Profile every thread started from now on, and the calling thread."""
    run = threading.Thread.run

    def profiled_run(self):
        prof = cProfile.Profile(time.thread_time)
        with _lock:
            _live.add(prof)
        prof.enable()
        try:
            run(self)
        finally:
            _collect(prof)
    threading.Thread.run = profiled_run
    main = cProfile.Profile(time.thread_time)
    with _lock:
        _live.add(main)
    main.enable()
    return main


class _Snapshot:
    """What pstats.Stats loads: stats taken from a profiler that may still run."""

    def __init__(self, stats):
        self.stats = stats

    def create_stats(self):
        pass


def dump(main, path):
    """Stop the calling thread's profiler and write everything gathered to path."""
    _collect(main)
    with _lock:
        profs = list(_done) + list(_live)  # live ones (watches still open) as they stand
    stats = None
    for p in profs:
        p.snapshot_stats()  # without disable(): that would act on this thread, not p's
        if not p.stats:
            continue
        s = pstats.Stats(_Snapshot(p.stats))
        if stats is None:
            stats = s
        else:
            stats.add(s)
    if stats is not None:
        stats.dump_stats(path)


# ---- KUBESIM_CPUSTATS=FILE: where kubesim's CPU goes, at a low cost -------------------
# (cProfile's per-call overhead inflates Python-heavy code several times over;
# this takes two thread-CPU readings per request and per controller pass.)
_cpu = {}  # category -> [cpu seconds, count]
_cpu_lock = threading.Lock()


def cpu_add(cat, secs):
    with _cpu_lock:
        c = _cpu.get(cat)
        if c is None:
            c = _cpu[cat] = [0.0, 0]
        c[0] += secs
        c[1] += 1


def cpu_gc():
    """Also count the cyclic garbage collector's CPU (by generation)."""
    import gc
    start = {}

    def cb(phase, info):
        if phase == "start":
            start[threading.get_ident()] = time.thread_time()
        else:
            t0 = start.pop(threading.get_ident(), None)
            if t0 is not None:
                cpu_add("gc generation %d" % info["generation"], time.thread_time() - t0)
    gc.callbacks.append(cb)


def cpu_dump(path, connections):
    """connections: the server's connection counts (h2conn.Stats)."""
    import json
    with _cpu_lock:
        rows = sorted(((k, round(v[0], 3), v[1]) for k, v in _cpu.items()), key=lambda r: -r[1])
    with open(path, "w") as f:
        json.dump({"total": round(sum(r[1] for r in rows), 3), "by": rows, "connections": connections}, f, indent=0)
