//! The known-answer self-test every OpenCL device passes before an engine uses it.
//!
//! A device that computes wrong must never be used, and the failures seen in practice
//! only show at real shapes: Mesa 22.3's rusticl on llvmpipe passes short pairs but
//! stops every loop after 65,535 iterations, so long subjects score wrong. So the test
//! runs, on the device:
//!
//! 1. the loop probe of `cl/selftest.cl` (loops of 100,000 steps, plain and nested);
//! 2. the scan variants a run will use (the device's own, [`Variant::for_device`],
//!    when an engine opens; another one the first time a run names it,
//!    [`crate::Engine::check_variant`]) on a protein case (BLOSUM62 11/1, a 256-residue
//!    query against 40 subjects of 1 to 5,000 residues, some sharing long regions with
//!    it, many work-groups) and a DNA case whose scores pass 32,767 (the 16-bit
//!    kernels' saturation and their 32-bit recompute); `team` also in its score-only
//!    build, the one a search runs, with teams of 8, 16 and 32 (a search raises the
//!    team where the database is short);
//!
//! and every score and end cell must equal `src/reference`'s (the score alone for the
//! score-only build). The cases are built and
//! their reference answers computed once per process; each device's result is kept
//! per process too (engines are opened often), keyed by the device and the build
//! options, so `CLSW_CL_OPTIONS` (the test hook that builds wrong kernels) is honoured.
//! An engine recalls a pass across processes from the disk cache ([`verdict`]).

use crate::device::{ClDevice, KernelArgs, KernelSource, cl, launch};
use crate::error::Result;
use crate::reference::{self, LocalScore};
use crate::scan::scanner::{ScanKernel, Scanner, Tuning};
use crate::scan::{Variant, scan_once};
use crate::scan::{inter, intra, plain, team};
use crate::scoring::{Gaps, Matrix, Scoring};
use crate::seq::Alphabet;
use opencl3::kernel::Kernel;
use opencl3::memory::ClMem;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const SOURCE: KernelSource = KernelSource { name: "selftest.cl", text: include_str!("../../cl/selftest.cl") };

/// Steps of the loop probe: past the 65,535 at which llvmpipe stops loops.
const LOOP_STEPS: i32 = 100_000;

/// The outcome of a device's self-test.
#[derive(Debug, Clone)]
pub struct SelfTest {
    /// Pairs compared with the reference (over every variant).
    pub pairs: usize,
    /// `None` when everything matched; else what failed first: the probe, or the
    /// variant, case and pair whose score or end differs.
    pub failure: Option<String>,
    /// Host seconds the device took (programs built when not cached, the probe, every
    /// variant), the reference's answers not counted.
    pub seconds: f64,
}

impl SelfTest {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// A small deterministic generator for self-test sequences (xorshift64*).
fn pseudo_random_codes(seed: u64, len: usize, alpha: u8) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as u8 % alpha
        })
        .collect()
}

/// One known-answer case: a query against subjects, with the reference's answers.
struct Case {
    name: &'static str,
    scoring: Scoring,
    query: Vec<u8>,
    subjects: Vec<Vec<u8>>,
    want: Vec<LocalScore>,
}

fn build_cases() -> Result<Vec<Case>> {
    // Protein: lengths around the kernels' band, tile and group sizes, up to several
    // thousand residues; every third subject carries a 20- to 200-residue piece of
    // the query (scores past 127 and 255).
    let protein = Scoring::new(Matrix::builtin("BLOSUM62")?, Gaps::affine(11, 1)?);
    let query = pseudo_random_codes(7, 256, 20);
    let lengths = [
        1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300, 511, 512,
        513, 700, 1000, 1023, 1024, 1500, 2000, 2047, 2500, 3000, 3500, 4000, 4500, 5000,
    ];
    let subjects: Vec<Vec<u8>> = lengths
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            let mut s = pseudo_random_codes(100 + k as u64, n, 20);
            let piece = 20 + (k * 37) % 180;
            if k % 3 == 0 && n > piece + 10 {
                let at = (k * 101) % (n - piece);
                s[at..at + piece].copy_from_slice(&query[30..30 + piece]);
            }
            s
        })
        .collect();
    // DNA with large scores: a subject holding the whole query scores 400 x 100, past
    // 16 bits (saturation, then the 32-bit recompute); half of it stays below.
    let dna = Scoring::new(Matrix::match_mismatch(Alphabet::Dna, 100, -90)?, Gaps::affine(150, 40)?);
    let dquery = pseudo_random_codes(9, 400, 4);
    let mut dsubjects: Vec<Vec<u8>> = (0..6).map(|k| pseudo_random_codes(200 + k, 300 + 700 * k as usize, 4)).collect();
    dsubjects[1][100..500].copy_from_slice(&dquery);
    dsubjects[3][1000..1200].copy_from_slice(&dquery[100..300]);
    dsubjects.push(dquery.clone());
    let mut cases = vec![
        Case { name: "protein", scoring: protein, query, subjects, want: Vec::new() },
        Case { name: "DNA (scores past 16 bits)", scoring: dna, query: dquery, subjects: dsubjects, want: Vec::new() },
    ];
    for c in &mut cases {
        c.want = c.subjects.par_iter().map(|s| reference::score(&c.query, s, &c.scoring)).collect();
    }
    Ok(cases)
}

fn cases() -> Result<&'static [Case]> {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    if let Some(c) = CASES.get() {
        return Ok(c);
    }
    let built = build_cases()?;
    Ok(CASES.get_or_init(|| built))
}

/// The loop probe: `None` when every loop ran to its end, else what went wrong.
fn loop_probe(dev: &ClDevice) -> Result<Option<String>> {
    let program = dev.program(&SOURCE, &[])?;
    let kernel = cl("clCreateKernel", Kernel::create(&program, "selftest_loop"))?;
    const ITEMS: usize = 64;
    let d_out = dev.buffer::<i32>(2 * ITEMS)?;
    let queue = dev.queue();
    KernelArgs::new(&kernel).arg(&LOOP_STEPS)?.arg(&d_out.get())?;
    launch(&queue, &kernel, ITEMS, ITEMS.min(dev.info.max_work_group_size).max(1))?;
    let mut out = vec![0i32; 2 * ITEMS];
    dev.read(&queue, &d_out, &mut out)?;
    for g in 0..ITEMS {
        let want = LOOP_STEPS + g as i32;
        if out[g] != want || out[ITEMS + g] != LOOP_STEPS {
            return Ok(Some(format!(
                "the loop probe: loops of {want} and {} x 100 steps ran {} and {} times (the device ends long \
                 loops early, so long subjects would score wrong; Mesa's llvmpipe stops loops after 65,535)",
                LOOP_STEPS / 100,
                out[g],
                out[ITEMS + g]
            )));
        }
    }
    Ok(None)
}

/// An end cell as users count: 1-based query and subject positions.
fn end_text(end: Option<(usize, usize)>) -> String {
    end.map_or("no cell".into(), |(q, s)| format!("query {} / subject {}", q + 1, s + 1))
}

fn run(dev: &ClDevice, variants: &[Variant]) -> Result<SelfTest> {
    let cases = cases()?;
    let start = std::time::Instant::now();
    let (pairs, failure) = compare(dev, cases, variants)?;
    Ok(SelfTest { pairs, failure, seconds: start.elapsed().as_secs_f64() })
}

/// The probe, then `variants` on every case: pairs compared and the first failure.
fn compare(dev: &ClDevice, cases: &[Case], variants: &[Variant]) -> Result<(usize, Option<String>)> {
    if let Some(failure) = loop_probe(dev)? {
        return Ok((0, Some(failure)));
    }
    let mut pairs = 0;
    // Each variant with end cells, and team's score-only build with every team a
    // search may choose (`Tuning::is_long` gives long subjects teams of 32).
    let mut runs: Vec<(Variant, Option<usize>)> = variants.iter().map(|&v| (v, None)).collect();
    if variants.contains(&Variant::Team) {
        runs.extend([8, 16, 32].map(|t| (Variant::Team, Some(t))));
    }
    for case in cases {
        for &(variant, score_only_team) in &runs {
            let ends = score_only_team.is_none();
            let out = match score_only_team {
                None => scan_once(dev, variant, &case.query, &case.subjects, &case.scoring),
                Some(team) => {
                    let pad = case.scoring.matrix.size() as u8;
                    let subjects: Vec<&[u8]> = case.subjects.iter().map(Vec::as_slice).collect();
                    // Two query slots, as a batched search runs: the same query in both,
                    // and both must hold the reference's scores.
                    let tuning = Tuning { team, long_cover: 0, ..Tuning::default() };
                    let twice = [case.query.clone(), case.query.clone()];
                    Scanner::for_queries(dev, ScanKernel::Team, tuning, &subjects, pad, 2)
                        .and_then(|s| s.scores_many(&twice, &case.scoring))
                        .and_then(|outs| match &outs[..] {
                            [a, b] if a.scores.iter().zip(&b.scores).all(|(x, y)| x.score == y.score) => Ok(b.clone()),
                            _ => Err(crate::error::Error::Device("its two query slots gave different scores".into())),
                        })
                }
            };
            let name = match score_only_team {
                None => variant.to_string(),
                Some(team) => format!("{variant} (score only, teams of {team}, two query slots)"),
            };
            let got = match out {
                Ok(out) => out.scores,
                Err(e) => return Ok((pairs, Some(format!("variant {name}, {} case: {e}", case.name)))),
            };
            for (k, (g, w)) in got.iter().zip(&case.want).enumerate() {
                pairs += 1;
                if g.score != w.score || (ends && g.end != w.end) {
                    let failure = format!(
                        "variant {name}, {} case, subject {k} of {} residues against a query of {}: \
                         the device gave score {} ending at {}, the reference {} ending at {}",
                        case.name,
                        case.subjects[k].len(),
                        case.query.len(),
                        g.score,
                        end_text(g.end),
                        w.score,
                        end_text(w.end)
                    );
                    return Ok((pairs, Some(failure)));
                }
            }
        }
    }
    Ok((pairs, None))
}

/// The self-test of `variant` as an engine needs it: `None` when `dev` passed, else
/// why not. A pass is kept in the disk cache of programs
/// ([`crate::device::ProgramCache`]: its `verdicts/`, keyed by the variant, the device
/// (with its index, so each of two identical cards passes on its own), the driver,
/// every kernel source, the text of this module, the reference and the host code that
/// drives the kernels, and the build options) and recalled by later processes, so the
/// test runs once per variant, device, driver and version of that code rather than at
/// every start (`CLSW_CACHE_DIR=off` runs it every time). Failures are never kept.
pub fn verdict(dev: &ClDevice, variant: Variant) -> Result<Option<String>> {
    // Every scan source, as the recompute of one variant's saturated subjects runs
    // another's kernel.
    let sources = [&SOURCE, &plain::SOURCE, &inter::SOURCE, &team::SOURCE, &intra::SOURCE];
    // The code that judges (this module, the reference) and the host code that lays
    // out, launches and reads back what is judged.
    let checks = [
        include_str!("selftest.rs"),
        include_str!("../reference/mod.rs"),
        include_str!("../scan/mod.rs"),
        include_str!("../scan/scanner.rs"),
        include_str!("../scan/profile.rs"),
        include_str!("../scan/team.rs"),
        include_str!("../scan/layout.rs"),
        include_str!("../scan/outputs.rs"),
        include_str!("../scan/plain.rs"),
        include_str!("../scan/intra.rs"),
        include_str!("../device/opencl.rs"),
    ];
    let key = dev.verdict_key(&sources, &format!("variant {variant}\n{}", checks.concat()));
    if dev.program_cache().recalls_pass(&key) {
        return Ok(None);
    }
    let test = self_test(dev, &[variant])?;
    if test.passed() {
        dev.program_cache().remember_pass(&key);
    }
    Ok(test.failure)
}

/// Runs (or recalls, once per process and build options) the self-test of `variants`
/// on a device.
pub fn self_test(dev: &ClDevice, variants: &[Variant]) -> Result<SelfTest> {
    static DONE: OnceLock<Mutex<HashMap<String, SelfTest>>> = OnceLock::new();
    let key = format!(
        "{:?}|{}|{}|{}|{}",
        variants,
        dev.info.index,
        dev.info.label(),
        dev.info.driver_version,
        dev.build_signature()
    );
    let done = DONE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(t) = done.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(t.clone());
    }
    let result = run(dev, variants)?;
    done.lock().unwrap_or_else(|p| p.into_inner()).insert(key, result.clone());
    Ok(result)
}
