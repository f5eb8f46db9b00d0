"""The package's type hints as a user's type checker reads them (issue 44): code written
the way a user writes it, every result kept in a variable annotated with the type the
hints promise. `.ci/run` runs `mypy --strict` on this file against the installed package
(found through its py.typed), which checks that the hints resolve and say what this code
assumes; pytest runs it, which checks that the values are what the hints say.

This file imports nothing from conftest.py, so that mypy checks it alone.
"""

import os
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np
from numpy.typing import NDArray

import clsw

DATA = Path(os.environ.get("CLSW_TEST_DATA", Path(__file__).resolve().parents[3] / "tests" / "data"))


def test_a_users_code_gets_the_types_the_hints_promise(tmp_path: Path) -> None:
    version: str = clsw.version()
    library: str = clsw.library_path()
    devices: List[clsw.DeviceInfo] = clsw.devices()
    assert version.count(".") == 2 and library and all(d.kind in ("gpu", "cpu", "other") for d in devices)

    # The native path: the same answers as a device, without compiling kernels.
    with clsw.Engine("reference") as engine:
        count: int = engine.device_count
        assert count == 1 and repr(engine).startswith("<clsw.Engine: ")

        scoring = clsw.Scoring("BLOSUM62", 11, 1)
        gaps: Tuple[int, int] = scoring.gaps
        assert gaps == (11, 1) and repr(scoring) == "Scoring('BLOSUM62', 11, 1)"

        queries = clsw.Database(DATA / "queries10.fasta")
        db = clsw.Database(DATA / "uniprot300.fasta", "protein")
        notes: List[str] = db.notes
        query: str = queries.sequence(0)
        assert len(query) == queries.length(0) and notes == [] and len(db) == 299

        searcher = clsw.Searcher(engine, scoring, db, max_hits=5)
        result: clsw.SearchResult = searcher.search(query, query_id=queries.id(0))
        best: clsw.Hit = result.hits[0]
        tabular: Optional[str] = best.tabular
        scores: NDArray[np.int32] = searcher.scores(query)
        assert tabular is not None and tabular.startswith(queries.id(0))
        assert scores.dtype == np.int32 and int(scores.max()) == best.score
        many: List[clsw.SearchResult] = searcher.search_many([query, queries.sequence(1)])
        assert [r.hits[0].score for r in many[:1]] == [best.score]

        aln: clsw.Alignment = clsw.align(scoring, "HEAGAWGHEE", "PAWHEAE")
        score: int = clsw.align_score(scoring, b"HEAGAWGHEE", "PAWHEAE")
        assert aln.score == score > 0 and len(aln.query_row) == aln.length

        subject = db.sequence(int(np.argsort(scores)[len(scores) // 2]))
        pair: clsw.PsseResult = clsw.psse(engine, scoring, query, subject, shuffles=100, seed=1)
        p_value: Optional[float] = pair.p_value
        assert p_value is not None and 0 <= p_value <= 1
        pairs: List[clsw.PsseResult] = clsw.psse_many(engine, scoring, [query], [subject], shuffles=100, keep_scores=True)
        shuffled: Optional[NDArray[np.int32]] = pairs[0].scores
        assert shuffled is not None and shuffled.dtype == np.int32 and shuffled.shape == (100,)

        aligned = ["ACGTACGT", "ACGTACGA", "TCGTACGA"]
        d: clsw.Distances = clsw.distances(engine, aligned)
        names: Optional[List[str]] = d.names
        matrix: NDArray[np.uint32] = clsw.distance_matrix(engine, aligned)
        differences, compared = clsw.distance_matrix(engine, aligned, compared=True)
        sites: NDArray[np.uint32] = compared
        genotypes: NDArray[np.uint32] = clsw.distance_matrix(engine, genotypes=np.array([[0, 1, 2], [2, 1, 0]]))
        assert names is None and matrix.tolist() == d.matrix.tolist() == differences.tolist()
        assert matrix[0, 2] == 2 and sites[0, 1] == 8 and genotypes.shape == (2, 2)

        dna = clsw.Scoring.match_mismatch("dna", 1, -1, 0, 1)
        a, b, c = "TTTTACGTACGGTCCC", "GGACGTACGGTAA", "ACGTACGGTC"
        s3: clsw.Sw3Score = clsw.sw3_score(engine, dna, a, b, c)
        end: Optional[Tuple[int, int, int]] = s3.end
        a3: clsw.Sw3Alignment = clsw.sw3_align(engine, dna, a, b, c)
        rows: Tuple[str, str, str] = a3.rows
        batch: List[clsw.Sw3Row] = clsw.sw3_batch(engine, dna, [a, b, c, "ACGT"], triples=[(0, 1, 2)])
        assert end == a3.end == (13, 11, 9) and rows == ("ACGTACGGT",) * 3 and batch[0].score == s3.score

        t = np.linspace(0, 4 * np.pi, 64)
        words: List[NDArray[np.uint8]] = [clsw.sax(np.sin(t + phase), 16, 8) for phase in (0.0, 0.1, 0.2)]
        letters: str = clsw.sax(np.sin(t), 16, 8, letters=True)
        codes = clsw.Scoring.match_mismatch("protein", 1, -1, 0, 1)
        by_codes: clsw.Sw3Score = clsw.sw3_score(engine, codes, *words, codes=True)
        assert len(letters) == 16 and by_codes.score > 0

    small = clsw.Database.from_sequences(["MKV", b"WWW"], names=["first", None])
    small.write_prepared(tmp_path / "small.clswdb")
    again: clsw.Database = clsw.Database.prepared(tmp_path / "small.clswdb")
    assert again.id(0) == "first" and again.sequence(1) == "WWW"

    try:
        clsw.Scoring("NO_SUCH_MATRIX")
    except clsw.ClswError as e:
        status: int = e.status
        status_name: str = e.status_name
        assert status > 0 and status_name.startswith("CLSW_ERR_") and e.message
    else:
        raise AssertionError("an unknown matrix was accepted")
