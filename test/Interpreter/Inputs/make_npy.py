#!/usr/bin/env python3
"""Writes a small .npy file for the amp-run tests, with the standard library
only (the test suite does not need NumPy).

  make_npy.py OUT DTYPE SHAPE VALUE...      e.g. make_npy.py x.npy <f4 2x3 1 2 3 4 5 6
  make_npy.py OUT DTYPE SHAPE --fill=V      every element V

DTYPE is an .npy descr: <f2 <f4 <f8 <i4 <i8 |b1 <u2. SHAPE is 2x3, 5 or
'scalar'. --raw-header=TEXT writes TEXT as the header instead (malformed
files for error tests).
"""
import argparse
import struct
import sys

FORMATS = {"<f2": "e", "<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q",
           "|b1": "?", "<u2": "H"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("dtype")
    parser.add_argument("shape")
    parser.add_argument("values", nargs="*")
    parser.add_argument("--fill")
    parser.add_argument("--raw-header")
    args = parser.parse_args()

    shape = () if args.shape == "scalar" else tuple(
        int(d) for d in args.shape.split("x"))
    count = 1
    for d in shape:
        count *= d
    values = [args.fill] * count if args.fill is not None else args.values
    if args.raw_header is None and len(values) != count:
        sys.exit(f"make_npy: {len(values)} values for shape {shape}")
    code = FORMATS[args.dtype]
    convert = float if code in "efd" else int
    data = b"".join(struct.pack("<" + code, convert(v)) for v in values)

    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
    shape_text = shape_text.rstrip(",") + ",)" if len(shape) == 1 else (
        shape_text.rstrip(",") + ")")
    header = args.raw_header if args.raw_header is not None else (
        f"{{'descr': '{args.dtype}', 'fortran_order': False, "
        f"'shape': {shape_text}, }}")
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(args.out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + data)


if __name__ == "__main__":
    main()
