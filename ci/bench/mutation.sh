#!/usr/bin/env bash
# Mutation testing of the decision modules (the fleet comparison and
# fingerprints, the drain plan, the verdict, post-upgrade's judgement and
# its baseline, which figures are measurements, plausible, in which unit)
# with mutmut: each mutant is a small change of the code
# (a comparison turned round, a constant changed, a branch dropped); a
# test that fails on it kills it, one no test notices survives. Counts the
# surviving mutants with the tests that concern those modules, with and
# without the property tests (tests/properties/), and lists the survivors
# (tests/README.md, "Survivors explained", says which change no verdict).
#
# Usage: ci/bench/mutation.sh [with|without]...   (default: both)
#   with      the unit tests of the decision modules and the property tests
#             (Hypothesis profile "mutation": a third of CI's examples,
#             not shrunk)
#   without   the unit tests only: the suite before the property tests
# What is mutated: every line of those modules but the lines that only
# continue a message (a string literal: text for people, which changes no
# verdict); of post-upgrade, its judgement (upgrade/judgement.py: the
# table's format, the runs and the command, in modules of their own, are
# not decisions).
# Environment: MODULES (default: the decision modules, paths under
#   checks/), TESTS (default: the unit tests of those modules, below;
#   paths under tests/ that run in this process), STATE_DIR (default var/bench/mutation-<time>: one folder per
#   run with mutmut's mutants/ and results.txt, the table in table.md),
#   JOBS (mutmut's workers, default: the CPUs).
# mutmut 3 imports the mutated package from mutants/src/: each run works
# in a copy of the checkout (git ls-files, with uncommitted changes) whose
# package is src/hpc_acceptance, beside the C sources as in the checkout.
# mutmut lives in a venv of its own (var/bench/mutation-venv, the
# project's pins and its "bench" extra), never in .venv.
# Exit status: 0 measured, 2 cannot run.
set -euo pipefail

die() { echo "mutation: $*" >&2; exit 2; }

project_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$project_dir"
command -v git >/dev/null || die "git is needed to copy the checkout"
modules=${MODULES:-checks/hpc_acceptance/tools/fleet/model.py
checks/hpc_acceptance/tools/fleet/grouping.py
checks/hpc_acceptance/tools/fleet/comparison.py
checks/hpc_acceptance/tools/fleet/wording.py
checks/hpc_acceptance/tools/fleet/fingerprint.py
checks/hpc_acceptance/tools/fleet/drain.py
checks/hpc_acceptance/tools/outcome/acceptance_verdict.py
checks/hpc_acceptance/tools/upgrade/judgement.py
checks/hpc_acceptance/tools/upgrade/baseline.py
checks/hpc_acceptance/tools/results/measurement.py
checks/hpc_acceptance/tools/results/plausible.py
checks/hpc_acceptance/tools/results/units.py}
for module in $modules; do
    [[ $module == checks/hpc_acceptance/*.py && -f $module ]] ||
        die "MODULES: $module is no module of checks/hpc_acceptance"
done
runs=("$@")
(( ${#runs[@]} )) || runs=(without with)
for run in "${runs[@]}"; do
    [[ $run == with || $run == without ]] ||
        die "unknown run '$run' (with or without)"
done
jobs=${JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "JOBS=$jobs: not a number of workers"
state=${STATE_DIR:-$project_dir/var/bench/mutation-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$state"

venv=$project_dir/var/bench/mutation-venv
stamp="$venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [[ ! -f $stamp ]]; then
    echo "mutation: making $venv (the project's pins and mutmut)"
    python3 -m venv "$venv" || die "python3 -m venv failed"
    "$venv/bin/python" -m pip install -q -e ".[test,bench]" ||
        die "pip could not install the project with its bench extra"
    rm -f "$venv"/.installed-*
    touch "$stamp"
fi

# The unit tests of the decision modules that run in this process (mutmut
# sees a mutant only in its own process: the tests that start
# hpc-acceptance as a command are left out).
unit_tests=(tests/unit/tools/fleet/test_fleet.py
            tests/unit/tools/fleet/test_suspects.py
            tests/unit/tools/outcome/test_verdict.py
            tests/unit/tools/fleet/test_slurm_drain.py
            tests/unit/tools/fleet/test_fleet_confirm.py
            tests/unit/tools/upgrade/test_post_upgrade_cases.py
            tests/unit/tools/upgrade/test_post_upgrade_table.py
            tests/unit/tools/results/test_run_report_retries.py
            tests/unit/tools/fleet/test_fleet_compare_rules.py
            tests/unit/tools/fleet/test_fleet_fingerprint_rules.py
            tests/unit/tools/fleet/test_fleet_drain_rules.py
            tests/unit/tools/outcome/test_verdict_rules.py
            tests/unit/tools/upgrade/test_post_upgrade_rules.py
            tests/unit/tools/upgrade/test_upgrade_baseline_rules.py
            tests/unit/tools/fleet/test_fleet_identity_rules.py
            tests/unit/tools/fleet/test_fleet_grouping_rules.py
            tests/unit/tools/upgrade/test_post_upgrade_identity_rules.py
            tests/unit/tools/results/test_measurement.py
            tests/unit/tools/results/test_plausible.py
            tests/unit/tools/results/test_units.py)
if [[ -n ${TESTS:-} ]]; then
    read -r -a unit_tests <<< "$TESTS"
    for test in "${unit_tests[@]}"; do
        [[ $test == tests/*.py && -f $test ]] ||
            die "TESTS: $test is no test file of tests/"
    done
fi
property_tests=(tests/properties/test_property_order.py
                tests/properties/test_property_like_with_like.py
                tests/properties/test_property_monotone.py
                tests/properties/test_property_power.py
                tests/properties/test_property_no_measurement.py
                tests/properties/test_property_no_measurement_baseline.py
                tests/properties/test_property_any_file.py
                tests/properties/test_property_cap.py
                tests/properties/test_property_identity.py
                tests/properties/test_property_plausible.py
                tests/properties/test_property_small_groups.py)

toml_list() {
    local first=true item
    printf '['
    for item in "$@"; do
        $first || printf ', '
        first=false
        printf '"%s"' "$item"
    done
    printf ']'
}

for run in "${runs[@]}"; do
    work=$state/$run
    rm -rf "$work"
    mkdir -p "$work"
    # the checkout as it is, uncommitted changes included
    git ls-files -z --cached --others --exclude-standard |
        xargs -0 cp --parents -t "$work" 2>/dev/null || true
    cp -r checks/hpc_acceptance "$work/src/hpc_acceptance"
    tests=("${unit_tests[@]}")
    [[ $run == with ]] && tests+=("${property_tests[@]}")
    mutate=()
    for module in $modules; do mutate+=("src/${module#checks/}"); done
    {
        echo
        echo '[tool.mutmut]'
        echo 'source_paths = ["src"]'
        echo "only_mutate = $(toml_list "${mutate[@]}")"
        echo 'also_copy = ["checks", "config", "reference", "spack-envs", "ci"]'
        echo "pytest_add_cli_args_test_selection = $(toml_list "${tests[@]}")"
        echo 'pytest_add_cli_args = ["-p", "no:cacheprovider"]'
        echo 'use_git_change_detection = false'
        # a line that only continues a message
        cat <<'TOML'
do_not_mutate_patterns = ["^\\s*f?r?[\"']"]
TOML
    } >> "$work/pyproject.toml"
    echo "mutation: $run the property tests, $jobs worker(s), in $work"
    started=$(date +%s)
    (cd "$work" && HPC_ACCEPTANCE_PROPERTIES=mutation \
        "$venv/bin/mutmut" run --max-children "$jobs" > mutmut.log 2>&1) ||
        echo "mutation: mutmut exited $? (see $work/mutmut.log)" >&2
    echo $(( $(date +%s) - started )) > "$work/seconds"
    (cd "$work" && "$venv/bin/mutmut" export-cicd-stats > /dev/null &&
        "$venv/bin/mutmut" results --all true > results.txt 2>&1) ||
        die "mutmut results failed (see $work/results.txt)"
done

"$project_dir/.venv/bin/python" ci/bench/mutation_table.py "$state" "${runs[@]}" |
    tee "$state/table.md"
