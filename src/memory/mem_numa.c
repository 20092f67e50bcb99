/*
 * mem_numa - streaming from local versus remote memory (OpenMP):
 *
 *  1: !$OMP PARALLEL Private(time,j1,j2,i,j)
 *  2:     do time=1,ntimes
 *  3:         <assign columns j1-j2 to thread>
 *  4:         A(:,j1:j2)=...
 *  5:         <set j1 to other thread's old j1>
 *  6:         <set j2 to other thread's old j2>
 *  7:         do j=j1,j2
 *  8:             do i=1,n
 *  9:                 A(i,j)=time*A(i,j)
 * 10:             end do
 * 11:         end do
 * 12:     end do
 * 13: !$OMP END PARALLEL
 *
 * Every thread first touches its own block of A, so the block lives in the
 * memory of the thread's NUMA node.  "local": each thread rescales its own
 * block (without lines 5-6); "remote": each thread rescales the block of its
 * partner (with lines 5-6), given by the caller (--partners), which decides
 * them from the topology; the program verifies that every partner runs on
 * another NUMA node.  The scale factor alternates between 2 and 1/2, so the
 * values stay exact.
 *
 * --distances adds a remote pass per distance class of the firmware's SLIT
 * (nodeN/distance): each thread rescales the block of a partner whose node
 * is at that distance from its own, so that every class is measured (a
 * 4-socket Opteron's one-hop and two-hop links; a sub-NUMA cluster's
 * neighbour and the other socket).  The program verifies each distance.
 *
 * With fewer than two NUMA nodes online, or a partner on the thread's own
 * node, there is nothing to compare: the program says why on a "# numa:"
 * line and exits with status 0 without figures.
 */
#include "common.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#if defined(__linux__)
#include <sched.h>
#endif

static const char usage[] =
    "usage: mem_numa --size=SIZE --partners=LIST [--distances=D:LIST/...]\n"
    "                [--repeats=N] [--span-ms=N]\n"
    "  --size=SIZE    bytes of A, all threads together (required; choose it\n"
    "                 larger than the caches)\n"
    "  --partners=LIST  the block each thread rescales in the remote pass,\n"
    "                 one thread number per thread: '2,3,0,1' pairs threads\n"
    "                 0 and 2, 1 and 3 (required; a permutation, each partner\n"
    "                 on another NUMA node than its thread)\n"
    "  --distances=D:LIST/D:LIST  a further remote pass for each SLIT\n"
    "                 distance D, with partners LIST (each partner's node at\n"
    "                 distance D from its thread's node, as\n"
    "                 /sys/devices/system/node/nodeN/distance says; '-': the\n"
    "                 thread rests in that pass, where its node has no node\n"
    "                 at that distance to pair with)\n"
    "  --repeats=N    timed repetitions, best is reported (default 5)\n"
    SPAN_USAGE
    "Sizes take binary suffixes K, M, G.  Threads: OMP_NUM_THREADS; bind them\n"
    "across NUMA nodes, e.g. OMP_PROC_BIND=spread OMP_PLACES=cores.\n"
    "Output: bandwidth.local <MB/s> MB/s, bandwidth.remote <MB/s> MB/s\n"
    "        (16 bytes per element: read and write), remote_penalty <ns> ns\n"
    "        (extra time per element and thread); with --distances also\n"
    "        bandwidth.remote.dD and remote_penalty.dD for each distance D.\n"
    "        Exits 0 without figures\n"
    "        after a '# numa: <why>' line when there is no remote memory\n"
    "        (a partner on its thread's own NUMA node).\n"
    "MEMBENCH_SYSFS=<dir> reads <dir>/devices/system/... instead of /sys\n"
    "(for testing).\n";

static const char *sysfs_root(void)
{
    const char *r = getenv("MEMBENCH_SYSFS");
    return (r && *r) ? r : "/sys";
}

/* "# numa: <why>", then exit 0 without figures */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static void no_figures(const char *fmt, ...)
{
    va_list ap;
    fputs("# numa: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
    exit(EXIT_OK);
}

/* The ids of a sysfs list such as "0-3,8" into ids[0..max-1]; the count,
 * or -1 if unreadable or longer than max. */
static long read_list(const char *path, long *ids, long max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    if (!fgets(buf, sizeof buf, f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    long count = 0;
    char *p = buf;
    while (*p && *p != '\n') {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p)
            return -1;
        p = end;
        if (*p == '-') {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || hi < lo)
                return -1;
            p = end;
        }
        for (long v = lo; v <= hi; v++) {
            if (count == max)
                return -1;
            ids[count++] = v;
        }
        if (*p == ',')
            p++;
    }
    return count;
}

/* The most ids a sysfs cpu or node list holds here (a node of 64 Ki CPUs). */
#define MAX_LIST_IDS 65536

/* The number of ids of a sysfs list such as "0", "0-3" or "0,2-3" (or -1 if
 * unreadable) and the first id, read by read_list. */
static long count_list(const char *path, long *first)
{
    static long ids[MAX_LIST_IDS];
    long count = read_list(path, ids, MAX_LIST_IDS);
    *first = count > 0 ? ids[0] : -1;
    return count;
}

/* The SLIT distance from node a to node b (nodeA/distance lists one per
 * online node, in ascending order), -1 if unknown. */
static long node_distance(int a, int b, const long *online, long nodes)
{
    long column = -1;
    for (long k = 0; k < nodes; k++)
        if (online[k] == b)
            column = k;
    if (column < 0)
        return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/devices/system/node/node%d/distance", sysfs_root(), a);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long value = -1;
    for (long k = 0; k <= column; k++)
        if (fscanf(f, "%ld", &value) != 1) {
            value = -1;
            break;
        }
    fclose(f);
    return value;
}

/* NUMA node of a cpu from the cpuN/nodeM link, -1 if unknown */
static int node_of_cpu(int cpu)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/devices/system/cpu/cpu%d", sysfs_root(), cpu);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int node = -1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (strncmp(n, "node", 4) == 0 && isdigit((unsigned char)n[4])) {
            char *end;
            long v = strtol(n + 4, &end, 10);
            if (*end == '\0') {
                node = (int)v;
                break;
            }
        }
    }
    closedir(d);
    return node;
}

struct ctx {
    double **block;     /* block[t]: first-touched by thread t */
    int *target;        /* block rescaled by thread t, -1: none */
    size_t n;           /* elements per block */
    long *passes;       /* per thread, padded by 16 */
    long *rescaled;     /* per block, padded by 16 */
};

/* One thread rescales a block in a pass, so the block's own count of
 * rescales (not the thread's) alternates the factor: a thread that rests
 * in a pass leaves the blocks' alternation as it was. */
static void kernel(void *vctx, int tid, long iters)
{
    struct ctx *c = vctx;
    int b = c->target[tid];
    if (b < 0)
        return;  /* rests in this pass */
    double *a = c->block[b];
    long p = c->rescaled[16 * b];
    for (long it = 0; it < iters; it++, p++) {
        const double time = (p % 2 == 0) ? 2.0 : 0.5;
#pragma omp simd
        for (size_t i = 0; i < c->n; i++)
            a[i] = time * a[i];
        COMPILER_BARRIER();
    }
    c->rescaled[16 * b] = p;
    c->passes[16 * tid] += iters;
}

static double value_a(size_t i) { return (double)(i % 13 + 1); }

/* A list of partners into target[0..nt-1]: a permutation of the threads,
 * or a usage error naming the option and what is wrong */
static void parse_permutation(const char *option, const char *list, int *target, int nt,
                              int may_rest)
{
    int *taken = calloc((size_t)nt, sizeof *taken);
    if (!taken) {
        fprintf(stderr, "mem_numa: cannot allocate bookkeeping for %d threads\n", nt);
        exit(EXIT_ALLOC);
    }
    const char *p = list;
    int t = 0;
    while (*p) {
        char *end;
        if (may_rest && *p == '-' && (p[1] == ',' || p[1] == '\0' || p[1] == '/')) {
            if (t == nt)
                usage_error(option, "more partners than the %d threads (OMP_NUM_THREADS)", nt);
            target[t++] = -1;  /* rests in this pass */
            end = (char *)p + 1;
            if (*end == '/')
                break;
            p = *end ? end + 1 : end;
            continue;
        }
        long v = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0' && *end != '/'))
            usage_error(option, "'%.*s' is not a comma-separated list of thread numbers", (int)strcspn(list, "/"), list);
        if (t == nt)
            usage_error(option, "more partners than the %d threads (OMP_NUM_THREADS)", nt);
        if (v < 0 || v >= nt)
            usage_error(option, "thread %ld does not exist (%d threads)", v, nt);
        if (taken[v])
            usage_error(option, "thread %ld's block is rescaled twice: not a permutation", v);
        taken[v] = 1;
        target[t++] = (int)v;
        if (*end == '/')
            break;
        p = *end ? end + 1 : end;
    }
    if (t != nt)
        usage_error(option, "%d partners for %d threads (OMP_NUM_THREADS)", t, nt);
    free(taken);
}

#define MAX_CLASSES 16

/* --distances=D:LIST/D:LIST: each class's distance and partners */
static int parse_classes(const char *text, long *distance, int **target, int nt)
{
    int count = 0;
    const char *p = text;
    while (p && *p) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || *end != ':' || d <= 0)
            usage_error("distances", "'%s' is not D:LIST/D:LIST (D a SLIT distance, LIST partners)", text);
        if (count == MAX_CLASSES)
            usage_error("distances", "more than %d distances", MAX_CLASSES);
        distance[count] = d;
        target[count] = calloc((size_t)nt, sizeof **target);
        if (!target[count]) {
            fprintf(stderr, "mem_numa: cannot allocate bookkeeping for %d threads\n", nt);
            exit(EXIT_ALLOC);
        }
        parse_permutation("distances", end + 1, target[count], nt, 1);
        count++;
        p = strchr(end + 1, '/');
        if (p)
            p++;
    }
    return count;
}

int main(int argc, char **argv)
{
    size_t size = 0;
    const char *partner_list = NULL, *class_list = NULL;
    long repeats = 5, span_ms = DEFAULT_SPAN_MS;
    struct opt_spec specs[] = {
        {"size", OPT_SIZE, &size, 1, NULL, 0},
        {"partners", OPT_TEXT, &partner_list, 1, NULL, 0},
        {"distances", OPT_TEXT, &class_list, 0, NULL, 0},
        {"repeats", OPT_LONG, &repeats, 0, NULL, 0},
        {"span-ms", OPT_LONG, &span_ms, 0, NULL, 0},
    };
    parse_options(argc, argv, specs, (int)(sizeof specs / sizeof specs[0]), usage);

    int nt = team_size();
    size_t n = size / (size_t)nt / sizeof(double);
    if (n == 0)
        usage_error("size", "%zu bytes is too small for %d threads", size, nt);
    int *target = calloc((size_t)nt, sizeof *target);
    if (!target) {
        fprintf(stderr, "mem_numa: cannot allocate bookkeeping for %d threads\n", nt);
        return EXIT_ALLOC;
    }
    parse_permutation("partners", partner_list, target, nt, 0);
    long class_distance[MAX_CLASSES];
    int *class_target[MAX_CLASSES];
    int classes = class_list ? parse_classes(class_list, class_distance, class_target, nt) : 0;

    print_header("mem_numa: local vs remote streaming, A(i,j)=time*A(i,j)");
    print_threads_info(nt);

    /* --- is there remote memory at all? ----------------------------- */
    char path[4200];
    long first_node = -1;
    snprintf(path, sizeof path, "%s/devices/system/node/online", sysfs_root());
    long nodes = count_list(path, &first_node);
    if (nodes < 0)
        no_figures("cannot read %s; NUMA topology unknown", path);
    if (nodes < 2)
        no_figures("only one NUMA node online (node %ld); local and remote memory are the same",
                   first_node);
    comment("numa nodes online %ld", nodes);
    if (nt < 2)
        no_figures("one thread: no partner on another node (use OMP_NUM_THREADS >= 2)");
    if (omp_get_proc_bind() == omp_proc_bind_false)
        no_figures("threads are not bound, so memory placement is not controlled "
                   "(set OMP_PROC_BIND=spread OMP_PLACES=cores)");

    /* --- node of every thread ------------------------------------------ */
    int *node = calloc((size_t)nt, sizeof *node);
    double **block = calloc((size_t)nt, sizeof *block);
    long *passes = calloc((size_t)nt * 16, sizeof *passes);
    long *rescaled = calloc((size_t)nt * 16, sizeof *rescaled);
    int *own = calloc((size_t)nt, sizeof *own);
    if (!node || !block || !passes || !rescaled || !own) {
        fprintf(stderr, "mem_numa: cannot allocate bookkeeping for %d threads\n", nt);
        return EXIT_ALLOC;
    }
    int unknown = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
#if defined(__linux__)
        int cpu = sched_getcpu();
        node[t] = cpu >= 0 ? node_of_cpu(cpu) : -1;
#else
        node[t] = -1;
#endif
        if (node[t] < 0) {
#pragma omp atomic write
            unknown = 1;
        }
    }
    if (unknown)
        no_figures("cannot tell the NUMA node of every thread (sched_getcpu or %s/devices/system/cpu/cpuN/nodeM)",
                   sysfs_root());
    fputs("# thread nodes", stdout);
    for (int t = 0; t < nt; t++)
        printf("%s%d", t ? "," : " ", node[t]);
    fputc('\n', stdout);

    /* --- the partners: each on another node ------------------------------ */
    for (int t = 0; t < nt; t++)
        if (node[target[t]] == node[t])
            no_figures("thread %d and its partner %d both run on NUMA node %d: the threads "
                       "are not where their partners were chosen for (OMP_PLACES, "
                       "OMP_PROC_BIND)", t, target[t], node[t]);
    fputs("# remote pairs (thread:block)", stdout);
    for (int t = 0; t < nt; t++)
        printf("%s%d:%d", t ? "," : " ", t, target[t]);
    fputc('\n', stdout);

    /* --- the distance classes: each pair at its distance ---------------- */
    long *online = calloc((size_t)nodes, sizeof *online);
    if (!online) {
        fprintf(stderr, "mem_numa: cannot allocate bookkeeping for %ld nodes\n", nodes);
        return EXIT_ALLOC;
    }
    if (classes && read_list(path, online, nodes) != nodes)
        no_figures("cannot read the nodes of %s", path);
    for (int k = 0; k < classes; k++) {
        for (int t = 0; t < nt; t++) {
            if (class_target[k][t] < 0)
                continue;
            int other = node[class_target[k][t]];
            long d = node_distance(node[t], other, online, nodes);
            if (d != class_distance[k])
                no_figures("thread %d (NUMA node %d) and its partner %d (node %d) are at "
                           "distance %ld, not %ld (%s/devices/system/node/node%d/distance): "
                           "the threads are not where their partners were chosen for",
                           t, node[t], class_target[k][t], other, d, class_distance[k],
                           sysfs_root(), node[t]);
        }
        printf("# remote pairs at distance %ld (thread:block, -: rests)", class_distance[k]);
        for (int t = 0; t < nt; t++)
            if (class_target[k][t] < 0)
                printf("%s%d:-", t ? "," : " ", t);
            else
                printf("%s%d:%d", t ? "," : " ", t, class_target[k][t]);
        fputc('\n', stdout);
    }
    comment("size %zu bytes of A, all threads; %zu elements per thread; repeats %ld spanning at least %ld ms",
            size, n, repeats, span_ms);

    /* --- first touch ---------------------------------------------------- */
    require_memory(n * sizeof(double) * (size_t)nt, "A");
    for (int t = 0; t < nt; t++)
        block[t] = alloc_pages(n * sizeof(double), "A");
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        for (size_t i = 0; i < n; i++)
            block[t][i] = value_a(i);
    }

    /* --- local, then remote ---------------------------------------------- */
    for (int t = 0; t < nt; t++)
        own[t] = t;
    struct ctx c = {block, own, n, passes, rescaled};
    struct timing local, remote, at[MAX_CLASSES];
    time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                  (double)span_ms / 1000.0, &local);
    c.target = target;
    time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                  (double)span_ms / 1000.0, &remote);
    for (int k = 0; k < classes; k++) {
        c.target = class_target[k];
        time_parallel(kernel, &c, nt, repeats, MIN_RUN_SECONDS,
                      (double)span_ms / 1000.0, &at[k]);
    }

    /* every block was rescaled once per pass it took part in (each of
     * the local and remote passes; a distance pass where a thread took
     * it), by 2 and 1/2 alternately */
    long base = local.total_iters + remote.total_iters;
    for (int t = 0; t < nt; t++) {
        long made = base, got = base;
        for (int k = 0; k < classes; k++) {
            if (class_target[k][t] >= 0)
                made += at[k].total_iters;
            for (int u = 0; u < nt; u++)
                if (class_target[k][u] == t)
                    got += at[k].total_iters;
        }
        if (passes[16 * t] != made || rescaled[16 * t] != got)
            validation_failed("thread %d made %ld passes and its block was rescaled %ld "
                              "times, expected %ld and %ld", t, passes[16 * t],
                              rescaled[16 * t], made, got);
        double factor = (got % 2 == 0) ? 1.0 : 2.0;
        for (size_t i = 0; i < n; i++)
            if (block[t][i] != value_a(i) * factor)
                validation_failed("block %d element %zu is %.17g, expected %.17g", t,
                                  i, block[t][i], value_a(i) * factor);
    }

    double per_pass_local = local.best / (double)local.iters;
    double per_pass_remote = remote.best / (double)remote.iters;
    double bytes = 16.0 * (double)n * nt;
    comment_timing("local", local.runs, local.seconds);
    comment_timing("remote", remote.runs, remote.seconds);
    comment("local: %ld passes per run, best %.6g s; remote: %ld passes per run, best %.6g s",
            local.iters, local.best, remote.iters, remote.best);
    figure("bandwidth.local", bytes / per_pass_local * 1e-6, "MB/s");
    figure_repetitions("bandwidth", "local", bytes / per_pass_local * 1e-6, 1,
                       "MB/s", &local);
    figure("bandwidth.remote", bytes / per_pass_remote * 1e-6, "MB/s");
    figure_repetitions("bandwidth", "remote", bytes / per_pass_remote * 1e-6,
                       1, "MB/s", &remote);
    figure("remote_penalty", (per_pass_remote - per_pass_local) / (double)n * 1e9, "ns");
    for (int k = 0; k < classes; k++) {
        char label[32];
        snprintf(label, sizeof label, "d%ld", class_distance[k]);
        double per_pass = at[k].best / (double)at[k].iters;
        int active = 0;
        for (int t = 0; t < nt; t++)
            active += class_target[k][t] >= 0;
        comment_timing(label, at[k].runs, at[k].seconds);
        comment("%s: %d of %d threads", label, active, nt);
        double bandwidth = 16.0 * (double)n * active / per_pass * 1e-6;
        figure2("bandwidth.remote", label, bandwidth, "MB/s");
        figure_repetitions("bandwidth.remote", label, bandwidth, 1, "MB/s",
                           &at[k]);
        figure2("remote_penalty", label, (per_pass - per_pass_local) / (double)n * 1e9, "ns");
        timing_free(&at[k]);
        free(class_target[k]);
    }
    timing_free(&local);
    timing_free(&remote);
    free(online);
    for (int t = 0; t < nt; t++)
        free_pages(block[t]);
    free(block);
    free(node);
    free(target);
    free(own);
    free(passes);
    free(rescaled);
    validation_passed();
    return EXIT_OK;
}
