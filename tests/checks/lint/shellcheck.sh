#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/checks/lint/shellcheck.sh -- make lint-shellcheck: shellcheck over every shell
# script git knows or would add (*.sh, and the files whose first line names bash
# or sh): new scripts are checked before their first commit.
# Any finding fails; a script silences one only next to it, with its reason.
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v shellcheck >/dev/null || { echo "lint: shellcheck is missing (scripts/deps.sh)" >&2; exit 1; }
files=()
while IFS= read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh) files+=("$f") ;;
	*) head -n 1 "$f" | grep -Eq '^#!.*[/ ](ba)?sh([[:space:]]|$)' && files+=("$f") ;;
	esac
done < <(git ls-files --cached --others --exclude-standard)
((${#files[@]})) || { echo "lint: no shell scripts found (not a git tree?)" >&2; exit 1; }
# two halves at once, one a core (each shellcheck follows its files' sources itself)
half=$(((${#files[@]} + 1) / 2))
printf '%s\0' "${files[@]}" | xargs -0 -P 2 -n "$half" shellcheck -x
echo "lint: shellcheck clean (${#files[@]} scripts)"
