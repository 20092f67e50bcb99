/*
 * options.c - command line of net_pairs (see options.h).
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: mpirun -np N net_pairs --pattern=pingpong|pingping\n"
    "                              [--pairs=single|multi] [--max-size=4M]\n"
    "                              [--repeats=5]\n"
    "  --pattern   pingpong: one rank sends, its partner replies;\n"
    "              pingping: both ranks of a pair send at the same time\n"
    "  --pairs     single: ranks 0 and N-1 only (N >= 2);\n"
    "              multi: every rank r with N-1-r, all pairs at once\n"
    "              (N even)\n"
    "  --max-size  largest message, bytes with optional K/M/G suffix, >= 4M;\n"
    "              the sweep is 0 B and the powers of two up to it\n"
    "  --repeats   timed runs per message size, the best one counts\n";

/* Prints (on rank 0) and returns EXIT_USAGE. */
static int bad(int rank, const char *option, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        fprintf(stderr, "net_pairs: option --%s: ", option);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n%s", USAGE);
    }
    return EXIT_USAGE;
}

/* Bytes with an optional binary suffix K, M or G; 0 on success. */
static int parse_size(const char *text, size_t *out)
{
    char *end;
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: break;
    }
    if (*end != '\0' || v > (ULLONG_MAX >> shift))
        return -1;
    v <<= shift;
    if (v > SIZE_MAX / 4)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* A decimal integer >= 1; 0 on success. */
static int parse_count(const char *text, long *out)
{
    char *end;
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < 1)
        return -1;
    *out = v;
    return 0;
}

int parse_options(int argc, char **argv, int rank, int nranks,
                  struct options *opts, int *help)
{
    int have_pattern = 0;
    opts->pairs = PAIRS_SINGLE;
    opts->max_size = MIN_MAX_SIZE;
    opts->repeats = 5;
    *help = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0) {
            if (rank == 0)
                printf("%s", USAGE);
            *help = 1;
            return EXIT_OK;
        }
        if (strncmp(arg, "--", 2) != 0)
            return bad(rank, arg, "not an option (expected --name=value)");

        const char *eq = strchr(arg, '=');
        char name[64];
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, arg + 2, len);
        name[len] = '\0';
        if (!eq)
            return bad(rank, name, "missing value (expected --%s=VALUE)",
                       name);
        const char *value = eq + 1;

        if (strcmp(name, "pattern") == 0) {
            if (strcmp(value, "pingpong") == 0)
                opts->pattern = PATTERN_PINGPONG;
            else if (strcmp(value, "pingping") == 0)
                opts->pattern = PATTERN_PINGPING;
            else
                return bad(rank, name, "'%s' is not pingpong or pingping",
                           value);
            have_pattern = 1;
        } else if (strcmp(name, "pairs") == 0) {
            if (strcmp(value, "single") == 0)
                opts->pairs = PAIRS_SINGLE;
            else if (strcmp(value, "multi") == 0)
                opts->pairs = PAIRS_MULTI;
            else
                return bad(rank, name, "'%s' is not single or multi", value);
        } else if (strcmp(name, "max-size") == 0) {
            if (parse_size(value, &opts->max_size) != 0)
                return bad(rank, name, "'%s' is not a size (digits with an "
                           "optional K, M or G suffix)", value);
            if (opts->max_size < MIN_MAX_SIZE)
                return bad(rank, name, "%zu bytes is below 4M: the sweep "
                           "must reach at least 4 MiB", opts->max_size);
        } else if (strcmp(name, "repeats") == 0) {
            if (parse_count(value, &opts->repeats) != 0)
                return bad(rank, name, "'%s' is not a whole number >= 1",
                           value);
        } else {
            return bad(rank, name, "unknown option");
        }
    }

    if (!have_pattern)
        return bad(rank, "pattern", "required (pingpong or pingping)");
    if (nranks < 2)
        return bad(rank, "pairs", "needs at least 2 ranks, got %d", nranks);
    if (opts->pairs == PAIRS_MULTI && nranks % 2 != 0)
        return bad(rank, "pairs", "multi needs an even number of ranks, "
                   "got %d", nranks);
    return EXIT_OK;
}
