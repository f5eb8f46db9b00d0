//! Writing distance matrices.
//!
//! - **square** (snp-dists' layout): a header line of a corner cell and the sample
//!   names, then one line per sample: its name and its row. Tab-separated (or
//!   comma-separated).
//! - **long** (snp-dists `-m`, "molten"): one line per ordered pair, self pairs included,
//!   `a b value` (plus the compared count when asked; `NA` on the diagonal).
//! - **plink** (`plink --distance square`): `PREFIX.dist` (diff, allele-ct), `.mibs`
//!   (ibs) or `.mdist` (1-ibs), a square tab-separated matrix without names, and
//!   `PREFIX.<ext>.id` with `family<TAB>id` per line.
//! - **binary**: `PREFIX.u32` (diff: little-endian u32) or `PREFIX.f64` (other metrics:
//!   little-endian IEEE-754 doubles), the full `n x n` matrix row-major with no header;
//!   `PREFIX.ids` with one name per line; with the compared counts also
//!   `PREFIX.compared.u32`. In numpy: `np.fromfile("PREFIX.u32", "<u4").reshape(n, n)`.
//!
//! Integer values are written as integers; fractional values like PLINK writes them
//! (`%g`: six significant digits, trailing zeros dropped), `nan` where no site was
//! compared.

use super::{DistanceMatrix, Metric, SampleName};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Square,
    Long,
    Plink,
    Binary,
}

/// A number as C's `%g` writes it (six significant digits, no trailing zeros), which is
/// how PLINK writes its matrices.
pub fn format_g(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    // The exponent after rounding to six significant digits.
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("scientific format");
    let exp: i32 = exp.parse().expect("exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        trim(&format!("{v:.*}", (5 - exp) as usize))
    }
}

fn cell(dm: &DistanceMatrix, metric: Metric, i: usize, j: usize) -> String {
    if metric == Metric::Differences { dm.difference(i, j).to_string() } else { format_g(dm.value(metric, i, j)) }
}

/// The square matrix with names (snp-dists' default layout). `corner` is the top-left
/// cell; `sep` the field separator.
pub fn write_square<W: Write>(
    w: &mut W,
    names: &[SampleName],
    dm: &DistanceMatrix,
    metric: Metric,
    corner: &str,
    sep: char,
) -> io::Result<()> {
    let mut line = String::from(corner);
    for n in names {
        line.push(sep);
        line.push_str(&n.id);
    }
    writeln!(w, "{line}")?;
    for (i, name) in names.iter().enumerate().take(dm.n) {
        line.clear();
        line.push_str(&name.id);
        for j in 0..dm.n {
            line.push(sep);
            line.push_str(&cell(dm, metric, i, j));
        }
        writeln!(w, "{line}")?;
    }
    Ok(())
}

/// One line per ordered pair (self pairs included), like `snp-dists -m`.
pub fn write_long<W: Write>(
    w: &mut W,
    names: &[SampleName],
    dm: &DistanceMatrix,
    metric: Metric,
    with_compared: bool,
    sep: char,
) -> io::Result<()> {
    for i in 0..dm.n {
        for j in 0..dm.n {
            write!(w, "{}{sep}{}{sep}{}", names[i].id, names[j].id, cell(dm, metric, i, j))?;
            if with_compared {
                match dm.compared(i, j) {
                    Some(c) => write!(w, "{sep}{c}")?,
                    None => write!(w, "{sep}NA")?,
                }
            }
            writeln!(w)?;
        }
    }
    Ok(())
}

fn create(path: &Path) -> Result<BufWriter<File>> {
    Ok(BufWriter::with_capacity(1 << 20, File::create(path).map_err(|e| Error::io(path, e))?))
}

fn with_ext(prefix: &Path, ext: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// PLINK's square matrix and id files; returns the paths written.
pub fn write_plink(prefix: &Path, names: &[SampleName], dm: &DistanceMatrix, metric: Metric) -> Result<Vec<PathBuf>> {
    let ext = match metric {
        Metric::Differences | Metric::AlleleCount => "dist",
        Metric::Ibs => "mibs",
        Metric::OneMinusIbs => "mdist",
    };
    let matrix = with_ext(prefix, ext);
    let ids = with_ext(prefix, &format!("{ext}.id"));
    let mut w = create(&matrix)?;
    let io = |e| Error::io(&matrix, e);
    let mut line = String::new();
    for i in 0..dm.n {
        line.clear();
        for j in 0..dm.n {
            if j > 0 {
                line.push('\t');
            }
            line.push_str(&cell(dm, metric, i, j));
        }
        writeln!(w, "{line}").map_err(io)?;
    }
    w.flush().map_err(io)?;
    let mut w = create(&ids)?;
    for n in names {
        writeln!(w, "{}\t{}", n.family, n.id).map_err(|e| Error::io(&ids, e))?;
    }
    w.flush().map_err(|e| Error::io(&ids, e))?;
    Ok(vec![matrix, ids])
}

/// The raw binary matrix (see the module documentation); returns the paths written.
pub fn write_binary(
    prefix: &Path,
    names: &[SampleName],
    dm: &DistanceMatrix,
    metric: Metric,
    with_compared: bool,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let n = dm.n;
    let write_u32 = |path: PathBuf, m: Vec<u32>, written: &mut Vec<PathBuf>| -> Result<()> {
        let mut w = create(&path)?;
        let bytes: Vec<u8> = m.iter().flat_map(|v| v.to_le_bytes()).collect();
        w.write_all(&bytes).and_then(|_| w.flush()).map_err(|e| Error::io(&path, e))?;
        written.push(path);
        Ok(())
    };
    if metric == Metric::Differences {
        write_u32(with_ext(prefix, "u32"), dm.square()?, &mut written)?;
    } else {
        let path = with_ext(prefix, "f64");
        let mut w = create(&path)?;
        for i in 0..n {
            let row: Vec<u8> = (0..n).flat_map(|j| dm.value(metric, i, j).to_le_bytes()).collect();
            w.write_all(&row).map_err(|e| Error::io(&path, e))?;
        }
        w.flush().map_err(|e| Error::io(&path, e))?;
        written.push(path);
    }
    if with_compared {
        let c =
            dm.square_compared()?.ok_or_else(|| Error::InvalidArgument("compared counts were not computed".into()))?;
        write_u32(with_ext(prefix, "compared.u32"), c, &mut written)?;
    }
    let ids = with_ext(prefix, "ids");
    let mut w = create(&ids)?;
    for name in names {
        writeln!(w, "{}", name.id).map_err(|e| Error::io(&ids, e))?;
    }
    w.flush().map_err(|e| Error::io(&ids, e))?;
    written.push(ids);
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::format_g;

    #[test]
    fn g_format_matches_c() {
        for (v, s) in [
            (0.0, "0"),
            (1.0, "1"),
            (43.2, "43.2"),
            (34.074074074074, "34.0741"),
            (0.32995915, "0.329959"),
            (24.0, "24"),
            (123456.7, "123457"),
            (999999.6, "1e+06"),
            (1234567.0, "1.23457e+06"),
            (0.0001234567, "0.000123457"),
            (0.00001234567, "1.23457e-05"),
            (-2.5, "-2.5"),
            (0.7, "0.7"),
        ] {
            assert_eq!(format_g(v), s, "{v}");
        }
    }
}
