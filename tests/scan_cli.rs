//! `clsw scan` and `clsw makedb` end to end, on the native path and on the default
//! device, and on bad input: a clear message and exit code 1, never a panic.

mod common;

use common::cli::{
    clsw, clsw_env, clsw_limited, clsw_on, random_protein_fasta, s, same_output_on_two_devices, scratch, scratch_dir,
};
use common::{data_dir, test_devices};
use std::path::PathBuf;

fn data(name: &str) -> String {
    data_dir().join(name).to_str().unwrap().to_string()
}

/// The first three queries of queries10 (49, 80 and 120 aa).
fn three_queries() -> PathBuf {
    let text = std::fs::read_to_string(data_dir().join("queries10.fasta")).unwrap();
    let mut out = String::new();
    let mut n = 0;
    for piece in text.split('>').skip(1) {
        if n == 3 {
            break;
        }
        out.push('>');
        out.push_str(piece);
        n += 1;
    }
    assert_eq!(n, 3);
    scratch("three.fa", out.as_bytes())
}

#[test]
fn scan_on_the_native_path_and_the_default_device_agree() {
    let q = three_queries();
    let db = data("uniprot300.fasta");
    let (code, native, err) = clsw(&["scan", "--query", s(&q), "--db", &db]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("clsw: 3 queries (249 residues) x 299 subjects (169,296 residues)"), "{err}");
    assert!(
        err.contains("native CPU path (SIMD, no OpenCL)") && err.contains("E-values regression for 3 queries"),
        "{err}"
    );
    let lines: Vec<&str> = native.lines().collect();
    assert!(lines.len() > 10);
    // The first query's best hits: two identical 49-residue proteins (score 268, as
    // ssearch36 reports), whole-length, 100% identity.
    let c: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(c.len(), 12);
    assert_eq!(c[0], "tr|V5R462|V5R462_9CAUD");
    assert_eq!(c[2..10], ["100.000", "49", "0", "0", "1", "49", "1", "49"]);
    for line in &lines {
        let e: f64 = line.split('\t').nth(10).unwrap().parse().unwrap();
        assert!(e <= 10.0, "{line}");
    }
    if !test_devices().is_empty() {
        // `auto` takes the native path where there is no GPU: ask for the OpenCL CPU device.
        let (code, device, err) = clsw_on(Some("cpu"), &["scan", "--query", s(&q), "--db", &db]);
        assert_eq!(code, 0, "{err}");
        // A CPU device's own variant is inter ([`Variant::for_device`]).
        assert!(err.contains("variant inter on ["), "{err}");
        assert_eq!(device, native);
        // A named variant (plain: one program, where team builds one per query length on
        // a CPU device; self-tested when first named), and the database forced through
        // small batches.
        let (code, plain, err) = clsw_on(Some("cpu"), &["scan", "-q", s(&q), "-d", &db, "--variant", "plain"]);
        assert!(err.contains("variant plain on ["), "{err}");
        assert_eq!((code, &plain), (0, &native), "{err}");
        // The retired `fast` is each device's own variant for one release.
        let (code, fast, err) = clsw_on(Some("cpu"), &["scan", "-q", s(&q), "-d", &db, "--variant", "fast"]);
        assert!(err.contains("variant inter on ["), "{err}");
        assert_eq!((code, &fast), (0, &native), "{err}");
        let (code, batched, err) =
            clsw_on(Some("cpu"), &["scan", "-q", s(&q), "-d", &db, "--batch-residues", "30000", "--quiet"]);
        assert_eq!((code, &batched), (0, &native), "{err}");
        assert!(err.is_empty(), "--quiet prints nothing: {err}");
        // A device beside the native path, each with half the database.
        let (code, split, err) = clsw_on(None, &["scan", "-q", s(&q), "-d", &db, "--device", "cpu,native"]);
        assert_eq!((code, &split), (0, &native), "{err}");
        assert!(err.contains("native CPU path"), "{err}");
        // Two shares of the device, each streamed in batches: a database larger than a
        // device's budget, on several devices, gives the resident search's output.
        let (code, streamed, err) =
            clsw_on(None, &["scan", "-q", s(&q), "-d", &db, "--device", "cpu,cpu", "--batch-residues", "30000"]);
        assert_eq!((code, &streamed), (0, &native), "{err}");
        assert!(err.contains("batches"), "{err}");
    }
}

#[test]
fn a_list_of_two_devices_gives_the_native_results() {
    let q = three_queries();
    let db = data("uniprot300.fasta");
    same_output_on_two_devices(&["scan", "-q", s(&q), "-d", &db, "--outfmt", "tabular-ext"], str::to_string);
}

/// `--portable` and `CLSW_PORTABLE=1` build the portable kernels on the device and give
/// the same search (on a GPU, the check of the portable code against the vendor's; PoCL
/// has no vendor code, so there they build the same programs), and the summary and
/// `clsw devices` say so; a `CLSW_PORTABLE` other than 1 or 0 is refused, naming it.
#[test]
fn portable_kernels_give_the_same_search() {
    let Some(dev) = test_devices().into_iter().next() else { return };
    let (q, db, index) = (three_queries(), data("uniprot300.fasta"), dev.info.index.to_string());
    let args = ["scan", "-q", s(&q), "-d", &db, "--outfmt", "tabular-ext", "--device", &index];
    let run = |portable: &str, extra: &[&str]| clsw_env(&[("CLSW_PORTABLE", portable)], None, &[&args, extra].concat());
    let (code, want, err) = run("0", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("portable kernels"), "{err}");
    for (portable, extra) in [("0", &["--portable"][..]), ("1", &[]), (" 1", &["--portable"])] {
        let (code, got, err) = run(portable, extra);
        assert_eq!((code, &got), (0, &want), "CLSW_PORTABLE={portable} {extra:?}: {err}");
        assert!(err.contains(&format!("[{index}] ")) && err.contains(", portable kernels"), "{err}");
    }
    let (code, listing, err) = clsw_env(&[("CLSW_PORTABLE", "1")], None, &["devices"]);
    assert_eq!(code, 0, "{listing}{err}");
    assert!(listing.contains("    kernels:       portable"), "{listing}");
    for bad in ["yes", "2", "on"] {
        let (code, out, err) = run(bad, &["--portable"]);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        assert!(err.contains(&format!("CLSW_PORTABLE: '{bad}'")), "{err}");
    }
}

/// A query file that fails to read while the device is still opening on its own thread
/// ends the run with the error and status 1: the process waits for the opening rather
/// than exiting under the driver's build (PoCL then aborted with a double free).
#[test]
fn an_input_error_while_the_device_opens_ends_with_the_error() {
    let Some(dev) = test_devices().into_iter().next() else { return };
    let empty = scratch("empty-query.fa", b"");
    let index = dev.info.index.to_string();
    for portable in ["0", "1", "0", "1", "0", "1"] {
        let args = ["scan", "-q", s(&empty), "-d", &data("uniprot300.fasta"), "--device", &index];
        let (code, out, err) = clsw_env(&[("CLSW_PORTABLE", portable)], None, &args);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        assert_eq!(err, format!("clsw: error: {}: line 1: contains no FASTA records\n", s(&empty)));
    }
}

#[test]
fn makedb_then_scan_the_prepared_database() {
    let dir = scratch_dir();
    let out = dir.join("u300.clswdb");
    let (code, text, err) = clsw(&["makedb", &data("uniprot300.fasta"), "-o", s(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("299 protein sequences, 169,296 residues, longest 8,081"), "{text}");
    let q = three_queries();
    let (_, from_fasta, _) = clsw(&["scan", "-q", s(&q), "-d", &data("uniprot300.fasta"), "--outfmt", "tabular-ext"]);
    let (code, prepared, err) = clsw(&["scan", "-q", s(&q), "-d", s(&out), "--outfmt", "tabular-ext"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(prepared, from_fasta);
    assert!(prepared.starts_with("# qseqid\t"));
    // Substituted letters and empty records are reported, not fatal.
    let odd = scratch("odd.fa", b">a\nMKUVLA\n>empty\n>b\nWWOJ\n");
    let (code, text, err) = clsw(&["makedb", s(&odd), "-o", s(&dir.join("odd.clswdb")), "--alphabet", "protein"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("letters read as X: J x1, O x1, U x1"), "{err}");
    assert!(err.contains("'empty' (line 3)"), "{err}");
    assert!(
        text.contains("2 protein sequences") && text.contains("3 letters stored as X; 1 empty record skipped"),
        "{text}"
    );
}

#[test]
fn every_output_format_writes_and_parses() {
    let q = three_queries();
    let db = data("uniprot300.fasta");
    let out = scratch_dir().join("out.sam");
    let (code, stdout, err) =
        clsw(&["scan", "-q", s(&q), "-d", &db, "--outfmt", "sam", "--out", s(&out), "--max-hits", "5"]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty());
    let sam = std::fs::read_to_string(&out).unwrap();
    assert!(sam.starts_with("@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:"), "{sam}");
    assert!(sam.contains("@PG\tID:clsw\tPN:clsw"));
    let records: Vec<&str> = sam.lines().filter(|l| !l.starts_with('@')).collect();
    assert!(records.len() > 3 && records.len() <= 15);
    for r in &records {
        assert!(r.split('\t').count() >= 11 && r.contains("\tAS:i:"), "{r}");
    }
    let (code, json, err) = clsw(&["scan", "-q", s(&q), "-d", &db, "--outfmt", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert_eq!(v[0]["evalue_source"], "regression");
    assert_eq!(v[0]["hits"][0]["score"], 268);
    let (code, pairwise, err) = clsw(&["scan", "-q", s(&q), "-d", &db, "--outfmt", "pairwise", "--width", "50"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(pairwise.matches("Query= ").count(), 3);
    assert!(pairwise.contains("Sequences producing significant alignments:"));
    // --progress off a terminal: one line per query on standard error.
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", &db, "--progress", "--max-hits", "1"]);
    assert_eq!(code, 0);
    assert_eq!(err.matches("clsw: query ").count(), 3, "{err}");
}

#[test]
fn dna_search_reports_minus_strand_hits_blast_style() {
    let pairs = std::fs::read_to_string(data_dir().join("dna_pairs.fasta")).unwrap();
    let mut a = String::new();
    let mut b = String::new();
    for rec in pairs.split('>').skip(1) {
        let target = if rec.split_whitespace().next().unwrap().ends_with("_a") { &mut a } else { &mut b };
        target.push('>');
        target.push_str(rec);
    }
    let qa = scratch("dna_a.fa", a.as_bytes());
    let db = scratch("dna_b.fa", b.as_bytes());
    let (code, out, err) = clsw(&["scan", "-q", s(&qa), "-d", s(&db)]);
    assert_eq!(code, 0, "{err}");
    // Eight subjects: too few to fit, no published DNA parameters: shuffles.
    assert!(err.contains("both strands") && err.contains("E-values shuffled for 8"), "{err}");
    let line = out.lines().find(|l| l.starts_with("dna7_a\tdna7_b\t")).expect("dna7 pair found");
    let c: Vec<&str> = line.split('\t').collect();
    let n: Vec<usize> = c[6..10].iter().map(|x| x.parse().unwrap()).collect();
    assert!(n[0] < n[1] && n[2] > n[3], "minus strand: sstart > send: {line}");
    assert!(c[10].parse::<f64>().unwrap() < 1e-5 && c[11].parse::<f64>().unwrap() > 20.0, "{line}");
    let (code, plus, _) = clsw(&["scan", "-q", s(&qa), "-d", s(&db), "--strand", "plus", "--max-hits", "1"]);
    assert_eq!(code, 0);
    assert!(!plus.contains("dna7_a\tdna7_b"), "{plus}");
    assert!(plus.contains("dna1_a\tdna1_b"), "{plus}");
}

#[test]
fn long_query_on_the_default_device() {
    // 70,000 residues: more than 16-bit coordinates can hold.
    let text = std::fs::read_to_string(data_dir().join("uniprot300.fasta")).unwrap();
    let seqs: Vec<&str> = text.lines().filter(|l| !l.starts_with('>')).collect();
    let mut long = String::new();
    for s in seqs.iter().cycle() {
        long.push_str(s);
        if long.len() >= 70_000 {
            break;
        }
    }
    long.truncate(70_000);
    let q = scratch("long.fa", format!(">long\n{long}\n").as_bytes());
    let db = scratch("small_db.fa", format!(">s1\n{}\n>s2\n{}\n", &seqs[5], &seqs[7]).as_bytes());
    let (code, out, err) = clsw_on(Some("cpu"), &["scan", "-q", s(&q), "-d", s(&db)]);
    assert_eq!(code, 0, "{err}");
    // Both subjects occur verbatim in the query: full-length identical hits.
    for (name, subject) in [("s1", seqs[5]), ("s2", seqs[7])] {
        let line = out.lines().find(|l| l.split('\t').nth(1) == Some(name)).unwrap_or_else(|| panic!("{out}"));
        let c: Vec<&str> = line.split('\t').collect();
        assert_eq!(c[2], "100.000");
        assert_eq!(c[3], subject.len().to_string());
    }
    let (_, native, _) = clsw(&["scan", "-q", s(&q), "-d", s(&db)]);
    assert_eq!(out, native);
}

#[test]
fn bad_inputs_give_clear_errors() {
    let dir = scratch_dir();
    let q = three_queries();
    let db = data("uniprot300.fasta");
    let prepared = dir.join("bad.clswdb");
    assert_eq!(clsw(&["makedb", &db, "-o", s(&prepared)]).0, 0);
    let mut bytes = std::fs::read(&prepared).unwrap();
    let at = bytes.len() - 100;
    bytes[at] ^= 0x40;
    let corrupt = dir.join("corrupt.clswdb");
    std::fs::write(&corrupt, &bytes).unwrap();
    let letters = scratch("letters.fa", b">ok\nMKV\n>bad query\nMKVLA\nAC#D\n");
    let empty = scratch("empty.fa", b"");
    let only_empty = scratch("only_empty.fa", b">x\n>y\n");
    let dna_db = scratch("dna_db.fa", b">d1\nACGTACGTAAGT\n");
    let dna_prepared = dir.join("dna.clswdb");
    assert_eq!(clsw(&["makedb", s(&dna_db), "-o", s(&dna_prepared)]).0, 0);
    let again = dir.join("again.clswdb");
    let empty_out = dir.join("e.clswdb");

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["scan", "-q", "/nonexistent/q.fa", "-d", &db], "/nonexistent/q.fa"),
        (vec!["scan", "-q", s(&q), "-d", "/nonexistent/db.fa"], "/nonexistent/db.fa"),
        (
            vec!["scan", "-q", s(&letters), "-d", &db],
            "line 5 (record 2, 'bad'): '#' at column 3 is not a protein residue letter",
        ),
        (vec!["scan", "-q", s(&q), "-d", s(&corrupt)], "is damaged"),
        (vec!["scan", "-q", s(&q), "-d", s(&empty), "--alphabet", "protein"], "contains no FASTA records"),
        (vec!["scan", "-q", s(&q), "-d", s(&only_empty), "--alphabet", "protein"], "contains only empty FASTA records"),
        (
            vec!["scan", "-q", s(&q), "-d", &db, "--matrix", "EDNAFULL", "--alphabet", "protein"],
            "matrix EDNAFULL is for dna",
        ),
        (vec!["scan", "-q", s(&q), "-d", s(&prepared), "--alphabet", "dna"], "is a prepared protein database"),
        (
            vec!["scan", "-q", s(&q), "-d", s(&dna_prepared), "--matrix", "BLOSUM62"],
            "matrix BLOSUM62 is for protein sequences, but the input is dna",
        ),
        (
            vec!["scan", "-q", s(&q), "-d", s(&dna_prepared)],
            "line 2 (record 1, 'tr|V5R462|V5R462_9CAUD'): 'P' at column 8 is not a dna residue letter",
        ),
        (vec!["scan", "-q", s(&q), "-d", &db, "--strand", "minus"], "--strand applies to DNA"),
        (vec!["scan", "-q", s(&q), "-d", &db, "--evalue=-1"], "E-value threshold"),
        (vec!["scan", "-q", s(&q), "-d", &db, "--device", "nosuchdevice"], "no device matching 'nosuchdevice'"),
        (vec!["makedb", s(&prepared), "-o", s(&again)], "already a prepared database"),
        (vec!["makedb", s(&empty), "-o", s(&empty_out), "--alphabet", "protein"], "contains no FASTA records"),
    ];
    for (args, expected) in &cases {
        let (code, _, err) = clsw(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: expected '{expected}' in: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Names of the library's enumerations are checked while the options are read (a
    // usage error, as clap's own: exit 2), with the library's message.
    for (option, value, expected) in [
        ("--outfmt", "xml", "unknown output format 'xml'"),
        ("--variant", "warp", "unknown kernel variant 'warp'"),
        ("--strand", "up", "unknown strand 'up'"),
    ] {
        let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", &db, option, value]);
        assert_eq!(code, 2, "{option} {value}: {err}");
        assert!(err.contains(expected), "{option} {value}: expected '{expected}' in: {err}");
    }
    // Aliases and any case still read: `6` is BLAST's number for tabular.
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", &db, "--outfmt", "6", "--variant", "AUTO"]);
    assert_eq!(code, 0, "{err}");
    // A DNA-looking query against a protein database is searched, with a warning.
    let dnaq = scratch("dnaq.fa", b">n\nACGTACGTACGGTACCA\n");
    let (code, _, err) = clsw(&["scan", "-q", s(&dnaq), "-d", &db]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("looks like DNA"), "{err}");
    // So is a DNA-looking FASTA database read as protein because of a protein matrix.
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&dna_db), "--matrix", "BLOSUM62"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("dna_db.fa looks like DNA but is read as protein"), "{err}");
}

/// Input that never ends and is not FASTA (`/dev/zero`: no newline, no '>') is refused
/// at its first byte; it was read into one unbounded line until the process aborted.
/// Under a 1 GiB address-space limit, so a regression fails instead of filling memory.
#[test]
fn an_endless_input_that_is_not_fasta_is_refused_at_its_first_byte() {
    let db = data_dir().join("uniprot300.fasta");
    let (code, out, err) = clsw_limited(1, &["scan", "-q", "/dev/zero", "-d", s(&db)]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("/dev/zero: line 1: expected a '>' header, found byte \\x00"), "{err}");
}

/// A hit at the end of a 12-million-residue query: finding where its alignment starts
/// takes a striped profile of the whole query on each of two threads (1 GB), more than
/// a 1 GiB address space leaves after the scan. The run stops with an error naming the
/// query, where it aborted; the scan before it (whose profile of the query, 576 MB,
/// fits) is taken fallibly too.
#[test]
fn alignments_that_do_not_fit_in_memory_are_an_error_not_an_abort() {
    let (q, query) = random_protein_fasta("long_query.fa", 12_000_000, 2);
    let tail = String::from_utf8(query[query.len() - 25..].to_vec()).unwrap();
    let db = scratch("long_query_db.fa", format!(">tail\n{tail}\n>other\nMKVLAAGIVGLLLASCSSEKPVQEHT\n").as_bytes());
    let (code, out, err) = clsw_limited(1, &["scan", "-q", s(&q), "-d", s(&db)]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("out of memory: finding where the alignments of a query of 12000000 residues start"), "{err}");
}

/// The first `n` records of uniprot300, as a FASTA file.
fn first_subjects(n: usize) -> PathBuf {
    let text = std::fs::read_to_string(data_dir().join("uniprot300.fasta")).unwrap();
    let records: Vec<&str> = text.split('>').skip(1).take(n).collect();
    assert_eq!(records.len(), n);
    scratch(&format!("first{n}.fa"), format!(">{}", records.join(">")).as_bytes())
}

/// `--stats` chooses where E-values come from and `--dbsize` (`-Z`) fixes `D`: with
/// BLAST's published parameters and a fixed size, a hit's E-value is the same in a
/// database of 199 subjects as in one of 260.
#[test]
fn dbsize_and_stats_pin_evalues_across_database_sizes() {
    let q = three_queries();
    let evalues = |db: &PathBuf, extra: &[&str]| {
        let mut args = vec!["scan", "-q", s(&q), "-d", s(db), "--outfmt", "tabular-ext"];
        args.extend(extra);
        let (code, out, err) = clsw(&args);
        assert_eq!(code, 0, "{err}");
        out.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                ((c[0].to_string(), c[1].to_string()), c[10].to_string())
            })
            .collect::<std::collections::HashMap<_, _>>()
    };
    let (small, large) = (first_subjects(199), first_subjects(260));
    let pinned = ["--stats", "published", "-Z", "100000", "--evalue", "1e9"];
    let (a, b) = (evalues(&small, &pinned), evalues(&large, &pinned));
    let common: Vec<_> = a.keys().filter(|k| b.contains_key(*k)).collect();
    assert!(common.len() > 10, "{} hits in both", common.len());
    for k in &common {
        assert_eq!(a[*k], b[*k], "{k:?}");
    }
    // By default the two databases' E-values differ: the regression weighs more in 260.
    let (a, b) = (evalues(&small, &[]), evalues(&large, &[]));
    assert!(common.iter().any(|k| a.get(*k) != b.get(*k)));
    // Published parameters with the database's own size (blastp's: the pair's E-value
    // times residues / subject length) and with -Z's long name (the pair's times 26,000):
    // their ratio is 26,000 n / residues, so over the hits it follows the subject length.
    let own = evalues(&large, &["--stats", "published", "--evalue", "1e9"]);
    let big = evalues(&large, &["--stats", "published", "--dbsize", "26000", "--evalue", "1e9"]);
    let length: std::collections::HashMap<String, f64> = {
        let (code, out, err) =
            clsw(&["scan", "-q", s(&q), "-d", s(&large), "--outfmt", "6 sseqid slen", "--max-hits", "300"]);
        assert_eq!(code, 0, "{err}");
        out.lines().map(|l| l.split_once('\t').unwrap()).map(|(s, n)| (s.to_string(), n.parse().unwrap())).collect()
    };
    let per_residue: Vec<f64> = own
        .keys()
        .filter(|k| big.contains_key(*k) && length.contains_key(&k.1))
        .map(|k| (own[k].parse::<f64>().unwrap(), big[k].parse::<f64>().unwrap(), length[&k.1]))
        .filter(|(e_own, ..)| *e_own > 1e-100)
        .map(|(e_own, e_big, n)| e_big / e_own / n)
        .collect();
    assert!(per_residue.len() > 5, "{per_residue:?}");
    // Against their median (E-values print with two or three digits: a few % each).
    let mut sorted = per_residue.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    assert!(per_residue.iter().all(|r| (r / median - 1.0).abs() < 0.05), "{per_residue:?}");
    assert!(evalues(&large, &["--stats", "none"]).values().all(|e| e == "NA"));
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&large), "--stats", "ml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("auto, fit, published, none, regression, shuffle"), "{err}");
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&large), "-Z", "0"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("at least one sequence"), "{err}");
}

/// A DNA search of a 10-subject database has E-values (fitted to 2,000 shuffles of its
/// subjects, as no fit to 10 scores and no published DNA parameters exist): planted
/// homologs are significant, unrelated subjects are not, the threshold applies, and the
/// shuffles are the same in every run.
#[test]
fn dna_evalues_on_a_ten_subject_database_come_from_shuffles() {
    let pairs = std::fs::read_to_string(data_dir().join("dna_pairs.fasta")).unwrap();
    let records: Vec<String> = pairs.split('>').skip(1).map(|r| format!(">{r}")).collect();
    let named = |suffix: &'static str| {
        records.iter().filter(move |r| r[1..].split_whitespace().next().unwrap().ends_with(suffix))
    };
    let queries: String = named("_a").take(2).cloned().collect();
    let subjects: String = named("_b").chain(named("_a").skip(6)).cloned().collect();
    assert_eq!(subjects.matches('>').count(), 10);
    let (q, db) = (scratch("dna10_q.fa", queries.as_bytes()), scratch("dna10_db.fa", subjects.as_bytes()));
    let run = |extra: &[&str]| {
        let mut args = vec!["scan", "-q", s(&q), "-d", s(&db)];
        args.extend(if extra.contains(&"--evalue") { extra.to_vec() } else { [extra, &["--evalue", "1e9"]].concat() });
        let (code, out, err) = clsw(&args);
        assert_eq!(code, 0, "{err}");
        (out, err)
    };
    let (out, err) = run(&[]);
    assert!(err.contains("E-values shuffled for 2"), "{err}");
    let evalue = |pair: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with(pair)).unwrap_or_else(|| panic!("{pair} in {out}"));
        line.split('\t').nth(10).unwrap().parse().unwrap()
    };
    for planted in ["dna1_a\tdna1_b\t", "dna2_a\tdna2_b\t"] {
        assert!(evalue(planted) < 1e-10, "{planted}: {out}");
    }
    // Unrelated subjects: E-values of order one (the null), not tiny.
    let unrelated = evalue("dna1_a\tdna5_b\t");
    assert!(unrelated > 0.01 && unrelated < 100.0, "{out}");
    assert_eq!(run(&[]).0, out, "the shuffles are the same in every run");
    assert_eq!(run(&["--stats", "shuffle"]).0, out, "auto took the shuffles");
    // The threshold applies to shuffle E-values.
    let (strict, _) = run(&["--evalue", "1e-5"]);
    assert!(strict.lines().count() >= 2 && strict.lines().count() < out.lines().count(), "{strict}");
    assert!(!strict.contains("dna1_a\tdna5_b"), "{strict}");
}

/// `--stats regression` (ssearch36's default): E-values from z-scores against the
/// length regression, reported as such (no lambda and K, the regression's coefficients
/// in JSON); strong homologs are significant and weak scores are not.
#[test]
fn regression_statistics_give_evalues_without_lambda() {
    let (code, out, err) = clsw(&[
        "scan",
        "-q",
        &data("queries10.fasta"),
        "-d",
        &data("uniprot300.fasta"),
        "--stats",
        "regression",
        "--outfmt",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("E-values regression for 10"), "{err}");
    let results: serde_json::Value = serde_json::from_str(&out).unwrap();
    for r in results.as_array().unwrap() {
        assert_eq!(r["evalue_source"], "regression", "{r}");
        assert!(r["lambda"].is_null() && r["regression"]["rho"].as_f64().unwrap() > 0.0, "{r}");
        let hits = r["hits"].as_array().unwrap();
        let e: Vec<f64> = hits.iter().map(|h| h["evalue"].as_f64().unwrap()).collect();
        assert!(e.windows(2).all(|w| w[0] <= w[1]), "ranked by E-value: {e:?}");
        assert!(e.iter().all(|&e| e <= 10.0), "{e:?}");
    }
    let first = &results[0]["hits"];
    assert!(first[0]["evalue"].as_f64().unwrap() < 1e-20 && first[0]["bit_score"].as_f64().unwrap() > 60.0, "{first}");
}

/// SAM names every read and reference: a query without an id (a `>` line alone) is `*`,
/// SAM's name for none, and a hit on a subject without an id is refused with a reason,
/// the previous output left as it was.
#[test]
fn sam_names_a_query_without_an_id_and_refuses_a_subject_without_one() {
    let protein = b"MKVLAAGIWKLHHEEGRTPQWLLKAVVDEFGHIKLMNPQRSTVWY";
    let query = scratch("sam_noid_query.fa", &[b">\n".as_slice(), protein, b"\n"].concat());
    let named = scratch("sam_named_db.fa", &[b">s1 first\n".as_slice(), protein, b"\n"].concat());
    let (code, out, err) = clsw(&["scan", "-q", s(&query), "-d", s(&named), "--outfmt", "sam"]);
    assert_eq!(code, 0, "{err}");
    let records: Vec<&str> = out.lines().filter(|l| !l.starts_with('@')).collect();
    assert_eq!(records.len(), 1, "{out}");
    assert!(records[0].starts_with("*\t0\ts1\t1\t"), "{out}");
    let unnamed = scratch("sam_unnamed_db.fa", &[b">\n".as_slice(), protein, b"\n"].concat());
    let previous = scratch("sam_previous.sam", b"kept\n");
    let (code, _, err) = clsw(&["scan", "-q", s(&query), "-d", s(&unnamed), "--outfmt", "sam", "-o", s(&previous)]);
    assert_ne!(code, 0);
    assert!(err.contains("subject 1 of the database has no id"), "{err}");
    assert_eq!(std::fs::read(&previous).unwrap(), b"kept\n");
}

/// gzip data followed by bytes that are not a whole gzip member (junk, or a member cut
/// at its header) is refused with a message that says so, not as a damaged or truncated
/// first member; a member cut inside its data says that instead.
#[test]
fn gzip_with_trailing_junk_says_where_the_junk_is() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b">a\nMKVLAAGIWKLHHEEGRTPQWLL\n").unwrap();
    let member = gz.finish().unwrap();
    for (name, tail) in [("short", &b"junk"[..]), ("long", &b"junkjunkjunkjunkjunk"[..])] {
        let path = scratch(&format!("trailing_{name}.fa.gz"), &[member.as_slice(), tail].concat());
        let (code, _, err) = clsw(&["scan", "-q", s(&path), "-d", s(&path)]);
        assert_ne!(code, 0);
        assert!(err.contains("after 27 decompressed bytes: what follows the last complete gzip member"), "{err}");
    }
    let cut = scratch("cut.fa.gz", &member[..member.len() - 12]);
    let (code, _, err) = clsw(&["scan", "-q", s(&cut), "-d", s(&cut)]);
    assert_ne!(code, 0);
    assert!(err.contains("incomplete deflate stream") && !err.contains("trailing"), "{err}");
}

/// A database file larger than the memory a process may use: the room its size
/// suggests is taken only where memory allows (it aborted reserving it), so what the
/// file holds decides: here a record followed by 4 GiB of NUL bytes (a sparse file),
/// refused at its first NUL under a 1 GiB limit, by `scan` and by `makedb`.
#[test]
fn a_database_larger_than_the_memory_limit_is_read_not_reserved() {
    let db = scratch("sparse_db.fa", b">a\nMKVLAAGIWKLHH\n");
    std::fs::OpenOptions::new().write(true).open(&db).unwrap().set_len(4 << 30).unwrap();
    let q = scratch("sparse_q.fa", b">q\nMKVLAAGIW\n");
    let out = scratch_dir().join("sparse.clswdb");
    for args in [vec!["scan", "-q", s(&q), "-d", s(&db)], vec!["makedb", s(&db), "-o", s(&out)]] {
        let (code, _, err) = clsw_limited(1, &args);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("line 3 (record 1, 'a'): byte \\x00 at column 1 is not a protein residue letter"),
            "{err}"
        );
    }
    std::fs::remove_file(&db).unwrap();
}

/// A query longer than one block of the native kernel's rows (8,192) against a long
/// subject: the columns' boundaries between row blocks (two vectors a subject column,
/// 1.3 GB here at the narrowest level) do not fit a 1 GiB limit: an error naming them,
/// not an abort.
#[test]
fn native_column_boundaries_larger_than_the_memory_limit_are_an_error() {
    let (q, _) = random_protein_fasta("blocks_query.fa", 10_000, 11);
    let (db, _) = random_protein_fasta("blocks_db.fa", 40_000_000, 12);
    let (code, out, err) = clsw_limited(1, &["scan", "-q", s(&q), "-d", s(&db), "--device", "native"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("out of memory: native kernel's column boundaries needs"), "{err}");
    std::fs::remove_file(&db).unwrap();
}

/// A query whose profile, or a database whose layout, does not fit the memory a process
/// may use, on an OpenCL device: an error naming it and its size, not an abort.
#[test]
fn a_profile_or_layout_larger_than_the_memory_limit_is_an_error() {
    if test_devices().is_empty() {
        return;
    }
    let (q, _) = random_protein_fasta("profile_query.fa", 20_000_000, 5);
    let db = scratch("profile_db.fa", b">s\nMKVLAAGIWKLHHEEGRTPQWLL\n");
    let (code, out, err) = clsw_limited(1, &["scan", "-q", s(&q), "-d", s(&db), "--device", "cpu"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("out of memory: a query profile needs 2.0 GB"), "{err}");
    // The same sequence as the database: its layout (a group of 64 slots, one of them
    // 20 M residues long), made on the device, does not fit the device's buffer there
    // (the CPU device's memory is this process's).
    let (code, out, err) = clsw_limited(1, &["scan", "-q", s(&db), "-d", s(&q), "--device", "cpu"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("out of memory: a buffer on") && err.contains("needs 1.3 GB"), "{err}");
}
