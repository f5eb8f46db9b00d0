//! The options every command shares mean the same everywhere: `-o/--out`, `--outfmt`,
//! `--threads`, `--device`, `--portable`, `--quiet`, `--progress`, and each command's `--help` lists
//! them under the same names and states its defaults; gap costs written the ssearch36
//! way (negative) mean what BLAST's positive ones do; `--threads 1` and `--threads 2`
//! give the same results; `-` reads the query or the database from standard input, and
//! a FIFO works wherever a path is read.

mod common;

use common::cli::{clsw, clsw_with_stdin, s, scratch, scratch_dir};
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
        with.extend(["-o", s(&out), "--device", "native"]);
        let (code, stdout, err) = clsw(&with);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(stdout.is_empty(), "{name} wrote to standard output with -o: {stdout}");
        let written = std::fs::read_to_string(&out).unwrap();
        // The same run without -o writes the same to standard output.
        let (code, plain, err) = clsw(&with[..with.len() - 4]);
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

#[test]
fn thread_counts_past_four_per_cpu_are_refused_before_any_thread_starts() {
    // 100,000 threads once stalled the machine: refused at once, with the cap named.
    let (q, db) = (data("queries10.fasta"), data("uniprot300.fasta"));
    for threads in ["100000", "99999999999"] {
        let started = std::time::Instant::now();
        let (code, out, err) = clsw(&["--threads", threads, "scan", "-q", &q, "-d", &db]);
        assert_ne!(code, 0, "{threads}: {out}");
        assert!(err.contains(&format!("--threads {threads}: at most 4 per logical CPU")), "{err}");
        assert!(out.is_empty() && started.elapsed().as_secs() < 30, "{threads}");
    }
}

#[test]
fn negative_values_are_refused_by_their_option_not_as_unknown_arguments() {
    // clap read `-1` as an unknown option ("unexpected argument '-1' found").
    let (q, db) = (data("queries10.fasta"), data("uniprot300.fasta"));
    for (option, value) in [("--max-hits", "-1"), ("--threads", "-2"), ("--batch-residues", "-5")] {
        let (code, _, err) = clsw(&["scan", "-q", &q, "-d", &db, option, value]);
        assert_eq!(code, 2, "{option} {value}");
        assert!(err.contains(&format!("invalid value '{value}' for '{option}")), "{option}: {err}");
    }
}

#[test]
fn a_fifo_works_wherever_a_path_is_read() {
    // A FIFO as the database, as makedb's input, as an align file or an sw3 file hung
    // forever: the path was opened twice, and the second open waits for a writer.
    let dir = scratch_dir().join("fifos");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = |name: &str, content: Vec<u8>| {
        let path = dir.join(name);
        assert!(std::process::Command::new("mkfifo").arg(&path).status().unwrap().success());
        let writer = path.clone();
        std::thread::spawn(move || std::fs::write(writer, content));
        path
    };
    // Each run under `timeout`: a hang fails the test instead of holding CI.
    let run = |args: &[&str]| {
        let out = std::process::Command::new("timeout")
            .arg("60")
            .arg(env!("CARGO_BIN_EXE_clsw"))
            .args(args)
            .env("CLSW_DEVICE", "native")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (q, db) = (data("queries10.fasta"), data("uniprot300.fasta"));
    let text = std::fs::read(&db).unwrap();
    let want = run(&["scan", "-q", &q, "-d", &db]);
    let db_fifo = fifo("db.fa", text.clone());
    assert_eq!(run(&["scan", "-q", &q, "-d", s(&db_fifo)]), want);
    let made = dir.join("made.clswdb");
    let input = fifo("input.fa", text);
    run(&["makedb", s(&input), "-o", s(&made)]);
    assert_eq!(run(&["scan", "-q", &q, "-d", s(&made)]), want);
    let (a, b, c) = (b">a\nMKVLAAGIWWE\n".to_vec(), b">b\nMKVLAGIWWE\n", b">c\nMKVLAAGIWE\n");
    let (b, c) = (scratch("fifo_b.fa", b), scratch("fifo_c.fa", c));
    let aligned = run(&["align", s(&fifo("a1.fa", a.clone())), s(&b), "--outfmt", "tabular"]);
    assert!(aligned.lines().any(|l| l.starts_with("a\tb\t")), "{aligned}");
    let triple = run(&["sw3", s(&fifo("a2.fa", a)), s(&b), s(&c)]);
    assert!(!triple.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn standard_input_as_the_query_or_the_database() {
    let (q, db) = (data("queries10.fasta"), data("uniprot300.fasta"));
    let (code, want, err) = clsw(&["scan", "-q", &q, "-d", &db]);
    assert_eq!(code, 0, "{err}");
    let q_text = std::fs::read(&q).unwrap();
    let db_text = std::fs::read(&db).unwrap();
    // The database through a pipe: its alphabet guessed and its records read from the
    // one reading of standard input; gzip too.
    for (what, input, args) in [
        ("query", q_text.clone(), ["scan", "-q", "-", "-d", db.as_str()]),
        ("database", db_text.clone(), ["scan", "-q", q.as_str(), "-d", "-"]),
        ("database /dev/stdin", db_text.clone(), ["scan", "-q", q.as_str(), "-d", "/dev/stdin"]),
        ("gzip database", gzip(&db_text), ["scan", "-q", q.as_str(), "-d", "-"]),
    ] {
        let (code, got, err) = clsw_with_stdin(&input, &args);
        assert_eq!(code, 0, "{what}: {err}");
        assert_eq!(got, want, "{what}");
    }
    let (code, _, err) = clsw_with_stdin(&q_text, &["scan", "-q", "-", "-d", "-"]);
    assert_eq!(code, 1);
    assert!(err.contains("both standard input"), "{err}");
    // A bad record names standard input.
    let (code, _, err) = clsw_with_stdin(b">q\nMK1V\n", &["scan", "-q", "-", "-d", &db]);
    assert_eq!(code, 1);
    assert!(err.contains("standard input") && err.contains("line 2"), "{err}");
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// FASTQ queries search as the same records in FASTA do.
#[test]
fn fastq_queries_search_as_fasta_does() {
    let text = std::fs::read_to_string(data_dir().join("queries10.fasta")).unwrap();
    let mut fastq = String::new();
    for record in text.split('>').skip(1) {
        let (header, body) = record.split_once('\n').unwrap();
        let seq: String = body.split_whitespace().collect();
        fastq.push_str(&format!("@{header}\n{seq}\n+\n{}\n", "I".repeat(seq.len())));
    }
    let fq = scratch("queries10.fq", fastq.as_bytes());
    let db = data("uniprot300.fasta");
    let (code, want, err) = clsw(&["scan", "-q", &data("queries10.fasta"), "-d", &db]);
    assert_eq!(code, 0, "{err}");
    let (code, got, err) = clsw(&["scan", "-q", s(&fq), "-d", &db]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(got, want);
}

/// `--help` lists the values of every option that names one of the library's
/// enumerations, from the library's own list, and states the default that applies.
#[test]
fn help_lists_the_librarys_names_and_the_real_defaults() {
    use clsw::output::OutputFormat;
    use clsw::search::{StatsMethod, Strands};
    let help = |cmd: &str| {
        let (code, out, err) = clsw(&[cmd, "--help"]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let listed = |names: Vec<&str>| format!("[possible values: {}]", names.join(", "));
    let scan = help("scan");
    let formats = OutputFormat::ALL.map(OutputFormat::name).to_vec();
    assert!(scan.contains(&listed(formats)), "{scan}");
    assert!(scan.contains(&listed(Strands::ALL.map(Strands::name).to_vec())), "{scan}");
    assert!(scan.contains(&listed(StatsMethod::ALL.map(StatsMethod::name).to_vec())), "{scan}");
    let variants: Vec<&str> =
        clsw::scan::Variant::ALL.map(clsw::scan::Variant::name).into_iter().chain([clsw::scan::AUTO]).collect();
    assert!(scan.contains(&listed(variants)), "{scan}");
    for default in ["[default: tabular]", "[default: auto]", "[default: 50]", "[default: 10]"] {
        assert!(scan.contains(default), "{default}: {scan}");
    }
    let psse = help("psse");
    assert!(psse.contains(&listed(clsw::psse::Variant::ALL.map(clsw::psse::Variant::name).to_vec())));
    assert!(psse.contains("BLOSUM50") && !psse.contains("[default: BLOSUM62"), "{psse}");
    let distance = help("distance");
    assert!(distance.contains(&listed(clsw::distance::Metric::ALL.map(clsw::distance::Metric::name).to_vec())));
}

/// The options several commands share, each as `--help` names it (short and long).
const SHARED: [&str; 11] = [
    "-q --query",
    "-d --db",
    "-s --subject",
    "-o --out",
    "--device",
    "--portable",
    "--threads",
    "--quiet",
    "--progress",
    "--outfmt",
    "--variant",
];

/// Which command has which of [`SHARED`], in its order: `x` has it, `.` leaves it out
/// on purpose (no database in psse, no kernel variant in align and sw3, no device in
/// makedb, none to choose in devices, which self-tests them all, portable with
/// `CLSW_PORTABLE=1`, nothing for progress to follow in makedb, no reports beside the
/// tables of the benchmarks).
const TABLE: &str = "
command          -q  -d  -s  -o  device  portable  threads  quiet  progress  outfmt  variant
scan             x   x   .   x   x       x         x        x      x         x       x
psse             x   .   x   x   x       x         x        x      x         x       x
align            .   .   .   x   x       x         x        x      x         x       .
sw3              .   .   .   x   x       x         x        x      x         .       .
distance         .   .   .   x   x       x         x        x      x         x       x
makedb           .   .   .   x   .       .         x        x      .         .       .
devices          .   .   .   .   .       .         x        .      .         .       .
man              .   .   .   .   .       .         x        .      .         .       .
completions      .   .   .   .   .       .         x        .      .         .       .
bench            .   .   .   .   .       .         x        .      .         .       .
bench scan       .   x   .   .   x       x         x        .      .         .       .
bench search     x   x   .   .   x       x         x        .      .         .       .
bench distance   .   .   .   .   x       x         x        .      .         .       .
bench sw3        .   .   .   .   x       x         x        .      .         .       .
bench psse       .   .   .   .   x       x         x        .      .         .       .
";

/// The rows of [`TABLE`]: each command (`bench scan`) with its marks.
fn table() -> Vec<(String, Vec<bool>)> {
    let mut rows = TABLE.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = rows.next().unwrap().split_whitespace().collect();
    assert_eq!(header.len(), SHARED.len() + 1, "a column per shared option");
    rows.map(|row| {
        let words: Vec<&str> = row.split_whitespace().collect();
        let (command, marks) = words.split_at(words.len() - SHARED.len());
        (command.join(" "), marks.iter().map(|&m| m == "x").collect())
    })
    .collect()
}

/// `clsw COMMAND --help` (COMMAND may be `bench scan`).
fn help_of(command: &str) -> String {
    let args: Vec<&str> = command.split(' ').chain(["--help"]).collect();
    let (code, out, err) = clsw(&args);
    assert_eq!(code, 0, "clsw {command} --help: {err}");
    out
}

/// The names on an option's first line of `--help` (`-q, --query <QUERY>  ...` gives
/// `-q --query`), `None` for a line that starts no option: an option's line is indented
/// less than its help text, whose lists (`- pairwise: ...`) also start with `-`.
fn option_names(line: &str) -> Option<String> {
    let text = line.trim_start();
    if line.len() - text.len() > 6 || !text.starts_with('-') {
        return None;
    }
    let names: Vec<&str> =
        text.split_whitespace().take_while(|w| w.starts_with('-')).map(|w| w.trim_end_matches(',')).collect();
    Some(names.join(" "))
}

/// The help of the option named `names` (as [`option_names`] gives them) in `help`, its
/// lines joined, up to the next option or heading; `None` when `help` lists no such option.
fn option_help(help: &str, names: &str) -> Option<String> {
    let mut lines = help.lines().skip_while(|l| option_names(l).as_deref() != Some(names));
    let first = lines.next()?;
    let rest = lines.take_while(|l| option_names(l).is_none() && (l.is_empty() || l.starts_with(' ')));
    let text: Vec<&str> = std::iter::once(first).chain(rest).flat_map(str::split_whitespace).collect();
    Some(text.join(" "))
}

/// Every command's `--help` lists the shared options of its row of [`TABLE`] under the
/// same short and long names (and no other command uses those names), shows an example,
/// and states the defaults of a chosen set of options.
#[test]
fn every_help_lists_its_shared_options_an_example_and_the_defaults() {
    let psse_variant = format!("[default: {}]", clsw::psse::Variant::default().name());
    let defaults: Vec<(&str, &str, &str)> = vec![
        ("scan", "--max-hits", "[default: 50]"),
        ("scan", "--evalue", "[default: 10]"),
        ("scan", "--stats", "[default: auto]"),
        ("scan", "--outfmt", "[default: tabular]"),
        ("scan", "--variant", "[default: auto]"),
        ("scan", "--strand", "[default: both;"),
        ("scan", "--matrix", "[default: BLOSUM62 for protein, EDNAFULL for DNA]"),
        ("psse", "--matrix", "[default: BLOSUM50 for protein (prss's), EDNAFULL for DNA]"),
        ("psse", "--shuffles", "[default: 1000]"),
        ("psse", "--outfmt", "[default: auto]"),
        ("psse", "--variant", &psse_variant),
        ("align", "--outfmt", "[default: pairwise]"),
        ("align", "--width", "[default: 60]"),
        ("align", "--device", "[default: native]"),
        ("sw3", "--top", "[default: 20]"),
        ("sw3", "--sax-alphabet", "[default: 8]"),
        ("sw3", "--gap-open", "[default: the matrix's usual]"),
        ("distance", "--outfmt", "[default: square]"),
        ("distance", "--variant", "[default: bitplane]"),
        ("distance", "--metric", "[default: diff;"),
        ("makedb", "--alphabet", "[default: auto]"),
    ];
    for (command, marks) in table() {
        let help = help_of(&command);
        let example = help.lines().skip_while(|l| !l.starts_with("Example")).nth(1).map(str::trim);
        let of_itself = |e: &str| e == format!("clsw {command}") || e.starts_with(&format!("clsw {command} "));
        assert!(example.is_some_and(of_itself), "clsw {command} --help shows no example of itself:\n{help}");
        let listed: Vec<String> = help.lines().filter_map(option_names).collect();
        for (names, mark) in SHARED.iter().zip(marks) {
            // The short and the long name are each this option's alone.
            let clashes: Vec<&String> = listed
                .iter()
                .filter(|l| l.as_str() != *names && l.split(' ').any(|n| names.split(' ').any(|m| m == n)))
                .collect();
            assert!(clashes.is_empty(), "clsw {command}: {clashes:?} instead of {names}");
            let has = listed.iter().any(|l| l == names);
            assert_eq!(has, mark, "clsw {command} --help {} {names}", if has { "lists" } else { "lacks" });
        }
        // Options with a device state where it comes from when none is named.
        let device = option_help(&help, "--device");
        if let Some(device) = device.filter(|_| command != "align") {
            assert!(device.contains("[default: CLSW_DEVICE, else auto]"), "clsw {command}: {device}");
        }
        let portable = option_help(&help, "--portable");
        if let Some(portable) = portable.filter(|_| command != "align") {
            assert!(portable.contains("[default: CLSW_PORTABLE=1 turns it on]"), "clsw {command}: {portable}");
        }
        let threads = option_help(&help, "--threads").unwrap();
        assert!(threads.contains("[default: every core]"), "clsw {command}: {threads}");
    }
    for (command, option, default) in defaults {
        let help = help_of(command);
        let text = option_help(&help, option).unwrap_or_else(|| panic!("clsw {command} has no {option}"));
        assert!(text.contains(default), "clsw {command} {option} does not state {default}: {text}");
    }
}

/// Every error clsw prints starts `clsw: error:`, whether the command line parser
/// (clap) refuses an option or the library refuses an input; both exit with 2 and 1,
/// and nothing goes to standard output.
#[test]
fn errors_have_one_prefix_and_warnings_say_when_nothing_will_be_printed() {
    let (q, db) = (data("queries10.fasta"), data("uniprot300.fasta"));
    let (code, out, err) = clsw(&["scan", "-q", &q, "-d", &db, "--max-hits", "many"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.starts_with("clsw: error: invalid value 'many' for '--max-hits"), "{err}");
    let (code, out, err) = clsw(&["scan", "-q", &q, "-d", "no/such/file.fasta"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.starts_with("clsw: error: ") && err.contains("no/such/file.fasta"), "{err}");
    // The same in every job command: an option it does not know (clap), a file it
    // cannot read (the library).
    let missing = "no/such/file.fasta";
    for args in [
        vec!["psse", "-q", &q, "-s", missing],
        vec!["align", &q, missing],
        vec!["sw3", &q, &q, missing],
        vec!["distance", missing],
        vec!["makedb", missing, "-o", "no/such/out.clswdb"],
    ] {
        let (code, out, err) = clsw(&[&args[..], &["--no-such-option"]].concat());
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(err.starts_with("clsw: error: unexpected argument '--no-such-option'"), "{args:?}: {err}");
        let (code, out, err) = clsw(&args);
        assert_eq!((code, out.as_str()), (1, ""), "{args:?}: {err}");
        assert!(err.starts_with("clsw: error: ") && err.contains(missing), "{args:?}: {err}");
    }
    let (code, out, err) = clsw(&["scan", "-q", &q, "-d", &db, "--max-hits", "0"]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.starts_with("clsw: warning: --max-hits 0 reports no hit"), "{err}");
    // Plural agreement in the summary.
    let one = scratch("one_query.fasta", b">q\nMKYGVRYPKSGVHECMYGKRQAEQIWFLALRNGIAAVVVTDSGNGWEPS\n");
    let (code, _, err) = clsw(&["scan", "-q", one.to_str().unwrap(), "-d", &db]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("clsw: 1 query (49 residues) x 299 subjects") && err.contains("for 1 query"), "{err}");
}

/// `--quiet` leaves standard error empty on success (notes, warnings, progress and
/// summaries too; errors are still printed), and standard output as it was, over
/// `--progress`; `--progress` off a terminal prints lines on standard error and changes
/// nothing on standard output (psse and sw3 then compute in steps: the same results).
#[test]
fn quiet_silences_standard_error_and_progress_leaves_standard_output_alone() {
    // Every command that reads these notes that J is read as X.
    let q = scratch("report_q.fa", b">q1\nMKVLAAGIVGLLLAJ\n>q2\nMKVLSAGIVGLW\n");
    let t = scratch("report_t.fa", b">t1\nMKVLSAGIVGLLA\n>t2\nGGKVLAAGWVG\n>t3\nKVLAAGIVGL\n");
    let (db, aln) = (data("uniprot300.fasta"), data("distance/hand.fa"));
    let made = scratch_dir().join("report.clswdb");
    // Each command, and a line of its progress.
    let commands: [(Vec<&str>, &str); 5] = [
        (vec!["scan", "-q", s(&q), "-d", &db, "--max-hits", "3"], "clsw: query 2/2 q2 "),
        (vec!["psse", "-q", s(&q), "-s", s(&t), "--shuffles", "50", "--outfmt", "tsv"], "clsw: psse: 6/6 pairs"),
        (vec!["align", s(&q), s(&t), "--device", "gpu"], "clsw: align: 6/6 pairs"),
        (vec!["sw3", s(&q), s(&t), s(&t)], "clsw: sw3: 18/18 triples"),
        (vec!["distance", &aln], "clsw: distance: counting 5 sequences x 12 sites"),
    ];
    // sw3's first line holds its time.
    let untimed = |t: &str| t.lines().filter(|l| !l.starts_with("# clsw sw3")).collect::<Vec<_>>().join("\n");
    for (args, progress_line) in commands {
        let (code, plain, err) = clsw(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.is_empty() && !plain.is_empty(), "{args:?}: nothing on standard error to silence");
        let (code, quiet, err) = clsw(&[&args[..], &["--quiet", "--progress"]].concat());
        assert_eq!((code, err.as_str()), (0, ""), "{args:?} --quiet");
        assert_eq!(untimed(&quiet), untimed(&plain), "{args:?} --quiet");
        let (code, out, err) = clsw(&[&args[..], &["--progress"]].concat());
        assert_eq!(code, 0, "{args:?} --progress: {err}");
        assert_eq!(untimed(&out), untimed(&plain), "{args:?} --progress");
        assert!(err.contains(progress_line), "{args:?} --progress: {err}");
    }
    // makedb: its note on standard error, its summary on standard output; --quiet neither.
    let (code, out, err) = clsw(&["makedb", s(&q), "-o", s(&made)]);
    assert!(code == 0 && out.starts_with("wrote ") && err.contains("J x1"), "{out}{err}");
    let (code, out, err) = clsw(&["makedb", s(&q), "-o", s(&made), "--quiet"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let (code, _, err) = clsw(&["scan", "-q", s(&q), "-d", s(&made), "--quiet"]);
    assert_eq!((code, err.as_str()), (0, ""), "the database --quiet wrote");
}

/// Every command's `--help` ends with a worked example on the bundled data, and the
/// example runs (on the native path; the data directory and the output file put where
/// this test keeps them); the benchmarks' examples too, at sizes that take a moment.
#[test]
fn every_help_shows_an_example_that_runs() {
    let out_file = scratch_dir().join("example.clswdb");
    let commands = ["align", "scan", "makedb", "distance", "sw3", "psse", "devices"];
    let benchmarks = ["bench", "bench scan", "bench search", "bench distance", "bench sw3", "bench psse"];
    for command in commands.into_iter().chain(benchmarks) {
        let help = help_of(command);
        let example = help.lines().skip_while(|l| !l.starts_with("Example")).nth(1);
        let example = example.unwrap_or_else(|| panic!("clsw {command} --help shows no example:\n{help}"));
        let line = example.trim().strip_prefix("clsw ").unwrap_or_else(|| panic!("{example}"));
        if command == "devices" {
            continue; // its run is the engine's self-test, tested on its own
        }
        // Words, with the one double-quoted argument of scan's example kept whole.
        let mut args: Vec<String> = Vec::new();
        for (i, part) in line.split('"').enumerate() {
            if i % 2 == 1 {
                args.push(part.to_string());
            } else {
                args.extend(part.split_whitespace().map(str::to_string));
            }
        }
        let data = data_dir().to_str().unwrap().to_string();
        let args: Vec<String> = args
            .into_iter()
            .map(|a| a.replace("tests/data", &data))
            .map(|a| if a.ends_with(".clswdb") { out_file.to_str().unwrap().to_string() } else { a })
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = clsw(&args);
        assert_eq!(code, 0, "clsw {}: {err}", args.join(" "));
        assert!(!out.is_empty(), "clsw {} printed nothing", args.join(" "));
    }
}

/// The manual pages and the shell completions come from the same definitions as
/// `--help`: every command and option is in them.
#[test]
fn manual_pages_and_completions_follow_the_command_line() {
    let (code, man, err) = clsw(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(man.contains(".TH clsw 1"), "{man}");
    for command in ["scan", "align", "psse", "distance", "sw3", "makedb", "devices"] {
        assert!(man.contains(command), "clsw's page does not name {command}");
    }
    let (code, scan, err) = clsw(&["man", "scan"]);
    assert_eq!(code, 0, "{err}");
    assert!(scan.contains(".TH clsw-scan 1") && scan.contains("\\-\\-max\\-hsps"), "{scan}");
    let (code, _, err) = clsw(&["man", "nope"]);
    assert_eq!(code, 1);
    assert!(err.contains("no command 'nope'; commands are devices, align, scan"), "{err}");
    for (shell, marker) in [("bash", "_clsw()"), ("zsh", "#compdef clsw"), ("fish", "complete -c clsw")] {
        let (code, script, err) = clsw(&["completions", shell]);
        assert_eq!(code, 0, "{err}");
        assert!(script.contains(marker) && script.contains("max-hsps"), "{shell}: {script}");
    }
}
