/*
 * placement.h - where the ranks of net_pairs actually ran.
 *
 * Every rank reports its host, the CPU it is running on (sched_getcpu) and
 * the CPUs it may run on (its affinity mask); rank 0 prints one comment line
 * per rank:
 *
 *   # rank 0 host node01 cpu 3 allowed 3,75 partner 1
 *
 * so a caller can check that the launcher placed and bound the ranks the
 * way it was asked to.  "allowed" is a list of CPU ranges ("0-3,8"); a rank
 * whose binding cannot be read says "allowed unknown".
 */
#ifndef NET_PAIRS_PLACEMENT_H
#define NET_PAIRS_PLACEMENT_H

/* Collective over MPI_COMM_WORLD: gathers and prints (on rank 0) the
 * placement of every rank; partner[r] is the partner of rank r, or -1 for
 * a rank that does not communicate. */
void print_placement(int rank, int nranks, const int *partner);

#endif /* NET_PAIRS_PLACEMENT_H */
