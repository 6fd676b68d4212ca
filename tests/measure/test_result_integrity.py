"""A result is one row per kernel and size, and it is fresh only while every file that was compiled is
unchanged: the source, its spec and each file the source includes with quotes. Messages verbatim."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest

from measure.cli import main
from measure.experiment.includes import included_files
from measure.experiment.nodes import load_nodes
from measure.store import audit
from measure.store import results as R
from measure.testing import synthetic as T

REPO = Path(__file__).resolve().parents[2]
DAY13 = "measure/results/h200-1/day13-transpose.json"
RERUN13 = "re-run `gloss measure run day13-transpose --node h200-1`"
TAMPER13 = f"{RERUN13}; result files are written only by the runner"


# --- one row per kernel and size ----------------------------------------------------------------------


@pytest.fixture
def day13(tmp_path: Path) -> Path:
    """The committed day-13 result with its spec, source and node registry, in a fresh folder."""
    shutil.copytree(REPO / "code" / "day13-shared-memory", tmp_path / "code" / "day13-shared-memory")
    (tmp_path / DAY13).parent.mkdir(parents=True)
    shutil.copy(REPO / DAY13, tmp_path / DAY13)
    # The registry with h200-1 alone: the other nodes' results are not copied here.
    registry = (REPO / "measure" / "nodes.yaml").read_text(encoding="utf-8")
    (tmp_path / "measure" / "nodes.yaml").write_text(registry[: registry.index("\n  h100-1:") + 1], encoding="utf-8")
    return tmp_path


def rewrite(root: Path, change: object) -> None:
    """Edit the result and give it a digest that matches the edit, as a careful forger would."""
    result, problems = R.read_result(root / DAY13, DAY13, "day13-transpose", "h200-1")
    assert result is not None, problems
    R.write_result(root / DAY13, change(result))  # type: ignore[operator]


def verify(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(["--root", str(root), "verify"])
    return code, [line for line in capsys.readouterr().out.splitlines() if not line.startswith("note:")]


def test_the_copied_result_is_fresh(day13: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert R.load_all(day13).get("day13-transpose", "h200-1").state == "fresh"
    assert verify(day13, capsys) == (0, ["1 of 1 results fresh"])


def again(row: R.Row, **changes: object) -> R.Row:
    return dataclasses.replace(row, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "first", "second", "kernel", "size"),
    [
        # the same row twice, at the end
        (lambda r: dataclasses.replace(r, rows=[*r.rows, r.rows[1]]), 1, 10, "naive", "2003x3001"),
        # a second 'naive' at 8192x8192 with other numbers, right after the first
        (lambda r: dataclasses.replace(r, rows=[*r.rows[:7], again(r.rows[1], size="8192x8192",
                                                                    dims=r.rows[6].dims), *r.rows[7:]]),
         6, 7, "naive", "8192x8192"),
        # the size label written another way
        (lambda r: dataclasses.replace(r, rows=[*r.rows, again(r.rows[6], size=" 8192X8192")]),
         6, 10, "naive", " 8192X8192"),
        # the same dims under a new size label
        (lambda r: dataclasses.replace(r, rows=[*r.rows, again(r.rows[6], size="8k")]), 6, 10, "naive", "8k"),
        # another id, but the label a page asks for ('tile[32][33]') is taken
        (lambda r: dataclasses.replace(r, rows=[*r.rows, again(r.rows[8], kernel="padded-2")]),
         8, 10, "padded-2", "8192x8192"),
        # a row whose id is another row's label
        (lambda r: dataclasses.replace(r, rows=[*r.rows, again(r.rows[8], kernel="tile[32][32]", label="x")]),
         7, 10, "tile[32][32]", "8192x8192"),
    ],
    ids=["same-row", "other-numbers", "label-spelling", "relabelled-size", "label-taken", "id-is-a-label"],
)
def test_a_duplicated_row_with_a_valid_digest_is_tampered(
    day13: Path, capsys: pytest.CaptureFixture[str], change: object, first: int, second: int, kernel: str,
    size: str,
) -> None:
    rewrite(day13, change)
    e = R.load_all(day13).get("day13-transpose", "h200-1")
    message = (
        f"{DAY13}:1: tampered: rows[{first}] and rows[{second}] are both kernel '{kernel}' at {size} "
        f"(by id, label, size label or dims; a run writes each kernel once per size); {TAMPER13}"
    )
    assert (e.state, [str(p) for p in e.problems]) == ("tampered", [message])
    # the build's list (site_plugins.measured asks audit) and verify say the same
    assert message in [str(p) for p in audit.problems(R.load_all(day13), load_nodes(day13)[0])]
    assert verify(day13, capsys) == (1, [message, "0 of 1 results fresh; 1 problem(s)"])


def test_a_duplicated_ceiling_row_is_tampered_too(day13: Path) -> None:
    rewrite(day13, lambda r: dataclasses.replace(r, ceilings=[*r.ceilings, r.ceilings[0]]))
    e = R.load_all(day13).get("day13-transpose", "h200-1")
    c = e.result.ceilings[0]  # type: ignore[union-attr]
    n = len(e.result.ceilings) - 1  # type: ignore[union-attr]
    assert [str(p) for p in e.problems] == [
        f"{DAY13}:1: tampered: ceilings[0] and ceilings[{n}] are both kernel '{c.kernel}' at {c.size} "
        f"(by id, label, size label or dims; a run writes each kernel once per size); {TAMPER13}"
    ]


def test_a_duplicated_build_is_tampered_too(day13: Path) -> None:
    """A page reads a row's registers from the first build of its function: a second one is a forgery."""
    rewrite(day13, lambda r: dataclasses.replace(r, builds=[*r.builds, dataclasses.replace(r.builds[1], registers=1)]))
    e = R.load_all(day13).get("day13-transpose", "h200-1")
    b = e.result.builds  # type: ignore[union-attr]
    assert [str(p) for p in e.problems] == [
        f"{DAY13}:1: tampered: builds[1] and builds[{len(b) - 1}] are both function '{b[1].function}' "
        f"(a run records each compiled function once); {TAMPER13}"
    ]


def test_distinct_rows_are_not_duplicates(day13: Path) -> None:
    """The same rows in another order are still one row per kernel and size."""
    rewrite(day13, lambda r: dataclasses.replace(r, rows=list(reversed(r.rows))))
    assert R.load_all(day13).get("day13-transpose", "h200-1").state == "fresh"


# --- included files are part of what was measured ------------------------------------------------------

RERUN = "re-run `gloss measure run toy-copy --node test-node`"
REL = "measure/results/test-node/toy-copy.json"
SOURCE = "code/toy/toy.cu"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    T.write_fixture_repo(tmp_path)
    return tmp_path


def with_includes(root: Path) -> None:
    """toy.cu includes tile.cuh, which includes common/guard.h one folder up (still under code/)."""
    (root / "code" / "common").mkdir()
    (root / "code" / "common" / "guard.h").write_text("#define GUARD(i, n) ((i) < (n))\n")
    (root / "code" / "toy" / "tile.cuh").write_text('#pragma once\n#  include "../common/guard.h"\n')
    source = root / SOURCE
    source.write_text('// #include "commented-out.cuh" is not followed\n#include "tile.cuh"\n'
                      "#include <cuda_pipeline.h>\n" + source.read_text())


def test_a_source_without_includes_keeps_its_recorded_form(toy: Path) -> None:
    result = T.make_result(toy)
    path = T.write(toy, result)
    assert result.provenance.source_includes is None and result.provenance.source_sha256 == sha(toy / SOURCE)
    assert '"source_includes"' not in path.read_text()
    # the digest is the one computed before includes were followed: over a provenance without the key
    data = dataclasses.asdict(result)
    del data["digest"], data["provenance"]["source_includes"]
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    old = hashlib.sha256(canonical.encode()).hexdigest()
    assert R.digest_of(result) == old and f'"digest": "{old}"' in path.read_text()
    assert R.load_all(toy).get("toy-copy", "test-node").state == "fresh"


def test_the_committed_results_record_their_includes_and_stay_fresh() -> None:
    """Every committed result is fresh (a spec not yet run is pending) and records exactly the files its
    source includes (none, for every source written before includes existed)."""
    rs = R.load_all(REPO)
    assert {e.state for e in rs.entries} <= {"fresh", "pending"}
    assert "fresh" in {e.state for e in rs.entries}
    for e in rs.entries:
        if e.result is None:
            continue
        assert e.declared is not None
        found, problems = included_files(REPO, e.declared.source_path)
        assert problems == []
        assert e.result.provenance.source_includes == (found or None), e.path


def test_included_files_are_followed_recursively(toy: Path) -> None:
    with_includes(toy)
    found, problems = included_files(toy, SOURCE)
    assert problems == []
    assert found == {"code/toy/tile.cuh": sha(toy / "code/toy/tile.cuh"),
                     "code/common/guard.h": sha(toy / "code/common/guard.h")}


@pytest.mark.parametrize("header", ["code/toy/tile.cuh", "code/common/guard.h"])
def test_a_changed_header_makes_the_result_stale(toy: Path, header: str) -> None:
    with_includes(toy)
    path = T.write(toy, T.make_result(toy))
    assert '"source_includes"' in path.read_text()
    assert R.load_all(toy).get("toy-copy", "test-node").state == "fresh"
    before = sha(toy / header)
    with (toy / header).open("a") as f:
        f.write("// one more line\n")
    e = R.load_all(toy).get("toy-copy", "test-node")
    assert (e.state, [str(p) for p in e.problems]) == ("stale", [
        f"{REL}:1: stale: {header} (included by {SOURCE}) changed since it was measured "
        f"(sha256 {before[:12]} recorded, {sha(toy / header)[:12]} now); {RERUN}"
    ])


def test_a_header_that_starts_including_another_makes_the_result_stale(toy: Path) -> None:
    with_includes(toy)
    T.write(toy, T.make_result(toy))
    (toy / "code" / "common" / "extra.h").write_text("#define EXTRA 1\n")
    (toy / "code" / "common" / "guard.h").write_text('#include "extra.h"\n#define GUARD(i, n) ((i) < (n))\n')
    problems = [str(p) for p in R.load_all(toy).get("toy-copy", "test-node").problems]
    assert problems[-1] == (
        f"{REL}:1: stale: code/common/extra.h is included by {SOURCE} but was not when it was measured; {RERUN}"
    )


def test_removing_the_recorded_includes_from_a_result_is_tampering(toy: Path) -> None:
    with_includes(toy)
    result = T.make_result(toy)
    T.write(toy, result)
    path = toy / REL
    path.write_text(path.read_text().replace('"source_includes"', '"source_includes_"'))
    assert R.load_all(toy).get("toy-copy", "test-node").state == "invalid"
    forged = dataclasses.replace(result, provenance=dataclasses.replace(result.provenance, source_includes=None))
    path.write_text(R.dumps(dataclasses.replace(forged, digest=result.digest)))
    assert R.load_all(toy).get("toy-copy", "test-node").state == "tampered"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('#include "../../outside.h"', '#include "../../outside.h" leaves code/; keep headers under code/ '
                                       "(they are measured with the source)"),
        ('#include "/etc/hostname"', '#include "/etc/hostname" leaves code/; keep headers under code/ '
                                     "(they are measured with the source)"),
        ('#include "nothere.cuh"', f'#include "nothere.cuh": no such file next to {SOURCE}; add the file, fix the '
                                   "name, or write a toolkit header in angle brackets (<cuda_fp16.h>)"),
        ("#include HEADER", "'#include HEADER' names no file this check can follow; write the file name in quotes "
                            '("tile.cuh") or angle brackets (<cuda_fp16.h>)'),
    ],
    ids=["leaves-code", "absolute", "missing", "macro"],
)
def test_an_include_that_cannot_be_measured_is_a_spec_problem(
    toy: Path, capsys: pytest.CaptureFixture[str], line: str, problem: str
) -> None:
    (toy / "outside.h").write_text("#define X 1\n")
    source = toy / SOURCE
    source.write_text("// first line\n" + line + "\n" + source.read_text())
    rs = R.load_all(toy)
    assert [str(p) for p in rs.setup_problems] == [f"{SOURCE}:2: {problem}"]
    assert main(["--root", str(toy), "verify"]) == 1
    assert f"{SOURCE}:2: {problem}" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("directive", ['%:include "x.cuh"', '#import "x.cuh"', '  #  embed "x.cuh"'])
def test_other_spellings_of_an_include_are_followed(toy: Path, directive: str) -> None:
    (toy / "code" / "toy" / "x.cuh").write_text("#define X 1\n")
    source = toy / SOURCE
    source.write_text(directive + "\n" + source.read_text())
    assert list(included_files(toy, SOURCE)[0]) == ["code/toy/x.cuh"]


def test_a_header_in_an_include_cycle_is_followed_once(toy: Path) -> None:
    (toy / "code" / "toy" / "a.cuh").write_text('#include "b.cuh"\n')
    (toy / "code" / "toy" / "b.cuh").write_text('#include "a.cuh"\n#include "toy.cu"\n')
    source = toy / SOURCE
    source.write_text('#include "a.cuh"\n' + source.read_text())
    assert list(included_files(toy, SOURCE)[0]) == ["code/toy/a.cuh", "code/toy/b.cuh"]


# --- issue 34: headers nvcc finds through the -I folder (angle brackets, nested) --------------------------


def with_angle_includes(root: Path) -> None:
    """toy.cu includes <tile.h> (in its own folder: the -I folder the runner passes, so nvcc takes it before
    any toolkit header) and <cuda_pipeline.h> (the toolkit's); tile.h includes "sub/deep.h", which includes
    <shared.h> and "tile.h" by names nvcc resolves through the -I folder again."""
    (root / "code" / "toy" / "sub").mkdir()
    (root / "code" / "toy" / "tile.h").write_text('#pragma once\n#include "sub/deep.h"\n')
    (root / "code" / "toy" / "sub" / "deep.h").write_text('#pragma once\n#include <shared.h>\n#include "tile.h"\n')
    (root / "code" / "toy" / "shared.h").write_text("#define SHARED 1\n")
    source = root / SOURCE
    source.write_text("#include <tile.h>\n#include <cuda_pipeline.h>\n" + source.read_text())


def test_headers_found_through_the_include_folder_are_followed(toy: Path) -> None:
    with_angle_includes(toy)
    found, problems = included_files(toy, SOURCE)
    assert problems == []
    assert list(found) == ["code/toy/tile.h", "code/toy/sub/deep.h", "code/toy/shared.h"]


@pytest.mark.parametrize("header", ["code/toy/tile.h", "code/toy/sub/deep.h", "code/toy/shared.h"])
def test_a_changed_angle_bracket_or_nested_header_makes_verify_say_stale(
        toy: Path, header: str, capsys: pytest.CaptureFixture[str]) -> None:
    with_angle_includes(toy)
    T.write(toy, T.make_result(toy))
    assert main(["--root", str(toy), "verify"]) == 0
    before = sha(toy / header)
    with (toy / header).open("a") as f:
        f.write("// one more line\n")
    capsys.readouterr()
    assert main(["--root", str(toy), "verify"]) == 1
    assert (f"{REL}:1: stale: {header} (included by {SOURCE}) changed since it was measured (sha256 {before[:12]} "
            f"recorded, {sha(toy / header)[:12]} now); {RERUN}") in capsys.readouterr().out.splitlines()


# --- issue 34: raw samples no run can have measured -------------------------------------------------------


@pytest.mark.parametrize("bad", [-0.25, 0.0, float("nan"), float("inf")])
@pytest.mark.parametrize("recomputed", [True, False])
def test_an_impossible_sample_is_refused_even_with_summaries_recomputed_to_match(
        toy: Path, bad: float, recomputed: bool, capsys: pytest.CaptureFixture[str]) -> None:
    result = T.make_result(toy)
    row = result.rows[0]
    assert row.samples is not None
    times = [bad, *row.samples.times_ms[1:]]
    forged_row = dataclasses.replace(row, samples=dataclasses.replace(row.samples, times_ms=times))
    if recomputed:  # a careful forger: every summary and figure recomputed from the forged samples
        with contextlib.suppress(ValueError):  # (the statistics refuse it: the real samples' summaries stay)
            forged_row = R.recompute_row(forged_row, result.provenance, result.settings,
                                         R.copy_ceiling_gbps(list(result.ceilings)))
    T.write(toy, dataclasses.replace(result, rows=[forged_row, *result.rows[1:]]))  # (a fresh digest)
    e = R.load_all(toy).get("toy-copy", "test-node")
    tail = f"{RERUN}; result files are written only by the runner"
    if recomputed and not math.isfinite(bad):  # a summary of NaN (a mean, or the spread around an infinity)
        field = "mean_ms" if bad != bad else "stdev_ms"
        want = f"{REL}:1: invalid: 'rows[0].summary.{field}' must be a number, got NaN; {RERUN}"
        state = "invalid"
    else:
        want = (f"{REL}:1: tampered: row '{row.kernel}' at {row.size} has sample 1 of {bad!r} ms; a CUDA event time "
                f"is a positive, finite number; {tail}")
        state = "tampered"
    assert (e.state, [str(p) for p in e.problems]) == (state, [want])
    assert main(["--root", str(toy), "verify"]) == 1
    assert want in capsys.readouterr().out.splitlines()
