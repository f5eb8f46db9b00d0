// clsw.hpp: a header-only C++17 wrapper over clsw's C ABI (clsw.h).
//
// RAII handles: Engine, Scoring, Database and Searcher are cheap to copy (shared
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
    SearchOptions() : clsw_search_options() { check(clsw_search_options_init(this, sizeof(clsw_search_options))); }
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

} // namespace clsw

#endif // CLSW_HPP
