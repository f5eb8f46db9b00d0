//! `clsw bench distance` (alias `dist`): distance matrices of generated whole-genome SNP
//! alignments, time and comparisons per second per variant, device and tile.

use super::{median, opencl_devices, print_row, short_name, timed, write_csv};
use crate::args::DeviceArgs;
use clap::Args;
use clsw::device::ClDevice;
use clsw::distance::generate::{AlignmentShape, snp_alignment};
use clsw::distance::{
    Coding, DistanceMatrix, Options, RunStats, SiteFilter, Tuning, Variant, compute_on, pack_alignment,
};
use clsw::{Error, Result};
use std::path::PathBuf;

/// The printed table's columns: variant, device, n, sites, kept, tile, filt, pack_s,
/// filt_s, count_s, kern_s, e2e_s, Gcmp/s, check.
const LAYOUT: &str = "<10 <26 >6 >9 >9 <8 <5 >7 >7 >8 >8 >8 >10 <5";

const CSV_HEADER: &str = "variant,device,samples,sites,kept_sites,tile,filter,pack_s,filter_s,count_s,kernel_s,\
                          end_to_end_s,gcomparisons_per_s,check";

#[derive(Args)]
pub struct BenchDistanceArgs {
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
    #[command(flatten)]
    device: DeviceArgs,
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

/// One timed end-to-end computation: letters -> packed -> counts.
fn timed_run(seqs: &[Vec<u8>], devices: &[&ClDevice], opts: &Options) -> Result<(DistanceMatrix, RunStats, f64, f64)> {
    let (packed, pack_s) = timed(|| pack_alignment(seqs, Coding::SNP));
    let packed = packed?;
    let (counted, count_s) = timed(|| compute_on(devices, &packed, opts));
    let (dm, stats) = counted?;
    Ok((dm, stats, pack_s, pack_s + count_s))
}

pub fn run(args: &BenchDistanceArgs) -> Result<()> {
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
    let (seqs, generate_s) = timed(|| snp_alignment(&shape));
    let pairs = (args.samples * args.samples.saturating_sub(1) / 2) as f64;
    println!(
        "# clsw bench distance: {} samples x {} sites (SNP density {}, N/gap {}), {} pairs, generated in {:.1} s; \
         compared counts {}; median of {} runs after a warm-up; host: {} threads ({})",
        args.samples,
        args.sites,
        args.snp_density,
        args.missing,
        pairs,
        generate_s,
        if args.compared { "on" } else { "off" },
        args.runs,
        rayon::current_num_threads(),
        clsw::distance::cpu::isa()
    );
    // OpenCL devices, opened once.
    let needs_devices = variants.iter().any(|v| *v != Variant::Cpu);
    let mut devices = Vec::new();
    if needs_devices {
        let (opened, native) = opencl_devices(&args.device)?;
        if native {
            return Err(Error::Device("no OpenCL device for the kernel variants (run with --variants cpu)".into()));
        }
        devices = opened;
    }
    let mut rows = Vec::new();
    print_row(
        LAYOUT,
        &[
            "variant", "device", "n", "sites", "kept", "tile", "filt", "pack_s", "filt_s", "count_s", "kern_s",
            "e2e_s", "Gcmp/s", "check",
        ],
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
                    let label = short_name(&d.info, 26);
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
                    let (dm, stats, pack_s, total_s) = timed_run(&seqs, &devs, &opts)?;
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
                let words =
                    [variant.name(), &label, &args.samples.to_string(), &args.sites.to_string(), &kept.to_string()];
                let words = words.iter().map(|w| w.to_string()).chain([tile, fname.to_string()]);
                let times = [p, f, c, k, e];
                let shown: Vec<String> = words
                    .clone()
                    .chain(times.iter().map(|x| format!("{x:.3}")))
                    .chain([format!("{rate:.1}"), check.to_string()])
                    .collect();
                print_row(LAYOUT, &shown);
                let csv: Vec<String> = words
                    .chain(times.iter().map(|x| format!("{x:.6}")))
                    .chain([format!("{rate:.3}"), check.to_string()])
                    .collect();
                rows.push(csv.join(","));
                if check == "DIFF" {
                    eprintln!("clsw bench distance: {variant} on {label} disagrees with the first row's matrix");
                }
            }
        }
    }
    if let Some(path) = &args.csv {
        write_csv(path, CSV_HEADER, &rows)?;
    }
    Ok(())
}
