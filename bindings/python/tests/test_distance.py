"""All-pairs distance matrices from Python (clsw.distances, clsw.distance_matrix), over the
C ABI's clsw_distance* functions: snp-dists semantics on the hand-made alignment
(tests/data/distance/hand.fa, answers worked out by hand in tests/distance.rs), PLINK
1.9's own .mibs/.mdist output, in-memory inputs equal to file inputs, the same counts on
the native path and on a CPU OpenCL device (PoCL) when there is one, and clear errors.
"""

import os
from pathlib import Path

import numpy as np
import pytest

import clsw
from conftest import choices

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(os.environ.get("CLSW_TEST_DATA", ROOT / "tests" / "data")) / "distance"
HAND = DATA / "hand.fa"
HAND_SEQS = ["ACGTACGTACGT", "ACGTACGTAAGT", "ACG-NCGTRCGT", "acgtacgttcgA", "AC-TAC?TAC-T"]

# Upper triangles (1,2) (1,3) (1,4) (1,5) (2,3) (2,4) (2,5) (3,4) (3,5) (4,5), as in
# tests/distance.rs: default, gaps counted, N counted, both.
HAND_ANSWERS = {
    (False, False): [1, 0, 2, 0, 1, 3, 1, 1, 0, 2],
    (True, False): [1, 1, 2, 2, 2, 3, 3, 2, 3, 4],
    (False, True): [1, 2, 2, 1, 3, 3, 2, 3, 3, 3],
    (True, True): [1, 3, 2, 3, 4, 3, 4, 4, 6, 5],
}


def square(tri, n=5):
    m = np.zeros((n, n), dtype=np.uint32)
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            m[i, j] = m[j, i] = tri[k]
            k += 1
    return m


@pytest.mark.parametrize("device", choices())
@pytest.mark.parametrize("gaps,n", list(HAND_ANSWERS))
def test_hand_made_alignment_gives_the_hand_computed_answers(device, gaps, n):
    want = square(HAND_ANSWERS[(gaps, n)])
    with clsw.Engine(device) as e:
        variants = ["bitplane", "charpacked", "cpu"] if device != "reference" else ["bitplane", "cpu"]
        for variant in variants:
            m = clsw.distance_matrix(e, fasta=HAND, count_gaps=gaps, count_n=n, variant=variant)
            assert m.dtype == np.uint32 and m.shape == (5, 5)
            np.testing.assert_array_equal(m, want, err_msg=f"{device} {variant} gaps={gaps} n={n}")
            # The same sequences from memory.
            m2 = clsw.distance_matrix(e, HAND_SEQS, count_gaps=gaps, count_n=n, variant=variant)
            np.testing.assert_array_equal(m2, want)


def test_compared_counts_names_and_constant_sites(engine):
    d = clsw.distances(engine, fasta=HAND, compared=True)
    assert d.names == ["s1", "s2", "s3", "s4", "s5"] and d.families == d.names
    assert (d.sites, d.considered_sites) == (12, 12)
    np.testing.assert_array_equal(d.compared, square([12, 9, 12, 9, 9, 12, 9, 9, 6, 9]))
    m, c = clsw.distance_matrix(engine, fasta=HAND, compared=True, ignore_constant=True)
    np.testing.assert_array_equal(m, square(HAND_ANSWERS[(False, False)]))
    np.testing.assert_array_equal(c, square([3, 2, 3, 3, 2, 3, 3, 2, 2, 3]))
    d = clsw.distances(engine, fasta=HAND, ignore_constant=True)
    assert d.considered_sites == 3 and d.compared is None
    # In-memory inputs have no names.
    assert clsw.distances(engine, HAND_SEQS).names is None


def read_square(path):
    return np.array([[float(v) for v in line.split("\t")] for line in Path(path).read_text().splitlines()])


@pytest.mark.parametrize("device", choices())
def test_genotypes_equal_plink_1_9(device):
    with clsw.Engine(device) as e:
        for prefix, golden in [("a", "a_flat"), ("b", "b")]:
            ibs = clsw.distances(e, bfile=DATA / prefix, metric="ibs")
            np.testing.assert_allclose(ibs.values, read_square(DATA / f"{golden}.mibs"), atol=5e-7)
            dist = clsw.distances(e, bfile=DATA / prefix, metric="1-ibs")
            np.testing.assert_allclose(dist.values, read_square(DATA / f"{golden}.mdist"), atol=5e-7)
            ids = [line.split("\t") for line in (DATA / f"{golden}.mibs.id").read_text().splitlines()]
            assert ibs.families == [f for f, _ in ids] and ibs.names == [i for _, i in ids]
            assert ibs.compared is not None and ibs.compared.shape == ibs.matrix.shape


def test_table_and_matrix_inputs_equal_the_bed(engine):
    bed = clsw.distances(engine, bfile=DATA / "a", compared=True, metric="allele-ct")
    table = clsw.distances(engine, genotype_table=DATA / "a.tsv", compared=True, metric="allele-ct")
    np.testing.assert_array_equal(bed.matrix, table.matrix)
    np.testing.assert_array_equal(bed.compared, table.compared)
    np.testing.assert_array_equal(bed.values, table.values)
    assert table.names == bed.names
    rows = [line.split("\t")[1:] for line in (DATA / "a.tsv").read_text().splitlines()[1:]]
    g = np.array([[-1 if v == "NA" else int(v) for v in r] for r in rows], dtype=np.int8)
    m, c = clsw.distance_matrix(engine, genotypes=g, compared=True)
    np.testing.assert_array_equal(m, bed.matrix)
    np.testing.assert_array_equal(c, bed.compared)
    # A direct count on a tiny matrix: differing genotypes, missing skipped.
    tiny = np.array([[0, 1, 2, -1], [0, 2, 2, 1], [2, 1, -1, 1]])
    m, c = clsw.distance_matrix(engine, genotypes=tiny, compared=True)
    np.testing.assert_array_equal(m, [[0, 1, 1], [1, 0, 2], [1, 2, 0]])
    np.testing.assert_array_equal(c, [[0, 3, 2], [3, 0, 3], [2, 3, 0]])


def test_errors_have_statuses_and_messages(engine, tmp_path):
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, ["ACGT", "ACG"])
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT"
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, ["ACGT", "AC1T"])
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "site 3" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, [])
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT"
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, fasta=tmp_path / "missing.fa")
    assert e.value.status_name == "CLSW_ERR_IO"
    ragged = tmp_path / "ragged.fa"
    ragged.write_text(">a\nACGT\n>b\nACG\n")
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, fasta=ragged)
    assert e.value.status_name == "CLSW_ERR_PARSE" and "'b' has 3 sites" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, bfile=DATA / "a", count_gaps=True)
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "alignments only" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(engine, genotypes=np.zeros((3, 0), dtype=np.int8))
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT"
    with pytest.raises(ValueError):
        clsw.distance_matrix(engine, HAND_SEQS, fasta=HAND)
    with pytest.raises(ValueError):
        clsw.distance_matrix(engine, HAND_SEQS, metric="euclid")
    closed = clsw.Engine("reference")
    closed.close()
    with pytest.raises(clsw.ClswError) as e:
        clsw.distance_matrix(closed, HAND_SEQS)
    assert e.value.status_name == "CLSW_ERR_NULL"
