//! The options every command shares mean the same everywhere: `-o/--out`, `--outfmt`,
//! `--threads`, `--device`; gap costs written the ssearch36 way (negative) mean what
//! BLAST's positive ones do; `--threads 1` and `--threads 2` give the same results.

mod common;

use common::cli::{clsw, s, scratch, scratch_dir};
use common::data_dir;

fn data(name: &str) -> String {
    data_dir().join(name).to_str().unwrap().to_string()
}

#[test]
fn every_job_command_takes_out_outfmt_threads_and_device() {
    let q = scratch("opts_q.fa", b">q1\nMKVLAAGIVGLLLA\n");
    let t = scratch("opts_t.fa", b">t1\nMKVLSAGIVGLLA\n>t2\nGGKVLAAGWVG\n");
    let u = scratch("opts_u.fa", b">u1\nKVLAAGIVGL\n");
    let aln = scratch("opts_aln.fa", b">a\nACGTACGT\n>b\nACGAACGT\n>c\nACGTACTT\n");
    let db = data("uniprot300.fasta");
    let commands: [(&str, Vec<&str>); 5] = [
        ("scan", vec!["scan", "-q", s(&q), "-d", &db, "--outfmt", "tabular-ext"]),
        ("align", vec!["align", s(&q), s(&t), "--outfmt", "tabular"]),
        ("psse", vec!["psse", "--query", s(&q), "--subject", s(&t), "--shuffles", "50", "--outfmt", "tsv"]),
        ("sw3", vec!["sw3", s(&q), s(&t), s(&u)]),
        ("distance", vec!["distance", s(&aln), "--outfmt", "square"]),
    ];
    for (name, args) in commands {
        let out = scratch_dir().join(format!("opts_{name}.out"));
        let mut with = vec!["--threads", "1"];
        with.extend(&args);
        with.extend(["-o", s(&out)]);
        if name != "align" {
            with.extend(["--device", "native"]);
        }
        let (code, stdout, err) = clsw(&with);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(stdout.is_empty(), "{name} wrote to standard output with -o: {stdout}");
        let written = std::fs::read_to_string(&out).unwrap();
        // The same run without -o writes the same to standard output.
        let (code, plain, err) = clsw(&with[..with.len() - if name == "align" { 2 } else { 4 }]);
        assert_eq!(code, 0, "{name}: {err}");
        let strip = |t: &str| t.lines().filter(|l| !l.starts_with("# clsw sw3")).collect::<Vec<_>>().join("\n");
        assert_eq!(strip(&written), strip(&plain), "{name}");
        assert!(!written.is_empty(), "{name}");
    }
}

#[test]
fn one_thread_or_two_and_negative_gap_costs_give_the_same_search() {
    let (q, db) = (data("queries10.fasta"), data("uniprot300.fasta"));
    let run = |extra: &[&str]| {
        let mut args = vec!["scan", "-q", &q, "-d", &db, "--outfmt", "tabular-ext"];
        args.extend(extra);
        let (code, out, err) = clsw(&args);
        assert_eq!(code, 0, "{err}");
        out
    };
    let one = run(&["--threads", "1"]);
    assert!(one.lines().count() > 100);
    assert_eq!(one, run(&["--threads", "2"]));
    let blast = run(&["--gap-open", "11", "--gap-extend", "1"]);
    assert_eq!(blast, run(&["--gap-open", "-11", "--gap-extend", "-1"]));
    assert_eq!(blast, one, "BLOSUM62 11/1 is the default");
    assert_ne!(blast, run(&["--gap-open", "-9", "--gap-extend", "-2"]));
}
