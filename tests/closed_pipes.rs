//! A closed standard output ends clsw quietly, as it ends other Unix tools: killed by
//! SIGPIPE (status 141 in a shell) or exit 0, nothing on standard error, no panic and
//! no "Broken pipe" error; and `clsw scan | head` gets each query's lines as soon as
//! they are found, so the reader leaving stops the search.

mod common;

use common::cli::{s, scratch};
use common::data_dir;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};

fn clsw_command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clsw"));
    cmd.args(args).env("CLSW_DEVICE", "native").stderr(Stdio::piped());
    cmd
}

/// A quiet end: killed by SIGPIPE or exit 0, and nothing on standard error.
#[track_caller]
fn assert_quiet_end(what: &str, status: ExitStatus, child: &mut Child) {
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(
        status.signal() == Some(libc::SIGPIPE) || status.code() == Some(0),
        "{what}: {status:?}, standard error: {err}"
    );
    assert_eq!(err, "", "{what}");
}

/// The ten bundled queries ten times over, with ids of their own.
fn hundred_queries() -> std::path::PathBuf {
    let ten = std::fs::read_to_string(data_dir().join("queries10.fasta")).unwrap();
    let mut text = String::new();
    for round in 0..10 {
        for line in ten.lines() {
            match line.strip_prefix('>') {
                Some(header) => text.push_str(&format!(">r{round}_{header}\n")),
                None => text.push_str(&format!("{line}\n")),
            }
        }
    }
    scratch("hundred.fa", text.as_bytes())
}

#[test]
fn writing_to_a_closed_pipe_ends_every_command_quietly() {
    let q = hundred_queries();
    let db = data_dir().join("uniprot300.fasta");
    let aln = scratch("aln.fa", b">a\nACGTACGT\n>b\nACGAACGT\n>c\nTCGAACGA\n");
    let commands: [&[&str]; 5] = [
        &["devices"],
        &["scan", "-q", s(&q), "-d", s(&db)],
        &["scan", "-q", s(&q), "-d", s(&db), "--outfmt", "json"],
        &["distance", s(&aln)],
        &["align", s(&q), s(&q)],
    ];
    for args in commands {
        // Standard output is a pipe whose reader is gone before clsw writes anything.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut child = clsw_command(args).stdout(writer).spawn().unwrap();
        let status = child.wait().unwrap();
        assert_quiet_end(&args.join(" "), status, &mut child);
    }
}

#[test]
fn scan_streams_each_query_and_stops_when_the_reader_leaves() {
    let q = hundred_queries();
    let db = data_dir().join("uniprot300.fasta");
    let mut child = clsw_command(&["scan", "-q", s(&q), "-d", s(&db)]).stdout(Stdio::piped()).spawn().unwrap();
    let mut first = [0u8; 16];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    assert!(first.starts_with(b"r0_"), "{}", String::from_utf8_lossy(&first));
    // The first query's lines came while the other 99 queries were still to search.
    assert!(child.try_wait().unwrap().is_none(), "the results came only at the end");
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_quiet_end("scan | head -c16", status, &mut child);
}
