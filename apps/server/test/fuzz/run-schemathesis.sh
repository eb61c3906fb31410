#!/usr/bin/env bash
# A bounded schema-driven fuzzing pass (issue 23 finding 10): the real app (fresh PGlite database,
# tokens of the test issuer it trusts) on a loopback port, and schemathesis generating requests from
# its own OpenAPI document (checks and exceptions: schemathesis.toml beside this script). Fails on
# any server error, any answer the document does not describe (status code, content type, headers,
# response schema), a request the document accepts that is refused (save where schemathesis.toml
# names a rule JSON Schema cannot state), a method a path does not serve answered otherwise than 405
# with Allow, a resource missing after its creation or still there after its deletion, and an
# operation answered without the token. Prints the request count for bench/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../../.." && pwd)"
PORT="${FUZZ_PORT:-18862}"
EXAMPLES="${FUZZ_EXAMPLES:-10}"
WORK="$(mktemp -d /tmp/polyforge-fuzz-XXXXXX)"
cd "$ROOT"
node --import tsx apps/server/test/fuzz/serve-for-fuzzing.ts "$WORK/server.json" "$PORT" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do [ -s "$WORK/server.json" ] && break; sleep 1; done
[ -s "$WORK/server.json" ] || { cat "$WORK/server.log"; echo "the server did not start" >&2; exit 1; }
TOKEN="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$WORK/server.json")"
BASE="http://127.0.0.1:$PORT"
status=0
"$ROOT/.venv/bin/schemathesis" --no-color --config-file "$ROOT/apps/server/test/fuzz/schemathesis.toml" \
  run "$BASE/api/docs/openapi.json" --url "$BASE" \
  -H "Authorization: Bearer $TOKEN" \
  --phases examples,coverage,fuzzing,stateful -n "$EXAMPLES" --generation-deterministic \
  --request-timeout 30 --report ndjson --report-dir "$WORK" >"$WORK/run.log" 2>&1 || status=$?
sed -n '/SUMMARY/,$p' "$WORK/run.log"
if [ "$status" -ne 0 ]; then
  sed -n '/FAILURES/,/SUMMARY/p' "$WORK/run.log" | head -150
  echo "schemathesis found problems (full log: $WORK/run.log)" >&2
fi
exit "$status"
