/*
 * mem_dotstreams - dot product s = sum x(i)*y(i) with 2, 4, 6 or 8
 * hardware-prefetch streams exposed by loop bisection, trisection and
 * quadrisection: the vectors are split into streams/2 segments that are
 * walked simultaneously, with clean-up code for the remainder.
 *
 *     do i=1,n/2                          ! 4 streams
 *       s0=s0+x(i)*y(i)
 *       s1=s1+x(i+n/2)*y(i+n/2)
 *     end do
 *     if (mod(n,2).ne.0) s0=s0+x(n)*y(n)
 *
 * Each OpenMP thread does this on its own first-touched slice of x and y.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

static const char usage[] =
    "usage: mem_dotstreams --size=SIZE [--streams=2|4|6|8] [--repeats=N] [--span-ms=N]\n"
    "  --size=SIZE     bytes of x and y together, all threads (required;\n"
    "                  choose it larger than the caches)\n"
    "  --streams=N     prefetch streams: 2 (plain loop), 4, 6, 8 (default 2)\n"
    "  --repeats=N     timed repetitions, best is reported (default 5)\n"
    SPAN_USAGE
    "Sizes take binary suffixes K, M, G.  Threads: OMP_NUM_THREADS.\n"
    "Output: bandwidth <MB/s> MB/s (16 bytes per iteration, all threads),\n"
    "        time_per_iteration <ns> ns (per thread)\n";

static double dot(const double *x, const double *y, size_t n, int segments)
{
    switch (segments) {
    case 1: {
        double s0 = 0.0;
#pragma omp simd reduction(+:s0)
        for (size_t i = 0; i < n; i++)
            s0 += x[i] * y[i];
        return s0;
    }
    case 2: {
        const size_t m = n / 2;
        const double *x1 = x + m, *y1 = y + m;
        double s0 = 0.0, s1 = 0.0;
#pragma omp simd reduction(+:s0, s1)
        for (size_t i = 0; i < m; i++) {
            s0 += x[i] * y[i];
            s1 += x1[i] * y1[i];
        }
        for (size_t i = 2 * m; i < n; i++) /* clean-up */
            s0 += x[i] * y[i];
        return s0 + s1;
    }
    case 3: {
        const size_t m = n / 3;
        const double *x1 = x + m, *y1 = y + m;
        const double *x2 = x + 2 * m, *y2 = y + 2 * m;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
#pragma omp simd reduction(+:s0, s1, s2)
        for (size_t i = 0; i < m; i++) {
            s0 += x[i] * y[i];
            s1 += x1[i] * y1[i];
            s2 += x2[i] * y2[i];
        }
        for (size_t i = 3 * m; i < n; i++)
            s0 += x[i] * y[i];
        return s0 + s1 + s2;
    }
    default: {
        const size_t m = n / 4;
        const double *x1 = x + m, *y1 = y + m;
        const double *x2 = x + 2 * m, *y2 = y + 2 * m;
        const double *x3 = x + 3 * m, *y3 = y + 3 * m;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
#pragma omp simd reduction(+:s0, s1, s2, s3)
        for (size_t i = 0; i < m; i++) {
            s0 += x[i] * y[i];
            s1 += x1[i] * y1[i];
            s2 += x2[i] * y2[i];
            s3 += x3[i] * y3[i];
        }
        for (size_t i = 4 * m; i < n; i++)
            s0 += x[i] * y[i];
        return s0 + s1 + s2 + s3;
    }
    }
}

struct ctx {
    double **x, **y;
    size_t n;
    int segments;
    struct padded_double *acc;
};

static void kernel(void *vctx, int tid, long iters)
{
    struct ctx *c = vctx;
    double acc = c->acc[tid].v;
    for (long it = 0; it < iters; it++) {
        acc += dot(c->x[tid], c->y[tid], c->n, c->segments);
        COMPILER_BARRIER();
    }
    c->acc[tid].v = acc;
}

/* small integers: every product and partial sum is exact */
static long value_x(size_t i) { return (long)(i % 7) + 1; }
static long value_y(size_t i) { return (long)(i % 5) + 1; }

int main(int argc, char **argv)
{
    size_t size = 0;
    long streams = 2, repeats = 5, span_ms = DEFAULT_SPAN_MS;
    static const long stream_choices[] = {2, 4, 6, 8, 0};
    struct opt_spec specs[] = {
        {"size", OPT_SIZE, &size, 1, NULL, 0},
        {"streams", OPT_CHOICE, &streams, 0, stream_choices, 0},
        {"repeats", OPT_LONG, &repeats, 0, NULL, 0},
        {"span-ms", OPT_LONG, &span_ms, 0, NULL, 0},
    };
    parse_options(argc, argv, specs, (int)(sizeof specs / sizeof specs[0]), usage);

    int nt = team_size();
    int segments = (int)streams / 2;
    size_t n = size / (size_t)nt / 16;
    if (n < (size_t)segments)
        usage_error("size", "%zu bytes is too small for %d threads and %ld streams",
                    size, nt, streams);

    print_header("mem_dotstreams: dot product with 2/4/6/8 prefetch streams");
    print_threads_info(nt);
    comment("streams %ld (%d segment%s walked simultaneously), repeats %ld spanning at least %ld ms",
            streams, segments, segments > 1 ? "s" : "", repeats, span_ms);
    comment("size %zu bytes (x and y together, all threads); %zu elements per vector per thread",
            size, n);

    double **px = calloc((size_t)nt, sizeof *px);
    double **py = calloc((size_t)nt, sizeof *py);
    struct padded_double *acc = calloc((size_t)nt, sizeof *acc);
    double *expect = calloc((size_t)nt, sizeof *expect);
    if (!px || !py || !acc || !expect) {
        fprintf(stderr, "mem_dotstreams: cannot allocate bookkeeping for %d threads\n", nt);
        return EXIT_ALLOC;
    }
    require_memory(2 * n * sizeof(double) * (size_t)nt, "x and y of all threads");
    for (int t = 0; t < nt; t++) {
        px[t] = alloc_pages(n * sizeof(double), "x");
        py[t] = alloc_pages(n * sizeof(double), "y");
    }
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        long long e = 0;
        for (size_t i = 0; i < n; i++) {
            px[t][i] = (double)value_x(i);
            py[t][i] = (double)value_y(i);
            e += (long long)value_x(i) * value_y(i);
        }
        expect[t] = (double)e;
        acc[t].v = 0.0;
    }

    struct ctx c = {px, py, n, segments, acc};
    struct timing tm;
    time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                  (double)span_ms / 1000.0, &tm);
    for (int t = 0; t < nt; t++) {
        double want = expect[t] * (double)tm.total_iters;
        if (acc[t].v != want)
            validation_failed("thread %d dot products sum to %.17g, expected %.17g",
                              t, acc[t].v, want);
    }
    comment_timing("dot", tm.runs, tm.seconds);
    comment("%ld passes per run, best %.6g s", tm.iters, tm.best);
    double iters_per_thread = (double)n * (double)tm.iters;
    double bandwidth = 16.0 * iters_per_thread * nt / tm.best * 1e-6;
    figure("bandwidth", bandwidth, "MB/s");
    figure("time_per_iteration", tm.best / iters_per_thread * 1e9, "ns");
    figure_repetitions("bandwidth", NULL, bandwidth, 1, "MB/s", &tm);
    timing_free(&tm);
    for (int t = 0; t < nt; t++) {
        free_pages(px[t]);
        free_pages(py[t]);
    }
    free(px);
    free(py);
    free(acc);
    free(expect);
    validation_passed();
    return EXIT_OK;
}
