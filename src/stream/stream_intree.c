/*
 * stream_intree.c - sustainable memory bandwidth measured by the rules of
 * the STREAM benchmark, written for this project.  It is NOT McCalpin's
 * STREAM: its output says so, and the checks record it as "in-tree".
 *
 * The rules it follows (see README.md):
 *   - four kernels on three arrays of doubles, in this order per repetition:
 *       copy   c[i] = a[i]
 *       scale  b[i] = q * c[i]
 *       add    c[i] = a[i] + b[i]
 *       triad  a[i] = b[i] + q * c[i]
 *   - each array is sized by the caller (at least 4 x the last-level caches
 *     of the cores used); the program refuses sizes the node cannot hold;
 *   - every kernel runs --ntimes times; its rate is computed from the best
 *     time of all repetitions but the first;
 *   - bytes counted per element: 16 for copy and scale, 24 for add and
 *     triad (loads plus stores, no write-allocate traffic); MB = 10^6 B;
 *   - the arrays are initialised in parallel with the same static schedule
 *     as the kernels, so each page lives where its thread works (first
 *     touch);
 *   - after the last repetition every element is compared with the value
 *     the recurrence predicts; an average relative error above 1e-13 fails
 *     the run.
 *
 * Output: "# ..." comments, one "name value unit" line per kernel, and
 * "# validation: passed" as the last line (exit 0).  A failed validation
 * prints "# validation: FAILED <reason>" (exit 3); bad options exit 2 with a
 * message naming the option; sizes that do not fit in memory exit 4.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>
#if defined(__linux__)
#include <sched.h>
#endif

enum {
    EXIT_USAGE = 2,
    EXIT_VALIDATION = 3,
    EXIT_ALLOC = 4
};

enum kernel { COPY, SCALE, ADD, TRIAD, NKERNELS };

static const char *const kernel_name[NKERNELS] = {"copy", "scale", "add",
                                                  "triad"};
/* Arrays each kernel reads plus the one it writes. */
static const int arrays_touched[NKERNELS] = {2, 2, 3, 3};

/* Scalar of scale and triad. */
static const double Q = 3.0;
/* Largest average relative error accepted for doubles. */
static const double EPSILON = 1e-13;
/* The values grow about 15-fold per repetition: more would overflow. */
static const long MAX_NTIMES = 200;
/* Large pages when the system gives them; never smaller than a page. */
static const size_t ALIGNMENT = 2u << 20;

static const char *prog = "stream_intree";

static const char usage[] =
    "usage: stream_intree --elements=N [--ntimes=10]\n"
    "  --elements=N  elements of each of the three arrays of doubles\n"
    "                (suffixes K, M, G multiply by 10^3, 10^6, 10^9)\n"
    "  --ntimes=K    repetitions of every kernel, K >= 2; the first is\n"
    "                not timed into the result\n"
    "Threads and binding come from OMP_NUM_THREADS, OMP_PROC_BIND and\n"
    "OMP_PLACES.\n";

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of times[0..n) (sorted in place), n >= 1 */
static double median_of(double *times, long n)
{
    qsort(times, (size_t)n, sizeof *times, by_value);
    return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static _Noreturn void usage_error(const char *option, const char *why)
{
    fprintf(stderr, "%s: option --%s: %s\n%s", prog, option, why, usage);
    exit(EXIT_USAGE);
}

/* A positive count with an optional decimal suffix (K, M, G). */
static long parse_count(const char *option, const char *text)
{
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (end == text || errno == ERANGE || value <= 0)
        usage_error(option, "expected a whole number > 0");
    long long scale = 1;
    if (*end == 'K')
        scale = 1000LL;
    else if (*end == 'M')
        scale = 1000000LL;
    else if (*end == 'G')
        scale = 1000000000LL;
    if (scale != 1)
        end++;
    if (*end != '\0')
        usage_error(option, "unknown suffix (use K, M or G)");
    if (value > (long long)(LONG_MAX / 8 / 3) / scale)
        usage_error(option, "too large");
    return (long)(value * scale);
}

static void parse_options(int argc, char **argv, long *elements, long *ntimes)
{
    *elements = 0;
    *ntimes = 10;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            exit(0);
        }
        if (strncmp(arg, "--elements=", 11) == 0) {
            *elements = parse_count("elements", arg + 11);
        } else if (strncmp(arg, "--ntimes=", 9) == 0) {
            *ntimes = parse_count("ntimes", arg + 9);
            if (*ntimes < 2)
                usage_error("ntimes", "at least 2 (the first is not timed)");
            if (*ntimes > MAX_NTIMES)
                usage_error("ntimes", "at most 200 (the values would "
                                      "overflow)");
        } else {
            const char *eq = strchr(arg, '=');
            int len = eq ? (int)(eq - arg) : (int)strlen(arg);
            fprintf(stderr, "%s: option %.*s: unknown option\n%s", prog, len,
                    arg, usage);
            exit(EXIT_USAGE);
        }
    }
    if (*elements == 0)
        usage_error("elements", "required");
}

/* Refuses, before anything is touched, arrays the node cannot hold. */
static void require_memory(size_t bytes)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return;
    double physical = (double)pages * (double)page;
    if ((double)bytes > 0.9 * physical) {
        fprintf(stderr,
                "%s: cannot allocate %zu bytes (%.1f GiB) for the three "
                "arrays: more than 90%% of the physical memory (%.1f GiB)\n",
                prog, bytes, (double)bytes / (1 << 30),
                physical / (1 << 30));
        exit(EXIT_ALLOC);
    }
}

static double *allocate(size_t elements, const char *name)
{
    size_t bytes = elements * sizeof(double);
    bytes = (bytes + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    double *p = aligned_alloc(ALIGNMENT, bytes);
    if (p == NULL) {
        fprintf(stderr, "%s: cannot allocate %zu bytes for array %s\n", prog,
                bytes, name);
        exit(EXIT_ALLOC);
    }
    return p;
}

static void print_threads(void)
{
    const char *bind = getenv("OMP_PROC_BIND");
    const char *places = getenv("OMP_PLACES");
    int counted = 0;
#pragma omp parallel reduction(+ : counted)
    counted += 1;
    printf("# threads %d\n", counted);
    printf("# OMP_PROC_BIND=%s OMP_PLACES=%s\n", bind ? bind : "(unset)",
           places ? places : "(unset)");
#if defined(__linux__)
    /* Where the threads run, so a wrong binding shows in the output. */
    int *cpus = malloc((size_t)counted * sizeof(int));
    if (cpus == NULL)
        return;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < counted)
            cpus[t] = sched_getcpu();
    }
    fputs("# cpus", stdout);
    for (int t = 0; t < counted; t++)
        printf("%s%d", t ? "," : " ", cpus[t]);
    fputc('\n', stdout);
    free(cpus);
#endif
}

/* The elements [*first, *first + *count) that OpenMP's static schedule
 * without a chunk size gives the calling thread of the team: n / threads
 * each, the first n % threads threads one more. */
static void static_share(long n, long *first, long *count)
{
    long threads = omp_get_num_threads();
    long thread = omp_get_thread_num();
    long share = n / threads, extra = n % threads;
    if (thread < extra) {
        share++;
        extra = 0;
    }
    *first = share * thread + extra;
    *count = share;
}

/* One kernel over all elements, by all threads; returns its wall time.
 * The parallel loop ends with a barrier, so the time is the slowest
 * thread's. */
static double run_kernel(enum kernel k, long n, double *restrict a,
                         double *restrict b, double *restrict c)
{
    double t0 = now();
    switch (k) {
    case COPY:
        /* GCC compiles STREAM's copy loop, c[j] = a[j] over static arrays,
         * to one memcpy per thread's static share, and glibc's memcpy
         * writes arrays this large with non-temporal stores, without
         * write-allocate traffic (README.md, "Copy"). The same here, so
         * that both programs' copy figures mean the same thing. */
#pragma omp parallel
        {
            long first, count;
            static_share(n, &first, &count);
            memcpy(c + first, a + first, (size_t)count * sizeof *c);
        }
        break;
    case SCALE:
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            b[i] = Q * c[i];
        break;
    case ADD:
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        break;
    case TRIAD:
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            a[i] = b[i] + Q * c[i];
        break;
    default:
        break;
    }
    return now() - t0;
}

/* Average relative deviation of x[0..n) from the expected value. */
static double average_relative_error(const double *x, long n, double expected,
                                     long *wrong)
{
    double sum = 0.0;
    long bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum, bad)
    for (long i = 0; i < n; i++) {
        double err = fabs(x[i] - expected) / fabs(expected);
        sum += err;
        bad += err > EPSILON;
    }
    *wrong = bad;
    return sum / (double)n;
}

/* The recurrence the kernels apply to every element, replayed on scalars. */
static void expected_values(long ntimes, double *a, double *b, double *c)
{
    *a = 1.0;
    *b = 2.0;
    *c = 0.0;
    for (long k = 0; k < ntimes; k++) {
        *c = *a;
        *b = Q * *c;
        *c = *a + *b;
        *a = *b + Q * *c;
    }
}

static int validate(long n, long ntimes, const double *a, const double *b,
                    const double *c)
{
    double expect[3];
    expected_values(ntimes, &expect[0], &expect[1], &expect[2]);
    const double *arrays[3] = {a, b, c};
    const char *names = "abc";
    for (int j = 0; j < 3; j++) {
        long wrong;
        double err = average_relative_error(arrays[j], n, expect[j], &wrong);
        if (!(err <= EPSILON)) {
            printf("# validation: FAILED array %c: average relative error "
                   "%.3e > %.0e, %ld of %ld elements differ from %.17g\n",
                   names[j], err, EPSILON, wrong, n, expect[j]);
            return 0;
        }
    }
    return 1;
}

/* The widest x86 vector extension the compiler was allowed to use, from
 * its predefined macros: proof of what -march the binary was built with. */
static const char *built_isa(void)
{
#if defined(__AVX512F__)
    return "avx512";
#elif defined(__AVX2__)
    return "avx2";
#elif defined(__AVX__)
    return "avx";
#elif defined(__SSE4_2__)
    return "sse4.2";
#elif defined(__x86_64__)
    return "x86-64";
#else
    return "not-x86";
#endif
}

int main(int argc, char **argv)
{
    long n, ntimes;
    parse_options(argc, argv, &n, &ntimes);
    omp_set_dynamic(0);

    size_t array_bytes = (size_t)n * sizeof(double);
    require_memory(3 * array_bytes);
    double *a = allocate((size_t)n, "a");
    double *b = allocate((size_t)n, "b");
    double *c = allocate((size_t)n, "c");

    printf("# stream_intree: STREAM rules, in-tree implementation (not "
           "McCalpin's STREAM)\n");
    printf("# built for: %s\n", built_isa());
    printf("# elements %ld per array, 8 bytes each, %.1f MiB per array, "
           "%.1f MiB in total\n",
           n, (double)array_bytes / (1 << 20),
           3.0 * (double)array_bytes / (1 << 20));
    printf("# ntimes %ld, rates from the best of the last %ld\n", ntimes,
           ntimes - 1);
    print_threads();

    /* First touch: the same static schedule as the kernels. */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        c[i] = 0.0;
    }

    double best[NKERNELS], worst[NKERNELS], sum[NKERNELS];
    /* every timed repetition's time, for the median beside the best */
    static double times[NKERNELS][200];
    for (int k = 0; k < NKERNELS; k++) {
        best[k] = DBL_MAX;
        worst[k] = 0.0;
        sum[k] = 0.0;
    }
    for (long rep = 0; rep < ntimes; rep++) {
        for (int k = 0; k < NKERNELS; k++) {
            double t = run_kernel((enum kernel)k, n, a, b, c);
            if (rep == 0)
                continue;
            best[k] = t < best[k] ? t : best[k];
            worst[k] = t > worst[k] ? t : worst[k];
            times[k][rep - 1] = t;
            sum[k] += t;
        }
    }

    if (!validate(n, ntimes, a, b, c))
        return EXIT_VALIDATION;

    for (int k = 0; k < NKERNELS; k++)
        printf("# %s time min %.6f avg %.6f max %.6f s\n", kernel_name[k],
               best[k], sum[k] / (double)(ntimes - 1), worst[k]);
    for (int k = 0; k < NKERNELS; k++) {
        double bytes = (double)arrays_touched[k] * (double)array_bytes;
        double rate = bytes / best[k] * 1e-6;
        if (!(best[k] > 0.0) || !isfinite(rate)) {
            printf("# validation: FAILED %s: no measurable time (%g s)\n",
                   kernel_name[k], best[k]);
            return EXIT_VALIDATION;
        }
        printf("%s %.6g MB/s\n", kernel_name[k], rate);
    }
    /* beside the best repetition, the median one and how steady they
     * were (best time / median time, 1 = all alike): a core taken in
     * slices (a CPU quota, a neighbour) lets some repetitions through at
     * full speed, which the best keeps */
    for (int k = 0; k < NKERNELS; k++) {
        double bytes = (double)arrays_touched[k] * (double)array_bytes;
        double median = median_of(times[k], ntimes - 1);
        printf("%s.median %.6g MB/s\n", kernel_name[k], bytes / median * 1e-6);
        printf("best_to_median.%s %.6g ratio\n", kernel_name[k],
               best[k] / median);
    }
    puts("# validation: passed");

    free(a);
    free(b);
    free(c);
    return 0;
}
