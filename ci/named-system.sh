# The system a run validates, and the site directory: what ci/nightly.sh and
# ci/post-upgrade.sh (which source this file from the checkout) ask before
# anything runs, the setup included, also on a fresh checkout: with bash
# and the standard library alone.
#
# The system is named, not guessed: ReFrame picks a system by host name,
# and the embedded default `local` matches every host, so on a cluster
# whose host-name pattern is wrong an unattended run would validate the
# node as `local`, against no references, and pass.
#
# The site directory (HPC_ACCEPTANCE_SITE_DIR) is the one place a site's
# settings live, for every system, one of config/systems/ included: its
# export.yaml (figures to the site's time-series store), and the systems,
# Spack environments and references `hpc-acceptance new-system` writes.
# Empty or unset: none (nothing exported). Named, it must exist: a typo
# would otherwise stop the export, silently.

# The names in config/systems/*.py and the site directory's systems/. "?"
# is a system file whose name is computed: then any name is let through
# to ReFrame, which refuses an unknown --system before any check.
known_systems() {
    PYTHONPATH=checks python3 -m hpc_acceptance.core.system_names \
        config/systems \
        ${HPC_ACCEPTANCE_SITE_DIR:+"$HPC_ACCEPTANCE_SITE_DIR/systems"} |
        tr '\n' ' '
}

# require_site_dir WHO: exit 2 when HPC_ACCEPTANCE_SITE_DIR names no
# directory; else say which one the run reads, and whether it exports.
require_site_dir() {
    local who=$1 dir=${HPC_ACCEPTANCE_SITE_DIR:-}
    if [[ -z $dir ]]; then
        echo "$who: no site directory (HPC_ACCEPTANCE_SITE_DIR is empty):" \
             "the systems of config/systems/, no figures exported" >&2
        return
    fi
    if [[ ! -d $dir ]]; then
        echo "$who: HPC_ACCEPTANCE_SITE_DIR=$dir is no directory: create" \
             "it for the site's settings (export.yaml, the systems" \
             "new-system writes), or set the variable empty for none." \
             "Nothing was run." >&2
        exit 2
    fi
    if [[ -f $dir/export.yaml ]]; then
        echo "$who: site directory $dir; figures go to the store" \
             "$dir/export.yaml names" >&2
    else
        echo "$who: site directory $dir; no export.yaml there: no" \
             "figures exported" >&2
    fi
}

# require_system WHO SYSTEM SHOWN MISSING DOCS: exit 2 when SYSTEM is
# empty (saying MISSING, then the systems there are and where DOCS say
# more) or unknown (SHOWN: how the run was given it).
require_system() {
    local who=$1 system=$2 shown=$3 missing=$4 docs=$5 known
    known=$(known_systems)
    known=${known% }
    if [[ -z $system ]]; then
        echo "$who: $missing (${known:-see config/systems/}; $docs)." \
             "Nothing was run." >&2
        exit 2
    fi
    # a name as ReFrame's and this project's (identifiers.NAME), checked
    # before it is matched or echoed: shown quoted, never raw (a newline or
    # an escape sequence would reach the log and the terminal as given)
    if [[ ! $system =~ ^[A-Za-z_][A-Za-z0-9_-]{0,254}$ ]]; then
        echo "$who: ${shown%%[ =]*} $(printf '%q' "$system") is no system" \
             "name (a letter or _, then letters, digits, _ and -)." \
             "Nothing was run." >&2
        exit 2
    fi
    if [[ " $known " != *" ? "* && " $known " != *" $system "* ]]; then
        echo "$who: $shown is no system of" \
             "config/systems/${HPC_ACCEPTANCE_SITE_DIR:+ or $HPC_ACCEPTANCE_SITE_DIR/systems/}" \
             "(known: $known). Nothing was run." >&2
        exit 2
    fi
}
