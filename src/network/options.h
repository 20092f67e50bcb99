/*
 * options.h - command line of net_pairs.
 *
 * Options are --name=value only.  Bad arguments are reported by rank 0 on
 * stderr as "net_pairs: option --name: reason" followed by the usage; every
 * rank then leaves with status 2 (all ranks parse the same argv, so they
 * agree without communicating).
 */
#ifndef NET_PAIRS_OPTIONS_H
#define NET_PAIRS_OPTIONS_H

#include <stddef.h>

enum pattern {
    PATTERN_PINGPONG,   /* send, then wait for the partner's reply       */
    PATTERN_PINGPING    /* both ranks send and receive at the same time  */
};

enum pairing {
    PAIRS_SINGLE,       /* ranks 0 and np-1 communicate, the others wait */
    PAIRS_MULTI         /* every rank with its partner, all at once      */
};

struct options {
    enum pattern pattern;
    enum pairing pairs;
    size_t max_size;    /* largest message of the sweep, bytes           */
    long repeats;       /* timed runs per size; the best one counts      */
};

enum {
    EXIT_OK = 0,
    EXIT_USAGE = 2,
    EXIT_VALIDATION = 3,
    EXIT_ALLOC = 4
};

/* Default and smallest accepted --max-size: every sweep reaches 4 MiB, the
 * size the acceptance checks take their large-message bandwidth from. */
#define MIN_MAX_SIZE ((size_t)4 << 20)

/* Returns 0 and fills *opts, or EXIT_USAGE after rank 0 printed why (or
 * EXIT_OK after rank 0 printed the usage for --help: *help is set). */
int parse_options(int argc, char **argv, int rank, int nranks,
                  struct options *opts, int *help);

#endif /* NET_PAIRS_OPTIONS_H */
