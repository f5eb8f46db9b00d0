//! `clsw scan` (database search) and `clsw makedb` (prepared databases).

use crate::args::{AlphabetArg, DeviceArgs, Names, OutArgs, ReportArgs, ScoringArgs};
use crate::out::Output;
use crate::progress::Progress;
use clap::Args;
use clsw::engine::Opening;
use clsw::mpi::Comm;
use clsw::mpi::RankSearcher;
use clsw::output::{FormatOptions, OutputFormat, OutputSpec, ResultWriter};
use clsw::scan::Variant;
use clsw::search::{EvalueSource, SearchOptions, SearchPlan, StatsMethod, Strands, stage};
use clsw::seq::db::is_prepared;
use clsw::seq::{AlphabetChoice, Database, EmptyRecords, fasta};
use clsw::words::{counted, thousands};
use clsw::{Engine, Error, Result};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
#[command(mut_arg("progress", |a| a.help(
    "Report progress on standard error: the bar on a terminal (drawn there without --progress too), \
     one line per query otherwise"
)))]
pub struct ScanArgs {
    /// FASTA file of queries (plain or gzip), one search per record; `-`: standard input.
    #[arg(long, short = 'q', required_unless_present = "pssm", conflicts_with = "pssm")]
    query: Option<PathBuf>,
    #[command(flatten)]
    pssm: crate::args::PssmArgs,
    /// Database: FASTA (plain or gzip; `-`: standard input, read once) or a prepared
    /// database from `clsw makedb`.
    #[arg(long, short = 'd')]
    db: PathBuf,
    #[command(flatten)]
    scoring: ScoringArgs,
    #[command(flatten)]
    mode: crate::args::ModeArgs,
    /// Report at most this many hits per query (ssearch36 -b, BLAST -max_target_seqs).
    #[arg(long, default_value_t = 50)]
    max_hits: usize,
    /// Report hits with an E-value at most this (ssearch36 -E, BLAST -evalue); not
    /// applied when no E-values are available.
    #[arg(long, default_value_t = 10.0)]
    evalue: f64,
    /// Most alignments listed per subject (BLAST -max_hsps): its best, then further ones
    /// that do not overlap it in the subject (ssearch36's alternate alignments), each
    /// with its own E-value within a tenth of --evalue, as ssearch36 lists them.
    #[arg(long, default_value_t = 1)]
    max_hsps: usize,
    /// Where E-values come from: auto (the fit to the query's scores against the
    /// database when it succeeds, else BLAST's published parameters, else the fit to
    /// shuffled subjects), fit, published, regression (ssearch36's default, -z 1),
    /// shuffle (2,000 shuffled database subjects: any database size), none.
    #[arg(long, default_value = "auto", value_parser = Names::of::<StatsMethod>(StatsMethod::ALL.map(StatsMethod::name)))]
    stats: String,
    /// The number of database sequences E-values count (ssearch36 -Z) [default: the
    /// database's own].
    #[arg(long, short = 'Z', visible_alias = "db-size")]
    dbsize: Option<usize>,
    /// Output format: tabular or 6 (BLAST -outfmt 6), tabular-comments or 7 (BLAST
    /// -outfmt 7: with comment lines), tabular-ext (plus raw score and CIGAR), sam, json,
    /// pairwise, ssearch-m8 (ssearch36 -m 8's conventions). The tabular formats take
    /// BLAST's column names after the format, in one argument: "6 qseqid sseqid evalue
    /// qlen slen qcovs btop" (std: BLAST's twelve standard columns; see the README).
    #[arg(long, default_value = "tabular", value_parser = Names::of::<OutputSpec>(OutputFormat::ALL.map(OutputFormat::name)))]
    outfmt: String,
    /// JSON: write each query's kernel and wall seconds (without, two runs of one search
    /// write the same file).
    #[arg(long)]
    timings: bool,
    #[command(flatten)]
    device: DeviceArgs,
    /// Kernel variant on OpenCL devices: team, inter, intra, plain; auto: team on GPUs,
    /// inter on CPU devices.
    #[arg(long, default_value = clsw::scan::AUTO, value_parser = Names::checked(
        Variant::ALL.map(Variant::name).into_iter().chain([clsw::scan::AUTO]),
        |s| Variant::choice(s).map(drop),
    ))]
    variant: String,
    /// DNA strands of the query to search: both, plus, minus [default: both; a protein
    /// search has one strand].
    #[arg(long, value_parser = Names::of::<Strands>(Strands::ALL.map(Strands::name)))]
    strand: Option<String>,
    #[command(flatten)]
    output: OutArgs,
    #[command(flatten)]
    report: ReportArgs,
    /// Most residues uploaded to one device at a time; larger databases are scanned in
    /// batches [default: from the device's memory].
    #[arg(long)]
    batch_residues: Option<u64>,
    /// SAM: write CIGAR with =/X instead of M.
    #[arg(long)]
    sam_eqx: bool,
    /// Columns per line in the pairwise view.
    #[arg(long, default_value_t = 60)]
    width: usize,
}

#[derive(Args)]
pub struct MakedbArgs {
    /// FASTA file (plain or gzip).
    input: PathBuf,
    /// The prepared database to write (conventionally *.clswdb).
    #[arg(long, short = 'o')]
    out: PathBuf,
    /// Sequence alphabet (auto: guessed from the residues).
    #[arg(long, value_enum, default_value_t = AlphabetArg::Auto)]
    alphabet: AlphabetArg,
    /// No note on standard error and no summary (errors are always reported).
    #[arg(long)]
    quiet: bool,
}

pub fn run_makedb(args: &MakedbArgs) -> Result<()> {
    clsw::outfile::refuse_inputs(&args.out, &[&args.input])?;
    let (alphabet, _) = AlphabetChoice::fasta(&args.input, args.alphabet.given(), || Ok(None))?;
    if is_prepared(&args.input)? {
        return Err(Error::InvalidArgument(format!(
            "{} is already a prepared database; makedb reads FASTA",
            args.input.display()
        )));
    }
    let (db, report) = Database::from_fasta(&args.input, alphabet, EmptyRecords::Skip)?;
    if let Some(note) = report.file_note(&args.input, alphabet).filter(|_| !args.quiet) {
        eprintln!("clsw: {note}");
    }
    db.write_prepared(&args.out)?;
    if args.quiet {
        return Ok(());
    }
    println!(
        "wrote {}: {}, {} residues, longest {}",
        args.out.display(),
        counted(db.len() as u64, &format!("{} sequence", alphabet.name()), &format!("{} sequences", alphabet.name())),
        thousands(db.total_residues()),
        thousands(db.max_len() as u64)
    );
    let substituted: u64 = report.substituted.iter().map(|(_, n)| n).sum();
    if substituted > 0 || !report.empty_records.is_empty() {
        println!(
            "  {} stored as {}; {} skipped",
            counted(substituted, "letter", "letters"),
            alphabet.decode(alphabet.wildcard()) as char,
            counted(report.empty_records.len() as u64, "empty record", "empty records")
        );
    }
    Ok(())
}

/// Opens the database once, its alphabet chosen by the library's rule
/// ([`AlphabetChoice::for_database`]: `--alphabet`, else a prepared file's own, else
/// the matrix's, else guessed), each note shown as it comes. Empty FASTA records are
/// skipped and reported.
fn open_database(args: &ScanArgs) -> Result<Database> {
    let path = &args.db;
    let choice =
        AlphabetChoice::for_database(path, args.scoring.alphabet.given(), || args.scoring.request().matrix_alphabet())?;
    // Printed before the reading, which may fail.
    for note in &choice.notes {
        args.report.note(note);
    }
    let (db, notes) = choice.open(path, EmptyRecords::Skip)?;
    for note in &notes {
        args.report.note(note);
    }
    if db.is_empty() {
        return Err(Error::InvalidArgument(format!("{}: the database holds no sequences", path.display())));
    }
    Ok(db)
}

/// What a scan reads and opens before any search: everything but the searcher.
struct Inputs {
    /// `None` on the ranks of an MPI job other than rank 0 (which writes alone).
    out: Option<Output>,
    format: OutputSpec,
    db: Database,
    database_seconds: f64,
    scoring: clsw::scoring::Scoring,
    queries: Vec<clsw::seq::Sequence>,
    options: SearchOptions,
}

/// Reads the inputs and opens the output (`write`: this process writes it), checking
/// the options (the device specification's text among them), while the devices open
/// (the engine's errors come after the inputs').
fn prepare(args: &ScanArgs, write: bool, process_start: Instant) -> Result<(Inputs, Opening)> {
    let format: OutputSpec = args.outfmt.parse()?;
    let variant = Variant::choice(&args.variant)?;
    let strands: Strands = match &args.strand {
        Some(s) => s.parse()?,
        None => Strands::Both,
    };
    // The file the queries come from: a FASTA file or the profile's (clap requires one).
    let query_file = args.query.as_ref().or(args.pssm.pssm.as_ref()).expect("--query or --pssm");
    if fasta::is_stdin(query_file) && fasta::is_stdin(&args.db) {
        return Err(Error::InvalidArgument(
            "the query and the database are both standard input ('-'); one of them must be a file".into(),
        ));
    }
    // Opened first: an output that is an input, or an unwritable one, fails before any work.
    let out = if write { Some(Output::open(args.output.out.as_deref(), &[query_file, &args.db])?) } else { None };
    // The devices start (OpenCL, the self-test) while the database, the scoring and the
    // queries are read.
    let opening = Engine::open_in_background(args.device.spec()?);
    let (db, database_seconds, scoring, (queries, report)) = open_database(args).and_then(|db| {
        let seconds = process_start.elapsed().as_secs_f64();
        let scoring = args.scoring.scoring(db.alphabet())?.in_mode(args.mode.mode()?);
        match args.pssm.profile(&scoring)? {
            Some((scoring, query)) => Ok((db, seconds, scoring, (vec![query], Default::default()))),
            None => {
                let queries = fasta::read_file(query_file, db.alphabet(), EmptyRecords::Error)?;
                Ok((db, seconds, scoring, queries))
            }
        }
    })?;
    let alphabet = db.alphabet();
    if let Some(note) = report.file_note(query_file, alphabet) {
        args.report.note(note);
    }
    // The library's rule (the searcher checks it again): refused before any work.
    strands.for_alphabet(alphabet)?;
    for note in clsw::search::query_notes(&queries, alphabet, query_file) {
        args.report.note(note);
    }
    let options = SearchOptions {
        variant,
        max_hits: args.max_hits,
        evalue: args.evalue,
        strands,
        batch_residues: args.batch_residues,
        stats: args.stats.parse()?,
        db_size: args.dbsize,
        max_hsps: args.max_hsps,
        ..SearchOptions::default()
    };
    options.validate()?;
    if options.max_hits == 0 {
        args.report.note("warning: --max-hits 0 reports no hit: the output will hold none");
    }
    Ok((Inputs { out, format, db, database_seconds, scoring, queries, options }, opening))
}

/// The output's options from the command line, with the tabular formats' `columns`.
fn format_options(args: &ScanArgs, columns: Vec<clsw::output::Column>) -> FormatOptions {
    FormatOptions {
        sam_eqx: args.sam_eqx,
        width: args.width,
        command_line: Some(std::env::args().collect::<Vec<_>>().join(" ")),
        columns,
        database: args.db.display().to_string(),
        timings: args.timings,
    }
}

/// `clsw scan`: one process, or (`ranks`) one rank of an MPI job.
pub fn run_scan(args: &ScanArgs, ranks: Option<&dyn Comm>) -> Result<()> {
    let process_start = Instant::now();
    match ranks {
        Some(comm) => run_ranks(args, comm, process_start),
        None => {
            let (inputs, opening) = prepare(args, true, process_start)?;
            run_alone(args, inputs, opening, process_start)
        }
    }
}

fn run_alone(args: &ScanArgs, inputs: Inputs, opening: Opening, process_start: Instant) -> Result<()> {
    let Inputs { out, format, db, database_seconds, scoring, queries, options } = inputs;
    let out = out.ok_or_else(|| Error::Internal("a scan without its output".into()))?;
    // The shares arranged for the selected devices here while the devices open and,
    // once they have, the shares' residues are written to them.
    let selected = opening.selected();
    let start = Instant::now();
    let (plan, layout_seconds, opened) = std::thread::scope(|scope| {
        let opened = scope.spawn(|| -> Result<_> {
            let (engine, devices_seconds) = opening.join()?;
            let start = Instant::now();
            let staged = stage(&engine, &db, &options)?;
            Ok((engine, devices_seconds, staged, start.elapsed().as_secs_f64()))
        });
        let plan = selected.map(|backends| SearchPlan::new(&backends, &db, scoring.clone(), options.clone()));
        let layout_seconds = start.elapsed().as_secs_f64();
        let opened = opened
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("opening the devices or writing the residues panicked".into())));
        (plan, layout_seconds, opened)
    });
    let (engine, devices_seconds, staged, residues_seconds) = opened?;
    let start = Instant::now();
    let plan = plan.ok_or_else(|| Error::Internal("devices opened but never selected".into()))??;
    let searcher = plan.upload(&engine, staged)?;
    let upload_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    searcher.prepare(&queries)?;
    let programs_seconds = start.elapsed().as_secs_f64();

    let out_name = out.name();
    let io = |e| Error::io(&out_name, e);
    let mut writer = ResultWriter::new(format.format, out, &db, &scoring, format_options(args, format.columns));

    let query_residues: u64 = queries.iter().map(|q| q.len() as u64).sum();
    let strands_n = searcher.strands().len() as u64;
    let total_cells = query_residues * db.total_residues() * strands_n;
    let progress = Progress::new(&args.report, Some(total_cells), format!("0/{} queries", queries.len()), true);

    let (mut done, mut kernel, mut recomputed, mut hits) = (0usize, 0.0f64, 0usize, 0usize);
    let mut kernel_from_host = false;
    let mut sources = [0usize; EvalueSource::ALL.len()];
    // The search after its setup: the first launch to the last result written.
    let search_start = Instant::now();
    searcher.search_all(&queries, |result| {
        writer.write(&result, &queries[result.query_index]).map_err(io)?;
        done += 1;
        kernel += result.kernel_seconds;
        kernel_from_host |= result.kernel_seconds_from_host;
        recomputed += result.recomputed;
        hits += result.hits.len();
        sources[EvalueSource::ALL.iter().position(|&s| s == result.statistics.source).unwrap_or(0)] += 1;
        progress.advance(result.cells, format!("{done}/{} queries", queries.len()), || {
            format!(
                "query {done}/{} {} ({} residues): {} hits, {:.2} s (scan {:.2} s, kernels {:.2} s)",
                queries.len(),
                result.query_id,
                result.query_len,
                result.hits.len(),
                result.wall_seconds,
                result.scan_seconds,
                result.kernel_seconds
            )
        });
        // Every subject's score (1 GB a query for 44 M subjects) is freed off the path
        // of the next result.
        clsw::memory::free_in_background(result);
        Ok(())
    })?;
    drop(progress);
    writer.finish().map_err(io)?.finish()?;
    let search_seconds = search_start.elapsed().as_secs_f64();
    let seconds = process_start.elapsed().as_secs_f64();
    let clock = if kernel_from_host { " (host clock: the device gives no profiling times)" } else { "" };

    if !args.report.quiet {
        let devices = searcher.devices().join(", ");
        let batches: usize = searcher.plan().iter().map(|(_, _, b)| b).sum();
        let mut variants: Vec<&str> =
            engine.opencl_devices().iter().map(|d| options.variant_on(&d.info).name()).collect();
        variants.dedup();
        let variant_note =
            if engine.uses_opencl() { format!("variant {} on ", variants.join(" and ")) } else { String::new() };
        let gcups = |s: f64| if s > 0.0 { format!("{:.2}", total_cells as f64 / s / 1e9) } else { "-".into() };
        let mut evalues = Vec::new();
        for (n, source) in sources.iter().zip(EvalueSource::ALL) {
            if *n > 0 {
                let name = if source == EvalueSource::None { "unavailable" } else { source.name() };
                evalues.push(format!("{name} for {}", counted(*n as u64, "query", "queries")));
            }
        }
        eprintln!(
            "clsw: {} ({} residues) x {} ({} residues){}; {}{devices}{}: {:.3e} cells in {:.2} s \
             = {} GCUPS end to end (database {:.2} s, devices {:.2} s beside them, layout {:.2} s, upload {:.2} s beside it, words {:.2} s, programs {:.2} s, search {:.2} s{}); {} recomputed at 32 bits; {}; E-values {}",
            counted(queries.len() as u64, "query", "queries"),
            thousands(query_residues),
            counted(db.len() as u64, "subject", "subjects"),
            thousands(db.total_residues()),
            if strands_n > 1 { ", both strands" } else { "" },
            variant_note,
            if batches > searcher.plan().len() { format!(" in {batches} batches") } else { String::new() },
            total_cells as f64,
            seconds,
            gcups(seconds),
            database_seconds,
            devices_seconds,
            layout_seconds,
            residues_seconds,
            upload_seconds,
            programs_seconds,
            search_seconds,
            match engine.opencl_devices().len() {
                0 => String::new(),
                1 => format!("; kernels {kernel:.2} s{clock} = {} GCUPS", gcups(kernel)),
                n => format!(
                    "; kernels {kernel:.2} s{clock} summed over {n} devices = {} GCUPS per device",
                    gcups(kernel)
                ),
            },
            counted(recomputed as u64, "subject", "subjects"),
            counted(hits as u64, "hit", "hits"),
            evalues.join(", ")
        );
    }
    Ok(())
}

/// `clsw scan` as one rank of an MPI job ([`clsw::mpi`]): every rank reads the same
/// inputs and searches its share of the database; rank 0 writes what one process
/// writes, and its summary line gives each rank's devices, speed and share, and the
/// time after setup (the devices, the database, the shares laid out, the programs
/// loaded).
fn run_ranks(args: &ScanArgs, comm: &dyn Comm, process_start: Instant) -> Result<()> {
    let root = comm.rank() == 0;
    let prepared = prepare(args, root, process_start).and_then(|(inputs, opening)| Ok((inputs, opening.join()?.0)));
    let (inputs, engine) = clsw::mpi::agree_on(comm, prepared)?;
    let Inputs { out, format, db, scoring, queries, options, .. } = inputs;
    let speed = clsw::mpi::calibrate(&engine, &db, &scoring, &options);
    let share = clsw::mpi::share(comm, &engine, &db, speed)?;
    let labels = clsw::mpi::agree(comm, Ok(engine.describe().join(" + ").into_bytes()))?;
    let part = clsw::mpi::agree_on(comm, share.part(&db))?;
    let part = part.as_ref().unwrap_or(&db);
    let mut searcher = RankSearcher::new(comm, &engine, &db, part, &share, scoring.clone(), options.clone())?;
    searcher.report_progress(args.report.progress && !args.report.quiet);
    searcher.prepare(&queries)?;
    let setup_seconds = process_start.elapsed().as_secs_f64();

    let format_options = format_options(args, format.columns);
    let mut writer = out.map(|out| (out.name(), ResultWriter::new(format.format, out, &db, &scoring, format_options)));
    let (mut hits, mut recomputed) = (0usize, 0usize);
    searcher.search_all(&queries, |result| {
        if let Some((name, w)) = &mut writer {
            w.write(&result, &queries[result.query_index]).map_err(|e| Error::io(&*name, e))?;
        }
        hits += result.hits.len();
        recomputed += result.recomputed;
        Ok(())
    })?;
    let finished = match writer {
        Some((name, w)) => w.finish().map_err(|e| Error::io(&name, e)).and_then(|o| o.finish()),
        None => Ok(()),
    };
    clsw::mpi::agree_on(comm, finished)?;
    if root && !args.report.quiet {
        let seconds = process_start.elapsed().as_secs_f64();
        let query_residues: u64 = queries.iter().map(|q| q.len() as u64).sum();
        let cells = query_residues * db.total_residues() * searcher.strands().len() as u64;
        let ranks: Vec<String> = (0..comm.size())
            .map(|r| {
                let residues = match share.residues.get(r) {
                    Some(&n) => format!(", {} residues", thousands(n)),
                    None => String::new(),
                };
                format!(
                    "rank {r}: {} at {:.1} GCUPS on the probe{residues}",
                    String::from_utf8_lossy(&labels[r]),
                    share.speeds[r]
                )
            })
            .collect();
        let dealt = if share.dealt { "; the database dealt by chunks" } else { "" };
        let search = seconds - setup_seconds;
        eprintln!(
            "clsw: {} ({} residues) x {} ({} residues) on {} MPI ranks ({}{dealt}): {:.3e} cells in {:.2} s \
             (setup {:.2} s, search {:.2} s = {:.2} GCUPS); {} recomputed at 32 bits; {}",
            counted(queries.len() as u64, "query", "queries"),
            thousands(query_residues),
            counted(db.len() as u64, "subject", "subjects"),
            thousands(db.total_residues()),
            comm.size(),
            ranks.join("; "),
            cells as f64,
            seconds,
            setup_seconds,
            search,
            cells as f64 / search.max(1e-9) / 1e9,
            counted(recomputed as u64, "subject", "subjects"),
            counted(hits as u64, "hit", "hits")
        );
    }
    Ok(())
}
