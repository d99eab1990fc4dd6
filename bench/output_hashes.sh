#!/usr/bin/env bash
# The sha256 of the JSON outputs of search, eval, validate, list and status on examples/acme and on the
# corpus of real skills: run it with two builds and diff the two lists to show a change kept every output.
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
  out="$("$bin" "$@" 2>/dev/null)"
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
