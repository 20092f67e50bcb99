# Sourced by the ci/bench scripts (after they define die): this node's
# sizes as the checks compute them, and a private build of in-tree
# programs, so that a script measures what the checks would.

# Sets `node` to the lines of `hpc-acceptance topology --format figures`
# (HPC_ACCEPTANCE, default: the project's .venv made by ci/setup.sh).
read_node_sizes() {
    local bench_dir command
    bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    command=${HPC_ACCEPTANCE:-$bench_dir/../../.venv/bin/hpc-acceptance}
    [ -x "$command" ] || die "no $command: run ci/setup.sh first (or set HPC_ACCEPTANCE to this project's hpc-acceptance command)"
    node=$("$command" topology --format figures) ||
        die "this node's topology gives no sizes"
}

# validated_figure NAME COMMAND...: the value of figure NAME from one run
# of COMMAND (an in-tree program, `env` first to set its threads), which
# must end with "# validation: passed"
validated_figure() {
    local name=$1 out; shift
    out=$("$@") || die "$* failed (status $?)"
    [ "$(tail -n 1 <<<"$out")" = "# validation: passed" ] \
        || die "$* did not validate: $(tail -n 1 <<<"$out")"
    awk -v n="$name" '$1 == n { print $2 }' <<<"$out"
}

# node_figure NAME: its value in `node`
node_figure() { awk -v n="$1" '$1 == n { print $2 }' <<<"$node"; }

# build_privately SRC_DIR [TARGET...]: builds SRC_DIR's programs in `tmp`, a
# temporary directory removed on exit, with CC and CFLAGS when set.
build_privately() {
    local src=$1; shift
    local make_args=()
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp "$src"/Makefile "$src"/*.[ch] "$tmp"/
    [ -n "${CC:-}" ] && make_args+=("CC=$CC")
    [ -n "${CFLAGS:-}" ] && make_args+=("CFLAGS=$CFLAGS")
    make -s -C "$tmp" "${make_args[@]}" "$@" >"$tmp/build.log" 2>&1 \
        || { cat "$tmp/build.log" >&2; die "build of ${*:-the programs of $src} failed"; }
}
