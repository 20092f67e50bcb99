/*
 * mem_gatherdot - indirect dot product
 *
 *     do i=1,n
 *       s=s+x(i)*y(ind(i))
 *     end do
 *
 * with ind a random permutation of 1..n (32-bit integers), the basis of
 * sparse matrix-vector products.  Every OpenMP thread runs an independent
 * instance on its own first-touched x, y and ind (like independent MPI
 * tasks on a node).
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

static const char usage[] =
    "usage: mem_gatherdot [--sizes=LABEL:SIZE,...] [--repeats=N] [--span-ms=N]\n"
    "  --sizes=LIST   bytes of x, y and ind together per thread, default\n"
    "                 " DEFAULT_SIZES "\n"
    "  --repeats=N    timed repetitions, best is reported (default 5)\n"
    SPAN_USAGE
    "Sizes take binary suffixes K, M, G.  Threads: OMP_NUM_THREADS; every\n"
    "thread is an independent instance.\n"
    "Output: time_per_iteration.<label> <ns> ns  (mean over threads of the\n"
    "        per-thread best time / n)\n";

#define BYTES_PER_ELEMENT (2 * sizeof(double) + sizeof(uint32_t))

/* Four partial sums, so that the latency of the floating-point add does
 * not bound the cache-resident figures. */
static double gdot(const double *restrict x, const double *restrict y,
                   const uint32_t *restrict ind, size_t n)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += x[i] * y[ind[i]];
        s1 += x[i + 1] * y[ind[i + 1]];
        s2 += x[i + 2] * y[ind[i + 2]];
        s3 += x[i + 3] * y[ind[i + 3]];
    }
    for (; i < n; i++)
        s0 += x[i] * y[ind[i]];
    return (s0 + s1) + (s2 + s3);
}

struct instance {
    double *x, *y;
    uint32_t *ind;
    double acc;
    double expect;
    char pad[64];
};

struct ctx {
    struct instance *inst;
    size_t n;
};

static void kernel(void *vctx, int tid, long iters)
{
    struct ctx *c = vctx;
    struct instance *in = &c->inst[tid];
    double acc = in->acc;
    for (long it = 0; it < iters; it++) {
        acc += gdot(in->x, in->y, in->ind, c->n);
        COMPILER_BARRIER();
    }
    in->acc = acc;
}

/* small integers: every product and partial sum is exact; value_x and
 * value_y have no common period, so a wrong index changes the sum */
static long value_x(size_t i) { return (long)(i % 5) + 1; }
static long value_y(size_t i) { return (long)(i % 7) + 1; }

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
    for (int k = 0; k < sizes.count; k++) {
        size_t n = sizes.entry[k].bytes / BYTES_PER_ELEMENT;
        if (n == 0)
            usage_error("sizes", "%s:%zu is too small (%zu bytes per element)",
                        sizes.entry[k].label, sizes.entry[k].bytes,
                        BYTES_PER_ELEMENT);
        if (n > (size_t)UINT32_MAX)
            usage_error("sizes", "%s:%zu is too large (at most 2^32-1 elements)",
                        sizes.entry[k].label, sizes.entry[k].bytes);
    }

    int nt = team_size();
    print_header("mem_gatherdot: indirect dot product s+=x(i)*y(ind(i))");
    print_threads_info(nt);
    comment("repeats %ld spanning at least %ld ms (best of, after one untimed warm-up)",
            repeats, span_ms);
    for (int k = 0; k < sizes.count; k++)
        comment("size %s %zu bytes per thread (x, y and ind together; %zu elements)",
                sizes.entry[k].label, sizes.entry[k].bytes,
                sizes.entry[k].bytes / BYTES_PER_ELEMENT);

    struct instance *inst = calloc((size_t)nt, sizeof *inst);
    if (!inst) {
        fprintf(stderr, "mem_gatherdot: cannot allocate bookkeeping for %d threads\n", nt);
        return EXIT_ALLOC;
    }
    for (int k = 0; k < sizes.count; k++) {
        const struct size_entry *e = &sizes.entry[k];
        size_t n = e->bytes / BYTES_PER_ELEMENT;
        require_memory(n * BYTES_PER_ELEMENT * (size_t)nt, "x, y and ind of all threads");
        for (int t = 0; t < nt; t++) {
            inst[t].x = alloc_pages(n * sizeof(double), "x");
            inst[t].y = alloc_pages(n * sizeof(double), "y");
            inst[t].ind = alloc_pages(n * sizeof(uint32_t), "ind");
        }
#pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num();
            struct instance *in = &inst[t];
            uint64_t rng = 0x9E3779B97F4A7C15ULL * (uint64_t)(t + 1) + (uint64_t)k;
            for (size_t i = 0; i < n; i++) {
                in->y[i] = (double)value_y(i);
                in->ind[i] = (uint32_t)i;
            }
            /* Fisher-Yates shuffle: ind is a random permutation */
            for (size_t i = n - 1; i > 0; i--) {
                size_t j = (size_t)rng_below(&rng, (uint64_t)i + 1);
                uint32_t tmp = in->ind[i];
                in->ind[i] = in->ind[j];
                in->ind[j] = tmp;
            }
            /* x(i) = f(ind(i)), so the sum is sum_j f(j)*y(j) whatever the
             * permutation, yet only the right indirection y(ind(i)) gives
             * it; known without a random pass */
            long long s = 0;
            for (size_t i = 0; i < n; i++) {
                in->x[i] = (double)value_x(in->ind[i]);
                s += value_x(i) * value_y(i);
            }
            in->expect = (double)s;
            in->acc = 0.0;
        }

        struct ctx c = {inst, n};
        struct timing tm;
        time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                      (double)span_ms / 1000.0, &tm);
        double mean = 0.0;
        for (int t = 0; t < nt; t++) {
            double want = inst[t].expect * (double)tm.total_iters;
            if (inst[t].acc != want)
                validation_failed("%s: thread %d sums to %.17g, expected %.17g",
                                  e->label, t, inst[t].acc, want);
            mean += tm.thread_best[t] / ((double)n * (double)tm.iters);
        }
        mean /= nt;
        comment_timing(e->label, tm.runs, tm.seconds);
        comment("%s: %zu elements per thread, %ld passes per run, best %.6g s",
                e->label, n, tm.iters, tm.best);
        figure2("time_per_iteration", e->label, mean * 1e9, "ns");
        figure_repetitions("time_per_iteration", e->label, mean * 1e9, 0,
                           "ns", &tm);
        timing_free(&tm);
        for (int t = 0; t < nt; t++) {
            free_pages(inst[t].x);
            free_pages(inst[t].y);
            free_pages(inst[t].ind);
        }
    }
    free(inst);
    validation_passed();
    return EXIT_OK;
}
