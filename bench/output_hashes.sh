#!/usr/bin/env bash
# The sha256 of the JSON and text outputs of search, eval, validate, list, status and the CI report on
# examples/acme and on the corpus of real skills: run it with two builds and diff the two lists to show a
# change kept every output.
#
#   bench/output_hashes.sh [SKILLSIFT_BINARY] [CORPUS] > hashes.txt
#
# Each run uses a cache folder of its own (so two builds never share a cache).
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-skillsift}"
corpus="${2:-$here/../shared/corpora}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export SKILLSIFT_CACHE_DIR="$work/cache"
printf '[catalog]\nskills = ["*"]\n' > "$work/corpus.toml"
acme="$here/examples/acme"
run() {
  local out
  # The temporary folder's name and measured times ("49 ms", in --explain) are replaced, so two runs of
  # one build hash the same.
  out="$("$bin" "$@" 2>/dev/null | sed -E "s#$work#WORK#g; s/[0-9]+(\.[0-9]+)? ms/N ms/g")"
  printf '%s  %s\n' "$(printf '%s' "$out" | sha256sum | cut -c1-16)" "$*" | sed "s#$here/##g; s#$work/##g; s#$corpus#corpora#g"
}
for q in "customer wants their money back" "roll back the last release" "page the on-call"; do
  run search "$q" --root "$acme" --format json
  run search "$q" --root "$acme" --format json --mode hybrid
  run search "$q" --root "$corpus" --config "$work/corpus.toml" --format json --limit 20
done
run eval "$acme/search-cases.yaml" --root "$acme" --format json
run eval "$acme/search-cases.yaml" --root "$acme" --format json --mode all
run eval "$acme/search-cases.yaml" --root "$acme" --format json --view listing
run validate --root "$acme" --format json
run validate --root "$corpus" --config "$work/corpus.toml" --format json
run list --root "$acme" --agent claude-code --format json
run status --root "$acme" --format json
# The text outputs (plain text: stdout is not a terminal here).
for q in "customer wants their money back" "page the on-call"; do
  run search "$q" --root "$acme" --mode hybrid --explain
  run search "$q" --root "$corpus" --config "$work/corpus.toml" --limit 20
done
run eval "$acme/search-cases.yaml" --root "$acme" --mode all
run eval "$acme/search-cases.yaml" --root "$acme" --why
run validate --root "$acme"
run validate --root "$corpus" --config "$work/corpus.toml"
run list --root "$acme" --agent claude-code
run status --root "$acme"
# The CI report (Markdown and JSON) against a saved baseline, so no git history is needed.
# Run from the work folder so the report names the baseline by a path that is the same on every run.
cd "$work" || exit 1
"$bin" eval "$acme/search-cases.yaml" --root "$acme" --output baseline.json >/dev/null 2>&1
run ci --root "$acme" --cases "$acme/search-cases.yaml" --baseline baseline.json --no-annotations --summary /dev/stdout
run ci --root "$acme" --cases "$acme/search-cases.yaml" --baseline baseline.json --no-annotations --format json
