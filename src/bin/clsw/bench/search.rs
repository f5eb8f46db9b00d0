//! `clsw bench search`: the whole search as a user runs it, timed by the wall clock from
//! the command to the last line of output, beside the kernel time it contains, for the
//! runs issue 13 names (the default search, 1,000 hits a query, a database in batches);
//! and CUDASW++4.0's whole process on the same queries and database when given its
//! directory.
//!
//! Each run is this executable's own `scan` command in a process of its own (output to
//! a file, so writing it is timed too); its summary line on standard error gives the
//! kernel seconds and the setup (database, devices, upload beside the layout, words,
//! programs), which the table shows beside the wall clock.

use super::{median, print_row, timed};
use crate::args::DeviceArgs;
use clap::Args;
use clsw::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Args)]
pub struct BenchSearchArgs {
    /// FASTA file of queries.
    #[arg(long, short = 'q')]
    query: PathBuf,
    /// Database FASTA (plain or gzip).
    #[arg(long, short = 'd')]
    db: PathBuf,
    /// Prepare the database with `clsw makedb` into this file first and search that, as
    /// a user searching a database repeatedly would (CUDASW++4.0 prepares its own too).
    #[arg(long)]
    prepared: Option<PathBuf>,
    #[command(flatten)]
    device: DeviceArgs,
    /// Runs, each `clsw scan` with these extra options: `default` (none), `hits1000`
    /// (--max-hits 1000 --evalue 1e9), `batched` (--batch-residues from --batch).
    #[arg(long, value_delimiter = ',', default_value = "default,hits1000,batched")]
    runs: Vec<String>,
    /// Residues per batch of the `batched` run.
    #[arg(long, default_value_t = 20_000_000)]
    batch: u64,
    /// Times each run is repeated: the median wall clock is reported.
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// CUDASW++4.0's directory (its `makedb` and `align`): also time `align --dpx --top 50`
    /// on the same queries and database, whole process.
    #[arg(long)]
    cudasw: Option<PathBuf>,
    /// Keep each run's output here (file per run) instead of a temporary directory.
    #[arg(long)]
    keep: Option<PathBuf>,
}

/// The figures of one `clsw scan` summary line.
#[derive(Debug, Default, PartialEq)]
struct Summary {
    kernels: Option<f64>,
    database: Option<f64>,
    devices: Option<f64>,
    upload: Option<f64>,
    words: Option<f64>,
    programs: Option<f64>,
    hits: Option<u64>,
}

/// The number just before `unit` after the words `key` in `line` (`"kernels 1.92 s"`).
fn figure(line: &str, key: &str) -> Option<f64> {
    let at = line.find(key)? + key.len();
    line[at..].split_whitespace().next()?.replace(',', "").parse().ok()
}

fn parse_summary(line: &str) -> Summary {
    Summary {
        kernels: figure(line, "; kernels "),
        database: figure(line, "(database "),
        devices: figure(line, ", devices "),
        upload: figure(line, ", upload "),
        words: figure(line, ", words "),
        programs: figure(line, ", programs "),
        hits: line
            .rsplit_once(" hits;")
            .and_then(|(before, _)| before.rsplit("; ").next())
            .and_then(|n| n.replace(',', "").parse().ok()),
    }
}

fn run_timed(command: &mut Command, what: &str) -> Result<(f64, String)> {
    let (output, seconds) = timed(|| command.output());
    let output = output.map_err(|e| Error::io(Path::new(what), e))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(Error::InvalidArgument(format!("{what} failed ({}): {}", output.status, stderr.trim())));
    }
    Ok((seconds, stderr))
}

const LAYOUT: &str = "<12 >8 >9 >9 >9 >9 >9 >9 >9 >10 >8";

pub fn run(args: &BenchSearchArgs) -> Result<()> {
    let exe = std::env::current_exe().map_err(|e| Error::io(Path::new("clsw"), e))?;
    let dir = match &args.keep {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(format!("clsw-bench-search-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let db = match &args.prepared {
        Some(path) => {
            let (seconds, _) =
                run_timed(Command::new(&exe).arg("makedb").arg(&args.db).arg("-o").arg(path), "clsw makedb")?;
            println!("# clsw makedb {} -> {}: {seconds:.2} s (not counted below)", args.db.display(), path.display());
            path.clone()
        }
        None => args.db.clone(),
    };
    println!("# whole process, wall clock (median of {}), beside the times in its summary line", args.repeat.max(1));
    print_row(
        LAYOUT,
        &[
            "run",
            "wall_s",
            "kernels_s",
            "host_s",
            "database",
            "devices",
            "upload",
            "words",
            "programs",
            "x_kernels",
            "hits",
        ],
    );
    let mut default_wall = None;
    for name in &args.runs {
        let extra: Vec<String> = match name.as_str() {
            "default" => vec![],
            "hits1000" => ["--max-hits", "1000", "--evalue", "1e9"].map(String::from).to_vec(),
            "batched" => vec!["--batch-residues".into(), args.batch.to_string()],
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unknown run '{other}' (runs: default, hits1000, batched)"
                )));
            }
        };
        let out = dir.join(format!("{name}.txt"));
        let (mut walls, mut summary) = (Vec::new(), Summary::default());
        for _ in 0..args.repeat.max(1) {
            let mut command = Command::new(&exe);
            command.arg("scan").arg("-q").arg(&args.query).arg("-d").arg(&db).arg("-o").arg(&out).args(&extra);
            if let Some(d) = &args.device.device {
                command.args(["--device", d]);
            }
            if args.device.portable {
                command.arg("--portable");
            }
            let (seconds, stderr) = run_timed(&mut command, "clsw scan")?;
            walls.push(seconds);
            summary =
                stderr.lines().rev().find(|l| l.contains("GCUPS end to end")).map(parse_summary).unwrap_or_default();
        }
        let wall = median(walls);
        if name == "default" {
            default_wall = Some(wall);
        }
        let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
        print_row(
            LAYOUT,
            &[
                name.clone(),
                format!("{wall:.2}"),
                show(summary.kernels),
                show(summary.kernels.map(|k| wall - k)),
                show(summary.database),
                show(summary.devices),
                show(summary.upload),
                show(summary.words),
                show(summary.programs),
                show(summary.kernels.map(|k| wall / k)),
                summary.hits.map_or("-".into(), |h| h.to_string()),
            ],
        );
    }
    if let Some(cudasw) = &args.cudasw {
        let cdb = dir.join("cudasw_db");
        std::fs::create_dir_all(&cdb).map_err(|e| Error::io(&cdb, e))?;
        let fasta = plain_fasta(&args.db, &dir)?;
        run_timed(Command::new(cudasw.join("makedb")).arg(&fasta).arg(cdb.join("db")), "CUDASW++ makedb")?;
        let mut walls = Vec::new();
        for _ in 0..args.repeat.max(1) {
            let mut command = Command::new(cudasw.join("align"));
            command.arg("--query").arg(&args.query).arg("--db").arg(cdb.join("db"));
            command.args(["--dpx", "--top", "50"]).arg("--of").arg(dir.join("cudasw.txt"));
            walls.push(run_timed(&mut command, "CUDASW++ align")?.0);
        }
        let wall = median(walls);
        print_row(LAYOUT, &["cudasw_dpx", &format!("{wall:.2}"), "-", "-", "-", "-", "-", "-", "-", "-"]);
        if let Some(d) = default_wall {
            println!("# clsw default / CUDASW++4.0 --dpx --top 50, whole process: {:.2}x the speed", wall / d);
        }
    }
    if args.keep.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}

/// CUDASW++'s makedb reads plain FASTA: a gzip file is unpacked into `dir` first.
fn plain_fasta(path: &Path, dir: &Path) -> Result<PathBuf> {
    let gz = path.extension().is_some_and(|e| e == "gz");
    if !gz {
        return Ok(path.to_path_buf());
    }
    let out = dir.join("db.fasta");
    let mut reader = flate2::read::MultiGzDecoder::new(std::fs::File::open(path).map_err(|e| Error::io(path, e))?);
    let mut file = std::fs::File::create(&out).map_err(|e| Error::io(&out, e))?;
    std::io::copy(&mut reader, &mut file).map_err(|e| Error::io(path, e))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_is_read() {
        let line = "clsw: 20 queries (41,752 residues) x 400,000 subjects (181,111,380 residues); variant team on \
                    [1] NVIDIA H100 (NVIDIA CUDA): 7.562e12 cells in 3.10 s = 2439.35 GCUPS end to end (database \
                    0.20 s, devices 0.31 s beside them, layout 0.04 s, upload 0.12 s beside it, words 0.01 s, programs 0.05 s, \
                    search 2.20 s; kernels 1.92 s = 3938.00 GCUPS); 0 subjects recomputed \
                    at 32 bits; 1,000 hits; E-values fitted for 20";
        let s = parse_summary(line);
        assert_eq!(
            s,
            Summary {
                kernels: Some(1.92),
                database: Some(0.20),
                devices: Some(0.31),
                upload: Some(0.12),
                words: Some(0.01),
                programs: Some(0.05),
                hits: Some(1000)
            }
        );
        assert_eq!(parse_summary("no figures here"), Summary::default());
    }
}
