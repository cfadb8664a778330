# Writes a 16x32 PNG: top half red, bottom half blue (8-bit RGB, no filter).
import struct, sys, zlib
W, H = 16, 32
raw = b"".join(b"\0" + (b"\xff\x00\x00" if y < 16 else b"\x00\x00\xff") * W for y in range(H))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
sys.stdout.buffer.write(png)
