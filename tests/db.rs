//! The sequence database: FASTA and prepared files, and how bad files are refused.

mod common;

use clsw::seq::db::{FORMAT_VERSION, HEADER_LEN, MAGIC, OLDEST_READ};
use clsw::seq::{Alphabet, Database, EmptyRecords, Sequence, fasta};
use common::{Rng, data_dir};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scratch folder under the system temp dir, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("clsw-db-test-{}-{tag}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uniprot() -> PathBuf {
    data_dir().join("uniprot300.fasta")
}

fn assert_same(a: &Database, b: &Database) {
    assert_eq!(a.alphabet(), b.alphabet());
    assert_eq!(a.len(), b.len());
    assert_eq!(a.total_residues(), b.total_residues());
    assert_eq!(a.max_len(), b.max_len());
    for k in 0..a.len() {
        assert_eq!(a.id(k), b.id(k), "id of {k}");
        assert_eq!(a.description(k), b.description(k), "description of {k}");
        assert_eq!(a.residues(k), b.residues(k), "residues of {k}");
    }
    assert_eq!(a.order_by_length(), b.order_by_length());
    assert_eq!(a.lengths(), b.lengths());
    assert_eq!(a.offsets(), b.offsets());
    assert_eq!(a.all_residues(), b.all_residues());
}

/// Writes `db` to a prepared file in `scratch` and returns its path and bytes.
fn prepared_file(scratch: &Scratch, db: &Database) -> (PathBuf, Vec<u8>) {
    let path = scratch.path("db.clswdb");
    db.write_prepared(&path).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// The bundled UniProt subset written as a prepared file for a damage test: the scratch
/// folder, the database, the file, its bytes, and the path as messages show it.
struct DamageCase {
    _scratch: Scratch,
    db: Database,
    path: PathBuf,
    bytes: Vec<u8>,
    shown: String,
}

fn damage_case(name: &str) -> DamageCase {
    let scratch = Scratch::new(name);
    let (db, _) = Database::from_fasta(&uniprot(), Alphabet::Protein, EmptyRecords::Error).unwrap();
    let (path, bytes) = prepared_file(&scratch, &db);
    let shown = path.display().to_string();
    DamageCase { _scratch: scratch, db, path, bytes, shown }
}

fn open_err(path: &Path) -> String {
    match Database::open_prepared(path) {
        Ok(db) => panic!("{} opened as a database of {} sequences", path.display(), db.len()),
        Err(e) => {
            println!("refused: {e}");
            e.to_string()
        }
    }
}

#[test]
fn fasta_to_prepared_round_trip() {
    let s = Scratch::new("round-trip");
    let (seqs, _) = fasta::read_file(&uniprot(), Alphabet::Protein, EmptyRecords::Error).unwrap();
    let (db, report) = Database::from_fasta(&uniprot(), Alphabet::Protein, EmptyRecords::Error).unwrap();
    assert_eq!(report.records, seqs.len());
    assert_eq!(db.len(), seqs.len());
    assert!(db.len() > 250, "{}", db.len());
    assert!(!db.is_mapped());
    // The database holds exactly what the FASTA reader returns, in file order.
    for (k, s) in seqs.iter().enumerate() {
        assert_eq!(db.id(k), s.id);
        assert_eq!(db.description(k), s.description);
        assert_eq!(db.residues(k), &s.residues[..]);
        assert_eq!(db.seq_len(k), s.len());
        assert_eq!(&db.sequence(k), s);
    }
    assert_eq!(db.total_residues(), seqs.iter().map(|s| s.len() as u64).sum::<u64>());
    assert_eq!(db.max_len(), seqs.iter().map(|s| s.len()).max().unwrap());
    assert!(!db.description(0).is_empty(), "uniprot headers have descriptions");

    let from_seqs = Database::from_sequences(Alphabet::Protein, seqs);
    assert_same(&db, &from_seqs);

    let (path, bytes) = prepared_file(&s, &db);
    assert_eq!(&bytes[..8], &MAGIC);
    assert_eq!(bytes.len() % 8, 0);
    let opened = Database::open_prepared(&path).unwrap();
    assert!(opened.is_mapped());
    assert_same(&db, &opened);

    // Writing the opened database again gives the same bytes.
    let again = s.path("again.clswdb");
    opened.write_prepared(&again).unwrap();
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
    // Overwriting a file that is open (mapped) is safe: the open database is unchanged.
    from_seqs.write_prepared(&path).unwrap();
    assert_same(&db, &opened);
}

#[test]
fn dna_and_gzip_and_odd_names() {
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;
    let s = Scratch::new("dna");
    let fa = s.path("dna.fa.gz");
    let mut enc = GzEncoder::new(std::fs::File::create(&fa).unwrap(), Compression::default());
    enc.write_all(">d1 first ünïcode déscription\nACGTRN\nacgu\n>d2\nT\n>d3  spaced   out \nGGGG\n".as_bytes())
        .unwrap();
    enc.finish().unwrap();
    let (db, report) = Database::open(&fa, None, EmptyRecords::Error).unwrap();
    let report = report.expect("FASTA gives a report");
    assert_eq!(report.substituted, vec![('R', 1)]);
    assert_eq!(db.alphabet(), Alphabet::Dna);
    assert_eq!(db.len(), 3);
    assert_eq!(db.residues(0), &[0, 1, 2, 3, 4, 4, 0, 1, 2, 3]);
    assert_eq!(db.description(0), "first ünïcode déscription");
    assert_eq!(db.id(1), "d2");
    assert_eq!(db.description(1), "");
    assert_eq!(db.description(2), "spaced   out");
    assert_eq!(db.order_by_length(), &[1, 2, 0]);

    let (path, _) = prepared_file(&s, &db);
    let (opened, report) = Database::open(&path, Some(Alphabet::Dna), EmptyRecords::Error).unwrap();
    assert!(report.is_none());
    assert_same(&db, &opened);
    // Asking for the other alphabet is refused.
    let msg = Database::open(&path, Some(Alphabet::Protein), EmptyRecords::Error).unwrap_err().to_string();
    assert!(msg.contains(&path.display().to_string()) && msg.contains("dna") && msg.contains("protein"), "{msg}");
}

#[test]
fn open_detects_both_kinds() {
    let s = Scratch::new("detect");
    let (fa_db, report) = Database::open(&uniprot(), None, EmptyRecords::Error).unwrap();
    assert!(report.is_some());
    assert!(!fa_db.is_mapped());
    assert_eq!(fa_db.alphabet(), Alphabet::Protein, "the alphabet is guessed from the residues");
    let (path, _) = prepared_file(&s, &fa_db);
    assert!(clsw::seq::db::is_prepared(&path).unwrap());
    assert!(!clsw::seq::db::is_prepared(&uniprot()).unwrap());
    let (pre_db, report) = Database::open(&path, None, EmptyRecords::Error).unwrap();
    assert!(report.is_none());
    assert!(pre_db.is_mapped());
    assert_same(&fa_db, &pre_db);
}

#[test]
fn order_by_length_is_a_sorted_permutation() {
    let (db, _) = Database::from_fasta(&uniprot(), Alphabet::Protein, EmptyRecords::Error).unwrap();
    let order = db.order_by_length();
    assert_eq!(order.len(), db.len());
    let mut seen = vec![false; db.len()];
    for &k in order {
        assert!(!seen[k as usize], "{k} twice");
        seen[k as usize] = true;
    }
    for w in order.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        assert!(
            (db.seq_len(a), a) < (db.seq_len(b), b),
            "{a} (len {}) before {b} (len {})",
            db.seq_len(a),
            db.seq_len(b)
        );
    }
    // Ties keep database order, including an all-equal database.
    let mut rng = Rng::new(5);
    let seqs: Vec<Sequence> = (0..50)
        .map(|i| Sequence { id: format!("s{i}"), description: String::new(), residues: rng.codes(7, 20) })
        .collect();
    let db = Database::from_sequences(Alphabet::Protein, seqs);
    assert_eq!(db.order_by_length(), (0..50).collect::<Vec<u32>>());
}

#[test]
fn empty_database_round_trips() {
    let s = Scratch::new("empty-db");
    let db = Database::from_sequences(Alphabet::Dna, Vec::new());
    assert!(db.is_empty());
    assert_eq!(db.max_len(), 0);
    assert_eq!(db.total_residues(), 0);
    let (path, bytes) = prepared_file(&s, &db);
    assert_eq!(bytes.len(), HEADER_LEN + 8);
    let opened = Database::open_prepared(&path).unwrap();
    assert!(opened.is_empty());
    assert_eq!(opened.alphabet(), Alphabet::Dna);
}

#[test]
fn truncated_file_is_refused() {
    let DamageCase { path, bytes, shown, _scratch: _s, .. } = damage_case("truncated");
    for keep in [bytes.len() - 1, bytes.len() - 8, bytes.len() / 2, HEADER_LEN, HEADER_LEN - 1, 9] {
        std::fs::write(&path, &bytes[..keep]).unwrap();
        let msg = open_err(&path);
        assert!(msg.contains(&shown) && msg.contains("truncated") && msg.contains("makedb"), "{keep}: {msg}");
    }
    // Extra bytes at the end are refused too.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 8]);
    std::fs::write(&path, &longer).unwrap();
    let msg = open_err(&path);
    assert!(msg.contains(&shown) && msg.contains("damaged"), "{msg}");
}

#[test]
fn flipped_bytes_are_refused() {
    let DamageCase { db, path, bytes, shown, _scratch: _s } = damage_case("flipped");
    let residues_start = bytes.len() - (db.total_residues() as usize).next_multiple_of(8);
    let mut rng = Rng::new(17);
    // One flipped bit anywhere in the residues, the names, the lengths, or the header
    // counts and checksums.
    let mut places: Vec<usize> = (0..20).map(|_| residues_start + rng.below(db.total_residues() as usize)).collect();
    places.extend([HEADER_LEN, HEADER_LEN + 3, residues_start - 1, 12, 16, 24, 32, 40, 48, 56, 63]);
    for at in places {
        let mut bad = bytes.clone();
        bad[at] ^= 1 << rng.below(8);
        std::fs::write(&path, &bad).unwrap();
        let msg = open_err(&path);
        assert!(msg.contains(&shown) && msg.contains("damaged") && msg.contains("makedb"), "byte {at}: {msg}");
    }
    // A residue code changed to a letter the alphabet does not have is also damage.
    let mut bad = bytes.clone();
    bad[residues_start + 5] = 200;
    std::fs::write(&path, &bad).unwrap();
    assert!(open_err(&path).contains("damaged"));
}

#[test]
fn other_format_versions_are_refused() {
    let DamageCase { path, bytes, shown, _scratch: _s, .. } = damage_case("version");
    for (version, who) in [(FORMAT_VERSION + 1, "newer"), (0, "damaged"), (u32::MAX, "damaged")] {
        let mut bad = bytes.clone();
        bad[8..12].copy_from_slice(&version.to_le_bytes());
        std::fs::write(&path, &bad).unwrap();
        let msg = open_err(&path);
        assert!(
            msg.contains(&shown) && msg.contains("version") && msg.contains(&version.to_string()) && msg.contains(who),
            "{version}: {msg}"
        );
        assert!(msg.contains("clsw makedb"), "{msg}");
    }
}

#[test]
fn foreign_and_empty_files_are_refused() {
    let s = Scratch::new("foreign");
    // A FASTA file.
    let msg = open_err(&uniprot());
    assert!(msg.contains("uniprot300.fasta") && msg.contains("not a clsw prepared database"), "{msg}");
    // Random bytes, of several lengths.
    let mut rng = Rng::new(99);
    let path = s.path("random.bin");
    for len in [1, 7, 8, 63, 64, 100, 4096] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let msg = open_err(&path);
        assert!(
            msg.contains(&path.display().to_string()) && msg.contains("not a clsw prepared database"),
            "{len}: {msg}"
        );
    }
    // The magic followed by random bytes: a header that is garbage.
    for len in [8, 64, 100, 1000] {
        let mut bytes = MAGIC.to_vec();
        bytes.extend((8..len).map(|_| rng.next() as u8));
        std::fs::write(&path, &bytes).unwrap();
        let msg = open_err(&path);
        assert!(msg.contains(&path.display().to_string()) && msg.contains("makedb"), "{len}: {msg}");
    }
    // An empty file.
    let empty = s.path("empty");
    std::fs::write(&empty, b"").unwrap();
    let msg = open_err(&empty);
    assert!(msg.contains(&empty.display().to_string()) && msg.contains("empty"), "{msg}");
    // A file that does not exist: the I/O error with the path.
    let missing = s.path("missing.clswdb");
    let msg = open_err(&missing);
    assert!(msg.contains(&missing.display().to_string()), "{msg}");
    let msg = Database::open(&missing, None, EmptyRecords::Error).unwrap_err().to_string();
    assert!(msg.contains(&missing.display().to_string()), "{msg}");
}

#[test]
fn files_too_short_for_the_magic_are_damaged_databases_not_fasta() {
    let s = Scratch::new("short");
    // A beginning of the magic, whatever the name: a truncated database.
    for len in 1..MAGIC.len() {
        let path = s.path(&format!("cut{len}.fa"));
        std::fs::write(&path, &MAGIC[..len]).unwrap();
        let msg = Database::open(&path, None, EmptyRecords::Error).err().unwrap().to_string();
        assert!(msg.contains("truncated") && msg.contains(&format!("{len} bytes")), "{len}: {msg}");
    }
    // Named .clswdb and shorter than the magic: refused as a database, even when empty.
    for (name, bytes) in [("empty.clswdb", &b""[..]), ("short.CLSWDB", b">a\nA\n")] {
        let path = s.path(name);
        std::fs::write(&path, bytes).unwrap();
        let msg = Database::open(&path, None, EmptyRecords::Error).err().unwrap().to_string();
        assert!(msg.contains(name) && msg.contains("not a clsw prepared database"), "{name}: {msg}");
    }
    // Named .clswdb with a damaged magic (a database's length): refused as a database,
    // not read as bad FASTA.
    let built = s.path("whole.clswdb");
    let mut bytes = std::fs::read(s.path("cut1.fa")).unwrap();
    bytes.resize(4096, b'A');
    bytes[..3].copy_from_slice(b"XLS");
    std::fs::write(&built, &bytes).unwrap();
    let msg = Database::open(&built, None, EmptyRecords::Error).err().unwrap().to_string();
    assert!(msg.contains("whole.clswdb") && msg.contains("not a clsw prepared database"), "{msg}");
    // FASTA as short as that under another name is still FASTA.
    let path = s.path("tiny.fa");
    std::fs::write(&path, b">a\nA\n").unwrap();
    assert_eq!(Database::open(&path, None, EmptyRecords::Error).unwrap().0.len(), 1);
}

#[test]
fn empty_fasta_gives_the_reader_error() {
    let s = Scratch::new("empty-fasta");
    let path = s.path("empty.fa");
    std::fs::write(&path, b"").unwrap();
    let msg = Database::from_fasta(&path, Alphabet::Protein, EmptyRecords::Error).unwrap_err().to_string();
    assert!(msg.contains(&path.display().to_string()) && msg.contains("no FASTA records"), "{msg}");
    // Database::open on an empty file reads it as FASTA.
    let msg = Database::open(&path, None, EmptyRecords::Error).unwrap_err().to_string();
    assert!(msg.contains("no FASTA records"), "{msg}");
    // Only empty records, skipped: the reader's own wording.
    std::fs::write(&path, b">a\n>b\n").unwrap();
    let msg = Database::from_fasta(&path, Alphabet::Protein, EmptyRecords::Skip).unwrap_err().to_string();
    assert!(msg.contains("only empty FASTA records"), "{msg}");
    // With records around them, empty ones are skipped and reported.
    std::fs::write(&path, b">a\n>b\nMK\n").unwrap();
    let (db, report) = Database::from_fasta(&path, Alphabet::Protein, EmptyRecords::Skip).unwrap();
    assert_eq!(db.len(), 1);
    assert_eq!(db.id(0), "b");
    assert_eq!(report.empty_records, vec![(1, "a".to_string())]);
    // And a bad FASTA file keeps its error.
    std::fs::write(&path, b">a\nMK1\n").unwrap();
    let msg = Database::from_fasta(&path, Alphabet::Protein, EmptyRecords::Error).unwrap_err().to_string();
    assert!(msg.contains("'1'") && msg.contains("line 2"), "{msg}");
}

fn generated(sequences: usize, mean_len: usize, seed: u64) -> Vec<Sequence> {
    let mut rng = Rng::new(seed);
    (0..sequences)
        .map(|i| {
            let len = 1 + rng.below(2 * mean_len);
            Sequence {
                id: format!("gen|{i}|SEQ{i}"),
                description: format!("generated sequence number {i} OS=Nowhere"),
                residues: rng.codes(len, 24),
            }
        })
        .collect()
}

/// A database of about 20 MB of generated residues is the same database after writing
/// and opening the prepared file, and after reading it as FASTA.
#[test]
fn a_20mb_database_round_trips_through_the_prepared_file_and_fasta() {
    let (sequences, mean_len) = (50_000, 400);
    let s = Scratch::new("round-trip");
    let path = s.path("gen.clswdb");
    let db = Database::from_sequences(Alphabet::Protein, generated(sequences, mean_len, 1));
    db.write_prepared(&path).unwrap();
    let opened = Database::open_prepared(&path).unwrap();
    assert_eq!(opened.total_residues(), db.total_residues());
    assert_eq!(opened.all_residues(), db.all_residues());
    assert_eq!(opened.order_by_length(), db.order_by_length());
    let k = sequences / 2;
    assert_eq!((opened.id(k), opened.description(k)), (db.id(k), db.description(k)));

    let fa = s.path("gen.fa");
    let mut text = Vec::with_capacity(db.total_residues() as usize * 102 / 100 + 64 * db.len());
    for k in 0..db.len() {
        text.extend_from_slice(format!(">{} {}\n", db.id(k), db.description(k)).as_bytes());
        for line in Alphabet::Protein.decode_all(db.residues(k)).chunks(60) {
            text.extend_from_slice(line);
            text.push(b'\n');
        }
    }
    std::fs::write(&fa, &text).unwrap();
    let (from_fa, _) = Database::from_fasta(&fa, Alphabet::Protein, EmptyRecords::Error).unwrap();
    assert_eq!(from_fa.all_residues(), db.all_residues());
    assert_eq!(from_fa.description(k), db.description(k));
}

/// Recomputes both checksums, as a faulty writer would have.
fn reseal(bytes: &mut [u8]) {
    let pieces = clsw::seq::db::checksum_pieces(&bytes[HEADER_LEN..]);
    seal_header(bytes, pieces);
}

fn seal_header(bytes: &mut [u8], body_sum: u64) {
    bytes[48..56].copy_from_slice(&body_sum.to_le_bytes());
    let head = clsw::seq::db::checksum(&bytes[..56]);
    bytes[56..64].copy_from_slice(&head.to_le_bytes());
}

#[test]
fn version_1_files_still_open_and_their_checksum_is_one_pass() {
    assert_eq!(OLDEST_READ, 1);
    let DamageCase { path, bytes, db, _scratch: _s, .. } = damage_case("version1");
    let mut old = bytes.clone();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    let one_pass = clsw::seq::db::checksum(&old[HEADER_LEN..]);
    seal_header(&mut old, one_pass);
    std::fs::write(&path, &old).unwrap();
    let opened = Database::open_prepared(&path).unwrap();
    assert_eq!((opened.len(), opened.all_residues()), (db.len(), db.all_residues()));
    // The same bytes as version 2 are damage: the version decides the checksum.
    old[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    let head = clsw::seq::db::checksum(&old[..56]);
    old[56..64].copy_from_slice(&head.to_le_bytes());
    std::fs::write(&path, &old).unwrap();
    assert!(open_err(&path).contains("damaged"));
}

#[test]
fn well_sealed_but_invalid_content_is_refused() {
    let s = Scratch::new("invalid");
    let seqs = vec![
        Sequence { id: "a".into(), description: "first".into(), residues: vec![0, 1, 2] },
        Sequence { id: "b".into(), description: "".into(), residues: vec![3; 5] },
    ];
    let db = Database::from_sequences(Alphabet::Dna, seqs);
    let (path, bytes) = prepared_file(&s, &db);
    let shown = path.display().to_string();
    // Layout: header 64, lengths 8, name offsets 40, names 8 ("afirstb"), residues 8.
    assert_eq!(bytes.len(), 64 + 8 + 40 + 8 + 8);
    type Edit = fn(&mut [u8]);
    let cases: [(&str, Edit); 10] = [
        ("residue code 9", |b| b[64 + 8 + 40 + 8 + 4] = 9),
        // An id with a tab would split the tabular and SAM records it is written to.
        ("U+0009", |b| b[64 + 8 + 40] = b'\t'),
        ("add up to", |b| b[64] = 4),
        ("longest", |b| b[40] = 9),
        ("alphabet 7", |b| b[12] = 7),
        ("name offset 2", |b| b[64 + 8 + 16] = 0),
        ("name offset 1", |b| b[64 + 8 + 8] = 200),
        ("UTF-8", |b| b[64 + 8 + 40] = 0xff),
        ("impossible", |b| b[16..24].copy_from_slice(&u64::MAX.to_le_bytes())),
        ("truncated", |b| b[24] = 100),
    ];
    for (reason, edit) in cases {
        let mut bad = bytes.clone();
        edit(&mut bad);
        reseal(&mut bad);
        std::fs::write(&path, &bad).unwrap();
        let msg = open_err(&path);
        assert!(msg.contains(&shown) && msg.contains(reason) && msg.contains("makedb"), "{reason}: {msg}");
    }
    // The unedited, resealed file still opens.
    let mut good = bytes.clone();
    reseal(&mut good);
    assert_eq!(good, bytes);
    std::fs::write(&path, &good).unwrap();
    assert_same(&db, &Database::open_prepared(&path).unwrap());
}

/// A prepared database cut short by another program while it is open (mapped): the
/// pages past the new end read as zeros instead of ending the process with SIGBUS,
/// and the database says it was cut, as does a search of it and a part of it.
#[test]
fn a_prepared_file_cut_short_while_open_is_reported_not_a_crash() {
    use clsw::Engine;
    use clsw::device::DeviceChoice;
    use clsw::scoring::{Gaps, Matrix, Scoring};
    use clsw::search::{SearchOptions, Searcher};
    let s = Scratch::new("cut-short");
    let (db, _) = Database::from_fasta(&uniprot(), Alphabet::Protein, EmptyRecords::Error).unwrap();
    let (path, bytes) = prepared_file(&s, &db);
    assert!(bytes.len() > 3 * 4096, "{}", bytes.len());
    let opened = Database::open_prepared(&path).unwrap();
    let engine = Engine::new(DeviceChoice::Native).unwrap();
    let scoring = Scoring::new(Matrix::builtin("BLOSUM62").unwrap(), Gaps::affine(11, 1).unwrap());
    let searcher = Searcher::new(&engine, &opened, scoring, SearchOptions::default()).unwrap();
    let query = db.sequence(0);
    assert!(searcher.search(&query).is_ok());
    opened.check_intact().unwrap();

    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(4096).unwrap();
    // Every residue is read: the lost pages give zeros (code 0), not a fault.
    let zeros: usize = (0..opened.len()).map(|k| opened.residues(k).iter().filter(|&&c| c == 0).count()).sum();
    assert!(zeros > 0);
    let cut = |e: clsw::Error| {
        let text = e.to_string();
        assert!(text.contains(&format!("{} was cut short by another program", path.display())), "{text}");
    };
    cut(opened.check_intact().unwrap_err());
    cut(searcher.search(&query).unwrap_err());
    cut(searcher.scores(&query).unwrap_err());
    cut(opened.part(0..2).unwrap_err());
    // A database opened afterwards from the cut file is refused as truncated.
    assert!(open_err(&path).contains("truncated"), "{}", open_err(&path));
}
