/*
 * mem_latency - dependent-load latency, measured with a random cyclic
 * pointer chase (one cache line per hop):
 *
 *     index=ia(1)
 *     do i=1,n
 *       num=ia(index)
 *       index=num
 *     end do
 *
 * The lines of a working set form one random cycle (Sattolo's variant of
 * the Fisher-Yates shuffle), so following the pointers visits every line
 * once per lap in random order and each load depends on the previous one.
 * A sweep from --min to --max gives the latency ladder; --sizes gives
 * per-level figures in ns and in core cycles (at the core clock measured
 * with a chain of dependent integer adds).  Runs on one thread.
 * The timed runs of a per-level size go on until they span --span-ms (see
 * DEFAULT_SPAN_MS); the sweep takes --repeats runs per point.
 */
#include "common.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: mem_latency --max=SIZE [--min=SIZE] [--steps-per-octave=N]\n"
    "                   [--sizes=LABEL:SIZE,...] [--line=BYTES] [--hops=N]\n"
    "                   [--repeats=N] [--span-ms=N]\n"
    "  --max=SIZE             largest working set of the sweep (required)\n"
    "  --min=SIZE             smallest working set of the sweep (default 4K)\n"
    "  --steps-per-octave=N   sweep points per doubling of the size (default 2)\n"
    "  --sizes=LIST           per-level working sets, default\n"
    "                         " DEFAULT_SIZES "\n"
    "  --line=BYTES           bytes per hop, one cache line (default 64)\n"
    "  --hops=N               minimum dependent loads per timed run\n"
    "                         (default 1048576; raised so a run lasts >= 20 ms)\n"
    "  --repeats=N            timed runs per size, best is reported (default 5)\n"
    "  --span-ms=N            the timed runs of each --sizes working set go on\n"
    "                         until they span N ms, at least --repeats runs\n"
    "                         (default 2000; the sweep takes --repeats runs)\n"
    "Sizes take binary suffixes K, M, G.  Single-threaded; binding follows\n"
    "OMP_PROC_BIND / OMP_PLACES.\n"
    "Output: core_clock <GHz> GHz, latency.<bytes>B <ns> ns (sweep),\n"
    "        latency.<label> <ns> ns and cycles.<label> <cycles> cycles\n";

#define LAT_MIN_RUN 0.02
#define UNROLL 16

/* follows `hops` pointers (hops is a multiple of UNROLL) */
static void *chase(void *start, long hops)
{
    void **p = start;
    for (long i = 0; i < hops; i += UNROLL) {
        p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
        p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
        p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
        p = (void **)*p; p = (void **)*p; p = (void **)*p; p = (void **)*p;
    }
    return p;
}

struct lat_state {
    char *buf;          /* data, max_bytes */
    uint32_t *perm;     /* successor index of each line */
    size_t line;
    long min_hops;
    long repeats;       /* at least this many timed runs per size */
    uint64_t rng;
};

static long round_hops(double h)
{
    if (h > (double)(LONG_MAX / 2))
        h = (double)(LONG_MAX / 2);
    long r = (long)ceil(h);
    return (r + UNROLL - 1) / UNROLL * UNROLL;
}

struct lat_result {
    double ns;                  /* best time per hop */
    struct timing timing;       /* best and median run, runs, span [s] */
};

/* Measures a working set of `bytes` with at least st->repeats timed runs
 * that span at least `span` seconds. */
static struct lat_result measure(struct lat_state *st, size_t bytes,
                                 double span, const char *what)
{
    const size_t line = st->line;
    const size_t m = bytes / line;
    uint32_t *perm = st->perm;
    char *buf = st->buf;

    /* Sattolo's algorithm: a uniformly random cyclic permutation, i.e. a
     * single cycle through all m lines. */
    for (size_t i = 0; i < m; i++)
        perm[i] = (uint32_t)i;
    for (size_t i = m - 1; i > 0; i--) {
        size_t j = (size_t)rng_below(&st->rng, i); /* 0 <= j < i */
        uint32_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    /* line k points to line perm[k]; written in address order, which also
     * brings the working set into the caches it fits in */
    for (size_t k = 0; k < m; k++)
        *(void **)(buf + k * line) = buf + (size_t)perm[k] * line;

    /* warm-up (untimed for the figures) and calibration */
    long warm = round_hops((double)st->min_hops);
    void *p = buf;
    double t0 = now_seconds();
    p = chase(p, warm);
    double tw = now_seconds() - t0;
    long hops = warm;
    if (tw < LAT_MIN_RUN)
        hops = round_hops((double)warm * 1.25 * LAT_MIN_RUN /
                          (tw > 1e-9 ? tw : 1e-9));
    if (hops < warm)
        hops = warm;

    /* timed runs carry on along the cycle, so a run never re-walks just the
     * lines of the previous run when the cycle is longer than one run */
    double best = DBL_MAX;
    long runs = 0, kept = 0;
    double *times = NULL;
    double start = now_seconds();
    do {
        t0 = now_seconds();
        p = chase(p, hops);
        double t = now_seconds() - t0;
        if (t < best)
            best = t;
        if (runs == kept) {
            long room = kept ? 2 * kept : 64;
            double *grown = realloc(times, (size_t)room * sizeof *times);
            if (!grown) {
                fprintf(stderr, "%s: cannot allocate the times of %ld runs\n",
                        what, room);
                exit(EXIT_ALLOC);
            }
            times = grown;
            kept = room;
        }
        times[runs++] = t;
    } while (runs < st->repeats ||
             now_seconds() - start < span);
    double spanned = now_seconds() - start;
    double median = median_of(times, runs);
    free(times);

    /* validation: the permutation predicts where the chase must end */
    unsigned long long total = (unsigned long long)warm +
                               (unsigned long long)runs *
                                   (unsigned long long)hops;
    unsigned long long steps = total % (unsigned long long)m;
    size_t k = 0;
    for (unsigned long long s = 0; s < steps; s++)
        k = perm[k];
    if ((char *)p != buf + k * line)
        validation_failed("%s: after %llu hops the chase is at line %lld, the permutation predicts line %zu",
                          what, total,
                          (long long)(((char *)p - buf) / (long long)line), k);
    struct lat_result res = {best / (double)hops * 1e9,
                             {.best = best, .median = median, .iters = hops,
                              .runs = runs, .seconds = spanned}};
    return res;
}

int main(int argc, char **argv)
{
    size_t max_bytes = 0, min_bytes = 4096, line = 64;
    long spo = 2, hops = 1L << 20, repeats = 5, span_ms = DEFAULT_SPAN_MS;
    struct size_list sizes;
    default_sizes(&sizes);
    struct opt_spec specs[] = {
        {"max", OPT_SIZE, &max_bytes, 1, NULL, 0},
        {"min", OPT_SIZE, &min_bytes, 0, NULL, 0},
        {"steps-per-octave", OPT_LONG, &spo, 0, NULL, 0},
        {"sizes", OPT_SIZES, &sizes, 0, NULL, 0},
        {"line", OPT_SIZE, &line, 0, NULL, 0},
        {"hops", OPT_LONG, &hops, 0, NULL, 0},
        {"repeats", OPT_LONG, &repeats, 0, NULL, 0},
        {"span-ms", OPT_LONG, &span_ms, 0, NULL, 0},
    };
    parse_options(argc, argv, specs, (int)(sizeof specs / sizeof specs[0]), usage);

    if (line < sizeof(void *) || line % sizeof(void *) != 0)
        usage_error("line", "%zu: must be a multiple of %zu bytes", line,
                    sizeof(void *));
    if (spo > 64)
        usage_error("steps-per-octave", "%ld: at most 64", spo);
    if (min_bytes > max_bytes)
        usage_error("min", "%zu bytes is larger than --max (%zu bytes)",
                    min_bytes, max_bytes);
    if (min_bytes < 2 * line)
        usage_error("min", "%zu bytes: at least two lines (%zu bytes) needed",
                    min_bytes, 2 * line);
    for (int i = 0; i < sizes.count; i++)
        if (sizes.entry[i].bytes < 2 * line)
            usage_error("sizes", "%s:%zu: at least two lines (%zu bytes) needed",
                        sizes.entry[i].label, sizes.entry[i].bytes, 2 * line);

    /* sweep points: min * 2^(k/spo), rounded down to whole lines */
    size_t sweep[4096];
    int nsweep = 0;
    for (int k = 0; nsweep < 4095; k++) {
        double s = (double)min_bytes * pow(2.0, (double)k / (double)spo);
        if (s > (double)max_bytes)
            break;
        size_t b = (size_t)s / line * line;
        if (nsweep == 0 || b > sweep[nsweep - 1])
            sweep[nsweep++] = b;
    }
    size_t maxr = max_bytes / line * line;
    if (nsweep == 0 || sweep[nsweep - 1] < maxr)
        sweep[nsweep++] = maxr;

    size_t alloc_bytes = maxr;
    for (int i = 0; i < sizes.count; i++)
        if (sizes.entry[i].bytes / line * line > alloc_bytes)
            alloc_bytes = sizes.entry[i].bytes / line * line;
    if (alloc_bytes / line > (size_t)UINT32_MAX) {
        size_t limit = (size_t)UINT32_MAX * line;
        usage_error(max_bytes >= alloc_bytes ? "max" : "sizes",
                    "working sets of more than %zu bytes (2^32-1 lines) are not supported",
                    limit);
    }

    print_header("mem_latency: dependent-load latency, random cyclic pointer chase");
    print_threads_info(1);
    comment("line %zu bytes per hop, at least %ld hops per timed run, repeats %ld",
            line, hops, repeats);
    comment("each --sizes figure: best of timed runs spanning at least %ld ms",
            span_ms);
    comment("sweep %zu .. %zu bytes, %ld steps per octave, %d sizes", sweep[0],
            sweep[nsweep - 1], spo, nsweep);
    for (int i = 0; i < sizes.count; i++)
        comment("size %s %zu bytes", sizes.entry[i].label, sizes.entry[i].bytes);

    struct lat_state st;
    require_memory(alloc_bytes + alloc_bytes / line * sizeof(uint32_t),
                   "the pointer-chase working set and its permutation");
    st.buf = alloc_pages(alloc_bytes, "the pointer-chase working set");
    st.perm = alloc_pages(alloc_bytes / line * sizeof(uint32_t),
                          "the permutation");
    st.line = line;
    st.min_hops = hops;
    st.repeats = repeats;
    st.rng = 0x2545F4914F6CDD1DULL;

    /* one thread, inside a parallel region so OMP_PROC_BIND applies;
     * figures are printed as they are measured */
#pragma omp parallel num_threads(1)
    {
        double ghz = measure_core_clock_ghz();
        if (ghz > 0)
            figure("core_clock", ghz, "GHz");
        else
            comment("core clock: not measured (no opaque add chain with this compiler); no cycle figures");
        for (int i = 0; i < nsweep; i++) {
            char name[64];
            snprintf(name, sizeof name, "latency.%zuB", sweep[i]);
            figure(name, measure(&st, sweep[i], 0.0, name).ns, "ns");
        }
        for (int i = 0; i < sizes.count; i++) {
            size_t b = sizes.entry[i].bytes / line * line;
            struct lat_result res = measure(&st, b, (double)span_ms / 1000.0,
                                            sizes.entry[i].label);
            double ns = res.ns;
            comment_timing(sizes.entry[i].label, res.timing.runs,
                           res.timing.seconds);
            figure2("latency", sizes.entry[i].label, ns, "ns");
            figure_repetitions("latency", sizes.entry[i].label, ns, 0, "ns",
                               &res.timing);
            if (ghz > 0)
                figure2("cycles", sizes.entry[i].label, ns * ghz, "cycles");
        }
    }
    free_pages(st.perm);
    free_pages(st.buf);
    validation_passed();
    return EXIT_OK;
}
