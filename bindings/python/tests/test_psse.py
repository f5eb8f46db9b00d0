"""Pairwise statistical significance from Python (clsw.psse, clsw.psse_many), over the C
ABI's clsw_psse* functions: the same numbers as the `clsw psse` command, the same on the
native CPU path and on a CPU OpenCL device (PoCL) when there is one, per-pair errors in
many-pair runs, and clear errors for bad options.
"""

import math
import os
import subprocess
from pathlib import Path

import pytest

import clsw
from conftest import choices

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(os.environ.get("CLSW_TEST_DATA", ROOT / "tests" / "data"))


def records(path):
    out, name, seq = {}, None, []
    for line in Path(path).read_text().splitlines():
        if line.startswith(">"):
            if name is not None:
                out[name] = "".join(seq)
            name, seq = line[1:].split()[0], []
        elif line.strip():
            seq.append(line.strip())
    if name is not None:
        out[name] = "".join(seq)
    return out


QUERIES = records(DATA / "queries10.fasta")
SUBJECTS = records(DATA / "golden_subjects.fasta")
Q = QUERIES["sp|Q3ZZU0|ATPD_DEHMC"]
UNRELATED = SUBJECTS["tr|V4P9A4|V4P9A4_EUTSA"]
HOMOLOG = SUBJECTS["sp|Q3Z8Z5|ATPD_DEHM1"]


@pytest.fixture(scope="module")
def blosum50():
    return clsw.Scoring.builtin("BLOSUM50", 10, 2)


def test_one_pair_matches_the_command_line(blosum50, tmp_path):
    with clsw.Engine("reference") as e:
        r = clsw.psse(e, blosum50, Q, UNRELATED, shuffles=300)
    assert r.error is None and r.score == 54 and r.shuffles == 300
    assert 0.14 < r.lambda_ < 0.24 and 0 < r.p_value < 1 and r.e_value > 0
    assert math.isclose(r.k * r.query_length * r.subject_length, math.exp(r.lambda_ * r.mu), rel_tol=1e-9)
    exe = os.environ.get("CLSW_BIN")
    if not exe:
        pytest.skip("CLSW_BIN is not set (tests/python_bindings.rs sets it)")
    (tmp_path / "q.fa").write_text(f">q\n{Q}\n")
    (tmp_path / "s.fa").write_text(f">s\n{UNRELATED}\n")
    out = subprocess.run(
        [exe, "psse", "--query", tmp_path / "q.fa", "--subject", tmp_path / "s.fa", "--shuffles", "300", "--format", "tsv"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "CLSW_DEVICE": "reference"},
    ).stdout
    fields = out.splitlines()[1].split("\t")
    assert int(fields[2]) == r.score
    assert fields[4] == f"{r.lambda_:.5f}" and math.isclose(float(fields[6]), r.p_value, rel_tol=1e-4)


@pytest.mark.parametrize("device", choices())
def test_many_pairs_on_every_device_give_the_same_numbers(blosum50, device):
    queries = [Q, QUERIES["tr|M9HPM3|M9HPM3_ECOLX"]]
    subjects = [UNRELATED, HOMOLOG, "W"]
    with clsw.Engine("reference") as ref, clsw.Engine(device) as e:
        want = clsw.psse_many(ref, blosum50, queries, subjects, shuffles=100, keep_scores=True)
        for variant in ("team", "inter", "fast"):
            got = clsw.psse_many(e, blosum50, queries, subjects, shuffles=100, keep_scores=True, variant=variant)
            assert len(got) == 6
            for a, b in zip(got, want):
                assert (a.query, a.subject, a.score, a.mu, a.lambda_, a.p_value) == (
                    b.query, b.subject, b.score, b.mu, b.lambda_, b.p_value
                )
                assert (a.scores is None) == (b.scores is None)
                if a.scores is not None:
                    assert (a.scores == b.scores).all() and len(a.scores) == 100
    assert [(r.query, r.subject) for r in want] == [(q, s) for q in range(2) for s in range(3)]
    # The homolog is significant; the one-residue subject cannot be fitted.
    assert want[1].p_value < 1e-30
    assert want[2].error and "all equal" in want[2].error and want[2].lambda_ is None and want[2].scores is None
    # A pair's result does not depend on the other queries of the run.
    with clsw.Engine("reference") as ref:
        alone = clsw.psse_many(ref, blosum50, queries[1:], subjects, shuffles=100)
    assert (alone[0].score, alone[0].lambda_) == (want[3].score, want[3].lambda_)


def test_censored_and_windowed_options(blosum50):
    with clsw.Engine("reference") as e:
        full = clsw.psse(e, blosum50, Q, UNRELATED, shuffles=500)
        cens = clsw.psse(e, blosum50, Q, UNRELATED, shuffles=500, censor_below=0.5)
        win = clsw.psse(e, blosum50, Q, UNRELATED, shuffles=500, window=10)
        other = clsw.psse(e, blosum50, Q, UNRELATED, shuffles=500, seed=7)
    assert full.censored == 0 and full.cutoff is None
    assert 150 < cens.censored <= 250 and cens.cutoff is not None
    assert win.score == full.score and win.lambda_ != full.lambda_
    assert other.lambda_ != full.lambda_


def test_bad_input_raises_with_the_reason(blosum50):
    with clsw.Engine("reference") as e:
        with pytest.raises(clsw.ClswError) as err:
            clsw.psse(e, blosum50, Q, UNRELATED, shuffles=1)
        assert err.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "at least 2 shuffles" in err.value.message
        with pytest.raises(clsw.ClswError) as err:
            clsw.psse(e, blosum50, Q, "W")
        assert "all equal" in err.value.message
        with pytest.raises(clsw.ClswError) as err:
            clsw.psse(e, blosum50, Q, UNRELATED, censor_below=1.5)
        assert "censor_below" in err.value.message
        with pytest.raises(clsw.ClswError) as err:
            clsw.psse(e, blosum50, "MK1", UNRELATED)
        assert "position 3" in err.value.message
        with pytest.raises(clsw.ClswError):
            clsw.psse_many(e, blosum50, [], [UNRELATED])
        with pytest.raises(ValueError):
            clsw.psse(e, blosum50, Q, UNRELATED, variant="intra")
