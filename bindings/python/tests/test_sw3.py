"""Three-sequence local alignment and SAX from Python (clsw.sw3_score, sw3_align,
sw3_batch, sax), over the C ABI's clsw_sw3* and clsw_sax functions: hand-checked cases
with the seed's setting (match 1, mismatch -1, linear gap 1), the same scores on the
native path and on a CPU OpenCL device (PoCL) when there is one, batches ranked, SAX
words worked out by hand, and clear errors.
"""

import itertools

import numpy as np
import pytest

import clsw
from conftest import choices

A, B, C = "TTTTACGTACGGTCCC", "GGACGTACGGTAA", "ACGTACGGTC"


@pytest.fixture(scope="module")
def seed():
    """The seed's setting: match 1, mismatch -1, linear gap 1 (gap_open 0)."""
    return clsw.Scoring.match_mismatch("dna", 1, -1, 0, 1)


@pytest.mark.parametrize("device", choices())
def test_seed_setting_on_a_hand_checked_triple(device, seed):
    with clsw.Engine(device) as e:
        # ACGTACGGT in all three: 9 columns x 3 pairs.
        s = clsw.sw3_score(e, seed, A, B, C)
        assert (s.score, s.end) == (27, (13, 11, 9))
        aln = clsw.sw3_align(e, seed, A, B, C)
    assert (aln.score, aln.start, aln.end) == (27, (5, 3, 1), (13, 11, 9))
    assert (aln.length, aln.identities, aln.gapped_columns) == (9, 9, 0)
    assert aln.rows == ("ACGTACGGT",) * 3


def test_small_hand_cases(engine, seed):
    # One shared letter: 3 pairs x 1.
    assert clsw.sw3_score(engine, seed, "A", "A", "A").score == 3
    # Nothing shared: 0, no end, an empty alignment.
    s = clsw.sw3_score(engine, seed, "A", "C", "G")
    assert (s.score, s.end) == (0, None)
    aln = clsw.sw3_align(engine, seed, "A", "C", "G")
    assert (aln.score, aln.length, aln.rows) == (0, 0, ("", "", ""))
    # A gap in c: AC/AC/A- beats A/A/A: columns (A,A,A) = 3, (C,C,-) = 1 - 2 = -1: stays 3.
    assert clsw.sw3_score(engine, seed, "AC", "AC", "A").score == 3
    # BLOSUM62, linear gap 1: (W,W,-) columns score 11 - 2 = 9; c is left out.
    b62 = clsw.Scoring.builtin("BLOSUM62", 0, 1)
    aln = clsw.sw3_align(engine, b62, "WWW", "WWW", "P")
    assert (aln.score, aln.rows) == (27, ("WWW", "WWW", "---"))
    assert aln.start[2] == aln.end[2] + 1
    # Empty sequences are allowed.
    assert clsw.sw3_score(engine, seed, "", "", "").score == 0


def test_score_is_the_same_under_permutations(engine, seed):
    scores = {clsw.sw3_score(engine, seed, *p).score for p in itertools.permutations([A, B, C])}
    assert scores == {27}


@pytest.mark.parametrize("device", choices())
def test_batch_is_ranked_and_equals_single_scores(device, seed):
    seqs = [A, B, C, "CCCC", "GGTAAC"]
    with clsw.Engine(device) as e:
        rows = clsw.sw3_batch(e, seed, seqs)
    assert len(rows) == 10
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)
    assert (rows[0].a, rows[0].b, rows[0].c, rows[0].score, rows[0].end) == (0, 1, 2, 27, (13, 11, 9))
    with clsw.Engine("reference") as ref:
        for r in rows:
            s = clsw.sw3_score(ref, seed, seqs[r.a], seqs[r.b], seqs[r.c])
            assert (s.score, s.end) == (r.score, r.end)
        chosen = clsw.sw3_batch(ref, seed, seqs, triples=[(2, 1, 0), (3, 3, 3)])
    assert [(r.a, r.b, r.c) for r in chosen] == [(2, 1, 0), (3, 3, 3)]
    assert chosen[0].score == 27 and chosen[1].score == 12


def test_sax_hand_computed_words():
    x = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]
    assert clsw.sax(x, 3, 3, letters=True) == "abc"
    assert clsw.sax(x, 3, 4, letters=True) == "acd"
    w = clsw.sax(x, 6, 5)
    assert w.dtype == np.uint8 and list(w) == [0, 0, 1, 3, 4, 4]
    # A constant series: the middle symbol throughout.
    assert clsw.sax([5.0] * 8, 4, 5, letters=True) == "cccc"


def test_sax_words_align_as_codes(engine):
    t = np.linspace(0, 4 * np.pi, 64)
    words = [clsw.sax(np.sin(t + phase), 16, 8) for phase in (0.0, 0.1, 0.2)]
    sc = clsw.Scoring.match_mismatch("protein", 1, -1, 0, 1)
    s = clsw.sw3_score(engine, sc, *words, codes=True)
    aln = clsw.sw3_align(engine, sc, *words, codes=True)
    assert s.score == aln.score > 0
    assert all(set(r) <= set("abcdefgh-") for r in aln.rows)
    rows = clsw.sw3_batch(engine, sc, words + [clsw.sax(np.cos(3 * t), 16, 8)], codes=True)
    assert rows[0].score == max(r.score for r in rows) and len(rows) == 4


def test_errors_have_statuses_and_messages(engine, seed):
    with pytest.raises(clsw.ClswError) as e:
        clsw.sw3_score(engine, seed, "ACGT", "AC1T", "A")
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "position 3" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.sw3_score(engine, seed, bytes([0, 9]), b"\x00", b"\x00", codes=True)
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "code 9" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.sw3_batch(engine, seed, ["A", "C"])
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "at least 3" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.sw3_batch(engine, seed, ["A", "C", "G"], triples=[(0, 1, 5)])
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "out of range" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.sax([1.0, float("nan"), 2.0], 2, 4)
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "position 2" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.sax([1.0, 2.0], 2, 21)
    assert "between 3 and 20" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.sax([], 2, 4)
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT"
    closed = clsw.Scoring.match_mismatch("dna", 1, -1, 0, 1)
    closed.close()
    with pytest.raises(clsw.ClswError) as e:
        clsw.sw3_score(engine, closed, "A", "A", "A")
    assert e.value.status_name == "CLSW_ERR_NULL"
