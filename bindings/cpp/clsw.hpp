// clsw.hpp: a header-only C++17 wrapper over clsw's C ABI (clsw.h).
//
// Every entry point: scan (Searcher), align, psse (psse, psse_many), distance
// (DistanceResult), sw3 (sw3_score, sw3_align, sw3_batch, sax).
//
// RAII handles: Engine, Scoring, Database, Searcher and DistanceResult are cheap to copy (shared
// ownership, like the C handles they wrap they may be shared between threads);
// Hits and Alignment results are plain values. Every failure throws clsw::error,
// which carries the clsw_status and clsw_last_error()'s message.
//
//   clsw::Engine engine;                                   // CLSW_DEVICE, else "auto"
//   auto scoring = clsw::Scoring::builtin("BLOSUM62", 11, 1);
//   auto db = clsw::Database::fasta("db.fasta");
//   clsw::Searcher searcher(engine, scoring, db);           // the database goes to the devices once
//   for (const clsw::Hit &h : searcher.search("MKTAYIAKQR", "q1").hits) ...
//
// Link like a C program: c++ -std=c++17 app.cpp $(pkg-config --cflags --libs clsw)
#ifndef CLSW_HPP
#define CLSW_HPP

#include <clsw.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace clsw {

/// A failed clsw call: the status and the library's detailed message.
class error : public std::runtime_error {
  public:
    error(clsw_status status, const std::string &message)
        : std::runtime_error(std::string(clsw_status_str(status)) + ": " + message), status_(status),
          message_(message) {}
    /// The C status code.
    clsw_status status() const noexcept { return status_; }
    /// clsw_last_error() at the time of the failure.
    const std::string &message() const noexcept { return message_; }

  private:
    clsw_status status_;
    std::string message_;
};

/// Throws clsw::error unless `status` is CLSW_OK.
inline void check(clsw_status status) {
    if (status != CLSW_OK) throw error(status, clsw_last_error());
}

/// The library's version at run time ("MAJOR.MINOR.PATCH").
inline std::string version() { return clsw_version(); }

namespace detail {
/// Reads text through a clsw getter (buffer, length, needed), growing the buffer once.
template <class Get> std::string text(Get get) {
    std::string buf(64, '\0');
    size_t needed = 0;
    clsw_status st = get(&buf[0], buf.size(), &needed);
    if (st == CLSW_ERR_BUFFER_TOO_SMALL) {
        buf.assign(needed, '\0');
        st = get(&buf[0], buf.size(), &needed);
    }
    check(st);
    buf.resize(needed > 0 ? needed - 1 : 0);
    return buf;
}

inline const uint8_t *bytes(std::string_view s) { return reinterpret_cast<const uint8_t *>(s.data()); }
} // namespace detail

/// One OpenCL device on this machine.
struct DeviceInfo {
    size_t index;
    clsw_device_kind kind;
    std::string name, platform, opencl_c_version, driver_version;
    uint64_t global_mem_bytes, max_alloc_bytes, local_mem_bytes;
    uint32_t compute_units, clock_mhz;
};

/// Every OpenCL device of every platform (empty without an OpenCL runtime).
inline std::vector<DeviceInfo> devices() {
    size_t n = 0;
    check(clsw_device_count(&n));
    std::vector<DeviceInfo> out;
    for (size_t i = 0; i < n; i++) {
        clsw_device_info d{};
        d.size = sizeof d;
        check(clsw_device_get(i, &d));
        out.push_back({d.index, d.kind, d.name, d.platform, d.opencl_c_version, d.driver_version, d.global_mem_bytes,
                       d.max_alloc_bytes, d.local_mem_bytes, d.compute_units, d.clock_mhz});
    }
    return out;
}

/// The devices work runs on. Shareable between threads.
class Engine {
  public:
    /// `device`: "auto", "gpu", "cpu", "reference", "all", an index, a name substring, or a
    /// comma-separated list; nullptr means CLSW_DEVICE, else "auto".
    explicit Engine(const char *device = nullptr) {
        clsw_engine *e = nullptr;
        check(clsw_engine_new(device, &e));
        handle_.reset(e, clsw_engine_free);
    }
    explicit Engine(const std::string &device) : Engine(device.c_str()) {}

    /// One line per device in use.
    std::string describe() const {
        return detail::text([&](char *b, size_t n, size_t *need) { return clsw_engine_describe(get(), b, n, need); });
    }
    size_t device_count() const {
        size_t n = 0;
        check(clsw_engine_device_count(get(), &n));
        return n;
    }
    const clsw_engine *get() const noexcept { return handle_.get(); }

  private:
    std::shared_ptr<clsw_engine> handle_;
};

/// A substitution matrix and gap penalties (BLAST's convention: a gap of length L costs
/// open + L * extend). Read-only; shareable.
class Scoring {
  public:
    /// A built-in matrix (BLOSUM45/50/62/80/90, PAM30/70/250, EDNAFULL); CLSW_GAPS_DEFAULT
    /// for both penalties gives the matrix's customary ones.
    static Scoring builtin(const std::string &matrix, int gap_open = CLSW_GAPS_DEFAULT,
                           int gap_extend = CLSW_GAPS_DEFAULT) {
        clsw_scoring *s = nullptr;
        check(clsw_scoring_new_builtin(matrix.c_str(), gap_open, gap_extend, &s));
        return Scoring(s);
    }
    /// An NCBI-format matrix file.
    static Scoring file(const std::string &path, int gap_open = CLSW_GAPS_DEFAULT, int gap_extend = CLSW_GAPS_DEFAULT) {
        clsw_scoring *s = nullptr;
        check(clsw_scoring_new_file(path.c_str(), gap_open, gap_extend, &s));
        return Scoring(s);
    }
    /// `match` for identical residues, `mismatch` otherwise.
    static Scoring match_mismatch(clsw_alphabet alphabet, int match, int mismatch, int gap_open, int gap_extend) {
        clsw_scoring *s = nullptr;
        check(clsw_scoring_new_match_mismatch(alphabet, match, mismatch, gap_open, gap_extend, &s));
        return Scoring(s);
    }
    clsw_alphabet alphabet() const {
        clsw_alphabet a = 0;
        check(clsw_scoring_alphabet(get(), &a));
        return a;
    }
    std::string name() const {
        return detail::text([&](char *b, size_t n, size_t *need) { return clsw_scoring_name(get(), b, n, need); });
    }
    /// A copy in alignment mode `mode`: CLSW_MODE_LOCAL, CLSW_MODE_GLOBAL (ggsearch36) or
    /// CLSW_MODE_GLOCAL (glsearch36).
    Scoring with_mode(clsw_mode mode) const {
        clsw_scoring *s = nullptr;
        check(clsw_scoring_with_mode(get(), mode, &s));
        return Scoring(s);
    }
    /// A copy that scores `query` with a profile (PSSM): `scores[i * columns.size() + k]`
    /// is position i's score against letter `columns[k]`; letters not in `columns` score
    /// as the matrix scores them against the position's residue. Searches with it take
    /// `query` only.
    Scoring with_pssm(const std::string &query, const std::string &columns, const std::vector<int32_t> &scores) const {
        clsw_scoring *s = nullptr;
        check(clsw_scoring_with_pssm(get(), reinterpret_cast<const uint8_t *>(query.data()), query.size(),
                                     reinterpret_cast<const uint8_t *>(columns.data()), columns.size(),
                                     scores.data(), &s));
        return Scoring(s);
    }
    clsw_mode mode() const {
        clsw_mode m = 0;
        check(clsw_scoring_mode(get(), &m));
        return m;
    }
    const clsw_scoring *get() const noexcept { return handle_.get(); }

  private:
    explicit Scoring(clsw_scoring *s) : handle_(s, clsw_scoring_free) {}
    std::shared_ptr<clsw_scoring> handle_;
};

/// Subject sequences in database order. Read-only; shareable.
class Database {
  public:
    /// A FASTA file (plain or gzip); CLSW_ALPHABET_AUTO guesses the alphabet.
    static Database fasta(const std::string &path, clsw_alphabet alphabet = CLSW_ALPHABET_AUTO) {
        clsw_db *d = nullptr;
        check(clsw_db_new_fasta(path.c_str(), alphabet, &d));
        return Database(d);
    }
    /// A prepared database (clsw makedb, or write_prepared).
    static Database prepared(const std::string &path) {
        clsw_db *d = nullptr;
        check(clsw_db_new_prepared(path.c_str(), &d));
        return Database(d);
    }
    /// Sequences (residue letters) in memory, with optional names ("id description").
    static Database sequences(clsw_alphabet alphabet, const std::vector<std::string> &seqs,
                              const std::vector<std::string> &names = {}) {
        std::vector<const uint8_t *> ptrs;
        std::vector<size_t> lens;
        std::vector<const char *> cnames;
        for (const auto &s : seqs) {
            ptrs.push_back(detail::bytes(s));
            lens.push_back(s.size());
        }
        for (const auto &n : names) cnames.push_back(n.c_str());
        if (!names.empty() && names.size() != seqs.size())
            throw error(CLSW_ERR_INVALID_ARGUMENT, "names and sequences differ in number");
        clsw_db *d = nullptr;
        check(clsw_db_new_sequences(alphabet, seqs.size(), ptrs.data(), lens.data(),
                                    names.empty() ? nullptr : cnames.data(), &d));
        return Database(d);
    }
    void write_prepared(const std::string &path) const { check(clsw_db_write_prepared(get(), path.c_str())); }
    size_t size() const {
        size_t n = 0;
        check(clsw_db_count(get(), &n));
        return n;
    }
    clsw_alphabet alphabet() const {
        clsw_alphabet a = 0;
        check(clsw_db_alphabet(get(), &a));
        return a;
    }
    std::string id(size_t k) const {
        return detail::text([&](char *b, size_t n, size_t *need) { return clsw_db_id(get(), k, b, n, need); });
    }
    /// Sequence k's residues as letters.
    std::string sequence(size_t k) const {
        return detail::text([&](char *b, size_t n, size_t *need) { return clsw_db_sequence(get(), k, b, n, need); });
    }
    const clsw_db *get() const noexcept { return handle_.get(); }

  private:
    explicit Database(clsw_db *d) : handle_(d, clsw_db_free) {}
    std::shared_ptr<clsw_db> handle_;
};

/// Search options, initialised to the library's defaults.
struct SearchOptions : clsw_search_options {
    SearchOptions();
};

/// One hit (coordinates 1-based inclusive, BLAST's convention; see clsw_hit in clsw.h).
struct Hit {
    size_t subject;
    std::string subject_id;
    size_t subject_length;
    int32_t score;
    clsw_strand strand;
    double evalue, bit_score;
    bool has_alignment;
    size_t query_start, query_end, subject_start, subject_end;
    size_t length, identities, similarities, mismatches, gap_opens, gap_columns;
    double percent_identity;
    std::string cigar; // empty unless asked for with SearchOptions::cigar
    std::string tabular; // the BLAST tabular line (empty without alignments)
};

/// One query's results: the hits, best first, and the search's statistics.
struct SearchResult {
    std::vector<Hit> hits;
    clsw_search_info info;
};

/// A database laid out on an engine's devices, for every query. Shareable between threads.
class Searcher {
  public:
    Searcher(const Engine &engine, const Scoring &scoring, const Database &db,
             const clsw_search_options *options = nullptr)
        : db_size_(db.size()) {
        clsw_searcher *s = nullptr;
        check(clsw_searcher_new(engine.get(), scoring.get(), db.get(), options, &s));
        handle_.reset(s, clsw_searcher_free);
    }

    /// Searches one query (residue letters).
    SearchResult search(std::string_view query, const std::string &id = "query") const {
        clsw_hits *raw = nullptr;
        check(clsw_searcher_search(get(), id.c_str(), detail::bytes(query), query.size(), &raw));
        std::unique_ptr<clsw_hits, void (*)(clsw_hits *)> hits(raw, clsw_hits_free);
        SearchResult r{};
        r.info.size = sizeof r.info;
        check(clsw_hits_info(hits.get(), &r.info));
        for (size_t i = 0; i < r.info.hits; i++) {
            clsw_hit h{};
            h.size = sizeof h;
            check(clsw_hits_get(hits.get(), i, &h));
            Hit x{h.subject, h.subject_id, h.subject_length, h.score, h.strand, h.evalue, h.bit_score,
                  h.has_alignment != 0, h.query_start, h.query_end, h.subject_start, h.subject_end, h.length,
                  h.identities, h.similarities, h.mismatches, h.gap_opens, h.gap_columns, h.percent_identity,
                  h.cigar ? h.cigar : "", ""};
            if (x.has_alignment) {
                x.tabular = detail::text(
                    [&](char *b, size_t n, size_t *need) { return clsw_hits_tabular(hits.get(), i, 0, b, n, need); });
            }
            r.hits.push_back(std::move(x));
        }
        return r;
    }

    /// Every subject's score against the query, database order.
    std::vector<int32_t> scores(std::string_view query) const {
        std::vector<int32_t> out(db_size_);
        check(clsw_searcher_scores(get(), detail::bytes(query), query.size(), out.data(), out.size()));
        return out;
    }
    const clsw_searcher *get() const noexcept { return handle_.get(); }

  private:
    size_t db_size_;
    std::shared_ptr<clsw_searcher> handle_;
};

/// A pairwise local alignment (coordinates 1-based inclusive; all zero and strings empty
/// when nothing scores above 0).
struct Alignment {
    int32_t score;
    size_t query_start, query_end, subject_start, subject_end;
    size_t length, identities, similarities, mismatches, gap_opens, gap_columns;
    double percent_identity;
    std::string cigar, cigar_m, query_row, midline, subject_row;
};

/// The optimal local alignment of two sequences (residue letters), with traceback.
inline Alignment align(const Scoring &scoring, std::string_view query, std::string_view subject) {
    clsw_alignment *raw = nullptr;
    check(clsw_align(scoring.get(), detail::bytes(query), query.size(), detail::bytes(subject), subject.size(), &raw));
    std::unique_ptr<clsw_alignment, void (*)(clsw_alignment *)> a(raw, clsw_alignment_free);
    clsw_alignment_info i{};
    i.size = sizeof i;
    check(clsw_alignment_get(a.get(), &i));
    return Alignment{i.score,      i.query_start, i.query_end,  i.subject_start,    i.subject_end,
                     i.length,     i.identities,  i.similarities, i.mismatches,     i.gap_opens,
                     i.gap_columns, i.percent_identity, i.cigar, i.cigar_m, i.query_row, i.midline, i.subject_row};
}

/// The optimal local score alone.
inline int32_t align_score(const Scoring &scoring, std::string_view query, std::string_view subject) {
    int32_t score = 0;
    check(clsw_align_score(scoring.get(), detail::bytes(query), query.size(), detail::bytes(subject), subject.size(),
                           &score));
    return score;
}

namespace detail {
/// A C options struct filled with the library's defaults (`clsw_*_options_init`).
template <class T, class Init> T options(Init init) {
    T o{};
    check(init(&o, sizeof o));
    return o;
}

/// Pointers and lengths of caller sequences, for the calls that take arrays of them.
struct Arrays {
    std::vector<const uint8_t *> ptrs;
    std::vector<size_t> lens;
    explicit Arrays(const std::vector<std::string> &seqs) {
        for (const auto &s : seqs) {
            ptrs.push_back(bytes(s));
            lens.push_back(s.size());
        }
    }
};

/// A results struct whose `size` is set, as the C getters want it.
template <class T> T sized() {
    T v{};
    v.size = sizeof(T);
    return v;
}
} // namespace detail

// ---- psse: pairwise statistical significance ----

/// psse options, initialised to the library's defaults.
struct PsseOptions : clsw_psse_options {
    PsseOptions() : clsw_psse_options(detail::options<clsw_psse_options>(clsw_psse_options_init)) {}
};

/// One pair's significance: the fields of clsw_psse_result (its `error` pointer is NULL
/// here), `message` why a pair of psse_many has no statistics (`status` is then not
/// CLSW_OK), `shuffle_scores` when the options kept them.
struct PsseResult : clsw_psse_result {
    std::string message;
    std::vector<int32_t> shuffle_scores;
};

/// The significance of one pair (residue letters).
inline PsseResult psse(const Engine &engine, const Scoring &scoring, std::string_view query, std::string_view subject,
                       const clsw_psse_options *options = nullptr) {
    PsseResult r{};
    static_cast<clsw_psse_result &>(r) = detail::sized<clsw_psse_result>();
    check(clsw_psse(engine.get(), scoring.get(), detail::bytes(query), query.size(), detail::bytes(subject),
                    subject.size(), options, &r));
    return r;
}

/// Every pair of queries x subjects, query-major; a pair that cannot be fitted carries
/// its own status and message instead of throwing.
inline std::vector<PsseResult> psse_many(const Engine &engine, const Scoring &scoring,
                                         const std::vector<std::string> &queries,
                                         const std::vector<std::string> &subjects,
                                         const clsw_psse_options *options = nullptr) {
    detail::Arrays q(queries), s(subjects);
    clsw_psse_results *raw = nullptr;
    check(clsw_psse_many(engine.get(), scoring.get(), queries.size(), q.ptrs.data(), q.lens.data(), subjects.size(),
                         s.ptrs.data(), s.lens.data(), options, &raw));
    std::unique_ptr<clsw_psse_results, void (*)(clsw_psse_results *)> results(raw, clsw_psse_results_free);
    size_t n = 0;
    check(clsw_psse_results_count(results.get(), &n));
    std::vector<PsseResult> out(n);
    for (size_t i = 0; i < n; i++) {
        PsseResult &r = out[i];
        static_cast<clsw_psse_result &>(r) = detail::sized<clsw_psse_result>();
        check(clsw_psse_results_get(results.get(), i, &r));
        if (r.error) r.message = r.error;
        r.error = nullptr; // it dies with the results handle
        if (r.status == CLSW_OK && options && options->keep_scores) {
            r.shuffle_scores.resize(r.shuffles);
            check(clsw_psse_results_scores(results.get(), i, r.shuffle_scores.data(), r.shuffle_scores.size(),
                                           nullptr));
        }
    }
    return out;
}

// ---- distance: all-pairs distance matrices ----

/// Distance options, initialised to the library's defaults.
struct DistanceOptions : clsw_distance_options {
    DistanceOptions() : clsw_distance_options(detail::options<clsw_distance_options>(clsw_distance_options_init)) {}
};

/// An all-pairs distance matrix (samples x samples, row-major). Immutable; cheap to copy.
class DistanceResult {
  public:
    /// Aligned sequences (all the same length).
    static DistanceResult aligned(const Engine &engine, const std::vector<std::string> &sequences,
                                  const clsw_distance_options *options = nullptr) {
        detail::Arrays a(sequences);
        return make([&](clsw_distance_result **out) {
            return clsw_distance_aligned(engine.get(), sequences.size(), a.ptrs.data(), a.lens.data(), options, out);
        });
    }
    /// A FASTA multiple alignment (plain or gzip).
    static DistanceResult fasta(const Engine &engine, const std::string &path,
                                const clsw_distance_options *options = nullptr) {
        return make([&](clsw_distance_result **out) {
            return clsw_distance_fasta(engine.get(), path.c_str(), options, out);
        });
    }
    /// A PLINK .bed/.bim/.fam fileset by its prefix.
    static DistanceResult bed(const Engine &engine, const std::string &prefix,
                              const clsw_distance_options *options = nullptr) {
        return make([&](clsw_distance_result **out) {
            return clsw_distance_bed(engine.get(), prefix.c_str(), options, out);
        });
    }
    /// A 0/1/2 genotype table file.
    static DistanceResult genotype_table(const Engine &engine, const std::string &path,
                                         const clsw_distance_options *options = nullptr) {
        return make([&](clsw_distance_result **out) {
            return clsw_distance_genotype_table(engine.get(), path.c_str(), options, out);
        });
    }
    /// A samples x sites genotype matrix, row-major (0, 1, 2; anything else missing).
    static DistanceResult genotypes(const Engine &engine, const std::vector<int8_t> &matrix, size_t samples,
                                    size_t sites, const clsw_distance_options *options = nullptr) {
        if (matrix.size() != samples * sites)
            throw error(CLSW_ERR_INVALID_ARGUMENT, "the genotype matrix is not samples x sites");
        return make([&](clsw_distance_result **out) {
            return clsw_distance_genotypes(engine.get(), matrix.data(), samples, sites, options, out);
        });
    }

    /// The number of samples n.
    size_t count() const {
        size_t n = 0;
        check(clsw_distance_result_count(get(), &n));
        return n;
    }
    /// Sites in the input and sites counted (`ignore_constant` drops some).
    std::pair<uint64_t, uint64_t> sites() const {
        uint64_t s = 0, c = 0;
        check(clsw_distance_result_sites(get(), &s, &c));
        return {s, c};
    }
    /// Differences, n x n.
    std::vector<uint32_t> matrix() const {
        return square<uint32_t>([&](uint32_t *b, size_t n) { return clsw_distance_result_matrix(get(), b, n, nullptr); });
    }
    /// Compared sites, n x n (throws unless counted: want_compared or a metric).
    std::vector<uint32_t> compared() const {
        return square<uint32_t>(
            [&](uint32_t *b, size_t n) { return clsw_distance_result_compared(get(), b, n, nullptr); });
    }
    /// The options' metric, n x n.
    std::vector<double> values() const {
        return square<double>([&](double *b, size_t n) { return clsw_distance_result_values(get(), b, n, nullptr); });
    }
    /// Sample i's name (file inputs only).
    std::string name(size_t i) const {
        return detail::text(
            [&](char *b, size_t n, size_t *need) { return clsw_distance_result_name(get(), i, b, n, need); });
    }
    /// Sample i's family id (PLINK's FID; the name for other inputs).
    std::string family(size_t i) const {
        return detail::text(
            [&](char *b, size_t n, size_t *need) { return clsw_distance_result_family(get(), i, b, n, need); });
    }
    const clsw_distance_result *get() const noexcept { return handle_.get(); }

  private:
    template <class Make> static DistanceResult make(Make m) {
        clsw_distance_result *d = nullptr;
        check(m(&d));
        DistanceResult r;
        r.handle_.reset(d, clsw_distance_result_free);
        return r;
    }
    template <class T, class Get> std::vector<T> square(Get get) const {
        size_t n = count();
        std::vector<T> out(n * n);
        check(get(out.data(), out.size()));
        return out;
    }
    std::shared_ptr<clsw_distance_result> handle_;
};

// ---- sw3: three-sequence local alignment, batches, SAX ----

/// sw3 options, initialised to the library's defaults (residue letters).
struct Sw3Options : clsw_sw3_options {
    Sw3Options() : clsw_sw3_options(detail::options<clsw_sw3_options>(clsw_sw3_options_init)) {}
};

/// A triple's best local score and end cell (1-based per sequence; all 0 for score 0).
struct Sw3Score {
    int32_t score;
    size_t end[3];
};

/// The best local three-sequence score of a, b, c.
inline Sw3Score sw3_score(const Engine &engine, const Scoring &scoring, std::string_view a, std::string_view b,
                          std::string_view c, const clsw_sw3_options *options = nullptr) {
    Sw3Score r{};
    check(clsw_sw3_score(engine.get(), scoring.get(), detail::bytes(a), a.size(), detail::bytes(b), b.size(),
                         detail::bytes(c), c.size(), options, &r.score, r.end));
    return r;
}

/// A three-sequence alignment (the fields of clsw_sw3_alignment_info, whose row
/// pointers are NULL here) and its three gapped rows.
struct Sw3Alignment : clsw_sw3_alignment_info {
    std::string row[3];
};

/// The optimal local alignment of a, b, c with traceback.
inline Sw3Alignment sw3_align(const Engine &engine, const Scoring &scoring, std::string_view a, std::string_view b,
                              std::string_view c, const clsw_sw3_options *options = nullptr) {
    clsw_sw3_alignment *raw = nullptr;
    check(clsw_sw3_align(engine.get(), scoring.get(), detail::bytes(a), a.size(), detail::bytes(b), b.size(),
                         detail::bytes(c), c.size(), options, &raw));
    std::unique_ptr<clsw_sw3_alignment, void (*)(clsw_sw3_alignment *)> h(raw, clsw_sw3_alignment_free);
    Sw3Alignment r{};
    static_cast<clsw_sw3_alignment_info &>(r) = detail::sized<clsw_sw3_alignment_info>();
    check(clsw_sw3_alignment_get(h.get(), &r));
    for (int k = 0; k < 3; k++) {
        r.row[k] = r.rows[k];
        r.rows[k] = nullptr; // they die with the handle
    }
    return r;
}

/// Scores `triples` of `sequences` (every triple a < b < c when empty), highest first.
inline std::vector<clsw_sw3_row> sw3_batch(const Engine &engine, const Scoring &scoring,
                                           const std::vector<std::string> &sequences,
                                           const std::vector<uint32_t> &triples = {},
                                           const clsw_sw3_options *options = nullptr) {
    detail::Arrays a(sequences);
    clsw_sw3_results *raw = nullptr;
    check(clsw_sw3_batch(engine.get(), scoring.get(), sequences.size(), a.ptrs.data(), a.lens.data(),
                         triples.empty() ? nullptr : triples.data(), triples.size() / 3, options, &raw));
    std::unique_ptr<clsw_sw3_results, void (*)(clsw_sw3_results *)> results(raw, clsw_sw3_results_free);
    size_t n = 0;
    check(clsw_sw3_results_count(results.get(), &n));
    std::vector<clsw_sw3_row> out(n, detail::sized<clsw_sw3_row>());
    for (size_t i = 0; i < n; i++) check(clsw_sw3_results_get(results.get(), i, &out[i]));
    return out;
}

/// The SAX word of a series: codes 0 .. alphabet - 1 (`*constant` set for a constant series).
inline std::vector<uint8_t> sax(const std::vector<double> &series, size_t word, size_t alphabet,
                                bool *constant = nullptr) {
    std::vector<uint8_t> codes(word);
    int32_t flat = 0;
    check(clsw_sax(series.data(), series.size(), word, alphabet, codes.data(), codes.size(), &flat));
    if (constant) *constant = flat != 0;
    return codes;
}

inline SearchOptions::SearchOptions()
    : clsw_search_options(detail::options<clsw_search_options>(clsw_search_options_init)) {}

} // namespace clsw

#endif // CLSW_HPP
