/*
 * mem_readbw - read bandwidth of the kernel
 *
 *     do i=1,n
 *       s=s+a(i)
 *       t=t+b(i)
 *     end do
 *
 * at a list of total working-set sizes (a and b together, split evenly
 * across the OpenMP threads; each thread reads its own first-touched
 * slice).  Bytes counted: 16 per i.  The time of a repetition is the
 * slowest thread's; the figure is the best repetition.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

static const char usage[] =
    "usage: mem_readbw [--sizes=LABEL:SIZE,...] [--repeats=N] [--span-ms=N]\n"
    "  --sizes=LIST   total working sets (a and b together, all threads),\n"
    "                 default " DEFAULT_SIZES "\n"
    "  --repeats=N    timed repetitions, best is reported (default 5)\n"
    SPAN_USAGE
    "Sizes take binary suffixes K, M, G.  Threads: OMP_NUM_THREADS;\n"
    "binding: OMP_PROC_BIND / OMP_PLACES.\n"
    "Output: bandwidth.<label> <MB/s> MB/s  (MB = 1e6 bytes, 16 bytes per i)\n";

/* Accumulator block: RB_U independent accumulators of RB_V lanes per
 * stream, so that neither the add latency nor a single dependency chain
 * limits the cache-resident figures. */
#define RB_V 8
#define RB_U 4

static void sum2(const double *restrict a, const double *restrict b, size_t n,
                 double *ra, double *rb)
{
    double s[RB_U][RB_V], t[RB_U][RB_V];
    memset(s, 0, sizeof s);
    memset(t, 0, sizeof t);
    size_t i = 0;
    const size_t blk = RB_U * RB_V;
    for (; i + blk <= n; i += blk) {
        for (int u = 0; u < RB_U; u++) {
#pragma omp simd
            for (int k = 0; k < RB_V; k++) {
                s[u][k] += a[i + (size_t)u * RB_V + (size_t)k];
                t[u][k] += b[i + (size_t)u * RB_V + (size_t)k];
            }
        }
    }
    double ss = 0.0, tt = 0.0;
    for (; i < n; i++) {
        ss += a[i];
        tt += b[i];
    }
    for (int u = 0; u < RB_U; u++)
        for (int k = 0; k < RB_V; k++) {
            ss += s[u][k];
            tt += t[u][k];
        }
    *ra = ss;
    *rb = tt;
}

struct ctx {
    double **a, **b;
    size_t n;                    /* elements per array per thread */
    struct padded_double *sa, *sb;
};

static void kernel(void *vctx, int tid, long iters)
{
    struct ctx *c = vctx;
    const double *a = c->a[tid], *b = c->b[tid];
    double accs = c->sa[tid].v, acct = c->sb[tid].v;
    for (long it = 0; it < iters; it++) {
        double s, t;
        sum2(a, b, c->n, &s, &t);
        accs += s;
        acct += t;
        COMPILER_BARRIER();
    }
    c->sa[tid].v = accs;
    c->sb[tid].v = acct;
}

/* initial values: small integers, so every partial sum is exact */
static double value_a(size_t i) { return (double)((i & 7) + 1); }
static double value_b(size_t i) { return (double)(i % 3); }

int main(int argc, char **argv)
{
    struct size_list sizes;
    long repeats = 5, span_ms = DEFAULT_SPAN_MS;
    default_sizes(&sizes);
    struct opt_spec specs[] = {
        {"sizes", OPT_SIZES, &sizes, 0, NULL, 0},
        {"repeats", OPT_LONG, &repeats, 0, NULL, 0},
        {"span-ms", OPT_LONG, &span_ms, 0, NULL, 0},
    };
    parse_options(argc, argv, specs, (int)(sizeof specs / sizeof specs[0]), usage);

    int nt = team_size();
    for (int k = 0; k < sizes.count; k++)
        if (sizes.entry[k].bytes / (size_t)nt / 16 == 0)
            usage_error("sizes", "%s:%zu is too small for %d threads (16 bytes per thread at least)",
                        sizes.entry[k].label, sizes.entry[k].bytes, nt);

    print_header("mem_readbw: read bandwidth, s+=a(i); t+=b(i)");
    print_threads_info(nt);
    comment("repeats %ld spanning at least %ld ms (best of, after one untimed warm-up)",
            repeats, span_ms);
    for (int k = 0; k < sizes.count; k++)
        comment("size %s %zu bytes (a and b together, all threads)",
                sizes.entry[k].label, sizes.entry[k].bytes);

    double **pa = calloc((size_t)nt, sizeof *pa);
    double **pb = calloc((size_t)nt, sizeof *pb);
    struct padded_double *sa = calloc((size_t)nt, sizeof *sa);
    struct padded_double *sb = calloc((size_t)nt, sizeof *sb);
    double *expect_a = calloc((size_t)nt, sizeof *expect_a);
    double *expect_b = calloc((size_t)nt, sizeof *expect_b);
    if (!pa || !pb || !sa || !sb || !expect_a || !expect_b) {
        fprintf(stderr, "mem_readbw: cannot allocate bookkeeping for %d threads\n", nt);
        return EXIT_ALLOC;
    }

    for (int k = 0; k < sizes.count; k++) {
        const struct size_entry *e = &sizes.entry[k];
        size_t n = e->bytes / (size_t)nt / 16;
        /* b starts two cache lines after the (line-rounded) end of a, so
         * that a(i) and b(i) do not fall into the same cache set */
        size_t boff = (n + 7) / 8 * 8 + 16;
        require_memory((boff + n) * sizeof(double) * (size_t)nt, "a and b of all threads");
        for (int t = 0; t < nt; t++) {
            pa[t] = alloc_pages((boff + n) * sizeof(double), "a and b");
            pb[t] = pa[t] + boff;
        }
#pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num();
            double *a = pa[t], *b = pb[t];
            unsigned long long ea = 0, eb = 0;
            for (size_t i = 0; i < boff; i++)
                a[i] = 0.0; /* touch the gap as well */
            for (size_t i = 0; i < n; i++) {
                a[i] = value_a(i);
                b[i] = value_b(i);
                ea += (unsigned long long)value_a(i);
                eb += (unsigned long long)value_b(i);
            }
            expect_a[t] = (double)ea;
            expect_b[t] = (double)eb;
            sa[t].v = 0.0;
            sb[t].v = 0.0;
        }

        struct ctx c = {pa, pb, n, sa, sb};
        struct timing tm;
        time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                      (double)span_ms / 1000.0, &tm);

        for (int t = 0; t < nt; t++) {
            double wa = expect_a[t] * (double)tm.total_iters;
            double wb = expect_b[t] * (double)tm.total_iters;
            if (sa[t].v != wa || sb[t].v != wb)
                validation_failed("%s: thread %d sums %.17g %.17g, expected %.17g %.17g",
                                  e->label, t, sa[t].v, sb[t].v, wa, wb);
        }
        double bytes = 16.0 * (double)n * (double)nt * (double)tm.iters;
        comment_timing(e->label, tm.runs, tm.seconds);
        comment("%s: %zu doubles per array per thread, %ld passes per run, best %.6g s",
                e->label, n, tm.iters, tm.best);
        figure2("bandwidth", e->label, bytes / tm.best * 1e-6, "MB/s");
        figure_repetitions("bandwidth", e->label, bytes / tm.best * 1e-6, 1,
                           "MB/s", &tm);
        timing_free(&tm);
        for (int t = 0; t < nt; t++)
            free_pages(pa[t]);
    }
    free(pa);
    free(pb);
    free(sa);
    free(sb);
    free(expect_a);
    free(expect_b);
    validation_passed();
    return EXIT_OK;
}
