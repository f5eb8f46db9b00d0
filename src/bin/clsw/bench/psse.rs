//! `clsw bench psse`: pairs and shuffle alignments per second per device and kernel
//! variant, beside ssearch36 -k on a sample of pairs.

use super::{median_of_runs, print_row, rng, ssearch_matrix, timed, write_csv};
use crate::args::DeviceArgs;
use crate::psse::describe;
use clap::Args;
use clsw::device::{Backend, DeviceChoice};
use clsw::psse::{self, PsseOptions, Variant};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, EmptyRecords, fasta};
use clsw::words::counted;
use clsw::{Engine, Error, Result};
use std::path::{Path, PathBuf};

/// The printed table's columns: variant, device, pairs, shuffles, cells, e2e_s, kernel_s,
/// shuf_s, pairs/s, aligns/s, GCUPS, kGCUPS.
const LAYOUT: &str = "<8 <40 >7 >8 >11 >9 >9 >9 >10 >12 >9 >9";

const CSV_HEADER: &str =
    "variant,device,pairs,shuffles,cells,e2e_s,kernel_s,shuffle_s,pairs_per_s,aligns_per_s,gcups,kernel_gcups";

#[derive(Args)]
pub struct BenchPsseArgs {
    /// Query FASTA [default: generated random proteins].
    #[arg(long)]
    queries: Option<PathBuf>,
    /// Subject FASTA [default: generated random proteins].
    #[arg(long)]
    subjects: Option<PathBuf>,
    /// Queries used (the first ones of --queries, or generated).
    #[arg(long, default_value_t = 1)]
    num_queries: usize,
    /// Subjects used (the first ones of --subjects, or generated).
    #[arg(long, default_value_t = 100)]
    num_subjects: usize,
    /// Generated sequences' length; with files, records longer than this are skipped
    /// [default: 300 when generated, no limit with files].
    #[arg(long)]
    length: Option<usize>,
    /// Shuffles per subject.
    #[arg(long, default_value_t = 1000)]
    shuffles: usize,
    /// Kernel variants for OpenCL devices; "native" adds the native CPU path.
    #[arg(long, value_delimiter = ',', default_value = "team,inter,native")]
    variants: Vec<String>,
    #[command(flatten)]
    device: DeviceArgs,
    #[arg(long, default_value = clsw::psse::DEFAULT_MATRICES.protein)]
    matrix: String,
    #[arg(long, default_value_t = 10)]
    gap_open: i32,
    #[arg(long, default_value_t = 2)]
    gap_extend: i32,
    /// Timed runs per row (the median is reported), after a warm-up on every query x 10
    /// subjects.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Also time ssearch36 -k SHUFFLES on this many pairs, spread evenly over all the
    /// pairs (one process per pair, as many at once as there are CPU threads), and report
    /// clsw's speed-up over it.
    #[arg(long, default_value_t = 0)]
    ssearch_pairs: usize,
    /// The ssearch36 executable.
    #[arg(long, default_value = "ssearch36")]
    ssearch: String,
    /// Also write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
}

/// `count` random proteins of `len` residues (codes of the 20 amino acids).
fn generated(count: usize, len: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = rng(seed);
    (0..count).map(|_| (0..len).map(|_| ((rng.next_u64() >> 33) % 20) as u8).collect()).collect()
}

fn bench_set(path: &Option<PathBuf>, count: usize, length: Option<usize>, seed: u64) -> Result<Vec<Vec<u8>>> {
    match path {
        None => Ok(generated(count, length.unwrap_or(300), seed)),
        Some(p) => {
            let (seqs, _) = fasta::read_file(p, Alphabet::Protein, EmptyRecords::Skip)?;
            let limit = length.unwrap_or(usize::MAX);
            let set: Vec<Vec<u8>> =
                seqs.into_iter().filter(|s| s.len() <= limit).take(count).map(|s| s.residues).collect();
            if set.len() < count {
                eprintln!("clsw: {}: only {} records (of length <= {limit})", p.display(), set.len());
            }
            Ok(set)
        }
    }
}

struct Row {
    variant: String,
    device: String,
    pairs: usize,
    shuffles: usize,
    cells: u64,
    e2e_s: f64,
    kernel_s: f64,
    shuffle_s: f64,
}

impl Row {
    fn pairs_per_s(&self) -> f64 {
        self.pairs as f64 / self.e2e_s
    }
    fn alignments_per_s(&self) -> f64 {
        (self.pairs * (self.shuffles + 1)) as f64 / self.e2e_s
    }
    fn gcups(&self, s: f64) -> f64 {
        if s > 0.0 { self.cells as f64 / s * 1e-9 } else { 0.0 }
    }
}

pub fn run(args: &BenchPsseArgs) -> Result<()> {
    let scoring = Scoring::new(Matrix::builtin_or_file(&args.matrix)?, Gaps::affine(args.gap_open, args.gap_extend)?);
    let queries = bench_set(&args.queries, args.num_queries, args.length, 1)?;
    let subjects = bench_set(&args.subjects, args.num_subjects, args.length, 2)?;
    let pairs = queries.len() * subjects.len();
    let residues = |v: &[Vec<u8>]| v.iter().map(|s| s.len()).sum::<usize>();
    println!(
        "# clsw bench psse: {} ({} aa) x {} subjects ({} aa) x {} shuffles, {}; median of {} runs after a \
         warm-up on every query x 10 subjects; e2e_s = host clock around psse_run (shuffles, alignments, fits); kernel_s / shuffle_s = device time \
         of the alignment / shuffle kernels (profiling events); cells = m n (shuffles + 1) per pair",
        counted(queries.len() as u64, "query", "queries"),
        residues(&queries),
        subjects.len(),
        residues(&subjects),
        args.shuffles,
        describe(&scoring),
        args.runs
    );
    let mut engines: Vec<(String, String, Engine, Variant)> = Vec::new();
    for v in &args.variants {
        if v.eq_ignore_ascii_case("native") {
            let engine = Engine::new(DeviceChoice::Native)?;
            engines.push(("native".into(), engine.describe().join(", "), engine, Variant::default()));
            continue;
        }
        let variant: Variant = v.parse()?;
        // An engine per OpenCL device of --device (the native path is the variant `native`).
        let spec = args.device.spec()?;
        for backend in spec.select()?.into_iter().filter(|b| matches!(b, Backend::OpenCl(_))) {
            let engine = Engine::from_backends(vec![backend], spec.portable())?;
            engines.push((variant.name().into(), engine.describe().join(", "), engine, variant));
        }
    }
    print_row(
        LAYOUT,
        &[
            "variant", "device", "pairs", "shuffles", "cells", "e2e_s", "kernel_s", "shuf_s", "pairs/s", "aligns/s",
            "GCUPS", "kGCUPS",
        ],
    );
    let mut rows = Vec::new();
    for (variant_name, label, engine, variant) in &engines {
        let opts = PsseOptions { shuffles: args.shuffles, variant: *variant, ..PsseOptions::new(scoring.clone()) };
        // Warm-up on every query against a few subjects (each query's kernel build: the
        // rows per work-item follow its length), then the timed runs.
        psse::psse_run(engine, &queries, &subjects[..10.min(subjects.len())], &opts)?;
        let time = median_of_runs(args.runs, || psse::psse_run(engine, &queries, &subjects, &opts), |_| 0.0)?;
        let r = time.last;
        let failed = r.pairs.iter().filter(|p| p.is_err()).count();
        if failed > 0 {
            eprintln!("clsw: {label}: {} not be fitted", counted(failed as u64, "pair could", "pairs could"));
        }
        let row = Row {
            variant: variant_name.clone(),
            device: label.chars().take(40).collect(),
            pairs,
            shuffles: args.shuffles,
            cells: r.stats.cells,
            e2e_s: time.e2e_s,
            kernel_s: r.stats.align_seconds,
            shuffle_s: r.stats.shuffle_seconds,
        };
        print_row(
            LAYOUT,
            &[
                row.variant.clone(),
                row.device.clone(),
                row.pairs.to_string(),
                row.shuffles.to_string(),
                format!("{:.4e}", row.cells as f64),
                format!("{:.3}", row.e2e_s),
                format!("{:.3}", row.kernel_s),
                format!("{:.4}", row.shuffle_s),
                format!("{:.1}", row.pairs_per_s()),
                format!("{:.4e}", row.alignments_per_s()),
                format!("{:.1}", row.gcups(row.e2e_s)),
                format!("{:.1}", row.gcups(row.kernel_s)),
            ],
        );
        rows.push(row);
    }
    if args.ssearch_pairs > 0 {
        let (n, secs) = time_ssearch(args, &queries, &subjects, &scoring)?;
        let pps = n as f64 / secs;
        let cells: u64 = (0..n)
            .map(|i| {
                let (q, s) = sampled_pair(i, n, queries.len(), subjects.len());
                (queries[q].len() * subjects[s].len()) as u64
            })
            .sum::<u64>()
            * (args.shuffles as u64 + 1);
        println!(
            "# ssearch36 -k {}: {n} pairs in {secs:.2} s on {} threads: {pps:.2} pairs/s, {:.2} GCUPS",
            args.shuffles,
            rayon::current_num_threads(),
            cells as f64 / secs * 1e-9
        );
        for r in &rows {
            println!("# {} on {}: {:.1} x ssearch36 -k (pairs/s)", r.variant, r.device, r.pairs_per_s() / pps);
        }
    }
    if let Some(path) = &args.csv {
        let lines: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "{},\"{}\",{},{},{},{:.6},{:.6},{:.6},{:.3},{:.1},{:.3},{:.3}",
                    r.variant,
                    r.device,
                    r.pairs,
                    r.shuffles,
                    r.cells,
                    r.e2e_s,
                    r.kernel_s,
                    r.shuffle_s,
                    r.pairs_per_s(),
                    r.alignments_per_s(),
                    r.gcups(r.e2e_s),
                    r.gcups(r.kernel_s)
                )
            })
            .collect();
        write_csv(path, CSV_HEADER, &lines)?;
    }
    Ok(())
}

/// Pair `i` of `n` sampled evenly from the `queries x subjects` pairs (query-major), so
/// the sample has the mix of query lengths of the whole run: (query, subject).
fn sampled_pair(i: usize, n: usize, queries: usize, subjects: usize) -> (usize, usize) {
    let pair = (i as u128 * (queries * subjects) as u128 / n.max(1) as u128) as usize;
    (pair / subjects, pair % subjects)
}

/// Runs ssearch36 -k on `ssearch_pairs` pairs ([`sampled_pair`]), one single-threaded
/// process per pair, as many at once as rayon has threads. Returns (pairs, wall seconds).
fn time_ssearch(args: &BenchPsseArgs, queries: &[Vec<u8>], subjects: &[Vec<u8>], sc: &Scoring) -> Result<(usize, f64)> {
    use rayon::prelude::*;
    let n = args.ssearch_pairs.min(queries.len() * subjects.len());
    let dir = std::env::temp_dir().join(format!("clsw-bench-psse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let letters = |s: &[u8]| String::from_utf8_lossy(&Alphabet::Protein.decode_all(s)).into_owned();
    let write = |path: &Path, name: &str, s: &[u8]| {
        std::fs::write(path, format!(">{name}\n{}\n", letters(s))).map_err(|e| Error::io(path, e))
    };
    for i in 0..n {
        let (q, s) = sampled_pair(i, n, queries.len(), subjects.len());
        write(&dir.join(format!("q{i}.fa")), &format!("q{i}"), &queries[q])?;
        write(&dir.join(format!("s{i}.fa")), &format!("s{i}"), &subjects[s])?;
    }
    let (results, secs) = timed(|| {
        (0..n)
            .into_par_iter()
            .map(|i| {
                let status = std::process::Command::new(&args.ssearch)
                    .args(["-q", "-p", "-T", "1", "-b", "1", "-d", "0", "-s", &ssearch_matrix(sc.matrix.name())])
                    .args(["-f", &format!("-{}", sc.gaps.open), "-g", &format!("-{}", sc.gaps.extend)])
                    .args(["-k", &args.shuffles.to_string()])
                    .arg(dir.join(format!("q{i}.fa")))
                    .arg(dir.join(format!("s{i}.fa")))
                    .stdout(std::process::Stdio::null())
                    .status()
                    .map_err(|e| Error::io(&args.ssearch, e))?;
                if status.success() {
                    Ok(())
                } else {
                    Err(Error::InvalidArgument(format!("{} failed: {status}", args.ssearch)))
                }
            })
            .collect::<Vec<Result<()>>>()
    });
    let _ = std::fs::remove_dir_all(&dir);
    results.into_iter().collect::<Result<()>>()?;
    Ok((n, secs))
}
