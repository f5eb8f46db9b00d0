//! `clsw distance` (alias `dist`): all-pairs distance matrices of an alignment or of
//! genotypes.

use clap::{Args, ValueEnum};
use clsw::distance::input::{read_alignment, read_bed, read_genotype_table};
use clsw::distance::output::{Format, write_binary, write_long, write_plink, write_square};
use clsw::distance::{
    Coding, Dataset, DistanceMatrix, Metric, Options, SiteFilter, Tuning, Variant, compute, compute_on,
};
use clsw::{Engine, Error, Result};
use std::io::Write;
use std::path::PathBuf;
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
pub struct DistanceArgs {
    /// FASTA multiple alignment (plain or gzip); all sequences the same length.
    #[arg(required_unless_present_any = ["bfile", "genotypes"], conflicts_with_all = ["bfile", "genotypes"])]
    alignment: Option<PathBuf>,
    /// PLINK 1 binary fileset: PREFIX.bed, PREFIX.bim, PREFIX.fam.
    #[arg(long, value_name = "PREFIX", conflicts_with = "genotypes")]
    bfile: Option<PathBuf>,
    /// Genotype table: one sample per line (optional name first), 0/1/2 per site, -1, NA
    /// or . for missing.
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
    #[arg(long, value_enum, default_value_t = FormatArg::Square)]
    format: FormatArg,
    /// diff (differing compared sites), allele-ct, ibs, 1-ibs (PLINK's, missing calls
    /// skipped as with `flat-missing`).
    #[arg(long, default_value = "diff")]
    metric: String,
    /// long and binary formats: also the number of sites each pair compared.
    #[arg(long)]
    compared: bool,
    /// square/long: the output file [standard output]; plink/binary: the file prefix [clsw].
    #[arg(long, short = 'o')]
    out: Option<PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArgs,
    /// bitplane (tiled bit planes), charpacked (Payne et al.), cpu (all host cores, no OpenCL).
    #[arg(long, default_value = "bitplane")]
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
    /// No summary on standard error.
    #[arg(long)]
    quiet: bool,
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

pub fn run(args: &DistanceArgs) -> Result<()> {
    clsw::distance::check_coding_flags(
        args.count_gaps,
        args.count_n,
        args.bfile.is_some() || args.genotypes.is_some(),
    )?;
    let metric: Metric = args.metric.parse()?;
    let variant: Variant = args.variant.parse()?;
    let tuning = match &args.tile {
        Some(t) => t.parse()?,
        None => Tuning::default(),
    };
    let t0 = Instant::now();
    let (data, source) = read_input(args)?;
    let read_s = t0.elapsed().as_secs_f64();
    let opts = Options {
        variant,
        want_compared: metric.want_compared(args.compared),
        ignore_constant: args.ignore_constant,
        site_filter: SiteFilter::Auto,
        tuning,
    };
    let (dm, stats) = if variant == Variant::Cpu {
        compute_on(&[], &data.packed, &opts)?
    } else {
        let engine = Engine::open(args.device.device.as_deref())?;
        compute(&engine, &data.packed, &opts)?
    };
    let t1 = Instant::now();
    write_output(args, &data, &dm, metric)?;
    if !args.quiet {
        let what = if data.packed.coding().is_genotype() { "samples" } else { "sequences" };
        eprintln!(
            "clsw distance: {} {what} of {} sites from {source} ({:.2} s); {} sites counted ({}) on {} in {:.2} s; \
             output {:.2} s",
            dm.n,
            dm.sites,
            read_s,
            stats.kept_sites,
            if stats.kept_sites < dm.sites { "the others change no count" } else { "all" },
            stats.backend,
            stats.filter_seconds + stats.count_seconds,
            t1.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn write_output(args: &DistanceArgs, data: &Dataset, dm: &DistanceMatrix, metric: Metric) -> Result<()> {
    let format = match args.format {
        FormatArg::Square => Format::Square,
        FormatArg::Long => Format::Long,
        FormatArg::Plink => Format::Plink,
        FormatArg::Binary => Format::Binary,
    };
    let sep = if args.csv { ',' } else { '\t' };
    match format {
        Format::Plink | Format::Binary => {
            let prefix = args.out.clone().unwrap_or_else(|| PathBuf::from("clsw"));
            let files = if format == Format::Plink {
                write_plink(&prefix, &data.names, dm, metric)?
            } else {
                write_binary(&prefix, &data.names, dm, metric, args.compared)?
            };
            if !args.quiet {
                let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                eprintln!("clsw distance: wrote {}", list.join(", "));
            }
            Ok(())
        }
        Format::Square | Format::Long => {
            let (mut w, name): (Box<dyn Write>, String) = match &args.out {
                Some(p) => (
                    Box::new(std::io::BufWriter::with_capacity(
                        1 << 20,
                        std::fs::File::create(p).map_err(|e| Error::io(p, e))?,
                    )),
                    p.display().to_string(),
                ),
                None => (
                    Box::new(std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock())),
                    "standard output".into(),
                ),
            };
            let io = |e| Error::io(&name, e);
            if format == Format::Square {
                let corner = if args.blank_corner {
                    String::new()
                } else {
                    args.corner.clone().unwrap_or_else(|| format!("clsw-dist {}", clsw::VERSION))
                };
                write_square(&mut w, &data.names, dm, metric, &corner, sep).map_err(io)?;
            } else {
                write_long(&mut w, &data.names, dm, metric, args.compared, sep).map_err(io)?;
            }
            w.flush().map_err(io)
        }
    }
}
