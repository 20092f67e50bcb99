#!/bin/sh
# Prints the node it runs on, its Turbo and SMT state, its nominal clock,
# its topology and the software it runs, one line each:
#   node <name> <how it was read>
#   turbo on|off|unknown <how it was read>
#   smt on|off|unknown <how it was read>
#   nominal_khz <kHz>|unknown <how it was read, or why not>
#   topology <CPUs> <cores>|unknown <how it was read, or why not>
#   allowed <CPU list> <NUMA node list>|unknown <how it was read>
#   cpufreq <max kHz> <base kHz>|- <CPU list>   (one per distinct pair)
#   numa_distance <node> <its CPU list>|- <distance to each node, in order>
#   cpu_flags <the CPU's flags (x86) or Features (ARM) in /proc/cpuinfo>
#   hardware cpu|memory_kb <the CPU's model name; MemTotal in kB>
#   software kernel|microcode|bios|mpi|compiler <version, as the tool
#            prints it; microcode: the CPU's revision in /proc/cpuinfo>
# The optional argument names the compiler of the checks' environment
# (mpicc, say), whose version is reported.
# Plain POSIX sh, so it runs on compute nodes without Python. The checks run
# it in their jobs to verify the state a variant ran in, and ReFrame runs it
# on local partitions to decide which variants can run at all.
# NODE_STATE_SYSFS replaces /sys and NODE_STATE_PROC /proc (tests use fake
# trees).
cpu=${NODE_STATE_SYSFS:-/sys}/devices/system/cpu
proc=${NODE_STATE_PROC:-/proc}

# The first online CPU, whose cpufreq tells the driver and the nominal
# clock: cpu0 may be offline (its cpufreq then gone or stale).
first=$(sed -n '1s/^\([0-9]*\).*/\1/p' "$cpu/online" 2>/dev/null)
first=cpu${first:-0}

# The scheduler's name for the node (what a drain names), else its own.
if [ -n "${SLURMD_NODENAME:-}" ]; then
    echo "node $SLURMD_NODENAME SLURMD_NODENAME"
else
    host=$(uname -n)
    echo "node ${host%%.*} uname -n"
fi

if [ -r "$cpu/intel_pstate/no_turbo" ]; then
    v=$(cat "$cpu/intel_pstate/no_turbo")
    if [ "$v" = 0 ]; then s=on; else s=off; fi
    echo "turbo $s intel_pstate/no_turbo=$v"
elif [ -r "$cpu/cpufreq/boost" ]; then
    v=$(cat "$cpu/cpufreq/boost")
    if [ "$v" = 1 ]; then s=on; else s=off; fi
    echo "turbo $s cpufreq/boost=$v"
elif [ -d "$cpu/$first/cpufreq" ]; then
    echo "turbo unknown the cpufreq driver" \
         "$(cat "$cpu/$first/cpufreq/scaling_driver" 2>/dev/null)" \
         "has no turbo switch"
else
    echo "turbo unknown no cpufreq driver ($cpu/$first/cpufreq is missing)"
fi

if [ -r "$cpu/smt/active" ]; then
    v=$(cat "$cpu/smt/active")
    c=$(cat "$cpu/smt/control" 2>/dev/null)
    if [ "$v" = 1 ]; then s=on; else s=off; fi
    echo "smt $s smt/active=$v smt/control=$c"
else
    echo "smt unknown the kernel does not report SMT ($cpu/smt is missing)"
fi

# The nominal (base) clock: what a clock that Slurm set (--cpu-freq, which
# moves no Turbo switch) is judged by. intel_pstate states it; acpi-cpufreq
# lists no boost states, so its highest is the nominal one (on Intel,
# nominal + 1 MHz, which marks the Turbo range).
f=$cpu/$first/cpufreq
driver=$(cat "$f/scaling_driver" 2>/dev/null || true)
if [ -r "$f/base_frequency" ]; then
    echo "nominal_khz $(cat "$f/base_frequency")" \
         "$first/cpufreq/base_frequency"
elif [ "$driver" = acpi-cpufreq ] && [ -r "$f/cpuinfo_max_freq" ]; then
    echo "nominal_khz $(cat "$f/cpuinfo_max_freq")" \
         "$first/cpufreq/cpuinfo_max_freq (acpi-cpufreq)"
elif [ -d "$f" ]; then
    echo "nominal_khz unknown the cpufreq driver $driver states no nominal" \
         "clock"
else
    echo "nominal_khz unknown no cpufreq driver"
fi

# The CPUs and cores the kernel shows, counted as ReFrame's topology
# detection counts them (cpuN directories; distinct core_cpus masks, else
# thread_siblings), so that a job can tell a node whose topology changed
# since it was detected (SMT or cores disabled in the BIOS). Some kernels
# end a mask with a NUL byte after its newline: it is no part of the mask.
cpus=0
for d in "$cpu"/cpu[0-9]*; do
    if [ -d "$d" ]; then cpus=$((cpus + 1)); fi
done
cores=$(for d in "$cpu"/cpu[0-9]*/topology; do
            if [ -r "$d/core_cpus" ]; then cat "$d/core_cpus"
            elif [ -r "$d/thread_siblings" ]; then cat "$d/thread_siblings"
            fi
        done | tr -d '\000' | sort -u | wc -l)
cores=$((cores))
if [ "$cpus" -gt 0 ] && [ "$cores" -gt 0 ]; then
    echo "topology $cpus $cores cpu*/topology"
else
    echo "topology unknown no CPU topology in $cpu"
fi

# What this job may use of the node (its cgroup's cpuset and its affinity,
# as the kernel enforces them): a job given part of a node cannot run a
# plan made for all of it.
status=$(cat "$proc/self/status" 2>/dev/null)
allowed_cpus=$(printf '%s\n' "$status" |
                   sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')
allowed_mems=$(printf '%s\n' "$status" |
                   sed -n 's/^Mems_allowed_list:[[:space:]]*//p')
if [ -n "$allowed_cpus" ]; then
    echo "allowed $allowed_cpus ${allowed_mems:--} /proc/self/status"
else
    echo "allowed unknown no Cpus_allowed_list in $proc/self/status"
fi

# The highest clock of each CPU (cpufreq's cpuinfo_max_freq, the hardware's)
# and its base clock where the driver states it, grouped: the kinds of core
# of a hybrid CPU, as hwloc tells them (core/core_kinds.py).
for d in "$cpu"/cpu[0-9]*; do
    if [ -r "$d/cpufreq/cpuinfo_max_freq" ]; then
        base=$(cat "$d/cpufreq/base_frequency" 2>/dev/null) || base=-
        echo "$(cat "$d/cpufreq/cpuinfo_max_freq") ${base:--} ${d##*/cpu}"
    fi
done | awk '{ k = $1 " " $2; if (k in l) l[k] = l[k] "," $3; else l[k] = $3 }
            END { for (k in l) print "cpufreq " k " " l[k] }' | sort

# The NUMA distances (the firmware's SLIT) from each node to every node:
# which pairs of nodes the NUMA check measures.
for d in "${NODE_STATE_SYSFS:-/sys}"/devices/system/node/node[0-9]*; do
    if [ -r "$d/distance" ]; then
        cpus=$(tr -d '\000' < "$d/cpulist" 2>/dev/null)
        echo "numa_distance ${d##*/node} ${cpus:--}" \
             "$(tr -d '\000' < "$d/distance")"
    fi
done

# The CPU's own flags: what an ISA variant lacks, named as the node names it.
flags=$(sed -n 's/^\(flags\|Features\)[[:space:]]*:[[:space:]]*//p' \
            "$proc/cpuinfo" 2>/dev/null | head -n 1)
if [ -n "$flags" ]; then
    echo "cpu_flags $flags"
fi

# What the node is: a fleet run compares a node only with nodes of the same
# hardware, and names one that differs from its partition (a lost DIMM,
# another CPU). ARM kernels name no model: their implementer and part do.
model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' \
            "$proc/cpuinfo" 2>/dev/null | head -n 1)
if [ -z "$model" ]; then
    model=$(sed -n 's/^CPU \(implementer\|variant\|part\)[[:space:]]*:[[:space:]]*/\1 /p' \
                "$proc/cpuinfo" 2>/dev/null | head -n 3)
fi
model=$(printf '%s\n' "$model" | tr -s '[:space:]' ' ' | sed 's/ $//')
if [ -n "$model" ]; then
    echo "hardware cpu $model"
fi
memory=$(sed -n 's/^MemTotal:[[:space:]]*\([0-9]*\) kB$/\1/p' \
             "$proc/meminfo" 2>/dev/null)
if [ -n "$memory" ]; then
    echo "hardware memory_kb $memory"
fi

# What an upgrade changes: a post-upgrade comparison lists it, and a shift
# across nights is named beside it.
echo "software kernel $(uname -r)"
dmi=${NODE_STATE_SYSFS:-/sys}/class/dmi/id
if [ -r "$dmi/bios_version" ]; then
    echo "software bios $(cat "$dmi/bios_vendor" 2>/dev/null)" \
         "$(cat "$dmi/bios_version") $(cat "$dmi/bios_date" 2>/dev/null)"
fi
microcode=$(sed -n 's/^microcode[[:space:]]*:[[:space:]]*//p' \
                "$proc/cpuinfo" 2>/dev/null | head -n 1)
if [ -n "$microcode" ]; then
    echo "software microcode $microcode"
fi
if command -v mpirun >/dev/null 2>&1; then
    echo "software mpi $(mpirun --version 2>/dev/null | head -n 1)"
fi
if [ -n "${1:-}" ] && command -v "$1" >/dev/null 2>&1; then
    echo "software compiler $("$1" --version 2>/dev/null | head -n 1)"
fi
