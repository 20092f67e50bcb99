/*
 * common.h - shared helpers of the memory benchmark kernels.
 *
 * Output contract (a parser depends on it):
 *   - result lines on stdout: "name value unit" (three whitespace-separated
 *     fields, name [A-Za-z0-9_.]+, value printed with %.6g, unit without
 *     spaces);
 *   - informational lines start with "# ";
 *   - the last line on success is exactly "# validation: passed";
 *   - a failed result check prints "# validation: FAILED <reason>", exit 3;
 *   - bad arguments: message on stderr naming the option, usage, exit 2;
 *   - allocation failure: message naming the size on stderr, exit 4.
 */
#ifndef MEMBENCH_COMMON_H
#define MEMBENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <stddef.h>
#include <stdint.h>

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 2,
    EXIT_VALIDATION = 3,
    EXIT_ALLOC = 4
};

/* Default per-level sizes (label:size list) used by the programs that take
 * --sizes.  The caller (ReFrame test) normally passes sizes derived from the
 * cache sizes of the machine. */
#define DEFAULT_SIZES "L1:24K,L2:310K,L3:31M,memory:1920M"

/* Minimum duration of one timed run; shorter kernels are repeated. */
#define MIN_RUN_SECONDS 0.05

/* Timed runs of a figure go on until they span --span-ms (and number at
 * least --repeats).  Whatever shares the core or a cache (a VM host's other
 * guests on the sibling hardware thread or in the L3, other jobs on a
 * shared node) slows runs in bursts of tens to hundreds of milliseconds;
 * the best run over a longer span is the hardware's own figure, while a
 * slowdown that lasts slows every run. */
#define DEFAULT_SPAN_MS 2000
#define SPAN_USAGE \
    "  --span-ms=N    timed repetitions go on until they span N ms\n" \
    "                 (default 2000)\n"

/* ---- timing ---------------------------------------------------------- */
double now_seconds(void);             /* CLOCK_MONOTONIC, in seconds */

/* Core clock from one timed chain of 50 million dependent integer adds
 * (about 12 ms at 4 GHz), in GHz; 0 when the compiler offers no way to keep
 * the chain opaque. */
double add_chain_ghz(void);
/* The best of 5 add_chain_ghz(); 0 as it. */
double measure_core_clock_ghz(void);

/* ---- command-line options -------------------------------------------- */
#define MAX_SIZES 64
#define MAX_LABEL 48

struct size_entry {
    char label[MAX_LABEL];
    size_t bytes;
};

struct size_list {
    int count;
    struct size_entry entry[MAX_SIZES];
};

enum opt_type {
    OPT_SIZE,    /* size_t, > 0, binary suffixes K/M/G/T      */
    OPT_LONG,    /* long, > 0                                 */
    OPT_SIZES,   /* struct size_list, label:size,...          */
    OPT_CHOICE,  /* long, one of a small set (choices[])      */
    OPT_TEXT     /* const char *, the value as given          */
};

struct opt_spec {
    const char *name;        /* without the leading "--" */
    enum opt_type type;
    void *dest;              /* size_t*, long*, struct size_list*, const char** */
    int required;
    const long *choices;     /* OPT_CHOICE: list ended by 0 */
    int seen;                /* set by parse_options */
};

/* Parses argv (only --name=value options; --help prints usage and exits 0).
 * On error prints "<prog>: option --name: reason" and the usage text on
 * stderr and exits with status 2. */
void parse_options(int argc, char **argv, struct opt_spec *specs, int nspecs,
                   const char *usage);

/* DEFAULT_SIZES as a size list: the value of --sizes when not given. */
void default_sizes(struct size_list *out);

/* Fails like a bad option (stderr, usage, exit 2). */
void usage_error(const char *option, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/* ---- output ---------------------------------------------------------- */
void print_header(const char *program);          /* "# program ..." lines */
void print_threads_info(int nthreads);           /* "# threads N", binding, cpus */
void figure(const char *name, double value, const char *unit);
void figure2(const char *prefix, const char *label, double value,
             const char *unit);                  /* prefix.label */
void comment(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void validation_passed(void);
void validation_failed(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* ---- memory ---------------------------------------------------------- */
/* Page-aligned (2 MiB-aligned when large) allocation, advised for
 * transparent huge pages when available.  Not touched: the caller
 * initialises it from the thread that will use it (first touch).
 * Exits with status 4 and a message naming the size on failure. */
void *alloc_pages(size_t bytes, const char *what);
void free_pages(void *p);

/* Exits with status 4 and a message naming the size when `bytes` (all the
 * memory one measurement needs) exceeds the physical memory, instead of
 * letting first touch run into the out-of-memory killer. */
void require_memory(size_t bytes, const char *what);

/* ---- threads --------------------------------------------------------- */
/* Number of OpenMP threads to use (omp_get_max_threads, dynamic off). */
int team_size(void);

/* Timed parallel kernel: kernel(ctx, tid, iters) runs the measured work
 * iters times on thread tid.  Every repetition starts after a barrier; each
 * thread times its own run; the time of a repetition is the slowest
 * thread's.  Before the timed repetitions the kernel is run untimed
 * (warm-up) while the number of inner iterations is calibrated so that one
 * run lasts at least min_seconds.  Repetitions go on until there are at
 * least `repeats` of them and they span at least span_seconds. */
typedef void (*kernel_fn)(void *ctx, int tid, long iters);

struct timing {
    double best;          /* min over repetitions of max over threads [s] */
    double median;        /* median over repetitions of the same [s]      */
    long iters;           /* inner iterations per timed run               */
    long total_iters;     /* iterations per thread, warm-up included      */
    double *thread_best;  /* per-thread best time [s], nthreads entries  */
    long runs;            /* timed repetitions                            */
    double seconds;       /* that the timed repetitions spanned [s]       */
};

void time_parallel(kernel_fn kernel, void *ctx, int nthreads, long repeats,
                   double min_seconds, double span_seconds,
                   struct timing *out);
/* "# <label>: best of <runs> timed runs over <seconds> s" */
void comment_timing(const char *label, long runs, double seconds);
/* Beside a figure from the best repetition, the same figure at the median
 * repetition and how steady the repetitions were:
 *   "<prefix>[.<label>].median VALUE UNIT"  (is_rate: the value scales as
 *                                            1/time, else as time)
 *   "best_to_median[.<label>] R ratio"      (best time / median time,
 *                                            1 = every repetition alike)
 * A node whose core is taken in slices (a CPU quota, a neighbour's job)
 * lets some repetitions through at full speed, which the best of them
 * keeps; the median and the ratio show the rest.  label may be NULL. */
void figure_repetitions(const char *prefix, const char *label,
                        double best_value, int is_rate, const char *unit,
                        const struct timing *t);
void timing_free(struct timing *t);
/* the median of times[0..n) (sorted in place); 0 when n is 0 */
double median_of(double *times, long n);

/* ---- misc ------------------------------------------------------------ */
/* splitmix64 pseudo-random numbers, uniform in [0, bound) (bound > 0) */
uint64_t rng_below(uint64_t *state, uint64_t bound);

/* Keeps the compiler from moving memory accesses across this point. */
#if defined(__GNUC__)
#define COMPILER_BARRIER() __asm__ volatile("" ::: "memory")
#else
#define COMPILER_BARRIER() ((void)0)
#endif

/* Cache-line padded per-thread slot. */
struct padded_double {
    double v;
    char pad[64 - sizeof(double)];
};

#endif /* MEMBENCH_COMMON_H */
