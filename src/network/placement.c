/*
 * placement.c - where the ranks of net_pairs actually ran (see placement.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "placement.h"
#include "options.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sched.h>
#endif

#define RECORD 1024

/* The CPUs this process may run on as ranges, e.g. "0-3,8". */
static void allowed_cpus(char *out, size_t len)
{
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(out, len, "unknown");
        return;
    }
    size_t used = 0;
    out[0] = '\0';
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        int last = cpu;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        int n = last == cpu
            ? snprintf(out + used, len - used, "%s%d", used ? "," : "", cpu)
            : snprintf(out + used, len - used, "%s%d-%d", used ? "," : "",
                       cpu, last);
        if (n < 0 || (size_t)n >= len - used) {
            snprintf(out, len, "unknown");
            return;
        }
        used += (size_t)n;
        cpu = last;
    }
#else
    snprintf(out, len, "unknown");
#endif
}

static int current_cpu(void)
{
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

void print_placement(int rank, int nranks, const int *partner)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    int hostlen = 0;
    char allowed[640];   /* with a 256-byte host name, fits in RECORD */
    char mine[RECORD];

    MPI_Get_processor_name(host, &hostlen);
    host[hostlen] = '\0';
    allowed_cpus(allowed, sizeof allowed);
    snprintf(mine, sizeof mine, "host %s cpu %d allowed %s", host,
             current_cpu(), allowed);

    char *all = NULL;
    if (rank == 0) {
        all = malloc((size_t)nranks * RECORD);
        if (all == NULL) {
            fprintf(stderr, "net_pairs: cannot allocate %zu bytes for the "
                    "placement of %d ranks\n", (size_t)nranks * RECORD,
                    nranks);
            MPI_Abort(MPI_COMM_WORLD, EXIT_ALLOC);
        }
    }
    MPI_Gather(mine, RECORD, MPI_CHAR, all, RECORD, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank != 0)
        return;
    for (int r = 0; r < nranks; r++) {
        if (partner[r] >= 0)
            printf("# rank %d %s partner %d\n", r, all + (size_t)r * RECORD,
                   partner[r]);
        else
            printf("# rank %d %s partner none\n", r, all + (size_t)r * RECORD);
    }
    free(all);
}
