//! `clsw psse`: pairwise statistical significance from shuffles, a prss-like summary for
//! one pair, a TSV table for many.

use crate::progress::{Progress, STEPS};
use clap::{Args, ValueEnum};
use clsw::mpi::Comm;
use clsw::psse::{self, PairBlock, PsseOptions, PsseResult};
use clsw::scoring::Scoring;
use clsw::seq::{Alphabet, Sequence};
use clsw::words::counted;
use clsw::{Engine, Error, Result};
use std::io::Write;
use std::path::PathBuf;

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
#[command(mut_arg("matrix", |a| a.help(
    "Built-in matrix (BLOSUM45/50/62/80/90, PAM30/70/250, EDNAFULL) or an NCBI-format matrix file \
     [default: BLOSUM50 for protein (prss's), EDNAFULL for DNA]"
)))]
pub struct PsseArgs {
    /// Query FASTA (plain or gzip): every record is compared with every subject.
    #[arg(long, short = 'q')]
    query: PathBuf,
    /// Subject FASTA (plain or gzip): the sequences that are shuffled.
    #[arg(long, short = 's')]
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
    #[command(flatten)]
    device: crate::args::DeviceArgs,
    /// Kernel variant on OpenCL devices: team (two shuffles per team of work-items,
    /// 16-bit lanes) or inter (one per work-item).
    #[arg(
        long,
        alias = "kernel",
        default_value = clsw::psse::Variant::default().name(),
        value_parser = crate::args::Names::checked(
            clsw::psse::Variant::ALL.map(clsw::psse::Variant::name),
            |s| clsw::psse::Variant::choice(s).map(drop),
        ),
    )]
    variant: String,
    /// Output: a prss-like summary per pair, or one TSV line per pair (query, subject,
    /// score, mu, lambda, K, P, E); auto is the summary for one pair, TSV for more.
    #[arg(long = "outfmt", visible_alias = "format", value_enum, default_value_t = PsseFormat::Auto)]
    format: PsseFormat,
    #[command(flatten)]
    output: crate::args::OutArgs,
    /// Show a histogram of the shuffle scores beside the fitted distribution (summary).
    #[arg(long)]
    histogram: bool,
    #[command(flatten)]
    report: crate::args::ReportArgs,
    // Last: the heading applies to every argument after it.
    #[command(flatten, next_help_heading = "Scoring (protein default here: BLOSUM50, gap open 10, extend 2, as prss)")]
    scoring: crate::args::ScoringArgs,
}

/// The scoring as the summary and `clsw bench psse` state it.
pub fn describe(sc: &Scoring) -> String {
    format!(
        "{}, gap open {}, extend {} (a gap of length L costs {} + {}L)",
        sc.matrix.name(),
        sc.gaps.open,
        sc.gaps.extend,
        sc.gaps.open,
        sc.gaps.extend
    )
}

/// What psse reads before any work.
struct Inputs {
    queries: Vec<Sequence>,
    subjects: Vec<Sequence>,
    opts: PsseOptions,
    engine: Engine,
}

fn prepare(args: &PsseArgs) -> Result<Inputs> {
    let alphabet = args.scoring.alphabet_for(&args.query)?;
    let scoring = args.scoring.request().resolve(alphabet, clsw::psse::DEFAULT_MATRICES)?;
    let queries = crate::args::read_sequences(&args.query, alphabet, &args.report)?;
    let subjects = crate::args::read_sequences(&args.subject, alphabet, &args.report)?;
    let opts = PsseOptions {
        shuffles: args.shuffles,
        window: args.window,
        seed: args.seed,
        censor_below: args.censor_below,
        variant: clsw::psse::Variant::choice(&args.variant)?,
        keep_scores: args.histogram,
        ..PsseOptions::new(scoring)
    };
    opts.validate()?;
    let engine = Engine::new(args.device.spec()?)?;
    Ok(Inputs { queries, subjects, opts, engine })
}

/// `clsw psse`: one process, or (`ranks`) one rank of an MPI job, whose rank 0 writes
/// what one process writes.
pub fn run(args: &PsseArgs, ranks: Option<&dyn Comm>) -> Result<()> {
    let inputs = clsw::mpi::agree_if(ranks, prepare(args))?;
    let Inputs { queries, subjects, opts, engine } = &inputs;
    let q: Vec<&[u8]> = queries.iter().map(|s| s.residues.as_slice()).collect();
    let s: Vec<&[u8]> = subjects.iter().map(|s| s.residues.as_slice()).collect();
    let pairs = match ranks {
        None => pairs_with_progress(args, engine, &q, &s, opts).map(Some),
        // The ranks share the pairs in one call: no progress.
        Some(comm) => {
            let speed = clsw::mpi::psse_speed(engine, &q, &s, opts);
            clsw::mpi::psse_run(comm, engine, &q, &s, opts, speed).map(|run| run.map(|run| run.pairs))
        }
    };
    // Rank 0 writes; every rank learns whether it could (and of what failed on rank 0
    // alone: reading the ranks' results).
    let written = pairs.and_then(|pairs| pairs.as_deref().map_or(Ok(()), |pairs| write_run(args, &inputs, pairs)));
    clsw::mpi::agree_if(ranks, written)
}

/// Every pair's outcome, query-major: [`psse::psse_run`]'s in one call, or, with progress
/// shown, in [`STEPS`] blocks of pairs, the bar advancing by each block's cells (a pair's
/// shuffles are keyed by its subject, so [`psse::psse_block`] gives the same outcomes).
fn pairs_with_progress(
    args: &PsseArgs,
    engine: &Engine,
    q: &[&[u8]],
    s: &[&[u8]],
    opts: &PsseOptions,
) -> Result<Vec<Result<PsseResult>>> {
    let residues =
        |set: &[&[u8]], range: std::ops::Range<usize>| -> u64 { set[range].iter().map(|x| x.len() as u64).sum() };
    let cells = |b: &PairBlock| residues(q, b.queries.clone()) * residues(s, b.subjects.clone());
    let total = q.len() * s.len();
    let all = PairBlock { queries: 0..q.len(), subjects: 0..s.len() };
    let progress = Progress::new(&args.report, Some(cells(&all)), format!("0/{total} pairs"), false);
    let steps = if progress.shown() { STEPS } else { 1 };
    let mut pairs = Vec::with_capacity(total);
    for block in blocks(q.len(), s.len(), steps) {
        pairs.extend(psse::psse_block(engine, q, s, &block, opts)?.pairs);
        let done = pairs.len();
        progress.advance(cells(&block), format!("{done}/{total} pairs"), || {
            format!("psse: {done}/{total} pairs, {:.1} s", progress.seconds())
        });
    }
    Ok(pairs)
}

/// The pairs of `queries` x `subjects` in about `steps` blocks, query-major: rows of
/// queries against every subject while there are at least `steps` queries, else each
/// query against its subjects in pieces.
fn blocks(queries: usize, subjects: usize, steps: usize) -> Vec<PairBlock> {
    if queries >= steps {
        let rows = queries.div_ceil(steps);
        (0..queries)
            .step_by(rows)
            .map(|q| PairBlock { queries: q..(q + rows).min(queries), subjects: 0..subjects })
            .collect()
    } else {
        let width = subjects.div_ceil(steps / queries.max(1)).max(1);
        (0..queries)
            .flat_map(|q| {
                (0..subjects)
                    .step_by(width)
                    .map(move |s| PairBlock { queries: q..q + 1, subjects: s..(s + width).min(subjects) })
            })
            .collect()
    }
}

/// Writes every pair's outcome: a summary or a TSV line each.
fn write_run(args: &PsseArgs, inputs: &Inputs, pairs: &[Result<PsseResult>]) -> Result<()> {
    let Inputs { queries, subjects, opts, engine } = inputs;
    let summary = match args.format {
        PsseFormat::Auto => pairs.len() == 1,
        PsseFormat::Summary => true,
        PsseFormat::Tsv => false,
    };
    let mut out = crate::out::Output::open(args.output.out.as_deref(), &[&args.query, &args.subject])?;
    let out_name = out.name();
    let io = |e| Error::io(&out_name, e);
    let mut failed = Vec::new();
    if !summary {
        writeln!(out, "query\tsubject\tscore\tmu\tlambda\tK\tP\tE").map_err(io)?;
    }
    for (i, r) in pairs.iter().enumerate() {
        let (qs, ss) = (&queries[i / subjects.len()], &subjects[i % subjects.len()]);
        match (r, summary) {
            (Ok(r), true) => write_summary(&mut out, qs, ss, r, opts, engine, args.histogram).map_err(io)?,
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
    if !failed.is_empty() && !args.report.quiet {
        eprintln!("clsw: psse: {} without statistics (NA):", counted(failed.len() as u64, "pair", "pairs"));
        for f in failed.iter().take(10) {
            eprintln!("  {f}");
        }
    }
    // A run that fitted nothing fails, and leaves an existing output file as it was.
    if failed.len() == pairs.len() && !pairs.is_empty() {
        let kept =
            if args.output.out.is_some() { format!("; {} not written", out_name.display()) } else { String::new() };
        return Err(Error::InvalidArgument(format!("no pair could be fitted{kept}")));
    }
    out.finish()
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
