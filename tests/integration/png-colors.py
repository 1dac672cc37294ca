#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# png-colors.py PNG MIN-RED MIN-BLUE: a small PNG reader (8-bit RGB/RGBA,
# not interlaced) that says what is drawn: exit 0 when the picture is not
# blank (over 2% of it not white) and holds at least MIN-RED red pixels
# (denial marks) and MIN-BLUE blue ones (process bars).
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
ok = counts["other"] > w * h // 50 and \
    counts["red"] >= int(sys.argv[2]) and counts["blue"] >= int(sys.argv[3])
sys.exit(0 if ok else 1)
