/*
 * core_clock - the clock a core runs at right now, measured.
 *
 * Times chains of dependent integer adds (one per cycle on every current
 * x86 and Arm core) and prints the rate in GHz of the fastest of --repeats
 * chains, the rate at the median chain and the ratio of the two.  Checks run
 * it before and after a benchmark to record the effective core frequency,
 * which shows whether Turbo was on and whether the node was throttled; a
 * core taken in slices (a CPU quota, another job) runs some chains at full
 * speed, which the fastest keeps and the median does not.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: core_clock [--repeats=25]\n"
    "Prints the core clock measured with --repeats chains of dependent adds\n"
    "of about 12 ms each: the fastest, the median and their ratio.\n";

int main(int argc, char **argv)
{
    long repeats = 25;
    struct opt_spec specs[] = {
        {"repeats", OPT_LONG, &repeats, 0, NULL, 0},
    };
    parse_options(argc, argv, specs, 1, usage);
    print_header("core_clock");

    double *seconds = malloc((size_t)repeats * sizeof *seconds);
    if (!seconds) {
        fprintf(stderr, "core_clock: cannot allocate %ld timings\n", repeats);
        return EXIT_ALLOC;
    }

    double best = 0.0;
    for (long r = 0; r < repeats; r++) {
        double ghz = add_chain_ghz();
        if (ghz <= 0.0)
            validation_failed("this compiler offers no opaque add chain: "
                              "no clock measured");
        /* a chain's time in cycles of 1 GHz: the median is taken of times */
        seconds[r] = 1.0 / ghz;
        if (ghz > best)
            best = ghz;
    }

    /* A core between 0.1 and 20 GHz: anything else is a broken timer. */
    if (best < 0.1 || best > 20.0)
        validation_failed("implausible clock %.3f GHz", best);

    struct timing timing = {.best = 1.0 / best,
                            .median = median_of(seconds, repeats),
                            .runs = repeats};
    figure("core_clock", best, "GHz");
    figure_repetitions("core_clock", NULL, best, 1, "GHz", &timing);
    free(seconds);
    validation_passed();
    return EXIT_OK;
}
