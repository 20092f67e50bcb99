/*
 * common.c - shared helpers of the memory benchmark kernels
 * (timing, option parsing, output, allocation, timed parallel runs).
 */
#include "common.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <omp.h>

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif

static const char *g_prog = "membench";
static const char *g_usage = "";

/* ------------------------------------------------------------------ */
/* timing                                                              */
/* ------------------------------------------------------------------ */

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double add_chain_ghz(void)
{
#if defined(__GNUC__)
    /* A chain of dependent register-register integer adds: one add per
     * core cycle on every current out-of-order core.  The empty asm
     * statements make the values opaque, so the compiler can neither fold
     * nor vectorise the chain; the increment is a register, not an
     * immediate, because recent cores (e.g. Intel Golden Cove) execute
     * chains of add-immediate in the renamer, several per cycle. */
    const long blocks = 6250000; /* 8 adds each: 50 million adds */
    uint64_t x = 1, y = 1;
    __asm__ volatile("" : "+r"(y));
    double t0 = now_seconds();
    for (long i = 0; i < blocks; i++) {
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
        x += y; __asm__ volatile("" : "+r"(x));
    }
    double t = now_seconds() - t0;
    if (x != 1 + 8 * (uint64_t)blocks || !(t > 0))
        return 0.0;
    return 8.0 * (double)blocks / t * 1e-9;
#else
    return 0.0;
#endif
}

double measure_core_clock_ghz(void)
{
    double best = 0.0;
    for (int trial = 0; trial < 5; trial++) {
        double ghz = add_chain_ghz();
        if (ghz <= 0.0)
            return 0.0;
        if (ghz > best)
            best = ghz;
    }
    return best;
}

/* ------------------------------------------------------------------ */
/* option parsing                                                      */
/* ------------------------------------------------------------------ */

static void print_usage(FILE *f)
{
    fprintf(f, "%s", g_usage);
}

void usage_error(const char *option, const char *fmt, ...)
{
    va_list ap;
    if (option)
        fprintf(stderr, "%s: option --%s: ", g_prog, option);
    else
        fprintf(stderr, "%s: ", g_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_usage(stderr);
    exit(EXIT_USAGE);
}

static int parse_size(const char *text, size_t *out, const char **why)
{
    const char *p = text;
    unsigned long long v = 0;
    int digits = 0;

    if (*p == '\0') {
        *why = "empty size";
        return -1;
    }
    if (*p == '-') {
        *why = "size must be positive";
        return -1;
    }
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10) {
            *why = "size too large";
            return -1;
        }
        v = v * 10 + d;
    }
    if (digits == 0) {
        *why = "not a size (expected digits with optional K/M/G suffix)";
        return -1;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: break;
    }
    /* optional "B" or (after a prefix) "iB" */
    if (shift && p[0] == 'i' && p[1] == 'B')
        p += 2;
    else if (*p == 'B')
        p++;
    if (*p != '\0') {
        *why = "not a size (expected digits with optional K/M/G suffix)";
        return -1;
    }
    if (v == 0) {
        *why = "size must be positive";
        return -1;
    }
    if (shift && v > (ULLONG_MAX >> shift)) {
        *why = "size too large";
        return -1;
    }
    v <<= shift;
    if (v > (unsigned long long)SIZE_MAX / 4) {
        *why = "size too large";
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

static int parse_long(const char *text, long *out, const char **why)
{
    char *end;
    if (*text == '\0') {
        *why = "empty value";
        return -1;
    }
    if (!((*text >= '0' && *text <= '9') || *text == '-' || *text == '+')) {
        *why = "not an integer";
        return -1;
    }
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end != '\0') {
        *why = "not an integer";
        return -1;
    }
    if (errno == ERANGE) {
        *why = "integer out of range";
        return -1;
    }
    if (v <= 0) {
        *why = "must be a positive integer";
        return -1;
    }
    *out = v;
    return 0;
}

static int valid_label_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '_';
}

static int parse_size_list(const char *text, struct size_list *out,
                           const char **why)
{
    const char *p = text;
    out->count = 0;
    if (*p == '\0') {
        *why = "empty list (expected label:size,label:size,...)";
        return -1;
    }
    for (;;) {
        const char *colon = strchr(p, ':');
        const char *comma = strchr(p, ',');
        if (!comma)
            comma = p + strlen(p);
        if (!colon || colon > comma) {
            *why = "entry without ':' (expected label:size,label:size,...)";
            return -1;
        }
        size_t len = (size_t)(colon - p);
        if (len == 0) {
            *why = "empty label (labels are [A-Za-z0-9_]+)";
            return -1;
        }
        if (len >= MAX_LABEL) {
            *why = "label too long";
            return -1;
        }
        for (size_t i = 0; i < len; i++)
            if (!valid_label_char(p[i])) {
                *why = "invalid label (labels are [A-Za-z0-9_]+)";
                return -1;
            }
        if (out->count >= MAX_SIZES) {
            *why = "too many entries";
            return -1;
        }
        struct size_entry *e = &out->entry[out->count];
        memcpy(e->label, p, len);
        e->label[len] = '\0';
        for (int i = 0; i < out->count; i++)
            if (strcmp(out->entry[i].label, e->label) == 0) {
                *why = "duplicate label";
                return -1;
            }
        char sizebuf[64];
        size_t slen = (size_t)(comma - colon - 1);
        if (slen >= sizeof sizebuf) {
            *why = "size too long";
            return -1;
        }
        memcpy(sizebuf, colon + 1, slen);
        sizebuf[slen] = '\0';
        if (parse_size(sizebuf, &e->bytes, why) != 0)
            return -1;
        out->count++;
        if (*comma == '\0')
            break;
        p = comma + 1;
        if (*p == '\0') {
            *why = "trailing ','";
            return -1;
        }
    }
    return 0;
}

void default_sizes(struct size_list *out)
{
    const char *why;
    if (parse_size_list(DEFAULT_SIZES, out, &why) != 0) {
        /* a constant of this file: only an edit can break it */
        fprintf(stderr, "%s: DEFAULT_SIZES \"%s\": %s\n", g_prog,
                DEFAULT_SIZES, why);
        abort();
    }
}

void parse_options(int argc, char **argv, struct opt_spec *specs, int nspecs,
                   const char *usage)
{
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        g_prog = slash ? slash + 1 : argv[0];
    }
    g_usage = usage;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            exit(EXIT_OK);
        }
        if (strncmp(arg, "--", 2) != 0)
            usage_error(NULL, "unexpected argument '%s' (options are --name=value)", arg);
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        struct opt_spec *s = NULL;
        for (int k = 0; k < nspecs; k++)
            if (strlen(specs[k].name) == nlen &&
                strncmp(specs[k].name, name, nlen) == 0)
                s = &specs[k];
        if (!s)
            usage_error(NULL, "option --%.*s: unknown option", (int)nlen, name);
        if (!eq || eq[1] == '\0')
            usage_error(s->name, "missing value (use --%s=VALUE)", s->name);
        if (s->seen)
            usage_error(s->name, "given more than once");
        const char *val = eq + 1;
        const char *why = "invalid value";
        int rc = 0;
        switch (s->type) {
        case OPT_SIZE:
            rc = parse_size(val, (size_t *)s->dest, &why);
            break;
        case OPT_LONG:
            rc = parse_long(val, (long *)s->dest, &why);
            break;
        case OPT_SIZES:
            rc = parse_size_list(val, (struct size_list *)s->dest, &why);
            break;
        case OPT_TEXT:
            *(const char **)s->dest = val;
            break;
        case OPT_CHOICE: {
            long v;
            rc = parse_long(val, &v, &why);
            if (rc == 0) {
                int ok = 0;
                for (const long *c = s->choices; c && *c; c++)
                    if (*c == v)
                        ok = 1;
                if (!ok) {
                    fprintf(stderr, "%s: option --%s: '%s' is not one of", g_prog,
                            s->name, val);
                    for (const long *c = s->choices; c && *c; c++)
                        fprintf(stderr, " %ld", *c);
                    fputc('\n', stderr);
                    print_usage(stderr);
                    exit(EXIT_USAGE);
                }
                *(long *)s->dest = v;
            }
            break;
        }
        }
        if (rc != 0)
            usage_error(s->name, "'%s': %s", val, why);
        s->seen = 1;
    }
    for (int k = 0; k < nspecs; k++)
        if (specs[k].required && !specs[k].seen)
            usage_error(specs[k].name, "required option missing");
}

/* ------------------------------------------------------------------ */
/* output                                                              */
/* ------------------------------------------------------------------ */

void comment(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
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

void print_header(const char *program)
{
    comment("%s (memory benchmark kernels; figures are best of repeats)",
            program);
    comment("built for: %s", built_isa());
}

void print_threads_info(int nthreads)
{
    const char *bind = getenv("OMP_PROC_BIND");
    const char *places = getenv("OMP_PLACES");
    comment("threads %d", nthreads);
    comment("OMP_PROC_BIND=%s OMP_PLACES=%s", bind ? bind : "(unset)",
            places ? places : "(unset)");
#if defined(__linux__)
    int cpus[1024];
    int n = nthreads < 1024 ? nthreads : 1024;
#pragma omp parallel num_threads(nthreads)
    {
        int t = omp_get_thread_num();
        if (t < n)
            cpus[t] = sched_getcpu();
    }
    fputs("# cpus", stdout);
    for (int t = 0; t < n; t++)
        printf("%s%d", t ? "," : " ", cpus[t]);
    fputc('\n', stdout);
#endif
}

static void check_name(const char *name)
{
    for (const char *p = name; *p; p++)
        if (!(valid_label_char(*p) || *p == '.')) {
            fprintf(stderr, "%s: internal error: bad figure name '%s'\n", g_prog,
                    name);
            exit(1);
        }
}

void figure(const char *name, double value, const char *unit)
{
    check_name(name);
    if (!isfinite(value))
        validation_failed("%s is not a finite number", name);
    printf("%s %.6g %s\n", name, value, unit);
    fflush(stdout);
}

void figure2(const char *prefix, const char *label, double value,
             const char *unit)
{
    char name[256];
    snprintf(name, sizeof name, "%s.%s", prefix, label);
    figure(name, value, unit);
}

void validation_passed(void)
{
    printf("# validation: passed\n");
    fflush(stdout);
}

void validation_failed(const char *fmt, ...)
{
    va_list ap;
    fputs("# validation: FAILED ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    exit(EXIT_VALIDATION);
}

/* ------------------------------------------------------------------ */
/* memory                                                              */
/* ------------------------------------------------------------------ */

#define HUGE_ALIGN ((size_t)2 << 20)

void *alloc_pages(size_t bytes, const char *what)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    size_t align = bytes >= HUGE_ALIGN ? HUGE_ALIGN : page;
    if (bytes == 0)
        bytes = 1;
    size_t rounded = (bytes + align - 1) / align * align;
    void *p = NULL;
    if (rounded < bytes || posix_memalign(&p, align, rounded) != 0 || !p) {
        fprintf(stderr, "%s: cannot allocate %zu bytes (%.1f MiB) for %s\n",
                g_prog, bytes, (double)bytes / 1048576.0, what);
        exit(EXIT_ALLOC);
    }
#if defined(MADV_HUGEPAGE)
    if (rounded >= HUGE_ALIGN)
        (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

void free_pages(void *p)
{
    free(p);
}

void require_memory(size_t bytes, const char *what)
{
#if defined(_SC_PHYS_PAGES)
    long pages = sysconf(_SC_PHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
    if (pages > 0 && ps > 0) {
        double phys = (double)pages * (double)ps;
        if ((double)bytes > 0.9 * phys) {
            fprintf(stderr,
                    "%s: cannot allocate %zu bytes (%.1f MiB) for %s: more than 90%% "
                    "of the physical memory (%.1f MiB)\n",
                    g_prog, bytes, (double)bytes / 1048576.0, what,
                    phys / 1048576.0);
            exit(EXIT_ALLOC);
        }
    }
#else
    (void)bytes;
    (void)what;
#endif
}

/* ------------------------------------------------------------------ */
/* threads and timed runs                                              */
/* ------------------------------------------------------------------ */

int team_size(void)
{
    omp_set_dynamic(0);
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
}

/* the time of a repetition: its slowest thread's */
static double slowest(const struct padded_double *dt, int nthreads)
{
    double tmax = 0;
    for (int t = 0; t < nthreads; t++)
        if (dt[t].v > tmax)
            tmax = dt[t].v;
    return tmax;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median_of(double *times, long n)
{
    if (n <= 0)
        return 0.0;
    qsort(times, (size_t)n, sizeof *times, by_value);
    return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

void time_parallel(kernel_fn kernel, void *ctx, int nthreads, long repeats,
                   double min_seconds, double span_seconds,
                   struct timing *out)
{
    struct padded_double *dt = calloc((size_t)nthreads, sizeof *dt);
    double *tbest = malloc((size_t)nthreads * sizeof *tbest);
    if (!dt || !tbest) {
        fprintf(stderr, "%s: cannot allocate %zu bytes for timing slots\n",
                g_prog, (size_t)nthreads * (sizeof *dt + sizeof *tbest));
        exit(EXIT_ALLOC);
    }
    for (int t = 0; t < nthreads; t++)
        tbest[t] = DBL_MAX;

    long iters = 1, total = 0, runs = 0, kept = 0;
    double *times = NULL;
    int done = 0, more = 1, no_room = 0;
    double start = 0, spanned = 0;
    double best = DBL_MAX;
    int team = 0;

#pragma omp parallel num_threads(nthreads)
    {
        int tid = omp_get_thread_num();
#pragma omp single
        team = omp_get_num_threads();
        if (team == nthreads) {
            /* warm-up and calibration (untimed for the figures) */
            for (;;) {
#pragma omp barrier
                double t0 = now_seconds();
                kernel(ctx, tid, iters);
                dt[tid].v = now_seconds() - t0;
#pragma omp barrier
#pragma omp single
                {
                    double tmax = slowest(dt, nthreads);
                    total += iters;
                    if (tmax >= min_seconds || iters > LONG_MAX / 4096) {
                        done = 1;
                    } else {
                        double f = tmax > 0 ? 1.25 * min_seconds / tmax : 1000.0;
                        if (f < 2.0)
                            f = 2.0;
                        if (f > 1000.0)
                            f = 1000.0;
                        iters = (long)ceil((double)iters * f);
                    }
                } /* implicit barrier */
                if (done)
                    break;
            }
#pragma omp single
            start = now_seconds();
            while (more) {
#pragma omp barrier
                double t0 = now_seconds();
                kernel(ctx, tid, iters);
                double t = now_seconds() - t0;
                dt[tid].v = t;
                if (t < tbest[tid])
                    tbest[tid] = t;
#pragma omp barrier
#pragma omp single
                {
                    double tmax = slowest(dt, nthreads);
                    if (tmax < best)
                        best = tmax;
                    if (runs == kept) {
                        long room = kept ? 2 * kept : 64;
                        double *grown = realloc(times, (size_t)room * sizeof *times);
                        if (grown) {
                            times = grown;
                            kept = room;
                        } else {
                            no_room = 1;
                        }
                    }
                    if (runs < kept)
                        times[runs] = tmax;
                    total += iters;
                    runs++;
                    spanned = now_seconds() - start;
                    more = !no_room && (runs < repeats || spanned < span_seconds);
                } /* implicit barrier: every thread sees `more` */
            }
        }
    }
    if (team != nthreads) {
        fprintf(stderr, "%s: asked for %d OpenMP threads, got %d\n", g_prog,
                nthreads, team);
        exit(1);
    }
    free(dt);
    if (no_room) {
        fprintf(stderr, "%s: cannot allocate the times of %ld repetitions\n",
                g_prog, runs + 1);
        exit(EXIT_ALLOC);
    }
    out->median = median_of(times, runs < kept ? runs : kept);
    free(times);
    out->best = best;
    out->iters = iters;
    out->total_iters = total;
    out->thread_best = tbest;
    out->runs = runs;
    out->seconds = spanned;
}

void comment_timing(const char *label, long runs, double seconds)
{
    comment("%s: best of %ld timed runs over %.3f s", label, runs, seconds);
}

void figure_repetitions(const char *prefix, const char *label,
                        double best_value, int is_rate, const char *unit,
                        const struct timing *t)
{
    char name[128];
    double ratio = t->median > 0 ? t->best / t->median : 0.0;
    if (label)
        snprintf(name, sizeof name, "%s.%s.median", prefix, label);
    else
        snprintf(name, sizeof name, "%s.median", prefix);
    figure(name, is_rate ? best_value * ratio
                         : (ratio > 0 ? best_value / ratio : 0.0), unit);
    if (label)
        figure2("best_to_median", label, ratio, "ratio");
    else
        figure("best_to_median", ratio, "ratio");
}

void timing_free(struct timing *t)
{
    free(t->thread_best);
    t->thread_best = NULL;
}

/* ------------------------------------------------------------------ */
/* random numbers                                                      */
/* ------------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t rng_below(uint64_t *state, uint64_t bound)
{
    if (bound <= UINT32_MAX) {
        /* Lemire's multiply-shift method, unbiased, no division usually */
        uint32_t b = (uint32_t)bound;
        uint64_t m = (uint64_t)(uint32_t)(rng_next(state) >> 32) * b;
        uint32_t low = (uint32_t)m;
        if (low < b) {
            uint32_t threshold = (uint32_t)(-b) % b;
            while (low < threshold) {
                m = (uint64_t)(uint32_t)(rng_next(state) >> 32) * b;
                low = (uint32_t)m;
            }
        }
        return m >> 32;
    }
    /* rejection sampling: unbiased */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do
        r = rng_next(state);
    while (r >= limit);
    return r % bound;
}
