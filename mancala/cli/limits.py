"""Argument types for the search limits the commands share (--depth, --time, --hash-mb)."""
from __future__ import annotations

import argparse
import math

import mancala


def depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= mancala.MAX_DEPTH:
        raise argparse.ArgumentTypeError(
            f"depth is a whole number from 1 to {mancala.MAX_DEPTH}, not {text!r}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def seconds(text: str) -> float:
    value = _number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"time is a positive number of seconds, not {text!r}")
    return value


def megabytes(text: str) -> float:
    value = _number(text)
    if not (math.isfinite(value) and 0 <= value <= 1 << 20):
        raise argparse.ArgumentTypeError(f"hash size is a number of megabytes >= 0, not {text!r}")
    return value
