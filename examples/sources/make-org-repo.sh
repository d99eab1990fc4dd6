#!/bin/sh
# Stands in for your organisation's shared skills repository: makes the git repository
# /tmp/skillsift-example-org-skills.git from examples/org-skills, tagged v1. Author, committer and dates
# are fixed, so the commit is the same on every machine and matches the committed skillsift.lock.
set -eu
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${SKILLSIFT_EXAMPLE_ORG:-/tmp/skillsift-example-org-skills.git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -R "$here/org-skills/." "$work/"
export GIT_AUTHOR_NAME=org GIT_AUTHOR_EMAIL=org@example.invalid GIT_COMMITTER_NAME=org \
  GIT_COMMITTER_EMAIL=org@example.invalid GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" \
  GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git -C "$work" init -q -b main
git -C "$work" add -A
git -C "$work" -c commit.gpgsign=false commit -q -m "org skills v1"
rm -rf "$repo"
git clone -q --bare "$work" "$repo"
git -C "$repo" tag v1 main
echo "made $repo (v1 = $(git -C "$repo" rev-parse v1))"
