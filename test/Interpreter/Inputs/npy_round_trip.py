#!/usr/bin/env python3
"""Inputs and checks for npy-round-trip.mlir.

  npy_round_trip.py make DIR    write one 3-element input per dtype
  npy_round_trip.py check DIR   compare quire-run's outputs with the inputs
"""

import os
import sys

import numpy as np

# name -> (numpy dtype, values, .npy format version)
CASES = {
    "f16": (np.float16, [2.0**-24, -0.0, np.inf], (1, 0)),
    # bf16 travels as its bit pattern: 1.0, -2.0, the smallest subnormal.
    "bf16": (np.uint16, [0x3F80, 0xC000, 0x0001], (1, 0)),
    "f32": (np.float32, [np.nan, -1.5, 2.0**-149], (2, 0)),
    "f64": (np.float64, [0.1, -1e300, 5e-324], (3, 0)),
    "i1": (np.bool_, [True, False, True], (1, 0)),
    "i8": (np.int8, [-128, 127, 0], (1, 0)),
    "i16": (np.int16, [-32768, 32767, 1], (2, 0)),
    "i32": (np.int32, [-2**31, 2**31 - 1, 5], (1, 0)),
    "i64": (np.int64, [-2**63, 2**63 - 1, 7], (1, 0)),
}
EXPECTED_DESCR = {"f16": "<f2", "bf16": "<u2", "f32": "<f4", "f64": "<f8",
                  "i1": "|b1", "i8": "|i1", "i16": "<i2", "i32": "<i4",
                  "i64": "<i8"}


def make(d):
    os.makedirs(d, exist_ok=True)
    for name, (dtype, values, version) in CASES.items():
        with open(os.path.join(d, name + ".npy"), "wb") as f:
            np.lib.format.write_array(f, np.array(values, dtype),
                                      version=version)
    np.save(os.path.join(d, "acc.npy"), np.array([1, 2, 3], np.int32))


def check(d):
    for name, (dtype, values, _) in CASES.items():
        path = os.path.join(d, name + ".out.npy")
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            shape, fortran, descr = np.lib.format._read_array_header(f, version)
        out = np.load(path)
        ref = np.array(values, dtype)
        if descr.str != EXPECTED_DESCR[name] or shape != (3,) or fortran:
            sys.exit("%s: wrote %s %s" % (name, descr.str, shape))
        same = (out.view(np.uint8) == ref.view(np.uint8)).all()
        if not same:
            sys.exit("%s: %r != %r" % (name, out, ref))
        print("%s: %s exact ok" % (name, descr.str))
    acc = np.load(os.path.join(d, "acc.out.npy"))
    if acc.tolist() != [11, 12, 13]:
        sys.exit("inout: %r" % acc)
    if np.load(os.path.join(d, "acc.npy")).tolist() != [1, 2, 3]:
        sys.exit("inout:FILE:OUTFILE overwrote FILE")
    print("inout: ok")
    saved = np.load(os.path.join(d, "saved", "arg19.npy"))
    copied = np.load(os.path.join(d, "rand.out.npy"))
    again = np.load(os.path.join(d, "rand.again.npy"))
    other = np.load(os.path.join(d, "rand.other.npy"))
    if saved.dtype != np.float32 or not np.array_equal(saved, copied):
        sys.exit("rand: saved input differs from what the kernel read")
    if not np.array_equal(copied, again) or np.array_equal(copied, other):
        sys.exit("rand: the seed does not determine the data")
    if os.listdir(os.path.join(d, "saved")) != ["arg19.npy"]:
        sys.exit("rand: --save-inputs wrote %r" % os.listdir(os.path.join(d, "saved")))
    print("rand: ok")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
