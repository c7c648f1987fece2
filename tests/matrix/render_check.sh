#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/render_check.sh DIR -- a result folder's report.html as a person sees it,
# mailed on its own: headless Chromium loads a copy of it alone in an empty folder; the
# rendered page must open with the findings (the first section: sentences as a list and
# the overview chart), hold no literal Markdown (**, `, a "- " list line, a "#" heading),
# render the Methods as a list and the summary as a table, and show every chart of
# DIR/charts/ inline (one <svg> each). The screenshot is kept beside the report
# (DIR/report.png; not with --no-screenshot). Needs Debian's chromium (scripts/deps.sh).
set -euo pipefail

dir=${1:?usage: render_check.sh RESULT_DIR [--no-screenshot]}
screenshot=1
[ "${2:-}" != --no-screenshot ] || screenshot=0
html=$dir/report.html
browser=$(command -v chromium || true)
[ -n "$browser" ] || { echo "chromium is missing: run scripts/deps.sh"; exit 1; }
[ -s "$html" ] || { echo "no $html"; exit 1; }
alone=$(mktemp -d)
trap 'rm -rf "$alone"' EXIT
cp "$html" "$alone/report.html"
html=$alone/report.html
flags=(--headless=new --no-sandbox --disable-gpu --hide-scrollbars)
dom=$(timeout 60 "$browser" "${flags[@]}" --dump-dom "file://$html" 2>/dev/null)
failed=0
bad() { echo "$*"; failed=1; }

# the text the page shows: the DOM without its tags (and without the inline SVGs)
text=$(sed -e 's/<svg.*<\/svg>//' <<<"$dom" | sed -e 's/<[^>]*>//g')
grep -qF '**' <<<"$text" && bad "literal ** in the rendered page"
grep -qF '`' <<<"$text" && bad "literal backquotes in the rendered page"
grep -Eq '^\s*(- |#+ )' <<<"$text" && bad "a literal Markdown list line or heading in the rendered page"
# the findings first: the first section, with its sentences and the overview chart
first=$(grep -o '<h2>[^<]*</h2>' <<<"$dom" | head -1 | sed -e 's/<[^>]*>//g')
[ "$first" = Findings ] || bad "the first section is '${first:-none}', not the findings"
findings=$(sed -n '/<h2>Findings<\/h2>/,/<h2>/p' <<<"$dom")
[ "$(grep -c '<li>' <<<"$findings")" -ge 2 ] || bad "the findings have fewer than 2 sentences (list items)"
grep -q 'IOPS' <<<"$(sed -e 's/<svg.*<\/svg>//' <<<"$findings")" || bad "the findings name no IOPS figure"
grep -q '<svg' <<<"$findings" || bad "no overview chart in the findings"
grep -q '<li>' <<<"$dom" || bad "no list (the Methods) in the rendered page"
grep -q '<table>' <<<"$dom" || bad "no table (the summary) in the rendered page"
charts=$(find "$dir/charts" -name '*.svg' | wc -l)
shown=$(grep -o '<svg' <<<"$dom" | wc -l)
[ "$charts" -gt 0 ] || bad "no charts in $dir/charts"
[ "$shown" -eq "$charts" ] || bad "$shown charts shown, $charts in $dir/charts"
if [ "$screenshot" = 1 ]; then
	timeout 60 "$browser" "${flags[@]}" --window-size=1280,3000 --screenshot="$dir/report.png" \
		"file://$html" >/dev/null 2>&1 || bad "no screenshot"
	[ -s "$dir/report.png" ] || bad "the screenshot $dir/report.png is empty"
fi
[ "$failed" -eq 0 ] && echo "rendered alone: the findings first, $shown charts, no literal Markdown;" \
	"screenshot $dir/report.png"
exit "$failed"
