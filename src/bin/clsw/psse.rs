//! `clsw psse` (pairwise statistical significance from shuffles: a prss-like summary for
//! one pair, a TSV table for many) and `clsw bench psse` (pairs and shuffle alignments per
//! second per device and kernel variant, beside ssearch36 -k on a sample of pairs).

use clap::{Args, ValueEnum};
use clsw::device::{Backend, DeviceChoice, DeviceSpec};
use clsw::psse::{self, PsseOptions, PsseResult, Variant};
use clsw::scoring::{Gaps, Matrix, Scoring};
use clsw::seq::{Alphabet, EmptyRecords, Sequence, fasta};
use clsw::{Engine, Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PsseFormat {
    /// A summary for one pair, a table for several.
    Auto,
    /// A prss-like report per pair.
    Summary,
    /// One tab-separated line per pair: query, subject, score, mu, lambda, K, P, E.
    Tsv,
}

#[derive(Args)]
pub struct PsseArgs {
    /// Query FASTA (plain or gzip): every record is compared with every subject.
    #[arg(long)]
    query: PathBuf,
    /// Subject FASTA (plain or gzip): the sequences that are shuffled.
    #[arg(long)]
    subject: PathBuf,
    /// Shuffles per subject.
    #[arg(long, default_value_t = 1000)]
    shuffles: usize,
    /// Shuffle within windows of this many residues (local composition kept, like
    /// prss -v); 0 shuffles the whole subject.
    #[arg(long, default_value_t = 0)]
    window: usize,
    /// Seed of the shuffles' generator (same seed, same shuffles on every device).
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Censored fit: shuffle scores below this quantile (e.g. 0.5) are counted but not
    /// used [default: complete fit].
    #[arg(long)]
    censor_below: Option<f64>,
    /// Devices: auto, gpu, cpu, reference, all, an index or a name [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
    /// Alignment kernel on OpenCL devices: fast (two shuffles per work-item, 16-bit
    /// lanes) or inter (one per work-item).
    #[arg(long, default_value = "fast")]
    kernel: String,
    /// Output: a prss-like summary per pair, or one TSV line per pair (query, subject,
    /// score, mu, lambda, K, P, E); auto is the summary for one pair, TSV for more.
    #[arg(long, value_enum, default_value_t = PsseFormat::Auto)]
    format: PsseFormat,
    /// Show a histogram of the shuffle scores beside the fitted distribution (summary).
    #[arg(long)]
    histogram: bool,
    // Last: the heading applies to every argument after it.
    #[command(flatten, next_help_heading = "Scoring (protein default here: BLOSUM50, gap open 10, extend 2, as prss)")]
    scoring: super::ScoringArgs,
}

fn describe(sc: &Scoring) -> String {
    format!(
        "{}, gap open {}, extend {} (a gap of length L costs {} + {}L)",
        sc.matrix.name(),
        sc.gaps.open,
        sc.gaps.extend,
        sc.gaps.open,
        sc.gaps.extend
    )
}

pub fn run(args: &PsseArgs) -> Result<()> {
    let alphabet = args.scoring.alphabet_for(&args.query)?;
    let scoring = args.scoring.request().resolve(alphabet, clsw::psse::DEFAULT_MATRICES)?;
    let queries = super::read_sequences(&args.query, alphabet)?;
    let subjects = super::read_sequences(&args.subject, alphabet)?;
    let opts = PsseOptions {
        shuffles: args.shuffles,
        window: args.window,
        seed: args.seed,
        censor_below: args.censor_below,
        variant: args.kernel.parse()?,
        keep_scores: args.histogram,
        ..PsseOptions::new(scoring)
    };
    let engine = Engine::open(args.device.as_deref())?;
    let q: Vec<&[u8]> = queries.iter().map(|s| s.residues.as_slice()).collect();
    let s: Vec<&[u8]> = subjects.iter().map(|s| s.residues.as_slice()).collect();
    let run = psse::psse_run(&engine, &q, &s, &opts)?;
    let summary = match args.format {
        PsseFormat::Auto => run.pairs.len() == 1,
        PsseFormat::Summary => true,
        PsseFormat::Tsv => false,
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let io = |e| Error::io("standard output", e);
    let mut failed = Vec::new();
    if !summary {
        writeln!(out, "query\tsubject\tscore\tmu\tlambda\tK\tP\tE").map_err(io)?;
    }
    for (i, r) in run.pairs.iter().enumerate() {
        let (qs, ss) = (&queries[i / subjects.len()], &subjects[i % subjects.len()]);
        match (r, summary) {
            (Ok(r), true) => write_summary(&mut out, qs, ss, r, &opts, &engine, args.histogram).map_err(io)?,
            (Ok(r), false) => writeln!(
                out,
                "{}\t{}\t{}\t{:.4}\t{:.5}\t{:.5e}\t{:.4e}\t{:.4e}",
                qs.id, ss.id, r.score, r.mu, r.lambda, r.k, r.p_value, r.e_value
            )
            .map_err(io)?,
            (Err(e), true) => {
                writeln!(
                    out,
                    "{} (length {}) vs {} (length {}): no statistics: {e}\n",
                    qs.id,
                    qs.len(),
                    ss.id,
                    ss.len()
                )
                .map_err(io)?;
                failed.push(format!("{} vs {}: {e}", qs.id, ss.id));
            }
            (Err(e), false) => {
                writeln!(out, "{}\t{}\tNA\tNA\tNA\tNA\tNA\tNA", qs.id, ss.id).map_err(io)?;
                failed.push(format!("{} vs {}: {e}", qs.id, ss.id));
            }
        }
    }
    out.flush().map_err(io)?;
    if !failed.is_empty() {
        eprintln!("clsw: psse: {} pair(s) without statistics (NA):", failed.len());
        for f in failed.iter().take(10) {
            eprintln!("  {f}");
        }
        if failed.len() == run.pairs.len() {
            return Err(Error::InvalidArgument("no pair could be fitted".into()));
        }
    }
    Ok(())
}

fn write_summary(
    out: &mut impl Write,
    q: &Sequence,
    s: &Sequence,
    r: &PsseResult,
    opts: &PsseOptions,
    engine: &Engine,
    histogram: bool,
) -> std::io::Result<()> {
    writeln!(out, "clsw psse: pairwise statistical significance from shuffles")?;
    let unit = if opts.scoring.matrix.alphabet() == Alphabet::Dna { "nt" } else { "aa" };
    writeln!(out, "query:    {} ({} {unit})", q.id, q.len())?;
    writeln!(out, "subject:  {} ({} {unit})", s.id, s.len())?;
    writeln!(out, "scoring:  {}", describe(&opts.scoring))?;
    let how = if opts.window > 0 { format!("in windows of {}", opts.window) } else { "uniform".to_string() };
    writeln!(out, "shuffles: {} of the subject ({how}), seed {}", r.shuffles, opts.seed)?;
    writeln!(out, "device:   {}", engine.describe().join(", "))?;
    writeln!(out)?;
    writeln!(out, "unshuffled s-w score: {}", r.score)?;
    if !r.shuffle_scores.is_empty() {
        let n = r.shuffle_scores.len() as f64;
        let mean = r.shuffle_scores.iter().map(|&v| v as f64).sum::<f64>() / n;
        let sd = (r.shuffle_scores.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let (lo, hi) = (r.shuffle_scores.iter().min().unwrap(), r.shuffle_scores.iter().max().unwrap());
        writeln!(out, "shuffled scores:      mean {mean:.2}, sd {sd:.2}, range {lo} to {hi}")?;
    }
    match r.cutoff {
        Some(c) => writeln!(
            out,
            "Gumbel ML fit (censored: {} scores below {c} counted, not used): mu {:.3}, lambda {:.4}, K {:.4}",
            r.censored, r.mu, r.lambda, r.k
        )?,
        None => writeln!(out, "Gumbel ML fit (complete): mu {:.3}, lambda {:.4}, K {:.4}", r.mu, r.lambda, r.k)?,
    }
    writeln!(out, "P(S >= {}) = {:.4e}   E = K m n exp(-lambda S) = {:.4e}", r.score, r.p_value, r.e_value)?;
    if r.recomputed > 0 {
        writeln!(out, "({} alignments recomputed at 32 bits after 16-bit saturation)", r.recomputed)?;
    }
    if histogram && !r.shuffle_scores.is_empty() {
        write_histogram(out, r)?;
    }
    writeln!(out)
}

/// prss-style: observed counts per score bin, the fitted Gumbel's expectation, a bar.
fn write_histogram(out: &mut impl Write, r: &PsseResult) -> std::io::Result<()> {
    let (lo, hi) = (*r.shuffle_scores.iter().min().unwrap(), *r.shuffle_scores.iter().max().unwrap());
    let width = ((hi - lo + 1) as usize).div_ceil(30).max(1) as i32;
    let n = r.shuffle_scores.len() as f64;
    let g = clsw::stats::Gumbel { mu: r.mu, lambda: r.lambda };
    let bins = ((hi - lo) / width + 1) as usize;
    let mut counts = vec![0usize; bins];
    for &v in &r.shuffle_scores {
        counts[((v - lo) / width) as usize] += 1;
    }
    let top = *counts.iter().max().unwrap_or(&1) as f64;
    writeln!(out, "\n  score   obs    exp")?;
    for (b, &c) in counts.iter().enumerate() {
        let from = lo + b as i32 * width;
        let to = from + width - 1;
        let exp = n * (g.cdf(to as f64 + 0.5) - g.cdf(from as f64 - 0.5));
        let bar = "=".repeat((c as f64 / top * 50.0).round() as usize);
        let label = if width == 1 { format!("{from}") } else { format!("{from}-{to}") };
        let mark = if (from..=to).contains(&r.score) { " <- real score" } else { "" };
        writeln!(out, "{label:>7} {c:>5} {exp:>6.1} {bar}{mark}")?;
    }
    if r.score > hi {
        writeln!(out, "  (the real score {} lies above every shuffle)", r.score)?;
    }
    Ok(())
}

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
    #[arg(long, value_delimiter = ',', default_value = "fast,inter,native")]
    variants: Vec<String>,
    /// Devices (as for --device elsewhere) [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
    #[arg(long, default_value = "BLOSUM50")]
    matrix: String,
    #[arg(long, default_value_t = 10)]
    gap_open: i32,
    #[arg(long, default_value_t = 2)]
    gap_extend: i32,
    /// Timed runs per row (the median is reported), after a warm-up on 1 query x 10
    /// subjects.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Also time ssearch36 -k SHUFFLES on this many pairs (one process per pair, as many
    /// at once as there are CPU threads) and report clsw's speed-up over it.
    #[arg(long, default_value_t = 0)]
    ssearch_pairs: usize,
    /// The ssearch36 executable.
    #[arg(long, default_value = "ssearch36")]
    ssearch: String,
    /// Also write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
}

fn generated(count: usize, len: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..count)
        .map(|_| {
            (0..len)
                .map(|_| {
                    x ^= x >> 12;
                    x ^= x << 25;
                    x ^= x >> 27;
                    ((x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % 20) as u8
                })
                .collect()
        })
        .collect()
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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

pub fn run_bench(args: &BenchPsseArgs) -> Result<()> {
    let scoring = Scoring::new(Matrix::builtin_or_file(&args.matrix)?, Gaps::affine(args.gap_open, args.gap_extend)?);
    let queries = bench_set(&args.queries, args.num_queries, args.length, 1)?;
    let subjects = bench_set(&args.subjects, args.num_subjects, args.length, 2)?;
    let pairs = queries.len() * subjects.len();
    let residues = |v: &[Vec<u8>]| v.iter().map(|s| s.len()).sum::<usize>();
    println!(
        "# clsw bench psse: {} queries ({} aa) x {} subjects ({} aa) x {} shuffles, {}; median of {} runs after a \
         small warm-up; e2e_s = host clock around psse_run (shuffles, alignments, fits); kernel_s / shuffle_s = device time \
         of the alignment / shuffle kernels (profiling events); cells = m n (shuffles + 1) per pair",
        queries.len(),
        residues(&queries),
        subjects.len(),
        residues(&subjects),
        args.shuffles,
        describe(&scoring),
        args.runs
    );
    let mut engines: Vec<(String, String, Engine, Variant)> = Vec::new();
    let choice = DeviceSpec::resolve(args.device.as_deref())?;
    for v in &args.variants {
        if v.eq_ignore_ascii_case("native") {
            engines.push(("native".into(), Backend::Native.label(), Engine::new(DeviceChoice::Native)?, Variant::Fast));
            continue;
        }
        let variant: Variant = v.parse()?;
        for b in choice.select()? {
            if let Backend::OpenCl(info) = b {
                let label = info.label();
                engines.push((variant.name().into(), label, Engine::new(DeviceChoice::Index(info.index))?, variant));
            }
        }
    }
    println!(
        "{:<8} {:<40} {:>7} {:>8} {:>11} {:>9} {:>9} {:>9} {:>10} {:>12} {:>9} {:>9}",
        "variant",
        "device",
        "pairs",
        "shuffles",
        "cells",
        "e2e_s",
        "kernel_s",
        "shuf_s",
        "pairs/s",
        "aligns/s",
        "GCUPS",
        "kGCUPS"
    );
    let mut rows = Vec::new();
    for (variant_name, label, engine, variant) in &engines {
        let opts = PsseOptions { shuffles: args.shuffles, variant: *variant, ..PsseOptions::new(scoring.clone()) };
        // Warm-up on a small part (kernel builds, first allocations), then the timed runs.
        psse::psse_run(engine, &queries[..1.min(queries.len())], &subjects[..10.min(subjects.len())], &opts)?;
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..args.runs.max(1) {
            let t = Instant::now();
            let r = psse::psse_run(engine, &queries, &subjects, &opts)?;
            times.push(t.elapsed().as_secs_f64());
            last = Some(r);
        }
        let r = last.unwrap();
        let failed = r.pairs.iter().filter(|p| p.is_err()).count();
        if failed > 0 {
            eprintln!("clsw: {label}: {failed} pair(s) could not be fitted");
        }
        let row = Row {
            variant: variant_name.clone(),
            device: label.chars().take(40).collect(),
            pairs,
            shuffles: args.shuffles,
            cells: r.stats.cells,
            e2e_s: median(times),
            kernel_s: r.stats.align_seconds,
            shuffle_s: r.stats.shuffle_seconds,
        };
        println!(
            "{:<8} {:<40} {:>7} {:>8} {:>11.4e} {:>9.3} {:>9.3} {:>9.4} {:>10.1} {:>12.4e} {:>9.1} {:>9.1}",
            row.variant,
            row.device,
            row.pairs,
            row.shuffles,
            row.cells as f64,
            row.e2e_s,
            row.kernel_s,
            row.shuffle_s,
            row.pairs_per_s(),
            row.alignments_per_s(),
            row.gcups(row.e2e_s),
            row.gcups(row.kernel_s)
        );
        rows.push(row);
    }
    if args.ssearch_pairs > 0 {
        let (n, secs) = time_ssearch(args, &queries, &subjects, &scoring)?;
        let pps = n as f64 / secs;
        let cells: u64 = (0..n)
            .map(|i| (queries[i / subjects.len()].len() * subjects[i % subjects.len()].len()) as u64)
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
        let mut text = String::from(
            "variant,device,pairs,shuffles,cells,e2e_s,kernel_s,shuffle_s,pairs_per_s,aligns_per_s,gcups,kernel_gcups\n",
        );
        for r in &rows {
            text.push_str(&format!(
                "{},\"{}\",{},{},{},{:.6},{:.6},{:.6},{:.3},{:.1},{:.3},{:.3}\n",
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
            ));
        }
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// ssearch36's name for a built-in matrix (BLOSUM50 -> BL50), else the name as given.
fn ssearch_matrix(name: &str) -> String {
    match name.to_ascii_uppercase().strip_prefix("BLOSUM") {
        Some(d) if d == "50" || d == "62" || d == "80" => format!("BL{d}"),
        _ => name.to_string(),
    }
}

/// Runs ssearch36 -k on the first `ssearch_pairs` pairs, one single-threaded process per
/// pair, as many at once as rayon has threads. Returns (pairs, wall seconds).
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
        write(&dir.join(format!("q{i}.fa")), &format!("q{i}"), &queries[i / subjects.len()])?;
        write(&dir.join(format!("s{i}.fa")), &format!("s{i}"), &subjects[i % subjects.len()])?;
    }
    let t = Instant::now();
    let results: Vec<Result<()>> = (0..n)
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
        .collect();
    let secs = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    results.into_iter().collect::<Result<()>>()?;
    Ok((n, secs))
}
