/*
 * mem_daxpy - matrix-vector product, column-wise (DAXPY form):
 *
 *     do j=1,n
 *       do i=1,n
 *         y(i)=y(i)+A(i,j)*x(j)
 *       end do
 *     end do
 *
 * A is column-major, so A and y are walked with unit stride and x(j) stays
 * in a register for the inner loop.  Every OpenMP thread runs an
 * independent instance on its own first-touched data (like independent
 * MPI tasks on a node).
 */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

static const char usage[] =
    "usage: mem_daxpy [--sizes=LABEL:SIZE,...] [--repeats=N] [--span-ms=N]\n"
    "  --sizes=LIST   bytes of the matrix A per thread, default\n"
    "                 " DEFAULT_SIZES "\n"
    "  --repeats=N    timed repetitions, best is reported (default 5)\n"
    SPAN_USAGE
    "Sizes take binary suffixes K, M, G.  Threads: OMP_NUM_THREADS; every\n"
    "thread is an independent instance.\n"
    "Output: flops.<label> <MFLOP/s> MFLOP/s  (2 flops per inner iteration,\n"
    "        all threads), time_per_iteration.<label> <ns> ns (mean over\n"
    "        threads of the per-thread best time / n^2)\n";

static void matvec(const double *restrict a, const double *restrict x,
                   double *restrict y, size_t n, size_t lda)
{
    for (size_t j = 0; j < n; j++) {
        const double xj = x[j];
        const double *restrict col = a + j * lda;
#pragma omp simd
        for (size_t i = 0; i < n; i++)
            y[i] += col[i] * xj;
    }
}

struct instance {
    double *a, *x, *y;
    long long *rowsum; /* sum_j A(i,j)*x(j), exact */
    char pad[64];
};

struct ctx {
    struct instance *inst;
    size_t n, lda;
};

static void kernel(void *vctx, int tid, long iters)
{
    struct ctx *c = vctx;
    struct instance *in = &c->inst[tid];
    for (long it = 0; it < iters; it++) {
        matvec(in->a, in->x, in->y, c->n, c->lda);
        COMPILER_BARRIER();
    }
}

/* small positive integers: every product and partial sum is exact */
static long value_a(size_t i, size_t j) { return (long)((i + 2 * j) % 4) + 1; }
static long value_x(size_t j) { return (long)(j % 3) + 1; }

static size_t round8(size_t n) { return (n + 7) / 8 * 8; }

/* largest n whose padded n x n matrix fits in `bytes` */
static size_t matrix_order(size_t bytes)
{
    size_t n = (size_t)sqrt((double)(bytes / sizeof(double)));
    while (n > 0 && round8(n) * n * sizeof(double) > bytes)
        n--;
    return n;
}

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
    for (int k = 0; k < sizes.count; k++)
        if (matrix_order(sizes.entry[k].bytes) == 0)
            usage_error("sizes", "%s:%zu is too small for a matrix",
                        sizes.entry[k].label, sizes.entry[k].bytes);

    int nt = team_size();
    print_header("mem_daxpy: column-wise matrix-vector product y(i)+=A(i,j)*x(j)");
    print_threads_info(nt);
    comment("repeats %ld spanning at least %ld ms (best of, after one untimed warm-up)",
            repeats, span_ms);
    for (int k = 0; k < sizes.count; k++) {
        size_t n = matrix_order(sizes.entry[k].bytes);
        comment("size %s %zu bytes of A per thread (n = %zu, leading dimension %zu)",
                sizes.entry[k].label, sizes.entry[k].bytes, n, round8(n));
    }

    struct instance *inst = calloc((size_t)nt, sizeof *inst);
    if (!inst) {
        fprintf(stderr, "mem_daxpy: cannot allocate bookkeeping for %d threads\n", nt);
        return EXIT_ALLOC;
    }
    for (int k = 0; k < sizes.count; k++) {
        const struct size_entry *e = &sizes.entry[k];
        size_t n = matrix_order(e->bytes), lda = round8(n);
        require_memory((lda * n + 2 * n) * sizeof(double) * (size_t)nt +
                           n * sizeof(long long) * (size_t)nt,
                       "A, x, y and the row sums of all threads");
        for (int t = 0; t < nt; t++) {
            inst[t].a = alloc_pages(lda * n * sizeof(double), "A");
            inst[t].x = alloc_pages(n * sizeof(double), "x");
            inst[t].y = alloc_pages(n * sizeof(double), "y");
            inst[t].rowsum = alloc_pages(n * sizeof(long long), "row sums");
        }
#pragma omp parallel num_threads(nt)
        {
            struct instance *in = &inst[omp_get_thread_num()];
            for (size_t i = 0; i < n; i++) {
                in->y[i] = 0.0;
                in->rowsum[i] = 0;
            }
            for (size_t j = 0; j < n; j++) {
                in->x[j] = (double)value_x(j);
                double *col = in->a + j * lda;
                for (size_t i = 0; i < n; i++) {
                    col[i] = (double)value_a(i, j);
                    in->rowsum[i] += value_a(i, j) * value_x(j);
                }
                for (size_t i = n; i < lda; i++)
                    col[i] = 0.0;
            }
        }

        struct ctx c = {inst, n, lda};
        struct timing tm;
        time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                      (double)span_ms / 1000.0, &tm);
        double mean = 0.0, nn = (double)n * (double)n;
        for (int t = 0; t < nt; t++) {
            for (size_t i = 0; i < n; i++) {
                double want = (double)inst[t].rowsum[i] * (double)tm.total_iters;
                if (inst[t].y[i] != want)
                    validation_failed("%s: thread %d y(%zu) = %.17g, expected %.17g",
                                      e->label, t, i + 1, inst[t].y[i], want);
            }
            mean += tm.thread_best[t] / (nn * (double)tm.iters);
        }
        mean /= nt;
        comment_timing(e->label, tm.runs, tm.seconds);
        comment("%s: n = %zu, %ld passes per run, best %.6g s", e->label, n,
                tm.iters, tm.best);
        double flops = 2.0 * nn * (double)tm.iters * nt / tm.best * 1e-6;
        figure2("flops", e->label, flops, "MFLOP/s");
        figure2("time_per_iteration", e->label, mean * 1e9, "ns");
        figure_repetitions("flops", e->label, flops, 1, "MFLOP/s", &tm);
        timing_free(&tm);
        for (int t = 0; t < nt; t++) {
            free_pages(inst[t].a);
            free_pages(inst[t].x);
            free_pages(inst[t].y);
            free_pages(inst[t].rowsum);
        }
    }
    free(inst);
    validation_passed();
    return EXIT_OK;
}
