#!/usr/bin/env python3
"""A synthetic video for x264.sh: raw YUV 4:2:0, 640x360, FRAMES frames of a textured
scene panning 2 pixels right and 1 down per frame (so motion search finds real motion),
its texture taken from TEXT's bytes over a gradient, chroma flat.

  x264-input.py TEXT FRAMES OUT.yuv"""
import sys

W, H = 640, 360
text_path, frames, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(text_path, "rb").read(4_000_000)
BW, BH = W + 2 * frames + 8, H + frames + 8
base = bytearray(BW * BH)
for y in range(BH):
    at = (y * 977) % (len(text) - BW)
    row = text[at:at + BW]
    base[y * BW:(y + 1) * BW] = bytes(
        ((x * 255) // BW + (y * 64) // BH + (row[x] & 63)) & 255 for x in range(BW))
chroma = bytes([128]) * ((W // 2) * (H // 2))
with open(out_path, "wb") as out:
    for f in range(frames):
        for y in range(H):
            o = (y + f) * BW + 2 * f
            out.write(base[o:o + W])
        out.write(chroma)
        out.write(chroma)
