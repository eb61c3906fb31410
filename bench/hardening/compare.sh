#!/usr/bin/env bash
# Before/after load on the two big lists (issue 23): list-load.ts run against the trees of two
# commits, alternating (before, after, before, after…) so that both see the same spells of the
# machine. One JSON line per measurement, tagged with its tree, commit, database and round.
#
#   bench/hardening/compare.sh [before=08fa9be] [after=HEAD] [seconds=30] [rows=2000] [rounds=2]
#   MODE=cpu bench/hardening/compare.sh [before] [after] [requests=200] [rows=2000] [rounds=2]
#   MODE=attacks bench/hardening/compare.sh [before] [after] [-] [-] [rounds=1]
#   MODE=abuse bench/hardening/compare.sh [before] [after] [seconds=20] [-] [rounds=2]
#
# MODE=cpu runs cpu-per-request.ts instead (in process, PGlite: CPU time per request); MODE=attacks
# runs attacks.ts (slow clients and disk filling; as root, in a private mount namespace); MODE=abuse
# runs abuse.ts (deeply nested JSON and SMILES that break RDKit, PGlite).
# PostgreSQL runs too when TEST_DATABASE_URL is set. Each tree is a `git archive` of its commit
# under /tmp (no checkout, no worktree: the working tree may hold anyone's edits in progress),
# sharing this checkout's node_modules (08fa9be, the commit just before the first change of
# issue 23, has the same dependencies).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
before_commit=$(git -C "$root" rev-parse --short "${1:-08fa9be}")
after_commit=$(git -C "$root" rev-parse --short "${2:-HEAD}")
seconds=${3:-30}
rows=${4:-2000}
rounds=${5:-2}
trees=${TREES_DIR:-/tmp/polyforge-bench-trees}

# The tree of a commit, with node_modules linked to this checkout's and the workspaces to its own.
tree_of() {
  local dir=$trees/$1
  if [ ! -d "$dir/apps" ]; then
    mkdir -p "$dir"
    git -C "$root" archive "$1" | tar -x -C "$dir"
    mkdir -p "$dir/node_modules/@polyforge" "$dir/apps/server/node_modules"
    for entry in "$root"/node_modules/* "$root"/node_modules/.bin; do
      [ "$(basename "$entry")" = "@polyforge" ] || ln -s "$entry" "$dir/node_modules/"
    done
    for link in contracts:packages/contracts server:apps/server web:apps/web e2e:e2e; do
      ln -s "../../${link#*:}" "$dir/node_modules/@polyforge/${link%%:*}"
    done
    for entry in "$root"/apps/server/node_modules/*; do ln -s "$entry" "$dir/apps/server/node_modules/"; done
  fi
  # The same load scripts in both trees.
  mkdir -p "$dir/bench/hardening"
  cp "$root"/bench/hardening/{list-load,cpu-per-request,seed,attacks,attack-server,abuse}.ts "$dir/bench/hardening/"
  echo "$dir"
}
before_dir=$(tree_of "$before_commit")
after_dir=$(tree_of "$after_commit")

script=list-load.ts
run=()
[ "${MODE:-load}" = cpu ] && script=cpu-per-request.ts
[ "${MODE:-load}" = attacks ] && script=attacks.ts && run=(unshare -m --propagation private)
[ "${MODE:-load}" = abuse ] && script=abuse.ts
databases=(pglite)
[ -n "${TEST_DATABASE_URL:-}" ] && [ "$script" = list-load.ts ] && databases+=(postgres)
for round in $(seq 1 "$rounds"); do
  for database in "${databases[@]}"; do
    for tree in before after; do
      dir=$after_dir
      commit=$after_commit
      if [ "$tree" = before ]; then
        dir=$before_dir
        commit=$before_commit
      fi
      url=""
      [ "$database" = postgres ] && url=$TEST_DATABASE_URL
      (cd "$dir" && TEST_DATABASE_URL=$url "${run[@]}" node --import tsx "bench/hardening/$script" "$seconds" "$rows" 2>/dev/null) |
        while read -r line; do
          case $line in
            '{"database":'* | '{"scenario":'*) echo "{\"tree\":\"$tree\",\"commit\":\"$commit\",\"round\":$round,${line#\{}" ;;
          esac
        done
    done
  done
done
