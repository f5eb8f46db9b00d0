//! `clsw distance` (alias `dist`): all-pairs distance matrices of an alignment or of
//! genotypes.

use crate::args::ReportArgs;
use crate::out::Output;
use crate::progress::Progress;
use clap::{Args, ValueEnum};
use clsw::distance::input::{bfile_paths, read_alignment, read_bed, read_genotype_table};
use clsw::distance::output::{Format, files, write_binary, write_long, write_plink, write_square};
use clsw::distance::{Coding, Dataset, DistanceMatrix, Metric, Options, SiteFilter, Tuning, Variant, compute_on};
use clsw::mpi::Comm;
use clsw::outfile::refuse_inputs;
use clsw::{Engine, Error, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FormatArg {
    /// Square matrix with names (snp-dists' layout).
    Square,
    /// One line per ordered pair: a, b, value (snp-dists -m).
    Long,
    /// PLINK: PREFIX.dist / .mibs / .mdist (square) and its .id file.
    Plink,
    /// PREFIX.u32 (or .f64): the n x n matrix, little-endian, row-major; PREFIX.ids.
    Binary,
}

#[derive(Args)]
#[command(mut_arg("progress", |a| a.help(
    "Report progress on standard error: the phase (reading, counting, writing) beside a spinner on a \
     terminal, one line per phase otherwise"
)))]
pub struct DistanceArgs {
    /// FASTA multiple alignment (plain or gzip); all sequences the same length.
    #[arg(required_unless_present_any = ["bfile", "genotypes"], conflicts_with_all = ["bfile", "genotypes"])]
    alignment: Option<PathBuf>,
    /// PLINK 1 binary fileset: PREFIX.bed, PREFIX.bim, PREFIX.fam.
    #[arg(long, value_name = "PREFIX", conflicts_with = "genotypes")]
    bfile: Option<PathBuf>,
    /// Genotype table: one sample per line, its name, then 0/1/2 per site (-1, NA, . or N
    /// for missing); a first line whose fields after the first are neither genotypes nor
    /// numbers is a header; # starts a comment.
    #[arg(long, value_name = "TSV")]
    genotypes: Option<PathBuf>,
    /// Alignments: a gap (- or .) is a state of its own: gap vs base is a difference,
    /// gap vs gap is not. Default: sites with a gap are not compared.
    #[arg(long)]
    count_gaps: bool,
    /// Alignments: N and every other letter but A/C/G/T is one state "N": N vs base is
    /// a difference, N vs N (or vs R, Y, ...) is not. Default: not compared.
    #[arg(long)]
    count_n: bool,
    /// Leave out sites where at most one compared state occurs across all samples
    /// (distances are unchanged; compared counts and the metrics using them change).
    #[arg(long)]
    ignore_constant: bool,
    #[arg(long = "outfmt", visible_alias = "format", value_enum, default_value_t = FormatArg::Square)]
    format: FormatArg,
    /// diff (differing compared sites), allele-ct, ibs, 1-ibs (PLINK's, missing calls
    /// skipped as with `flat-missing`) [default: diff; with --outfmt plink allele-ct,
    /// PLINK's --distance default].
    #[arg(long, value_parser = crate::args::Names::of::<Metric>(Metric::ALL.map(Metric::name)))]
    metric: Option<String>,
    /// long and binary formats: also the number of sites each pair compared.
    #[arg(long)]
    compared: bool,
    /// square/long: the output file [standard output]; plink/binary: the file prefix
    /// [plink: plink, as PLINK's --out; binary: clsw].
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
    /// bitplane (tiled bit planes), charpacked (Payne et al.), cpu (all host cores, no OpenCL).
    #[arg(long, default_value = "bitplane", value_parser = crate::args::Names::of::<Variant>(Variant::ALL.map(Variant::name)))]
    variant: String,
    /// Kernel tile RTxWGxKW for bitplane [4x16x8].
    #[arg(long)]
    tile: Option<String>,
    /// Separate fields with commas instead of tabs (square and long formats).
    #[arg(long)]
    csv: bool,
    /// The square format's top-left cell [clsw-dist VERSION; snp-dists writes "snp-dists VERSION"].
    #[arg(long)]
    corner: Option<String>,
    /// Leave the top-left cell empty (snp-dists -b).
    #[arg(long)]
    blank_corner: bool,
    #[command(flatten)]
    report: ReportArgs,
}

fn read_input(args: &DistanceArgs) -> Result<(Dataset, String)> {
    if let Some(prefix) = &args.bfile {
        Ok((read_bed(prefix)?, format!("{}.bed", prefix.display())))
    } else if let Some(path) = &args.genotypes {
        Ok((read_genotype_table(path)?, path.display().to_string()))
    } else {
        let path = args.alignment.as_ref().expect("clap requires an input");
        let coding = Coding::Nucleotide { count_gaps: args.count_gaps, count_n: args.count_n };
        Ok((read_alignment(path, coding)?, path.display().to_string()))
    }
}

/// The files [`read_input`] reads.
fn input_files(args: &DistanceArgs) -> Vec<PathBuf> {
    match (&args.bfile, &args.genotypes, &args.alignment) {
        (Some(prefix), _, _) => {
            let (bed, bim, fam) = bfile_paths(prefix);
            vec![bed, bim, fam]
        }
        (None, Some(path), _) | (None, None, Some(path)) => vec![path.clone()],
        (None, None, None) => Vec::new(),
    }
}

fn format_of(arg: FormatArg) -> Format {
    match arg {
        FormatArg::Square => Format::Square,
        FormatArg::Long => Format::Long,
        FormatArg::Plink => Format::Plink,
        FormatArg::Binary => Format::Binary,
    }
}

/// The output, opened before any work: standard output or the `--out` file (square,
/// long), `None` for the files under a prefix (plink, binary), which are only checked
/// here; none of them may be an input.
fn open_output(args: &DistanceArgs, metric: Metric) -> Result<Option<Output>> {
    let inputs = input_files(args);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let format = format_of(args.format);
    if matches!(format, Format::Square | Format::Long) {
        return Ok(Some(Output::open(args.out.as_deref(), &inputs)?));
    }
    for file in files(format, &prefix(args), metric, args.compared) {
        refuse_inputs(&file, &inputs)?;
    }
    Ok(None)
}

/// The prefix of the plink and binary formats' files.
fn prefix(args: &DistanceArgs) -> PathBuf {
    args.out.clone().unwrap_or_else(|| PathBuf::from(format_of(args.format).default_prefix()))
}

/// What a distance run reads and opens before counting.
struct Inputs {
    metric: Metric,
    opts: Options,
    /// `None` on the ranks of an MPI job other than rank 0, and for prefix formats.
    out: Option<Output>,
    data: Dataset,
    source: String,
    read_seconds: f64,
}

/// Checks the options, opens the output (`write`: this process writes it) and reads
/// the input.
fn prepare(args: &DistanceArgs, write: bool, progress: &Progress) -> Result<Inputs> {
    clsw::distance::check_coding_flags(
        args.count_gaps,
        args.count_n,
        args.bfile.is_some() || args.genotypes.is_some(),
    )?;
    let metric = match &args.metric {
        Some(name) => name.parse()?,
        None => format_of(args.format).default_metric(),
    };
    let variant: Variant = args.variant.parse()?;
    let tuning = match &args.tile {
        Some(t) => t.parse()?,
        None => Tuning::default(),
    };
    let out = if write { open_output(args, metric)? } else { None };
    let t0 = Instant::now();
    let inputs: Vec<String> = input_files(args).iter().map(|p| p.display().to_string()).collect();
    progress.phase(format!("distance: reading {}", inputs.join(", ")));
    let (data, source) = read_input(args)?;
    let opts = Options {
        variant,
        want_compared: metric.want_compared(args.compared),
        ignore_constant: args.ignore_constant,
        site_filter: SiteFilter::Auto,
        tuning,
    };
    Ok(Inputs { metric, opts, out, data, source, read_seconds: t0.elapsed().as_secs_f64() })
}

/// `clsw distance`: one process, or (`ranks`) one rank of an MPI job, whose ranks count
/// blocks of the sites and whose rank 0 writes what one process writes.
pub fn run(args: &DistanceArgs, ranks: Option<&dyn Comm>) -> Result<()> {
    let root = ranks.is_none_or(|c| c.rank() == 0);
    // Rank 0 reports for the job.
    let report = ReportArgs { quiet: args.report.quiet || !root, ..args.report };
    let progress = Progress::new(&report, None, String::new(), false);
    let inputs = clsw::mpi::agree_if(ranks, prepare(args, root, &progress))?;
    let Inputs { metric, opts, out, data, source, read_seconds } = inputs;
    let what = if data.packed.coding().is_genotype() { "samples" } else { "sequences" };
    progress.phase(format!("distance: counting {} {what} x {} sites", data.packed.len(), data.packed.sites()));
    let engine = match opts.variant {
        Variant::Cpu => None,
        _ => Some(args.device.spec().and_then(Engine::new)),
    };
    let engine = clsw::mpi::agree_if(ranks, engine.transpose())?;
    let devices = engine.as_ref().map_or_else(Vec::new, |e| e.opencl_devices());
    let counted = match ranks {
        Some(comm) => clsw::mpi::distance_run(comm, &devices, &data.packed, &opts),
        None => compute_on(&devices, &data.packed, &opts).map(Some),
    };
    // Rank 0 writes; every rank learns whether it could (and of what failed on rank 0
    // alone: adding the ranks' matrices).
    let written = match counted {
        Err(e) => Err(e),
        Ok(Some((dm, stats))) => {
            let t1 = Instant::now();
            let target = out
                .as_ref()
                .map_or_else(|| format!("{}.*", prefix(args).display()), |o| o.name().display().to_string());
            progress.phase(format!("distance: writing {target}"));
            let written = write_output(args, out, &data, &dm, metric);
            drop(progress);
            if written.is_ok() && !args.report.quiet {
                eprintln!(
                    "clsw distance: {} {what} of {} sites from {source} ({:.2} s); {} sites counted ({}) on {} in \
                     {:.2} s; output {:.2} s",
                    dm.n,
                    dm.sites,
                    read_seconds,
                    stats.kept_sites,
                    if stats.kept_sites < dm.sites { "the others change no count" } else { "all" },
                    stats.backend,
                    stats.filter_seconds + stats.count_seconds,
                    t1.elapsed().as_secs_f64()
                );
            }
            written
        }
        Ok(None) => Ok(()),
    };
    clsw::mpi::agree_if(ranks, written)
}

fn write_output(
    args: &DistanceArgs,
    out: Option<Output>,
    data: &Dataset,
    dm: &DistanceMatrix,
    metric: Metric,
) -> Result<()> {
    let sep = if args.csv { ',' } else { '\t' };
    let Some(mut w) = out else {
        let files = if format_of(args.format) == Format::Plink {
            write_plink(&prefix(args), &data.names, dm, metric)?
        } else {
            write_binary(&prefix(args), &data.names, dm, metric, args.compared)?
        };
        if !args.report.quiet {
            let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            eprintln!("clsw distance: wrote {}", list.join(", "));
        }
        return Ok(());
    };
    let name = w.name();
    let io = |e| Error::io(&name, e);
    if format_of(args.format) == Format::Square {
        let corner = if args.blank_corner {
            String::new()
        } else {
            args.corner.clone().unwrap_or_else(|| format!("clsw-dist {}", clsw::VERSION))
        };
        write_square(&mut w, &data.names, dm, metric, &corner, sep).map_err(io)?;
    } else {
        write_long(&mut w, &data.names, dm, metric, args.compared, sep).map_err(io)?;
    }
    w.finish()
}
