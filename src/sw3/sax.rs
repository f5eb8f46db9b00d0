//! SAX: numeric time series to symbol strings (Lin, Keogh, Lonardi and Chiu, 2003), so
//! channels of a recording (fNIRS, say) can be aligned like sequences.
//!
//! Each channel is z-normalised (mean 0, population standard deviation 1), reduced to
//! `w` segment means (piecewise aggregate approximation, PAA), and each mean becomes one
//! of `alpha` symbols by the breakpoints that cut the standard normal distribution into
//! `alpha` equally likely parts: `beta_i = Phi^-1(i / alpha)`, i = 1..alpha-1. A value
//! `v` gets symbol `s` = the number of breakpoints `<= v` (0-based code; letter `'a' + s`).
//!
//! Documented handling of awkward inputs:
//! * a constant channel (zero variance) cannot be normalised: its values become 0,
//!   every segment gets the middle symbol (for an even alphabet the upper middle one,
//!   since 0 is a breakpoint), and [`SaxWord::constant`] says so;
//! * PAA with a length that is not a multiple of `w`: a point that straddles two segments
//!   counts in both with the fraction it covers (exact weights); `w` may exceed the length;
//! * in files: NaN, infinities, empty fields and rows with the wrong number of fields
//!   are errors naming the line and column; blank lines and `#` lines are skipped.

use crate::error::{Error, Result};
use crate::memory;
use crate::scoring::{Gaps, Matrix, Scoring, ScoringRequest};
use crate::seq::{Alphabet, fasta};
use crate::textfile::{Lines, MAX_LINE};
use std::io::BufRead;
use std::path::Path;

/// Smallest and largest alphabet sizes (the range of the published breakpoint tables).
pub const MIN_ALPHABET: usize = 3;
pub const MAX_ALPHABET: usize = 20;

const SQRT_2: f64 = std::f64::consts::SQRT_2;
/// 2 / sqrt(pi)
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// erf(x) for 0 <= x < 3 by the series of positive terms
/// `erf x = 2x/sqrt(pi) e^(-x^2) sum (2x^2)^n / (1·3···(2n+1))` (no cancellation).
fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut n = 0.0;
    while term > sum * 1e-17 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
    }
    TWO_OVER_SQRT_PI * x * (-x2).exp() * sum
}

/// erfc(x) for x >= 2.5 by its continued fraction (modified Lentz):
/// `erfc x = e^(-x^2)/sqrt(pi) · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))`.
fn erfc_fraction(x: f64) -> f64 {
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..500 {
        let an = n as f64 / 2.0;
        d = x + an * d;
        d = if d.abs() < tiny { tiny } else { d };
        c = x + an / c;
        c = if c.abs() < tiny { tiny } else { c };
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (std::f64::consts::PI.sqrt() * f)
}

/// The scoring of SAX words: their codes 0..alphabet-1 scored by match/mismatch over
/// the protein table (24 codes, enough for every SAX alphabet); match 1, mismatch -1 and
/// linear gaps of 1 unless the request says otherwise. A named matrix is refused.
pub fn scoring(request: &ScoringRequest) -> Result<Scoring> {
    if request.matrix.is_some() {
        return Err(Error::InvalidArgument(
            "SAX words are scored with match/mismatch (--match/--mismatch), not a matrix".into(),
        ));
    }
    let (m, x) = request.match_mismatch.unwrap_or((1, -1));
    let matrix = Matrix::match_mismatch(Alphabet::Protein, m, x)?;
    Ok(Scoring::new(matrix, Gaps::from_signed(request.gap_open.unwrap_or(0), request.gap_extend.unwrap_or(1))?))
}

/// The complementary error function, accurate to about 1e-15 relative.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.5 { 1.0 - erf_series(x) } else { erfc_fraction(x) }
}

/// The standard normal distribution function Phi(z).
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / SQRT_2)
}

/// The standard normal density.
fn normal_pdf(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// The standard normal quantile Phi^-1(p) for 0 < p < 1 (NaN outside; exactly 0 at 1/2).
/// Halley iterations on [`normal_cdf`] from a tail-aware first guess, in the lower tail
/// (the upper tail by symmetry: `1 - p` is exact for p >= 1/2).
pub fn inverse_normal_cdf(p: f64) -> f64 {
    if p.is_nan() || p <= 0.0 || p >= 1.0 {
        return f64::NAN;
    }
    if p == 0.5 {
        return 0.0;
    }
    if p > 0.5 {
        return -inverse_normal_cdf(1.0 - p);
    }
    // First guess: the tail approximation z ~ -(t - (2.30753 + 0.27061 t)/(1 + 0.99229 t
    // + 0.04481 t^2)), t = sqrt(-2 ln p) (Abramowitz & Stegun 26.2.23, error < 3e-3).
    let t = (-2.0 * p.ln()).sqrt();
    let mut z = -(t - (2.30753 + 0.27061 * t) / (1.0 + 0.99229 * t + 0.04481 * t * t));
    for _ in 0..50 {
        let f = normal_cdf(z) - p;
        let d = normal_pdf(z);
        if d == 0.0 {
            break;
        }
        let u = f / d;
        let step = u / (1.0 + 0.5 * z * u);
        z -= step;
        if step.abs() <= 1e-15 * z.abs().max(1e-300) {
            break;
        }
    }
    z
}

/// The `alpha - 1` SAX breakpoints `Phi^-1(i / alpha)`, for 3 <= alpha <= 20.
pub fn breakpoints(alpha: usize) -> Result<Vec<f64>> {
    if !(MIN_ALPHABET..=MAX_ALPHABET).contains(&alpha) {
        return Err(Error::InvalidArgument(format!(
            "SAX alphabet size {alpha}: must be between {MIN_ALPHABET} and {MAX_ALPHABET}"
        )));
    }
    Ok((1..alpha).map(|i| if 2 * i == alpha { 0.0 } else { inverse_normal_cdf(i as f64 / alpha as f64) }).collect())
}

/// Z-normalises a series (population standard deviation); returns the values and
/// whether the series is constant (then every value is 0).
///
/// Finite values near `f64::MAX` overflow the sum and the squares; such a series is
/// normalised in units of its largest magnitude instead (z-values do not depend on the
/// unit), so every finite input gives finite z-values.
pub fn znormalize(x: &[f64]) -> (Vec<f64>, bool) {
    if x.is_empty() {
        return (Vec::new(), true);
    }
    let (mut scale, mut mean, mut sd) = (1.0, 0.0, 0.0);
    for unit in [1.0, x.iter().fold(0.0f64, |m, v| m.max(v.abs()))] {
        scale = unit;
        (mean, sd) = mean_and_sd(x, unit);
        if mean.is_finite() && sd.is_finite() {
            break;
        }
    }
    // Constant: sd <= 1e-12 max(|mean|, 1) in the series' own unit.
    if sd <= 1e-12 * mean.abs().max(1.0 / scale) {
        return (vec![0.0; x.len()], true);
    }
    (x.iter().map(|v| (v / scale - mean) / sd).collect(), false)
}

/// The mean and population standard deviation of `x / unit`.
fn mean_and_sd(x: &[f64], unit: f64) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().map(|v| v / unit).sum::<f64>() / n;
    let var = x.iter().map(|v| (v / unit - mean) * (v / unit - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// Piecewise aggregate approximation: `w` segment means. Segment s covers points
/// [s·n/w, (s+1)·n/w); a point straddling a boundary counts with the fraction it covers.
pub fn paa(x: &[f64], w: usize) -> Vec<f64> {
    let n = x.len();
    if n == 0 || w == 0 {
        return Vec::new();
    }
    // In units of 1/w point: point p covers [p·w, (p+1)·w), segment s covers [s·n, (s+1)·n).
    (0..w)
        .map(|s| {
            let (lo, hi) = (s * n, (s + 1) * n);
            let (p0, p1) = (lo / w, (hi - 1) / w);
            let sum: f64 = (p0..=p1)
                .map(|p| {
                    let overlap = hi.min((p + 1) * w) - lo.max(p * w);
                    overlap as f64 * x[p]
                })
                .sum();
            sum / n as f64
        })
        .collect()
}

/// SAX codes of values: the number of breakpoints `<= v`.
pub fn symbolize(values: &[f64], breakpoints: &[f64]) -> Vec<u8> {
    values.iter().map(|&v| breakpoints.iter().filter(|&&b| b <= v).count() as u8).collect()
}

/// Letters of SAX codes (`a` for 0).
pub fn letters(codes: &[u8]) -> String {
    codes.iter().map(|&c| (b'a' + c) as char).collect()
}

/// One channel's SAX word.
#[derive(Debug, Clone, PartialEq)]
pub struct SaxWord {
    /// Codes 0..alpha-1, one per segment.
    pub codes: Vec<u8>,
    /// The channel had zero variance (see the module documentation).
    pub constant: bool,
}

/// The SAX word of a series: `w` segments over an alphabet of `alpha` symbols.
pub fn sax(x: &[f64], w: usize, alpha: usize) -> Result<SaxWord> {
    let bp = breakpoints(alpha)?;
    if w == 0 {
        return Err(Error::InvalidArgument("SAX word length must be positive".into()));
    }
    if x.is_empty() {
        return Err(Error::InvalidArgument("SAX of an empty series".into()));
    }
    // The word's segment bounds (s x points) must fit, and its values the memory: a
    // word length from input (99,999,999,999) aborted the process allocating them.
    let what = format!("a SAX word of {w} segments over {} points", x.len());
    crate::memory::count(&what, &[w, x.len()])?;
    crate::memory::ensure(&what, crate::memory::bytes_of::<f64>(w) * 2 + w as u128)?;
    if let Some(p) = x.iter().position(|v| !v.is_finite()) {
        return Err(Error::InvalidArgument(format!("SAX: value {} at position {} is not finite", x[p], p + 1)));
    }
    let (z, constant) = znormalize(x);
    Ok(SaxWord { codes: symbolize(&paa(&z, w), &bp), constant })
}

/// Multichannel series read from a file: one column per channel.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Channel names: the header's fields, or `ch1`, `ch2`, ... without a header.
    pub names: Vec<String>,
    /// One vector per channel, all of the same length.
    pub channels: Vec<Vec<f64>>,
}

/// Reads a CSV/TSV file of series (see [`parse_series`]), plain or gzip, a row at a
/// time (rows of at most [`MAX_LINE`] bytes).
pub fn read_series(path: &Path) -> Result<Series> {
    series_from(Lines::new(fasta::open_input(path)?, path.display().to_string(), MAX_LINE))
}

/// Parses series text: one row per time point, one column per channel, separated by
/// tabs, commas or semicolons (whichever the first row uses), or one value per line
/// for a single channel. The first row is a header when any of its fields is not a
/// number. Blank lines and lines starting with `#` are skipped. Every row must have one
/// finite number per channel.
pub fn parse_series(text: &str, source: &str) -> Result<Series> {
    series_from(Lines::new(text.as_bytes(), source, MAX_LINE))
}

fn series_from(mut lines: Lines<impl BufRead>) -> Result<Series> {
    let source = lines.source().to_string();
    let mut delim = None;
    let split = |l: &str, delim: Option<char>| -> Vec<String> {
        match delim {
            Some(d) => l.split(d).map(|f| f.trim().to_string()).collect(),
            None => vec![l.trim().to_string()],
        }
    };
    let mut names: Vec<String> = Vec::new();
    let mut channels: Vec<Vec<f64>> = Vec::new();
    while let Some((no, line)) = lines.next_line()? {
        let line = if no == 1 { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line };
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if names.is_empty() {
            delim = ['\t', ',', ';'].into_iter().find(|&d| line.contains(d));
            let fields = split(line, delim);
            let header = fields.iter().any(|f| f.parse::<f64>().is_err());
            names = (1..=fields.len()).map(|i| format!("ch{i}")).collect();
            channels = vec![Vec::new(); names.len()];
            if header {
                for (name, f) in names.iter_mut().zip(fields) {
                    if !f.is_empty() {
                        *name = f;
                    }
                }
                continue;
            }
        }
        let fields = split(line, delim);
        let width = names.len();
        if fields.len() != width {
            return Err(lines.error(
                no,
                format!(
                    "{} fields, expected {width} (one per channel); every row needs a value for every channel \
                     (columns of different lengths are not supported)",
                    fields.len()
                ),
            ));
        }
        for (c, f) in fields.iter().enumerate() {
            let v: f64 = f.parse().map_err(|_| {
                let what = if f.is_empty() { "an empty field".to_string() } else { format!("'{f}' is not a number") };
                lines.error(no, format!("column {} ('{}'): {what}", c + 1, names[c]))
            })?;
            if !v.is_finite() {
                return Err(lines.error(
                    no,
                    format!(
                        "column {} ('{}'): {f} is not a finite number; fill or drop missing values first",
                        c + 1,
                        names[c]
                    ),
                ));
            }
            memory::grow(&mut channels[c], "the series' values", 1)?;
            channels[c].push(v);
        }
    }
    if channels.first().is_none_or(|c| c.is_empty()) {
        return Err(Error::InvalidArgument(format!("{source}: no data rows")));
    }
    Ok(Series { names, channels })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_near_the_largest_double_normalise_like_small_ones() {
        let (z, constant) = znormalize(&[1e308, -1e308, 1e308, -1e308]);
        assert_eq!((z, constant), (vec![1.0, -1.0, 1.0, -1.0], false));
        let (big, _) = znormalize(&[1.7e308, 1.7e308, 1.6e308, f64::MAX]);
        let (small, _) = znormalize(&[1.7, 1.7, 1.6, f64::MAX / 1e308]);
        for (b, s) in big.iter().zip(&small) {
            assert!(b.is_finite() && (b - s).abs() < 1e-9, "{big:?} vs {small:?}");
        }
        assert!(znormalize(&[f64::MAX; 5]).1, "a constant series stays constant");
        // Ordinary series keep their exact values (the first pass is unscaled).
        assert_eq!(znormalize(&[1.0, 3.0]).0, vec![-1.0, 1.0]);
    }

    #[test]
    fn erfc_known_values() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-16);
        assert!((erfc(1.0) - 0.157_299_207_050_285_13).abs() < 1e-15);
        assert!((erfc(3.0) / 2.209_049_699_858_544e-5 - 1.0).abs() < 1e-13);
        assert!((erfc(-1.0) - 1.842_700_792_949_715).abs() < 1e-15);
    }
}
