"""A small valid project: two terms, one lesson, one code file. Tests mutate copies of it."""

from __future__ import annotations

TERM_A = """---
title: What is tiling in CUDA?
definition: Tiling stages a piece of an array in shared memory.
related: [bank-conflict]
lessons:
  - lesson: day01-intro
    why: it is introduced there.
sources:
  - title: A guide
    url: https://example.org/guide
diagram:
  name: tile-lifecycle
  alt: Rows go in, a barrier, rows come out.
code:
  - file: code/day01-intro/k.cu
    region: tiled
---

Tiles pay in two ways.

## Details

More words.
"""

TERM_B = """---
title: What is a bank conflict in CUDA?
definition: A bank conflict serialises shared-memory accesses.
---

Banks.
"""

LESSON = """---
day: 1
title: Introduction
summary: The first lesson.
code: code/day01-intro
introduces: [tiling]
---

Read about [tiling](../terms/tiling.md) and [bank conflicts](../terms/bank-conflict.md).
"""

CODE = """// a kernel
// --8<-- [start:tiled]
__global__ void tiled(float* out) {
    out[threadIdx.x] = 1.0f;
}
// --8<-- [end:tiled]
"""


def project() -> dict[str, str]:
    return {
        "content/index.md": "# Home\n\nSee the [glossary](terms/index.md).\n",
        "content/terms/tiling.md": TERM_A,
        "content/terms/bank-conflict.md": TERM_B,
        "content/lessons/day01-intro.md": LESSON,
        "code/day01-intro/k.cu": CODE,
    }
