# html-lib.sh - browser checks of HTML reports, for tests/e2e/test_html_*.sh (sourced after
# lib.sh and psc_init).
#
#   html_render REPORT NAME [VIEW]  loads REPORT#test&view=VIEW in headless Chromium with
#                                   virtual time; writes $T/NAME.dom (the DOM once the views'
#                                   tests ran), $T/NAME.log (Chromium's log with the page's
#                                   console) and the screenshot $PSC_SCREENSHOTS/<test>-NAME.png
#   html_expect_ok NAME             the page says data-perfscope-status="ok" (so every view
#                                   rendered and passed its own test) and logged no console
#                                   message at all
#   html_dom NAME ARGS..            tests/e2e/html_dom.py on $T/NAME.dom: --status, --views,
#                                   --tests, --text ID, --table ID (CSV), --count SELECTOR
#
# Chromium is a dependency (scripts/install-deps.sh): a missing one fails the test.

PSC_SCREENSHOTS=${PSC_SCREENSHOTS:-$PSC_BUILD/screenshots}
HTML_BUDGET_MS=${HTML_BUDGET_MS:-20000}

_html_chromium() {
	local profile=$1
	shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --mute-audio --hide-scrollbars --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 --virtual-time-budget="$HTML_BUDGET_MS" "$@"
}

html_render() {
	local report=$1 name=$2 view=${3:-} url
	command -v chromium >/dev/null || die "chromium not found: run scripts/install-deps.sh"
	url="file://$(realpath "$report")#test${view:+&view=$view}"
	_html_chromium "$T/chromium-$name" --dump-dom "$url" >"$T/$name.dom" 2>"$T/$name.log" ||
		fail "$name: chromium exited with $? (log: $(tail -n 3 "$T/$name.log"))"
	mkdir -p "$PSC_SCREENSHOTS"
	_html_chromium "$T/chromium-$name-shot" --window-size=1400,1000 \
		--screenshot="$PSC_SCREENSHOTS/$(basename "$0" .sh)-$name.png" "$url" \
		>/dev/null 2>&1 || fail "$name: chromium could not take the screenshot"
}

html_dom() {
	local name=$1
	shift
	python3 "$PSC_SOURCE/tests/e2e/html_dom.py" "$T/$name.dom" "$@"
}

html_expect_ok() {
	local name=$1 st console
	st=$(html_dom "$name" --status)
	expect_eq ok "$st" "$name: data-perfscope-status (view tests: $(html_dom "$name" --tests | tr '\n' ' '))"
	console=$(grep -c ':CONSOLE' "$T/$name.log" || true)
	expect_eq 0 "$console" "$name: console messages ($({ grep ':CONSOLE' "$T/$name.log" || true; } | head -n 3))"
}
