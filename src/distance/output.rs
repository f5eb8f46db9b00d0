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
use crate::outfile::OutFile;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Square,
    Long,
    Plink,
    Binary,
}

impl Format {
    /// The metric written when none is named: PLINK's `--distance` default (allele
    /// counts, its `.dist`) for the plink format, differing sites for the others.
    pub fn default_metric(self) -> Metric {
        if self == Format::Plink { Metric::AlleleCount } else { Metric::Differences }
    }

    /// The prefix of the plink and binary formats' files when none is given: PLINK's
    /// own `plink` (`plink.dist`, `plink.dist.id`) for the plink format, `clsw` for
    /// binary.
    pub fn default_prefix(self) -> &'static str {
        if self == Format::Plink { "plink" } else { "clsw" }
    }
}

/// A number as C's `%g` writes it (six significant digits, no trailing zeros), which is
/// how PLINK writes its matrices.
pub fn format_g(v: f64) -> String {
    crate::cfmt::g(v, 6)
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

fn with_ext(prefix: &Path, ext: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// The files a format writes, in the order it writes them: `path` itself for square
/// and long; for plink and binary, the files under the prefix `path` (see the module
/// documentation). The command checks them against its inputs before any work.
pub fn files(format: Format, path: &Path, metric: Metric, with_compared: bool) -> Vec<PathBuf> {
    match format {
        Format::Square | Format::Long => vec![path.to_path_buf()],
        Format::Plink => {
            let ext = match metric {
                Metric::Differences | Metric::AlleleCount => "dist",
                Metric::Ibs => "mibs",
                Metric::OneMinusIbs => "mdist",
            };
            vec![with_ext(path, ext), with_ext(path, &format!("{ext}.id"))]
        }
        Format::Binary => {
            let matrix = if metric == Metric::Differences { "u32" } else { "f64" };
            let compared = with_compared.then(|| with_ext(path, "compared.u32"));
            [Some(with_ext(path, matrix)), compared, Some(with_ext(path, "ids"))].into_iter().flatten().collect()
        }
    }
}

/// Writes one file's content.
type Part<'a> = Box<dyn Fn(&mut OutFile) -> io::Result<()> + 'a>;

/// Writes `parts[k]` to `paths[k]`, all of them before any replaces its target
/// ([`OutFile`]: a failure leaves every target as it was).
fn write_files(paths: Vec<PathBuf>, parts: Vec<Part<'_>>) -> Result<Vec<PathBuf>> {
    debug_assert_eq!(paths.len(), parts.len(), "one part per file");
    let mut done = Vec::with_capacity(paths.len());
    for (path, part) in paths.iter().zip(parts) {
        let mut f = OutFile::create(path)?;
        part(&mut f).map_err(|e| Error::io(path, e))?;
        done.push(f);
    }
    done.into_iter().try_for_each(OutFile::commit)?;
    Ok(paths)
}

fn write_u32s(w: &mut OutFile, values: &[u32]) -> io::Result<()> {
    w.write_all(&values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
}

/// PLINK's square matrix and id files; returns the paths written.
pub fn write_plink(prefix: &Path, names: &[SampleName], dm: &DistanceMatrix, metric: Metric) -> Result<Vec<PathBuf>> {
    let matrix: Part = Box::new(|w| {
        let mut line = String::new();
        for i in 0..dm.n {
            line.clear();
            for j in 0..dm.n {
                if j > 0 {
                    line.push('\t');
                }
                line.push_str(&cell(dm, metric, i, j));
            }
            writeln!(w, "{line}")?;
        }
        Ok(())
    });
    let ids: Part = Box::new(|w| names.iter().try_for_each(|n| writeln!(w, "{}\t{}", n.family, n.id)));
    write_files(files(Format::Plink, prefix, metric, false), vec![matrix, ids])
}

/// The raw binary matrix (see the module documentation); returns the paths written.
pub fn write_binary(
    prefix: &Path,
    names: &[SampleName],
    dm: &DistanceMatrix,
    metric: Metric,
    with_compared: bool,
) -> Result<Vec<PathBuf>> {
    let n = dm.n;
    let mut parts: Vec<Part> = vec![if metric == Metric::Differences {
        let square = dm.square()?;
        Box::new(move |w| write_u32s(w, &square))
    } else {
        Box::new(move |w| {
            (0..n).try_for_each(|i| {
                w.write_all(&(0..n).flat_map(|j| dm.value(metric, i, j).to_le_bytes()).collect::<Vec<u8>>())
            })
        })
    }];
    if with_compared {
        let c =
            dm.square_compared()?.ok_or_else(|| Error::InvalidArgument("compared counts were not computed".into()))?;
        parts.push(Box::new(move |w| write_u32s(w, &c)));
    }
    parts.push(Box::new(|w| names.iter().try_for_each(|name| writeln!(w, "{}", name.id))));
    write_files(files(Format::Binary, prefix, metric, with_compared), parts)
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
