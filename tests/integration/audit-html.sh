#!/bin/bash
# SPDX-License-Identifier: MIT
# The HTML report in a real browser: `sysgate report --html` of a run with
# a few processes and denials, opened in headless Chromium (Debian's
# chromium package).  The screenshot is a real picture (not blank, with the
# blue process bars and the red denial marks of the timeline), the DOM
# holds the tree, one timeline lane per process and the denial table, and
# the page logs no script error.  Skips (77) without /usr/bin/chromium.
. "$(dirname "$0")/lib.sh"
: "${SG_USERS:=$(id -un)}"
sg_init
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || sg_skip_all "no $CHROMIUM (apt-get install chromium)"

# chromium ARGS...: headless, no network, no profile of ours touched.
chromium() {
	local prof
	prof=$(mktemp -d "$T/chromium.XXXXXX")
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$prof" "$@" </dev/null
}

cases() {
	policy html <<'EOF'
[policy]
default = allow
audit = all

[rule no-secrets]
syscalls = @file
path = ${HOME}/.ssh/**
action = deny
errno = EACCES

[rule files]
syscalls = @file
action = allow
EOF
	local S=$H/.ssh/id_rsa
	sg_run -r "$P/html.ini" -- sh -c "
		cat readme.txt >/dev/null
		(sleep 0.2; cat '$S' 2>/dev/null) &
		sleep 0.1
		cat '$S' 2>/dev/null
		wait
		exit 1"
	check run-status-1 test "$SG_RC" = 1
	local html=$R/report.html png=$R/report.png
	"$SYSGATE" report "$SG_TRAIL" --html "$html" 2>"$R/report.err"
	check report-written test -s "$html"

	chromium --enable-logging=stderr --v=0 --screenshot="$png" \
		--window-size=1280,900 "file://$html" >"$R/shot.log" 2>&1
	check screenshot-taken test -s "$png"
	check no-script-error sh -c "! grep -Eqi 'Uncaught|SyntaxError|ReferenceError|TypeError|CONSOLE\\(' '$R/shot.log'"
	if $PY - "$png" >"$R/png.out" 2>&1 <<'EOF'
# A small PNG reader (8-bit RGB/RGBA, not interlaced): what is drawn?
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and not inter, (depth, ctype, inter)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts = {"white": 0, "other": 0, "red": 0, "blue": 0}
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pr) & 255
    for i in range(0, stride, bpp):
        r, g, bl = line[i], line[i + 1], line[i + 2]
        if r > 245 and g > 245 and bl > 245:
            counts["white"] += 1
        else:
            counts["other"] += 1
        if r > 180 and g < 60 and bl < 60:
            counts["red"] += 1
        if r < 110 and 120 < g < 170 and bl > 190:
            counts["blue"] += 1
    prev = line
print("%dx%d %s" % (w, h, counts))
ok = (w, h) == (1280, 900) and counts["other"] > w * h // 50 \
    and counts["red"] >= 20 and counts["blue"] >= 200
sys.exit(0 if ok else 1)
EOF
	then
		SG_ERR= sg_report_pass "screenshot-shows-page-bars-and-denials"
	else
		SG_ERR= sg_report_fail "screenshot-shows-page-bars-and-denials" \
			"$(cat "$R/png.out")" "screenshot: $png"
	fi
	sed 's/^/#   /' "$R/png.out"

	chromium --dump-dom "file://$html" >"$R/dom.html" 2>"$R/dom.log"
	local procs lanes
	procs=$($PY -c 'import json, sys
print(len(json.load(sys.stdin)["processes"]))' < <("$SYSGATE" report "$SG_TRAIL" --json))
	lanes=$(grep -o 'class="lane"' "$R/dom.html" | wc -l)
	check dom-rendered grep -q '</html>' "$R/dom.html"
	check "dom-one-lane-per-process-($lanes/$procs)" test "$lanes" = "$procs" -a "$procs" -ge 5
	check dom-tree-items test "$(grep -o 'class="proc"' "$R/dom.html" | wc -l)" = "$procs"
	check dom-denial-marks test "$(grep -o '<rect class="denial"' "$R/dom.html" | wc -l)" = 2
	check dom-denial-rows test "$(grep -o '<tr class="denial"' "$R/dom.html" | wc -l)" = 2
	check dom-no-script sh -c "! grep -qi '<script' '$R/dom.html'"
}

sg_main cases
