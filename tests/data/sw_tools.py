"""Small helpers shared by the scripts in tests/data (FASTA I/O and thin
wrappers around ssearch36 and parasail_aligner).  Python 3.8+, stdlib only."""
import gzip
import os
import subprocess
import tempfile


def read_fasta(path):
    """Return [(header_line_without_'>', sequence)], header kept verbatim
    (including trailing spaces), sequence lines joined."""
    opener = gzip.open if path.endswith(".gz") else open
    recs = []
    head = None
    seq = []
    with opener(path, "rt") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith(">"):
                if head is not None:
                    recs.append((head, "".join(seq)))
                head = line[1:]
                seq = []
            elif line.strip():
                seq.append(line.strip())
    if head is not None:
        recs.append((head, "".join(seq)))
    return recs


def write_fasta(path, recs, width=0):
    """recs: [(header_without_'>', seq)]; width 0 = one line per sequence."""
    with open(path, "w") as f:
        for h, s in recs:
            f.write(">" + h + "\n")
            if width:
                for i in range(0, len(s), width):
                    f.write(s[i:i + width] + "\n")
            else:
                f.write(s + "\n")


def seq_id(header):
    """First whitespace-delimited word of a header (what ssearch36 reports)."""
    return header.split()[0]


def ssearch(exe, query_file, lib_file, args, nlib):
    """Run ssearch36 with -m 10 and return [(query_id, subject_id, sw_score)].

    args: list of extra options (matrix, gaps, -p/-n, -3, -r ...).
    Statistics and thresholds are switched off so every library sequence is
    reported for every query: -z -1 (no statistics), -E 1e6, -b =N, -d N.
    """
    n = str(nlib)
    cmd = [exe, "-q", "-z", "-1", "-E", "1e6", "-b", "=" + n, "-d", n, "-m", "10"] + list(args) \
        + [query_file, lib_file]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    res = []
    q = None
    s = None
    for line in out.splitlines():
        if line.startswith(">>>") and " vs " in line:
            # ">>>QUERYID, 123 aa vs LIB library"
            q = line[3:].split(",")[0].split()[0]
        elif line.startswith(">>") and not line.startswith(">>>"):
            s = line[2:].split()[0]
        elif line.startswith("; sw_score:") and s is not None:
            res.append((q, s, int(line.split(":")[1])))
            s = None
    return res, cmd


def parasail(exe, db_file, query_file, args, func="sw_scan_32"):
    """Run parasail_aligner (all queries x all db sequences, suffix-array
    filter off with -x) and return [(query_index, db_index, score)], 0-based
    indices in file order.  parasail_aligner refuses -q when stdin is not a
    terminal, so the queries are fed on stdin instead."""
    tmp = tempfile.mkdtemp(prefix="parasail")
    out = os.path.join(tmp, "out.csv")
    cmd = [exe, "-x", "-a", func, "-f", db_file, "-g", out] + list(args)
    with open(query_file) as qf:
        subprocess.run(cmd, stdin=qf, capture_output=True, text=True, check=True)
    res = []
    with open(out) as f:
        for line in f:
            p = line.strip().split(",")
            res.append((int(p[0]), int(p[1]), int(p[4])))
    os.remove(out)
    os.rmdir(tmp)
    return res, cmd + ["<", query_file]


def read_ncbi_matrix(path):
    """Parse an NCBI/EMBOSS format matrix file -> {(a, b): score}."""
    cols = None
    m = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            p = line.split()
            if cols is None:
                cols = p
                continue
            a = p[0]
            for b, v in zip(cols, p[1:]):
                m[(a, b)] = int(v)
    return cols, m
