//! `clsw dist` (all-pairs distance matrices) and `clsw bench dist` (its benchmark on
//! generated whole-genome SNP alignments).

use clap::{Args, ValueEnum};
use clsw::device::{Backend, ClDevice, DeviceSpec};
use clsw::distance::generate::{AlignmentShape, snp_alignment};
use clsw::distance::input::{read_alignment, read_bed, read_genotype_table};
use clsw::distance::output::{Format, write_binary, write_long, write_plink, write_square};
use clsw::distance::{
    Coding, Dataset, DistanceMatrix, Metric, Options, RunStats, SiteFilter, Tuning, Variant, compute, compute_on,
    pack_alignment,
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
pub struct DistArgs {
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
    /// Devices: auto, gpu, cpu, reference, all, an index or a name [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
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

fn read_input(args: &DistArgs) -> Result<(Dataset, String)> {
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

pub fn run_dist(args: &DistArgs) -> Result<()> {
    if (args.bfile.is_some() || args.genotypes.is_some()) && (args.count_gaps || args.count_n) {
        return Err(Error::InvalidArgument("--count-gaps and --count-n apply to alignments only".into()));
    }
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
        want_compared: metric.needs_compared() || args.compared,
        ignore_constant: args.ignore_constant,
        site_filter: SiteFilter::Auto,
        tuning,
    };
    let (dm, stats) = if variant == Variant::Cpu {
        compute_on(&[], &data.packed, &opts)?
    } else {
        let engine = Engine::open(args.device.as_deref())?;
        compute(&engine, &data.packed, &opts)?
    };
    let t1 = Instant::now();
    write_output(args, &data, &dm, metric)?;
    if !args.quiet {
        let what = if data.packed.coding().is_genotype() { "samples" } else { "sequences" };
        eprintln!(
            "clsw dist: {} {what} of {} sites from {source} ({:.2} s); {} sites counted ({}) on {} in {:.2} s; \
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

fn write_output(args: &DistArgs, data: &Dataset, dm: &DistanceMatrix, metric: Metric) -> Result<()> {
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
                eprintln!("clsw dist: wrote {}", list.join(", "));
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

#[derive(Args)]
pub struct BenchDistArgs {
    /// Samples (sequences) to generate [151; the large published case is 3745].
    #[arg(long, default_value_t = 151)]
    samples: usize,
    /// Alignment length [4,400,000; the large published case is 5,000,000].
    #[arg(long, default_value_t = 4_400_000)]
    sites: usize,
    /// Fraction of variable sites.
    #[arg(long, default_value_t = 0.01)]
    snp_density: f64,
    /// Fraction of each sequence in runs of N and gaps.
    #[arg(long, default_value_t = 0.005)]
    missing: f64,
    /// Variants to run: bitplane, charpacked, cpu (all host cores).
    #[arg(long, value_delimiter = ',', default_value = "bitplane,cpu")]
    variants: Vec<String>,
    /// OpenCL devices (as for --device elsewhere) [default: CLSW_DEVICE, else auto].
    #[arg(long)]
    device: Option<String>,
    /// bitplane tiles to try, RTxWGxKW (register tile, work-group side, words per step),
    /// e.g. 4x16x8,8x8x8 [4x16x8].
    #[arg(long, value_delimiter = ',')]
    tile: Vec<String>,
    /// charpacked work-group size.
    #[arg(long)]
    cp_threads: Option<usize>,
    /// Site filters to run: auto (drop sites that change no count), off (count every
    /// site: the kernels' full width).
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    site_filter: Vec<String>,
    /// Also count each pair's compared sites (then every site with an N or gap in some
    /// sample is counted too).
    #[arg(long)]
    compared: bool,
    /// Timed runs per row (the median is reported), after one warm-up run.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One timed end-to-end computation: letters -> packed -> counts.
fn timed(seqs: &[Vec<u8>], devices: &[&ClDevice], opts: &Options) -> Result<(DistanceMatrix, RunStats, f64, f64)> {
    let t = Instant::now();
    let packed = pack_alignment(seqs, Coding::SNP)?;
    let pack_s = t.elapsed().as_secs_f64();
    let (dm, stats) = compute_on(devices, &packed, opts)?;
    Ok((dm, stats, pack_s, t.elapsed().as_secs_f64()))
}

pub fn run_bench(args: &BenchDistArgs) -> Result<()> {
    let variants: Vec<Variant> = args.variants.iter().map(|v| v.parse()).collect::<Result<_>>()?;
    let mut tunings: Vec<Tuning> = if args.tile.is_empty() {
        vec![Tuning::default()]
    } else {
        args.tile.iter().map(|t| t.parse()).collect::<Result<_>>()?
    };
    if let Some(t) = args.cp_threads {
        tunings.iter_mut().for_each(|x| x.cp_threads = t);
    }
    let filters: Vec<SiteFilter> = args
        .site_filter
        .iter()
        .map(|f| match f.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(SiteFilter::Auto),
            "off" => Ok(SiteFilter::Off),
            _ => Err(Error::InvalidArgument(format!("--site-filter {f}: expected auto or off"))),
        })
        .collect::<Result<_>>()?;
    let shape = AlignmentShape {
        samples: args.samples,
        sites: args.sites,
        snp_density: args.snp_density,
        missing: args.missing,
        seed: args.seed,
        ..AlignmentShape::default()
    };
    let t = Instant::now();
    let seqs = snp_alignment(&shape);
    let pairs = (args.samples * args.samples.saturating_sub(1) / 2) as f64;
    println!(
        "# clsw bench dist: {} samples x {} sites (SNP density {}, N/gap {}), {} pairs, generated in {:.1} s; \
         compared counts {}; median of {} runs after a warm-up; host: {} threads ({})",
        args.samples,
        args.sites,
        args.snp_density,
        args.missing,
        pairs,
        t.elapsed().as_secs_f64(),
        if args.compared { "on" } else { "off" },
        args.runs,
        rayon::current_num_threads(),
        clsw::distance::cpu::isa()
    );
    // OpenCL devices, opened once.
    let needs_devices = variants.iter().any(|v| *v != Variant::Cpu);
    let mut devices = Vec::new();
    if needs_devices {
        let choice = DeviceSpec::resolve(args.device.as_deref())?;
        for b in choice.select()? {
            match b {
                Backend::OpenCl(info) => devices.push(ClDevice::new(info)?),
                Backend::Native => {
                    return Err(Error::Device(
                        "no OpenCL device for the kernel variants (run with --variants cpu)".into(),
                    ));
                }
            }
        }
    }
    let header = "variant,device,samples,sites,kept_sites,tile,filter,pack_s,filter_s,count_s,kernel_s,end_to_end_s,\
                  gcomparisons_per_s,check";
    let mut rows = vec![header.to_string()];
    println!(
        "{:<10} {:<26} {:>6} {:>9} {:>9} {:<8} {:<5} {:>7} {:>7} {:>8} {:>8} {:>8} {:>10} {:<5}",
        "variant",
        "device",
        "n",
        "sites",
        "kept",
        "tile",
        "filt",
        "pack_s",
        "filt_s",
        "count_s",
        "kern_s",
        "e2e_s",
        "Gcmp/s",
        "check"
    );
    for &filter in &filters {
        let mut truth: Option<DistanceMatrix> = None;
        for &variant in &variants {
            // (device label, devices, tuning) per row.
            let mut cases: Vec<(String, Vec<&ClDevice>, Tuning)> = Vec::new();
            if variant == Variant::Cpu {
                cases.push((format!("host {} threads", rayon::current_num_threads()), vec![], Tuning::default()));
            } else {
                for d in &devices {
                    let label: String = d.info.name.trim().chars().take(26).collect();
                    let list: &[Tuning] = if variant == Variant::Bitplane { &tunings } else { &tunings[..1] };
                    for t in list {
                        cases.push((label.clone(), vec![d], *t));
                    }
                }
            }
            for (label, devs, tuning) in cases {
                let opts = Options {
                    variant,
                    want_compared: args.compared,
                    ignore_constant: false,
                    site_filter: filter,
                    tuning,
                };
                let (mut e2e, mut pack, mut filt, mut count, mut kern) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
                let mut last = None;
                let mut kept = 0;
                for run in 0..=args.runs.max(1) {
                    let (dm, stats, pack_s, total_s) = timed(&seqs, &devs, &opts)?;
                    kept = stats.kept_sites;
                    if run > 0 {
                        e2e.push(total_s);
                        pack.push(pack_s);
                        filt.push(stats.filter_seconds);
                        count.push(stats.count_seconds);
                        kern.push(stats.kernel_seconds);
                    } else if !stats.plan.is_empty() {
                        eprintln!("{variant} on {label}: {}", stats.plan);
                    }
                    last = Some(dm);
                }
                let dm = last.expect("at least one run");
                let check = match &truth {
                    None => "first",
                    Some(t) if t.differences == dm.differences && t.compared == dm.compared => "ok",
                    Some(_) => "DIFF",
                };
                if truth.is_none() {
                    truth = Some(dm);
                }
                let e = median(e2e);
                let rate = pairs * args.sites as f64 / e / 1e9;
                let tile = if variant == Variant::Bitplane {
                    format!("{}x{}x{}", tuning.rt, tuning.wg, tuning.kw)
                } else if variant == Variant::Charpacked {
                    format!("cp{}", tuning.cp_threads)
                } else {
                    clsw::distance::cpu::isa().to_string()
                };
                let fname = if filter == SiteFilter::Auto { "auto" } else { "off" };
                let (p, f, c, k) = (median(pack), median(filt), median(count), median(kern));
                println!(
                    "{:<10} {:<26} {:>6} {:>9} {:>9} {:<8} {:<5} {:>7.3} {:>7.3} {:>8.3} {:>8.3} {:>8.3} {:>10.1} {:<5}",
                    variant.name(),
                    label,
                    args.samples,
                    args.sites,
                    kept,
                    tile,
                    fname,
                    p,
                    f,
                    c,
                    k,
                    e,
                    rate,
                    check
                );
                rows.push(format!(
                    "{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{:.6},{:.6},{:.3},{}",
                    variant.name(),
                    label,
                    args.samples,
                    args.sites,
                    kept,
                    tile,
                    fname,
                    p,
                    f,
                    c,
                    k,
                    e,
                    rate,
                    check
                ));
                if check == "DIFF" {
                    eprintln!("clsw bench dist: {variant} on {label} disagrees with the first row's matrix");
                }
            }
        }
    }
    if let Some(path) = &args.csv {
        let mut f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
        for r in &rows {
            writeln!(f, "{r}").map_err(|e| Error::io(path, e))?;
        }
    }
    Ok(())
}
