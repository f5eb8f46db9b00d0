"""Tests of the Python bindings, over the same C ABI as C and C++ programs.

Run from the repository (tests/python_bindings.rs does, with CLSW_LIB set to the library
cargo built and CLSW_BIN to the clsw binary):

    CLSW_LIB=target/release/libclsw.so python3 -m pytest bindings/python/tests

Scores are checked against golden scores from ssearch36 and parasail
(tests/data/golden_scores.tsv), search results against the `clsw scan` command.
Searches run on the native CPU path and, when a CPU OpenCL device (PoCL) exists, on it.
"""

import math
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import clsw
from conftest import choices

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(os.environ.get("CLSW_TEST_DATA", ROOT / "tests" / "data"))


def read_fasta(path):
    records, name, seq = [], None, []
    for line in Path(path).read_text().splitlines():
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(seq)))
            name, seq = line[1:].split()[0], []
        elif line.strip():
            seq.append(line.strip())
    if name is not None:
        records.append((name, "".join(seq)))
    return records


def test_devices():
    cpu = any(d.kind == "cpu" for d in clsw.devices())
    if os.environ.get("CLSW_REQUIRE_DEVICE") == "1" and not cpu:
        pytest.fail("CLSW_REQUIRE_DEVICE=1 but no CPU OpenCL device (install pocl-opencl-icd)")
    for d in clsw.devices():
        assert d.name and d.platform and d.global_mem_bytes > 0 and d.compute_units > 0


@pytest.fixture(scope="module", params=choices())
def engine(request):
    with clsw.Engine(request.param) as e:
        # PoCL runs the GPU kernels at a few hundred MCUPS on a CI machine's two cores:
        # the long checks run there on a part of their data (the Rust tests check every
        # kernel against the reference on it; these check what the bindings pass on).
        e.opencl = request.param != "reference"
        yield e


@pytest.fixture(scope="module")
def uniprot():
    return clsw.Database.fasta(DATA / "uniprot300.fasta", "protein")


@pytest.fixture(scope="module")
def queries():
    return read_fasta(DATA / "queries10.fasta")


@pytest.fixture(scope="module")
def blosum62():
    return clsw.Scoring.builtin("BLOSUM62", 11, 1)


def test_version_matches_cargo_toml():
    for line in (ROOT / "Cargo.toml").read_text().splitlines():
        if line.startswith("version = "):  # [workspace.package], which both packages inherit
            assert clsw.version() == line.split('"')[1]
            break
    else:
        pytest.fail("no version in Cargo.toml")


def test_engine_describes_its_devices(engine):
    assert engine.device_count == 1
    assert engine.describe()


@pytest.fixture(scope="module")
def cli_tabular():
    """`clsw scan` of queries10 against uniprot300 on the native path: BLAST tabular."""
    binary = os.environ.get("CLSW_BIN")
    if not binary:
        pytest.skip("CLSW_BIN (the clsw binary) is not set")
    cli = subprocess.run(
        [binary, "scan", "--query", DATA / "queries10.fasta", "--db", DATA / "uniprot300.fasta", "--quiet"],
        env={**os.environ, "CLSW_DEVICE": "reference"},
        capture_output=True,
        text=True,
        check=True,
    )
    return cli.stdout


def test_search_matches_the_command_line_tool(engine, uniprot, queries, blosum62, cli_tabular):
    searcher = clsw.Searcher(engine, blosum62, uniprot)
    lines = []
    for qid, seq in queries:
        result = searcher.search(seq, query_id=qid)
        assert result.query_length == len(seq) and result.db_sequences == len(uniprot)
        lines += [h.tabular for h in result.hits]
    assert len(lines) > 20
    assert "\n".join(lines) + "\n" == cli_tabular


def test_stats_and_db_size_choose_and_pin_evalues(engine, uniprot, queries, blosum62):
    qid, seq = queries[0]
    # 299 subjects: ssearch36's regression, blended with BLAST's parameters.
    automatic = clsw.Searcher(engine, blosum62, uniprot).search(seq, query_id=qid)
    assert automatic.evalue_source == "regression"
    pinned = clsw.Searcher(engine, blosum62, uniprot, stats="published", db_size=10 * len(uniprot))
    result = pinned.search(seq, query_id=qid)
    assert result.evalue_source == "published" and result.db_sequences == 10 * len(uniprot)
    none = clsw.Searcher(engine, blosum62, uniprot, stats="none").search(seq, query_id=qid)
    assert none.evalue_source == "none" and all(math.isnan(h.evalue) for h in none.hits)
    # ssearch36's regression (no lambda) and the fit to shuffled subjects: the strong
    # first hit stays significant under every source.
    for stats, source in [("fit", "fitted"), ("regression", "regression"), ("shuffle", "shuffled")]:
        other = clsw.Searcher(engine, blosum62, uniprot, stats=stats).search(seq, query_id=qid)
        assert other.evalue_source == source
        assert other.hits[0].evalue < 1e-10 and other.hits[0].evalue <= other.hits[-1].evalue
    with pytest.raises(ValueError):
        clsw.Searcher(engine, blosum62, uniprot, stats="maximum-likelihood")


def test_global_and_glocal_searches(engine, uniprot, queries, blosum62):
    qid, seq = queries[2]
    assert blosum62.mode == "local"
    for mode in ["global", "glocal"]:
        scoring = blosum62.with_mode(mode)
        assert scoring.mode == mode and repr(scoring) == f"Scoring('BLOSUM62', 11, 1, mode={mode!r})"
        assert clsw.Scoring("BLOSUM62", 11, 1, mode=mode).mode == mode
        result = clsw.Searcher(engine, scoring, uniprot, max_hits=500, evalue=1e9).search(seq, query_id=qid)
        assert result.evalue_source == "normal"
        # The hits are the subjects of ggsearch36's length window, the whole query aligned.
        low = int(0.75 * len(seq) + 0.5)
        lengths = [h.subject_length for h in result.hits]
        assert lengths and all(n >= low for n in lengths)
        if mode == "global":
            assert all(n <= int(1.33 * len(seq) - 0.5) for n in lengths)
        high = int(1.33 * len(seq) - 0.5) if mode == "global" else len(seq) * 100
        in_window = sum(1 for k in range(len(uniprot)) if low <= uniprot.length(k) <= high)
        assert result.db_sequences == in_window
        best = result.hits[0]
        assert (best.query_start, best.query_end) == (1, len(seq))
    with pytest.raises(ValueError):
        blosum62.with_mode("semiglobal")
    with pytest.raises(clsw.ClswError):
        clsw.Searcher(engine, blosum62.with_mode("global"), uniprot, stats="regression").search(queries[0][1])


def test_max_hsps_lists_a_subjects_further_alignments(engine, uniprot, queries, blosum62):
    # queries10's fifth record and a subject holding three copies of it (ssearch36
    # lists three alignments there: tests/stats_tools.rs).
    qid, seq = queries[4]
    repeats = read_fasta(DATA / "repeats_subject.fasta")[0][1]
    db = clsw.Database.from_sequences([uniprot.sequence(k) for k in range(len(uniprot))] + [repeats])
    one = clsw.Searcher(engine, blosum62, db, stats="regression").search(seq, query_id=qid)
    more = clsw.Searcher(engine, blosum62, db, stats="regression", max_hsps=5).search(seq, query_id=qid)
    last = len(uniprot)
    assert [h.hsp for h in one.hits if h.subject == last] == [0]
    theirs = [h for h in more.hits if h.subject == last]
    assert [h.hsp for h in theirs] == [0, 1, 2]
    assert theirs[0].score >= theirs[1].score >= theirs[2].score
    ranges = sorted((h.subject_start, h.subject_end) for h in theirs)
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:]))


def golden_rows():
    rows = []
    for line in (DATA / "golden_scores.tsv").read_text().splitlines()[1:]:
        q, s, matrix, gap_open, gap_extend, score, _tool = line.split("\t")
        rows.append((q, s, matrix, int(gap_open), int(gap_extend), int(score)))
    return rows


def test_scores_equal_ssearch36_and_parasail_golden_scores(engine):
    """Every golden row: protein queries10 x golden_subjects, DNA pairs (plus strand);
    on an OpenCL device, the rows of the protein and the DNA defaults."""
    protein = dict(read_fasta(DATA / "queries10.fasta")) | dict(read_fasta(DATA / "golden_subjects.fasta"))
    dna = dict(read_fasta(DATA / "dna_pairs.fasta"))
    settings = {}
    golden = golden_rows()
    if engine.opencl:
        golden = [r for r in golden if r[2:5] in [("BLOSUM62", 11, 1), ("EDNAFULL", 10, 1)]]
    for q, s, matrix, o, e, score in golden:
        settings.setdefault((matrix, o, e), []).append((q, s, score))
    checked = 0
    for (matrix, o, e), rows in settings.items():
        seqs = dna if matrix == "EDNAFULL" else protein
        subjects = sorted({s for _, s, _ in rows})
        alphabet = "dna" if matrix == "EDNAFULL" else "protein"
        db = clsw.Database.from_sequences([seqs[s] for s in subjects], names=subjects, alphabet=alphabet)
        scoring = clsw.Scoring.builtin(matrix, o, e)
        searcher = clsw.Searcher(engine, scoring, db, strands="plus" if alphabet == "dna" else "both")
        column = {s: k for k, s in enumerate(subjects)}
        by_query = {}
        for q, s, score in rows:
            if q not in by_query:
                by_query[q] = searcher.scores(seqs[q])
            assert by_query[q][column[s]] == score, (matrix, o, e, q, s)
            checked += 1
    assert checked == len(golden) > (300 if engine.opencl else 2000)


def test_scores_are_a_numpy_int32_vector_in_database_order(engine, uniprot, queries, blosum62):
    searcher = clsw.Searcher(engine, blosum62, uniprot)
    qid, seq = queries[1]
    scores = searcher.scores(seq)
    assert isinstance(scores, np.ndarray) and scores.dtype == np.int32 and scores.shape == (len(uniprot),)
    best = searcher.search(seq, query_id=qid).hits[0]
    assert scores[best.subject] == best.score == scores.max()
    # One subject against the query alone gives the same score.
    k = int(np.argsort(scores)[len(scores) // 2])
    assert clsw.align_score(blosum62, seq, uniprot.sequence(k)) == scores[k]


def test_alignment_has_traceback_rows_consistent_with_its_fields(blosum62):
    a = clsw.align(blosum62, "HEAGAWGHEE", "PAWHEAE")
    assert a.score == clsw.align_score(blosum62, "HEAGAWGHEE", "PAWHEAE") > 0
    assert len(a.query_row) == len(a.midline) == len(a.subject_row) == a.length
    assert a.query_row.replace("-", "") == "HEAGAWGHEE"[a.query_start - 1 : a.query_end]
    assert a.subject_row.replace("-", "") == "PAWHEAE"[a.subject_start - 1 : a.subject_end]
    assert a.midline.count("|") == a.identities
    assert a.cigar.replace("=", "M").replace("X", "M") != "" and a.cigar_m
    empty = clsw.align(blosum62, "WWWW", "PPPP")
    assert (empty.score, empty.length, empty.cigar, empty.query_start) == (0, 0, "", 0)


def test_search_many_equals_one_by_one(engine, uniprot, queries, blosum62):
    searcher = clsw.Searcher(engine, blosum62, uniprot, max_hits=5, cigar="extended")
    ids = [q for q, _ in queries[:4]]
    many = searcher.search_many([s for _, s in queries[:4]], ids)
    for (qid, seq), r in zip(queries[:4], many):
        one = searcher.search(seq, query_id=qid)
        assert [(h.subject, h.score, h.cigar, h.tabular) for h in r.hits] == [
            (h.subject, h.score, h.cigar, h.tabular) for h in one.hits
        ]
        assert all(h.cigar for h in r.hits)


def test_threads_sharing_one_searcher_get_the_single_thread_results(engine, uniprot, queries, blosum62):
    searcher = clsw.Searcher(engine, blosum62, uniprot, max_hits=10, cigar="extended")

    def run(q):
        r = searcher.search(q[1], query_id=q[0])
        return [(h.subject, h.score, h.evalue, h.cigar) for h in r.hits], searcher.scores(q[1]).tolist()

    work = queries[:3] * 2 if engine.opencl else queries[:5] * 4
    sequential = [run(q) for q in work]
    with ThreadPoolExecutor(max_workers=8) as pool:
        parallel = list(pool.map(run, work))
    assert parallel == sequential


def test_databases_from_sequences_and_prepared_files(tmp_path, engine, blosum62):
    seqs = ["MKTAYIAKQRQISFVKSHFSRQ", "mkvlaagivglllagcsshk", "MSDNGPQNQRNAPRITFGGP"]
    db = clsw.Database.from_sequences(seqs, names=["a first", None, "c"])
    assert len(db) == 3 and db.alphabet == "protein" and db.total_residues == sum(map(len, seqs))
    assert [db.id(k) for k in range(3)] == ["a", "2", "c"]
    assert db.sequence(1) == seqs[1].upper() and db.length(1) == len(seqs[1])
    path = tmp_path / "small.clswdb"
    db.write_prepared(path)
    again = clsw.Database.prepared(path)
    assert [again.sequence(k) for k in range(3)] == [db.sequence(k) for k in range(3)]
    s1 = clsw.Searcher(engine, blosum62, db).scores(seqs[0])
    s2 = clsw.Searcher(engine, blosum62, again).scores(seqs[0])
    assert s1.tolist() == s2.tolist() and s1[0] == s1.max()


def test_open_chooses_the_alphabet_and_notes_as_the_command_line(tmp_path):
    """Database.open follows the library's rule, as `clsw scan` does: the alphabet given,
    else a prepared database's own, else the scoring's, else guessed; with its notes."""
    blosum62 = clsw.Scoring.builtin("BLOSUM62")
    dna = tmp_path / "dna.fa"
    dna.write_text(">d1\nACGTACGTTAGCATCGATCGGATCCATGCA\n>d2\nTTGACCAGTACGATCGGCATGCATGCAACG\n")
    db = clsw.Database.open(dna)
    assert (db.alphabet, db.notes) == ("dna", [])
    warning = f"warning: {dna} looks like DNA but is read as protein, as the matrix is a protein matrix"
    db = clsw.Database.open(dna, scoring=blosum62)
    assert (db.alphabet, db.notes) == ("protein", [warning])
    db = clsw.Database.open(dna, "protein")
    assert (db.alphabet, db.notes) == ("protein", [])
    prepared = tmp_path / "dna.clswdb"
    clsw.Database.open(dna).write_prepared(prepared)
    db = clsw.Database.open(prepared, scoring=blosum62)
    assert (db.alphabet, db.notes) == ("dna", [])
    with pytest.raises(clsw.ClswError) as e:
        clsw.Database.open(prepared, "protein")
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT" and "prepared dna database" in e.value.message
    protein = tmp_path / "protein.fa"
    protein.write_text(">p1\nMKVLAAGIVGLLUAQWERTY\n>empty\n>p2\nHHKLMNPQRSTVWYMKVLAA\n")
    read = f"{protein}: letters read as X: U x1; 1 empty record skipped: 'empty' (line 3)"
    assert clsw.Database.open(protein).notes == [read]
    assert clsw.Database.fasta(protein).notes == [read]
    assert clsw.Database.from_sequences(["MKV"]).notes == []
    binary = os.environ.get("CLSW_BIN")
    if binary:
        query = tmp_path / "q.fa"
        query.write_text(">q\nMKVLAAGIVGLLLAQWERTY\n")
        cli = subprocess.run(
            [binary, "scan", "-q", query, "-d", dna, "--matrix", "BLOSUM62", "--device", "native"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert cli.stderr.splitlines()[:-1] == ["clsw: " + warning]


def test_gap_costs_of_either_sign_are_the_same_gaps():
    """The library's sign rule, as `clsw --gap-open -11 --gap-extend -1` reads them."""
    for gaps in [(-11, -1), (11, -1), (-11, 1), (11, 1)]:
        assert clsw.Scoring.builtin("BLOSUM62", *gaps).gaps == (11, 1)
    assert clsw.Scoring.builtin("BLOSUM62").gaps == (11, 1)


def test_matrix_file_scores_like_the_builtin(engine, uniprot, queries, blosum62):
    from_file = clsw.Scoring.file(DATA / "matrices" / "EBLOSUM62", 11, 1)
    assert from_file.alphabet == "protein" and from_file.gaps == (11, 1) and from_file.name == "EBLOSUM62"
    q = queries[0][1]
    a = clsw.Searcher(engine, blosum62, uniprot).scores(q)
    b = clsw.Searcher(engine, from_file, uniprot).scores(q)
    assert a.tolist() == b.tolist()
    assert clsw.Scoring.builtin("BLOSUM62").gaps == (11, 1)
    assert clsw.Scoring.match_mismatch("dna", 2, -3, 5, 2).name == "+2/-3"


def test_dna_minus_strand_hits(engine):
    pairs = dict(read_fasta(DATA / "dna_pairs.fasta"))
    names = sorted(k for k in pairs if k.endswith("_b"))
    db = clsw.Database.from_sequences([pairs[n] for n in names], names=names, alphabet="dna")
    scoring = clsw.Scoring.builtin("EDNAFULL", 12, 4)
    searcher = clsw.Searcher(engine, scoring, db, cigar="extended")
    query = pairs["dna1_a"]
    complement = {"A": "T", "C": "G", "G": "C", "T": "A"}
    reverse = "".join(complement[c] for c in reversed(query))
    plus = searcher.search(query).hits[0]
    minus = searcher.search(reverse).hits[0]
    assert (minus.subject, minus.score) == (plus.subject, plus.score)
    if plus.strand == "plus":
        assert minus.strand == "minus"
        assert minus.subject_start > minus.subject_end  # BLAST's Plus/Minus convention


def test_errors_carry_status_and_message(engine, uniprot, blosum62, tmp_path):
    searcher = clsw.Searcher(engine, blosum62, uniprot)
    with pytest.raises(clsw.ClswError) as e:
        searcher.search("MKV1L", query_id="bad")
    assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT"
    assert "'1' at position 4" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        searcher.search("")
    assert e.value.status == 2 and "empty" in e.value.message
    with pytest.raises(clsw.ClswError) as e:
        clsw.Database.fasta(tmp_path / "missing.fasta")
    assert e.value.status_name == "CLSW_ERR_IO" and "missing.fasta" in e.value.message
    bad = tmp_path / "bad.fasta"
    bad.write_text(">a\nMKV\n>b\nMK#V\n")
    with pytest.raises(clsw.ClswError) as e:
        clsw.Database.fasta(bad, "protein")
    assert e.value.status_name == "CLSW_ERR_PARSE" and "record 2, 'b'" in e.value.message
    for strands in ("minus", "plus"):
        # The library's rule, with clsw scan --strand's message.
        with pytest.raises(clsw.ClswError) as e:
            clsw.Searcher(engine, blosum62, uniprot, strands=strands)
        assert e.value.status_name == "CLSW_ERR_INVALID_ARGUMENT"
        assert e.value.message == "invalid argument: --strand applies to DNA searches; this is a protein search"
    with pytest.raises(clsw.ClswError) as e:
        clsw.Scoring.builtin("BLOSUM62", 11, 0)
    assert e.value.status == 2
    with pytest.raises(clsw.ClswError) as e:
        clsw.Engine("no-such-device-anywhere")
    assert e.value.status_name == "CLSW_ERR_DEVICE"
    with pytest.raises(ValueError):
        clsw.Searcher(engine, blosum62, uniprot, variant="sideways")
    # A closed handle is NULL to the C API.
    closed = clsw.Scoring.builtin("PAM30")
    closed.close()
    with pytest.raises(clsw.ClswError) as e:
        clsw.align(closed, "MKV", "MKV")
    assert e.value.status_name == "CLSW_ERR_NULL" and "scoring is NULL" in e.value.message


def test_constructors_take_what_a_user_would_pass_and_objects_describe_themselves(engine, blosum62):
    scoring = clsw.Scoring("BLOSUM62", 11, 1)
    assert scoring.name == blosum62.name and scoring.gaps == (11, 1)
    assert repr(scoring) == "Scoring('BLOSUM62', 11, 1)"
    from_file = clsw.Scoring(DATA / "matrices" / "EBLOSUM50", 10, 2)
    assert from_file.gaps == (10, 2) and from_file.alphabet == "protein"
    with pytest.raises(clsw.ClswError):
        clsw.Scoring("NO_SUCH_MATRIX")
    db = clsw.Database(DATA / "uniprot300.fasta")
    assert len(db) == 299 and repr(db) == "<clsw.Database: 299 protein sequences, 169296 residues>"
    assert repr(engine).startswith("<clsw.Engine: ")
    scoring.close()
    assert repr(scoring) == "Scoring(<closed>)"
    assert (Path(clsw.__file__).parent / "py.typed").is_file()


def read_ascii_pssm(path):
    """The query and its rows of 20 scores of PSI-BLAST's ASCII PSSM, columns as the header."""
    columns, query, rows = None, "", []
    for line in open(path):
        words = line.split()
        if columns is None:
            if len(words) >= 20 and all(len(w) == 1 and w.isalpha() for w in words):
                columns = "".join(words[:20])
            continue
        if not words:
            if rows:
                break
            continue
        if not words[0].isdigit():
            break
        query += words[1]
        rows.append([int(w) for w in words[2:22]])
    return query, columns, rows


def test_profile_searches(engine, uniprot, queries, blosum62):
    # PSI-BLAST's profile: each position scores with its own row (one residue against
    # the profile scores the best position's), the search's best hit is its best score,
    # and another query is refused.
    query, columns, rows = read_ascii_pssm(DATA / "pssm" / "queries10_2.pssm")
    profile = blosum62.with_pssm(query, columns, rows)
    for letter in "WCH":
        best = max(r[columns.index(letter)] for r in rows)
        assert clsw.align_score(profile, query, letter) == max(best, 0)
    searcher = clsw.Searcher(engine, profile, uniprot)
    result = searcher.search(query, query_id="queries10_2")
    assert result.hits and result.hits[0].score == searcher.scores(query).max()
    plain = clsw.Searcher(engine, blosum62, uniprot).scores(query)
    assert (searcher.scores(query) != plain).any(), "the profile's scores are not the matrix's"
    with pytest.raises(clsw.ClswError):
        searcher.scores(queries[0][1])
    with pytest.raises(ValueError):
        blosum62.with_pssm(query, columns, rows[1:])
