/*
 * core_clock - the clock a core runs at right now, measured.
 *
 * Times a chain of dependent integer adds (one per cycle on every current
 * x86 and Arm core) and prints the rate in GHz, the best of --repeats
 * measurements. Checks run it before and after a benchmark to record the
 * effective core frequency, which shows whether Turbo was on and whether the
 * node was throttled.
 */
#include "common.h"

#include <stdio.h>

static const char usage[] =
    "usage: core_clock [--repeats=5]\n"
    "Prints the core clock measured with a dependent add chain: best of\n"
    "--repeats measurements.\n";

int main(int argc, char **argv)
{
    long repeats = 5;
    struct opt_spec specs[] = {
        {"repeats", OPT_LONG, &repeats, 0, NULL, 0},
    };
    parse_options(argc, argv, specs, 1, usage);
    print_header("core_clock");

    double best = 0.0;
    for (long r = 0; r < repeats; r++) {
        double ghz = measure_core_clock_ghz();
        if (ghz > best)
            best = ghz;
    }

    if (best <= 0.0)
        validation_failed("this compiler offers no opaque add chain: "
                          "no clock measured");

    /* A core between 0.1 and 20 GHz: anything else is a broken timer. */
    if (best < 0.1 || best > 20.0)
        validation_failed("implausible clock %.3f GHz", best);

    figure("core_clock", best, "GHz");
    validation_passed();
    return EXIT_OK;
}
