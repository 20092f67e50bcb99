/*
 * net_pairs.c - point-to-point MPI latency and bandwidth between pairs of
 * ranks: the synthetic benchmarks of Shan and Strohmaier, "Performance
 * Comparison of Cray X1E, XT3, NEC SX8 and AMD/IB", Table 2:
 *
 *   single pair, unidirectional (PingPong):  rank a sends, rank b receives
 *       and sends back;
 *   single pair, bidirectional (PingPing):   both post a receive, send,
 *       and wait for the receive;
 *   multi-pair: every rank pairs with "myid XOR (np-1)" and all pairs run
 *       the uni- or bidirectional test at the same time, so the pairs
 *       compete for the node's network adapter (or the socket link).
 *
 * The partner is computed as np-1-myid: for a power-of-two np that is the
 * paper's XOR, and it stays a perfect matching for any even np (the XOR
 * would point past the last rank).  With ranks placed in blocks (node 0
 * first, then node 1; or socket 0, then socket 1) every pair crosses from
 * the first half to the second.
 *
 * Sizes swept: 0 B and every power of two up to --max-size.  Per size the
 * number of iterations is calibrated so a timed run lasts MIN_RUN_SECONDS;
 * the time of a run is that of the slowest rank, the best of --repeats runs
 * counts, and beside it the median run says how steady they were (a core
 * or a link shared with other work slows some runs, not all).  Figures
 * (MB = 10^6 bytes, us = microseconds):
 *
 *   time.<n>B               one-way time of an n-byte message: half the
 *                           round trip (PingPong) or one exchange (PingPing)
 *   bandwidth.<n>B          bytes one pair moves per second: n / one-way
 *                           time (PingPong), 2n / exchange (PingPing, both
 *                           directions) -- twice Table 2's formulas, which
 *                           count a round trip or an exchange once; the
 *                           ratio PingPing / PingPong is the paper's (2 on
 *                           a link that carries both directions at full
 *                           speed)
 *   latency                 time.0B
 *   bandwidth               bandwidth of the largest message, per pair
 *   bandwidth_aggregate     the same summed over the pairs that ran
 *   bandwidth_effective     b_eff style: the aggregate bandwidth averaged
 *                           over all non-zero sizes of the sweep
 *   latency.median,         the same two at the median run
 *   bandwidth.median
 *   best_to_median.latency, best run's time / median run's time (1: all
 *   best_to_median.bandwidth  runs alike; lower: some were slowed)
 *
 * After the timed runs of each size, the last message every rank received
 * is checked (all messages of a size carry the same bytes): the count must
 * be the size sent and every byte the pattern of the sender, the size and
 * the position (receive buffers are filled with the complement first, so
 * stale data from a previous size fails).
 * NET_PAIRS_CORRUPT_RANK=<r> makes rank r send one wrong byte, to test
 * that a corrupted transfer fails the run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "options.h"
#include "placement.h"

#include <float.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Minimum duration of one timed run, in seconds. */
#define MIN_RUN_SECONDS 0.02

/* Upper bound on the iterations of one run (a 0-byte message takes at
 * least tens of nanoseconds, so this is never the limit on real links). */
#define MAX_ITERATIONS (1L << 26)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The byte at position i of an n-byte message sent by rank r. */
static unsigned char pattern_byte(int r, size_t n, size_t i)
{
    uint64_t x = (uint64_t)r * 0x9E3779B97F4A7C15u ^
                 (uint64_t)n * 0xBF58476D1CE4E5B9u;
    x += (uint64_t)i * 0x94D049BB133111EBu;
    return (unsigned char)(x >> 56);
}

struct pair_state {
    int rank;
    int partner;      /* -1: this rank only takes part in the timing   */
    int initiator;    /* PingPong: the lower rank of a pair sends first */
    enum pattern pattern;
    unsigned char *send;
    unsigned char *recv;
    MPI_Status last;  /* status of the last receive                    */
};

/* iters transfers of n bytes; returns this rank's elapsed seconds. */
static double run(struct pair_state *s, size_t n, long iters)
{
    const int tag = 17;
    int count = (int)n;
    if (s->partner < 0)
        return 0.0;
    double t0 = now_seconds();
    if (s->pattern == PATTERN_PINGPONG) {
        for (long l = 0; l < iters; l++) {
            if (s->initiator) {
                MPI_Send(s->send, count, MPI_BYTE, s->partner, tag,
                         MPI_COMM_WORLD);
                MPI_Recv(s->recv, count, MPI_BYTE, s->partner, tag,
                         MPI_COMM_WORLD, &s->last);
            } else {
                MPI_Recv(s->recv, count, MPI_BYTE, s->partner, tag,
                         MPI_COMM_WORLD, &s->last);
                MPI_Send(s->send, count, MPI_BYTE, s->partner, tag,
                         MPI_COMM_WORLD);
            }
        }
    } else {
        for (long l = 0; l < iters; l++) {
            MPI_Request req;
            MPI_Irecv(s->recv, count, MPI_BYTE, s->partner, tag,
                      MPI_COMM_WORLD, &req);
            MPI_Send(s->send, count, MPI_BYTE, s->partner, tag,
                     MPI_COMM_WORLD);
            MPI_Wait(&req, &s->last);
        }
    }
    return now_seconds() - t0;
}

/* One timed run on all ranks: the slowest rank's time. */
static double timed_run(struct pair_state *s, size_t n, long iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double mine = run(s, n, iters);
    double slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* Iterations for a run of at least MIN_RUN_SECONDS (doubling; these runs
 * also warm up the connection and the buffers). */
static long calibrated_iterations(struct pair_state *s, size_t n)
{
    long iters = 1;
    while (timed_run(s, n, iters) < MIN_RUN_SECONDS &&
           iters < MAX_ITERATIONS)
        iters *= 2;
    return iters;
}

/* The best (shortest) and the median of a size's timed runs. */
struct runs {
    double best;
    double median;
};

static int compare_times(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `repeats` timed runs, their times kept in `times` (room for repeats). */
static struct runs timed_runs(struct pair_state *s, size_t n, long iters,
                              long repeats, double *times)
{
    for (long k = 0; k < repeats; k++)
        times[k] = timed_run(s, n, iters);
    qsort(times, (size_t)repeats, sizeof *times, compare_times);
    long mid = repeats / 2;
    struct runs found = {
        .best = times[0],
        .median = repeats % 2 ? times[mid]
                              : 0.5 * (times[mid - 1] + times[mid]),
    };
    return found;
}

/* Best time / median time (1 where the runs took no measurable time). */
static double ratio_of(struct runs runs)
{
    return runs.median > 0.0 ? runs.best / runs.median : 1.0;
}

/* Checks the last message received at size n; on failure writes why. */
static int received_ok(const struct pair_state *s, size_t n, char *why,
                       size_t len)
{
    if (s->partner < 0)
        return 1;
    int count = -1;
    MPI_Get_count(&s->last, MPI_BYTE, &count);
    if (count != (int)n) {
        snprintf(why, len, "rank %d received %d bytes from rank %d, "
                 "expected %zu", s->rank, count, s->partner, n);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char want = pattern_byte(s->partner, n, i);
        if (s->recv[i] != want) {
            snprintf(why, len, "rank %d: byte %zu of a %zu-byte message "
                     "from rank %d is 0x%02x, expected 0x%02x", s->rank, i,
                     n, s->partner, s->recv[i], want);
            return 0;
        }
    }
    return 1;
}

/* Fills the send buffer for size n and poisons the receive buffer. */
static void prepare_buffers(struct pair_state *s, size_t n, int corrupt)
{
    for (size_t i = 0; i < n; i++) {
        s->send[i] = pattern_byte(s->rank, n, i);
        s->recv[i] = (unsigned char)~pattern_byte(s->partner, n, i);
    }
    if (corrupt && n > 0)
        s->send[n / 2] ^= 0x5a;
}

/* Agrees on whether any rank failed; rank 0 prints the first failure. */
static int all_ok(int ok, const char *why, int rank)
{
    int failed_rank = ok ? INT_MAX : rank;
    int first;
    MPI_Allreduce(&failed_rank, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == INT_MAX)
        return 1;
    char reason[256];
    if (rank == first)
        snprintf(reason, sizeof reason, "%s", why);
    MPI_Bcast(reason, sizeof reason, MPI_CHAR, first, MPI_COMM_WORLD);
    if (rank == 0)
        printf("# validation: FAILED %s\n", reason);
    return 0;
}

static void figure_at(const char *name, size_t n, double value,
                      const char *unit)
{
    printf("%s.%zuB %.6g %s\n", name, n, value, unit);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks, help;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    struct options opts;
    int status = parse_options(argc, argv, rank, nranks, &opts, &help);
    if (status != EXIT_OK || help) {
        MPI_Finalize();
        return status;
    }

    int *partner = malloc((size_t)nranks * sizeof *partner);
    struct pair_state s = {.rank = rank, .pattern = opts.pattern};
    s.send = malloc(opts.max_size ? opts.max_size : 1);
    s.recv = malloc(opts.max_size ? opts.max_size : 1);
    double *times = malloc((size_t)opts.repeats * sizeof *times);
    int have = partner && s.send && s.recv && times;
    int all_have;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        if (!have)
            fprintf(stderr, "net_pairs: rank %d cannot allocate two %zu-byte "
                    "message buffers and %ld run times\n", rank,
                    opts.max_size, opts.repeats);
        MPI_Finalize();
        return EXIT_ALLOC;
    }

    int pairs = opts.pairs == PAIRS_MULTI ? nranks / 2 : 1;
    for (int r = 0; r < nranks; r++) {
        if (opts.pairs == PAIRS_MULTI || r == 0 || r == nranks - 1)
            partner[r] = nranks - 1 - r;
        else
            partner[r] = -1;
    }
    s.partner = partner[rank];
    s.initiator = s.partner > rank;
    const char *corrupt_env = getenv("NET_PAIRS_CORRUPT_RANK");
    int corrupt = corrupt_env && atoi(corrupt_env) == rank &&
                  s.partner >= 0;

    if (rank == 0) {
        char library[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(library, &len);
        library[strcspn(library, "\n,")] = '\0';
        printf("# net_pairs pattern %s pairs %s ranks %d active_pairs %d\n",
               opts.pattern == PATTERN_PINGPONG ? "pingpong" : "pingping",
               opts.pairs == PAIRS_MULTI ? "multi" : "single", nranks, pairs);
        printf("# mpi %s\n", library);
        printf("# sizes 0 and 1..%zu bytes, %ld repeats, runs of at least "
               "%g s, MB = 10^6 bytes\n", opts.max_size, opts.repeats,
               MIN_RUN_SECONDS);
    }

    /* Each pair moves 2n bytes per PingPing exchange, n per one-way hop. */
    double bytes_per_transfer = opts.pattern == PATTERN_PINGPING ? 2.0 : 1.0;
    double latency = 0.0, bandwidth = 0.0, sum_aggregate = 0.0;
    struct runs latency_runs = {0.0, 0.0}, bandwidth_runs = {0.0, 0.0};
    int nonzero_sizes = 0;
    char why[256] = "";
    int ok = 1;

    for (size_t n = 0; n <= opts.max_size; n = n ? 2 * n : 1) {
        prepare_buffers(&s, n, corrupt);

        struct runs runs;
        long iters = calibrated_iterations(&s, n);
        for (int attempt = 1;; attempt++) {
            runs = timed_runs(&s, n, iters, opts.repeats, times);
            double best = runs.best;
            /* A calibration run slowed down by a disturbance leaves runs
             * too short to time well: scale up and measure again. */
            if (best >= MIN_RUN_SECONDS / 4 || attempt == 3 ||
                iters >= MAX_ITERATIONS)
                break;
            double scale = MIN_RUN_SECONDS / (best > 0 ? best : 1e-9);
            iters = scale * (double)iters < (double)MAX_ITERATIONS
                  ? (long)(scale * (double)iters) + 1 : MAX_ITERATIONS;
        }

        ok = all_ok(received_ok(&s, n, why, sizeof why), why, rank);
        if (!ok)
            break;

        /* PingPong: an iteration is a round trip, two one-way hops. */
        double one_way = runs.best / (double)iters /
                         (opts.pattern == PATTERN_PINGPONG ? 2.0 : 1.0);
        double per_pair = bytes_per_transfer * (double)n / one_way * 1e-6;
        if (rank == 0) {
            figure_at("time", n, one_way * 1e6, "us");
            if (n > 0)
                figure_at("bandwidth", n, per_pair, "MB/s");
        }
        if (n == 0) {
            latency = one_way * 1e6;
            latency_runs = runs;
        } else {
            sum_aggregate += per_pair * pairs;
            nonzero_sizes++;
            bandwidth = per_pair;
            bandwidth_runs = runs;
        }
    }

    if (ok) {
        print_placement(rank, nranks, partner);
        if (rank == 0) {
            printf("latency %.6g us\n", latency);
            printf("bandwidth %.6g MB/s\n", bandwidth);
            printf("bandwidth_aggregate %.6g MB/s\n", bandwidth * pairs);
            printf("bandwidth_effective %.6g MB/s\n",
                   sum_aggregate / nonzero_sizes);
            /* the median run is as much slower as best / median says */
            double latency_ratio = ratio_of(latency_runs);
            double bandwidth_ratio = ratio_of(bandwidth_runs);
            printf("latency.median %.6g us\n", latency / latency_ratio);
            printf("bandwidth.median %.6g MB/s\n",
                   bandwidth * bandwidth_ratio);
            printf("best_to_median.latency %.6g ratio\n", latency_ratio);
            printf("best_to_median.bandwidth %.6g ratio\n",
                   bandwidth_ratio);
            printf("# validation: passed\n");
        }
    }

    free(times);
    free(partner);
    free(s.send);
    free(s.recv);
    MPI_Finalize();
    return ok ? EXIT_OK : EXIT_VALIDATION;
}
